/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset's resctrl commands: show's L3 way records, mount-resctrl. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "rm-cpuset.h"
#include "xalloc.h"

/* ---- show: the L3 ways of every group ---- */

enum { WAY_L3_ID, WAY_GROUP, WAY_OWNER, WAY_MASK, WAY_WAYS, WAY_COUNT, WAY_MODE, WAY_CODE_MASK,
       WAY_MB };
static const struct rm_column way_cols[] = {
	[WAY_L3_ID] = { "l3_id", RM_COL_INT, "the L3 domain: the kernel's cache id" },
	[WAY_GROUP] = { "group", RM_COL_STRING, "the resctrl group (default: the default group)" },
	[WAY_OWNER] = { "owner", RM_COL_STRING, "its owner (- for another tool's group)" },
	[WAY_MASK] = { "mask", RM_COL_STRING, "its ways in the domain, as schemata writes them" },
	[WAY_WAYS] = { "ways", RM_COL_SET, "the same as a list of way numbers" },
	[WAY_COUNT] = { "count", RM_COL_INT, "the number of ways" },
	[WAY_MODE] = { "mode", RM_COL_STRING, "shareable or exclusive" },
	[WAY_CODE_MASK] = { "code_mask", RM_COL_STRING, "with CDP: its ways for code (mask: data)" },
	[WAY_MB] = { "mb", RM_COL_INT, "its memory bandwidth value in the domain (rm-topo resctrl "
				       "gives the unit)" },
};

void print_l3_ways(const struct pool *p, const struct rm_common *c)
{
	const struct rm_resctrl *rc = &p->rc;
	const struct rm_resctrl_res *res = rc->l3[0] ? rc->l3[0] : rc->mb;
	struct rm_resctrl_group *groups;
	struct rm_outopts opts = c->out;
	struct rm_out *out;
	size_t n;
	char *msg = NULL;

	if (!p->have_resctrl || !res)
		return;
	if (rm_resctrl_groups(rc, &groups, &n, &msg) < 0) {
		rm_warnx("%s", msg);
		free(msg);
		return;
	}
	opts.columns = NULL;
	out = rm_out_new(&opts, "l3_ways", way_cols, ARRAY_SIZE(way_cols), NULL, false);
	for (size_t i = 0; i < res->ndomains; i++) {
		long mbi = rc->mb ? rm_resctrl_domain_index(rc->mb, res->domains[i]) : -1;

		for (size_t g = 0; g < n; g++) {
			const char *name = groups[g].name;
			bool ours = !strncmp(name, RM_RESCTRL_PREFIX, strlen(RM_RESCTRL_PREFIX));
			hwloc_bitmap_t ways = hwloc_bitmap_alloc();

			rm_out_begin(out);
			rm_out_int(out, WAY_L3_ID, res->domains[i]);
			rm_out_str(out, WAY_GROUP, *name ? name : "default");
			rm_out_str(out, WAY_OWNER, ours ? name + strlen(RM_RESCTRL_PREFIX) : NULL);
			if (rc->nl3) {
				uint64_t all = rm_resctrl_group_ways(rc, &groups[g], i);
				char *m = rm_resctrl_mask_format(groups[g].l3[rc->nl3 - 1][i],
								 res->cbm_len);

				rm_out_str(out, WAY_MASK, m);
				free(m);
				for (int b = 0; b < 64; b++)
					if (all >> b & 1)
						hwloc_bitmap_set(ways, b);
				rm_out_set(out, WAY_WAYS, ways);
				rm_out_int(out, WAY_COUNT, hwloc_bitmap_weight(ways));
				if (rc->nl3 == 2) {
					m = rm_resctrl_mask_format(groups[g].l3[0][i], res->cbm_len);
					rm_out_str(out, WAY_CODE_MASK, m);
					free(m);
				}
			}
			rm_out_str(out, WAY_MODE, groups[g].mode);
			if (mbi >= 0)
				rm_out_int(out, WAY_MB, (long long)groups[g].mb[mbi]);
			rm_out_end(out);
			hwloc_bitmap_free(ways);
		}
	}
	rm_out_close(out);
	rm_resctrl_groups_free(groups, n);
}

/* ---- mount-resctrl ---- */

enum { OPT_CDP = 0x500, OPT_MBA_MBPS, OPT_MOUNT_DRY_RUN };

struct mount_args {
	bool cdp, mba_mbps, dry_run;
};

static error_t mount_parse(int key, char *arg, struct argp_state *state)
{
	struct mount_args *a = state->input;

	switch (key) {
	case OPT_CDP:
		a->cdp = true;
		break;
	case OPT_MBA_MBPS:
		a->mba_mbps = true;
		break;
	case OPT_MOUNT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_mount_resctrl(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "cdp", OPT_CDP, NULL, 0,
		  "code and data prioritisation: separate L3 ways for code and data", 0 },
		{ "mba-mbps", OPT_MBA_MBPS, NULL, 0,
		  "memory bandwidth in MBps, kept by the kernel, instead of percentages", 0 },
		{ "dry-run", OPT_MOUNT_DRY_RUN, NULL, 0, "print what would be done, change nothing",
		  0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, mount_parse, NULL,
		"Mount the resctrl file system (Intel RDT, AMD PQoS) at /sys/fs/resctrl, which "
		"--l3-ways and --mem-bandwidth need, and print a record of what was done. "
		"Mounted already with the options asked: nothing to do; with others: exit 1. "
		"A machine without resctrl: exit 1.",
		NULL, NULL, NULL
	};
	struct mount_args a = { 0 };
	struct rm_resctrl rc;
	char *root, *msg = NULL, *opts;
	const char *action = "mount";
	int status = RM_EXIT_SUCCESS;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT | RM_PARSE_NO_INPUT);
	root = rm_resctrl_root(NULL);
	opts = xasprintf("%s%s%s", a.cdp ? "cdp" : "", a.cdp && a.mba_mbps ? "," : "",
			 a.mba_mbps ? "mba_MBps" : "");
	if (rm_resctrl_open(&rc, root, &msg) < 0) {
		rm_warnx("%s", msg);
		status = RM_EXIT_FAILURE;
	} else if (rc.mounted) {
		bool cdp = rc.nl3 == 2, mbps = rc.mb && rc.mb->unit == RM_RESCTRL_MBPS;

		action = "keep";
		if (cdp != a.cdp || mbps != a.mba_mbps) {
			rm_warnx("resctrl is mounted at %s %s cdp and %s mba_MBps; to change that, "
			      "unmount it (umount %s; its groups go) and mount it again", root,
			      cdp ? "with" : "without", mbps ? "with" : "without", root);
			status = RM_EXIT_FAILURE;
		}
	} else if (!rm_resctrl_supported(rm_input_root(rm_input_resolve(c)))) {
		/* the kernel registers resctrl only where the CPU has RDT or PQoS */
		rm_warnx("this machine has no resctrl: 'resctrl' is not in /proc/filesystems (no Intel "
		      "RDT or AMD PQoS, or a kernel built without CONFIG_X86_CPU_RESCTRL)");
		status = RM_EXIT_FAILURE;
	} else if (!a.dry_run && geteuid() != 0) {
		rm_warnx("mounting resctrl needs root");
		status = RM_EXIT_FAILURE;
	} else if (!a.dry_run && rm_resctrl_mount(root, a.cdp, a.mba_mbps, &msg) < 0) {
		int e = errno;

		rm_warnx("%s%s", msg, e == ENODEV ? " (this machine has no resctrl)" :
			       e == EINVAL && *opts ? " (does the hardware have what the options ask? "
						       "rm-topo resctrl shows what it has)" : "");
		status = RM_EXIT_FAILURE;
	} else if (!a.dry_run) {
		rm_committed("mounted resctrl at %s", root);
	}
	if (status == RM_EXIT_SUCCESS) {
		fputs("resctrl=", stdout);
		rm_record_write_value(stdout, root);
		printf(" action=%s options=", action);
		rm_record_write_value(stdout, opts);
		putchar('\n');
	}
	free(msg);
	free(opts);
	free(root);
	rm_resctrl_close(&rc);
	return status;
}
