/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo's commands, shared between its source files. */
#ifndef RM_TOPO_TOOL_H
#define RM_TOPO_TOOL_H

#include <stdbool.h>
#include <stdio.h>

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

/* The NUMA nodes by ascending os index (*NODES allocated), and a node's distances to them as
 * "10,21" (allocated; NULL when unknown): nodes.c. */
int nodes_sorted(struct rm_topo *t, hwloc_obj_t **nodes);
char *distance_row(struct rm_topo *t, struct hwloc_distances_s *d, hwloc_obj_t from,
		   hwloc_obj_t *nodes, int nnodes);


/* export nrt (export-nrt.c): its options, given to export's parser. */
struct nrt_opts {
	const char *node_name; /* NULL: the host name */
	int policy;            /* enum rm_tm_policy */
	const char *scope;     /* container or pod */
	const char *vendor_domain; /* of device resources DOMAIN/TYPE; NULL: the default */
	bool json;
	bool given;            /* an nrt option was given */
};
bool nrt_node_name_valid(const char *s);
/* The object is read whole (exits on a state that cannot be read), then written. */
struct nrt;
struct nrt *nrt_read(struct rm_topo *t, const struct nrt_opts *o);
void nrt_write(FILE *f, const struct nrt *x);
void nrt_free(struct nrt *x);

#endif
