/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset noise: what interrupts an owner's CPUs. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "irq.h"
#include "kernfs.h"
#include "noise.h"
#include "duration.h"
#include "quiet.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

/* ---- noise ---- */

enum { N_SOURCE, N_KIND, N_NAME, N_CPUS, N_COUNT, N_RATE, N_MOVABLE };
static const struct rm_column noise_cols[] = {
	[N_SOURCE] = { "source", RM_COL_STRING,
		       "irq/N, kthread/PID, workqueue, timer, softirq/NAME, cpu/NAME, nohz_full" },
	[N_KIND] = { "kind", RM_COL_STRING, "irq, kthread, workqueue, timer, softirq, cpu, tick" },
	[N_NAME] = { "name", RM_COL_STRING,
		     "the IRQ's actions, the thread's name, the row's description; nohz_full: "
		     "active or off" },
	[N_CPUS] = { "cpus", RM_COL_SET, "the owner's CPUs it may run on or ran on" },
	[N_COUNT] = { "count", RM_COL_INT, "its events on those CPUs over the window" },
	[N_RATE] = { "rate", RM_COL_FLOAT, "events per second" },
	[N_MOVABLE] = { "movable", RM_COL_BOOL,
			"it can be moved away at run time (rm-cpuset alloc --isolate does)" },
};

struct noise_args {
	const char *owner;
	double window;  /* seconds */
	bool measure;
	struct noise_limits lim;
};

enum { OPT_WINDOW = 0x100, OPT_MEASURE, OPT_THRESHOLD, OPT_MAX_NOISE, OPT_MAX_SINGLE };

static int parse_window(const char *s, double *sec)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || v > 3600)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -1;
	*sec = v;
	return 0;
}

static error_t noise_parse(int key, char *arg, struct argp_state *state)
{
	struct noise_args *a = state->input;

	switch (key) {
	case OPT_WINDOW:
		if (parse_window(arg, &a->window))
			argp_error(state, "invalid window: '%s' (seconds, as 5, 5s or 500ms)", arg);
		break;
	case OPT_MEASURE:
		a->measure = true;
		break;
	case OPT_THRESHOLD:
	case OPT_MAX_SINGLE: {
		uint64_t ns;

		if (rm_duration_parse(arg, &ns) || (key == OPT_THRESHOLD && (!ns || ns > 1000000000u)))
			argp_error(state, "invalid %s: '%s' (a duration, as 2us or 500ns%s)",
				   key == OPT_THRESHOLD ? "threshold" : "interruption", arg,
				   key == OPT_THRESHOLD ? ", 1ns to 1s" : "");
		if (key == OPT_THRESHOLD)
			a->lim.threshold = ns;
		else
			a->lim.max_single = (long long)ns;
		break;
	}
	case OPT_MAX_NOISE: {
		char *end;

		errno = 0;
		a->lim.max_noise = strtoll(arg, &end, 10);
		if (errno || end == arg || *end || a->lim.max_noise < 0 ||
		    a->lim.max_noise > 1000000000)
			argp_error(state, "invalid noise limit: '%s' (ns per second, 0 to 1000000000)",
				   arg);
		break;
	}
	case ARGP_KEY_ARG:
		if (a->owner)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->owner = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void record(struct rm_out *out, const char *source, const char *kind, const char *name,
		   hwloc_const_bitmap_t cpus, long long count, double window, bool movable)
{
	rm_out_begin(out);
	rm_out_str(out, N_SOURCE, source);
	rm_out_str(out, N_KIND, kind);
	rm_out_str(out, N_NAME, name);
	rm_out_set(out, N_CPUS, cpus);
	if (count >= 0) {
		rm_out_int(out, N_COUNT, count);
		if (window > 0)
			rm_out_float(out, N_RATE, (double)count / window, 1);
	}
	rm_out_bool(out, N_MOVABLE, movable);
	rm_out_end(out);
}

/* The counts of the rows of AFTER on CPUS since BEFORE (0 for a row not in BEFORE: new). */
static unsigned long long delta(const struct rm_irq_counts *before,
				const struct rm_irq_counts *after, const struct rm_irq_row *row,
				hwloc_const_bitmap_t cpus)
{
	const struct rm_irq_row *b = rm_irq_counts_find(before, row->name);
	unsigned long long n = rm_irq_row_sum(after, row, cpus), m = b ? rm_irq_row_sum(before, b, cpus) : 0;

	return n > m ? n - m : 0;
}

static bool read_counts(const char *root, const char *file, struct rm_irq_counts *c)
{
	char *msg = NULL;

	if (rm_irq_counts_read(root, file, c, &msg) == 0)
		return true;
	free(msg);
	return false;
}

int cmd_noise(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "window", OPT_WINDOW, "DURATION", 0,
		  "how long to count interrupts and softirqs, or to measure (5s; 0 for none)", 0 },
		{ "measure", OPT_MEASURE, NULL, 0,
		  "measure the time taken from each CPU (ns per second, longest interruption, per "
		  "cause and source) instead of listing sources", 0 },
		{ "threshold", OPT_THRESHOLD, "DURATION", 0,
		  "with --measure: shorter gaps are not noise (1us)", 0 },
		{ "max-noise", OPT_MAX_NOISE, "NS", 0,
		  "with --measure: exit 1 when a CPU loses more than NS ns per second", 0 },
		{ "max-single", OPT_MAX_SINGLE, "DURATION", 0,
		  "with --measure: exit 1 when one interruption takes longer", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, noise_parse, "OWNER",
		"What still disturbs OWNER's CPUs, one record per source: IRQs whose affinity "
		"includes them and their interrupts there over the window, kernel threads that may "
		"run there, the unbound workqueue cpumask, the local timer, softirqs and other "
		"per-CPU interrupts, whether nohz_full is active. Exit 1 while a movable source "
		"remains, 0 when none does. With --measure: the time each CPU loses, by the "
		"kernel's osnoise tracer where it has one, else by a loop on each CPU; exit 1 when a "
		"--max-noise or --max-single limit is passed.",
		NULL, NULL, NULL
	};
	struct noise_args a = { .window = 5, .lim = { 0, 1000, -1, -1 } };
	struct rm_irq_counts ib = { 0 }, ia = { 0 }, sb = { 0 }, sa = { 0 };
	hwloc_bitmap_t cpus, set, eff, unmovable, on;
	bool have_i, have_s, movable_left = false;
	const char *root;
	struct rm_out *out;
	struct pool p;
	int *irqs = NULL, n;
	long i;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (!a.measure && (a.lim.max_noise >= 0 || a.lim.max_single >= 0 || a.lim.threshold != 1000))
		rm_usage_errx("--threshold, --max-noise and --max-single go with --measure");
	if (c->out.list_columns) {
		if (a.measure)
			noise_measure_list_columns(c);
		else
			rm_out_list_columns(&c->out, noise_cols, ARRAY_SIZE(noise_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	if (a.measure)
		noise_measure_check(c);
	if (!a.owner)
		rm_usage_errx("noise needs an OWNER");
	if (!rm_name_valid(a.owner))
		rm_usage_errx("invalid owner name: '%s'", a.owner);
	cpus = hwloc_bitmap_alloc();
	set = hwloc_bitmap_alloc();
	eff = hwloc_bitmap_alloc();
	unmovable = hwloc_bitmap_alloc();
	on = hwloc_bitmap_alloc();
	pool_open(&p, c, POOL_ANY_TOPOLOGY);
	if ((i = pool_find(&p, a.owner)) < 0)
		rm_usage_errx("no such owner: '%s'", a.owner);
	pool_owner_runs_on(&p, &p.st.records[i], cpus);
	if (!rm_input_sysfs(p.t->in))
		rm_usage_errx("noise reads this machine's /proc (or --sysroot's)");
	root = rm_input_root(p.t->in);
	if (a.measure) {
		int rc;

		a.lim.window = (uint64_t)(a.window * 1e9);
		rc = noise_measure(&p, c, a.owner, cpus, &a.lim);
		hwloc_bitmap_free(cpus);
		hwloc_bitmap_free(set);
		hwloc_bitmap_free(eff);
		hwloc_bitmap_free(unmovable);
		hwloc_bitmap_free(on);
		pool_close(&p);
		return rc;
	}
	rm_quiet_unmovable(unmovable);

	have_i = read_counts(root, "proc/interrupts", &ib);
	have_s = read_counts(root, "proc/softirqs", &sb);
	if (a.window > 0) {
		struct timespec ts = { (time_t)a.window,
				       (long)((a.window - (double)(time_t)a.window) * 1e9) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	have_i = have_i && read_counts(root, "proc/interrupts", &ia);
	have_s = have_s && read_counts(root, "proc/softirqs", &sa);

	out = rm_out_new(&c->out, "sources", noise_cols, ARRAY_SIZE(noise_cols), NULL, true);
	/* IRQs */
	n = rm_irq_list(root, &irqs);
	for (int k = 0; k < n; k++) {
		char id[16], src[32];
		const struct rm_irq_row *row = NULL;
		unsigned long long cnt = 0;
		bool movable;

		snprintf(id, sizeof(id), "%d", irqs[k]);
		snprintf(src, sizeof(src), "irq/%d", irqs[k]);
		if (rm_irq_read_set(root, irqs[k], "smp_affinity_list", set))
			continue;
		if (rm_irq_read_set(root, irqs[k], "effective_affinity_list", eff))
			hwloc_bitmap_zero(eff);
		if (have_i && (row = rm_irq_counts_find(&ia, id)))
			cnt = delta(&ib, &ia, row, cpus);
		hwloc_bitmap_or(on, set, eff);
		hwloc_bitmap_and(on, on, cpus);
		if (hwloc_bitmap_iszero(on) && !cnt)
			continue;
		if (!row || !row->actions) {
			if (!cnt)
				continue; /* no handler: nothing runs */
		}
		movable = hwloc_bitmap_intersects(set, cpus) &&
			  !hwloc_bitmap_isset(unmovable, (unsigned)irqs[k]) &&
			  rm_irq_managed(root, irqs[k]) != 1;
		movable_left |= movable;
		record(out, src, "irq", row ? row->actions : NULL, on, have_i ? (long long)cnt : -1,
		       a.window, movable);
	}
	free(irqs);
	/* the unbound workqueues' CPUs */
	{
		char *mask = rm_sysfs_read(root, "sys/devices/virtual/workqueue/cpumask");

		if (mask && rm_cpulist_parse_mask(mask, set, NULL) == 0 &&
		    hwloc_bitmap_intersects(set, cpus)) {
			hwloc_bitmap_and(on, set, cpus);
			record(out, "workqueue", "workqueue", "cpumask", on, -1, a.window, true);
			movable_left = true;
		}
		free(mask);
	}
	/* kernel threads */
	{
		char *dir = rm_sysfs_path(root, "proc");
		char **names = NULL;
		int nn = rm_kernfs_subdirs(dir, 0, NULL, &names);

		for (int k = 0; k < nn; k++) {
			char *end, rel[300], *comm, *status, *l, src[32];
			long pid = strtol(names[k], &end, 10);
			bool movable;

			if (*end || rm_quiet_kthread(root, (int)pid, &movable) != 1)
				continue;
			snprintf(rel, sizeof(rel), "proc/%ld/status", pid);
			if (!(status = rm_sysfs_read(root, rel)))
				continue;
			l = strstr(status, "\nCpus_allowed_list:");
			if (l && rm_cpulist_parse_list(strtok(l + 19, " \t\n"), set, NULL) == 0 &&
			    hwloc_bitmap_intersects(set, cpus)) {
				hwloc_bitmap_and(on, set, cpus);
				/* bound to the owner's CPUs alone: per-CPU, or put there on purpose */
				movable = movable && !hwloc_bitmap_isincluded(set, cpus);
				snprintf(rel, sizeof(rel), "proc/%ld/comm", pid);
				comm = rm_sysfs_read(root, rel);
				snprintf(src, sizeof(src), "kthread/%ld", pid);
				record(out, src, "kthread", comm, on, -1, a.window, movable);
				movable_left |= movable;
				free(comm);
			}
			free(status);
		}
		if (nn > 0)
			rm_kernfs_names_free(names, nn);
		free(dir);
	}
	/* per-CPU interrupts (the local timer among them) and softirqs: they stay */
	for (size_t k = 0; have_i && k < ia.nrows; k++) {
		const struct rm_irq_row *row = &ia.row[k];
		unsigned long long cnt;
		char src[64];

		if (row->irq >= 0 || !(cnt = delta(&ib, &ia, row, cpus)))
			continue;
		hwloc_bitmap_zero(on);
		for (int col = 0; col < ia.ncols; col++)
			if (row->count[col] && hwloc_bitmap_isset(cpus, (unsigned)ia.cpu[col]))
				hwloc_bitmap_set(on, (unsigned)ia.cpu[col]);
		snprintf(src, sizeof(src), "%s/%s", strcmp(row->name, "LOC") ? "cpu" : "timer",
			 row->name);
		record(out, strcmp(row->name, "LOC") ? src : "timer",
		       strcmp(row->name, "LOC") ? "cpu" : "timer", row->actions, on,
		       (long long)cnt, a.window, false);
	}
	for (size_t k = 0; have_s && k < sa.nrows; k++) {
		const struct rm_irq_row *row = &sa.row[k];
		unsigned long long cnt;
		char src[64];

		if (!(cnt = delta(&sb, &sa, row, cpus)))
			continue;
		hwloc_bitmap_zero(on);
		for (int col = 0; col < sa.ncols; col++)
			if (row->count[col] && hwloc_bitmap_isset(cpus, (unsigned)sa.cpu[col]))
				hwloc_bitmap_set(on, (unsigned)sa.cpu[col]);
		snprintf(src, sizeof(src), "softirq/%s", row->name);
		record(out, src, "softirq", row->name, on, (long long)cnt, a.window, false);
	}
	/* the tick */
	if (p.t->nohz_full) {
		hwloc_bitmap_and(on, p.t->nohz_full, cpus);
		record(out, "nohz_full", "tick", hwloc_bitmap_iszero(on) ? "off" : "active", on, -1,
		       a.window, false);
	}
	rm_out_close(out);
	rm_out_flush();
	rm_irq_counts_free(&ib);
	rm_irq_counts_free(&ia);
	rm_irq_counts_free(&sb);
	rm_irq_counts_free(&sa);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(eff);
	hwloc_bitmap_free(unmovable);
	hwloc_bitmap_free(on);
	pool_close(&p);
	return movable_left ? RM_EXIT_FAILURE : RM_EXIT_SUCCESS;
}
