/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Weighted-interleave weights (Linux 6.9+) from measured bandwidth. */
#include "config.h"

#include <math.h>

#include "wiweights.h"

static unsigned gcd(unsigned a, unsigned b)
{
	while (b) {
		unsigned t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int rm_wi_weights(const double *bw, size_t n, unsigned resolution, unsigned *w)
{
	double max = 0;
	unsigned g = 0;

	if (!n || resolution < 1 || resolution > RM_WI_MAX)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(bw[i] > 0) || !isfinite(bw[i]))
			return -1;
		max = fmax(max, bw[i]);
	}
	for (size_t i = 0; i < n; i++) {
		double x = round(bw[i] / max * resolution);

		w[i] = x < 1 ? 1 : (unsigned)x;
		g = gcd(w[i], g);
	}
	for (size_t i = 0; i < n; i++)
		w[i] /= g;
	return 0;
}
