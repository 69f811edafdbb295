/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hugetlb cgroup limits for owners below the rmtools parent, on cgroup v1 or the unified hierarchy. */
#ifndef RM_HUGETLB_H
#define RM_HUGETLB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "kernfs.h"

/* How hugetlb cgroup files are written and undone: the flags of an undo log for
 * rm_hugetlb_set_logged. */
#define RM_HUGETLB_FILES (RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC)

/*
 * The hierarchy that holds the hugetlb controller, found under $RM_CGROUP_ROOT, else
 * /sys/fs/cgroup: the unified hierarchy at the top or in unified/ when its cgroup.controllers
 * lists hugetlb, else the v1 hierarchy in hugetlb/. An owner's cgroup is PARENT/OWNER:
 * MOUNT/rmtools/OWNER (v1), MOUNT/rmtools.slice/OWNER (v2).
 */
struct rm_hugetlb {
	enum rm_cgroup_version version;
	char *mount;
	char *parent;
	bool cpuset; /* v2: the hierarchy also holds cpuset, so PARENT/OWNER is rm-cpuset's cgroup */
};

/* Find the hierarchy; reads only. -1 with *ERRMSG ("no hugetlb cgroup controller is mounted"). */
int rm_hugetlb_open(struct rm_hugetlb *h, char **errmsg);
void rm_hugetlb_close(struct rm_hugetlb *h);

/* PARENT/OWNER, allocated. */
char *rm_hugetlb_path(const struct rm_hugetlb *h, const char *owner);

/* An owner's limits for one page size. Unlimited is LIMITED false. */
struct rm_hugetlb_limit {
	bool limited;
	uint64_t limit;       /* bytes: page faults beyond it get SIGBUS */
	bool have_rsvd;       /* the kernel has reservation limits (5.7+) */
	bool rsvd_limited;
	uint64_t rsvd_limit;  /* bytes: mmap() and shmget() beyond it fail */
	uint64_t usage;       /* bytes in use */
	uint64_t rsvd_usage;  /* bytes reserved */
};

/* The owner's limits for PAGE_SIZE: 1 when read, 0 when the owner has no cgroup, -1 with
 * *ERRMSG (including a page size the controller has no files for). */
int rm_hugetlb_read(const struct rm_hugetlb *h, const char *owner, uint64_t page_size,
		    struct rm_hugetlb_limit *l, char **errmsg);

/*
 * Limit the owner to BYTES of pages of PAGE_SIZE (LIMITED false: no limit), both the fault limit
 * and, where the kernel has it, the reservation limit. The owner's cgroup is made when missing
 * (v2: "+hugetlb" in the subtree_control of the root and of the parent) unless the hierarchy
 * also holds cpuset: there it must be rm-cpuset's already. Everything done is undone on a
 * failure. Returns 0, -1 with *ERRMSG, or -2 with *ERRMSG when the owner has no cgroup where it
 * must have one (bad input).
 */
int rm_hugetlb_set(const struct rm_hugetlb *h, const char *owner, uint64_t page_size,
		   bool limited, uint64_t bytes, char **errmsg);

/* Whether OWNER may get a limit: a valid name and, where the hierarchy also holds cpuset, an
 * rm-cpuset cgroup already. 0, or -2 with *ERRMSG (bad input). Reads only. */
int rm_hugetlb_check(const struct rm_hugetlb *h, const char *owner, char **errmsg);

/* rm_hugetlb_set, its changes logged in LOG (started as { .flags = RM_HUGETLB_FILES }) and left
 * there on a failure too: the caller undoes them with rm_kernfs_undo, with those of other calls
 * made before, so that several limits are set all or nothing. */
int rm_hugetlb_set_logged(const struct rm_hugetlb *h, const char *owner, uint64_t page_size,
			  bool limited, uint64_t bytes, struct rm_kernfs_log *log, char **errmsg);

/*
 * Remove the owner's limits: its cgroup (its processes moved to the hierarchy's root first) and
 * the parent when nothing is left in it; where the hierarchy also holds cpuset, only the limits
 * of PAGE_SIZES are lifted and the cgroup stays rm-cpuset's. 0 when there was none.
 */
int rm_hugetlb_remove(const struct rm_hugetlb *h, const char *owner, const uint64_t *page_sizes,
		      size_t nsizes, char **errmsg);

/* The owners with a cgroup, sorted; *NAMES allocated. The count, or -1 with *ERRMSG. */
int rm_hugetlb_owners(const struct rm_hugetlb *h, char ***names, char **errmsg);

/*
 * Move PID into OWNER's hugetlb cgroup when there is one (rm-cpuset run calls this for the
 * command it starts); 0 and nothing done when the owner has none or no hugetlb controller is
 * mounted. -1 with *ERRMSG when the move fails.
 */
int rm_hugetlb_attach(const char *owner, pid_t pid, char **errmsg);

#endif
