/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Atomic file replacement relative to a directory descriptor: O_EXCL temporary, fsync, renameat. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cleanup.h"
#include "xalloc.h"

/* NAME's temporary: ".NAME." and six random letters or digits. */
static char *random_tmp(const char *name)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	char suffix[7];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		for (size_t i = 0; i < sizeof(r); i++) /* no entropy yet: O_EXCL still holds */
			r[i] = (unsigned char)(rand() ^ getpid() ^ (int)i);
	for (size_t i = 0; i < sizeof(r); i++)
		suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
	suffix[6] = '\0';
	return xasprintf(".%s.%s", name, suffix);
}

static void release(struct rm_atomic *a)
{
	rm_cleanup_forget(a->cleanup);
	if (a->ownfd >= 0)
		close(a->ownfd);
	free(a->name);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
	a->dirfd = a->ownfd = a->cleanup = -1;
}

int rm_atomic_openat(struct rm_atomic *a, int dirfd, const char *name, const char *path,
		     mode_t mode, const char *tmp, char **errmsg)
{
	int fd = -1, saved;

	memset(a, 0, sizeof(*a));
	a->dirfd = dirfd;
	a->ownfd = a->cleanup = -1;
	a->name = xstrdup(name);
	a->path = xstrdup(path);
	a->mode = mode;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		free(a->tmp);
		a->tmp = tmp ? xstrdup(tmp) : random_tmp(name);
		/* 0600 until the content is complete; the mode is set before the rename */
		fd = openat(dirfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && (errno != EEXIST || tmp))
			break;
	}
	if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
		saved = errno;
		*errmsg = xasprintf("cannot create a file next to '%s': %s", path, strerror(saved));
		if (fd >= 0) {
			close(fd);
			unlinkat(dirfd, a->tmp, 0);
		}
		release(a);
		errno = saved;
		return -1;
	}
	a->cleanup = rm_cleanup_add(dirfd, a->tmp, false); /* removed if the process is ended */
	return 0;
}

int rm_atomic_open(struct rm_atomic *a, const char *path, mode_t mode, char **errmsg)
{
	char *d = xstrdup(path), *b = xstrdup(path);
	const char *base = basename(b);
	int dfd, rc, saved;

	const char *dir = dirname(d);
	struct stat st;
	bool link;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || !*base || !strcmp(base, "/") || !strcmp(base, ".") || !strcmp(base, "..")) {
		saved = dfd < 0 ? errno : EISDIR;
		link = (saved == ELOOP || saved == ENOTDIR) && lstat(dir, &st) == 0 &&
		       S_ISLNK(st.st_mode);
		*errmsg = xasprintf("cannot create a file next to '%s': %s", path,
				    link ? "its directory is a symlink" : strerror(saved));
		if (dfd >= 0)
			close(dfd);
		free(d);
		free(b);
		errno = saved;
		return -1;
	}
	rc = rm_atomic_openat(a, dfd, base, path, mode, NULL, errmsg);
	if (rc == 0)
		a->ownfd = dfd;
	else
		close(dfd);
	free(d);
	free(b);
	return rc;
}

void rm_atomic_abort(struct rm_atomic *a)
{
	int saved = errno;

	if (a->f)
		fclose(a->f);
	if (a->tmp)
		unlinkat(a->dirfd, a->tmp, 0);
	release(a);
	errno = saved;
}

int rm_atomic_commit(struct rm_atomic *a, char **errmsg)
{
	int fd = fileno(a->f), saved = 0;

	errno = 0;
	if (fflush(a->f) != 0 || ferror(a->f))
		saved = errno ? errno : EIO;
	else if (fchmod(fd, a->mode) < 0 || fsync(fd) < 0)
		saved = errno;
	if (fclose(a->f) != 0 && !saved)
		saved = errno;
	a->f = NULL;
	if (!saved && renameat(a->dirfd, a->tmp, a->dirfd, a->name) < 0)
		saved = errno;
	if (saved) {
		*errmsg = xasprintf("cannot write '%s': %s", a->path, strerror(saved));
		rm_atomic_abort(a);
		errno = saved;
		return -1;
	}
	/* the rename itself must reach the disk before the change is reported */
	fsync(a->dirfd);
	release(a);
	return 0;
}

int rm_atomic_write(const char *path, const void *data, size_t len, mode_t mode, char **errmsg)
{
	struct rm_atomic a;

	if (rm_atomic_open(&a, path, mode, errmsg) < 0)
		return -1;
	if (len)
		fwrite(data, 1, len, a.f);
	return rm_atomic_commit(&a, errmsg);
}
