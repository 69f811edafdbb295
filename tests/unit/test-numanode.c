/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive rm_numa_cpu_node from the shell: the CPU node nearest to a node, under a sysfs root. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cpulist.h"
#include "numanode.h"

int main(int argc, char **argv)
{
	hwloc_bitmap_t usable = NULL, cpus = hwloc_bitmap_alloc();
	char *msg = NULL, *list;
	int node;

	if (argc < 3 || argc > 4) {
		fputs("usage: test-numanode ROOT NODE [USABLE-CPUS]\n", stderr);
		return 2;
	}
	if (argc == 4) {
		usable = hwloc_bitmap_alloc();
		if (rm_cpulist_parse(argv[3], usable, &msg) < 0) {
			fprintf(stderr, "test-numanode: %s\n", msg);
			return 2;
		}
	}
	node = rm_numa_cpu_node(argv[1], atoi(argv[2]), usable, cpus);
	list = rm_cpulist_format(cpus);
	printf("node=%d cpus=%s\n", node, *list ? list : "\"\"");
	free(list);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(usable);
	return 0;
}
