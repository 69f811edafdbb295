/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench compare: match two result files' measurements and flag the regressions, for CI. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "conffile.h"
#include "exitcodes.h"
#include "json.h"
#include "rm-bench.h"
#include "size.h"
#include "xmltext.h"
#include "xalloc.h"

enum {
	X_CHANGE, X_PARAMS, X_METRIC, X_UNIT, X_BASE, X_NEW, X_DELTA, X_THRESHOLD, X_NOISE,
	X_VERDICT, X_REASON, X_P, X_BASE_RUNS, X_NEW_RUNS,
};
/* The columns of a comparison of two files, as before repeated runs were compared. */
#define PAIR_COLUMNS "change,params,metric,unit,base,new,delta,threshold,noise,verdict,reason"
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
	[X_P] = { "p", RM_COL_FLOAT,
		  "repeated runs: the one-sided p-value of the change (Mann-Whitney U)" },
	[X_BASE_RUNS] = { "base_runs", RM_COL_INT, "repeated runs: the runs of BASE compared" },
	[X_NEW_RUNS] = { "new_runs", RM_COL_INT, "repeated runs: the runs of NEW compared" },
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
	double alpha;          /* repeated runs: the significance level */
	const char *history;   /* a directory of past results: BASE */
	int history_runs;      /* the newest of them compared */
	const char *confirm;   /* a command printing one more NEW result, or NULL */
	int confirm_runs;
	uint64_t confirm_timeout; /* ns, each run */
	const char *junit, *markdown; /* report files, or NULL */
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

static void parse_results(struct results *rs, char *text, size_t len, const char *ignore);

void read_results(struct results *rs, const char *ignore)
{
	size_t len;
	char *text = slurp(rs->file, &len);

	parse_results(rs, text, len, ignore);
}

/* The measurements of the LEN bytes at TEXT (allocated, taken) as read_results has them. */
static void parse_results(struct results *rs, char *text, size_t len, const char *ignore)
{
	size_t nrecs = 0;
	char *msg = NULL;
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

/* One change record, kept so that the JUnit XML and Markdown reports show the same. */
struct row {
	const struct result *r;            /* its bench and parameters */
	const char *unit, *verdict;
	char *metric, *base, *new, *reason; /* allocated; NULL: unknown */
	double delta, threshold, noise, p; /* NAN: unknown */
	int base_runs, new_runs;           /* 0: unknown (two files compared) */
	bool fails;                        /* it fails the comparison */
};

/* The rows and the counts the summary and the exit status come from. */
struct report {
	struct row *rows;
	size_t n;
	/* regressed, compared (matched), missing from NEW, status=failed, status=skipped in
	 * NEW only, and other units, no metric or a base of 0 */
	size_t regressed, compared, missing, nfailed, unmeasured, uncompared;
	bool too_few; /* a test whose runs could not reach --alpha */
};

static struct row *row_add(struct report *rp, const struct result *r, const char *metric,
			   const char *unit, const char *verdict)
{
	struct row *w;

	rp->rows = xrealloc(rp->rows, (rp->n + 1) * sizeof(*rp->rows));
	w = &rp->rows[rp->n++];
	*w = (struct row){ .r = r, .metric = metric ? xstrdup(metric) : NULL, .unit = unit,
			   .verdict = verdict, .delta = NAN, .threshold = NAN, .noise = NAN,
			   .p = NAN };
	return w;
}

static void report_free(struct report *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		free(rp->rows[i].metric);
		free(rp->rows[i].base);
		free(rp->rows[i].new);
		free(rp->rows[i].reason);
	}
	free(rp->rows);
	*rp = (struct report){ 0 };
}

/* A measurement not compared, and why (allocated REASON, taken). */
static struct row *not_compared(struct report *rp, const struct result *r, const char *metric,
				char *reason)
{
	struct row *w = row_add(rp, r, metric, rm_record_get(&r->rec, "unit"), "skipped");

	w->reason = reason;
	return w;
}

static void print_float(struct rm_out *out, int col, double v, int decimals)
{
	if (isnan(v))
		rm_out_str(out, col, NULL);
	else
		rm_out_float(out, col, v, decimals);
}

static void print_report(struct rm_out *out, const struct report *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		const struct row *w = &rp->rows[i];

		rm_out_begin(out);
		rm_out_str(out, X_CHANGE, rm_record_get(&w->r->rec, "bench"));
		rm_out_str(out, X_PARAMS, w->r->params);
		rm_out_str(out, X_METRIC, w->metric);
		rm_out_str(out, X_UNIT, w->unit);
		rm_out_str(out, X_VERDICT, w->verdict);
		rm_out_str(out, X_BASE, w->base);
		rm_out_str(out, X_NEW, w->new);
		print_float(out, X_DELTA, w->delta, 1);
		print_float(out, X_THRESHOLD, w->threshold, 1);
		print_float(out, X_NOISE, w->noise, 1);
		rm_out_str(out, X_REASON, w->reason);
		print_float(out, X_P, w->p, 4);
		if (w->base_runs)
			rm_out_int(out, X_BASE_RUNS, w->base_runs);
		else
			rm_out_str(out, X_BASE_RUNS, NULL);
		if (w->new_runs)
			rm_out_int(out, X_NEW_RUNS, w->new_runs);
		else
			rm_out_str(out, X_NEW_RUNS, NULL);
		rm_out_end(out);
	}
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
static int compare_metric(struct report *rp, const struct results *base,
			  const struct results *new, const struct result *b, const struct result *n,
			  const char *metric, double threshold)
{
	const char *unit = rm_record_get(&b->rec, "unit"), *nu = rm_record_get(&n->rec, "unit");
	double delta, noise, factor = unit_factor(&b->rec, &n->rec), vn;
	const char *verdict = compare_decide(base, new, b, n, metric, threshold, &delta, &noise);
	struct row *w;

	if (!strcmp(verdict, "skipped")) {
		not_compared(rp, n, metric, xasprintf("%s is 0 in BASE", metric))->fails = true;
		return -1;
	}
	w = row_add(rp, n, metric, unit, verdict);
	w->base = xstrdup(rm_record_get(&b->rec, metric));
	if (factor != 1) {
		number_field(new, &n->rec, metric, &vn);
		w->new = xasprintf("%.6g", vn * factor);
		w->reason = xasprintf("NEW in %s, converted", nu);
	} else {
		w->new = xstrdup(rm_record_get(&n->rec, metric));
	}
	w->delta = delta;
	w->threshold = threshold;
	w->noise = noise;
	w->fails = !strcmp(verdict, "regressed");
	return w->fails;
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

/* The reason of a measurement skipped in BASE, NEW or both (allocated). */
static char *skip_reason(const struct rm_record *b, const struct rm_record *n)
{
	const struct rm_record *r = skipped(n) ? n : b;
	const char *why = rm_record_get(r, "reason");

	if (why && !strcmp(why, "-"))
		why = NULL;
	return xasprintf("status=%s in %s%s%s", rm_record_get(r, "status"),
			 !skipped(b) ? "NEW" : skipped(n) ? "both" : "BASE",
			 why ? ": " : "", why ? why : "");
}

/* A matched pair of two files, compared as ever: threshold and the runs' own spread. */
static void compare_pair(struct report *rp, const struct compare_args *a,
			 const struct results *base, const struct results *new,
			 const struct result *b, const struct result *n)
{
	if (failed(&b->rec) || failed(&n->rec)) {
		row_add(rp, n, NULL, rm_record_get(&n->rec, "unit"), "failed")->fails =
			!a->allow_missing;
		rp->nfailed++;
		return;
	}
	if (skipped(&b->rec) || skipped(&n->rec)) {
		/* not taken in NEW only: NEW measured less, as when it is missing; in BASE too (or
		 * only), nothing was lost */
		bool lost = !skipped(&b->rec);

		not_compared(rp, n, NULL, skip_reason(&b->rec, &n->rec))->fails =
			lost && !a->allow_missing;
		rp->unmeasured += lost;
		return;
	}
	if (!unit_factor(&b->rec, &n->rec)) {
		rm_warnx("units differ, not compared: '%s %s' (%s and %s)",
			 rm_record_get(&b->rec, "bench"), b->params,
			 rm_record_get(&b->rec, "unit"), rm_record_get(&n->rec, "unit"));
		not_compared(rp, n, NULL, xasprintf("units differ: %s and %s",
						    rm_record_get(&b->rec, "unit"),
						    rm_record_get(&n->rec, "unit")))->fails = true;
		rp->uncompared++;
		return;
	}
	if (a->metrics) {
		bool any = false, bad = false;

		for (const char *p = a->metrics; *p;) {
			size_t l = strcspn(p, ",");
			char *m = xasprintf("%.*s", (int)l, p);
			double v;

			if (number_field(base, &b->rec, m, &v) && number_field(new, &n->rec, m, &v)) {
				int rc = compare_metric(rp, base, new, b, n, m, a->threshold);

				bad |= rc > 0;
				rp->uncompared += rc < 0;
				any = true;
			}
			free(m);
			p += l + (p[l] == ',');
		}
		rp->regressed += bad;
		if (!any) {
			not_compared(rp, n, NULL, xasprintf("none of --metric %s in both",
							    a->metrics))->fails = true;
			rp->uncompared++;
		}
	} else {
		const char *m = default_metric(&b->rec, &n->rec);
		int rc = m ? compare_metric(rp, base, new, b, n, m, a->threshold) : -1;

		if (!m)
			not_compared(rp, n, NULL, xstrdup("no best, p99 or median in both"))->fails =
				true;
		rp->regressed += rc > 0;
		rp->uncompared += rc < 0;
	}
}

/* ---- repeated runs: a side is several result files ---- */

enum { MAX_RUNS = 1000, MAX_CONFIRM_OUTPUT = 64 << 20 };

struct side {
	const char *name;     /* as given, for messages */
	struct results *f;
	size_t n;
	bool several;         /* a directory or a history: compared as repeated runs */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void side_add(struct side *sd, struct results *rs)
{
	sd->f = xrealloc(sd->f, (sd->n + 1) * sizeof(*sd->f));
	sd->f[sd->n++] = *rs;
}

/* PATH as a side: one result file, or each regular file of the directory PATH (names starting
 * with a dot left out) in name order, the last KEEP of them (0: all); exits 2 when the
 * directory holds none or more than MAX_RUNS. */
static void side_read(struct side *sd, const char *path, int keep, const char *ignore)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, first;

	sd->name = path;
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!(d = opendir(path))) {
			rm_warnx("cannot read the results: %s: '%s'", strerror(errno), path);
			exit(RM_EXIT_USAGE);
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' ||
			    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISREG(st.st_mode))
				continue;
			if (n == MAX_RUNS && !keep) {
				closedir(d);
				bad_input(path, "more than 1000 result files");
			}
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", path, e->d_name);
		}
		closedir(d);
		if (!n)
			bad_input(path, "no result files in the directory");
		qsort(names, n, sizeof(*names), cmp_name);
		first = keep && n > (size_t)keep ? n - (size_t)keep : 0;
		for (size_t i = 0; i < n; i++) {
			struct results rs = { .file = names[i] };

			if (i < first) {
				free(names[i]);
				continue;
			}
			read_results(&rs, ignore);
			side_add(sd, &rs);
		}
		free(names); /* the file names stay, as the results' names */
		sd->several = true;
		return;
	}
	struct results rs = { .file = xstrdup(path) };

	read_results(&rs, ignore);
	side_add(sd, &rs);
}

static void side_free(struct side *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		free((char *)sd->f[i].file);
		free_results(&sd->f[i]);
	}
	free(sd->f);
}

/* The measurement of KEY in RS, or NULL. */
static struct result *find_key(const struct results *rs, const char *key)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].key, key))
			return &rs->r[i];
	return NULL;
}

/* The decimals of the number S ("22.00": 2), to print medians as the results wrote them. */
static int decimals_of(const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL;

	return dot ? (int)strspn(dot + 1, "0123456789") : 0;
}

/* The values of METRIC of the runs R[0..N) that have it, in R[0]'s unit, into V; their count. */
static size_t values_of(const struct side *sd, struct result **r, size_t n, const char *metric,
			const struct result *unit_of, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct results *rs = NULL;

		for (size_t f = 0; f < sd->n && !rs; f++)
			if (r[i] >= sd->f[f].r && r[i] < sd->f[f].r + sd->f[f].n)
				rs = &sd->f[f];
		if (number_field(rs, &r[i]->rec, metric, &v[k]))
			v[k++] *= unit_factor(&unit_of->rec, &r[i]->rec);
	}
	return k;
}

static double range_of(const double *v, size_t n, double median)
{
	double lo = v[0], hi = v[0];

	for (size_t i = 1; i < n; i++)
		lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
	return median ? (hi - lo) / fabs(median) * 100 : 0;
}

/* The smallest one-sided p-value NX and NY runs can give: 1 / C(NX + NY, NX). */
static double min_p(size_t nx, size_t ny)
{
	double c = 1;

	for (size_t i = 1; i <= nx; i++)
		c = c * (double)(ny + i) / (double)i;
	return 1 / c;
}

/* One metric of runs B (NB) and N (NN) of a measurement: the medians' change, the test's
 * p-value in the change's direction, the verdict. 1 when it regressed, -1 when it could not be
 * compared. */
static int gate_metric(struct report *rp, const struct compare_args *a, const struct side *bs,
		       const struct side *ns, struct result **b, size_t nb, struct result **n,
		       size_t nn, const char *metric)
{
	const char *unit = rm_record_get(&b[0]->rec, "unit");
	bool higher = unit && strstr(unit, "/s"), worse;
	double *vb = xmalloc(nb * sizeof(*vb)), *vn = xmalloc(nn * sizeof(*vn)), mb, mn, pw, pb;
	size_t kb = values_of(bs, b, nb, metric, b[0], vb), kn = values_of(ns, n, nn, metric, b[0], vn);
	int dec = decimals_of(rm_record_get(&b[0]->rec, metric));
	struct row *w;

	if (!kb || !kn) {
		free(vb);
		free(vn);
		return 0; /* not in both: as a pair without it */
	}
	mb = stat_median(vb, kb);
	mn = stat_median(vn, kn);
	if (mb == 0) {
		free(vb);
		free(vn);
		not_compared(rp, n[0], metric, xasprintf("%s is 0 in BASE", metric))->fails = true;
		return -1;
	}
	w = row_add(rp, n[0], metric, unit, NULL);
	w->base = xasprintf("%.*f", dec, mb);
	w->new = xasprintf("%.*f", dec, mn);
	w->delta = (mn - mb) / fabs(mb) * 100;
	w->threshold = a->threshold;
	w->noise = fmax(range_of(vb, kb, mb), range_of(vn, kn, mn));
	w->base_runs = (int)kb;
	w->new_runs = (int)kn;
	worse = higher ? w->delta < 0 : w->delta > 0;
	/* worse: NEW lower for rates, higher for times */
	pw = higher ? stat_mann_whitney_less(vn, kn, vb, kb) : stat_mann_whitney_less(vb, kb, vn, kn);
	pb = higher ? stat_mann_whitney_less(vb, kb, vn, kn) : stat_mann_whitney_less(vn, kn, vb, kb);
	w->p = worse ? pw : pb;
	if (fabs(w->delta) <= a->threshold)
		w->verdict = "same";
	else if (w->p > a->alpha)
		w->verdict = "noise";
	else
		w->verdict = worse ? "regressed" : "improved";
	rp->too_few |= min_p(kb, kn) > a->alpha;
	free(vb);
	free(vn);
	w->fails = !strcmp(w->verdict, "regressed");
	return w->fails;
}

/* The runs of KEY on side SD, those with status=ok into OK; their count, and of all into *ALL,
 * the first failed one into *FAIL (NULL: none). R and OK hold SD->n entries. */
static size_t runs_of(const struct side *sd, const char *key, struct result **r, size_t *all,
		      struct result **ok, struct result **fail)
{
	size_t nok = 0;

	*all = 0;
	*fail = NULL;
	for (size_t f = 0; f < sd->n; f++) {
		struct result *x = find_key(&sd->f[f], key);

		if (!x)
			continue;
		r[(*all)++] = x;
		if (failed(&x->rec) && !*fail)
			*fail = x;
		if (!skipped(&x->rec))
			ok[nok++] = x;
	}
	return nok;
}

/* One measurement of BASE's runs (B0 the first) against NEW's. */
static void gate_measurement(struct report *rp, const struct compare_args *a,
			     const struct side *bs, const struct side *ns, struct result *b0)
{
	struct result **br = xmalloc(bs->n * sizeof(*br)), **bok = xmalloc(bs->n * sizeof(*bok));
	struct result **nr = xmalloc(ns->n * sizeof(*nr)), **nok = xmalloc(ns->n * sizeof(*nok));
	struct result *bfail, *nfail;
	size_t nb, nn, kb = runs_of(bs, b0->key, br, &nb, bok, &bfail);
	size_t kn = runs_of(ns, b0->key, nr, &nn, nok, &nfail);

	for (size_t i = 0; i < nn; i++)
		nr[i]->matched = true;
	if (!nn) {
		row_add(rp, b0, NULL, rm_record_get(&b0->rec, "unit"), "missing")->fails =
			!a->allow_missing;
		rp->missing++;
		goto out;
	}
	rp->compared++;
	/* a failed run of NEW fails it; runs of BASE that failed are left out of it, unless
	 * all did */
	if (nfail || (!kb && bfail)) {
		row_add(rp, nfail ? nfail : nr[0], NULL, rm_record_get(&nr[0]->rec, "unit"),
			"failed")->fails = !a->allow_missing;
		rp->nfailed++;
		goto out;
	}
	if (!kb || !kn) {
		bool lost = kb > 0;

		not_compared(rp, nr[0], NULL, skip_reason(kb ? &bok[0]->rec : &br[0]->rec,
							  &nr[0]->rec))->fails =
			lost && !a->allow_missing;
		rp->unmeasured += lost;
		goto out;
	}
	for (size_t i = 0; i < kb + kn; i++) {
		const struct result *x = i < kb ? bok[i] : nok[i - kb];

		if (!unit_factor(&bok[0]->rec, &x->rec)) {
			rm_warnx("units differ, not compared: '%s %s' (%s and %s)",
				 rm_record_get(&b0->rec, "bench"), b0->params,
				 rm_record_get(&bok[0]->rec, "unit"), rm_record_get(&x->rec, "unit"));
			not_compared(rp, nok[0], NULL,
				     xasprintf("units differ: %s and %s",
					       rm_record_get(&bok[0]->rec, "unit"),
					       rm_record_get(&x->rec, "unit")))->fails = true;
			rp->uncompared++;
			goto out;
		}
	}
	{
		const char *dm = default_metric(&bok[0]->rec, &nok[0]->rec);
		const char *list = a->metrics ? a->metrics : dm;
		bool any = false, bad = false;

		for (const char *p = list; p && *p;) {
			size_t l = strcspn(p, ",");
			char *m = xasprintf("%.*s", (int)l, p);
			size_t before = rp->n;
			int rc = gate_metric(rp, a, bs, ns, bok, kb, nok, kn, m);

			bad |= rc > 0;
			rp->uncompared += rc < 0;
			any |= rp->n > before;
			free(m);
			p += l + (p[l] == ',');
		}
		rp->regressed += bad;
		if (!any) {
			not_compared(rp, nok[0], NULL,
				     a->metrics ? xasprintf("none of --metric %s in both", a->metrics)
						: xstrdup("no best, p99 or median in both"))->fails = true;
			rp->uncompared++;
		}
	}
out:
	free(br);
	free(bok);
	free(nr);
	free(nok);
}

/* Every measurement of BASE's runs against NEW's, then those only NEW has. */
static void gate(struct report *rp, const struct compare_args *a, const struct side *bs,
		 const struct side *ns)
{
	for (size_t f = 0; f < ns->n; f++)
		for (size_t i = 0; i < ns->f[f].n; i++)
			ns->f[f].r[i].matched = false;
	for (size_t f = 0; f < bs->n; f++)
		for (size_t i = 0; i < bs->f[f].n; i++) {
			struct result *b = &bs->f[f].r[i];
			bool seen = false;

			for (size_t g = 0; g < f && !seen; g++)
				seen = find_key(&bs->f[g], b->key) != NULL;
			if (!seen)
				gate_measurement(rp, a, bs, ns, b);
		}
	for (size_t f = 0; f < ns->n; f++)
		for (size_t i = 0; i < ns->f[f].n; i++) {
			struct result *x = &ns->f[f].r[i];
			struct result *fl = NULL;

			if (x->matched)
				continue;
			/* each added measurement once, failed when any of its runs failed */
			for (size_t g = f; g < ns->n; g++) {
				struct result *y = find_key(&ns->f[g], x->key);

				if (y) {
					y->matched = true;
					if (!fl && failed(&y->rec))
						fl = y;
				}
			}
			row_add(rp, fl ? fl : x, NULL, rm_record_get(&x->rec, "unit"),
				fl ? "failed" : "added")->fails = fl && !a->allow_missing;
			rp->nfailed += fl != NULL;
		}
}

/* Run the --confirm command once: its standard output as one more result of NEW. Exits 1 when
 * it cannot be run, fails, runs past the timeout or prints more than MAX_CONFIRM_OUTPUT. */
static void confirm_run(struct side *ns, const struct compare_args *a, int i)
{
	int fd = memfd_create("rm-bench-confirm", MFD_CLOEXEC), status;
	uint64_t deadline = bench_now() + a->confirm_timeout;
	struct stat st;
	pid_t pid;
	char *text;

	if (fd < 0)
		rm_err(RM_EXIT_FAILURE, "cannot run --confirm");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		rm_err(RM_EXIT_FAILURE, "cannot run --confirm");
	if (pid == 0) {
		if (dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", a->confirm, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (bench_now() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			rm_errx(RM_EXIT_FAILURE, "--confirm ran past --confirm-timeout: '%s'",
			       a->confirm);
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		rm_errx(RM_EXIT_FAILURE, "--confirm failed (%s %d): '%s'",
		       WIFEXITED(status) ? "exit status" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), a->confirm);
	if (fstat(fd, &st) || st.st_size > MAX_CONFIRM_OUTPUT)
		rm_errx(RM_EXIT_FAILURE, "--confirm printed more than 64 MiB: '%s'", a->confirm);
	text = xmalloc((size_t)st.st_size + 1);
	if (pread(fd, text, (size_t)st.st_size, 0) != st.st_size)
		rm_err(RM_EXIT_FAILURE, "cannot read the output of --confirm");
	text[st.st_size] = 0;
	close(fd);
	struct results rs = { .file = xasprintf("--confirm run %d", i + 1) };

	parse_results(&rs, text, (size_t)st.st_size, a->ignore);
	side_add(ns, &rs);
	ns->several = true;
}

/* ---- reports for CI systems ---- */

/* What a row's verdict and numbers say, in one line (allocated). */
static char *row_text(const struct row *w)
{
	char *t, *p = isnan(w->p) ? xstrdup("") : xasprintf(", p=%.4f", w->p);

	if (w->base && w->new && !isnan(w->delta))
		t = xasprintf("%s %s: %s -> %s %s (%+.1f%%%s)", w->verdict, w->metric, w->base,
			      w->new, w->unit ? w->unit : "", w->delta, p);
	else
		t = xasprintf("%s%s%s", w->verdict, w->reason ? ": " : "", w->reason ? w->reason : "");
	free(p);
	return t;
}

/* The report as JUnit XML: a test case per change record, failed when it fails the
 * comparison, skipped when it was not compared (allocated). */
static char *junit_text(const struct report *rp, size_t nfail)
{
	char *buf = NULL;
	size_t len = 0, nskip = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	for (size_t i = 0; i < rp->n; i++)
		nskip += !rp->rows[i].fails && !strcmp(rp->rows[i].verdict, "skipped");
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"rm-bench compare\" tests=\"%zu\" failures=\"%zu\" "
		"skipped=\"%zu\">\n<testsuite name=\"rm-bench compare\" tests=\"%zu\" "
		"failures=\"%zu\" skipped=\"%zu\">\n", rp->n, nfail, nskip, rp->n, nfail, nskip);
	for (size_t i = 0; i < rp->n; i++) {
		const struct row *w = &rp->rows[i];
		char *t = row_text(w);

		fputs("<testcase classname=\"rm-bench.", f);
		rm_xml_text(f, rm_record_get(&w->r->rec, "bench"));
		fputs("\" name=\"", f);
		rm_xml_text(f, w->r->params);
		if (w->metric) {
			fputs(" metric=", f);
			rm_xml_text(f, w->metric);
		}
		fputs("\">", f);
		if (w->fails || !strcmp(w->verdict, "skipped")) {
			fputs(w->fails ? "<failure type=\"" : "<skipped type=\"", f);
			rm_xml_text(f, w->verdict);
			fputs("\" message=\"", f);
			rm_xml_text(f, t);
			fputs("\"/>", f);
		} else {
			fputs("<system-out>", f);
			rm_xml_text(f, t);
			fputs("</system-out>", f);
		}
		fputs("</testcase>\n", f);
		free(t);
	}
	fputs("</testsuite>\n</testsuites>\n", f);
	if (fclose(f))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	return buf;
}

/* S in a Markdown table cell: | escaped, control characters as spaces. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			putc((unsigned char)*s < ' ' ? ' ' : *s, f);
}

/* The report as a Markdown summary (a CI step summary): a headline, then a table of what fails
 * the comparison first and the rest after (allocated). */
static char *markdown_text(const struct report *rp, size_t nfail)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	if (nfail)
		fprintf(f, "## rm-bench compare: FAILED, %zu of %zu results\n\n", nfail, rp->n);
	else
		fprintf(f, "## rm-bench compare: passed, %zu results\n\n", rp->n);
	fputs("| | measurement | metric | base | new | unit | delta | p | verdict |\n"
	      "|---|---|---|--:|--:|---|--:|--:|---|\n", f);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rp->n; i++) {
			const struct row *w = &rp->rows[i];

			if (w->fails != !pass)
				continue;
			fprintf(f, "| %s | ", w->fails ? "FAIL" : "ok");
			md_cell(f, rm_record_get(&w->r->rec, "bench"));
			putc(' ', f);
			md_cell(f, w->r->params);
			fputs(" | ", f);
			md_cell(f, w->metric ? w->metric : "-");
			fprintf(f, " | %s | %s | ", w->base ? w->base : "-", w->new ? w->new : "-");
			md_cell(f, w->unit ? w->unit : "-");
			if (isnan(w->delta))
				fputs(" | - | ", f);
			else
				fprintf(f, " | %+.1f%% | ", w->delta);
			if (isnan(w->p))
				fputs("-", f);
			else
				fprintf(f, "%.4f", w->p);
			fprintf(f, " | %s", w->verdict);
			if (w->reason) {
				fputs(": ", f);
				md_cell(f, w->reason);
			}
			fputs(" |\n", f);
		}
	if (fclose(f))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	return buf;
}

static void write_report(const char *path, char *text)
{
	char *msg = NULL;

	if (rm_atomic_write(path, text, strlen(text), 0644, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	free(text);
}

enum {
	OPT_THRESHOLD = 0x200, OPT_METRIC, OPT_IGNORE, OPT_ALLOW_MISSING, OPT_ALPHA, OPT_HISTORY,
	OPT_HISTORY_RUNS, OPT_CONFIRM, OPT_CONFIRM_RUNS, OPT_CONFIRM_TIMEOUT, OPT_JUNIT,
	OPT_MARKDOWN,
};

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
	{ "alpha", OPT_ALPHA, "P", 0,
	  "repeated runs: the significance level of a change (default: 0.05)", 0 },
	{ "history", OPT_HISTORY, "DIR", 0,
	  "BASE is the newest result files of DIR, by name; give NEW only", 0 },
	{ "history-runs", OPT_HISTORY_RUNS, "N", 0,
	  "how many of the newest files of --history (default: 10)", 0 },
	{ "confirm", OPT_CONFIRM, "COMMAND", 0,
	  "when a measurement regressed, run COMMAND (sh -c) for more runs of NEW, its output "
	  "a result file, and decide again", 0 },
	{ "confirm-runs", OPT_CONFIRM_RUNS, "N", 0, "how many runs of --confirm (default: 3)", 0 },
	{ "confirm-timeout", OPT_CONFIRM_TIMEOUT, "DURATION", 0,
	  "the longest each run of --confirm may take (default: 30m)", 0 },
	{ "junit", OPT_JUNIT, "FILE", 0, "also write the comparison as JUnit XML to FILE", 0 },
	{ "markdown", OPT_MARKDOWN, "FILE", 0,
	  "also write the comparison as a Markdown summary to FILE", 0 },
	{ 0 }
};

/* A report file's path, refused (exit 2) when rm_atomic_open would refuse it. */
static const char *report_path(struct argp_state *state, const char *opt, const char *arg)
{
	char *msg = NULL;

	if (!*arg || rm_atomic_check(arg, &msg) < 0)
		argp_error(state, "%s: %s", opt, msg ? msg : "an empty file name");
	return arg;
}

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;
	double v;
	char *end;

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
	case OPT_ALPHA:
		errno = 0;
		v = strtod(arg, &end);
		if (end == arg || *end || errno || !(v > 0 && v < 1))
			argp_error(state, "--alpha takes a probability between 0 and 1, such as "
				   "0.05: '%s'", arg);
		a->alpha = v;
		break;
	case OPT_HISTORY:
		a->history = arg;
		break;
	case OPT_HISTORY_RUNS:
		a->history_runs = (int)parse_long(state, "--history-runs", arg, 1, MAX_RUNS);
		break;
	case OPT_CONFIRM:
		if (!*arg)
			argp_error(state, "--confirm takes a command");
		a->confirm = arg;
		break;
	case OPT_CONFIRM_RUNS:
		a->confirm_runs = (int)parse_long(state, "--confirm-runs", arg, 1, 100);
		break;
	case OPT_CONFIRM_TIMEOUT:
		if (parse_duration(arg, &a->confirm_timeout) < 0 || !a->confirm_timeout)
			argp_error(state, "--confirm-timeout takes a duration such as 10m: '%s'", arg);
		break;
	case OPT_JUNIT:
		a->junit = report_path(state, "--junit", arg);
		break;
	case OPT_MARKDOWN:
		a->markdown = report_path(state, "--markdown", arg);
		break;
	case ARGP_KEY_ARG:
		if (a->nfiles == 2)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->files[a->nfiles++] = arg;
		break;
	case ARGP_KEY_END:
		if (a->common->out.list_columns)
			break;
		if (a->history && a->nfiles != 1)
			argp_error(state, "with --history, give NEW only");
		if (a->nfiles < 2 && !a->history)
			argp_error(state, "give two result files or directories: BASE and NEW");
		if (a->nfiles == 2 && !strcmp(a->files[0], "-") && !strcmp(a->files[1], "-"))
			argp_error(state, "only one of BASE and NEW may be standard input");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The summary on standard error; the exit status. */
static int conclude(const struct report *rp, const struct compare_args *a, size_t nbase,
		    const char *base, const char *new, bool runs)
{
	size_t regressed = rp->regressed, uncompared = rp->uncompared;

	if (rp->regressed)
		rm_warnx(runs ? "%zu of %zu measurements regressed (worse by more than %g%%, "
			 "p <= %g)" : "%zu of %zu measurements regressed (worse by more than %g%% "
			 "and their runs' spread)", rp->regressed, rp->compared, a->threshold,
			 a->alpha);
	if (rp->missing && !a->allow_missing)
		rm_warnx("%zu of %zu measurements of '%s' missing from '%s' (--allow-missing "
			 "accepts that)", rp->missing, nbase, base, new);
	if (rp->nfailed && !a->allow_missing)
		rm_warnx("%zu measurement%s failed, status=failed (--allow-missing accepts that)",
			 rp->nfailed, rp->nfailed == 1 ? "" : "s");
	if (rp->unmeasured && !a->allow_missing)
		rm_warnx("%zu measurement%s of BASE not taken in NEW, status=skipped "
			 "(--allow-missing accepts that)",
			 rp->unmeasured, rp->unmeasured == 1 ? "" : "s");
	if (rp->uncompared)
		rm_warnx("%zu measurement%s could not be compared (verdict=skipped, see reason)",
			 rp->uncompared, rp->uncompared == 1 ? "" : "s");
	if (!a->allow_missing)
		regressed += rp->missing + rp->nfailed, uncompared += rp->unmeasured;
	/* a CI gate fails closed: what it could not compare is no pass */
	return regressed || uncompared ? RM_EXIT_FAILURE : RM_EXIT_SUCCESS;
}

/* Two result files, as compared before repeated runs: each pair by threshold and spread. */
static void compare_files(struct report *rp, const struct compare_args *a, struct results *base,
			  struct results *new)
{
	check_machines(base, new);
	for (size_t i = 0; i < base->n; i++) {
		struct result *b = &base->r[i], *n = NULL;

		for (size_t k = 0; k < new->n && !n; k++)
			if (!new->r[k].matched && !strcmp(new->r[k].key, b->key))
				n = &new->r[k];
		if (!n) {
			row_add(rp, b, NULL, rm_record_get(&b->rec, "unit"), "missing")->fails =
				!a->allow_missing;
			rp->missing++;
			continue;
		}
		n->matched = true;
		rp->compared++;
		compare_pair(rp, a, base, new, b, n);
	}
	for (size_t k = 0; k < new->n; k++)
		if (!new->r[k].matched) {
			bool f = failed(&new->r[k].rec);

			row_add(rp, &new->r[k], NULL, rm_record_get(&new->r[k].rec, "unit"),
				f ? "failed" : "added")->fails = f && !a->allow_missing;
			rp->nfailed += f;
		}
}

/* The distinct measurements of a side. */
static size_t side_measurements(const struct side *sd)
{
	size_t n = 0;

	for (size_t f = 0; f < sd->n; f++)
		for (size_t i = 0; i < sd->f[f].n; i++) {
			bool seen = false;

			for (size_t g = 0; g < f && !seen; g++)
				seen = find_key(&sd->f[g], sd->f[f].r[i].key) != NULL;
			n += !seen;
		}
	return n;
}

int cmd_compare(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		compare_options, compare_parse, "BASE NEW\n--history DIR NEW",
		"Compare results of rm-bench (records or JSON; - for standard input): "
		"measurements are matched by name and parameters, and each change is reported "
		"with its size. BASE and NEW are result files, or directories of result files "
		"of repeated runs. Two files: a change is a regression when it is worse by more "
		"than the threshold and by more than either run's own spread. Repeated runs "
		"(a directory, --history or --confirm): when the medians differ by more than the "
		"threshold and a Mann-Whitney U test finds the change significant at --alpha. "
		"Exit status 1 when a measurement regressed, failed (status=failed), is missing "
		"from NEW or could not be compared (units of other dimensions, no metric, not "
		"taken in NEW: the gate fails closed); 2 when a file holds no measurements or is "
		"not records or JSON.",
		NULL, NULL, NULL
	};
	struct compare_args a = { .threshold = 5, .alpha = 0.05, .history_runs = 10,
				  .confirm_runs = 3, .confirm_timeout = 1800000000000ULL,
				  .common = c };
	struct side base = { 0 }, new = { 0 };
	struct report rp = { 0 };
	bool runs;
	size_t nfail = 0;
	struct rm_out *out;
	int rc;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, change_cols, ARRAY_SIZE(change_cols), PAIR_COLUMNS);
		return RM_EXIT_SUCCESS;
	}
	side_read(&base, a.history ? a.history : a.files[0], a.history ? a.history_runs : 0,
		  a.ignore);
	side_read(&new, a.files[a.history ? 0 : 1], 0, a.ignore);
	runs = base.several || new.several || a.confirm;
	if (!runs) {
		compare_files(&rp, &a, &base.f[0], &new.f[0]);
	} else {
		check_machines(&base.f[base.n - 1], &new.f[0]);
		gate(&rp, &a, &base, &new);
		if (rp.regressed && a.confirm) {
			rm_warnx("%zu measurement%s regressed, confirming with %d more run%s of NEW: "
				 "'%s'", rp.regressed, rp.regressed == 1 ? "" : "s", a.confirm_runs,
				 a.confirm_runs == 1 ? "" : "s", a.confirm);
			for (int i = 0; i < a.confirm_runs; i++)
				confirm_run(&new, &a, i);
			report_free(&rp);
			gate(&rp, &a, &base, &new);
		}
		if (rp.too_few)
			rm_warnx("too few runs for a change to be significant at --alpha %g: %s", a.alpha,
				 "3 runs a side reach 0.05, 4 reach 0.014 (see rm-bench(1))");
	}
	out = rm_out_new(&c->out, "changes", change_cols, ARRAY_SIZE(change_cols),
			 runs ? NULL : PAIR_COLUMNS, true);
	print_report(out, &rp);
	rm_out_close(out);
	rm_out_flush();
	for (size_t i = 0; i < rp.n; i++)
		nfail += rp.rows[i].fails;
	if (a.junit)
		write_report(a.junit, junit_text(&rp, nfail));
	if (a.markdown)
		write_report(a.markdown, markdown_text(&rp, nfail));
	rc = conclude(&rp, &a, runs ? side_measurements(&base) : base.f[0].n, base.name, new.name,
		      runs);
	report_free(&rp);
	side_free(&base);
	side_free(&new);
	return rc;
}
