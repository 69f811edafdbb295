/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files of the kernel's pseudo file systems (sysfs, cgroupfs, resctrl): whole reads, single writes,
 * and an undo log of writes, mkdirs and rmdirs. */
#ifndef RM_KERNFS_H
#define RM_KERNFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How files are opened (FLAGS below), and how a log undoes its writes. */
enum {
	/* a link as the last component is not followed: O_NOFOLLOW, lstat */
	RM_KERNFS_NOFOLLOW = 1 << 0,
	/* writes open with O_TRUNC, as the shell's > does */
	RM_KERNFS_TRUNC = 1 << 1,
	/* undoing a write, ESRCH is no failure: the pid or task written back has exited */
	RM_KERNFS_ESRCH_OK = 1 << 2,
};

/*
 * Roots: a path under a registered root (a --sysroot tree, the cgroup or resctrl root) is opened
 * from the root's descriptor and never leaves it. Writes, mkdirs and rmdirs there follow no
 * symlink at all (ELOOP, or EXDEV for ".."); reads follow relative links that stay beneath the
 * root, none when RM_KERNFS_NOFOLLOW. Paths under no root are opened as they are.
 */

/* Register PATH (trailing slashes ignored) as a root: its O_PATH descriptor, kept until
 * rm_kernfs_roots_clear, or -1 with errno. Registering it again returns the same descriptor. */
int rm_kernfs_root_add(const char *path);
void rm_kernfs_roots_clear(void);

/* openat2(DIRFD, REL, OFLAGS | O_CLOEXEC, MODE) with RESOLVE_BENEATH, and with NO_SYMLINKS also
 * RESOLVE_NO_SYMLINKS and O_NOFOLLOW. Where the kernel has no openat2 (ENOSYS): a walk of one
 * component at a time with O_NOFOLLOW, or for reads openat and a check of where it led. A
 * descriptor, or -1 with errno (ELOOP: a symlink; EXDEV: out of DIRFD). */
int rm_kernfs_openat_beneath(int dirfd, const char *rel, int oflags, mode_t mode, bool no_symlinks);

/* Set (by the unit checks) to take the path of kernels without openat2. */
extern bool rm_kernfs_no_openat2;

/* PATH opened with OFLAGS (O_CREAT makes it 0644): beneath its root when it has one, with no
 * symlink when writing or with RM_KERNFS_NOFOLLOW; else as it is (O_NOFOLLOW with
 * RM_KERNFS_NOFOLLOW). A descriptor or -1 with errno. */
int rm_kernfs_open(const char *path, int oflags, int flags);

/* mkdir(2) and rmdir(2) of PATH, beneath its root with no symlink when it has one. 0 or -1 with
 * errno. */
int rm_kernfs_mkdir_path(const char *path, mode_t mode);
int rm_kernfs_rmdir(const char *path);

/* Whole file as it is, NUL-terminated, its length in *LEN; allocated. NULL with errno set. */
char *rm_kernfs_read_raw(const char *path, int flags, size_t *len);

/* Whole file with trailing blanks removed, allocated; NULL with errno set. */
char *rm_kernfs_read(const char *path, int flags);

/* One write(2) of VALUE and a newline, as echo does: these file systems take each write as one
 * value or command. No O_CREAT: the file exists or the feature is not there. 0 or an errno. */
int rm_kernfs_write(const char *path, const char *value, int flags);

bool rm_kernfs_exists(const char *path, int flags);
bool rm_kernfs_is_dir(const char *path, int flags);

/* Whether the blank-separated list in DIR/FILE (cgroup.controllers, ...) holds WORD; false when
 * unreadable. */
bool rm_kernfs_list_has(const char *dir, const char *file, const char *word, int flags);

/* The subdirectories of DIR whose names pass KEEP (NULL: all), hidden ones left out, sorted, in
 * *NAMES (rm_kernfs_names_free). Their number, or -1 with errno when DIR cannot be read. */
int rm_kernfs_subdirs(const char *dir, int flags, bool (*keep)(const char *), char ***names);
void rm_kernfs_names_free(char **names, int n);

/* ---- an undo log ---- */

enum rm_kernfs_undo_kind {
	RM_KERNFS_RMDIR, /* remove PATH */
	RM_KERNFS_MKDIR, /* make PATH again */
	RM_KERNFS_WRITE, /* write VALUE back to PATH */
};

struct rm_kernfs_undo {
	enum rm_kernfs_undo_kind kind;
	char *path;
	char *value;
};

/* The changes made so far, each with how to revert it. Start it as { .flags = F }: F is how its
 * files are written (RM_KERNFS_NOFOLLOW, RM_KERNFS_TRUNC) and undone (RM_KERNFS_ESRCH_OK). */
struct rm_kernfs_log {
	int flags;
	struct rm_kernfs_undo *u;
	size_t n, cap;
};

/* Log a change's undo: KIND on PATH, with VALUE for RM_KERNFS_WRITE (NULL otherwise). */
void rm_kernfs_log_push(struct rm_kernfs_log *log, enum rm_kernfs_undo_kind kind, const char *path,
			const char *value);

/* Undo everything, last first, best effort: goes on after a failure, and adds the first one to
 * *ERRMSG, the error that called for undoing, as "; undoing it failed: REASON". Leaves the log
 * empty. */
void rm_kernfs_undo(struct rm_kernfs_log *log, char **errmsg);

void rm_kernfs_log_free(struct rm_kernfs_log *log);

/* Write VALUE to DIR/FILE; when UNDO is not NULL, log writing UNDO back. 0, or -1 with *ERRMSG
 * "cannot write 'VALUE' to PATH: REASON" (a VALUE of several lines shown on one). A write the
 * file took before failing (at close) counts as made: its UNDO is logged all the same, or
 * without one the message adds "; it reads 'NOW'", what stands. */
int rm_kernfs_put(struct rm_kernfs_log *log, const char *dir, const char *file, const char *value,
		  const char *undo, char **errmsg);

/* Make the directory PATH, logged for removal. 0, or -1 with *ERRMSG
 * "cannot create PATH: REASON". */
int rm_kernfs_mkdir(struct rm_kernfs_log *log, const char *path, char **errmsg);

#endif
