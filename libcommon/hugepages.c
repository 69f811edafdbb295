/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Huge page pools per page size and NUMA node under a sysroot: read them, set them with read-back. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugepages.h"
#include "kernfs.h"
#include "record.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

/*
 * libhugetlbfs has no per-node API and no read-back, and hwloc only reads the counts; the pool
 * files are few and simple, so they are read and written here, under --sysroot like the rest.
 * Writes truncate first, for the plain files of test trees.
 */

#define GLOBAL_DIR "sys/kernel/mm/hugepages"
#define NODE_DIR "sys/devices/system/node"

/* ---- sizes and nodes ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_node(const void *a, const void *b)
{
	unsigned x = ((const struct rm_hp_node *)a)->id, y = ((const struct rm_hp_node *)b)->id;

	return x < y ? -1 : x > y;
}

/* "hugepages-2048kB" -> bytes; 0 when not such a name. */
static uint64_t dir_size(const char *name)
{
	unsigned long long kb;
	int end = 0;

	if (sscanf(name, "hugepages-%llukB%n", &kb, &end) != 1 || name[end] || !kb ||
	    kb > UINT64_MAX / 1024)
		return 0;
	return (uint64_t)kb * 1024;
}

/* "Key:   123 kB" of a meminfo-like file ("Node 0 Key: ..." too), in bytes; 0 when absent. */
static uint64_t meminfo_value(const char *root, const char *path, const char *key)
{
	char *text = rm_sysfs_read(root, path), *line, *save;
	size_t klen = strlen(key);
	uint64_t v = 0;

	if (!text)
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *k = strstr(line, key), unit[8] = "";
		unsigned long long n;

		if (!k || k[klen] != ':' || (k != line && k[-1] != ' '))
			continue;
		if (sscanf(k + klen + 1, "%llu %7s", &n, unit) >= 1)
			v = !strcmp(unit, "kB") ? (uint64_t)n * 1024 : (uint64_t)n;
		break;
	}
	free(text);
	return v;
}

/* The largest block of the page allocator: the base page (of this machine) shifted by the highest
 * order, one less than the counts of a zone in proc/buddyinfo ("Node 0, zone DMA 0 1 ..."). */
static uint64_t max_block(const char *sysroot)
{
	char *text = rm_sysfs_read(sysroot, "proc/buddyinfo"), *tok, *save, *nl;
	long page = sysconf(_SC_PAGESIZE);
	unsigned orders = 11, n = 0, words = 0;

	if (text) {
		if ((nl = strchr(text, '\n')))
			*nl = '\0';
		for (tok = strtok_r(text, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			if (++words > 4 && tok[strspn(tok, "0123456789")] == '\0')
				n++;
		if (n >= 1 && n <= 40)
			orders = n;
		free(text);
	}
	return (uint64_t)(page > 0 ? page : 4096) << (orders - 1);
}

/* Whether REL is there: 1, 0 when it is not (ENOENT), -1 with errno when that cannot be told
 * (EIO): a node whose pools cannot be read is never taken for one without them. */
static int present(const char *sysroot, const char *rel)
{
	char *full = rm_sysfs_path(sysroot, rel);
	int rc = access(full, F_OK) == 0 ? 1 : errno == ENOENT ? 0 : -1, e = errno;

	free(full);
	errno = e;
	return rc;
}

/* The nodes of NODE_DIR into HP; -1 with *ERRMSG (REL: what could not be read) when the
 * directory, or a node's pool, cannot be read for another reason than being absent, so that a
 * NUMA machine is never taken for one without NUMA nor a node for one without a page size. */
static int open_nodes(struct rm_hugepages *hp, const char *sysroot, char **errmsg)
{
	char *path = rm_sysfs_path(sysroot, NODE_DIR), *rel = NULL;
	DIR *d = opendir(path);
	struct dirent *e;
	size_t cap = 0;
	int rc = 0;

	free(path);
	if (!d && errno != ENOENT)
		rel = xstrdup(NODE_DIR);
	while (d && !rel && (errno = 0, e = readdir(d))) {
		unsigned id;
		int end = 0;
		struct rm_hp_node *n;

		if (sscanf(e->d_name, "node%u%n", &id, &end) != 1 || e->d_name[end])
			continue;
		if (hp->nnodes == cap)
			hp->nodes = xrealloc(hp->nodes, (cap = cap ? 2 * cap : 4) * sizeof(*n));
		n = &hp->nodes[hp->nnodes++];
		n->id = id;
		n->offers = xcalloc(hp->nsizes, sizeof(bool));
		for (size_t s = 0; s < hp->nsizes && !rel; s++) {
			char *dn = rm_hugepages_dir_name(hp->sizes[s]);

			rel = xasprintf(NODE_DIR "/node%u/hugepages/%s", id, dn);
			free(dn);
			if ((rc = present(sysroot, rel)) >= 0) {
				n->offers[s] = rc;
				free(rel);
				rel = NULL;
			}
		}
		if (!rel) {
			char *mi = xasprintf(NODE_DIR "/node%u/meminfo", id);

			n->mem_total = meminfo_value(sysroot, mi, "MemTotal");
			free(mi);
		}
	}
	if (d && !rel && errno)
		rel = xstrdup(NODE_DIR);
	if (rel) {
		int err = errno;

		path = rm_sysfs_path(sysroot, rel);
		*errmsg = xasprintf("cannot read the NUMA nodes' huge page pools: %s: '%s'",
				    strerror(err), path);
		free(path);
		free(rel);
		rc = -1;
	} else {
		rc = 0;
	}
	if (d)
		closedir(d);
	return rc;
}

int rm_hugepages_open(struct rm_hugepages *hp, const char *sysroot, char **errmsg)
{
	char *path = rm_sysfs_path(sysroot, GLOBAL_DIR);
	DIR *d = opendir(path);
	struct dirent *e;
	size_t cap = 0;

	memset(hp, 0, sizeof(*hp));
	if (!d) {
		*errmsg = xasprintf("no huge pages here (no %s): '%s'", GLOBAL_DIR,
				    sysroot && *sysroot ? sysroot : "/");
		free(path);
		return -1;
	}
	free(path);
	while ((e = readdir(d))) {
		uint64_t b = dir_size(e->d_name);

		if (!b)
			continue;
		if (hp->nsizes == cap)
			hp->sizes = xrealloc(hp->sizes, (cap = cap ? 2 * cap : 4) * sizeof(uint64_t));
		hp->sizes[hp->nsizes++] = b;
	}
	closedir(d);
	if (!hp->nsizes) {
		*errmsg = xasprintf("the kernel offers no huge page sizes: '%s'",
				    sysroot && *sysroot ? sysroot : "/");
		free(hp->sizes);
		hp->sizes = NULL;
		return -1;
	}
	qsort(hp->sizes, hp->nsizes, sizeof(uint64_t), cmp_u64);
	hp->sysroot = sysroot && *sysroot ? xstrdup(sysroot) : NULL;
	hp->default_size = meminfo_value(sysroot, "proc/meminfo", "Hugepagesize");
	hp->max_block = max_block(sysroot);

	if (open_nodes(hp, sysroot, errmsg) < 0) {
		rm_hugepages_close(hp);
		return -2;
	}
	if (hp->nnodes) {
		hp->numa = true;
		qsort(hp->nodes, hp->nnodes, sizeof(*hp->nodes), cmp_node);
		if (hp->nnodes == 1) {
			/* all the memory is the one node's, also what its meminfo may not count yet
			 * (memory hot-added to some virtual machines) */
			uint64_t all = meminfo_value(sysroot, "proc/meminfo", "MemTotal");

			if (all > hp->nodes[0].mem_total)
				hp->nodes[0].mem_total = all;
		}
	} else {
		/* no NUMA: one node, the global pools */
		hp->nodes = xcalloc(1, sizeof(*hp->nodes));
		hp->nnodes = 1;
		hp->nodes[0].offers = xcalloc(hp->nsizes, sizeof(bool));
		for (size_t s = 0; s < hp->nsizes; s++)
			hp->nodes[0].offers[s] = true;
		hp->nodes[0].mem_total = meminfo_value(sysroot, "proc/meminfo", "MemTotal");
	}
	return 0;
}

void rm_hugepages_close(struct rm_hugepages *hp)
{
	for (size_t i = 0; i < hp->nnodes; i++)
		free(hp->nodes[i].offers);
	free(hp->nodes);
	free(hp->sizes);
	free(hp->sysroot);
	memset(hp, 0, sizeof(*hp));
}

long rm_hugepages_size_index(const struct rm_hugepages *hp, uint64_t bytes)
{
	for (size_t i = 0; i < hp->nsizes; i++)
		if (hp->sizes[i] == bytes)
			return (long)i;
	return -1;
}

long rm_hugepages_node_index(const struct rm_hugepages *hp, unsigned id)
{
	for (size_t i = 0; i < hp->nnodes; i++)
		if (hp->nodes[i].id == id)
			return (long)i;
	return -1;
}

char *rm_hugepages_sizes_text(const struct rm_hugepages *hp)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < hp->nsizes; i++) {
		char *s = rm_size_format(hp->sizes[i]), *n;

		n = xasprintf("%s%s%s", out, i ? ", " : "", s);
		free(out);
		free(s);
		out = n;
	}
	return out;
}

int rm_hugepages_parse_size(const struct rm_hugepages *hp, const char *str, size_t *index,
			    char **errmsg)
{
	uint64_t b;
	long i;

	if (rm_size_parse(str, &b, errmsg) < 0)
		return -1;
	if ((i = rm_hugepages_size_index(hp, b)) < 0) {
		char *list = rm_hugepages_sizes_text(hp), *shown = rm_record_show(str, strlen(str));

		*errmsg = xasprintf("unknown page size: '%s' (this machine offers %s)", shown, list);
		free(shown);
		free(list);
		return -1;
	}
	*index = (size_t)i;
	return 0;
}

/* BYTES in the largest of K, M, G, T that divides it, with SUFFIX after the letter. */
static char *scaled(uint64_t bytes, const char *suffix)
{
	static const char units[] = "KMGT";
	int i = 0;

	bytes /= 1024;
	while (i < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	return xasprintf("%" PRIu64 "%c%s", bytes, units[i], suffix);
}

char *rm_hugepages_kernel_size(uint64_t bytes)
{
	return scaled(bytes, "");
}

char *rm_hugepages_cgroup_size(uint64_t bytes)
{
	return scaled(bytes, "B");
}

char *rm_hugepages_dir_name(uint64_t bytes)
{
	return xasprintf("hugepages-%" PRIu64 "kB", bytes / 1024);
}

/* ---- counts ---- */

/* The directory of a pool, relative to the sysroot; NODE (SIZE_MAX: global). */
static char *pool_dir(const struct rm_hugepages *hp, size_t size, size_t node)
{
	char *dn = rm_hugepages_dir_name(hp->sizes[size]), *p;

	if (node == SIZE_MAX || !hp->numa)
		p = xasprintf(GLOBAL_DIR "/%s", dn);
	else
		p = xasprintf(NODE_DIR "/node%u/hugepages/%s", hp->nodes[node].id, dn);
	free(dn);
	return p;
}

char *rm_hugepages_node_file(const struct rm_hugepages *hp, size_t size, size_t node,
			     const char *file)
{
	char *dir = pool_dir(hp, size, node), *p = xasprintf("%s/%s", dir, file);

	free(dir);
	return p;
}

/* DIR/FILE as a number; -1 with *ERRMSG. OPTIONAL: a missing file reads as "absent" (1). */
static int read_count(const struct rm_hugepages *hp, const char *dir, const char *file,
		      uint64_t *v, bool optional, char **errmsg)
{
	char *rel = xasprintf("%s/%s", dir, file);
	int rc = 0;

	if (rm_sysfs_read_u64(hp->sysroot, rel, v) < 0) {
		if (optional && !rm_sysfs_exists(hp->sysroot, rel)) {
			rc = 1;
		} else {
			char *full = rm_sysfs_path(hp->sysroot, rel);

			*errmsg = xasprintf("cannot read a page count: '%s'", full);
			free(full);
			rc = -1;
		}
	}
	free(rel);
	return rc;
}

static int read_counts(const struct rm_hugepages *hp, size_t size, size_t node,
		       struct rm_hp_counts *c, char **errmsg)
{
	char *dir = pool_dir(hp, size, node);
	int rc;

	memset(c, 0, sizeof(*c));
	rc = read_count(hp, dir, "nr_hugepages", &c->total, false, errmsg);
	if (rc == 0)
		rc = read_count(hp, dir, "free_hugepages", &c->free, false, errmsg);
	if (rc == 0)
		rc = read_count(hp, dir, "surplus_hugepages", &c->surplus, false, errmsg);
	if (rc == 0 && (node == SIZE_MAX || !hp->numa)) {
		rc = read_count(hp, dir, "resv_hugepages", &c->reserved, true, errmsg);
		c->have_reserved = rc == 0;
		if (rc >= 0)
			rc = read_count(hp, dir, "nr_overcommit_hugepages", &c->overcommit, true,
					errmsg);
		c->have_overcommit = rc == 0;
		if (rc > 0)
			rc = 0;
	}
	free(dir);
	return rc < 0 ? -1 : 0;
}

int rm_hugepages_read_node(const struct rm_hugepages *hp, size_t size, size_t node,
			   struct rm_hp_counts *c, char **errmsg)
{
	return read_counts(hp, size, node, c, errmsg);
}

int rm_hugepages_read_pool(const struct rm_hugepages *hp, size_t size, struct rm_hp_counts *c,
			   char **errmsg)
{
	return read_counts(hp, size, SIZE_MAX, c, errmsg);
}

/* Persistent pages of a node's pool: total less surplus. */
static int read_persistent(const struct rm_hugepages *hp, size_t size, size_t node, uint64_t *v,
			   char **errmsg)
{
	struct rm_hp_counts c;

	if (read_counts(hp, size, node, &c, errmsg) < 0)
		return -1;
	*v = c.total > c.surplus ? c.total - c.surplus : 0;
	return 0;
}

/* ---- counts and amounts ---- */

int rm_hugepages_parse_count(const char *str, uint64_t page_size, uint64_t *pages, bool *relative,
			     char **errmsg)
{
	const char *p = str;
	char *shown = rm_record_show(str, strlen(str));
	uint64_t n = 0;
	bool big = false;

	*relative = *p == '+';
	if (*relative)
		p++;
	if (*p < '0' || *p > '9') {
		*errmsg = xasprintf("invalid count: '%s'", shown);
		free(shown);
		return -1;
	}
	if (p[strspn(p, "0123456789")]) {
		/* a size: a whole number of pages */
		uint64_t bytes;
		char *msg = NULL;

		if (rm_size_parse(p, &bytes, &msg) < 0) {
			bool large = !strncmp(msg, "size too large", 14);

			free(msg);
			*errmsg = xasprintf("%s: '%s'", large ? "count too large" : "invalid count",
					    shown);
			free(shown);
			return -1;
		}
		if (bytes % page_size) {
			char *ps = rm_size_format(page_size);

			*errmsg = xasprintf("not a whole number of %s pages: '%s'", ps, shown);
			free(ps);
			free(shown);
			return -1;
		}
		*pages = bytes / page_size;
		free(shown);
		return 0;
	}
	for (; *p; p++) {
		unsigned d = *p - '0';

		if (n > (UINT64_MAX - d) / 10)
			big = true;
		else
			n = n * 10 + d;
	}
	if (big || n > UINT64_MAX / page_size) {
		*errmsg = xasprintf("count too large: '%s'", shown);
		free(shown);
		return -1;
	}
	free(shown);
	*pages = n;
	return 0;
}

void rm_hugepages_spread(uint64_t pages, size_t n, uint64_t *each)
{
	for (size_t i = 0; i < n; i++)
		each[i] = pages / n + (i < pages % n);
}

/* ---- setting counts ---- */

int rm_hugepages_prepare(const struct rm_hugepages *hp, struct rm_hp_target *t, size_t n,
			 char **errmsg)
{
	for (size_t i = 0; i < n; i++) {
		if (read_persistent(hp, t[i].size, t[i].node, &t[i].before, errmsg) < 0)
			return -1;
		t[i].got = t[i].before;
		t[i].written = false;
	}
	return 0;
}

int rm_hugepages_check_memory(const struct rm_hugepages *hp, const struct rm_hp_target *t,
			      size_t n, char **errmsg)
{
	for (size_t node = 0; node < hp->nnodes; node++) {
		const struct rm_hp_target *grows = NULL;
		uint64_t sum = 0;
		bool over = false;

		if (!hp->nodes[node].mem_total)
			continue;
		for (size_t s = 0; s < hp->nsizes && !over; s++) {
			const struct rm_hp_target *tt = NULL;
			uint64_t pages = 0;
			char *msg = NULL;

			if (!hp->nodes[node].offers[s])
				continue;
			for (size_t i = 0; i < n; i++)
				if (t[i].node == node && t[i].size == s)
					tt = &t[i];
			if (tt) {
				pages = tt->want;
				if (tt->want > tt->before && !grows)
					grows = tt;
			} else if (read_persistent(hp, s, node, &pages, &msg) < 0) {
				free(msg);
				pages = 0;
			}
			if (pages > (UINT64_MAX - sum) / hp->sizes[s])
				over = true;
			else
				sum += pages * hp->sizes[s];
		}
		if (grows && (over || sum > hp->nodes[node].mem_total)) {
			char *ps = rm_size_format(hp->sizes[grows->size]);
			char *have = rm_size_format(hp->nodes[node].mem_total);
			char *all = over ? xstrdup("more than 16EiB") : rm_size_format(sum);

			*errmsg = xasprintf("not enough memory on node %u: its huge pages would hold "
					    "%s, the node has %s (asked: %" PRIu64 " pages of %s)",
					    hp->nodes[node].id, all, have, grows->want, ps);
			free(all);
			free(have);
			free(ps);
			return 1;
		}
	}
	return 0;
}

int rm_hugepages_check_writable(const struct rm_hugepages *hp, const struct rm_hp_target *t,
				size_t n, char **path)
{
	for (size_t i = 0; i < n; i++) {
		char *rel, *full;

		if (t[i].want == t[i].before)
			continue;
		rel = rm_hugepages_node_file(hp, t[i].size, t[i].node, "nr_hugepages");
		full = rm_sysfs_path(hp->sysroot, rel);
		free(rel);
		if (access(full, W_OK) < 0) {
			*path = full;
			return -1;
		}
		free(full);
	}
	return 0;
}

/* Write COUNT to a node's nr_hugepages and read back its persistent pages into *GOT. */
static int write_count(const struct rm_hugepages *hp, const struct rm_hp_target *t, uint64_t count,
		       uint64_t *got, char **errmsg)
{
	char *rel = rm_hugepages_node_file(hp, t->size, t->node, "nr_hugepages");
	char *full = rm_sysfs_path(hp->sysroot, rel), val[24];
	int e;

	free(rel);
	snprintf(val, sizeof(val), "%" PRIu64, count);
	/* the kernel refuses nothing for want of memory: it allocates what it can */
	if ((e = rm_kernfs_write(full, val, RM_KERNFS_TRUNC))) {
		*errmsg = xasprintf("cannot write '%s' to %s: %s", val, full, strerror(e));
		free(full);
		return -1;
	}
	free(full);
	return read_persistent(hp, t->size, t->node, got, errmsg);
}

/* Ask the kernel to compact the node's memory (or all memory without NUMA); best effort. */
static void compact(const struct rm_hugepages *hp, size_t node)
{
	char *rel = hp->numa ? xasprintf(NODE_DIR "/node%u/compact", hp->nodes[node].id)
			     : xstrdup("proc/sys/vm/compact_memory");
	char *full = rm_sysfs_path(hp->sysroot, rel);

	if (access(full, W_OK) == 0)
		(void)rm_kernfs_write(full, "1", RM_KERNFS_TRUNC);
	free(full);
	free(rel);
}

int rm_hugepages_restore(const struct rm_hugepages *hp, struct rm_hp_target *t, size_t n,
			 char **errmsg)
{
	char *first = NULL;

	for (size_t k = n; k-- > 0;) {
		char *msg = NULL;
		uint64_t got;

		if (!t[k].written)
			continue;
		if (write_count(hp, &t[k], t[k].before, &got, &msg) < 0) {
			if (!first)
				first = msg;
			else
				free(msg);
			continue;
		}
		t[k].got = got;
		if (got != t[k].before) {
			char *ps = rm_size_format(hp->sizes[t[k].size]);

			if (!first)
				first = xasprintf("node %u kept %" PRIu64 " pages of %s instead of %"
						  PRIu64, hp->nodes[t[k].node].id, got, ps,
						  t[k].before);
			free(ps);
			continue;
		}
		t[k].written = false;
	}
	if (first) {
		*errmsg = first;
		return -1;
	}
	return 0;
}

/* Set one target, retrying a short growth. 0, 1 (short, *ERRMSG), -1 (error, *ERRMSG). */
static int set_one(const struct rm_hugepages *hp, struct rm_hp_target *t,
		   const struct rm_hp_set_opts *o, char **errmsg)
{
	uint64_t got, last;
	unsigned tries = 0;

	t->written = true;
	if (write_count(hp, t, t->want, &got, errmsg) < 0)
		return -1;
	t->got = got;
	last = got;
	while (got < t->want && t->want > t->before && tries < o->retries) {
		tries++;
		if (o->compact)
			compact(hp, t->node);
		if (write_count(hp, t, t->want, &got, errmsg) < 0)
			return -1;
		t->got = got;
		if (got <= last) /* no progress: the memory is not there */
			break;
		last = got;
	}
	if (got != t->want) {
		char *ps = rm_size_format(hp->sizes[t->size]);

		*errmsg = xasprintf("not enough memory for huge pages on node %u: asked %" PRIu64
				    " pages of %s, obtained %" PRIu64, hp->nodes[t->node].id,
				    t->want, ps, got);
		free(ps);
		return 1;
	}
	return 0;
}

int rm_hugepages_set(const struct rm_hugepages *hp, struct rm_hp_target *t, size_t n,
		     const struct rm_hp_set_opts *opts, char **errmsg)
{
	int rc = 0;

	/* decreases first: the memory they free may serve the increases */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			bool down = t[i].want < t[i].before;

			if (t[i].want == t[i].before || down != (pass == 0))
				continue;
			rc = set_one(hp, &t[i], opts, errmsg);
		}
	}
	if (rc == 0 || (rc == 1 && opts->keep_partial))
		return rc;
	char *umsg = NULL;

	if (rm_hugepages_restore(hp, t, n, &umsg) < 0) {
		char *m = xasprintf("%s; putting the pools back failed: %s", *errmsg, umsg);

		free(*errmsg);
		free(umsg);
		*errmsg = m;
		return -1;
	}
	return rc;
}

/* ---- overcommit ---- */

bool rm_hugepages_gigantic(const struct rm_hugepages *hp, size_t size)
{
	return hp->sizes[size] > hp->max_block;
}

int rm_hugepages_read_overcommit(const struct rm_hugepages *hp, size_t size, uint64_t *v,
				 char **errmsg)
{
	char *dir = pool_dir(hp, size, SIZE_MAX);
	int rc = read_count(hp, dir, "nr_overcommit_hugepages", v, false, errmsg);

	free(dir);
	return rc;
}

int rm_hugepages_set_overcommit(const struct rm_hugepages *hp, size_t size, uint64_t count,
				uint64_t *got, char **errmsg)
{
	char *rel = rm_hugepages_node_file(hp, size, SIZE_MAX, "nr_overcommit_hugepages");
	char *full = rm_sysfs_path(hp->sysroot, rel), val[24], old[24], *msg = NULL;
	uint64_t before;
	int e, rc = -1;

	free(rel);
	*got = UINT64_MAX;
	if (rm_hugepages_read_overcommit(hp, size, &before, errmsg) < 0)
		goto out;
	snprintf(val, sizeof(val), "%" PRIu64, count);
	if ((e = rm_kernfs_write(full, val, RM_KERNFS_TRUNC))) {
		uint64_t now;
		char *m = NULL;

		*errmsg = xasprintf("cannot write '%s' to %s: %s", val, full, strerror(e));
		rc = e == EINVAL ? -2 : -1;
		/* a failure after the file took the value (close) leaves it standing: put back */
		if (rm_hugepages_read_overcommit(hp, size, &now, &m) == 0 && now == before) {
			*got = before;
			goto out;
		}
		free(m);
		rc = -1;
	} else if (rm_hugepages_read_overcommit(hp, size, got, errmsg) == 0) {
		char *ps;

		if (*got == count) {
			rc = 0;
			goto out;
		}
		ps = rm_size_format(hp->sizes[size]);
		*errmsg = xasprintf("the overcommit of %s pages reads back %" PRIu64 " after writing "
				    "%" PRIu64 ": '%s'", ps, *got, count, full);
		free(ps);
	}
	/* failed, read back wrong or not at all: the value before goes back */
	snprintf(old, sizeof(old), "%" PRIu64, before);
	if ((e = rm_kernfs_write(full, old, RM_KERNFS_TRUNC))) {
		char *m = xasprintf("%s; writing back %s failed: %s", *errmsg, old, strerror(e));

		free(*errmsg);
		*errmsg = m;
	}
	/* what stands, as the caller's message says it */
	if (rm_hugepages_read_overcommit(hp, size, got, &msg) < 0) {
		free(msg);
		*got = UINT64_MAX;
	}
out:
	free(full);
	return rc;
}

/* ---- mounts ---- */

/* Undo the octal escapes (\040) of /proc mount fields, in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static void hugetlbfs_options(struct rm_hp_mount *m, uint64_t default_size)
{
	char *opts = xstrdup(m->options), *tok, *save;

	m->page_size = default_size;
	m->mode = 0755;
	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t b;
		char *end;

		if (!strncmp(tok, "pagesize=", 9) && rm_size_parse(tok + 9, &b, NULL) == 0)
			m->page_size = b;
		else if (!strncmp(tok, "size=", 5) && rm_size_parse(tok + 5, &b, NULL) == 0)
			m->have_max = true, m->max_size = b;
		else if (!strncmp(tok, "uid=", 4))
			m->uid = (unsigned)strtoul(tok + 4, &end, 10);
		else if (!strncmp(tok, "gid=", 4))
			m->gid = (unsigned)strtoul(tok + 4, &end, 10);
		else if (!strncmp(tok, "mode=", 5))
			m->mode = (unsigned)strtoul(tok + 5, &end, 8);
	}
	free(opts);
}

long rm_hugepages_mounts(const char *sysroot, uint64_t default_size, struct rm_hp_mount **m,
			 char **errmsg)
{
	bool info = true;
	char *text = NULL, *line, *save;
	size_t n = 0, cap = 0;

	*m = NULL;
	if (!sysroot || !*sysroot) {
		text = rm_sysfs_read(NULL, "proc/self/mountinfo");
		if (!text) {
			*errmsg = xasprintf("cannot read /proc/self/mountinfo: %s", strerror(errno));
			return -1;
		}
	} else if (!(text = rm_sysfs_read(sysroot, "proc/self/mountinfo"))) {
		info = false;
		if (!(text = rm_sysfs_read(sysroot, "proc/mounts")))
			return 0;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[64];
		int nf = 0;
		char *dir, *fstype, *opts, *tok, *s2;

		for (tok = strtok_r(line, " ", &s2); tok && nf < 64; tok = strtok_r(NULL, " ", &s2))
			f[nf++] = tok;
		if (info) {
			int dash = -1;

			for (int i = 6; i < nf; i++)
				if (!strcmp(f[i], "-")) {
					dash = i;
					break;
				}
			if (dash < 0 || nf < dash + 4)
				continue;
			dir = f[4];
			fstype = f[dash + 1];
			opts = f[dash + 3];
		} else {
			if (nf < 4)
				continue;
			dir = f[1];
			fstype = f[2];
			opts = f[3];
		}
		if (n == cap)
			*m = xrealloc(*m, (cap = cap ? 2 * cap : 32) * sizeof(**m));
		memset(&(*m)[n], 0, sizeof(**m));
		unescape(dir);
		(*m)[n].dir = xstrdup(dir);
		(*m)[n].fstype = xstrdup(fstype);
		(*m)[n].options = xstrdup(opts);
		if (!strcmp(fstype, "hugetlbfs"))
			hugetlbfs_options(&(*m)[n], default_size);
		n++;
	}
	free(text);
	return (long)n;
}

void rm_hugepages_mounts_free(struct rm_hp_mount *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].dir);
		free(m[i].fstype);
		free(m[i].options);
	}
	free(m);
}

const struct rm_hp_mount *rm_hugepages_mount_at(const struct rm_hp_mount *m, size_t n,
						const char *dir)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(m[i].dir, dir))
			return &m[i];
	return NULL;
}
