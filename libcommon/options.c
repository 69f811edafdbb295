/* SPDX-License-Identifier: GPL-2.0-or-later */
/* argp helpers: the shared options and the GLOBAL-OPTIONS COMMAND [ARGS] split. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closestream.h"
#include "exitcodes.h"
#include "lock.h"
#include "input.h"
#include "options.h"
#include "xalloc.h"

enum {
	OPT_LIST_COLUMNS = RM_OPT_COMMON_BASE,
	OPT_BYTES,
	OPT_SYSROOT,
	OPT_TOPOLOGY,
	OPT_WAIT,
	OPT_USAGE,
};

static const char *mode_option(enum rm_outmode m)
{
	static const char *const names[] = {
		[RM_OUT_RECORDS] = "records", [RM_OUT_JSON] = "--json",
		[RM_OUT_TABLE] = "--table", [RM_OUT_RAW] = "--raw",
	};
	return names[m];
}

static void set_mode(struct argp_state *state, struct rm_outopts *o, enum rm_outmode m)
{
	if (o->mode != RM_OUT_RECORDS && o->mode != m)
		argp_error(state, "options %s and %s exclude each other", mode_option(o->mode),
			   mode_option(m));
	o->mode = m;
}

static error_t output_parse(int key, char *arg, struct argp_state *state)
{
	struct rm_common *c = state->input;

	switch (key) {
	case 'J':
		set_mode(state, &c->out, RM_OUT_JSON);
		break;
	case 't':
		set_mode(state, &c->out, RM_OUT_TABLE);
		break;
	case 'r':
		set_mode(state, &c->out, RM_OUT_RAW);
		break;
	case 'n':
		c->out.noheadings = true;
		break;
	case 'o':
		c->out.columns = arg;
		break;
	case OPT_LIST_COLUMNS:
		c->out.list_columns = true;
		break;
	case OPT_BYTES:
		c->out.bytes = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option output_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 50 },
	{ "json", 'J', NULL, 0, "one JSON document (sizes in bytes)", 50 },
	{ "table", 't', NULL, 0, "aligned columns with a header line", 50 },
	{ "raw", 'r', NULL, 0, "values only, space-separated", 50 },
	{ "noheadings", 'n', NULL, 0, "no header line in --table output", 50 },
	{ "output", 'o', "LIST", 0, "fields to print (+LIST adds to the defaults)", 50 },
	{ "list-columns", OPT_LIST_COLUMNS, NULL, 0, "list the fields -o accepts", 50 },
	{ "bytes", OPT_BYTES, NULL, 0, "print sizes in bytes", 50 },
	{ 0 }
};

const struct argp rm_output_argp = { output_options, output_parse, NULL, NULL, NULL, NULL, NULL };

static error_t input_parse(int key, char *arg, struct argp_state *state)
{
	struct rm_common *c = state->input;

	switch (key) {
	case OPT_SYSROOT:
		c->sysroot = arg;
		c->topology = NULL;
		break;
	case OPT_TOPOLOGY:
		c->topology = arg;
		c->sysroot = NULL;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option input_options[] = {
	{ NULL, 0, NULL, 0, "Input:", 60 },
	{ "sysroot", OPT_SYSROOT, "DIR", 0, "read /sys and /proc under DIR (a snapshot, or its tar archive)", 60 },
	{ "topology", OPT_TOPOLOGY, "SPEC", 0,
	  "an hwloc XML file or a synthetic description such as \"package:2 core:8 pu:2\"", 60 },
	{ 0 }
};

const struct argp rm_input_argp = { input_options, input_parse, NULL, NULL, NULL, NULL, NULL };

static error_t lock_parse(int key, char *arg, struct argp_state *state)
{
	double seconds;

	if (key != OPT_WAIT)
		return ARGP_ERR_UNKNOWN;
	if (rm_lock_parse_wait(arg, &seconds) < 0)
		argp_error(state, "invalid --wait: '%s' (seconds, from 0 to %.0f)", arg,
			   RM_LOCK_WAIT_MAX);
	rm_lock_set_wait(seconds);
	return 0;
}

static const struct argp_option lock_options[] = {
	{ NULL, 0, NULL, 0, "Locks:", 65 },
	{ "wait", OPT_WAIT, "SECONDS", 0,
	  "wait at most SECONDS for a lock another command holds (default 30)", 65 },
	{ 0 }
};

const struct argp rm_lock_argp = { lock_options, lock_parse, NULL, NULL, NULL, NULL, NULL };

/* Whether the tool running takes locks (struct rm_tool's locks): its commands take --wait. */
static bool tool_locks;

/* Fill C from the environment (RM_SYSROOT, RM_TOPOLOGY) before parsing options. */
static void common_init(struct rm_common *c)
{
	memset(c, 0, sizeof(*c));
	/* An option given on the command line overrides the variables. */
	rm_input_defaults(&c->sysroot, &c->topology);
}

/* Find NAME in a NULL-terminated table; exits 2 with "unknown command: 'x'" when absent. */
static const struct rm_command *command_find(const struct rm_command *cmds, const char *name)
{
	for (; cmds->name; cmds++)
		if (!strcmp(cmds->name, name))
			return cmds;
	rm_usage_errx("unknown command: '%s' (see '%s --help')", name,
		      program_invocation_short_name);
}

/*
 * argp and getopt write an option error as "PROG: MESSAGE\n", MESSAGE holding the argument as
 * given, then a hint wrapped over two lines ("Try `rm-topo cpus --help' or ..."), then exit.
 * While options are parsed, stderr (which getopt writes to) and argp's error stream are this
 * filter: it writes each error on one line of the real stderr with control bytes escaped
 * (rm_msg_escape) and drops the hint. A newline is the end of a message only where the hint or
 * the end of parsing follows it; any other is the argument's, and escaped.
 */
static const char hint[] = "\nTry `";
static struct {
	FILE *real;                 /* stderr outside option parsing */
	FILE *filter;
	char held[sizeof(hint) - 1]; /* a newline and what followed it, while it may start the hint */
	size_t nheld;
	bool dropping; /* in the hint */
	bool open;     /* a message started and not yet ended */
} errs;

static void errors_put(char c)
{
	if (errs.dropping)
		return;
	if (errs.nheld || c == '\n') {
		errs.held[errs.nheld++] = c;
		if (!memcmp(errs.held, hint, errs.nheld)) {
			if (errs.nheld == sizeof(errs.held)) {
				fputc('\n', errs.real);
				errs.dropping = true;
				errs.nheld = 0;
				errs.open = false;
			}
			return;
		}
		/* not the hint: the newline and what followed it belong to the message */
		rm_msg_escape(errs.real, errs.held, errs.nheld - 1);
		errs.nheld = 0;
		errors_put(c);
		return;
	}
	rm_msg_escape(errs.real, &c, 1);
	errs.open = true;
}

static ssize_t errors_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	for (size_t i = 0; i < size; i++)
		errors_put(buf[i]);
	return (ssize_t)size;
}

/* The end of parsing (or an exit during it): end the message, and stderr is stderr again. */
static void errors_end(void)
{
	if (!errs.filter || stderr != errs.filter)
		return;
	if (errs.nheld > 1)
		rm_msg_escape(errs.real, errs.held, errs.nheld);
	if (errs.nheld || errs.open)
		fputc('\n', errs.real);
	errs.nheld = 0;
	errs.open = errs.dropping = false;
	stderr = errs.real;
	rm_msg_to(NULL);
}

/* Make stderr the filter, until errors_end(); the filter itself where it cannot be made. */
static FILE *errors_begin(void)
{
	if (!errs.filter) {
		errs.filter = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = errors_write });
		if (!errs.filter)
			return stderr;
		setvbuf(errs.filter, NULL, _IONBF, 0);
		atexit(errors_end); /* before rm_close_stdout's report, which then goes to stderr */
	}
	if (stderr != errs.filter) {
		errs.real = stderr;
		stderr = errs.filter;
		rm_msg_to(errs.real); /* already one line each */
	}
	return errs.filter;
}

/*
 * argp's own --help is -? only; these replace argp's defaults (ARGP_NO_HELP) so that -h is help
 * as in most tools, and --version names the tool as util-linux does ("lsblk from util-linux").
 */
static const struct argp_option help_options[] = {
	{ "help", 'h', NULL, 0, "Give this help list", -1 },
	{ NULL, '?', NULL, OPTION_ALIAS, NULL, -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", 0 },
	{ "version", 'V', NULL, 0, "Print program version", -1 },
	{ 0 }
};

/* "rm-topo (rmtools) 0.1.0" */
static void print_version(void)
{
	printf("%s (%s) %s\n", program_invocation_short_name, PACKAGE_NAME, PACKAGE_VERSION);
	exit(RM_EXIT_SUCCESS);
}

struct parse_input {
	void *tool_input;
	struct rm_common *common;
	int command;   /* index of the command in argv, argc when none */
	bool in_order; /* stop at the first operand (the global parse) */
	int nchildren; /* the wrapper's children: the tool's or command's, then the shared ones */
};

static error_t wrapper_parse(int key, char *arg, struct argp_state *state)
{
	struct parse_input *p = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		/* children: the tool's or command's own options, then the shared ones (as many as
		 * there are: child_inputs has no room for more) */
		state->child_inputs[0] = p->tool_input;
		for (int i = 1; i < p->nchildren; i++)
			state->child_inputs[i] = p->common;
		break;
	case ARGP_KEY_ARG:
		if (!p->in_order)
			return ARGP_ERR_UNKNOWN;
		/* The first operand is the command: stop here and leave the rest to it. */
		p->command = state->next - 1;
		state->next = state->argc;
		break;
	case 'h':
	case '?':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		break;
	case OPT_USAGE:
		argp_state_help(state, state->out_stream, ARGP_HELP_USAGE | ARGP_HELP_EXIT_OK);
		break;
	case 'V':
		print_version();
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int parse_wrapped(const struct argp *argp, int argc, char **argv, struct rm_common *c,
			 void *input, bool in_order, unsigned flags)
{
	struct argp_child children[5] = { { argp, 0, NULL, 0 } };
	size_t k = 1;

	if (!(flags & RM_PARSE_NO_INPUT))
		children[k++] = (struct argp_child){ &rm_input_argp, 0, NULL, 0 };
	if (!(flags & RM_PARSE_NO_OUTPUT))
		children[k++] = (struct argp_child){ &rm_output_argp, 0, NULL, 0 };
	if (tool_locks)
		children[k++] = (struct argp_child){ &rm_lock_argp, 0, NULL, 0 };
	/* usage and doc come from the child: argp prints every argp's own */
	struct argp wrapper = { help_options, wrapper_parse, NULL, NULL, children, NULL, NULL };
	struct parse_input p = { input, c, argc, in_order, 0 };

	while (children[p.nchildren].argp)
		p.nchildren++;

	errors_begin();
	argp_parse(&wrapper, argc, argv,
		   ARGP_NO_HELP | (in_order || (flags & RM_PARSE_IN_ORDER) ? ARGP_IN_ORDER : 0),
		   NULL, &p);
	errors_end();
	return p.command;
}

/*
 * Parse the global options of a tool: ARGP (the tool's own global options; its parser gets INPUT)
 * plus the shared output and input options (filling C), in order, stopping at the first operand.
 * Returns the index of the command in argv, or argc when there is none. argp errors exit 2.
 */
static int parse_global(const struct argp *argp, int argc, char **argv, struct rm_common *c,
			void *input)
{
	/* getopt names argv[0] in its messages: "rm-topo: ...", not "/usr/bin/rm-topo: ..." */
	char *saved = argv[0];
	int cmd;

	argv[0] = program_invocation_short_name;
	cmd = parse_wrapped(argp, argc, argv, c, input, true, 0);
	argv[0] = saved;
	return cmd;
}

void rm_parse_command(const struct argp *argp, int argc, char **argv, struct rm_common *c,
		      void *input, unsigned flags)
{
	/* "rm-topo cpus" in messages and --help, so the user sees which command complained */
	char *name = xasprintf("%s %s", program_invocation_short_name, argv[0]);
	char *saved = argv[0];

	argv[0] = name;
	if ((flags & RM_PARSE_NO_OUTPUT) &&
	    (c->out.mode != RM_OUT_RECORDS || c->out.columns || c->out.list_columns ||
	     c->out.noheadings || c->out.bytes))
		rm_usage_errx("output options do not apply to '%s'", saved);
	parse_wrapped(argp, argc, argv, c, input, false, flags);
	/* the input is decided here, once; the commands ask rm_input() what it is */
	rm_input_resolve(c);
	argv[0] = saved;
	free(name);
}

/* Set up a tool's main(): locale-independent output, close_stdout, argp defaults. */
static void tool_init(void)
{
	/* Output is the same in every locale: records are an interface, not prose. */
	setlocale(LC_ALL, "C");
	argp_err_exit_status = RM_EXIT_USAGE;
	rm_guard_std_fds();
	atexit(rm_close_stdout);
}

/* What the global options of a tool see: the tool, and the shared options' values. */
struct tool_input {
	const struct rm_tool *tool;
	struct rm_common *common;
};

static const struct argp_option tool_options[] = {
	{ "list-commands", RM_OPT_LIST_COMMANDS, NULL, OPTION_HIDDEN, "print the command names",
	  0 },
	{ 0 }
};

static error_t tool_parse(int key, char *arg, struct argp_state *state)
{
	const struct tool_input *t = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		if (t->tool->options)
			state->child_inputs[0] = t->common;
		break;
	case RM_OPT_LIST_COMMANDS:
		for (const struct rm_command *cmd = t->tool->commands; cmd->name; cmd++)
			puts(cmd->name);
		exit(RM_EXIT_SUCCESS);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --help ends with the commands and their summaries. */
static char *tool_help(int key, const char *text, void *input)
{
	const struct tool_input *t = input;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (key != ARGP_KEY_HELP_POST_DOC)
		return (char *)text;
	f = open_memstream(&buf, &len);
	fputs("Commands:\n", f);
	for (const struct rm_command *cmd = t->tool->commands; cmd->name; cmd++)
		fprintf(f, "  %-*s %s\n", t->tool->name_width, cmd->name, cmd->summary);
	fprintf(f, "\nEach command takes --help. See %s.", t->tool->manuals);
	fclose(f);
	return buf;
}

/* Run the command argv[0] of TOOL. */
static int run_command(const struct rm_tool *tool, int argc, char **argv, struct rm_common *c)
{
	return rm_exit_status(command_find(tool->commands, argv[0])->run(argc, argv, c));
}

int rm_tool_main(const struct rm_tool *tool, int argc, char **argv)
{
	const struct argp options = { tool->options, tool->parse, NULL, NULL, NULL, NULL, NULL };
	const struct argp_child children[] = { { &options, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { tool_options, tool_parse, "[COMMAND [ARGS...]]", tool->doc,
				   tool->options ? children : NULL, tool_help, NULL };
	struct rm_common common;
	struct tool_input input = { tool, &common };
	size_t n = 0;
	int cmd;

	tool_init();
	common_init(&common);
	tool_locks = tool->locks;
	cmd = parse_global(&argp, argc, argv, &common, &input);
	if (tool_locks)
		rm_lock_wait(); /* an invalid RM_LOCK_WAIT exits 2 before the command starts */
	if (cmd < argc)
		return run_command(tool, argc - cmd, argv + cmd, &common);

	/* No command: the default command line, in an argv the command may reorder. */
	while (tool->default_args[n])
		n++;
	char *args[n + 1];

	for (size_t i = 0; i <= n; i++)
		args[i] = (char *)tool->default_args[i];
	return run_command(tool, (int)n, args, &common);
}

int rm_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > (UINT64_MAX - (unsigned)(*s - '0')) / 10)
			return -1;
		n = n * 10 + (unsigned)(*s - '0');
	}
	if (n < min || n > max)
		return -1;
	*v = n;
	return 0;
}

error_t rm_apply_parse(int key, char *arg, struct argp_state *state)
{
	struct rm_apply_args *a = state->input;

	switch (key) {
	case RM_OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->file = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

error_t rm_dry_run_parse(int key, char *arg, struct argp_state *state)
{
	bool *dry_run = state->input;

	switch (key) {
	case RM_OPT_DRY_RUN:
		*dry_run = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

error_t rm_owners_parse(int key, char *arg, struct argp_state *state)
{
	struct rm_owners *o = state->input;

	switch (key) {
	case RM_OPT_ALL:
		o->all = true;
		break;
	case RM_OPT_DRY_RUN:
		o->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		o->names = xrealloc(o->names, (o->n + 1) * sizeof(*o->names));
		o->names[o->n++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

bool rm_owners_match(const struct rm_owners *o, const char *owner)
{
	if (o->all || !o->n)
		return true;
	for (int i = 0; i < o->n; i++)
		if (!strcmp(owner, o->names[i]))
			return true;
	return false;
}

void rm_owners_require(const struct rm_owners *o, const char *command)
{
	if (!o->n && !o->all)
		rm_usage_errx("%s: missing OWNER (or --all)", command);
	if (o->n && o->all)
		rm_usage_errx("%s: --all takes no OWNER", command);
}
