/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STREAM's kernels: copy, scale, add, triad; normal or streaming stores. */
#ifndef RM_BENCH_KERNELS_H
#define RM_BENCH_KERNELS_H

#include <stddef.h>

/* c = a (copy); b = s * c (scale); c = a + b (add); a = b + s * c (triad). A, B and C are
 * aligned to 64 bytes; N is a multiple of 64. */
typedef void (*mem_kernel)(double *restrict a, double *restrict b, double *restrict c, size_t n,
			   double s);

struct mem_kernels {
	const char *isa;
	mem_kernel k[2][4]; /* [streaming stores][enum mem_op] */
};

/* The widest vectors this CPU has. */
const struct mem_kernels *mem_kernels_get(void);
/* Plain C loops. */
const struct mem_kernels *mem_kernels_generic(void);

#endif
