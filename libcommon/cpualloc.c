/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kubelet CPU Manager's static policy: its topology, packed and distributed takes, hints. */
#include "config.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpualloc.h"
#include "xalloc.h"

/*
 * Written by hand: no library implements the kubelet's rules, and the point is to match them
 * placement for placement. Sets are byte arrays indexed by the entries of rm_cputopo (CPUs in
 * ascending order); hwloc bitmaps only at the interface.
 */

enum { L_SOCKET, L_NODE, L_CORE, L_UNCORE, NLEVELS };

/* One kind of container: its distinct ids (ascending) and the entries of each. */
struct level {
	unsigned n;
	int *id;
	unsigned *first; /* members of element e: cpus[first[e]] .. cpus[first[e + 1] - 1] */
	unsigned *cpus;  /* entry indexes, ascending within an element */
	unsigned *of;    /* per entry: its element */
};

struct priv {
	struct level lv[NLEVELS];
	unsigned *distance; /* between the nodes of lv[L_NODE], NULL when unknown */
};

#define PRIV(t) ((const struct priv *)(t)->priv)

/* ---- topology ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The distinct ids, ascending, into lv->id, and each entry's element into lv->of. Ids are
 * os indexes, mostly below a few times the CPU count: those are counted in a table indexed by
 * id (linear, the common case on 8,192 CPUs); others are sorted. */
static void level_ids(struct level *lv, const int *ids, unsigned ncpus)
{
	int lo = ncpus ? ids[0] : 0, hi = lo;
	unsigned i, n = 0;
	int *sorted;

	for (i = 1; i < ncpus; i++) {
		lo = ids[i] < lo ? ids[i] : lo;
		hi = ids[i] > hi ? ids[i] : hi;
	}
	lv->of = xmalloc((ncpus ? ncpus : 1) * sizeof(*lv->of));
	if (lo >= 0 && (unsigned)hi <= 4 * ncpus + 1024) {
		unsigned *slot = xmalloc(((size_t)hi + 1) * sizeof(*slot));

		for (i = 0; i <= (unsigned)hi; i++)
			slot[i] = UINT_MAX;
		for (i = 0; i < ncpus; i++)
			slot[ids[i]] = 0;
		sorted = xmalloc((ncpus ? ncpus : 1) * sizeof(*sorted));
		for (i = 0; i <= (unsigned)hi && ncpus; i++)
			if (slot[i] != UINT_MAX) {
				slot[i] = n;
				sorted[n++] = (int)i;
			}
		for (i = 0; i < ncpus; i++)
			lv->of[i] = slot[ids[i]];
		free(slot);
	} else {
		sorted = xmalloc((ncpus ? ncpus : 1) * sizeof(*sorted));
		memcpy(sorted, ids, ncpus * sizeof(*sorted));
		qsort(sorted, ncpus, sizeof(*sorted), cmp_int);
		for (i = 0; i < ncpus; i++)
			if (i == 0 || sorted[i] != sorted[n - 1])
				sorted[n++] = sorted[i];
		for (i = 0; i < ncpus; i++)
			lv->of[i] = (int *)bsearch(&ids[i], sorted, n, sizeof(*sorted), cmp_int) - sorted;
	}
	lv->n = n;
	lv->id = sorted;
}

static void level_build(struct level *lv, const int *ids, unsigned ncpus)
{
	unsigned i, n, *fill;

	level_ids(lv, ids, ncpus);
	n = lv->n;
	lv->first = xcalloc(n + 1, sizeof(*lv->first));
	lv->cpus = xmalloc((ncpus ? ncpus : 1) * sizeof(*lv->cpus));
	for (i = 0; i < ncpus; i++)
		lv->first[lv->of[i] + 1]++;
	for (i = 0; i < n; i++)
		lv->first[i + 1] += lv->first[i];
	fill = xmalloc((n ? n : 1) * sizeof(*fill));
	memcpy(fill, lv->first, n * sizeof(*fill));
	for (i = 0; i < ncpus; i++)
		lv->cpus[fill[lv->of[i]]++] = i;
	free(fill);
}

static unsigned level_size(const struct level *lv, unsigned e)
{
	return lv->first[e + 1] - lv->first[e];
}

static int obj_id(hwloc_obj_t obj)
{
	return obj->os_index != HWLOC_UNKNOWN_INDEX ? (int)obj->os_index : (int)obj->logical_index;
}

struct cpu_rec {
	int cpu, socket, node, core, uncore;
};

/*
 * The core, socket and uncore cache of the CPU PU, in one walk up from it (objects far apart in
 * memory on thousands of CPUs). The kubelet takes cAdvisor's L3 ("uncore") cache and falls back
 * to the socket; where there is no L3 the highest cache shared by more than the CPU's core
 * stands for it (a per-core cache is no uncore cache).
 */
/* The first CPU of CORE, from its PU children where they are its only children: its cpuset
 * is as long as the highest CPU number, and scanning it for each CPU reads megabytes on
 * 8,192 CPUs. */
static int core_first_cpu(hwloc_obj_t core)
{
	unsigned first = UINT_MAX;

	for (hwloc_obj_t c = core->first_child; c; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_PU)
			return hwloc_bitmap_first(core->cpuset);
		first = c->os_index < first ? c->os_index : first;
	}
	return first != UINT_MAX ? (int)first : hwloc_bitmap_first(core->cpuset);
}

static void cpu_place(hwloc_obj_t pu, struct cpu_rec *r)
{
	hwloc_obj_t obj, core = NULL, pkg = NULL, l3 = NULL, shared = NULL;
	int weight = -1; /* the core's, counted at the first cache below L3 */

	for (obj = pu->parent; obj; obj = obj->parent) {
		if (obj->type == HWLOC_OBJ_CORE && !core)
			core = obj;
		else if (obj->type == HWLOC_OBJ_PACKAGE && !pkg)
			pkg = obj;
		else if (obj->type == HWLOC_OBJ_L3CACHE && !l3)
			l3 = obj;
		else if (!l3 && hwloc_obj_type_is_cache(obj->type)) {
			if (weight < 0)
				weight = hwloc_bitmap_weight(core ? core->cpuset : pu->cpuset);
			if (hwloc_bitmap_weight(obj->cpuset) > weight)
				shared = obj;
		}
	}
	r->cpu = pu->os_index;
	r->socket = pkg ? obj_id(pkg) : 0;
	r->core = core ? core_first_cpu(core) : r->cpu;
	r->uncore = l3 ? obj_id(l3) : shared ? obj_id(shared) : r->socket;
}


static int cmp_rec(const void *a, const void *b)
{
	return cmp_int(&((const struct cpu_rec *)a)->cpu, &((const struct cpu_rec *)b)->cpu);
}

struct rm_cputopo *rm_cputopo_new(const struct rm_topo *topology)
{
	hwloc_topology_t topo = topology->topo;
	int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	struct rm_cputopo *t;
	struct cpu_rec *rec;
	struct priv *p;
	hwloc_obj_t pu = NULL, *home;
	unsigned i, n = 0;
	int last;

	if (npu <= 0)
		return NULL;
	rec = xcalloc(npu, sizeof(*rec));
	/* the home nodes of all CPUs in one walk (rm_topo_cpu_node walks every node per CPU) */
	last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
	home = xcalloc(last >= 0 ? (size_t)last + 1 : 1, sizeof(*home));
	rm_topo_cpu_table(topology, last >= 0 ? (unsigned)last + 1 : 0, NULL, home);
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) && n < (unsigned)npu) {
		hwloc_obj_t node = (int)pu->os_index <= last ? home[pu->os_index] : NULL;
		struct cpu_rec *r = &rec[n++];

		cpu_place(pu, r);
		r->node = node ? obj_id(node) : 0;
	}
	free(home);
	for (i = 1; i < n && rec[i - 1].cpu < rec[i].cpu; i++)
		;
	if (i < n) /* PUs in logical order are mostly in os order already */
		qsort(rec, n, sizeof(*rec), cmp_rec);

	t = xcalloc(1, sizeof(*t));
	t->ncpus = n;
	t->cpu = xmalloc(n * sizeof(int));
	t->socket = xmalloc(n * sizeof(int));
	t->node = xmalloc(n * sizeof(int));
	t->core = xmalloc(n * sizeof(int));
	t->uncore = xmalloc(n * sizeof(int));
	for (i = 0; i < n; i++) {
		t->cpu[i] = rec[i].cpu;
		t->socket[i] = rec[i].socket;
		t->node[i] = rec[i].node;
		t->core[i] = rec[i].core;
		t->uncore[i] = rec[i].uncore;
	}
	free(rec);

	p = xcalloc(1, sizeof(*p));
	level_build(&p->lv[L_SOCKET], t->socket, n);
	level_build(&p->lv[L_NODE], t->node, n);
	level_build(&p->lv[L_CORE], t->core, n);
	level_build(&p->lv[L_UNCORE], t->uncore, n);
	t->num_cpus = n;
	t->num_cores = p->lv[L_CORE].n;
	t->num_sockets = p->lv[L_SOCKET].n;
	t->num_nodes = p->lv[L_NODE].n;
	t->num_uncore = p->lv[L_UNCORE].n;
	/* From the totals, as the kubelet's CPUsPerCore() and friends do. */
	t->threads_per_core = t->num_cores ? t->num_cpus / t->num_cores : 0;
	t->cpus_per_socket = t->num_sockets ? t->num_cpus / t->num_sockets : 0;
	t->cpus_per_uncore = t->num_uncore ? t->num_cpus / t->num_uncore : 0;

	{
		hwloc_bitmap_t ns = hwloc_bitmap_alloc();

		for (i = 0; i < p->lv[L_NODE].n; i++)
			hwloc_bitmap_set(ns, (unsigned)p->lv[L_NODE].id[i]);
		p->distance = rm_tm_distances(topo, ns, p->lv[L_NODE].n);
		hwloc_bitmap_free(ns);
	}
	t->priv = p;
	return t;
}

void rm_cputopo_free(struct rm_cputopo *t)
{
	struct priv *p;
	int l;

	if (!t)
		return;
	p = t->priv;
	for (l = 0; l < NLEVELS; l++) {
		free(p->lv[l].id);
		free(p->lv[l].first);
		free(p->lv[l].cpus);
		free(p->lv[l].of);
	}
	free(p->distance);
	free(p);
	free(t->cpu);
	free(t->socket);
	free(t->node);
	free(t->core);
	free(t->uncore);
	free(t);
}

/* Bitmap -> per-entry flags; returns how many known CPUs it holds. */
static unsigned to_flags(const struct rm_cputopo *t, hwloc_const_bitmap_t set,
			 unsigned char *flags)
{
	unsigned i, n = 0;

	for (i = 0; i < t->ncpus; i++) {
		flags[i] = set && hwloc_bitmap_isset(set, t->cpu[i]);
		n += flags[i];
	}
	return n;
}

static void to_bitmap(const struct rm_cputopo *t, const unsigned char *flags, hwloc_bitmap_t set)
{
	unsigned i;

	hwloc_bitmap_zero(set);
	for (i = 0; i < t->ncpus; i++)
		if (flags[i])
			hwloc_bitmap_set(set, t->cpu[i]);
}

/* ---- the accumulator (cpuAccumulator) ---- */

struct acc {
	const struct rm_cputopo *t;
	const struct priv *p;
	unsigned char *avail; /* still free */
	unsigned char *taken; /* the result */
	unsigned *cnt[NLEVELS]; /* free CPUs per element */
	unsigned nfree;
	long need;
	bool numa_first, spread;
};

/* A list of element (or entry) indexes. */
struct list {
	unsigned n, cap;
	unsigned *v;
};

static void list_add(struct list *l, unsigned x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = x;
}

static void acc_init(struct acc *a, const struct rm_cputopo *t, const unsigned char *avail,
		     long need, bool spread)
{
	unsigned i;
	int l;

	a->t = t;
	a->p = PRIV(t);
	a->avail = xmalloc(t->ncpus);
	a->taken = xcalloc(t->ncpus, 1);
	memcpy(a->avail, avail, t->ncpus);
	a->need = need;
	a->spread = spread;
	/* More NUMA nodes than sockets: sockets are the outer level. 0 NUMA nodes: NUMA-first. */
	a->numa_first = t->num_sockets >= t->num_nodes;
	a->nfree = 0;
	for (l = 0; l < NLEVELS; l++)
		a->cnt[l] = xcalloc(a->p->lv[l].n, sizeof(unsigned));
	for (i = 0; i < t->ncpus; i++) {
		if (!avail[i])
			continue;
		a->nfree++;
		for (l = 0; l < NLEVELS; l++)
			a->cnt[l][a->p->lv[l].of[i]]++;
	}
}

static void acc_fini(struct acc *a)
{
	int l;

	free(a->avail);
	free(a->taken);
	for (l = 0; l < NLEVELS; l++)
		free(a->cnt[l]);
}

static void acc_mark(struct acc *a, unsigned e)
{
	int l;

	a->taken[e] = 1;
	if (!a->avail[e])
		return;
	a->avail[e] = 0;
	a->nfree--;
	for (l = 0; l < NLEVELS; l++)
		a->cnt[l][a->p->lv[l].of[e]]--;
}

/* take(): the need drops by the size of the set, whether or not it was all new. */
static void acc_take(struct acc *a, const unsigned *entries, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		acc_mark(a, entries[i]);
	a->need -= n;
}

/* Take every CPU of element E of level L. */
static void acc_take_elem(struct acc *a, int l, unsigned e)
{
	const struct level *lv = &a->p->lv[l];

	acc_take(a, lv->cpus + lv->first[e], level_size(lv, e));
}

static bool acc_satisfied(const struct acc *a)
{
	return a->need < 1;
}

/* Fewest free CPUs first, lowest id on a tie (element indexes follow id order). */
static int cmp_elem(const void *x, const void *y, void *ctx)
{
	const unsigned *cnt = ctx;
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;

	if (cnt[a] != cnt[b])
		return cnt[a] < cnt[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static void sort_elems(unsigned *v, unsigned n, const unsigned *cnt)
{
	qsort_r(v, n, sizeof(*v), cmp_elem, (void *)cnt);
}

/* Elements of level L that still have a free CPU, sorted. */
static void order_top(const struct acc *a, int l, struct list *out)
{
	unsigned e, start = out->n;

	for (e = 0; e < a->p->lv[l].n; e++)
		if (a->cnt[l][e])
			list_add(out, e);
	sort_elems(out->v + start, out->n - start, a->cnt[l]);
}

/*
 * For each element of OUTER (level LO, in that order): the elements of level LI holding its free
 * CPUs, sorted by their own free count; concatenated. An inner element spanning several outer
 * ones appears once per outer element, as in the kubelet.
 */
static void order_nested(const struct acc *a, const struct list *outer, int lo, int li,
			 struct list *out)
{
	const struct level *lv = &a->p->lv[lo];
	unsigned char *seen = xcalloc(a->p->lv[li].n ? a->p->lv[li].n : 1, 1);
	unsigned i, j;

	for (i = 0; i < outer->n; i++) {
		unsigned o = outer->v[i], start = out->n;

		for (j = lv->first[o]; j < lv->first[o + 1]; j++) {
			unsigned e = lv->cpus[j], in = a->p->lv[li].of[e];

			if (a->avail[e] && !seen[in]) {
				seen[in] = 1;
				list_add(out, in);
			}
		}
		for (j = start; j < out->n; j++)
			seen[out->v[j]] = 0;
		sort_elems(out->v + start, out->n - start, a->cnt[li]);
	}
	free(seen);
}

static void sorted_nodes(const struct acc *a, struct list *out);

static void sorted_sockets(const struct acc *a, struct list *out)
{
	struct list nodes = { 0 };

	if (!a->numa_first) {
		order_top(a, L_SOCKET, out);
		return;
	}
	sorted_nodes(a, &nodes);
	order_nested(a, &nodes, L_NODE, L_SOCKET, out);
	free(nodes.v);
}

static void sorted_nodes(const struct acc *a, struct list *out)
{
	struct list sockets = { 0 };

	if (a->numa_first) {
		order_top(a, L_NODE, out);
		return;
	}
	sorted_sockets(a, &sockets);
	order_nested(a, &sockets, L_SOCKET, L_NODE, out);
	free(sockets.v);
}

static void sorted_cores(const struct acc *a, struct list *out)
{
	struct list outer = { 0 };

	if (a->numa_first) {
		sorted_sockets(a, &outer);
		order_nested(a, &outer, L_SOCKET, L_CORE, out);
	} else {
		sorted_nodes(a, &outer);
		order_nested(a, &outer, L_NODE, L_CORE, out);
	}
	free(outer.v);
}

static void sorted_uncores(const struct acc *a, struct list *out)
{
	struct list nodes = { 0 };

	sorted_nodes(a, &nodes);
	order_nested(a, &nodes, L_NODE, L_UNCORE, out);
	free(nodes.v);
}

/* Free entries of the listed elements, each element's in ascending CPU order. */
static void free_cpus_of(const struct acc *a, const struct list *elems, int l,
			 struct list *out)
{
	const struct level *lv = &a->p->lv[l];
	unsigned i, j;

	for (i = 0; i < elems->n; i++)
		for (j = lv->first[elems->v[i]]; j < lv->first[elems->v[i] + 1]; j++)
			if (a->avail[lv->cpus[j]])
				list_add(out, lv->cpus[j]);
}

/* CPU order: by core ("packed"), or by socket ignoring cores ("spread"). */
static void sorted_cpus(const struct acc *a, struct list *out)
{
	struct list elems = { 0 };

	if (a->spread) {
		sorted_sockets(a, &elems);
		free_cpus_of(a, &elems, L_SOCKET, out);
	} else {
		sorted_cores(a, &elems);
		free_cpus_of(a, &elems, L_CORE, out);
	}
	free(elems.v);
}

/*
 * Is element E completely free? Sockets and cores compare with the ratio derived from the totals,
 * NUMA nodes and uncore caches with their real size (as the kubelet does). Where the kubelet would
 * call a unit free although some of its CPUs are not available (units of uneven size, e.g. with
 * CPUs offline) and then hand them out, we also require every CPU to be free.
 */
static bool elem_free(const struct acc *a, int l, unsigned e)
{
	unsigned size = level_size(&a->p->lv[l], e), c = a->cnt[l][e];

	if (l == L_SOCKET && c != a->t->cpus_per_socket)
		return false;
	if (l == L_CORE && c != a->t->threads_per_core)
		return false;
	return c == size;
}

/* takeFullNUMANodes, takeFullSockets, takeFullCores, and the full part of takeUncoreCache. */
static void take_full(struct acc *a, int l)
{
	struct list all = { 0 };
	struct list freel = { 0 };
	unsigned i;

	if (l == L_NODE)
		sorted_nodes(a, &all);
	else if (l == L_SOCKET)
		sorted_sockets(a, &all);
	else if (l == L_CORE)
		sorted_cores(a, &all);
	else
		sorted_uncores(a, &all);
	/* the list of free units is computed once, before taking any */
	for (i = 0; i < all.n; i++)
		if (elem_free(a, l, all.v[i]))
			list_add(&freel, all.v[i]);
	for (i = 0; i < freel.n; i++) {
		if (a->need < (long)level_size(&a->p->lv[l], freel.v[i]))
			continue;
		acc_take_elem(a, l, freel.v[i]);
	}
	free(all.v);
	free(freel.v);
}

/*
 * takePartialUncore: the lowest-numbered cores of cache U that still have free CPUs, enough
 * cores for the need; an odd need on an SMT machine drops the highest CPU; taken only if that
 * makes exactly the need.
 */
static void take_partial_uncore(struct acc *a, unsigned u)
{
	const struct level *ul = &a->p->lv[L_UNCORE], *cl = &a->p->lv[L_CORE];
	unsigned tpc = a->t->threads_per_core;
	unsigned long want = tpc ? (a->need + tpc - 1) / tpc : 0;
	unsigned char *pick = xcalloc(cl->n, 1);
	struct list cores = { 0 }, cpus = { 0 };
	unsigned i, j;

	for (j = ul->first[u]; j < ul->first[u + 1]; j++) {
		unsigned e = ul->cpus[j];

		if (a->avail[e] && !pick[cl->of[e]]) {
			pick[cl->of[e]] = 1;
			list_add(&cores, cl->of[e]);
		}
	}
	/* ascending core id; keep the first WANT. A cache emptied by the whole-cache step just
	 * before has no core left (and qsort takes no NULL list, even an empty one). */
	if (cores.n)
		qsort(cores.v, cores.n, sizeof(*cores.v), cmp_unsigned);
	memset(pick, 0, cl->n);
	for (i = 0; i < cores.n && i < want; i++)
		pick[cores.v[i]] = 1;
	for (i = 0; i < a->t->ncpus; i++)
		if (a->avail[i] && pick[cl->of[i]])
			list_add(&cpus, i);
	if (a->need % 2 && tpc > 1 && cpus.n > (unsigned long)a->need)
		cpus.n--;
	if (cpus.n == (unsigned long)a->need)
		acc_take(a, cpus.v, cpus.n);
	free(pick);
	free(cores.v);
	free(cpus.v);
}

static void take_uncore(struct acc *a)
{
	struct list order = { 0 };
	unsigned i;

	sorted_uncores(a, &order);
	for (i = 0; i < order.n; i++) {
		if (a->need >= (long)a->t->cpus_per_uncore)
			take_full(a, L_UNCORE);
		if (acc_satisfied(a))
			break;
		take_partial_uncore(a, order.v[i]);
		if (acc_satisfied(a))
			break;
	}
	free(order.v);
}

static void take_remaining(struct acc *a)
{
	struct list order = { 0 };
	unsigned i;

	sorted_cpus(a, &order);
	for (i = 0; i < order.n; i++) {
		acc_take(a, &order.v[i], 1);
		if (acc_satisfied(a))
			break;
	}
	free(order.v);
}

static int not_enough(char **errmsg, long requested, unsigned available)
{
	*errmsg = xasprintf("not enough free CPUs: requested %ld, available %u", requested,
			    available);
	return RM_CPUALLOC_ENOSPC;
}

/* takeByTopologyNUMAPacked over the entries flagged in AVAIL; RES gets the flags of the result. */
static int take_packed(const struct rm_cputopo *t, const unsigned char *avail, long n,
		       bool spread, bool uncore, unsigned char *res, char **errmsg)
{
	struct acc a;
	int rc = 0;

	acc_init(&a, t, avail, n, spread);
	if (acc_satisfied(&a))
		goto out;
	if (a.need > (long)a.nfree) {
		rc = not_enough(errmsg, n, a.nfree);
		goto out;
	}
	take_full(&a, a.numa_first ? L_NODE : L_SOCKET);
	if (acc_satisfied(&a))
		goto out;
	take_full(&a, a.numa_first ? L_SOCKET : L_NODE);
	if (acc_satisfied(&a))
		goto out;
	if (uncore) {
		take_uncore(&a);
		if (acc_satisfied(&a))
			goto out;
	}
	if (!spread) {
		take_full(&a, L_CORE);
		if (acc_satisfied(&a))
			goto out;
	}
	take_remaining(&a);
	if (!acc_satisfied(&a)) {
		*errmsg = xasprintf("failed to allocate cpus");
		rc = RM_CPUALLOC_EINTERNAL;
	}
out:
	if (rc == 0)
		memcpy(res, a.taken, t->ncpus);
	else
		memset(res, 0, t->ncpus);
	acc_fini(&a);
	return rc;
}

/* ---- distributed (takeByTopologyNUMADistributed) ---- */

/* Population standard deviation, mean and result rounded to 3 decimals, as the kubelet does. */
static double balance(const long *v, unsigned n)
{
	double sum = 0, mean, sq = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		sum += v[i];
	mean = round(sum / n * 1000) / 1000;
	for (i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	return round(sqrt(sq / n) * 1000) / 1000;
}

/* Next k-subset of {0..n-1} in lexicographic order; false after the last. */
static bool next_combo(unsigned *c, unsigned k, unsigned n)
{
	int i = k - 1;

	while (i >= 0 && c[i] == n - k + i)
		i--;
	if (i < 0)
		return false;
	c[i]++;
	for (unsigned j = i + 1; j < k; j++)
		c[j] = c[j - 1] + 1;
	return true;
}

static void first_combo(unsigned *c, unsigned k)
{
	for (unsigned i = 0; i < k; i++)
		c[i] = i;
}

/* Hand out REM CPUs G at a time, round-robin over SUB (indexes into AFTER). */
static void hand_out(long *after, const unsigned *sub, unsigned nsub, long rem, long g)
{
	while (rem > 0) {
		long before = rem;

		for (unsigned i = 0; i < nsub && rem > 0; i++) {
			if (after[sub[i]] < g)
				continue;
			after[sub[i]] -= g;
			rem -= g;
		}
		if (rem == before) /* cannot happen once the groups were counted; never spin */
			break;
	}
}

/* Are all CPUs of these NUMA nodes in one socket? */
static bool nodes_in_one_socket(const struct rm_cputopo *t, const unsigned *nodes, unsigned n)
{
	const struct level *nl = &PRIV(t)->lv[L_NODE];
	unsigned i, j;
	int socket = -1;

	for (i = 0; i < n; i++)
		for (j = nl->first[nodes[i]]; j < nl->first[nodes[i] + 1]; j++) {
			unsigned s = PRIV(t)->lv[L_SOCKET].of[nl->cpus[j]];

			if (socket >= 0 && (unsigned)socket != s)
				return false;
			socket = s;
		}
	return true;
}

/* The entries of node E still free in A. */
static void node_avail(const struct acc *a, unsigned e, unsigned char *out)
{
	const struct level *nl = &a->p->lv[L_NODE];

	memset(out, 0, a->t->ncpus);
	for (unsigned j = nl->first[e]; j < nl->first[e + 1]; j++)
		out[nl->cpus[j]] = a->avail[nl->cpus[j]];
}

/* Take N CPUs of node E by the packed rules; errors are ignored, as the kubelet does. */
static void take_from_node(struct acc *a, unsigned e, long n)
{
	unsigned ncpus = a->t->ncpus;
	unsigned char *sub = xmalloc(ncpus), *res = xmalloc(ncpus);
	struct list got = { 0 };
	char *msg = NULL;

	node_avail(a, e, sub);
	if (take_packed(a->t, sub, n, a->spread, false, res, &msg) == 0) {
		for (unsigned i = 0; i < ncpus; i++)
			if (res[i])
				list_add(&got, i);
		acc_take(a, got.v, got.n);
	}
	free(msg);
	free(got.v);
	free(sub);
	free(res);
}

/* One distributed take: the candidate NUMA nodes and scratch space. */
struct spread {
	struct acc *a;
	long n, g;
	bool align;
	unsigned nn;      /* candidates: NUMA nodes with free CPUs, in the usual order, each once */
	unsigned *node;   /* their element indexes */
	long *fc;         /* their free CPUs */
	long *after, *work;
	unsigned *rem, *sub, *c, *ids; /* scratch, one per candidate */
};

/*
 * Score the candidates COMBO (K indexes into the candidates): false when they cannot share the
 * request; else *SCORE is the balance after the even shares and the best hand-out of the
 * remainder, whose receivers go to BEST_REM (*NBEST_REM of them).
 */
static bool score_combo(struct spread *sp, const unsigned *combo, unsigned k, double *score,
			unsigned *best_rem, unsigned *nbest_rem)
{
	long total = 0, grouped = 0, share, remainder, g = sp->g;
	unsigned i, kk, nrem = 0;

	for (i = 0; i < k; i++) {
		total += sp->fc[combo[i]];
		grouped += sp->fc[combo[i]] / g;
	}
	if (total < sp->n || grouped * g < sp->n)
		return false;
	share = sp->n / k / g * g;
	for (i = 0; sp->align && i < k; i++) /* never more than a member can give */
		if (sp->fc[combo[i]] / g * g < share)
			share = sp->fc[combo[i]] / g * g;
	for (i = 0; i < k; i++)
		if (sp->fc[combo[i]] < share)
			return false;

	memcpy(sp->after, sp->fc, sp->nn * sizeof(*sp->after));
	for (i = 0; i < k; i++)
		sp->after[combo[i]] -= share;
	remainder = sp->n - share * k;
	*nbest_rem = 0;
	if (remainder == 0) {
		*score = balance(sp->after, sp->nn);
		return true;
	}
	for (i = 0; i < k; i++)
		if (sp->after[combo[i]] >= g)
			sp->rem[nrem++] = combo[i];
	/* receivers: the largest subsets first, each size in lexicographic order; the first best
	 * stays (some subset always fits, see the group count above) */
	*score = DBL_MAX;
	for (kk = nrem; kk >= 1; kk--) {
		unsigned *c = sp->c;

		first_combo(c, kk);
		do {
			long groups = 0;
			double b;

			for (i = 0; i < kk; i++) {
				sp->sub[i] = sp->rem[c[i]];
				groups += sp->after[sp->sub[i]] / g;
			}
			if (groups * g < remainder)
				continue;
			memcpy(sp->work, sp->after, sp->nn * sizeof(*sp->work));
			hand_out(sp->work, sp->sub, kk, remainder, g);
			b = balance(sp->work, sp->nn);
			if (b < *score) {
				*score = b;
				*nbest_rem = kk;
				memcpy(best_rem, sp->sub, kk * sizeof(*sp->sub));
			}
		} while (next_combo(c, kk, nrem));
	}
	return true;
}

/*
 * The best K candidates: lowest score, the first on ties, a perfect 0 ends the search; with
 * align-by-socket, sets within one socket beat the others. False when no K candidates can do.
 */
static bool choose_combo(struct spread *sp, unsigned k, unsigned *best, unsigned *best_rem,
			 unsigned *nbest_rem)
{
	unsigned *combo = xcalloc(k, sizeof(*combo)), *rem = xcalloc(sp->nn, sizeof(*rem));
	unsigned nrem, i;
	double best_score = DBL_MAX, score;
	bool found = false, best_one_socket = false;

	first_combo(combo, k);
	do {
		bool one_socket = false, better;

		if (found && best_score == 0 && (!sp->align || best_one_socket))
			break;
		if (!score_combo(sp, combo, k, &score, rem, &nrem))
			continue;
		if (sp->align) {
			for (i = 0; i < k; i++)
				sp->ids[i] = sp->node[combo[i]];
			one_socket = nodes_in_one_socket(sp->a->t, sp->ids, k);
		}
		better = score < best_score;
		if (sp->align && one_socket != best_one_socket)
			better = one_socket;
		if (!better)
			continue;
		found = true;
		best_score = score;
		best_one_socket = one_socket;
		memcpy(best, combo, k * sizeof(*combo));
		memcpy(best_rem, rem, nrem * sizeof(*rem));
		*nbest_rem = nrem;
	} while (next_combo(combo, k, sp->nn));
	free(combo);
	free(rem);
	return found;
}

/* Give each chosen node its share by the packed rules, then the remainder G CPUs at a time. */
static void give_shares(struct spread *sp, const unsigned *best, unsigned k,
			const unsigned *best_rem, unsigned nbest_rem)
{
	struct acc *a = sp->a;
	long share = sp->n / k / sp->g * sp->g, remainder;
	unsigned i;

	for (i = 0; i < k; i++) {
		long can = (long)a->cnt[L_NODE][sp->node[best[i]]] / sp->g * sp->g;

		if (can < share)
			share = can;
	}
	for (i = 0; i < k; i++)
		take_from_node(a, sp->node[best[i]], share);
	remainder = sp->n - share * k;
	while (remainder > 0) {
		long before = remainder;

		for (i = 0; i < nbest_rem && remainder > 0; i++) {
			unsigned e = sp->node[best_rem[i]];

			if ((long)a->cnt[L_NODE][e] < sp->g)
				continue;
			take_from_node(a, e, sp->g);
			remainder -= sp->g;
		}
		if (remainder == before) /* the accounting check below reports it */
			break;
	}
}

/* takeByTopologyNUMADistributed: spread N CPUs evenly, in groups of G, over the fewest nodes. */
static int take_distributed(const struct rm_cputopo *t, const unsigned char *avail, long n,
			    long g, bool spread, bool align, unsigned char *res, char **errmsg)
{
	struct spread sp = { .n = n, .g = g, .align = align };
	struct list all = { 0 };
	struct acc a;
	unsigned char *seen;
	unsigned *best, *best_rem, nbest_rem = 0, k, kmin, kmax, i;
	long groups, per_node, needed;
	int rc = 0;
	bool done = false;

	if (n % g)
		return take_packed(t, avail, n, spread, false, res, errmsg);
	acc_init(&a, t, avail, n, spread);
	if (acc_satisfied(&a))
		goto out;
	if (a.need > (long)a.nfree) {
		rc = not_enough(errmsg, n, a.nfree);
		goto out;
	}

	sp.a = &a;
	sorted_nodes(&a, &all);
	seen = xcalloc(a.p->lv[L_NODE].n, 1);
	sp.node = xcalloc(all.n, sizeof(*sp.node));
	for (i = 0; i < all.n; i++)
		if (!seen[all.v[i]]) {
			seen[all.v[i]] = 1;
			sp.node[sp.nn++] = all.v[i];
		}
	free(seen);
	free(all.v);
	sp.fc = xcalloc(sp.nn, sizeof(*sp.fc));
	sp.after = xcalloc(sp.nn, sizeof(*sp.after));
	sp.work = xcalloc(sp.nn, sizeof(*sp.work));
	sp.rem = xcalloc(sp.nn, sizeof(*sp.rem));
	sp.sub = xcalloc(sp.nn, sizeof(*sp.sub));
	sp.c = xcalloc(sp.nn, sizeof(*sp.c));
	sp.ids = xcalloc(sp.nn, sizeof(*sp.ids));
	best = xcalloc(sp.nn, sizeof(*best));
	best_rem = xcalloc(sp.nn, sizeof(*best_rem));
	for (i = 0; i < sp.nn; i++)
		sp.fc[i] = a.cnt[L_NODE][sp.node[i]];

	/* rangeNUMANodesNeededToSatisfy, from the CPUs and nodes of the whole machine */
	groups = (t->ncpus - 1) / g + 1;
	per_node = (groups - 1) / a.p->lv[L_NODE].n + 1;
	needed = (n - 1) / g + 1;
	kmin = (needed - 1) / per_node + 1;
	kmax = needed < (long)sp.nn ? needed : sp.nn;

	for (k = kmin; k <= kmax && !done; k++) {
		if (!choose_combo(&sp, k, best, best_rem, &nbest_rem))
			continue;
		give_shares(&sp, best, k, best_rem, nbest_rem);
		if (a.need > 0) {
			*errmsg = xasprintf("accounting error, not enough CPUs allocated, "
					    "remaining: %ld", a.need);
			rc = RM_CPUALLOC_EINTERNAL;
		} else if (a.need < 0) {
			*errmsg = xasprintf("accounting error, too many CPUs allocated, "
					    "remaining: %ld", a.need);
			rc = RM_CPUALLOC_EINTERNAL;
		}
		done = true;
	}
	free(sp.node);
	free(sp.fc);
	free(sp.after);
	free(sp.work);
	free(sp.rem);
	free(sp.sub);
	free(sp.c);
	free(sp.ids);
	free(best);
	free(best_rem);
	if (!done) {
		/* no set of nodes shares it evenly: pack over everything */
		acc_fini(&a);
		return take_packed(t, avail, n, spread, false, res, errmsg);
	}
out:
	if (rc == 0)
		memcpy(res, a.taken, t->ncpus);
	else
		memset(res, 0, t->ncpus);
	acc_fini(&a);
	return rc;
}

/* The policy's takeByTopology, on entry flags. */
static int take(const struct rm_cputopo *t, const unsigned char *avail, long n,
		const struct rm_cpualloc_opts *o, unsigned char *res, char **errmsg)
{
	static const struct rm_cpualloc_opts none;

	if (!o)
		o = &none;
	if (o->distribute_cpus_across_numa) {
		long g = o->full_pcpus_only && t->threads_per_core ? t->threads_per_core : 1;

		return take_distributed(t, avail, n, g, o->distribute_cpus_across_cores,
					o->align_by_socket, res, errmsg);
	}
	return take_packed(t, avail, n, o->distribute_cpus_across_cores,
			   o->prefer_align_cpus_by_uncorecache, res, errmsg);
}

/* ---- options ---- */

static const struct {
	const char *name;
	size_t off;
} opt_names[] = {
	{ "full-pcpus-only", offsetof(struct rm_cpualloc_opts, full_pcpus_only) },
	{ "distribute-cpus-across-numa",
	  offsetof(struct rm_cpualloc_opts, distribute_cpus_across_numa) },
	{ "align-by-socket", offsetof(struct rm_cpualloc_opts, align_by_socket) },
	{ "distribute-cpus-across-cores",
	  offsetof(struct rm_cpualloc_opts, distribute_cpus_across_cores) },
	{ "prefer-align-cpus-by-uncorecache",
	  offsetof(struct rm_cpualloc_opts, prefer_align_cpus_by_uncorecache) },
};

int rm_cpualloc_opt_parse(struct rm_cpualloc_opts *o, const char *arg, char **errmsg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	unsigned i;

	for (i = 0; i < sizeof(opt_names) / sizeof(opt_names[0]); i++) {
		bool *field = (bool *)((char *)o + opt_names[i].off);

		if (strlen(opt_names[i].name) != len || strncmp(arg, opt_names[i].name, len))
			continue;
		if (!eq) {
			*field = true;
			return 0;
		}
		if (rm_tm_parse_bool(eq + 1) >= 0) {
			*field = rm_tm_parse_bool(eq + 1);
			return 0;
		}
		*errmsg = xasprintf("bad value for CPU manager option %.*s: '%s'", (int)len, arg,
				    eq + 1);
		return RM_CPUALLOC_EINVAL;
	}
	/* topologyManagerPolicyOptions go with them */
	if ((len == strlen("prefer-closest-numa-nodes") &&
	     !strncmp(arg, "prefer-closest-numa-nodes", len)) ||
	    (len == strlen("max-allowable-numa-nodes") &&
	     !strncmp(arg, "max-allowable-numa-nodes", len)))
		return rm_tm_opt_parse(&o->tm, arg, errmsg);
	*errmsg = xasprintf("unknown CPU manager option: '%.*s'", (int)len, arg);
	return RM_CPUALLOC_EINVAL;
}

int rm_cpualloc_check_opts(const struct rm_cputopo *t, const struct rm_cpualloc_opts *o,
			   enum rm_tm_policy policy, char **errmsg)
{
	static const struct {
		size_t a, b;
	} pairs[] = {
		{ offsetof(struct rm_cpualloc_opts, full_pcpus_only),
		  offsetof(struct rm_cpualloc_opts, distribute_cpus_across_cores) },
		{ offsetof(struct rm_cpualloc_opts, distribute_cpus_across_numa),
		  offsetof(struct rm_cpualloc_opts, distribute_cpus_across_cores) },
		{ offsetof(struct rm_cpualloc_opts, prefer_align_cpus_by_uncorecache),
		  offsetof(struct rm_cpualloc_opts, distribute_cpus_across_cores) },
		{ offsetof(struct rm_cpualloc_opts, prefer_align_cpus_by_uncorecache),
		  offsetof(struct rm_cpualloc_opts, distribute_cpus_across_numa) },
	};
	unsigned i;

	/* the kubelet's order: option pairs when parsing, then the machine and the policy */
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const char *name_a = NULL, *name_b = NULL;

		if (!*(const bool *)((const char *)o + pairs[i].a) ||
		    !*(const bool *)((const char *)o + pairs[i].b))
			continue;
		for (unsigned j = 0; j < sizeof(opt_names) / sizeof(opt_names[0]); j++) {
			if (opt_names[j].off == pairs[i].a)
				name_a = opt_names[j].name;
			if (opt_names[j].off == pairs[i].b)
				name_b = opt_names[j].name;
		}
		*errmsg = xasprintf("options %s and %s cannot be used together", name_a, name_b);
		return RM_CPUALLOC_EINVAL;
	}
	if (o->align_by_socket && policy == RM_TM_SINGLE_NUMA_NODE) {
		*errmsg = xasprintf("option align-by-socket cannot be used with the "
				    "single-numa-node topology manager policy");
		return RM_CPUALLOC_EINVAL;
	}
	if (o->align_by_socket && t->num_sockets > t->num_nodes) {
		*errmsg = xasprintf("option align-by-socket needs at least as many NUMA nodes "
				    "as sockets (%u sockets, %u NUMA nodes)", t->num_sockets,
				    t->num_nodes);
		return RM_CPUALLOC_EINVAL;
	}
	return 0;
}

/* ---- the static policy ---- */

int rm_cpualloc_take(const struct rm_cputopo *t, hwloc_const_bitmap_t available, unsigned count,
		     const struct rm_cpualloc_opts *o, hwloc_bitmap_t result, char **errmsg)
{
	unsigned char *avail = xmalloc(t->ncpus), *res = xmalloc(t->ncpus);
	int rc;

	hwloc_bitmap_zero(result);
	if (o && o->full_pcpus_only && t->threads_per_core && count % t->threads_per_core) {
		*errmsg = xasprintf("requested %u CPUs, not a multiple of the %u CPUs per core",
				    count, t->threads_per_core);
		rc = RM_CPUALLOC_EINVAL;
		goto out;
	}
	to_flags(t, available, avail);
	rc = take(t, avail, count, o, res, errmsg);
	if (rc == 0)
		to_bitmap(t, res, result);
out:
	free(avail);
	free(res);
	return rc;
}

static int check_nodes(const struct rm_cputopo *t, hwloc_const_bitmap_t nodes, char **errmsg)
{
	const struct level *nl = &PRIV(t)->lv[L_NODE];
	int id;

	hwloc_bitmap_foreach_begin(id, nodes)
	{
		if (!bsearch(&id, nl->id, nl->n, sizeof(int), cmp_int)) {
			*errmsg = xasprintf("no NUMA node %d with CPUs", id);
			return RM_CPUALLOC_EINVAL;
		}
	}
	hwloc_bitmap_foreach_end();
	return 0;
}

/*
 * enforceSMTAlignment: whole cores only, and enough of them once every core holding a reserved
 * CPU is left out (reserving single threads must not let a container get split cores, #113537).
 */
static int check_full_pcpus(const struct rm_cputopo *t, const unsigned char *shared,
			    const unsigned char *resv, unsigned count, char **errmsg)
{
	const struct level *cl = &PRIV(t)->lv[L_CORE];
	unsigned char *rcore;
	unsigned phys = 0, i;

	if (t->threads_per_core && count % t->threads_per_core) {
		*errmsg = xasprintf("requested %u CPUs, not a multiple of the %u CPUs per core",
				    count, t->threads_per_core);
		return RM_CPUALLOC_EINVAL;
	}
	rcore = xcalloc(cl->n, 1);
	for (i = 0; i < t->ncpus; i++)
		if (resv[i])
			rcore[cl->of[i]] = 1;
	for (i = 0; i < t->ncpus; i++)
		phys += shared[i] && !rcore[cl->of[i]];
	free(rcore);
	if (count > phys) {
		*errmsg = xasprintf("not enough free physical CPUs: requested %u, available %u "
				    "(%u CPUs per core)", count, phys, t->threads_per_core);
		return RM_CPUALLOC_ENOSPC;
	}
	return 0;
}

/* getAlignedCPUs: the CPUs of AVAIL in the hinted nodes, or in the sockets holding them. */
static unsigned hint_aligned(const struct rm_cputopo *t, const unsigned char *avail,
			     hwloc_const_bitmap_t hint_nodes, bool by_socket,
			     unsigned char *aligned)
{
	const struct level *sl = &PRIV(t)->lv[L_SOCKET];
	unsigned char *sockets = xcalloc(sl->n, 1);
	unsigned i, n = 0;

	for (i = 0; i < t->ncpus; i++)
		if (hwloc_bitmap_isset(hint_nodes, t->node[i]))
			sockets[sl->of[i]] = 1;
	for (i = 0; i < t->ncpus; i++) {
		aligned[i] = avail[i] && (by_socket ? sockets[sl->of[i]] :
					  hwloc_bitmap_isset(hint_nodes, t->node[i]));
		n += aligned[i];
	}
	free(sockets);
	return n;
}

int rm_cpualloc_allocate(const struct rm_cputopo *t, hwloc_const_bitmap_t shared,
			 hwloc_const_bitmap_t reserved, unsigned count,
			 const struct rm_cpualloc_opts *o, hwloc_const_bitmap_t hint_nodes,
			 hwloc_bitmap_t result, char **errmsg)
{
	unsigned n = t->ncpus, i, navail = 0, got = 0;
	unsigned char *avail = xmalloc(n), *resv = xmalloc(n), *res = xcalloc(n, 1);
	unsigned char *part = xmalloc(n), *more = xmalloc(n);
	int rc = 0;

	hwloc_bitmap_zero(result);
	to_flags(t, shared, avail);
	to_flags(t, reserved, resv);
	if (hint_nodes && (rc = check_nodes(t, hint_nodes, errmsg)))
		goto out;
	if (count == 0)
		goto out;
	if (o && o->full_pcpus_only && (rc = check_full_pcpus(t, avail, resv, count, errmsg)))
		goto out;
	for (i = 0; i < n; i++) {
		avail[i] = avail[i] && !resv[i];
		navail += avail[i];
	}
	/* the kubelet fails the same way, after taking the aligned part */
	if (count > navail) {
		rc = not_enough(errmsg, count, navail);
		goto out;
	}
	if (hint_nodes && !hwloc_bitmap_iszero(hint_nodes)) {
		unsigned naligned = hint_aligned(t, avail, hint_nodes, o && o->align_by_socket,
						 part);

		rc = take(t, part, naligned < count ? naligned : count, o, res, errmsg);
		if (rc)
			goto out;
	}
	/* the rest from what is left */
	for (i = 0; i < n; i++) {
		part[i] = avail[i] && !res[i];
		got += res[i];
	}
	rc = take(t, part, (long)count - got, o, more, errmsg);
	for (i = 0; rc == 0 && i < n; i++)
		res[i] |= more[i];
	if (rc == 0)
		to_bitmap(t, res, result);
out:
	free(avail);
	free(resv);
	free(res);
	free(part);
	free(more);
	return rc;
}

int rm_cpualloc_reserve(const struct rm_cputopo *t, unsigned count,
			const struct rm_cpualloc_opts *o, hwloc_bitmap_t result, char **errmsg)
{
	unsigned char *all = xmalloc(t->ncpus), *res = xmalloc(t->ncpus);
	unsigned got = 0, i;
	int rc;

	hwloc_bitmap_zero(result);
	memset(all, 1, t->ncpus);
	/* no SMT check here: the kubelet reserves any count, whole cores or not */
	rc = take(t, all, count, o, res, errmsg);
	for (i = 0; rc == 0 && i < t->ncpus; i++)
		got += res[i];
	if (rc == 0 && got != count) {
		*errmsg = xasprintf("unable to reserve %u CPUs (got %u)", count, got);
		rc = RM_CPUALLOC_ENOSPC;
	}
	if (rc == 0)
		to_bitmap(t, res, result);
	free(all);
	free(res);
	return rc;
}

/* ---- Topology Manager hints (the CPU Manager as a provider of topomgr) ---- */

/* isHintSocketAligned: MASK spans exactly the fewest sockets that MIN_AFF nodes could need. */
static bool socket_aligned(const void *ctx, unsigned long mask, unsigned min_aff)
{
	const struct rm_cputopo *t = ctx;
	const struct level *nl = &PRIV(t)->lv[L_NODE], *sl = &PRIV(t)->lv[L_SOCKET];
	unsigned per = t->num_sockets ? t->num_nodes / t->num_sockets : 0, spanned = 0, b, j;
	unsigned char *seen;

	if (!per)
		return false;
	seen = xcalloc(sl->n, 1);
	for (b = 0; b < nl->n; b++) {
		if (!(mask & (1UL << b)))
			continue;
		for (j = nl->first[b]; j < nl->first[b + 1]; j++) {
			spanned += !seen[sl->of[nl->cpus[j]]];
			seen[sl->of[nl->cpus[j]]] = 1;
		}
	}
	free(seen);
	return spanned == (min_aff + per - 1) / per;
}

int rm_cpualloc_hint(const struct rm_cputopo *t, hwloc_const_bitmap_t available, unsigned count,
		     hwloc_const_bitmap_t provider, enum rm_tm_policy policy,
		     const struct rm_cpualloc_opts *o, hwloc_bitmap_t nodes, bool *preferred,
		     char **errmsg)
{
	const struct level *nl = &PRIV(t)->lv[L_NODE];
	unsigned nn = nl->n, i, min_aff, nprov = 1, ndev = 0;
	uint64_t *total = NULL, *freec = NULL;
	unsigned char *need = NULL, *best = NULL;
	struct rm_tm_config tm = { 0 };
	struct rm_tm_provider prov[2];
	bool pref = true, admit = true, whole = true;
	char *list;
	int rc = 0;

	hwloc_bitmap_zero(nodes);
	if (o)
		tm = o->tm;
	tm.policy = policy;
	if (policy == RM_TM_NONE || count == 0)
		goto out;
	if ((*errmsg = rm_tm_too_many_nodes(&tm, nn))) {
		rc = RM_CPUALLOC_EINVAL;
		goto out;
	}
	total = xcalloc(nn + 1, sizeof(*total));
	freec = xcalloc(nn + 1, sizeof(*freec));
	need = xcalloc(nn + 1, 1);
	best = xcalloc(nn + 1, 1);
	for (i = 0; i < t->ncpus; i++) {
		total[nl->of[i]]++;
		if (available && hwloc_bitmap_isset(available, t->cpu[i]))
			freec[nl->of[i]]++;
	}
	/* generateCPUTopologyHints: every node set with enough free CPUs; preferred: as few
	 * nodes as could hold the request at all (or spanning the fewest sockets) */
	prov[0] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = freec, .total = total,
					   .request = count, .name = "cpu" };
	tm.ids = nl->id;
	if (o && o->align_by_socket) {
		prov[0].prefer = socket_aligned;
		prov[0].ctx = t;
	}
	if (provider && !hwloc_bitmap_iszero(provider)) {
		for (i = 0; i < nn; i++)
			if (hwloc_bitmap_isset(provider, nl->id[i])) {
				need[i] = 1;
				ndev++;
			}
		if (!ndev) {
			*errmsg = xstrdup("the preferred NUMA nodes are not nodes of this machine");
			rc = RM_CPUALLOC_EINVAL;
			goto out;
		}
		prov[nprov++] = (struct rm_tm_provider){ .kind = RM_TM_NODES, .need = need,
							 .name = "numa-node" };
	}
	rm_tm_merge(&tm, nn, PRIV(t)->distance, prov, nprov, best, &pref, &admit);
	if (!admit) {
		list = rm_tm_per_node(nl->id, freec, nn);
		min_aff = rm_tm_min_nodes(total, nn, count);
		if (policy == RM_TM_SINGLE_NUMA_NODE)
			*errmsg = ndev ?
				  xasprintf("topology manager policy single-numa-node: the "
					    "preferred NUMA node%s cannot hold %u CPUs on one "
					    "node (%s)", ndev > 1 ? "s" : "", count, list) :
				  xasprintf("topology manager policy single-numa-node: no "
					    "single NUMA node has %u free CPUs (%s)", count,
					    list);
		else
			*errmsg = ndev ?
				  xasprintf("topology manager policy restricted: no preferred "
					    "NUMA affinity with the preferred NUMA nodes for %u "
					    "CPUs (%s)", count, list) :
				  xasprintf("topology manager policy restricted: no preferred "
					    "NUMA affinity, no set of %u NUMA node%s has %u "
					    "free CPUs (%s)", min_aff, min_aff == 1 ? "" : "s",
					    count, list);
		free(list);
		rc = RM_CPUALLOC_ENOSPC;
		goto out;
	}
	for (i = 0; i < nn; i++)
		whole = whole && best[i];
	/* single-numa-node: the whole machine as the affinity means none */
	if (policy == RM_TM_SINGLE_NUMA_NODE && whole)
		goto out;
	for (i = 0; i < nn; i++)
		if (best[i])
			hwloc_bitmap_set(nodes, nl->id[i]);
out:
	if (preferred)
		*preferred = rc == 0 && pref;
	free(total);
	free(freec);
	free(need);
	free(best);
	return rc;
}
