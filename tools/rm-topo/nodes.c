/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NUMA nodes in the kernel's order and their distance rows, for the listings and export nrt. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "rm-topo.h"
#include "sysfs.h"
#include "xalloc.h"

/* NUMA nodes sorted by os index (hwloc's logical order may differ). */
int nodes_sorted(struct rm_topo *t, hwloc_obj_t **nodes)
{
	int n = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE), k = 0;
	hwloc_obj_t o = NULL;

	*nodes = xcalloc(n > 0 ? n : 1, sizeof(hwloc_obj_t));
	while ((o = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, o))) {
		int i = k++;
		while (i > 0 && (*nodes)[i - 1]->os_index > o->os_index) {
			(*nodes)[i] = (*nodes)[i - 1];
			i--;
		}
		(*nodes)[i] = o;
	}
	return k;
}

/* Distances from node FROM to every node in os order, as "10,21,21"; NULL when unknown. */
char *distance_row(struct rm_topo *t, struct hwloc_distances_s *d, hwloc_obj_t from,
			  hwloc_obj_t *nodes, int nnodes)
{
	int i = d ? hwloc_distances_obj_index(d, from) : -1;
	size_t len = 0;
	char *row = NULL;

	if (i < 0 && nnodes == 1 && rm_input_sysfs(t->in)) {
		/* hwloc keeps no matrix for one node; the kernel still states it */
		char *path = xasprintf("sys/devices/system/node/node%u/distance", from->os_index);

		row = rm_sysfs_read(rm_input_root(t->in), path);
		free(path);
		return row;
	}
	if (i < 0)
		return NULL;
	for (int k = 0; k < nnodes; k++) {
		int j = hwloc_distances_obj_index(d, nodes[k]);
		char num[24];

		if (j < 0) {
			free(row);
			return NULL;
		}
		snprintf(num, sizeof(num), "%s%" PRIu64, k ? "," : "", d->values[i * d->nbobjs + j]);
		row = xrealloc(row, len + strlen(num) + 1);
		strcpy(row + len, num);
		len += strlen(num);
	}
	return row;
}
