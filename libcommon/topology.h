/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Topology loading (live, --sysroot, --topology XML or synthetic) and location expressions. */
#ifndef RM_TOPOLOGY_H
#define RM_TOPOLOGY_H

#include <stdbool.h>

#include <hwloc.h>

#include "options.h"

enum rm_topo_source {
	RM_TOPO_LIVE,      /* this machine */
	RM_TOPO_SYSROOT,   /* a /sys and /proc snapshot */
	RM_TOPO_XML,       /* an hwloc XML file */
	RM_TOPO_SYNTHETIC, /* an hwloc synthetic description */
};

enum rm_topo_flags {
	RM_TOPO_WANT_IO = 1 << 0, /* PCI devices and OS devices (loads hwloc's I/O discovery) */
};

struct rm_topo {
	hwloc_topology_t topo;
	enum rm_topo_source source;
	const char *sysroot; /* for sysfs reads; NULL unless live or sysroot */
	/* CPU states from sysfs (live and sysroot); from hwloc otherwise. NULL when unknown. */
	hwloc_bitmap_t possible, present, online, offline, isolated, nohz_full;
	hwloc_bitmap_t allowed; /* CPUs this process's cpuset allows (hwloc allowed cpuset) */
};

/*
 * Load the topology chosen by C (--topology, --sysroot, their variables, or this machine).
 * Exits 2 with one line when the input is not a topology (missing dir, corrupt XML, bad synthetic).
 */
struct rm_topo *rm_topo_load(const struct rm_common *c, unsigned flags);
void rm_topo_free(struct rm_topo *t);

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

/* The NUMA node set covering CPUS (nodes whose cpuset intersects it). */
void rm_topo_nodes_of(struct rm_topo *t, hwloc_const_bitmap_t cpus, hwloc_bitmap_t nodes);

/* Check that SET only holds CPUs of this machine (the complete cpuset); -1 with *ERRMSG. */
int rm_topo_check_cpus(struct rm_topo *t, hwloc_const_bitmap_t set, char **errmsg);

#endif
