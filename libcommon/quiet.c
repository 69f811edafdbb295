/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Quieting CPUs at run time: IRQs, workqueues, kernel threads, sysctls, the lockup detectors and
 * RPS/XPS off them, journaled. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cpulist.h"
#include "irq.h"
#include "irqbalance.h"
#include "kernfs.h"
#include "process.h"
#include "quiet.h"
#include "snaparchive.h"
#include "state.h"
#include "sysfs.h"
#include "xalloc.h"

extern char **environ;

const struct rm_quiet_sysctl rm_quiet_sysctls[] = {
	/* every timer stays on the CPU that armed it: with 1, Linux 6.9 and later hand idle CPUs'
	 * timers to a busy CPU of the timer migration hierarchy, which knows nothing of isolation
	 * made at run time and may pick a quiet one; measured on 6.1, 6.12 and 6.12-rt, 0 took
	 * less time from the quiet CPUs on each (the man page's figures) */
	{ "proc/sys/kernel/timer_migration", "0", "timers stay on the CPU that armed them" },
	/* the per-CPU VM statistics are folded every 10 s instead of every second: the vmstat
	 * work is one of the kernel's per-CPU wake-ups that cannot be moved */
	{ "proc/sys/vm/stat_interval", "10", "vmstat work every 10 s, not every 1 s" },
	{ NULL, NULL, NULL },
};

#define WQ_DIR "sys/devices/virtual/workqueue"
#define WATCHDOG_MASK "proc/sys/kernel/watchdog_cpumask"
#define NET_DIR "sys/class/net"
/* network interfaces and queues per interface looked at: bounds, above what machines have */
#define MAX_NICS 1024
#define MAX_QUEUES 4096
#define PF_KTHREAD 0x00200000u
#define PF_NO_SETAFFINITY 0x04000000u

/* ---- one change, for the undo of a failed sync ---- */

enum kind { K_IRQ, K_FILE, K_KTHREAD };

struct change {
	enum kind kind;
	int id;        /* IRQ or pid */
	char *path;    /* K_FILE: below the root */
	char *before;  /* the value before this sync */
};

struct sync {
	const char *root;
	hwloc_bitmap_t quiet, hk;  /* the quiet CPUs, the housekeeping ones */
	struct rm_state st;
	struct rm_record *next;    /* the journal after the sync */
	size_t nnext;
	struct change *done;       /* what this sync changed, to undo */
	size_t ndone;
	struct rm_quiet_result *res;
	char *warn;                /* restore failures, one per line */
	int irqbalance;            /* its pid, 0 when none runs */
	hwloc_bitmap_t was_quiet;  /* the journal's quiet CPUs before this sync */
	bool told;                 /* irqbalance took the banned CPUs through its socket */
};

static void add_next(struct sync *s, struct rm_record *r)
{
	s->next = xrealloc(s->next, (s->nnext + 1) * sizeof(*s->next));
	s->next[s->nnext++] = *r;
}

static void add_done(struct sync *s, enum kind kind, int id, const char *path, const char *before)
{
	s->done = xrealloc(s->done, (s->ndone + 1) * sizeof(*s->done));
	s->done[s->ndone++] = (struct change){ kind, id, path ? xstrdup(path) : NULL,
					       xstrdup(before) };
}

static void add_warning(struct sync *s, char *msg)
{
	char *w = s->warn ? xasprintf("%s; %s", s->warn, msg) : xstrdup(msg);

	free(s->warn);
	free(msg);
	s->warn = w;
}

/* The journal record of KIND with id ID, or NULL. */
static const struct rm_record *journal_find(const struct sync *s, const char *kind, const char *id)
{
	long i = rm_state_find(&s->st, kind, id);

	return i < 0 ? NULL : &s->st.records[i];
}

static char *boot_id(const char *root)
{
	char *b = rm_sysfs_read(root, "proc/sys/kernel/random/boot_id");

	return b ? b : xstrdup("-");
}

/* The affinity WAS without the quiet CPUs; the housekeeping CPUs when nothing is left. */
static void away(const struct sync *s, hwloc_const_bitmap_t was, hwloc_bitmap_t want)
{
	hwloc_bitmap_andnot(want, was, s->quiet);
	if (hwloc_bitmap_iszero(want))
		hwloc_bitmap_copy(want, s->hk);
}

static int write_file(const char *root, const char *path, const char *value)
{
	char *full = rm_sysfs_path(root, path);
	int rc = rm_kernfs_write(full, value, RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC);

	free(full);
	return rc;
}

/* ---- IRQs ---- */

static int sync_irqs(struct sync *s, bool restore, bool apply)
{
	hwloc_bitmap_t cur = hwloc_bitmap_alloc(), was = hwloc_bitmap_alloc(),
		       want = hwloc_bitmap_alloc();
	int *irqs = NULL, n = rm_irq_list(s->root, &irqs);

	for (int i = 0; i < n; i++) {
		char id[16], rel[64], *curs, *wants;
		const struct rm_record *j;
		const char *was_s;
		int rc;

		snprintf(id, sizeof(id), "%d", irqs[i]);
		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irqs[i]);
		if (!(curs = rm_sysfs_read(s->root, rel)) || rm_cpulist_parse(curs, cur, NULL)) {
			free(curs);
			continue;
		}
		j = journal_find(s, "irq", id);
		was_s = j ? rm_record_get(j, "was") : curs;
		if (!was_s || rm_cpulist_parse(was_s, was, NULL))
			was_s = curs, hwloc_bitmap_copy(was, cur);
		if (restore)
			hwloc_bitmap_copy(want, was);
		else
			away(s, was, want);
		wants = hwloc_bitmap_isequal(want, was) ? xstrdup(was_s) : rm_cpulist_format(want);
		rc = 0;
		if (apply && !hwloc_bitmap_isequal(cur, want)) {
			if ((rc = rm_irq_set_affinity(s->root, irqs[i], wants)) == 0)
				add_done(s, K_IRQ, irqs[i], NULL, curs);
			else if (hwloc_bitmap_isequal(want, was))
				add_warning(s, xasprintf("cannot restore IRQ %d's affinity %s: %s",
							 irqs[i], wants, strerror(rc)));
			else if (hwloc_bitmap_intersects(cur, s->quiet))
				/* EIO: managed, per-CPU or not balanced; the kernel keeps it */
				hwloc_bitmap_set(s->res->unmovable, (unsigned)irqs[i]);
		}
		if (!hwloc_bitmap_isequal(want, was) && (!rc || !hwloc_bitmap_isequal(cur, was))) {
			/* moved, now or before; an IRQ that cannot move needs no record */
			struct rm_record r = { 0 };

			rm_record_set(&r, "irq", id);
			rm_record_set(&r, "was", was_s);
			add_next(s, &r);
		}
		free(wants);
		free(curs);
	}
	free(irqs);
	hwloc_bitmap_free(cur);
	hwloc_bitmap_free(was);
	hwloc_bitmap_free(want);
	return 0;
}

/* ---- workqueue cpumasks, sysctls, the lockup detectors' CPUs, NIC queues' RPS and XPS masks:
 * files with a value each ---- */

/* How a file holds its value: as it is, or a set of CPUs (a hex mask or a list) from which the
 * quiet CPUs are taken. */
enum format { F_VALUE, F_MASK, F_LIST };

static int parse_set(enum format f, const char *str, hwloc_bitmap_t set)
{
	return f == F_MASK ? rm_cpulist_parse_mask(str, set, NULL) :
			     rm_cpulist_parse_list(str, set, NULL);
}

/* FILE (below the root) to VALUE (or, for a set, its value less the quiet CPUs; an empty set
 * stays empty: RPS or XPS off); FATAL: a failure to write fails the sync (the global workqueue
 * mask, the sysctls), else it is skipped (a workqueue the kernel does not let change). */
static int sync_file(struct sync *s, const char *path, const char *value, enum format f,
		     bool fatal, bool restore, bool apply, char **errmsg)
{
	const struct rm_record *j = journal_find(s, "file", path);
	char *cur = rm_sysfs_read(s->root, path), *want = NULL;
	const char *was;
	hwloc_bitmap_t set;
	int rc = 0, e;

	if (!cur)
		return 0; /* not on this kernel */
	was = j && rm_record_get(j, "was") ? rm_record_get(j, "was") : cur;
	if (restore) {
		want = xstrdup(was);
	} else if (f != F_VALUE) {
		hwloc_bitmap_t w = hwloc_bitmap_alloc();

		set = hwloc_bitmap_alloc();
		if (parse_set(f, was, set) == 0 && !hwloc_bitmap_iszero(set)) {
			away(s, set, w);
			want = hwloc_bitmap_isequal(w, set) ? xstrdup(was) :
			       f == F_MASK		    ? rm_cpulist_format_mask(w) :
							      rm_cpulist_format(w);
		}
		hwloc_bitmap_free(set);
		hwloc_bitmap_free(w);
		if (!want)
			want = xstrdup(was);
	} else {
		want = xstrdup(value);
	}
	if (strcmp(want, was)) {
		struct rm_record r = { 0 };

		rm_record_set(&r, "file", path);
		rm_record_set(&r, "was", was);
		add_next(s, &r);
	}
	if (apply && strcmp(cur, want)) {
		bool same = false;

		if (f != F_VALUE) { /* "ff" and "000000ff" are the same mask */
			hwloc_bitmap_t a = hwloc_bitmap_alloc(), b = hwloc_bitmap_alloc();

			same = !parse_set(f, cur, a) && !parse_set(f, want, b) &&
			       hwloc_bitmap_isequal(a, b);
			hwloc_bitmap_free(a);
			hwloc_bitmap_free(b);
		}
		if (!same && (e = write_file(s->root, path, want)) == 0) {
			add_done(s, K_FILE, 0, path, cur);
		} else if (!same && restore) {
			add_warning(s, xasprintf("cannot restore /%s to '%s': %s", path, want,
						 strerror(e)));
		} else if (!same && fatal) {
			*errmsg = xasprintf("cannot write '%s' to /%s: %s", want, path, strerror(e));
			rc = -1;
		}
	}
	free(want);
	free(cur);
	return rc;
}

static bool is_subdir(const char *name)
{
	return name[0] != '.';
}

static bool is_queue(const char *name)
{
	return !strncmp(name, "rx-", 3) || !strncmp(name, "tx-", 3);
}

/* The queues directory of network interface NAME below the root ("sys/devices/.../queues"),
 * from its link in sys/class/net: writes follow no link. NULL when it is no such link. */
static char *nic_dir(const struct sync *s, const char *name)
{
	char *link = rm_sysfs_path(s->root, NET_DIR), *path = xasprintf("%s/%s", link, name);
	char buf[512];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	free(link);
	free(path);
	if (n <= 0 || (size_t)n >= sizeof(buf) - 1)
		return NULL;
	buf[n] = '\0';
	if (strncmp(buf, "../../devices/", 14) || strstr(buf + 13, "/.."))
		return NULL;
	return xasprintf("sys/%s/queues", buf + 6);
}

/* Each NIC queue's RPS mask (the CPUs its received packets are processed on) and XPS mask (the
 * CPUs whose packets it sends); both skipped where the kernel refuses them. */
static void sync_nics(struct sync *s, bool restore, bool apply)
{
	char *dir = rm_sysfs_path(s->root, NET_DIR), **nics = NULL;
	int n = rm_kernfs_subdirs(dir, 0, NULL, &nics);

	for (int i = 0; i < n && i < MAX_NICS; i++) {
		char *dev = nic_dir(s, nics[i]), *queues_dir, **queues = NULL;
		int nq;

		if (!dev)
			continue;
		queues_dir = rm_sysfs_path(s->root, dev);
		nq = rm_kernfs_subdirs(queues_dir, RM_KERNFS_NOFOLLOW, is_queue, &queues);
		for (int q = 0; q < nq && q < MAX_QUEUES; q++) {
			char *path = xasprintf("%s/%s/%s", dev, queues[q],
					       queues[q][0] == 'r' ? "rps_cpus" : "xps_cpus");

			sync_file(s, path, NULL, F_MASK, false, restore, apply, NULL);
			free(path);
		}
		if (nq > 0)
			rm_kernfs_names_free(queues, nq);
		free(queues_dir);
		free(dev);
	}
	if (n > 0)
		rm_kernfs_names_free(nics, n);
	free(dir);
}

static int sync_files(struct sync *s, bool restore, bool apply, char **errmsg)
{
	char *dir = rm_sysfs_path(s->root, WQ_DIR), **names = NULL;
	int n, rc = 0;

	if (sync_file(s, WQ_DIR "/cpumask", NULL, F_MASK, true, restore, apply, errmsg)) {
		free(dir);
		return -1;
	}
	n = rm_kernfs_subdirs(dir, 0, is_subdir, &names);
	for (int i = 0; i < n && !rc; i++) {
		char *path = xasprintf(WQ_DIR "/%s/cpumask", names[i]);

		rc = sync_file(s, path, NULL, F_MASK, false, restore, apply, errmsg);
		free(path);
	}
	if (n > 0)
		rm_kernfs_names_free(names, n);
	free(dir);
	for (const struct rm_quiet_sysctl *q = rm_quiet_sysctls; q->path && !rc; q++)
		rc = sync_file(s, q->path, q->value, F_VALUE, true, restore, apply, errmsg);
	/* the lockup detectors (the NMI watchdog and the soft lockup timer) on the other CPUs */
	if (!rc)
		sync_file(s, WATCHDOG_MASK, NULL, F_LIST, false, restore, apply, NULL);
	if (!rc)
		sync_nics(s, restore, apply);
	return rc;
}

/* ---- kernel threads (this machine only: their affinity is a system call's) ---- */

int rm_quiet_kthread(const char *root, int pid, bool *movable)
{
	char rel[64], *stat, *p;
	unsigned long flags = 0;
	int i;

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	if (!(stat = rm_sysfs_read(root, rel)))
		return -1;
	/* "pid (comm) state ppid ...": flags is field 9 */
	p = strrchr(stat, ')');
	for (i = 2; p && i < 9; i++)
		p = strchr(p + 1, ' ');
	if (p)
		flags = strtoul(p + 1, NULL, 10);
	free(stat);
	if (!p)
		return -1;
	*movable = !(flags & PF_NO_SETAFFINITY);
	return (flags & PF_KTHREAD) != 0;
}

static int get_affinity(int pid, hwloc_bitmap_t set)
{
	cpu_set_t *mask = CPU_ALLOC(RM_CPULIST_MAX + 1);
	size_t size = CPU_ALLOC_SIZE(RM_CPULIST_MAX + 1);
	int rc = sched_getaffinity(pid, size, mask);

	hwloc_bitmap_zero(set);
	if (rc == 0)
		for (int c = 0; c <= RM_CPULIST_MAX; c++)
			if (CPU_ISSET_S(c, size, mask))
				hwloc_bitmap_set(set, (unsigned)c);
	CPU_FREE(mask);
	return rc;
}

static int set_affinity(int pid, hwloc_const_bitmap_t set)
{
	cpu_set_t *mask = CPU_ALLOC(RM_CPULIST_MAX + 1);
	size_t size = CPU_ALLOC_SIZE(RM_CPULIST_MAX + 1);
	int c, rc;

	CPU_ZERO_S(size, mask);
	hwloc_bitmap_foreach_begin(c, set)
		if (c <= RM_CPULIST_MAX)
			CPU_SET_S((size_t)c, size, mask);
	hwloc_bitmap_foreach_end();
	rc = sched_setaffinity(pid, size, mask) ? errno : 0;
	CPU_FREE(mask);
	return rc;
}

static int set_affinity_list(int pid, const char *list)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc = rm_cpulist_parse(list, set, NULL) ? EINVAL : set_affinity(pid, set);

	hwloc_bitmap_free(set);
	return rc;
}

static void sync_kthreads(struct sync *s, bool restore, bool apply)
{
	hwloc_bitmap_t cur = hwloc_bitmap_alloc(), was = hwloc_bitmap_alloc(),
		       want = hwloc_bitmap_alloc();
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end, id[16], start[32];
		long pid = strtol(e->d_name, &end, 10);
		const struct rm_record *j;
		bool movable;
		char *curs;

		if (!isdigit((unsigned char)e->d_name[0]) || *end ||
		    rm_quiet_kthread(NULL, (int)pid, &movable) != 1 || !movable ||
		    get_affinity((int)pid, cur))
			continue;
		snprintf(id, sizeof(id), "%ld", pid);
		snprintf(start, sizeof(start), "%llu", rm_process_start_time(pid));
		j = journal_find(s, "kthread", id);
		if (j && strcmp(rm_record_get(j, "start") ?: "", start))
			j = NULL; /* another thread with the pid of one gone */
		hwloc_bitmap_copy(was, cur);
		if (j && rm_cpulist_parse(rm_record_get(j, "was") ?: "", was, NULL))
			hwloc_bitmap_copy(was, cur);
		if (restore) {
			hwloc_bitmap_copy(want, was);
		} else {
			hwloc_bitmap_andnot(want, was, s->quiet);
			if (hwloc_bitmap_iszero(want))
				hwloc_bitmap_copy(want, was); /* bound to the quiet CPUs by someone */
		}
		if (!hwloc_bitmap_isequal(want, was)) {
			struct rm_record r = { 0 };
			char *w = rm_cpulist_format(was);

			rm_record_set(&r, "kthread", id);
			rm_record_set(&r, "start", start);
			rm_record_set(&r, "was", w);
			add_next(s, &r);
			free(w);
		}
		if (apply && !hwloc_bitmap_isequal(cur, want)) {
			curs = rm_cpulist_format(cur);
			/* EINVAL: the kernel keeps it where it is; ESRCH: it has exited */
			if (set_affinity((int)pid, want) == 0)
				add_done(s, K_KTHREAD, (int)pid, NULL, curs);
			free(curs);
		}
	}
	if (d)
		closedir(d);
	hwloc_bitmap_free(cur);
	hwloc_bitmap_free(was);
	hwloc_bitmap_free(want);
}

/* ---- irqbalance ---- */

static bool systemd_runs(const char *root)
{
	char *comm;
	bool yes;

	if (root && *root && strcmp(root, "/"))
		return false;
	comm = rm_sysfs_read(NULL, "proc/1/comm");
	yes = comm && !strcmp(comm, "systemd") && access("/run/systemd/system", F_OK) == 0;
	free(comm);
	return yes;
}

char *rm_quiet_irqbalance_file(const char *root)
{
	return rm_sysfs_path(root, systemd_runs(root) ?
			     "run/systemd/system/irqbalance.service.d/rmtools-quiet.conf" :
			     "run/rmtools/irqbalance.env");
}

/* The pid of a running irqbalance, or 0. */
static int irqbalance_pid(const char *root)
{
	char *dir = rm_sysfs_path(root, "proc");
	DIR *d = opendir(dir);
	struct dirent *e;
	int pid = 0;

	free(dir);
	while (d && !pid && (e = readdir(d))) {
		char rel[300], *comm;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "proc/%s/comm", e->d_name);
		if ((comm = rm_sysfs_read(root, rel)) && !strcmp(comm, "irqbalance"))
			pid = atoi(e->d_name);
		free(comm);
	}
	if (d)
		closedir(d);
	return pid;
}

static int run_cmd(char *const argv[])
{
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* mkdir -p of PATH, each component created 0755 and none a link. */
/* Replace FILE (absolute) with TEXT (NULL: remove it), atomically; its directories are reached
 * (and made) from / one at a time, no link followed. 0 or -1 with errno. */
static int put_text(const char *file, const char *text)
{
	char *dir = xstrdup(file), *msg = NULL;
	const char *name = strrchr(file, '/') + 1;
	struct rm_atomic a;
	int root, dfd, rc = -1, saved;

	dir[name - file - 1] = '\0';
	root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dfd = root < 0 ? -1 : !*dir ? dup(root) : rm_tree_open_dir(root, dir + 1, text != NULL);
	saved = errno;
	if (root >= 0)
		close(root);
	free(dir);
	if (dfd < 0) {
		errno = saved;
		return text || (errno != ENOENT) ? -1 : 0;
	}
	if (!text)
		rc = unlinkat(dfd, name, 0) && errno != ENOENT ? -1 : 0;
	else if (rm_atomic_openat(&a, dfd, name, file, 0644, NULL, &msg) == 0)
		rc = (fputs(text, a.f), rm_atomic_commit(&a, &msg));
	saved = errno;
	free(msg);
	close(dfd);
	errno = saved;
	return rc;
}

/* What irqbalance is to ban with QUIET quiet: QUIET and the isolcpus= and nohz_full= CPUs it
 * bans by itself (a list it is given replaces those). Allocated. */
static char *banned_list(const struct sync *s, hwloc_const_bitmap_t quiet)
{
	hwloc_bitmap_t ban = hwloc_bitmap_dup(quiet), set = hwloc_bitmap_alloc();
	char *list;

	if (rm_sysfs_read_set(s->root, "sys/devices/system/cpu/isolated", set) == 0)
		hwloc_bitmap_or(ban, ban, set);
	if (rm_sysfs_read_set(s->root, "sys/devices/system/cpu/nohz_full", set) == 0)
		hwloc_bitmap_or(ban, ban, set);
	list = rm_cpulist_format(ban);
	hwloc_bitmap_free(ban);
	hwloc_bitmap_free(set);
	return list;
}

/* Tell a running irqbalance through its socket to ban QUIET's CPUs from its next pass on: before
 * the IRQs move off them, so that it puts none back. Sets s->told; a daemon without a socket is
 * left to sync_irqbalance's restart. */
static void tell_irqbalance(struct sync *s, hwloc_const_bitmap_t quiet)
{
	char *list = banned_list(s, quiet), *msg = NULL;

	int rc = s->irqbalance ? rm_irqbalance_ban(s->root, s->irqbalance, list, &msg) : 1;

	s->told = rc == 0;
	if (rc < 0)
		add_warning(s, msg);
	else
		free(msg);
	free(list);
}

/* The file irqbalance reads its banned CPUs from when it starts (IRQBALANCE_BANNED_CPULIST): a
 * systemd drop-in, else an environment file; a running daemon that took them through its socket
 * needs no restart, one that did not is restarted by systemd or named for the admin. */
static int sync_irqbalance(struct sync *s, bool restore, char **errmsg)
{
	char *file = rm_quiet_irqbalance_file(s->root), *text = NULL, *cur, *list;
	bool systemd = systemd_runs(s->root);
	int rc = 0;

	if (!restore) {
		list = banned_list(s, s->quiet);
		text = systemd ? xasprintf("# rm-cpuset: CPUs of isolated owners\n[Service]\n"
					   "Environment=IRQBALANCE_BANNED_CPULIST=%s\n", list)
			       : xasprintf("IRQBALANCE_BANNED_CPULIST=%s\n", list);
		free(list);
	}
	cur = rm_kernfs_read_raw(file, RM_KERNFS_NOFOLLOW, &(size_t){ 0 });
	if ((cur || text) && !(cur && text && !strcmp(cur, text))) {
		if (put_text(file, text)) {
			*errmsg = xasprintf("cannot %s %s: %s", text ? "write" : "remove", file,
					    strerror(errno));
			rc = -1;
		} else if (systemd) {
			/* the drop-in counts from the next reload: at boot too, where irqbalance
			 * starts after rm-cpuset (rmtools-cpuset.service). A restart, only for a
			 * daemon that has no socket, is queued, not waited for: irqbalance is
			 * ordered after rmtools-cpuset.service, which may be what runs this. */
			char *reload[] = { "systemctl", "daemon-reload", NULL };
			char *restart[] = { "systemctl", "--no-block", "try-restart",
					    "irqbalance.service", NULL };

			if (run_cmd(reload) || (s->irqbalance && !s->told && run_cmd(restart)))
				s->res->irqbalance = xasprintf(
					"systemd could not be told of %s: 'systemctl daemon-reload' "
					"and 'systemctl restart irqbalance' make irqbalance read it",
					file);
		} else if (s->irqbalance && !s->told) {
			s->res->irqbalance = xasprintf(
				"irqbalance (pid %d) has no socket and reads its banned CPUs when it "
				"starts: restart it with the environment in %s, then 'rm-cpuset gc' "
				"moves off any IRQ it put back", s->irqbalance, file);
		}
	}
	free(cur);
	free(text);
	free(file);
	return rc;
}

/* ---- the sync ---- */

static void undo(struct sync *s)
{
	for (size_t i = s->ndone; i-- > 0;) {
		struct change *c = &s->done[i];

		if (c->kind == K_IRQ)
			rm_irq_set_affinity(s->root, c->id, c->before);
		else if (c->kind == K_FILE)
			write_file(s->root, c->path, c->before);
		else
			set_affinity_list(c->id, c->before);
	}
	if (s->told)
		tell_irqbalance(s, s->was_quiet);
}

static void free_records(struct rm_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rm_record_free(&r[i]);
	free(r);
}

/* Replace the journal's records with HEAD and the N records at R (copied), and commit. */
static int commit_journal(struct sync *s, const struct rm_record *head, const struct rm_record *r,
			  size_t n, const struct rm_record *keep, size_t nkeep)
{
	while (s->st.nrecords)
		rm_state_remove(&s->st, s->st.nrecords - 1);
	if (head) {
		struct rm_record c;

		rm_record_copy(&c, head);
		rm_state_add(&s->st, &c);
	}
	for (size_t i = 0; i < nkeep; i++) {
		struct rm_record c;

		if (!strcmp(rm_record_kind(&keep[i]), "boot"))
			continue;
		rm_record_copy(&c, &keep[i]);
		rm_state_add(&s->st, &c);
	}
	for (size_t i = 0; i < n; i++) {
		struct rm_record c;
		const char *k = rm_record_kind(&r[i]);

		if (nkeep && rm_state_find(&s->st, k, rm_record_get(&r[i], k)) >= 0)
			continue;
		rm_record_copy(&c, &r[i]);
		rm_state_add(&s->st, &c);
	}
	return rm_state_commit(&s->st);
}

int rm_quiet_sync(const char *root, hwloc_const_bitmap_t quiet, hwloc_const_bitmap_t online,
		  struct rm_quiet_result *res, char **errmsg)
{
	struct rm_quiet_result own = { 0 };
	struct sync s = { .root = root };
	struct rm_record head = { 0 }, *old = NULL;
	size_t nold = 0;
	bool restore = hwloc_bitmap_iszero(quiet), live = !root || !*root || !strcmp(root, "/");
	char *boot = boot_id(root), *list, *msg = NULL;
	int rc = -1;

	if (!res)
		res = &own;
	memset(res, 0, sizeof(*res));
	res->unmovable = hwloc_bitmap_alloc();
	s.res = res;
	if (rm_state_open(&s.st, RM_QUIET_STATE, RM_STATE_WRITE, &msg)) {
		*errmsg = msg;
		rm_state_close(&s.st);
		free(boot);
		if (res == &own)
			rm_quiet_result_free(&own);
		return -1;
	}
	/* a journal of an earlier boot: its values are gone with it */
	if (rm_state_find(&s.st, "boot", boot) < 0)
		while (s.st.nrecords)
			rm_state_remove(&s.st, s.st.nrecords - 1);
	if (restore && !s.st.nrecords) { /* nothing quiet, nothing to restore */
		rc = sync_irqbalance(&s, true, errmsg);
		goto out;
	}
	s.quiet = hwloc_bitmap_dup(quiet);
	s.hk = hwloc_bitmap_alloc();
	hwloc_bitmap_andnot(s.hk, online, quiet);
	if (!restore && hwloc_bitmap_iszero(s.hk)) {
		*errmsg = xstrdup("quieting CPUs needs a CPU left for the kernel's housekeeping");
		goto out;
	}
	old = xcalloc(s.st.nrecords + 1, sizeof(*old));
	nold = s.st.nrecords;
	s.was_quiet = hwloc_bitmap_alloc();
	for (size_t i = 0; i < nold; i++) {
		rm_record_copy(&old[i], &s.st.records[i]);
		if (!strcmp(rm_record_kind(&old[i]), "boot"))
			rm_cpulist_parse(rm_record_get(&old[i], "cpus") ?: "", s.was_quiet, NULL);
	}

	/* plan: the journal gets every value about to change before it changes */
	sync_irqs(&s, restore, false);
	if (sync_files(&s, restore, false, errmsg))
		goto out;
	if (live)
		sync_kthreads(&s, restore, false);
	list = rm_cpulist_format(quiet);
	rm_record_set(&head, "boot", boot);
	rm_record_set(&head, "cpus", list);
	free(list);
	if (commit_journal(&s, &head, s.next, s.nnext, old, nold)) {
		*errmsg = xasprintf("cannot write %s: %s", s.st.path, strerror(errno));
		goto out;
	}
	free_records(s.next, s.nnext);
	s.next = NULL;
	s.nnext = 0;

	/* apply: irqbalance bans the quiet CPUs before the IRQs leave them */
	s.irqbalance = irqbalance_pid(root);
	if (!restore)
		tell_irqbalance(&s, quiet);
	sync_irqs(&s, restore, true);
	if (sync_files(&s, restore, true, errmsg) ||
	    (live ? (sync_kthreads(&s, restore, true), 0) : 0) ||
	    (restore ? (tell_irqbalance(&s, quiet), 0) : 0) ||
	    sync_irqbalance(&s, restore, errmsg)) {
		undo(&s);
		/* when this fails, the journal holds the values before: a later sync restores */
		(void)commit_journal(&s, NULL, old, nold, NULL, 0);
		goto out;
	}
	/* the journal now holds what stays changed; none with nothing quiet */
	if (!restore) {
		char *ids = rm_cpulist_format(res->unmovable);

		if (*ids) {
			int id;

			hwloc_bitmap_foreach_begin(id, res->unmovable) {
				struct rm_record r = { 0 };
				char buf[16];

				snprintf(buf, sizeof(buf), "%d", id);
				rm_record_set(&r, "unmovable", buf);
				add_next(&s, &r);
			} hwloc_bitmap_foreach_end();
		}
		free(ids);
	}
	if (commit_journal(&s, restore ? NULL : &head, s.next, s.nnext, NULL, 0)) {
		*errmsg = xasprintf("cannot write %s: %s", s.st.path, strerror(errno));
		undo(&s);
		commit_journal(&s, NULL, old, nold, NULL, 0);
		goto out;
	}
	rc = 0;
out:
	if (s.warn) {
		if (rc == 0 && res != &own) {
			char *w = res->irqbalance ? xasprintf("%s; %s", res->irqbalance, s.warn)
						  : xstrdup(s.warn);

			free(res->irqbalance);
			res->irqbalance = w;
		}
		free(s.warn);
	}
	for (size_t i = 0; i < s.ndone; i++) {
		free(s.done[i].path);
		free(s.done[i].before);
	}
	free(s.done);
	free_records(s.next, s.nnext);
	free_records(old, nold);
	rm_record_free(&head);
	rm_state_close(&s.st);
	if (s.quiet)
		hwloc_bitmap_free(s.quiet);
	if (s.hk)
		hwloc_bitmap_free(s.hk);
	if (s.was_quiet)
		hwloc_bitmap_free(s.was_quiet);
	free(boot);
	if (res == &own)
		rm_quiet_result_free(&own);
	return rc;
}

void rm_quiet_result_free(struct rm_quiet_result *res)
{
	if (res->unmovable)
		hwloc_bitmap_free(res->unmovable);
	free(res->irqbalance);
	memset(res, 0, sizeof(*res));
}

void rm_quiet_unmovable(hwloc_bitmap_t set)
{
	struct rm_state st;
	char *msg = NULL;

	hwloc_bitmap_zero(set);
	if (rm_state_open(&st, RM_QUIET_STATE, RM_STATE_READ, &msg) == 0)
		for (size_t i = 0; i < st.nrecords; i++)
			if (!strcmp(rm_record_kind(&st.records[i]), "unmovable"))
				hwloc_bitmap_set(set, (unsigned)atoi(rm_record_get(&st.records[i],
										 "unmovable")));
	free(msg);
	rm_state_close(&st);
}
