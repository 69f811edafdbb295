/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lock files: regular files of mode 0600 that only their owner can open, waited on for --wait. */
#ifndef RM_LOCK_H
#define RM_LOCK_H

#include <stdbool.h>

/* How long a command waits for a lock another process holds, unless --wait or RM_LOCK_WAIT
 * say otherwise; it never waits forever. */
#define RM_LOCK_WAIT_DEFAULT 30.0
/* The longest wait accepted: a day. */
#define RM_LOCK_WAIT_MAX 86400.0
/* A waiting command says which process holds the lock once that one process has held it this
 * long, so that the short turns of commands running side by side stay quiet. */
#define RM_LOCK_NOTICE_AFTER 2.0

/* Parse SECONDS (a decimal number from 0 to RM_LOCK_WAIT_MAX): 0, or -1. */
int rm_lock_parse_wait(const char *s, double *seconds);

/* Set the wait (--wait). Without it: $RM_LOCK_WAIT, else RM_LOCK_WAIT_DEFAULT. */
void rm_lock_set_wait(double seconds);

/* The wait in force. An invalid RM_LOCK_WAIT exits 2 with a message. */
double rm_lock_wait(void);

/*
 * Open the lock file NAME in the directory DIRFD (PATH names it in messages) and lock it with
 * flock(OP: LOCK_SH or LOCK_EX). CREATE: create it (mode 0600) when missing. The file must be a
 * regular file owned by us with one link; a symlink, a FIFO, a device or a file of another user
 * is refused, never waited on, and a mode other than 0600 is set back to 0600.
 * When another process holds the lock, waits up to rm_lock_wait() seconds (saying once which
 * process holds it when one has held it for RM_LOCK_NOTICE_AFTER); still held then, it exits
 * RM_EXIT_NORESOURCE
 * with "lock still held by pid N after S s: 'PATH'".
 * Returns the locked descriptor (close it to unlock), or -1 with errno and *ERRMSG allocated
 * (errno ENOENT when the file is missing and CREATE is false; EACCES when it may not be opened,
 * or is another user's and CREATE is false).
 */
int rm_lock_at(int dirfd, const char *name, const char *path, int op, bool create,
	       char **errmsg);

/*
 * Make DIR (absolute) a private directory for lock files when missing: owned by us, mode 0700;
 * an existing one must be a real directory owned by us and not writable by others (a wider
 * mode of ours is narrowed to 0700). Returns an O_DIRECTORY descriptor, or -1 with *ERRMSG.
 */
int rm_lock_dir(const char *dir, char **errmsg);

/* The pid that holds a flock() on the file of FD according to /proc/locks, or 0 when none is
 * listed (or it is in another pid namespace). */
int rm_lock_holder(int fd);

#endif
