/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libnuma is opened with dlopen at the first call rather than linked: linked, its constructor
 * reads /proc/self/status, the NUMA nodes' directory and memory, the possible CPUs and the
 * memory policy at the start of every run, about a dozen system calls that only the commands
 * binding memory or moving pages need. Its soname has been libnuma.so.1 since libnuma 2.0.
 */
#include "config.h"

#include "dynlib.h"
#include "numalib.h"

const struct rm_numa *rm_numa(void)
{
	static struct rm_numa fns;

	RM_DL_LOAD(fns, "libnuma.so.1", RM_NUMA_FUNCTIONS);
	return &fns;
}
