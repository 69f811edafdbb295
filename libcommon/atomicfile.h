/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replace a file atomically: a private temporary beside it, fsynced and renamed over it; and the
 * one way every tool writes an output file (-o FILE, --svg FILE, the files under --root DIR). */
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
	char *tmp;    /* the temporary, relative to dirfd; NULL when written into (a device) */
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

/*
 * Begin writing the output NAME in the directory DIRFD (PATH names it in messages). What is at
 * NAME decides how: nothing or a regular file is replaced as rm_atomic_openat does; a character
 * device or a FIFO is written into, as the shell's > does (opened without O_CREAT or O_TRUNC, with
 * O_NOFOLLOW, never replaced; a FIFO is given 5 seconds to find a reader); a symlink, a
 * directory, a block device or a socket is refused. Returns 0, or -1 with *ERRMSG and errno.
 */
int rm_atomic_open_output(struct rm_atomic *a, int dirfd, const char *name, const char *path,
			  mode_t mode, char **errmsg);

/* The output PATH (rm_atomic_open_output), its directory opened with O_DIRECTORY|O_NOFOLLOW (a
 * symlinked directory is refused). */
int rm_atomic_open(struct rm_atomic *a, const char *path, mode_t mode, char **errmsg);

/*
 * Whether rm_atomic_open would refuse PATH for what is there: a symlink, a directory, a block
 * device or a socket at PATH, or a directory of PATH that is a symlink or no directory. For tools
 * to exit 2 before they change anything. 0 (a failure to come, such as a missing directory, is
 * left to rm_atomic_open to say), or -1 with *ERRMSG.
 */
int rm_atomic_check(const char *path, char **errmsg);

/*
 * Finish: flush, set the mode, fsync, rename over the target, fsync the directory (written into:
 * flush and close only). On failure
 * (a write error included) the temporary is removed, the target is left as it was, and -1 is
 * returned with *ERRMSG ("cannot write 'PATH': REASON") and errno. Either way A is released.
 */
int rm_atomic_commit(struct rm_atomic *a, char **errmsg);

/* Give up: remove the temporary and release A. Keeps errno. */
void rm_atomic_abort(struct rm_atomic *a);

/* Write the LEN bytes at DATA to the output PATH, as rm_atomic_open and rm_atomic_commit do. */
int rm_atomic_write(const char *path, const void *data, size_t len, mode_t mode, char **errmsg);

#endif
