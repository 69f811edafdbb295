/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset and resctrl: L3 ways and memory bandwidth of owners, show's way records, mount. */
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

bool pool_owner_has_resctrl(const struct rm_record *r)
{
	return rm_record_get(r, "l3_ways") != NULL;
}

char *pool_resctrl_name(const struct rm_record *r)
{
	return xasprintf("%s%s", RM_RESCTRL_PREFIX, rm_record_get(r, "owner"));
}

/* Why resctrl cannot serve a request here; NULL when it can. */
static char *resctrl_missing(const struct pool *p)
{
	if (!p->resctrl)
		return xstrdup("no resctrl groups are kept for a described topology (--topology, "
			       "--sysroot); RM_RESCTRL_ROOT names a test tree");
	if (p->resctrl_err)
		return xstrdup(p->resctrl_err);
	if (p->rc.mounted)
		return NULL;
	if (rm_resctrl_supported(rm_input_root(rm_input_resolve(p->c))))
		return xasprintf("resctrl is not mounted at %s ('rm-cpuset mount-resctrl' mounts "
				 "it)", p->rc.root);
	return xasprintf("this machine has no resctrl at %s (no Intel RDT or AMD PQoS, or a "
			 "kernel without resctrl)", p->rc.root);
}

void alloc_check_resctrl(struct pool *p, struct alloc_req *r)
{
	const char *opt = r->l3_ways ? "--l3-ways" : "--mem-bandwidth";
	char *why, *msg = NULL;
	int rc;

	if (!r->l3_ways && !r->mem_bandwidth)
		return;
	if ((why = resctrl_missing(p))) {
		bool broken = p->resctrl_err != NULL; /* mounted, but its files make no sense */

		msg = xasprintf("%s needs resctrl: %s", opt, why);
		free(why);
		pool_close(p);
		if (broken)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
		rm_usage_errx("%s", msg);
	}
	if (r->l3_ways) {
		const struct rm_resctrl_res *l3 = p->rc.l3[0];
		int least = l3 && l3->min_cbm_bits > 1 ? l3->min_cbm_bits : 1;

		if (!l3)
			msg = xstrdup("--l3-ways: this machine's resctrl has no L3 cache allocation "
				      "(no L3 in info/)");
		else if (r->l3_ways > l3->cbm_len)
			msg = xasprintf("--l3-ways %d: the L3 has %d ways (cbm_mask %llx)", r->l3_ways,
					l3->cbm_len, (unsigned long long)l3->cbm_mask);
		else if (r->l3_ways < least)
			msg = xasprintf("--l3-ways %d: the L3 takes at least %d ways a group "
					"(min_cbm_bits)", r->l3_ways, least);
		if (msg) {
			pool_close(p);
			rm_usage_errx("%s", msg);
		}
	}
	if (r->mem_bandwidth &&
	    (rc = rm_resctrl_mb_value(&p->rc, r->mem_bandwidth, &r->mb_value, &r->mb_canon,
				      &msg))) {
		pool_close(p);
		rm_errx(rc, "%s", msg);
	}
}

/* "ID:VALUE,..." of the domains in VALUES (by index of RES's domains) that are not SKIP. */
static char *domain_list(const struct rm_resctrl_res *res, const uint64_t *values, uint64_t skip,
			 bool hex)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < res->ndomains; i++) {
		char *v, *next;

		if (values[i] == skip)
			continue;
		v = hex ? rm_resctrl_mask_format(values[i], res->cbm_len) :
			  xasprintf("%llu", (unsigned long long)values[i]);
		next = xasprintf("%s%s%u:%s", out, *out ? "," : "", res->domains[i], v);
		free(v);
		free(out);
		out = next;
	}
	if (!*out) {
		free(out);
		return xstrdup("-");
	}
	return out;
}

void alloc_choose_resctrl(struct pool *p, struct alloc_req *r, hwloc_const_bitmap_t cpus,
			  size_t index)
{
	struct rm_resctrl_group *groups = NULL;
	struct rm_resctrl_want *want = NULL;
	hwloc_bitmap_t ids;
	uint64_t *masks = NULL, *mb = NULL;
	size_t ngroups = 0, nwant = 0;
	char *msg = NULL, *field;
	int rc = 0;
	struct rm_record *rec;

	if (!r->l3_ways && !r->mem_bandwidth)
		return;
	ids = hwloc_bitmap_alloc();
	if (rm_resctrl_l3_domains(p->t, cpus, ids) > 0 || hwloc_bitmap_iszero(ids)) {
		char *list = rm_cpulist_format(cpus);

		msg = xasprintf("the topology has no L3 cache for some of CPUs %s: cannot map them "
				"to resctrl domains", list);
		free(list);
		rc = RM_EXIT_USAGE;
		goto out;
	}
	if (rm_resctrl_groups(&p->rc, &groups, &ngroups, &msg) < 0) {
		rc = RM_EXIT_FAILURE;
		goto out;
	}
	/* the other owners' groups: every record but the new one */
	nwant = pool_resctrl_wants(p, p->st.records, index, &want);
	if (p->rc.nl3)
		masks = xcalloc(p->rc.l3[0]->ndomains, sizeof(*masks));
	if ((rc = rm_resctrl_choose(&p->rc, groups, ngroups, want, nwant, ids, r->l3_ways,
				    r->l3_exclusive, masks, &msg)))
		goto out;
	if (r->mem_bandwidth) {
		const struct rm_resctrl_res *res = p->rc.mb;
		bool any = false;

		mb = xcalloc(res->ndomains, sizeof(*mb));
		for (size_t i = 0; i < res->ndomains; i++) {
			mb[i] = hwloc_bitmap_isset(ids, res->domains[i]) ? r->mb_value : UINT64_MAX;
			any = any || mb[i] != UINT64_MAX;
		}
		if (!any) {
			msg = xstrdup("--mem-bandwidth: no MB domain of resctrl is an L3 domain of "
				      "the CPUs: is the topology this machine's?");
			rc = RM_EXIT_USAGE;
			goto out;
		}
	}
	rec = &p->st.records[index];
	if (r->l3_ways) {
		field = xasprintf("%d", r->l3_ways);
		rm_record_set(rec, "l3_ways", field);
		free(field);
	} else {
		rm_record_set(rec, "l3_ways", "-");
	}
	rm_record_set(rec, "l3_exclusive", r->l3_exclusive ? "yes" : "no");
	field = r->l3_ways ? domain_list(p->rc.l3[0], masks, RM_RESCTRL_FOLLOW, true) : xstrdup("-");
	rm_record_set(rec, "l3_masks", field);
	free(field);
	rm_record_set(rec, "mem_bandwidth", r->mb_canon ? r->mb_canon : "-");
	field = mb ? domain_list(p->rc.mb, mb, UINT64_MAX, false) : xstrdup("-");
	rm_record_set(rec, "mb", field);
	free(field);
out:
	free(masks);
	free(mb);
	pool_resctrl_wants_free(want, nwant);
	rm_resctrl_groups_free(groups, ngroups);
	hwloc_bitmap_free(ids);
	if (rc) {
		pool_close(p);
		alloc_req_free(r);
		rm_errx(rc, "%s", msg);
	}
}

/* Parse "ID:VALUE,..." (BASE 16 or 10) of RES's domains into VALUES; -1 on a bad field. */
static int parse_domain_list(const struct rm_resctrl_res *res, const char *s, int base,
			     uint64_t *values)
{
	char *copy = xstrdup(s), *item, *save = NULL;
	int rc = 0;

	for (item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':'), *end;
		unsigned long id;
		long i;

		errno = 0;
		id = strtoul(item, &end, 10);
		if (!colon || end != colon || end == item ||
		    (i = rm_resctrl_domain_index(res, (unsigned)id)) < 0) {
			rc = -1;
			break;
		}
		values[i] = strtoull(colon + 1, &end, base);
		if (errno || end == colon + 1 || *end)
			rc = -1;
	}
	free(copy);
	return rc;
}

size_t pool_resctrl_wants(const struct pool *p, const struct rm_record *records, size_t n,
			  struct rm_resctrl_want **wantp)
{
	struct rm_resctrl_want *want = xcalloc(n, sizeof(*want));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct rm_record *r = &records[i];
		const char *masks, *mb, *bad = NULL;
		struct rm_resctrl_want *w;
		hwloc_bitmap_t cpus;

		if (strcmp(rm_record_kind(r), "owner") || !pool_owner_has_resctrl(r))
			continue;
		w = &want[k++];
		w->name = pool_resctrl_name(r);
		cpus = hwloc_bitmap_alloc();
		pool_owner_cpus(r, cpus);
		/* resctrl's cpus_list takes online CPUs only, and drops a CPU going offline */
		hwloc_bitmap_and(cpus, cpus, p->all);
		w->cpus = cpus;
		w->exclusive = !strcmp(rm_record_get(r, "l3_exclusive") ?: "no", "yes");
		masks = rm_record_get(r, "l3_masks") ?: "-";
		mb = rm_record_get(r, "mb") ?: "-";
		if (strcmp(masks, "-")) {
			uint64_t *l3;

			if (!p->have_resctrl || !p->rc.nl3) {
				bad = "l3_masks";
			} else {
				l3 = xmalloc(p->rc.l3[0]->ndomains * sizeof(*l3));
				for (size_t d = 0; d < p->rc.l3[0]->ndomains; d++)
					l3[d] = RM_RESCTRL_FOLLOW;
				w->l3 = l3;
				if (parse_domain_list(p->rc.l3[0], masks, 16, l3) < 0)
					bad = "l3_masks";
			}
		}
		if (!bad && strcmp(mb, "-")) {
			uint64_t *v;
			long *vals;

			if (!p->have_resctrl || !p->rc.mb) {
				bad = "mb";
			} else {
				v = xmalloc(p->rc.mb->ndomains * sizeof(*v));
				vals = xmalloc(p->rc.mb->ndomains * sizeof(*vals));
				for (size_t d = 0; d < p->rc.mb->ndomains; d++)
					v[d] = UINT64_MAX;
				if (parse_domain_list(p->rc.mb, mb, 10, v) < 0)
					bad = "mb";
				for (size_t d = 0; d < p->rc.mb->ndomains; d++)
					vals[d] = v[d] == UINT64_MAX || v[d] > RM_RESCTRL_MBPS_MAX ?
						  -1 : (long)v[d];
				free(v);
				w->mb = vals;
			}
		}
		if (bad && p->have_resctrl)
			rm_errx(RM_EXIT_FAILURE, "state %s: line %u: the '%s' field of owner '%s' names "
			     "no domain of resctrl at %s, or is malformed; release the owner, or "
			     "mend the field", p->st.path, r->line + 1, bad, rm_record_get(r, "owner"),
			     p->rc.root);
	}
	*wantp = want;
	return k;
}

void pool_resctrl_wants_free(struct rm_resctrl_want *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)want[i].name);
		hwloc_bitmap_free((hwloc_bitmap_t)want[i].cpus);
		free((uint64_t *)want[i].l3);
		free((long *)want[i].mb);
	}
	free(want);
}

int pool_sync_resctrl(struct pool *p, const struct rm_record *records, size_t n, bool warn,
		      char **msg)
{
	struct rm_resctrl_want *want;
	size_t k;
	int rc;

	if (!p->resctrl)
		return 0;
	if (!p->have_resctrl) {
		size_t owners = 0;

		for (size_t i = 0; i < n; i++)
			owners += !strcmp(rm_record_kind(&records[i]), "owner") &&
				  pool_owner_has_resctrl(&records[i]);
		if (owners && warn) {
			char *why = resctrl_missing(p);

			rm_warnx("%s: the L3 ways and memory bandwidth of %zu owner%s are not kept "
			      "('rm-cpuset apply' makes their groups once it is mounted)", why,
			      owners, owners == 1 ? "" : "s");
			free(why);
		}
		return 0;
	}
	k = pool_resctrl_wants(p, records, n, &want);
	rc = rm_resctrl_sync(&p->rc, want, k, msg);
	pool_resctrl_wants_free(want, k);
	return rc;
}

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
