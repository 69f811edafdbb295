/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo export nrt: a topology.node.k8s.io/v1alpha2 NodeResourceTopology object, as NFD's topology updater writes it. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "hugepages.h"
#include "msg.h"
#include "owner.h"
#include "rm-topo.h"
#include "state.h"
#include "sysfs.h"
#include "topomgr.h"
#include "size.h"
#include "xalloc.h"

#define NRT_MAX_RESOURCES 8

/* One resource of a zone: quantities as Kubernetes writes them (cpu: a count, the rest bytes). */
struct nrt_resource {
	char *name;
	uint64_t capacity, allocatable, available;
	bool bytes; /* written as a binary quantity ("64Gi"), else as an integer */
};

struct nrt_zone {
	unsigned id;
	struct nrt_resource res[NRT_MAX_RESOURCES];
	int nres;
	unsigned *cost; /* distances to every zone, in zone order; NULL when unknown */
};

/* Kubernetes node names are DNS subdomains: lower-case [a-z0-9.-], alphanumeric at both ends. */
bool nrt_node_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 253 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '.'))
			return false;
	return true;
}

/* The node name the kubelet registers by default: the host name, lower-cased. */
static char *default_node_name(void)
{
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1))
		rm_err(RM_EXIT_FAILURE, "cannot get the host name");
	for (char *p = host; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!nrt_node_name_valid(host))
		rm_usage_errx("the host name is not a Kubernetes node name: '%s' (use --node-name)",
			      host);
	return xstrdup(host);
}

static void add_resource(struct nrt_zone *z, char *name, uint64_t capacity, uint64_t allocatable,
			 uint64_t available, bool bytes)
{
	struct nrt_resource *r = &z->res[z->nres++];

	r->name = name;
	r->capacity = capacity;
	r->allocatable = allocatable;
	r->available = available;
	r->bytes = bytes;
}

/*
 * Memory set aside on NODE: by the system (less allocatable) and by owners (less available).
 * rm-cpuset's state records no memory reservation yet, so both are 0; a per-node reservation
 * record read from OS belongs here.
 */
static void memory_reserved(const struct rm_owner_state *os, unsigned node, uint64_t *system,
			    uint64_t *owners)
{
	(void)os;
	(void)node;
	*system = 0;
	*owners = 0;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* rm-cpuset's state: its reserved CPUs and owners. A missing state directory is empty. */
static void read_cpuset_state(struct rm_owner_state *os)
{
	struct rm_state st;
	char *msg = NULL;

	if (rm_state_open(&st, RM_OWNER_STATE_CPUSET, RM_STATE_READ, &msg) < 0 ||
	    rm_owner_state_parse(os, RM_OWNER_STATE_CPUSET, RM_STATE_VERSION, st.path, st.records,
				 st.nrecords, &msg) < 0) {
		rm_state_close(&st);
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	}
	rm_state_close(&st);
}

/* cpu: the node's CPUs; allocatable less rmtools' reserved CPUs; available less owners' CPUs. */
static void zone_cpu(struct nrt_zone *z, hwloc_const_bitmap_t cpus, const struct rm_owner_state *os)
{
	hwloc_bitmap_t set = hwloc_bitmap_dup(cpus);
	uint64_t capacity = (uint64_t)hwloc_bitmap_weight(cpus), allocatable;

	hwloc_bitmap_andnot(set, set, os->reserved);
	allocatable = (uint64_t)hwloc_bitmap_weight(set);
	for (size_t i = 0; i < os->nowners; i++)
		hwloc_bitmap_andnot(set, set, os->owners[i].cpus);
	add_resource(z, xstrdup("cpu"), capacity, allocatable, (uint64_t)hwloc_bitmap_weight(set),
		     false);
	hwloc_bitmap_free(set);
}

/* hugepages-SIZE per page size of the node: nr_hugepages and free_hugepages of its pools (hwloc
 * states the count; the free count is read from sysfs where there is one, else all are free). */
static void zone_hugepages(struct nrt_zone *z, hwloc_obj_t node, const struct rm_hugepages *hp)
{
	for (unsigned i = 1; i < node->attr->numanode.page_types_len &&
			     z->nres < NRT_MAX_RESOURCES; i++) {
		uint64_t size = node->attr->numanode.page_types[i].size;
		uint64_t total = node->attr->numanode.page_types[i].count, nfree = total;
		long si = hp ? rm_hugepages_size_index(hp, size) : -1;
		long ni = hp ? rm_hugepages_node_index(hp, node->os_index) : -1;
		struct rm_hp_counts c;
		char *msg = NULL, *q;

		if (!size)
			continue;
		if (si >= 0 && ni >= 0) {
			if (rm_hugepages_read_node(hp, (size_t)si, (size_t)ni, &c, &msg) < 0)
				rm_errx(RM_EXIT_FAILURE, "%s", msg);
			total = c.total;
			nfree = c.free;
		}
		q = rm_size_quantity(size);
		add_resource(z, xasprintf("hugepages-%s", q), total * size, total * size,
			     nfree * size, true);
		free(q);
	}
}

static void zone_memory(struct nrt_zone *z, hwloc_obj_t node, const struct rm_owner_state *os)
{
	uint64_t total = node->attr->numanode.local_memory, system, owners;

	memory_reserved(os, node->os_index, &system, &owners);
	add_resource(z, xstrdup("memory"), total, less(total, system),
		     less(less(total, system), owners), true);
}

/* The costs of NODES[I]: its row of the matrix rm-topo distances prints, NULL when unknown. */
static unsigned *zone_costs(struct rm_topo *t, struct hwloc_distances_s *d, hwloc_obj_t *nodes,
			    int n, int i)
{
	char *row = distance_row(t, d, nodes[i], nodes, n), *p = row;
	unsigned *cost;

	if (!row)
		return NULL;
	cost = xcalloc((size_t)n, sizeof(*cost));
	for (int k = 0; k < n; k++) {
		cost[k] = (unsigned)strtoul(p, &p, 10);
		if (*p == ',')
			p++;
	}
	free(row);
	return cost;
}

static void quantity_text(const struct nrt_resource *r, uint64_t v, char *buf, size_t len)
{
	char *q = r->bytes ? rm_size_quantity(v) : xasprintf("%" PRIu64, v);

	snprintf(buf, len, "%s", q);
	free(q);
}

/*
 * Written by hand rather than with a YAML or JSON library: the object is small and fixed, and
 * every string in it is a checked node name, a policy name or a resource name, none needing quotes
 * or escapes.
 */
static void write_yaml(FILE *f, const char *name, const char *policy, const char *scope,
		       const struct nrt_zone *zones, int n)
{
	fprintf(f, "# generated by rm-topo export nrt\n"
		   "apiVersion: topology.node.k8s.io/v1alpha2\n"
		   "kind: NodeResourceTopology\n"
		   "metadata:\n"
		   "  name: %s\n"
		   "attributes:\n"
		   "- name: topologyManagerPolicy\n"
		   "  value: %s\n"
		   "- name: topologyManagerScope\n"
		   "  value: %s\n"
		   "zones:\n", name, policy, scope);
	for (int i = 0; i < n; i++) {
		fprintf(f, "- name: node-%u\n  type: Node\n", zones[i].id);
		if (zones[i].cost) {
			fputs("  costs:\n", f);
			for (int k = 0; k < n; k++)
				fprintf(f, "  - name: node-%u\n    value: %u\n", zones[k].id,
					zones[i].cost[k]);
		}
		fputs("  resources:\n", f);
		for (int r = 0; r < zones[i].nres; r++) {
			const struct nrt_resource *res = &zones[i].res[r];
			char c[32], al[32], av[32];

			quantity_text(res, res->capacity, c, sizeof(c));
			quantity_text(res, res->allocatable, al, sizeof(al));
			quantity_text(res, res->available, av, sizeof(av));
			fprintf(f, "  - name: %s\n    capacity: \"%s\"\n    allocatable: \"%s\"\n"
				   "    available: \"%s\"\n", res->name, c, al, av);
		}
	}
}

static void write_json(FILE *f, const char *name, const char *policy, const char *scope,
		       const struct nrt_zone *zones, int n)
{
	fprintf(f, "{\n"
		   "  \"apiVersion\": \"topology.node.k8s.io/v1alpha2\",\n"
		   "  \"kind\": \"NodeResourceTopology\",\n"
		   "  \"metadata\": {\"name\": \"%s\"},\n"
		   "  \"attributes\": [\n"
		   "    {\"name\": \"topologyManagerPolicy\", \"value\": \"%s\"},\n"
		   "    {\"name\": \"topologyManagerScope\", \"value\": \"%s\"}\n"
		   "  ],\n"
		   "  \"zones\": [", name, policy, scope);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\n      \"name\": \"node-%u\",\n      \"type\": \"Node\",\n",
			i ? "," : "", zones[i].id);
		if (zones[i].cost) {
			fputs("      \"costs\": [", f);
			for (int k = 0; k < n; k++)
				fprintf(f, "%s\n        {\"name\": \"node-%u\", \"value\": %u}",
					k ? "," : "", zones[k].id, zones[i].cost[k]);
			fputs("\n      ],\n", f);
		}
		fputs("      \"resources\": [", f);
		for (int r = 0; r < zones[i].nres; r++) {
			const struct nrt_resource *res = &zones[i].res[r];
			char c[32], al[32], av[32];

			quantity_text(res, res->capacity, c, sizeof(c));
			quantity_text(res, res->allocatable, al, sizeof(al));
			quantity_text(res, res->available, av, sizeof(av));
			fprintf(f, "%s\n        {\"name\": \"%s\", \"capacity\": \"%s\", "
				   "\"allocatable\": \"%s\", \"available\": \"%s\"}",
				r ? "," : "", res->name, c, al, av);
		}
		fputs(zones[i].nres ? "\n      ]\n    }" : "]\n    }", f);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* The object, read whole before anything is written. */
struct nrt {
	char *name;
	const char *policy, *scope;
	bool json;
	struct nrt_zone *zones;
	int n;
};

struct nrt *nrt_read(struct rm_topo *t, const struct nrt_opts *o)
{
	struct nrt *x = xcalloc(1, sizeof(*x));
	struct rm_owner_state os;
	struct rm_hugepages hp, *hpp = NULL;
	struct hwloc_distances_s *d;
	hwloc_obj_t *nodes;
	char *msg = NULL;

	x->name = o->node_name ? xstrdup(o->node_name) : default_node_name();
	x->policy = rm_tm_policy_name(o->policy);
	x->scope = o->scope;
	x->json = o->json;
	read_cpuset_state(&os);
	/* free huge pages are read from sysfs: this machine or a snapshot */
	memset(&hp, 0, sizeof(hp));
	if (t->source == RM_TOPO_LIVE || t->source == RM_TOPO_SYSROOT) {
		if (rm_hugepages_open(&hp, t->sysroot, &msg) == 0)
			hpp = &hp;
		else
			rm_hugepages_close(&hp);
	}
	free(msg);
	d = rm_topo_numa_distances(t);
	x->n = nodes_sorted(t, &nodes);
	x->zones = xcalloc(x->n > 0 ? (size_t)x->n : 1, sizeof(*x->zones));
	for (int i = 0; i < x->n; i++) {
		struct nrt_zone *z = &x->zones[i];
		hwloc_const_bitmap_t cpus = rm_topo_node_cpus(t, nodes[i]);

		z->id = nodes[i]->os_index;
		z->cost = zone_costs(t, d, nodes, x->n, i);
		/* a memory-only node has no cpu resource, as NFD leaves it out */
		if (!hwloc_bitmap_iszero(cpus))
			zone_cpu(z, cpus, &os);
		zone_memory(z, nodes[i], &os);
		zone_hugepages(z, nodes[i], hpp);
	}
	free(nodes);
	if (d)
		hwloc_distances_release(t->topo, d);
	if (hpp)
		rm_hugepages_close(hpp);
	rm_owner_state_free(&os);
	return x;
}

void nrt_write(FILE *f, const struct nrt *x)
{
	if (x->json)
		write_json(f, x->name, x->policy, x->scope, x->zones, x->n);
	else
		write_yaml(f, x->name, x->policy, x->scope, x->zones, x->n);
}

void nrt_free(struct nrt *x)
{
	if (!x)
		return;
	for (int i = 0; i < x->n; i++) {
		for (int r = 0; r < x->zones[i].nres; r++)
			free(x->zones[i].res[r].name);
		free(x->zones[i].cost);
	}
	free(x->zones);
	free(x->name);
	free(x);
}
