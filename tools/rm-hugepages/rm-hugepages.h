/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages' commands and what they share: the pools, records, mounts, messages. */
#ifndef RM_HUGEPAGES_TOOL_H
#define RM_HUGEPAGES_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hugepages.h"
#include "options.h"
#include "output.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Where the lock that serialises changes lives on this machine: a root-only directory in /run
 * (not /run/lock, where any user may make /run/lock/rmtools first). */
#define HP_LOCK_DIR "/run/rmtools"
#define HP_LOCK_NAME "hugepages.lock"
#define HP_LOCK HP_LOCK_DIR "/" HP_LOCK_NAME

int cmd_show(int argc, char **argv, struct rm_common *c);
int cmd_reserve(int argc, char **argv, struct rm_common *c);
int cmd_release(int argc, char **argv, struct rm_common *c);
int cmd_mount(int argc, char **argv, struct rm_common *c);
int cmd_umount(int argc, char **argv, struct rm_common *c);
int cmd_limit(int argc, char **argv, struct rm_common *c);
int cmd_overcommit(int argc, char **argv, struct rm_common *c);
int cmd_plan(int argc, char **argv, struct rm_common *c);
int cmd_apply(int argc, char **argv, struct rm_common *c);
int cmd_export(int argc, char **argv, struct rm_common *c);


/* The sysroot of C: --sysroot or RM_SYSROOT; --topology is refused (exit 2): huge pages are not
 * part of a described topology. NULL for this machine. */
const char *hp_sysroot(const struct rm_common *c);

/* Read the pools (exits 2 with a message when there are none). */
void hp_open(struct rm_hugepages *hp, const char *sysroot);

/* Take the lock that serialises changes of this machine's pools and mounts (lock.h): -1 when not
 * root (the permission check says so), else a descriptor for hp_unlock. An unsafe lock file
 * exits 1; a lock still held after --wait exits 3. */
int hp_lock(void);
void hp_unlock(int fd);

/* "needs root" when not root and ERR is a permission error, else NULL. */
bool hp_permission_error(int err);

/* A failure after the commit, without exiting: "PROG: MESSAGE; CHANGE stands" on one line (the
 * caller returns its status, which rm_exit_status turns into 1 where it claims no change). */
__attribute__((format(printf, 1, 2))) void hp_failx(const char *fmt, ...);

/* A set of NUMA nodes: "all" or a list. Fills WHICH (indexes into hp->nodes, in order) with the
 * nodes that offer SIZE; a node named that does not exist, has no memory or lacks SIZE is refused
 * with *ERRMSG. ALL_NODES (SET NULL or "all"): every node offering SIZE. Returns the count. */
long hp_nodes(const struct rm_hugepages *hp, const char *set, size_t size, size_t **which,
	      char **errmsg);

/* rm_hugepages_read_node, with the global reserved count when there is one node. */
int hp_read_node(const struct rm_hugepages *hp, size_t size, size_t node, struct rm_hp_counts *c,
		 char **errmsg);

/* ---- records ---- */

/* size records: one per (page size, node) */
enum { SZ_SIZE, SZ_NODE, SZ_TOTAL, SZ_FREE, SZ_RESERVED, SZ_SURPLUS, SZ_MEMORY, SZ_PERSISTENT,
       SZ_USED };
extern const struct rm_column size_cols[];
extern const size_t size_ncols;
extern const char size_defaults[];
/* One record; C NULL for a planned count WANT (dry run: the rest unknown). */
void hp_print_size(struct rm_out *out, const struct rm_hugepages *hp, size_t size, size_t node,
		   const struct rm_hp_counts *c, uint64_t want);

/* pool records: one per page size, the global counts */
enum { PL_POOL, PL_TOTAL, PL_FREE, PL_RESERVED, PL_SURPLUS, PL_OVERCOMMIT, PL_DEFAULT, PL_MEMORY,
       PL_NODES };
extern const struct rm_column pool_cols[];
extern const size_t pool_ncols;
void hp_print_pool(struct rm_out *out, const struct rm_hugepages *hp, size_t size,
		   const struct rm_hp_counts *g);

/* The one line that refuses an overcommit of gigantic pages of SIZE, given as ARG; allocated. */
char *hp_gigantic_msg(const struct rm_hugepages *hp, size_t size, const char *arg);

/* owner records: an owner's hugetlb limits per page size */
struct rm_hugetlb;
struct rm_hugetlb_limit;
extern const struct rm_column limit_cols[];
extern const size_t limit_ncols;
void hp_print_limit(struct rm_out *out, const struct rm_outopts *o, const char *owner,
		    uint64_t size, const struct rm_hugetlb_limit *l, const char *cgroup);
/* The records of OWNER: every size, or ONLY (SIZE_MAX: all). -1 with *ERRMSG. */
int hp_print_owner(struct rm_out *out, const struct rm_outopts *o, const struct rm_hugetlb *h,
		   const struct rm_hugepages *hp, const char *owner, size_t only, char **errmsg);

/* mount records */
enum { MT_MOUNT, MT_SIZE, MT_UID, MT_GID, MT_MODE, MT_MAX_SIZE, MT_OPTIONS };
extern const struct rm_column mount_cols[];
extern const size_t mount_ncols;
extern const char mount_defaults[];
void hp_print_mount(struct rm_out *out, const struct rm_outopts *o, const struct rm_hp_mount *m);

/* A size as a string field: bytes with --bytes or JSON, else "2MiB"; allocated. */
char *hp_size_text(const struct rm_outopts *o, uint64_t bytes);

/* ---- hugetlbfs mounts ---- */

struct mount_req {
	char *dir;          /* absolute, as given (a trailing / removed) */
	uint64_t page_size;
	bool have_uid, have_gid, have_mode, have_max;
	uid_t uid;
	gid_t gid;
	mode_t mode;
	uint64_t max_size;
};

/* "0770" -> mode; user and group names or numbers. -1 with *ERRMSG. */
int hp_parse_mode(const char *s, mode_t *mode, char **errmsg);
int hp_parse_uid(const char *s, uid_t *uid, char **errmsg);
int hp_parse_gid(const char *s, gid_t *gid, char **errmsg);

/* What mounting R needs, read from the mount table: 0 to mount, 1 when DIR already is such a
 * mount (nothing to do), -1 with *ERRMSG when DIR is a different mount or not a directory. */
int hp_mount_check(const struct mount_req *r, uint64_t default_size, char **errmsg);

/* Mount hugetlbfs at R->dir (made when missing: *MADE). -1 with *ERRMSG. */
int hp_mount(const struct mount_req *r, bool *made, char **errmsg);

/* The hugetlbfs options of R: "pagesize=2M,uid=0,mode=0770". Allocated. */
char *hp_mount_options(const struct mount_req *r);

/* Parse the max size of a mount: AMOUNT, a whole number of pages. */
int hp_parse_max_size(const char *s, uint64_t page_size, uint64_t *bytes, char **errmsg);

#endif
