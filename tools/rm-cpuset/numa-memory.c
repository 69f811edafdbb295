/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset show --memory: each owner's memory on each NUMA node, as numastat -p shows a
 * process's. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "kernfs.h"
#include "rm-cpuset.h"
#include "xalloc.h"

enum { MEM_OWNER, MEM_NODE, MEM_TOTAL, MEM_ANON, MEM_FILE, MEM_KERNEL, MEM_HUGETLB, MEM_ALLOWED,
       MEM_SOURCE, MEM_NCOLS };
static const struct rm_column mem_cols[] = {
	[MEM_OWNER] = { "owner", RM_COL_STRING, "the owner" },
	[MEM_NODE] = { "node", RM_COL_INT, "NUMA node (kernel number)" },
	[MEM_TOTAL] = { "total", RM_COL_SIZE, "its memory on the node: anon, file, kernel, hugetlb" },
	[MEM_ANON] = { "anon", RM_COL_SIZE, "anonymous memory: heap, stacks, private mappings" },
	[MEM_FILE] = { "file", RM_COL_SIZE, "page cache and shared memory (numa_maps: file mappings)" },
	[MEM_KERNEL] = { "kernel", RM_COL_SIZE,
			 "kernel stacks, page tables and slab (memory.numa_stat only)" },
	[MEM_HUGETLB] = { "hugetlb", RM_COL_SIZE, "pages of the huge page pools it uses" },
	[MEM_ALLOWED] = { "allowed", RM_COL_BOOL, "the node is one of its memory nodes (mems)" },
	[MEM_SOURCE] = { "source", RM_COL_STRING,
			 "numa_stat: its cgroup's memory.numa_stat; numa_maps: the sum of its "
			 "processes' /proc/PID/numa_maps, as numastat -p (no memory controller)" },
};
static const char mem_defaults[] = "owner,node,total,anon,file,kernel,hugetlb,allowed";

/* An owner's memory on one node, by kind, in bytes. */
enum { KIND_ANON, KIND_FILE, KIND_KERNEL, KIND_HUGETLB, NKINDS };
struct node_mem {
	uint64_t bytes[NKINDS];
};

/* The node's entry of M (N entries, grown to hold NODE). */
static struct node_mem *node_entry(struct node_mem **m, size_t *n, unsigned long node)
{
	if (node >= *n) {
		size_t grown = node + 1;

		*m = xrealloc(*m, grown * sizeof(**m));
		memset(*m + *n, 0, (grown - *n) * sizeof(**m));
		*n = grown;
	}
	return &(*m)[node];
}

/* Add the "N0=V N1=V ..." words of LINE (after its key) to KIND of each node's entry, each V
 * times SCALE. */
static void add_per_node(const char *line, int kind, uint64_t scale, struct node_mem **m,
			 size_t *n)
{
	for (const char *p = strstr(line, " N"); p; p = strstr(p + 1, " N")) {
		char *end;
		unsigned long node = strtoul(p + 2, &end, 10);
		uint64_t v;

		if (end == p + 2 || *end != '=' || node > 65535)
			continue;
		v = strtoull(end + 1, NULL, 10);
		node_entry(m, n, node)->bytes[kind] += v * scale;
	}
}

/*
 * The cgroup DIR's memory.numa_stat (v2: "anon N0=BYTES N1=BYTES", one key a line) and its
 * hugetlb.SIZE.numa_stat files ("total=BYTES N0=BYTES ..."). Returns false when DIR has no
 * memory.numa_stat (no memory controller for it).
 */
static bool read_numa_stat(const char *dir, struct node_mem **m, size_t *n)
{
	static const char *const kernel_keys[] = { "kernel_stack", "pagetables", "sec_pagetables",
						   "slab_reclaimable", "slab_unreclaimable" };
	char *path = xasprintf("%s/memory.numa_stat", dir), *text = rm_kernfs_read(path, 0), *save;
	struct dirent *e;
	DIR *d;

	free(path);
	if (!text)
		return false;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t klen = strcspn(line, " ");
		int kind = -1;

		if (klen == 4 && !strncmp(line, "anon", 4))
			kind = KIND_ANON;
		else if (klen == 4 && !strncmp(line, "file", 4))
			kind = KIND_FILE;
		for (size_t k = 0; k < ARRAY_SIZE(kernel_keys); k++)
			if (klen == strlen(kernel_keys[k]) && !strncmp(line, kernel_keys[k], klen))
				kind = KIND_KERNEL;
		if (kind >= 0)
			add_per_node(line + klen, kind, 1, m, n);
	}
	free(text);
	/* hugetlb.2MB.numa_stat, hugetlb.1GB.numa_stat: the pages in use, bytes per node */
	if (!(d = opendir(dir)))
		return true;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "hugetlb.", 8) || len < 19 ||
		    strcmp(e->d_name + len - 10, ".numa_stat"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		text = rm_kernfs_read(path, 0);
		free(path);
		if (text && !strncmp(text, "total=", 6)) {
			text[strcspn(text, "\n")] = '\0';
			add_per_node(text, KIND_HUGETLB, 1, m, n);
		}
		free(text);
	}
	closedir(d);
	return true;
}

/*
 * PID's /proc/PID/numa_maps added in: one line a mapping, "N0=PAGES" per node with its
 * "kernelpagesize_kB=K"; a "huge" mapping counts as hugetlb, one with "file=" as file, the rest
 * as anon, as numastat -p sorts them (its Huge, and Private holding the rest).
 */
static void add_numa_maps(long pid, struct node_mem **m, size_t *n)
{
	char *path = xasprintf("/proc/%ld/numa_maps", pid), *text = rm_kernfs_read(path, 0), *save;

	free(path);
	if (!text)
		return; /* gone meanwhile */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *k = strstr(line, " kernelpagesize_kB=");
		uint64_t page = k ? strtoull(k + 19, NULL, 10) * 1024 : 4096;
		int kind = KIND_ANON;

		if (strstr(line, " huge"))
			kind = KIND_HUGETLB;
		else if (strstr(line, " file="))
			kind = KIND_FILE;
		add_per_node(line, kind, page, m, n);
	}
	free(text);
}

/* The processes of the cgroup DIR (cgroup.procs) added in with add_numa_maps. */
static void read_numa_maps(const char *dir, struct node_mem **m, size_t *n)
{
	char *path = xasprintf("%s/cgroup.procs", dir), *text = rm_kernfs_read(path, 0), *save;

	free(path);
	if (!text)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (isdigit((unsigned char)*line))
			add_numa_maps(strtol(line, NULL, 10), m, n);
	free(text);
}

void print_numa_memory(struct pool *p, struct rm_common *c)
{
	hwloc_const_bitmap_t nodes = hwloc_topology_get_topology_nodeset(p->t->topo);
	hwloc_bitmap_t mems = hwloc_bitmap_alloc();
	struct rm_out *out = rm_out_new(&c->out, "memory", mem_cols, MEM_NCOLS, mem_defaults, true);

	for (size_t i = 0; i < p->st.nrecords; i++) {
		const struct rm_record *r = &p->st.records[i];
		const char *owner = rm_record_get(r, "owner"), *source = NULL;
		struct node_mem *m = NULL;
		size_t n = 0;
		unsigned id;

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		pool_owner_mems(p, r, mems);
		if (p->have_cgroups) {
			char *dir = rm_cgroups_path(&p->cg, owner);

			if (rm_kernfs_is_dir(dir, 0)) {
				source = "numa_stat";
				if (p->cg.version != RM_CGROUP_V2 || !read_numa_stat(dir, &m, &n)) {
					source = "numa_maps";
					read_numa_maps(dir, &m, &n);
				}
			}
			free(dir);
		}
		hwloc_bitmap_foreach_begin(id, nodes) {
			const struct node_mem *e = id < n ? &m[id] : NULL;
			bool allowed = hwloc_bitmap_isset(mems, id);
			uint64_t total = 0;

			for (int k = 0; e && k < NKINDS; k++)
				total += e->bytes[k];
			if (!allowed && !total)
				continue;
			rm_out_begin(out);
			rm_out_str(out, MEM_OWNER, owner);
			rm_out_int(out, MEM_NODE, id);
			rm_out_bool(out, MEM_ALLOWED, allowed);
			rm_out_str(out, MEM_SOURCE, source);
			if (source) {
				static const struct node_mem none;

				if (!e)
					e = &none;
				rm_out_size(out, MEM_TOTAL, total);
				rm_out_size(out, MEM_ANON, e->bytes[KIND_ANON]);
				rm_out_size(out, MEM_FILE, e->bytes[KIND_FILE]);
				if (!strcmp(source, "numa_stat"))
					rm_out_size(out, MEM_KERNEL, e->bytes[KIND_KERNEL]);
				rm_out_size(out, MEM_HUGETLB, e->bytes[KIND_HUGETLB]);
			}
			rm_out_end(out);
		} hwloc_bitmap_foreach_end();
		free(m);
	}
	rm_out_close(out);
	rm_out_flush();
	hwloc_bitmap_free(mems);
}

void list_numa_memory_columns(const struct rm_common *c)
{
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, mem_cols, MEM_NCOLS, mem_defaults);
		exit(RM_EXIT_SUCCESS);
	}
	rm_out_check(&c->out, mem_cols, MEM_NCOLS, mem_defaults);
}
