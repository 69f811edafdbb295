/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos check: SLOs per owner in rm-class's selector language, a record per violation. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conffile.h"
#include "exitcodes.h"
#include "output.h"
#include "owner.h"
#include "rm-qos.h"
#include "selector.h"
#include "xalloc.h"

enum { OPT_INTERVAL = 'i', OPT_SLO = 's' };

/* One SLO: "OWNER: EXPR" ("*" for every owner). */
struct slo {
	char *owner;
	char *source;  /* FILE:LINE or "expression" */
	struct rm_selector *sel;
};

struct check_args {
	char **slos;   /* the --slo arguments */
	int n;
	uint64_t interval;
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_args *a = state->input;

	switch (key) {
	case OPT_INTERVAL:
		a->interval = interval_arg(state, arg);
		return 0;
	case OPT_SLO:
		a->slos = xrealloc(a->slos, (a->n + 1) * sizeof(*a->slos));
		a->slos[a->n++] = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

enum { V_VIOLATION, V_SLO, V_CLAUSE, V_FIELD, V_VALUE, V_SOURCE };
static const struct rm_column viol_cols[] = {
	[V_VIOLATION] = { "violation", RM_COL_STRING, "the owner whose SLO is not met" },
	[V_SLO] = { "slo", RM_COL_STRING, "the SLO's expression, canonical" },
	[V_CLAUSE] = { "clause", RM_COL_STRING, "a clause that failed" },
	[V_FIELD] = { "field", RM_COL_STRING, "the measurement it reads" },
	[V_VALUE] = { "value", RM_COL_STRING, "its value over the interval" },
	[V_SOURCE] = { "source", RM_COL_STRING, "FILE:LINE of the SLO, or expression" },
};

struct slos {
	struct slo *v;
	size_t n;
	char *error;   /* the first error, allocated */
};

static void slos_free(struct slos *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].owner);
		free(s->v[i].source);
		rm_selector_free(s->v[i].sel);
	}
	free(s->v);
	free(s->error);
}

/* One line "OWNER: EXPR" of SOURCE; sets s->error on a fault. */
static void slo_line(struct slos *s, const char *text, const char *source)
{
	const char *colon = strchr(text, ':');
	struct rm_selector_error e;
	struct rm_selector *sel;
	char *owner;

	if (s->error)
		return;
	if (!colon) {
		s->error = xasprintf("%s: expected 'OWNER: EXPRESSION'", source);
		return;
	}
	owner = xasprintf("%.*s", (int)(colon - text), text);
	for (char *p = owner + strlen(owner); p > owner && (p[-1] == ' ' || p[-1] == '\t');)
		*--p = '\0';
	if (strcmp(owner, "*") && !rm_name_valid(owner)) {
		char *shown = rm_record_show(owner, strlen(owner));

		s->error = xasprintf("%s: invalid owner name: '%s'", source, shown);
		free(shown);
		free(owner);
		return;
	}
	if (rm_selector_parse_flags(colon + 1, RM_SELECTOR_METRICS, &sel, &e)) {
		s->error = xasprintf("%s: column %u: %s", source,
				     e.column + (unsigned)(colon + 1 - text), e.what);
		rm_selector_error_free(&e);
		free(owner);
		return;
	}
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = (struct slo){ owner, xstrdup(source), sel };
}

/* ARG: a readable file of SLO lines ('#' comments), else one SLO. Returns 0, or an errno. */
static int slo_arg(struct slos *s, const char *arg)
{
	struct stat st;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;

	if (stat(arg, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (!strchr(arg, ':'))
			return errno ? errno : EINVAL;
		slo_line(s, arg, "expression");
		return 0;
	}
	if (!(f = rm_fopen_read(arg)))
		return errno;
	while (getline(&line, &cap, f) >= 0) {
		char *p = line, *src;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		src = xasprintf("%s:%u", arg, lineno);
		slo_line(s, p, src);
		free(src);
	}
	free(line);
	fclose(f);
	return 0;
}

struct failing {
	struct rm_out *out;
	const struct target *t;
	const struct slo *slo;
	char *canon;
	bool any;
};

static void clause(const struct rm_selector_clause *cl, void *arg)
{
	struct failing *f = arg;

	if (cl->result || !cl->decides)
		return;
	f->any = true;
	rm_out_begin(f->out);
	rm_out_str(f->out, V_VIOLATION, f->t->name);
	rm_out_str(f->out, V_SLO, f->canon);
	rm_out_str(f->out, V_CLAUSE, cl->text);
	rm_out_str(f->out, V_FIELD, cl->field);
	rm_out_str(f->out, V_VALUE, cl->value);
	rm_out_str(f->out, V_SOURCE, f->slo->source);
	rm_out_end(f->out);
}

int cmd_check(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "slo", OPT_SLO, "FILE|SLO", 0,
		  "SLOs: a file of 'OWNER: EXPRESSION' lines, or one such line (repeatable)", 0 },
		{ "interval", OPT_INTERVAL, "DURATION", 0,
		  "measure rates over DURATION (default 1s)", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, check_parse, NULL,
		"Check SLOs, each 'OWNER: EXPRESSION' in rm-class's selector language over the "
		"measurements of show (cpu.pressure.some < 1% and memory.oom_kill == 0; OWNER '*' "
		"is every owner): one record per failed clause of a violated SLO. Exit 1 when any "
		"SLO is violated, 0 when all are met.", NULL, NULL, NULL
	};
	struct check_args a = { .interval = 1000000000u };
	struct slos s = { 0 };
	struct targets ts;
	struct rm_out *out;
	char **names = NULL;
	int nnames = 0;
	bool all = false, violated = false;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		free(a.slos);
		rm_out_list_columns(&c->out, viol_cols, ARRAY_SIZE(viol_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, viol_cols, ARRAY_SIZE(viol_cols), NULL);
	if (!a.n)
		rm_usage_errx("no SLO given (--slo FILE or --slo 'OWNER: EXPR')");
	for (int i = 0; i < a.n; i++) {
		int e = slo_arg(&s, a.slos[i]);

		if (e && !s.error)
			s.error = xasprintf("cannot read SLO file '%s': %s", a.slos[i], strerror(e));
	}
	free(a.slos);
	if (s.error) {
		rm_warnx("%s", s.error);
		slos_free(&s);
		return RM_EXIT_USAGE;
	}
	for (size_t i = 0; i < s.n; i++) {
		all |= !strcmp(s.v[i].owner, "*");
		names = xrealloc(names, (nnames + 1) * sizeof(*names));
		names[nnames++] = s.v[i].owner;
	}
	targets_find(&ts, names, all ? 0 : nnames);
	free(names);
	targets_sample(&ts, false);
	sleep_ns(a.interval);
	targets_sample(&ts, true);
	out = rm_out_new(&c->out, "violations", viol_cols, ARRAY_SIZE(viol_cols), NULL, true);
	for (size_t i = 0; i < ts.n; i++) {
		struct mval v[M_N];
		struct rm_record rec;

		metrics_get(&ts.v[i], v);
		metrics_record(v, &rec);
		for (size_t k = 0; k < s.n; k++) {
			struct failing f = { out, &ts.v[i], &s.v[k], NULL, false };

			if (strcmp(s.v[k].owner, "*") ? strcmp(s.v[k].owner, ts.v[i].name)
						      : ts.v[i].kind != TARGET_OWNER)
				continue;
			f.canon = rm_selector_format(s.v[k].sel);
			if (!rm_selector_explain(s.v[k].sel, &rec, clause, &f)) {
				violated = true;
				if (!f.any) /* decided by no single clause: name the SLO */
					clause(&(struct rm_selector_clause){ f.canon, NULL, NULL,
									     false, true }, &f);
			}
			free(f.canon);
		}
		rm_record_free(&rec);
		metrics_free(v);
	}
	rm_out_close(out);
	rm_out_flush();
	targets_free(&ts);
	slos_free(&s);
	return violated ? RM_EXIT_FAILURE : RM_EXIT_SUCCESS;
}
