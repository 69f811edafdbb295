/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kubelet's own Topology Manager merge tests, ported: the case lists of kubernetes
 * pkg/kubelet/cm/topologymanager (policy_test.go, as run by policy_best_effort_test.go,
 * policy_restricted_test.go and policy_single_numa_node_test.go), each case with the hint the
 * kubelet expects, through topomgr's exhaustive merge (rm_tm_merge_forced, force 1) under the
 * same policy, NUMA nodes, distances and prefer-closest-numa-nodes as the kubelet's test.
 *
 * Left out (not merges, or nothing topomgr can be given):
 *   TestPolicySingleNumaNodeFilterHints: "filter hints with nil socket mask 2/2", "filter hints
 *     with empty resource socket mask" and "filter hints with wide sockemask" mix nil-affinity
 *     hints with masks; "filter empty resources" and "filter hints with nil socket mask 1/2"
 *     are, written as topomgr providers, the same providers before and after the filter.
 *   TestHintMergerWithAllocationStrategy, all but its three cases with the strategy off: they
 *     need hint scores and a NUMA allocation strategy, which topomgr does not have.
 *   TestPolicy*CanAdmitPodResult: the admit of a hint given alone; here every merge's admit
 *     is checked instead (best-effort always, restricted and single-numa-node when preferred).
 *   TestMaxOfMinAffinityCounts, TestCompareHintsNarrowest, TestAggregateHintScores,
 *   TestMergePermutationCarriesScore, TestCompareWinnerUnchangedByScore,
 *   TestCompareNUMAAffinityMasks*, TestCompareHintScores: the merger's helpers, not a merge.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "topomgr.h"

#define MAXNN 8
#define MAXRES 8

/*
 * A case: the kubelet's description, the hints its providers give and the hint it expects.
 * HINTS: providers separated by '|', the resources of one provider by '+' (each resource is
 * one topomgr provider); a resource's hints are the nodes of the mask and 'p' (preferred) or
 * 'n' (not): "0p 1p 01n". "any": a nil hint map, an empty map, a nil list or one hint {nil,
 * preferred} (no NUMA preference); "none": an empty list or one hint {nil, not preferred}.
 * WANT: the expected affinity's nodes, "all" for every node (single-numa-node's nil).
 */
struct tm_case {
	const char *name;
	const char *hints;
	const char *want;
	bool pref;
};

/* commonPolicyMergeTestCases: every policy */
static const struct tm_case common_cases[] = {
	{ "Two providers, 1 hint each, same mask, both preferred 1/2", "0p | 0p", "0", true },
	{ "Two providers, 1 hint each, same mask, both preferred 2/2", "1p | 1p", "1", true },
	{ "Two providers, 1 no hints, 1 single hint preferred 1/2", "any | 0p", "0", true },
	{ "Two providers, 1 no hints, 1 single hint preferred 2/2", "any | 1p", "1", true },
	{ "Two providers, 1 with 2 hints, 1 with single hint matching 1/2", "0p 1p | 0p", "0",
	  true },
	{ "Two providers, 1 with 2 hints, 1 with single hint matching 2/2", "0p 1p | 1p", "1",
	  true },
	{ "Two providers, both with 2 hints, matching narrower preferred hint from both",
	  "0p 1p | 0p 01n", "0", true },
	{ "Ensure less narrow preferred hints are chosen over narrower non-preferred hints",
	  "1p 01n | 0p 1p 01n", "1", true },
	{ "Multiple resources, same provider", "1p 01n + 0p 1p 01n", "1", true },
};

/* bestEffortPolicy.mergeTestCases: best-effort and restricted, 4 and 8 nodes */
static const struct tm_case best_effort_cases[] = {
	{ "Two providers, 2 hints each, same mask (some with different bits), same preferred",
	  "01p 02p | 01p 02p", "01", true },
	{ "TopologyHint not set", "", "all", true },
	{ "HintProvider returns empty non-nil map[string][]TopologyHint", "any", "all", true },
	{ "HintProvider returns -nil map[string][]TopologyHint from provider", "any", "all",
	  true },
	{ "HintProvider returns empty non-nil map[string][]TopologyHint from provider", "none",
	  "all", false },
	{ "Single TopologyHint with Preferred as true and NUMANodeAffinity as nil", "any", "all",
	  true },
	{ "Single TopologyHint with Preferred as false and NUMANodeAffinity as nil", "none",
	  "all", false },
	{ "Two providers, 1 hint each, no common mask", "0p | 1p", "all", false },
	{ "Two providers, 1 hint each, same mask, 1 preferred, 1 not 1/2", "0p | 0n", "0",
	  false },
	{ "Two providers, 1 hint each, same mask, 1 preferred, 1 not 2/2", "1p | 1n", "1",
	  false },
	{ "Two providers, 1 hint each, 1 wider mask, both preferred 1/2", "0p | 01p", "0",
	  false },
	{ "Two providers, 1 with 2 hints, 1 with single non-preferred hint matching",
	  "0p 1p | 01n", "0", false },
	{ "Two providers, 1 hint each, 1 wider mask, both preferred 2/2", "1p | 01p", "1",
	  false },
	{ "bestNonPreferredAffinityCount (1)", "0123n 01n | 01n", "01", false },
	{ "bestNonPreferredAffinityCount (2)", "0123n 01n | 03n", "03", false },
	{ "bestNonPreferredAffinityCount (3)", "0123n 01n | 12n", "12", false },
	{ "bestNonPreferredAffinityCount (4)", "0123n 01n | 23n", "23", false },
};

/* bestEffortPolicy.mergeTestCasesNoPolicies: best-effort and restricted, 4 nodes */
static const struct tm_case no_policies_cases[] = {
	{ "bestNonPreferredAffinityCount (5)", "0123n 01n | 12n 23n", "12", false },
	{ "bestNonPreferredAffinityCount (6)", "0123n 01n | 123n 12n 13n 23n", "12", false },
};

/* bestEffortPolicy.mergeTestCasesClosestNUMA: best-effort and restricted with
 * prefer-closest-numa-nodes, 8 nodes */
static const struct tm_case closest_cases[] = {
	{ "Two providers, 2 hints each, same mask (some with different bits), same preferred",
	  "04p 02p | 04p 02p", "02", true },
	{ "Two providers, 2 hints each, different mask", "4p 02p | 4p 02p", "4", true },
	{ "bestNonPreferredAffinityCount (5)", "0123n 01n | 12n 23n", "23", false },
	{ "bestNonPreferredAffinityCount (6)", "0123n 01n | 123n 12n 13n 23n", "23", false },
};

/* singleNumaNodePolicy.mergeTestCases: single-numa-node, 4 nodes */
static const struct tm_case single_cases[] = {
	{ "TopologyHint not set", "", "all", true },
	{ "HintProvider returns empty non-nil map[string][]TopologyHint", "any", "all", true },
	{ "HintProvider returns -nil map[string][]TopologyHint from provider", "any", "all",
	  true },
	{ "HintProvider returns empty non-nil map[string][]TopologyHint from provider", "none",
	  "all", false },
	{ "Single TopologyHint with Preferred as true and NUMANodeAffinity as nil", "any", "all",
	  true },
	{ "Single TopologyHint with Preferred as false and NUMANodeAffinity as nil", "none",
	  "all", false },
	{ "Two providers, 1 hint each, no common mask", "0p | 1p", "all", false },
	{ "Two providers, 1 hint each, same mask, 1 preferred, 1 not 1/2", "0p | 0n", "all",
	  false },
	{ "Two providers, 1 hint each, same mask, 1 preferred, 1 not 2/2", "1p | 1n", "all",
	  false },
	{ "Two providers, 1 with 2 hints, 1 with single non-preferred hint matching",
	  "0p 1p | 01n", "all", false },
	{ "Single NUMA hint generation", "01p + 0p 1p 01n", "all", false },
	{ "One no-preference provider", "0p 1p 01n | any", "0", true },
};

/* TestHintMergerWithAllocationStrategy, the cases with no strategy in effect (their scores
 * dropped): single-numa-node, 2 nodes; the kubelet states the affinity only */
static const struct tm_case strategy_off_cases[] = {
	{ "the strategy is inert while the alpha options are disabled", "0p 1p", "0", true },
	{ "the none strategy is inert", "0p 1p", "0", true },
	{ "an unset strategy is inert", "0p 1p", "0", true },
};

/* commonNUMAInfoTwoNodes, commonNUMAInfoFourNodes, commonNUMAInfoEightNodes */
static const unsigned dist2[] = {
	10, 11,
	11, 10,
};

static const unsigned dist4[] = {
	10, 11, 12, 12,
	11, 10, 12, 12,
	12, 12, 10, 11,
	12, 12, 11, 10,
};

static const unsigned dist8[] = {
	10, 11, 12, 12, 30, 30, 30, 30,
	11, 10, 12, 12, 30, 30, 30, 30,
	12, 12, 10, 11, 30, 30, 30, 30,
	12, 12, 11, 10, 30, 30, 30, 30,
	30, 30, 30, 30, 10, 11, 12, 12,
	30, 30, 30, 30, 11, 10, 12, 12,
	30, 30, 30, 30, 12, 12, 10, 11,
	30, 30, 30, 30, 12, 12, 13, 10,
};

/* One test run of the kubelet's: a policy on a machine. */
struct tm_run {
	const char *name;
	enum rm_tm_policy policy;
	bool prefer_closest;
	unsigned nn;
	const unsigned *distance;
};

static const char *nodes_str(const unsigned char *m, unsigned nn)
{
	static char buf[MAXNN + 4];
	size_t o = 0;

	for (unsigned i = 0; i < nn; i++)
		if (m[i])
			buf[o++] = (char)('0' + i);
	buf[o] = 0;
	return o == nn ? "all" : buf;
}

/* The nodes of a mask written as digits ("all": every node) into M; false when malformed. */
static bool nodes_parse(const char *s, size_t len, unsigned nn, unsigned char *m)
{
	memset(m, 0, nn);
	if (len == 3 && !strncmp(s, "all", 3)) {
		memset(m, 1, nn);
		return true;
	}
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || (unsigned)(s[i] - '0') >= nn)
			return false;
		m[s[i] - '0'] = 1;
	}
	return len > 0;
}

/* The providers of HINTS (struct tm_case) into P, their hints into H; -1 when malformed. */
static int providers_parse(const char *hints, unsigned nn, struct rm_tm_provider *p,
			   unsigned char (*h)[1 << MAXNN])
{
	const char *s = hints;
	bool open = false;
	int np = 0;

	while (*s) {
		unsigned char m[MAXNN];
		unsigned long mask = 0;
		size_t len;

		if (*s == ' ') {
			s++;
			continue;
		}
		if (*s == '|' || *s == '+') {
			open = false;
			s++;
			continue;
		}
		len = strcspn(s, " |+");
		if (!open) {
			if (np == MAXRES)
				return -1;
			memset(h[np], 0, sizeof(h[np]));
			p[np] = (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .hints = h[np] };
			np++;
			open = true;
		}
		if (len == 3 && !strncmp(s, "any", 3)) {
			p[np - 1].any = true;
			p[np - 1].hints = NULL;
		} else if (len == 4 && !strncmp(s, "none", 4)) {
			/* the hints stay all zero */
		} else {
			if (len < 2 || (s[len - 1] != 'p' && s[len - 1] != 'n') ||
			    !nodes_parse(s, len - 1, nn, m))
				return -1;
			for (unsigned i = 0; i < nn; i++)
				mask |= (unsigned long)m[i] << i;
			h[np - 1][mask] = RM_TM_HINT | (s[len - 1] == 'p' ? RM_TM_PREFERRED : 0);
		}
		s += len;
	}
	return np;
}

/* One case under one run; FLAGS: the kubelet states the preferred flag (and so the admit). */
static void run_case(const struct tm_run *r, const struct tm_case *c, bool flags)
{
	struct rm_tm_config config = { .policy = r->policy, .prefer_closest = r->prefer_closest };
	struct rm_tm_provider p[MAXRES];
	unsigned char h[MAXRES][1 << MAXNN];
	unsigned char best[MAXNN], want[MAXNN];
	bool preferred = !c->pref, admit = false;
	bool want_admit = r->policy == RM_TM_BEST_EFFORT || c->pref;
	int np = providers_parse(c->hints, r->nn, p, h);
	int rc;

	CHECK(np >= 0, "%s, \"%s\": bad hints \"%s\"", r->name, c->name, c->hints);
	CHECK(nodes_parse(c->want, strlen(c->want), r->nn, want), "%s, \"%s\": bad nodes \"%s\"",
	      r->name, c->name, c->want);
	if (np < 0)
		return;
	memset(best, 0, sizeof(best));
	rc = rm_tm_merge_forced(&config, r->nn, r->distance, p, (size_t)np, best, &preferred,
				&admit, 1);
	CHECK(rc == 0, "%s, \"%s\": rc %d", r->name, c->name, rc);
	CHECK(!memcmp(best, want, r->nn), "%s, \"%s\": affinity %s, the kubelet's %s", r->name,
	      c->name, nodes_str(best, r->nn), c->want);
	if (!flags)
		return;
	CHECK(preferred == c->pref, "%s, \"%s\": preferred %d, the kubelet's %d", r->name,
	      c->name, preferred, c->pref);
	CHECK(admit == want_admit, "%s, \"%s\": admit %d, the kubelet's %d", r->name, c->name,
	      admit, want_admit);
}

static void run_cases(const struct tm_run *r, const struct tm_case *c, size_t n, bool flags)
{
	for (size_t i = 0; i < n; i++)
		run_case(r, &c[i], flags);
}

#define RUN(r, cases, flags) run_cases(r, cases, sizeof(cases) / sizeof(cases[0]), flags)

int main(void)
{
	/* TestPolicyBestEffortMerge, TestPolicyBestEffortMergeClosestNUMA */
	static const struct tm_run be = { "best-effort", RM_TM_BEST_EFFORT, false, 4, dist4 };
	static const struct tm_run be_closest = { "best-effort, prefer-closest-numa-nodes",
						  RM_TM_BEST_EFFORT, true, 8, dist8 };
	/* TestPolicyRestrictedMerge, TestPolicyRestrictedMergeClosestNUMA */
	static const struct tm_run rs = { "restricted", RM_TM_RESTRICTED, false, 4, dist4 };
	static const struct tm_run rs_closest = { "restricted, prefer-closest-numa-nodes",
						  RM_TM_RESTRICTED, true, 8, dist8 };
	/* TestPolicySingleNumaNodeMerge */
	static const struct tm_run sn = { "single-numa-node", RM_TM_SINGLE_NUMA_NODE, false, 4,
					  dist4 };
	/* TestHintMergerWithAllocationStrategy's default: single-numa-node on two nodes */
	static const struct tm_run sn2 = { "single-numa-node, 2 nodes", RM_TM_SINGLE_NUMA_NODE,
					   false, 2, dist2 };

	RUN(&be, common_cases, true);
	RUN(&be, best_effort_cases, true);
	RUN(&be, no_policies_cases, true);
	RUN(&be_closest, common_cases, true);
	RUN(&be_closest, best_effort_cases, true);
	RUN(&be_closest, closest_cases, true);

	RUN(&rs, common_cases, true);
	RUN(&rs, best_effort_cases, true);
	RUN(&rs, no_policies_cases, true);
	RUN(&rs_closest, common_cases, true);
	RUN(&rs_closest, best_effort_cases, true);
	RUN(&rs_closest, closest_cases, true);

	RUN(&sn, common_cases, true);
	RUN(&sn, single_cases, true);
	RUN(&sn2, strategy_off_cases, false);

	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
