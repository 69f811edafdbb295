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
#include <time.h>
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

/* The directory of PATH, opened with O_DIRECTORY|O_NOFOLLOW, and PATH's last component in
 * *BASE (allocated); -1 with *ERRMSG and errno. */
static int open_dir(const char *path, char **base, char **errmsg)
{
	char *d = xstrdup(path), *b = xstrdup(path);
	const char *dir = dirname(d);
	int dfd, saved;
	struct stat st;
	bool link;

	*base = xstrdup(basename(b));
	free(b);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || !**base || !strcmp(*base, "/") || !strcmp(*base, ".") ||
	    !strcmp(*base, "..")) {
		saved = dfd < 0 ? errno : EISDIR;
		link = (saved == ELOOP || saved == ENOTDIR) && lstat(dir, &st) == 0 &&
		       S_ISLNK(st.st_mode);
		*errmsg = xasprintf("cannot create a file next to '%s': %s", path,
				    link ? "its directory is a symlink" : strerror(saved));
		if (dfd >= 0)
			close(dfd);
		free(*base);
		*base = NULL;
		dfd = -1;
		errno = saved;
	}
	free(d);
	return dfd;
}

int rm_atomic_open(struct rm_atomic *a, const char *path, mode_t mode, char **errmsg)
{
	char *base;
	int dfd = open_dir(path, &base, errmsg), rc;

	if (dfd < 0)
		return -1;
	rc = rm_atomic_open_output(a, dfd, base, path, mode, errmsg);
	if (rc == 0)
		a->ownfd = dfd;
	else
		close(dfd);
	free(base);
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

/* Finish writing into a device or a FIFO: flush and close, nothing renamed or fsynced. */
static int commit_into(struct rm_atomic *a, char **errmsg)
{
	int saved = 0;

	errno = 0;
	if (fflush(a->f) != 0 || ferror(a->f))
		saved = errno ? errno : EIO;
	if (fclose(a->f) != 0 && !saved)
		saved = errno;
	a->f = NULL;
	if (saved)
		*errmsg = xasprintf("cannot write '%s': %s", a->path, strerror(saved));
	release(a);
	errno = saved;
	return saved ? -1 : 0;
}

int rm_atomic_commit(struct rm_atomic *a, char **errmsg)
{
	int fd = fileno(a->f), saved = 0;

	if (!a->tmp) /* written into a device or a FIFO (rm_atomic_open_output) */
		return commit_into(a, errmsg);

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

/* ---- outputs ---- */

/* How long a FIFO is given to find a reader, in tenths of a second. */
#define FIFO_WAIT 50

/* What is at NAME in DIRFD (PATH in messages) as an output: 0 nothing or a regular file (to be
 * replaced), 1 a character device or 2 a FIFO (to be written into), or -1 with *ERRMSG and errno
 * for anything else: a symlink, a directory, a block device, a socket. */
static int output_kind(int dirfd, const char *name, const char *path, char **errmsg)
{
	struct stat st;
	const char *what;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* nothing there (or unreadable): creating the temporary says why */
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return S_ISFIFO(st.st_mode) ? 2 : 1;
	what = S_ISLNK(st.st_mode) ? "a symlink" : S_ISDIR(st.st_mode) ? "a directory"
		: S_ISBLK(st.st_mode) ? "a block device" : "a socket";
	*errmsg = xasprintf("an output is a regular file, a character device or a FIFO, not %s: "
			    "'%s'", what, path);
	errno = S_ISDIR(st.st_mode) ? EISDIR : S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
	return -1;
}

/* Open NAME in DIRFD, a character device or a FIFO, to write into it as the shell's > does, but
 * never created, truncated or followed; a FIFO without a reader is given FIFO_WAIT. */
static int open_into(struct rm_atomic *a, int dirfd, const char *name, const char *path,
		     bool fifo, char **errmsg)
{
	const int flags = O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	const struct timespec tenth = { 0, 100000000 };
	struct stat st;
	int fd, saved, tries = 0;

	/* O_NONBLOCK: a FIFO without a reader fails the open (ENXIO) rather than waits for ever */
	while ((fd = openat(dirfd, name, flags)) < 0 && errno == ENXIO && fifo &&
	       tries++ < FIFO_WAIT)
		nanosleep(&tenth, NULL);
	saved = errno;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))))
		saved = EINVAL; /* swapped since it was looked at */
	else if (fd >= 0 && (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
			     !(a->f = fdopen(fd, "w"))))
		saved = errno;
	else if (fd >= 0)
		saved = 0;
	if (saved) {
		*errmsg = xasprintf("cannot write '%s': %s", path, saved == ENXIO && fifo
				    ? "no process reads the FIFO" : strerror(saved));
		if (fd >= 0)
			close(fd);
		errno = saved;
		return -1;
	}
	a->dirfd = dirfd;
	a->ownfd = -1;
	a->name = xstrdup(name);
	a->path = xstrdup(path);
	return 0;
}

int rm_atomic_open_output(struct rm_atomic *a, int dirfd, const char *name, const char *path,
			  mode_t mode, char **errmsg)
{
	int kind = output_kind(dirfd, name, path, errmsg);

	memset(a, 0, sizeof(*a));
	a->dirfd = a->ownfd = a->cleanup = -1;
	if (kind < 0)
		return -1;
	if (kind > 0)
		return open_into(a, dirfd, name, path, kind == 2, errmsg);
	return rm_atomic_openat(a, dirfd, name, path, mode, NULL, errmsg);
}

int rm_atomic_check(const char *path, char **errmsg)
{
	char *base;
	int dfd = open_dir(path, &base, errmsg), rc = 0;

	if (dfd < 0) {
		if (errno != ELOOP && errno != ENOTDIR && errno != EISDIR) {
			free(*errmsg); /* not a refusal: opening it says why it fails */
			*errmsg = NULL;
			return 0;
		}
		return -1;
	}
	if (output_kind(dfd, base, path, errmsg) < 0)
		rc = -1;
	close(dfd);
	free(base);
	return rc;
}
