/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset noise --measure: the time taken from an owner's CPUs, per CPU, cause and source. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "irq.h"
#include "kernfs.h"
#include "noise.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

/*
 * Two methods, the same records:
 *  osnoise  the kernel's osnoise tracer (CONFIG_OSNOISE_TRACER: Debian's -rt kernels) in a
 *           tracefs instance of its own: one kernel thread per CPU reads the time in a loop and
 *           the tracer names each interruption (irq_noise, softirq_noise, thread_noise,
 *           nmi_noise events) and counts per cause in its samples (hardware noise is what no
 *           interrupt or thread explains).
 *  loop     where the tracer is missing (Debian's generic kernels), as sysjitter and hiccups
 *           do: one thread pinned on each CPU reads the time in a loop and adds up every gap
 *           above the threshold; the causes are the /proc/interrupts and /proc/softirqs counts
 *           that grew on the CPU meanwhile and the thread's involuntary context switches, so
 *           their share of the time is not known ("-").
 */

enum { M_CPU, M_CAUSE, M_SOURCE, M_COUNT, M_NOISE, M_SHARE, M_MAX, M_METHOD };
static const struct rm_column measure_cols[] = {
	[M_CPU] = { "cpu", RM_COL_INT, "the owner's CPU" },
	[M_CAUSE] = { "cause", RM_COL_STRING, "all, hw, nmi, irq, softirq or thread" },
	[M_SOURCE] = { "source", RM_COL_STRING,
		       "the interrupt, softirq or thread the kernel names; - for a cause's total" },
	[M_COUNT] = { "count", RM_COL_INT, "interruptions over the window" },
	[M_NOISE] = { "noise", RM_COL_INT, "time taken, in ns per second" },
	[M_SHARE] = { "share", RM_COL_FLOAT, "time taken, in percent of the CPU's time" },
	[M_MAX] = { "max", RM_COL_INT, "the longest single interruption, in ns" },
	[M_METHOD] = { "method", RM_COL_STRING, "osnoise (the kernel's tracer) or loop" },
};

enum cause { C_ALL, C_HW, C_NMI, C_IRQ, C_SOFTIRQ, C_THREAD, C_N };
static const char *const cause_names[C_N] = { "all", "hw", "nmi", "irq", "softirq", "thread" };

/* What one CPU, one cause or one source took; -1 where the method does not say. */
struct tally {
	long long count, ns, max;
};

struct source {
	int cpu;
	enum cause cause;
	char *name;
	struct tally t;
};

/* Per CPU: the tallies per cause, the time measured, and (loop) the gaps. */
struct cpu_noise {
	int cpu;
	struct tally cause[C_N];
	double seconds;            /* measured time */
	/* loop */
	long long gaps, gap_ns, gap_max, nivcsw;
	int err;                   /* the pinning's errno */
	uint64_t threshold, end;   /* ns */
};

struct measure {
	struct cpu_noise *cpu;
	int ncpu;
	struct source *src;
	size_t nsrc;
	const char *method;
};

/* The sources are at most one per interrupt, softirq and thread name per CPU: bounded by what
 * the kernel has, and cut at this many in all. */
#define MAX_SOURCES 4096

static struct cpu_noise *cpu_of(struct measure *m, int cpu)
{
	for (int i = 0; i < m->ncpu; i++)
		if (m->cpu[i].cpu == cpu)
			return &m->cpu[i];
	return NULL;
}

static void add_source(struct measure *m, int cpu, enum cause cause, const char *name,
		       long long count, long long ns)
{
	struct source *s = NULL;

	for (size_t i = 0; i < m->nsrc && !s; i++)
		if (m->src[i].cpu == cpu && m->src[i].cause == cause && !strcmp(m->src[i].name, name))
			s = &m->src[i];
	if (!s) {
		if (m->nsrc >= MAX_SOURCES)
			return;
		m->src = xrealloc(m->src, (m->nsrc + 1) * sizeof(*m->src));
		s = &m->src[m->nsrc++];
		*s = (struct source){ cpu, cause, xstrdup(name), { 0, ns < 0 ? -1 : 0, ns < 0 ? -1 : 0 } };
	}
	s->t.count += count;
	if (ns >= 0) {
		s->t.ns += ns;
		if (ns > s->t.max)
			s->t.max = ns;
	}
}

/* ---- waiting: the window, cut short by a signal, which is then raised again ---- */

static int wait_window(uint64_t ns, const sigset_t *set)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	int sig;

	while ((sig = sigtimedwait(set, NULL, &ts)) < 0 && errno == EINTR)
		;
	return sig > 0 ? sig : 0;
}

static void block_signals(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	for (int s = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT }; s < 4; s++)
		sigaddset(set, sigs[s]);
	pthread_sigmask(SIG_BLOCK, set, old);
}

/* ---- osnoise ---- */

/* The top instance's settings the tracer is given, saved and put back. */
enum { S_CPUS, S_RUNTIME, S_PERIOD, S_THRESH, S_N };

struct tracefs {
	char *dir;       /* the tracefs mount */
	char *inst;      /* our instance */
	struct saved { const char *file; char *was; } saved[S_N];
};

static char *tracefs_dir(const char *root)
{
	static const char *const where[] = { "sys/kernel/tracing", "sys/kernel/debug/tracing" };

	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		char rel[64], *tracers;
		bool yes;

		snprintf(rel, sizeof(rel), "%s/available_tracers", where[i]);
		if (!(tracers = rm_sysfs_read(root, rel)))
			continue;
		yes = strstr(tracers, "osnoise") != NULL;
		free(tracers);
		if (yes)
			return rm_sysfs_path(root, where[i]);
	}
	return NULL;
}

static int tf_write(const char *dir, const char *file, const char *value)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = rm_kernfs_write(path, value, RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC);

	free(path);
	return rc;
}

static char *tf_read(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file), *s;
	size_t len;

	s = rm_kernfs_read_raw(path, RM_KERNFS_NOFOLLOW, &len);
	free(path);
	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/* The osnoise runtime and period (us): the kernel keeps runtime <= period at every write, so
 * the one that shrinks goes first. 0 or an errno. */
static int set_window(const char *dir, const char *runtime, const char *period)
{
	int rc;

	if (!(rc = tf_write(dir, "osnoise/runtime_us", runtime)))
		return tf_write(dir, "osnoise/period_us", period);
	if (rc == EINVAL && !(rc = tf_write(dir, "osnoise/period_us", period)))
		rc = tf_write(dir, "osnoise/runtime_us", runtime);
	return rc;
}

static void tracefs_close(struct tracefs *tf)
{
	if (tf->inst) {
		tf_write(tf->inst, "tracing_on", "0");
		tf_write(tf->inst, "current_tracer", "nop");
		tf_write(tf->inst, "events/osnoise/enable", "0");
		rm_kernfs_rmdir(tf->inst);
		free(tf->inst);
	}
	if (tf->saved[S_RUNTIME].was && tf->saved[S_PERIOD].was)
		set_window(tf->dir, tf->saved[S_RUNTIME].was, tf->saved[S_PERIOD].was);
	for (size_t i = 0; i < ARRAY_SIZE(tf->saved); i++)
		if (tf->saved[i].was) {
			if (i != S_RUNTIME && i != S_PERIOD)
				tf_write(tf->dir, tf->saved[i].file, tf->saved[i].was);
			free(tf->saved[i].was);
		}
	free(tf->dir);
}

/* One line of the instance's trace: a sample ("... [006] ....  81.6: RUNTIME NOISE PCT MAX HW
 * NMI IRQ SIRQ THREAD", in us) or an event ("... [006] d.h. 81.6: irq_noise: local_timer:236
 * start 81.6 duration 1845 ns"). */
static void parse_trace_line(struct measure *m, char *line)
{
	static const struct { const char *event; enum cause cause; } events[] = {
		{ "irq_noise: ", C_IRQ }, { "softirq_noise: ", C_SOFTIRQ },
		{ "thread_noise: ", C_THREAD }, { "nmi_noise: ", C_NMI },
	};
	struct cpu_noise *c;
	char *b = strchr(line, '['), *p;
	int cpu;

	if (line[0] == '#' || !b || sscanf(b, "[%d]", &cpu) != 1 || !(c = cpu_of(m, cpu)) ||
	    !(p = strstr(b, ": ")))
		return;
	p += 2;
	for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
		char name[128];
		long long ns;
		char *d;

		if (strncmp(p, events[i].event, strlen(events[i].event)))
			continue;
		d = strstr(p, " duration ");
		if (sscanf(p + strlen(events[i].event), " %127s", name) == 1 && d &&
		    sscanf(d, " duration %lld", &ns) == 1) {
			/* the cause's time is its events' (the samples count them only) */
			struct tally *t = &c->cause[events[i].cause];

			add_source(m, cpu, events[i].cause, name, 1, ns);
			t->ns += ns;
			if (ns > t->max)
				t->max = ns;
		}
		return;
	}
	{
		unsigned long long runtime, noise, max, n[5];
		double pct;

		if (sscanf(p, "%llu %llu %lf %llu %llu %llu %llu %llu %llu", &runtime, &noise, &pct,
			   &max, &n[0], &n[1], &n[2], &n[3], &n[4]) != 9)
			return;
		c->seconds += (double)runtime / 1e6;
		c->cause[C_ALL].ns += (long long)noise * 1000;
		if ((long long)max * 1000 > c->cause[C_ALL].max)
			c->cause[C_ALL].max = (long long)max * 1000;
		for (int k = 0; k < 5; k++) {
			c->cause[C_HW + k].count += (long long)n[k];
			c->cause[C_ALL].count += (long long)n[k];
		}
	}
}

/* The osnoise tracer over CPUS for NS: 0, 1 (no tracer here: use the loop) or -1 with *MSG. */
static int measure_osnoise(struct measure *m, const char *root, hwloc_const_bitmap_t cpus,
			   uint64_t ns, uint64_t threshold, const sigset_t *sigs, int *sig, char **msg)
{
	static const char *const saved[S_N] = { [S_CPUS] = "osnoise/cpus",
						[S_RUNTIME] = "osnoise/runtime_us",
						[S_PERIOD] = "osnoise/period_us",
						[S_THRESH] = "tracing_thresh" };
	struct tracefs tf = { .dir = tracefs_dir(root) };
	char *list = rm_cpulist_format(cpus), thresh[32], *path, *line = NULL;
	size_t cap = 0;
	FILE *f = NULL;
	int fd, rc = -1;

	if (!tf.dir) {
		free(list);
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(saved); i++) {
		tf.saved[i].file = saved[i];
		if (!(tf.saved[i].was = tf_read(tf.dir, saved[i]))) {
			*msg = xasprintf("cannot read %s/%s: %s", tf.dir, saved[i], strerror(errno));
			goto out;
		}
	}
	/* a sample every 100 ms, the whole period spent reading the time */
	snprintf(thresh, sizeof(thresh), "%llu",
		 (unsigned long long)(threshold < 1000 ? 1 : threshold / 1000));
	if ((errno = tf_write(tf.dir, "osnoise/cpus", list)) ||
	    (errno = set_window(tf.dir, "100000", "100000")) ||
	    (errno = tf_write(tf.dir, "tracing_thresh", thresh))) {
		*msg = xasprintf("cannot set the osnoise tracer under %s: %s", tf.dir, strerror(errno));
		goto out;
	}
	path = xasprintf("%s/instances/rmtools-noise-%d", tf.dir, (int)getpid());
	if (rm_kernfs_mkdir_path(path, 0700)) {
		*msg = xasprintf("cannot make the tracing instance %s: %s", path, strerror(errno));
		free(path);
		goto out;
	}
	tf.inst = path;
	/* bounded: 4 MiB of events per CPU, the oldest overwritten */
	tf_write(tf.inst, "buffer_size_kb", "4096");
	if ((errno = tf_write(tf.inst, "events/osnoise/irq_noise/enable", "1")) ||
	    (errno = tf_write(tf.inst, "events/osnoise/softirq_noise/enable", "1")) ||
	    (errno = tf_write(tf.inst, "events/osnoise/thread_noise/enable", "1")) ||
	    (errno = tf_write(tf.inst, "events/osnoise/nmi_noise/enable", "1")) ||
	    (errno = tf_write(tf.inst, "current_tracer", "osnoise")) ||
	    (errno = tf_write(tf.inst, "tracing_on", "1"))) {
		*msg = xasprintf("cannot start the osnoise tracer in %s: %s", tf.inst, strerror(errno));
		goto out;
	}
	*sig = wait_window(ns, sigs);
	tf_write(tf.inst, "tracing_on", "0");
	path = xasprintf("%s/trace", tf.inst);
	fd = rm_kernfs_open(path, O_RDONLY | O_CLOEXEC, RM_KERNFS_NOFOLLOW);
	free(path);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		*msg = xasprintf("cannot read the trace of %s: %s", tf.inst, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	while (getline(&line, &cap, f) > 0)
		parse_trace_line(m, line);
	free(line);
	fclose(f);
	m->method = "osnoise";
	rc = 0;
out:
	tracefs_close(&tf);
	free(list);
	return rc;
}

/* ---- loop ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *loop_thread(void *arg)
{
	struct cpu_noise *c = arg;
	cpu_set_t set;
	struct rusage ru;
	uint64_t start, prev, t;

	CPU_ZERO(&set);
	CPU_SET((size_t)c->cpu, &set);
	if ((c->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)))
		return NULL;
	start = prev = now_ns();
	while ((t = now_ns()) < c->end) {
		if (t - prev > c->threshold) {
			c->gaps++;
			c->gap_ns += (long long)(t - prev);
			if ((long long)(t - prev) > c->gap_max)
				c->gap_max = (long long)(t - prev);
		}
		prev = t;
	}
	c->seconds = (double)(t - start) / 1e9;
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		c->nivcsw = ru.ru_nivcsw;
	return NULL;
}

/* What the rows of BEFORE and AFTER grew by on each CPU, as causes and sources. */
static void add_counts(struct measure *m, const struct rm_irq_counts *before,
		       const struct rm_irq_counts *after, bool softirqs)
{
	for (size_t k = 0; k < after->nrows; k++) {
		const struct rm_irq_row *row = &after->row[k], *b = rm_irq_counts_find(before, row->name);

		for (int col = 0; col < after->ncols; col++) {
			struct cpu_noise *c = cpu_of(m, after->cpu[col]);
			unsigned long long was = 0;
			enum cause cause;
			char name[160];

			if (!c)
				continue;
			for (int bc = 0; b && bc < before->ncols; bc++)
				if (before->cpu[bc] == after->cpu[col])
					was = b->count[bc];
			if (row->count[col] <= was)
				continue;
			cause = softirqs ? C_SOFTIRQ : !strcmp(row->name, "NMI") ? C_NMI : C_IRQ;
			if (softirqs || !row->actions || row->irq < 0)
				snprintf(name, sizeof(name), "%s", row->name);
			else
				snprintf(name, sizeof(name), "%s:%s", row->actions, row->name);
			for (char *s = name; *s; s++)
				if (*s == ' ')
					*s = '_';
			c->cause[cause].count += (long long)(row->count[col] - was);
			add_source(m, c->cpu, cause, name, (long long)(row->count[col] - was), -1);
		}
	}
}

static int measure_loop(struct measure *m, const char *root, uint64_t ns, uint64_t threshold,
			const sigset_t *sigs, int *sig, char **msg)
{
	struct rm_irq_counts ib = { 0 }, ia = { 0 }, sb = { 0 }, sa = { 0 };
	pthread_t *th = xcalloc((size_t)m->ncpu, sizeof(*th));
	char *e = NULL;
	bool have_i = rm_irq_counts_read(root, "proc/interrupts", &ib, &e) == 0, have_s;
	uint64_t end;
	int rc = 0, started = 0;

	free(e), e = NULL;
	have_s = rm_irq_counts_read(root, "proc/softirqs", &sb, &e) == 0;
	free(e), e = NULL;
	end = now_ns() + ns;
	for (int i = 0; i < m->ncpu; i++) {
		m->cpu[i].threshold = threshold;
		m->cpu[i].end = end;
		if ((errno = pthread_create(&th[i], NULL, loop_thread, &m->cpu[i]))) {
			*msg = xasprintf("cannot start a thread: %s", strerror(errno));
			/* the started ones stop at END */
			rc = -1;
			break;
		}
		started++;
	}
	*sig = wait_window(ns, sigs);
	if (*sig)
		for (int i = 0; i < started; i++)
			m->cpu[i].end = 0;
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	have_i = have_i && rm_irq_counts_read(root, "proc/interrupts", &ia, &e) == 0;
	free(e), e = NULL;
	have_s = have_s && rm_irq_counts_read(root, "proc/softirqs", &sa, &e) == 0;
	free(e);
	for (int i = 0; i < m->ncpu && !rc; i++) {
		struct cpu_noise *c = &m->cpu[i];

		if (c->err) {
			*msg = xasprintf("cannot run on CPU %d: %s", c->cpu, strerror(c->err));
			rc = -1;
			break;
		}
		c->cause[C_ALL] = (struct tally){ c->gaps, c->gap_ns, c->gap_max };
		c->cause[C_HW] = (struct tally){ -1, -1, -1 };
		c->cause[C_THREAD] = (struct tally){ c->nivcsw, -1, -1 };
		for (int k = C_NMI; k <= C_SOFTIRQ; k++)
			c->cause[k] = (struct tally){ 0, -1, -1 };
		if (!have_i)
			c->cause[C_NMI].count = c->cause[C_IRQ].count = -1;
		if (!have_s)
			c->cause[C_SOFTIRQ].count = -1;
	}
	if (!rc && have_i)
		add_counts(m, &ib, &ia, false);
	if (!rc && have_s)
		add_counts(m, &sb, &sa, true);
	m->method = "loop";
	rm_irq_counts_free(&ib);
	rm_irq_counts_free(&ia);
	rm_irq_counts_free(&sb);
	rm_irq_counts_free(&sa);
	return rc;
}

/* ---- the command's part ---- */

void noise_measure_check(const struct rm_common *c)
{
	rm_out_check(&c->out, measure_cols, ARRAY_SIZE(measure_cols), NULL);
}

void noise_measure_list_columns(const struct rm_common *c)
{
	rm_out_list_columns(&c->out, measure_cols, ARRAY_SIZE(measure_cols), NULL);
}

static void print_row(struct rm_out *out, const struct measure *m, const struct cpu_noise *c,
		      const char *cause, const char *source, const struct tally *t)
{
	rm_out_begin(out);
	rm_out_int(out, M_CPU, c->cpu);
	rm_out_str(out, M_CAUSE, cause);
	rm_out_str(out, M_SOURCE, source);
	if (t->count >= 0)
		rm_out_int(out, M_COUNT, t->count);
	if (t->ns >= 0 && c->seconds > 0) {
		rm_out_int(out, M_NOISE, (long long)((double)t->ns / c->seconds + 0.5));
		rm_out_float(out, M_SHARE, (double)t->ns / c->seconds / 1e7, 4);
	}
	if (t->max >= 0)
		rm_out_int(out, M_MAX, t->max);
	rm_out_str(out, M_METHOD, m->method);
	rm_out_end(out);
}

int noise_measure(struct pool *p, struct rm_common *c, const char *owner,
		  hwloc_const_bitmap_t cpus, const struct noise_limits *lim)
{
	struct measure m = { 0 };
	const char *root = rm_input_root(p->t->in);
	sigset_t sigs, old;
	char *msg = NULL;
	struct rm_out *out;
	bool over = false;
	int cpu, rc, sig = 0;
	long i = pool_find(p, owner);

	hwloc_bitmap_foreach_begin(cpu, cpus) {
		m.cpu = xrealloc(m.cpu, (size_t)(m.ncpu + 1) * sizeof(*m.cpu));
		m.cpu[m.ncpu++] = (struct cpu_noise){ .cpu = cpu };
	} hwloc_bitmap_foreach_end();
	block_signals(&sigs, &old);
	rc = measure_osnoise(&m, root, cpus, lim->window, lim->threshold, &sigs, &sig, &msg);
	if (rc == 1) {
		/* the loop runs in the owner's cgroup: an isolated partition's CPUs are in no
		 * other */
		if (p->have_cgroups && i >= 0 &&
		    rm_cgroups_attach(&p->cg, rm_record_get(&p->st.records[i], "owner"), getpid(),
				      &msg))
			rc = -1;
		else
			rc = measure_loop(&m, root, lim->window, lim->threshold, &sigs, &sig, &msg);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sig)
		raise(sig);
	if (rc) {
		rm_warnx("%s", msg);
		free(msg);
		rc = RM_EXIT_FAILURE;
		goto out;
	}
	out = rm_out_new(&c->out, "noise", measure_cols, ARRAY_SIZE(measure_cols), NULL, true);
	for (int k = 0; k < m.ncpu; k++) {
		struct cpu_noise *cn = &m.cpu[k];

		for (int ca = 0; ca < C_N; ca++)
			print_row(out, &m, cn, cause_names[ca], NULL, &cn->cause[ca]);
		for (size_t s = 0; s < m.nsrc; s++)
			if (m.src[s].cpu == cn->cpu)
				print_row(out, &m, cn, cause_names[m.src[s].cause], m.src[s].name,
					  &m.src[s].t);
		if (cn->seconds > 0 && lim->max_noise >= 0 &&
		    (double)cn->cause[C_ALL].ns / cn->seconds > (double)lim->max_noise)
			over = true;
		if (lim->max_single >= 0 && cn->cause[C_ALL].max > lim->max_single)
			over = true;
	}
	rm_out_close(out);
	rm_out_flush();
	rc = over ? RM_EXIT_FAILURE : RM_EXIT_SUCCESS;
out:
	for (size_t s = 0; s < m.nsrc; s++)
		free(m.src[s].name);
	free(m.src);
	free(m.cpu);
	return rc;
}
