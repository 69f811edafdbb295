/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CPU pool of rm-cpuset: the state file's records as sets, checked against the topology. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "rm-cpuset.h"
#include "size.h"
#include "xalloc.h"

bool opt_no_cgroups;

enum { OWNER_OWNER, OWNER_CPUS, OWNER_MEMS, OWNER_CORES, OWNER_NODES, OWNER_CGROUP, OWNER_COUNT,
       OWNER_PACKAGES, OWNER_ISOLATE, OWNER_PID, OWNER_CREATED, OWNER_L3_WAYS, OWNER_L3_EXCLUSIVE,
       OWNER_L3_MASKS, OWNER_MEM_BANDWIDTH, OWNER_RESCTRL, OWNER_OFFLINE, OWNER_ADD_MEMS,
       OWNER_MEMORY, OWNER_MEMORY_NODES, OWNER_HUGEPAGES, OWNER_LATENCY, OWNER_GOVERNOR,
       OWNER_MIN_FREQ, OWNER_LIMITS };
const struct rm_column owner_cols[] = {
	[OWNER_OWNER] = { "owner", RM_COL_STRING, "the owner's name" },
	[OWNER_CPUS] = { "cpus", RM_COL_SET, "its exclusive CPUs" },
	[OWNER_MEMS] = { "mems", RM_COL_SET, "the NUMA nodes its memory is bound to" },
	[OWNER_CORES] = { "cores", RM_COL_SET, "the cores of its CPUs (logical ids)" },
	[OWNER_NODES] = { "nodes", RM_COL_SET, "the NUMA nodes of its CPUs" },
	[OWNER_CGROUP] = { "cgroup", RM_COL_STRING, "its cgroup directory (- when none is kept)" },
	[OWNER_COUNT] = { "count", RM_COL_INT, "the number of CPUs" },
	[OWNER_PACKAGES] = { "packages", RM_COL_SET, "the packages of its CPUs (logical ids)" },
	[OWNER_ISOLATE] = { "isolate", RM_COL_BOOL, "an isolated cpuset partition (cgroup v2)" },
	[OWNER_PID] = { "pid", RM_COL_INT, "the rm-cpuset run process that owns it (- for none)" },
	[OWNER_CREATED] = { "created", RM_COL_INT, "when it was made (seconds since the epoch)" },
	[OWNER_L3_WAYS] = { "l3_ways", RM_COL_INT, "its L3 cache ways in each domain of its CPUs" },
	[OWNER_L3_EXCLUSIVE] = { "l3_exclusive", RM_COL_BOOL, "no other resctrl group has its ways" },
	[OWNER_L3_MASKS] = { "l3_masks", RM_COL_STRING,
			     "its way masks by L3 domain (ID:HEX,...; - for none)" },
	[OWNER_MEM_BANDWIDTH] = { "mem_bandwidth", RM_COL_STRING,
				  "its memory bandwidth limit as asked (- for none)" },
	[OWNER_RESCTRL] = { "resctrl", RM_COL_STRING, "its resctrl group (- when none is kept)" },
	[OWNER_OFFLINE] = { "offline", RM_COL_SET,
			    "its CPUs that are offline now (\"\" for none; else it is degraded)" },
	[OWNER_ADD_MEMS] = { "add_mems", RM_COL_SET,
			     "NUMA nodes added to its mems by --add-mems (memory-only nodes)" },
	[OWNER_MEMORY] = { "memory", RM_COL_SIZE, "its reserved memory (--memory; 0 for none)" },
	[OWNER_MEMORY_NODES] = { "memory_nodes", RM_COL_STRING,
				 "its reserved memory per NUMA node (NODE:SIZE,...; - for none)" },
	[OWNER_HUGEPAGES] = { "hugepages", RM_COL_STRING,
			      "its reserved huge pages per NUMA node (SIZE:NODE:COUNT,...; - for "
			      "none)" },
	[OWNER_LATENCY] = { "latency", RM_COL_INT,
			    "its latency class: the exit and resume latency limit in us (--latency)" },
	[OWNER_GOVERNOR] = { "governor", RM_COL_STRING, "its CPUs' cpufreq governor (--governor)" },
	[OWNER_MIN_FREQ] = { "min_freq", RM_COL_STRING,
			     "its CPUs' minimum frequency in kHz, or max (--min-freq)" },
	/* OWNER_LIMITS + enum rm_ownlimit_key */
	{ "memory_max", RM_COL_SIZE, "its memory.max (limit --memory-max; - for none)" },
	{ "memory_high", RM_COL_SIZE, "its memory.high (limit --memory-high; - for none)" },
	{ "memory_min", RM_COL_SIZE, "its memory.min (limit --memory-min; - for none)" },
	{ "swap_max", RM_COL_SIZE, "its swap limit (limit --swap-max; - for none)" },
	{ "pids_max", RM_COL_INT, "its pids.max (limit --pids-max; - for none)" },
};
const size_t owner_ncols = ARRAY_SIZE(owner_cols);
const char owner_defaults[] = "owner,cpus,mems,cores,nodes,cgroup";

void pool_fail(int rc, char *msg)
{
	int status = rc == RM_CPUALLOC_EINVAL ? RM_EXIT_USAGE : rc == RM_CPUALLOC_ENOSPC ? RM_EXIT_NORESOURCE : RM_EXIT_FAILURE;

	rm_errx(status, "%s", msg);
}

/* The topology as the allocator sees it, as one number: the CRC-32 of "CPU CORE SOCKET NODE;"
 * for each CPU, as state files keep it. */
static unsigned long topology_digest(const struct rm_cputopo *ct)
{
	char *buf = xmalloc((size_t)ct->ncpus * 4 * RM_DECIMAL_MAX + 1), *p = buf;
	uLong crc = crc32(0L, Z_NULL, 0);

	for (unsigned i = 0; i < ct->ncpus; i++) {
		const int v[4] = { ct->cpu[i], ct->core[i], ct->socket[i], ct->node[i] };

		for (int k = 0; k < 4; k++) {
			p += rm_decimal(p, v[k]);
			*p++ = k < 3 ? ' ' : ';';
		}
	}
	crc = crc32(crc, (const Bytef *)buf, (uInt)(p - buf));
	free(buf);
	return crc;
}

static void set_field(struct rm_record *r, const char *key, hwloc_const_bitmap_t set)
{
	char *s = rm_cpulist_format(set);

	rm_record_set(r, key, s);
	free(s);
}

void pool_owner_cpus(const struct rm_record *r, hwloc_bitmap_t cpus)
{
	const char *v = rm_record_get(r, "cpus");

	hwloc_bitmap_zero(cpus);
	if (v)
		rm_cpulist_parse(v, cpus, NULL);
}

void pool_owner_runs_on(const struct pool *p, const struct rm_record *r, hwloc_bitmap_t cpus)
{
	pool_owner_cpus(r, cpus);
	if (hwloc_bitmap_iszero(cpus))
		pool_shared(p, cpus);
}

void pool_owner_offline(const struct pool *p, const struct rm_record *r, hwloc_bitmap_t cpus)
{
	pool_owner_cpus(r, cpus);
	hwloc_bitmap_andnot(cpus, cpus, p->all);
}

long pool_find(const struct pool *p, const char *owner)
{
	return rm_state_find(&p->st, "owner", owner);
}

static void set_topology_record(struct pool *p);

/*
 * Reserved, strict and exclusive from the state's typed view (owner.h): as read, or with
 * CHANGED, typed again from the records as changed (with the topology record every state holding
 * owners has; the commit writes it anyway). A change that makes impossible content exits 1.
 */
static void pool_scan(struct pool *p, bool changed)
{
	const struct rm_owner_state *os = &p->st.owners;
	char *msg = NULL;

	if (changed) {
		if (rm_state_find_kind(&p->st, "topology") < 0)
			set_topology_record(p);
		if (rm_state_retype(&p->st, &msg) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
	}
	hwloc_bitmap_copy(p->reserved, os->reserved);
	p->strict = os->strict;
	hwloc_bitmap_zero(p->exclusive);
	for (size_t i = 0; i < os->nowners; i++)
		hwloc_bitmap_or(p->exclusive, p->exclusive, os->owners[i].cpus);
}

void pool_rescan(struct pool *p)
{
	pool_scan(p, true);
}

static void copy_records(struct rm_record **dst, size_t *n, const struct rm_record *src,
			 size_t count)
{
	*dst = xcalloc(count, sizeof(**dst));
	*n = count;
	for (size_t i = 0; i < count; i++)
		rm_record_copy(&(*dst)[i], &src[i]);
}

void pool_free_records(struct rm_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rm_record_free(&r[i]);
	free(r);
}

void pool_open(struct pool *p, struct rm_common *c, unsigned flags)
{
	pool_open_topo(p, c, flags, rm_topo_load(c, 0));
}

void pool_open_topo(struct pool *p, struct rm_common *c, unsigned flags, struct rm_topo *t)
{
	char *msg = NULL;
	hwloc_obj_t node = NULL;

	memset(p, 0, sizeof(*p));
	p->c = c;
	p->t = t;
	p->ct = rm_cputopo_new(p->t);
	if (!p->ct)
		rm_errx(RM_EXIT_FAILURE, "the topology has no CPU");
	snprintf(p->digest, sizeof(p->digest), "%08lx", topology_digest(p->ct));
	p->all = hwloc_bitmap_alloc();
	for (unsigned i = 0; i < p->ct->ncpus; i++)
		hwloc_bitmap_set(p->all, p->ct->cpu[i]);
	p->present = hwloc_bitmap_dup(p->t->present ? p->t->present :
				      hwloc_topology_get_complete_cpuset(p->t->topo));
	hwloc_bitmap_or(p->present, p->present, p->all);
	p->memnodes = hwloc_bitmap_alloc();
	while ((node = hwloc_get_next_obj_by_type(p->t->topo, HWLOC_OBJ_NUMANODE, node)))
		if (node->attr->numanode.local_memory)
			hwloc_bitmap_set(p->memnodes, node->os_index);
	if (hwloc_bitmap_iszero(p->memnodes)) /* no memory sizes known (synthetic): every node */
		hwloc_bitmap_copy(p->memnodes, hwloc_topology_get_topology_nodeset(p->t->topo));
	p->reserved = hwloc_bitmap_alloc();
	p->exclusive = hwloc_bitmap_alloc();

	/* Resctrl groups belong to this machine too: the live topology, or a test tree. */
	p->resctrl = rm_input_here(p->t->in) || rm_input()->resctrl_tree;
	if (p->resctrl) {
		char *root = rm_resctrl_root(NULL);

		if (rm_resctrl_open(&p->rc, root, &p->resctrl_err) == 0)
			p->have_resctrl = p->rc.mounted;
		free(root);
	}

	/* Cgroups belong to this machine: kept for the live topology, or a test tree. */
	p->cgroups = !opt_no_cgroups &&
		     (rm_input_here(p->t->in) || rm_input()->cgroup_tree);
	if (p->cgroups) {
		if (rm_cgroups_open(&p->cg, &msg) == 0) {
			p->have_cgroups = true;
			rm_cgroups_set_offline(&p->cg, p->t->offline);
		} else if (flags & POOL_NEED_CGROUPS) {
			rm_errx(RM_EXIT_FAILURE, "%s; --no-cgroups keeps allocations in the state only",
			     msg);
		} else {
			free(msg);
			p->cgroups = false;
		}
	}

	rm_state_open_or_exit(&p->st, CPUSET_STATE,
			      flags & POOL_WRITE ? RM_STATE_WRITE : RM_STATE_READ, "rm-cpuset(1)",
			      "changing allocations");
	pool_scan(p, false);
	copy_records(&p->before, &p->nbefore, p->st.records, p->st.nrecords);
	if (!(flags & POOL_ANY_TOPOLOGY))
		pool_check_topology(p);
}

void pool_close(struct pool *p)
{
	rm_state_close(&p->st);
	pool_free_records(p->before, p->nbefore);
	if (p->have_cgroups)
		rm_cgroups_close(&p->cg);
	if (p->resctrl)
		rm_resctrl_close(&p->rc);
	free(p->resctrl_err);
	hwloc_bitmap_free(p->all);
	hwloc_bitmap_free(p->present);
	hwloc_bitmap_free(p->memnodes);
	hwloc_bitmap_free(p->reserved);
	hwloc_bitmap_free(p->exclusive);
	rm_cputopo_free(p->ct);
	rm_topo_free(p->t);
}

void pool_check_topology(struct pool *p)
{
	const struct rm_owner_state *os = &p->st.owners;
	hwloc_const_bitmap_t was = os->topo_cpus;
	hwloc_bitmap_t gone, added;
	char *g, *a;

	if (!os->topology || !strcmp(os->topology, p->digest))
		return; /* a new state, or the same CPUs */
	/* The same present CPUs with others online: CPUs went offline or came back, which
	 * changes no allocation. The digest only tells the rest apart while the same CPUs are
	 * online. */
	if (hwloc_bitmap_isequal(was, p->present) && !hwloc_bitmap_isequal(os->topo_online, p->all))
		return;
	gone = hwloc_bitmap_alloc();
	added = hwloc_bitmap_alloc();
	hwloc_bitmap_andnot(gone, was, p->present);
	hwloc_bitmap_andnot(added, p->present, was);
	g = rm_cpulist_format(gone);
	a = rm_cpulist_format(added);
	hwloc_bitmap_free(gone);
	hwloc_bitmap_free(added);
	rm_warnx("the CPUs changed since the state %s was made (%s%s%s%s%s%s%s%s); "
	      "'rm-cpuset accept-topology' keeps the allocations that still fit", p->st.path,
	      *g ? "CPUs " : "", g, *g ? " are gone" : "", *g && *a ? ", " : "",
	      *a ? "CPUs " : "", a, *a ? " are new" : "",
	      *g || *a ? "" : "the CPUs' cores, packages or NUMA nodes differ");
	free(g);
	free(a);
	pool_close(p);
	exit(RM_EXIT_FAILURE);
}

void pool_boot_isolated(const struct pool *p, hwloc_bitmap_t set)
{
	hwloc_bitmap_zero(set);
	if (p->t->isolated)
		hwloc_bitmap_or(set, set, p->t->isolated);
	if (p->t->nohz_full)
		hwloc_bitmap_or(set, set, p->t->nohz_full);
	hwloc_bitmap_and(set, set, p->all);
}

void pool_shared(const struct pool *p, hwloc_bitmap_t set)
{
	hwloc_bitmap_t iso = hwloc_bitmap_alloc();

	hwloc_bitmap_andnot(set, p->all, p->exclusive);
	if (p->strict)
		hwloc_bitmap_andnot(set, set, p->reserved);
	/* CPUs the kernel isolated at boot (isolcpus=, nohz_full=) are for exclusive owners: the
	 * shared pool leaves them out, unless nothing else is left to it */
	pool_boot_isolated(p, iso);
	if (!hwloc_bitmap_isincluded(set, iso))
		hwloc_bitmap_andnot(set, set, iso);
	hwloc_bitmap_free(iso);
}

void pool_free(const struct pool *p, hwloc_bitmap_t set)
{
	hwloc_bitmap_andnot(set, p->all, p->exclusive);
	hwloc_bitmap_andnot(set, set, p->reserved);
}

void pool_mems(const struct pool *p, hwloc_const_bitmap_t cpus, hwloc_const_bitmap_t add,
	       hwloc_bitmap_t mems)
{
	rm_topo_nodes_of(p->t, cpus, mems);
	hwloc_bitmap_and(mems, mems, p->memnodes);
	if (hwloc_bitmap_iszero(cpus)) /* an owner in the shared pool: the shared pool's nodes */
		hwloc_bitmap_copy(mems, p->memnodes);
	else if (hwloc_bitmap_iszero(mems)) {
		/* CPUs of memoryless nodes: the nodes with CPUs and memory, else any with memory */
		hwloc_bitmap_andnot(mems, p->memnodes, rm_topo_memory_only_nodes(p->t));
		if (hwloc_bitmap_iszero(mems))
			hwloc_bitmap_copy(mems, p->memnodes);
	}
	if (add)
		hwloc_bitmap_or(mems, mems, add);
}

/* The --add-mems nodes of an owner record; empty for none. */
static void owner_add_mems(const struct rm_record *r, hwloc_bitmap_t set)
{
	const char *v = rm_record_get(r, "add_mems");

	hwloc_bitmap_zero(set);
	if (v)
		rm_cpulist_parse(v, set, NULL);
}

void pool_owner_mems(const struct pool *p, const struct rm_record *r, hwloc_bitmap_t mems)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), add = hwloc_bitmap_alloc();

	hwloc_bitmap_zero(mems);
	rm_cpulist_parse(rm_record_get(r, "mems") ?: "", mems, NULL);
	if (hwloc_bitmap_iszero(mems)) {
		pool_owner_cpus(r, cpus);
		owner_add_mems(r, add);
		pool_mems(p, cpus, add, mems);
	}
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(add);
}

void pool_add(struct pool *p, const char *owner, hwloc_const_bitmap_t cpus,
	      hwloc_const_bitmap_t add_mems, bool isolate, pid_t pid)
{
	struct rm_record r = { 0 };
	hwloc_bitmap_t mems = hwloc_bitmap_alloc();
	char buf[32];

	rm_record_set(&r, "owner", owner);
	set_field(&r, "cpus", cpus);
	pool_mems(p, cpus, add_mems, mems);
	set_field(&r, "mems", mems);
	snprintf(buf, sizeof(buf), "%d", hwloc_bitmap_weight(cpus));
	rm_record_set(&r, "count", buf);
	rm_record_set(&r, "isolate", isolate ? "yes" : "no");
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	rm_record_set(&r, "pid", pid ? buf : "-");
	snprintf(buf, sizeof(buf), "%llu", pid ? rm_process_start_time(pid) : 0ULL);
	rm_record_set(&r, "start", pid ? buf : "-");
	snprintf(buf, sizeof(buf), "%lld", (long long)time(NULL));
	rm_record_set(&r, "created", buf);
	if (add_mems && !hwloc_bitmap_iszero(add_mems))
		set_field(&r, "add_mems", add_mems);
	rm_state_add(&p->st, &r);
	pool_scan(p, true);
	hwloc_bitmap_free(mems);
}

void pool_set_mems(struct pool *p, size_t index, hwloc_const_bitmap_t cpus)
{
	hwloc_bitmap_t mems = hwloc_bitmap_alloc(), add = hwloc_bitmap_alloc();

	/* the added nodes that still have memory */
	owner_add_mems(&p->st.records[index], add);
	hwloc_bitmap_and(add, add, p->memnodes);
	pool_mems(p, cpus, add, mems);
	set_field(&p->st.records[index], "mems", mems);
	if (rm_record_get(&p->st.records[index], "add_mems"))
		set_field(&p->st.records[index], "add_mems", add);
	hwloc_bitmap_free(mems);
	hwloc_bitmap_free(add);
}

void pool_remove(struct pool *p, size_t index)
{
	rm_state_remove(&p->st, index);
	pool_scan(p, true);
}

void pool_set_reserved(struct pool *p, hwloc_const_bitmap_t cpus, bool strict)
{
	char *memory = pool_reserved_memory(p) ? xstrdup(pool_reserved_memory(p)) : NULL;

	pool_set_reserved_all(p, cpus, strict, memory);
	free(memory);
}

const char *pool_reserved_memory(const struct pool *p)
{
	for (size_t i = 0; i < p->st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p->st.records[i]), "reserved"))
			return rm_record_get(&p->st.records[i], "memory");
	return NULL;
}

void pool_set_reserved_all(struct pool *p, hwloc_const_bitmap_t cpus, bool strict,
			   const char *memory)
{
	struct rm_record r = { 0 };

	for (size_t i = 0; i < p->st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p->st.records[i]), "reserved")) {
			rm_state_remove(&p->st, i);
			break;
		}
	if (memory && (!*memory || !strcmp(memory, "-")))
		memory = NULL;
	if (!hwloc_bitmap_iszero(cpus) || memory) {
		set_field(&r, "reserved", cpus);
		rm_record_set(&r, "strict", strict ? "yes" : "no");
		if (memory)
			rm_record_set(&r, "memory", memory);
		rm_state_add(&p->st, &r);
	}
	pool_scan(p, true);
}

/* Keep the records in their documented order: topology, reserved, owners. */
static int record_rank(const struct rm_record *r)
{
	const char *k = rm_record_kind(r);

	return !strcmp(k, "topology") ? 0 : !strcmp(k, "reserved") ? 1 : 2;
}

static void set_topology_record(struct pool *p)
{
	struct rm_record r = { 0 };
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	size_t i, j;

	for (i = 0; i < p->st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p->st.records[i]), "topology")) {
			rm_state_remove(&p->st, i);
			break;
		}
	rm_record_set(&r, "topology", p->digest);
	set_field(&r, "cpus", p->present);
	rm_topo_nodes_of(p->t, p->all, nodes);
	set_field(&r, "nodes", nodes);
	set_field(&r, "online", p->all);
	rm_state_add(&p->st, &r);
	/* a stable insertion sort by rank: few records, mostly in order */
	for (i = 1; i < p->st.nrecords; i++) {
		struct rm_record tmp = p->st.records[i];

		for (j = i; j > 0 && record_rank(&p->st.records[j - 1]) > record_rank(&tmp); j--)
			p->st.records[j] = p->st.records[j - 1];
		p->st.records[j] = tmp;
	}
	hwloc_bitmap_free(nodes);
}

size_t pool_wants(const struct pool *p, const struct rm_record *records, size_t n,
		  struct rm_cgroup_want **wantp)
{
	struct rm_cgroup_want *want = xcalloc(n + 1, sizeof(*want));
	hwloc_bitmap_t exclusive = hwloc_bitmap_alloc(), keep = hwloc_bitmap_alloc(), cpus, mems;
	size_t k = 0, i, j;

	for (i = 0; i < n; i++) {
		const struct rm_record *r = &records[i];

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		cpus = hwloc_bitmap_alloc();
		mems = hwloc_bitmap_alloc();
		pool_owner_cpus(r, cpus);
		pool_owner_mems(p, r, mems);
		hwloc_bitmap_or(exclusive, exclusive, cpus);
		want[k++] = (struct rm_cgroup_want){
			rm_record_get(r, "owner"), cpus, mems,
			!strcmp(rm_record_get(r, "isolate") ?: "no", "yes"), NULL,
		};
	}
	/* the shared pool of these records */
	cpus = hwloc_bitmap_alloc();
	hwloc_bitmap_andnot(cpus, p->all, exclusive);
	for (i = 0; i < n; i++)
		if (!strcmp(rm_record_kind(&records[i]), "reserved")) {
			/* the CPUs the rest of the system keeps where isolating needs that */
			rm_cpulist_parse(rm_record_get(&records[i], "reserved"), keep, NULL);
			if (!strcmp(rm_record_get(&records[i], "strict") ?: "no", "yes"))
				hwloc_bitmap_andnot(cpus, cpus, keep);
		}
	want[k++] = (struct rm_cgroup_want){ RM_CGROUP_SHARED, cpus,
					     hwloc_bitmap_dup(p->memnodes), false, keep };
	/* owners in the shared pool run on its CPUs, and follow it as owners come and go */
	for (j = 0; j + 1 < k; j++)
		if (hwloc_bitmap_iszero(want[j].cpus))
			hwloc_bitmap_copy((hwloc_bitmap_t)want[j].cpus, cpus);
	hwloc_bitmap_free(exclusive);
	*wantp = want;
	return k;
}

void pool_wants_free(struct rm_cgroup_want *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		hwloc_bitmap_free((hwloc_bitmap_t)want[i].cpus);
		hwloc_bitmap_free((hwloc_bitmap_t)want[i].mems);
		if (want[i].keep)
			hwloc_bitmap_free((hwloc_bitmap_t)want[i].keep);
	}
	free(want);
}

static int sync_cgroups(struct pool *p, const struct rm_record *records, size_t n, char **msg)
{
	struct rm_cgroup_want *want;
	size_t k = pool_wants(p, records, n, &want);
	int rc = rm_cgroups_sync(&p->cg, want, k, msg);

	pool_wants_free(want, k);
	return rc;
}

/* After the commit: the cgroups of owners gone from the state in the v1 memory and pids
 * hierarchies (on v2 their one cgroup went with the sync). */
static void prune_limits(struct pool *p)
{
	const char **names = xcalloc(p->st.nrecords + 1, sizeof(*names));
	char *msg = NULL;
	size_t n = 0;

	for (size_t i = 0; i < p->st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p->st.records[i]), "owner"))
			names[n++] = rm_record_get(&p->st.records[i], "owner");
	if (p->cgroups && rm_ownlimit_prune(names, n, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "the state is written, but an owner's memory or pids "
			"cgroup stands: %s", msg);
	free(names);
}

void pool_commit(struct pool *p)
{
	char *msg = NULL, *msg2 = NULL;
	int saved, rc;

	set_topology_record(p);
	if (p->cgroups && sync_cgroups(p, p->st.records, p->st.nrecords, &msg))
		rm_errx(RM_EXIT_FAILURE, "%s; nothing was changed", msg);
	/* resctrl after the cgroups, which are put back when it fails */
	if ((rc = pool_sync_resctrl(p, p->st.records, p->st.nrecords, true, &msg))) {
		if (p->cgroups && sync_cgroups(p, p->before, p->nbefore, &msg2))
			rm_errx(RM_EXIT_FAILURE, "%s; the cgroups could not be put back (%s): "
			     "'rm-cpuset apply' makes them match the state", msg, msg2);
		rm_errx(rc, "%s; nothing was changed", msg);
	}
	/* quieting the isolated owners' CPUs last; it undoes itself when it fails */
	if (pool_sync_quiet(p, p->st.records, p->st.nrecords, true, &msg)) {
		pool_sync_resctrl(p, p->before, p->nbefore, false, &msg2);
		if (p->cgroups)
			sync_cgroups(p, p->before, p->nbefore, &msg2);
		rm_errx(RM_EXIT_FAILURE, "%s; nothing was changed", msg);
	}
	if (rm_state_commit(&p->st) == 0) {
		prune_limits(p);
		return;
	}
	saved = errno;
	pool_sync_quiet(p, p->before, p->nbefore, false, &msg2);
	if (pool_sync_resctrl(p, p->before, p->nbefore, false, &msg2))
		rm_errx(RM_EXIT_FAILURE, "cannot write %s: %s; the resctrl groups could not be put "
		     "back (%s): 'rm-cpuset apply' makes them match the state", p->st.path,
		     strerror(saved), msg2);
	if (p->cgroups && sync_cgroups(p, p->before, p->nbefore, &msg2))
		rm_errx(RM_EXIT_FAILURE, "cannot write %s: %s; the cgroups could not be put back (%s): "
		     "'rm-cpuset apply' makes them match the state", p->st.path, strerror(saved),
		     msg2);
	rm_errx(RM_EXIT_FAILURE, "cannot write %s: %s; nothing was changed", p->st.path,
	     strerror(saved));
}

void pool_remove_cgroups(struct pool *p)
{
	char *msg = NULL;

	if (!p->have_cgroups)
		return;
	/* fails, changing nothing, while processes are in the shared pool's cgroup */
	if (rm_cgroups_sync(&p->cg, NULL, 0, &msg) == 0)
		rm_cgroups_remove_parent(&p->cg, &msg);
	free(msg);
}

/* The logical indexes of the objects of TYPE that hold CPUs of CPUS. */
static void objects_of(const struct pool *p, hwloc_obj_type_t type, hwloc_const_bitmap_t cpus,
		       hwloc_bitmap_t ids)
{
	hwloc_obj_t o = NULL;

	hwloc_bitmap_zero(ids);
	while ((o = hwloc_get_next_obj_by_type(p->t->topo, type, o)))
		if (hwloc_bitmap_intersects(o->cpuset, cpus))
			hwloc_bitmap_set(ids, o->logical_index);
}

/* A reservation as the state keeps it ("ID:BYTES,..." or "PAGESIZE:ID:PAGES,...") with its
 * byte counts as sizes: "0:8GiB,1:4GiB", "2MiB:0:512". */
static void print_reservation(struct rm_out *out, int col, const char *v)
{
	char *copy, *tok, *save = NULL, *s = NULL;

	if (!v || !strcmp(v, "-")) {
		rm_out_str(out, col, NULL);
		return;
	}
	copy = xstrdup(v);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *size, *item, *n;

		if (!colon)
			continue;
		*colon = '\0';
		if (strchr(colon + 1, ':')) { /* PAGESIZE:ID:PAGES */
			size = rm_size_format(strtoull(tok, NULL, 10));
			item = xasprintf("%s:%s", size, colon + 1);
		} else {                      /* ID:BYTES */
			size = rm_size_format(strtoull(colon + 1, NULL, 10));
			item = xasprintf("%s:%s", tok, size);
		}
		n = s ? xasprintf("%s,%s", s, item) : xstrdup(item);
		free(s);
		free(item);
		free(size);
		s = n;
	}
	rm_out_str(out, col, s);
	free(s);
	free(copy);
}

void pool_print_owner(const struct pool *p, struct rm_out *out, const struct rm_record *r)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	const char *owner = rm_record_get(r, "owner"), *v;
	char *cg = p->have_cgroups ? rm_cgroups_path(&p->cg, owner) : NULL;

	pool_owner_cpus(r, cpus);
	rm_out_begin(out);
	rm_out_str(out, OWNER_OWNER, owner);
	rm_out_set(out, OWNER_CPUS, cpus);
	if (rm_cpulist_parse(rm_record_get(r, "mems") ?: "-", set, NULL) == 0)
		rm_out_set(out, OWNER_MEMS, set);
	objects_of(p, HWLOC_OBJ_CORE, cpus, set);
	rm_out_set(out, OWNER_CORES, set);
	rm_topo_nodes_of(p->t, cpus, set);
	rm_out_set(out, OWNER_NODES, set);
	rm_out_str(out, OWNER_CGROUP, cg);
	rm_out_int(out, OWNER_COUNT, hwloc_bitmap_weight(cpus));
	objects_of(p, HWLOC_OBJ_PACKAGE, cpus, set);
	rm_out_set(out, OWNER_PACKAGES, set);
	rm_out_bool(out, OWNER_ISOLATE, !strcmp(rm_record_get(r, "isolate") ?: "no", "yes"));
	if ((v = rm_record_get(r, "pid")) && strcmp(v, "-"))
		rm_out_int(out, OWNER_PID, strtoll(v, NULL, 10));
	if ((v = rm_record_get(r, "created")))
		rm_out_int(out, OWNER_CREATED, strtoll(v, NULL, 10));
	v = rm_record_get(r, "l3_ways");
	rm_out_int(out, OWNER_L3_WAYS, v && strcmp(v, "-") ? strtoll(v, NULL, 10) : 0);
	rm_out_bool(out, OWNER_L3_EXCLUSIVE, !strcmp(rm_record_get(r, "l3_exclusive") ?: "no", "yes"));
	v = rm_record_get(r, "l3_masks");
	rm_out_str(out, OWNER_L3_MASKS, v && strcmp(v, "-") ? v : NULL);
	v = rm_record_get(r, "mem_bandwidth");
	rm_out_str(out, OWNER_MEM_BANDWIDTH, v && strcmp(v, "-") ? v : NULL);
	if (p->resctrl && pool_owner_has_resctrl(r)) {
		char *name = pool_resctrl_name(r), *path = xasprintf("%s/%s", p->rc.root, name);

		rm_out_str(out, OWNER_RESCTRL, path);
		free(path);
		free(name);
	} else {
		rm_out_str(out, OWNER_RESCTRL, NULL);
	}
	pool_owner_offline(p, r, set);
	rm_out_set(out, OWNER_OFFLINE, set);
	owner_add_mems(r, set);
	rm_out_set(out, OWNER_ADD_MEMS, set);
	v = rm_record_get(r, "memory");
	rm_out_size(out, OWNER_MEMORY, v ? strtoull(v, NULL, 10) : 0);
	print_reservation(out, OWNER_MEMORY_NODES, rm_record_get(r, "memory_nodes"));
	print_reservation(out, OWNER_HUGEPAGES, rm_record_get(r, "hugepages"));
	if ((v = rm_record_get(r, "latency")))
		rm_out_int(out, OWNER_LATENCY, strtoll(v, NULL, 10));
	rm_out_str(out, OWNER_GOVERNOR, rm_record_get(r, "governor"));
	rm_out_str(out, OWNER_MIN_FREQ, rm_record_get(r, "min_freq"));
	for (int k = 0; k < RM_OWNLIMIT_N; k++) {
		v = rm_record_get(r, rm_ownlimit_keys[k]);
		if (!v)
			rm_out_str(out, OWNER_LIMITS + k, NULL);
		else if (k == RM_OWNLIMIT_PIDS_MAX)
			rm_out_int(out, OWNER_LIMITS + k, strtoll(v, NULL, 10));
		else
			rm_out_size(out, OWNER_LIMITS + k, strtoull(v, NULL, 10));
	}
	rm_out_end(out);
	free(cg);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(set);
}

void pool_print_owners(const struct pool *p, const struct rm_common *c,
		       const struct rm_record *recs, size_t n)
{
	struct rm_out *out = rm_out_new(&c->out, "allocations", owner_cols, owner_ncols,
					owner_defaults, true);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(rm_record_kind(&recs[i]), "owner"))
			pool_print_owner(p, out, &recs[i]);
	rm_out_close(out);
	rm_out_flush();
}

void pool_committed_cpus(hwloc_const_bitmap_t cpus, const char *owner)
{
	char *list = rm_cpulist_format(cpus);

	rm_committed("allocated CPUs %s to '%s'", list, owner);
	free(list);
}

void pool_committed_owners(const char *what, const struct rm_record *recs, size_t n)
{
	char *buf = NULL;
	size_t len = 0, k = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rm_record_kind(&recs[i]), "owner"))
			fprintf(f, "%s'%s'", k++ ? ", " : "", rm_record_get(&recs[i], "owner"));
	if (fclose(f))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	rm_committed("%s the CPUs of %s %s", what, k == 1 ? "owner" : "owners", buf);
	free(buf);
}

void pool_list_columns(const struct rm_common *c)
{
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, owner_cols, owner_ncols, owner_defaults);
		exit(RM_EXIT_SUCCESS);
	}
	rm_out_check(&c->out, owner_cols, owner_ncols, owner_defaults);
}
