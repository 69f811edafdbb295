/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Figures over repeated runs: best, median, range and the runs' own spread. */
#include "config.h"

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
