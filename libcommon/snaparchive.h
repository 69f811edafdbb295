/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshot trees written relative to directory fds, tar archives of them, and archives as sysroots. */
/* (Not archive.h: that name is libarchive's own header, which -I libcommon would hide.) */
#ifndef RM_SNAPARCHIVE_H
#define RM_SNAPARCHIVE_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/*
 * Tree writing. REL is a relative path below the directory DIRFD; every component is made with
 * mkdirat and opened with openat(O_NOFOLLOW) from its parent's fd, so a component swapped for a
 * symbolic link makes the call fail (ELOOP or ENOTDIR) rather than write outside the tree. ".."
 * and "." components are refused (EINVAL). They return -1 with errno set on failure.
 */
int rm_tree_open_dir(int dirfd, const char *rel, bool create);
/* A new regular file REL (its directories made): O_CREAT|O_EXCL|O_NOFOLLOW; returns its fd. */
int rm_tree_create(int dirfd, const char *rel, mode_t mode);
/* The symbolic link REL pointing to TARGET (its directories made); 0, or -1 (EEXIST included). */
int rm_tree_symlink(int dirfd, const char *rel, const char *target);
/* The regular files and links below DIRFD. */
int rm_tree_count(int dirfd);

/* The archive format and compression a file name asks for: its suffix (".tar.gz"), or NULL
 * when NAME does not end in one of .tar .tar.gz .tgz .tar.xz .txz .tar.zst .tzst .tar.bz2 .tbz2 */
const char *rm_archive_suffix(const char *name);

/*
 * Write the tree below TREEFD to OUTFD as a tar archive compressed as NAME's suffix says, every
 * entry below the folder TOP: owner and group root (uid and gid 0), the files' modes, MTIME.
 * Entries in name order, so the same tree gives the same archive. Returns 0, or -1 with *ERRMSG.
 */
int rm_archive_write(int treefd, const char *top, int outfd, const char *name, time_t mtime,
		     char **errmsg);

/*
 * PATH itself when it is not a regular file named as an archive (see rm_archive_suffix);
 * otherwise the archive unpacked into a private directory made by rm_cleanup_mkdtemp (under
 * $TMPDIR or /tmp), removed at exit and on a fatal signal: that directory, or the one folder the
 * archive holds when it has no sys/ of its own (exit 2 when neither has one). Absolute names,
 * "..", names deeper than RM_CLEANUP_DEPTH and entries through or to links that leave the tree
 * are refused, as are entries other than files, directories and links, and archives past
 * RM_ARCHIVE_MAX_SIZE (256 MiB) or RM_ARCHIVE_MAX_ENTRIES (100000). Exits 2 for an unreadable,
 * unsafe or too large archive, 1 when the unpacking fails (a write failed: a full TMPDIR).
 */
const char *rm_archive_sysroot(const char *path);

#endif
