/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NUMA nodes as sysfs lists them: which CPUs run next to a node's memory. */
#ifndef RM_NUMANODE_H
#define RM_NUMANODE_H

#include <hwloc.h>

/*
 * The node whose CPUs threads using NODE's memory run on: NODE itself when it has CPUs among
 * USABLE (NULL: any CPU), else, for a node without such CPUs (memory only: CXL memory, HBM), the
 * online node with usable CPUs at the smallest distance from NODE, ties to the lowest id. CPUS
 * receives that node's usable CPUs. Node cpulists and NODE's distance row are read under ROOT
 * (NULL or "" for this machine: /sys/devices/system/node). Returns the node, or -1 (CPUS empty)
 * when NODE is not online or no online node has usable CPUs.
 */
int rm_numa_cpu_node(const char *root, int node, hwloc_const_bitmap_t usable, hwloc_bitmap_t cpus);

#endif
