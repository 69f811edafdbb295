/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos's commands and what they share: the owners, their samples and the metrics between two. */
#ifndef RM_QOS_TOOL_H
#define RM_QOS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "options.h"
#include "output.h"
#include "record.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int cmd_show(int argc, char **argv, struct rm_common *c);
int cmd_watch(int argc, char **argv, struct rm_common *c);
int cmd_check(int argc, char **argv, struct rm_common *c);
int cmd_blame(int argc, char **argv, struct rm_common *c);
int cmd_export(int argc, char **argv, struct rm_common *c);

/* What a target is: an owner's cgroup, the shared pool, or the machine outside rmtools.slice. */
enum target_kind { TARGET_OWNER, TARGET_POOL, TARGET_SYSTEM };

enum { PSI_CPU, PSI_MEMORY, PSI_IO, PSI_N };

struct psi {
	bool ok;
	double avg10[2];               /* some, full */
	unsigned long long total[2];   /* microseconds stalled */
};

struct iodev {
	char dev[24];                  /* MAJ:MIN */
	unsigned long long rbytes, wbytes, rios, wios;
};

/* What one read of a target's files gave. Counters are cumulative; rates come from two. */
struct sample {
	double t;                      /* CLOCK_MONOTONIC seconds */
	bool exists;                   /* the cgroup is there */
	bool have_usage, have_throttle;
	unsigned long long usage_usec, nr_periods, nr_throttled;
	struct psi psi[PSI_N];
	bool have_current;
	uint64_t mem_current;
	char *mem_high, *mem_max;      /* as the files say: bytes or "max"; NULL when absent */
	long long ev_high, ev_max, ev_oom_kill; /* -1 when unknown */
	char *hugetlb;                 /* "2MiB:N,1GiB:M" pages in use, NULL when none */
	struct iodev *io;
	size_t nio;
	bool have_io;
	hwloc_bitmap_t cpus;           /* cpuset.cpus.effective, empty when unknown */
	bool have_irqs;
	unsigned long long irqs;       /* interrupts on CPUS, when they are exclusive */
	bool have_llc, have_mbm;
	uint64_t llc, mbm;
};

struct target {
	char *name;
	enum target_kind kind;
	char *path;                    /* the cgroup directory, NULL for the system */
	bool exclusive;                /* its CPUs are its own (an isolated partition or not shared) */
	struct sample prev, cur;
};

struct targets {
	struct target *v;
	size_t n;
	char *unified;                 /* the unified hierarchy, NULL when there is none */
	char *proc;                    /* SYSROOT/proc or /proc */
	bool psi_off_said;
	bool resctrl;                  /* resctrl monitoring is available */
	unsigned hugetlb_sizes;        /* the hugetlb.*.current files cgroups have, ~0u: unknown */
	void *rc;                      /* struct rm_resctrl when open */
};

/*
 * The targets: every owner of rmtools.slice's children and of the rm-cpuset and rm-devices
 * states (sorted), then the shared pool and the system; or the OWNERS named (valid names, else
 * exit 2). Exits 1 when the cgroup root or a state cannot be read.
 */
void targets_find(struct targets *ts, char **owners, int n);
void targets_free(struct targets *ts);
/* Read every target's files into its cur sample, after moving cur to prev: the counters rates
 * are made of, and with FULL the values shown (memory, limits, events, huge pages) too. */
void targets_sample(struct targets *ts, bool full);
/* Sleep NS nanoseconds. */
void sleep_ns(uint64_t ns);

/* ---- metrics: the columns of an owner record ---- */

enum {
	M_OWNER, M_KIND, M_CPUS, M_CPU_USED, M_CPU_THROTTLED,
	M_CPU_SOME, M_CPU_FULL, M_CPU_SOME_AVG10, M_CPU_FULL_AVG10,
	M_MEMORY_SOME, M_MEMORY_FULL, M_MEMORY_SOME_AVG10, M_MEMORY_FULL_AVG10,
	M_IO_SOME, M_IO_FULL, M_IO_SOME_AVG10, M_IO_FULL_AVG10,
	M_MEMORY_CURRENT, M_MEMORY_HIGH, M_MEMORY_MAX,
	M_MEMORY_HIGH_EVENTS, M_MEMORY_MAX_EVENTS, M_MEMORY_OOM_KILL,
	M_HUGEPAGES, M_IO_READ, M_IO_WRITE, M_IO_RIOS, M_IO_WIOS, M_IO_DEVICES,
	M_LLC_OCCUPANCY, M_MBM_BANDWIDTH, M_IRQS, M_UNHEALTHY_DEVICES,
	M_N
};
extern const struct rm_column metric_cols[M_N];
extern const char *const metric_slo_names[M_N]; /* cpu.pressure.some, ... */
extern const char metric_defaults[];

/* One value: unknown, a number (with its decimals), a size, or text. */
struct mval {
	enum { MV_NONE, MV_NUM, MV_SIZE, MV_STR, MV_SET } kind;
	double num;
	int decimals;
	uint64_t size;
	char *str;                     /* MV_STR: allocated */
	hwloc_const_bitmap_t set;      /* MV_SET */
};

/* The metrics of T between its prev and cur samples into V[M_N] (free with metrics_free). */
void metrics_get(const struct target *t, struct mval *v);
void metrics_free(struct mval *v);
/* Print V as one record of OUT. */
void metrics_out(struct rm_out *out, const struct mval *v);
/* V as a record whose fields have both names (cpu_some and cpu.pressure.some), for SLOs. */
void metrics_record(const struct mval *v, struct rm_record *rec);

/* --interval DURATION for show, watch and check, into nanoseconds; exits 2 when invalid. */
uint64_t interval_arg(struct argp_state *state, const char *arg);

#endif
