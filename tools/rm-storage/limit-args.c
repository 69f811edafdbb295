/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An owner's I/O limits on a disk: limit's options, checked for the command line and
 * storage.conf(5) alike, and the state's limit= records. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolimit.h"
#include "owner.h"
#include "record.h"
#include "rm-storage.h"
#include "xalloc.h"

/* The limits, in the order of struct rm_io_limit's fields and of limit's options. */
enum { K_RBPS, K_WBPS, K_RIOPS, K_WIOPS, K_WEIGHT, K_LATENCY };

/* The state's field names of the limit fields, in the order of struct rm_io_limit. */
static const char *const keys[] = { "read_bps", "write_bps", "read_iops", "write_iops",
				    "weight", "latency_target" };

uint64_t *st_limit_field(struct rm_io_limit *l, size_t i, uint64_t *w)
{
	switch (i) {
	case K_RBPS: return &l->rbps;
	case K_WBPS: return &l->wbps;
	case K_RIOPS: return &l->riops;
	case K_WIOPS: return &l->wiops;
	case K_LATENCY: return &l->latency;
	default: return w;
	}
}

void st_rec_limit(const struct rm_record *r, struct rm_io_limit *l)
{
	uint64_t w = 0;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = rm_record_get(r, keys[i]);

		*st_limit_field(l, i, &w) = v && strcmp(v, "-") ? strtoull(v, NULL, 10) : 0;
	}
	l->weight = (unsigned)w;
}

void st_rec_set_limit(struct rm_record *r, const struct rm_io_limit *l)
{
	uint64_t w = l->weight;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		uint64_t v = *st_limit_field((struct rm_io_limit *)l, i, &w);
		char buf[24];

		snprintf(buf, sizeof(buf), "%" PRIu64, v);
		rm_record_set(r, keys[i], v ? buf : "-");
	}
}

bool st_limit_none(const struct rm_io_limit *l)
{
	return !l->rbps && !l->wbps && !l->riops && !l->wiops && !l->weight && !l->latency;
}

bool st_limit_same(const struct rm_io_limit *a, const struct rm_io_limit *b)
{
	return a->rbps == b->rbps && a->wbps == b->wbps && a->riops == b->riops &&
	       a->wiops == b->wiops && a->weight == b->weight && a->latency == b->latency;
}

/* Index of the limit= record of OWNER on DISK, or -1. */
const struct argp_option st_limit_options[] = {
	{ "read-bps", ST_OPT_RBPS, "N", 0, "bytes read per second at most (2M, 500K...; max: none)", 0 },
	{ "write-bps", ST_OPT_WBPS, "N", 0, "bytes written per second at most", 0 },
	{ "read-iops", ST_OPT_RIOPS, "N", 0, "reads per second at most", 0 },
	{ "write-iops", ST_OPT_WIOPS, "N", 0, "writes per second at most", 0 },
	{ "weight", ST_OPT_WEIGHT, "N", 0,
	  "proportional weight (io.weight 1-10000; needs blk-iocost or BFQ; max: default)", 0 },
	{ "latency-target", ST_OPT_LATENCY, "USEC", 0,
	  "io.latency target in microseconds (cgroup v2; max: none)", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print the limits it would set, change nothing", 0 },
	{ 0 }
};

const char *st_limit_option(size_t k)
{
	return st_limit_options[k].name;
}

int st_limit_parse(const struct st_limit_args *a, struct rm_io_limit *l, int *at, char **errmsg)
{
	uint64_t w = 0;

	memset(l, 0, sizeof(*l));
	*at = ST_AT_OWNER;
	if (!rm_owner_name_valid(a->owner)) {
		*errmsg = xasprintf("invalid owner name: '%s'%s", a->owner, rm_name_valid(a->owner)
				    ? " names rm-cpuset's shared pool" : "");
		return -1;
	}
	for (size_t k = 0; k < ST_NLIMITS; k++) {
		char opt[32];
		uint64_t v;

		if (!a->val[k])
			continue;
		*at = (int)k;
		snprintf(opt, sizeof(opt), "--%s", st_limit_options[k].name);
		if (st_parse_rate(opt, a->val[k], k == K_RBPS || k == K_WBPS, &v, errmsg) < 0)
			return -1;
		if (k == K_WEIGHT && v > UINT32_MAX) {
			*errmsg = xasprintf("%s out of range: '%s'", opt, a->val[k]);
			return -1;
		}
		*st_limit_field(l, k, &w) = v;
	}
	l->weight = (unsigned)w;
	return 0;
}

int st_limit_check(const struct rm_io *io, const char *owner, const struct rm_io_limit *l,
		   int *at, char **errmsg)
{
	/* the weight and the latency target are the limits a hierarchy may lack a file for */
	const struct rm_io_limit weight = { .weight = l->weight }, latency = { .latency = l->latency };

	*at = ST_AT_OWNER;
	if (rm_io_check(io, owner, errmsg) < 0)
		return -1;
	*at = K_WEIGHT;
	if (l->weight && (*errmsg = rm_io_refused(io, &weight)))
		return -1;
	*at = K_LATENCY;
	if (l->latency && (*errmsg = rm_io_refused(io, &latency)))
		return -1;
	return 0;
}
