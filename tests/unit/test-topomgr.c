/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of topomgr: the kubelet's merge cases, and the search against the exhaustive merge. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cpualloc.h"
#include "memmgr.h"
#include "topology.h"
#include "topomgr.h"

#define MAXN 256

static char *mask_str(const unsigned char *m, unsigned nn)
{
	static char buf[4 * MAXN];
	size_t o = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < nn; i++)
		if (m[i])
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%u", o ? "," : "", i);
	return buf;
}

static unsigned char *mask_of(const char *list, unsigned nn)
{
	static unsigned char m[MAXN];
	char *s = strdup(list), *save = NULL, *tok;

	memset(m, 0, sizeof(m));
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((unsigned)atoi(tok) < nn)
			m[atoi(tok)] = 1;
	free(s);
	return m;
}

/* One merge; EXPECT the nodes ("all" for every node), PREF and ADMIT the flags. */
static void expect(const char *name, const struct rm_tm_config *c, unsigned nn,
		   const struct rm_tm_provider *p, size_t np, const char *want, bool pref,
		   bool admit, int force)
{
	unsigned char best[MAXN], wantm[MAXN];
	bool gp = false, ga = false;
	int rc = rm_tm_merge_forced(c, nn, NULL, p, np, best, &gp, &ga, force);

	if (!strcmp(want, "all"))
		memset(wantm, 1, nn);
	else
		memcpy(wantm, mask_of(want, nn), nn);
	CHECK(rc == 0, "%s: rc %d", name, rc);
	CHECK(!memcmp(best, wantm, nn), "%s: best %s, expected %s", name, mask_str(best, nn),
	      want);
	CHECK(gp == pref, "%s: preferred %d, expected %d", name, gp, pref);
	CHECK(ga == admit, "%s: admit %d, expected %d", name, ga, admit);
}

/* The kubelet's cases (topology_hints_test.go, policy_*_test.go), each through the exhaustive
 * merge and through the search: they agree on these. */
static void kubelet_cases(void)
{
	/* returnMachineInfo: node 0 holds 6 CPUs, node 1 holds 6 */
	uint64_t total[2] = { 6, 6 }, f1[2] = { 4, 6 }, f2[2] = { 1, 1 };
	struct rm_tm_config be = { .policy = RM_TM_BEST_EFFORT };
	struct rm_tm_config rs = { .policy = RM_TM_RESTRICTED };
	struct rm_tm_config sn = { .policy = RM_TM_SINGLE_NUMA_NODE };
	struct rm_tm_provider cpu = { .kind = RM_TM_AMOUNT, .free = f1, .total = total };
	unsigned char need0[2] = { 1, 0 }, need1[2] = { 0, 1 }, need01[2] = { 1, 1 };
	struct rm_tm_provider dev[2];

	for (int force = 1; force <= 2; force++) {
		/* Request 2 CPUs, 4 available on NUMA 0, 6 available on NUMA 1 */
		cpu.request = 2;
		expect("2 cpus", &be, 2, &cpu, 1, "0", true, true, force);
		/* Request 5 CPUs, 4 available on NUMA 0, 6 available on NUMA 1 */
		cpu.request = 5;
		expect("5 cpus", &rs, 2, &cpu, 1, "1", true, true, force);
		/* Request 7 CPUs, 4 available on NUMA 0, 6 available on NUMA 1 */
		cpu.request = 7;
		expect("7 cpus", &be, 2, &cpu, 1, "0,1", true, true, force);
		expect("7 cpus single", &sn, 2, &cpu, 1, "all", false, false, force);
		/* Request 11 CPUs, 4 available on NUMA 0, 6 available on NUMA 1: no hint */
		cpu.request = 11;
		expect("11 cpus", &be, 2, &cpu, 1, "all", false, true, force);
		expect("11 cpus restricted", &rs, 2, &cpu, 1, "all", false, false, force);
		/* Request 2 CPUs, 1 available on NUMA 0, 1 available on NUMA 1 */
		cpu.free = f2;
		cpu.request = 2;
		expect("2 of 1+1", &be, 2, &cpu, 1, "0,1", false, true, force);
		expect("2 of 1+1 restricted", &rs, 2, &cpu, 1, "0,1", false, false, force);
		cpu.free = f1;

		/* Two providers, both preferred on node 0 (policy_test.go "Two providers, 1
		 * hint each, same mask, both preferred 1/2") */
		cpu.request = 2;
		dev[0] = cpu;
		dev[1] = (struct rm_tm_provider){ .kind = RM_TM_NODES, .need = need0 };
		expect("same mask 0", &sn, 2, dev, 2, "0", true, true, force);
		dev[1].need = need1;
		expect("same mask 1", &rs, 2, dev, 2, "1", true, true, force);
		/* a provider spanning both nodes: preferred only as both (single refuses it) */
		dev[1].need = need01;
		/* the CPUs' preferred {0} ANDed with {0,1} is {0}, not preferred (the masks
		 * differ); best-effort then takes the size of the widest narrowest hint, 2 */
		expect("both nodes", &be, 2, dev, 2, "0,1", false, true, force);
		expect("both nodes restricted", &rs, 2, dev, 2, "0,1", false, false, force);
		expect("both nodes single", &sn, 2, dev, 2, "all", false, false, force);
		/* a provider with no NUMA preference (devices without a node): merged away */
		dev[1] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .any = true };
		expect("any", &sn, 2, dev, 2, "0", true, true, force);
		/* no provider with a preference at all: the default affinity, preferred */
		expect("none", &sn, 2, &dev[1], 1, "all", true, true, force);
		/* a provider that cannot hold its request anywhere: {nil, false} */
		dev[1] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = f2, .total = total,
						  .request = 20 };
		expect("impossible", &be, 2, dev, 2, "0", false, true, force);
		expect("impossible restricted", &rs, 2, dev, 2, "0", false, false, force);
	}
}

/* ---- the property: the search finds what the exhaustive merge finds ---- */

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (unsigned)(rng_state % n) : 0;
}

/* The best set every provider can hold, by brute force over every mask: preferred first, then
 * the fewest nodes, then the lowest mask (the closest first with DISTANCE). */
static void consistent_best(unsigned nn, const struct rm_tm_provider *p, size_t np,
			    const unsigned *distance, unsigned char *out, bool *pref)
{
	unsigned long best = 0, all = (1UL << nn) - 1;
	bool best_pref = false, any = true;
	double best_d = 0;

	for (unsigned long m = 1; m <= all; m++) {
		bool ok = true, pr = true, constrained = false;
		unsigned cnt = (unsigned)__builtin_popcountl(m);
		double d = 0, c = 0;

		for (size_t i = 0; i < np && ok; i++) {
			uint64_t f = 0, t = 0;

			if (p[i].kind == RM_TM_NODES) {
				unsigned long need = 0;

				for (unsigned j = 0; j < nn; j++)
					need |= (unsigned long)(p[i].need[j] != 0) << j;
				ok = (m & need) == need;
				pr = pr && m == need;
				constrained = true;
				continue;
			}
			if (p[i].any)
				continue;
			for (unsigned j = 0; j < nn; j++) {
				t += p[i].total[j];
				f += m >> j & 1 ? p[i].free[j] : 0;
			}
			(void)t;
			ok = f >= p[i].request;
			pr = pr && cnt == rm_tm_min_nodes(p[i].total, nn, p[i].request);
			constrained = true;
		}
		any = any && !constrained;
		if (!ok || !constrained)
			continue;
		if (distance) {
			for (unsigned a = 0; a < nn; a++)
				for (unsigned b = 0; b < nn; b++)
					if ((m >> a & 1) && (m >> b & 1)) {
						d += distance[a * nn + b];
						c++;
					}
			d /= c;
		}
		if (!best || (pr && !best_pref) ||
		    (pr == best_pref &&
		     (cnt < (unsigned)__builtin_popcountl(best) ||
		      (cnt == (unsigned)__builtin_popcountl(best) && distance && d < best_d)))) {
			best = m;
			best_pref = pr;
			best_d = d;
		}
	}
	for (unsigned j = 0; j < nn; j++)
		out[j] = best ? best >> j & 1 : 1;
	*pref = (best && best_pref) || any; /* no preference at all: the default, preferred */
}

static void random_amounts(unsigned nn, uint64_t *total, uint64_t *freev, bool cpuless)
{
	for (unsigned j = 0; j < nn; j++) {
		/* CPU-less nodes (CXL memory, HBM) have no CPUs */
		total[j] = cpuless && rnd(4) == 0 ? 0 : 1 + rnd(16);
		freev[j] = total[j] ? rnd((unsigned)total[j] + 1) : 0;
	}
}

static void properties(unsigned long long seed, unsigned cases)
{
	static const enum rm_tm_policy pols[] = { RM_TM_BEST_EFFORT, RM_TM_RESTRICTED,
						  RM_TM_SINGLE_NUMA_NODE };
	uint64_t total[3][16], freev[3][16];
	unsigned char need[16], a[16], b[16];
	unsigned dist[256];

	rng_state = seed;
	for (unsigned c = 0; c < cases; c++) {
		unsigned nn = 2 + rnd(15), np = 1;
		struct rm_tm_config cfg = { .policy = pols[rnd(3)] };
		struct rm_tm_provider p[4]; /* CPUs, two amounts, one node provider */
		bool pa, pb, aa, ab, closest = rnd(4) == 0 && nn <= 10;

		random_amounts(nn, total[0], freev[0], true);
		p[0] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = freev[0],
						.total = total[0], .request = 1 + rnd(24) };
		if (closest) {
			for (unsigned x = 0; x < nn; x++)
				for (unsigned y = 0; y <= x; y++)
					dist[x * nn + y] = dist[y * nn + x] =
						x == y ? 10 : 11 + rnd(30);
			cfg.prefer_closest = true;
		}
		/* one provider: the kubelet's exhaustive merge itself */
		rm_tm_merge_forced(&cfg, nn, closest ? dist : NULL, p, 1, a, &pa, &aa, 1);
		rm_tm_merge_forced(&cfg, nn, closest ? dist : NULL, p, 1, b, &pb, &ab, 2);
		CHECK(!memcmp(a, b, nn) && pa == pb && aa == ab,
		      "seed %llu case %u (%u nodes, 1 provider, %s): exhaustive %s %d %d", seed,
		      c, nn, rm_tm_policy_name(cfg.policy), mask_str(a, nn), pa, aa);
		if (memcmp(a, b, nn) || pa != pb || aa != ab)
			fprintf(stderr, "  search %s %d %d\n", mask_str(b, nn), pb, ab);

		/* memory, huge pages, another resource's nodes: every set all can hold */
		cfg.policy = RM_TM_BEST_EFFORT;
		for (unsigned k = 1; k < 3; k++)
			if (rnd(2)) {
				random_amounts(nn, total[k], freev[k], false);
				p[np++] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT,
								   .free = freev[k],
								   .total = total[k],
								   .request = 1 + rnd(30) };
			}
		if (rnd(3) == 0) {
			memset(need, 0, sizeof(need));
			need[rnd(nn)] = 1;
			p[np++] = (struct rm_tm_provider){ .kind = RM_TM_NODES, .need = need };
		}
		/* each provider must fit somewhere for the sets to be defined */
		for (unsigned k = 0; k < np; k++)
			if (p[k].kind == RM_TM_AMOUNT) {
				uint64_t s = 0;

				for (unsigned j = 0; j < nn; j++)
					s += p[k].free[j];
				if (s < p[k].request)
					p[k].request = s ? s : 0;
				if (!p[k].request)
					p[k].any = true;
			}
		consistent_best(nn, p, np, closest ? dist : NULL, a, &pa);
		rm_tm_merge_forced(&cfg, nn, closest ? dist : NULL, p, np, b, &pb, &ab, 2);
		CHECK(!memcmp(a, b, nn) && pa == pb,
		      "seed %llu case %u (%u nodes, %u providers): exhaustive %s %d", seed, c, nn,
		      np, mask_str(a, nn), pa);
		if (memcmp(a, b, nn) || pa != pb) {
			fprintf(stderr, "  search %s %d\n", mask_str(b, nn), pb);
			for (unsigned k = 0; k < np; k++) {
				fprintf(stderr, "  p%u kind %d any %d req %llu:", k, p[k].kind,
					p[k].any, (unsigned long long)p[k].request);
				for (unsigned j = 0; j < nn; j++)
					if (p[k].kind == RM_TM_AMOUNT && !p[k].any)
						fprintf(stderr, " %llu/%llu",
							(unsigned long long)p[k].free[j],
							(unsigned long long)p[k].total[j]);
					else if (p[k].kind == RM_TM_NODES)
						fprintf(stderr, " %d", p[k].need[j]);
				fprintf(stderr, "\n");
			}
		}
	}
}

/* ---- many nodes: 34 (a GB200 tray), 128 and 256 ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void many_nodes(unsigned nn, unsigned cpuless_from)
{
	uint64_t *tc = calloc(nn, sizeof(*tc)), *fc = calloc(nn, sizeof(*fc));
	uint64_t *tm = calloc(nn, sizeof(*tm)), *fm = calloc(nn, sizeof(*fm));
	unsigned char *best = calloc(nn, 1), *need = calloc(nn, 1);
	struct rm_tm_config cfg = { .policy = RM_TM_RESTRICTED };
	struct rm_tm_provider p[3];
	bool pref, admit;
	double t0;
	char want[64];

	for (unsigned j = 0; j < nn; j++) {
		/* CPU nodes: 16 CPUs, 8 free from the middle on; memory-only nodes after */
		tc[j] = j < cpuless_from ? 16 : 0;
		fc[j] = j < cpuless_from ? (j >= nn / 2 ? 8 : 2) : 0;
		tm[j] = 64;
		fm[j] = j < cpuless_from ? 16 : 64;
	}
	p[0] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = fc, .total = tc,
					.request = 8 };
	p[1] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = fm, .total = tm,
					.request = 16 };
	t0 = now();
	rm_tm_merge(&cfg, nn, NULL, p, 2, best, &pref, &admit);
	snprintf(want, sizeof(want), "%u", nn / 2);
	CHECK(!strcmp(mask_str(best, nn), want) && pref && admit,
	      "%u nodes: 8 CPUs on %s (%d %d), expected %s", nn, mask_str(best, nn), pref, admit,
	      want);
	/* 12 CPUs need two nodes with 8 free: not preferred (16 CPUs fit one node) */
	p[0].request = 12;
	rm_tm_merge(&cfg, nn, NULL, p, 2, best, &pref, &admit);
	snprintf(want, sizeof(want), "%u,%u", nn / 2, nn / 2 + 1);
	CHECK(!strcmp(mask_str(best, nn), want) && !pref && !admit,
	      "%u nodes: 12 CPUs on %s (%d %d), expected %s", nn, mask_str(best, nn), pref, admit,
	      want);
	/* memory beyond what CPU nodes hold: a memory-only node joins */
	p[0].request = 8;
	p[1].request = 70;
	need[nn - 1] = 1;
	p[2] = (struct rm_tm_provider){ .kind = RM_TM_NODES, .need = need };
	cfg.policy = RM_TM_BEST_EFFORT;
	rm_tm_merge(&cfg, nn, NULL, p, 3, best, &pref, &admit);
	snprintf(want, sizeof(want), "%u,%u", nn / 2, nn - 1);
	CHECK(!strcmp(mask_str(best, nn), want) && admit,
	      "%u nodes: 8 CPUs, 70 memory on %s, expected %s", nn, mask_str(best, nn), want);
	CHECK(now() - t0 < 0.05 * 3, "%u nodes: %.3f s for three merges", nn, now() - t0);
	cfg.max_nodes = nn - 1;
	CHECK(rm_tm_merge(&cfg, nn, NULL, p, 3, best, &pref, &admit) == RM_TM_EINVAL,
	      "%u nodes: max-allowable-numa-nodes %u", nn, nn - 1);
	free(tc);
	free(fc);
	free(tm);
	free(fm);
	free(best);
	free(need);
}

static void options(void)
{
	struct rm_tm_config c = { 0 };
	char *msg = NULL;

	CHECK(rm_tm_opt_parse(&c, "prefer-closest-numa-nodes", &msg) == 0 && c.prefer_closest,
	      "prefer-closest-numa-nodes");
	CHECK(rm_tm_opt_parse(&c, "prefer-closest-numa-nodes=false", &msg) == 0 &&
	      !c.prefer_closest, "prefer-closest-numa-nodes=false");
	CHECK(rm_tm_opt_parse(&c, "max-allowable-numa-nodes=34", &msg) == 0 && c.max_nodes == 34,
	      "max-allowable-numa-nodes=34");
	CHECK(rm_tm_opt_parse(&c, "max-allowable-numa-nodes=-1", &msg) == RM_TM_EINVAL,
	      "max-allowable-numa-nodes=-1");
	free(msg);
	msg = NULL;
	CHECK(rm_tm_opt_parse(&c, "bogus", &msg) == RM_TM_EINVAL && msg &&
	      !strcmp(msg, "unknown topology manager option: 'bogus'"), "bogus: %s", msg);
	free(msg);
	CHECK(rm_tm_policy_parse("single-numa-node") == RM_TM_SINGLE_NUMA_NODE &&
	      rm_tm_policy_parse("strict") == -1, "policy names");
}

/*
 * time TOPOLOGY COUNT POLICY: load the synthetic TOPOLOGY, then time the Topology Manager's hint
 * and the allocation of COUNT CPUs from the free CPUs (all but the first half of each node's)
 * under POLICY, as rm-cpuset alloc does after its load. Prints the placement and the times.
 */
static int time_alloc(const char *spec, unsigned count, const char *policy)
{
	hwloc_topology_t topo;
	struct rm_topo *rt;
	struct rm_cputopo *t;
	struct rm_cpualloc_opts o = { 0 };
	hwloc_bitmap_t avail = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
	hwloc_bitmap_t result = hwloc_bitmap_alloc();
	hwloc_obj_t pu = NULL;
	char *msg = NULL, *list;
	double t0, t1, t2, t3;
	int rc, pol = rm_tm_policy_parse(policy);
	bool pref = false;

	t0 = now();
	if (pol < 0 || hwloc_topology_init(&topo) || hwloc_topology_set_synthetic(topo, spec) ||
	    hwloc_topology_load(topo)) {
		fprintf(stderr, "test-topomgr: bad topology or policy\n");
		return 2;
	}
	rt = rm_topo_wrap(topo);
	t = rm_cputopo_new(rt);
	/* free: the odd cores' CPUs, a machine half full */
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)))
		if (pu->os_index / 2 % 2)
			hwloc_bitmap_set(avail, pu->os_index);
	t1 = now();
	rc = rm_cpualloc_hint(t, avail, count, NULL, (enum rm_tm_policy)pol, &o, nodes, &pref, &msg);
	t2 = now();
	if (!rc)
		rc = rm_cpualloc_allocate(t, avail, NULL, count, &o, nodes, result, &msg);
	t3 = now();
	if (rc) {
		printf("refused");
		fprintf(stderr, "test-topomgr: %s\n", msg);
	} else {
		list = NULL;
		hwloc_bitmap_list_asprintf(&list, nodes);
		printf("nodes=%s preferred=%d", list, pref);
		free(list);
		hwloc_bitmap_list_asprintf(&list, result);
		printf(" cpus=%s", list);
		free(list);
	}
	printf(" load_ms=%.3f hint_ms=%.3f alloc_ms=%.3f\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3,
	       (t3 - t2) * 1e3);
	free(msg);
	rm_cputopo_free(t);
	rm_topo_free(rt);
	hwloc_topology_destroy(topo);
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(nodes);
	hwloc_bitmap_free(result);
	return rc ? 3 : 0;
}

/* The memory providers: memory and huge pages per node as amounts (rm_tm_amount), merged with
 * the CPUs'; memory-only nodes give memory only. Then the Memory Manager's extension of a hint
 * that cannot hold the request. */
static void memory_provider(void)
{
	/* nodes 0 and 1 with 4 CPUs and 16 GiB, node 2 (64 GiB) and node 3 (32 GiB) memory-only;
	 * 12 GiB of node 0 taken; 2 MiB pages: 212 of 512 free on node 0, 256 on node 1 */
	uint64_t ctotal[4] = { 4, 4, 0, 0 }, cfree[4] = { 4, 4, 0, 0 };
	uint64_t mtotal[4] = { 16, 16, 64, 32 }, mfree[4] = { 4, 16, 64, 32 };
	uint64_t htotal[4] = { 512, 256, 0, 0 }, hfree[4] = { 212, 256, 0, 0 };
	struct rm_tm_config sn = { .policy = RM_TM_SINGLE_NUMA_NODE };
	struct rm_tm_config rs = { .policy = RM_TM_RESTRICTED };
	struct rm_tm_provider p[3] = { rm_tm_amount(cfree, ctotal, 2), rm_tm_amount(mfree, mtotal, 8),
				       rm_tm_amount(hfree, htotal, 250) };

	CHECK(p[1].kind == RM_TM_AMOUNT && p[1].free == mfree && p[1].total == mtotal &&
	      p[1].request == 8, "rm_tm_amount: the fields");
	for (int force = 1; force <= 2; force++) {
		/* 8 GiB: node 0 has 4 left, node 1 holds it */
		expect("memory 8", &sn, 4, p, 2, "1", true, true, force);
		/* and 250 huge pages: node 1 */
		expect("memory and pages", &sn, 4, p, 3, "1", true, true, force);
		/* 300 pages: no node has them, single-numa-node refuses */
		p[2].request = 300;
		expect("300 pages", &sn, 4, p, 3, "all", false, false, force);
		p[2].request = 250;
		/* 20 GiB: only memory-only nodes hold it alone, and they have no CPUs */
		p[1].request = 20;
		expect("memory 20 single", &sn, 4, p, 2, "all", false, false, force);
		/* restricted: refused too (the best non-preferred hint is reported as it is) */
		expect("memory 20 restricted", &rs, 4, p, 2, force == 1 ? "0" : "0,1", false, false,
		       force);
		p[1].request = 8;
	}

	/* the extension: node 0 (4 free) with 20 asked takes its nearest node, node 2 (17) */
	{
		unsigned dist[16] = { 10, 21, 17, 28, 21, 10, 28, 17, 17, 28, 10, 28, 28, 17, 28, 10 };
		uint64_t total[4] = { 16, 16, 64, 32 }, used[4] = { 12, 0, 0, 0 };
		struct rm_memmgr m = { .nn = 4, .nres = 1, .total = total, .used = used };
		struct rm_memreq req = { .memory = 20 };
		unsigned char nodes[4] = { 1, 0, 0, 0 };

		CHECK(rm_memmgr_extend(&m, &req, dist, false, nodes) == 0, "extend: holds");
		CHECK(!memcmp(nodes, mask_of("0,2", 4), 4), "extend: %s, expected 0,2",
		      mask_str(nodes, 4));
		/* 140: every node together is not enough */
		req.memory = 140;
		memset(nodes, 0, 4);
		nodes[1] = 1;
		CHECK(rm_memmgr_extend(&m, &req, dist, false, nodes) < 0, "extend: 140 does not fit");
		/* node 1 asking 50: node 3 (17) first, then node 0 (21) */
		req.memory = 50;
		memset(nodes, 0, 4);
		nodes[1] = 1;
		CHECK(rm_memmgr_extend(&m, &req, dist, false, nodes) == 0, "extend: 50 holds");
		CHECK(!memcmp(nodes, mask_of("0,1,3", 4), 4), "extend 50: %s, expected 0,1,3",
		      mask_str(nodes, 4));
	}
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "time"))
		return time_alloc(argv[2], (unsigned)atoi(argv[3]), argv[4]);
	if (argc != 1) {
		fprintf(stderr, "usage: test-topomgr [time TOPOLOGY COUNT POLICY]\n");
		return 2;
	}
	kubelet_cases();
	memory_provider();
	options();
	properties(1, 250);
	properties(7001, 250);
	properties(424242, 250);
	many_nodes(34, 30);
	many_nodes(128, 112);
	many_nodes(256, 224);
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
