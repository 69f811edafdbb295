/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's view of a node: the counts slurmd -C prints, its core indices and abstract CPU IDs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"
#include "sysfs.h"
#include "xalloc.h"

int rm_slurm_node(hwloc_topology_t topo, struct rm_slurm_node *n, char **errmsg)
{
	int npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	hwloc_obj_t root = hwloc_get_root_obj(topo);
	unsigned sockets = npkg > 0 ? (unsigned)npkg : 1, boards = 1;

	memset(n, 0, sizeof(*n));
	if (ncores <= 0 || npus <= 0) {
		*errmsg = xasprintf("the topology has no cores: Slurm cannot describe it");
		return -1;
	}
	/* slurmd (xcpuinfo.c) takes groups below the machine object for boards; without packages
	 * it prints SocketsPerBoard=0, which says nothing: one board then */
	if (npkg > 0 && root->arity && root->children[0]->type == HWLOC_OBJ_GROUP)
		boards = (unsigned)hwloc_get_nbobjs_by_depth(topo, root->children[0]->depth);
	if (!boards)
		boards = 1;
	if ((unsigned)ncores % sockets) {
		*errmsg = xasprintf("%d cores are not a multiple of %u sockets: Slurm cannot "
				    "describe them in one NodeName line", ncores, sockets);
		return -1;
	}
	if (sockets % boards) {
		*errmsg = xasprintf("%u sockets are not a multiple of %u boards: Slurm cannot "
				    "describe them in one NodeName line", sockets, boards);
		return -1;
	}
	for (int i = 0; i < ncores; i++) {
		hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)i);
		int k = hwloc_bitmap_weight(core->cpuset);

		if (k * ncores != npus) {
			*errmsg = xasprintf("the cores have different numbers of CPUs (core %d has %d of "
					    "%d CPUs on %d cores): Slurm cannot describe them in one "
					    "NodeName line", i, k, npus, ncores);
			return -1;
		}
	}
	n->cpus = (unsigned)npus;
	n->boards = boards;
	n->sockets = sockets / boards;
	n->cores_per_socket = (unsigned)ncores / sockets;
	n->threads_per_core = (unsigned)(npus / ncores);
	return 0;
}

long rm_slurm_core_index(hwloc_topology_t topo, unsigned os_cpu, unsigned *rank)
{
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, os_cpu), core, first;

	if (!pu || !(core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu)))
		return -1;
	/* a core's PUs are consecutive in logical order */
	first = hwloc_get_obj_inside_cpuset_by_type(topo, core->cpuset, HWLOC_OBJ_PU, 0);
	if (rank)
		*rank = first ? pu->logical_index - first->logical_index : 0;
	return core->logical_index;
}

void rm_slurm_cores(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t cores)
{
	unsigned cpu;
	long core;

	hwloc_bitmap_zero(cores);
	hwloc_bitmap_foreach_begin(cpu, cpus) {
		if ((core = rm_slurm_core_index(topo, cpu, NULL)) >= 0)
			hwloc_bitmap_set(cores, (unsigned)core);
	}
	hwloc_bitmap_foreach_end();
}

void rm_slurm_cpus(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, unsigned threads_per_core,
		   hwloc_bitmap_t ids)
{
	unsigned cpu, rank;
	long core;

	hwloc_bitmap_zero(ids);
	hwloc_bitmap_foreach_begin(cpu, cpus) {
		if ((core = rm_slurm_core_index(topo, cpu, &rank)) >= 0)
			hwloc_bitmap_set(ids, (unsigned)core * threads_per_core + rank);
	}
	hwloc_bitmap_foreach_end();
}

uint64_t rm_slurm_real_memory(const char *root)
{
	char *text = rm_sysfs_read(root, "proc/meminfo"), *line;
	unsigned long long kb = 0;

	if (!text)
		return 0;
	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	free(text);
	return kb / 1024;
}
