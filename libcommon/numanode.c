/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NUMA nodes as sysfs lists them: the CPU node nearest to a memory node. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "numanode.h"
#include "sysfs.h"
#include "xalloc.h"

/* NODE's online CPUs (its cpulist) among USABLE into SET. */
static void usable_cpus(const char *root, int node, hwloc_const_bitmap_t usable,
			hwloc_bitmap_t set)
{
	char *path = xasprintf("sys/devices/system/node/node%d/cpulist", node);

	if (rm_sysfs_read_set(root, path, set) < 0)
		hwloc_bitmap_zero(set);
	free(path);
	if (usable)
		hwloc_bitmap_and(set, set, usable);
}

/*
 * The distances are read from nodeN/distance, the file libnuma's numa_distance() parses, so
 * that a snapshot (--sysroot) answers as the machine it was taken on: libnuma reads only this
 * machine's. The row holds one distance per online node, in ascending node order.
 */
static long *distance_row(const char *root, int node, hwloc_const_bitmap_t online)
{
	char *path = xasprintf("sys/devices/system/node/node%d/distance", node);
	char *text = rm_sysfs_read(root, path), *p, *end;
	int n = hwloc_bitmap_weight(online), k = 0;
	long *row = NULL;

	free(path);
	if (!text || n <= 0) {
		free(text);
		return NULL;
	}
	row = xcalloc((size_t)n, sizeof(*row));
	for (p = text; k < n; p = end) {
		row[k] = strtol(p, &end, 10);
		if (end == p || row[k] <= 0)
			break;
		k++;
	}
	free(text);
	if (k != n) { /* not one distance per online node: unknown */
		free(row);
		return NULL;
	}
	return row;
}

int rm_numa_cpu_node(const char *root, int node, hwloc_const_bitmap_t usable, hwloc_bitmap_t cpus)
{
	hwloc_bitmap_t online = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	long *row, best_dist = LONG_MAX;
	int best = -1, k = 0;
	unsigned n;

	hwloc_bitmap_zero(cpus);
	if (rm_sysfs_read_set(root, "sys/devices/system/node/online", online) < 0)
		hwloc_bitmap_set(online, 0);
	if (node < 0 || !hwloc_bitmap_isset(online, (unsigned)node))
		goto out;
	usable_cpus(root, node, usable, cpus);
	if (!hwloc_bitmap_iszero(cpus)) {
		best = node;
		goto out;
	}
	/* without a distance row every node is as far: the lowest id with CPUs */
	row = distance_row(root, node, online);
	hwloc_bitmap_foreach_begin(n, online) {
		long d = row ? row[k] : 0;

		k++;
		if ((int)n == node || d >= best_dist)
			continue;
		usable_cpus(root, (int)n, usable, set);
		if (hwloc_bitmap_iszero(set))
			continue;
		best = (int)n;
		best_dist = d;
		hwloc_bitmap_copy(cpus, set);
	}
	hwloc_bitmap_foreach_end();
	free(row);
out:
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(set);
	return best;
}
