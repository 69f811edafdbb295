/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Memory Manager: memory and huge pages per NUMA node, what is reserved and what is free. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "input.h"
#include "memmgr.h"
#include "size.h"
#include "xalloc.h"

#define AT(m, res, i) ((res) * (m)->nn + (i))

static int cmp_node(const void *a, const void *b)
{
	const struct rm_hp_node *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The huge page sizes past the base page (hwloc's page_types[0]) that some node states. */
static void described_sizes(struct rm_hugepages *hp, hwloc_topology_t topo)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)))
		for (unsigned i = 1; i < o->attr->numanode.page_types_len; i++) {
			uint64_t size = o->attr->numanode.page_types[i].size;

			if (!size || rm_hugepages_size_index(hp, size) >= 0)
				continue;
			hp->sizes = xrealloc(hp->sizes, (hp->nsizes + 1) * sizeof(*hp->sizes));
			hp->sizes[hp->nsizes++] = size;
		}
	if (hp->nsizes)
		qsort(hp->sizes, hp->nsizes, sizeof(*hp->sizes), cmp_u64);
}

/* The nodes of an XML or synthetic topology: their memory and huge pages as described (none of
 * this machine's files are read). */
static void open_described(struct rm_memmgr *m, hwloc_topology_t topo)
{
	struct rm_hugepages *hp = &m->hp;
	hwloc_obj_t o = NULL;

	described_sizes(hp, topo);
	hp->nnodes = (size_t)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	hp->nodes = xcalloc(hp->nnodes + 1, sizeof(*hp->nodes));
	hp->numa = true;
	for (size_t i = 0; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)) &&
			   i < hp->nnodes; i++) {
		hp->nodes[i].id = o->os_index;
		hp->nodes[i].mem_total = o->attr->numanode.local_memory;
		hp->nodes[i].offers = xcalloc(hp->nsizes + 1, sizeof(bool));
	}
	qsort(hp->nodes, hp->nnodes, sizeof(*hp->nodes), cmp_node);
	m->nn = hp->nnodes;
	m->nres = 1 + hp->nsizes;
	m->total = xcalloc(m->nres * m->nn + 1, sizeof(*m->total));
	for (size_t i = 0; i < m->nn; i++) {
		hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topo, hp->nodes[i].id);

		m->total[AT(m, 0, i)] = hp->nodes[i].mem_total;
		for (unsigned k = 1; node && k < node->attr->numanode.page_types_len; k++) {
			long s = rm_hugepages_size_index(hp, node->attr->numanode.page_types[k].size);

			if (s < 0)
				continue;
			hp->nodes[i].offers[s] = true;
			m->total[AT(m, 1 + (size_t)s, i)] = node->attr->numanode.page_types[k].count;
		}
	}
}

/* This machine's or a snapshot's nodes, from sysfs. */
static int open_sysfs(struct rm_memmgr *m, const char *sysroot, char **errmsg)
{
	if (rm_hugepages_open(&m->hp, sysroot, errmsg) < 0)
		return -1;
	m->nn = m->hp.nnodes;
	m->nres = 1 + m->hp.nsizes;
	m->total = xcalloc(m->nres * m->nn + 1, sizeof(*m->total));
	for (size_t i = 0; i < m->nn; i++) {
		m->total[AT(m, 0, i)] = m->hp.nodes[i].mem_total;
		for (size_t s = 0; s < m->hp.nsizes; s++) {
			struct rm_hp_counts c;
			char *msg = NULL;

			/* a node without the size's directory has none of those pages */
			if (!m->hp.nodes[i].offers[s])
				continue;
			if (rm_hugepages_read_node(&m->hp, s, i, &c, &msg) < 0) {
				free(msg);
				continue;
			}
			m->total[AT(m, 1 + s, i)] = c.total - (c.surplus < c.total ? c.surplus : c.total);
		}
	}
	return 0;
}

int rm_memmgr_open(struct rm_memmgr *m, const struct rm_topo *t, char **errmsg)
{
	memset(m, 0, sizeof(*m));
	if (rm_input_described(t->in))
		open_described(m, t->topo);
	else if (open_sysfs(m, rm_input_root(t->in), errmsg) < 0)
		return -1;
	m->reserved = xcalloc(m->nres * m->nn + 1, sizeof(*m->reserved));
	m->used = xcalloc(m->nres * m->nn + 1, sizeof(*m->used));
	m->group = xcalloc(m->nn * m->nn + 1, 1);
	for (size_t i = 0; i < m->nn; i++)
		m->group[i * m->nn + i] = 1;
	m->assigned = xcalloc(m->nn + 1, sizeof(*m->assigned));
	/* the kubelet's resource names */
	m->names = xcalloc(m->nres, sizeof(*m->names));
	m->names[0] = xstrdup("memory");
	for (size_t s = 0; s < m->hp.nsizes; s++) {
		char *q = rm_size_quantity(m->hp.sizes[s]);

		m->names[1 + s] = xasprintf("hugepages-%s", q);
		free(q);
	}
	return 0;
}

void rm_memmgr_close(struct rm_memmgr *m)
{
	rm_hugepages_close(&m->hp);
	free(m->total);
	free(m->reserved);
	free(m->used);
	free(m->group);
	free(m->assigned);
	free(m->hints);
	free(m->freebuf);
	free(m->allocbuf);
	for (size_t res = 0; m->names && res < m->nres; res++)
		free(m->names[res]);
	free(m->names);
	memset(m, 0, sizeof(*m));
}

uint64_t rm_memmgr_free(const struct rm_memmgr *m, size_t res, size_t i)
{
	uint64_t t = m->total[AT(m, res, i)], u = m->used[AT(m, res, i)];

	return t > u ? t - u : 0;
}

/* Split S at commas: each item in turn through ITEM; stops at the first failure. */
static int each_item(struct rm_memmgr *m, const char *s, bool pages,
		     int (*item)(struct rm_memmgr *, const char *, bool, char **), char **errmsg)
{
	char *copy, *save = NULL, *tok;
	int rc = 0;

	if (!s || !*s || !strcmp(s, "-"))
		return 0;
	copy = xstrdup(s);
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
		rc = item(m, tok, pages, errmsg);
	free(copy);
	return rc;
}

static int parse_u64(const char *s, char **end, uint64_t *v)
{
	unsigned long long n;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, end, 10);
	if (errno)
		return -1;
	*v = n;
	return 0;
}

/* "ID:BYTES" (memory) or "PAGESIZE:ID:PAGES" (huge pages), added to what is used. */
static int account_item(struct rm_memmgr *m, const char *tok, bool pages, char **errmsg)
{
	uint64_t size = 0, id, amount;
	long res = 0, node;
	char *end = (char *)tok;

	if (pages && (parse_u64(tok, &end, &size) || *end++ != ':'))
		goto bad;
	if (parse_u64(end, &end, &id) || *end++ != ':' || parse_u64(end, &end, &amount) || *end)
		goto bad;
	if (pages && (res = rm_hugepages_size_index(&m->hp, size)) < 0) {
		*errmsg = xasprintf("no huge pages of %" PRIu64 " bytes on this machine: '%s'",
				    size, tok);
		return -1;
	}
	if (pages)
		res++;
	if (id > UINT32_MAX || (node = rm_hugepages_node_index(&m->hp, (unsigned)id)) < 0) {
		*errmsg = xasprintf("no such NUMA node: '%s'", tok);
		return -1;
	}
	m->used[AT(m, (size_t)res, (size_t)node)] += amount;
	if (m->touch) {
		m->touch[node] = 1;
		m->touch[m->nn + (size_t)res] = 1;
	}
	return 0;
bad:
	*errmsg = xasprintf("invalid reservation: '%s' (%s)", tok,
			    pages ? "PAGESIZE:NODE:PAGES" : "NODE:BYTES");
	return -1;
}

int rm_memmgr_account(struct rm_memmgr *m, const char *memory, const char *hugepages,
		      char **errmsg)
{
	if (each_item(m, memory, false, account_item, errmsg))
		return -1;
	return each_item(m, hugepages, true, account_item, errmsg);
}

/* Record the group of an owner whose reservations name the nodes of M->touch (then a flag per
 * resource they name), with the nodes of its mems field (the whole set it was given, some of it
 * perhaps with nothing taken): each node of the group counts an assignment per resource, as
 * the kubelet's updateMachineState counts them. */
static void owner_group(struct rm_memmgr *m, const char *mems)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	unsigned char *g = m->touch;
	unsigned nres = 0;
	int id;

	if (mems && rm_cpulist_parse(mems, set, NULL) == 0)
		hwloc_bitmap_foreach_begin(id, set) {
			long i = rm_hugepages_node_index(&m->hp, (unsigned)id);

			if (i >= 0)
				g[i] = 1;
		} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	for (size_t res = 0; res < m->nres; res++)
		nres += g[m->nn + res];
	for (size_t i = 0; i < m->nn; i++)
		if (g[i]) {
			memcpy(&m->group[i * m->nn], g, m->nn);
			m->assigned[i] += nres;
		}
}

int rm_memmgr_account_state(struct rm_memmgr *m, const struct rm_record *recs, size_t n,
			    unsigned which, size_t *bad, char **errmsg)
{
	size_t size = m->nres * m->nn;
	uint64_t *before = xcalloc(size + 1, sizeof(*before));
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		const char *kind = rm_record_kind(&recs[i]);

		if ((which & RM_MEMMGR_SYSTEM) && !strcmp(kind, "reserved")) {
			memcpy(before, m->used, size * sizeof(*before));
			rc = rm_memmgr_account(m, rm_record_get(&recs[i], "memory"), NULL, errmsg);
			for (size_t k = 0; !rc && m->reserved && k < size; k++)
				m->reserved[k] += m->used[k] - before[k];
		} else if ((which & RM_MEMMGR_OWNERS) && !strcmp(kind, "owner")) {
			m->touch = xcalloc(m->nn + m->nres + 1, 1);
			rc = rm_memmgr_account(m, rm_record_get(&recs[i], "memory_nodes"),
					       rm_record_get(&recs[i], "hugepages"), errmsg);
			if (!rc && m->group && memchr(m->touch, 1, m->nn))
				owner_group(m, rm_record_get(&recs[i], "mems"));
			free(m->touch);
			m->touch = NULL;
		}
		if (rc < 0)
			*bad = i;
	}
	free(before);
	return rc;
}

static uint64_t req_amount(const struct rm_memmgr *m, const struct rm_memreq *req, size_t res)
{
	(void)m;
	if (res == 0)
		return req->memory;
	return req->pages ? req->pages[res - 1] : 0;
}

bool rm_memreq_any(const struct rm_memmgr *m, const struct rm_memreq *req)
{
	for (size_t res = 0; res < m->nres; res++)
		if (req_amount(m, req, res))
			return true;
	return false;
}

/* The allocatable amount of RES on node I: the capacity less the system reserve. */
static uint64_t allocatable(const struct rm_memmgr *m, size_t res, size_t i)
{
	uint64_t t = m->total[AT(m, res, i)], r = m->reserved ? m->reserved[AT(m, res, i)] : 0;

	return t > r ? t - r : 0;
}

/* Whether the nodes IN hold every resource of REQ: their free amounts, or (ALLOC) their
 * allocatable ones. */
static bool holds(const struct rm_memmgr *m, const struct rm_memreq *req,
		  const unsigned char *in, bool alloc)
{
	for (size_t res = 0; res < m->nres; res++) {
		uint64_t have = 0, want = req_amount(m, req, res);

		for (size_t i = 0; want && i < m->nn; i++)
			if (in[i])
				have += alloc ? allocatable(m, res, i) : rm_memmgr_free(m, res, i);
		if (have < want)
			return false;
	}
	return true;
}

static size_t group_size(const struct rm_memmgr *m, size_t i)
{
	size_t k = 0;

	for (size_t j = 0; j < m->nn; j++)
		k += m->group[i * m->nn + j];
	return k;
}

bool rm_memmgr_group_allows(const struct rm_memmgr *m, const unsigned char *in)
{
	size_t k = 0, one = 0;

	if (!m->group)
		return true;
	for (size_t i = 0; i < m->nn; i++)
		if (in[i]) {
			k++;
			one = i;
		}
	if (k == 1)
		return group_size(m, one) == 1;
	return !rm_memmgr_violates(m, in);
}

bool rm_memmgr_violates(const struct rm_memmgr *m, const unsigned char *in)
{
	size_t k = 0;

	for (size_t i = 0; i < m->nn; i++)
		k += in[i] != 0;
	if (k < 2 || !m->group || !m->assigned)
		return false;
	for (size_t i = 0; i < m->nn; i++) {
		if (!in[i] || !m->assigned[i])
			continue;
		if (group_size(m, i) == 1)
			return true; /* a node of single-node reservations */
		for (size_t j = 0; j < m->nn; j++)
			if (m->group[i * m->nn + j] != (in[j] != 0))
				return true; /* in another group */
	}
	return false;
}

static bool allow_cb(const void *ctx, const unsigned char *in)
{
	return rm_memmgr_group_allows(ctx, in);
}

/* calculateHints into M->hints: every mask whose nodes hold REQ, within the group rules;
 * preferred at the fewest nodes the allocatable amounts need. Returns how many. */
static size_t calculate_hints(struct rm_memmgr *m, const struct rm_memreq *req)
{
	unsigned long all = (1UL << m->nn) - 1;
	unsigned min = (unsigned)m->nn;
	unsigned char in[RM_TM_EXHAUSTIVE_MAX];
	size_t n = 0;

	m->hints = xcalloc(all + 1, 1);
	for (unsigned long mask = 1; mask <= all; mask++) {
		unsigned count = (unsigned)__builtin_popcountl(mask);

		for (size_t i = 0; i < m->nn; i++)
			in[i] = mask >> i & 1;
		if (!holds(m, req, in, true))
			continue;
		/* the fewest nodes are counted before the group rules, as the kubelet does */
		if (count < min)
			min = count;
		if (!rm_memmgr_group_allows(m, in) || !holds(m, req, in, false))
			continue;
		m->hints[mask] = RM_TM_HINT;
		n++;
	}
	for (unsigned long mask = 1; mask <= all; mask++)
		if (m->hints[mask] && (unsigned)__builtin_popcountl(mask) == min)
			m->hints[mask] |= RM_TM_PREFERRED;
	return n;
}

size_t rm_memmgr_providers(struct rm_memmgr *m, const struct rm_memreq *req,
			   struct rm_tm_provider *p)
{
	size_t np = 0, nhints = 1;

	free(m->hints);
	m->hints = NULL;
	if (!m->freebuf) {
		m->freebuf = xcalloc(m->nres * m->nn + 1, sizeof(*m->freebuf));
		m->allocbuf = xcalloc(m->nres * m->nn + 1, sizeof(*m->allocbuf));
	}
	if (m->nn && m->nn <= RM_TM_EXHAUSTIVE_MAX)
		nhints = calculate_hints(m, req);
	for (size_t res = 0; res < m->nres; res++) {
		uint64_t want = req_amount(m, req, res);

		if (!want)
			continue;
		for (size_t i = 0; i < m->nn; i++) {
			m->freebuf[AT(m, res, i)] = rm_memmgr_free(m, res, i);
			m->allocbuf[AT(m, res, i)] = allocatable(m, res, i);
		}
		p[np] = rm_tm_amount(&m->freebuf[AT(m, res, 0)], &m->allocbuf[AT(m, res, 0)],
				     want);
		p[np].hints = m->hints;
		p[np].allow = allow_cb;
		p[np].ctx = m;
		p[np].name = m->names ? m->names[res] : NULL;
		/* no set holds it: the kubelet's empty hints, no preference (the allocation then
		 * fails for want of memory) */
		p[np++].any = !nhints;
	}
	return np;
}

/* findBestHint over the hints holding NODES: preferred first, then narrower, then (with
 * DISTANCE) closer, then lower. */
static int extend_hints(const struct rm_memmgr *m, const unsigned *distance, bool preferred,
			unsigned char *nodes)
{
	unsigned long all = (1UL << m->nn) - 1, want = 0, best = 0;

	for (size_t i = 0; i < m->nn; i++)
		want |= (unsigned long)(nodes[i] != 0) << i;
	for (unsigned long mask = 1; mask <= all; mask++) {
		unsigned c = (unsigned)__builtin_popcountl(mask), cb;
		bool pm, pb;

		if (!m->hints[mask] || (mask & want) != want)
			continue;
		if (!best) {
			best = mask;
			continue;
		}
		pm = m->hints[mask] & RM_TM_PREFERRED;
		pb = m->hints[best] & RM_TM_PREFERRED;
		cb = (unsigned)__builtin_popcountl(best);
		if (pm != pb || c != cb) {
			if ((pm && !pb) || (pm == pb && c < cb))
				best = mask;
			continue;
		}
		if (distance) {
			double dm = rm_tm_mask_distance(distance, (unsigned)m->nn, mask);
			double db = rm_tm_mask_distance(distance, (unsigned)m->nn, best);

			if (dm != db) {
				if (dm < db)
					best = mask;
				continue;
			}
		}
		if (mask < best)
			best = mask;
	}
	if (!best || (preferred && !(m->hints[best] & RM_TM_PREFERRED)))
		return -1;
	for (size_t i = 0; i < m->nn; i++)
		nodes[i] = best >> i & 1;
	return 0;
}

/* Whether node J has something free of what REQ asks. */
static bool has_free(const struct rm_memmgr *m, const struct rm_memreq *req, size_t j)
{
	for (size_t res = 0; res < m->nres; res++)
		if (req_amount(m, req, res) && rm_memmgr_free(m, res, j))
			return true;
	return false;
}

int rm_memmgr_extend(const struct rm_memmgr *m, const struct rm_memreq *req,
		     const unsigned *distance, bool preferred, unsigned char *nodes)
{
	if (holds(m, req, nodes, false))
		return 0;
	if (m->hints)
		return extend_hints(m, distance, preferred, nodes);
	while (!holds(m, req, nodes, false)) {
		size_t pick = m->nn;
		unsigned pick_d = UINT32_MAX;

		for (size_t j = 0; j < m->nn; j++) {
			unsigned d = UINT32_MAX;

			if (nodes[j] || !has_free(m, req, j))
				continue;
			for (size_t i = 0; i < m->nn; i++)
				if (nodes[i] && distance && distance[i * m->nn + j] < d)
					d = distance[i * m->nn + j];
			if (pick == m->nn || d < pick_d ||
			    (d == pick_d && rm_memmgr_free(m, 0, j) > rm_memmgr_free(m, 0, pick))) {
				pick = j;
				pick_d = d;
			}
		}
		if (pick == m->nn)
			return -1;
		nodes[pick] = 1;
	}
	return 0;
}

/* Append "SEP ITEM" to *S (allocated). */
static void append(char **s, const char *item)
{
	char *n = *s ? xasprintf("%s,%s", *s, item) : xstrdup(item);

	free(*s);
	*s = n;
}

int rm_memmgr_take(struct rm_memmgr *m, const struct rm_memreq *req, const unsigned char *nodes,
		   char **memory, char **hugepages, char **errmsg)
{
	*memory = *hugepages = NULL;
	for (size_t res = 0; res < m->nres; res++) {
		uint64_t want = req_amount(m, req, res), have = 0;

		for (size_t i = 0; i < m->nn; i++)
			if (nodes[i])
				have += rm_memmgr_free(m, res, i);
		if (have < want) {
			char *name = rm_memmgr_res_name(m, res), *list = rm_memmgr_free_text(m, res);
			char *w = res ? xasprintf("%" PRIu64, want) : rm_size_format(want);

			*errmsg = xasprintf("not enough free %s on the chosen NUMA nodes: requested "
					    "%s (free %s)", name, w, list);
			free(w);
			free(name);
			free(list);
			return -1;
		}
	}
	/* the nodes are one group now, with an assignment per resource (updateMachineState) */
	for (size_t i = 0; m->group && m->assigned && i < m->nn; i++)
		if (nodes[i]) {
			for (size_t j = 0; j < m->nn; j++)
				m->group[i * m->nn + j] = nodes[j] != 0;
			for (size_t res = 0; res < m->nres; res++)
				m->assigned[i] += req_amount(m, req, res) != 0;
		}
	for (size_t res = 0; res < m->nres; res++) {
		uint64_t want = req_amount(m, req, res);

		for (size_t i = 0; i < m->nn && want; i++) {
			uint64_t take = nodes[i] ? rm_memmgr_free(m, res, i) : 0;
			char *item;

			if (!take)
				continue;
			if (take > want)
				take = want;
			want -= take;
			m->used[AT(m, res, i)] += take;
			if (res == 0) {
				item = xasprintf("%u:%" PRIu64, m->hp.nodes[i].id, take);
				append(memory, item);
			} else {
				item = xasprintf("%" PRIu64 ":%u:%" PRIu64, m->hp.sizes[res - 1],
						 m->hp.nodes[i].id, take);
				append(hugepages, item);
			}
			free(item);
		}
	}
	return 0;
}

char *rm_memmgr_res_name(const struct rm_memmgr *m, size_t res)
{
	char *size, *name;

	if (res == 0)
		return xstrdup("memory");
	size = rm_size_format(m->hp.sizes[res - 1]);
	name = xasprintf("%s huge pages", size);
	free(size);
	return name;
}

char *rm_memmgr_free_text(const struct rm_memmgr *m, size_t res)
{
	char *s = NULL;

	for (size_t i = 0; i < m->nn; i++) {
		uint64_t f = rm_memmgr_free(m, res, i);
		char *v = res ? xasprintf("%" PRIu64, f) : rm_size_format(f);
		char *item = xasprintf("node %u: %s", m->hp.nodes[i].id, v), *n;

		n = s ? xasprintf("%s, %s", s, item) : xstrdup(item);
		free(s);
		s = n;
		free(item);
		free(v);
	}
	return s ? s : xstrdup("");
}
