/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Figures over repeated runs: best, median, range and the runs' own spread. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rm-bench.h"
#include "xalloc.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stat_quantile(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (n == 0)
		return 0;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	return i + 1 < n ? sorted[i] + frac * (sorted[i + 1] - sorted[i]) : sorted[i];
}

double stat_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return stat_quantile(v, n, 0.5);
}

void summarize(const double *v, size_t n, bool higher_better, struct summary *s)
{
	double *sorted = xmalloc(n * sizeof(*sorted));

	memcpy(sorted, v, n * sizeof(*sorted));
	s->median = stat_median(sorted, n);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->best = higher_better ? s->max : s->min;
	s->spread = s->median > 0 ? (s->max - s->min) / s->median * 100 : 0;
	free(sorted);
}

/* The doubled mid-ranks of X (NX values) then Y (NY values) pooled, into R (NX + NY). */
static void midranks2(const double *x, size_t nx, const double *y, size_t ny, long *r)
{
	size_t n = nx + ny, *idx = xmalloc(n * sizeof(*idx));
	double *v = xmalloc(n * sizeof(*v));

	memcpy(v, x, nx * sizeof(*v));
	memcpy(v + nx, y, ny * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	/* insertion sort of the indices: n is bounded by the callers (result files) */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && v[idx[k - 1]] > v[idx[k]]; k--) {
			size_t t = idx[k];

			idx[k] = idx[k - 1];
			idx[k - 1] = t;
		}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[idx[j + 1]] == v[idx[i]])
			j++;
		for (size_t k = i; k <= j; k++)
			r[idx[k]] = (long)(i + j + 2); /* (i+1 + j+1) / 2, doubled */
		i = j + 1;
	}
	free(idx);
	free(v);
}

double stat_mann_whitney_less(const double *x, size_t nx, const double *y, size_t ny)
{
	size_t n = nx + ny;
	long *r, w = 0;
	double p;

	if (!nx || !ny)
		return 1;
	r = xmalloc(n * sizeof(*r));
	midranks2(x, nx, y, ny, r);
	for (size_t i = 0; i < nx; i++)
		w += r[i];
	if (n <= STAT_EXACT_MAX) {
		/* The exact permutation distribution of X's rank sum given these (tied) ranks:
		 * ways[k][s], the subsets of k ranks whose doubled sum is s. */
		long smax = (long)(n * (n + 1));
		double *ways = xcalloc((nx + 1) * (size_t)(smax + 1), sizeof(*ways)), le = 0, all = 0;

		ways[0] = 1;
		for (size_t i = 0; i < n; i++)
			for (size_t k = (i + 1 < nx ? i + 1 : nx); k > 0; k--)
				for (long s = smax; s >= r[i]; s--)
					ways[k * (smax + 1) + s] += ways[(k - 1) * (smax + 1) + s - r[i]];
		for (long s = 0; s <= smax; s++) {
			all += ways[nx * (smax + 1) + s];
			if (s <= w)
				le += ways[nx * (smax + 1) + s];
		}
		free(ways);
		p = le / all;
	} else {
		/* the normal approximation with the tie correction and a continuity correction */
		double mean = nx * (n + 1.0), ties = 0, var, z; /* doubled, as w */

		/* sum over the tie groups of t^3 - t: t^2 - 1 for each of a group's t members */
		for (size_t i = 0; i < n; i++) {
			double t = 0;

			for (size_t k = 0; k < n; k++)
				t += r[k] == r[i];
			ties += t * t - 1;
		}
		var = 4.0 * nx * ny / 12.0 * ((n + 1.0) - ties / ((double)n * (n - 1)));
		z = var > 0 ? (w - mean + 1) / sqrt(var) : 0;
		p = 0.5 * erfc(-z / M_SQRT2);
	}
	free(r);
	return p > 1 ? 1 : p;
}
