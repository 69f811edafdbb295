/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo's commands, shared between its source files. */
#ifndef RM_TOPO_TOOL_H
#define RM_TOPO_TOOL_H

#include <stdbool.h>
#include <stdint.h>
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

/* What the ACPI HMAT states of the accesses to a memory node from its best initiators, the
 * kernel's accessN: access0 from any initiator, access1 from CPUs. */
struct numa_access {
	hwloc_bitmap_t initiators; /* the initiator nodes; NULL when not stated */
	long long value[4];        /* read and write bandwidth (MB/s), read and write latency (ns);
				    * -1 when not stated */
};

/* What the node and distance listings print of each node (nodes.c). */
struct numa_node {
	unsigned id;
	hwloc_bitmap_t cpus;     /* its own CPUs */
	hwloc_bitmap_t packages; /* packages with CPUs on it (logical ids); NULL when not read */
	bool meminfo;            /* TOTAL and FREE are nodeN/meminfo's */
	bool memory_known;       /* without meminfo, MEMORY is hwloc's */
	uint64_t total, free, memory;
	char *row;               /* distances to every node as "10,21"; NULL when unknown */
	int tier;                /* memory tier; -1 when unknown */
	long nearest;            /* nearest node with CPUs; -1 when unknown */
	/* numa_table_hmat: */
	struct numa_access access[2];
	char *caches;            /* memory-side caches; NULL when not stated */
	char *origin;            /* the DAX device (and CXL region) of its memory; NULL */
};

/* The NUMA nodes by ascending id, and their distances. */
struct numa_table {
	unsigned n;
	struct numa_node *node;
	long long *dist;     /* N x N in node order, -1 unknown; NULL when none is known */
	struct rm_topo *t;   /* the topology it was read from; NULL when from sysfs alone */
	bool own_topo;       /* numa_table_free frees T */
};

/*
 * The table of T when given, else read from sysfs (this machine or a snapshot, rm_input_resolve
 * of C) without loading a topology where every file it needs is there, else from the topology
 * loaded here (T in the table). PACKAGES: the packages are wanted. Exits 2 when the input is not
 * a topology, as rm_topo_load.
 */
void numa_table_read(const struct rm_common *c, struct rm_topo *t, struct numa_table *nt,
		     bool packages);
/* The index of node ID in NT; -1 when it has none. */
int numa_table_find(const struct numa_table *nt, unsigned id);
void numa_table_free(struct numa_table *nt);
/* The HMAT figures, memory-side caches (sizes in bytes with BYTES) and origin of NT's nodes from
 * sysfs; nothing for a described machine. */
void numa_table_hmat(const struct rm_input *in, struct numa_table *nt, bool bytes);

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
