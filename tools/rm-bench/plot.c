/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench plot: result files as SVG pictures: the latency curve, NUMA heat maps, compare's deltas. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "exitcodes.h"
#include "rm-bench.h"
#include "size.h"
#include "xalloc.h"
#include "xmltext.h"

/*
 * The SVG is written by hand: it is a few kinds of elements (lines, rectangles, text), and the
 * libraries that draw charts (cairo, plotutils) would add a build dependency for what fprintf
 * does here. The text is XML-escaped by rm_xml_text (libcommon/xmltext.c).
 */

enum plot_kind { KIND_NONE, KIND_LATENCY, KIND_MATRIX, KIND_COMPARE, KIND_LOADED };
static const char *const kind_names[] = { "", "latency", "matrix", "compare", "loaded" };

enum { OPT_KIND = 0x200, OPT_OUTPUT, OPT_THRESHOLD };

struct plot_args {
	enum plot_kind kind;
	const char *output;
	const char **files;
	int nfiles;
	double threshold;
};

static const struct argp_option plot_options[] = {
	{ "kind", OPT_KIND, "KIND", 0,
	  "latency, matrix, compare or loaded (default: what the results hold)", 0 },
	{ "output", OPT_OUTPUT, "FILE", 0, "the SVG file to write, - for standard output", 0 },
	{ "threshold", OPT_THRESHOLD, "PCT", 0,
	  "compare: the smallest change reported as one (default: 5%)", 0 },
	{ 0 }
};

static error_t plot_parse(int key, char *arg, struct argp_state *state)
{
	struct plot_args *a = state->input;
	int stdin_files = 0;

	switch (key) {
	case OPT_KIND:
		a->kind = KIND_NONE;
		for (int k = KIND_LATENCY; k <= KIND_LOADED; k++)
			if (!strcmp(arg, kind_names[k]))
				a->kind = (enum plot_kind)k;
		if (a->kind == KIND_NONE)
			argp_error(state, "--kind takes latency, matrix, compare or loaded: '%s'", arg);
		break;
	case OPT_OUTPUT:
		if (!*arg)
			argp_error(state, "no file name given to --output: ''");
		a->output = arg;
		break;
	case OPT_THRESHOLD:
		a->threshold = parse_percent(arg);
		if (a->threshold < 0)
			argp_error(state, "--threshold takes a percentage such as 5%%: '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		a->files = xrealloc(a->files, ((size_t)a->nfiles + 1) * sizeof(*a->files));
		a->files[a->nfiles++] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->nfiles)
			argp_error(state, "give one or more result files");
		if (!a->output)
			argp_error(state, "give the SVG file with --output FILE (- for standard "
				   "output)");
		for (int i = 0; i < a->nfiles; i++)
			stdin_files += !strcmp(a->files[i], "-");
		if (stdin_files > 1)
			argp_error(state, "only one result file may be standard input");
		if (a->kind == KIND_COMPARE && a->nfiles != 2)
			argp_error(state, "--kind compare takes two result files: BASE and NEW");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- SVG ---- */

/* A text element at X, Y; ATTRS are more attributes (class, text-anchor), as written. */
__attribute__((format(printf, 5, 6)))
static void svg_text(FILE *f, double x, double y, const char *attrs, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	va_end(ap);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, *attrs ? " " : "", attrs);
	rm_xml_text(f, s);
	fputs("</text>\n", f);
	free(s);
}

static void svg_begin(FILE *f, double w, double h, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<title>", w, h, w, h);
	rm_xml_text(f, title);
	fprintf(f, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", w, h);
	svg_text(f, w / 2, 24, "text-anchor=\"middle\" font-size=\"16\" class=\"title\"", "%s",
		 title);
}

static void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

/* Series colours, distinct in print and for the common colour blindnesses (Okabe-Ito). */
static const char *const palette[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
};

/* A step of 1, 2 or 5 times a power of ten giving about N ticks over SPAN. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* An unsigned field of REC as a number; false when absent, "-" or not a plain integer. */
static bool int_field(const struct rm_record *rec, const char *key, long *v)
{
	const char *s = rm_record_get(rec, key);
	char *end;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
		return false;
	*v = strtol(s, &end, 10);
	return true;
}

/* A size field of REC in bytes ("64MiB" or a byte count); false when absent or not a size. */
static bool size_field(const struct rm_record *rec, const char *key, uint64_t *v)
{
	const char *s = rm_record_get(rec, key);
	char *msg = NULL;

	if (!s || !strcmp(s, "-"))
		return false;
	if (rm_size_parse(s, v, &msg) < 0) {
		free(msg);
		return false;
	}
	return *v > 0;
}

/* The best figure of a measurement that ran; false when skipped, failed or not a number. */
static bool best_field(const struct rm_record *rec, double *v)
{
	const char *st = rm_record_get(rec, "status"), *s = rm_record_get(rec, "best");
	char *end;

	if ((st && strcmp(st, "ok")) || !s)
		return false;
	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v) && *v >= 0;
}

static bool is_bench(const struct rm_record *rec, const char *name)
{
	const char *b = rm_record_get(rec, "bench");

	return b && !strcmp(b, name);
}

/* ---- latency by working-set size ---- */

struct point {
	uint64_t size;
	double ns;
	double rate; /* loaded latency: the neighbour's GB/s, 0 when idle */
};

struct series {
	uint64_t page;
	long cpu, node;
	struct point *p;
	size_t n;
};

struct latency {
	struct series *s;
	size_t n;
	uint64_t cache[3]; /* L1d, L2, L3 of the machine; 0: unknown */
	bool loaded;       /* loaded latency (lat --loaded): by the neighbour's rate */
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->size != y->size)
		return (x->size > y->size) - (x->size < y->size);
	return (x->rate > y->rate) - (x->rate < y->rate);
}

/* A record of lat --loaded: its load_delay, and the neighbour's rate into *RATE (0: idle). */
static bool loaded_point(const struct rm_record *rec, double *rate)
{
	const char *d = rm_record_get(rec, "load_delay"), *r = rm_record_get(rec, "neighbour_rate");

	if (!d || !strcmp(d, "-"))
		return false;
	*rate = r && strcmp(r, "-") ? strtod(r, NULL) : 0;
	return isfinite(*rate) && *rate >= 0;
}

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	if (x->page != y->page)
		return (x->page > y->page) - (x->page < y->page);
	if (x->cpu != y->cpu)
		return (x->cpu > y->cpu) - (x->cpu < y->cpu);
	return (x->node > y->node) - (x->node < y->node);
}

static void latency_collect(struct latency *l, const struct results *rs, size_t nrs)
{
	static const char *const keys[] = { "l1d", "l2", "l3" };

	for (size_t f = 0; f < nrs; f++) {
		for (size_t k = 0; k < 3; k++)
			if (!l->cache[k])
				size_field(&rs[f].machine, keys[k], &l->cache[k]);
		if (!l->cache[2]) /* results before the machine record had l3: the last level */
			size_field(&rs[f].machine, "llc", &l->cache[2]);
		for (size_t i = 0; i < rs[f].n; i++) {
			const struct rm_record *rec = &rs[f].r[i].rec;
			struct point pt;
			uint64_t page = 0;
			long cpu = -1, node = -1;
			struct series *s = NULL;
			bool dup = false;

			if (!is_bench(rec, "lat") || !size_field(rec, "size", &pt.size) ||
			    !best_field(rec, &pt.ns))
				continue;
			pt.rate = 0;
			if (l->loaded != loaded_point(rec, &pt.rate))
				continue;
			size_field(rec, "pages", &page);
			int_field(rec, "cpu", &cpu);
			int_field(rec, "mem_node", &node);
			for (size_t k = 0; k < l->n && !s; k++)
				if (l->s[k].page == page && l->s[k].cpu == cpu && l->s[k].node == node)
					s = &l->s[k];
			if (!s) {
				l->s = xrealloc(l->s, (l->n + 1) * sizeof(*l->s));
				s = &l->s[l->n++];
				*s = (struct series){ page, cpu, node, NULL, 0 };
			}
			for (size_t k = 0; k < s->n && !dup; k++)
				dup = s->p[k].size == pt.size && s->p[k].rate == pt.rate; /* the first file's */
			if (dup)
				continue;
			s->p = xrealloc(s->p, (s->n + 1) * sizeof(*s->p));
			s->p[s->n++] = pt;
		}
	}
	if (l->n) /* qsort wants an array, even of none */
		qsort(l->s, l->n, sizeof(*l->s), cmp_series);
	for (size_t k = 0; k < l->n; k++)
		qsort(l->s[k].p, l->s[k].n, sizeof(*l->s[k].p), cmp_point);
}

static void latency_free(struct latency *l)
{
	for (size_t k = 0; k < l->n; k++)
		free(l->s[k].p);
	free(l->s);
}

/* The name of series S in the legend: its page size, and its CPU and node where they vary. */
static char *series_label(const struct latency *l, const struct series *s)
{
	bool where = false;
	char *page = s->page ? rm_size_format(s->page) : xstrdup("?"), *label;

	for (size_t k = 0; k < l->n; k++)
		where |= l->s[k].cpu != s->cpu || l->s[k].node != s->node;
	if (where)
		label = xasprintf("%s pages, CPU %ld, node %ld", page, s->cpu, s->node);
	else
		label = xasprintf("%s pages", page);
	free(page);
	return label;
}

static void latency_svg(FILE *f, const struct latency *l)
{
	const double W = 860, H = 520, L = 70, R = 210, T = 60, B = 70;
	const double pw = W - L - R, ph = H - T - B;
	uint64_t lo = UINT64_MAX, hi = 0;
	double ymax = 0, x0, x1, ystep, ytop;
	int every;
	size_t nmark = 0;
	char attrs[96];

	double rmax = 0, xstep = 1;

	for (size_t k = 0; k < l->n; k++)
		for (size_t i = 0; i < l->s[k].n; i++) {
			lo = l->s[k].p[i].size < lo ? l->s[k].p[i].size : lo;
			hi = l->s[k].p[i].size > hi ? l->s[k].p[i].size : hi;
			ymax = fmax(ymax, l->s[k].p[i].ns);
			rmax = fmax(rmax, l->s[k].p[i].rate);
		}
	x0 = floor(log2((double)lo));
	x1 = ceil(log2((double)hi));
	if (x1 - x0 < 2)
		x0 -= 1, x1 += 1;
	if (l->loaded) { /* linear, in GB/s from 0 */
		xstep = nice_step(rmax > 0 ? rmax : 1, 6);
		x0 = 0;
		x1 = ceil((rmax > 0 ? rmax : 1) * 1.05 / xstep) * xstep;
	}
	if (ymax <= 0)
		ymax = 1;
	ystep = nice_step(ymax, 5);
	ytop = ceil(ymax * 1.05 / ystep) * ystep;
#define PX(v) (L + (log2((double)(v)) - x0) / (x1 - x0) * pw)
#define PXR(pt) (l->loaded ? L + (pt).rate / x1 * pw : PX((pt).size))
#define PY(v) (T + ph - (v) / ytop * ph)

	svg_begin(f, W, H, l->loaded ? "Loaded latency: memory latency by the bandwidth of "
		  "the other cores" : "Memory latency by working-set size");
	/* grid and tick labels */
	fputs("<g class=\"axes\" stroke=\"#888\" stroke-width=\"1\">\n", f);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, T + ph, L + pw,
		T + ph);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, T, L, T + ph);
	fputs("</g>\n", f);
	every = (int)ceil((x1 - x0) / 12);
	for (double v = 0; l->loaded && v <= x1 + xstep / 2; v += xstep) {
		double x = L + v / x1 * pw;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			x, T, x, T + ph);
		svg_text(f, x, T + ph + 18, "text-anchor=\"middle\" class=\"xtick\"", "%g", v);
	}
	for (double e = x0; !l->loaded && e <= x1; e += every) {
		double x = L + (e - x0) / (x1 - x0) * pw;
		char *label = rm_size_format((uint64_t)1 << (int)e);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			x, T, x, T + ph);
		svg_text(f, x, T + ph + 18, "text-anchor=\"middle\" class=\"xtick\"", "%s", label);
		free(label);
	}
	for (double v = 0; v <= ytop + ystep / 2; v += ystep) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			L, PY(v), L + pw, PY(v));
		svg_text(f, L - 8, PY(v) + 4, "text-anchor=\"end\" class=\"ytick\"", "%g", v);
	}
	svg_text(f, L + pw / 2, H - 22, "text-anchor=\"middle\"", "%s", l->loaded ?
		 "the other cores' copy rate (GB/s, STREAM's count)" :
		 "working set (bytes, log2 scale)");
	snprintf(attrs, sizeof(attrs), "text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\"",
		 T + ph / 2);
	svg_text(f, 18, T + ph / 2, attrs, "latency (ns per load)");
	/* the caches, where the curve steps up */
	for (int k = 0; k < 3; k++) {
		static const char *const names[] = { "L1d", "L2", "L3" };
		char *size;
		double x;

		if (l->loaded || !l->cache[k] || log2((double)l->cache[k]) < x0 ||
		    log2((double)l->cache[k]) > x1)
			continue;
		x = PX(l->cache[k]);
		size = rm_size_format(l->cache[k]);
		fprintf(f, "<line class=\"cache\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#999\" stroke-dasharray=\"5,4\"/>\n", x, T, x, T + ph);
		svg_text(f, x + 4, T + 14 + 14.0 * (double)nmark++,
			 "class=\"cache-label\" fill=\"#555\"", "%s %s", names[k], size);
		free(size);
	}
	/* the curves */
	for (size_t k = 0; k < l->n; k++) {
		const struct series *s = &l->s[k];
		const char *colour = palette[k % ARRAY_SIZE(palette)];
		char *label = series_label(l, s);

		fprintf(f, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">\n", colour, colour);
		fputs("<polyline class=\"line\" fill=\"none\" stroke-width=\"2\" points=\"", f);
		for (size_t i = 0; i < s->n; i++)
			fprintf(f, "%s%.1f,%.1f", i ? " " : "", PXR(s->p[i]), PY(s->p[i].ns));
		fputs("\"/>\n", f);
		for (size_t i = 0; i < s->n; i++) {
			char *size = rm_size_format(s->p[i].size);

			fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\">"
				"<title>", PXR(s->p[i]), PY(s->p[i].ns));
			if (l->loaded)
				fprintf(f, "%.2f GB/s beside, %.2f ns", s->p[i].rate, s->p[i].ns);
			else
				fprintf(f, "%s, %.2f ns", size, s->p[i].ns);
			fputs("</title></circle>\n", f);
			free(size);
		}
		fputs("</g>\n", f);
		/* the legend */
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"3\"/>\n", L + pw + 16, T + 10 + 20.0 * (double)k,
			L + pw + 40, T + 10 + 20.0 * (double)k, colour);
		svg_text(f, L + pw + 46, T + 14 + 20.0 * (double)k, "class=\"legend\"", "%s", label);
		free(label);
	}
	svg_end(f);
#undef PX
#undef PXR
#undef PY
}

/* ---- NUMA matrices ---- */

struct cell {
	long from, to;
	double v; /* NAN: did not run */
};

struct matrix {
	const char *what, *unit, *from, *to;
	char *detail;          /* the op or the size, in the title */
	bool higher_better;
	struct cell *c;
	size_t n;
	long *rows, *cols;
	size_t nrows, ncols;
};

static void add_index(long **v, size_t *n, long x)
{
	size_t i = 0;

	while (i < *n && (*v)[i] < x)
		i++;
	if (i < *n && (*v)[i] == x)
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	memmove(*v + i + 1, *v + i, (*n - i) * sizeof(**v));
	(*v)[i] = x;
	(*n)++;
}

/* A cell of M for FROM, TO unless it has one (the first file's counts). */
static void add_cell(struct matrix *m, long from, long to, double v)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->c[i].from == from && m->c[i].to == to)
			return;
	m->c = xrealloc(m->c, (m->n + 1) * sizeof(*m->c));
	m->c[m->n++] = (struct cell){ from, to, v };
	add_index(&m->rows, &m->nrows, from);
	add_index(&m->cols, &m->ncols, to);
}

/* Bandwidth: mem records of one CPU node and one memory node, of triad (else the first op). */
static void bandwidth_collect(struct matrix *m, const struct results *rs, size_t nrs)
{
	const char *op = NULL;

	*m = (struct matrix){ .what = "Memory bandwidth", .unit = "GB/s", .from = "CPUs on node",
			      .to = "memory on node", .higher_better = true };
	for (size_t f = 0; f < nrs; f++)
		for (size_t i = 0; i < rs[f].n; i++) {
			const char *o = rm_record_get(&rs[f].r[i].rec, "op");

			if (is_bench(&rs[f].r[i].rec, "mem") && o && (!op || !strcmp(o, "triad")))
				op = o;
		}
	if (!op)
		return;
	for (size_t f = 0; f < nrs; f++)
		for (size_t i = 0; i < rs[f].n; i++) {
			const struct rm_record *rec = &rs[f].r[i].rec;
			const char *o = rm_record_get(rec, "op");
			long from, to;
			double v;

			if (!is_bench(rec, "mem") || !o || strcmp(o, op) ||
			    !int_field(rec, "nodes", &from) || !int_field(rec, "mem_nodes", &to))
				continue;
			add_cell(m, from, to, best_field(rec, &v) ? v : NAN);
		}
	m->detail = xasprintf("%s, best of the runs", op);
}

/* Latency: lat records of the largest working set (beyond the caches), smallest pages. */
static void lat_matrix_collect(struct matrix *m, const struct results *rs, size_t nrs)
{
	uint64_t size = 0, page = UINT64_MAX, s, p;
	char *ssize, *spage;

	*m = (struct matrix){ .what = "Memory latency", .unit = "ns", .from = "CPU",
			      .to = "memory on node" };
	for (size_t f = 0; f < nrs; f++)
		for (size_t i = 0; i < rs[f].n; i++)
			if (is_bench(&rs[f].r[i].rec, "lat") &&
			    size_field(&rs[f].r[i].rec, "size", &s) && s > size)
				size = s;
	for (size_t f = 0; f < nrs; f++)
		for (size_t i = 0; i < rs[f].n; i++)
			if (is_bench(&rs[f].r[i].rec, "lat") &&
			    size_field(&rs[f].r[i].rec, "size", &s) && s == size &&
			    size_field(&rs[f].r[i].rec, "pages", &p) && p < page)
				page = p;
	if (!size || page == UINT64_MAX)
		return;
	for (size_t f = 0; f < nrs; f++)
		for (size_t i = 0; i < rs[f].n; i++) {
			const struct rm_record *rec = &rs[f].r[i].rec;
			long from, to;
			double v;

			if (!is_bench(rec, "lat") || !size_field(rec, "size", &s) || s != size ||
			    !size_field(rec, "pages", &p) || p != page ||
			    !int_field(rec, "cpu", &from) || !int_field(rec, "mem_node", &to))
				continue;
			add_cell(m, from, to, best_field(rec, &v) ? v : NAN);
		}
	ssize = rm_size_format(size);
	spage = rm_size_format(page);
	m->detail = xasprintf("%s working set, %s pages", ssize, spage);
	free(ssize);
	free(spage);
}

static void matrix_free(struct matrix *m)
{
	free(m->c);
	free(m->rows);
	free(m->cols);
	free(m->detail);
}

/* The colour of V from LO to HI: light to dark, dark meaning better. */
static void heat_colour(char *buf, size_t len, double t)
{
	/* from #f7fbff to #08306b, ColorBrewer's Blues */
	int r = (int)lround(0xf7 + (0x08 - 0xf7) * t), g = (int)lround(0xfb + (0x30 - 0xfb) * t),
	    b = (int)lround(0xff + (0x6b - 0xff) * t);

	snprintf(buf, len, "#%02x%02x%02x", r, g, b);
}

enum { CELL_W = 76, CELL_H = 40, MX_LEFT = 90, MX_TOP = 124, SCALE_W = 110 };

static double matrix_width(const struct matrix *m)
{
	return MX_LEFT + (double)m->ncols * CELL_W + SCALE_W;
}

static double matrix_height(const struct matrix *m)
{
	return MX_TOP + (double)m->nrows * CELL_H + 60;
}

/* Heat map M with its left edge at X0. */
static void matrix_svg(FILE *f, const struct matrix *m, double x0, int id)
{
	double lo = INFINITY, hi = -INFINITY, gx, gh = fmax(120, (double)m->nrows * CELL_H);
	char colour[8], attrs[96];

	for (size_t i = 0; i < m->n; i++)
		if (!isnan(m->c[i].v))
			lo = fmin(lo, m->c[i].v), hi = fmax(hi, m->c[i].v);
	fprintf(f, "<g class=\"matrix\" id=\"matrix%d\">\n", id);
	svg_text(f, x0 + MX_LEFT, 56, "font-size=\"14\" class=\"matrix-title\"", "%s (%s)",
		 m->what, m->unit);
	svg_text(f, x0 + MX_LEFT, 74, "fill=\"#555\"", "%s", m->detail);
	svg_text(f, x0 + MX_LEFT + (double)m->ncols * CELL_W / 2, MX_TOP - 26,
		 "text-anchor=\"middle\"", "%s", m->to);
	for (size_t c = 0; c < m->ncols; c++)
		svg_text(f, x0 + MX_LEFT + CELL_W * (c + 0.5), MX_TOP - 8,
			 "text-anchor=\"middle\" class=\"col\"", "%ld", m->cols[c]);
	snprintf(attrs, sizeof(attrs), "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\"",
		 x0 + 14, MX_TOP + (double)m->nrows * CELL_H / 2);
	svg_text(f, x0 + 14, MX_TOP + (double)m->nrows * CELL_H / 2, attrs, "%s", m->from);
	for (size_t r = 0; r < m->nrows; r++)
		svg_text(f, x0 + MX_LEFT - 10, MX_TOP + CELL_H * (r + 0.5) + 4,
			 "text-anchor=\"end\" class=\"row\"", "%ld", m->rows[r]);
	for (size_t r = 0; r < m->nrows; r++)
		for (size_t c = 0; c < m->ncols; c++) {
			const struct cell *cl = NULL;
			double x = x0 + MX_LEFT + CELL_W * (double)c, y = MX_TOP + CELL_H * (double)r;
			double t = 0;

			for (size_t i = 0; i < m->n && !cl; i++)
				if (m->c[i].from == m->rows[r] && m->c[i].to == m->cols[c])
					cl = &m->c[i];
			if (!cl)
				continue;
			if (isnan(cl->v)) {
				fprintf(f, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
					"height=\"%d\" fill=\"#eeeeee\" stroke=\"white\"/>\n", x, y,
					CELL_W, CELL_H);
				svg_text(f, x + CELL_W / 2.0, y + CELL_H / 2.0 + 4,
					 "text-anchor=\"middle\" class=\"value\" fill=\"#777\"",
					 "%s", "-");
				continue;
			}
			if (hi > lo)
				t = (cl->v - lo) / (hi - lo);
			if (!m->higher_better)
				t = 1 - t;
			t = 0.1 + 0.85 * t;
			heat_colour(colour, sizeof(colour), t);
			fprintf(f, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
				"fill=\"%s\" stroke=\"white\"/>\n", x, y, CELL_W, CELL_H, colour);
			svg_text(f, x + CELL_W / 2.0, y + CELL_H / 2.0 + 4,
				 t > 0.5 ? "text-anchor=\"middle\" class=\"value\" fill=\"white\""
					 : "text-anchor=\"middle\" class=\"value\" fill=\"black\"",
				 "%.2f", cl->v);
		}
	/* the colour scale: better at the top */
	gx = x0 + MX_LEFT + (double)m->ncols * CELL_W + 24;
	fprintf(f, "<defs><linearGradient id=\"scale%d\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">", id);
	heat_colour(colour, sizeof(colour), 0.95);
	fprintf(f, "<stop offset=\"0\" stop-color=\"%s\"/>", colour);
	heat_colour(colour, sizeof(colour), 0.1);
	fprintf(f, "<stop offset=\"1\" stop-color=\"%s\"/></linearGradient></defs>\n", colour);
	fprintf(f, "<rect class=\"scale\" x=\"%.1f\" y=\"%d\" width=\"16\" height=\"%.1f\" "
		"fill=\"url(#scale%d)\" stroke=\"#888\"/>\n", gx, MX_TOP, gh, id);
	if (isfinite(lo)) {
		svg_text(f, gx + 22, MX_TOP + 10, "class=\"scale-label\"", "%.2f",
			 m->higher_better ? hi : lo);
		svg_text(f, gx + 22, MX_TOP + gh, "class=\"scale-label\"", "%.2f",
			 m->higher_better ? lo : hi);
	}
	svg_text(f, gx + 22, MX_TOP + gh / 2 + 4, "fill=\"#555\"", "%s", m->unit);
	fputs("</g>\n", f);
}

static void matrices_svg(FILE *f, struct matrix *m, size_t n)
{
	double w = 20, h = 0, x = 10;

	for (size_t i = 0; i < n; i++)
		w += matrix_width(&m[i]), h = fmax(h, matrix_height(&m[i]));
	h = fmax(h, MX_TOP + 180);
	svg_begin(f, fmax(w, 420), h, "NUMA matrix: from the CPUs of a node to the memory of each");
	for (size_t i = 0; i < n; i++) {
		matrix_svg(f, &m[i], x, (int)i);
		x += matrix_width(&m[i]);
	}
	svg_end(f);
}

/* ---- compare: the deltas ---- */

struct delta {
	char *label;
	const char *verdict;
	double delta, band;
};

struct deltas {
	struct delta *d;
	size_t n;
	size_t missing, added, other; /* not compared */
	double threshold;
};

static void compare_collect(struct deltas *ds, struct results *base, struct results *new)
{
	for (size_t i = 0; i < base->n; i++) {
		struct result *b = &base->r[i], *n = NULL;
		const char *metric, *verdict = NULL;
		double delta = 0, noise = 0;

		for (size_t k = 0; k < new->n && !n; k++)
			if (!new->r[k].matched && !strcmp(new->r[k].key, b->key))
				n = &new->r[k];
		if (!n) {
			ds->missing++;
			continue;
		}
		n->matched = true;
		metric = default_metric(&b->rec, &n->rec);
		if (metric)
			verdict = compare_decide(base, new, b, n, metric, ds->threshold, &delta,
						 &noise);
		if (!verdict || !strcmp(verdict, "skipped")) {
			ds->other++;
			continue;
		}
		ds->d = xrealloc(ds->d, (ds->n + 1) * sizeof(*ds->d));
		ds->d[ds->n++] = (struct delta){
			xasprintf("%s %s: %s", rm_record_get(&b->rec, "bench"), metric, b->params),
			verdict, delta, fmax(ds->threshold, noise)
		};
	}
	for (size_t k = 0; k < new->n; k++)
		ds->added += !new->r[k].matched;
}

static void deltas_free(struct deltas *ds)
{
	for (size_t i = 0; i < ds->n; i++)
		free(ds->d[i].label);
	free(ds->d);
}

static const char *verdict_colour(const char *verdict)
{
	if (!strcmp(verdict, "regressed"))
		return "#D55E00";
	if (!strcmp(verdict, "improved"))
		return "#009E73";
	return "#999999";
}

/* Labels longer than this many characters are cut, with an ellipsis. */
enum { LABEL_MAX = 80 };

static void compare_svg(FILE *f, const struct deltas *ds, const char *bfile, const char *nfile)
{
	const double ROW = 26, T = 80, R = 175, CH = 6.8; /* CH: a character at 11px */
	double L, pw, ph = ROW * (double)ds->n, W, H, span = 1, step;
	size_t longest = 10;
	char *title;

	for (size_t i = 0; i < ds->n; i++) {
		size_t len = strlen(ds->d[i].label);

		longest = len > longest ? len : longest;
		span = fmax(span, fmax(fabs(ds->d[i].delta), ds->d[i].band));
	}
	longest = longest > LABEL_MAX ? LABEL_MAX : longest;
	L = 20 + CH * (double)longest;
	pw = 460;
	W = L + pw + R;
	H = T + ph + 110;
	step = nice_step(span * 2, 6);
	span = ceil(span * 1.15 / step) * step;
#define PX(v) (L + ((v) + span) / (2 * span) * pw)

	title = xasprintf("rm-bench compare: %s against %s", nfile, bfile);
	svg_begin(f, W, H, title);
	free(title);
	svg_text(f, W / 2, 44, "text-anchor=\"middle\" fill=\"#555\"",
		 "change of each measurement in percent; shaded: within --threshold %g%% or the "
		 "runs' spread", ds->threshold);
	for (double v = -span; v <= span + step / 2; v += step) {
		double x = PX(v);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			x, T, x, T + ph, fabs(v) < step / 2 ? "#333" : "#e4e4e4");
		if (fabs(v) < step / 2)
			svg_text(f, x, T + ph + 18, "text-anchor=\"middle\" class=\"xtick\"", "0%%");
		else
			svg_text(f, x, T + ph + 18, "text-anchor=\"middle\" class=\"xtick\"",
				 "%+g%%", v);
	}
	svg_text(f, PX(0), T + ph + 40, "text-anchor=\"middle\"",
		 "delta: (new - base) / base, percent");
	for (size_t i = 0; i < ds->n; i++) {
		const struct delta *d = &ds->d[i];
		double y = T + ROW * (double)i, x0 = PX(fmin(0, d->delta)), x1 = PX(fmax(0, d->delta));
		bool flagged = strcmp(d->verdict, "regressed") == 0 || !strcmp(d->verdict, "improved");

		fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#000\" fill-opacity=\"0.08\"/>\n", PX(-d->band), y + 2,
			PX(d->band) - PX(-d->band), ROW - 4);
		fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"%s\"%s><title>", d->verdict, x0, y + 6,
			fmax(x1 - x0, 1), ROW - 12, verdict_colour(d->verdict),
			flagged ? " stroke=\"#000\" stroke-width=\"1\"" : "");
		rm_xml_text(f, d->label);
		fprintf(f, ": %+.1f%%, %s</title></rect>\n", d->delta, d->verdict);
		if (strlen(d->label) > LABEL_MAX)
			svg_text(f, L - 10, y + ROW / 2 + 4,
				 "text-anchor=\"end\" font-size=\"11\" class=\"label\"", "%.*s...",
				 LABEL_MAX - 3, d->label);
		else
			svg_text(f, L - 10, y + ROW / 2 + 4,
				 "text-anchor=\"end\" font-size=\"11\" class=\"label\"", "%s",
				 d->label);
		svg_text(f, L + pw + 8, y + ROW / 2 + 4,
			 flagged ? "class=\"verdict\" font-weight=\"bold\"" : "class=\"verdict\"",
			 "%+.1f%% %s", d->delta, d->verdict);
	}
	/* the legend */
	{
		static const char *const v[] = { "regressed", "improved", "same" };
		static const char *const t[] = { "regressed", "improved", "same or noise" };
		double y = H - 36;

		for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" "
				"fill=\"%s\"/>\n", 20 + 150.0 * (double)i, y - 9, verdict_colour(v[i]));
			svg_text(f, 40 + 150.0 * (double)i, y, "class=\"legend\"", "%s", t[i]);
		}
		fprintf(f, "<rect x=\"470\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"#000\" "
			"fill-opacity=\"0.08\"/>\n", y - 9);
		svg_text(f, 490, y, "class=\"legend\"", "noise band");
		if (ds->missing || ds->added || ds->other)
			svg_text(f, 20, y + 20, "class=\"note\" fill=\"#555\"",
				 "not drawn: %zu missing from NEW, %zu added, %zu skipped or failed",
				 ds->missing, ds->added, ds->other);
	}
	svg_end(f);
#undef PX
}

/* ---- the command ---- */

static bool has_sizes(const struct results *rs, size_t nrs)
{
	uint64_t first = 0, s;

	for (size_t f = 0; f < nrs; f++)
		for (size_t i = 0; i < rs[f].n; i++)
			if (is_bench(&rs[f].r[i].rec, "lat") && size_field(&rs[f].r[i].rec, "size", &s)) {
				if (first && s != first)
					return true;
				first = s;
			}
	return false;
}

/* Whether the results hold measurements of more than one pair of CPU and memory node. */
static bool has_pairs(const struct results *rs, size_t nrs)
{
	struct matrix m;
	bool pairs;

	bandwidth_collect(&m, rs, nrs);
	pairs = m.n > 1 && m.ncols > 1;
	matrix_free(&m);
	if (pairs)
		return true;
	lat_matrix_collect(&m, rs, nrs);
	pairs = m.n > 1 && m.ncols > 1;
	matrix_free(&m);
	return pairs;
}

static void free_all(struct results *rs, size_t nrs, struct plot_args *a)
{
	for (size_t i = 0; i < nrs; i++)
		free_results(&rs[i]);
	free(rs);
	free(a->files);
}

int cmd_plot(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		plot_options, plot_parse, "RESULT...",
		"Draw result files of rm-bench (records or JSON; - for standard input) as an SVG "
		"picture. latency: latency by working-set size, a line per page size, the caches "
		"marked; matrix: bandwidth and latency from the CPUs of each NUMA node to the "
		"memory of each, as heat maps; compare: BASE and NEW as compare decides them, a bar "
		"per change with its noise band; loaded: lat --loaded's latency by the other cores' "
		"bandwidth. Without --kind, two files are compared and one is drawn as what it "
		"holds.",
		NULL, NULL, NULL
	};
	struct plot_args a = { .threshold = 5 };
	struct results *rs;
	char *buf = NULL, *msg = NULL;
	size_t len = 0, nrs;
	FILE *f;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT | RM_PARSE_NO_OUTPUT);
	if (strcmp(a.output, "-") && rm_atomic_check(a.output, &msg) < 0)
		rm_usage_errx("%s", msg);
	nrs = (size_t)a.nfiles;
	rs = xcalloc(nrs, sizeof(*rs));
	for (size_t i = 0; i < nrs; i++) {
		rs[i].file = a.files[i];
		read_results(&rs[i], NULL);
	}
	if (a.kind == KIND_NONE) {
		struct latency l = { .loaded = true };

		latency_collect(&l, rs, nrs);
		if (l.n && nrs != 2)
			a.kind = KIND_LOADED;
		latency_free(&l);
	}
	if (a.kind == KIND_NONE) {
		bool sizes = has_sizes(rs, nrs), pairs = has_pairs(rs, nrs);

		if (nrs == 2)
			a.kind = KIND_COMPARE;
		else if (sizes && !pairs)
			a.kind = KIND_LATENCY;
		else if (pairs && !sizes)
			a.kind = KIND_MATRIX;
		else {
			free_all(rs, nrs, &a);
			rm_usage_errx("%s: say what to draw with --kind latency, matrix or compare",
				      sizes ? "the results hold latency curves and NUMA matrices"
					    : "the results hold no latency curve and no NUMA matrix");
		}
	}
	f = open_memstream(&buf, &len);
	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	if (a.kind == KIND_LATENCY || a.kind == KIND_LOADED) {
		struct latency l = { .loaded = a.kind == KIND_LOADED };

		latency_collect(&l, rs, nrs);
		if (!l.n) {
			latency_free(&l);
			fclose(f);
			free(buf);
			free_all(rs, nrs, &a);
			rm_usage_errx(l.loaded ? "no loaded latency measurements (lat --loaded) to draw"
					       : "no latency measurements that ran (bench=lat status=ok) "
						 "to draw");
		}
		latency_svg(f, &l);
		latency_free(&l);
	} else if (a.kind == KIND_MATRIX) {
		struct matrix m[2];
		size_t n = 0;

		bandwidth_collect(&m[n], rs, nrs);
		if (m[n].n)
			n++;
		else
			matrix_free(&m[n]);
		lat_matrix_collect(&m[n], rs, nrs);
		if (m[n].n)
			n++;
		else
			matrix_free(&m[n]);
		if (!n) {
			fclose(f);
			free(buf);
			free_all(rs, nrs, &a);
			rm_usage_errx("no mem or lat measurements with a CPU and a memory node to draw");
		}
		matrices_svg(f, m, n);
		for (size_t i = 0; i < n; i++)
			matrix_free(&m[i]);
	} else {
		struct deltas ds = { .threshold = a.threshold };

		compare_collect(&ds, &rs[0], &rs[1]);
		if (!ds.n) {
			deltas_free(&ds);
			fclose(f);
			free(buf);
			free_all(rs, nrs, &a);
			rm_usage_errx("no measurement of BASE and NEW could be compared");
		}
		compare_svg(f, &ds, rs[0].file, rs[1].file);
		deltas_free(&ds);
	}
	free_all(rs, nrs, &a);
	if (fclose(f))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	if (!strcmp(a.output, "-")) {
		fwrite(buf, 1, len, stdout);
	} else {
		if (rm_atomic_write(a.output, buf, len, 0644, &msg) < 0) {
			free(buf);
			rm_warnx("%s", msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
		rm_committed("wrote %s", a.output);
	}
	free(buf);
	return RM_EXIT_SUCCESS;
}
