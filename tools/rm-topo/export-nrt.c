/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo export nrt: a topology.node.k8s.io/v1alpha2 NodeResourceTopology object, as NFD's topology updater writes it. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices.h"
#include "exitcodes.h"
#include "hugepages.h"
#include "input.h"
#include "memmgr.h"
#include "msg.h"
#include "owner.h"
#include "rm-topo.h"
#include "state.h"
#include "sysfs.h"
#include "size.h"
#include "topomgr.h"
#include "xalloc.h"

/* cpu, memory, huge page sizes and device types */
#define NRT_MAX_RESOURCES (8 + RM_DEV_NTYPES)

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
	struct nrt_resource *r;

	if (z->nres == NRT_MAX_RESOURCES) {
		free(name);
		return;
	}
	r = &z->res[z->nres++];
	r->name = name;
	r->capacity = capacity;
	r->allocatable = allocatable;
	r->available = available;
	r->bytes = bytes;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * The Memory Manager's view of the nodes (memmgr.h): the capacity of memory and of each huge page
 * size, what the system reserve holds (SYSTEM, same layout as used) and, in mm.used, the system
 * reserve and the owners together.
 */
struct nrt_mem {
	struct rm_memmgr mm;
	uint64_t *system;
	bool have;
};

/* rm-cpuset's state into ST (its reserved CPUs and owners typed), and with MEM->have the memory
 * reservations. A missing state directory is empty. */
static void read_cpuset_state(struct rm_state *st, struct nrt_mem *mem)
{
	char *msg = NULL;
	size_t bad;

	rm_state_open_or_exit(st, RM_OWNER_STATE_CPUSET, RM_STATE_READ, "rm-cpuset(1)", NULL);
	if (mem->have) {
		size_t n = mem->mm.nres * mem->mm.nn;
		int rc = rm_memmgr_account_state(&mem->mm, st->records, st->nrecords,
						 RM_MEMMGR_SYSTEM, &bad, &msg);

		mem->system = xcalloc(n ? n : 1, sizeof(*mem->system));
		if (rc == 0)
			memcpy(mem->system, mem->mm.used, n * sizeof(*mem->system));
		if (rc < 0 || rm_memmgr_account_state(&mem->mm, st->records, st->nrecords,
						      RM_MEMMGR_OWNERS, &bad, &msg) < 0) {
			char *m = xasprintf("corrupt state file '%s': line %u: %s", st->path,
					    st->records[bad].line + 1, msg);

			rm_state_close(st);
			rm_errx(RM_EXIT_FAILURE, "%s", m);
		}
	}
}

/* Resource RES of NODE from CAPACITY: allocatable less the system reserve, available less the
 * owners' reservations too. No Memory Manager view: both are the capacity. */
static void mem_amounts(const struct nrt_mem *mem, size_t res, unsigned node, uint64_t capacity,
			uint64_t *allocatable, uint64_t *available)
{
	long i = mem->have ? rm_hugepages_node_index(&mem->mm.hp, node) : -1;
	size_t at;

	*allocatable = *available = capacity;
	if (i < 0 || res >= mem->mm.nres)
		return;
	at = res * mem->mm.nn + (size_t)i;
	*allocatable = less(capacity, mem->system[at]);
	*available = less(capacity, mem->mm.used[at]);
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

/* memory: the node's memory, less the system reserve and the owners' memory (mem_amounts). */
static void zone_memory(struct nrt_zone *z, hwloc_obj_t node, const struct nrt_mem *mem)
{
	uint64_t total = node->attr->numanode.local_memory, allocatable, available;

	mem_amounts(mem, 0, node->os_index, total, &allocatable, &available);
	add_resource(z, xstrdup("memory"), total, allocatable, available, true);
}

/* hugepages-SIZE per page size of the node: its nr_hugepages (read from sysfs where there is one,
 * else as hwloc states it), less the owners' pages (mem_amounts). */
static void zone_hugepages(struct nrt_zone *z, hwloc_obj_t node, const struct nrt_mem *mem)
{
	const struct rm_hugepages *hp = mem->have ? &mem->mm.hp : NULL;

	for (unsigned i = 1; i < node->attr->numanode.page_types_len; i++) {
		uint64_t size = node->attr->numanode.page_types[i].size;
		uint64_t total = node->attr->numanode.page_types[i].count, allocatable, available;
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
		}
		mem_amounts(mem, si >= 0 ? 1 + (size_t)si : SIZE_MAX, node->os_index, total,
			    &allocatable, &available);
		q = rm_size_quantity(size);
		add_resource(z, xasprintf("hugepages-%s", q), total * size, allocatable * size,
			     available * size, true);
		free(q);
	}
}

/* The devices of the machine and which of them owners hold (rm-devices' state). */
struct nrt_devs {
	struct rm_devices devs;
	bool *held;   /* by index into devs */
	bool *placed; /* in a zone */
	bool have;
};

static void read_devices(struct nrt_devs *d, const char *sysroot)
{
	struct rm_state st;
	char *msg = NULL;

	if (rm_devices_scan(sysroot, 0, &d->devs, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	d->have = true;
	d->held = xcalloc(d->devs.n + 1, sizeof(*d->held));
	d->placed = xcalloc(d->devs.n + 1, sizeof(*d->placed));
	rm_state_open_or_exit(&st, RM_OWNER_STATE_DEVICES, RM_STATE_READ, "rm-devices(1)", NULL);
	for (size_t i = 0; i < st.owners.ndevices; i++) {
		struct rm_device *dev = rm_devices_find(&d->devs, st.owners.devices[i].addr);

		if (dev)
			d->held[dev - d->devs.dev] = true;
	}
	rm_state_close(&st);
}

/* DOMAIN/TYPE per device type on NODE, as the device plugins' resources: capacity and
 * allocatable the node's devices of the type, available those no owner holds. */
static void zone_devices(struct nrt_zone *z, unsigned node, struct nrt_devs *d,
			 const char *domain)
{
	for (int type = 0; type < RM_DEV_NTYPES; type++) {
		uint64_t n = 0, nfree = 0;

		for (size_t i = 0; i < d->devs.n; i++) {
			const struct rm_device *dev = &d->devs.dev[i];

			if ((int)dev->type != type || dev->numa < 0 || (unsigned)dev->numa != node)
				continue;
			d->placed[i] = true;
			n++;
			nfree += !d->held[i];
		}
		if (n)
			add_resource(z, xasprintf("%s/%s", domain, rm_devices_type_name(type)), n, n,
				     nfree, false);
	}
}

/* "DOMAIN/TYPE ADDR, ..." of the devices in no zone (no NUMA node, or one not in the
 * topology); NULL when every device is in one. */
static char *unplaced_devices(const struct nrt_devs *d, const char *domain)
{
	char *s = NULL;

	for (size_t i = 0; i < d->devs.n; i++) {
		const struct rm_device *dev = &d->devs.dev[i];
		char *n;

		if (d->placed[i])
			continue;
		n = xasprintf("%s%s%s/%s %s", s ? s : "", s ? ", " : "", domain,
			      rm_devices_type_name(dev->type), dev->addr);
		free(s);
		s = n;
	}
	return s;
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


/*
 * One writer for YAML and JSON, by hand rather than with a library: the object is small and
 * fixed, and every string in it is a checked node name, a policy name or a resource name, none
 * needing quotes or escapes. YAML as kubectl writes it: list items at their key's indentation.
 */
#define EMIT_DEPTH 8
struct emit {
	FILE *f;
	bool json;
	int n;                  /* open levels; 1: the document */
	bool list[EMIT_DEPTH];  /* the level is a list */
	bool some[EMIT_DEPTH];  /* json: the level holds an entry (a comma before the next) */
	int ind[EMIT_DEPTH];    /* yaml: the indentation of the level's fields or items */
	bool dash;              /* yaml: the next field opens a list item */
};

/* The start of an entry of the innermost level: KEY (NULL in a list). */
static void emit_key(struct emit *e, const char *key)
{
	int l = e->n - 1;

	if (e->json) {
		fprintf(e->f, "%s\n%*s", e->some[l] ? "," : "", 2 * e->n, "");
		e->some[l] = true;
		if (key)
			fprintf(e->f, "\"%s\": ", key);
	} else if (key) {
		if (e->dash)
			fprintf(e->f, "%*s- ", e->ind[l] - 2, "");
		else
			fprintf(e->f, "%*s", e->ind[l], "");
		e->dash = false;
		fprintf(e->f, "%s:", key);
	}
}

/* Open a map or a list under KEY (NULL: a list item). */
static void emit_open(struct emit *e, const char *key, bool list)
{
	int l = e->n - 1;

	emit_key(e, key);
	if (e->json)
		fputs(list ? "[" : "{", e->f);
	else if (key)
		fputc('\n', e->f);
	e->list[e->n] = list;
	e->some[e->n] = false;
	/* yaml: a list's items at its key's indentation, a map's fields below it */
	e->ind[e->n] = e->list[l] ? e->ind[l] + 2 : list ? e->ind[l] : e->ind[l] + 2;
	e->dash = !e->json && !key;
	e->n++;
}

static void emit_close(struct emit *e)
{
	e->n--;
	if (e->json)
		fprintf(e->f, "%s%*s%s", e->some[e->n] ? "\n" : "",
			e->some[e->n] ? 2 * e->n : 0, "", e->list[e->n] ? "]" : "}");
}

/* KEY: VALUE, VALUE a string, quoted in YAML too when QUOTE (quantities). */
static void emit_str(struct emit *e, const char *key, const char *value, bool quote)
{
	emit_key(e, key);
	if (e->json)
		fprintf(e->f, "\"%s\"", value);
	else
		fprintf(e->f, quote ? " \"%s\"\n" : " %s\n", value);
}

static void emit_uint(struct emit *e, const char *key, unsigned v)
{
	emit_key(e, key);
	if (e->json)
		fprintf(e->f, "%u", v);
	else
		fprintf(e->f, " %u\n", v);
}

static void emit_quantity(struct emit *e, const char *key, const struct nrt_resource *r,
			  uint64_t v)
{
	char *q = r->bytes ? rm_size_quantity(v) : xasprintf("%" PRIu64, v);

	emit_str(e, key, q, true);
	free(q);
}

/* The object, read whole before anything is written. */
struct nrt {
	char *name;
	const char *policy, *scope;
	bool json;
	struct nrt_zone *zones;
	int n;
	char *unplaced; /* devices in no zone, for a YAML comment; NULL when none */
};

static void write_nrt(FILE *f, const struct nrt *x)
{
	struct emit e = { .f = f, .json = x->json, .n = 1 };
	char zname[32];

	if (e.json)
		fputc('{', f);
	else
		fputs("# generated by rm-topo export nrt\n", f);
	emit_str(&e, "apiVersion", "topology.node.k8s.io/v1alpha2", false);
	emit_str(&e, "kind", "NodeResourceTopology", false);
	emit_open(&e, "metadata", false);
	emit_str(&e, "name", x->name, false);
	emit_close(&e);
	emit_open(&e, "attributes", true);
	emit_open(&e, NULL, false);
	emit_str(&e, "name", "topologyManagerPolicy", false);
	emit_str(&e, "value", x->policy, false);
	emit_close(&e);
	emit_open(&e, NULL, false);
	emit_str(&e, "name", "topologyManagerScope", false);
	emit_str(&e, "value", x->scope, false);
	emit_close(&e);
	emit_close(&e);
	if (x->unplaced && !e.json)
		fprintf(f, "# devices without a NUMA node, in no zone: %s\n", x->unplaced);
	emit_open(&e, "zones", true);
	for (int i = 0; i < x->n; i++) {
		const struct nrt_zone *z = &x->zones[i];

		emit_open(&e, NULL, false);
		snprintf(zname, sizeof(zname), "node-%u", z->id);
		emit_str(&e, "name", zname, false);
		emit_str(&e, "type", "Node", false);
		if (z->cost) {
			emit_open(&e, "costs", true);
			for (int k = 0; k < x->n; k++) {
				emit_open(&e, NULL, false);
				snprintf(zname, sizeof(zname), "node-%u", x->zones[k].id);
				emit_str(&e, "name", zname, false);
				emit_uint(&e, "value", z->cost[k]);
				emit_close(&e);
			}
			emit_close(&e);
		}
		emit_open(&e, "resources", true);
		for (int r = 0; r < z->nres; r++) {
			const struct nrt_resource *res = &z->res[r];

			emit_open(&e, NULL, false);
			emit_str(&e, "name", res->name, false);
			emit_quantity(&e, "capacity", res, res->capacity);
			emit_quantity(&e, "allocatable", res, res->allocatable);
			emit_quantity(&e, "available", res, res->available);
			emit_close(&e);
		}
		emit_close(&e);
		emit_close(&e);
	}
	emit_close(&e);
	if (e.json)
		fputs("\n}\n", f);
}

struct nrt *nrt_read(struct rm_topo *t, const struct nrt_opts *o)
{
	struct nrt *x = xcalloc(1, sizeof(*x));
	const char *domain = o->vendor_domain ? o->vendor_domain : RM_DEVICES_VENDOR_DEFAULT;
	struct rm_state st;
	struct nrt_mem mem = { 0 };
	struct nrt_devs devs = { 0 };
	struct hwloc_distances_s *d;
	hwloc_obj_t *nodes;
	char *msg = NULL;

	x->name = o->node_name ? xstrdup(o->node_name) : default_node_name();
	x->policy = rm_tm_policy_name(o->policy);
	x->scope = o->scope;
	x->json = o->json;
	/* memory, huge pages and devices are read from sysfs: this machine or a snapshot; an XML
	 * or synthetic topology has none of them to read */
	if (rm_input_sysfs(t->in)) {
		if (rm_memmgr_open(&mem.mm, t, &msg) == 0)
			mem.have = true;
		free(msg);
		read_devices(&devs, rm_input_root(t->in));
	}
	read_cpuset_state(&st, &mem);
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
			zone_cpu(z, cpus, &st.owners);
		zone_memory(z, nodes[i], &mem);
		zone_hugepages(z, nodes[i], &mem);
		if (devs.have)
			zone_devices(z, z->id, &devs, domain);
	}
	if (devs.have) {
		x->unplaced = unplaced_devices(&devs, domain);
		free(devs.held);
		free(devs.placed);
		rm_devices_free(&devs.devs);
	}
	free(nodes);
	if (d)
		hwloc_distances_release(t->topo, d);
	if (mem.have)
		rm_memmgr_close(&mem.mm);
	free(mem.system);
	rm_state_close(&st);
	return x;
}

void nrt_write(FILE *f, const struct nrt *x)
{
	write_nrt(f, x);
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
	free(x->unplaced);
	free(x->name);
	free(x);
}
