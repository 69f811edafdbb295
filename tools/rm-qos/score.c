/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos blame's score: the correlation and regression of a neighbour's use against an owner's
 * stall, and its share of the use while the owner stalled. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "score.h"

/* A series whose variance is below this (a standard deviation of about 3e-5 percent, CPUs or
 * MiB) is steady: what is left is the arithmetic's rounding, not a change in use or stall. */
#define STEADY 1e-9

void blame_score(const double *stall, const double *use, const double *all, size_t n,
		 struct blame_score *out)
{
	double su = 0, ss = 0, suu = 0, sss = 0, sus = 0, wsum = 0, share = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		su += use[i];
		ss += stall[i];
		suu += use[i] * use[i];
		sss += stall[i] * stall[i];
		sus += use[i] * stall[i];
		share += all[i] > 0 ? stall[i] * use[i] / all[i] : 0;
		wsum += stall[i];
	}
	out->use = su / n;
	if (wsum <= 0)
		return; /* no stall, nobody to blame */
	out->share = share / wsum;
	{
		double vu = (suu - su * su / n) / n, vs = (sss - ss * ss / n) / n;
		double cov = (sus - su * ss / n) / n;

		if (vu > STEADY && vs > STEADY) {
			out->fit = true;
			out->correlation = fmax(-1, fmin(1, cov / sqrt(vu * vs)));
			out->slope = cov / vu;
			double r = out->correlation;

			/* r squared: the part of the stall's variance its use explains */
			out->tracking = r > 0 ? r * r : 0;
		} else {
			out->tracking = vs > STEADY ? 0 : 1;
		}
	}
	out->score = out->share * out->tracking;
}
