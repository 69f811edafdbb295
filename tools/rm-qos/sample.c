/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos's targets and samples: the owners' cgroup files (cpu.stat, *.pressure, memory.*,
 * hugetlb.*, io.stat), /proc/pressure, /proc/interrupts and resctrl monitoring, read once a round. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup.h"
#include "cgroup-cpuset.h"
#include "exitcodes.h"
#include "input.h"
#include "irq.h"
#include "kernfs.h"
#include "owner.h"
#include "resctrl.h"
#include "rm-qos.h"
#include "size.h"
#include "state.h"
#include "xalloc.h"

static const char *const psi_files[PSI_N] = { "cpu.pressure", "memory.pressure", "io.pressure" };

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- finding the targets ---- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_name(char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[(*n)++] = xstrdup(name);
}

/* The owners rm-cpuset's and rm-devices' states name, as the owner layer typed them. */
static void state_owners(char ***names, size_t *n)
{
	struct rm_state st;

	rm_state_open_or_exit(&st, RM_OWNER_STATE_CPUSET, RM_STATE_READ, "rm-cpuset(1)", NULL);
	for (size_t i = 0; i < st.owners.nowners; i++)
		add_name(names, n, st.owners.owners[i].name);
	rm_state_close(&st);
	rm_state_open_or_exit(&st, RM_OWNER_STATE_DEVICES, RM_STATE_READ, "rm-devices(1)", NULL);
	for (size_t i = 0; i < st.owners.ndevices; i++)
		add_name(names, n, st.owners.devices[i].owner);
	rm_state_close(&st);
}

static void add_target(struct targets *ts, const char *name, enum target_kind kind, char *path)
{
	struct target *t;

	ts->v = xrealloc(ts->v, (ts->n + 1) * sizeof(*ts->v));
	t = &ts->v[ts->n++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->kind = kind;
	t->path = path;
	t->prev.cpus = hwloc_bitmap_alloc();
	t->cur.cpus = hwloc_bitmap_alloc();
}

void targets_find(struct targets *ts, char **owners, int nowners)
{
	const struct rm_input *in = rm_input();
	char **names = NULL, **kids = NULL, *parent = NULL, *msg = NULL;
	size_t n = 0;
	int nkids = 0;
	bool pool = false;

	memset(ts, 0, sizeof(*ts));
	if (rm_input_described(in))
		rm_usage_errx("a described topology has no cgroup or /proc files to measure: '%s' "
			      "(use --sysroot)", rm_input_name(in));
	for (int i = 0; i < nowners; i++)
		if (!rm_name_valid(owners[i])) {
			char *s = rm_record_show(owners[i], strlen(owners[i]));

			rm_usage_errx("invalid owner name: '%s'", s);
		}
	ts->hugetlb_sizes = ~0u;
	ts->unified = rm_cgroup_unified(in->cgroup_root);
	ts->proc = rm_input_root(in) ? xasprintf("%s/proc", rm_input_root(in)) : xstrdup("/proc");
	if (ts->unified) {
		parent = rm_cgroup_owner_path(RM_CGROUP_V2, ts->unified, "");
		parent[strlen(parent) - 1] = '\0'; /* MOUNT/rmtools.slice */
		if ((nkids = rm_cgroup_children(parent, &kids, &msg)) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
	}
	if (nowners) {
		for (int i = 0; i < nowners; i++)
			add_name(&names, &n, owners[i]);
		for (size_t i = 0; i < n; i++)
			pool |= !strcmp(names[i], RM_CGROUP_SHARED);
	} else {
		for (int i = 0; i < nkids; i++) {
			if (!strcmp(kids[i], RM_CGROUP_SHARED))
				pool = true;
			else if (rm_name_valid(kids[i]))
				add_name(&names, &n, kids[i]);
		}
		state_owners(&names, &n);
		if (n)
			qsort(names, n, sizeof(*names), name_cmp);
	}
	for (size_t i = 0; i < n; i++) {
		/* named: "shared" is the pool, "system" the rest of the machine */
		enum target_kind kind = !strcmp(names[i], RM_CGROUP_SHARED) ? TARGET_POOL
					: !strcmp(names[i], "system") && nowners ? TARGET_SYSTEM
										 : TARGET_OWNER;

		add_target(ts, names[i], kind, parent && kind != TARGET_SYSTEM
					       ? xasprintf("%s/%s", parent, names[i]) : NULL);
		free(names[i]);
	}
	if (!nowners) {
		add_target(ts, RM_CGROUP_SHARED, TARGET_POOL,
			   pool ? xasprintf("%s/%s", parent, RM_CGROUP_SHARED) : NULL);
		add_target(ts, "system", TARGET_SYSTEM, NULL);
	}
	free(names);
	rm_kernfs_names_free(kids, nkids > 0 ? nkids : 0);
	free(parent);

	/* resctrl monitoring, when mounted with L3 monitoring: groups rmtools.OWNER */
	{
		struct rm_resctrl *rc = xcalloc(1, sizeof(*rc));

		if (rm_resctrl_open(rc, in->resctrl_root, &msg) == 0 && rc->mounted && rc->mon) {
			ts->rc = rc;
			ts->resctrl = true;
		} else {
			free(msg);
			msg = NULL;
			rm_resctrl_close(rc);
			free(rc);
		}
	}
}

static void sample_clear(struct sample *s)
{
	hwloc_bitmap_t cpus = s->cpus;

	free(s->mem_high);
	free(s->mem_max);
	free(s->hugetlb);
	free(s->io);
	memset(s, 0, sizeof(*s));
	s->cpus = cpus;
	s->ev_high = s->ev_max = s->ev_oom_kill = -1;
	hwloc_bitmap_zero(cpus);
}

void targets_free(struct targets *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		struct target *t = &ts->v[i];

		sample_clear(&t->prev);
		sample_clear(&t->cur);
		hwloc_bitmap_free(t->prev.cpus);
		hwloc_bitmap_free(t->cur.cpus);
		free(t->name);
		free(t->path);
	}
	free(ts->v);
	free(ts->unified);
	free(ts->proc);
	if (ts->rc) {
		rm_resctrl_close(ts->rc);
		free(ts->rc);
	}
	memset(ts, 0, sizeof(*ts));
}

/* ---- reading ---- */

static char *read_file(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file), *s;

	s = rm_kernfs_read(path, RM_KERNFS_NOFOLLOW);
	free(path);
	return s;
}

/* The value of KEY in a flat keyed file ("usage_usec 123\n..."). */
static bool keyed(const char *text, const char *key, unsigned long long *v)
{
	size_t len = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ' ') {
			*v = strtoull(p + len + 1, NULL, 10);
			return true;
		}
	return false;
}

/* A pressure file: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" and a "full" line. */
static void read_psi(const char *text, struct psi *p)
{
	memset(p, 0, sizeof(*p));
	if (!text)
		return;
	for (int k = 0; k < 2; k++) {
		const char *line = strstr(text, k ? "full " : "some "), *a, *t;

		if (!line || !(a = strstr(line, "avg10=")) || !(t = strstr(line, "total=")))
			continue;
		p->avg10[k] = strtod(a + 6, NULL);
		p->total[k] = strtoull(t + 6, NULL, 10);
		p->ok = true;
	}
}

/* io.stat: "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0", a line per device. */
static void read_io(const char *text, struct sample *s)
{
	const char *line = text;

	s->have_io = true;
	while (line && *line) {
		const char *end = strchr(line, '\n'), *sp = strchr(line, ' ');
		struct iodev d = { 0 };
		const char *f;

		if (!end)
			end = line + strlen(line);
		if (sp && sp < end && (size_t)(sp - line) < sizeof(d.dev)) {
			memcpy(d.dev, line, sp - line);
			for (f = sp; f && f < end; f = strchr(f + 1, ' ')) {
				const char *eq = strchr(f, '=');
				unsigned long long v;

				if (!eq || eq > end)
					break;
				v = strtoull(eq + 1, NULL, 10);
				if (!strncmp(f + 1, "rbytes=", 7))
					d.rbytes = v;
				else if (!strncmp(f + 1, "wbytes=", 7))
					d.wbytes = v;
				else if (!strncmp(f + 1, "rios=", 5))
					d.rios = v;
				else if (!strncmp(f + 1, "wios=", 5))
					d.wios = v;
			}
			s->io = xrealloc(s->io, (s->nio + 1) * sizeof(*s->io));
			s->io[s->nio++] = d;
		}
		line = *end ? end + 1 : end;
	}
}

/* hugetlb.SIZE.current of each size the directory has, as "2MiB:N,1GiB:M" pages. *SIZES: the
 * sizes to read (bits of the table), found in the first directory read and kept for the rest. */
static char *read_hugetlb(const char *dir, unsigned *sizes_found)
{
	static const struct { const char *file; uint64_t size; } sizes[] = {
		{ "hugetlb.64KB.current", 64ull << 10 }, { "hugetlb.2MB.current", 2ull << 20 },
		{ "hugetlb.32MB.current", 32ull << 20 }, { "hugetlb.1GB.current", 1ull << 30 },
	};
	char *out = NULL;
	bool probe = *sizes_found == ~0u;

	if (probe)
		*sizes_found = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		char *v, *sz, *next;

		if (!probe && !(*sizes_found & 1u << i))
			continue;
		if (!(v = read_file(dir, sizes[i].file)))
			continue;
		*sizes_found |= 1u << i;
		sz = rm_size_format(sizes[i].size);
		next = xasprintf("%s%s%s:%llu", out ? out : "", out ? "," : "", sz,
				 strtoull(v, NULL, 10) / sizes[i].size);
		free(out);
		free(sz);
		free(v);
		out = next;
	}
	return out;
}

static void sample_cgroup(struct targets *ts, struct target *t, struct sample *s,
			  const struct rm_irq_counts *irqs, bool full)
{
	char *v;
	unsigned long long x;

	if (!t->path || !rm_kernfs_is_dir(t->path, RM_KERNFS_NOFOLLOW))
		return;
	s->exists = true;
	if ((v = read_file(t->path, "cpu.stat"))) {
		s->have_usage = keyed(v, "usage_usec", &s->usage_usec);
		s->have_throttle = keyed(v, "nr_periods", &s->nr_periods) &&
				   keyed(v, "nr_throttled", &s->nr_throttled);
		free(v);
	}
	for (int k = 0; k < PSI_N; k++) {
		v = read_file(t->path, psi_files[k]);
		read_psi(v, &s->psi[k]);
		free(v);
	}
	/* values, not counters: only the sample shown needs them */
	if (full && (v = read_file(t->path, "memory.current"))) {
		s->have_current = true;
		s->mem_current = strtoull(v, NULL, 10);
		free(v);
	}
	if (full) {
		s->mem_high = read_file(t->path, "memory.high");
		s->mem_max = read_file(t->path, "memory.max");
		s->hugetlb = read_hugetlb(t->path, &ts->hugetlb_sizes);
	}
	if (full && (v = read_file(t->path, "memory.events"))) {
		if (keyed(v, "high", &x))
			s->ev_high = (long long)x;
		if (keyed(v, "max", &x))
			s->ev_max = (long long)x;
		if (keyed(v, "oom_kill", &x))
			s->ev_oom_kill = (long long)x;
		free(v);
	}
	if ((v = read_file(t->path, "io.stat"))) {
		read_io(v, s);
		free(v);
	}
	if ((v = read_file(t->path, "cpuset.cpus.effective"))) {
		if (hwloc_bitmap_list_sscanf(s->cpus, v) < 0)
			hwloc_bitmap_zero(s->cpus);
		free(v);
	}
	/* an owner's CPUs are its own (rm-cpuset gives each owner CPUs no other holds) */
	if (irqs && t->kind == TARGET_OWNER && !hwloc_bitmap_iszero(s->cpus)) {
		s->have_irqs = true;
		for (size_t r = 0; r < irqs->nrows; r++)
			s->irqs += rm_irq_row_sum(irqs, &irqs->row[r], s->cpus);
	}
	if (ts->resctrl && t->kind == TARGET_OWNER) {
		char *group = xasprintf("%s%s", RM_RESCTRL_PREFIX, t->name), *msg = NULL;

		if (rm_resctrl_has_event(ts->rc, "llc_occupancy"))
			s->have_llc = !rm_resctrl_mon_read(ts->rc, group, "llc_occupancy", -1,
							   &s->llc, &msg);
		free(msg);
		msg = NULL;
		if (rm_resctrl_has_event(ts->rc, "mbm_total_bytes"))
			s->have_mbm = !rm_resctrl_mon_read(ts->rc, group, "mbm_total_bytes", -1,
							   &s->mbm, &msg);
		free(msg);
		free(group);
	}
}

/* The machine outside rmtools.slice: the root's CPU use less the slice's, the machine's
 * pressure. */
static void sample_system(struct targets *ts, struct sample *s)
{
	char *v, *p;
	unsigned long long all, ours = 0;

	s->exists = true;
	for (int k = 0; k < PSI_N; k++) {
		static const char *const files[PSI_N] = { "pressure/cpu", "pressure/memory",
							  "pressure/io" };

		p = xasprintf("%s/%s", ts->proc, files[k]);
		v = rm_kernfs_read(p, 0);
		read_psi(v, &s->psi[k]);
		free(v);
		free(p);
	}
	if (!ts->unified || !(v = read_file(ts->unified, "cpu.stat")))
		return;
	s->have_usage = keyed(v, "usage_usec", &all);
	free(v);
	p = xasprintf("%s/%s", ts->unified, RM_CGROUP_PARENT_V2);
	if ((v = read_file(p, "cpu.stat"))) {
		keyed(v, "usage_usec", &ours);
		free(v);
	}
	free(p);
	s->usage_usec = all > ours ? all - ours : 0;
}

void targets_sample(struct targets *ts, bool full)
{
	struct rm_irq_counts irqs;
	char *msg = NULL;
	bool have_irqs;
	const char *root = rm_input_root(rm_input());

	have_irqs = rm_irq_counts_read(root, "proc/interrupts", &irqs, &msg) == 0;
	free(msg);
	for (size_t i = 0; i < ts->n; i++) {
		struct target *t = &ts->v[i];
		struct sample tmp = t->prev;

		t->prev = t->cur;
		t->cur = tmp;
		sample_clear(&t->cur);
		t->cur.t = now();
		if (t->kind == TARGET_SYSTEM)
			sample_system(ts, &t->cur);
		else
			sample_cgroup(ts, t, &t->cur, have_irqs ? &irqs : NULL, full);
	}
	if (have_irqs)
		rm_irq_counts_free(&irqs);
	if (!ts->psi_off_said) {
		/* the kernel refuses to read pressure files while PSI is off (psi=0, or Debian's
		 * kernels booted without psi=1) */
		char *p = xasprintf("%s/pressure/cpu", ts->proc), *v = rm_kernfs_read(p, 0);

		ts->psi_off_said = true;
		if (!v)
			rm_warnx("pressure stall information is off (boot with psi=1): showing the "
				 "rest");
		free(v);
		free(p);
	}
}
