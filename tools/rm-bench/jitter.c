/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench jitter: how late a thread wakes from an absolute-time sleep, as cyclictest measures. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "rm-bench.h"
#include "xalloc.h"

enum {
	J_BENCH, J_CPU, J_SHARED, J_INTERVAL, J_DURATION, J_POLICY, J_PRIORITY, J_DMA, J_SAMPLES,
	J_OVERRUNS, J_MIN, J_AVG, J_MEDIAN, J_P99, J_P999, J_MAX, J_UNIT, J_RUNS, J_SPREAD,
	J_RAN_ON,
};
const struct rm_column jitter_cols[] = {
	[J_BENCH] = { "bench", RM_COL_STRING, "the measurement: jitter" },
	[J_CPU] = { "cpu", RM_COL_INT, "the CPU measured" },
	[J_SHARED] = { "shared", RM_COL_BOOL, "the shared CPU of --compare-shared" },
	[J_INTERVAL] = { "interval_us", RM_COL_INT, "the sleep period, in microseconds" },
	[J_DURATION] = { "duration_ms", RM_COL_INT, "the time measured, in milliseconds" },
	[J_POLICY] = { "policy", RM_COL_STRING, "the scheduling policy: fifo or other" },
	[J_PRIORITY] = { "priority", RM_COL_INT, "the real-time priority (0 with other)" },
	[J_DMA] = { "dma_latency_us", RM_COL_INT,
		    "the /dev/cpu_dma_latency held while measuring (- when none)" },
	[J_SAMPLES] = { "samples", RM_COL_INT, "the number of wake-ups measured" },
	[J_OVERRUNS] = { "overruns", RM_COL_INT, "periods missed: woken after the next one" },
	[J_MIN] = { "min", RM_COL_FLOAT, "the shortest wake-up latency" },
	[J_AVG] = { "avg", RM_COL_FLOAT, "the mean wake-up latency" },
	[J_MEDIAN] = { "median", RM_COL_FLOAT, "the median wake-up latency" },
	[J_P99] = { "p99", RM_COL_FLOAT, "the 99th percentile" },
	[J_P999] = { "p999", RM_COL_FLOAT, "the 99.9th percentile" },
	[J_MAX] = { "max", RM_COL_FLOAT, "the longest wake-up latency" },
	[J_UNIT] = { "unit", RM_COL_STRING, "us: microseconds" },
	[J_RUNS] = { "runs", RM_COL_INT, "the parts the duration is divided in" },
	[J_SPREAD] = { "spread", RM_COL_FLOAT,
		       "(max - min) / median of the runs' p99, in percent" },
	[J_RAN_ON] = { "ran_on", RM_COL_SET, "the CPUs the thread was seen on (sched_getcpu)" },
};
const size_t jitter_ncols = ARRAY_SIZE(jitter_cols);

enum { H_BUCKET, H_CPU, H_WIDTH, H_COUNT };
static const struct rm_column hist_cols[] = {
	[H_BUCKET] = { "bucket", RM_COL_INT, "the bucket's lowest latency, in microseconds" },
	[H_CPU] = { "cpu", RM_COL_INT, "the CPU" },
	[H_WIDTH] = { "width", RM_COL_INT, "the bucket's width, in microseconds" },
	[H_COUNT] = { "count", RM_COL_INT, "the wake-ups with a latency in the bucket" },
};

struct jit_thread {
	const struct jitter_params *p;
	int cpu;
	bool shared;
	uint64_t start;          /* the first wake-up, the same for every thread */
	uint32_t *lat;           /* nanoseconds, one per wake-up */
	size_t n;
	long overruns;
	bool fifo;
	int err;
	hwloc_bitmap_t ran_on;
};

struct jitter_hist {
	struct jit_thread *th;
	int nthreads;
};

static struct timespec ts_of(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	return ts;
}

static void *jit_main(void *arg)
{
	struct jit_thread *th = arg;
	uint64_t interval = th->p->interval, next, now;
	size_t warm;

	if ((th->err = bench_pin(th->cpu)))
		return NULL;
	/* no barrier with the others: a real-time thread spinning there could starve a thread
	 * on its CPU that has yet to arrive; every thread sleeps to the same start instead */
	if (th->p->priority > 0) {
		struct sched_param sp = { .sched_priority = th->p->priority };

		th->fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	}
	/* warm-up: 20 ms or 10 periods, not counted (caches, TLB, the timer's first arming) */
	warm = (size_t)(20000000 / interval);
	if (warm < 10)
		warm = 10;
	next = th->start;
	for (size_t i = 0; i < warm + th->n; i++) {
		struct timespec ts = ts_of(next);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = bench_now();
		if (i >= warm) {
			uint64_t late = now > next ? now - next : 0;

			th->lat[i - warm] = late > UINT32_MAX ? UINT32_MAX : (uint32_t)late;
		}
		if (i % 1024 == 0)
			hwloc_bitmap_set(th->ran_on, (unsigned)sched_getcpu());
		next += interval;
		/* woken after the next period began: skip the periods missed, as cyclictest */
		while (next <= now) {
			next += interval;
			if (i >= warm)
				th->overruns++;
		}
	}
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static double quantile_u32(const uint32_t *sorted, size_t n, double q)
{
	double pos = q * (double)(n - 1), frac;
	size_t i = (size_t)pos;

	frac = pos - (double)i;
	return i + 1 < n ? sorted[i] + frac * ((double)sorted[i + 1] - sorted[i]) : sorted[i];
}

static void jit_record(struct rm_out *out, struct jit_thread *th, int dma)
{
	const struct jitter_params *p = th->p;
	size_t per_run = th->n / (size_t)p->runs;
	double *p99 = xcalloc((size_t)p->runs, sizeof(double)), sum = 0;
	struct summary s;

	/* the runs' p99s, for the spread; then the whole, sorted in place */
	for (int r = 0; r < p->runs; r++) {
		uint32_t *part = th->lat + (size_t)r * per_run;
		size_t len = r + 1 < p->runs ? per_run : th->n - (size_t)r * per_run;

		qsort(part, len, sizeof(*part), cmp_u32);
		p99[r] = quantile_u32(part, len, 0.99) / 1000;
	}
	summarize(p99, (size_t)p->runs, false, &s);
	qsort(th->lat, th->n, sizeof(*th->lat), cmp_u32);
	for (size_t i = 0; i < th->n; i++)
		sum += th->lat[i];

	rm_out_begin(out);
	rm_out_str(out, J_BENCH, "jitter");
	rm_out_int(out, J_CPU, th->cpu);
	rm_out_bool(out, J_SHARED, th->shared);
	rm_out_int(out, J_INTERVAL, (long long)((p->interval + 500) / 1000));
	rm_out_int(out, J_DURATION, (long long)((p->duration + 500000) / 1000000));
	rm_out_str(out, J_POLICY, th->fifo ? "fifo" : "other");
	rm_out_int(out, J_PRIORITY, th->fifo ? p->priority : 0);
	if (dma >= 0)
		rm_out_int(out, J_DMA, dma);
	rm_out_int(out, J_SAMPLES, (long long)th->n);
	rm_out_int(out, J_OVERRUNS, th->overruns);
	rm_out_float(out, J_MIN, th->lat[0] / 1000.0, 2);
	rm_out_float(out, J_AVG, sum / (double)th->n / 1000, 2);
	rm_out_float(out, J_MEDIAN, quantile_u32(th->lat, th->n, 0.5) / 1000, 2);
	rm_out_float(out, J_P99, quantile_u32(th->lat, th->n, 0.99) / 1000, 2);
	rm_out_float(out, J_P999, quantile_u32(th->lat, th->n, 0.999) / 1000, 2);
	rm_out_float(out, J_MAX, th->lat[th->n - 1] / 1000.0, 2);
	rm_out_str(out, J_UNIT, "us");
	rm_out_int(out, J_RUNS, p->runs);
	rm_out_float(out, J_SPREAD, s.spread, 1);
	rm_out_set(out, J_RAN_ON, th->ran_on);
	rm_out_end(out);
	free(p99);
}

struct jitter_hist *jitter_measure(const struct bench *b, const struct jitter_params *p,
				   struct rm_out *out)
{
	int n = hwloc_bitmap_weight(p->cpus) + (p->shared_cpu >= 0), k = 0;
	struct jitter_hist *h = xcalloc(1, sizeof(*h));
	pthread_t *tid = xcalloc((size_t)n, sizeof(*tid));
	size_t samples = (size_t)(p->duration / p->interval);
	bool warned = false, locked;
	int dma_fd = -1;
	uint64_t start;
	unsigned i;

	(void)b;
	h->th = xcalloc((size_t)n, sizeof(*h->th));
	h->nthreads = n;
	hwloc_bitmap_foreach_begin(i, p->cpus)
		h->th[k++].cpu = (int)i;
	hwloc_bitmap_foreach_end();
	if (p->shared_cpu >= 0) {
		h->th[k].cpu = p->shared_cpu;
		h->th[k].shared = true;
	}
	for (k = 0; k < n; k++) {
		struct jit_thread *th = &h->th[k];

		th->p = p;
		th->n = samples;
		th->lat = xcalloc(samples, sizeof(*th->lat));
		/* in memory before the first wake-up: no page fault inside the measurement */
		mlock(th->lat, samples * sizeof(*th->lat));
		th->ran_on = hwloc_bitmap_alloc();
	}
	/* as cyclictest does: a PM QoS request keeps the CPUs out of deep idle states (and a
	 * virtual machine's out of halting to the host) while the file is open */
	if (p->dma_latency >= 0) {
		int32_t us = p->dma_latency;

		dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
		if (dma_fd < 0 || write(dma_fd, &us, sizeof(us)) != (ssize_t)sizeof(us)) {
			rm_warn("cannot hold /dev/cpu_dma_latency, measured without it");
			if (dma_fd >= 0)
				close(dma_fd);
			dma_fd = -1;
		}
	}
	/* time for every thread to start and pin itself before the clock starts */
	start = bench_now() + 20000000 + (uint64_t)n * 1000000;
	for (k = 0; k < n; k++) {
		h->th[k].start = start;
		bench_thread(&tid[k], jit_main, &h->th[k]);
	}
	/* as cyclictest -m: no page the threads use (code, stacks, samples) can be paged out while
	 * they measure. Their stacks exist now; MCL_ONFAULT locks what is in memory and what the
	 * warm-up touches, without populating whole stacks. Without the right (CAP_IPC_LOCK or
	 * RLIMIT_MEMLOCK), the samples alone are locked. */
	locked = mlockall(MCL_CURRENT | MCL_ONFAULT) == 0;
	for (k = 0; k < n; k++)
		pthread_join(tid[k], NULL);
	free(tid);
	if (locked)
		munlockall();
	if (dma_fd >= 0)
		close(dma_fd);
	for (k = 0; k < n; k++) {
		struct jit_thread *th = &h->th[k];

		if (th->err)
			bench_fail(th->err, "cannot pin a thread to CPU %d", th->cpu);
		if (p->priority > 0 && !th->fifo && !warned) {
			rm_warnx("SCHED_FIFO needs root or CAP_SYS_NICE: measured under SCHED_OTHER");
			warned = true;
		}
		munlock(th->lat, samples * sizeof(*th->lat));
		jit_record(out, th, dma_fd >= 0 ? p->dma_latency : -1);
	}
	return h;
}

void jitter_histogram(struct jitter_hist *h, const struct rm_outopts *opts, bool print)
{
	struct rm_out *out = NULL;

	if (print || opts->mode == RM_OUT_JSON)
		out = bench_listing(opts, "histogram", hist_cols, ARRAY_SIZE(hist_cols));
	for (int k = 0; k < h->nthreads; k++) {
		struct jit_thread *th = &h->th[k];
		size_t i = 0;

		/* buckets of 1 us below 100 us, of 10 us below 1 ms, and so on: two digits */
		while (out && i < th->n) {
			uint64_t us = th->lat[i] / 1000, width = 1, low;
			size_t count = 0;

			while (us / width >= 100)
				width *= 10;
			low = us / width * width;
			while (i < th->n && th->lat[i] / 1000 < low + width) {
				count++;
				i++;
			}
			rm_out_begin(out);
			rm_out_int(out, H_BUCKET, (long long)low);
			rm_out_int(out, H_CPU, th->cpu);
			rm_out_int(out, H_WIDTH, (long long)width);
			rm_out_int(out, H_COUNT, (long long)count);
			rm_out_end(out);
		}
		free(th->lat);
		hwloc_bitmap_free(th->ran_on);
	}
	rm_out_close(out);
	free(h->th);
	free(h);
}

/* ---- the command ---- */

enum {
	OPT_CPUS = 0x200, OPT_DURATION, OPT_INTERVAL, OPT_PRIORITY, OPT_COMPARE_SHARED,
	OPT_HISTOGRAM, OPT_RUNS, OPT_DMA_LATENCY,
};

struct jitter_args {
	const char *cpus;
	uint64_t duration, interval;
	int priority, runs, dma_latency;
	bool compare_shared, histogram;
};

static const struct argp_option jitter_options[] = {
	{ "cpus", OPT_CPUS, "SET", 0, "the CPUs to measure, one thread each (required)", 0 },
	{ "duration", OPT_DURATION, "TIME", 0, "how long to measure (default: 10s)", 0 },
	{ "interval", OPT_INTERVAL, "TIME", 0, "the sleep period (default: 1ms)", 0 },
	{ "priority", OPT_PRIORITY, "N", 0,
	  "SCHED_FIFO priority 1-99, 0 for SCHED_OTHER (default: 99)", 0 },
	{ "compare-shared", OPT_COMPARE_SHARED, NULL, 0,
	  "measure an allowed CPU outside --cpus as well, for contrast", 0 },
	{ "histogram", OPT_HISTOGRAM, NULL, 0, "print the histogram's records (JSON has them)",
	  0 },
	{ "runs", OPT_RUNS, "N", 0, "parts the duration is divided in, for the spread (default: 5)",
	  0 },
	{ "dma-latency", OPT_DMA_LATENCY, "US", 0,
	  "hold /dev/cpu_dma_latency at US while measuring, as cyclictest does with 0", 0 },
	{ 0 }
};

static uint64_t duration_arg(struct argp_state *state, const char *opt, const char *arg)
{
	uint64_t ns;

	if (parse_duration(arg, &ns) < 0)
		argp_error(state, "%s: invalid time (a number and ns, us, ms, s, m or h): '%s'",
			   opt, arg);
	return ns;
}

static error_t jitter_parse(int key, char *arg, struct argp_state *state)
{
	struct jitter_args *a = state->input;

	switch (key) {
	case OPT_CPUS:
		a->cpus = arg;
		break;
	case OPT_DURATION:
		a->duration = duration_arg(state, "--duration", arg);
		break;
	case OPT_INTERVAL:
		a->interval = duration_arg(state, "--interval", arg);
		if (a->interval < 1000 || a->interval > 10000000000ull)
			argp_error(state, "--interval must be from 1us to 10s: '%s'", arg);
		break;
	case OPT_PRIORITY:
		a->priority = (int)parse_long(state, "--priority", arg, 0, 99);
		break;
	case OPT_COMPARE_SHARED:
		a->compare_shared = true;
		break;
	case OPT_HISTOGRAM:
		a->histogram = true;
		break;
	case OPT_RUNS:
		a->runs = parse_runs(state, arg);
		break;
	case OPT_DMA_LATENCY:
		a->dma_latency = (int)parse_long(state, "--dma-latency", arg, 0, 2000000000);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->duration / a->interval < (uint64_t)a->runs)
			argp_error(state, "--duration must hold one --interval per run at least");
		if (a->duration / a->interval > 100000000)
			argp_error(state, "more than 10^8 wake-ups: shorten --duration or lengthen "
				   "--interval");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_jitter(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		jitter_options, jitter_parse, NULL,
		"Wake-up latency: a thread pinned to each CPU sleeps to absolute times one "
		"interval apart (clock_nanosleep, CLOCK_MONOTONIC) under SCHED_FIFO where "
		"allowed, and records how late it wakes. One record per CPU; the histogram with "
		"--histogram and in JSON.",
		NULL, NULL, NULL
	};
	struct jitter_args a = { .duration = 10000000000ull, .interval = 1000000, .priority = 99,
				 .runs = JITTER_RUNS, .dma_latency = -1 };
	struct jitter_params p = { .shared_cpu = -1 };
	struct jitter_hist *h;
	struct rm_out *out;
	struct bench b;

	if (bench_parse(&argp, argc, argv, c, &a, jitter_cols, jitter_ncols))
		return RM_EXIT_SUCCESS;
	if (!a.cpus)
		rm_usage_errx("jitter needs --cpus: the CPUs to measure");
	bench_open(&b, c);
	p.cpus = hwloc_bitmap_alloc();
	bench_cpus(&b, "--cpus", a.cpus, p.cpus);
	if (a.compare_shared) {
		hwloc_bitmap_t rest = hwloc_bitmap_dup(b.deflt);

		hwloc_bitmap_andnot(rest, rest, p.cpus);
		if (hwloc_bitmap_iszero(rest)) {
			hwloc_bitmap_copy(rest, b.allowed);
			hwloc_bitmap_andnot(rest, rest, p.cpus);
		}
		p.shared_cpu = hwloc_bitmap_first(rest);
		hwloc_bitmap_free(rest);
		if (p.shared_cpu < 0)
			rm_usage_errx("--compare-shared needs an allowed CPU outside --cpus: '%s'",
				      a.cpus);
	}
	p.duration = a.duration;
	p.interval = a.interval;
	p.priority = a.priority;
	p.runs = a.runs;
	p.histogram = a.histogram;
	p.dma_latency = a.dma_latency;
	out = rm_out_new(&c->out, "jitter", jitter_cols, jitter_ncols, NULL, true);
	h = jitter_measure(&b, &p, out);
	rm_out_close(out);
	jitter_histogram(h, &c->out, a.histogram);
	rm_out_flush();
	hwloc_bitmap_free(p.cpus);
	bench_close(&b);
	return RM_EXIT_SUCCESS;
}
