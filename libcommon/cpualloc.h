/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kubelet CPU Manager's static policy as a library: which CPUs it would pick, and why not. */
#ifndef RM_CPUALLOC_H
#define RM_CPUALLOC_H

#include <stdbool.h>

#include <hwloc.h>

#include "topology.h"
#include "topomgr.h"

/*
 * The rules are those of the kubelet's cpu_assignment.go, policy_static.go and topologymanager/
 * (2025-2026 main branch): a placement chosen here is the one the kubelet would choose on the
 * same topology and free set.
 */

/* Return values of the functions below; *ERRMSG then holds an allocated one-line message. */
enum {
	RM_CPUALLOC_EINTERNAL = -1, /* accounting error; a bug here or in the kubelet rules */
	RM_CPUALLOC_EINVAL = -2,    /* the request or the options are refused (exit status 2) */
	RM_CPUALLOC_ENOSPC = -3,    /* not enough free CPUs, or no acceptable NUMA hint (3) */
};

/*
 * The kubelet's view of the CPUs (its CPUTopology), built from an hwloc topology. One entry per
 * online CPU (PU), ascending by CPU number:
 *   socket  package os index (logical index when unknown; 0 without packages)
 *   node    os index of the CPU's home NUMA node (rm_topo_cpu_node; never a memory-only one)
 *   core    lowest CPU number among the core's threads (unique machine-wide)
 *   uncore  the L3 cache above the CPU (os index, else logical index); without an L3, the
 *           highest cache shared by several cores; else the package, as the kubelet does
 * Totals count distinct ids; the ratios are derived from them (0 when a divisor is 0).
 */
struct rm_cputopo {
	unsigned ncpus;
	int *cpu;                         /* CPU numbers, ascending */
	int *socket, *node, *core, *uncore; /* ids, per entry of cpu[] */
	unsigned num_cpus, num_cores, num_sockets, num_nodes, num_uncore;
	unsigned threads_per_core, cpus_per_socket, cpus_per_uncore;
	void *priv; /* per-level indexes used by the allocator */
};

/* NULL when the topology has no CPU. */
struct rm_cputopo *rm_cputopo_new(const struct rm_topo *topology);
void rm_cputopo_free(struct rm_cputopo *t);

/* cpuManagerPolicyOptions of the static policy (strict-cpu-reservation changes no placement). */
struct rm_cpualloc_opts {
	bool full_pcpus_only;
	bool distribute_cpus_across_numa;
	bool align_by_socket;
	bool distribute_cpus_across_cores;
	bool prefer_align_cpus_by_uncorecache;
	/* topologyManagerPolicyOptions (prefer-closest-numa-nodes, max-allowable-numa-nodes),
	 * set by rm_cpualloc_opt_parse too; the policy is an argument of its own */
	struct rm_tm_config tm;
};

/*
 * Set one option from "NAME" (true) or "NAME=VALUE", VALUE a Go boolean (1 t T TRUE true True,
 * 0 f F FALSE false False); the Topology Manager's options as rm_tm_opt_parse. Returns 0, or
 * RM_CPUALLOC_EINVAL for an unknown name or bad value.
 */
int rm_cpualloc_opt_parse(struct rm_cpualloc_opts *o, const char *arg, char **errmsg);

/*
 * Refuse the option combinations the kubelet refuses: distribute-cpus-across-cores with
 * full-pcpus-only, distribute-cpus-across-numa or prefer-align-cpus-by-uncorecache; the uncore
 * option with distribute-cpus-across-numa; align-by-socket with the single-numa-node policy or on
 * a machine with more sockets than NUMA nodes. Returns 0 or RM_CPUALLOC_EINVAL.
 */
int rm_cpualloc_check_opts(const struct rm_cputopo *t, const struct rm_cpualloc_opts *o,
			   enum rm_tm_policy policy, char **errmsg);

/*
 * takeByTopology: COUNT CPUs out of AVAILABLE into RESULT (cleared first), packed (§3, with the
 * uncore step and spread ordering when asked) or distributed over NUMA nodes (§4). CPUs of
 * AVAILABLE that the topology does not know are ignored. With full-pcpus-only a COUNT that is
 * not a multiple of the threads per core is refused (EINVAL). Not enough CPUs: ENOSPC with "not
 * enough free CPUs: requested N, available M".
 */
int rm_cpualloc_take(const struct rm_cputopo *t, hwloc_const_bitmap_t available, unsigned count,
		     const struct rm_cpualloc_opts *o, hwloc_bitmap_t result, char **errmsg);

/*
 * The static policy's Allocate for one container: COUNT exclusive CPUs from SHARED (the shared
 * pool, "default cpuset") minus RESERVED (NULL for none). With full-pcpus-only, COUNT must be a
 * multiple of the threads per core (EINVAL) and fit in SHARED minus every core that holds a
 * reserved CPU (ENOSPC).
 * HINT_NODES (NULL or empty for none) is the Topology Manager's NUMA affinity: min(COUNT, free
 * aligned CPUs) are taken from its nodes (from the whole sockets holding them with
 * align-by-socket), the rest from what is left.
 */
int rm_cpualloc_allocate(const struct rm_cputopo *t, hwloc_const_bitmap_t shared,
			 hwloc_const_bitmap_t reserved, unsigned count,
			 const struct rm_cpualloc_opts *o, hwloc_const_bitmap_t hint_nodes,
			 hwloc_bitmap_t result, char **errmsg);

/*
 * The NUMA affinity the Topology Manager would give a container asking COUNT CPUs when the CPU
 * Manager is the only provider with a preference. AVAILABLE: the CPUs the allocation may use
 * (shared pool minus reserved). NODES receives the affinity, empty for none (policy none, COUNT
 * 0, or single-numa-node on a one-node machine); *PREFERRED (may be NULL) whether the hint is a
 * preferred one. best-effort takes the best hint even when none is preferred (then the narrowest
 * one, or all nodes when no set of nodes has enough free CPUs); restricted and single-numa-node
 * refuse with ENOSPC and a message naming the policy and the free CPUs per node.
 * PROVIDER (NULL or empty for none) is the NUMA nodes another hint provider needs, as the device
 * manager's hints for devices on those nodes: every node set holding them, preferred when it is
 * exactly them. The CPU hints are merged with these as the Topology Manager merges providers.
 */
int rm_cpualloc_hint(const struct rm_cputopo *t, hwloc_const_bitmap_t available, unsigned count,
		     hwloc_const_bitmap_t provider, enum rm_tm_policy policy,
		     const struct rm_cpualloc_opts *o, hwloc_bitmap_t nodes, bool *preferred,
		     char **errmsg);

/*
 * The CPUs the kubelet reserves when given a count (kube-reserved + system-reserved, rounded up)
 * rather than a list: the same take over all CPUs, lowest-numbered whole cores first.
 */
int rm_cpualloc_reserve(const struct rm_cputopo *t, unsigned count,
			const struct rm_cpualloc_opts *o, hwloc_bitmap_t result, char **errmsg);

#endif
