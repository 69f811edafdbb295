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

/* RC, or -1 with the chosen errno when the call is to fail (FAIL). */
static int result(bool fail, int rc)
{
	if (fail)
		errno = chosen_errno();
	return fail ? -1 : rc;
}

ssize_t write(int fd, const void *p, size_t n)
{
	char buf[PATH_MAX];

	return fails("write", fd_path(fd, buf)) ? result(true, 0) : REAL(write)(fd, p, n);
}

int close(int fd)
{
	char buf[PATH_MAX];
	int fl = fcntl(fd, F_GETFL);
	bool f = fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && fails("close", fd_path(fd, buf));

	return result(f, REAL(close)(fd)); /* closed either way, as the kernel does */
}

int fsync(int fd)
{
	char buf[PATH_MAX];
	int rc = REAL(fsync)(fd);

	return result(fails("fsync", fd_path(fd, buf)), rc);
}

int fdatasync(int fd)
{
	char buf[PATH_MAX];
	int rc = REAL(fdatasync)(fd);

	return result(fails("fsync", fd_path(fd, buf)), rc);
}

int renameat2(int od, const char *o, int nd, const char *n, unsigned flags)
{
	char buf[PATH_MAX];

	return fails("rename", at_path(nd, n, buf)) ? result(true, 0)
						    : REAL(renameat2)(od, o, nd, n, flags);
}

int renameat(int od, const char *o, int nd, const char *n)
{
	char buf[PATH_MAX];

	return fails("rename", at_path(nd, n, buf)) ? result(true, 0) : REAL(renameat)(od, o, nd, n);
}

int rename(const char *o, const char *n)
{
	char buf[PATH_MAX];

	return fails("rename", at_path(AT_FDCWD, n, buf)) ? result(true, 0) : REAL(rename)(o, n);
}

/* An open of NAME in DIRFD (FN, one of the four below) with its mode argument, which is there
 * only with O_CREAT or O_TMPFILE. */
#define OPEN_AT(fn, dirfd, ...)                                                                   \
	do {                                                                                      \
		char buf[PATH_MAX];                                                               \
		mode_t mode = 0;                                                                  \
		if (flags & (O_CREAT | __O_TMPFILE)) {                                            \
			va_list ap;                                                               \
			va_start(ap, flags);                                                      \
			mode = va_arg(ap, mode_t);                                                \
			va_end(ap);                                                               \
		}                                                                                 \
		if (fails("open", at_path(dirfd, name, buf)))                                     \
			return result(true, 0);                                                   \
		return REAL(fn)(__VA_ARGS__, flags, mode);                                        \
	} while (0)

int openat(int dirfd, const char *name, int flags, ...)
{
	OPEN_AT(openat, dirfd, dirfd, name);
}

int openat64(int dirfd, const char *name, int flags, ...)
{
	OPEN_AT(openat64, dirfd, dirfd, name);
}

int open(const char *name, int flags, ...)
{
	OPEN_AT(open, AT_FDCWD, name);
}

int open64(const char *name, int flags, ...)
{
	OPEN_AT(open64, AT_FDCWD, name);
}
