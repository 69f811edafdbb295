/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device allocation: Topology Manager hints for devices and choosing aligned devices. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "exitcodes.h"
#include "xalloc.h"

/* ---- Topology Manager hints for devices (the device manager as a provider of topomgr) ---- */

int rm_devices_hint(struct rm_device *const *all, size_t nall, struct rm_device *const *free_devs,
		    size_t nfree, hwloc_const_bitmap_t nodes, unsigned count,
		    hwloc_const_bitmap_t provider, enum rm_tm_policy policy,
		    const struct rm_tm_config *tm, const unsigned *distance, const char *name,
		    hwloc_bitmap_t hint, char **errmsg)
{
	unsigned nn = (unsigned)hwloc_bitmap_weight(nodes), i = 0, nprov = 1;
	struct rm_tm_config c = { 0 };
	struct rm_tm_provider prov[2];
	uint64_t *total, *freec;
	unsigned char *need, *best;
	bool topo = false, single = policy == RM_TM_SINGLE_NUMA_NODE, pref, admit, whole = true;
	int *ids, id, rc = 0;
	char *list, *what = xasprintf("%s devices", name);

	hwloc_bitmap_zero(hint);
	if (policy == RM_TM_NONE || count == 0 || nn == 0)
		return 0;
	if (tm)
		c = *tm;
	c.policy = policy;
	if ((*errmsg = rm_tm_too_many_nodes(&c, nn))) {
		free(what);
		return RM_DEVICES_EINVAL;
	}
	ids = xcalloc(nn, sizeof(*ids));
	c.ids = ids;
	total = xcalloc(nn, sizeof(*total));
	freec = xcalloc(nn, sizeof(*freec));
	need = xcalloc(nn, 1);
	best = xcalloc(nn, 1);
	hwloc_bitmap_foreach_begin(id, nodes) {
		ids[i++] = id;
	} hwloc_bitmap_foreach_end();
	for (size_t k = 0; k < nall + nfree; k++) {
		const struct rm_device *d = k < nall ? all[k] : free_devs[k - nall];

		for (i = 0; i < nn; i++)
			if (d->numa == ids[i]) {
				(k < nall ? total : freec)[i]++;
				topo = true;
			}
	}
	/* generateDeviceTopologyHints: every node set whose free devices can hold the request,
	 * preferred when as few nodes as the type's devices, free or not, could need; none (any
	 * node) when no device has a NUMA node */
	prov[0] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = freec, .total = total,
					   .request = count, .any = !topo, .name = name };
	/* the second provider: every node set holding its nodes, preferred when exactly them */
	if (provider && !hwloc_bitmap_iszero(provider)) {
		bool have = false;

		for (i = 0; i < nn; i++)
			if (hwloc_bitmap_isset(provider, ids[i]))
				need[i] = have = true;
		if (!have) {
			*errmsg = xstrdup("the preferred NUMA nodes are not nodes of this machine");
			rc = RM_DEVICES_EINVAL;
			goto out;
		}
		prov[nprov++] = (struct rm_tm_provider){ .kind = RM_TM_NODES, .need = need,
							 .name = "numa-node" };
	}
	rm_tm_merge(&c, nn, distance, prov, nprov, best, &pref, &admit);
	if (!admit) {
		list = rm_tm_per_node(ids, freec, nn);
		if (single)
			*errmsg = xasprintf("topology manager policy single-numa-node: no single NUMA "
					    "node has %u free %s%s (free: %s)", count, what,
					    nprov == 1 ? "" : " and the owner's CPUs", list);
		else
			*errmsg = xasprintf("topology manager policy restricted: no preferred NUMA "
					    "affinity for %u %s%s (free: %s)", count, what,
					    nprov == 1 ? "" : " with the owner's CPUs", list);
		free(list);
		rc = RM_DEVICES_ENOSPC;
		goto out;
	}
	for (i = 0; i < nn; i++)
		whole = whole && best[i];
	if (!whole || nn == 1)
		for (i = 0; i < nn; i++)
			if (best[i])
				hwloc_bitmap_set(hint, ids[i]);
out:
	free(what);
	free(ids);
	free(total);
	free(freec);
	free(need);
	free(best);
	return rc;
}

/* ---- choosing devices ---- */

enum level { LV_DEVICE, LV_SWITCH, LV_ROOT, LV_NUMA, LV_ALL };

/* The group a device belongs to at a level; NULL: a group of its own. */
static const char *group_key(const struct rm_device *d, enum level lv, char *buf)
{
	switch (lv) {
	case LV_SWITCH:
		return d->sw;
	case LV_ROOT:
		return d->root;
	case LV_NUMA:
		if (d->numa < 0)
			return NULL;
		snprintf(buf, 24, "%d", d->numa);
		return buf;
	default:
		return NULL;
	}
}

static bool same_group(const struct rm_device *a, const struct rm_device *b, enum level lv)
{
	char ba[24], bb[24];
	const char *ka, *kb;

	if (lv == LV_ALL)
		return true;
	if (a == b)
		return true;
	ka = group_key(a, lv, ba);
	kb = group_key(b, lv, bb);
	return ka && kb && !strcmp(ka, kb);
}

struct pool {
	struct rm_device *const *cand;
	size_t *idx; /* indexes into cand, in address order */
	size_t n;
};

/* The groups of P at level LV: GROUP[i] the group number of P's i-th device; returns the count.
 * Groups are numbered by their first device. */
static size_t groups_of(const struct pool *p, enum level lv, size_t *group, size_t *size,
			size_t *first)
{
	size_t ng = 0;

	for (size_t i = 0; i < p->n; i++) {
		size_t g;

		for (g = 0; g < ng; g++)
			if (same_group(p->cand[p->idx[first[g]]], p->cand[p->idx[i]], lv))
				break;
		if (g == ng) {
			first[ng] = i;
			size[ng++] = 0;
		}
		group[i] = g;
		size[g]++;
	}
	return ng;
}

static void select_devices(const struct pool *p, size_t k, enum level top, size_t *out,
			   size_t *nout);

/* The sub-pool of P in group G. */
static void sub_pool(const struct pool *p, const size_t *group, size_t g, struct pool *sub)
{
	sub->cand = p->cand;
	sub->idx = xcalloc(p->n, sizeof(*sub->idx));
	sub->n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (group[i] == g)
			sub->idx[sub->n++] = p->idx[i];
}

/*
 * K devices of P, all of which share level TOP: the smallest group at a finer level that holds
 * them all (fewest devices, then the lowest address), else the largest groups one level finer
 * first, each packed the same way.
 */
static void select_devices(const struct pool *p, size_t k, enum level top, size_t *out,
			   size_t *nout)
{
	size_t *group = xcalloc(p->n + 1, sizeof(size_t)), *size = xcalloc(p->n + 1, sizeof(size_t)),
	       *first = xcalloc(p->n + 1, sizeof(size_t)), ng, best, g;
	struct pool sub;
	enum level lv;

	if (k >= p->n || top == LV_DEVICE || top == LV_SWITCH) {
		for (size_t i = 0; i < p->n && i < k; i++)
			out[(*nout)++] = p->idx[i];
		goto done;
	}
	for (lv = LV_SWITCH; lv < top; lv++) {
		ng = groups_of(p, lv, group, size, first);
		best = ng;
		for (g = 0; g < ng; g++)
			if (size[g] >= k && (best == ng || size[g] < size[best]))
				best = g;
		if (best < ng) {
			sub_pool(p, group, best, &sub);
			select_devices(&sub, k, lv, out, nout);
			free(sub.idx);
			goto done;
		}
	}
	/* no finer group holds them all: the largest groups one level down first */
	ng = groups_of(p, top - 1, group, size, first);
	while (k > 0) {
		size_t take;

		best = ng;
		for (g = 0; g < ng; g++)
			if (size[g] && (best == ng || size[g] > size[best]))
				best = g;
		if (best == ng)
			break;
		take = size[best] < k ? size[best] : k;
		sub_pool(p, group, best, &sub);
		select_devices(&sub, take, top - 1, out, nout);
		free(sub.idx);
		size[best] = 0;
		k -= take;
	}
done:
	free(group);
	free(size);
	free(first);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* K devices of IDX[0..N) in CAND into PICK: the hinted ones, the others, those without NUMA. */
static void choose_aligned(struct rm_device *const *cand, const size_t *idx, size_t n, size_t k,
			   hwloc_const_bitmap_t hint, size_t *pick, size_t *npick)
{
	struct pool part[3];

	for (int j = 0; j < 3; j++) {
		part[j].cand = cand;
		part[j].idx = xcalloc(n + 1, sizeof(size_t));
		part[j].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rm_device *d = cand[idx[i]];
		int j = !hint || hwloc_bitmap_iszero(hint) ? (d->numa < 0 ? 2 : 0) :
			d->numa < 0 ? 2 : hwloc_bitmap_isset(hint, d->numa) ? 0 : 1;

		/* without a hint there is no preference, but devices without NUMA go last */
		part[j].idx[part[j].n++] = idx[i];
	}
	for (int j = 0; j < 3 && *npick < k; j++) {
		size_t want = k - *npick;

		select_devices(&part[j], want < part[j].n ? want : part[j].n, LV_ALL, pick, npick);
	}
	for (int j = 0; j < 3; j++)
		free(part[j].idx);
}

int rm_devices_choose(struct rm_device *const *cand, size_t n, unsigned count,
		      hwloc_const_bitmap_t hint, bool same_root, const char *what, size_t *pick,
		      char **errmsg)
{
	size_t *idx = xcalloc(n + 1, sizeof(size_t)), npick = 0;
	int rc = 0;

	if (n < count) {
		*errmsg = xasprintf("not enough free %s: requested %u, available %zu", what, count, n);
		free(idx);
		return RM_DEVICES_ENOSPC;
	}
	if (!same_root) {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		choose_aligned(cand, idx, n, count, hint, pick, &npick);
	} else {
		/* one PCI root: the roots whose devices are enough, those that can take all on the
		 * hinted nodes first, then the fewest free devices, then the lowest address */
		size_t best_n = 0, best_aligned = 0, best_first = n;
		char *roots = xstrdup(""), *t;

		for (size_t i = 0; i < n; i++) {
			size_t m = 0, aligned = 0, first = n;
			bool seen = false;

			if (!cand[i]->root)
				continue;
			for (size_t j = 0; j < i && !seen; j++)
				seen = cand[j]->root && !strcmp(cand[j]->root, cand[i]->root);
			if (seen)
				continue;
			for (size_t j = 0; j < n; j++)
				if (cand[j]->root && !strcmp(cand[j]->root, cand[i]->root)) {
					m++;
					aligned += hint && !hwloc_bitmap_iszero(hint) &&
						   cand[j]->numa >= 0 &&
						   hwloc_bitmap_isset(hint, cand[j]->numa);
					if (first == n)
						first = j;
				}
			t = xasprintf("%s%s%s: %zu", roots, *roots ? ", " : "", cand[i]->root, m);
			free(roots);
			roots = t;
			if (m < count)
				continue;
			aligned = aligned >= count;
			if (best_first == n || aligned > best_aligned ||
			    (aligned == best_aligned && m < best_n)) {
				best_n = m;
				best_aligned = aligned;
				best_first = first;
			}
		}
		if (best_first == n) {
			*errmsg = xasprintf("no PCI root has %u free %s (%s)", count, what,
					    *roots ? roots : "no device's root is known");
			free(roots);
			free(idx);
			return RM_DEVICES_ENOSPC;
		}
		free(roots);
		for (size_t j = 0, m = 0; j < n; j++)
			if (cand[j]->root && !strcmp(cand[j]->root, cand[best_first]->root))
				idx[m++] = j;
		choose_aligned(cand, idx, best_n, count, hint, pick, &npick);
	}
	if (npick != count) {
		*errmsg = xasprintf("internal error choosing %s: %zu of %u", what, npick, count);
		rc = RM_CPUALLOC_EINTERNAL;
	}
	qsort(pick, npick, sizeof(*pick), cmp_size);
	free(idx);
	return rc;
}
