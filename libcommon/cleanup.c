/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Temporaries removed at exit and when a signal ends the process, from a table made beforehand. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "xalloc.h"

enum { FREE, TAKEN, READY }; /* an entry is the handler's only when READY */

static struct entry {
	int state;
	pid_t pid;   /* the process that registered it */
	int dirfd;   /* its directory: a descriptor of our own (O_PATH) */
	int lockfd;  /* rm_cleanup_mkdtemp's lock, else -1 */
	bool tree;
	dev_t dev;   /* what was at NAME when it was registered */
	ino_t ino;
	char name[NAME_MAX + 1];
} table[32];

#define N_ENTRIES (sizeof(table) / sizeof(table[0]))

static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define N_SIGNALS (sizeof(signals) / sizeof(signals[0]))
static struct sigaction previous[N_SIGNALS];

/* ---- removal: system calls on descriptors and buffers on the stack, safe in a handler ---- */

static int remove_at(int dirfd, const char *name, int depth);

/* Remove everything in the directory FD: passes until one removes nothing, since a directory
 * read while it changes may skip entries on some file systems; each pass but the last removes
 * something, so they end. */
static int remove_below(int fd, int depth)
{
	char buf[1024] __attribute__((aligned(8)));
	int removed, rc;
	ssize_t n;

	do {
		removed = 0;
		rc = 0;
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
			for (ssize_t off = 0; off < n; ) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
					continue;
				if (remove_at(fd, d->d_name, depth) == 0)
					removed++;
				else
					rc = -1;
			}
		}
		if (n < 0)
			return -1;
	} while (removed && lseek(fd, 0, SEEK_SET) == 0);
	return rc;
}

static int remove_at(int dirfd, const char *name, int depth)
{
	int fd, rc, saved;

	/* a file or a link goes at once; Linux says EISDIR for a directory */
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR)
		return -1;
	if (depth >= RM_CLEANUP_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = remove_below(fd, depth + 1);
	saved = errno;
	close(fd);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	errno = saved;
	return rc;
}

int rm_cleanup_remove_tree(int dirfd, const char *name)
{
	return remove_at(dirfd, name, 0);
}

/* Remove what E names, if it is still what was registered. */
static int remove_entry(struct entry *e)
{
	struct stat st;

	if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (st.st_dev != e->dev || st.st_ino != e->ino)
		return 0;
	if (e->tree)
		return rm_cleanup_remove_tree(e->dirfd, e->name);
	return unlinkat(e->dirfd, e->name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

static void remove_all(void)
{
	pid_t self = getpid();
	int saved = errno;

	for (size_t i = 0; i < N_ENTRIES; i++)
		if (__atomic_load_n(&table[i].state, __ATOMIC_ACQUIRE) == READY && table[i].pid == self)
			remove_entry(&table[i]);
	errno = saved;
}

static void on_signal(int sig)
{
	remove_all();
	for (size_t i = 0; i < N_SIGNALS; i++)
		if (signals[i] == sig)
			sigaction(sig, &previous[i], NULL);
	/* blocked while this handler runs: delivered, with the action it had before, on return */
	raise(sig);
}

/* The handlers, once, on every signal that ends a process and is not ignored. */
static void install(void)
{
	static bool done;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	if (__atomic_exchange_n(&done, true, __ATOMIC_ACQ_REL))
		return;
	atexit(remove_all);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_SIGNALS; i++)
		sigaddset(&sa.sa_mask, signals[i]);
	for (size_t i = 0; i < N_SIGNALS; i++)
		if (sigaction(signals[i], NULL, &previous[i]) == 0 &&
		    ((previous[i].sa_flags & SA_SIGINFO) || previous[i].sa_handler != SIG_IGN))
			sigaction(signals[i], &sa, NULL);
}

/* ---- the table ---- */

int rm_cleanup_add(int dirfd, const char *name, bool tree)
{
	struct stat st;

	if (strlen(name) > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	for (size_t i = 0; i < N_ENTRIES; i++) {
		struct entry *e = &table[i];
		int expected = FREE;

		if (!__atomic_compare_exchange_n(&e->state, &expected, TAKEN, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		e->dirfd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (e->dirfd < 0) {
			__atomic_store_n(&e->state, FREE, __ATOMIC_RELEASE);
			return -1;
		}
		e->pid = getpid();
		e->lockfd = -1;
		e->tree = tree;
		e->dev = st.st_dev;
		e->ino = st.st_ino;
		strcpy(e->name, name);
		install();
		__atomic_store_n(&e->state, READY, __ATOMIC_RELEASE);
		return (int)i;
	}
	errno = ENFILE;
	return -1;
}

void rm_cleanup_forget(int slot)
{
	struct entry *e;

	if (slot < 0 || (size_t)slot >= N_ENTRIES)
		return;
	e = &table[slot];
	__atomic_store_n(&e->state, TAKEN, __ATOMIC_RELEASE);
	close(e->dirfd);
	if (e->lockfd >= 0)
		close(e->lockfd);
	__atomic_store_n(&e->state, FREE, __ATOMIC_RELEASE);
}

int rm_cleanup_now(int slot)
{
	int rc, saved;

	if (slot < 0 || (size_t)slot >= N_ENTRIES)
		return 0;
	rc = remove_entry(&table[slot]);
	saved = errno;
	rm_cleanup_forget(slot);
	errno = saved;
	return rc;
}

/* ---- private directories ---- */

/* Remove PREFIX.PID.XXXXXX in DIRFD that a killed run left (see rm_cleanup_mkdtemp). */
static void remove_stale(int dirfd, const char *prefix)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	size_t len = strlen(prefix);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		const char *p = de->d_name + len + 1;
		struct stat st;
		char *end;
		long pid;
		int lock;

		if (strncmp(de->d_name, prefix, len) || de->d_name[len] != '.' || *p < '1' || *p > '9')
			continue;
		pid = strtol(p, &end, 10);
		if (*end != '.' || strlen(end + 1) != 6 || pid == getpid() || pid > INT_MAX ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		lock = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (lock < 0)
			continue;
		/* ours, private, and nobody's lock on it: what rm_cleanup_mkdtemp made */
		if (fstat(lock, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 077) &&
		    flock(lock, LOCK_EX | LOCK_NB) == 0)
			rm_cleanup_remove_tree(dirfd, de->d_name);
		close(lock);
	}
	closedir(d);
}

char *rm_cleanup_mkdtemp(int dirfd, const char *prefix, int *slot)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char *name = NULL;
	int lock, saved;

	remove_stale(dirfd, prefix);
	/* mkdtemp(3) takes a path; this makes the directory relative to DIRFD, where the caller
	 * has already pinned the place */
	for (int tries = 0; !name && tries < 100; tries++) {
		unsigned char r[6];

		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			return NULL;
		name = xasprintf("%s.%d.%c%c%c%c%c%c", prefix, (int)getpid(), chars[r[0] % 62],
				 chars[r[1] % 62], chars[r[2] % 62], chars[r[3] % 62],
				 chars[r[4] % 62], chars[r[5] % 62]);
		if (mkdirat(dirfd, name, 0700) == 0)
			break;
		free(name);
		name = NULL;
		if (errno != EEXIST)
			return NULL;
	}
	if (!name)
		return NULL;
	lock = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0 ||
	    (*slot = rm_cleanup_add(dirfd, name, true)) < 0) {
		saved = errno;
		if (lock >= 0)
			close(lock);
		unlinkat(dirfd, name, AT_REMOVEDIR);
		free(name);
		errno = saved;
		return NULL;
	}
	table[*slot].lockfd = lock;
	return name;
}
