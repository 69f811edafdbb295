/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Mount points opened one component at a time from /, no link followed, checked for owners. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mountpoint.h"
#include "xalloc.h"

/* Whether only root can change what the directory of ST holds. */
static bool root_only(const struct stat *st)
{
	bool others = (st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != 0);

	return st->st_uid == 0 && (!others || (st->st_mode & S_ISVTX));
}

/*
 * PATH's parent directory, opened from / one component at a time (O_PATH, O_NOFOLLOW), each
 * checked with root_only; its last component in *LAST (allocated). A descriptor, or -1 with
 * *ERRMSG.
 */
static int open_parent(const char *path, char **last, char **errmsg)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;
	size_t end = 0; /* the directory open is path[0, end), or / when 0 */
	struct stat st;
	char *name;

	*last = NULL;
	for (;;) {
		const char *s = path + end + strspn(path + end, "/");
		size_t len = strcspn(s, "/");
		int shown = end ? (int)end : 1;

		if (fd < 0 || fstat(fd, &st) < 0) {
			*errmsg = xasprintf("cannot use %.*s: %s", shown, path, strerror(errno));
			break;
		}
		if (!root_only(&st)) {
			*errmsg = xasprintf("a mount point must lie in directories only root can "
					    "change: '%.*s' is %s", shown, path,
					    st.st_uid ? "owned by another user" :
					    "writable by others without the sticky bit");
			break;
		}
		name = xasprintf("%.*s", (int)len, s);
		if (!s[len + strspn(s + len, "/")]) { /* the last component */
			if (!len || !strcmp(name, ".") || !strcmp(name, "..")) {
				*errmsg = xasprintf("not a directory to mount on: '%s'", path);
				free(name);
				break;
			}
			*last = name;
			return fd;
		}
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		end = (size_t)(s + len - path);
		if (next < 0) {
			int saved = errno;

			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				*errmsg = xasprintf("a mount point is not reached through a "
						    "symlink: '%.*s'", (int)end, path);
			else if (saved == ENOENT || saved == ENOTDIR)
				*errmsg = xasprintf("no such directory: '%.*s'", (int)end, path);
			else
				*errmsg = xasprintf("cannot use %.*s: %s", (int)end, path,
						    strerror(saved));
		}
		free(name);
		close(fd);
		if ((fd = next) < 0)
			return -1;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Whether NAME in DIRFD (PATH) is a directory owned by root, no link: 0, 1 when missing, or -1
 * with *ERRMSG. */
static int check_last(int dirfd, const char *name, const char *path, char **errmsg)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 1;
		*errmsg = xasprintf("cannot use %s: %s", path, strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		*errmsg = xasprintf("a mount point is not reached through a symlink: '%s'", path);
	} else if (!S_ISDIR(st.st_mode)) {
		*errmsg = xasprintf("not a directory: '%s'", path);
	} else if (st.st_uid != 0) {
		*errmsg = xasprintf("a mount point must be owned by root: '%s'", path);
	} else {
		return 0;
	}
	return -1;
}

int rm_mountpoint_check(const char *path, char **errmsg)
{
	char *last;
	int fd = open_parent(path, &last, errmsg), rc;

	if (fd < 0)
		return -1;
	rc = check_last(fd, last, path, errmsg);
	close(fd);
	free(last);
	return rc < 0 ? -1 : 0;
}

int rm_mountpoint_open(const char *path, bool *made, char **errmsg)
{
	char *last;
	int dirfd = open_parent(path, &last, errmsg), fd = -1, rc;

	*made = false;
	if (dirfd < 0)
		return -1;
	if ((rc = check_last(dirfd, last, path, errmsg)) == 1) {
		if (mkdirat(dirfd, last, 0755) < 0)
			*errmsg = xasprintf("cannot create %s: %s", path, strerror(errno));
		else
			*made = true;
	}
	if (rc == 0 || *made) {
		fd = openat(dirfd, last, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			*errmsg = xasprintf("cannot open %s: %s", path, strerror(errno));
			if (*made)
				unlinkat(dirfd, last, AT_REMOVEDIR);
			*made = false;
		}
	}
	close(dirfd);
	free(last);
	return fd;
}

int rm_mount_fd(int fd, const char *source, const char *fstype, unsigned long flags,
		const char *data)
{
	char target[32];

	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	return mount(source, target, fstype, flags, data);
}

int rm_mountpoint_remove(const char *path)
{
	char *last, *msg = NULL;
	int dirfd = open_parent(path, &last, &msg), rc;

	free(msg);
	if (dirfd < 0)
		return -1;
	rc = unlinkat(dirfd, last, AT_REMOVEDIR);
	close(dirfd);
	free(last);
	return rc;
}
