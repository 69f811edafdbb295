/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Memory Manager: memory and huge pages per NUMA node, what is reserved and what is free. */
#ifndef RM_MEMMGR_H
#define RM_MEMMGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hugepages.h"
#include "record.h"
#include "topology.h"
#include "topomgr.h"

/*
 * The NUMA nodes' memory as the Memory Manager divides it. Resources are numbered: 0 memory
 * (bytes), 1 + S the huge pages of hp.sizes[S] (pages). Per resource and node (ascending node
 * id, hp.nodes): the capacity (MemTotal; nr_hugepages of the node), the system reserve, and what
 * the system reserve and the owners hold. The owners' NUMA groups as the kubelet keeps them
 * (machineState's Cells and NumberOfAssignments): each node's group (itself when alone) and how
 * many reservations (one per owner and resource) it is in.
 */
struct rm_memmgr {
	struct rm_hugepages hp;
	size_t nn, nres;
	uint64_t *total;    /* [res * nn + node] */
	uint64_t *reserved; /* the system reserve, same layout; may be NULL (none) */
	uint64_t *used;     /* reserved by the system and the owners, same layout */
	unsigned char *group; /* [node * nn + node]: node's group; NULL: every node alone */
	unsigned *assigned;   /* per node; NULL: none */
	/* rm_memmgr_providers' hint lists and amounts, kept for rm_memmgr_extend */
	unsigned char *hints; /* [mask], RM_TM_HINT | RM_TM_PREFERRED; NULL beyond
			       * RM_TM_EXHAUSTIVE_MAX nodes */
	uint64_t *freebuf, *allocbuf;
	unsigned char *touch; /* scratch: the nodes, then the resources, an owner's reservations name */
	char **names;         /* per resource, as the kubelet names it: memory, hugepages-2Mi */
};

/*
 * Read the nodes' capacities from the input of T: sysfs (this machine or T's snapshot), or for
 * an XML or synthetic topology, the memory and huge pages it describes per node. -1 with
 * *ERRMSG.
 */
int rm_memmgr_open(struct rm_memmgr *m, const struct rm_topo *t, char **errmsg);
void rm_memmgr_close(struct rm_memmgr *m);

/* The free amount of resource RES on node index I (never below 0). */
uint64_t rm_memmgr_free(const struct rm_memmgr *m, size_t res, size_t i);

/*
 * Reservations as the state keeps them: memory "ID:BYTES,..." and huge pages
 * "PAGESIZE:ID:PAGES,..." (PAGESIZE in bytes); NULL or "-" for none. Add them to what is used.
 * -1 with *ERRMSG for a malformed value, or a node or page size this machine lacks.
 */
int rm_memmgr_account(struct rm_memmgr *m, const char *memory, const char *hugepages,
		      char **errmsg);

/* Which reservations of rm-cpuset's state rm_memmgr_account_state adds. */
enum {
	RM_MEMMGR_SYSTEM = 1 << 0, /* the system reserve: the reserved record's memory */
	RM_MEMMGR_OWNERS = 1 << 1, /* the owners': their memory_nodes and hugepages */
};

/*
 * Add the reservations WHICH of rm-cpuset's state records RECS (N of them) to what is used,
 * through rm_memmgr_account. -1 with *ERRMSG and *BAD the index of the record that cannot be
 * read.
 */
int rm_memmgr_account_state(struct rm_memmgr *m, const struct rm_record *recs, size_t n,
			    unsigned which, size_t *bad, char **errmsg);

/* What an owner asks: MEMORY bytes, PAGES[S] huge pages of hp.sizes[S] (PAGES has nres - 1
 * entries, may be NULL when none are asked). */
struct rm_memreq {
	uint64_t memory;
	const uint64_t *pages;
};

/* Whether REQ asks anything. */
bool rm_memreq_any(const struct rm_memmgr *m, const struct rm_memreq *req);

/*
 * The hint providers of REQ, one per resource asked, into P (room for nres), as the kubelet's
 * Memory Manager gives them (calculateHints): every node set whose allocatable amounts (the
 * capacity less the system reserve) and free amounts hold every resource asked, that does not
 * break an owner's NUMA group (rm_memmgr_group_allows); preferred when it has as few nodes as the
 * allocatable amounts need. Every resource has the same list. No such set: no NUMA preference,
 * as the kubelet's empty hints. Returns how many providers were set.
 */
size_t rm_memmgr_providers(struct rm_memmgr *m, const struct rm_memreq *req,
			   struct rm_tm_provider *p);

/*
 * The Memory Manager's NUMA group rules for the node set IN (a flag per node): a node whose
 * group has several nodes is never a single-node set, and a set of several nodes may hold a node
 * with reservations only when it is exactly that node's group.
 */
bool rm_memmgr_group_allows(const struct rm_memmgr *m, const unsigned char *in);

/* isAffinityViolatingNUMAAllocations: the set IN of several nodes breaks an owner's group. */
bool rm_memmgr_violates(const struct rm_memmgr *m, const unsigned char *in);

/*
 * Take REQ from the nodes NODES (a mask over node indexes), as the kubelet's Memory Manager
 * takes a group: each resource from the lowest node first, as far as its free amount goes.
 * Adds it to what is used, makes NODES one group (when groups are kept), and sets *MEMORY and
 * *HUGEPAGES (allocated, as the state keeps them;
 * NULL when none). -1 with *ERRMSG when the nodes cannot hold it (then nothing is taken).
 */
int rm_memmgr_take(struct rm_memmgr *m, const struct rm_memreq *req, const unsigned char *nodes,
		   char **memory, char **hugepages, char **errmsg);

/*
 * Whether the nodes NODES hold REQ; if not, extend them as the kubelet's Memory Manager extends a
 * Topology Manager hint (extendTopologyManagerHint): the best of rm_memmgr_providers' hints that
 * hold NODES, preferred first, then the fewest nodes, then (DISTANCE: nn*nn node distances, or
 * NULL, given for prefer-closest-numa-nodes) the lowest average distance, then the lowest.
 * Beyond RM_TM_EXHAUSTIVE_MAX nodes, the node nearest the set with something free of what is
 * asked (ties: the most free memory, then the lowest id) is added until they hold it. Returns 0 when NODES (possibly extended) hold REQ, -1 when no set does, or when
 * PREFERRED (the Topology Manager's hint was) and the extended set is not.
 */
int rm_memmgr_extend(const struct rm_memmgr *m, const struct rm_memreq *req,
		     const unsigned *distance, bool preferred, unsigned char *nodes);

/* "node 0: 8GiB, node 1: 16GiB": the free amount of RES per node, for messages. Allocated. */
char *rm_memmgr_free_text(const struct rm_memmgr *m, size_t res);

/* The name of resource RES: "memory", "2MiB huge pages". Allocated. */
char *rm_memmgr_res_name(const struct rm_memmgr *m, size_t res);

#endif
