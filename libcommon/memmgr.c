/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Memory Manager: memory and huge pages per NUMA node, what is reserved and what is free. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memmgr.h"
#include "size.h"
#include "xalloc.h"

#define AT(m, res, i) ((res) * (m)->nn + (i))

int rm_memmgr_open(struct rm_memmgr *m, const char *sysroot, char **errmsg)
{
	memset(m, 0, sizeof(*m));
	if (rm_hugepages_open(&m->hp, sysroot, errmsg) < 0)
		return -1;
	m->nn = m->hp.nnodes;
	m->nres = 1 + m->hp.nsizes;
	m->total = xcalloc(m->nres * m->nn, sizeof(*m->total));
	m->used = xcalloc(m->nres * m->nn, sizeof(*m->used));
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

void rm_memmgr_close(struct rm_memmgr *m)
{
	rm_hugepages_close(&m->hp);
	free(m->total);
	free(m->used);
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

int rm_memmgr_account_state(struct rm_memmgr *m, const struct rm_record *recs, size_t n,
			    unsigned which, size_t *bad, char **errmsg)
{
	for (size_t i = 0; i < n; i++) {
		const char *kind = rm_record_kind(&recs[i]);
		int rc = 0;

		if ((which & RM_MEMMGR_SYSTEM) && !strcmp(kind, "reserved"))
			rc = rm_memmgr_account(m, rm_record_get(&recs[i], "memory"), NULL, errmsg);
		else if ((which & RM_MEMMGR_OWNERS) && !strcmp(kind, "owner"))
			rc = rm_memmgr_account(m, rm_record_get(&recs[i], "memory_nodes"),
					       rm_record_get(&recs[i], "hugepages"), errmsg);
		if (rc < 0) {
			*bad = i;
			return -1;
		}
	}
	return 0;
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

size_t rm_memmgr_providers(const struct rm_memmgr *m, const struct rm_memreq *req,
			   uint64_t *freebuf, struct rm_tm_provider *p)
{
	size_t np = 0;

	for (size_t res = 0; res < m->nres; res++) {
		uint64_t want = req_amount(m, req, res);

		if (!want)
			continue;
		for (size_t i = 0; i < m->nn; i++)
			freebuf[AT(m, res, i)] = rm_memmgr_free(m, res, i);
		p[np++] = rm_tm_amount(&freebuf[AT(m, res, 0)], &m->total[AT(m, res, 0)], want);
	}
	return np;
}

/* Whether NODES hold every resource of REQ. */
static bool holds(const struct rm_memmgr *m, const struct rm_memreq *req,
		  const unsigned char *nodes)
{
	for (size_t res = 0; res < m->nres; res++) {
		uint64_t have = 0;

		for (size_t i = 0; i < m->nn; i++)
			if (nodes[i])
				have += rm_memmgr_free(m, res, i);
		if (have < req_amount(m, req, res))
			return false;
	}
	return true;
}

bool rm_memmgr_extend(const struct rm_memmgr *m, const struct rm_memreq *req,
		      const unsigned *distance, unsigned char *nodes)
{
	while (!holds(m, req, nodes)) {
		size_t pick = m->nn;
		unsigned pick_d = UINT32_MAX;

		for (size_t j = 0; j < m->nn; j++) {
			unsigned d = UINT32_MAX;

			if (nodes[j])
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
			return false;
		nodes[pick] = 1;
	}
	return true;
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
