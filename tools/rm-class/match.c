/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-class match and explain: device records against a class, from standard input or found. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices.h"
#include "exitcodes.h"
#include "input.h"
#include "output.h"
#include "rm-class.h"
#include "xalloc.h"

/* ---- the device records ---- */

void devices_in_free(struct devices_in *in)
{
	for (size_t i = 0; i < in->n; i++) {
		rm_record_free(&in->recs[i]);
		if (in->lines)
			free(in->lines[i]);
	}
	free(in->recs);
	free(in->lines);
	memset(in, 0, sizeof(*in));
}

/*
 * Whether the records come from standard input. Not when --sysroot (or --topology) is on the
 * command line (a snapshot's devices are wanted; the variables alone do not count, so that a pipe
 * still works with them set), nor when standard input is closed, a terminal or /dev/null (cron, systemd): then
 * nobody is piping records in.
 */
static bool from_stdin(const struct rm_common *c)
{
	struct stat st, null;

	if (rm_input_resolve(c)->given)
		return false;
	if (fstat(STDIN_FILENO, &st) < 0 || isatty(STDIN_FILENO))
		return false;
	return !(S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
		 st.st_rdev == null.st_rdev);
}

__attribute__((noreturn))
static void input_fail(struct devices_in *in, char *line, int status, char *msg)
{
	rm_warnx("standard input: %s", msg);
	free(msg);
	free(line);
	devices_in_free(in);
	exit(status);
}

static void read_stdin(struct devices_in *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;

	in->lines = xcalloc(1, sizeof(*in->lines));
	errno = 0;
	while ((len = getline(&line, &cap, stdin)) >= 0) {
		struct rm_record rec;
		const char *p = line;
		char *msg = NULL;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len)
			input_fail(in, line, RM_EXIT_USAGE,
				   xasprintf("line %u, column %zu: NUL byte in input", lineno,
					     strlen(line) + 1));
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (rm_record_parse_line(line, lineno, &rec, &msg))
			input_fail(in, line, RM_EXIT_USAGE, msg);
		if (strcmp(rm_record_kind(&rec), "device")) {
			rm_record_free(&rec); /* not a device: a node, a CPU, an allocation */
			continue;
		}
		in->recs = xrealloc(in->recs, (in->n + 1) * sizeof(*in->recs));
		in->lines = xrealloc(in->lines, (in->n + 1) * sizeof(*in->lines));
		in->recs[in->n] = rec;
		in->lines[in->n++] = xstrdup(line);
	}
	if (ferror(stdin))
		input_fail(in, line, RM_EXIT_FAILURE,
			   xasprintf("cannot read: %s", strerror(errno ? errno : EIO)));
	free(line);
}

static void discover(const struct rm_common *c, const struct rm_selector *sel,
		     struct devices_in *in)
{
	const struct rm_input *input = rm_input_resolve(c);
	struct rm_devices devs;
	char *msg = NULL;

	if (rm_input_described(input))
		rm_usage_errx("devices are read from sysfs, which a described topology does not have: "
			      "'%s' (use --sysroot with a snapshot)", rm_input_name(input));
	/* memory is asked of NVML only for a selector that reads it */
	if (rm_devices_scan(rm_input_root(input), RM_DEVICES_NAMES |
			    (rm_selector_uses(sel, "memory") ? RM_DEVICES_MEMORY : 0), &devs,
			    &msg) < 0) {
		rm_warnx("%s", msg);
		free(msg);
		exit(RM_EXIT_USAGE);
	}
	in->recs = xcalloc(devs.n, sizeof(*in->recs));
	for (size_t i = 0; i < devs.n; i++)
		rm_devices_record(&devs.dev[i], &in->recs[i]);
	in->n = devs.n;
	rm_devices_free(&devs);
}

void devices_read(const struct rm_common *c, const struct rm_selector *sel,
		  struct devices_in *in)
{
	memset(in, 0, sizeof(*in));
	if (from_stdin(c))
		read_stdin(in);
	else
		discover(c, sel, in);
}

/* Warn about a field the selector reads that no record piped in has at all: rm-devices list
 * leaves most fields out unless -o names them, and a class on them then matches nothing. */
static void warn_absent(const char *field, unsigned line, unsigned column, bool known, void *arg)
{
	const struct devices_in *in = arg;

	(void)line;
	(void)column;
	(void)known;
	for (size_t i = 0; i < in->n; i++)
		if (rm_record_get(&in->recs[i], field))
			return;
	rm_warnx("warning: no device record on standard input has the field '%s' "
		"(rm-devices list -o +%s)", field, field);
}

void devices_check_fields(const struct devices_in *in, const struct rm_selector *sel)
{
	if (in->lines && in->n)
		rm_selector_each_field(sel, warn_absent, (void *)in);
}

/* ---- match ---- */

enum { OPT_SELECTOR = 's', OPT_COUNT = 'c', OPT_INVERT = 'v' };

struct match_args {
	struct rm_common *common;
	const char *cls;
	const char *selector;
	const char *device; /* explain */
	unsigned count;
	bool invert;
	bool explain;
};

static const struct argp_option match_options[] = {
	{ "count", OPT_COUNT, "N", 0, "fail with exit status 3 when fewer than N devices match", 0 },
	{ "invert-match", OPT_INVERT, NULL, 0, "the devices that are not in the class", 0 },
	{ "selector", OPT_SELECTOR, "EXPR", 0, "this selector instead of a class", 0 },
	{ 0 }
};

static const struct argp_option explain_options[] = {
	{ "selector", OPT_SELECTOR, "EXPR", 0, "this selector instead of a class", 0 },
	{ 0 }
};

static error_t match_parse(int key, char *arg, struct argp_state *state)
{
	struct match_args *a = state->input;
	uint64_t n;

	switch (key) {
	case OPT_SELECTOR:
		a->selector = arg;
		break;
	case OPT_COUNT:
		if (rm_parse_uint(arg, 1, 1000000, &n))
			argp_error(state, "invalid count: '%s' (from 1 to 1000000)", arg);
		a->count = (unsigned)n;
		break;
	case OPT_INVERT:
		a->invert = true;
		break;
	case ARGP_KEY_ARG:
		/* options come first (argp permutes): CLASS unless --selector, then DEVICE */
		if (!a->cls && !a->selector)
			a->cls = arg;
		else if (!a->explain && a->selector)
			argp_error(state, "a CLASS or --selector, not both");
		else if (a->explain && !a->device)
			a->device = arg;
		else
			argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->common->out.list_columns)
			break;
		if (!a->cls && !a->selector)
			argp_error(state, "missing CLASS (or --selector EXPR)");
		if (a->explain && !a->device)
			argp_error(state, "missing DEVICE");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The selector of A: its class's, or --selector's (*OWN: to be freed). */
static const struct rm_selector *selector_of(const struct match_args *a,
					     struct rm_selector **own)
{
	*own = NULL;
	if (a->selector)
		return *own = selector_arg(a->selector);
	return class_named(a->cls)->sel;
}

int cmd_match(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		match_options, match_parse, "CLASS\n--selector EXPR",
		"Print the device records that belong to CLASS, unchanged and in input order: the "
		"records on standard input (rm-devices list -o ... | rm-class match CLASS), or the "
		"devices found on this machine (or under --sysroot) when standard input is a "
		"terminal, closed or /dev/null. Records of other kinds are left out.",
		NULL, NULL, NULL
	};
	struct match_args a = { .common = c };
	struct rm_selector *own;
	const struct rm_selector *sel;
	struct devices_in in;
	bool *hit;
	size_t nhit = 0;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT);
	sel = selector_of(&a, &own);
	devices_read(c, sel, &in);
	devices_check_fields(&in, sel);
	hit = xcalloc(in.n, sizeof(*hit));
	for (size_t i = 0; i < in.n; i++)
		nhit += hit[i] = rm_selector_match(sel, &in.recs[i]) != a.invert;
	if (nhit < a.count) {
		if (a.cls)
			rm_warnx("not enough devices %s class '%s': requested %u, "
				"matched %zu",
				a.invert ? "outside" : "in", a.cls, a.count, nhit);
		else
			rm_warnx("not enough devices %s the selector: requested %u, "
				"matched %zu",
				a.invert ? "outside" : "match", a.count, nhit);
	}
	if (nhit >= a.count)
		for (size_t i = 0; i < in.n; i++) {
			if (!hit[i])
				continue;
			if (in.lines)
				puts(in.lines[i]);
			else
				rm_record_write(stdout, &in.recs[i]);
		}
	free(hit);
	devices_in_free(&in);
	rm_selector_free(own);
	return nhit < a.count ? RM_EXIT_NORESOURCE : RM_EXIT_SUCCESS;
}

/* ---- explain ---- */

enum { XC_CLAUSE, XC_RESULT, XC_FIELD, XC_VALUE, XC_DECIDES };
static const struct rm_column clause_cols[] = {
	[XC_CLAUSE] = { "clause", RM_COL_STRING, "a comparison of the selector, in canonical form" },
	[XC_RESULT] = { "result", RM_COL_BOOL, "whether the device passes it" },
	[XC_FIELD] = { "field", RM_COL_STRING, "the field it reads" },
	[XC_VALUE] = { "value", RM_COL_STRING, "the device's value of the field" },
	[XC_DECIDES] = { "decides", RM_COL_BOOL, "whether the outcome rests on it" },
};

static void explain_clause(const struct rm_selector_clause *cl, void *arg)
{
	struct rm_out *out = arg;

	rm_out_begin(out);
	rm_out_str(out, XC_CLAUSE, cl->text);
	rm_out_bool(out, XC_RESULT, cl->result);
	rm_out_str(out, XC_FIELD, cl->field);
	rm_out_str(out, XC_VALUE, cl->value && strcmp(cl->value, "-") ? cl->value : NULL);
	rm_out_bool(out, XC_DECIDES, cl->decides);
	rm_out_end(out);
}

/* The record of DEVICE (a PCI address, or a name such as gpu0) in IN; NULL. */
static const struct rm_record *find_device(const struct devices_in *in, const char *device)
{
	char addr[24];
	bool is_addr = rm_devices_addr_parse(device, addr) == 0;

	for (size_t i = 0; i < in->n; i++) {
		const char *v = rm_record_get(&in->recs[i], "device");

		if (v && (!strcmp(v, device) || (is_addr && !strcmp(v, addr))))
			return &in->recs[i];
	}
	for (size_t i = 0; i < in->n; i++) {
		const char *v = rm_record_get(&in->recs[i], "name");

		if (v && !strcmp(v, device))
			return &in->recs[i];
	}
	return NULL;
}

int cmd_explain(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		explain_options, match_parse, "CLASS DEVICE\n--selector EXPR DEVICE",
		"One clause record per comparison of the class's selector, in the order written, "
		"evaluated for DEVICE (a PCI address, or a name such as gpu0) among the device "
		"records read as match reads them. Exit status 0 when the device is in the class, 1 "
		"when it is not.",
		NULL, NULL, NULL
	};
	struct match_args a = { .common = c, .explain = true };
	struct rm_selector *own;
	const struct rm_selector *sel;
	const struct rm_record *dev;
	struct devices_in in;
	struct rm_out *out;
	bool in_class;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, clause_cols, ARRAY_SIZE(clause_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	sel = selector_of(&a, &own);
	devices_read(c, sel, &in);
	if (!(dev = find_device(&in, a.device))) {
		char *s = rm_record_show(a.device, strlen(a.device));

		rm_warnx("no such device: '%s'", s);
		free(s);
		devices_in_free(&in);
		rm_selector_free(own);
		exit(RM_EXIT_USAGE);
	}
	devices_check_fields(&in, sel);
	out = rm_out_new(&c->out, "clauses", clause_cols, ARRAY_SIZE(clause_cols), NULL, true);
	in_class = rm_selector_explain(sel, dev, explain_clause, out);
	rm_out_close(out);
	rm_out_flush();
	devices_in_free(&in);
	rm_selector_free(own);
	return in_class ? RM_EXIT_SUCCESS : RM_EXIT_FAILURE;
}
