/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset noise --measure (noise-trace.c): the time taken from an owner's CPUs. */
#ifndef RM_CPUSET_NOISE_H
#define RM_CPUSET_NOISE_H

#include <stdint.h>

#include <hwloc.h>

#include "options.h"

struct pool;

struct noise_limits {
	uint64_t window;      /* ns measured */
	uint64_t threshold;   /* ns: shorter gaps are not noise */
	long long max_noise;  /* ns per second a CPU may lose, -1 for no limit */
	long long max_single; /* ns one interruption may take, -1 for no limit */
};

/* Check -o for the measure listing (exits 2), or list its columns. */
void noise_measure_check(const struct rm_common *c);
void noise_measure_list_columns(const struct rm_common *c);

/* Measure the noise on CPUS, OWNER's, and print it: 0, or 1 when a limit of LIM is passed or the
 * measurement failed (said on stderr). */
int noise_measure(struct pool *p, struct rm_common *c, const char *owner,
		  hwloc_const_bitmap_t cpus, const struct noise_limits *lim);

#endif
