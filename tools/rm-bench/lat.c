/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench lat: dependent-load latency by working-set size, on normal and huge pages. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "rm-bench.h"
#include "size.h"
#include "xalloc.h"

#define LINE 64 /* one load per cache line */

enum {
	L_BENCH, L_SIZE, L_PAGES, L_CPU, L_MEM_NODE, L_NEIGHBOUR, L_BEST, L_MEDIAN, L_MIN, L_MAX, L_UNIT,
	L_RUNS, L_SPREAD, L_LOADS, L_RAN_ON, L_MEM_ON, L_NEIGHBOUR_RATE, L_LLC_OCCUPANCY, L_STATUS,
	L_REASON, L_LOAD_DELAY,
};
/* The columns shown by default: all but load_delay (the last, which run leaves out), which
 * --loaded adds. */
#define LAT_DEFAULTS "bench,size,pages,cpu,mem_node,neighbour,best,median,min,max,unit,runs," \
	"spread,loads,ran_on,mem_on,neighbour_rate,llc_occupancy,status,reason"
const struct rm_column lat_cols[] = {
	[L_BENCH] = { "bench", RM_COL_STRING, "the measurement: lat" },
	[L_SIZE] = { "size", RM_COL_SIZE, "the working set: the pointer chain's memory" },
	[L_PAGES] = { "pages", RM_COL_SIZE, "the page size of the working set" },
	[L_CPU] = { "cpu", RM_COL_INT, "the CPU the chain is followed on" },
	[L_MEM_NODE] = { "mem_node", RM_COL_INT, "the NUMA node the memory is bound to" },
	[L_NEIGHBOUR] = { "neighbour", RM_COL_SET, "the CPUs a noisy neighbour copied memory on" },
	[L_BEST] = { "best", RM_COL_FLOAT, "the lowest latency of the runs" },
	[L_MEDIAN] = { "median", RM_COL_FLOAT, "the median latency" },
	[L_MIN] = { "min", RM_COL_FLOAT, "the lowest latency" },
	[L_MAX] = { "max", RM_COL_FLOAT, "the highest latency" },
	[L_UNIT] = { "unit", RM_COL_STRING, "ns: nanoseconds per load" },
	[L_RUNS] = { "runs", RM_COL_INT, "the number of timed runs" },
	[L_SPREAD] = { "spread", RM_COL_FLOAT, "(max - min) / median, in percent" },
	[L_LOADS] = { "loads", RM_COL_INT, "the loads timed in each run" },
	[L_RAN_ON] = { "ran_on", RM_COL_SET, "the CPU the chain was followed on (sched_getcpu)" },
	[L_MEM_ON] = { "mem_on", RM_COL_SET, "the NUMA nodes the pages were found on" },
	[L_NEIGHBOUR_RATE] = { "neighbour_rate", RM_COL_FLOAT,
			       "GB/s the neighbour copied during the runs, STREAM's count" },
	[L_LLC_OCCUPANCY] = { "llc_occupancy", RM_COL_SIZE,
			      "L3 the chain held after the runs (resctrl llc_occupancy)" },
	[L_STATUS] = { "status", RM_COL_STRING, "ok, or skipped" },
	[L_REASON] = { "reason", RM_COL_STRING, "why it was skipped" },
	[L_LOAD_DELAY] = { "load_delay", RM_COL_STRING,
			   "--loaded: the neighbour's pause after each 256KiB it copies" },
};
const size_t lat_ncols = ARRAY_SIZE(lat_cols);

size_t lat_default_sizes(const struct bench *b, int cpu, uint64_t **sizes)
{
	uint64_t l1 = bench_cache_size(b, cpu, 1), l2 = bench_cache_size(b, cpu, 2);
	uint64_t l3 = bench_cache_size(b, cpu, 3), last = l3 ? l3 : l2 ? l2 : l1;
	size_t n = 0;

	*sizes = xcalloc(4, sizeof(**sizes));
	(*sizes)[n++] = l1 ? l1 / 2 : 16 << 10;
	if (l2)
		(*sizes)[n++] = l2 / 2;
	if (l3)
		(*sizes)[n++] = l3 / 2;
	(*sizes)[n++] = last ? 4 * last : 256 << 20;
	return n;
}

/* xorshift64*: the chain's order; fixed seed, so that runs follow the same chain. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/*
 * A random cyclic chain through every line of MEM: each line's first word points at the next
 * line to load. Sattolo's shuffle of the line numbers yields one cycle through all of them;
 * random order defeats the hardware prefetchers, which follow strides.
 */
static void build_chain(char *mem, size_t lines)
{
	uint64_t seed = 0x9E3779B97F4A7C15ull;

	for (size_t i = 0; i < lines; i++)
		*(size_t *)(mem + i * LINE) = i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)(next_random(&seed) % i), t;

		t = *(size_t *)(mem + i * LINE);
		*(size_t *)(mem + i * LINE) = *(size_t *)(mem + j * LINE);
		*(size_t *)(mem + j * LINE) = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)(mem + i * LINE) = mem + *(size_t *)(mem + i * LINE) * LINE;
}

/* Follow the chain N loads (a multiple of 16) from P; the end, so nothing is optimized away. */
__attribute__((noinline)) static void *chase(void *p, size_t n)
{
	void **q = p;

	for (size_t i = 0; i < n; i += 16) {
#define STEP q = (void **)*q
		STEP; STEP; STEP; STEP; STEP; STEP; STEP; STEP;
		STEP; STEP; STEP; STEP; STEP; STEP; STEP; STEP;
#undef STEP
	}
	return q;
}

static void *volatile sink;

struct lat_one {
	const struct lat_params *p;
	uint64_t size, page;
	int mem_node;
	struct beside beside;
	/* results */
	double *ns;
	size_t loads;
	hwloc_bitmap_t ran_on, mem_on;
	char *why;    /* skipped */
	char *error;  /* failed */
	int err;
};

/* In a thread pinned to the CPU: map, bind and touch the memory there, then time the runs. */
static void *lat_thread(void *arg)
{
	struct lat_one *o = arg;
	size_t lines = o->size / LINE, warm;
	struct region r;
	uint64_t t0, t1;
	double est;
	void *p;
	int rc;

	if ((o->err = bench_pin(o->p->cpu))) {
		o->error = xasprintf("cannot pin a thread to CPU %d", o->p->cpu);
		return NULL;
	}
	if ((rc = region_get(&r, o->size, o->page, o->mem_node, &o->why))) {
		/* huge pages that are not there skip the measurement; anything else fails it */
		if (rc < 0) {
			o->error = o->why;
			o->why = NULL;
		}
		return NULL;
	}
	build_chain(r.base, lines);
	region_nodes(&r, o->mem_on);

	/* warm-up: the whole chain at least twice (caches and TLB hold what fits), and timed, to
	 * size the runs at about 50 ms each */
	warm = lines * 2 < (1u << 16) ? 1u << 16 : lines * 2 > (1u << 22) ? 1u << 22 : lines * 2;
	warm = (warm + 15) / 16 * 16;
	t0 = bench_now();
	p = chase(r.base, warm);
	t1 = bench_now();
	est = (double)(t1 - t0) / (double)warm;
	o->loads = (size_t)(50e6 / (est > 0.1 ? est : 0.1));
	if (o->loads < (1u << 16))
		o->loads = 1u << 16;
	o->loads = (o->loads + 15) / 16 * 16;
	beside_sample(&o->beside, 0);
	for (int i = 0; i < o->p->runs; i++) {
		t0 = bench_now();
		p = chase(p, o->loads);
		t1 = bench_now();
		o->ns[i] = (double)(t1 - t0) / (double)o->loads;
		hwloc_bitmap_set(o->ran_on, (unsigned)sched_getcpu());
	}
	beside_sample(&o->beside, 1);
	sink = p;
	region_unmap(&r);
	return NULL;
}

static void lat_record(struct rm_out *out, const struct lat_one *o)
{
	rm_out_begin(out);
	rm_out_str(out, L_BENCH, "lat");
	rm_out_size(out, L_SIZE, o->size);
	rm_out_size(out, L_PAGES, o->page);
	rm_out_int(out, L_CPU, o->p->cpu);
	if (o->mem_node >= 0)
		rm_out_int(out, L_MEM_NODE, o->mem_node);
	rm_out_set(out, L_NEIGHBOUR, o->p->neighbour);
	if (o->why) {
		out_figures(out, L_BEST, NULL, 2, "ns", 0);
		rm_out_str(out, L_STATUS, "skipped");
		rm_out_str(out, L_REASON, o->why);
	} else {
		struct summary s;

		summarize(o->ns, (size_t)o->p->runs, false, &s);
		out_figures(out, L_BEST, &s, 2, "ns", o->p->runs);
		rm_out_int(out, L_LOADS, (long long)o->loads);
		rm_out_set(out, L_RAN_ON, o->ran_on);
		rm_out_set(out, L_MEM_ON, o->mem_on);
		beside_fields(out, &o->beside, L_NEIGHBOUR_RATE, L_LLC_OCCUPANCY, -1, -1);
		rm_out_str(out, L_STATUS, "ok");
	}
	if (o->p->loaded) {
		char *d = !o->p->neighbour ? xstrdup("idle") : !o->p->load_delay ? xstrdup("0") :
			  o->p->load_delay % 1000 ? xasprintf("%" PRIu64 "ns", o->p->load_delay) :
			  xasprintf("%" PRIu64 "us", o->p->load_delay / 1000);

		rm_out_str(out, L_LOAD_DELAY, d);
		free(d);
	}
	rm_out_end(out);
}

void lat_measure(const struct bench *b, const struct lat_params *p, struct rm_out *out)
{
	int mem_node = p->mem_node >= 0 ? p->mem_node : bench_local_mem_node(b, p->cpu);

	/* each size on each page size in turn: the two are measured close in time, so that a
	 * changing load on the machine does not pass for the effect of huge pages */
	for (size_t i = 0; i < p->nsizes; i++)
		for (size_t k = 0; k < p->npages; k++) {
			struct lat_one o = { .p = p, .page = p->pages[k], .mem_node = mem_node };
			pthread_t tid;

			/* whole lines; at least two, so that the chain is a cycle */
			o.size = p->sizes[i] / LINE * LINE;
			if (o.size < 2 * LINE)
				o.size = 2 * LINE;
			o.ns = xcalloc((size_t)p->runs, sizeof(double));
			o.ran_on = hwloc_bitmap_alloc();
			o.mem_on = hwloc_bitmap_alloc();
			/* a monitoring group each: no lines of the last chain are counted */
			beside_start(b, &o.beside, p->mon, p->neighbour, p->mem_node);
			if (p->load_delay > 0)
				atomic_store(&o.beside.nb.delay, (uint64_t)p->load_delay);
			bench_thread(&tid, lat_thread, &o);
			pthread_join(tid, NULL);
			beside_stop(&o.beside);
			if (o.error)
				bench_fail(o.err, "%s", o.error);
			if (o.why)
				rm_warnx("%s: skipped", o.why);
			lat_record(out, &o);
			free(o.ns);
			free(o.why);
			hwloc_bitmap_free(o.ran_on);
			hwloc_bitmap_free(o.mem_on);
		}
}

/* ---- the command ---- */

enum {
	OPT_CPU = 0x200, OPT_NODE, OPT_MEM_NODE, OPT_SIZES, OPT_SWEEP, OPT_SWEEP_TO, OPT_PAGES,
	OPT_RUNS, OPT_NEIGHBOUR, OPT_MATRIX, OPT_LOADED,
};

/* The loaded-latency delays by default: no neighbour, then rising loads to flat out. */
#define LOADED_DEFAULT "idle,200us,100us,50us,20us,10us,5us,2us,1us,0"
enum { MAX_DELAYS = 64 };

struct lat_args {
	const char *cpu, *node, *mem_node;
	uint64_t *sizes, *pages;
	size_t nsizes, npages;
	bool sweep, matrix;
	const char *loaded;   /* --loaded's list, or NULL */
	uint64_t delays[MAX_DELAYS];
	bool idle[MAX_DELAYS];
	size_t ndelays;
	uint64_t sweep_to;
	int runs;
	const char *neighbour; /* "" without a SET */
};

static const struct argp_option lat_options[] = {
	{ "cpu", OPT_CPU, "CPU", 0, "the CPU to follow the chain on (default: the first allowed)",
	  0 },
	{ "node", OPT_NODE, "N", 0,
	  "run on the first allowed CPU of NUMA node N; for a node without CPUs, bind the "
	  "memory to it and run on its nearest CPU node", 0 },
	{ "mem-node", OPT_MEM_NODE, "N", 0,
	  "bind the memory to NUMA node N (default: the CPU's node); a node without CPUs is "
	  "measured from its nearest CPU node unless --cpu says", 0 },
	{ "sizes", OPT_SIZES, "LIST", 0,
	  "working-set sizes (default: inside L1, L2, L3, and 4 x L3)", 0 },
	{ "sweep", OPT_SWEEP, NULL, 0, "sizes from 4KiB to 8 x L3, four per doubling", 0 },
	{ "sweep-to", OPT_SWEEP_TO, "SIZE", 0, "sweep from 4KiB to SIZE", 0 },
	{ "pages", OPT_PAGES, "LIST", 0, "page sizes among 4K,2M,1G (default: 4K)", 0 },
	{ "runs", OPT_RUNS, "N", 0, "timed runs after the warm-up (default: 5)", 0 },
	{ "matrix", OPT_MATRIX, NULL, 0,
	  "the idle latency matrix: from the first allowed CPU of each node to the memory of "
	  "each node, memory-only nodes included (default size: 4 x L3)", 0 },
	{ "loaded", OPT_LOADED, "DELAYS", OPTION_ARG_OPTIONAL,
	  "loaded latency: the chain followed while the other cores (--neighbour=SET) copy "
	  "memory, pausing DELAYS after each 256KiB, a comma list from idle (no neighbour) to 0 "
	  "(flat out) (default: " LOADED_DEFAULT ")", 0 },
	{ "neighbour", OPT_NEIGHBOUR, "SET", OPTION_ARG_OPTIONAL,
	  "copy memory on the CPUs of SET meanwhile (default: the allowed CPUs outside the "
	  "measured core), as a noisy neighbour does", 0 },
	{ 0 }
};

static error_t lat_parse(int key, char *arg, struct argp_state *state)
{
	struct lat_args *a = state->input;

	switch (key) {
	case OPT_CPU:
		a->cpu = arg;
		break;
	case OPT_NODE:
		a->node = arg;
		break;
	case OPT_MEM_NODE:
		a->mem_node = arg;
		break;
	case OPT_SIZES:
		parse_size_list(state, "--sizes", arg, &a->sizes, &a->nsizes);
		break;
	case OPT_SWEEP:
		a->sweep = true;
		break;
	case OPT_SWEEP_TO:
		a->sweep = true;
		a->sweep_to = parse_size(state, "--sweep-to", arg);
		break;
	case OPT_PAGES:
		parse_size_list(state, "--pages", arg, &a->pages, &a->npages);
		break;
	case OPT_RUNS:
		a->runs = parse_runs(state, arg);
		break;
	case OPT_NEIGHBOUR:
		a->neighbour = arg ? arg : "";
		break;
	case OPT_MATRIX:
		a->matrix = true;
		break;
	case OPT_LOADED:
		a->loaded = arg ? arg : LOADED_DEFAULT;
		a->ndelays = 0;
		for (const char *q = a->loaded; *q;) {
			size_t l = strcspn(q, ",");
			char *w = xasprintf("%.*s", (int)l, q);
			bool ok = a->ndelays < MAX_DELAYS;

			if (ok && !strcmp(w, "idle"))
				a->idle[a->ndelays] = true, a->delays[a->ndelays] = 0;
			else if (ok && !strcmp(w, "0"))
				a->idle[a->ndelays] = false, a->delays[a->ndelays] = 0;
			else
				ok = ok && parse_duration(w, &a->delays[a->ndelays]) == 0 &&
				     a->delays[a->ndelays] <= 1000000000ULL &&
				     !(a->idle[a->ndelays] = false);
			free(w);
			if (!ok || !l)
				argp_error(state, "--loaded takes up to 64 delays such as "
					   "idle,10us,0 (at most 1s each): '%s'", a->loaded);
			a->ndelays++;
			q += l + (q[l] == ',');
		}
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->cpu && a->node)
			argp_error(state, "--cpu and --node exclude each other");
		if (a->sweep && a->sizes)
			argp_error(state, "--sizes and --sweep exclude each other");
		if (a->loaded && (a->matrix || a->sweep || a->nsizes > 1))
			argp_error(state, "--loaded measures one working set: no --matrix, --sweep "
				   "or more than one of --sizes");
		if (a->matrix && (a->cpu || a->node || a->mem_node || a->sweep || a->neighbour))
			argp_error(state, "--matrix measures every node pair: no --cpu, --node, "
				   "--mem-node, --sweep or --neighbour");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Exit 3 when the largest working set of P does not fit in the free memory of its node. */
static void check_free(const struct bench *b, const struct lat_params *p)
{
	uint64_t largest = 0, have = bench_node_free(b, p->mem_node >= 0 ? p->mem_node :
						     bench_local_mem_node(b, p->cpu));

	for (size_t i = 0; i < p->nsizes; i++)
		if (p->sizes[i] > largest)
			largest = p->sizes[i];
	if (have && largest > have - have / 10) {
		char *s = rm_size_format(largest);

		rm_warnx("not enough free memory for the working set: '%s'", s);
		free(s);
		exit(RM_EXIT_NORESOURCE);
	}
}

/* The matrix: P's sizes (none: 4 x L3 of each CPU) from the first allowed CPU of each node
 * with CPUs to each node with memory; every pair checked for room before any is measured. */
static void lat_matrix(const struct bench *b, struct lat_params *p, struct rm_out *out)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	bool own = !p->nsizes;
	unsigned from, to;

	for (int pass = 0; pass < 2; pass++) {
		hwloc_bitmap_foreach_begin(from, b->nodes) {
			bench_node_cpus(b, (int)from, set);
			if (hwloc_bitmap_iszero(set))
				continue;
			p->cpu = hwloc_bitmap_first(set);
			if (own) {
				uint64_t *sizes;
				size_t n = lat_default_sizes(b, p->cpu, &sizes);

				free(p->sizes);
				p->sizes = xmalloc(sizeof(*p->sizes));
				p->sizes[0] = sizes[n - 1];
				p->nsizes = 1;
				free(sizes);
			}
			hwloc_bitmap_foreach_begin(to, b->mem_nodes) {
				p->mem_node = (int)to;
				if (pass)
					lat_measure(b, p, out);
				else
					check_free(b, p);
			}
			hwloc_bitmap_foreach_end();
		}
		hwloc_bitmap_foreach_end();
	}
	if (own) {
		free(p->sizes);
		p->sizes = NULL;
	}
	hwloc_bitmap_free(set);
}

/* 4 KiB to MAX, at 1, 1.25, 1.5 and 1.75 times each power of two. */
static size_t sweep_sizes(uint64_t max, uint64_t **sizes)
{
	size_t n = 0;

	*sizes = NULL;
	for (uint64_t p2 = 4096; p2 <= max; p2 *= 2)
		for (int q = 4; q < 8 && p2 / 4 * (uint64_t)q <= max; q++) {
			*sizes = xrealloc(*sizes, (n + 1) * sizeof(**sizes));
			(*sizes)[n++] = p2 / 4 * (uint64_t)q;
		}
	return n;
}

int cmd_lat(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		lat_options, lat_parse, NULL,
		"Memory latency: nanoseconds per load along a random cyclic chain of pointers, one "
		"per cache line, so that each load waits for the one before and the prefetchers "
		"cannot guess the next. One record per working-set size and page size.",
		NULL, NULL, NULL
	};
	struct lat_args a = { .runs = LAT_RUNS };
	struct lat_params p = { .mem_node = -1 };
	hwloc_bitmap_t set;
	struct rm_out *out;
	struct bench b;
	int near_mem = -1;

	if (bench_parse_defaults(&argp, argc, argv, c, &a, lat_cols, lat_ncols, LAT_DEFAULTS)) {
		free(a.sizes);
		free(a.pages);
		return RM_EXIT_SUCCESS;
	}
	bench_open(&b, c);
	set = hwloc_bitmap_alloc();
	if (a.cpu) {
		bench_cpus(&b, "--cpu", a.cpu, set);
		if (hwloc_bitmap_weight(set) != 1) {
			hwloc_bitmap_free(set);
			rm_usage_errx("--cpu takes one CPU: '%s'", a.cpu);
		}
	} else if (a.node) {
		bench_node_arg_cpus(&b, a.node, set, &near_mem);
	} else {
		hwloc_bitmap_copy(set, b.deflt);
	}
	p.mem_node = near_mem;
	if (a.mem_node) {
		p.mem_node = bench_mem_node_arg(&b, a.mem_node, near_mem);
		/* memory without CPUs is followed from its nearest CPU node, unless told */
		if (!a.cpu && !a.node)
			bench_near_cpus(&b, p.mem_node, set);
	}
	p.cpu = hwloc_bitmap_first(set);
	if (a.neighbour || a.loaded) {
		hwloc_bitmap_only(set, (unsigned)p.cpu);
		p.neighbour = neighbour_cpus(&b, a.neighbour ? a.neighbour : "", set);
	}
	hwloc_bitmap_free(set);
	if (!a.npages) {
		a.pages = xcalloc(1, sizeof(*a.pages));
		a.pages[a.npages++] = b.page;
	}
	for (size_t i = 0; i < a.npages; i++)
		bench_check_page(&b, "--pages", a.pages[i]);
	if (a.sweep) {
		uint64_t l3 = bench_cache_size(&b, p.cpu, 3);

		a.nsizes = sweep_sizes(a.sweep_to ? a.sweep_to : l3 ? 8 * l3 : 256 << 20, &a.sizes);
		if (!a.nsizes)
			rm_usage_errx("--sweep-to: smaller than the first size, 4KiB: '%" PRIu64 "'",
				      a.sweep_to);
	} else if (!a.nsizes && !a.matrix) {
		a.nsizes = lat_default_sizes(&b, p.cpu, &a.sizes);
		if (a.loaded) /* memory: the last of them */
			a.sizes[0] = a.sizes[a.nsizes - 1], a.nsizes = 1;
	}
	p.sizes = a.sizes;
	p.nsizes = a.nsizes;
	p.pages = a.pages;
	p.npages = a.npages;
	p.runs = a.runs;
	if (!a.matrix)
		check_free(&b, &p);

	p.mon = bench_mon_open();
	out = rm_out_new(&c->out, "lat", lat_cols, lat_ncols,
			 a.loaded ? NULL : LAT_DEFAULTS, true);
	if (a.matrix) {
		lat_matrix(&b, &p, out);
	} else if (a.loaded) {
		hwloc_bitmap_t nb = p.neighbour;

		p.loaded = true;
		for (size_t i = 0; i < a.ndelays; i++) {
			p.neighbour = a.idle[i] ? NULL : nb;
			p.load_delay = a.delays[i];
			lat_measure(&b, &p, out);
		}
		p.neighbour = nb;
	} else {
		lat_measure(&b, &p, out);
	}
	rm_out_close(out);
	rm_out_flush();
	free(a.sizes);
	free(a.pages);
	hwloc_bitmap_free(p.neighbour);
	bench_mon_close(p.mon);
	bench_close(&b);
	return RM_EXIT_SUCCESS;
}
