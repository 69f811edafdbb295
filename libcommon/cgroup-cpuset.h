/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cpusets in cgroups below the rmtools parent, on the v1 cpuset hierarchy or the unified one: the
 * shared child and the owners' children, isolated partitions. */
#ifndef RM_CGROUP_CPUSET_H
#define RM_CGROUP_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <hwloc.h>

#include "cgroup.h"

#define RM_CGROUP_SHARED "shared"

/*
 * How the kernel makes a child of the parent an isolated cpuset partition (v2).
 * REMOTE (6.7+, cpuset.cpus.exclusive): the parent stays a member, its cpuset.cpus.exclusive
 *   lists the isolated children's CPUs, which leave the root's effective set alone.
 * ROOT (6.1-6.6: cpuset.cpus.partition with its "isolated" type, no cpuset.cpus.exclusive): the
 *   parent must itself be a "root" partition holding every CPU its children use but the ones the
 *   rest of the system keeps (the shared want's KEEP), which must not be empty.
 * NONE: no partitions (< 5.11, or no "isolated" type before 6.1), or cgroup v1.
 */
enum rm_cgroup_partitions {
	RM_PARTITIONS_NONE = 0,
	RM_PARTITIONS_ROOT,
	RM_PARTITIONS_REMOTE,
};

/* The cpuset hierarchy in use. Nothing outside PARENT is ever written, but for "+cpuset" in the
 * v2 root's cgroup.subtree_control, which the parent's cpuset files need. */
struct rm_cgroups {
	enum rm_cgroup_version version;
	char *mount;  /* the hierarchy's mount point: /sys/fs/cgroup/cpuset (v1), /sys/fs/cgroup (v2) */
	char *parent; /* MOUNT/rmtools (v1) or MOUNT/rmtools.slice (v2) */
	hwloc_bitmap_t cpus, mems; /* what the hierarchy's root offers (its effective sets; v2:
				    * plus our partitions' CPUs: the parent's cpuset.cpus.exclusive,
				    * or its cpuset.cpus while it is a root partition) */
	enum rm_cgroup_partitions partitions; /* v2 only: how an isolated child is made */
	hwloc_bitmap_t offline; /* present CPUs that are offline (rm_cgroups_set_offline), or NULL */
};

/*
 * Find the cpuset hierarchy. Under $RM_CGROUP_ROOT when it is set (a directory laid out like
 * /sys/fs/cgroup: a unified mount at its top, or v1 mounts as its subdirectories, or a hybrid with
 * the unified mount in unified/); else where libcgroup finds the cpuset controller mounted. The
 * unified hierarchy is used when it offers cpuset (cgroup.controllers), else the v1 cpuset mount.
 * Reads only. Returns 0, or -1 with *ERRMSG allocated, e.g. "no cpuset cgroup controller is
 * mounted (v1 cpuset or the unified hierarchy's cpuset)".
 */
int rm_cgroups_open(struct rm_cgroups *cg, char **errmsg);
void rm_cgroups_close(struct rm_cgroups *cg);

/*
 * Say which CPUs are offline (present, not online; NULL or empty for none). A child may keep
 * them: v2 takes any possible CPU in cpuset.cpus and keeps it there across hotplug, the effective
 * CPUs being the online ones; v1 refuses an offline CPU (EINVAL, cpuset.cpus must lie within the
 * root's, which are the online CPUs) and drops a CPU from every cpuset when it goes offline, so
 * v1 children are given their online CPUs only.
 */
void rm_cgroups_set_offline(struct rm_cgroups *cg, hwloc_const_bitmap_t offline);

/* The cpuset.cpus a child wanting CPUS gets on this hierarchy: CPUS on v2, its online CPUs on v1
 * (possibly none). */
void rm_cgroups_cpus_written(const struct rm_cgroups *cg, hwloc_const_bitmap_t cpus,
			     hwloc_bitmap_t written);

/* One child of the parent as it should be. */
struct rm_cgroup_want {
	const char *name;          /* RM_CGROUP_SHARED or an owner name (already validated) */
	hwloc_const_bitmap_t cpus; /* not empty; may hold offline CPUs (rm_cgroups_set_offline) */
	hwloc_const_bitmap_t mems; /* not empty */
	bool isolate;              /* v2: an isolated partition (needs cg->partitions) */
	hwloc_const_bitmap_t keep; /* RM_CGROUP_SHARED only, may be NULL: the CPUs the system
				    * outside the parent keeps when the parent must be a root
				    * partition (RM_PARTITIONS_ROOT) */
};

/*
 * Why --isolate cannot be done here, allocated ("--isolate needs cgroup v2 cpuset partitions
 * (...)"), or NULL when it can. KEEP: the CPUs the rest of the system would keep (the
 * reservation), needed with RM_PARTITIONS_ROOT. Reads only.
 */
char *rm_cgroups_isolate_refused(const struct rm_cgroups *cg, hwloc_const_bitmap_t keep);

/*
 * Make the parent's children exactly WANT[0..N): create the parent when missing (v1: with the
 * root's cpus and mems, before any child; v2: "+cpuset" in the root's and the parent's
 * cgroup.subtree_control), create or update each wanted child (cpuset.cpus and cpuset.mems; v1
 * needs both set before a process may join), set or clear isolated partitions (with the parent's
 * cpuset.cpus.exclusive, or the parent as a root partition: see enum rm_cgroup_partitions), and
 * remove every other child, first moving its processes into the RM_CGROUP_SHARED child (which
 * WANT must hold when a child with processes goes). Writes are ordered so the kernel accepts each
 * one: a partition's CPUs are exclusive among its siblings, so children shrink before any is
 * isolated, and isolated ones go back to members before their CPUs are given to others. On a
 * failure everything done in this call is undone, and -1 is returned with *ERRMSG naming the
 * file and the kernel's error ("cannot write '8-15' to /sys/fs/cgroup/cpuset/rmtools/a/cpuset.cpus:
 * Invalid argument"). A CPU or node outside cg->cpus / cg->mems is refused before any write.
 */
int rm_cgroups_sync(struct rm_cgroups *cg, const struct rm_cgroup_want *want, size_t n,
		    char **errmsg);

/* Move process PID into the child NAME (cgroup.procs). Returns 0 or -1 with *ERRMSG. */
int rm_cgroups_attach(struct rm_cgroups *cg, const char *name, pid_t pid, char **errmsg);

/* The path of the child NAME, allocated. */
char *rm_cgroups_path(const struct rm_cgroups *cg, const char *name);

/*
 * Read the child NAME's cpuset.cpus and cpuset.mems (and, when ISOLATED is not NULL, whether it
 * is a valid isolated partition). Returns 1 when read, 0 when the child does not exist, -1 with
 * *ERRMSG on a read error.
 */
int rm_cgroups_read(const struct rm_cgroups *cg, const char *name, hwloc_bitmap_t cpus,
		    hwloc_bitmap_t mems, bool *isolated, char **errmsg);

/* The names of the parent's children, sorted; *NAMES allocated (free each and the array).
 * Returns the count (0 when the parent does not exist), or -1 with *ERRMSG. */
int rm_cgroups_children(const struct rm_cgroups *cg, char ***names, char **errmsg);

/* Remove the parent when it has no children left (0), else leave it; -1 with *ERRMSG. */
int rm_cgroups_remove_parent(struct rm_cgroups *cg, char **errmsg);

#endif
