/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset run and gc: a command on its own CPUs, and allocations whose command is gone. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>


#include "exitcodes.h"
#include "cpulist.h"
#include "hugetlb.h"
#include "input.h"
#include "iolimit.h"
#include "numalib.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

/* As env(1) and nice(1): the tool failed, the command cannot run, the command was not found. */
enum { EXIT_RUN_FAILED = 125, EXIT_CANNOT_EXEC = 126, EXIT_NOT_FOUND = 127 };

enum { OPT_SHARED = 0x200, OPT_INTERLEAVE, OPT_PREFERRED, OPT_MEMBIND, OPT_WEIGHTED };

/* Linux 6.9's weighted interleave; libnuma 2.0.16 (Debian 12) does not define it yet. */
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#define WEIGHTED_INTERLEAVE_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

/* A memory policy given on the command line, as numactl's. */
struct run_policy {
	int mode;            /* MPOL_*; MPOL_DEFAULT when none was given */
	const char *option;  /* "--interleave"... for messages */
	hwloc_bitmap_t nodes;
};

struct run_args {
	struct alloc_req req;
	bool shared;
	char **cmd;
	struct run_policy policy;
};

static const struct argp_option run_options[] = {
	{ "shared", OPT_SHARED, NULL, 0, "run on the shared pool instead of exclusive CPUs", 0 },
	{ "interleave", OPT_INTERLEAVE, "NODES", 0,
	  "interleave the command's memory over these NUMA nodes (numactl --interleave)", 0 },
	{ "preferred", OPT_PREFERRED, "NODE", 0,
	  "allocate its memory on this node first, others when it is full", 0 },
	{ "membind", OPT_MEMBIND, "NODES", 0,
	  "allocate its memory only on these nodes (default: all of the owner's nodes)", 0 },
	{ "weighted-interleave", OPT_WEIGHTED, "NODES", 0,
	  "interleave by the node weights in " WEIGHTED_INTERLEAVE_DIR " (Linux 6.9+)", 0 },
	{ 0 }
};

static void policy_parse(struct argp_state *state, struct run_policy *p, int key, const char *arg)
{
	static const struct { int key, mode; const char *option; } modes[] = {
		{ OPT_INTERLEAVE, MPOL_INTERLEAVE, "--interleave" },
		{ OPT_PREFERRED, MPOL_PREFERRED, "--preferred" },
		{ OPT_MEMBIND, MPOL_BIND, "--membind" },
		{ OPT_WEIGHTED, MPOL_WEIGHTED_INTERLEAVE, "--weighted-interleave" },
	};
	char *msg = NULL;
	size_t k = 0;

	while (modes[k].key != key)
		k++;
	if (p->nodes)
		argp_error(state, "%s and %s: give one memory policy", p->option, modes[k].option);
	p->mode = modes[k].mode;
	p->option = modes[k].option;
	p->nodes = hwloc_bitmap_alloc();
	if (rm_cpulist_parse(arg, p->nodes, &msg))
		argp_error(state, "invalid %s: %s", p->option, msg);
	if (hwloc_bitmap_iszero(p->nodes))
		argp_error(state, "%s: no NUMA node given", p->option);
	if (p->mode == MPOL_PREFERRED && hwloc_bitmap_weight(p->nodes) != 1)
		argp_error(state, "--preferred takes one NUMA node: '%s'", arg);
}

/* The policy's nodes must be among MEMS, the nodes the command may use; exit 2 otherwise, before
 * anything is committed. */
static void weights_check(const struct run_policy *p);

static void policy_check(const struct run_policy *p, hwloc_const_bitmap_t mems, const char *whose)
{
	char *nodes, *have;

	if (p->nodes && hwloc_bitmap_isincluded(p->nodes, mems) &&
	    p->mode == MPOL_WEIGHTED_INTERLEAVE)
		weights_check(p);
	if (!p->nodes || hwloc_bitmap_isincluded(p->nodes, mems))
		return;
	nodes = rm_cpulist_format(p->nodes);
	have = rm_cpulist_format(mems);
	rm_usage_errx("%s: NUMA nodes '%s' are not all among %s memory nodes '%s'", p->option,
		      nodes, whose, have);
}

/* The CPU node whose weights (rm-bench weights, by default) node N's weight is relative to:
 * N itself when it has CPUs, else the nearest node with CPUs (sysfs distance, ties to the lowest
 * id); -1 when unknown. */
static int weight_home(int n)
{
	hwloc_bitmap_t online = hwloc_bitmap_alloc(), cpus = hwloc_bitmap_alloc();
	char path[64], *dist;
	int home = -1, best = 0;
	unsigned m;

	snprintf(path, sizeof(path), "sys/devices/system/node/node%d/distance", n);
	dist = rm_sysfs_read(NULL, path);
	if (dist && !rm_sysfs_read_set(NULL, "sys/devices/system/node/online", online)) {
		char *p = dist;

		/* the distances are in the order of the online nodes */
		hwloc_bitmap_foreach_begin(m, online) {
			char *end;
			long d = strtol(p, &end, 10);

			if (end == p)
				break;
			p = end;
			snprintf(path, sizeof(path), "sys/devices/system/node/node%u/cpulist", m);
			if (rm_sysfs_read_set(NULL, path, cpus) || hwloc_bitmap_iszero(cpus))
				continue;
			if (home < 0 || d < best || (int)m == n)
				home = (int)m, best = (int)d;
			if ((int)m == n)
				break;
		}
		hwloc_bitmap_foreach_end();
	}
	free(dist);
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(cpus);
	return home;
}

/* Warn when the kernel's global weights do not fit the nodes of --weighted-interleave: they are
 * relative to different CPU nodes (as rm-bench weights proposes them by default), or flat while
 * HMAT gives the nodes different bandwidths. */
static void weights_check(const struct run_policy *p)
{
	char path[128], *list = rm_cpulist_format(p->nodes);
	uint64_t w, w0 = 0, bw, bmin = UINT64_MAX, bmax = 0;
	int home0 = -2;
	bool flat = true, mixed = false, hmat = true;
	unsigned n;

	hwloc_bitmap_foreach_begin(n, p->nodes) {
		int home = weight_home((int)n);

		snprintf(path, sizeof(path), "sys/kernel/mm/mempolicy/weighted_interleave/node%u", n);
		if (rm_sysfs_read_u64(NULL, path, &w))
			w = 0;
		flat = flat && (w0 == 0 || w == w0);
		w0 = w0 ? w0 : w;
		mixed = mixed || (home0 != -2 && home != home0);
		home0 = home;
		snprintf(path, sizeof(path),
			 "sys/devices/system/node/node%u/access0/initiators/read_bandwidth", n);
		if (rm_sysfs_read_u64(NULL, path, &bw) || !bw)
			hmat = false;
		else
			bmin = bw < bmin ? bw : bmin, bmax = bw > bmax ? bw : bmax;
	}
	hwloc_bitmap_foreach_end();
	if (mixed)
		rm_warnx("--weighted-interleave: the kernel's weights of nodes '%s' are relative to "
			 "different CPU nodes (rm-bench weights --from NODES proposes weights for "
			 "this set)", list);
	else if (flat && hmat && bmax > bmin)
		rm_warnx("--weighted-interleave: nodes '%s' have equal weights but HMAT gives them "
			 "%" PRIu64 " to %" PRIu64 " MB/s (rm-bench weights proposes weights)", list,
			 bmin, bmax);
	free(list);
}

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->req;
		state->child_inputs[1] = &a->req;
		break;
	case OPT_SHARED:
		a->shared = true;
		break;
	case OPT_INTERLEAVE:
	case OPT_PREFERRED:
	case OPT_MEMBIND:
	case OPT_WEIGHTED:
		policy_parse(state, &a->policy, key, arg);
		break;
	case ARGP_KEY_ARG:
		/* the command and its arguments: everything from here on */
		a->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->cmd)
			argp_error(state, "missing COMMAND");
		if (a->shared && (a->req.count || a->req.owner))
			argp_error(state, "--shared takes no --count or --owner");
		if (a->shared && (a->req.l3_ways || a->req.mem_bandwidth))
			argp_error(state, "--shared takes no --l3-ways or --mem-bandwidth");
		if (a->shared && a->req.add_mems)
			argp_error(state, "--shared takes no --add-mems");
		if (!a->req.count && (a->req.latency || a->req.governor || a->req.min_freq))
			argp_error(state, "--latency, --governor and --min-freq are for a new "
				   "allocation (--count N)");
		if (!a->shared && !a->req.count && !a->req.owner)
			argp_error(state, "give --count N, --owner NAME or --shared");
		if (a->policy.mode == MPOL_WEIGHTED_INTERLEAVE &&
		    access(WEIGHTED_INTERLEAVE_DIR, F_OK))
			argp_error(state, "--weighted-interleave needs Linux 6.9 or later (no %s)",
				   WEIGHTED_INTERLEAVE_DIR);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* What the command gets: its cgroup, CPUs and memory nodes. */
struct placement {
	char *name;
	hwloc_bitmap_t cpus, mems;
	bool have_cgroups;
	struct rm_cgroups cg;
	bool allocated; /* released when the command ends */
	bool io_only;   /* an owner with rm-storage I/O limits alone: its io cgroup, no CPUs */
	char *resctrl_root, *resctrl_name; /* the owner's resctrl group, or NULL */
};

static void take_placement(struct pool *p, struct placement *pl, const char *name)
{
	long i = pool_find(p, name);

	if (i >= 0 && p->have_resctrl && pool_owner_has_resctrl(&p->st.records[i])) {
		pl->resctrl_root = xstrdup(p->rc.root);
		pl->resctrl_name = pool_resctrl_name(&p->st.records[i]);
	}
	pl->name = xstrdup(name);
	pl->have_cgroups = p->have_cgroups;
	if (p->have_cgroups) { /* the pool is closed before the command runs; keep its cgroups */
		pl->cg = p->cg;
		p->have_cgroups = false;
	}
}

static void place(struct rm_common *c, struct run_args *a, struct placement *pl)
{
	struct pool p;
	long i;

	pl->cpus = hwloc_bitmap_alloc();
	pl->mems = hwloc_bitmap_alloc();
	if (a->shared) {
		/* commit creates the shared cgroup when nothing has yet */
		pool_open(&p, c, POOL_WRITE | POOL_NEED_CGROUPS);
		policy_check(&a->policy, p.memnodes, "the machine's");
		pool_commit(&p);
		pool_shared(&p, pl->cpus);
		hwloc_bitmap_copy(pl->mems, p.memnodes);
		take_placement(&p, pl, RM_CGROUP_SHARED);
	} else if (a->req.owner && !a->req.count) {
		if (a->req.l3_ways || a->req.mem_bandwidth)
			rm_usage_errx("--l3-ways and --mem-bandwidth are for a new allocation "
				      "(--count N); '%s' keeps the ones it has", a->req.owner);
		if (a->req.add_mems)
			rm_usage_errx("--add-mems is for a new allocation (--count N); '%s' keeps "
				      "the memory nodes it has", a->req.owner);
		pool_open(&p, c, 0);
		if ((i = pool_find(&p, a->req.owner)) < 0 && rm_io_has_cgroup(a->req.owner)) {
			pl->name = xstrdup(a->req.owner);
			pl->io_only = true;
			pool_close(&p);
			return;
		}
		if (i < 0)
			rm_usage_errx("no such owner: '%s' (give --count N to allocate)",
				      a->req.owner);
		pool_owner_runs_on(&p, &p.st.records[i], pl->cpus);
		pool_owner_mems(&p, &p.st.records[i], pl->mems);
		policy_check(&a->policy, pl->mems, "the owner's");
		/* a degraded owner runs on its CPUs that are online */
		hwloc_bitmap_and(pl->cpus, pl->cpus, p.all);
		if (hwloc_bitmap_iszero(pl->cpus))
			rm_errx(RM_EXIT_FAILURE, "every CPU of owner '%s' is offline: '%s'",
			     a->req.owner, rm_record_get(&p.st.records[i], "cpus"));
		take_placement(&p, pl, a->req.owner);
	} else {
		char *generated = NULL;

		if (!a->req.owner)
			a->req.owner = generated = xasprintf("run-%d", (int)getpid());
		alloc_check_owner(NULL, a->req.owner);
		pool_open(&p, c, POOL_WRITE | POOL_NEED_CGROUPS);
		alloc_check_owner(&p, a->req.owner);
		if (a->req.isolate)
			alloc_check_isolate(&p);
		alloc_check_resctrl(&p, &a->req);
		alloc_choose(&p, &a->req, pl->cpus);
		pool_add(&p, a->req.owner, pl->cpus, a->req.add_mems, a->req.isolate, getpid());
		alloc_choose_resctrl(&p, &a->req, pl->cpus, p.st.nrecords - 1);
		latency_record(&p, &a->req, p.st.nrecords - 1);
		pool_owner_mems(&p, &p.st.records[p.st.nrecords - 1], pl->mems);
		policy_check(&a->policy, pl->mems, "the owner's");
		pool_commit(&p);
		/* until the command ends and run releases it */
		pool_committed_cpus(pl->cpus, a->req.owner);
		pool_owner_mems(&p, &p.st.records[pool_find(&p, a->req.owner)], pl->mems);
		take_placement(&p, pl, a->req.owner);
		pl->allocated = true;
		free(generated);
		a->req.owner = NULL;
	}
	pool_close(&p);
}

static bool affinity_is(const cpu_set_t *want, size_t size)
{
	cpu_set_t *now = CPU_ALLOC(size * 8);
	bool same = sched_getaffinity(0, size, now) == 0 && CPU_EQUAL_S(size, now, want);

	CPU_FREE(now);
	return same;
}

/* Set the memory policy MODE over NODES through libnuma's set_mempolicy (numaif.h): numa_set_*
 * print libnuma's own message on failure and know no weighted interleave. */
static int set_policy(int mode, hwloc_const_bitmap_t nodes)
{
	const struct rm_numa *nl = rm_numa();
	struct bitmask *mask = nl->numa_allocate_nodemask();
	unsigned i;
	int rc;

	hwloc_bitmap_foreach_begin(i, nodes)
		if (i < mask->size)
			nl->numa_bitmask_setbit(mask, i);
	hwloc_bitmap_foreach_end();
	rc = nl->set_mempolicy(mode, mask->maskp, mask->size + 1);
	nl->numa_bitmask_free(mask);
	return rc;
}

/* In the child: join the cgroup, set the affinity and the memory policy, exec. */
__attribute__((noreturn))
static void child(struct placement *pl, const struct run_policy *policy, char **cmd)
{
	const struct rm_numa *nl = rm_numa();
	cpu_set_t *mask;
	size_t size;
	int max = hwloc_bitmap_last(pl->cpus);
	unsigned i;
	char *msg = NULL;

	/* the owner's cpuset, its hugetlb limits when rm-hugepages set some, its memory and pids
	 * limits (v1: hierarchies of their own) */
	if (pl->have_cgroups && (rm_cgroups_attach(&pl->cg, pl->name, getpid(), &msg) ||
				 rm_hugetlb_attach(pl->name, getpid(), &msg) ||
				 rm_ownlimit_attach(pl->name, getpid(), &msg))) {
		rm_warnx("%s", msg);
		_exit(EXIT_RUN_FAILED);
	}
	/* its I/O limits when rm-storage set some (a hierarchy of their own on cgroup v1) */
	if (rm_io_attach(pl->name, getpid(), &msg)) {
		rm_warnx("%s", msg);
		_exit(EXIT_RUN_FAILED);
	}
	if (pl->io_only)
		goto exec;
	/* the resctrl group by task as well: a group's CPUs only count for the default group's
	 * tasks */
	if (pl->resctrl_name && rm_resctrl_attach(pl->resctrl_root, pl->resctrl_name, getpid(),
						  &msg)) {
		rm_warnx("%s", msg);
		_exit(EXIT_RUN_FAILED);
	}
	mask = CPU_ALLOC(max + 1);
	size = CPU_ALLOC_SIZE(max + 1);
	CPU_ZERO_S(size, mask);
	hwloc_bitmap_foreach_begin(i, pl->cpus)
		CPU_SET_S(i, size, mask);
	hwloc_bitmap_foreach_end();
	/* Joining a cpuset sets the affinity to its CPUs; a mask set here would also stay with
	 * the process when its owner is released and it moves to the shared pool. So it is set
	 * only where the cgroup did not do it (no cgroups, or an inherited narrower mask). */
	if (!(pl->have_cgroups && affinity_is(mask, size)) && sched_setaffinity(0, size, mask)) {
		rm_warnx("cannot set the CPU affinity: %s", strerror(errno));
		_exit(EXIT_RUN_FAILED);
	}
	CPU_FREE(mask);
	if (policy->nodes) {
		if (set_policy(policy->mode, policy->nodes)) {
			rm_warnx("%s: cannot set the memory policy: %s", policy->option,
				 strerror(errno));
			_exit(EXIT_RUN_FAILED);
		}
	} else if (nl->numa_available() >= 0) {
		struct bitmask *nodes = nl->numa_allocate_nodemask();

		hwloc_bitmap_foreach_begin(i, pl->mems)
			if (i < nodes->size)
				nl->numa_bitmask_setbit(nodes, i);
		hwloc_bitmap_foreach_end();
		errno = 0;
		nl->numa_set_membind(nodes);
		if (errno && errno != ENOSYS) {
			rm_warnx("cannot bind memory to NUMA nodes: %s", strerror(errno));
			_exit(EXIT_RUN_FAILED);
		}
		nl->numa_bitmask_free(nodes);
	}
exec:
	execvp(cmd[0], cmd);
	rm_warnx("cannot run '%s': %s", cmd[0],
		strerror(errno));
	_exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

static pid_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Release what run allocated, if it is still ours. */
static void release(struct rm_common *c, struct placement *pl)
{
	char pid[32];
	struct pool p;
	long i;

	pool_open(&p, c, POOL_WRITE | POOL_ANY_TOPOLOGY);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	i = pool_find(&p, pl->name);
	if (i >= 0 && !strcmp(rm_record_get(&p.st.records[i], "pid") ?: "-", pid)) {
		pool_remove(&p, (size_t)i);
		pool_commit(&p);
	}
	pool_close(&p);
	/* nothing run made stands now: the command's status passes through as it is */
	rm_committed_clear();
}

int cmd_run(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_child children[] = {
		{ &alloc_argp, 0, NULL, 0 }, { &alloc_latency_argp, 0, NULL, 0 }, { 0 }
	};
	static const struct argp argp = {
		run_options, run_parse, "[--count N | --owner NAME | --shared] -- COMMAND [ARGS...]",
		"Run COMMAND in an owner's cgroup, on its CPUs, with its memory bound to their NUMA "
		"nodes, or under the memory policy given (among those nodes). With --count the CPUs are "
		"allocated first (to --owner, or to run-PID) and released when the command ends; with "
		"--owner alone an existing allocation is used (an owner with rm-storage I/O limits alone "
		"runs in its I/O cgroup, on any CPU). "
		"Exits with the command's status (its signal is raised again). Before COMMAND "
		"starts: 1, 2 or 3 as for alloc; 125: placing it failed, 126: it cannot run, "
		"127: not found.",
		children, NULL, NULL
	};
	struct sigaction fwd = { .sa_handler = forward }, ign = { .sa_handler = SIG_IGN };
	struct run_args a = { 0 };
	struct placement pl = { 0 };
	int status, sig;

	rm_parse_command(&argp, argc, argv, c, &a,
			 RM_PARSE_NO_OUTPUT | RM_PARSE_NO_INPUT | RM_PARSE_IN_ORDER);
	if (!rm_input_here(rm_input_resolve(c)))
		rm_usage_errx("run needs this machine's topology (RM_TOPOLOGY or RM_SYSROOT is set)");
	place(c, &a, &pl);

	/* libnuma is loaded here: the child only calls it */
	rm_numa();
	fflush(stdout);
	child_pid = fork();
	if (child_pid < 0) {
		int saved = errno;

		if (pl.allocated)
			release(c, &pl);
		errno = saved;
		rm_err(EXIT_RUN_FAILED, "cannot fork%s", pl.allocated ? " (its CPUs were released)" : "");
	}
	if (child_pid == 0)
		child(&pl, &a.policy, a.cmd);
	/* the terminal's signals reach the command too; others are passed on */
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	while (waitpid(child_pid, &status, 0) < 0)
		if (errno != EINTR)
			rm_err(EXIT_RUN_FAILED, "cannot wait for '%s'", a.cmd[0]);
	if (pl.allocated)
		release(c, &pl);
	if (pl.have_cgroups)
		rm_cgroups_close(&pl.cg);
	hwloc_bitmap_free(pl.cpus);
	hwloc_bitmap_free(pl.mems);
	free(pl.name);
	free(pl.resctrl_root);
	free(pl.resctrl_name);
	alloc_req_free(&a.req);
	hwloc_bitmap_free(a.policy.nodes);
	if (WIFSIGNALED(status)) {
		struct rlimit no_core = { 0, 0 };
		sigset_t set;

		sig = WTERMSIG(status);
		setrlimit(RLIMIT_CORE, &no_core); /* the command dumped already, if it did */
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		fflush(stdout);
		raise(sig);
		return 128 + sig;
	}
	return WEXITSTATUS(status);
}

/* ---- gc ---- */

/* Whether the process recorded in R (pid and start time) still runs. */
static bool owner_alive(const struct rm_record *r)
{
	const char *pid = rm_record_get(r, "pid"), *start = rm_record_get(r, "start");
	unsigned long long now;

	if (!pid || !strcmp(pid, "-"))
		return true; /* not made by run: released by hand only */
	now = rm_process_start_time((pid_t)strtol(pid, NULL, 10));
	return now && start && now == strtoull(start, NULL, 10);
}

int cmd_gc(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would be released, change nothing",
		  0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_dry_run_parse, NULL,
		"Release the allocations made by 'rm-cpuset run' whose process is gone (killed "
		"before it could release them), and print them.",
		NULL, NULL, NULL
	};
	struct rm_record *gone;
	size_t ngone = 0;
	bool dry_run = false;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &dry_run, 0);
	pool_list_columns(c);
	pool_open(&p, c, dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS);
	gone = xcalloc(p.st.nrecords, sizeof(*gone));
	for (size_t i = 0; i < p.st.nrecords;) {
		struct rm_record *r = &p.st.records[i];

		if (strcmp(rm_record_kind(r), "owner") || owner_alive(r)) {
			i++;
			continue;
		}
		rm_record_copy(&gone[ngone++], r);
		pool_remove(&p, i);
	}
	if (ngone && !dry_run) {
		pool_commit(&p);
		pool_committed_owners("released", gone, ngone);
	} else if (!dry_run) {
		pool_resync_quiet(&p); /* after a crash or a reboot */
	}
	pool_print_owners(&p, c, gone, ngone);
	pool_free_records(gone, ngone);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}
