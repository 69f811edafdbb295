/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What rm-hugepages' commands share: the pools, node sets, records, the lock, messages. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "lock.h"
#include "input.h"
#include "kernfs.h"
#include "record.h"
#include "rm-hugepages.h"
#include "size.h"
#include "xalloc.h"

const char *hp_sysroot(const struct rm_common *c)
{
	const struct rm_input *in = rm_input_resolve(c);

	/* RM_TOPOLOGY is for the tools that read topologies: here it leaves RM_SYSROOT in force */
	if (rm_input_described(in) && in->given)
		rm_usage_errx("huge pages are not part of a described topology: '--topology' "
			      "(use --sysroot with a snapshot)");
	if (!rm_input_described(in))
		return rm_input_root(in);
	if (in->env_sysroot)
		rm_kernfs_root_add(in->env_sysroot);
	return in->env_sysroot;
}

void hp_open(struct rm_hugepages *hp, const char *sysroot)
{
	char *msg = NULL;

	int rc = rm_hugepages_open(hp, sysroot, &msg);

	if (rc < 0) {
		rm_warnx("%s", msg);
		free(msg);
		exit(rc == -2 ? RM_EXIT_FAILURE : RM_EXIT_USAGE);
	}
}

int hp_lock(void)
{
	char *msg = NULL;
	int dfd, fd;

	/* not root: the directory cannot be made, and the permission check that follows says so */
	if ((dfd = rm_lock_dir(HP_LOCK_DIR, &msg)) < 0 && geteuid() != 0) {
		free(msg);
		return -1;
	}
	if (dfd < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	fd = rm_lock_at(dfd, HP_LOCK_NAME, HP_LOCK, LOCK_EX, true, &msg);
	close(dfd);
	if (fd < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	return fd;
}

void hp_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

bool hp_permission_error(int err)
{
	return (err == EACCES || err == EPERM || err == EROFS) && geteuid() != 0;
}

void hp_failx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rm_vmsg(fmt, ap, 0);
	va_end(ap);
}

long hp_nodes(const struct rm_hugepages *hp, const char *set, size_t size, size_t **which,
	      char **errmsg)
{
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	char *ps = rm_size_format(hp->sizes[size]);
	size_t n = 0;
	unsigned id;
	long rc = -1;

	*which = xcalloc(hp->nnodes, sizeof(size_t));
	if (!set || !strcmp(set, "all")) {
		for (size_t i = 0; i < hp->nnodes; i++)
			if (hp->nodes[i].offers[size])
				(*which)[n++] = i;
		if (!n)
			*errmsg = xasprintf("no NUMA node offers %s pages: '%s'", ps,
					    set ? set : "all");
		else
			rc = (long)n;
		goto out;
	}
	if (rm_cpulist_parse_list(set, nodes, errmsg) < 0) {
		char *m = xasprintf("invalid node set: %s", *errmsg);

		free(*errmsg);
		*errmsg = m;
		goto out;
	}
	if (hwloc_bitmap_iszero(nodes)) {
		*errmsg = xasprintf("no NUMA node given: '%s'", set);
		goto out;
	}
	hwloc_bitmap_foreach_begin(id, nodes) {
		long i = rm_hugepages_node_index(hp, id);

		if (i < 0) {
			*errmsg = xasprintf("no such NUMA node: '%u'", id);
			goto out;
		}
		if (!hp->nodes[i].offers[size]) {
			bool any = false;

			for (size_t s = 0; s < hp->nsizes; s++)
				any |= hp->nodes[i].offers[s];
			*errmsg = any ? xasprintf("NUMA node %u offers no %s pages: '%u'", id, ps, id)
				      : xasprintf("NUMA node %u has no memory for huge pages: '%u'",
						  id, id);
			goto out;
		}
		(*which)[n++] = (size_t)i;
	}
	hwloc_bitmap_foreach_end();
	rc = (long)n;
out:
	if (rc < 0) {
		free(*which);
		*which = NULL;
	}
	free(ps);
	hwloc_bitmap_free(nodes);
	return rc;
}

/* ---- records ---- */

int hp_read_node(const struct rm_hugepages *hp, size_t size, size_t node, struct rm_hp_counts *c,
		 char **errmsg)
{
	struct rm_hp_counts g;
	char *msg = NULL;

	if (rm_hugepages_read_node(hp, size, node, c, errmsg) < 0)
		return -1;
	if (hp->nnodes == 1 && !c->have_reserved) {
		/* one node holds it all: the global reserved count is its own */
		if (rm_hugepages_read_pool(hp, size, &g, &msg) == 0) {
			c->have_reserved = g.have_reserved;
			c->reserved = g.reserved;
		}
		free(msg);
	}
	return 0;
}

const struct rm_column size_cols[] = {
	[SZ_SIZE] = { "size", RM_COL_SIZE, "the page size" },
	[SZ_NODE] = { "node", RM_COL_INT, "NUMA node (kernel number)" },
	[SZ_TOTAL] = { "total", RM_COL_INT, "pages in the pool (nr_hugepages)" },
	[SZ_FREE] = { "free", RM_COL_INT, "pages not in use (free_hugepages)" },
	[SZ_RESERVED] = { "reserved", RM_COL_INT,
			  "pages promised to mappings, not yet used (kept per size only)" },
	[SZ_SURPLUS] = { "surplus", RM_COL_INT, "pages above the persistent count (overcommit)" },
	[SZ_MEMORY] = { "memory", RM_COL_SIZE, "the memory the pages hold" },
	[SZ_PERSISTENT] = { "persistent", RM_COL_INT,
			    "total less surplus: the count reserve and release set" },
	[SZ_USED] = { "used", RM_COL_INT, "pages in use: total less free" },
};
const size_t size_ncols = ARRAY_SIZE(size_cols);
const char size_defaults[] = "size,node,total,free,reserved,surplus,memory";

void hp_print_size(struct rm_out *out, const struct rm_hugepages *hp, size_t size, size_t node,
		   const struct rm_hp_counts *c, uint64_t want)
{
	uint64_t ps = hp->sizes[size];

	rm_out_begin(out);
	rm_out_size(out, SZ_SIZE, ps);
	rm_out_int(out, SZ_NODE, hp->nodes[node].id);
	if (!c) {
		rm_out_int(out, SZ_TOTAL, (long long)want);
		rm_out_size(out, SZ_MEMORY, want * ps);
		rm_out_int(out, SZ_PERSISTENT, (long long)want);
		rm_out_end(out);
		return;
	}
	rm_out_int(out, SZ_TOTAL, (long long)c->total);
	rm_out_int(out, SZ_FREE, (long long)c->free);
	if (c->have_reserved)
		rm_out_int(out, SZ_RESERVED, (long long)c->reserved);
	rm_out_int(out, SZ_SURPLUS, (long long)c->surplus);
	rm_out_size(out, SZ_MEMORY, c->total * ps);
	rm_out_int(out, SZ_PERSISTENT, (long long)(c->total - (c->surplus < c->total ? c->surplus
										     : c->total)));
	rm_out_int(out, SZ_USED, (long long)(c->total - (c->free < c->total ? c->free : c->total)));
	rm_out_end(out);
}

const struct rm_column pool_cols[] = {
	[PL_POOL] = { "pool", RM_COL_SIZE, "the page size" },
	[PL_TOTAL] = { "total", RM_COL_INT, "pages of this size on every node" },
	[PL_FREE] = { "free", RM_COL_INT, "pages not in use" },
	[PL_RESERVED] = { "reserved", RM_COL_INT, "pages promised to mappings, not yet used" },
	[PL_SURPLUS] = { "surplus", RM_COL_INT, "pages above the persistent count" },
	[PL_OVERCOMMIT] = { "overcommit", RM_COL_INT,
			    "surplus pages the kernel may add on demand (nr_overcommit_hugepages)" },
	[PL_DEFAULT] = { "default", RM_COL_BOOL, "the default page size (Hugepagesize)" },
	[PL_MEMORY] = { "memory", RM_COL_SIZE, "the memory the pages hold" },
	[PL_NODES] = { "nodes", RM_COL_SET, "the NUMA nodes that offer this size" },
};
const size_t pool_ncols = ARRAY_SIZE(pool_cols);

void hp_print_pool(struct rm_out *out, const struct rm_hugepages *hp, size_t size,
		   const struct rm_hp_counts *g)
{
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();

	for (size_t n = 0; n < hp->nnodes; n++)
		if (hp->nodes[n].offers[size])
			hwloc_bitmap_set(nodes, hp->nodes[n].id);
	rm_out_begin(out);
	rm_out_size(out, PL_POOL, hp->sizes[size]);
	rm_out_int(out, PL_TOTAL, (long long)g->total);
	rm_out_int(out, PL_FREE, (long long)g->free);
	if (g->have_reserved)
		rm_out_int(out, PL_RESERVED, (long long)g->reserved);
	rm_out_int(out, PL_SURPLUS, (long long)g->surplus);
	if (g->have_overcommit)
		rm_out_int(out, PL_OVERCOMMIT, (long long)g->overcommit);
	if (hp->default_size)
		rm_out_bool(out, PL_DEFAULT, hp->sizes[size] == hp->default_size);
	rm_out_size(out, PL_MEMORY, g->total * hp->sizes[size]);
	rm_out_set(out, PL_NODES, nodes);
	rm_out_end(out);
	hwloc_bitmap_free(nodes);
}

char *hp_gigantic_msg(const struct rm_hugepages *hp, size_t size, const char *arg)
{
	char *ps = rm_size_format(hp->sizes[size]);
	char *shown = rm_record_show(arg, strlen(arg));
	char *m = xasprintf("the kernel refuses overcommit for gigantic pages such as %s (they are "
			    "never allocated on demand; reserve them): '%s'", ps, shown);

	free(shown);
	free(ps);
	return m;
}

const struct rm_column mount_cols[] = {
	[MT_MOUNT] = { "mount", RM_COL_STRING, "the mount point" },
	[MT_SIZE] = { "size", RM_COL_SIZE, "its page size" },
	[MT_UID] = { "uid", RM_COL_INT, "the owner of its root directory" },
	[MT_GID] = { "gid", RM_COL_INT, "the group of its root directory" },
	[MT_MODE] = { "mode", RM_COL_STRING, "the mode of its root directory, in octal" },
	[MT_MAX_SIZE] = { "max_size", RM_COL_STRING,
			  "the most memory its files may hold (size=), or max" },
	[MT_OPTIONS] = { "options", RM_COL_STRING, "its options, as the kernel lists them" },
};
const size_t mount_ncols = ARRAY_SIZE(mount_cols);
const char mount_defaults[] = "mount,size,uid,gid,mode,max_size";

char *hp_size_text(const struct rm_outopts *o, uint64_t bytes)
{
	if (o->bytes || o->mode == RM_OUT_JSON)
		return xasprintf("%" PRIu64, bytes);
	return rm_size_format(bytes);
}

void hp_print_mount(struct rm_out *out, const struct rm_outopts *o, const struct rm_hp_mount *m)
{
	char mode[16], *max = m->have_max ? hp_size_text(o, m->max_size) : xstrdup("max");

	rm_out_begin(out);
	rm_out_str(out, MT_MOUNT, m->dir);
	rm_out_size(out, MT_SIZE, m->page_size);
	rm_out_int(out, MT_UID, m->uid);
	rm_out_int(out, MT_GID, m->gid);
	snprintf(mode, sizeof(mode), "%04o", m->mode);
	rm_out_str(out, MT_MODE, mode);
	rm_out_str(out, MT_MAX_SIZE, max);
	rm_out_str(out, MT_OPTIONS, m->options);
	rm_out_end(out);
	free(max);
}
