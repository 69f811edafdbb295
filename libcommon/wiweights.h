/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Weighted-interleave weights (Linux 6.9+) from measured bandwidth. */
#ifndef RM_WIWEIGHTS_H
#define RM_WIWEIGHTS_H

#include <stddef.h>

/* The kernel's weights, one file per node, below a sysfs root. */
#define RM_WI_DIR "sys/kernel/mm/mempolicy/weighted_interleave"
/* The largest weight the kernel takes (a u8, 0 refused) and the one the best node gets. */
#define RM_WI_MAX 255
#define RM_WI_RESOLUTION 16

/*
 * Weights for N nodes whose bandwidths are BW[] (any unit, each > 0): proportional to bandwidth,
 * the largest scaled to RESOLUTION (1-255), each rounded and at least 1, then divided by their
 * greatest common divisor, so that the interleave's round is as short as the ratios allow.
 * 0, or -1 (W unchanged) when N is 0, RESOLUTION is out of range or a bandwidth is not > 0.
 */
int rm_wi_weights(const double *bw, size_t n, unsigned resolution, unsigned *w);

#endif
