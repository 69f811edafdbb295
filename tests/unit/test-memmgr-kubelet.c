/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of memmgr against the kubelet's own Memory Manager static policy tests
 * (kubernetes/kubernetes pkg/kubelet/cm/memorymanager/policy_static_test.go), each with the
 * kubelet's expected answer: TestStaticPolicyGetTopologyHints (the hints of a request on a machine
 * state: rm_memmgr_providers) and TestStaticPolicyAllocate (the Topology Manager's hint, extended
 * when it cannot hold the request, the NUMA group check, then the take: rm_memmgr_extend,
 * rm_memmgr_violates, rm_memmgr_take, and the machine state it leaves).
 *
 * A machine state is written as the kubelet's: per node its memory and huge page MemoryTables
 * (Allocatable, Free, Reserved, SystemReserved, TotalMemSize, in MiB; huge pages in bytes as the
 * kubelet counts them, turned into pages of the machine's one page size), its Cells and
 * NumberOfAssignments. The kubelet decides by Allocatable and Free alone, so a node's capacity
 * is TotalMemSize, its system reserve TotalMemSize - Allocatable and what is used TotalMemSize -
 * Free: SystemReserved and SystemReserved + Reserved where the kubelet's row is consistent (two
 * of its Allocate cases have nodes that are not: 512MiB allocatable of 1536MiB with a 512MiB
 * system reserve).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memmgr.h"
#include "topomgr.h"
#include "xalloc.h"

#define MIB (1024ULL * 1024)
#define MAXN 4
#define B(i) (1u << (i))

/* One MemoryTable of the kubelet's machine state, MiB. */
struct table {
	uint64_t alloc, free, reserved, sysres, total;
};

#define T(a, f, r, s, t) { (a), (f), (r), (s), (t) }
/* one 1GiB page: free, or taken by a container */
#define HP_FREE T(1024, 1024, 0, 0, 1024)
#define HP_TAKEN T(1024, 0, 1024, 0, 1024)

/* A node of the kubelet's machine state: res[0] memory, res[1] huge pages. */
struct knode {
	struct table res[2];
	unsigned cells; /* a mask */
	unsigned assignments;
};

struct kmachine {
	uint64_t page; /* the huge page size, MiB */
	unsigned nn;
	struct knode node[MAXN];
};

static const char *mask_str(unsigned mask)
{
	static char buf[4][4 * MAXN + 3];
	static int next;
	char *s = buf[next++ % 4];
	size_t o = 0;

	s[o++] = '{';
	for (unsigned i = 0; i < MAXN; i++)
		if (mask & B(i))
			o += (size_t)snprintf(s + o, 8, "%s%u", o > 1 ? "," : "", i);
	s[o++] = '}';
	s[o] = 0;
	return s;
}

static unsigned mask_of(const unsigned char *nodes, size_t nn)
{
	unsigned mask = 0;

	for (size_t i = 0; i < nn; i++)
		if (nodes[i])
			mask |= B(i);
	return mask;
}

/* MIB of resource RES in rmtools' unit: bytes of memory, pages of huge pages. */
static uint64_t units(const struct kmachine *k, size_t res, uint64_t mib)
{
	return res ? mib / k->page : mib * MIB;
}

/* M, everything on the heap (rm_memmgr_close frees it), from the kubelet's machine state K. */
static void build(struct rm_memmgr *m, const struct kmachine *k)
{
	size_t nn = k->nn;

	memset(m, 0, sizeof(*m));
	m->nn = nn;
	m->nres = 2;
	m->hp.nsizes = 1;
	m->hp.sizes = xcalloc(1, sizeof(*m->hp.sizes));
	m->hp.sizes[0] = k->page * MIB;
	m->hp.numa = true;
	m->hp.nnodes = nn;
	m->hp.nodes = xcalloc(nn, sizeof(*m->hp.nodes));
	m->total = xcalloc(m->nres * nn, sizeof(*m->total));
	m->reserved = xcalloc(m->nres * nn, sizeof(*m->reserved));
	m->used = xcalloc(m->nres * nn, sizeof(*m->used));
	m->group = xcalloc(nn * nn, 1);
	m->assigned = xcalloc(nn, sizeof(*m->assigned));
	for (size_t i = 0; i < nn; i++) {
		const struct knode *n = &k->node[i];

		m->hp.nodes[i].id = (unsigned)i;
		m->hp.nodes[i].mem_total = n->res[0].total * MIB;
		m->hp.nodes[i].offers = xcalloc(1, sizeof(bool));
		m->hp.nodes[i].offers[0] = true;
		for (size_t r = 0; r < m->nres; r++) {
			const struct table *t = &n->res[r];

			m->total[r * nn + i] = units(k, r, t->total);
			m->reserved[r * nn + i] = units(k, r, t->total - t->alloc);
			m->used[r * nn + i] = units(k, r, t->total - t->free);
		}
		for (size_t j = 0; j < nn; j++)
			m->group[i * nn + j] = (n->cells & B(j)) != 0;
		m->assigned[i] = n->assignments;
	}
}

/* Whether M is the kubelet's machine state K: per node and resource its Allocatable, Reserved
 * and Free, its Cells and NumberOfAssignments. */
static void expect_state(const char *name, const struct rm_memmgr *m, const struct kmachine *k)
{
	size_t nn = k->nn;

	for (size_t i = 0; i < nn; i++) {
		const struct knode *n = &k->node[i];
		unsigned cells = 0;

		for (size_t r = 0; r < m->nres; r++) {
			const struct table *t = &n->res[r];
			uint64_t total = m->total[r * nn + i], reserved = m->reserved[r * nn + i];
			uint64_t used = m->used[r * nn + i];
			const char *what = r ? "huge pages" : "memory";

			CHECK(total - reserved == units(k, r, t->alloc),
			      "%s: node %zu %s: allocatable %llu, expected %llu", name, i, what,
			      (unsigned long long)(total - reserved),
			      (unsigned long long)units(k, r, t->alloc));
			CHECK(used - reserved == units(k, r, t->reserved),
			      "%s: node %zu %s: reserved %llu, expected %llu", name, i, what,
			      (unsigned long long)(used - reserved),
			      (unsigned long long)units(k, r, t->reserved));
			CHECK(rm_memmgr_free(m, r, i) == units(k, r, t->free),
			      "%s: node %zu %s: free %llu, expected %llu", name, i, what,
			      (unsigned long long)rm_memmgr_free(m, r, i),
			      (unsigned long long)units(k, r, t->free));
		}
		for (size_t j = 0; j < nn; j++)
			if (m->group[i * nn + j])
				cells |= B(j);
		CHECK(cells == n->cells, "%s: node %zu: cells %s, expected %s", name, i,
		      mask_str(cells), mask_str(n->cells));
		CHECK(m->assigned[i] == n->assignments,
		      "%s: node %zu: %u assignments, expected %u", name, i, m->assigned[i],
		      n->assignments);
	}
}

/* ---- TestStaticPolicyGetTopologyHints ---- */

struct khint {
	unsigned mask;
	bool preferred;
};

struct hints_case {
	const char *name;
	struct kmachine k;
	uint64_t memory, hugepages; /* the container's request, MiB */
	struct khint want[8];       /* the hints of every resource; ends at mask 0 */
};

static const struct hints_case hints_cases[] = {
	/* "should not provide topology hints for non-guaranteed pods": left out, rmtools has no
	 * QoS classes (every owner it is asked for is served) */
	/* "should provide topology hints based on the existent memory assignment": left out, the
	 * hints come from the container's own assignment in the state file */
	{
		.name = "should calculate new topology hints, when the container does not exist "
			"under assignments",
		.k = { .page = 1024, .nn = 4, .node = {
			{ { T(1536, 0, 1536, 512, 2048), HP_TAKEN }, B(0) | B(1), 2 },
			{ { T(1536, 1024, 512, 512, 2048), HP_TAKEN }, B(0) | B(1), 2 },
			{ { T(1536, 1536, 0, 512, 2048), HP_FREE }, B(2), 0 },
			{ { T(1536, 1536, 0, 512, 2048), HP_FREE }, B(3), 0 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.want = { { B(2), true }, { B(3), true }, { B(2) | B(3), false } },
	},
	/* "should fail when number of existing memory assignment resources are different from
	 * resources requested by container": left out, checks the container's own assignment
	 * in the state file against its request */
	/* "should fail when existing memory assignment resources are different from resources
	 * requested by container": left out, the same check of the state file */
	/* "should fail when existing memory assignment size is different from one requested by
	 * the container": left out, the same check of the state file */
	{
		.name = "should not return preferred hints with multiple NUMA nodes for the pod "
			"with resources satisfied by a single NUMA node",
		.k = { .page = 2, .nn = 2, .node = {
			{ { T(1536, 0, 1536, 512, 2048), T(20, 0, 20, 0, 20) }, B(0) | B(1), 2 },
			{ { T(1536, 1024, 512, 512, 2048), T(20, 16, 4, 0, 20) }, B(0) | B(1), 2 },
		} },
		.memory = 1024,
		.hugepages = 16,
		.want = { { B(0) | B(1), false } },
	},
};

static unsigned want_flags(const struct khint *want, unsigned mask)
{
	for (; want->mask; want++)
		if (want->mask == mask)
			return RM_TM_HINT | (want->preferred ? RM_TM_PREFERRED : 0);
	return 0;
}

static const char *flags_str(unsigned f)
{
	return !f ? "none" : f & RM_TM_PREFERRED ? "preferred" : "not preferred";
}

static void hints_case(const struct hints_case *c)
{
	struct rm_tm_provider p[2];
	struct rm_memreq req;
	struct rm_memmgr m;
	uint64_t pages;
	size_t np;

	build(&m, &c->k);
	pages = units(&c->k, 1, c->hugepages);
	req = (struct rm_memreq){ .memory = units(&c->k, 0, c->memory), .pages = &pages };
	np = rm_memmgr_providers(&m, &req, p);
	CHECK(np == 2, "%s: %zu providers, expected 2", c->name, np);
	for (size_t k = 0; k < np; k++) {
		CHECK(!p[k].any, "%s: provider %zu: no NUMA preference", c->name, k);
		for (unsigned mask = 1; mask < B(c->k.nn); mask++) {
			unsigned got = p[k].hints ? p[k].hints[mask] : 0;
			unsigned want = want_flags(c->want, mask);

			CHECK(got == want, "%s: provider %zu, hint %s: %s, expected %s", c->name, k,
			      mask_str(mask), flags_str(got), flags_str(want));
		}
	}
	rm_memmgr_close(&m);
}

/* ---- TestStaticPolicyAllocate ---- */

/* Where an allocation stops: it passes, or rm_memmgr_extend (the kubelet's default or extended
 * hint), rm_memmgr_violates or rm_memmgr_take refuses it. */
enum stage { PASS, EXTEND, VIOLATES, TAKE };

static const char *const stage_name[] = { "pass", "extend", "violates", "take" };

struct alloc_case {
	const char *name;
	struct kmachine before, after; /* after: when it passes */
	uint64_t memory, hugepages;    /* the container's request, MiB */
	unsigned hint;                 /* the Topology Manager's NUMA affinity; 0: nil */
	bool preferred;
	enum stage stage;
	unsigned affinity; /* the NUMA affinity of the container's blocks */
};

static const struct alloc_case alloc_cases[] = {
	/* "should do nothing for non-guaranteed pods": left out, rmtools has no QoS classes */
	/* "should do nothing once container already exists under the state file": left out, a
	 * container's existing assignment in the state file is kept as it is */
	{
		.name = "should calculate a default topology hint when no NUMA affinity was "
			"provided by the topology manager hint",
		.before = { .page = 1024, .nn = 1, .node = {
			{ { T(1536, 1536, 0, 512, 2048), HP_FREE }, B(0), 0 },
		} },
		.after = { .page = 1024, .nn = 1, .node = {
			{ { T(1536, 512, 1024, 512, 2048), HP_TAKEN }, B(0), 2 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.stage = PASS,
		.affinity = B(0),
	},
	{
		.name = "should fail when no NUMA affinity was provided under the topology manager "
			"hint and calculation of the default hint failed",
		.before = { .page = 1024, .nn = 1, .node = {
			{ { T(1536, 512, 1024, 512, 2048), HP_TAKEN }, B(0), 2 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.stage = EXTEND,
	},
	{
		.name = "should fail when no NUMA affinity was provided under the topology manager "
			"preferred hint and default hint has preferred false",
		.before = { .page = 1024, .nn = 3, .node = {
			{ { T(1024, 512, 512, 512, 1536), HP_FREE }, B(0), 1 },
			{ { T(512, 512, 0, 512, 1536), HP_FREE }, B(1), 0 },
			{ { T(512, 512, 0, 512, 1536), HP_FREE }, B(2), 0 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.preferred = true,
		.stage = EXTEND,
	},
	{
		.name = "should fail when NUMA affinity provided under the topology manager hint "
			"did not satisfy container requirements and extended hint generation "
			"failed",
		.before = { .page = 1024, .nn = 3, .node = {
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(0), 0 },
			{ { T(1536, 512, 1024, 512, 2048), HP_FREE }, B(1) | B(2), 1 },
			{ { T(1536, 512, 1024, 512, 2048), HP_FREE }, B(1) | B(2), 1 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.hint = B(0),
		.stage = EXTEND,
	},
	{
		.name = "should fail when the topology manager provided the preferred hint and "
			"extended hint has preferred false",
		.before = { .page = 1024, .nn = 3, .node = {
			{ { T(1024, 512, 512, 512, 1536), HP_FREE }, B(0), 1 },
			{ { T(512, 512, 0, 512, 1536), HP_FREE }, B(1), 0 },
			{ { T(512, 512, 0, 512, 1536), HP_FREE }, B(2), 0 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.hint = B(1),
		.preferred = true,
		.stage = EXTEND,
	},
	{
		.name = "should succeed to allocate memory from multiple NUMA nodes",
		.before = { .page = 1024, .nn = 4, .node = {
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(0), 0 },
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(1), 0 },
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(2), 0 },
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(3), 0 },
		} },
		.after = { .page = 1024, .nn = 4, .node = {
			{ { T(512, 0, 512, 512, 1024), HP_TAKEN }, B(0) | B(1), 2 },
			{ { T(512, 0, 512, 512, 1024), HP_FREE }, B(0) | B(1), 2 },
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(2), 0 },
			{ { T(512, 512, 0, 512, 1024), HP_FREE }, B(3), 0 },
		} },
		.memory = 1024,
		.hugepages = 1024,
		.preferred = true,
		.stage = PASS,
		.affinity = B(0) | B(1),
	},
};

/* The nodes that the allocation S names ("ID:AMOUNT,...", with PAGES "PAGESIZE:ID:AMOUNT,...")
 * as a mask, and the sum of its amounts into *SUM; ~0 when S cannot be read. */
static unsigned items(const char *s, bool pages, uint64_t *sum)
{
	unsigned mask = 0;

	*sum = 0;
	while (s && *s) {
		unsigned long long size, id, amount;
		int n = 0;

		if (pages ? sscanf(s, "%llu:%llu:%llu%n", &size, &id, &amount, &n) != 3
			  : sscanf(s, "%llu:%llu%n", &id, &amount, &n) != 2)
			return ~0u;
		if (id >= MAXN)
			return ~0u;
		mask |= B(id);
		*sum += amount;
		s += n;
		if (*s == ',')
			s++;
	}
	return mask;
}

/* The kubelet's Allocate: the Topology Manager's hint (nil: no node), extended to the
 * default or an extended hint when it cannot hold the request, the group check, the take. */
static enum stage allocate(struct rm_memmgr *m, const struct rm_memreq *req, unsigned hint,
			   bool preferred, unsigned char *nodes, char **memory, char **hugepages)
{
	struct rm_tm_provider p[2];
	char *errmsg = NULL;

	rm_memmgr_providers(m, req, p);
	for (size_t i = 0; i < m->nn; i++)
		nodes[i] = (hint & B(i)) != 0;
	if (rm_memmgr_extend(m, req, NULL, preferred, nodes) < 0)
		return EXTEND;
	if (rm_memmgr_violates(m, nodes))
		return VIOLATES;
	if (rm_memmgr_take(m, req, nodes, memory, hugepages, &errmsg) < 0) {
		free(errmsg);
		return TAKE;
	}
	return PASS;
}

static void alloc_case(const struct alloc_case *c)
{
	unsigned char nodes[MAXN];
	char *memory = NULL, *hugepages = NULL;
	struct rm_memreq req;
	struct rm_memmgr m;
	uint64_t pages, sum;
	enum stage got;
	unsigned named;

	build(&m, &c->before);
	pages = units(&c->before, 1, c->hugepages);
	req = (struct rm_memreq){ .memory = units(&c->before, 0, c->memory), .pages = &pages };
	got = allocate(&m, &req, c->hint, c->preferred, nodes, &memory, &hugepages);
	CHECK(got == c->stage, "%s: %s, expected %s", c->name, stage_name[got],
	      stage_name[c->stage]);
	if (got != PASS || c->stage != PASS) {
		/* a refusal: the kubelet leaves the machine state as it was */
		if (got != PASS && c->stage != PASS)
			expect_state(c->name, &m, &c->before);
		goto out;
	}
	CHECK(mask_of(nodes, m.nn) == c->affinity, "%s: nodes %s, expected %s", c->name,
	      mask_str(mask_of(nodes, m.nn)), mask_str(c->affinity));
	/* the blocks: each resource taken within the affinity, the whole request */
	named = items(memory, false, &sum);
	CHECK(named != ~0u && !(named & ~c->affinity) && sum == req.memory,
	      "%s: memory '%s', expected %llu bytes from %s", c->name, memory ? memory : "",
	      (unsigned long long)req.memory, mask_str(c->affinity));
	named = items(hugepages, true, &sum);
	CHECK(named != ~0u && !(named & ~c->affinity) && sum == pages,
	      "%s: huge pages '%s', expected %llu pages from %s", c->name,
	      hugepages ? hugepages : "", (unsigned long long)pages, mask_str(c->affinity));
	expect_state(c->name, &m, &c->after);
out:
	free(memory);
	free(hugepages);
	rm_memmgr_close(&m);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(hints_cases) / sizeof(hints_cases[0]); i++)
		hints_case(&hints_cases[i]);
	for (size_t i = 0; i < sizeof(alloc_cases) / sizeof(alloc_cases[0]); i++)
		alloc_case(&alloc_cases[i]);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
