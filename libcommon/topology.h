/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Topology loading (live, --sysroot, --topology XML or synthetic) and location expressions. */
#ifndef RM_TOPOLOGY_H
#define RM_TOPOLOGY_H

#include <stdbool.h>

#include <hwloc.h>

#include "input.h"
#include "options.h"

enum rm_topo_flags {
	RM_TOPO_WANT_IO = 1 << 0, /* PCI devices and OS devices (loads hwloc's I/O discovery) */
};

struct rm_topo {
	hwloc_topology_t topo;
	const struct rm_input *in; /* what it was read from; sysfs reads go under rm_input_root */
	/* CPU states from sysfs (live and sysroot); from hwloc otherwise. NULL when unknown. */
	hwloc_bitmap_t possible, present, online, offline, isolated, nohz_full;
	hwloc_bitmap_t allowed; /* CPUs this process's cpuset allows (hwloc allowed cpuset) */
	/* What each NUMA node is, by hwloc logical index (see rm_topo_node_cpus), and the
	 * memory-only nodes by os index. */
	struct rm_topo_node *node;
	unsigned nnodes;
	hwloc_bitmap_t memory_only;
	bool borrowed; /* topo belongs to the caller (rm_topo_wrap) */
};

struct rm_topo_node {
	hwloc_bitmap_t cpus; /* the node's own CPUs; empty for a memory-only node */
	hwloc_obj_t nearest; /* the nearest node with CPUs (itself for one); NULL when unknown */
	int tier;            /* the kernel's memory tier (memory_tierN); -1 when unknown */
};

/*
 * Load the topology of the input C decides (rm_input_resolve: --topology, --sysroot, their
 * variables, or this machine). Exits 2 with one line when the input is not a topology (missing
 * dir, corrupt XML, bad synthetic).
 */
struct rm_topo *rm_topo_load(const struct rm_common *c, unsigned flags);
void rm_topo_free(struct rm_topo *t);

/* Exit 2 with one line, as rm_topo_load, when IN is not a topology: for readers of sysfs that
 * answer without loading one. */
void rm_topo_check_input(const struct rm_input *in);

/* The kernel's memory tier of each node (memory_tierN, Linux 6.1 or later) into TIER[os index]
 * for os indexes below NTIER; -1 when unknown (no tiers, or IN has no sysfs). */
void rm_topo_read_tiers(const struct rm_input *in, int *tier, unsigned ntier);

/* An rm_topo over a topology the caller loaded and keeps (rm_topo_free leaves it alone): CPU
 * states and NUMA nodes as for --topology. */
struct rm_topo *rm_topo_wrap(hwloc_topology_t topo);

/* hwloc type for a location name: "package"/"socket", "node"/"numa", "l3", "l2", "l1", "core",
 * "cpu"/"pu", "machine", "group", "die". Returns -1 when unknown. DEPTH receives the cache depth. */
int rm_topo_type_parse(const char *name, hwloc_obj_type_t *type, int *cache_depth);

/* The canonical name of an object's type for records: "package", "node", "l3", "core", "cpu". */
const char *rm_topo_type_name(hwloc_obj_t obj);

/* Objects of a location type, in logical order. Returns the count; *OBJS allocated. */
int rm_topo_objects(struct rm_topo *t, const char *type_name, hwloc_obj_t **objs);

/* Physical id of an object as the kernel numbers it (cpu, core_id, package id, node id, cache id);
 * -1 when unknown. */
long rm_topo_os_index(hwloc_obj_t obj);

/*
 * Evaluate one location: "node:0", "package:1", "core:2-5", "l3:0", "cpu:0-3", "node:all",
 * a plain cpulist, a mask, or "all". PHYSICAL selects kernel (os) indexes instead of hwloc's
 * logical indexes for the numbers after "type:". The CPUs are ORed into SET.
 * Returns 0, or -1 with *ERRMSG allocated.
 */
int rm_topo_location(struct rm_topo *t, const char *expr, bool physical, hwloc_bitmap_t set,
		     char **errmsg);

/* The NUMA node set covering CPUS: the nodes whose own CPUs intersect it (never a memory-only
 * node). */
void rm_topo_nodes_of(struct rm_topo *t, hwloc_const_bitmap_t cpus, hwloc_bitmap_t nodes);

/*
 * A NUMA node's own CPUs (rm_topo_node_cpus): the kernel's nodeN/cpulist for this machine and
 * --sysroot; for XML and synthetic topologies, which have no such file, hwloc's cpusets, in which
 * a CPU-less node carries the CPUs of the place it is attached (see topology.c). A node with no
 * CPU of its own is memory-only (CXL memory, HBM, a CPU-less node of any kind).
 */
hwloc_const_bitmap_t rm_topo_node_cpus(const struct rm_topo *t, hwloc_obj_t node);
bool rm_topo_node_memory_only(const struct rm_topo *t, hwloc_obj_t node);
/* The nearest node with CPUs by the distance matrix, ties to the lowest id (the node itself when
 * it has CPUs); NULL when unknown. */
hwloc_obj_t rm_topo_node_nearest(const struct rm_topo *t, hwloc_obj_t node);
/* Its memory tier as the kernel numbers it (memory_tierN, Linux 6.1 or later); -1 when unknown. */
int rm_topo_node_tier(const struct rm_topo *t, hwloc_obj_t node);
/* The memory-only nodes (os indexes). */
hwloc_const_bitmap_t rm_topo_memory_only_nodes(const struct rm_topo *t);
/* The home node of a CPU: the node whose own CPUs hold it; NULL when none does. */
hwloc_obj_t rm_topo_cpu_node(const struct rm_topo *t, unsigned cpu);
/* The same for CPUs 0..N-1 at once, into PU[cpu] (the PU object, NULL when none) and NODE[cpu]
 * (either may be NULL): one walk over the PUs and the nodes rather than one per CPU. */
void rm_topo_cpu_table(const struct rm_topo *t, unsigned n, hwloc_obj_t *pu, hwloc_obj_t *node);

/* The OS's NUMA distance matrix (from sysfs or XML), or NULL; release it with
 * hwloc_distances_release. */
struct hwloc_distances_s *rm_topo_numa_distances(struct rm_topo *t);

/* Check that SET only holds CPUs of this machine (the complete cpuset); -1 with *ERRMSG. */
int rm_topo_check_cpus(struct rm_topo *t, hwloc_const_bitmap_t set, char **errmsg);

#endif
