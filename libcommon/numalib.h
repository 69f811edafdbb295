/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libnuma, loaded on first use: the functions rm-cpuset's run and attach call. */
#ifndef RM_NUMALIB_H
#define RM_NUMALIB_H

#include <numa.h>
#include <numaif.h>

#define RM_NUMA_FUNCTIONS(X) \
	X(numa_available) \
	X(numa_allocate_nodemask) \
	X(numa_bitmask_free) \
	X(numa_bitmask_setbit) \
	X(numa_bitmask_clearbit) \
	X(numa_bitmask_setall) \
	X(numa_migrate_pages) \
	X(numa_set_membind) \
	X(set_mempolicy)

struct rm_numa {
#define X(f) __typeof__(f) *f;
	RM_NUMA_FUNCTIONS(X)
#undef X
};

/* libnuma's functions, loaded at the first call; exits 1 naming what is missing. */
const struct rm_numa *rm_numa(void);

#endif
