/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo resctrl: what cache and memory bandwidth allocation and monitoring the machine offers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exitcodes.h"
#include "input.h"
#include "output.h"
#include "resctrl.h"
#include "rm-topo.h"
#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { RC_RESCTRL, RC_MOUNTED, RC_SUPPORTED, RC_CDP, RC_CLOSIDS };
static const struct rm_column resctrl_cols[] = {
	[RC_RESCTRL] = { "resctrl", RM_COL_STRING, "where resctrl is (or would be) mounted" },
	[RC_MOUNTED] = { "mounted", RM_COL_BOOL, "resctrl is mounted there" },
	[RC_SUPPORTED] = { "supported", RM_COL_BOOL, "the kernel has resctrl (/proc/filesystems)" },
	[RC_CDP] = { "cdp", RM_COL_BOOL, "mounted with code and data prioritisation" },
	[RC_CLOSIDS] = { "closids", RM_COL_INT, "groups the hardware can have, default included" },
};

enum { RES_RESOURCE, RES_DOMAINS, RES_WAYS, RES_CBM_MASK, RES_MIN_CBM_BITS, RES_SHAREABLE,
       RES_CLOSIDS, RES_CDP, RES_SPARSE, RES_GRANULARITY, RES_MIN_BANDWIDTH, RES_UNIT,
       RES_DELAY_LINEAR, RES_EVENTS, RES_RMIDS };
static const struct rm_column res_cols[] = {
	[RES_RESOURCE] = { "resource", RM_COL_STRING, "L3, L3CODE, L3DATA, L2, MB, L3_MON, ..." },
	[RES_DOMAINS] = { "domains", RM_COL_SET, "its domains (cache ids)" },
	[RES_WAYS] = { "ways", RM_COL_INT, "cache ways a mask can hold (bits in cbm_mask)" },
	[RES_CBM_MASK] = { "cbm_mask", RM_COL_STRING, "the mask of every way, in hex" },
	[RES_MIN_CBM_BITS] = { "min_cbm_bits", RM_COL_INT, "the fewest ways a mask may have" },
	[RES_SHAREABLE] = { "shareable_bits", RM_COL_STRING,
			    "ways other agents (I/O, GPUs) use too, in hex" },
	[RES_CLOSIDS] = { "closids", RM_COL_INT, "control groups it can tell apart" },
	[RES_CDP] = { "cdp", RM_COL_BOOL, "one of the code/data pair of CDP" },
	[RES_SPARSE] = { "sparse", RM_COL_BOOL, "masks may have gaps (AMD)" },
	[RES_GRANULARITY] = { "granularity", RM_COL_INT, "memory bandwidth steps (bandwidth_gran)" },
	[RES_MIN_BANDWIDTH] = { "min_bandwidth", RM_COL_INT, "the least memory bandwidth value" },
	[RES_UNIT] = { "unit", RM_COL_STRING, "memory bandwidth values: percent, MBps or GBps/8" },
	[RES_DELAY_LINEAR] = { "delay_linear", RM_COL_BOOL, "the throttling is linear" },
	[RES_EVENTS] = { "events", RM_COL_STRING, "monitoring events (mon_features)" },
	[RES_RMIDS] = { "rmids", RM_COL_INT, "monitoring ids (num_rmids)" },
};

static error_t no_operands(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_ARG)
		argp_error(state, "unexpected argument: '%s'", arg);
	return ARGP_ERR_UNKNOWN;
}

static void out_num(struct rm_out *out, int col, long long v)
{
	if (v >= 0)
		rm_out_int(out, col, v);
	else
		rm_out_str(out, col, NULL);
}

static void resource_record(const struct rm_resctrl *rc, struct rm_out *out,
			    const struct rm_resctrl_res *r)
{
	hwloc_bitmap_t doms = hwloc_bitmap_alloc();
	char *s;

	for (size_t i = 0; i < r->ndomains; i++)
		hwloc_bitmap_set(doms, r->domains[i]);
	rm_out_begin(out);
	rm_out_str(out, RES_RESOURCE, r->name);
	rm_out_set(out, RES_DOMAINS, doms);
	if (r->cache) {
		rm_out_int(out, RES_WAYS, r->cbm_len);
		s = xasprintf("%llx", (unsigned long long)r->cbm_mask);
		rm_out_str(out, RES_CBM_MASK, s);
		free(s);
		out_num(out, RES_MIN_CBM_BITS, r->min_cbm_bits);
		s = xasprintf("%llx", (unsigned long long)r->shareable_bits);
		rm_out_str(out, RES_SHAREABLE, s);
		free(s);
		rm_out_bool(out, RES_CDP, strstr(r->name, "CODE") || strstr(r->name, "DATA"));
		if (r->sparse >= 0)
			rm_out_bool(out, RES_SPARSE, r->sparse);
	}
	out_num(out, RES_CLOSIDS, r->num_closids);
	if (r->bw) {
		out_num(out, RES_GRANULARITY, r->bw_gran);
		out_num(out, RES_MIN_BANDWIDTH, r->min_bw);
		rm_out_str(out, RES_UNIT, rm_resctrl_unit_name(r->unit));
		if (r->delay_linear >= 0)
			rm_out_bool(out, RES_DELAY_LINEAR, r->delay_linear > 0);
	}
	if (r->mon) {
		rm_out_str(out, RES_EVENTS, r->mon_features);
		out_num(out, RES_RMIDS, r->num_rmids);
	}
	rm_out_end(out);
	hwloc_bitmap_free(doms);
	(void)rc;
}

int cmd_resctrl(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, no_operands, NULL,
		"What cache and memory bandwidth allocation the machine offers (Intel RDT, AMD "
		"PQoS): one resctrl record (mounted or not), then one record per resource of "
		"resctrl's info/ directory. -o applies to the resource records.",
		NULL, NULL, NULL
	};
	struct rm_outopts opts;
	const struct rm_input *in;
	const char *sysroot;
	struct rm_resctrl rc;
	struct rm_out *out;
	char *root = NULL, *msg = NULL;
	bool known;
	struct stat st;

	rm_parse_command(&argp, argc, argv, c, NULL, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, res_cols, ARRAY_SIZE(res_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	in = rm_input_resolve(c);
	sysroot = rm_input_root(in);
	if (sysroot && (stat(sysroot, &st) < 0 || !S_ISDIR(st.st_mode)))
		rm_usage_errx("invalid --sysroot: not a directory: '%s'", sysroot);
	/* a described machine (--topology) has no resctrl to read, unless a test tree names one */
	known = in->resctrl_tree || !rm_input_described(in);
	memset(&rc, 0, sizeof(rc));
	if (known) {
		root = rm_resctrl_root(sysroot);
		if (rm_resctrl_open(&rc, root, &msg) < 0) {
			rm_resctrl_close(&rc);
			free(root);
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
		}
	}

	opts = c->out;
	opts.columns = NULL;
	out = rm_out_new(&opts, "resctrl", resctrl_cols, ARRAY_SIZE(resctrl_cols), NULL, false);
	rm_out_begin(out);
	rm_out_str(out, RC_RESCTRL, root);
	if (known) {
		rm_out_bool(out, RC_MOUNTED, rc.mounted);
		rm_out_bool(out, RC_SUPPORTED, rc.mounted || rm_resctrl_supported(sysroot));
	}
	if (rc.mounted) {
		rm_out_bool(out, RC_CDP, rc.nl3 == 2);
		out_num(out, RC_CLOSIDS, rc.closids);
	}
	rm_out_end(out);
	rm_out_close(out);

	out = rm_out_new(&c->out, "resources", res_cols, ARRAY_SIZE(res_cols), NULL, true);
	for (size_t i = 0; i < rc.nres; i++)
		resource_record(&rc, out, &rc.res[i]);
	rm_out_close(out);
	rm_out_flush();
	if (known)
		rm_resctrl_close(&rc);
	free(root);
	return RM_EXIT_SUCCESS;
}
