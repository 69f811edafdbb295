/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A noisy neighbour: threads that copy memory as fast as they can on other CPUs while a
 * measurement runs, so that what a cache or bandwidth allocation protects can be seen. */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exitcodes.h"
#include "kernels.h"
#include "rm-bench.h"
#include "xalloc.h"

/* Bytes copied between two updates of the count: small enough that the count follows closely. */
#define CHUNK (256u << 10)

struct hog {
	struct neighbour *nb;
	int cpu, node;
	size_t bytes;             /* of each of its two arrays */
	pthread_t tid;
	char *why;
	int err;
};

static void *hog_main(void *arg)
{
	struct hog *h = arg;
	struct neighbour *nb = h->nb;
	mem_kernel copy = mem_kernels_get()->k[1][OP_COPY];
	size_t chunk = CHUNK / sizeof(double);
	struct region r = { 0 };
	double *a, *c;

	if ((h->err = bench_pin(h->cpu)))
		h->why = xasprintf("cannot pin a neighbour thread to CPU %d", h->cpu);
	else
		region_get(&r, 2 * h->bytes, (size_t)sysconf(_SC_PAGESIZE), h->node, &h->why);
	if (h->why) {
		atomic_store(&nb->failed, 1);
		atomic_fetch_add(&nb->ready, 1);
		return NULL;
	}
	a = r.base;
	c = (double *)((char *)r.base + h->bytes);
	for (size_t j = 0; j < h->bytes / sizeof(double); j++)
		a[j] = 1.0;
	atomic_fetch_add(&nb->ready, 1);
	while (!atomic_load_explicit(&nb->stop, memory_order_relaxed))
		for (size_t j = 0; j + chunk <= h->bytes / sizeof(double); j += chunk) {
			copy(a + j, NULL, c + j, chunk, 0);
			/* STREAM's count for copy: one array read, one written */
			atomic_fetch_add_explicit(&nb->bytes, 2 * CHUNK, memory_order_relaxed);
			/* a lighter load (loaded latency): the core stays busy, as MLC's
			 * injection delay keeps it, but sends no traffic for a while */
			uint64_t d = atomic_load_explicit(&nb->delay, memory_order_relaxed);

			for (uint64_t until = d ? bench_now() + d : 0; bench_now() < until &&
			     !atomic_load_explicit(&nb->stop, memory_order_relaxed);)
				;
		}
	region_unmap(&r);
	return NULL;
}

/* The neighbour's CPUs: SET, or without one the allowed CPUs whose cores hold none of CPUS (a
 * sibling thread would share the core's own caches, which no allocation divides). */
hwloc_bitmap_t neighbour_cpus(const struct bench *b, const char *arg,
				     hwloc_const_bitmap_t cpus)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	if (*arg) {
		bench_cpus(b, "--neighbour", arg, set);
		if (hwloc_bitmap_intersects(set, cpus)) {
			hwloc_bitmap_free(set);
			rm_usage_errx("--neighbour shares CPUs with the measurement: '%s'", arg);
		}
		return set;
	}
	hwloc_bitmap_copy(set, b->allowed);
	for (hwloc_obj_t core = NULL;
	     (core = hwloc_get_next_obj_by_type(b->t->topo, HWLOC_OBJ_CORE, core));)
		if (hwloc_bitmap_intersects(core->cpuset, cpus))
			hwloc_bitmap_andnot(set, set, core->cpuset);
	hwloc_bitmap_andnot(set, set, cpus);
	if (hwloc_bitmap_iszero(set)) {
		hwloc_bitmap_free(set);
		rm_usage_errx("--neighbour: no allowed CPU is left outside the measured cores; "
			      "measure fewer (--cpus) or name the neighbour's (--neighbour=SET)");
	}
	return set;
}

void neighbour_start(const struct bench *b, struct neighbour *nb, hwloc_const_bitmap_t cpus,
		     int mem_node)
{
	uint64_t size = mem_default_size(b, cpus);
	struct timespec pause = { 0, 1000000 };
	unsigned cpu;
	int i = 0;

	memset(nb, 0, sizeof(*nb));
	nb->n = hwloc_bitmap_weight(cpus);
	nb->hogs = xcalloc((size_t)nb->n, sizeof(*nb->hogs));
	atomic_init(&nb->stop, false);
	atomic_init(&nb->ready, 0);
	atomic_init(&nb->failed, 0);
	atomic_init(&nb->bytes, 0);
	atomic_init(&nb->delay, 0);
	hwloc_bitmap_foreach_begin(cpu, cpus) {
		struct hog *h = &nb->hogs[i++];

		h->nb = nb;
		h->cpu = (int)cpu;
		h->node = mem_node >= 0 ? mem_node : bench_local_mem_node(b, h->cpu);
		/* the arrays of a measurement of these CPUs, shared among them, whole chunks */
		h->bytes = (size_t)(size / (uint64_t)nb->n) / CHUNK * CHUNK;
		if (h->bytes < CHUNK)
			h->bytes = CHUNK;
	}
	hwloc_bitmap_foreach_end();
	for (i = 0; i < nb->n; i++)
		bench_thread(&nb->hogs[i].tid, hog_main, &nb->hogs[i]);
	/* every hog has its memory in place and copies before the measurement begins */
	while (atomic_load(&nb->ready) < nb->n)
		nanosleep(&pause, NULL);
	if (atomic_load(&nb->failed))
		for (i = 0; i < nb->n; i++)
			if (nb->hogs[i].why)
				bench_fail(nb->hogs[i].err, "%s", nb->hogs[i].why);
}

uint64_t neighbour_bytes(struct neighbour *nb)
{
	return atomic_load(&nb->bytes);
}

void neighbour_stop(struct neighbour *nb)
{
	atomic_store(&nb->stop, true);
	for (int i = 0; i < nb->n; i++) {
		pthread_join(nb->hogs[i].tid, NULL);
		free(nb->hogs[i].why);
	}
	free(nb->hogs);
	nb->hogs = NULL;
	nb->n = 0;
}
