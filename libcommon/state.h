/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared state files in $RM_STATE_DIR: records, locked, versioned, checksummed, replaced atomically. */
#ifndef RM_STATE_H
#define RM_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "owner.h"
#include "record.h"

#define RM_STATE_DIR_DEFAULT "/var/lib/rmtools"
#define RM_STATE_VERSION 1

enum rm_state_mode {
	RM_STATE_READ,  /* shared lock; a missing state directory reads as empty */
	RM_STATE_WRITE, /* exclusive lock held until rm_state_close(); creates the directory */
};

/*
 * NAME.state in the state directory:
 *   rmtools_state=NAME version=1 records=N checksum=CRC32-OF-THE-LINES-BELOW
 *   one record per line
 * NAME.lock beside it (mode 0600, see lock.h) is flock()ed for every read and every
 * read-modify-write, waiting at most rm_lock_wait() seconds. A reader that may not open it (root's
 * lock, and the reader is not root) reads without it: the file is only ever replaced by a rename.
 * After the checksum, the records are checked by the owner layer (owner.h).
 */
struct rm_state {
	char *name;
	char *dir;
	char *path;
	int dirfd; /* the state directory, checked once; files are opened relative to it */
	int lockfd;
	enum rm_state_mode mode;
	struct rm_record *records;
	size_t nrecords;
};

/* $RM_STATE_DIR, or /var/lib/rmtools. A relative or empty RM_STATE_DIR exits 2 with a message. */
const char *rm_state_dir(void);

/*
 * Lock and read the state NAME. Returns 0, or -1 with *ERRMSG allocated: an unsafe directory
 * (a symlink, not owned by root or by us, or writable by others), a foreign or corrupt file (the
 * message names the path and the reason; the file is never reset), or a lock/IO failure.
 * A missing file is the empty state. The state file must be a regular file (a FIFO or a symlink
 * is refused, never waited on). A bad lock file is refused the same way; a lock still held after
 * the wait exits RM_EXIT_NORESOURCE (lock.h). errno: EACCES or EPERM when the state may not be
 * written by us, EINVAL for a bad file. Call rm_state_close() after a failure too.
 */
int rm_state_open(struct rm_state *st, const char *name, enum rm_state_mode mode, char **errmsg);

/* Write the records with rm_atomic_openat() (atomicfile.h): temp file .NAME.state.XXXXXX, fsync,
 * rename over NAME.state, fsync of the directory. Temp files left by writers killed before their
 * rename are removed first.
 * Needs RM_STATE_WRITE. Returns 0, or -1 with errno set (the old file is left whole). */
int rm_state_commit(struct rm_state *st);

/* Unlock and free; errno is kept. */
void rm_state_close(struct rm_state *st);

/* Index of the record of KIND whose first field's value is ID, or -1. */
long rm_state_find(const struct rm_state *st, const char *kind, const char *id);

/* Append REC (the state takes it over) / remove the record at INDEX. */
void rm_state_add(struct rm_state *st, struct rm_record *rec);
void rm_state_remove(struct rm_state *st, size_t index);

#endif
