/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset attach: move running processes, every thread, onto an owner's CPUs and cgroup. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "exitcodes.h"
#include "hugetlb.h"
#include "input.h"
#include "numalib.h"
#include "iolimit.h"
#include "owner.h"
#include "rm-cpuset.h"
#include "xalloc.h"

enum { OPT_MIGRATE = 0x300, OPT_OCI_STATE };

/* The most of an OCI state read from standard input */
#define OCI_STATE_MAX (1 << 20)

struct attach_args {
	const char *owner;
	pid_t *pids;
	int npids;
	bool migrate, dry_run, oci_state;
};

static const struct argp_option attach_options[] = {
	{ "migrate-memory", OPT_MIGRATE, NULL, 0,
	  "move the processes' memory to the owner's NUMA nodes (migrate_pages)", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would be moved, change nothing", 0 },
	{ "oci-state", OPT_OCI_STATE, NULL, 0,
	  "the process is the \"pid\" of the OCI container state on standard input (as a "
	  "runtime gives it to a hook)", 0 },
	{ 0 }
};

static error_t attach_parse(int key, char *arg, struct argp_state *state)
{
	struct attach_args *a = state->input;
	uint64_t pid;

	switch (key) {
	case OPT_MIGRATE:
		a->migrate = true;
		break;
	case RM_OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_OCI_STATE:
		a->oci_state = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->owner) {
			a->owner = arg;
			break;
		}
		if (a->oci_state)
			argp_error(state, "--oci-state takes no PID: '%s'", arg);
		if (rm_parse_uint(arg, 1, 0x3fffffff, &pid))
			argp_error(state, "invalid process id: '%s'", arg);
		a->pids = xrealloc(a->pids, (a->npids + 1) * sizeof(*a->pids));
		a->pids[a->npids++] = (pid_t)pid;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The "pid" member of the OCI state S (runtime-spec's state, a JSON object): the top-level
 * object's, not one nested in annotations. Returns it, or 0 when it is missing or no process id.
 */
static pid_t oci_state_pid(const char *s)
{
	int depth = 0;

	for (const char *p = s; *p; p++) {
		const char *key;
		uint64_t pid;
		char num[16];
		size_t n;

		switch (*p) {
		case '{': case '[':
			depth++;
			continue;
		case '}': case ']':
			depth--;
			continue;
		case '"':
			break;
		default:
			continue;
		}
		for (key = ++p; *p && *p != '"'; p++)
			if (*p == '\\' && p[1])
				p++;
		if (!*p)
			return 0;
		if (depth != 1 || p - key != 3 || strncmp(key, "pid", 3))
			continue;
		/* a member's name is followed by ':', a string value is not */
		for (key = p + 1; isspace((unsigned char)*key); key++)
			;
		if (*key != ':')
			continue;
		for (key++; isspace((unsigned char)*key); key++)
			;
		n = strspn(key, "0123456789");
		if (!n || n >= sizeof(num))
			return 0;
		memcpy(num, key, n);
		num[n] = '\0';
		return rm_parse_uint(num, 1, 0x3fffffff, &pid) ? 0 : (pid_t)pid;
	}
	return 0;
}

/* The process of the OCI state on standard input; exits 2 when there is none. */
static pid_t read_oci_state(void)
{
	char *buf = xmalloc(OCI_STATE_MAX + 1);
	size_t n = fread(buf, 1, OCI_STATE_MAX + 1, stdin);
	pid_t pid;

	if (n > OCI_STATE_MAX)
		rm_usage_errx("the OCI state on standard input is over %d bytes", OCI_STATE_MAX);
	buf[n] = '\0';
	pid = oci_state_pid(buf);
	free(buf);
	if (!pid)
		rm_usage_errx("no \"pid\" in the OCI state on standard input");
	return pid;
}

/* The thread ids of PID (/proc/PID/task); -1 when the process is gone. */
int threads_of(pid_t pid, pid_t **tids)
{
	char path[48];
	DIR *dir;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	*tids = NULL;
	if (!(dir = opendir(path)))
		return -1;
	while ((de = readdir(dir))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		*tids = xrealloc(*tids, (n + 1) * sizeof(**tids));
		(*tids)[n++] = (pid_t)tid;
	}
	closedir(dir);
	return n;
}

/* Set every thread of PID to MASK (taskset -a -p), keeping each one's old mask in *OLD. */
static int set_affinity(pid_t pid, const cpu_set_t *mask, size_t size, cpu_set_t ***old,
			pid_t **tids, int *ntids, char **msg)
{
	*ntids = threads_of(pid, tids);
	*old = xcalloc(*ntids > 0 ? *ntids : 1, sizeof(**old));
	if (*ntids < 0) {
		*msg = xasprintf("no such process: '%d'", (int)pid);
		*ntids = 0;
		return -1;
	}
	for (int i = 0; i < *ntids; i++) {
		(*old)[i] = CPU_ALLOC(CPU_SETSIZE);
		if (sched_getaffinity((*tids)[i], CPU_ALLOC_SIZE(CPU_SETSIZE), (*old)[i]) ||
		    sched_setaffinity((*tids)[i], size, mask)) {
			if (errno == ESRCH)
				continue; /* the thread ended meanwhile */
			*msg = xasprintf("cannot set the CPU affinity of thread %d: %s",
					 (int)(*tids)[i], strerror(errno));
			*ntids = i + 1;
			return -1;
		}
	}
	return 0;
}

static void undo_affinity(cpu_set_t **old, pid_t *tids, int ntids)
{
	for (int i = 0; i < ntids; i++)
		if (old[i])
			sched_setaffinity(tids[i], CPU_ALLOC_SIZE(CPU_SETSIZE), old[i]);
}

static void free_affinity(cpu_set_t **old, pid_t *tids, int ntids)
{
	for (int i = 0; i < ntids; i++)
		if (old[i])
			CPU_FREE(old[i]);
	free(old);
	free(tids);
}

/* Move PID's pages to MEMS; the pages left behind, or -1 with *MSG. */
static long migrate(pid_t pid, hwloc_const_bitmap_t mems, char **msg)
{
	const struct rm_numa *nl = rm_numa();
	struct bitmask *from = nl->numa_allocate_nodemask(), *to = nl->numa_allocate_nodemask();
	unsigned i;
	int rc;

	nl->numa_bitmask_setall(from);
	hwloc_bitmap_foreach_begin(i, mems)
		if (i < to->size)
			nl->numa_bitmask_setbit(to, i);
	hwloc_bitmap_foreach_end();
	/* pages already on a node of MEMS stay where they are */
	hwloc_bitmap_foreach_begin(i, mems)
		if (i < from->size)
			nl->numa_bitmask_clearbit(from, i);
	hwloc_bitmap_foreach_end();
	rc = nl->numa_migrate_pages(pid, from, to);
	if (rc < 0)
		*msg = xasprintf("cannot migrate the memory of process %d: %s", (int)pid,
				 strerror(errno));
	nl->numa_bitmask_free(from);
	nl->numa_bitmask_free(to);
	return rc;
}

enum { AT_PID, AT_OWNER, AT_THREADS, AT_CPUS, AT_MEMS, AT_CGROUP, AT_UNMIGRATED };
static const struct rm_column attach_cols[] = {
	[AT_PID] = { "pid", RM_COL_INT, "the process moved" },
	[AT_OWNER] = { "owner", RM_COL_STRING, "the owner it was moved to" },
	[AT_THREADS] = { "threads", RM_COL_INT, "its threads, each given the owner's CPUs" },
	[AT_CPUS] = { "cpus", RM_COL_SET, "the owner's CPUs" },
	[AT_MEMS] = { "mems", RM_COL_SET, "the owner's memory nodes" },
	[AT_CGROUP] = { "cgroup", RM_COL_STRING, "the owner's cgroup, - without cgroups" },
	[AT_UNMIGRATED] = { "unmigrated", RM_COL_INT,
			    "pages --migrate-memory could not move (- without it)" },
};

int cmd_attach(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		attach_options, attach_parse, "OWNER PID...\nOWNER --oci-state",
		"Move running processes, all their threads, into OWNER's cgroup and onto its CPUs "
		"(as taskset -a -p and cgclassify do); with --migrate-memory, move their memory to "
		"its NUMA nodes too. Prints one record per process.",
		NULL, NULL, NULL
	};
	struct attach_args a = { 0 };
	struct rm_out *out;
	struct pool p;
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), mems = hwloc_bitmap_alloc();
	char *cgroup = NULL, *msg = NULL;
	cpu_set_t *mask;
	size_t size;
	unsigned cpu;
	long i;
	int done = 0;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, attach_cols, ARRAY_SIZE(attach_cols), NULL);
		free(a.pids);
		hwloc_bitmap_free(cpus);
		hwloc_bitmap_free(mems);
		return RM_EXIT_SUCCESS;
	}
	if (a.oci_state && a.owner) {
		a.pids = xmalloc(sizeof(*a.pids));
		a.pids[a.npids++] = read_oci_state();
	}
	if (!a.npids) {
		free(a.pids);
		hwloc_bitmap_free(cpus);
		hwloc_bitmap_free(mems);
		rm_usage_errx("attach: give an OWNER and at least one PID");
	}
	rm_out_check(&c->out, attach_cols, ARRAY_SIZE(attach_cols), NULL);
	if (!rm_input_here(rm_input_resolve(c)))
		rm_usage_errx("attach needs this machine's topology (RM_TOPOLOGY or RM_SYSROOT is set)");
	if (!rm_name_valid(a.owner))
		rm_usage_errx("invalid owner name: '%s'", a.owner);
	for (int k = 0; k < a.npids; k++)
		if (kill(a.pids[k], 0) && errno == ESRCH)
			rm_usage_errx("no such process: '%d'", (int)a.pids[k]);
	pool_open(&p, c, a.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS);
	if ((i = pool_find(&p, a.owner)) < 0)
		rm_usage_errx("no such owner: '%s'", a.owner);
	pool_owner_runs_on(&p, &p.st.records[i], cpus);
	pool_owner_mems(&p, &p.st.records[i], mems);
	hwloc_bitmap_and(cpus, cpus, p.all); /* a degraded owner: its CPUs that are online */
	if (hwloc_bitmap_iszero(cpus))
		rm_errx(RM_EXIT_FAILURE, "every CPU of owner '%s' is offline", a.owner);
	if (p.have_cgroups)
		cgroup = rm_cgroups_path(&p.cg, a.owner);

	mask = CPU_ALLOC(hwloc_bitmap_last(cpus) + 1);
	size = CPU_ALLOC_SIZE(hwloc_bitmap_last(cpus) + 1);
	CPU_ZERO_S(size, mask);
	hwloc_bitmap_foreach_begin(cpu, cpus)
		CPU_SET_S(cpu, size, mask);
	hwloc_bitmap_foreach_end();

	out = rm_out_new(&c->out, "processes", attach_cols, ARRAY_SIZE(attach_cols), NULL, true);
	for (int k = 0; k < a.npids; k++) {
		pid_t pid = a.pids[k], *tids = NULL;
		cpu_set_t **old = NULL;
		int ntids = 0, rc = 0;
		long left = -1;

		if (a.dry_run) {
			ntids = threads_of(pid, &tids);
		} else {
			/* cgroup.procs moves every thread; the cpuset sets their affinity */
			if ((p.have_cgroups && (rm_cgroups_attach(&p.cg, a.owner, pid, &msg) ||
						rm_hugetlb_attach(a.owner, pid, &msg) ||
						rm_ownlimit_attach(a.owner, pid, &msg))) ||
			    rm_io_attach(a.owner, pid, &msg))
				rc = -1;
			if (!rc)
				rc = set_affinity(pid, mask, size, &old, &tids, &ntids, &msg);
			if (rc && !p.have_cgroups)
				undo_affinity(old, tids, ntids);
			if (!rc && a.migrate && (left = migrate(pid, mems, &msg)) < 0)
				rc = -1;
		}
		if (!rc) {
			rm_out_begin(out);
			rm_out_int(out, AT_PID, pid);
			rm_out_str(out, AT_OWNER, a.owner);
			if (ntids > 0)
				rm_out_int(out, AT_THREADS, ntids);
			rm_out_set(out, AT_CPUS, cpus);
			rm_out_set(out, AT_MEMS, mems);
			rm_out_str(out, AT_CGROUP, cgroup);
			if (left >= 0)
				rm_out_int(out, AT_UNMIGRATED, left);
			rm_out_end(out);
			done++;
		}
		if (old)
			free_affinity(old, tids, ntids);
		else
			free(tids);
		if (rc) {
			/* a process moved into a cgroup is not moved back: say which ones were */
			rm_out_close(out);
			rm_out_flush();
			rm_errx(RM_EXIT_FAILURE, "%s (%d of %d processes moved, printed above)", msg,
				done, a.npids);
		}
	}
	if (!a.dry_run)
		rm_committed("moved %d processes to owner '%s'", done, a.owner);
	rm_out_close(out);
	rm_out_flush();
	CPU_FREE(mask);
	free(cgroup);
	free(a.pids);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(mems);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}
