/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup file systems: where a controller is mounted (v1, unified, hybrid), reading cgroup files,
 * the rmtools parent's cgroups; listing, removing and joining cgroups. */
#ifndef RM_CGROUP_H
#define RM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <hwloc.h>

#include "kernfs.h"

#define RM_CGROUP_ROOT_DEFAULT "/sys/fs/cgroup"
#define RM_CGROUP_PARENT_V1 "rmtools"
#define RM_CGROUP_PARENT_V2 "rmtools.slice"

enum rm_cgroup_version {
	RM_CGROUP_V1 = 1,
	RM_CGROUP_V2 = 2,
};

/* How cgroupfs files are opened (kernfs.h): a link as the last component is not followed. */
#define RM_CGROUP_FILES RM_KERNFS_NOFOLLOW

/* The text of the file PATH, allocated; NULL with *ERRMSG "cannot read PATH: REASON". */
char *rm_cgroup_read_text(const char *path, char **errmsg);

/* A CPU or node list file (cpuset.cpus, cpuset.mems) into SET: 0, or -1 with *ERRMSG. */
int rm_cgroup_read_set(const char *path, hwloc_bitmap_t set, char **errmsg);

/* Whether DIR/NAME exists. */
bool rm_cgroup_has_file(const char *dir, const char *name);

/* The pids (or tids) listed in PATH (cgroup.procs, tasks), one a line, in *PIDS (allocated).
 * Returns the count or -1 with *ERRMSG. */
ssize_t rm_cgroup_read_pids(const char *path, pid_t **pids, char **errmsg);

/*
 * Where CONTROLLER is under ROOT, a directory laid out like /sys/fs/cgroup: the unified
 * hierarchy at ROOT or in ROOT/unified (hybrid) when its cgroup.controllers offers it, else the
 * v1 mount ROOT/CONTROLLER (a directory without cgroup.controllers, holding V1_FILE when not
 * NULL). Reads only. 0 with *VERSION and *MOUNT (allocated), or -1.
 */
int rm_cgroup_find(const char *root, const char *controller, const char *v1_file,
		   enum rm_cgroup_version *version, char **mount);

/* The unified hierarchy under ROOT (ROOT or ROOT/unified, where cgroup.controllers is),
 * allocated; NULL when there is none. */
char *rm_cgroup_unified(const char *root);

/* ROOT without its trailing slashes, allocated. */
char *rm_cgroup_strip_root(const char *root);

/* Where libcgroup finds CONTROLLER mounted on the live system: 0 with *MOUNT allocated, 1 when it
 * is not mounted, or -1 with *ERRMSG ("cannot find the cgroup mounts: REASON"). */
int rm_cgroup_mounted(const char *controller, char **mount, char **errmsg);

/* The cgroup of OWNER below the rmtools parent of the hierarchy mounted at MOUNT:
 * MOUNT/rmtools/OWNER (v1) or MOUNT/rmtools.slice/OWNER (v2). Allocated. */
char *rm_cgroup_owner_path(enum rm_cgroup_version version, const char *mount, const char *owner);

/* The subdirectories of PARENT, sorted, in *NAMES (rm_kernfs_names_free): their number, 0 when
 * PARENT does not exist, or -1 with *ERRMSG "cannot read PARENT: REASON". */
int rm_cgroup_children(const char *parent, char ***names, char **errmsg);

/* Remove PARENT when it has no child cgroup left (a child made meanwhile keeps it): 0, or -1 with
 * *ERRMSG "cannot remove PARENT: REASON". */
int rm_cgroup_remove_childless(const char *parent, char **errmsg);

/* Move PID into the cgroup DIR when DIR exists (0 when it does not): 0, or -1 with *ERRMSG. */
int rm_cgroup_join(const char *dir, pid_t pid, char **errmsg);

/* Move every process of the cgroup DIR into the cgroup TO_DIR (a few rounds, for processes that
 * fork meanwhile; one gone meanwhile is no error): 0, or -1 with *ERRMSG. */
int rm_cgroup_evacuate(const char *dir, const char *to_dir, char **errmsg);

#endif
