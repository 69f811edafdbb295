/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lock files: checked to be ours before they are locked; waits are bounded and name the holder. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "exitcodes.h"
#include "lock.h"
#include "msg.h"
#include "xalloc.h"

static double wait_seconds = -1; /* -1: not set by --wait */

int rm_lock_parse_wait(const char *s, double *seconds)
{
	char *end;
	double v;

	/* digits and at most one point: no sign, exponent, hex, "inf" or "nan" */
	if (!*s || strspn(s, "0123456789.") != strlen(s) || strchr(s, '.') != strrchr(s, '.') ||
	    !strcmp(s, "."))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0 || v > RM_LOCK_WAIT_MAX)
		return -1;
	*seconds = v;
	return 0;
}

void rm_lock_set_wait(double seconds)
{
	wait_seconds = seconds;
}

double rm_lock_wait(void)
{
	const char *env = getenv("RM_LOCK_WAIT");
	double v;

	if (wait_seconds >= 0)
		return wait_seconds;
	if (!env)
		return RM_LOCK_WAIT_DEFAULT;
	if (rm_lock_parse_wait(env, &v) < 0)
		rm_usage_errx("invalid RM_LOCK_WAIT: '%s' (seconds, from 0 to %.0f)", env,
			      RM_LOCK_WAIT_MAX);
	return v;
}

int rm_lock_holder(int fd)
{
	struct stat st;
	char line[256];
	int pid = 0;
	FILE *f;

	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:56789 0 EOF"; blocked waiters have "->" after
	 * the number, and the device's major and minor numbers are hexadecimal */
	while (!pid && fgets(line, sizeof(line), f)) {
		char type[16], arrow[4];
		unsigned maj, min;
		unsigned long long ino;
		int p;

		if (sscanf(line, "%*d: %3s", arrow) == 1 && !strcmp(arrow, "->"))
			continue;
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", type, &p, &maj, &min, &ino) == 5 &&
		    !strcmp(type, "FLOCK") && maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    ino == (unsigned long long)st.st_ino && p > 0)
			pid = p;
	}
	fclose(f);
	return pid;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *holder_text(int fd)
{
	int pid = rm_lock_holder(fd);

	return pid ? xasprintf("pid %d", pid) : xstrdup("another process");
}

/*
 * Lock FD, waiting up to rm_lock_wait() seconds. The wait polls with LOCK_NB (every 1 ms at
 * first, then at most every 20 ms): a blocking flock() cannot be given a timeout without a
 * signal, and a signal handler would be taken from the tool for the time of the wait.
 * The holder is looked up every 100 ms; one that has held the lock for RM_LOCK_NOTICE_AFTER is
 * named once. Commands that run side by side hold it in turns, briefly, and are not named.
 */
static int lock_wait(int fd, int op, const char *path)
{
	double wait = rm_lock_wait(), start, t, since, looked = -1;
	bool told = false;
	long step = 1000000; /* ns */
	int holder = -1;

	if (flock(fd, op | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -1;
	start = since = now();
	for (;;) {
		t = now();
		if (t - start >= wait) {
			char *who = holder_text(fd);

			rm_errx(RM_EXIT_NORESOURCE, "lock still held by %s after %g s: '%s'", who,
				wait, path);
		}
		if (!told && t - looked >= 0.1) {
			int pid = rm_lock_holder(fd);

			looked = t;
			if (pid != holder) {
				holder = pid;
				since = t;
			} else if (t - since >= RM_LOCK_NOTICE_AFTER) {
				char *who = holder_text(fd);

				rm_warnx("waiting up to %g s for the lock held by %s: '%s'", wait, who,
					 path);
				free(who);
				told = true;
			}
		}
		nanosleep(&(struct timespec){ 0, step }, NULL);
		if (step < 20000000)
			step *= 2;
		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
	}
}

int rm_lock_at(int dirfd, const char *name, const char *path, int op, bool create,
	       char **errmsg)
{
	int fd, flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	struct stat st;

	/* O_NONBLOCK: a FIFO planted at the path opens at once, and is refused below */
	flags |= create ? O_RDWR | O_CREAT : O_RDONLY;
	fd = openat(dirfd, name, flags, 0600);
	if (fd < 0) {
		int saved = errno;

		*errmsg = saved == ELOOP ? xasprintf("lock file is a symlink: '%s'", path)
					 : xasprintf("cannot open lock file '%s': %s", path,
						     strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*errmsg = xasprintf("cannot open lock file '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		*errmsg = xasprintf("lock file is not a regular file: '%s'", path);
		errno = EINVAL;
		goto fail;
	}
	if (st.st_uid != geteuid() || st.st_nlink != 1) {
		*errmsg = xasprintf(st.st_uid != geteuid() ? "lock file belongs to another user: '%s'"
							   : "lock file has other links: '%s'",
				    path);
		/* another user's lock, opened to read (a 0644 one of an earlier rmtools): not ours
		 * to hold, as if it could not be opened */
		errno = st.st_uid != geteuid() && !create ? EACCES : EPERM;
		goto fail;
	}
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0) {
		*errmsg = xasprintf("cannot make lock file '%s' private: %s", path,
				    strerror(errno));
		goto fail;
	}
	if (lock_wait(fd, op, path) < 0) {
		*errmsg = xasprintf("cannot lock '%s': %s", path, strerror(errno));
		goto fail;
	}
	return fd;
fail: {
	int saved = errno;

	close(fd);
	errno = saved;
	return -1;
}
}

int rm_lock_dir(const char *dir, char **errmsg)
{
	struct stat st;
	int fd;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		goto sys;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR) {
			*errmsg = xasprintf("lock directory is not a directory: '%s'", dir);
			return -1;
		}
		goto sys;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		goto sys;
	}
	if (st.st_uid != geteuid()) {
		*errmsg = xasprintf("lock directory belongs to another user: '%s'", dir);
		close(fd);
		return -1;
	}
	if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0) {
		close(fd);
		goto sys;
	}
	return fd;
sys:
	*errmsg = xasprintf("cannot use lock directory '%s': %s", dir, strerror(errno));
	return -1;
}
