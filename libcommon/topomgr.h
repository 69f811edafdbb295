/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one Topology Manager: hint providers, the four policies and the NUMA affinity they merge to. */
#ifndef RM_TOPOMGR_H
#define RM_TOPOMGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwloc.h>

/* The Topology Manager policies (topologyManagerPolicy). */
enum rm_tm_policy {
	RM_TM_NONE,
	RM_TM_BEST_EFFORT,
	RM_TM_RESTRICTED,
	RM_TM_SINGLE_NUMA_NODE,
};

/* "none", "best-effort", "restricted", "single-numa-node"; -1 when unknown. */
int rm_tm_policy_parse(const char *name);
const char *rm_tm_policy_name(enum rm_tm_policy policy);

/*
 * Nodes are named by their position 0..NN-1 (ascending NUMA node id) below. A provider gives
 * hints for one resource:
 *   RM_TM_AMOUNT  FREE[i] and TOTAL[i] units on node i, REQUEST units asked: every node set
 *                 whose free units hold the request is a hint, preferred when it has as few
 *                 nodes as the total units could need (or when PREFER says so). A CPU-less node
 *                 has 0 CPUs and provides memory only. ANY: no NUMA preference (one preferred
 *                 hint, any node), as a device type without NUMA nodes.
 *   RM_TM_NODES   NEED[i] set for the nodes another resource sits on: every node set holding
 *                 them, preferred when it is exactly them.
 * An amount provider may instead list its hints itself (HINTS, as the Memory Manager computes
 * them): the exhaustive merge takes them as they are, the search its amounts and ALLOW.
 */
enum rm_tm_kind { RM_TM_AMOUNT, RM_TM_NODES };

/* A hint's flags in a provider's HINTS and in the decision shown (rm_tm_explain). */
enum { RM_TM_HINT = 1, RM_TM_PREFERRED = 2 };

struct rm_tm_provider {
	enum rm_tm_kind kind;
	const uint64_t *free, *total; /* RM_TM_AMOUNT */
	uint64_t request;
	bool any;
	const unsigned char *need;    /* RM_TM_NODES */
	/* optional: also preferred (align-by-socket); only asked in the exhaustive merge */
	bool (*prefer)(const void *ctx, unsigned long mask, unsigned min_nodes);
	const void *ctx;
	/* optional, RM_TM_AMOUNT: HINTS[mask] (RM_TM_HINT, RM_TM_PREFERRED) for every node mask
	 * 1..2^NN-1, used by the exhaustive merge instead of FREE, TOTAL and PREFER */
	const unsigned char *hints;
	/* optional: whether the node set IN (a flag per node) may be a hint at all, whatever its
	 * amounts (the Memory Manager's NUMA groups); asked by the search */
	bool (*allow)(const void *ctx, const unsigned char *in);
	/* the resource, for the decision shown (CONFIG->explain): "cpu", "memory", "gpu" */
	const char *name;
};

struct rm_tm_config {
	enum rm_tm_policy policy;
	bool prefer_closest;   /* prefer-closest-numa-nodes: equal sizes, lower average distance */
	unsigned max_nodes;    /* max-allowable-numa-nodes: more nodes are refused; 0 no limit */
	unsigned exhaustive;   /* up to this many nodes the kubelet's merge of every node set
				* (0: RM_TM_EXHAUSTIVE); beyond, the search below */
	/* when set, rm_tm_merge writes its decision there as records, as the kubelet's verbose
	 * log shows it: each provider's hints (from the merge of every node set), then the
	 * merged hint; IDS names the nodes (NULL: 0..NN-1) */
	FILE *explain;
	const int *ids;
};

/* The kubelet enumerates every subset of nodes; so does the merge up to this many nodes. */
#define RM_TM_EXHAUSTIVE 8
/* The most nodes the exhaustive merge takes (masks are one unsigned long; 3^N steps). */
#define RM_TM_EXHAUSTIVE_MAX 16

/* Return values (as cpualloc's). */
enum {
	RM_TM_EINVAL = -2, /* more nodes than max-allowable-numa-nodes */
};

/*
 * Merge the NP providers' hints over NN nodes. DISTANCE: NN*NN node distances (row-major), or
 * NULL. BEST receives the merged affinity per node (all nodes: the default affinity),
 * *PREFERRED whether it is preferred, *ADMIT whether the policy admits it (best-effort always;
 * restricted when preferred; single-numa-node when preferred and one node, or when no provider
 * has a preference).
 *
 * Up to CONFIG->exhaustive nodes, the kubelet's HintMerger: every permutation of one hint per
 * provider, the AND of their masks, preferred when all hints are and all their masks are equal;
 * the best by preferred, then the count closest to the largest of each provider's narrowest
 * hint (maxOfMinAffinityCounts), then narrower, then the lower mask.
 * Beyond, a search of the node sets every provider can hold: the fewest nodes any set holding
 * the request needs, grown from the lowest mask with the nodes that can still hold it (a
 * branch and bound over nodes sorted by id, bounded by the largest free amounts left), which
 * finds the same best hint as the exhaustive merge of those sets. Returns 0 or RM_TM_EINVAL.
 */
int rm_tm_merge(const struct rm_tm_config *config, unsigned nn, const unsigned *distance,
		const struct rm_tm_provider *p, size_t np, unsigned char *best, bool *preferred,
		bool *admit);

/*
 * The decision records rm_tm_merge writes to CONFIG->explain:
 *   hint=NAME nodes=LIST preferred=yes|no      one per hint of each provider (nodes=any: no
 *                                              NUMA preference; nodes=none: no set holds it)
 *   merged=POLICY nodes=LIST preferred=yes|no admit=yes|no merge=every-set|search
 * Hints are listed up to the exhaustive merge's node count only.
 */

/* The refusal of NN nodes beyond max-allowable-numa-nodes (allocated), or NULL within it. */
char *rm_tm_too_many_nodes(const struct rm_tm_config *config, unsigned nn);

/* The same with the exhaustive merge forced up to RM_TM_EXHAUSTIVE_MAX nodes, or the search
 * forced at any size (for tests comparing the two). FORCE: 1 exhaustive, 2 search. */
int rm_tm_merge_forced(const struct rm_tm_config *config, unsigned nn, const unsigned *distance,
		       const struct rm_tm_provider *p, size_t np, unsigned char *best,
		       bool *preferred, bool *admit, int force);

/*
 * The distances between the NUMA nodes NODES (ascending id) of TOPO, NN*NN row-major, from the
 * firmware's table (hwloc); NULL when unknown. Free with free().
 */
unsigned *rm_tm_distances(hwloc_topology_t topo, hwloc_const_bitmap_t nodes, unsigned nn);

/* An amount provider: FREE[i] and TOTAL[i] units on node i, REQUEST asked (CPUs, memory bytes,
 * huge pages of one size). A node with TOTAL 0 (a CPU-less node for CPUs) adds nothing to a set. */
struct rm_tm_provider rm_tm_amount(const uint64_t *free, const uint64_t *total, uint64_t request);

/* Go's strconv.ParseBool: 1 for 1 t T TRUE true True, 0 for 0 f F FALSE false False, else -1. */
int rm_tm_parse_bool(const char *v);

/* The average distance between the nodes of MASK (NUMADistances.CalculateAverageFor);
 * DISTANCE: NN*NN, NN at most RM_TM_EXHAUSTIVE_MAX. */
double rm_tm_mask_distance(const unsigned *distance, unsigned nn, unsigned long mask);

/* "0,2": the ids (IDS[i]; NULL: i) of the nodes flagged in IN, a list. Allocated. */
char *rm_tm_nodes_text(const int *ids, unsigned nn, const unsigned char *in);

/* "node 0: 4, node 1: 5": COUNT per node of IDS, for the policies' refusals. Allocated. */
char *rm_tm_per_node(const int *ids, const uint64_t *count, unsigned nn);

/* The fewest nodes whose AMOUNT (the largest first) reach REQUEST; NN when none do. */
unsigned rm_tm_min_nodes(const uint64_t *amount, unsigned nn, uint64_t request);

/* Set one Topology Manager option from "NAME" or "NAME=VALUE": prefer-closest-numa-nodes
 * (a Go boolean), max-allowable-numa-nodes (a count). Returns 0 or RM_TM_EINVAL. */
int rm_tm_opt_parse(struct rm_tm_config *config, const char *arg, char **errmsg);

#endif
