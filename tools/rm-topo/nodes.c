/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NUMA nodes in the kernel's order and their distance rows, for the listings and export nrt. */
#include "config.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "input.h"
#include "rm-topo.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

/* Linux numbers nodes below MAX_NUMNODES, 1 << CONFIG_NODES_SHIFT (at most 10). */
#define NUMA_MAX_NODES 1024

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

/* ---- the node table of the listings: from sysfs alone, or from a loaded topology ---- */

/* The value in kB of "Node N KEY:   123 kB" in a node's meminfo, as bytes; -1 when absent.
 * Parsed by hand: sscanf over every line costs more than all of hwloc's topology load. */
static int meminfo_field(const char *s, const char *key, uint64_t *bytes)
{
	size_t klen = strlen(key);

	for (const char *p = s; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *k = strchr(p, ' ');

		/* skip "Node N " */
		if (strncmp(p, "Node ", 5) || !k || !(k = strchr(k + 1, ' ')))
			continue;
		k++;
		if (!strncmp(k, key, klen) && k[klen] == ':') {
			*bytes = strtoull(k + klen + 1, NULL, 10) * 1024;
			return 0;
		}
	}
	return -1;
}

/* MemTotal and MemFree of node ID from sysfs under IN; false when unknown. */
static bool node_meminfo(const struct rm_input *in, unsigned id, struct numa_node *n)
{
	char *path, *s;
	int rc;

	if (!rm_input_sysfs(in))
		return false;
	path = xasprintf("sys/devices/system/node/node%u/meminfo", id);
	s = rm_sysfs_read(rm_input_root(in), path);
	free(path);
	if (!s)
		return false;
	rc = meminfo_field(s, "MemTotal", &n->total) | meminfo_field(s, "MemFree", &n->free);
	free(s);
	return rc == 0;
}

/* The node ids of the node/ directory under ROOT, ascending (bitmap); false when none. */
static bool sysfs_node_ids(const char *root, hwloc_bitmap_t ids)
{
	char *dir = rm_sysfs_path(root, "sys/devices/system/node");
	DIR *d = opendir(dir);
	struct dirent *de;

	free(dir);
	while (d && (de = readdir(d))) {
		unsigned id;
		char tail;

		if (sscanf(de->d_name, "node%u%c", &id, &tail) == 1 && id < NUMA_MAX_NODES)
			hwloc_bitmap_set(ids, id);
	}
	if (d)
		closedir(d);
	return !hwloc_bitmap_iszero(ids);
}

/* The package of each online CPU as hwloc numbers packages (logical ids: by their first CPU),
 * into PKG[cpu] (-1 elsewhere): one topology file per package. False when a CPU's package is
 * not stated, as hwloc then finds packages its own way. */
static bool sysfs_packages(const char *root, hwloc_const_bitmap_t online, int *pkg, unsigned n)
{
	/* the list files since 2.6.x and 5.x; the mask alone in older snapshots */
	static const char *const files[] = { "package_cpus_list", "core_siblings_list",
					     "core_siblings" };
	hwloc_bitmap_t set;
	int next = 0;
	unsigned cpu;
	bool ok = true;

	for (unsigned i = 0; i < n; i++)
		pkg[i] = -1;
	/* books and drawers (s390) are groups of packages in hwloc, numbered group by group */
	if (rm_sysfs_exists(root, "sys/devices/system/cpu/cpu0/topology/book_siblings") ||
	    rm_sysfs_exists(root, "sys/devices/system/cpu/cpu0/topology/drawer_siblings"))
		return false;
	set = hwloc_bitmap_alloc();
	hwloc_bitmap_foreach_begin(cpu, online) {
		unsigned k;

		if (cpu >= n || pkg[cpu] >= 0)
			continue;
		hwloc_bitmap_zero(set);
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]) && hwloc_bitmap_iszero(set);
		     f++) {
			char *path = xasprintf("sys/devices/system/cpu/cpu%u/topology/%s", cpu,
					       files[f]);

			char *text = rm_sysfs_read(root, path), *msg = NULL;

			if (text && (f < 2 ? rm_cpulist_parse_list(text, set, &msg) :
					     rm_cpulist_parse_mask(text, set, &msg)) < 0)
				hwloc_bitmap_zero(set);
			free(msg);
			free(text);
			free(path);
		}
		if (!hwloc_bitmap_isset(set, cpu)) {
			ok = false;
			break;
		}
		hwloc_bitmap_and(set, set, online);
		hwloc_bitmap_foreach_begin(k, set) {
			if (k < n && pkg[k] < 0)
				pkg[k] = next;
			else
				ok = false;
		} hwloc_bitmap_foreach_end();
		next++;
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	return ok;
}

/* N distances as "10,21" (allocated). */
static char *row_text(const long long *row, unsigned n)
{
	size_t len = 0;
	char *text = xstrdup("");

	for (unsigned k = 0; k < n; k++) {
		char num[24];
		int w = snprintf(num, sizeof(num), "%s%lld", k ? "," : "", row[k]);

		text = xrealloc(text, len + (size_t)w + 1);
		memcpy(text + len, num, (size_t)w + 1);
		len += (size_t)w;
	}
	return text;
}

/* Node ID's distance row under ROOT into ROW; false unless it is N numbers. */
static bool sysfs_distances(const char *root, unsigned id, long long *row, unsigned n)
{
	char *path = xasprintf("sys/devices/system/node/node%u/distance", id);
	char *s = rm_sysfs_read(root, path), *p = s, *end;
	unsigned k;
	bool ok;

	free(path);
	for (k = 0; s && k < n; k++, p = end) {
		row[k] = strtoll(p, &end, 10);
		if (end == p || row[k] < 0)
			break;
	}
	ok = s && k == n && p[strspn(p, " ")] == '\0';
	free(s);
	return ok;
}

/*
 * The table from sysfs (this machine or a snapshot) without loading a topology, as the listings
 * print it from one: each node's cpulist among the online CPUs, meminfo, distance row, memory
 * tier and nearest node with CPUs, and with PACKAGES the packages of its CPUs. False when a file
 * these need is missing or malformed (a kernel without NUMA, an old or partial snapshot): hwloc
 * then decides, and the caller loads the topology.
 */
static bool table_from_sysfs(const struct rm_input *in, struct numa_table *nt, bool packages)
{
	const char *root = rm_input_root(in);
	hwloc_bitmap_t ids = hwloc_bitmap_alloc(), online = hwloc_bitmap_alloc();
	int *pkg = NULL, *tier = NULL, last;
	unsigned id, i = 0, ncpus;
	bool ok;

	ok = rm_input_sysfs(in) && sysfs_node_ids(root, ids) &&
	     rm_sysfs_read_set(root, "sys/devices/system/cpu/online", online) == 0 &&
	     (last = hwloc_bitmap_last(online)) >= 0;
	if (!ok)
		goto out;
	ncpus = (unsigned)last + 1;
	if (packages) {
		pkg = xcalloc(ncpus, sizeof(*pkg));
		if (!(ok = sysfs_packages(root, online, pkg, ncpus)))
			goto out;
	}
	nt->n = (unsigned)hwloc_bitmap_weight(ids);
	nt->node = xcalloc(nt->n, sizeof(*nt->node));
	nt->dist = xcalloc((size_t)nt->n * nt->n, sizeof(*nt->dist));
	tier = xcalloc(hwloc_bitmap_last(ids) + 1, sizeof(*tier));
	rm_topo_read_tiers(in, tier, hwloc_bitmap_last(ids) + 1);
	hwloc_bitmap_foreach_begin(id, ids) {
		struct numa_node *n = &nt->node[i];
		char *path = xasprintf("sys/devices/system/node/node%u/cpulist", id);
		unsigned cpu;

		n->id = id;
		n->tier = tier[id];
		n->cpus = hwloc_bitmap_alloc();
		ok = rm_sysfs_read_set(root, path, n->cpus) == 0 &&
		     (n->meminfo = node_meminfo(in, id, n)) &&
		     sysfs_distances(root, id, nt->dist + (size_t)i * nt->n, nt->n);
		free(path);
		if (!ok)
			break;
		hwloc_bitmap_and(n->cpus, n->cpus, online);
		if (pkg) {
			n->packages = hwloc_bitmap_alloc();
			hwloc_bitmap_foreach_begin(cpu, n->cpus) {
				hwloc_bitmap_set(n->packages, (unsigned)pkg[cpu]);
			} hwloc_bitmap_foreach_end();
			/* hwloc groups the packages of a node that spans several, and numbers them
			 * group by group: by first CPU only while they are consecutive so */
			if (!hwloc_bitmap_iszero(n->packages) &&
			    hwloc_bitmap_weight(n->packages) !=
				    hwloc_bitmap_last(n->packages) - hwloc_bitmap_first(n->packages) + 1)
				ok = false;
		}
		if (!ok)
			break;
		i++;
	} hwloc_bitmap_foreach_end();
	/* the nearest node with CPUs: by distance, ties to the lowest id (rm_topo_node_nearest) */
	for (i = 0; ok && i < nt->n; i++) {
		const long long *row = nt->dist + (size_t)i * nt->n;

		nt->node[i].nearest = -1;
		for (unsigned k = 0; k < nt->n; k++) {
			bool cpus = !hwloc_bitmap_iszero(nt->node[k].cpus);

			if (!hwloc_bitmap_iszero(nt->node[i].cpus) ? k == i :
			    cpus && (nt->node[i].nearest < 0 || row[k] < row[nt->node[i].nearest]))
				nt->node[i].nearest = k;
		}
		if (nt->node[i].nearest >= 0)
			nt->node[i].nearest = nt->node[nt->node[i].nearest].id;
		nt->node[i].row = row_text(row, nt->n);
	}
	if (!ok)
		numa_table_free(nt);
out:
	free(pkg);
	free(tier);
	hwloc_bitmap_free(ids);
	hwloc_bitmap_free(online);
	return ok;
}

/* The table from the loaded topology T, as the listings printed it before sysfs alone. */
static void table_from_topo(struct rm_topo *t, struct numa_table *nt)
{
	struct hwloc_distances_s *d = rm_topo_numa_distances(t);
	hwloc_obj_t *nodes;
	unsigned n = (unsigned)nodes_sorted(t, &nodes);
	char *single = !d && n == 1 ? distance_row(t, NULL, nodes[0], nodes, 1) : NULL;

	nt->t = t;
	nt->n = n;
	nt->node = xcalloc(n ? n : 1, sizeof(*nt->node));
	if (d || single)
		nt->dist = xcalloc((size_t)n * n, sizeof(*nt->dist));
	if (single)
		nt->dist[0] = strtoll(single, NULL, 10);
	for (unsigned i = 0; i < n; i++) {
		struct numa_node *x = &nt->node[i];
		hwloc_obj_t o = nodes[i], pkg = NULL, near = rm_topo_node_nearest(t, o);
		int a = d ? hwloc_distances_obj_index(d, o) : -1;

		x->id = o->os_index;
		x->cpus = hwloc_bitmap_dup(rm_topo_node_cpus(t, o));
		x->packages = hwloc_bitmap_alloc();
		while ((pkg = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pkg)))
			if (hwloc_bitmap_intersects(pkg->cpuset, x->cpus))
				hwloc_bitmap_set(x->packages, pkg->logical_index);
		x->meminfo = node_meminfo(t->in, x->id, x);
		x->memory = o->attr->numanode.local_memory;
		x->memory_known = x->memory || t->in->kind != RM_INPUT_SNAPSHOT;
		x->row = distance_row(t, d, o, nodes, (int)n);
		x->tier = rm_topo_node_tier(t, o);
		x->nearest = near ? (long)near->os_index : -1;
		for (unsigned j = 0; d && j < n; j++) {
			int b = hwloc_distances_obj_index(d, nodes[j]);

			nt->dist[(size_t)i * n + j] =
				a >= 0 && b >= 0 ? (long long)d->values[a * d->nbobjs + b] : -1;
		}
	}
	if (d)
		hwloc_distances_release(t->topo, d);
	free(single);
	free(nodes);
}

void numa_table_read(const struct rm_common *c, struct rm_topo *t, struct numa_table *nt,
		     bool packages)
{
	memset(nt, 0, sizeof(*nt));
	if (t) {
		table_from_topo(t, nt);
		return;
	}
	rm_topo_check_input(rm_input_resolve(c));
	if (!table_from_sysfs(rm_input_resolve(c), nt, packages)) {
		table_from_topo(rm_topo_load(c, 0), nt);
		nt->own_topo = true;
	}
}

int numa_table_find(const struct numa_table *nt, unsigned id)
{
	for (unsigned i = 0; i < nt->n; i++)
		if (nt->node[i].id == id)
			return (int)i;
	return -1;
}

void numa_table_free(struct numa_table *nt)
{
	for (unsigned i = 0; i < nt->n; i++) {
		hwloc_bitmap_free(nt->node[i].cpus);
		hwloc_bitmap_free(nt->node[i].packages);
		free(nt->node[i].row);
		free(nt->node[i].caches);
		free(nt->node[i].origin);
		for (unsigned k = 0; k < 2; k++)
			hwloc_bitmap_free(nt->node[i].access[k].initiators);
	}
	free(nt->node);
	free(nt->dist);
	if (nt->own_topo)
		rm_topo_free(nt->t);
	memset(nt, 0, sizeof(*nt));
}

/* ---- what the firmware states of each memory node (ACPI HMAT), and where its memory is ---- */

/* Bounds on directories read: a tree (a snapshot) may hold anything. */
#define HMAT_MAX_ENTRIES 4096

/* The ids of the entries PREFIX<id> of directory ROOT/REL into SET; false when unreadable. */
static bool dir_ids(const char *root, const char *rel, const char *prefix, hwloc_bitmap_t set)
{
	char *dir = rm_sysfs_path(root, rel);
	DIR *d = opendir(dir);
	size_t plen = strlen(prefix), seen = 0;
	struct dirent *de;

	free(dir);
	while (d && seen++ < HMAT_MAX_ENTRIES && (de = readdir(d))) {
		unsigned id;
		char tail;

		if (!strncmp(de->d_name, prefix, plen) &&
		    sscanf(de->d_name + plen, "%u%c", &id, &tail) == 1 && id < HMAT_MAX_ENTRIES)
			hwloc_bitmap_set(set, id);
	}
	if (d)
		closedir(d);
	return d != NULL;
}

static void hmat_access(const char *root, unsigned id, unsigned k, struct numa_access *a)
{
	static const char *const files[] = { "read_bandwidth", "write_bandwidth", "read_latency",
					     "write_latency" };
	char *dir = xasprintf("sys/devices/system/node/node%u/access%u/initiators", id, k);

	a->initiators = hwloc_bitmap_alloc();
	if (!dir_ids(root, dir, "node", a->initiators)) {
		hwloc_bitmap_free(a->initiators);
		a->initiators = NULL;
	}
	for (unsigned f = 0; f < 4; f++) {
		char *path = xasprintf("%s/%s", dir, files[f]);
		uint64_t v;

		a->value[f] = rm_sysfs_read_u64(root, path, &v) == 0 ? (long long)v : -1;
		free(path);
	}
	free(dir);
}

/* The memory-side caches of node ID as "L1:16MiB:64B:direct:write-back,..." (sizes in bytes
 * with BYTES); "" for none stated, NULL when the kernel states no HMAT for the node. */
static char *hmat_caches(const char *root, unsigned id, bool bytes)
{
	static const char *const indexing[] = { "direct", "indexed", "other" };
	static const char *const policy[] = { "write-back", "write-through", "other" };
	char *dir = xasprintf("sys/devices/system/node/node%u/memory_side_cache", id);
	hwloc_bitmap_t levels = hwloc_bitmap_alloc();
	char *out = NULL;
	unsigned l;

	if (dir_ids(root, dir, "index", levels))
		out = xstrdup("");
	hwloc_bitmap_foreach_begin(l, levels) {
		uint64_t v[4];
		static const char *const files[] = { "size", "line_size", "indexing",
						     "write_policy" };
		char *size, *line, *one;

		for (unsigned f = 0; f < 4; f++) {
			char *path = xasprintf("%s/index%u/%s", dir, l, files[f]);

			if (rm_sysfs_read_u64(root, path, &v[f]) < 0)
				v[f] = UINT64_MAX;
			free(path);
		}
		size = v[0] == UINT64_MAX ? xstrdup("-") :
		       bytes ? xasprintf("%" PRIu64, v[0]) : rm_size_format(v[0]);
		line = v[1] == UINT64_MAX ? xstrdup("-") :
		       bytes ? xasprintf("%" PRIu64, v[1]) : rm_size_format(v[1]);
		one = xasprintf("%s%sL%u:%s:%s:%s:%s", out, *out ? "," : "", l, size, line,
				v[2] < 3 ? indexing[v[2]] : "-", v[3] < 3 ? policy[v[3]] : "-");
		free(out);
		free(size);
		free(line);
		out = one;
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(levels);
	free(dir);
	return out;
}

/* The node DAX device DIR/NAME (a directory with target_node) hands its memory to. */
static long dax_target(const char *root, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s/target_node", dir, name);
	uint64_t v;
	int rc = rm_sysfs_read_u64(root, path, &v);

	free(path);
	return rc == 0 && v < NUMA_MAX_NODES ? (long)v : -1;
}

/* ORIGIN[id] of each node whose memory is a DAX device onlined as system RAM: "region0/dax0.0"
 * for a CXL region's (sys/bus/cxl/devices/regionN/dax_regionN/daxX.Y), "dax1.0" for another's
 * (sys/bus/dax/devices, such as memory the firmware set apart, EFI soft-reserved). */
static void dax_origins(const char *root, char **origin, unsigned n)
{
	hwloc_bitmap_t regions = hwloc_bitmap_alloc();
	char *dir;
	unsigned r, x;

	dir_ids(root, "sys/bus/cxl/devices", "region", regions);
	hwloc_bitmap_foreach_begin(r, regions) {
		char *rdir = xasprintf("sys/bus/cxl/devices/region%u/dax_region%u", r, r);
		char *path = rm_sysfs_path(root, rdir);
		DIR *d = opendir(path);
		struct dirent *de;
		size_t seen = 0;

		while (d && seen++ < HMAT_MAX_ENTRIES && (de = readdir(d))) {
			long node;

			if (strncmp(de->d_name, "dax", 3) || !strncmp(de->d_name, "dax_", 4) ||
			    (node = dax_target(root, rdir, de->d_name)) < 0 || (unsigned)node >= n ||
			    origin[node])
				continue;
			origin[node] = xasprintf("region%u/%s", r, de->d_name);
		}
		if (d)
			closedir(d);
		free(path);
		free(rdir);
	} hwloc_bitmap_foreach_end();
	/* the others: names daxX.Y, read whole (the X of X.Y alone is not unique) */
	dir = rm_sysfs_path(root, "sys/bus/dax/devices");
	{
		DIR *d = opendir(dir);
		struct dirent *de;
		size_t seen = 0;

		while (d && seen++ < HMAT_MAX_ENTRIES && (de = readdir(d))) {
			long node;

			if (sscanf(de->d_name, "dax%u.", &x) != 1 ||
			    (node = dax_target(root, "sys/bus/dax/devices", de->d_name)) < 0 ||
			    (unsigned)node >= n || origin[node])
				continue;
			origin[node] = xstrdup(de->d_name);
		}
		if (d)
			closedir(d);
	}
	free(dir);
	hwloc_bitmap_free(regions);
}

void numa_table_hmat(const struct rm_input *in, struct numa_table *nt, bool bytes)
{
	const char *root = rm_input_root(in);
	unsigned max = 0;
	char **origin;

	for (unsigned i = 0; i < nt->n; i++)
		for (unsigned k = 0; k < 2; k++)
			for (unsigned v = 0; v < 4; v++)
				nt->node[i].access[k].value[v] = -1;
	if (!rm_input_sysfs(in))
		return;
	for (unsigned i = 0; i < nt->n; i++)
		if (nt->node[i].id >= max)
			max = nt->node[i].id + 1;
	origin = xcalloc(max ? max : 1, sizeof(*origin));
	dax_origins(root, origin, max);
	for (unsigned i = 0; i < nt->n; i++) {
		struct numa_node *x = &nt->node[i];

		for (unsigned k = 0; k < 2; k++)
			hmat_access(root, x->id, k, &x->access[k]);
		x->caches = hmat_caches(root, x->id, bytes);
		x->origin = origin[x->id];
	}
	free(origin);
}
