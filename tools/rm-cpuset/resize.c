/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset resize: an owner's exclusive CPUs grow or shrink in place, and an owner moves between
 * the shared pool and exclusive CPUs, its cgroup and processes staying where they are. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "rm-cpuset.h"
#include "xalloc.h"

/* ---- the placement an owner was allocated with ---- */

const char *alloc_req_placement_given(const struct alloc_req *r)
{
	const struct rm_cpualloc_opts *o = &r->opts;

	if (r->policy != RM_TM_NONE)
		return "--policy";
	if (o->full_pcpus_only || o->distribute_cpus_across_numa || o->align_by_socket ||
	    o->distribute_cpus_across_cores || o->prefer_align_cpus_by_uncorecache)
		return "a CPU placement option";
	if (o->tm.prefer_closest || o->tm.max_nodes)
		return "--topology-manager-option";
	return r->numa ? "--numa-node" : r->near ? "--near" : r->from ? "--from" :
	       r->cpu_kind ? "--cpu-kind" : r->add_mems ? "--add-mems" :
	       r->isolate ? "--isolate" : r->l3_ways ? "--l3-ways" :
	       r->mem_bandwidth ? "--mem-bandwidth" : NULL;
}

/* " --NAME" for each option of R that places CPUs, as alloc's options spell them; the state keeps
 * it (placement=) so that growth places the CPUs added as the first ones were placed. --near -
 * (device records on stdin) is kept as the nodes it gave, --numa-node. */
static char *placement_words(const struct alloc_req *r)
{
	const struct rm_cpualloc_opts *o = &r->opts;
	char *buf = NULL, *list;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	if (r->policy != RM_TM_NONE)
		fprintf(f, " --policy %s", rm_tm_policy_name(r->policy));
	if (o->full_pcpus_only)
		fputs(" --full-pcpus-only", f);
	if (o->distribute_cpus_across_numa)
		fputs(" --distribute-cpus-across-numa", f);
	if (o->align_by_socket)
		fputs(" --align-by-socket", f);
	if (o->distribute_cpus_across_cores)
		fputs(" --distribute-cpus-across-cores", f);
	if (o->prefer_align_cpus_by_uncorecache)
		fputs(" --prefer-align-cpus-by-uncorecache", f);
	if (o->tm.prefer_closest)
		fputs(" --topology-manager-option prefer-closest-numa-nodes", f);
	if (o->tm.max_nodes)
		fprintf(f, " --topology-manager-option max-allowable-numa-nodes=%u", o->tm.max_nodes);
	if (r->numa) {
		list = rm_cpulist_format(r->numa);
		fprintf(f, " --numa-node %s", list);
		free(list);
	}
	if (r->near && strcmp(r->near, "-"))
		fprintf(f, " --near %s", r->near);
	if (r->from) {
		list = rm_cpulist_format(r->from);
		fprintf(f, " --from %s", list);
		free(list);
	}
	if (r->cpu_kind)
		fprintf(f, " --cpu-kind %s", r->cpu_kind);
	if (fclose(f))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	return buf;
}

void owner_set_placement(struct pool *p, size_t index, const struct alloc_req *r)
{
	char *w = placement_words(r);

	if (*w)
		rm_record_set(&p->st.records[index], "placement", w + 1);
	else
		rm_record_unset(&p->st.records[index], "placement");
	free(w);
}

/* The placement the owner record REC keeps, parsed into R as alloc's options. Returns the words,
 * which R's strings point into (free after R); exits 1 when they are not alloc's options. */
static char *owner_placement(struct pool *p, const struct rm_record *rec, struct alloc_req *r)
{
	static char name[] = "placement";
	const char *v = rm_record_get(rec, "placement");
	char *copy = xstrdup(v ? v : ""), *save = NULL, *argv[32] = { name };
	int argc = 1;
	bool bad = false;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		bad = bad || argc == (int)ARRAY_SIZE(argv) - 1;
		if (!bad)
			argv[argc++] = w;
	}
	if (bad || argp_parse(&alloc_argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_EXIT | ARGP_NO_HELP |
			      ARGP_SILENT, NULL, r)) {
		pool_close(p);
		rm_errx(RM_EXIT_FAILURE, "owner '%s' has a placement that is not alloc's options: "
			"'%s'", rm_record_get(rec, "owner"), v);
	}
	return copy;
}

/* ---- resize ---- */

enum { OPT_BELOW_INITIAL = 0x500, OPT_TO_SHARED };

struct resize_args {
	struct alloc_req r;
	bool below_initial, shared;
};

static const struct argp_option resize_options[] = {
	{ "shared", OPT_TO_SHARED, NULL, 0,
	  "move the owner to the shared pool: its exclusive CPUs go back, its cgroup stays", 0 },
	{ "below-initial", OPT_BELOW_INITIAL, NULL, 0,
	  "let a shrink give up CPUs the owner was first given", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print the owner as it would be, change nothing", 0 },
	{ 0 }
};

static error_t resize_parse(int key, char *arg, struct argp_state *state)
{
	struct resize_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->r;
		break;
	case OPT_TO_SHARED:
		a->shared = true;
		break;
	case OPT_BELOW_INITIAL:
		a->below_initial = true;
		break;
	case RM_OPT_DRY_RUN:
		a->r.dry_run = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void set_cpus(struct rm_record *rec, const char *key, hwloc_const_bitmap_t set)
{
	char *s = rm_cpulist_format(set);

	rm_record_set(rec, key, s);
	free(s);
}

static void set_count(struct rm_record *rec, hwloc_const_bitmap_t cpus)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", hwloc_bitmap_weight(cpus));
	rm_record_set(rec, "count", buf);
}

/* Whether the owner record REC has memory reserved by the Memory Manager (--memory,
 * --hugepages): its mems were chosen with it and stay. */
static bool has_reservation(const struct rm_record *rec)
{
	const char *m = rm_record_get(rec, "memory"), *h = rm_record_get(rec, "hugepages");

	return (m && strcmp(m, "0") && strcmp(m, "-")) || (h && strcmp(h, "-"));
}

/* The CPUs under the L3 domains (resctrl) of CPUS, where growth keeps an owner with cache ways:
 * its ways are set per domain, and the CPUs added join them there. */
static void l3_cpus(const struct pool *p, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out)
{
	hwloc_obj_t o = NULL;

	hwloc_bitmap_zero(out);
	while ((o = hwloc_get_next_obj_by_type(p->t->topo, HWLOC_OBJ_L3CACHE, o)))
		if (hwloc_bitmap_intersects(o->cpuset, cpus))
			hwloc_bitmap_or(out, out, o->cpuset);
}

/* Grow the owner at INDEX (CPUS) by R->count - |CPUS| CPUs, placed as its first ones were: its
 * recorded placement, preferring its own NUMA nodes, within its L3 domains when it has cache
 * ways, on one node under single-numa-node. CPUS becomes the new set. */
static void grow(struct pool *p, size_t index, unsigned count, hwloc_bitmap_t cpus)
{
	const struct rm_record *rec = &p->st.records[index];
	struct alloc_req g = { 0 };
	hwloc_bitmap_t add = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
	char *words = owner_placement(p, rec, &g);

	g.owner = rm_record_get(rec, "owner");
	g.count = count - (unsigned)hwloc_bitmap_weight(cpus);
	if (!g.numa && !g.near) {
		g.numa = hwloc_bitmap_alloc();
		rm_topo_nodes_of(p->t, cpus, g.numa);
	}
	if (pool_owner_has_resctrl(rec)) {
		hwloc_bitmap_t l3 = hwloc_bitmap_alloc();

		l3_cpus(p, cpus, l3);
		if (g.from)
			hwloc_bitmap_and(l3, l3, g.from);
		hwloc_bitmap_free(g.from);
		g.from = l3;
	}
	alloc_choose(p, &g, add); /* exits 2 or 3 */
	hwloc_bitmap_or(add, add, cpus);
	rm_topo_nodes_of(p->t, add, nodes);
	if (g.policy == RM_TM_SINGLE_NUMA_NODE && hwloc_bitmap_weight(nodes) > 1) {
		char *list = rm_cpulist_format(cpus);

		rm_warnx("not enough free CPUs on the NUMA node of owner '%s' (CPUs %s) to grow to "
			 "%u under the single-numa-node policy", g.owner, list, count);
		pool_close(p);
		exit(RM_EXIT_NORESOURCE);
	}
	hwloc_bitmap_copy(cpus, add);
	hwloc_bitmap_free(add);
	hwloc_bitmap_free(nodes);
	alloc_req_free(&g);
	free(words);
}

/* Shrink CPUS to COUNT: the CPUs first given (INITIAL) stay, unless BELOW (then INITIAL becomes
 * the ones kept); the ones kept packed as the allocator packs. */
static void shrink(struct pool *p, const struct rm_record *rec, unsigned count, bool below,
		   hwloc_bitmap_t cpus, hwloc_bitmap_t initial)
{
	unsigned ninit = (unsigned)hwloc_bitmap_weight(initial);

	if (count < ninit && !below) {
		char *list = rm_cpulist_format(initial);

		rm_warnx("owner '%s' was first given CPUs %s: a shrink to %u gives some of them up "
			 "(--below-initial allows it)", rm_record_get(rec, "owner"), list, count);
		free(list);
		pool_close(p);
		exit(RM_EXIT_USAGE);
	}

	hwloc_bitmap_t from = hwloc_bitmap_alloc(), keep = hwloc_bitmap_alloc();
	struct alloc_req g = { 0 };
	char *msg = NULL, *words = owner_placement(p, rec, &g);
	int rc;
	if (count >= ninit) {
		hwloc_bitmap_andnot(from, cpus, initial);
		rc = rm_cpualloc_take(p->ct, from, count - ninit, &g.opts, keep, &msg);
		hwloc_bitmap_or(keep, keep, initial);
	} else {
		rc = rm_cpualloc_take(p->ct, initial, count, &g.opts, keep, &msg);
		hwloc_bitmap_copy(initial, keep);
	}
	if (rc) {
		pool_close(p);
		pool_fail(rc, msg);
	}
	hwloc_bitmap_copy(cpus, keep);
	hwloc_bitmap_free(from);
	hwloc_bitmap_free(keep);
	alloc_req_free(&g);
	free(words);
}

/* An owner with a resctrl group, added memory nodes or reserved memory keeps its CPUs: the
 * shared pool has none of these. */
static void check_demotable(struct pool *p, const struct rm_record *rec)
{
	const char *why = pool_owner_has_resctrl(rec) ? "a resctrl group (L3 ways, memory bandwidth)" :
			  rm_record_get(rec, "add_mems") ? "added memory nodes (--add-mems)" :
			  has_reservation(rec) ? "memory reserved on its NUMA nodes" : NULL;

	if (why) {
		rm_warnx("owner '%s' has %s, which an owner in the shared pool cannot keep (release "
			 "it and alloc --shared)", rm_record_get(rec, "owner"), why);
		pool_close(p);
		exit(RM_EXIT_USAGE);
	}
}

/* A CPU set of the kernel's from SET (CPU_ALLOC'd), its size in *SIZE. */
static cpu_set_t *cpu_mask(hwloc_const_bitmap_t set, size_t *size)
{
	int last = hwloc_bitmap_last(set) < 0 ? 0 : hwloc_bitmap_last(set);
	cpu_set_t *m = CPU_ALLOC(last + 1);
	unsigned cpu;

	*size = CPU_ALLOC_SIZE(last + 1);
	CPU_ZERO_S(*size, m);
	hwloc_bitmap_foreach_begin(cpu, set)
		CPU_SET_S(cpu, *size, m);
	hwloc_bitmap_foreach_end();
	return m;
}

/*
 * The threads of the owner's processes that ran on all of its CPUs (WAS) run on all of them
 * again (NOW): since Linux 6.2 a cpuset change keeps a thread within the affinity last set with
 * sched_setaffinity (as run and attach set it), so growth would not reach them. A thread on WAS,
 * or on what the kernel left of it (WAS and NOW), is set; threads pinned to fewer CPUs are left
 * as they are. A thread that cannot be set is named in a warning: the cgroup holds it on the
 * owner's CPUs all the same.
 */
static void follow_affinity(struct pool *p, const char *owner, hwloc_const_bitmap_t was,
			    hwloc_const_bitmap_t now)
{
	size_t nsize, asize = CPU_ALLOC_SIZE(CPU_SETSIZE);
	cpu_set_t *n = cpu_mask(now, &nsize), *cur = CPU_ALLOC(CPU_SETSIZE);
	hwloc_bitmap_t both = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	char *dir, *path, *msg = NULL;
	pid_t *pids = NULL, *tids;
	ssize_t np = 0;

	hwloc_bitmap_and(both, was, now);
	if (p->have_cgroups) {
		dir = rm_cgroups_path(&p->cg, owner);
		path = xasprintf("%s/cgroup.procs", dir);
		np = rm_cgroup_read_pids(path, &pids, &msg);
		free(path);
		free(dir);
	}
	for (ssize_t i = 0; i < np; i++) {
		int nt = threads_of(pids[i], &tids);

		for (int k = 0; k < nt; k++) {
			if (sched_getaffinity(tids[k], asize, cur))
				continue;
			hwloc_bitmap_zero(set);
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET_S(cpu, asize, cur))
					hwloc_bitmap_set(set, (unsigned)cpu);
			if (!hwloc_bitmap_isequal(set, was) && !hwloc_bitmap_isequal(set, both))
				continue;
			if (sched_setaffinity(tids[k], nsize, n) && errno != ESRCH)
				rm_warnx("cannot set the CPU affinity of thread %d of owner '%s': %s",
					 (int)tids[k], owner, strerror(errno));
		}
		free(tids);
	}
	if (np < 0) {
		rm_warnx("%s", msg);
		free(msg);
	}
	free(pids);
	CPU_FREE(n);
	CPU_FREE(cur);
	hwloc_bitmap_free(both);
	hwloc_bitmap_free(set);
}

int cmd_resize(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_child children[] = { { &alloc_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp argp = {
		resize_options, resize_parse, NULL,
		"Give OWNER COUNT exclusive CPUs in place: its cgroup and processes stay, the CPUs "
		"it keeps stay. Growth places the CPUs added as alloc placed the first ones (its "
		"options, its NUMA nodes, its isolation and cache ways); a shrink keeps the CPUs "
		"first given unless --below-initial. An owner in the shared pool is given its "
		"first exclusive CPUs (with alloc's options); --shared moves an owner to the "
		"shared pool. One step: on a failure nothing changes. Not enough free CPUs: exit 3.",
		children, NULL, NULL
	};
	struct resize_args a = { 0 };
	hwloc_bitmap_t cpus, initial, before, was;
	struct rm_record *rec;
	struct rm_topo *t;
	struct pool p;
	const char *v;
	long i;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	pool_list_columns(c);
	if (!a.r.owner)
		rm_usage_errx("resize needs --owner NAME");
	if (!a.shared == !a.r.count)
		rm_usage_errx("resize needs --count N or --shared");
	if (a.shared && alloc_req_placement_given(&a.r))
		rm_usage_errx("--shared takes no %s", alloc_req_placement_given(&a.r));
	alloc_check_owner(NULL, a.r.owner);
	t = rm_topo_load(c, 0);
	pool_open_topo(&p, c, a.r.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS, t);
	if ((i = pool_find(&p, a.r.owner)) < 0) {
		pool_close(&p);
		rm_usage_errx("no such owner: '%s' (alloc makes one)", a.r.owner);
	}
	cpus = hwloc_bitmap_alloc();
	initial = hwloc_bitmap_alloc();
	before = hwloc_bitmap_alloc();
	was = hwloc_bitmap_alloc();
	rec = &p.st.records[i];
	pool_owner_cpus(rec, cpus);
	pool_owner_runs_on(&p, rec, was);
	hwloc_bitmap_and(was, was, p.all);
	hwloc_bitmap_copy(before, cpus);
	v = rm_record_get(rec, "initial");
	if (!v || rm_cpulist_parse(v, initial, NULL))
		hwloc_bitmap_copy(initial, cpus);
	hwloc_bitmap_and(initial, initial, cpus);

	if (a.shared) {
		check_demotable(&p, rec);
		hwloc_bitmap_zero(cpus);
		rm_record_set(rec, "isolate", "no");
		rm_record_unset(rec, "initial");
		rm_record_unset(rec, "placement");
	} else if (hwloc_bitmap_iszero(cpus)) {
		/* promotion: alloc's choice, with the options given now */
		struct rm_record moved;

		if (a.r.isolate)
			alloc_check_isolate(&p);
		alloc_check_resctrl(&p, &a.r);
		alloc_choose(&p, &a.r, cpus);
		/* last, so that its cache ways are chosen against every other owner's */
		rm_record_copy(&moved, rec);
		rm_state_remove(&p.st, (size_t)i);
		rm_state_add(&p.st, &moved);
		i = (long)p.st.nrecords - 1;
		rec = &p.st.records[i];
		rm_record_set(rec, "isolate", a.r.isolate ? "yes" : "no");
		rm_record_unset(rec, "initial");
		if (a.r.add_mems && !hwloc_bitmap_iszero(a.r.add_mems))
			set_cpus(rec, "add_mems", a.r.add_mems);
		owner_set_placement(&p, (size_t)i, &a.r);
		alloc_choose_resctrl(&p, &a.r, cpus, (size_t)i);
		rec = &p.st.records[i];
	} else if (alloc_req_placement_given(&a.r)) {
		pool_close(&p);
		rm_usage_errx("owner '%s' keeps the placement it was allocated with: resize takes "
			      "no %s", a.r.owner, alloc_req_placement_given(&a.r));
	} else if (a.r.count > (unsigned)hwloc_bitmap_weight(cpus)) {
		grow(&p, (size_t)i, a.r.count, cpus);
		rec = &p.st.records[i];
	} else if (a.r.count < (unsigned)hwloc_bitmap_weight(cpus)) {
		shrink(&p, rec, a.r.count, a.below_initial, cpus, initial);
	}

	set_cpus(rec, "cpus", cpus);
	set_count(rec, cpus);
	if (!hwloc_bitmap_iszero(cpus) && !hwloc_bitmap_iszero(before) &&
	    !hwloc_bitmap_isequal(initial, cpus))
		set_cpus(rec, "initial", initial);
	else
		rm_record_unset(rec, "initial");
	if (!has_reservation(rec))
		pool_set_mems(&p, (size_t)i, cpus);
	pool_rescan(&p);
	if (!a.r.dry_run && !hwloc_bitmap_isequal(before, cpus)) {
		char *list = rm_cpulist_format(cpus);

		pool_commit(&p);
		pool_owner_runs_on(&p, &p.st.records[pool_find(&p, a.r.owner)], cpus);
		hwloc_bitmap_and(cpus, cpus, p.all);
		follow_affinity(&p, a.r.owner, was, cpus);
		if (*list)
			rm_committed("resized owner '%s' to CPUs %s", a.r.owner, list);
		else
			rm_committed("moved owner '%s' to the shared pool", a.r.owner);
		free(list);
	}
	pool_print_owners(&p, c, &p.st.records[pool_find(&p, a.r.owner)], 1);
	pool_close(&p);
	alloc_req_free(&a.r);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(initial);
	hwloc_bitmap_free(before);
	hwloc_bitmap_free(was);
	return RM_EXIT_SUCCESS;
}
