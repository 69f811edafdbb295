/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo's commands, shared between its source files. */
#ifndef RM_TOPO_TOOL_H
#define RM_TOPO_TOOL_H

#include "options.h"
#include "topology.h"

int cmd_summary(int argc, char **argv, struct rm_common *c);
int cmd_cpus(int argc, char **argv, struct rm_common *c);
int cmd_cores(int argc, char **argv, struct rm_common *c);
int cmd_packages(int argc, char **argv, struct rm_common *c);
int cmd_nodes(int argc, char **argv, struct rm_common *c);
int cmd_caches(int argc, char **argv, struct rm_common *c);
int cmd_distances(int argc, char **argv, struct rm_common *c);
int cmd_calc(int argc, char **argv, struct rm_common *c);
int cmd_snapshot(int argc, char **argv, struct rm_common *c);
int cmd_export(int argc, char **argv, struct rm_common *c);
int cmd_resctrl(int argc, char **argv, struct rm_common *c);
int cmd_irqs(int argc, char **argv, struct rm_common *c);
int cmd_ps(int argc, char **argv, struct rm_common *c);
int cmd_draw(int argc, char **argv, struct rm_common *c);

/* Facts of the machine record, shared by the summary and export nfd. */
struct topo_summary {
	const char *arch, *model;
	char *arch_read; /* the arch read from a snapshot, which ARCH points to */
	int packages, nodes, l3, cores, threads_per_core;
	hwloc_bitmap_t cpus; /* present (or complete) CPUs */
	uint64_t memory;     /* 0 when unknown */
	uint64_t *hugepage_sizes;
	int nhugepage_sizes;
};

void topo_summary_read(struct rm_topo *t, struct topo_summary *s);
void topo_summary_free(struct topo_summary *s);

#endif
