/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files of the kernel's pseudo file systems: whole reads, single writes, and an undo log. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "kernfs.h"
#include "xalloc.h"

/*
 * Written by hand: these files are read whole and written with one write(2) each, which stdio
 * does not promise, and the same code must run against the test trees that stand in for them.
 */

/* ---- roots ---- */

/*
 * The directories every path below is taken relative to: a --sysroot tree, the cgroup and resctrl
 * roots. A path under one is opened from the root's O_PATH descriptor, beneath it: writes, mkdirs
 * and rmdirs refuse any symlink on the way (a link planted in a test tree or a snapshot would make
 * root write elsewhere), reads follow the relative links sysfs has but never out of the root.
 * openat2(2) does this in the kernel; glibc has no wrapper for it, hence syscall(2), and a walk of
 * one component at a time where the kernel lacks it (before 5.6).
 */
#define MAX_ROOTS 8

static struct {
	char *path;
	size_t len;
	int fd;
} roots[MAX_ROOTS];
static int nroots;

int rm_kernfs_root_add(const char *path)
{
	size_t len = strlen(path);
	int fd;

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (int i = 0; i < nroots; i++)
		if (roots[i].len == len && !strncmp(roots[i].path, path, len))
			return roots[i].fd;
	if (nroots == MAX_ROOTS) {
		errno = ENOSPC;
		return -1;
	}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	roots[nroots].path = xasprintf("%.*s", (int)len, path);
	roots[nroots].len = len;
	roots[nroots].fd = fd;
	nroots++;
	return fd;
}

void rm_kernfs_roots_clear(void)
{
	while (nroots) {
		nroots--;
		close(roots[nroots].fd);
		free(roots[nroots].path);
	}
}

/* The registered root PATH lies under (the longest), its fd, and PATH relative to it in *REL
 * ("." for the root itself); -1 when under none. */
static int root_of(const char *path, const char **rel)
{
	int best = -1;

	for (int i = 0; i < nroots; i++) {
		size_t len = roots[i].len;
		bool top = len == 1 && roots[i].path[0] == '/';

		if (strncmp(path, roots[i].path, len) || (!top && path[len] && path[len] != '/'))
			continue;
		if (best < 0 || len > roots[best].len)
			best = i;
	}
	if (best < 0)
		return -1;
	*rel = path + roots[best].len;
	while (**rel == '/')
		(*rel)++;
	if (!**rel)
		*rel = ".";
	return roots[best].fd;
}

/* Component by component from DIRFD, no symlink followed, no "..": openat2's RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS for kernels without openat2. */
static int walk_nofollow(int dirfd, const char *rel, int oflags, mode_t mode)
{
	char *copy = xstrdup(rel), *p = copy, *slash;
	int cur = dirfd, fd, saved;

	for (;;) {
		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		if (!strcmp(p, "..")) {
			fd = -1;
			errno = EXDEV;
			break;
		}
		if (!slash || !slash[1 + strspn(slash + 1, "/")]) {
			fd = openat(cur, *p ? p : ".", oflags | O_NOFOLLOW, mode);
			break;
		}
		fd = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			struct stat st;

			saved = errno;
			if (saved == ENOTDIR && fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				saved = ELOOP;
			errno = saved;
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
		p = slash + 1;
	}
	saved = errno;
	if (cur != dirfd)
		close(cur);
	free(copy);
	errno = saved;
	return fd;
}

/* Whether the file FD is open on lies beneath the directory ROOTFD: reads without openat2 may
 * follow links, then this checks where they led. */
static bool fd_beneath(int fd, int rootfd)
{
	char link[64], *where, *top;
	bool ok;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", rootfd);
	top = realpath(link, NULL);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	where = realpath(link, NULL);
	ok = top && where &&
	     (!strcmp(top, "/") ||
	      (!strncmp(where, top, strlen(top)) && (!where[strlen(top)] || where[strlen(top)] == '/')));
	free(top);
	free(where);
	return ok;
}

bool rm_kernfs_no_openat2;

int rm_kernfs_openat_beneath(int dirfd, const char *rel, int oflags, mode_t mode, bool no_symlinks)
{
	struct open_how how = {
		.flags = (uint64_t)(oflags | O_CLOEXEC | (no_symlinks ? O_NOFOLLOW : 0)),
		.mode = (oflags & O_CREAT) || (oflags & O_TMPFILE) == O_TMPFILE ? mode : 0,
		.resolve = RESOLVE_BENEATH | (no_symlinks ? RESOLVE_NO_SYMLINKS : 0),
	};
	long fd;

	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	if (!rm_kernfs_no_openat2) {
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return (int)fd;
	}
	if (no_symlinks)
		return walk_nofollow(dirfd, rel, oflags | O_CLOEXEC, mode);
	fd = openat(dirfd, rel, oflags | O_CLOEXEC, mode);
	if (fd >= 0 && !fd_beneath((int)fd, dirfd)) {
		close((int)fd);
		errno = EXDEV;
		return -1;
	}
	return (int)fd;
}

int rm_kernfs_open(const char *path, int oflags, int flags)
{
	const char *rel;
	int rootfd = root_of(path, &rel);
	bool write = (oflags & O_ACCMODE) != O_RDONLY || (oflags & O_CREAT);

	if (rootfd < 0)
		return open(path, oflags | O_CLOEXEC | (flags & RM_KERNFS_NOFOLLOW ? O_NOFOLLOW : 0),
			    0644);
	return rm_kernfs_openat_beneath(rootfd, rel, oflags, 0644,
					write || (flags & RM_KERNFS_NOFOLLOW));
}

/* The parent directory of PATH opened beneath its root with no symlinks (O_PATH), its last
 * component in *NAME (allocated); -1 with errno. A PATH under no root: AT_FDCWD and PATH. */
static int open_parent(const char *path, char **name)
{
	const char *rel, *slash;
	int rootfd = root_of(path, &rel), fd;
	char *dir;

	*name = NULL;
	if (rootfd < 0) {
		*name = xstrdup(path);
		return AT_FDCWD;
	}
	if (!strcmp(rel, ".")) {
		errno = EBUSY;
		return -1;
	}
	slash = strrchr(rel, '/');
	dir = slash ? xasprintf("%.*s", (int)(slash - rel), rel) : xstrdup(".");
	*name = xstrdup(slash ? slash + 1 : rel);
	if (!strcmp(*name, "..") || !strcmp(*name, ".") || !**name) {
		free(dir);
		free(*name);
		*name = NULL;
		errno = EINVAL;
		return -1;
	}
	fd = rm_kernfs_openat_beneath(rootfd, dir, O_PATH | O_DIRECTORY, 0, true);
	free(dir);
	if (fd < 0) {
		free(*name);
		*name = NULL;
	}
	return fd;
}

static int rmdir_at(int dfd, const char *name, mode_t mode)
{
	(void)mode;
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

/* OP(parent's fd, last component, MODE) on PATH, beneath its root. */
static int at_parent(const char *path, int (*op)(int, const char *, mode_t), mode_t mode)
{
	char *name;
	int dfd = open_parent(path, &name), rc, saved;

	if (dfd < 0 && dfd != AT_FDCWD)
		return -1;
	rc = op(dfd, name, mode);
	saved = errno;
	if (dfd >= 0)
		close(dfd);
	free(name);
	errno = saved;
	return rc;
}

int rm_kernfs_mkdir_path(const char *path, mode_t mode)
{
	return at_parent(path, mkdirat, mode);
}

int rm_kernfs_rmdir(const char *path)
{
	return at_parent(path, rmdir_at, 0);
}

char *rm_kernfs_read_raw(const char *path, int flags, size_t *len)
{
	int fd = rm_kernfs_open(path, O_RDONLY, flags);
	size_t cap = 256;
	char *buf;

	*len = 0;
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (*len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		n = read(fd, buf + *len, cap - *len - 1);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			close(fd);
			free(buf);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			break;
		*len += n;
	}
	close(fd);
	buf[*len] = '\0';
	return buf;
}

char *rm_kernfs_read(const char *path, int flags)
{
	size_t len;
	char *buf = rm_kernfs_read_raw(path, flags, &len);

	if (!buf)
		return NULL;
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	return buf;
}

/* rm_kernfs_write; *TAKEN: write(2) took bytes, so a failure after it (a short write, close)
 * may leave the value standing. */
static int write_taken(const char *path, const char *value, int flags, bool *taken)
{
	char *buf = xasprintf("%s\n", value);
	size_t len = strlen(buf);
	int fd, rc = 0;
	ssize_t n;

	*taken = false;
	fd = rm_kernfs_open(path, O_WRONLY | (flags & RM_KERNFS_TRUNC ? O_TRUNC : 0), flags);
	if (fd < 0) {
		rc = errno;
	} else {
		do
			n = write(fd, buf, len);
		while (n < 0 && errno == EINTR);
		*taken = n > 0;
		if (n < 0)
			rc = errno;
		else if ((size_t)n != len)
			rc = EIO;
		/* kernfs reports nothing at close, but other file systems (FUSE, NFS) report late
		 * errors there: the value may stand, and the write is a failure all the same */
		if (close(fd) < 0 && !rc && errno != EINTR)
			rc = errno;
	}
	free(buf);
	return rc;
}

int rm_kernfs_write(const char *path, const char *value, int flags)
{
	bool taken;

	return write_taken(path, value, flags, &taken);
}

static int stat_as(const char *path, int flags, struct stat *st)
{
	const char *rel;
	int rootfd = root_of(path, &rel), fd, rc, saved;

	if (rootfd < 0)
		return flags & RM_KERNFS_NOFOLLOW ? lstat(path, st) : stat(path, st);
	fd = rm_kernfs_openat_beneath(rootfd, rel, O_PATH, 0, flags & RM_KERNFS_NOFOLLOW);
	if (fd < 0)
		return -1;
	rc = fstat(fd, st);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

bool rm_kernfs_exists(const char *path, int flags)
{
	struct stat st;

	return stat_as(path, flags, &st) == 0;
}

bool rm_kernfs_is_dir(const char *path, int flags)
{
	struct stat st;

	return stat_as(path, flags, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rm_kernfs_list_has(const char *dir, const char *file, const char *word, int flags)
{
	char *path = xasprintf("%s/%s", dir, file), *s = rm_kernfs_read(path, flags), *tok, *save;
	bool found = false;

	free(path);
	if (!s)
		return false;
	for (tok = strtok_r(s, " \t\n", &save); tok && !found; tok = strtok_r(NULL, " \t\n", &save))
		found = !strcmp(tok, word);
	free(s);
	return found;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rm_kernfs_subdirs(const char *dir, int flags, bool (*keep)(const char *), char ***names)
{
	int fd = rm_kernfs_open(dir, O_RDONLY | O_DIRECTORY, flags);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int n = 0;

	*names = NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d))) {
		char *path;
		bool is_dir;

		if (e->d_name[0] == '.' || (keep && !keep(e->d_name)))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		is_dir = rm_kernfs_is_dir(path, flags);
		free(path);
		if (!is_dir)
			continue;
		*names = xrealloc(*names, (n + 1) * sizeof(**names));
		(*names)[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(**names), cmp_names);
	return n;
}

void rm_kernfs_names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- the undo log ---- */

void rm_kernfs_log_push(struct rm_kernfs_log *log, enum rm_kernfs_undo_kind kind, const char *path,
			const char *value)
{
	if (log->n == log->cap) {
		log->cap = log->cap ? 2 * log->cap : 16;
		log->u = xrealloc(log->u, log->cap * sizeof(*log->u));
	}
	log->u[log->n].kind = kind;
	log->u[log->n].path = xstrdup(path);
	log->u[log->n].value = value ? xstrdup(value) : NULL;
	log->n++;
}

void rm_kernfs_undo(struct rm_kernfs_log *log, char **errmsg)
{
	char *uerr = NULL;

	while (log->n) {
		struct rm_kernfs_undo *u = &log->u[--log->n];
		int rc = 0;

		switch (u->kind) {
		case RM_KERNFS_RMDIR:
			if (rm_kernfs_rmdir(u->path) < 0)
				rc = errno;
			if (rc && !uerr)
				uerr = xasprintf("cannot remove %s: %s", u->path, strerror(rc));
			break;
		case RM_KERNFS_MKDIR:
			if (rm_kernfs_mkdir_path(u->path, 0755) < 0 && errno != EEXIST)
				rc = errno;
			if (rc && !uerr)
				uerr = xasprintf("cannot create %s: %s", u->path, strerror(rc));
			break;
		case RM_KERNFS_WRITE:
			rc = rm_kernfs_write(u->path, u->value, log->flags);
			if (rc == ESRCH && (log->flags & RM_KERNFS_ESRCH_OK))
				rc = 0;
			if (rc && !uerr)
				uerr = xasprintf("cannot write '%s' to %s: %s", u->value, u->path,
						 strerror(rc));
			break;
		}
		free(u->path);
		free(u->value);
	}
	if (uerr) {
		char *m = xasprintf("%s; undoing it failed: %s", *errmsg, uerr);

		free(*errmsg);
		free(uerr);
		*errmsg = m;
	}
}

void rm_kernfs_log_free(struct rm_kernfs_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->u[i].path);
		free(log->u[i].value);
	}
	free(log->u);
	*log = (struct rm_kernfs_log){ .flags = log->flags };
}

int rm_kernfs_put(struct rm_kernfs_log *log, const char *dir, const char *file, const char *value,
		  const char *undo, char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file), *now = NULL;
	bool taken;
	int rc = write_taken(path, value, log->flags, &taken);

	/* a write taken and failed after (close): undone with the rest, or what stands said */
	if ((!rc || taken) && undo)
		rm_kernfs_log_push(log, RM_KERNFS_WRITE, path, undo);
	else if (rc && taken)
		now = rm_kernfs_read(path, log->flags);
	if (rc) {
		char *shown = xstrdup(value);

		for (char *p = shown; *p; p++)
			if (*p == '\n')
				*p = ' ';
		for (char *p = now; p && *p; p++)
			if (*p == '\n')
				*p = ' ';
		*errmsg = now ? xasprintf("cannot write '%s' to %s: %s; it reads '%s'", shown, path,
					  strerror(rc), now)
			      : xasprintf("cannot write '%s' to %s: %s", shown, path, strerror(rc));
		free(shown);
	}
	free(now);
	free(path);
	return rc ? -1 : 0;
}

int rm_kernfs_mkdir(struct rm_kernfs_log *log, const char *path, char **errmsg)
{
	if (rm_kernfs_mkdir_path(path, 0755) < 0) {
		*errmsg = xasprintf("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	rm_kernfs_log_push(log, RM_KERNFS_RMDIR, path, NULL);
	return 0;
}
