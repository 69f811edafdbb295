/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench compare: match two result files' measurements and flag the regressions, for CI. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"
#include "exitcodes.h"
#include "json.h"
#include "rm-bench.h"
#include "size.h"
#include "xalloc.h"

enum {
	X_CHANGE, X_PARAMS, X_METRIC, X_UNIT, X_BASE, X_NEW, X_DELTA, X_THRESHOLD, X_NOISE,
	X_VERDICT, X_REASON,
};
static const struct rm_column change_cols[] = {
	[X_CHANGE] = { "change", RM_COL_STRING, "the measurement: mem, lat, c2c or jitter" },
	[X_PARAMS] = { "params", RM_COL_STRING, "its parameters, as a record" },
	[X_METRIC] = { "metric", RM_COL_STRING, "the field compared" },
	[X_UNIT] = { "unit", RM_COL_STRING, "its unit" },
	[X_BASE] = { "base", RM_COL_FLOAT, "the value in BASE" },
	[X_NEW] = { "new", RM_COL_FLOAT, "the value in NEW" },
	[X_DELTA] = { "delta", RM_COL_FLOAT, "(new - base) / base, in percent" },
	[X_THRESHOLD] = { "threshold", RM_COL_FLOAT, "--threshold, in percent" },
	[X_NOISE] = { "noise", RM_COL_FLOAT, "the larger spread of the two, in percent" },
	[X_VERDICT] = { "verdict", RM_COL_STRING,
			"regressed, improved, same, noise, skipped, failed, missing or added" },
	[X_REASON] = { "reason", RM_COL_STRING,
		       "why it was not compared, or how NEW's unit was converted" },
};

/* Fields that hold results or how they were obtained; the others name the measurement. */
static const char *const result_fields[] = {
	"bench", "best", "median", "min", "max", "avg", "p99", "p999", "unit", "runs", "spread",
	"ran_on", "mem_on", "status", "reason", "samples", "overruns", "loads", "iterations",
	"duration_ms", "neighbour_rate", "llc_occupancy", "mbm_total", "mbm_local",
};

struct compare_args {
	const char *files[2];
	int nfiles;
	double threshold;
	char *metrics;   /* comma list, or NULL */
	char *ignore;    /* comma list, or NULL */
	bool allow_missing; /* missing and failed measurements are no regressions */
	const struct rm_common *common; /* --list-columns needs no files */
};

static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == len && !strncmp(p, name, len))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The figures --metric may name: the number fields of the measurements' records. */
static const struct {
	const struct rm_column *cols;
	const size_t *ncols;
} measurements[] = {
	{ mem_cols, &mem_ncols }, { lat_cols, &lat_ncols }, { c2c_cols, &c2c_ncols },
	{ jitter_cols, &jitter_ncols },
};

static bool known_metric(const char *name, size_t len)
{
	for (size_t m = 0; m < ARRAY_SIZE(measurements); m++)
		for (size_t i = 0; i < *measurements[m].ncols; i++) {
			const struct rm_column *c = &measurements[m].cols[i];

			if (c->type == RM_COL_FLOAT && strlen(c->name) == len &&
			    !strncmp(c->name, name, len))
				return true;
		}
	return false;
}

/* The figures --metric takes, sorted, ", " between them; allocated. */
static char *known_metrics(void)
{
	const char **names = NULL;
	size_t n = 0;
	char *list = NULL, *t;

	for (size_t m = 0; m < ARRAY_SIZE(measurements); m++)
		for (size_t i = 0; i < *measurements[m].ncols; i++) {
			const struct rm_column *c = &measurements[m].cols[i];
			bool seen = false;

			for (size_t k = 0; k < n && !seen; k++)
				seen = !strcmp(names[k], c->name);
			if (c->type != RM_COL_FLOAT || seen)
				continue;
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = c->name;
		}
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t k = 0; k < n; k++) {
		t = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", names[k]);
		free(list);
		list = t;
	}
	free(names);
	return list;
}

static bool is_result_field(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(result_fields); i++)
		if (!strcmp(key, result_fields[i]))
			return true;
	return false;
}

/* The value as the key compares it: sizes and byte counts as bytes, booleans as yes/no. */
static char *normalize(const char *v)
{
	uint64_t bytes;
	char *msg = NULL;

	if (!strcmp(v, "true"))
		return xstrdup("yes");
	if (!strcmp(v, "false"))
		return xstrdup("no");
	if (rm_size_parse(v, &bytes, &msg) == 0)
		return xasprintf("%llu", (unsigned long long)bytes);
	free(msg);
	return xstrdup(v);
}

static void make_key(struct result *res, const char *ignore)
{
	const struct rm_record *rec = &res->rec;
	char **parts = xcalloc(rec->nfields + 1, sizeof(char *)), *buf = NULL;
	size_t n = 0, len = 0;
	FILE *f = open_memstream(&buf, &len), *pf;
	char *pbuf = NULL;
	size_t plen = 0;

	pf = open_memstream(&pbuf, &plen);
	if (!f || !pf)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct rm_field *fl = &rec->fields[i];
		char *v;

		/* a parameter at "-" is one the measurement did not have: the same as no field,
		 * as in results of versions before it */
		if (is_result_field(fl->key) || in_list(ignore, fl->key) || !strcmp(fl->value, "-"))
			continue;
		v = normalize(fl->value);
		parts[n++] = xasprintf("%s=%s", fl->key, v);
		free(v);
		if (ftell(pf) > 0)
			putc(' ', pf);
		fprintf(pf, "%s=", fl->key);
		/* sizes as records write them, whichever form the file had */
		if ((!strcmp(fl->key, "size") || !strcmp(fl->key, "pages")) && *fl->value &&
		    strspn(fl->value, "0123456789") == strlen(fl->value)) {
			char *sz = rm_size_format(strtoull(fl->value, NULL, 10));

			rm_record_write_value(pf, sz);
			free(sz);
		} else {
			rm_record_write_value(pf, fl->value);
		}
	}
	qsort(parts, n, sizeof(char *), cmp_str);
	fputs(rm_record_get(rec, "bench"), f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\t%s", parts[i]);
		free(parts[i]);
	}
	free(parts);
	if (fclose(f) || fclose(pf))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	res->key = buf;
	res->params = pbuf;
}

/* The whole of FILE ("-": standard input); exits 2 when it cannot be read. */
static char *slurp(const char *file, size_t *len)
{
	FILE *f = strcmp(file, "-") ? rm_fopen_read(file) : stdin;
	char *buf = NULL;
	size_t cap = 0, n;

	if (!f) {
		rm_warnx("cannot read the results: %s: '%s'", strerror(errno), file);
		exit(RM_EXIT_USAGE);
	}
	*len = 0;
	do {
		if (*len + 65536 > cap)
			buf = xrealloc(buf, cap = 2 * cap + 65536);
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n > 0);
	if (ferror(f)) {
		int e = errno;

		free(buf);
		rm_warnx("cannot read the results: %s: '%s'", strerror(e), file);
		exit(RM_EXIT_USAGE);
	}
	buf[*len] = 0;
	if (f != stdin)
		fclose(f);
	return buf;
}

/* FILE is not a result file: WHAT says why; exits 2. */
__attribute__((noreturn)) static void bad_input(const char *file, const char *what)
{
	rm_warnx("%s: %s", file, what);
	exit(RM_EXIT_USAGE);
}

void read_results(struct results *rs, const char *ignore)
{
	size_t len, nrecs = 0;
	char *text = slurp(rs->file, &len), *msg = NULL;
	struct rm_record *recs = NULL;
	const char *p = text, *nul;

	/* A CI gate fails closed: a file that holds no measurement is an error, never a pass. */
	if (!len) {
		free(text);
		bad_input(rs->file, "empty, no measurements");
	}
	while (p < text + len && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p == text + len) {
		free(text);
		bad_input(rs->file, "only white space, no measurements");
	}
	if ((nul = memchr(text, '\0', len))) {
		unsigned line = 1;
		const char *bol = text;

		for (const char *q = text; q < nul; q++)
			if (*q == '\n')
				line++, bol = q + 1;
		rm_warnx("%s: line %u, column %zu: NUL byte in input", rs->file, line,
			 (size_t)(nul - bol) + 1);
		free(text);
		exit(RM_EXIT_USAGE);
	}
	if (*p == '{' || *p == '[') {
		if (json_read_records(text, len, &recs, &nrecs, &msg) < 0) {
			free(text);
			rm_warnx("%s: %s", rs->file, msg);
			free(msg);
			exit(RM_EXIT_USAGE);
		}
		if (!nrecs) {
			free(text);
			free(recs);
			bad_input(rs->file, "no records in the JSON document");
		}
	} else {
		FILE *f = fmemopen(text, len ? len : 1, "r");
		unsigned lineno = 0;
		struct rm_record rec;
		int rc;

		if (!f)
			rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
		while ((rc = rm_record_read(f, &lineno, &rec, &msg)) > 0) {
			recs = xrealloc(recs, (nrecs + 1) * sizeof(*recs));
			recs[nrecs++] = rec;
		}
		fclose(f);
		if (rc < 0) {
			for (size_t i = 0; i < nrecs; i++)
				rm_record_free(&recs[i]);
			free(recs);
			free(text);
			rm_warnx("%s: %s", rs->file, msg);
			free(msg);
			exit(RM_EXIT_USAGE);
		}
	}
	free(text);
	if (!nrecs)
		bad_input(rs->file, "no records, only comments");
	for (size_t i = 0; i < nrecs; i++) {
		const char *kind = rm_record_kind(&recs[i]);
		bool dup = false;

		if (!strcmp(kind, "machine") && !rs->machine.nfields) {
			rs->machine = recs[i];
			continue;
		}
		if (strcmp(kind, "bench")) {
			rm_record_free(&recs[i]);
			continue;
		}
		rs->r = xrealloc(rs->r, (rs->n + 1) * sizeof(*rs->r));
		memset(&rs->r[rs->n], 0, sizeof(*rs->r));
		rs->r[rs->n].rec = recs[i];
		make_key(&rs->r[rs->n], ignore);
		for (size_t k = 0; k < rs->n && !dup; k++)
			dup = !strcmp(rs->r[k].key, rs->r[rs->n].key);
		if (dup) {
			rm_warnx("%s: measured twice, the first is compared: '%s %s'", rs->file,
			      rm_record_get(&recs[i], "bench"), rs->r[rs->n].params);
			rm_record_free(&rs->r[rs->n].rec);
			free(rs->r[rs->n].key);
			free(rs->r[rs->n].params);
			continue;
		}
		rs->n++;
	}
	free(recs);
	if (!rs->n) {
		free_results(rs);
		bad_input(rs->file, "no measurements (bench records)");
	}
}

void free_results(struct results *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		rm_record_free(&rs->r[i].rec);
		free(rs->r[i].key);
		free(rs->r[i].params);
	}
	free(rs->r);
	rm_record_free(&rs->machine);
}

/* A number field; false when absent or unknown; exits 2 when it is not a number. */
static bool number_field(const struct results *rs, const struct rm_record *rec, const char *key,
			 double *v)
{
	const char *s = rm_record_get(rec, key);
	char *end;

	if (!s || !strcmp(s, "-"))
		return false;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*v)) {
		rm_warnx("%s: line %u: not a number: '%s=%s'", rs->file, rec->line, key, s);
		exit(RM_EXIT_USAGE);
	}
	return true;
}

/* The runs' own spread, in percent: the spread field, else (max - min) / median. */
static double spread_of(const struct results *rs, const struct rm_record *rec)
{
	double s, lo, mid, hi;

	if (number_field(rs, rec, "spread", &s))
		return s;
	if (number_field(rs, rec, "min", &lo) && number_field(rs, rec, "median", &mid) &&
	    number_field(rs, rec, "max", &hi) && mid > 0)
		return (hi - lo) / mid * 100;
	return 0;
}

static bool failed(const struct rm_record *rec)
{
	const char *s = rm_record_get(rec, "status");

	return s && !strcmp(s, "failed");
}

static bool skipped(const struct rm_record *rec)
{
	const char *s = rm_record_get(rec, "status");

	return s && strcmp(s, "ok");
}

static void change_record(struct rm_out *out, const struct result *r, const char *metric,
			  const char *unit, const char *verdict)
{
	rm_out_begin(out);
	rm_out_str(out, X_CHANGE, rm_record_get(&r->rec, "bench"));
	rm_out_str(out, X_PARAMS, r->params);
	rm_out_str(out, X_METRIC, metric);
	rm_out_str(out, X_UNIT, unit);
	rm_out_str(out, X_VERDICT, verdict);
}

/* A measurement not compared, and why (allocated REASON, freed). */
static void not_compared(struct rm_out *out, const struct result *r, const char *metric,
			 char *reason)
{
	change_record(out, r, metric, rm_record_get(&r->rec, "unit"), "skipped");
	rm_out_str(out, X_REASON, reason);
	rm_out_end(out);
	free(reason);
}

double unit_factor(const struct rm_record *b, const struct rm_record *n)
{
	/* the units rm-bench and the common tools write: times and byte rates */
	static const struct {
		const char *name;
		int dim;
		double scale;
	} units[] = {
		{ "ns", 0, 1e-9 }, { "us", 0, 1e-6 }, { "ms", 0, 1e-3 }, { "s", 0, 1 },
		{ "B/s", 1, 1 }, { "kB/s", 1, 1e3 }, { "KB/s", 1, 1e3 }, { "MB/s", 1, 1e6 },
		{ "GB/s", 1, 1e9 }, { "TB/s", 1, 1e12 }, { "KiB/s", 1, 0x1p10 },
		{ "MiB/s", 1, 0x1p20 }, { "GiB/s", 1, 0x1p30 }, { "TiB/s", 1, 0x1p40 },
	};
	const char *bu = rm_record_get(b, "unit"), *nu = rm_record_get(n, "unit");
	int ib = -1, in = -1;

	if (!bu || !nu || !strcmp(bu, nu))
		return 1;
	for (int i = 0; i < (int)ARRAY_SIZE(units); i++) {
		if (!strcmp(bu, units[i].name))
			ib = i;
		if (!strcmp(nu, units[i].name))
			in = i;
	}
	if (ib < 0 || in < 0 || units[ib].dim != units[in].dim)
		return 0;
	return units[in].scale / units[ib].scale;
}

const char *compare_decide(const struct results *base, const struct results *new,
			   const struct result *b, const struct result *n, const char *metric,
			   double threshold, double *delta, double *noise)
{
	const char *unit = rm_record_get(&b->rec, "unit");
	bool higher = unit && strstr(unit, "/s"), worse;
	double vb, vn, factor = unit_factor(&b->rec, &n->rec);

	if (!number_field(base, &b->rec, metric, &vb) || !number_field(new, &n->rec, metric, &vn))
		return NULL;
	if (vb == 0 || factor == 0)
		return "skipped";
	vn *= factor;
	*delta = (vn - vb) / fabs(vb) * 100;
	*noise = fmax(spread_of(base, &b->rec), spread_of(new, &n->rec));
	worse = higher ? *delta < 0 : *delta > 0;
	if (fabs(*delta) <= threshold)
		return "same";
	if (fabs(*delta) <= *noise)
		return "noise";
	return worse ? "regressed" : "improved";
}

/* Compare one metric of a matched pair (both have it, in units of one dimension): 1 when it
 * regressed, -1 when it could not be compared (a base of 0), else 0. */
static int compare_metric(struct rm_out *out, const struct results *base,
			  const struct results *new, const struct result *b, const struct result *n,
			  const char *metric, double threshold)
{
	const char *unit = rm_record_get(&b->rec, "unit"), *nu = rm_record_get(&n->rec, "unit");
	double delta, noise, factor = unit_factor(&b->rec, &n->rec), vn;
	const char *verdict = compare_decide(base, new, b, n, metric, threshold, &delta, &noise);

	if (!strcmp(verdict, "skipped")) {
		not_compared(out, n, metric, xasprintf("%s is 0 in BASE", metric));
		return -1;
	}
	change_record(out, n, metric, unit, verdict);
	rm_out_str(out, X_BASE, rm_record_get(&b->rec, metric));
	if (factor != 1) {
		char *t = NULL;

		number_field(new, &n->rec, metric, &vn);
		rm_out_str(out, X_NEW, t = xasprintf("%.6g", vn * factor));
		free(t);
		rm_out_str(out, X_REASON, t = xasprintf("NEW in %s, converted", nu));
		free(t);
	} else {
		rm_out_str(out, X_NEW, rm_record_get(&n->rec, metric));
	}
	rm_out_float(out, X_DELTA, delta, 1);
	rm_out_float(out, X_THRESHOLD, threshold, 1);
	rm_out_float(out, X_NOISE, noise, 1);
	rm_out_end(out);
	return !strcmp(verdict, "regressed");
}

/* The default metric of a measurement: best where it has one (mem, lat, c2c), else p99
 * (jitter), else median. */
const char *default_metric(const struct rm_record *b, const struct rm_record *n)
{
	static const char *const order[] = { "best", "p99", "median" };

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const char *x = rm_record_get(b, order[i]), *y = rm_record_get(n, order[i]);

		if (x && y && strcmp(x, "-") && strcmp(y, "-"))
			return order[i];
	}
	return NULL;
}

static void check_machines(const struct results *base, const struct results *new)
{
	static const char *const keys[] = { "model", "topology", "kernel" };

	if (!base->machine.nfields || !new->machine.nfields)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *x = rm_record_get(&base->machine, keys[i]);
		const char *y = rm_record_get(&new->machine, keys[i]);

		if (x && y && strcmp(x, y))
			rm_warnx("the results come from different machines or kernels: %s '%s' and '%s'",
			      keys[i], x, y);
	}
}

enum { OPT_THRESHOLD = 0x200, OPT_METRIC, OPT_IGNORE, OPT_ALLOW_MISSING };

static const struct argp_option compare_options[] = {
	{ "threshold", OPT_THRESHOLD, "PCT", 0,
	  "the smallest change reported as one (default: 5%)", 0 },
	{ "metric", OPT_METRIC, "LIST", 0,
	  "the fields to compare (default: best, or p99 for jitter)", 0 },
	{ "ignore", OPT_IGNORE, "LIST", 0,
	  "parameter fields that need not match (such as cpus)", 0 },
	{ "allow-missing", OPT_ALLOW_MISSING, NULL, 0,
	  "measurements missing from NEW, with status=failed, or skipped in NEW only do not "
	  "fail", 0 },
	{ 0 }
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;

	switch (key) {
	case OPT_THRESHOLD:
		a->threshold = parse_percent(arg);
		if (a->threshold < 0)
			argp_error(state, "--threshold takes a percentage such as 5%%: '%s'", arg);
		break;
	case OPT_METRIC:
	case OPT_IGNORE:
		if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
			argp_error(state, "%s: invalid list: '%s'",
				   key == OPT_METRIC ? "--metric" : "--ignore", arg);
		if (key == OPT_METRIC) {
			for (const char *p = arg; *p;) {
				size_t l = strcspn(p, ",");

				if (!known_metric(p, l)) {
					char *known = known_metrics();

					argp_error(state, "--metric: unknown metric: '%.*s' (known: %s)",
						   (int)l, p, known);
					free(known);
				}
				p += l + (p[l] == ',');
			}
			a->metrics = arg;
		} else {
			a->ignore = arg;
		}
		break;
	case OPT_ALLOW_MISSING:
		a->allow_missing = true;
		break;
	case ARGP_KEY_ARG:
		if (a->nfiles == 2)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->files[a->nfiles++] = arg;
		break;
	case ARGP_KEY_END:
		if (a->nfiles < 2 && !a->common->out.list_columns)
			argp_error(state, "give two result files: BASE and NEW");
		if (a->nfiles == 2 && !strcmp(a->files[0], "-") && !strcmp(a->files[1], "-"))
			argp_error(state, "only one of BASE and NEW may be standard input");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_compare(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		compare_options, compare_parse, "BASE NEW",
		"Compare two result files of rm-bench (records or JSON; - for standard input): "
		"measurements are matched by name and parameters, and each change is reported "
		"with its size. A change is a regression when it is worse by more than the "
		"threshold and by more than either run's own spread. Exit status 1 when a "
		"measurement regressed, failed (status=failed), is missing from NEW or could not "
		"be compared (units of other dimensions, no metric, not taken in NEW: the gate "
		"fails closed); 2 when a file holds no measurements or is not records or JSON.",
		NULL, NULL, NULL
	};
	struct compare_args a = { .threshold = 5, .common = c };
	struct results base = { 0 }, new = { 0 };
	size_t regressed = 0, compared = 0, missing = 0, nfailed = 0;
	/* status=skipped in NEW only; other units, no metric or a base of 0 */
	size_t unmeasured = 0, uncompared = 0;
	struct rm_out *out;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, change_cols, ARRAY_SIZE(change_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	base.file = a.files[0];
	new.file = a.files[1];
	read_results(&base, a.ignore);
	read_results(&new, a.ignore);
	check_machines(&base, &new);

	out = rm_out_new(&c->out, "changes", change_cols, ARRAY_SIZE(change_cols), NULL, true);
	for (size_t i = 0; i < base.n; i++) {
		struct result *b = &base.r[i], *n = NULL;

		for (size_t k = 0; k < new.n && !n; k++)
			if (!new.r[k].matched && !strcmp(new.r[k].key, b->key))
				n = &new.r[k];
		if (!n) {
			change_record(out, b, NULL, rm_record_get(&b->rec, "unit"), "missing");
			rm_out_end(out);
			missing++;
			continue;
		}
		n->matched = true;
		compared++;
		if (failed(&b->rec) || failed(&n->rec)) {
			change_record(out, n, NULL, rm_record_get(&n->rec, "unit"), "failed");
			rm_out_end(out);
			nfailed++;
			continue;
		}
		if (skipped(&b->rec) || skipped(&n->rec)) {
			/* not taken in NEW only: NEW measured less, as when it is missing; in
			 * BASE too (or only), nothing was lost */
			bool lost = !skipped(&b->rec);
			const struct rm_record *r = skipped(&n->rec) ? &n->rec : &b->rec;
			const char *why = rm_record_get(r, "reason");

			if (why && !strcmp(why, "-"))
				why = NULL;
			not_compared(out, n, NULL, xasprintf("status=%s in %s%s%s",
							     rm_record_get(r, "status"),
							     lost ? "NEW" : skipped(&n->rec) ? "both" : "BASE",
							     why ? ": " : "", why ? why : ""));
			unmeasured += lost;
			continue;
		}
		if (!unit_factor(&b->rec, &n->rec)) {
			rm_warnx("units differ, not compared: '%s %s' (%s and %s)",
				 rm_record_get(&b->rec, "bench"), b->params,
				 rm_record_get(&b->rec, "unit"), rm_record_get(&n->rec, "unit"));
			not_compared(out, n, NULL, xasprintf("units differ: %s and %s",
							     rm_record_get(&b->rec, "unit"),
							     rm_record_get(&n->rec, "unit")));
			uncompared++;
			continue;
		}
		if (a.metrics) {
			bool any = false, bad = false;

			for (const char *p = a.metrics; *p;) {
				size_t l = strcspn(p, ",");
				char *m = xasprintf("%.*s", (int)l, p);
				double v;

				if (number_field(&base, &b->rec, m, &v) &&
				    number_field(&new, &n->rec, m, &v)) {
					int rc = compare_metric(out, &base, &new, b, n, m, a.threshold);

					bad |= rc > 0;
					uncompared += rc < 0;
					any = true;
				}
				free(m);
				p += l + (p[l] == ',');
			}
			regressed += bad;
			if (!any) {
				not_compared(out, n, NULL, xasprintf("none of --metric %s in both",
								     a.metrics));
				uncompared++;
			}
		} else {
			const char *m = default_metric(&b->rec, &n->rec);
			int rc = m ? compare_metric(out, &base, &new, b, n, m, a.threshold) : -1;

			if (!m)
				not_compared(out, n, NULL, xstrdup("no best, p99 or median in both"));
			regressed += rc > 0;
			uncompared += rc < 0;
		}
	}
	for (size_t k = 0; k < new.n; k++)
		if (!new.r[k].matched) {
			bool f = failed(&new.r[k].rec);

			change_record(out, &new.r[k], NULL, rm_record_get(&new.r[k].rec, "unit"),
				      f ? "failed" : "added");
			rm_out_end(out);
			nfailed += f;
		}
	rm_out_close(out);
	rm_out_flush();
	if (regressed)
		rm_warnx("%zu of %zu measurements regressed (worse by more than %g%% and their "
		      "runs' spread)", regressed, compared, a.threshold);
	if (missing && !a.allow_missing)
		rm_warnx("%zu of %zu measurements of '%s' missing from '%s' (--allow-missing "
			 "accepts that)", missing, base.n, base.file, new.file);
	if (nfailed && !a.allow_missing)
		rm_warnx("%zu measurement%s failed, status=failed (--allow-missing accepts that)",
			 nfailed, nfailed == 1 ? "" : "s");
	if (unmeasured && !a.allow_missing)
		rm_warnx("%zu measurement%s of BASE not taken in NEW, status=skipped "
			 "(--allow-missing accepts that)",
			 unmeasured, unmeasured == 1 ? "" : "s");
	if (uncompared)
		rm_warnx("%zu measurement%s could not be compared (verdict=skipped, see reason)",
			 uncompared, uncompared == 1 ? "" : "s");
	free_results(&base);
	free_results(&new);
	if (!a.allow_missing)
		regressed += missing + nfailed, uncompared += unmeasured;
	/* a CI gate fails closed: what it could not compare is no pass */
	return regressed || uncompared ? RM_EXIT_FAILURE : RM_EXIT_SUCCESS;
}
