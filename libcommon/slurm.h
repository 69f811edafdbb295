/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's view of a node: the counts slurmd -C prints, its core indices and abstract CPU IDs. */
#ifndef RM_SLURM_H
#define RM_SLURM_H

#include <stdint.h>

#include <hwloc.h>

/* The hardware fields of slurmd -C's NodeName line. */
struct rm_slurm_node {
	unsigned cpus;             /* CPUs= : the PUs */
	unsigned boards;           /* Boards= : the groups right below the machine, or 1 */
	unsigned sockets;          /* SocketsPerBoard= : the packages (or 1) over the boards */
	unsigned cores_per_socket; /* CoresPerSocket= */
	unsigned threads_per_core; /* ThreadsPerCore= */
};

/*
 * Count TOPO as slurmd -C does (hwloc groups right below the machine as boards, packages,
 * cores and PUs; cores per socket are the cores over the sockets). Slurm describes a node by
 * these numbers, so the sockets must divide the cores, the boards the sockets, and every core
 * must have as many CPUs: returns 0, or -1 with *ERRMSG allocated when they do not (a hybrid
 * CPU, a sibling offline) or TOPO has no cores.
 */
int rm_slurm_node(hwloc_topology_t topo, struct rm_slurm_node *n, char **errmsg);

/*
 * Slurm's core index of the core holding Linux CPU OS_CPU, and the CPU's rank among its core's
 * CPUs; -1 when TOPO does not have the CPU or it has no core. Slurm numbers cores socket after
 * socket, which is hwloc's logical core order (lstopo's "Core L#"). The one numbering behind
 * gres.conf Cores= and slurm.conf CpuSpecList=.
 */
long rm_slurm_core_index(hwloc_topology_t topo, unsigned os_cpu, unsigned *rank);

/* The Slurm core indices of the cores holding any of CPUS (Linux numbers): gres.conf Cores=. */
void rm_slurm_cores(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t cores);

/*
 * Slurm's abstract CPU IDs of CPUS (Linux numbers), as slurmd maps them: core index times
 * THREADS_PER_CORE plus the CPU's rank in its core, which is hwloc's logical PU order on a
 * machine rm_slurm_node accepts. For slurm.conf CpuSpecList=.
 */
void rm_slurm_cpus(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, unsigned threads_per_core,
		   hwloc_bitmap_t ids);

/* MemTotal of ROOT/proc/meminfo in MiB, rounded down: slurmd's RealMemory (its
 * _SC_PHYS_PAGES times the page size). 0 when unknown. ROOT may be NULL for this machine. */
uint64_t rm_slurm_real_memory(const char *root);

#endif
