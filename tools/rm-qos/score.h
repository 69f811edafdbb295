/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos blame's score: how one neighbour's use over a window tracks an owner's stall. */
#ifndef RM_QOS_SCORE_H
#define RM_QOS_SCORE_H

#include <stdbool.h>
#include <stddef.h>

/* The parts of one neighbour's score over N time-aligned steps. */
struct blame_score {
	double score;          /* share * tracking, 0-1 */
	double share;          /* its share of all neighbours' use, each step weighted by the stall */
	double tracking;       /* r squared when r is above 0; 1 for a steady stall, else 0 */
	bool fit;              /* use and stall both vary: correlation and slope are known */
	double correlation;    /* Pearson's r of its use and the stall, -1 to 1 */
	double slope;          /* least-squares stall per unit of its use */
	double use;            /* its mean use */
};

/*
 * Score a neighbour from STALL[i] (the owner's stall over step i), USE[i] (the neighbour's use of
 * the shared resource then) and ALL[i] (every neighbour's use of it then), i < N. A neighbour is
 * blamed as far as its use rises and falls with the stall (r squared, 0 when r is below 0) times
 * its share of the use while the owner stalled; a steady bystander, whose use does not follow the
 * stall, scores near 0 whatever its share. When the stall does not vary the timing tells nothing
 * and the share alone is the score; when it never stalled nobody is blamed.
 */
void blame_score(const double *stall, const double *use, const double *all, size_t n,
		 struct blame_score *out);

#endif
