/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-storage's commands and what they share: disks, the state, messages. */
#ifndef RM_STORAGE_TOOL_H
#define RM_STORAGE_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include <libmount.h>

#include "conffile.h"
#include "iolimit.h"
#include "options.h"
#include "output.h"
#include "state.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The state of rm-storage: limit= and quota= records (rm-storage(1)). */
#define ST_STATE "storage"

int cmd_list(int argc, char **argv, struct rm_common *c);

/*
 * libmount, opened with dlopen by the commands that read the mount table rather than linked, so
 * that the others do not load it (nor libblkid, libselinux and libpcre2 under it): call
 * st_libmount_load() before the first lmnt.f(). Its soname has been libmount.so.1 since
 * util-linux 2.18.
 */
#define LIBMOUNT_FUNCTIONS(X) \
	X(mnt_free_iter) \
	X(mnt_fs_get_devno) \
	X(mnt_fs_get_fstype) \
	X(mnt_fs_get_srcpath) \
	X(mnt_fs_get_target) \
	X(mnt_new_iter) \
	X(mnt_new_table_from_file) \
	X(mnt_table_next_fs) \
	X(mnt_unref_table)

extern struct st_libmount {
#define X(f) __typeof__(f) *f;
	LIBMOUNT_FUNCTIONS(X)
#undef X
} lmnt;
void st_libmount_load(void);
int cmd_limit(int argc, char **argv, struct rm_common *c);
int cmd_show(int argc, char **argv, struct rm_common *c);
int cmd_release(int argc, char **argv, struct rm_common *c);
int cmd_apply(int argc, char **argv, struct rm_common *c);
int cmd_gc(int argc, char **argv, struct rm_common *c);
int cmd_quota(int argc, char **argv, struct rm_common *c);
int cmd_usage(int argc, char **argv, struct rm_common *c);

/* The sysroot of C: --sysroot or RM_SYSROOT; --topology is refused (exit 2). NULL: this machine. */
const char *st_sysroot(const struct rm_common *c);
/* Exit 2 unless C names this machine: commands that change it take no --sysroot. */
void st_live_only(const struct rm_common *c, const char *command);

/*
 * The disk ARG names: a kernel name ("nvme0n1", "sda1") or a device node ("/dev/sda1"). A
 * partition resolves to its whole disk (the kernel throttles disks), and a note says so.
 * *NAME and *DEVNO ("MAJ:MIN") allocated. 0, or -1 with *ERRMSG (an unknown device).
 */
int st_disk(const char *sysroot, const char *arg, char **name, char **devno, char **errmsg);

/* Open the state (exits 1 with the message on a failure). */
void st_open(struct rm_state *st, enum rm_state_mode mode);
/* Commit it (exits 1 on a failure, saying what stands: CHANGED). */
void st_commit(struct rm_state *st);

/* An unsigned number or "max" (0) for a rate; BYTES: through the size parser. -1 with *ERRMSG. */
int st_parse_rate(const char *opt, const char *s, bool bytes, uint64_t *v, char **errmsg);

/* ---- quota (quota.c), for release and gc ---- */

/* Lift the quota of the quota= record REC: its limits, then the project ID of its directory. */
int st_quota_lift(const struct rm_record *rec, char **errmsg);
/* Whether the directory of REC still is the one given its project (exists, same project). */
bool st_quota_alive(const struct rm_record *rec);

/* ---- releasing limits (limit.c) ---- */

/* Lift every limit of OWNER recorded in ST, each write logged in LG (started as
 * { .flags = RM_IO_FILES }) for the caller to undo should the state not be written, and remove
 * their records. 1 when it had some, 0 when none, -1 with *ERRMSG (what was lifted is in LG). */
int st_limits_release(struct rm_state *st, const char *owner, struct rm_kernfs_log *lg,
		      char **errmsg);

/* ---- an owner's limits (limit-args.c), for limit, apply and storage.conf ---- */

/* The options of "limit" that set a limit, in the order of struct rm_io_limit's fields:
 * read-bps, write-bps, read-iops, write-iops, weight, latency-target. */
#define ST_NLIMITS 6
enum { ST_OPT_RBPS = 0x200, ST_OPT_WBPS, ST_OPT_RIOPS, ST_OPT_WIOPS, ST_OPT_WEIGHT,
       ST_OPT_LATENCY };
/* limit's options: those above, then --dry-run */
extern const struct argp_option st_limit_options[];
/* The long option of limit K, without its dashes. */
const char *st_limit_option(size_t k);

/* What "limit OWNER DEVICE [--OPTION VALUE...]" says, as text: VAL[K] the value of limit K, NULL
 * when not given. The command line and storage.conf(5) both check it with the two calls below. */
struct st_limit_args {
	const char *owner, *device;
	const char *val[ST_NLIMITS];
};

/* Where a check found its error: the owner, or the value of limit K (0 to ST_NLIMITS - 1). */
#define ST_AT_OWNER (-1)

/* The owner's name and the values of A, without the machine: *L holds the values given, 0 (no
 * limit) for max and for those not given. 0, or -1 with *ERRMSG and *AT. */
int st_limit_parse(const struct st_limit_args *a, struct rm_io_limit *l, int *at, char **errmsg);

/* Whether L limits nothing: every field max (0); whether A and B are the same limits. */
bool st_limit_none(const struct rm_io_limit *l);
bool st_limit_same(const struct rm_io_limit *a, const struct rm_io_limit *b);

/* Limit K of L (weight through *W, which the caller moves to and from L->weight). */
uint64_t *st_limit_field(struct rm_io_limit *l, size_t k, uint64_t *w);

/* The limits of a limit= record of the state, and the record's fields set from L. */
void st_rec_limit(const struct rm_record *r, struct rm_io_limit *l);
void st_rec_set_limit(struct rm_record *r, const struct rm_io_limit *l);

/* Whether OWNER may get the limits L on the hierarchy IO: its cgroup where it must be rm-cpuset's,
 * a file for each limit L sets. Reads only. 0, or -1 with *ERRMSG and *AT. */
int st_limit_check(const struct rm_io *io, const char *owner, const struct rm_io_limit *l,
		   int *at, char **errmsg);

/* ---- storage.conf(5) (conf.c) ---- */

/* One "limit OWNER DEVICE key=value..." line: the whole limit of the owner on the disk. */
struct st_conf_line {
	unsigned line;
	char *source;                 /* "FILE:LINE", for the records */
	char *owner, *device;         /* as the line names them */
	char *val[ST_NLIMITS];        /* the values given, NULL for the keys not given */
	unsigned col_owner, col_device, col_val[ST_NLIMITS]; /* for messages */
	char digest[17];              /* of its settings, as the state's conf= field keeps it */
	struct rm_io_limit l;         /* the limit: keys not given are max */
	char *disk, *devno;           /* the device's disk on this machine */
	const char *action;           /* what apply did: keep or set */
};

struct st_conf {
	struct rm_conf f;
	struct st_conf_line *lines;
	size_t n;
};

/* Read PATH ("-": standard input) and check it whole against this machine's disks, before any
 * lock: exits 2 with FILE:LINE:COLUMN on bad input or when PATH cannot be opened, 1 when reading
 * it fails. */
void st_conf_read(struct st_conf *cf, const char *path);
/* Check every owner of CF on the hierarchy IO (st_limit_check); exits 2 as st_conf_read. */
void st_conf_check(struct st_conf *cf, const struct rm_io *io);
void st_conf_free(struct st_conf *cf);

#endif
