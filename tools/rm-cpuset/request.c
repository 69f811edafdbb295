/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What an allocation or a reservation asks (alloc's and reserve's options, shared with run and
 * apply) and how it is decided: the CPU choice, the Memory Manager, the owner's memory limits. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "hugetlb.h"
#include "input.h"
#include "kernfs.h"
#include "record.h"
#include "rm-cpuset.h"
#include "size.h"
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
	OPT_STRICT,
	OPT_L3_WAYS,
	OPT_L3_EXCLUSIVE,
	OPT_MEM_BANDWIDTH,
	OPT_ADD_MEMS,
	OPT_TM_OPTION,
	OPT_MEMORY,
	OPT_HUGEPAGES,
	OPT_RESERVE_MEMORY,
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
	uint64_t n;
	int policy;

	switch (key) {
	case OPT_COUNT:
		if (rm_parse_uint(arg, 1, 1000000, &n))
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
		if (rm_parse_uint(arg, 1, 64, &n))
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
	free(r->hugepages);
	if (r->mm)
		rm_memmgr_close(r->mm);
	free(r->mm);
	free(r->pages);
	free(r->mem_nodes);
	free(r->hp_nodes);
	hwloc_bitmap_free(r->mem_set);
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
	v = rm_sysfs_read(rm_input_root(p->t->in), path);
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

/* ---- the Memory Manager ---- */

void alloc_memory_check(const struct rm_topo *t, struct alloc_req *r)
{
	char *msg = NULL;

	if (!r->memory && !r->nhugepages)
		return;
	r->mm = xcalloc(1, sizeof(*r->mm));
	if (rm_memmgr_open(r->mm, t, &msg) < 0)
		rm_usage_errx("--memory, --hugepages: cannot read the NUMA nodes' memory: %s", msg);
	r->pages = xcalloc(r->mm->hp.nsizes + 1, sizeof(*r->pages));
	for (size_t i = 0; i < r->nhugepages; i++) {
		char *arg = xstrdup(r->hugepages[i]), *colon = strrchr(arg, ':');
		uint64_t n;
		size_t s;

		if (!colon)
			rm_usage_errx("invalid --hugepages: '%s' (SIZE:N, such as 2M:512)",
				      r->hugepages[i]);
		*colon = '\0';
		if (rm_hugepages_parse_size(&r->mm->hp, arg, &s, &msg) < 0)
			rm_usage_errx("--hugepages: %s", msg);
		/* at most 2^32-1 pages each, so that the sum over every --hugepages stays exact */
		if (rm_parse_uint(colon + 1, 1, UINT32_MAX, &n))
			rm_usage_errx("invalid --hugepages: '%s' (N: a whole number of pages, at least "
				      "1)", r->hugepages[i]);
		r->pages[s] += n;
		free(arg);
	}
}

/* Exit 1: the state's memory fields cannot be read. */
static void corrupt(const struct pool *p, const struct rm_record *rec, char *msg)
{
	rm_errx(RM_EXIT_FAILURE, "corrupt state %s: line %u: %s", p->st.path, rec->line + 1, msg);
}

void alloc_memory_account(const struct pool *p, struct alloc_req *r)
{
	char *msg = NULL;

	size_t bad;

	if (r->mm && rm_memmgr_account_state(r->mm, p->st.records, p->st.nrecords,
					     RM_MEMMGR_SYSTEM | RM_MEMMGR_OWNERS, &bad, &msg) < 0)
		corrupt(p, &p->st.records[bad], msg);
}

/* "; free memory: node 0: 8GiB, ...; free 2MiB huge pages: node 0: 512, ..." for what R asks. */
static char *memory_free_text(const struct alloc_req *r)
{
	char *s = xstrdup("");

	for (size_t res = 0; res < r->mm->nres; res++) {
		char *name, *list, *n;

		if (res ? !r->pages[res - 1] : !r->memory)
			continue;
		name = rm_memmgr_res_name(r->mm, res);
		list = rm_memmgr_free_text(r->mm, res);
		n = xasprintf("%s; free %s: %s", s, name, list);
		free(s);
		free(name);
		free(list);
		s = n;
	}
	return s;
}

/* The decision record of the Memory Manager's extension of the merged nodes to NODES (EXT 0),
 * or of its failure (EXT -1). */
static void explain_extension(FILE *out, const int *ids, unsigned nn, const unsigned char *nodes,
			      int ext)
{
	struct rm_record rec = { 0 };
	char *list = rm_tm_nodes_text(ids, nn, nodes);

	rm_record_set(&rec, "extended", "memory");
	rm_record_set(&rec, "nodes", ext == 0 ? list : "none");
	rm_record_write(out, &rec);
	rm_record_free(&rec);
	free(list);
}

/*
 * The NUMA affinity of R over every node with CPUs or memory (memory-only nodes too): the CPU
 * provider (free CPUs of AVAIL per node), one provider per resource asked (memory, each huge
 * page size: what is free after the system reserve and the other owners) and the nodes of
 * --numa-node and --near (PROVIDER), merged under R's policy (best-effort under none: the
 * Memory Manager places memory by its hints whatever the policy). Takes the memory and huge
 * pages from the nodes chosen (a group when no single node holds them), sets R's mem_set and
 * the CPUs' HINT (those nodes). ENOSPC with *MSG naming each node's free CPUs and memory.
 */
static int memory_hint(struct pool *p, struct alloc_req *r, hwloc_const_bitmap_t avail,
		       hwloc_const_bitmap_t provider, hwloc_bitmap_t hint, char **msg)
{
	struct rm_memmgr *m = r->mm;
	size_t nn = m->nn, np = 1;
	uint64_t *freec = xcalloc(nn, sizeof(*freec)), *totalc = xcalloc(nn, sizeof(*totalc));
	struct rm_tm_provider *prov = xcalloc(m->nres + 2, sizeof(*prov));
	struct rm_memreq req = { .memory = r->memory, .pages = r->pages };
	unsigned char *need = xcalloc(nn, 1), *best = xcalloc(nn, 1), *merged = xcalloc(nn, 1);
	struct rm_tm_config tm = r->opts.tm;
	hwloc_bitmap_t ids = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	int *intids = xcalloc(nn, sizeof(*intids));
	unsigned *distance;
	bool pref = false, admit = false, any_need = false;
	int rc = 0, ext;

	for (size_t i = 0; i < nn; i++) {
		unsigned id = m->hp.nodes[i].id;
		hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(p->t->topo, id);

		intids[i] = (int)id;
		hwloc_bitmap_set(ids, id);
		if (node) {
			hwloc_bitmap_and(set, rm_topo_node_cpus(p->t, node), p->all);
			totalc[i] = hwloc_bitmap_weight(set);
			hwloc_bitmap_and(set, set, avail);
			freec[i] = hwloc_bitmap_weight(set);
		}
		if (provider && hwloc_bitmap_isset(provider, id)) {
			need[i] = 1;
			any_need = true;
		}
	}
	prov[0] = rm_tm_amount(freec, totalc, r->count);
	prov[0].name = "cpu";
	np += rm_memmgr_providers(m, &req, prov + 1);
	if (any_need)
		prov[np++] = (struct rm_tm_provider){ .kind = RM_TM_NODES, .need = need,
						      .name = "numa-node" };
	tm.ids = intids;
	tm.policy = r->policy == RM_TM_NONE ? RM_TM_BEST_EFFORT : r->policy;
	distance = rm_tm_distances(p->t->topo, ids, nn);
	if (rm_tm_merge(&tm, nn, distance, prov, np, best, &pref, &admit) == RM_TM_EINVAL) {
		*msg = rm_tm_too_many_nodes(&tm, (unsigned)nn);
		rc = RM_CPUALLOC_EINVAL;
		goto out;
	}
	if (!admit) {
		char *cpus = rm_tm_per_node(intids, freec, nn), *mem = memory_free_text(r);

		*msg = xasprintf("topology manager policy %s: %s %u CPUs%s%s (free CPUs: %s%s)",
				 rm_tm_policy_name(tm.policy),
				 tm.policy == RM_TM_SINGLE_NUMA_NODE ?
					 "no single NUMA node can hold" :
					 "no set of NUMA nodes is preferred by every resource for",
				 r->count,
				 r->memory ? " and the memory" : "",
				 r->nhugepages ? " and the huge pages" : "", cpus, mem);
		free(cpus);
		free(mem);
		rc = RM_CPUALLOC_ENOSPC;
		goto out;
	}
	/* best-effort may choose nodes that cannot hold it all: extended to nodes that do (a
	 * group), else the message names each node's free amount of what is short */
	memcpy(merged, best, nn);
	ext = rm_memmgr_extend(m, &req, tm.prefer_closest ? distance : NULL, pref, best);
	if (tm.explain && memcmp(merged, best, nn))
		explain_extension(tm.explain, intids, (unsigned)nn, best, ext);
	if (ext == 0 && rm_memmgr_violates(m, best)) {
		char *nodes = rm_tm_nodes_text(intids, (unsigned)nn, best);

		*msg = xasprintf("NUMA nodes %s would break another owner's memory group (the "
				 "Memory Manager keeps each node in one group)", nodes);
		free(nodes);
		rc = RM_CPUALLOC_ENOSPC;
		goto out;
	}
	if (rm_memmgr_take(m, &req, best, &r->mem_nodes, &r->hp_nodes, msg) < 0) {
		rc = RM_CPUALLOC_ENOSPC;
		goto out;
	}
	r->mem_set = hwloc_bitmap_alloc();
	for (size_t i = 0; i < nn; i++) {
		if (!best[i])
			continue;
		if (totalc[i])
			hwloc_bitmap_set(hint, m->hp.nodes[i].id);
		if (hwloc_bitmap_isset(p->memnodes, m->hp.nodes[i].id))
			hwloc_bitmap_set(r->mem_set, m->hp.nodes[i].id);
	}
out:
	free(freec);
	free(totalc);
	free(prov);
	free(need);
	free(best);
	free(merged);
	free(intids);
	free(distance);
	hwloc_bitmap_free(ids);
	hwloc_bitmap_free(set);
	return rc;
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
	if (r->mm) {
		/* the Memory Manager's providers merged with the CPUs' */
		if ((rc = memory_hint(p, r, avail, provider, hint, &msg)))
			goto out;
	} else if (r->policy == RM_TM_NONE) {
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

void alloc_memory_record(struct pool *p, struct alloc_req *r, size_t index)
{
	struct rm_record *rec = &p->st.records[index];
	char *v;

	if (!r->mm)
		return;
	v = rm_cpulist_format(r->mem_set);
	rm_record_set(rec, "mems", v);
	free(v);
	v = xasprintf("%" PRIu64, r->memory);
	rm_record_set(rec, "memory", v);
	free(v);
	rm_record_set(rec, "memory_nodes", r->mem_nodes ?: "-");
	rm_record_set(rec, "hugepages", r->hp_nodes ?: "-");
}

/* memory.max and memory.min of the cgroup DIR (v2), "+memory" in the subtree_control of the
 * hierarchy's root and the parent first. */
static int memory_files(struct pool *p, const char *dir, uint64_t bytes,
			struct rm_kernfs_log *log, char **msg)
{
	const char *up[] = { p->cg.mount, p->cg.parent };
	char *v = xasprintf("%" PRIu64, bytes);
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(up) && !rc; i++)
		if (!rm_kernfs_list_has(up[i], "cgroup.subtree_control", "memory",
					RM_HUGETLB_FILES))
			rc = rm_kernfs_put(log, up[i], "cgroup.subtree_control", "+memory",
					   "-memory", msg);
	if (!rc)
		rc = rm_kernfs_put(log, dir, "memory.max", v, "max", msg);
	if (!rc)
		rc = rm_kernfs_put(log, dir, "memory.min", v, "0", msg);
	free(v);
	return rc;
}

/* Exit 2 when the limits cannot be set here at all: no memory controller on the cgroup v2
 * hierarchy for --memory, no hugetlb controller for --hugepages. Reads only. */
static void memory_check_cgroups(const struct pool *p, const struct alloc_req *r)
{
	struct rm_hugetlb h;
	char *msg = NULL;

	if (!r->mm || !p->have_cgroups || p->cg.version != RM_CGROUP_V2)
		return;
	if (r->memory && !rm_kernfs_list_has(p->cg.mount, "cgroup.controllers", "memory",
					     RM_HUGETLB_FILES))
		rm_usage_errx("--memory needs the memory controller of cgroup v2 (%s/"
			      "cgroup.controllers does not offer it)", p->cg.mount);
	for (size_t s = 0; s < r->mm->hp.nsizes; s++)
		if (r->pages[s]) {
			if (rm_hugetlb_open(&h, &msg) < 0)
				rm_usage_errx("--hugepages: %s", msg);
			rm_hugetlb_close(&h);
			break;
		}
}

int owner_memory_limits(struct pool *p, const struct rm_record *rec, struct rm_kernfs_log *log,
			char **msg)
{
	const char *owner = rm_record_get(rec, "owner"), *mem = rm_record_get(rec, "memory");
	const char *hp = rm_record_get(rec, "hugepages");
	uint64_t sizes[8], bytes[8]; /* page sizes: x86 has 2, arm64 4 */
	struct rm_hugetlb h = { 0 };
	bool have_h = false;
	char *dir, *copy, *tok, *save = NULL;
	size_t nsizes = 0;
	int rc = 0;

	if (!p->have_cgroups || p->cg.version != RM_CGROUP_V2 || !owner)
		return 0;
	dir = rm_cgroups_path(&p->cg, owner);
	if (mem && strcmp(mem, "-") && strcmp(mem, "0"))
		rc = memory_files(p, dir, strtoull(mem, NULL, 10), log, msg);
	free(dir);
	/* hugepages=PAGESIZE:NODE:PAGES,...: one limit per page size, its pages on every node */
	copy = xstrdup(hp && strcmp(hp, "-") ? hp : "");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *pages = strrchr(tok, ':');
		uint64_t size = strtoull(tok, NULL, 10);
		size_t k = 0;

		while (k < nsizes && sizes[k] != size)
			k++;
		if (k == nsizes && nsizes < ARRAY_SIZE(sizes)) {
			sizes[nsizes] = size;
			bytes[nsizes++] = 0;
		}
		if (k < nsizes)
			bytes[k] += size * strtoull(pages ? pages + 1 : "0", NULL, 10);
	}
	for (size_t k = 0; !rc && k < nsizes; k++) {
		if (!have_h && (rc = rm_hugetlb_open(&h, msg)) < 0)
			break;
		have_h = true;
		rc = rm_hugetlb_set_logged(&h, owner, sizes[k], true, bytes[k], log, msg);
	}
	free(copy);
	if (have_h)
		rm_hugetlb_close(&h);
	return rc < 0 ? -1 : 0;
}

void alloc_memory_limits(struct pool *p, struct alloc_req *r, size_t index)
{
	struct rm_kernfs_log log = { .flags = RM_HUGETLB_FILES };
	char *msg = NULL;

	if (!r->mm || !p->have_cgroups)
		return;
	if (p->cg.version != RM_CGROUP_V2) {
		rm_warnx("memory.max, memory.min and hugetlb limits need cgroup v2: '%s' has its "
			 "memory reserved in the state only", r->owner);
		return;
	}
	if (owner_memory_limits(p, &p->st.records[index], &log, &msg) < 0) {
		/* undo the limits, then the allocation */
		rm_kernfs_undo(&log, &msg);
		rm_kernfs_log_free(&log);
		pool_remove(p, index);
		pool_commit(p);
		rm_errx(RM_EXIT_FAILURE, "%s (the allocation was undone)", msg);
	}
	rm_kernfs_log_free(&log);
}

static const struct argp_option alloc_memory_options[] = {
	{ "memory", OPT_MEMORY, "SIZE", 0,
	  "reserve SIZE of memory on its NUMA nodes (memory.max and memory.min)", 0 },
	{ "hugepages", OPT_HUGEPAGES, "SIZE:N", 0,
	  "reserve N huge pages of SIZE on its NUMA nodes (hugetlb limit); repeatable", 0 },
	{ 0 }
};

static error_t alloc_memory_parse(int key, char *arg, struct argp_state *state)
{
	struct alloc_req *r = state->input;

	switch (key) {
	case OPT_MEMORY: {
		char *msg = NULL;

		if (rm_size_parse(arg, &r->memory, &msg) < 0 || !r->memory)
			argp_error(state, "invalid --memory: '%s' (a size such as 8G, more than 0)",
				   arg);
		free(msg);
		break;
	}
	case OPT_HUGEPAGES:
		r->hugepages = xrealloc(r->hugepages, (r->nhugepages + 1) * sizeof(*r->hugepages));
		r->hugepages[r->nhugepages++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp alloc_memory_argp = {
	alloc_memory_options, alloc_memory_parse, NULL, NULL, NULL, NULL, NULL
};

size_t alloc_plan(struct pool *p, struct alloc_req *r, hwloc_bitmap_t cpus)
{
	alloc_check_owner(p, r->owner);
	if (r->isolate)
		alloc_check_isolate(p);
	alloc_check_resctrl(p, r);
	memory_check_cgroups(p, r);
	alloc_memory_account(p, r);
	alloc_choose(p, r, cpus);
	pool_add(p, r->owner, cpus, r->add_mems, r->isolate, 0);
	owner_set_placement(p, p->st.nrecords - 1, r);
	alloc_choose_resctrl(p, r, cpus, p->st.nrecords - 1);
	alloc_memory_record(p, r, p->st.nrecords - 1);
	latency_record(p, r, p->st.nrecords - 1);
	return p->st.nrecords - 1;
}

/* ---- reserve ---- */

static const struct argp_option reserve_options[] = {
	{ "count", OPT_COUNT, "N", 0,
	  "reserve N CPUs, chosen as the kubelet chooses them (whole cores, lowest first)", 0 },
	{ "strict", OPT_STRICT, NULL, 0,
	  "keep the reserved CPUs out of the shared pool (strict-cpu-reservation)", 0 },
	{ "memory", OPT_RESERVE_MEMORY, "NODE:SIZE", 0,
	  "reserve memory per NUMA node for the system: NODE:SIZE,... (\"\" for none)", 0 },
	{ 0 }
};

/* --memory NODE:SIZE,... as the state keeps it ("ID:BYTES,...", "" for none); exits 2 on bad
 * input. Checks the nodes against M. */
static char *reserve_memory_value(const struct rm_memmgr *m, const char *arg)
{
	char *copy = xstrdup(arg), *tok, *save = NULL, *s = xstrdup(""), *msg = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end, *n;
		unsigned long id;
		uint64_t bytes;

		errno = 0;
		id = colon ? strtoul(tok, &end, 10) : 0;
		if (!colon || !isdigit((unsigned char)*tok) || end != colon || errno)
			rm_usage_errx("invalid --memory: '%s' (NODE:SIZE,..., such as 0:1G,1:1G)", arg);
		if (rm_size_parse(colon + 1, &bytes, &msg) < 0)
			rm_usage_errx("invalid --memory: %s", msg);
		if (id > UINT32_MAX || rm_hugepages_node_index(&m->hp, (unsigned)id) < 0)
			rm_usage_errx("--memory: no such NUMA node: '%lu'", id);
		n = xasprintf("%s%s%lu:%" PRIu64, s, *s ? "," : "", id, bytes);
		free(s);
		s = n;
	}
	free(copy);
	return s;
}

/* Refuse (exit 3) a memory reserve that, with the owners' reservations, is more than a node
 * has; MEMORY as the state keeps it. */
static void reserve_memory_check(struct pool *p, struct rm_memmgr *m, const char *memory)
{
	char *msg = NULL;
	size_t bad;

	if (rm_memmgr_account_state(m, p->st.records, p->st.nrecords, RM_MEMMGR_OWNERS, &bad,
				    &msg) < 0)
		corrupt(p, &p->st.records[bad], msg);
	rm_memmgr_account(m, memory, NULL, &msg);
	for (size_t i = 0; i < m->nn; i++) {
		char *size;

		if (m->used[i] <= m->total[i])
			continue;
		size = rm_size_format(m->total[i]);
		msg = xasprintf("--memory: NUMA node %u has %s, and the reserve with the owners' "
				"memory would be more", m->hp.nodes[i].id, size);
		free(size);
		pool_close(p);
		pool_fail(RM_CPUALLOC_ENOSPC, msg);
	}
}

static error_t reserve_parse(int key, char *arg, struct argp_state *state)
{
	struct reserve_req *a = state->input;
	uint64_t n;

	switch (key) {
	case OPT_COUNT:
		if (rm_parse_uint(arg, 0, 1000000, &n))
			argp_error(state, "invalid count: '%s' (a whole number of CPUs)", arg);
		a->count = n;
		a->have_count = true;
		break;
	case OPT_STRICT:
		a->strict = true;
		break;
	case OPT_RESERVE_MEMORY:
		a->memory = arg;
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

const struct argp reserve_argp = { reserve_options, reserve_parse, NULL, NULL, NULL, NULL, NULL };

void reserve_check(struct reserve_req *a, const struct rm_topo *t)
{
	char *msg = NULL;

	if ((a->set && a->have_count) || (!a->set && !a->have_count && !a->memory))
		rm_usage_errx("reserve: give either SET or --count N");
	if (a->memory) {
		a->mm = xcalloc(1, sizeof(*a->mm));
		if (rm_memmgr_open(a->mm, t, &msg) < 0)
			rm_usage_errx("--memory: cannot read the NUMA nodes' memory: %s", msg);
		a->memory_value = reserve_memory_value(a->mm, a->memory);
	}
	a->cpus = hwloc_bitmap_alloc();
	if (a->set && rm_cpulist_parse(a->set, a->cpus, &msg)) {
		char *m = xasprintf("invalid SET: %s", msg);

		free(msg);
		pool_fail(RM_CPUALLOC_EINVAL, m);
	}
}

void reserve_choose(struct pool *p, struct reserve_req *a)
{
	static const struct rm_cpualloc_opts no_opts;
	hwloc_bitmap_t clash = hwloc_bitmap_alloc();
	char *msg = NULL;
	int rc = 0;

	if (!a->set && !a->have_count) {
		/* --memory alone: the CPUs as they are */
		hwloc_bitmap_copy(a->cpus, p->reserved);
		a->strict = p->strict;
	}
	if (a->mm)
		reserve_memory_check(p, a->mm, a->memory_value);
	if (a->set && !hwloc_bitmap_isincluded(a->cpus, p->all)) {
		char *list;

		hwloc_bitmap_andnot(clash, a->cpus, p->all);
		list = rm_cpulist_format(clash);
		msg = xasprintf("not an online CPU of this machine: '%s'", list);
		free(list);
		rc = RM_CPUALLOC_EINVAL;
	}
	if (!rc && a->have_count)
		rc = rm_cpualloc_reserve(p->ct, a->count, &no_opts, a->cpus, &msg);
	hwloc_bitmap_and(clash, a->cpus, p->exclusive);
	if (!rc && !hwloc_bitmap_iszero(clash)) {
		char *list = rm_cpulist_format(clash);

		msg = xasprintf("CPUs %s are allocated to owners; release them first, or reserve "
				"other CPUs", list);
		free(list);
		rc = a->have_count ? RM_CPUALLOC_ENOSPC : RM_CPUALLOC_EINVAL;
	}
	hwloc_bitmap_free(clash);
	if (rc) {
		pool_close(p);
		pool_fail(rc, msg);
	}
	if (a->memory_value)
		pool_set_reserved_all(p, a->cpus, a->strict, a->memory_value);
	else
		pool_set_reserved(p, a->cpus, a->strict);
}

void reserve_req_free(struct reserve_req *a)
{
	hwloc_bitmap_free(a->cpus);
	free(a->memory_value);
	if (a->mm)
		rm_memmgr_close(a->mm);
	free(a->mm);
}
