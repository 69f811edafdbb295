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

/* Most bytes a state file may have: far above any real state (an owner record is about 200
 * bytes), and read only after its size is checked. */
#define RM_STATE_MAX_BYTES (16u << 20)

/* Why rm_state_open() failed. */
enum rm_state_error {
	RM_STATE_OK = 0,
	RM_STATE_ESYSTEM,  /* a read, lock or directory failure (errno) */
	RM_STATE_EACCESS,  /* we may not read or lock it (EACCES or EPERM): not root */
	RM_STATE_EUNSAFE,  /* a symlink, not a regular file or directory, or another user's */
	RM_STATE_EFOREIGN, /* another state, another format, or another version */
	RM_STATE_ECORRUPT, /* fails its checksum, its record count or the owner layer's checks, or
			    * is larger than RM_STATE_MAX_BYTES */
};

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
	enum rm_state_error error; /* why rm_state_open() failed */
	struct rm_record *records;
	size_t nrecords;
	/* The records as the owner layer typed them when read (owner.h). Its strings point into
	 * the records: valid until a record is changed, added or removed. */
	struct rm_owner_state owners;
};

/* $RM_STATE_DIR, or /var/lib/rmtools. A relative or empty RM_STATE_DIR exits 2 with a message. */
const char *rm_state_dir(void);

/*
 * Lock and read the state NAME. Returns 0, or -1 with *ERRMSG allocated and ST->error saying
 * which failure it is: an unsafe directory
 * (a symlink, not owned by root or by us, or writable by others), a foreign or corrupt file (the
 * message names the path and the reason; the file is never reset), or a lock/IO failure.
 * A missing file is the empty state. The state file must be a regular file (a FIFO or a symlink
 * is refused, never waited on). A bad lock file is refused the same way; a lock still held after
 * the wait exits RM_EXIT_NORESOURCE (lock.h). errno: EACCES or EPERM when the state may not be
 * written by us, EINVAL for a bad file. Call rm_state_close() after a failure too.
 */
int rm_state_open(struct rm_state *st, const char *name, enum rm_state_mode mode, char **errmsg);

/*
 * rm_state_open(), or exit 1 with its message and what to do, by the kind of failure: for a
 * corrupt state, to restore or move it away (PAGE, such as "rm-cpuset(1)", names where the STATE
 * section tells more; NULL for none); for a state a non-root user may not write, that CHANGING
 * ("changing allocations") needs root.
 */
void rm_state_open_or_exit(struct rm_state *st, const char *name, enum rm_state_mode mode,
			   const char *page, const char *changing);

/* Write the records with rm_atomic_openat() (atomicfile.h): temp file .NAME.state.XXXXXX, fsync,
 * rename over NAME.state, fsync of the directory. Temp files left by writers killed before their
 * rename are removed first.
 * Needs RM_STATE_WRITE. Returns 0, or -1 with errno set (the old file is left whole). */
int rm_state_commit(struct rm_state *st);

/* Unlock and free; errno is kept. */
void rm_state_close(struct rm_state *st);

/* Type the records again (ST->owners) after a change: 0, or -1 with *ERRMSG when they no longer
 * pass the owner layer's checks. */
int rm_state_retype(struct rm_state *st, char **errmsg);

/* Index of the first record of KIND, or -1. */
long rm_state_find_kind(const struct rm_state *st, const char *kind);

/* Index of the record of KIND whose first field's value is ID, or -1. */
long rm_state_find(const struct rm_state *st, const char *kind, const char *id);

/* Append REC (the state takes it over) / remove the record at INDEX. */
void rm_state_add(struct rm_state *st, struct rm_record *rec);
void rm_state_remove(struct rm_state *st, size_t index);

#endif
