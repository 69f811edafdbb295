/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replace a file atomically: a private temporary beside it, fsynced and renamed over it. */
#ifndef RM_ATOMICFILE_H
#define RM_ATOMICFILE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * A replacement in progress. The temporary ".NAME.XXXXXX" (six random letters or digits) is
 * made in the directory of the target, relative to a descriptor of that directory, with
 * O_CREAT|O_EXCL|O_NOFOLLOW: nothing planted at its name (a symlink, a file) can redirect it.
 * The rename replaces whatever is at the target, a symlink included (never followed).
 */
struct rm_atomic {
	FILE *f;      /* write the new content here */
	int dirfd;    /* the target's directory */
	int ownfd;    /* dirfd when rm_atomic_open opened it (closed at the end), else -1 */
	int cleanup;  /* the temporary's entry in libcommon/cleanup.h's table, else -1 */
	char *name;   /* the target, relative to dirfd */
	char *tmp;    /* the temporary, relative to dirfd */
	char *path;   /* the target, for messages */
	mode_t mode;
};

/*
 * Begin replacing NAME in the directory DIRFD (PATH names it in messages) with a file of MODE.
 * TMP: the temporary's name, or NULL for a random one (retried while taken). Returns 0, or -1
 * with *ERRMSG and errno.
 */
int rm_atomic_openat(struct rm_atomic *a, int dirfd, const char *name, const char *path,
		     mode_t mode, const char *tmp, char **errmsg);

/* The same for PATH, its directory opened with O_DIRECTORY|O_NOFOLLOW (a symlinked directory
 * is refused). */
int rm_atomic_open(struct rm_atomic *a, const char *path, mode_t mode, char **errmsg);

/*
 * Finish: flush, set the mode, fsync, rename over the target, fsync the directory. On failure
 * (a write error included) the temporary is removed, the target is left as it was, and -1 is
 * returned with *ERRMSG ("cannot write 'PATH': REASON") and errno. Either way A is released.
 */
int rm_atomic_commit(struct rm_atomic *a, char **errmsg);

/* Give up: remove the temporary and release A. Keeps errno. */
void rm_atomic_abort(struct rm_atomic *a);

/* Replace PATH with the LEN bytes at DATA, as above. */
int rm_atomic_write(const char *path, const void *data, size_t len, mode_t mode, char **errmsg);

#endif
