/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Huge page pools per page size and NUMA node under a sysroot: read them, set them with read-back. */
#ifndef RM_HUGEPAGES_H
#define RM_HUGEPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A NUMA node as huge pages see it. */
struct rm_hp_node {
	unsigned id;        /* the kernel's number */
	uint64_t mem_total; /* bytes (its meminfo MemTotal); 0 when unknown */
	bool *offers;       /* per page size: the node has its hugepages-NkB directory */
};

/*
 * The page sizes the kernel offers (the hugepages-NkB directories of /sys/kernel/mm/hugepages)
 * and the NUMA nodes (/sys/devices/system/node/nodeN). Without NUMA directories there is one
 * pseudo node 0 whose pools are the global ones.
 */
struct rm_hugepages {
	char *sysroot;          /* NULL: this machine */
	size_t nsizes;
	uint64_t *sizes;        /* bytes, ascending */
	uint64_t default_size;  /* Hugepagesize of /proc/meminfo; 0 when unknown */
	bool numa;              /* per-node directories exist */
	size_t nnodes;
	struct rm_hp_node *nodes; /* ascending ids */
	uint64_t max_block;     /* bytes: the largest block of the page allocator */
};

/* Read the sizes and nodes. -1 with *ERRMSG when the kernel offers no huge pages there; -2 when
 * the nodes or their pools cannot be read (EIO), for they might be elsewhere than they seem. */
int rm_hugepages_open(struct rm_hugepages *hp, const char *sysroot, char **errmsg);
void rm_hugepages_close(struct rm_hugepages *hp);

/* The index of the page size of BYTES, or -1. */
long rm_hugepages_size_index(const struct rm_hugepages *hp, uint64_t bytes);

/* The index of node ID, or -1. */
long rm_hugepages_node_index(const struct rm_hugepages *hp, unsigned id);

/* "2MiB, 1GiB": the sizes offered, for messages. Allocated. */
char *rm_hugepages_sizes_text(const struct rm_hugepages *hp);

/* A page size argument ("2M", "2MiB", "2048kB", "1G") into *INDEX. -1 with *ERRMSG:
 * "invalid size: 'x'" or "unknown page size: '3M' (this machine offers 2MiB, 1GiB)". */
int rm_hugepages_parse_size(const struct rm_hugepages *hp, const char *str, size_t *index,
			    char **errmsg);

/* The kernel's names of a page size, allocated: "2M", "1G", "64K" (command line, hugetlbfs
 * pagesize=), "2MB", "1GB", "64KB" (hugetlb cgroup files), "hugepages-2048kB" (sysfs). */
char *rm_hugepages_kernel_size(uint64_t bytes);
char *rm_hugepages_cgroup_size(uint64_t bytes);
char *rm_hugepages_dir_name(uint64_t bytes);

/* The counts of one pool. Per node the kernel has no reserved or overcommit count. */
struct rm_hp_counts {
	uint64_t total;      /* nr_hugepages (persistent plus surplus) */
	uint64_t free;       /* free_hugepages */
	uint64_t surplus;    /* surplus_hugepages */
	bool have_reserved;
	uint64_t reserved;   /* resv_hugepages */
	bool have_overcommit;
	uint64_t overcommit; /* nr_overcommit_hugepages */
};

/* The pool of size SIZE on node NODE (indexes), or the global pool of SIZE. -1 with *ERRMSG. */
int rm_hugepages_read_node(const struct rm_hugepages *hp, size_t size, size_t node,
			   struct rm_hp_counts *c, char **errmsg);
int rm_hugepages_read_pool(const struct rm_hugepages *hp, size_t size, struct rm_hp_counts *c,
			   char **errmsg);

/* The file of a node's pool (NODE SIZE_MAX: the global pool): "nr_hugepages", relative to the
 * sysroot. Allocated. */
char *rm_hugepages_node_file(const struct rm_hugepages *hp, size_t size, size_t node,
			     const char *file);

/*
 * COUNT or AMOUNT for pages of PAGE_SIZE: "512" (pages), "8GiB", "1G" (a size with a unit, a
 * whole number of pages), either after "+" (*RELATIVE: added to what is there). -1 with *ERRMSG:
 * "invalid count: '1.5'", "count too large: '...'", "not a whole number of 2MiB pages: '3MiB'".
 * A count too large for a byte count of 64 bits is refused.
 */
int rm_hugepages_parse_count(const char *str, uint64_t page_size, uint64_t *pages, bool *relative,
			     char **errmsg);

/* PAGES split over N parts: each gets PAGES / N, the first PAGES % N one more. */
void rm_hugepages_spread(uint64_t pages, size_t n, uint64_t *each);

/* One pool to set: the persistent pages (total less surplus) node NODE should hold of SIZE. */
struct rm_hp_target {
	size_t size, node;
	uint64_t want;
	uint64_t before; /* rm_hugepages_prepare: persistent pages before */
	uint64_t got;    /* rm_hugepages_set: persistent pages after (before when untouched) */
	bool written;    /* rm_hugepages_set wrote it (and restores it on failure) */
};

/* Read the persistent pages of each target into ->before (and ->got). -1 with *ERRMSG. */
int rm_hugepages_prepare(const struct rm_hugepages *hp, struct rm_hp_target *t, size_t n,
			 char **errmsg);

/*
 * Whether the pools would fit: for each node, the memory of every size's persistent pages as the
 * targets leave them must not exceed the node's MemTotal. Returns 0, or 1 with *ERRMSG naming the
 * node ("node 0 has 23GiB of memory: 16384 pages of 2MiB (32GiB) cannot fit").
 */
int rm_hugepages_check_memory(const struct rm_hugepages *hp, const struct rm_hp_target *t,
			      size_t n, char **errmsg);

/* Whether every file the targets write is writable; -1 with *PATH (allocated) and errno set. */
int rm_hugepages_check_writable(const struct rm_hugepages *hp, const struct rm_hp_target *t,
				size_t n, char **path);

struct rm_hp_set_opts {
	unsigned retries;  /* further writes after a short one */
	bool compact;      /* compact the node's memory before each retry, where the kernel can */
	bool keep_partial; /* on a shortfall, keep what was obtained */
};

#define RM_HP_RETRIES 3

enum { RM_HP_SET_OK = 0, RM_HP_SET_SHORT = 1 };

/*
 * Write each target's count (decreases first, then increases, each in order), reading every write
 * back: the kernel may give fewer pages than asked without an error. A short write is retried up
 * to OPTS->retries times (after compacting memory when OPTS->compact), stopping early when a
 * retry gains nothing. On a shortfall every pool written is put back to its count before
 * (unless OPTS->keep_partial) and RM_HP_SET_SHORT is returned with *ERRMSG naming the node, the
 * pages asked and the pages obtained; on an I/O error the same undo and -1. ->got and ->written
 * say what is left. Needs rm_hugepages_prepare first.
 */
int rm_hugepages_set(const struct rm_hugepages *hp, struct rm_hp_target *t, size_t n,
		     const struct rm_hp_set_opts *opts, char **errmsg);

/* Put every written target back to ->before. 0, or -1 with *ERRMSG naming what stayed. */
int rm_hugepages_restore(const struct rm_hugepages *hp, struct rm_hp_target *t, size_t n,
			 char **errmsg);

/* ---- overcommit ---- */

/*
 * Whether pages of SIZE are gigantic: larger than the page allocator's largest block
 * (PAGE_SIZE << MAX_PAGE_ORDER, the orders read from proc/buddyinfo, else the kernel's default
 * of 10). The kernel allocates such pages only when they are reserved, never on demand, and
 * refuses an overcommit of them (EINVAL).
 */
bool rm_hugepages_gigantic(const struct rm_hugepages *hp, size_t size);

/* The overcommit of SIZE: the surplus pages the kernel may add on demand (global
 * nr_overcommit_hugepages; the kernel keeps none per node). -1 with *ERRMSG. */
int rm_hugepages_read_overcommit(const struct rm_hugepages *hp, size_t size, uint64_t *v,
				 char **errmsg);

/* Write COUNT to the overcommit of SIZE and read it back into *GOT. 0; -1 with *ERRMSG (the
 * write failed, or the read back failed or gave another value: then the value before is written
 * back, a write that failed after the file took it, at close, included); -2 with *ERRMSG when
 * the kernel refuses the size (EINVAL), nothing changed. After a failure *GOT is what stands
 * (UINT64_MAX: unknown). */
int rm_hugepages_set_overcommit(const struct rm_hugepages *hp, size_t size, uint64_t count,
				uint64_t *got, char **errmsg);

/* ---- hugetlbfs mounts ---- */

struct rm_hp_mount {
	char *dir;
	char *fstype;
	char *options;      /* the super block options, as the kernel lists them */
	/* hugetlbfs only */
	uint64_t page_size; /* pagesize=, else the default size */
	unsigned uid, gid, mode;
	bool have_max;
	uint64_t max_size;  /* size=, bytes */
};

/*
 * The mounts of this machine (/proc/self/mountinfo) or, with SYSROOT, of a snapshot
 * (SYSROOT/proc/self/mountinfo, else SYSROOT/proc/mounts; none when both are missing).
 * DEFAULT_SIZE is the page size of a hugetlbfs mount without pagesize=. Returns the count, *M
 * allocated, or -1 with *ERRMSG.
 */
long rm_hugepages_mounts(const char *sysroot, uint64_t default_size, struct rm_hp_mount **m,
			 char **errmsg);
void rm_hugepages_mounts_free(struct rm_hp_mount *m, size_t n);

/* The last mount at DIR (an absolute, canonical path) among M, or NULL. */
const struct rm_hp_mount *rm_hugepages_mount_at(const struct rm_hp_mount *m, size_t n,
						const char *dir);

#endif
