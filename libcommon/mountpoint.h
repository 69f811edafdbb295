/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Mount points reached without following links, in directories only root can change. */
#ifndef RM_MOUNTPOINT_H
#define RM_MOUNTPOINT_H

#include <stdbool.h>

/*
 * PATH is absolute. Every directory from / to it is opened from its parent's descriptor with
 * O_PATH|O_DIRECTORY|O_NOFOLLOW, so no symlink on the way is followed, and each must be one that
 * only root can change: owned by root, and writable by no other user or group unless it has the
 * sticky bit (as /tmp). PATH itself must be a directory owned by root, or missing (made by the
 * mount). Otherwise a user could lead a mount, with the options root asked for, onto any
 * directory by a link or a rename.
 */

/* Whether PATH may be a mount point: 0, or -1 with *ERRMSG (invalid input: exit 2). */
int rm_mountpoint_check(const char *path, char **errmsg);

/* PATH opened (O_PATH) as checked above, made (mkdirat, 0755; *MADE) when missing: a descriptor,
 * or -1 with *ERRMSG. */
int rm_mountpoint_open(const char *path, bool *made, char **errmsg);

/* mount(2) of SOURCE, FSTYPE with FLAGS and DATA onto the directory open as FD, through
 * /proc/self/fd: the directory opened, whatever its path leads to now. 0 or -1 with errno. */
int rm_mount_fd(int fd, const char *source, const char *fstype, unsigned long flags,
		const char *data);

/* Remove the empty directory PATH (made by rm_mountpoint_open), reached as above: 0 or -1. */
int rm_mountpoint_remove(const char *path);

#endif
