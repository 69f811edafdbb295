/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench mem: STREAM's memory bandwidth with pinned threads and memory bound to NUMA nodes. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "kernels.h"
#include "rm-bench.h"
#include "size.h"
#include "xalloc.h"

const char *const mem_op_names[NOPS] = { "copy", "scale", "add", "triad" };

/* STREAM's byte counts: copy and scale read one array and write one; add and triad read two. */
static const unsigned op_arrays[NOPS] = { 2, 2, 3, 3 };
static const double scalar = 3.0; /* STREAM's */

enum {
	M_BENCH, M_OP, M_CPUS, M_NODES, M_THREADS, M_MEM_NODES, M_SIZE, M_PAGES, M_STORES,
	M_NEIGHBOUR, M_BEST, M_MEDIAN, M_MIN, M_MAX, M_UNIT, M_RUNS, M_SPREAD, M_RAN_ON, M_MEM_ON,
	M_NEIGHBOUR_RATE, M_LLC_OCCUPANCY, M_MBM_TOTAL, M_MBM_LOCAL, M_STATUS, M_REASON,
};
const struct rm_column mem_cols[] = {
	[M_BENCH] = { "bench", RM_COL_STRING, "the measurement: mem" },
	[M_OP] = { "op", RM_COL_STRING, "the kernel: copy, scale, add or triad" },
	[M_CPUS] = { "cpus", RM_COL_SET, "the CPUs, one pinned thread each" },
	[M_NODES] = { "nodes", RM_COL_SET, "the NUMA nodes of the CPUs" },
	[M_THREADS] = { "threads", RM_COL_INT, "the number of threads" },
	[M_MEM_NODES] = { "mem_nodes", RM_COL_SET, "the NUMA nodes the arrays are bound to" },
	[M_SIZE] = { "size", RM_COL_SIZE, "the size of each of the three arrays" },
	[M_PAGES] = { "pages", RM_COL_SIZE, "the page size of the arrays" },
	[M_STORES] = { "stores", RM_COL_STRING, "nt (streaming stores) or normal" },
	[M_NEIGHBOUR] = { "neighbour", RM_COL_SET, "the CPUs a noisy neighbour copied memory on" },
	[M_BEST] = { "best", RM_COL_FLOAT, "the highest rate of the runs" },
	[M_MEDIAN] = { "median", RM_COL_FLOAT, "the median rate" },
	[M_MIN] = { "min", RM_COL_FLOAT, "the lowest rate" },
	[M_MAX] = { "max", RM_COL_FLOAT, "the highest rate" },
	[M_UNIT] = { "unit", RM_COL_STRING, "GB/s: 10^9 bytes per second, STREAM's byte counts" },
	[M_RUNS] = { "runs", RM_COL_INT, "the number of timed runs" },
	[M_SPREAD] = { "spread", RM_COL_FLOAT, "(max - min) / median, in percent" },
	[M_RAN_ON] = { "ran_on", RM_COL_SET, "the CPUs the threads were seen on (sched_getcpu)" },
	[M_MEM_ON] = { "mem_on", RM_COL_SET, "the NUMA nodes the arrays' pages were found on" },
	[M_NEIGHBOUR_RATE] = { "neighbour_rate", RM_COL_FLOAT,
			       "GB/s the neighbour copied during the runs, STREAM's count" },
	[M_LLC_OCCUPANCY] = { "llc_occupancy", RM_COL_SIZE,
			      "L3 the threads held after the runs (resctrl llc_occupancy)" },
	[M_MBM_TOTAL] = { "mbm_total", RM_COL_FLOAT,
			  "GB/s of memory traffic of the threads during the runs (resctrl "
			  "mbm_total_bytes)" },
	[M_MBM_LOCAL] = { "mbm_local", RM_COL_FLOAT,
			  "the part of mbm_total to and from the threads' own node, GB/s" },
	[M_STATUS] = { "status", RM_COL_STRING, "ok, or skipped" },
	[M_REASON] = { "reason", RM_COL_STRING, "why it was skipped" },
};
const size_t mem_ncols = ARRAY_SIZE(mem_cols);

const char *mem_isa(void)
{
	return mem_kernels_get()->isa;
}

/* What the threads of one measurement share. */
struct mem_team {
	const struct mem_params *p;
	const struct mem_kernels *k;
	struct spin_barrier bar;
	int nthreads;
	size_t n;             /* elements per thread per array */
	int nops;
	enum mem_op ops[NOPS];
	atomic_int failed;    /* a thread could not set up: 1 failure, 2 skipped */
	int nslots;           /* runs + the warm-up */
	struct mem_thread *first;
	struct beside beside;  /* sampled by the first thread when the timed runs begin and end */
};

struct mem_thread {
	struct mem_team *team;
	int cpu, node;
	pthread_t tid;
	uint64_t *t0, *t1;    /* [slot * nops + op] */
	hwloc_bitmap_t ran_on, mem_on;
	char *why;
	int err;
	bool bad_result;
};

/* STREAM's check: follow the kernels on one element, compare the arrays' samples. */
static bool check(const struct mem_team *team, const double *a, const double *b, const double *c)
{
	double aj = 1.0, bj = 2.0, cj = 0.0;
	size_t step = team->n > 1024 ? team->n / 1024 : 1;

	for (int s = 0; s < team->nslots; s++)
		for (int o = 0; o < team->nops; o++)
			switch (team->ops[o]) {
			case OP_COPY: cj = aj; break;
			case OP_SCALE: bj = scalar * cj; break;
			case OP_ADD: cj = aj + bj; break;
			case OP_TRIAD: aj = bj + scalar * cj; break;
			default: break;
			}
	for (size_t j = 0; j < team->n; j += step) {
		const double want[3] = { aj, bj, cj }, got[3] = { a[j], b[j], c[j] };

		for (int i = 0; i < 3; i++)
			if (isfinite(want[i]) && fabs(got[i] - want[i]) > 1e-13 * fabs(want[i]))
				return false;
	}
	return true;
}

static void *mem_thread_main(void *arg)
{
	struct mem_thread *th = arg;
	struct mem_team *team = th->team;
	size_t bytes = team->n * sizeof(double), pad = 1088; /* 17 lines: a, b, c not 4K-aliased */
	struct region r = { 0 };
	double *a = NULL, *b = NULL, *c = NULL;
	bool streaming = !team->p->normal_stores;
	int rc;

	if ((th->err = bench_pin(th->cpu))) {
		th->why = xasprintf("cannot pin a thread to CPU %d", th->cpu);
		atomic_store(&team->failed, 1);
	} else if ((rc = region_get(&r, 3 * (bytes + pad), team->p->page, th->node,
				    &th->why))) {
		/* huge pages that are not there skip the measurement; anything else fails it */
		atomic_store(&team->failed, rc > 0 ? 2 : 1);
	} else {
		a = r.base;
		b = (double *)((char *)a + bytes + pad);
		c = (double *)((char *)b + bytes + pad);
		/* the first touch, by the thread that uses the memory (STREAM's values) */
		for (size_t j = 0; j < team->n; j++) {
			a[j] = 1.0;
			b[j] = 2.0;
			c[j] = 0.0;
		}
		region_nodes(&r, th->mem_on);
	}
	spin_barrier_wait(&team->bar);
	if (atomic_load(&team->failed))
		goto out;

	for (int s = 0; s < team->nslots; s++)
		for (int o = 0; o < team->nops; o++) {
			mem_kernel k = team->k->k[streaming][team->ops[o]];

			if (s == 1 && o == 0 && th == team->first)
				beside_sample(&team->beside, 0);
			spin_barrier_wait(&team->bar);
			th->t0[s * team->nops + o] = bench_now();
			k(a, b, c, team->n, scalar);
			th->t1[s * team->nops + o] = bench_now();
			hwloc_bitmap_set(th->ran_on, (unsigned)sched_getcpu());
		}
	spin_barrier_wait(&team->bar);
	if (th == team->first)
		beside_sample(&team->beside, 1);
	th->bad_result = !check(team, a, b, c);
out:
	region_unmap(&r);
	return NULL;
}

/* The record of one kernel: its figures S, or skipped for WHY when S is NULL. */
static void mem_record(struct rm_out *out, const struct mem_params *p,
		       const struct mem_team *team, enum mem_op op, hwloc_const_bitmap_t cpus,
		       hwloc_const_bitmap_t nodes, hwloc_const_bitmap_t mem_nodes, uint64_t size,
		       const struct summary *s, hwloc_const_bitmap_t ran_on,
		       hwloc_const_bitmap_t mem_on, const char *why)
{
	rm_out_begin(out);
	rm_out_str(out, M_BENCH, "mem");
	rm_out_str(out, M_OP, mem_op_names[op]);
	rm_out_set(out, M_CPUS, cpus);
	rm_out_set(out, M_NODES, nodes);
	rm_out_int(out, M_THREADS, team->nthreads);
	rm_out_set(out, M_MEM_NODES, mem_nodes);
	rm_out_size(out, M_SIZE, size);
	rm_out_size(out, M_PAGES, p->page);
	rm_out_str(out, M_STORES, p->normal_stores ? "normal" : "nt");
	rm_out_set(out, M_NEIGHBOUR, p->neighbour);
	out_figures(out, M_BEST, s, 2, "GB/s", s ? p->runs : 0);
	if (s) {
		rm_out_set(out, M_RAN_ON, ran_on);
		rm_out_set(out, M_MEM_ON, mem_on);
		beside_fields(out, &team->beside, M_NEIGHBOUR_RATE, M_LLC_OCCUPANCY, M_MBM_TOTAL,
			      M_MBM_LOCAL);
	}
	rm_out_str(out, M_STATUS, s ? "ok" : "skipped");
	rm_out_str(out, M_REASON, why);
	rm_out_end(out);
}

/* Refuse (exit 3) arrays that do not fit in the free memory of their nodes. */
static void check_memory(const struct bench *b, const struct mem_thread *th, int nthreads,
			 size_t per_thread)
{
	if (!b->numa)
		return;
	for (int i = 0; i < nthreads; i++) {
		uint64_t need = 0, have = bench_node_free(b, th[i].node);
		char *n, *h;

		if (th[i].node < 0)
			continue;
		for (int k = 0; k < nthreads; k++)
			if (th[k].node == th[i].node)
				need += per_thread;
		/* leave a tenth for everyone else */
		if (!have || need <= have - have / 10)
			continue;
		n = rm_size_format(need / (1 << 20) << 20);
		h = rm_size_format(have / (1 << 20) << 20);
		rm_warnx("not enough free memory on NUMA node %d for the arrays "
			"(%s needed, %s free): '%d'", th[i].node,
			n, h, th[i].node);
		free(n);
		free(h);
		exit(RM_EXIT_NORESOURCE);
	}
}

bool mem_measure(const struct bench *b, const struct mem_params *p, struct rm_out *out)
{
	struct mem_team team = { .p = p, .k = mem_kernels_get() };
	int ncpus = hwloc_bitmap_weight(p->cpus), *cpus;
	hwloc_bitmap_t used = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
	hwloc_bitmap_t mem_nodes = hwloc_bitmap_alloc(), ran_on = hwloc_bitmap_alloc();
	hwloc_bitmap_t mem_on = hwloc_bitmap_alloc();
	uint64_t size = p->size ? p->size : mem_default_size(b, p->cpus);
	struct mem_thread *th;
	const char *why = NULL;
	bool ok = true;
	int failed;
	double *rates;

	team.nthreads = p->threads ? p->threads : ncpus;
	for (int o = 0; o < NOPS; o++)
		if (p->ops & (1u << o))
			team.ops[team.nops++] = (enum mem_op)o;
	team.nslots = p->runs + 1;
	/* each thread's share, a multiple of 64 elements (the kernels' step) */
	team.n = size / sizeof(double) / (size_t)team.nthreads / 64 * 64;
	if (team.n == 0) {
		char *given = rm_size_format(size);

		rm_warnx("--size is too small for %d threads (512B each at least): '%s'", team.nthreads, given);
		free(given);
		exit(RM_EXIT_USAGE);
	}
	size = team.n * sizeof(double) * (size_t)team.nthreads;
	cpus = xcalloc((size_t)team.nthreads, sizeof(int));
	bench_pick_cpus(b, p->cpus, team.nthreads, cpus);
	th = xcalloc((size_t)team.nthreads, sizeof(*th));
	for (int i = 0; i < team.nthreads; i++) {
		th[i].team = &team;
		th[i].cpu = cpus[i];
		th[i].node = p->mem_node >= 0 ? p->mem_node : bench_local_mem_node(b, cpus[i]);
		th[i].t0 = xcalloc((size_t)team.nslots * (size_t)team.nops, sizeof(uint64_t));
		th[i].t1 = xcalloc((size_t)team.nslots * (size_t)team.nops, sizeof(uint64_t));
		th[i].ran_on = hwloc_bitmap_alloc();
		th[i].mem_on = hwloc_bitmap_alloc();
		hwloc_bitmap_set(used, (unsigned)cpus[i]);
		if (th[i].node >= 0)
			hwloc_bitmap_set(mem_nodes, (unsigned)th[i].node);
		int cn = bench_cpu_node(b, cpus[i]);
		if (cn >= 0)
			hwloc_bitmap_set(nodes, (unsigned)cn);
	}
	check_memory(b, th, team.nthreads, 3 * (team.n * sizeof(double) + 1088));
	spin_barrier_init(&team.bar, (unsigned)team.nthreads);
	atomic_init(&team.failed, 0);
	team.first = &th[0];
	beside_start(b, &team.beside, p->mon, p->neighbour, p->mem_node);
	for (int i = 0; i < team.nthreads; i++)
		bench_thread(&th[i].tid, mem_thread_main, &th[i]);
	for (int i = 0; i < team.nthreads; i++)
		pthread_join(th[i].tid, NULL);
	beside_stop(&team.beside);

	failed = atomic_load(&team.failed);
	for (int i = 0; i < team.nthreads && !why; i++)
		why = th[i].why;
	if (failed == 1) {
		int errnum = 0;

		for (int i = 0; i < team.nthreads; i++)
			if (th[i].err)
				errnum = th[i].err;
		bench_fail(errnum, "%s", why);
	}
	if (failed == 2) {
		rm_warnx("%s: skipped", why);
		for (int o = 0; o < team.nops; o++)
			mem_record(out, p, &team, team.ops[o], used, nodes, mem_nodes, size, NULL,
				   NULL, NULL, why);
		ok = false;
		goto done;
	}
	for (int i = 0; i < team.nthreads; i++) {
		if (th[i].bad_result)
			rm_errx(RM_EXIT_FAILURE, "the kernels' results are wrong (thread on CPU %d)",
			     th[i].cpu);
		hwloc_bitmap_or(ran_on, ran_on, th[i].ran_on);
		hwloc_bitmap_or(mem_on, mem_on, th[i].mem_on);
	}

	rates = xcalloc((size_t)p->runs, sizeof(double));
	for (int o = 0; o < team.nops; o++) {
		double bytes = (double)op_arrays[team.ops[o]] * sizeof(double) * (double)team.n *
			       team.nthreads;
		struct summary s;

		/* slot 0 is the warm-up; a run lasts from the first start to the last end */
		for (int r = 0; r < p->runs; r++) {
			size_t slot = (size_t)(r + 1) * (size_t)team.nops + (size_t)o;
			uint64_t start = UINT64_MAX, end = 0;

			for (int i = 0; i < team.nthreads; i++) {
				if (th[i].t0[slot] < start)
					start = th[i].t0[slot];
				if (th[i].t1[slot] > end)
					end = th[i].t1[slot];
			}
			rates[r] = bytes / (double)(end > start ? end - start : 1);
		}
		summarize(rates, (size_t)p->runs, true, &s);
		mem_record(out, p, &team, team.ops[o], used, nodes, mem_nodes, size, &s, ran_on,
			   mem_on, NULL);
	}
	free(rates);
done:
	for (int i = 0; i < team.nthreads; i++) {
		free(th[i].t0);
		free(th[i].t1);
		free(th[i].why);
		hwloc_bitmap_free(th[i].ran_on);
		hwloc_bitmap_free(th[i].mem_on);
	}
	free(th);
	free(cpus);
	hwloc_bitmap_free(used);
	hwloc_bitmap_free(nodes);
	hwloc_bitmap_free(mem_nodes);
	hwloc_bitmap_free(ran_on);
	hwloc_bitmap_free(mem_on);
	return ok;
}

/* ---- the command ---- */

enum {
	OPT_CPUS = 0x200, OPT_NODE, OPT_MEM_NODE, OPT_THREADS, OPT_SIZE, OPT_OP, OPT_MATRIX,
	OPT_PAGES, OPT_STORES, OPT_RUNS, OPT_NEIGHBOUR,
};

struct mem_args {
	const char *cpus, *node, *mem_node;
	int threads;
	uint64_t size, page;
	const char *pages;
	const char *neighbour;  /* "" without a SET */
	unsigned ops;
	bool matrix, normal_stores;
	int runs;
};

static const struct argp_option mem_options[] = {
	{ "cpus", OPT_CPUS, "SET", 0, "the CPUs to run on, one thread each (default: all allowed)",
	  0 },
	{ "node", OPT_NODE, "N", 0,
	  "run on the CPUs of NUMA node N; for a node without CPUs, bind the arrays to it and "
	  "run on its nearest CPU node", 0 },
	{ "mem-node", OPT_MEM_NODE, "N", 0,
	  "bind the arrays to NUMA node N (default: each thread's own node); a node without "
	  "CPUs is measured from its nearest CPU node unless --cpus says", 0 },
	{ "threads", OPT_THREADS, "N", 0, "use N of the CPUs, one per core first", 0 },
	{ "size", OPT_SIZE, "SIZE", 0,
	  "the size of each array (default: 4 x the last-level caches)", 0 },
	{ "op", OPT_OP, "LIST", 0, "kernels among copy,scale,add,triad (default: all)", 0 },
	{ "matrix", OPT_MATRIX, NULL, 0,
	  "one record per CPU node and memory node (default op: triad)", 0 },
	{ "pages", OPT_PAGES, "SIZE", 0, "the page size of the arrays: 4K, 2M or 1G", 0 },
	{ "stores", OPT_STORES, "KIND", 0, "nt (streaming, the default) or normal", 0 },
	{ "runs", OPT_RUNS, "N", 0, "timed runs after the warm-up (default: 10)", 0 },
	{ "neighbour", OPT_NEIGHBOUR, "SET", OPTION_ARG_OPTIONAL,
	  "copy memory on the CPUs of SET meanwhile (default: the allowed CPUs outside the "
	  "measured cores), as a noisy neighbour does", 0 },
	{ 0 }
};

static unsigned parse_ops(struct argp_state *state, const char *arg)
{
	const char *p = arg;
	unsigned ops = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		int o;

		for (o = 0; o < NOPS; o++)
			if (strlen(mem_op_names[o]) == len && !strncmp(p, mem_op_names[o], len))
				break;
		if (o == NOPS)
			argp_error(state, "--op: unknown kernel: '%.*s' (copy, scale, add, triad)",
				   (int)len, p);
		ops |= 1u << o;
		p += len;
		if (!*p)
			break;
		p++;
	}
	return ops;
}

static error_t mem_parse(int key, char *arg, struct argp_state *state)
{
	struct mem_args *a = state->input;

	switch (key) {
	case OPT_CPUS:
		a->cpus = arg;
		break;
	case OPT_NODE:
		a->node = arg;
		break;
	case OPT_MEM_NODE:
		a->mem_node = arg;
		break;
	case OPT_THREADS:
		a->threads = (int)parse_long(state, "--threads", arg, 1, RM_CPULIST_MAX + 1);
		break;
	case OPT_SIZE:
		a->size = parse_size(state, "--size", arg);
		break;
	case OPT_OP:
		a->ops = parse_ops(state, arg);
		break;
	case OPT_MATRIX:
		a->matrix = true;
		break;
	case OPT_PAGES:
		a->page = parse_size(state, "--pages", arg);
		a->pages = arg;
		break;
	case OPT_STORES:
		if (!strcmp(arg, "nt"))
			a->normal_stores = false;
		else if (!strcmp(arg, "normal"))
			a->normal_stores = true;
		else
			argp_error(state, "--stores takes nt or normal: '%s'", arg);
		break;
	case OPT_RUNS:
		a->runs = parse_runs(state, arg);
		break;
	case OPT_NEIGHBOUR:
		a->neighbour = arg ? arg : "";
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->cpus && a->node)
			argp_error(state, "--cpus and --node exclude each other");
		if (a->matrix && (a->node || a->mem_node || a->neighbour))
			argp_error(state, "--matrix takes no --node, --mem-node or --neighbour");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_mem(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		mem_options, mem_parse, NULL,
		"Memory bandwidth as STREAM measures it: copy, scale, add and triad over three "
		"arrays of doubles, one pinned thread per CPU, each touching its own part of the "
		"arrays first. One record per kernel; with --matrix, one per CPU node and memory "
		"node.",
		NULL, NULL, NULL
	};
	struct mem_args a = { .runs = MEM_RUNS };
	struct mem_params p = { .mem_node = -1 };
	struct rm_out *out;
	struct bench b;
	int near_mem = -1;

	if (bench_parse(&argp, argc, argv, c, &a, mem_cols, mem_ncols))
		return RM_EXIT_SUCCESS;
	bench_open(&b, c);
	p.cpus = hwloc_bitmap_alloc();
	if (a.cpus)
		bench_cpus(&b, "--cpus", a.cpus, p.cpus);
	else if (a.node)
		bench_node_arg_cpus(&b, a.node, p.cpus, &near_mem);
	else
		hwloc_bitmap_copy(p.cpus, b.deflt);
	p.mem_node = near_mem;
	if (a.mem_node) {
		p.mem_node = bench_mem_node_arg(&b, a.mem_node, near_mem);
		/* memory without CPUs is measured from its nearest CPU node, unless told */
		if (!a.cpus && !a.node)
			bench_near_cpus(&b, p.mem_node, p.cpus);
	}
	if (a.threads > hwloc_bitmap_weight(p.cpus))
		rm_usage_errx("more threads than CPUs (%d): '%d'", hwloc_bitmap_weight(p.cpus),
			      a.threads);
	p.page = a.page ? a.page : b.page;
	bench_check_page(&b, "--pages", p.page);
	p.threads = a.threads;
	p.size = a.size;
	p.ops = a.ops ? a.ops : a.matrix ? 1u << OP_TRIAD : (1u << NOPS) - 1;
	p.normal_stores = a.normal_stores;
	p.runs = a.runs;
	if (a.neighbour)
		p.neighbour = neighbour_cpus(&b, a.neighbour, p.cpus);

	p.mon = bench_mon_open();
	out = rm_out_new(&c->out, "mem", mem_cols, mem_ncols, NULL, true);
	if (a.matrix) {
		hwloc_bitmap_t all = hwloc_bitmap_dup(p.cpus);
		uint64_t size = p.size ? p.size : mem_default_size(&b, all);
		unsigned cn, mn;

		hwloc_bitmap_foreach_begin(cn, b.nodes) {
			bench_node_cpus(&b, (int)cn, p.cpus);
			hwloc_bitmap_and(p.cpus, p.cpus, all);
			if (hwloc_bitmap_iszero(p.cpus))
				continue;
			hwloc_bitmap_foreach_begin(mn, b.mem_nodes) {
				struct mem_params q = p;

				q.mem_node = (int)mn;
				q.size = size;
				if (q.threads > hwloc_bitmap_weight(q.cpus))
					q.threads = 0;
				mem_measure(&b, &q, out);
			}
			hwloc_bitmap_foreach_end();
		}
		hwloc_bitmap_foreach_end();
		hwloc_bitmap_free(all);
	} else {
		mem_measure(&b, &p, out);
	}
	rm_out_close(out);
	rm_out_flush();
	hwloc_bitmap_free(p.cpus);
	hwloc_bitmap_free(p.neighbour);
	bench_mon_close(p.mon);
	bench_close(&b);
	return RM_EXIT_SUCCESS;
}
