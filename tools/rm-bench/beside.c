/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What runs beside a measurement: the noisy neighbour and resctrl's counters, sampled when the
 * timed runs begin and end, and written into the measurement's record. */
#include "config.h"

#include <string.h>

#include "rm-bench.h"

void beside_start(const struct bench *b, struct beside *x, struct bench_mon *mon,
		  hwloc_const_bitmap_t neighbour, int mem_node)
{
	memset(x, 0, sizeof(*x));
	if (neighbour) {
		neighbour_start(b, &x->nb, neighbour, mem_node);
		x->running = true;
	}
	/* after the neighbour started: its threads are not counted with the measurement's */
	if (bench_mon_begin(mon))
		x->mon = mon;
}

void beside_sample(struct beside *x, int i)
{
	bench_mon_sample(x->mon, &x->at[i]);
	if (x->running)
		x->nb_bytes[i] = neighbour_bytes(&x->nb);
}

void beside_stop(struct beside *x)
{
	bench_mon_end(x->mon);
	if (x->running)
		neighbour_stop(&x->nb);
}

void beside_fields(struct rm_out *out, const struct beside *x, int rate_col, int occupancy_col,
		   int total_col, int local_col)
{
	const struct mon_sample *a = &x->at[0], *z = &x->at[1];
	double rate;

	if (x->running && z->at > a->at)
		rm_out_float(out, rate_col,
			     (double)(x->nb_bytes[1] - x->nb_bytes[0]) / (double)(z->at - a->at), 2);
	if (z->have[MON_OCCUPANCY])
		rm_out_size(out, occupancy_col, z->value[MON_OCCUPANCY]);
	if (total_col >= 0 && (rate = mon_rate(a, z, MON_TOTAL)) >= 0)
		rm_out_float(out, total_col, rate, 2);
	if (local_col >= 0 && (rate = mon_rate(a, z, MON_LOCAL)) >= 0)
		rm_out_float(out, local_col, rate, 2);
}
