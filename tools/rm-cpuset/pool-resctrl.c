/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pool's resctrl groups: the L3 ways and memory bandwidth of owners, chosen and kept in step. */
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
