/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset's commands and the CPU pool they share: topology, state and cgroups. */
#ifndef RM_CPUSET_TOOL_H
#define RM_CPUSET_TOOL_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgroup-cpuset.h"
#include "cpualloc.h"
#include "kernfs.h"
#include "memmgr.h"
#include "options.h"
#include "ownlimit.h"
#include "output.h"
#include "process.h"
#include "resctrl.h"
#include "state.h"
#include "topology.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The state file: $RM_STATE_DIR/cpuset.state */
#define CPUSET_STATE "cpuset"

int cmd_show(int argc, char **argv, struct rm_common *c);
int cmd_list(int argc, char **argv, struct rm_common *c);
int cmd_alloc(int argc, char **argv, struct rm_common *c);
int cmd_release(int argc, char **argv, struct rm_common *c);
int cmd_reserve(int argc, char **argv, struct rm_common *c);
int cmd_run(int argc, char **argv, struct rm_common *c);
int cmd_attach(int argc, char **argv, struct rm_common *c);
int cmd_apply(int argc, char **argv, struct rm_common *c);
int cmd_gc(int argc, char **argv, struct rm_common *c);
int cmd_export(int argc, char **argv, struct rm_common *c);
int cmd_accept_topology(int argc, char **argv, struct rm_common *c);
int cmd_mount_resctrl(int argc, char **argv, struct rm_common *c);
int cmd_noise(int argc, char **argv, struct rm_common *c);
int cmd_boot_plan(int argc, char **argv, struct rm_common *c);
int cmd_resize(int argc, char **argv, struct rm_common *c);
int cmd_limit(int argc, char **argv, struct rm_common *c);

/* --no-cgroups: keep allocations in the state only. */
extern bool opt_no_cgroups;

/*
 * The CPUs as the state divides them. The state holds, in order: one topology record (the CPUs
 * it was made for), at most one reserved record, and one owner record per allocation:
 *   topology=DIGEST cpus=LIST nodes=LIST online=LIST
 *   reserved=LIST strict=yes|no [memory=NODE:BYTES,...]
 *   owner=NAME cpus=LIST mems=LIST count=N isolate=yes|no pid=PID|- start=TICKS|- created=EPOCH
 * (cpus="" and count=0 for an owner in the shared pool: its cgroup runs on the shared pool's CPUs),
 * then, for an owner given extra memory nodes (--add-mems), add_mems=LIST, for an owner
 * allocated with placement options, placement="--OPTION VALUE ..." (alloc's options that place
 * CPUs, which resize grows it with), and, for an owner
 * with a resctrl group (--l3-ways, --mem-bandwidth), at its end:
 *   l3_ways=N|- l3_exclusive=yes|no l3_masks=ID:HEX,...|- mem_bandwidth=50%|RATE|- mb=ID:VAL,...|-
 * and, for an owner given memory or huge pages (--memory, --hugepages), at its end:
 *   memory=BYTES memory_nodes=NODE:BYTES,...|- hugepages=PAGESIZE:NODE:PAGES,...|-
 * and, for an owner resized away from the CPUs it was first given, initial=LIST: those of them it
 * still holds, which a shrink keeps (resize --below-initial changes them).
 * The topology record's cpus are the machine's present CPUs, online or not: they are what the
 * state is checked against. The digest is of the CPUs online when it was written (online=; a
 * record without it was written with all of cpus online), and is compared only while the same
 * CPUs are online: a CPU taken offline or brought back is no change of the machine.
 */
struct pool {
	struct rm_common *c;
	struct rm_topo *t;
	struct rm_cputopo *ct;
	char digest[16];            /* of the topology, as its state record holds it */
	struct rm_state st;
	bool cgroups;               /* cgroups are kept in step with the state */
	bool have_cgroups;          /* cg below is open */
	struct rm_cgroups cg;
	hwloc_bitmap_t all;         /* the online CPUs the allocator knows */
	hwloc_bitmap_t present;     /* the machine's CPUs, online or not (all is within it) */
	hwloc_bitmap_t memnodes;    /* NUMA nodes with memory */
	hwloc_bitmap_t reserved;    /* system-reserved CPUs */
	bool strict;                /* reserved CPUs never in the shared pool */
	hwloc_bitmap_t exclusive;   /* every owner's CPUs */
	struct rm_record *before;   /* the records as read, to undo cgroup changes */
	size_t nbefore;
	bool resctrl;               /* resctrl groups are kept: this machine, or RM_RESCTRL_ROOT */
	bool have_resctrl;          /* rc below is read and mounted */
	struct rm_resctrl rc;       /* read when resctrl is kept (rc.root set) */
	char *resctrl_err;          /* why a mounted resctrl could not be read, or NULL */
};

enum pool_flags {
	POOL_WRITE = 1 << 0,          /* lock for a change */
	POOL_ANY_TOPOLOGY = 1 << 1,   /* do not refuse a state made for other CPUs */
	POOL_NEED_CGROUPS = 1 << 2,   /* fail when cgroups are wanted but not available */
};

/* Load the topology and the state; exits with a message on failure (1, or 2 for bad input). */
void pool_open(struct pool *p, struct rm_common *c, unsigned flags);
/* The same over the topology T, loaded from C's input already (the pool frees it). */
void pool_open_topo(struct pool *p, struct rm_common *c, unsigned flags, struct rm_topo *t);
void pool_close(struct pool *p);

/* Refuse (exit 1) a state made for other CPUs, saying what changed and how to recover. */
void pool_check_topology(struct pool *p);

/* The shared pool: all CPUs but the exclusive ones (and the reserved ones when strict), and
 * but those isolated at boot while others remain. */
void pool_shared(const struct pool *p, hwloc_bitmap_t set);

/* The CPUs of P the kernel isolated at boot: isolcpus= and nohz_full=. */
void pool_boot_isolated(const struct pool *p, hwloc_bitmap_t set);
/* The CPUs an allocation may take: the shared pool minus the reserved CPUs. */
void pool_free(const struct pool *p, hwloc_bitmap_t set);
/* The memory nodes for CPUS: their NUMA nodes that have memory (never a memory-only node), else
 * the nodes with CPUs and memory, else every node with memory; and the nodes ADD (may be NULL). */
void pool_mems(const struct pool *p, hwloc_const_bitmap_t cpus, hwloc_const_bitmap_t add,
	       hwloc_bitmap_t mems);
/* The memory nodes of an owner record: its mems, else computed as pool_mems does. */
void pool_owner_mems(const struct pool *p, const struct rm_record *r, hwloc_bitmap_t mems);

/* Owner records: index of NAME or -1; a record's CPU set. */
long pool_find(const struct pool *p, const char *owner);
void pool_owner_cpus(const struct rm_record *r, hwloc_bitmap_t cpus);
/* The CPUs the owner record R runs on: its exclusive CPUs, or for an owner in the shared pool
 * (cpus="") the shared pool's. */
void pool_owner_runs_on(const struct pool *p, const struct rm_record *r, hwloc_bitmap_t cpus);
/* The CPUs of the owner record R that are not online now (its cgroup runs on the others). */
void pool_owner_offline(const struct pool *p, const struct rm_record *r, hwloc_bitmap_t cpus);

/* Add an allocation record (PID 0 for none), its memory on its CPUs' nodes and ADD_MEMS (may be
 * NULL), and update the sets. */
void pool_add(struct pool *p, const char *owner, hwloc_const_bitmap_t cpus,
	      hwloc_const_bitmap_t add_mems, bool isolate, pid_t pid);
/* Set the memory nodes of the allocation at INDEX from its CPUS and its add_mems. */
void pool_set_mems(struct pool *p, size_t index, hwloc_const_bitmap_t cpus);
/* Type the records again after a change made to them in place, and update the sets; exits 1
 * when the change makes impossible content. */
void pool_rescan(struct pool *p);
/* Remove the allocation at INDEX and update the sets. */
void pool_remove(struct pool *p, size_t index);
/* Set the reservation (the memory reserve kept). */
void pool_set_reserved(struct pool *p, hwloc_const_bitmap_t cpus, bool strict);
/* Set the reservation with the memory reserve MEMORY ("ID:BYTES,...", NULL or "" for none). */
void pool_set_reserved_all(struct pool *p, hwloc_const_bitmap_t cpus, bool strict,
			   const char *memory);
/* The memory reserve as the state keeps it ("ID:BYTES,..."), or NULL. */
const char *pool_reserved_memory(const struct pool *p);

/*
 * Write the state and bring the cgroups in step: cgroups first (undone by the cgroup module on
 * failure), then the state file; when the state cannot be written the cgroups are put back.
 * Exits 1 with a message on failure, having changed nothing.
 */
void pool_commit(struct pool *p);

/* The cgroups RECORDS want: one per owner, then the shared pool's. Returns the count. */
size_t pool_wants(const struct pool *p, const struct rm_record *records, size_t n,
		  struct rm_cgroup_want **want);
void pool_wants_free(struct rm_cgroup_want *want, size_t n);

/* With no allocation left: remove the shared pool's cgroup and the parent, unless processes are
 * still in them. */
void pool_remove_cgroups(struct pool *p);

/* Allocation records: the columns, the defaults and one record. */
extern const struct rm_column owner_cols[];
extern const size_t owner_ncols;
extern const char owner_defaults[];
void pool_print_owner(const struct pool *p, struct rm_out *out, const struct rm_record *r);
/* A listing of the owner records among RECS; --list-columns of allocations (exits), else the
 * check of -o for them (exits 2 on a bad list), before anything is done. */
void pool_print_owners(const struct pool *p, const struct rm_common *c,
		       const struct rm_record *recs, size_t n);
void pool_list_columns(const struct rm_common *c);
void pool_free_records(struct rm_record *r, size_t n);

/* Pool records (reserved, shared, exclusive, free); only the reserved one when RESERVED_ONLY.
 * With P NULL: print the columns (--list-columns) and exit, or check -o for them. */
void print_pools(const struct pool *p, const struct rm_common *c, bool reserved_only);

/* Say that the commit made (rm_committed): CPUS allocated to OWNER; WHAT ("released") done to
 * the owners among RECS. */
void pool_committed_cpus(hwloc_const_bitmap_t cpus, const char *owner);
void pool_committed_owners(const char *what, const struct rm_record *recs, size_t n);

/* Exit status for a cpualloc return value, printing MSG. */
__attribute__((noreturn))
void pool_fail(int rc, char *msg);

/* An allocation request: the options alloc and run share. */
struct alloc_req {
	unsigned count;            /* 0: not given */
	const char *owner;
	struct rm_cpualloc_opts opts;
	enum rm_tm_policy policy;
	hwloc_bitmap_t numa;       /* --numa-node, NULL when not given */
	hwloc_bitmap_t add_mems;   /* --add-mems, NULL when not given */
	const char *near;          /* --near DEVICE or "-" */
	hwloc_bitmap_t from;       /* --from, NULL when not given */
	const char *cpu_kind;      /* --cpu-kind performance|efficiency, NULL when not given */
	bool isolate;
	bool dry_run;
	int l3_ways;               /* --l3-ways, 0 when not given */
	bool l3_exclusive;
	const char *mem_bandwidth; /* --mem-bandwidth, NULL when not given */
	unsigned long mb_value;    /* its MB value, once checked */
	char *mb_canon;            /* and as the state keeps it */
	/* the Memory Manager (alloc --memory, --hugepages) */
	uint64_t memory;           /* --memory bytes, 0 when not given */
	char **hugepages;          /* --hugepages SIZE:COUNT arguments */
	size_t nhugepages;
	struct rm_memmgr *mm;      /* open when memory or huge pages are asked */
	uint64_t *pages;           /* pages asked per huge page size of mm */
	char *mem_nodes, *hp_nodes; /* what alloc_choose took, as the state keeps it */
	hwloc_bitmap_t mem_set;    /* the nodes it took them from: the owner's mems */
	/* the latency class (latency.c): --latency, --governor, --min-freq; NULL when not given */
	const char *latency, *governor, *min_freq;
};

/* Open R->mm and check --hugepages against the machine; exits 2 on bad input. Reads only. */
void alloc_memory_check(const struct rm_topo *t, struct alloc_req *r);
/* Count the system reserve and the owners' reservations of P in R->mm; exits 1 on a corrupt
 * state. */
void alloc_memory_account(const struct pool *p, struct alloc_req *r);
/* Set the memory fields of the owner record at INDEX from what alloc_choose took. */
void alloc_memory_record(struct pool *p, struct alloc_req *r, size_t index);
/* The owner's memory.max, memory.min and hugetlb limits (cgroup v2); on a failure the
 * allocation is undone and the command exits 1. */
void alloc_memory_limits(struct pool *p, struct alloc_req *r, size_t index);
/* The memory.max, memory.min and hugetlb limits the owner record REC keeps (memory=,
 * hugepages=), set on its cgroup where cgroups are v2, each change in LOG. 0, or -1 with MSG. */
int owner_memory_limits(struct pool *p, const struct rm_record *rec, struct rm_kernfs_log *log,
			char **msg);

/* Check R against P and add its allocation (CPUS, resctrl group, memory) to P's records, as
 * alloc does before its commit; exits 2 or 3 when it cannot be made. Returns its index. */
size_t alloc_plan(struct pool *p, struct alloc_req *r, hwloc_bitmap_t cpus);

/* The first option of R that places exclusive CPUs (as alloc spells it), or NULL for none. */
const char *alloc_req_placement_given(const struct alloc_req *r);
/* Keep R's placement options in the owner record at INDEX (placement=), which resize grows
 * it with. */
void owner_set_placement(struct pool *p, size_t index, const struct alloc_req *r);

/* The alloc options as an argp child; its input is a struct alloc_req. */
extern const struct argp alloc_argp;
/* --memory and --hugepages, the Memory Manager's part of alloc; its input is a struct alloc_req. */
extern const struct argp alloc_memory_argp;
void alloc_req_free(struct alloc_req *r);

/* A reservation asked (reserve SET, --count N, --strict, --memory). */
struct reserve_req {
	const char *set;           /* SET, NULL when not given */
	unsigned count;
	bool have_count, strict;
	const char *memory;        /* --memory NODE:SIZE,..., "" for none, NULL when not given */
	/* set by reserve_check */
	hwloc_bitmap_t cpus;       /* SET, then (reserve_choose) the CPUs reserved */
	struct rm_memmgr *mm;      /* open when --memory is given */
	char *memory_value;        /* --memory as the state keeps it ("ID:BYTES,...") */
};

/* The reserve options and SET as an argp child; its input is a struct reserve_req. */
extern const struct argp reserve_argp;
/* Check A against the machine T before any lock: exits 2 on bad input. */
void reserve_check(struct reserve_req *a, const struct rm_topo *t);
/* Choose and set the reservation A asks in P; exits 2 or 3 when it cannot be made. */
void reserve_choose(struct pool *p, struct reserve_req *a);
void reserve_req_free(struct reserve_req *a);

/* Check the owner's name: valid, not the shared pool's, not taken. Exits 2 otherwise. */
void alloc_check_owner(const struct pool *p, const char *owner);

/* Refuse (exit 2) --isolate where cgroup v2 cpuset partitions are not available. */
void alloc_check_isolate(const struct pool *p);

/* Choose R->count CPUs for R in P's free CPUs into RESULT; exits 2 or 3 with a message (2 for
 * --add-mems nodes that do not exist or have no memory, before anything else). */
void alloc_choose(struct pool *p, struct alloc_req *r, hwloc_bitmap_t result);

/* ---- memory and pids limits (limit.c) ---- */

/* --memory-max, --memory-high, --memory-min, --swap-max, --pids-max; its input is a struct
 * rm_ownlimit (the keys given). */
extern const struct argp limit_argp;
/* The limits of the owner record REC (NULL for a new owner, reserving MEMORY bytes with --memory)
 * with GIVEN merged, in L; exits 2 when they cannot be set: memory.max or memory.min of an owner
 * with memory reserved (they are the reservation), or what the cgroups here lack. Reads only. */
void limit_check(const struct pool *p, const struct rm_record *rec, uint64_t memory,
		 const struct rm_ownlimit *given, struct rm_ownlimit *l);
/* Write the limits KEYS (0: every one kept) of the owner record REC to its cgroups, each change
 * in LOG; nothing without cgroups. 0, or -1 with MSG. */
int owner_limits_put(struct pool *p, const struct rm_record *rec, unsigned keys,
		     struct rm_kernfs_log *log, char **msg);
/* After alloc's commit: the new owner's limits; on a failure they and the allocation are undone
 * and the command exits 1. */
void alloc_limits(struct pool *p, size_t index);

/* ---- resctrl (resctrl.c) ---- */

/* Refuse (exit 2) --l3-ways and --mem-bandwidth that cannot be met here at all: no resctrl kept,
 * mounted or with the resource, too many or too few ways, a bandwidth out of range. */
void alloc_check_resctrl(struct pool *p, struct alloc_req *r);

/* Choose the L3 ways and memory bandwidth of R for the new owner record at INDEX (CPUS), and set
 * its resctrl fields; exits 2 or 3 with a message, having closed the pool. */
void alloc_choose_resctrl(struct pool *p, struct alloc_req *r, hwloc_const_bitmap_t cpus,
			  size_t index);

/* Whether an owner record has a resctrl group; its group name (allocated). */
bool pool_owner_has_resctrl(const struct rm_record *r);
char *pool_resctrl_name(const struct rm_record *r);

/* The resctrl groups RECORDS want (their arrays allocated). Returns the count. */
size_t pool_resctrl_wants(const struct pool *p, const struct rm_record *records, size_t n,
			  struct rm_resctrl_want **want);
void pool_resctrl_wants_free(struct rm_resctrl_want *want, size_t n);

/* Bring the resctrl groups in step with RECORDS: 0, or an exit status with *MSG. Without a
 * mounted resctrl, warns (when WARN) that owners' groups are not kept, and returns 0. */
int pool_sync_resctrl(struct pool *p, const struct rm_record *records, size_t n, bool warn,
		      char **msg);

/* show: one record per L3 domain and resctrl group; nothing without resctrl. */
void print_l3_ways(const struct pool *p, const struct rm_common *c);

/* show --memory (numa-memory.c): one record per owner and NUMA node it has memory on or may use.
 * The columns are checked first with list_numa_memory_columns (exits for --list-columns). */
void print_numa_memory(struct pool *p, struct rm_common *c);
void list_numa_memory_columns(const struct rm_common *c);

/* The thread ids of PID (/proc/PID/task, allocated); -1 when the process is gone (attach.c). */
int threads_of(pid_t pid, pid_t **tids);

/* ---- quieting the isolated owners' CPUs (noise.c) ---- */

/* Whether P's cgroups come with quieting, and under which root (NULL: this machine). */
bool pool_quiet_root(const struct pool *p, const char **root);

/* Quiet the CPUs of the isolated owners among RECORDS and restore what no longer needs to be
 * (libcommon/quiet.c); with WARN, say which IRQs stay and what irqbalance needs. 0, or -1 with
 * *MSG, having changed nothing. */
int pool_sync_quiet(struct pool *p, const struct rm_record *records, size_t n, bool warn,
		    char **msg);
/* The same for the state as it is; exits 1 with a message on failure. */
void pool_resync_quiet(struct pool *p);

/* ---- the owners' latency class (latency.c) ---- */

/* --latency, --governor and --min-freq; its input is a struct alloc_req. */
extern const struct argp alloc_latency_argp;
/* Set the latency fields (latency=USEC governor=NAME min_freq=KHZ|max, each only when asked) of
 * the owner record at INDEX. */
void latency_record(struct pool *p, const struct alloc_req *r, size_t index);
/* Bring the idle states, resume latency limits and cpufreq settings of the owners' CPUs in step
 * with RECORDS, every value before journaled and restored when no owner asks it any more; what
 * the kernel does not offer is named (with WARN), not failed. 0, or -1 with *MSG having changed
 * nothing. */
int pool_sync_latency(struct pool *p, const struct rm_record *records, size_t n, bool warn,
		      char **msg);

#endif
