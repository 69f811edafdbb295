/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench c2c: round trips between two CPUs through two cache lines, for each pair, as c2clat. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "rm-bench.h"
#include "xalloc.h"

enum {
	C_BENCH, C_PAIR, C_CPUS, C_BEST, C_MEDIAN, C_MIN, C_MAX, C_UNIT, C_RUNS, C_SPREAD,
	C_ITERATIONS, C_RAN_ON,
};
const struct rm_column c2c_cols[] = {
	[C_BENCH] = { "bench", RM_COL_STRING, "the measurement: c2c" },
	[C_PAIR] = { "pair", RM_COL_STRING, "CPU:CPU, or all for the summary over the pairs" },
	[C_CPUS] = { "cpus", RM_COL_SET, "the CPUs of the pair, or of every pair measured" },
	[C_BEST] = { "best", RM_COL_FLOAT, "the lowest round trip of the runs" },
	[C_MEDIAN] = { "median", RM_COL_FLOAT, "the median round trip" },
	[C_MIN] = { "min", RM_COL_FLOAT, "the lowest round trip" },
	[C_MAX] = { "max", RM_COL_FLOAT, "the highest round trip" },
	[C_UNIT] = { "unit", RM_COL_STRING, "ns: nanoseconds per round trip" },
	[C_RUNS] = { "runs", RM_COL_INT, "the number of timed runs (pairs, for the summary)" },
	[C_SPREAD] = { "spread", RM_COL_FLOAT, "(max - min) / median, in percent" },
	[C_ITERATIONS] = { "iterations", RM_COL_INT, "round trips timed in each run" },
	[C_RAN_ON] = { "ran_on", RM_COL_SET, "the CPUs the two threads were seen on" },
};
const size_t c2c_ncols = ARRAY_SIZE(c2c_cols);

#define STOP 0xffffffffu

/*
 * Two lines, as c2clat has them: the initiator writes PING and waits for PONG, the echo waits for
 * PING and writes PONG; each line is written by one thread and read by the other, and each sits
 * alone in 128 bytes (the adjacent-line prefetcher pairs lines). One line written by both would
 * have each thread load right after its own store to the same address, and on some CPUs (AMD
 * Zen's memory renaming) the time then depends on how the compiler addressed the line: tens of
 * percent between two builds of the same loop.
 */
struct line {
	_Alignas(128) atomic_uint v;
	char pad[128 - sizeof(atomic_uint)];
};
struct pingpong {
	struct line ping, pong;
};

struct c2c_pair {
	struct pingpong *pp;
	const struct c2c_params *p;
	int cpu[2];
	struct spin_barrier ready;
	double *ns;          /* per run */
	int seen[2];         /* sched_getcpu() of each thread */
	int err[2];
};

/* The echo: wait for each value on PING, answer it on PONG. */
static void *echo(void *arg)
{
	struct c2c_pair *c = arg;
	/* in registers: nothing but the two lines is touched while waiting */
	atomic_uint *const in = &c->pp->ping.v, *const out = &c->pp->pong.v;
	unsigned want = 1, v;

	c->err[1] = bench_pin(c->cpu[1]);
	c->seen[1] = sched_getcpu();
	spin_barrier_wait(&c->ready);
	if (c->err[0] || c->err[1])
		return NULL;
	for (;; want++) {
		while ((v = atomic_load_explicit(in, memory_order_acquire)) != want)
			if (v == STOP)
				return NULL;
		atomic_store_explicit(out, want, memory_order_release);
	}
}

/* The initiator: N round trips after VALUE; returns the last value sent. */
static unsigned rounds(atomic_uint *out, atomic_uint *in, unsigned value, long n)
{
	for (long i = 0; i < n; i++) {
		value++;
		atomic_store_explicit(out, value, memory_order_release);
		while (atomic_load_explicit(in, memory_order_acquire) != value)
			;
	}
	return value;
}

static void *initiate(void *arg)
{
	struct c2c_pair *c = arg;
	atomic_uint *const out = &c->pp->ping.v, *const in = &c->pp->pong.v;
	unsigned value = 0;

	c->err[0] = bench_pin(c->cpu[0]);
	c->seen[0] = sched_getcpu();
	spin_barrier_wait(&c->ready);
	if (c->err[0] || c->err[1])
		return NULL;
	/* warm-up, then the timed runs (fewer than 2^30 round trips in all: no wrap to STOP) */
	value = rounds(out, in, value, 1000);
	for (int r = 0; r < c->p->runs; r++) {
		uint64_t t0, t1;

		t0 = bench_now();
		value = rounds(out, in, value, c->p->iterations);
		t1 = bench_now();
		c->ns[r] = (double)(t1 - t0) / (double)c->p->iterations;
	}
	atomic_store_explicit(out, STOP, memory_order_release);
	return NULL;
}

/* Up to MAX pairs of SET: every pair, or a sample that keeps one pair of each distance (same
 * core, same L2, same L3, same node, other node) and then spreads over the rest. */
static size_t choose_pairs(const struct bench *b, hwloc_const_bitmap_t set, int max, int **pairs)
{
	int n = hwloc_bitmap_weight(set), *cpu = xcalloc((size_t)n, sizeof(int)), k = 0;
	size_t total = (size_t)n * (size_t)(n - 1) / 2, got = 0;
	unsigned i;
	bool *taken;

	hwloc_bitmap_foreach_begin(i, set)
		cpu[k++] = (int)i;
	hwloc_bitmap_foreach_end();
	*pairs = xcalloc(2 * (total ? total : 1), sizeof(int));
	if (max <= 0 || (size_t)max >= total) {
		for (int x = 0; x < n; x++)
			for (int y = x + 1; y < n; y++) {
				(*pairs)[2 * got] = cpu[x];
				(*pairs)[2 * got + 1] = cpu[y];
				got++;
			}
		free(cpu);
		return got;
	}
	taken = xcalloc(total, sizeof(bool));
	/* the first pair of each distance: the depth of the two CPUs' common ancestor */
	{
		int depths = hwloc_topology_get_depth(b->t->topo);
		bool *depth_seen = xcalloc((size_t)depths + 1, sizeof(bool));
		size_t idx = 0;

		for (int x = 0; x < n && got < (size_t)max; x++)
			for (int y = x + 1; y < n && got < (size_t)max; y++, idx++) {
				hwloc_obj_t a = hwloc_get_pu_obj_by_os_index(b->t->topo, (unsigned)cpu[x]);
				hwloc_obj_t c = hwloc_get_pu_obj_by_os_index(b->t->topo, (unsigned)cpu[y]);
				hwloc_obj_t anc = a && c ? hwloc_get_common_ancestor_obj(b->t->topo, a, c)
							 : NULL;
				int d = anc ? anc->depth : 0;

				if (d < 0 || d > depths || depth_seen[d])
					continue;
				depth_seen[d] = true;
				taken[idx] = true;
				(*pairs)[2 * got] = cpu[x];
				(*pairs)[2 * got + 1] = cpu[y];
				got++;
			}
		free(depth_seen);
	}
	/* then evenly through the rest */
	for (size_t step = total / (size_t)max + 1, start = 0; got < (size_t)max && start < step;
	     start++) {
		size_t idx = 0;

		for (int x = 0; x < n && got < (size_t)max; x++)
			for (int y = x + 1; y < n && got < (size_t)max; y++, idx++) {
				if (taken[idx] || idx % step != start)
					continue;
				taken[idx] = true;
				(*pairs)[2 * got] = cpu[x];
				(*pairs)[2 * got + 1] = cpu[y];
				got++;
			}
	}
	free(taken);
	free(cpu);
	return got;
}

/* The record of PAIR; RAN_ON is NULL for the summary over the pairs. */
static void c2c_record(struct rm_out *out, const struct c2c_params *p, const char *pair,
		       hwloc_const_bitmap_t cpus, const struct summary *s, int runs,
		       hwloc_const_bitmap_t ran_on)
{
	rm_out_begin(out);
	rm_out_str(out, C_BENCH, "c2c");
	rm_out_str(out, C_PAIR, pair);
	rm_out_set(out, C_CPUS, cpus);
	out_figures(out, C_BEST, s, 1, "ns", runs);
	rm_out_int(out, C_ITERATIONS, p->iterations);
	rm_out_set(out, C_RAN_ON, ran_on);
	rm_out_end(out);
}

void c2c_measure(const struct bench *b, const struct c2c_params *p, struct rm_out *out)
{
	struct pingpong *lines = aligned_alloc(128, sizeof(*lines));
	hwloc_bitmap_t all = hwloc_bitmap_alloc(), pair_set = hwloc_bitmap_alloc();
	int *pairs;
	size_t npairs = choose_pairs(b, p->cpus, p->pairs, &pairs);
	double *medians = xcalloc(npairs ? npairs : 1, sizeof(double));
	double *bests = xcalloc(npairs ? npairs : 1, sizeof(double));
	struct summary s;

	if (!lines)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	for (size_t k = 0; k < npairs; k++) {
		struct c2c_pair pp = { .pp = lines, .p = p, .cpu = { pairs[2 * k], pairs[2 * k + 1] } };
		pthread_t tid[2];

		atomic_init(&lines->ping.v, 0);
		atomic_init(&lines->pong.v, 0);
		spin_barrier_init(&pp.ready, 2);
		pp.ns = xcalloc((size_t)p->runs, sizeof(double));
		bench_thread(&tid[1], echo, &pp);
		bench_thread(&tid[0], initiate, &pp);
		pthread_join(tid[0], NULL);
		pthread_join(tid[1], NULL);
		for (int t = 0; t < 2; t++)
			if (pp.err[t])
				bench_fail(pp.err[t], "cannot pin a thread to CPU %d", pp.cpu[t]);
		summarize(pp.ns, (size_t)p->runs, false, &s);
		medians[k] = s.median;
		bests[k] = s.best;
		hwloc_bitmap_only(pair_set, (unsigned)pp.cpu[0]);
		hwloc_bitmap_set(pair_set, (unsigned)pp.cpu[1]);
		hwloc_bitmap_or(all, all, pair_set);

		char *name = xasprintf("%d:%d", pp.cpu[0], pp.cpu[1]);
		hwloc_bitmap_t seen = hwloc_bitmap_alloc();

		hwloc_bitmap_set(seen, (unsigned)pp.seen[0]);
		hwloc_bitmap_set(seen, (unsigned)pp.seen[1]);
		c2c_record(out, p, name, pair_set, &s, p->runs, seen);
		free(name);
		hwloc_bitmap_free(seen);
		free(pp.ns);
	}
	/* the summary over the pairs: their medians, and the lowest best */
	if (npairs) {
		summarize(medians, npairs, false, &s);
		for (size_t k = 0; k < npairs; k++)
			if (k == 0 || bests[k] < s.best)
				s.best = bests[k];
		c2c_record(out, p, "all", all, &s, (int)npairs, NULL);
	}
	free(pairs);
	free(medians);
	free(bests);
	free(lines);
	hwloc_bitmap_free(all);
	hwloc_bitmap_free(pair_set);
}

/* ---- the command ---- */

enum { OPT_CPUS = 0x200, OPT_PAIRS, OPT_ITERATIONS, OPT_RUNS };

struct c2c_args {
	const char *cpus;
	int pairs;
	long iterations;
	int runs;
};

static const struct argp_option c2c_options[] = {
	{ "cpus", OPT_CPUS, "SET", 0, "the CPUs whose pairs are measured (default: all allowed)",
	  0 },
	{ "pairs", OPT_PAIRS, "N", 0,
	  "at most N pairs: one of each distance first, then spread (default: every pair)", 0 },
	{ "iterations", OPT_ITERATIONS, "N", 0, "round trips per run (default: 100)", 0 },
	{ "runs", OPT_RUNS, "N", 0, "timed runs per pair (default: 1000)", 0 },
	{ 0 }
};

static error_t c2c_parse(int key, char *arg, struct argp_state *state)
{
	struct c2c_args *a = state->input;

	switch (key) {
	case OPT_CPUS:
		a->cpus = arg;
		break;
	case OPT_PAIRS:
		a->pairs = (int)parse_long(state, "--pairs", arg, 1, 1 << 30);
		break;
	case OPT_ITERATIONS:
		a->iterations = parse_long(state, "--iterations", arg, 1, 100000000);
		break;
	case OPT_RUNS:
		a->runs = parse_runs(state, arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if ((double)a->iterations * a->runs > 1e9)
			argp_error(state, "--iterations times --runs must stay below 10^9");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_c2c(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		c2c_options, c2c_parse, NULL,
		"Core-to-core latency: two threads pinned to two CPUs pass a number back and forth "
		"through two cache lines; one record per pair with the time of a round trip, then "
		"a summary over the pairs (pair=all).",
		NULL, NULL, NULL
	};
	/* c2clat's sampling: many runs short enough that most are not interrupted on a shared
	 * machine, the best kept; --iterations 20000 --runs 5 is the long-run mode */
	struct c2c_args a = { .iterations = 100, .runs = 1000 };
	struct c2c_params p = { 0 };
	struct rm_out *out;
	struct bench b;

	if (bench_parse(&argp, argc, argv, c, &a, c2c_cols, c2c_ncols))
		return RM_EXIT_SUCCESS;
	bench_open(&b, c);
	p.cpus = hwloc_bitmap_alloc();
	if (a.cpus)
		bench_cpus(&b, "--cpus", a.cpus, p.cpus);
	else
		hwloc_bitmap_copy(p.cpus, b.deflt);
	if (hwloc_bitmap_weight(p.cpus) < 2) {
		char *s = rm_cpulist_format(p.cpus);

		rm_warnx("c2c needs two CPUs at least: '%s'", s);
		free(s);
		exit(RM_EXIT_USAGE);
	}
	p.pairs = a.pairs;
	p.iterations = a.iterations;
	p.runs = a.runs;
	out = rm_out_new(&c->out, "c2c", c2c_cols, c2c_ncols, NULL, true);
	c2c_measure(&b, &p, out);
	rm_out_close(out);
	rm_out_flush();
	hwloc_bitmap_free(p.cpus);
	bench_close(&b);
	return RM_EXIT_SUCCESS;
}
