/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset alloc, release, reserve and accept-topology: the commands that divide the CPUs. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "record.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

enum {
	OPT_COUNT = 'c',
	OPT_OWNER = 0x100,
	OPT_FULL_PCPUS_ONLY,
	OPT_DISTRIBUTE_NUMA,
	OPT_ALIGN_SOCKET,
	OPT_DISTRIBUTE_CORES,
	OPT_UNCORE,
	OPT_NUMA_NODE,
	OPT_NEAR,
	OPT_POLICY,
	OPT_FROM,
	OPT_ISOLATE,
	OPT_DRY_RUN,
	OPT_STRICT,
	OPT_L3_WAYS,
	OPT_L3_EXCLUSIVE,
	OPT_MEM_BANDWIDTH,
	OPT_ADD_MEMS,
	OPT_TM_OPTION,
	OPT_CPU_KIND,
};

static const struct argp_option alloc_options[] = {
	{ "count", OPT_COUNT, "N", 0, "the number of CPUs", 0 },
	{ "owner", OPT_OWNER, "NAME", 0, "the owner's name: letters, digits, _ . -", 0 },
	{ "full-pcpus-only", OPT_FULL_PCPUS_ONLY, NULL, 0,
	  "whole physical cores only (the count must be a multiple of the threads per core)", 0 },
	{ "distribute-cpus-across-numa", OPT_DISTRIBUTE_NUMA, NULL, 0,
	  "spread the CPUs evenly over the NUMA nodes they need", 0 },
	{ "align-by-socket", OPT_ALIGN_SOCKET, NULL, 0,
	  "align to whole sockets rather than NUMA nodes", 0 },
	{ "distribute-cpus-across-cores", OPT_DISTRIBUTE_CORES, NULL, 0,
	  "one thread per core first, as far as the cores go", 0 },
	{ "prefer-align-cpus-by-uncorecache", OPT_UNCORE, NULL, 0,
	  "prefer CPUs under one L3 (uncore) cache", 0 },
	{ "policy", OPT_POLICY, "POLICY", 0,
	  "topology manager policy: none (default), best-effort, restricted, single-numa-node", 0 },
	{ "topology-manager-option", OPT_TM_OPTION, "NAME[=VALUE]", 0,
	  "prefer-closest-numa-nodes[=BOOL] or max-allowable-numa-nodes=N", 0 },
	{ "numa-node", OPT_NUMA_NODE, "SET", 0, "prefer CPUs of these NUMA nodes", 0 },
	{ "add-mems", OPT_ADD_MEMS, "NODES", 0,
	  "also bind its memory to these NUMA nodes (memory-only nodes: CXL memory, HBM)", 0 },
	{ "near", OPT_NEAR, "DEVICE", 0,
	  "prefer CPUs of a PCI device's NUMA node; - reads device records on stdin", 0 },
	{ "from", OPT_FROM, "SET", 0, "allocate only from these CPUs", 0 },
	{ "cpu-kind", OPT_CPU_KIND, "KIND", 0,
	  "allocate only from CPUs of this kind: performance or efficiency", 0 },
	{ "isolate", OPT_ISOLATE, NULL, 0,
	  "make the owner's cgroup an isolated cpuset partition (cgroup v2)", 0 },
	{ "l3-ways", OPT_L3_WAYS, "N", 0,
	  "N contiguous L3 cache ways in each L3 domain of its CPUs (resctrl)", 0 },
	{ "l3-exclusive", OPT_L3_EXCLUSIVE, NULL, 0,
	  "no other resctrl group may use those ways; the default group loses them", 0 },
	{ "mem-bandwidth", OPT_MEM_BANDWIDTH, "PERCENT|RATE", 0,
	  "limit its memory bandwidth: 50% or a rate such as 5000MBps (resctrl)", 0 },
	{ 0 }
};

static hwloc_bitmap_t parse_set_arg(struct argp_state *state, const char *opt, const char *arg)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *msg = NULL;

	if (rm_cpulist_parse(arg, set, &msg)) {
		hwloc_bitmap_free(set);
		argp_error(state, "invalid %s: %s", opt, msg);
	}
	return set;
}

static error_t alloc_parse(int key, char *arg, struct argp_state *state)
{
	struct alloc_req *r = state->input;
	char *end;
	unsigned long n;
	int policy;

	switch (key) {
	case OPT_COUNT:
		errno = 0;
		n = strtoul(arg, &end, 10);
		if (!isdigit((unsigned char)*arg) || *end || errno || n == 0 || n > 1000000)
			argp_error(state, "invalid count: '%s' (a whole number of CPUs, at least 1)",
				   arg);
		r->count = n;
		break;
	case OPT_OWNER:
		r->owner = arg;
		break;
	case OPT_FULL_PCPUS_ONLY:
		r->opts.full_pcpus_only = true;
		break;
	case OPT_DISTRIBUTE_NUMA:
		r->opts.distribute_cpus_across_numa = true;
		break;
	case OPT_ALIGN_SOCKET:
		r->opts.align_by_socket = true;
		break;
	case OPT_DISTRIBUTE_CORES:
		r->opts.distribute_cpus_across_cores = true;
		break;
	case OPT_UNCORE:
		r->opts.prefer_align_cpus_by_uncorecache = true;
		break;
	case OPT_POLICY:
		if ((policy = rm_tm_policy_parse(arg)) < 0)
			argp_error(state, "unknown policy: '%s' (none, best-effort, restricted, "
				   "single-numa-node)", arg);
		r->policy = policy;
		break;
	case OPT_TM_OPTION: {
		char *msg = NULL;

		if (rm_tm_opt_parse(&r->opts.tm, arg, &msg))
			argp_error(state, "--topology-manager-option: %s", msg); /* exits */
		break;
	}
	case OPT_NUMA_NODE:
		hwloc_bitmap_free(r->numa);
		r->numa = parse_set_arg(state, "--numa-node", arg);
		break;
	case OPT_ADD_MEMS:
		hwloc_bitmap_free(r->add_mems);
		r->add_mems = parse_set_arg(state, "--add-mems", arg);
		break;
	case OPT_NEAR:
		r->near = arg;
		break;
	case OPT_FROM:
		hwloc_bitmap_free(r->from);
		r->from = parse_set_arg(state, "--from", arg);
		break;
	case OPT_CPU_KIND:
		if (strcmp(arg, "performance") && strcmp(arg, "efficiency"))
			argp_error(state, "invalid --cpu-kind: '%s' (performance or efficiency)", arg);
		r->cpu_kind = arg;
		break;
	case OPT_ISOLATE:
		r->isolate = true;
		break;
	case OPT_L3_WAYS:
		errno = 0;
		n = strtoul(arg, &end, 10);
		if (!isdigit((unsigned char)*arg) || *end || errno || n == 0 || n > 64)
			argp_error(state, "invalid --l3-ways: '%s' (a number of cache ways, at "
				   "least 1)", arg);
		r->l3_ways = (int)n;
		break;
	case OPT_L3_EXCLUSIVE:
		r->l3_exclusive = true;
		break;
	case OPT_MEM_BANDWIDTH:
		r->mem_bandwidth = arg;
		break;
	case ARGP_KEY_END:
		if (r->l3_exclusive && !r->l3_ways)
			argp_error(state, "--l3-exclusive needs --l3-ways N");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp alloc_argp = { alloc_options, alloc_parse, NULL, NULL, NULL, NULL, NULL };

void alloc_req_free(struct alloc_req *r)
{
	hwloc_bitmap_free(r->numa);
	hwloc_bitmap_free(r->add_mems);
	hwloc_bitmap_free(r->from);
	free(r->mb_canon);
}

void alloc_check_owner(const struct pool *p, const char *owner)
{
	if (!rm_name_valid(owner))
		rm_usage_errx("invalid owner name: '%s' (letters, digits, '_', '.', '-'; at most "
			      "64, starting with a letter or digit)", owner);
	if (!strcmp(owner, RM_CGROUP_SHARED))
		rm_usage_errx("invalid owner name: '%s' names the shared pool", owner);
	if (p && pool_find(p, owner) >= 0)
		rm_usage_errx("owner '%s' already has CPUs (release it first)", owner);
}

void alloc_check_isolate(const struct pool *p)
{
	char *msg;

	if (!p->have_cgroups)
		rm_usage_errx("--isolate needs cgroup v2 cpuset partitions (no cgroups are kept here)");
	if ((msg = rm_cgroups_isolate_refused(&p->cg, p->reserved)))
		rm_usage_errx("%s", msg);
}

/* The NUMA node of a PCI device, from sysfs (under --sysroot); -1 when the kernel has none. */
static int device_node(const struct pool *p, const char *dev)
{
	unsigned dom = 0, bus, slot, fn;
	char tail, *path, *v;
	long node;

	if (sscanf(dev, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &tail) != 4 &&
	    (dom = 0, sscanf(dev, "%x:%x.%x%c", &bus, &slot, &fn, &tail) != 3))
		rm_usage_errx("invalid device: '%s' (a PCI address such as 0000:3b:00.0, or - for "
			      "device records on stdin)", dev);
	path = xasprintf("sys/bus/pci/devices/%04x:%02x:%02x.%x/numa_node", dom, bus, slot, fn);
	v = rm_sysfs_read(p->t->sysroot, path);
	if (!v)
		rm_usage_errx("no such PCI device: '%s'", dev);
	node = strtol(v, NULL, 10);
	free(v);
	free(path);
	return node < 0 ? -1 : (int)node;
}

/* --near -: the numa= (device records) or nodes= fields of the records on stdin. */
static void stdin_nodes(hwloc_bitmap_t nodes)
{
	struct rm_record rec = { 0 };
	unsigned lineno = 0;
	char *msg = NULL;
	int rc;

	while ((rc = rm_record_read(stdin, &lineno, &rec, &msg)) > 0) {
		const char *v = rm_record_get(&rec, "numa") ?: rm_record_get(&rec, "nodes");

		if (v && strcmp(v, "-") && rm_cpulist_parse(v, nodes, &msg) == 0)
			; /* ORed in */
		else if (msg)
			rm_usage_errx("standard input: line %u: %s", lineno, msg);
		rm_record_free(&rec);
	}
	if (rc < 0)
		rm_usage_errx("standard input: %s", msg);
}

/* Exit 2 when SET names nodes this machine lacks; OPT names the option. */
static void check_nodes_exist(const struct pool *p, const char *opt, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_t bad = hwloc_bitmap_dup(set);
	char *s;

	hwloc_bitmap_andnot(bad, bad, hwloc_topology_get_topology_nodeset(p->t->topo));
	if (hwloc_bitmap_iszero(bad)) {
		hwloc_bitmap_free(bad);
		return;
	}
	s = rm_cpulist_format(bad);
	rm_usage_errx("%s: no such NUMA node: '%s'", opt, s);
}

/* --numa-node names nodes with CPUs; --add-mems nodes with memory. Exit 2 otherwise. */
static void check_nodes(const struct pool *p, const struct alloc_req *r)
{
	unsigned id;

	if (r->numa) {
		check_nodes_exist(p, "--numa-node", r->numa);
		hwloc_bitmap_foreach_begin(id, r->numa) {
			hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(p->t->topo, id);
			hwloc_obj_t near = rm_topo_node_nearest(p->t, node);

			if (!rm_topo_node_memory_only(p->t, node))
				continue;
			if (near)
				rm_usage_errx("--numa-node: NUMA node %u has no CPUs (memory only); the "
					      "nearest node with CPUs is %u: --numa-node %u --add-mems %u",
					      id, near->os_index, near->os_index, id);
			rm_usage_errx("--numa-node: NUMA node %u has no CPUs (memory only)", id);
		} hwloc_bitmap_foreach_end();
	}
	if (r->add_mems) {
		hwloc_bitmap_t none = hwloc_bitmap_dup(r->add_mems);

		check_nodes_exist(p, "--add-mems", r->add_mems);
		hwloc_bitmap_andnot(none, none, p->memnodes);
		if (!hwloc_bitmap_iszero(none)) {
			char *s = rm_cpulist_format(none);

			hwloc_bitmap_free(none);
			rm_usage_errx("--add-mems: NUMA node without memory: '%s'", s);
		}
		hwloc_bitmap_free(none);
	}
}

/* The nodes another provider needs: --numa-node and --near. Empty for none. A device on a
 * memory-only node (CXL) counts as being on the nearest node with CPUs. *WARNING: what to say
 * when the allocation is made (an error instead is the only line). */
static void provider_nodes(struct pool *p, const struct alloc_req *r, hwloc_bitmap_t nodes,
			   char **warning)
{
	hwloc_const_bitmap_t all = hwloc_topology_get_topology_nodeset(p->t->topo);
	hwloc_bitmap_t near = hwloc_bitmap_alloc();
	unsigned id;

	hwloc_bitmap_zero(nodes);
	if (r->numa)
		hwloc_bitmap_or(nodes, nodes, r->numa);
	if (r->near && !strcmp(r->near, "-")) {
		stdin_nodes(near);
		hwloc_bitmap_and(near, near, all);
	} else if (r->near) {
		int node = device_node(p, r->near);

		if (node < 0)
			*warning = xasprintf("device %s has no NUMA affinity; no NUMA preference "
					     "from it", r->near);
		else if (hwloc_get_numanode_obj_by_os_index(p->t->topo, (unsigned)node))
			hwloc_bitmap_set(near, node);
	}
	hwloc_bitmap_foreach_begin(id, near) {
		hwloc_obj_t o = rm_topo_node_nearest(p->t,
						     hwloc_get_numanode_obj_by_os_index(p->t->topo, id));

		if (o)
			hwloc_bitmap_set(nodes, o->os_index);
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(near);
}

/* CPUs isolated at boot (isolcpus=, nohz_full=) are where --isolate owners go first, and the
 * last choice of the others: allocate from that part of SHARED when it can hold the request on
 * its own. Returns 0 with RESULT, or non-zero to choose from all of SHARED. */
static int prefer_boot_isolated(const struct pool *p, const struct alloc_req *r,
				hwloc_const_bitmap_t shared, hwloc_const_bitmap_t hint,
				hwloc_bitmap_t result)
{
	hwloc_bitmap_t part = hwloc_bitmap_alloc();
	char *msg = NULL;
	int rc = -1;

	pool_boot_isolated(p, part);
	if (!hwloc_bitmap_iszero(part) && hwloc_bitmap_intersects(part, shared)) {
		if (r->isolate)
			hwloc_bitmap_and(part, shared, part);
		else
			hwloc_bitmap_andnot(part, shared, part);
		if (!hwloc_bitmap_isequal(part, shared))
			rc = rm_cpualloc_allocate(p->ct, part, p->reserved, r->count, &r->opts, hint,
						  result, &msg);
	}
	free(msg);
	hwloc_bitmap_free(part);
	return rc;
}

/* Keep in SET the CPUs of hwloc's cpukind with the highest efficiency rank (KIND
 * "performance") or the lowest ("efficiency"); with one kind or none, every CPU is both. */
static void restrict_cpu_kind(struct pool *p, const char *kind, hwloc_bitmap_t set)
{
	int nr = hwloc_cpukinds_get_nr(p->t->topo, 0), best = -1, best_eff = 0;
	bool perf = !strcmp(kind, "performance");
	hwloc_bitmap_t kset;

	for (int k = 0; k < nr; k++) {
		int eff = -1;

		if (hwloc_cpukinds_get_info(p->t->topo, (unsigned)k, NULL, &eff, NULL, NULL, 0))
			continue;
		if (eff < 0)
			eff = k; /* unranked kinds: hwloc lists them from least to most powerful */
		if (best < 0 || (perf ? eff > best_eff : eff < best_eff)) {
			best = k;
			best_eff = eff;
		}
	}
	if (nr < 2 || best < 0)
		return;
	kset = hwloc_bitmap_alloc();
	if (!hwloc_cpukinds_get_info(p->t->topo, (unsigned)best, kset, NULL, NULL, NULL, 0))
		hwloc_bitmap_and(set, set, kset);
	hwloc_bitmap_free(kset);
}

void alloc_choose(struct pool *p, struct alloc_req *r, hwloc_bitmap_t result)
{
	hwloc_bitmap_t shared = hwloc_bitmap_alloc(), avail = hwloc_bitmap_alloc(),
		       provider = hwloc_bitmap_alloc(), hint = hwloc_bitmap_alloc(),
		       rest = hwloc_bitmap_alloc();
	unsigned nfree;
	char *msg = NULL, *warning = NULL;
	int rc;

	check_nodes(p, r);
	if ((rc = rm_cpualloc_check_opts(p->ct, &r->opts, r->policy, &msg)))
		goto out;
	if (r->from && rm_topo_check_cpus(p->t, r->from, &msg)) {
		char *m = xasprintf("--from: %s", msg);

		free(msg);
		msg = m;
		rc = RM_CPUALLOC_EINVAL;
		goto out;
	}
	provider_nodes(p, r, provider, &warning);

	/* the static policy takes from the default cpuset minus the reserved CPUs */
	hwloc_bitmap_andnot(shared, p->all, p->exclusive);
	if (r->from)
		hwloc_bitmap_and(shared, shared, r->from);
	if (r->cpu_kind)
		restrict_cpu_kind(p, r->cpu_kind, shared);
	hwloc_bitmap_andnot(avail, shared, p->reserved);
	nfree = hwloc_bitmap_weight(avail);

	/* Without CPUs reserved in it, the shared pool keeps one CPU of its own. */
	hwloc_bitmap_andnot(rest, p->all, p->exclusive);
	if (p->strict)
		hwloc_bitmap_andnot(rest, rest, p->reserved);
	if (!hwloc_bitmap_intersects(rest, p->reserved) && hwloc_bitmap_isincluded(rest, avail) &&
	    r->count >= (unsigned)hwloc_bitmap_weight(rest)) {
		msg = xasprintf("not enough free CPUs: requested %u, available %u (the shared pool "
				"keeps at least one CPU%s)", r->count, hwloc_bitmap_weight(rest) - 1,
				p->strict ? "" : "; reserve CPUs to let allocations take the rest");
		rc = RM_CPUALLOC_ENOSPC;
		goto out;
	}
	if (r->policy == RM_TM_NONE) {
		/* no topology manager: --numa-node and --near are a plain preference */
		hwloc_bitmap_copy(hint, provider);
	} else if ((rc = rm_cpualloc_hint(p->ct, avail, r->count, provider, r->policy, &r->opts,
					  hint, NULL, &msg))) {
		goto out;
	}
	if (nfree < r->count) {
		msg = xasprintf("not enough free CPUs: requested %u, available %u%s", r->count,
				nfree, r->from ? " in --from" : r->cpu_kind ? " of --cpu-kind" : "");
		rc = RM_CPUALLOC_ENOSPC;
		goto out;
	}
	rc = prefer_boot_isolated(p, r, shared, hint, result);
	if (rc)
		rc = rm_cpualloc_allocate(p->ct, shared, p->reserved, r->count, &r->opts, hint,
					  result, &msg);
out:
	hwloc_bitmap_free(shared);
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(provider);
	hwloc_bitmap_free(hint);
	hwloc_bitmap_free(rest);
	if (rc) {
		free(warning);
		pool_close(p);
		pool_fail(rc, msg);
	}
	if (warning)
		rm_warnx("%s", warning);
	free(warning);
}

/* ---- alloc ---- */

static const struct argp_option alloc_cmd_options[] = {
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "choose and print, change nothing", 0 },
	{ 0 }
};

static error_t alloc_cmd_parse(int key, char *arg, struct argp_state *state)
{
	struct alloc_req *r = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = state->input;
		break;
	case OPT_DRY_RUN:
		r->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child alloc_children[] = { { &alloc_argp, 0, NULL, 0 }, { 0 } };

/* Put a copy of R before the N records at LIST (the loops walk the state backwards). */
static void prepend_copy(struct rm_record *list, size_t *n, const struct rm_record *r)
{
	memmove(list + 1, list, *n * sizeof(*list));
	rm_record_copy(list, r);
	(*n)++;
}

int cmd_alloc(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		alloc_cmd_options, alloc_cmd_parse, NULL,
		"Give OWNER COUNT exclusive CPUs, chosen as the kubelet's static CPU manager policy "
		"chooses them, and with --l3-ways or --mem-bandwidth a resctrl group holding a "
		"share of the L3 cache and of the memory bandwidth; print the allocation record. "
		"Not enough free CPUs, cache ways or CLOSIDs: exit 3.",
		alloc_children, NULL, NULL
	};
	struct alloc_req r = { 0 };
	hwloc_bitmap_t cpus;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &r, 0);
	pool_list_columns(c);
	if (!r.count)
		rm_usage_errx("alloc needs --count N");
	if (!r.owner)
		rm_usage_errx("alloc needs --owner NAME");
	alloc_check_owner(NULL, r.owner);
	pool_open(&p, c, (r.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS));
	alloc_check_owner(&p, r.owner);
	if (r.isolate)
		alloc_check_isolate(&p);
	alloc_check_resctrl(&p, &r);
	cpus = hwloc_bitmap_alloc();
	alloc_choose(&p, &r, cpus);
	pool_add(&p, r.owner, cpus, r.add_mems, r.isolate, 0);
	alloc_choose_resctrl(&p, &r, cpus, p.st.nrecords - 1);
	if (!r.dry_run) {
		pool_commit(&p);
		pool_committed_cpus(cpus, r.owner);
	}
	pool_print_owners(&p, c, &p.st.records[p.st.nrecords - 1], 1);
	pool_close(&p);
	alloc_req_free(&r);
	hwloc_bitmap_free(cpus);
	return RM_EXIT_SUCCESS;
}

/* ---- release ---- */

static const struct argp_option release_options[] = {
	{ "all", RM_OPT_ALL, NULL, 0, "release every allocation", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would be released, change nothing", 0 },
	{ 0 }
};

int cmd_release(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		release_options, rm_owners_parse, "OWNER...",
		"Give the owners' CPUs back to the shared pool and remove their cgroups (their "
		"processes move to the shared pool's cgroup). Print the released allocations. "
		"With --all, the shared pool's cgroup and the rmtools parent go too when no "
		"process is left in them.",
		NULL, NULL, NULL
	};
	struct rm_owners a = { 0 };
	struct rm_record *gone;
	size_t ngone = 0;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	pool_list_columns(c);
	rm_owners_require(&a, "release");
	pool_open(&p, c, a.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS);
	for (int i = 0; i < a.n; i++)
		if (pool_find(&p, a.names[i]) < 0)
			rm_usage_errx("no such owner: '%s'", a.names[i]);
	gone = xcalloc(p.st.nrecords, sizeof(*gone));
	for (size_t i = p.st.nrecords; i-- > 0;) {
		const struct rm_record *r = &p.st.records[i];

		if (strcmp(rm_record_kind(r), "owner") ||
		    !rm_owners_match(&a, rm_record_get(r, "owner")))
			continue;
		prepend_copy(gone, &ngone, r);
		pool_remove(&p, i);
	}
	if (!a.dry_run && ngone) {
		pool_commit(&p);
		pool_committed_owners("released", gone, ngone);
	}
	if (!a.dry_run && a.all)
		pool_remove_cgroups(&p);
	pool_print_owners(&p, c, gone, ngone);
	pool_free_records(gone, ngone);
	free(a.names);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}

/* ---- reserve ---- */

struct reserve_args {
	const char *set;
	unsigned count;
	bool have_count, strict, dry_run;
};

static const struct argp_option reserve_options[] = {
	{ "count", OPT_COUNT, "N", 0,
	  "reserve N CPUs, chosen as the kubelet chooses them (whole cores, lowest first)", 0 },
	{ "strict", OPT_STRICT, NULL, 0,
	  "keep the reserved CPUs out of the shared pool (strict-cpu-reservation)", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the reservation, change nothing", 0 },
	{ 0 }
};

static error_t reserve_parse(int key, char *arg, struct argp_state *state)
{
	struct reserve_args *a = state->input;
	char *end;
	unsigned long n;

	switch (key) {
	case OPT_COUNT:
		errno = 0;
		n = strtoul(arg, &end, 10);
		if (!isdigit((unsigned char)*arg) || *end || errno || n > 1000000)
			argp_error(state, "invalid count: '%s' (a whole number of CPUs)", arg);
		a->count = n;
		a->have_count = true;
		break;
	case OPT_STRICT:
		a->strict = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (a->set)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->set = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_reserve(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		reserve_options, reserve_parse, "SET\n--count N",
		"Set the system-reserved CPUs: never given to an owner, and (unless --strict) part "
		"of the shared pool. An empty SET (\"\") removes the reservation. Prints the reserved "
		"pool's record.",
		NULL, NULL, NULL
	};
	static const struct rm_cpualloc_opts no_opts;
	struct reserve_args a = { 0 };
	hwloc_bitmap_t set, clash;
	char *msg = NULL;
	struct pool p;
	int rc = 0;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	print_pools(NULL, c, true);
	if (!a.set == !a.have_count)
		rm_usage_errx("reserve: give either SET or --count N");
	set = hwloc_bitmap_alloc();
	if (a.set && rm_cpulist_parse(a.set, set, &msg)) {
		char *m = xasprintf("invalid SET: %s", msg);

		free(msg);
		hwloc_bitmap_free(set);
		pool_fail(RM_CPUALLOC_EINVAL, m);
	}
	clash = hwloc_bitmap_alloc();
	pool_open(&p, c, a.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS);
	if (a.set && !hwloc_bitmap_isincluded(set, p.all)) {
		char *list;

		hwloc_bitmap_andnot(clash, set, p.all);
		list = rm_cpulist_format(clash);
		msg = xasprintf("not an online CPU of this machine: '%s'", list);
		free(list);
		rc = RM_CPUALLOC_EINVAL;
	}
	if (!rc && a.have_count)
		rc = rm_cpualloc_reserve(p.ct, a.count, &no_opts, set, &msg);
	hwloc_bitmap_and(clash, set, p.exclusive);
	if (!rc && !hwloc_bitmap_iszero(clash)) {
		char *list = rm_cpulist_format(clash);

		msg = xasprintf("CPUs %s are allocated to owners; release them first, or reserve "
				"other CPUs", list);
		free(list);
		rc = a.have_count ? RM_CPUALLOC_ENOSPC : RM_CPUALLOC_EINVAL;
	}
	if (rc) {
		hwloc_bitmap_free(set);
		hwloc_bitmap_free(clash);
		pool_close(&p);
		pool_fail(rc, msg);
	}
	pool_set_reserved(&p, set, a.strict);
	if (!a.dry_run) {
		char *list = rm_cpulist_format(set);

		pool_commit(&p);
		if (*list)
			rm_committed("reserved CPUs %s%s", list, a.strict ? " (strict)" : "");
		else
			rm_committed("removed the reservation");
		free(list);
	}
	print_pools(&p, c, true);
	pool_close(&p);
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(clash);
	return RM_EXIT_SUCCESS;
}

/* ---- accept-topology ---- */

int cmd_accept_topology(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would be dropped, change nothing",
		  0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_dry_run_parse, NULL,
		"Adopt the CPUs as they are now: drop the allocations (and reserved CPUs) that "
		"name CPUs no longer present, keep the rest (their memory nodes recomputed), and "
		"print the dropped allocations. Offline CPUs are still present.",
		NULL, NULL, NULL
	};
	bool dry_run = false;
	hwloc_bitmap_t cpus;
	struct rm_record *gone;
	size_t ngone = 0;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &dry_run, 0);
	pool_list_columns(c);
	pool_open(&p, c, (dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS) | POOL_ANY_TOPOLOGY);
	cpus = hwloc_bitmap_alloc();
	gone = xcalloc(p.st.nrecords, sizeof(*gone));
	for (size_t i = p.st.nrecords; i-- > 0;) {
		const struct rm_record *r = &p.st.records[i];

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		pool_owner_cpus(r, cpus);
		if (hwloc_bitmap_isincluded(cpus, p.present)) {
			pool_set_mems(&p, i, cpus);
			continue;
		}
		prepend_copy(gone, &ngone, r);
		pool_remove(&p, i);
	}
	if (!hwloc_bitmap_isincluded(p.reserved, p.present)) {
		hwloc_bitmap_and(cpus, p.reserved, p.present);
		pool_set_reserved(&p, cpus, p.strict);
	}
	if (!dry_run) {
		pool_commit(&p);
		if (ngone)
			pool_committed_owners("adopted the CPUs as they are now and dropped", gone,
					      ngone);
		else
			rm_committed("adopted the CPUs as they are now");
	}
	pool_print_owners(&p, c, gone, ngone);
	pool_free_records(gone, ngone);
	pool_close(&p);
	hwloc_bitmap_free(cpus);
	return RM_EXIT_SUCCESS;
}
