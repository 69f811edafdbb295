/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared state files in $RM_STATE_DIR: records, locked, versioned, checksummed, replaced atomically. */
#ifndef RM_STATE_H
#define RM_STATE_H

#include <stdbool.h>
#include <stddef.h>

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
 * NAME.lock beside it is flock()ed for every read and every read-modify-write.
 */
struct rm_state {
	char *name;
	char *dir;
	char *path;
	int lockfd;
	enum rm_state_mode mode;
	struct rm_record *records;
	size_t nrecords;
};

/* $RM_STATE_DIR, or /var/lib/rmtools. */
const char *rm_state_dir(void);

/*
 * Lock and read the state NAME. Returns 0, or -1 with *ERRMSG allocated: an unsafe directory
 * (a symlink, not owned by root or by us, or writable by others), a foreign or corrupt file (the
 * message names the path and the reason; the file is never reset), or a lock/IO failure.
 * A missing file is the empty state. Call rm_state_close() after a failure too.
 */
int rm_state_open(struct rm_state *st, const char *name, enum rm_state_mode mode, char **errmsg);

/* Write the records: temp file (.NAME.state.XXXXXX), fsync, rename over NAME.state, fsync of
 * the directory. Temp files left by writers killed before their rename are removed first.
 * Needs RM_STATE_WRITE. Returns 0, or -1 with errno set (the old file is left whole). */
int rm_state_commit(struct rm_state *st);

/* Unlock and free. */
void rm_state_close(struct rm_state *st);

/* Index of the record of KIND whose first field's value is ID, or -1. */
long rm_state_find(const struct rm_state *st, const char *kind, const char *id);

/* Append REC (the state takes it over) / remove the record at INDEX. */
void rm_state_add(struct rm_state *st, struct rm_record *rec);
void rm_state_remove(struct rm_state *st, size_t index);

/* True when NAME is a valid user-given name: [A-Za-z0-9][A-Za-z0-9_.-]{0,63}. */
bool rm_name_valid(const char *name);

#endif
