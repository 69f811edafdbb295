/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset show and list: the pools, the free CPUs per NUMA node, the allocations. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "rm-cpuset.h"
#include "xalloc.h"

enum { POOL_POOL, POOL_CPUS, POOL_COUNT, POOL_NODES, POOL_STRICT, POOL_OWNERS };
static const struct rm_column pool_cols[] = {
	[POOL_POOL] = { "pool", RM_COL_STRING, "reserved, shared, exclusive or free" },
	[POOL_CPUS] = { "cpus", RM_COL_SET, "its CPUs" },
	[POOL_COUNT] = { "count", RM_COL_INT, "the number of CPUs" },
	[POOL_NODES] = { "nodes", RM_COL_SET, "the NUMA nodes of its CPUs" },
	[POOL_STRICT] = { "strict", RM_COL_BOOL,
			  "reserved: kept out of the shared pool (strict-cpu-reservation)" },
	[POOL_OWNERS] = { "owners", RM_COL_INT, "exclusive: the number of allocations" },
};

enum { NODE_NODE, NODE_CPUS, NODE_FREE, NODE_NFREE, NODE_EXCLUSIVE, NODE_RESERVED, NODE_SHARED };
static const struct rm_column node_cols[] = {
	[NODE_NODE] = { "node", RM_COL_INT, "NUMA node (kernel number)" },
	[NODE_CPUS] = { "cpus", RM_COL_SET, "its online CPUs" },
	[NODE_FREE] = { "free", RM_COL_SET, "its CPUs an allocation may take" },
	[NODE_NFREE] = { "nfree", RM_COL_INT, "the number of free CPUs" },
	[NODE_EXCLUSIVE] = { "exclusive", RM_COL_SET, "its CPUs allocated to owners" },
	[NODE_RESERVED] = { "reserved", RM_COL_SET, "its reserved CPUs" },
	[NODE_SHARED] = { "shared", RM_COL_SET, "its CPUs in the shared pool" },
};

static void pool_record(const struct pool *p, struct rm_out *out, const char *name,
			hwloc_const_bitmap_t cpus)
{
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();

	rm_out_begin(out);
	rm_out_str(out, POOL_POOL, name);
	rm_out_set(out, POOL_CPUS, cpus);
	rm_out_int(out, POOL_COUNT, hwloc_bitmap_weight(cpus));
	rm_topo_nodes_of(p->t, cpus, nodes);
	rm_out_set(out, POOL_NODES, nodes);
	if (!strcmp(name, "reserved"))
		rm_out_bool(out, POOL_STRICT, p->strict);
	if (!strcmp(name, "exclusive")) {
		long n = 0;

		for (size_t i = 0; i < p->st.nrecords; i++)
			n += !strcmp(rm_record_kind(&p->st.records[i]), "owner");
		rm_out_int(out, POOL_OWNERS, n);
	}
	rm_out_end(out);
	hwloc_bitmap_free(nodes);
}

void print_pools(const struct pool *p, const struct rm_common *c, bool reserved_only)
{
	hwloc_bitmap_t set;
	struct rm_out *out;

	if (!p && c->out.list_columns) {
		rm_out_list_columns(&c->out, pool_cols, ARRAY_SIZE(pool_cols), NULL);
		exit(RM_EXIT_SUCCESS);
	}
	if (!p) {
		rm_out_check(&c->out, pool_cols, ARRAY_SIZE(pool_cols), NULL);
		return;
	}
	out = rm_out_new(&c->out, "pools", pool_cols, ARRAY_SIZE(pool_cols), NULL, true);
	pool_record(p, out, "reserved", p->reserved);
	if (!reserved_only) {
		set = hwloc_bitmap_alloc();
		pool_shared(p, set);
		pool_record(p, out, "shared", set);
		pool_record(p, out, "exclusive", p->exclusive);
		pool_free(p, set);
		pool_record(p, out, "free", set);
		hwloc_bitmap_free(set);
	}
	rm_out_close(out);
	if (reserved_only)
		rm_out_flush();
}

enum { OPT_MEMORY = 0x700 };

static const struct argp_option show_options[] = {
	{ "memory", OPT_MEMORY, NULL, 0,
	  "each owner's memory per NUMA node instead (memory.numa_stat, else its processes' "
	  "numa_maps)", 0 },
	{ 0 }
};

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	bool *memory = state->input;

	switch (key) {
	case OPT_MEMORY:
		*memory = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_show(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		show_options, show_parse, NULL,
		"Show how the CPUs are divided: one record per pool (reserved, shared, exclusive, "
		"free), one per NUMA node with its free CPUs, then one per allocation; with "
		"resctrl mounted, one per L3 domain and resctrl group with its ways. -o applies "
		"to the pools. --memory: one record per owner and NUMA node with its memory there, "
		"as numastat -p.",
		NULL, NULL, NULL
	};
	hwloc_bitmap_t free_set, shared, set;
	struct rm_outopts node_opts;
	bool memory = false;
	unsigned id;
	struct rm_out *out;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &memory, 0);
	if (memory) {
		list_numa_memory_columns(c);
		pool_open(&p, c, 0);
		print_numa_memory(&p, c);
		pool_close(&p);
		return RM_EXIT_SUCCESS;
	}
	print_pools(NULL, c, false);
	pool_open(&p, c, 0);
	print_pools(&p, c, false);
	free_set = hwloc_bitmap_alloc();
	shared = hwloc_bitmap_alloc();
	set = hwloc_bitmap_alloc();

	node_opts = c->out;
	node_opts.columns = NULL;
	out = rm_out_new(&node_opts, "nodes", node_cols, ARRAY_SIZE(node_cols), NULL, false);
	pool_free(&p, free_set);
	pool_shared(&p, shared);
	/* in the kernel's order: hwloc's logical order puts a CPU-less node beside its CPU node */
	hwloc_bitmap_foreach_begin(id, hwloc_topology_get_topology_nodeset(p.t->topo)) {
		hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(p.t->topo, id);
		hwloc_const_bitmap_t cpus = rm_topo_node_cpus(p.t, node);

		rm_out_begin(out);
		rm_out_int(out, NODE_NODE, node->os_index);
		hwloc_bitmap_and(set, cpus, p.all);
		rm_out_set(out, NODE_CPUS, set);
		hwloc_bitmap_and(set, cpus, free_set);
		rm_out_set(out, NODE_FREE, set);
		rm_out_int(out, NODE_NFREE, hwloc_bitmap_weight(set));
		hwloc_bitmap_and(set, cpus, p.exclusive);
		rm_out_set(out, NODE_EXCLUSIVE, set);
		hwloc_bitmap_and(set, cpus, p.reserved);
		rm_out_set(out, NODE_RESERVED, set);
		hwloc_bitmap_and(set, cpus, shared);
		rm_out_set(out, NODE_SHARED, set);
		rm_out_end(out);
	} hwloc_bitmap_foreach_end();
	rm_out_close(out);
	out = rm_out_new(&node_opts, "allocations", owner_cols, owner_ncols, owner_defaults, false);
	for (size_t i = 0; i < p.st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p.st.records[i]), "owner"))
			pool_print_owner(&p, out, &p.st.records[i]);
	rm_out_close(out);
	print_l3_ways(&p, c);
	rm_out_flush();
	pool_close(&p);
	hwloc_bitmap_free(free_set);
	hwloc_bitmap_free(shared);
	hwloc_bitmap_free(set);
	return RM_EXIT_SUCCESS;
}

int cmd_list(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, rm_owners_parse, "[OWNER...]",
		"One record per allocation (or the OWNERs given), in the order they were made.",
		NULL, NULL, NULL
	};
	struct rm_owners a = { 0 };
	struct rm_out *out;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	pool_list_columns(c);
	pool_open(&p, c, 0);
	for (int i = 0; i < a.n; i++)
		if (pool_find(&p, a.names[i]) < 0)
			rm_usage_errx("no such owner: '%s'", a.names[i]);
	out = rm_out_new(&c->out, "allocations", owner_cols, owner_ncols, owner_defaults, true);
	for (size_t i = 0; i < p.st.nrecords; i++) {
		const struct rm_record *r = &p.st.records[i];

		if (!strcmp(rm_record_kind(r), "owner") &&
		    rm_owners_match(&a, rm_record_get(r, "owner")))
			pool_print_owner(&p, out, r);
	}
	rm_out_close(out);
	rm_out_flush();
	pool_close(&p);
	free(a.names);
	return RM_EXIT_SUCCESS;
}
