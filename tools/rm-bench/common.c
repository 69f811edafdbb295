/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What rm-bench's measurements share: this machine's CPUs and nodes, pinning, mapped memory. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "rm-bench.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

void bench_live_only(const struct rm_common *c)
{
	if (!rm_input_here(rm_input_resolve(c)))
		rm_usage_errx("measurements need this machine (--topology, --sysroot, RM_TOPOLOGY or "
			      "RM_SYSROOT is set)");
}

void bench_open(struct bench *b, const struct rm_common *c)
{
	cpu_set_t *mask;
	size_t size;
	int ncpus;

	bench_live_only(c);
	memset(b, 0, sizeof(*b));
	b->t = rm_topo_load(c, 0);
	b->page = (size_t)sysconf(_SC_PAGESIZE);
	b->allowed = hwloc_bitmap_dup(b->t->allowed);
	if (b->t->online)
		hwloc_bitmap_and(b->allowed, b->allowed, b->t->online);

	/* the affinity mask: what taskset or rm-cpuset run gave this process */
	b->deflt = hwloc_bitmap_alloc();
	ncpus = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(b->t->topo)) + 1;
	if (ncpus < 1)
		ncpus = 1;
	mask = CPU_ALLOC(ncpus);
	size = CPU_ALLOC_SIZE(ncpus);
	if (mask && sched_getaffinity(0, size, mask) == 0) {
		for (int i = 0; i < ncpus; i++)
			if (CPU_ISSET_S(i, size, mask))
				hwloc_bitmap_set(b->deflt, i);
		hwloc_bitmap_and(b->deflt, b->deflt, b->allowed);
	}
	CPU_FREE(mask);
	if (hwloc_bitmap_iszero(b->deflt))
		hwloc_bitmap_copy(b->deflt, b->allowed);

	b->nodes = hwloc_bitmap_alloc();
	b->mem_nodes = hwloc_bitmap_alloc();
	if (rm_sysfs_read_set(NULL, "sys/devices/system/node/online", b->nodes) < 0)
		hwloc_bitmap_set(b->nodes, 0);
	if (rm_sysfs_read_set(NULL, "sys/devices/system/node/has_memory", b->mem_nodes) < 0)
		hwloc_bitmap_copy(b->mem_nodes, b->nodes);
	b->numa = numa_available() >= 0;
}

void bench_close(struct bench *b)
{
	hwloc_bitmap_free(b->allowed);
	hwloc_bitmap_free(b->deflt);
	hwloc_bitmap_free(b->nodes);
	hwloc_bitmap_free(b->mem_nodes);
	rm_topo_free(b->t);
}

void bench_cpus(const struct bench *b, const char *opt, const char *arg, hwloc_bitmap_t set)
{
	hwloc_bitmap_t bad;
	char *msg = NULL, *list, *allowed;

	if (rm_cpulist_parse(arg, set, &msg) < 0) {
		rm_warnx("%s: %s", opt, msg);
		free(msg);
		exit(RM_EXIT_USAGE);
	}
	if (hwloc_bitmap_iszero(set))
		rm_usage_errx("%s: no CPUs: '%s'", opt, arg);
	bad = hwloc_bitmap_dup(set);
	hwloc_bitmap_andnot(bad, bad, b->allowed);
	if (hwloc_bitmap_iszero(bad)) {
		hwloc_bitmap_free(bad);
		return;
	}
	list = rm_cpulist_format(bad);
	allowed = rm_cpulist_format(b->allowed);
	if (!hwloc_bitmap_intersects(bad, hwloc_topology_get_complete_cpuset(b->t->topo)))
		rm_warnx("no such CPU: '%s'", list);
	else
		rm_warnx("CPU not allowed here (allowed: %s): '%s'", allowed, list);
	hwloc_bitmap_free(bad);
	free(list);
	free(allowed);
	exit(RM_EXIT_USAGE);
}

int bench_node(const struct bench *b, const char *opt, const char *arg, bool need_memory)
{
	uint64_t n;

	if (rm_parse_uint(arg, 0, RM_CPULIST_MAX, &n))
		rm_usage_errx("%s: invalid NUMA node: '%s'", opt, arg);
	if (!hwloc_bitmap_isset(b->nodes, (unsigned)n))
		rm_usage_errx("no such NUMA node: '%s'", arg);
	if (need_memory && !hwloc_bitmap_isset(b->mem_nodes, (unsigned)n))
		rm_usage_errx("NUMA node has no memory: '%s'", arg);
	return (int)n;
}

void bench_node_cpus(const struct bench *b, int node, hwloc_bitmap_t set)
{
	hwloc_obj_t o = node >= 0 ? hwloc_get_numanode_obj_by_os_index(b->t->topo, (unsigned)node) :
				    NULL;

	hwloc_bitmap_zero(set);
	if (o)
		hwloc_bitmap_and(set, rm_topo_node_cpus(b->t, o), b->allowed);
}

bool bench_near_cpus(const struct bench *b, int node, hwloc_bitmap_t set)
{
	hwloc_obj_t o = node >= 0 ? hwloc_get_numanode_obj_by_os_index(b->t->topo, (unsigned)node) :
				    NULL, near;

	if (!o || !rm_topo_node_memory_only(b->t, o))
		return false;
	near = rm_topo_node_nearest(b->t, o);
	hwloc_bitmap_zero(set);
	if (near)
		hwloc_bitmap_and(set, rm_topo_node_cpus(b->t, near), b->allowed);
	if (hwloc_bitmap_iszero(set))
		rm_usage_errx("NUMA node has no CPUs, and its nearest node with CPUs has none allowed "
			      "here: '%d'", node);
	return true;
}

int bench_mem_node_arg(const struct bench *b, const char *arg, int node_mem)
{
	int node = bench_node(b, "--mem-node", arg, true);

	if (node_mem >= 0 && node != node_mem)
		rm_usage_errx("--node %d has no CPUs: its memory is the one measured, not --mem-node's: "
			      "'%s'", node_mem, arg);
	return node;
}

void bench_node_arg_cpus(const struct bench *b, const char *arg, hwloc_bitmap_t set,
			 int *mem_node)
{
	int node = bench_node(b, "--node", arg, false);

	*mem_node = -1;
	if (bench_near_cpus(b, node, set)) {
		if (!hwloc_bitmap_isset(b->mem_nodes, (unsigned)node))
			rm_usage_errx("NUMA node has no CPUs and no memory: '%s'", arg);
		*mem_node = node;
		return;
	}
	bench_node_cpus(b, node, set);
	if (hwloc_bitmap_iszero(set)) {
		hwloc_bitmap_free(set);
		rm_usage_errx("NUMA node has no CPUs allowed here: '%s'", arg);
	}
}

int bench_cpu_node(const struct bench *b, int cpu)
{
	hwloc_obj_t node = cpu >= 0 ? rm_topo_cpu_node(b->t, (unsigned)cpu) : NULL;

	return node ? (int)node->os_index : -1;
}

int bench_local_mem_node(const struct bench *b, int cpu)
{
	int node = bench_cpu_node(b, cpu);

	return node >= 0 && hwloc_bitmap_isset(b->mem_nodes, (unsigned)node) ? node : -1;
}

void bench_pick_cpus(const struct bench *b, hwloc_const_bitmap_t set, int n, int *cpus)
{
	hwloc_bitmap_t left = hwloc_bitmap_dup(set), picked = hwloc_bitmap_alloc();
	int got = 0;
	unsigned i;

	/* round after round, the first CPU left of each core */
	while (got < n && !hwloc_bitmap_iszero(left)) {
		hwloc_bitmap_t cores_used = hwloc_bitmap_alloc();

		hwloc_bitmap_foreach_begin(i, left) {
			hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(b->t->topo, i);
			hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(b->t->topo,
									      HWLOC_OBJ_CORE, pu) : NULL;

			if (got >= n)
				break;
			if (core && hwloc_bitmap_isset(cores_used, core->logical_index))
				continue;
			if (core)
				hwloc_bitmap_set(cores_used, core->logical_index);
			hwloc_bitmap_set(picked, i);
			got++;
		}
		hwloc_bitmap_foreach_end();
		hwloc_bitmap_andnot(left, left, picked);
		hwloc_bitmap_free(cores_used);
	}
	got = 0;
	hwloc_bitmap_foreach_begin(i, picked)
		cpus[got++] = (int)i;
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(left);
	hwloc_bitmap_free(picked);
}

uint64_t bench_llc_size(const struct bench *b, hwloc_const_bitmap_t set)
{
	uint64_t total = 0;
	int depth;

	/* the deepest cache level above the CPUs: L3 where there is one */
	for (hwloc_obj_type_t type = HWLOC_OBJ_L3CACHE; type >= HWLOC_OBJ_L1CACHE; type--) {
		hwloc_obj_t o = NULL;

		depth = hwloc_get_type_depth(b->t->topo, type);
		if (depth < 0)
			continue;
		while ((o = hwloc_get_next_obj_by_depth(b->t->topo, depth, o)))
			if (hwloc_bitmap_intersects(o->cpuset, set))
				total += o->attr->cache.size;
		if (total)
			break;
	}
	return total;
}

uint64_t mem_default_size(const struct bench *b, hwloc_const_bitmap_t cpus)
{
	uint64_t size = 4 * bench_llc_size(b, cpus), mib = 1 << 20;

	if (size < 16 * mib)
		size = 16 * mib;
	return (size + mib - 1) / mib * mib;
}

uint64_t bench_cache_size(const struct bench *b, int cpu, int level)
{
	static const hwloc_obj_type_t types[] = { HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
						  HWLOC_OBJ_L3CACHE };
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(b->t->topo, (unsigned)cpu), o;

	if (!pu || level < 1 || level > 3)
		return 0;
	o = hwloc_get_ancestor_obj_by_type(b->t->topo, types[level - 1], pu);
	return o ? o->attr->cache.size : 0;
}

uint64_t bench_node_free(const struct bench *b, int node)
{
	long long free_bytes = 0, total = 0;
	unsigned n;

	if (!b->numa)
		return 0;
	if (node >= 0) {
		if (numa_node_size64(node, &free_bytes) < 0)
			return 0;
		return (uint64_t)free_bytes;
	}
	hwloc_bitmap_foreach_begin(n, b->mem_nodes)
		if (numa_node_size64((int)n, &free_bytes) >= 0)
			total += free_bytes;
	hwloc_bitmap_foreach_end();
	return (uint64_t)total;
}

long bench_free_hugepages(uint64_t page, int node)
{
	char *path = node >= 0 ?
		xasprintf("sys/devices/system/node/node%d/hugepages/hugepages-%" PRIu64
			  "kB/free_hugepages", node, page / 1024) :
		xasprintf("sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/free_hugepages",
			  page / 1024);
	uint64_t v = 0;
	int rc = rm_sysfs_read_u64(NULL, path, &v);

	free(path);
	return rc < 0 ? 0 : (long)v;
}

bool bench_has_page(const struct bench *b, uint64_t page)
{
	char *path;
	bool have;

	if (page == b->page)
		return true;
	if (page % 1024)
		return false;
	path = xasprintf("sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB", page / 1024);
	have = rm_sysfs_exists(NULL, path);
	free(path);
	return have;
}

void bench_check_page(const struct bench *b, const char *opt, uint64_t page)
{
	char *name;

	if (bench_has_page(b, page))
		return;
	name = rm_size_format(page);
	rm_warnx("%s: no such page size on this machine: '%s'", opt, name);
	free(name);
	exit(RM_EXIT_USAGE);
}

/* ---- threads ---- */

int bench_pin(int cpu)
{
	cpu_set_t *mask = CPU_ALLOC(cpu + 1);
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	int rc;

	if (!mask)
		return ENOMEM;
	CPU_ZERO_S(size, mask);
	CPU_SET_S(cpu, size, mask);
	rc = pthread_setaffinity_np(pthread_self(), size, mask);
	CPU_FREE(mask);
	if (rc)
		return rc;
	/* the move takes effect at the next schedule: make sure it has happened */
	for (int i = 0; sched_getcpu() != cpu; i++) {
		if (i > 1000)
			return EAGAIN;
		sched_yield();
	}
	return 0;
}

void bench_thread(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	int rc = pthread_create(tid, NULL, fn, arg);

	if (rc) {
		errno = rc;
		rm_err(RM_EXIT_FAILURE, "cannot start a thread");
	}
}

void bench_fail(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rm_vmsg(fmt, ap, errnum);
	va_end(ap);
	exit(RM_EXIT_FAILURE);
}

void spin_barrier_init(struct spin_barrier *b, unsigned n)
{
	atomic_init(&b->count, 0);
	atomic_init(&b->phase, 0);
	b->n = n;
}

void spin_barrier_wait(struct spin_barrier *b)
{
	unsigned phase = atomic_load_explicit(&b->phase, memory_order_acquire);

	if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) + 1 == b->n) {
		atomic_store_explicit(&b->count, 0, memory_order_relaxed);
		atomic_store_explicit(&b->phase, phase + 1, memory_order_release);
		return;
	}
	while (atomic_load_explicit(&b->phase, memory_order_acquire) == phase)
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#else
		;
#endif
}

uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- memory ---- */

static int page_flag(size_t page)
{
	int shift = 0;

	while ((1ul << shift) < page)
		shift++;
	return MAP_HUGETLB | (shift << MAP_HUGE_SHIFT);
}

/* Map R: 0; 1 when huge pages are too few; -1 otherwise; *WHY says why. */
static int region_map(struct region *r, size_t size, size_t page, int node, char **why)
{
	size_t base = (size_t)sysconf(_SC_PAGESIZE);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	memset(r, 0, sizeof(*r));
	r->page = page;
	r->len = (size + page - 1) / page * page;
	if (page != base) {
		long need = (long)(r->len / page), have = bench_free_hugepages(page, node);

		if (have < need) {
			char *name = rm_size_format(page);

			if (node >= 0)
				*why = xasprintf("not enough %s huge pages free on node %d "
						 "(%ld needed, %ld free)", name, node, need, have);
			else
				*why = xasprintf("not enough %s huge pages free (%ld needed, %ld free)",
						 name, need, have);
			free(name);
			return 1;
		}
		flags |= page_flag(page);
	}
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (r->base == MAP_FAILED) {
		char *name = rm_size_format(page);

		r->base = NULL;
		*why = xasprintf("cannot map %s pages: %s", name, strerror(errno));
		free(name);
		return -1;
	}
	/* normal pages mean normal pages: no transparent huge pages behind the measurement */
	if (page == base)
		madvise(r->base, r->len, MADV_NOHUGEPAGE);
	if (node >= 0 && numa_available() >= 0) {
		unsigned long mask[(RM_CPULIST_MAX + 1) / (8 * sizeof(unsigned long))] = { 0 };

		mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
		if (mbind(r->base, r->len, MPOL_BIND, mask, (unsigned long)node + 2, 0) < 0) {
			*why = xasprintf("cannot bind memory to node %d: %s", node, strerror(errno));
			region_unmap(r);
			return -1;
		}
	}
	return 0;
}

/* A huge page that cannot be had when touched raises SIGBUS: catch it in the touching thread. */
static __thread sigjmp_buf *touch_jmp;

static void on_sigbus(int sig)
{
	if (touch_jmp)
		siglongjmp(*touch_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Touch every page of R: 0, or 1 with *WHY when huge pages ran out. */
static int region_touch(struct region *r, char **why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool installed;
	sigjmp_buf jmp;
	volatile char *p = r->base;

	if (r->page != (size_t)sysconf(_SC_PAGESIZE)) {
		pthread_mutex_lock(&lock);
		if (!installed) {
			struct sigaction sa = { .sa_handler = on_sigbus };

			sigemptyset(&sa.sa_mask);
			sa.sa_flags = SA_NODEFER;
			sigaction(SIGBUS, &sa, NULL);
			installed = true;
		}
		pthread_mutex_unlock(&lock);
		if (sigsetjmp(jmp, 1)) {
			char *name = rm_size_format(r->page);

			touch_jmp = NULL;
			*why = xasprintf("%s huge pages ran out while the memory was touched", name);
			free(name);
			return 1;
		}
		touch_jmp = &jmp;
	}
	for (size_t off = 0; off < r->len; off += r->page)
		p[off] = 0;
	touch_jmp = NULL;
	return 0;
}

int region_get(struct region *r, size_t size, size_t page, int node, char **why)
{
	int rc = region_map(r, size, page, node, why);

	if (rc == 0)
		rc = region_touch(r, why);
	if (rc)
		region_unmap(r);
	return rc;
}

void region_unmap(struct region *r)
{
	if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
}

void region_nodes(const struct region *r, hwloc_bitmap_t nodes)
{
	size_t npages = r->len / r->page, step = npages > 64 ? npages / 64 : 1;

	if (numa_available() < 0) {
		hwloc_bitmap_set(nodes, 0);
		return;
	}
	for (size_t i = 0; i < npages; i += step) {
		int node = -1;

		if (get_mempolicy(&node, NULL, 0, (char *)r->base + i * r->page,
				  MPOL_F_NODE | MPOL_F_ADDR) == 0 && node >= 0)
			hwloc_bitmap_set(nodes, (unsigned)node);
	}
}

/* ---- commands and records ---- */

bool bench_parse(const struct argp *argp, int argc, char **argv, struct rm_common *c,
		 void *input, const struct rm_column *cols, size_t ncols)
{
	return bench_parse_defaults(argp, argc, argv, c, input, cols, ncols, NULL);
}

bool bench_parse_defaults(const struct argp *argp, int argc, char **argv, struct rm_common *c,
			  void *input, const struct rm_column *cols, size_t ncols,
			  const char *defaults)
{
	rm_parse_command(argp, argc, argv, c, input, RM_PARSE_NO_INPUT);
	if (!c->out.list_columns) {
		/* a bad -o is refused before minutes of measuring, not after */
		rm_out_check(&c->out, cols, ncols, defaults);
		return false;
	}
	rm_out_list_columns(&c->out, cols, ncols, defaults);
	return true;
}

struct rm_out *bench_listing(const struct rm_outopts *opts, const char *name,
			     const struct rm_column *cols, size_t ncols)
{
	struct rm_outopts o = *opts;

	o.columns = NULL;
	return rm_out_new(&o, name, cols, ncols, NULL, false);
}

void out_figures(struct rm_out *out, int col, const struct summary *s, int decimals,
		 const char *unit, int runs)
{
	if (s) {
		rm_out_float(out, col + FIG_BEST, s->best, decimals);
		rm_out_float(out, col + FIG_MEDIAN, s->median, decimals);
		rm_out_float(out, col + FIG_MIN, s->min, decimals);
		rm_out_float(out, col + FIG_MAX, s->max, decimals);
		rm_out_float(out, col + FIG_SPREAD, s->spread, 1);
	}
	rm_out_str(out, col + FIG_UNIT, unit);
	rm_out_int(out, col + FIG_RUNS, runs);
}
