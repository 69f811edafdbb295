/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LD_PRELOAD shim for the contract tests: write, close, fsync, rename or open of the paths that
 * match a glob fail with a chosen errno, to see what a tool leaves and says after a failure.
 *
 * FAIL_PATH  a glob (fnmatch, no FNM_PATHNAME) the absolute path must match, such as '*io.max'
 * FAIL_CALL  a comma list of: write, close, fsync (also fdatasync), rename (rename, renameat,
 *            renameat2), open (open, openat and their 64 forms; not openat2, a raw syscall)
 * FAIL_ERRNO a name (EIO, ENOSPC, EPERM, EBUSY, EINVAL, ENOENT, EACCES) or a number; EIO default
 * FAIL_AFTER how many matching calls succeed first (default 0)
 * FAIL_TIMES how many fail after those (default 1; 0: every one), so that an undo can succeed
 * FAIL_LOG   a file each failed call is appended to, as "CALL PATH"
 *
 * close fails after closing, as the kernel's close does when a file system reports a late
 * error: the value written stands; only descriptors open for writing count. write and rename fail without doing anything; fsync after
 * syncing. The path of a descriptor is read from /proc/self/fd. glibc's own calls (fclose's
 * close, fwrite's write) are not seen: only what the program calls through the PLT.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long matched;

static bool wanted(const char *call)
{
	const char *list = getenv("FAIL_CALL");
	size_t len = strlen(call);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == len && !strncmp(p, call, len))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static int chosen_errno(void)
{
	static const struct {
		const char *name;
		int e;
	} names[] = { { "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EPERM", EPERM }, { "EBUSY", EBUSY },
		      { "EINVAL", EINVAL }, { "ENOENT", ENOENT }, { "EACCES", EACCES } };
	const char *s = getenv("FAIL_ERRNO");

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].e;
	return s && atoi(s) > 0 ? atoi(s) : EIO;
}

/* Whether CALL on PATH fails now; counts the matching calls. */
static bool fails(const char *call, const char *path)
{
	const char *glob = getenv("FAIL_PATH"), *after = getenv("FAIL_AFTER");
	const char *times = getenv("FAIL_TIMES"), *log = getenv("FAIL_LOG");
	long a = after ? atol(after) : 0, t = times ? atol(times) : 1;

	if (!glob || !path || !wanted(call) || fnmatch(glob, path, 0))
		return false;
	if (++matched <= a || (t > 0 && matched > a + t))
		return false;
	if (log) {
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "%s %s\n", call, path);
			fclose(f);
		}
	}
	return true;
}

static char *fd_path(int fd, char *buf)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, PATH_MAX - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* DIRFD/NAME as an absolute path, in BUF. */
static char *at_path(int dirfd, const char *name, char *buf)
{
	char dir[PATH_MAX / 2];

	if (name[0] == '/' || (dirfd == AT_FDCWD && !getcwd(dir, sizeof(dir))) ||
	    (dirfd != AT_FDCWD && !fd_path(dirfd, dir)))
		snprintf(buf, PATH_MAX, "%s", name);
	else
		snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *p, size_t n)
{
	char buf[PATH_MAX];

	if (fails("write", fd_path(fd, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(write)(fd, p, n);
}

int close(int fd)
{
	char buf[PATH_MAX];
	int fl = fcntl(fd, F_GETFL);
	bool f = fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && fails("close", fd_path(fd, buf));
	int rc = REAL(close)(fd);

	if (f) {
		errno = chosen_errno();
		return -1;
	}
	return rc;
}

int fsync(int fd)
{
	char buf[PATH_MAX];
	int rc = REAL(fsync)(fd);

	if (fails("fsync", fd_path(fd, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return rc;
}

int fdatasync(int fd)
{
	char buf[PATH_MAX];
	int rc = REAL(fdatasync)(fd);

	if (fails("fsync", fd_path(fd, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return rc;
}

int renameat2(int od, const char *o, int nd, const char *n, unsigned flags)
{
	char buf[PATH_MAX];

	if (fails("rename", at_path(nd, n, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(renameat2)(od, o, nd, n, flags);
}

int renameat(int od, const char *o, int nd, const char *n)
{
	char buf[PATH_MAX];

	if (fails("rename", at_path(nd, n, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(renameat)(od, o, nd, n);
}

int rename(const char *o, const char *n)
{
	char buf[PATH_MAX];

	if (fails("rename", at_path(AT_FDCWD, n, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(rename)(o, n);
}

/* The mode argument is there only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, mode)                                                                     \
	do {                                                                                      \
		if ((flags) & (O_CREAT | __O_TMPFILE)) {                                          \
			va_list ap;                                                               \
			va_start(ap, flags);                                                      \
			mode = va_arg(ap, mode_t);                                                \
			va_end(ap);                                                               \
		}                                                                                 \
	} while (0)

int openat(int dirfd, const char *name, int flags, ...)
{
	char buf[PATH_MAX];
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	if (fails("open", at_path(dirfd, name, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(openat)(dirfd, name, flags, mode);
}

int openat64(int dirfd, const char *name, int flags, ...)
{
	char buf[PATH_MAX];
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	if (fails("open", at_path(dirfd, name, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(openat64)(dirfd, name, flags, mode);
}

int open(const char *name, int flags, ...)
{
	char buf[PATH_MAX];
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	if (fails("open", at_path(AT_FDCWD, name, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(open)(name, flags, mode);
}

int open64(const char *name, int flags, ...)
{
	char buf[PATH_MAX];
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	if (fails("open", at_path(AT_FDCWD, name, buf))) {
		errno = chosen_errno();
		return -1;
	}
	return REAL(open64)(name, flags, mode);
}
