/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Memory and pids limits of an owner's cgroup, on cgroup v2 or the v1 memory and pids hierarchies. */
#ifndef RM_OWNLIMIT_H
#define RM_OWNLIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernfs.h"
#include "record.h"

/*
 * The limits, as cgroup v2 names them, and what cgroup v1 has for them:
 *   memory_max  memory.max       v1 memory.limit_in_bytes
 *   memory_high memory.high      v1 memory.soft_limit_in_bytes (reclaimed to under contention,
 *                                never throttled: the nearest v1 has)
 *   memory_min  memory.min       none on v1 (refused)
 *   swap_max    memory.swap.max  v1 memory.memsw.limit_in_bytes = memory_max + swap_max
 *   pids_max    pids.max         v1 pids.max (the pids hierarchy)
 * On v2 they are files of the owner's cgroup, which rm-cpuset makes; on v1 the owner has a cgroup
 * of its own, rmtools/OWNER, in the memory and in the pids hierarchy, made for its limits.
 */
enum rm_ownlimit_key {
	RM_OWNLIMIT_MEMORY_MAX,
	RM_OWNLIMIT_MEMORY_HIGH,
	RM_OWNLIMIT_MEMORY_MIN,
	RM_OWNLIMIT_SWAP_MAX,
	RM_OWNLIMIT_PIDS_MAX,
	RM_OWNLIMIT_N
};

/* A value for "max": no limit. */
#define RM_OWNLIMIT_NONE UINT64_MAX
/* The largest limit taken: bytes (memory), or processes (pids). */
#define RM_OWNLIMIT_MAX_BYTES (UINT64_C(1) << 60)
#define RM_OWNLIMIT_MAX_PIDS 4194304 /* the kernel's PID_MAX_LIMIT */

/* Limits: the keys set (bit 1 << KEY: given, or kept in a record) and their values. */
struct rm_ownlimit {
	unsigned set;
	uint64_t v[RM_OWNLIMIT_N]; /* RM_OWNLIMIT_NONE for "max" */
};

/* The record keys (memory_max, ...), indexed by enum rm_ownlimit_key. */
extern const char *const rm_ownlimit_keys[RM_OWNLIMIT_N];

/* A value of KEY: "max", a size (memory: 8G, 512MiB, bytes) or a count (pids), bounded above.
 * 0, or -1 with *ERRMSG ("invalid memory_max: 'x' (a size such as 8G, or max)"). */
int rm_ownlimit_parse(enum rm_ownlimit_key key, const char *s, uint64_t *v, char **errmsg);

/* The limits a record keeps (its fields memory_max=BYTES ... pids_max=N; absent: no limit).
 * 0, or -1 with *ERRMSG naming the field. */
int rm_ownlimit_from_record(const struct rm_record *r, struct rm_ownlimit *l, char **errmsg);

/* Merge GIVEN into L (a "max" unsets the key) and write L's fields into R, removing those unset. */
void rm_ownlimit_merge(struct rm_ownlimit *l, const struct rm_ownlimit *given);
void rm_ownlimit_to_record(struct rm_record *r, const struct rm_ownlimit *l);

/*
 * Whether the keys GIVEN of the limits L (the owner's whole limits once changed) can be set on
 * this machine's cgroups ($RM_CGROUP_ROOT, else /sys/fs/cgroup): the memory and the pids
 * controller mounted, v1's lack of memory.min and of a swap limit without a memory limit, swap
 * accounting where it can be seen before a cgroup is made. Reads only. 0, or -1 with *ERRMSG.
 */
int rm_ownlimit_check(const struct rm_ownlimit *l, unsigned given, char **errmsg);

/*
 * Write the keys KEYS of L for OWNER: "max" (v1: -1) where a key is unset in L. v2: the owner's
 * cgroup must exist; "+memory" and "+pids" go in the subtree_control of the root and of the
 * rmtools parent first. v1: the owner's cgroups are made where missing; memory.limit_in_bytes and
 * memory.memsw.limit_in_bytes are written in the order the kernel takes. Every change is logged in
 * LOG (started as { .flags = RM_OWNLIMIT_FILES }) for rm_kernfs_undo. 0, or -1 with *ERRMSG.
 */
#define RM_OWNLIMIT_FILES (RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC)
int rm_ownlimit_put(const char *owner, const struct rm_ownlimit *l, unsigned keys,
		    struct rm_kernfs_log *log, char **errmsg);

/* v1: remove the memory and pids cgroups below the rmtools parent whose name is not among
 * OWNERS[0..N) (their processes moved to the hierarchy's root), and the parent with its last
 * child. Nothing on v2, where the owner's one cgroup is rm-cpuset's. 0, or -1 with *ERRMSG. */
int rm_ownlimit_prune(const char *const *owners, size_t n, char **errmsg);

/* v1: move PID into OWNER's memory and pids cgroups where it has them. Nothing on v2. 0, or -1
 * with *ERRMSG. */
int rm_ownlimit_attach(const char *owner, pid_t pid, char **errmsg);

#endif
