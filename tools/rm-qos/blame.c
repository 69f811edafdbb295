/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos blame: rank the owners whose use of what OWNER shares moves with OWNER's stalls. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "input.h"
#include "kernfs.h"
#include "output.h"
#include "owner.h"
#include "rm-qos.h"
#include "score.h"
#include "xalloc.h"

enum { OPT_INTERVAL = 'i', OPT_WINDOW = 'w' };
enum { BLAME_STEPS_MAX = 100000 }; /* intervals in a window: the series kept per neighbour */

struct blame_args {
	const char *owner;
	uint64_t window, interval;
};

static error_t blame_parse(int key, char *arg, struct argp_state *state)
{
	struct blame_args *a = state->input;

	switch (key) {
	case OPT_INTERVAL:
		a->interval = interval_arg(state, arg);
		return 0;
	case OPT_WINDOW:
		a->window = interval_arg(state, arg);
		return 0;
	case ARGP_KEY_ARG:
		if (a->owner)
			argp_error(state, "one OWNER only: '%s'", arg);
		a->owner = arg;
		return 0;
	case ARGP_KEY_END:
		if (a->window < a->interval)
			argp_error(state, "the window is shorter than the interval");
		if (a->window / a->interval > BLAME_STEPS_MAX)
			argp_error(state, "more than %d intervals in the window", BLAME_STEPS_MAX);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

enum { B_NEIGHBOUR, B_OWNER, B_RESOURCE, B_SCORE, B_CORRELATION, B_USE, B_STALL, B_SHARE,
       B_TRACKING, B_SLOPE };
static const struct rm_column blame_cols[] = {
	[B_NEIGHBOUR] = { "neighbour", RM_COL_STRING, "the owner, pool or system blamed" },
	[B_OWNER] = { "owner", RM_COL_STRING, "the owner that stalls" },
	[B_RESOURCE] = { "resource", RM_COL_STRING, "what the two share: cpu, l3, mbm or io" },
	[B_SCORE] = { "score", RM_COL_FLOAT, "share times tracking (0-1)" },
	[B_CORRELATION] = { "correlation", RM_COL_FLOAT, "how its use moves with the owner's "
			    "stall over the window (-1 to 1; unknown when either is steady)" },
	[B_USE] = { "use", RM_COL_FLOAT, "its mean use: CPUs, or MiB, MiB/s for l3, mbm, io" },
	[B_STALL] = { "stall", RM_COL_FLOAT, "the owner's mean stall, percent (cpu, memory and "
		      "io some)" },
	[B_SHARE] = { "share", RM_COL_FLOAT, "its share of the neighbours' use of the resource, "
		      "each interval weighted by the owner's stall (0-1)" },
	[B_TRACKING] = { "tracking", RM_COL_FLOAT, "the correlation squared, 0 when below 0 or "
			 "when its use is steady, 1 when the stall is steady (0-1)" },
	[B_SLOPE] = { "slope", RM_COL_FLOAT, "the owner's stall, percent, per unit of its use "
		      "(least squares; unknown when either is steady)" },
};

enum { R_CPU, R_L3, R_MBM, R_IO, R_N };
static const char *const res_names[R_N] = { "cpu", "l3", "mbm", "io" };

/* The CPUs of SET and their SMT siblings (topology/thread_siblings_list). */
static void with_siblings(hwloc_bitmap_t set)
{
	const char *root = rm_input_root(rm_input());
	hwloc_bitmap_t all = hwloc_bitmap_dup(set), sib = hwloc_bitmap_alloc();
	int cpu;

	hwloc_bitmap_foreach_begin(cpu, all) {
		char *p = xasprintf("%s/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
				    root ? root : "", cpu), *v;

		if ((v = rm_kernfs_read(p, 0)) && hwloc_bitmap_list_sscanf(sib, v) == 0)
			hwloc_bitmap_or(set, set, sib);
		free(v);
		free(p);
	}
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(all);
	hwloc_bitmap_free(sib);
}

/* T's use of resource R between its samples, and whether it shares R with the victim V. */
static bool use_of(const struct target *t, const struct target *v, hwloc_const_bitmap_t vcpus,
		   int r, double *use)
{
	const struct sample *a = &t->prev, *b = &t->cur;
	double dt = b->t - a->t;

	*use = 0;
	if (!a->exists || !b->exists || dt <= 0)
		return false;
	switch (r) {
	case R_CPU:
		if (!b->have_usage || !hwloc_bitmap_intersects(b->cpus, vcpus))
			return false;
		*use = b->usage_usec >= a->usage_usec
		       ? (double)(b->usage_usec - a->usage_usec) / 1e6 / dt : 0;
		return true;
	case R_L3:
		if (!b->have_llc || !v->cur.have_llc)
			return false;
		*use = (double)b->llc / (1 << 20);
		return true;
	case R_MBM:
		if (!a->have_mbm || !b->have_mbm || !v->cur.have_mbm)
			return false;
		*use = b->mbm >= a->mbm ? (double)(b->mbm - a->mbm) / (1 << 20) / dt : 0;
		return true;
	case R_IO: {
		bool shared = false;

		for (size_t i = 0; i < b->nio; i++)
			for (size_t k = 0; k < v->cur.nio; k++)
				if (!strcmp(b->io[i].dev, v->cur.io[k].dev)) {
					unsigned long long was = 0, now;

					for (size_t j = 0; j < a->nio; j++)
						if (!strcmp(a->io[j].dev, b->io[i].dev))
							was = a->io[j].rbytes + a->io[j].wbytes;
					now = b->io[i].rbytes + b->io[i].wbytes;
					*use += now >= was ? (double)(now - was) / (1 << 20) / dt : 0;
					shared = true;
				}
		return shared;
	}
	}
	return false;
}

/* X to print with D decimals: a value that rounds to 0 as 0, never "-0.000". */
static double tidy(double x, int d)
{
	return fabs(x) < 0.5 * pow(10, -d) ? 0 : x;
}

/* The victim's stall over the step: cpu, memory and io "some", percent. */
static double stall_of(const struct target *v)
{
	struct mval m[M_N];
	double s = 0;

	metrics_get(v, m);
	for (int k = M_CPU_SOME; k <= M_IO_SOME; k += 4)
		if (m[k].kind == MV_NUM)
			s += m[k].num;
	metrics_free(m);
	return s;
}

int cmd_blame(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "window", OPT_WINDOW, "DURATION", 0, "sample for DURATION (default 30s)", 0 },
		{ "interval", OPT_INTERVAL, "DURATION", 0, "one sample every DURATION (default 1s)",
		  0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, blame_parse, "OWNER",
		"Sample every owner each interval over the window and rank the others by how their "
		"use of what OWNER shares (the CPUs of OWNER and their SMT siblings, L3 occupancy, "
		"memory bandwidth, I/O on the same device) rises and falls with OWNER's stalls: the "
		"score is the square of the correlation of the two series (tracking) times the "
		"neighbour's share of the use while OWNER stalled. One record per neighbour and resource, the highest "
		"score first.", NULL, NULL, NULL
	};
	struct blame_args a = { .window = 30000000000ull, .interval = 1000000000u };
	struct targets ts;
	struct target *victim = NULL;
	size_t steps, nt;
	double *stall, *all, *use; /* [step], [step], [target][resource][step] */
	bool *shares;          /* [target][resource] */
	hwloc_bitmap_t vcpus;
	struct rm_out *out;
	struct ranked { size_t t; int r; struct blame_score s; } *rank = NULL;
	size_t nrank = 0;
	double stall_sum = 0;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, blame_cols, ARRAY_SIZE(blame_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, blame_cols, ARRAY_SIZE(blame_cols), NULL);
	if (!a.owner)
		rm_usage_errx("no OWNER given");
	if (!rm_name_valid(a.owner)) {
		char *s = rm_record_show(a.owner, strlen(a.owner));

		rm_usage_errx("invalid owner name: '%s'", s);
	}
	targets_find(&ts, NULL, 0);
	for (size_t i = 0; i < ts.n; i++)
		if (ts.v[i].kind == TARGET_OWNER && !strcmp(ts.v[i].name, a.owner))
			victim = &ts.v[i];
	if (!victim || !victim->path) {
		targets_free(&ts);
		rm_errx(RM_EXIT_USAGE, "no such owner: '%s' (see rm-qos show)", a.owner);
	}
	nt = ts.n;
	steps = (size_t)(a.window / a.interval);
	stall = xcalloc(steps, sizeof(*stall));
	all = xcalloc(steps, sizeof(*all));
	use = xcalloc(nt * R_N * steps, sizeof(*use));
	shares = xcalloc(nt * R_N, sizeof(*shares));
	vcpus = hwloc_bitmap_alloc();
	targets_sample(&ts, false);
	hwloc_bitmap_copy(vcpus, victim->cur.cpus);
	with_siblings(vcpus);
	for (size_t s = 0; s < steps; s++) {
		sleep_ns(a.interval);
		targets_sample(&ts, false);
		stall[s] = stall_of(victim);
		stall_sum += stall[s];
		for (size_t t = 0; t < nt; t++)
			for (int r = 0; r < R_N; r++)
				if (&ts.v[t] != victim &&
				    use_of(&ts.v[t], victim, vcpus, r, &use[(t * R_N + r) * steps + s]))
					shares[t * R_N + r] = true;
	}
	for (int r = 0; r < R_N; r++) {
		for (size_t st = 0; st < steps; st++) {
			all[st] = 0;
			for (size_t o = 0; o < nt; o++)
				if (shares[o * R_N + r])
					all[st] += use[(o * R_N + r) * steps + st];
		}
		for (size_t t = 0; t < nt; t++)
			if (shares[t * R_N + r]) {
				rank = xrealloc(rank, (nrank + 1) * sizeof(*rank));
				rank[nrank].t = t;
				rank[nrank].r = r;
				blame_score(stall, &use[(t * R_N + r) * steps], all, steps,
					    &rank[nrank++].s);
			}
	}
	/* highest score first, then the higher mean use; insertion sort keeps ties in order */
	for (size_t i = 1; i < nrank; i++)
		for (size_t j = i; j > 0 && (rank[j].s.score > rank[j - 1].s.score ||
					     (rank[j].s.score == rank[j - 1].s.score &&
					      rank[j].s.use > rank[j - 1].s.use)); j--) {
			struct ranked x = rank[j];

			rank[j] = rank[j - 1];
			rank[j - 1] = x;
		}
	out = rm_out_new(&c->out, "neighbours", blame_cols, ARRAY_SIZE(blame_cols), NULL, true);
	for (size_t i = 0; i < nrank; i++) {
		rm_out_begin(out);
		rm_out_str(out, B_NEIGHBOUR, ts.v[rank[i].t].name);
		rm_out_str(out, B_OWNER, a.owner);
		rm_out_str(out, B_RESOURCE, res_names[rank[i].r]);
		rm_out_float(out, B_SCORE, rank[i].s.score, 3);
		if (rank[i].s.fit)
			rm_out_float(out, B_CORRELATION, tidy(rank[i].s.correlation, 3), 3);
		rm_out_float(out, B_USE, rank[i].s.use, 2);
		rm_out_float(out, B_STALL, steps ? stall_sum / steps : 0, 2);
		rm_out_float(out, B_SHARE, rank[i].s.share, 3);
		rm_out_float(out, B_TRACKING, rank[i].s.tracking, 3);
		if (rank[i].s.fit)
			rm_out_float(out, B_SLOPE, tidy(rank[i].s.slope, 2), 2);
		rm_out_end(out);
	}
	rm_out_close(out);
	rm_out_flush();
	free(rank);
	free(stall);
	free(all);
	free(use);
	free(shares);
	hwloc_bitmap_free(vcpus);
	targets_free(&ts);
	return RM_EXIT_SUCCESS;
}
