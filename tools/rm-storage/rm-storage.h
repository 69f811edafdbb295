/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-storage's commands and what they share: disks, the state, messages. */
#ifndef RM_STORAGE_TOOL_H
#define RM_STORAGE_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "output.h"
#include "state.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The state of rm-storage: limit= and quota= records (rm-storage(1)). */
#define ST_STATE "storage"

int cmd_list(int argc, char **argv, struct rm_common *c);
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

/* ---- limits (limit.c), for release ---- */

/* Lift every limit of OWNER recorded in ST and remove their records; its cgroup goes when ours
 * alone. 1 when it had some, 0 when none, -1 with *ERRMSG (nothing lifted then). */
int st_limits_release(struct rm_state *st, const char *owner, bool dry_run, char **errmsg);

#endif
