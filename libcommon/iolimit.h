/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Disk I/O limits of owners below the rmtools parent: io.max, io.weight, io.latency (v2), blkio (v1). */
#ifndef RM_IOLIMIT_H
#define RM_IOLIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "kernfs.h"

/* How io cgroup files are opened and written. */
#define RM_IO_FILES (RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC)

/*
 * The hierarchy of the io controller under $RM_CGROUP_ROOT, else /sys/fs/cgroup: the unified
 * hierarchy when it offers io, else the v1 blkio mount. An owner's cgroup is PARENT/OWNER, the
 * same directory rm-cpuset and rm-hugepages use on that hierarchy.
 */
struct rm_io {
	enum rm_cgroup_version version;
	char *mount;
	char *parent;
	bool cpuset; /* v2: the hierarchy also holds cpuset, so PARENT/OWNER is rm-cpuset's cgroup */
};

/* One owner's limits on one disk; 0 in a field is "no limit" (weight: the default). */
struct rm_io_limit {
	uint64_t rbps, wbps, riops, wiops;
	unsigned weight;  /* v2 io.weight 1-10000; v1 blkio weight 10-1000 */
	uint64_t latency; /* io.latency target in microseconds (v2 only) */
};

/* What the owner has done on the disk so far (io.stat, blkio.throttle.io_service_*). */
struct rm_io_stat {
	uint64_t rbytes, wbytes, rios, wios;
};

/* Find the hierarchy; reads only. -1 with *ERRMSG when no io controller is mounted. */
int rm_io_open(struct rm_io *io, char **errmsg);
void rm_io_close(struct rm_io *io);
/* PARENT/OWNER, allocated. */
char *rm_io_path(const struct rm_io *io, const char *owner);
/* Why L cannot be set here (an option the hierarchy has no file for), allocated, or NULL. */
char *rm_io_refused(const struct rm_io *io, const struct rm_io_limit *l);
/* Whether OWNER may get limits: a valid name and, where the hierarchy also holds cpuset, an
 * rm-cpuset cgroup already (rm-cpuset removes other children of the parent). 0, or -2 with
 * *ERRMSG. Reads only. */
int rm_io_check(const struct rm_io *io, const char *owner, char **errmsg);
/*
 * Make OWNER's limits on the disk DEVNO ("MAJ:MIN") exactly L: the cgroup made when missing
 * (v2: "+io" in the subtree_control of the root and of the parent), every file written with its
 * old value logged in LOG (started as { .flags = RM_IO_FILES }), for rm_kernfs_undo.
 * 0, -1 with *ERRMSG, or -2 with *ERRMSG (bad input: see rm_io_check).
 */
int rm_io_set_logged(const struct rm_io *io, const char *owner, const char *devno,
		     const struct rm_io_limit *l, struct rm_kernfs_log *log, char **errmsg);
/* OWNER's limits and counters on DEVNO: 1 when read, 0 when the owner has no cgroup, -1 with
 * *ERRMSG. */
int rm_io_read(const struct rm_io *io, const char *owner, const char *devno,
	       struct rm_io_limit *l, struct rm_io_stat *st, char **errmsg);
/* Remove OWNER's cgroup when it is ours alone (not rm-cpuset's) and holds no limits any more,
 * and the parent with its last child. 0, or -1 with *ERRMSG (processes still in it: EBUSY). */
int rm_io_remove(const struct rm_io *io, const char *owner, char **errmsg);
/* Whether OWNER has a cgroup on the io hierarchy. */
bool rm_io_has_cgroup(const char *owner);
/* Move PID into OWNER's io cgroup when it has one (rm-cpuset run calls this for the command it
 * starts); 0 and nothing done when it has none, when no io controller is mounted, or when io
 * shares rm-cpuset's cgroups (rm-cpuset joins those itself). -1 with *ERRMSG. */
int rm_io_attach(const char *owner, pid_t pid, char **errmsg);

#endif
