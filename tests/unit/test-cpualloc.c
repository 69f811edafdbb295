/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line filter over libcommon/cpualloc.c, and its properties on random machines; driven by
 * tests/cpualloc.bats. */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpualloc.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "xalloc.h"

static void usage(void)
{
	fputs("usage: test-cpualloc --topology SYNTHETIC|XML [--offline SET] [--available SET] [--reserved SET]\n"
	      "         [--reserve-count N] [--hint NODES] [--provider NODES] [--policy POLICY] [--option NAME[=BOOL]]\n"
	      "         [--full-pcpus-only] [--distribute-cpus-across-numa] [--align-by-socket]\n"
	      "         [--distribute-cpus-across-cores] [--prefer-align-cpus-by-uncorecache]\n"
	      "         take|allocate|hint|reserve COUNT | check | info\n"
	      "       test-cpualloc props SEED N\n", stderr);
	exit(RM_EXIT_USAGE);
}

static int status(int rc)
{
	return rc == RM_CPUALLOC_EINVAL ? RM_EXIT_USAGE :
	       rc == RM_CPUALLOC_ENOSPC ? RM_EXIT_NORESOURCE : RM_EXIT_FAILURE;
}

static void fail(int rc, char *msg)
{
	fprintf(stderr, "test-cpualloc: %s\n", msg);
	free(msg);
	exit(status(rc));
}

static void parse_set(const char *str, hwloc_bitmap_t *set)
{
	char *msg = NULL;

	*set = hwloc_bitmap_alloc();
	if (rm_cpulist_parse(str, *set, &msg))
		fail(RM_CPUALLOC_EINVAL, msg);
}

static void print_set(hwloc_const_bitmap_t set)
{
	char *s = rm_cpulist_format(set);

	puts(s);
	free(s);
}

/* An XML file or a synthetic description, less the OFFLINE CPUs (NULL for none); NULL if refused. */
static hwloc_topology_t load_spec(const char *spec, hwloc_const_bitmap_t offline, bool xml)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t online;
	int bad;

	if (hwloc_topology_init(&topo) < 0) {
		fputs("test-cpualloc: cannot initialize hwloc\n", stderr);
		exit(RM_EXIT_FAILURE);
	}
	bad = xml ? hwloc_topology_set_xml(topo, spec) < 0 :
		    hwloc_topology_set_synthetic(topo, spec) < 0;
	if (bad || hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		return NULL;
	}
	if (offline && !hwloc_bitmap_iszero(offline)) {
		/* as on Linux: offline CPUs are no PUs, and a core or cache left empty goes */
		online = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(topo));
		hwloc_bitmap_andnot(online, online, offline);
		bad = hwloc_bitmap_iszero(online) || hwloc_topology_restrict(topo, online, 0) < 0;
		hwloc_bitmap_free(online);
		if (bad) {
			hwloc_topology_destroy(topo);
			return NULL;
		}
	}
	return topo;
}

static hwloc_topology_t load(const char *spec, hwloc_const_bitmap_t offline)
{
	struct stat st;
	hwloc_topology_t topo = load_spec(spec, offline, stat(spec, &st) == 0);

	if (!topo) {
		fprintf(stderr, "test-cpualloc: invalid topology: '%s'\n", spec);
		exit(RM_EXIT_USAGE);
	}
	return topo;
}

/* ---- props: properties of the placement on random machines, from a seed ---- */

/*
 * "test-cpualloc props SEED N" runs N cases, case i from seed SEED + i, so that "props S 1"
 * replays the case of seed S alone. A case is a random hwloc synthetic machine (maybe with
 * CPUs offline), a reservation, a valid set of options and a Topology Manager policy (one
 * kubelet configuration), then a random sequence of allocations and releases. After each step
 * the properties below are checked; a failure prints the case and a command line that repeats
 * the failing allocation. Only properties that the kubelet's rules imply are asserted, each
 * under the conditions stated where it is checked:
 *   - option sets are refused exactly as rm_cpualloc_check_opts documents;
 *   - a reservation by count is that many online CPUs;
 *   - the status is the documented one (SMT multiple, free physical CPUs, free CPUs, and for
 *     single-numa-node: admitted exactly when one node has the count free); a failure takes
 *     nothing, changes neither input and gives the documented message;
 *   - a success has exactly the count, of free online unreserved CPUs held by no one else;
 *   - a release frees exactly the CPUs it held: the free CPUs are then the online ones less
 *     those still held;
 *   - with a hint, min(count, free aligned CPUs) come from the hinted nodes (their sockets with
 *     align-by-socket); single-numa-node's hint is one preferred node holding the whole result;
 *   - full-pcpus-only gives whole cores; packed takes whole units; the uncore option keeps a
 *     request that fits a free L3 in one L3; distribute-cpus-across-numa uses the fewest nodes
 *     that qualify, each with at least the even share.
 */

/* splitmix64: small, deterministic on every platform */
struct rng {
	unsigned long long s;
};

static unsigned long long rng_next(struct rng *r)
{
	unsigned long long z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. N-1 (0 when N is 0) */
static unsigned rnd(struct rng *r, unsigned n)
{
	return n ? (unsigned)(rng_next(r) % n) : 0;
}

/* The CPUs of each distinct id of one level (socket, node, core, uncore), ids ascending. */
struct units {
	unsigned n;
	int *id;
	hwloc_bitmap_t *cpus;
};

static int cmp_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The allocator's view of TOPO, whose NUMA nodes own CPUs as for --topology. */
static struct rm_cputopo *cputopo_of(hwloc_topology_t topo)
{
	struct rm_topo *rt = rm_topo_wrap(topo);
	struct rm_cputopo *t = rm_cputopo_new(rt);

	rm_topo_free(rt);
	return t;
}

static void units_build(struct units *u, const struct rm_cputopo *t, const int *ids)
{
	unsigned i, n = 0;

	u->id = xmalloc(t->ncpus * sizeof(*u->id));
	memcpy(u->id, ids, t->ncpus * sizeof(*u->id));
	qsort(u->id, t->ncpus, sizeof(*u->id), cmp_id);
	for (i = 0; i < t->ncpus; i++)
		if (i == 0 || u->id[i] != u->id[n - 1])
			u->id[n++] = u->id[i];
	u->n = n;
	u->cpus = xcalloc(n, sizeof(*u->cpus));
	for (i = 0; i < n; i++)
		u->cpus[i] = hwloc_bitmap_alloc();
	for (i = 0; i < t->ncpus; i++) {
		int *hit = bsearch(&ids[i], u->id, n, sizeof(*u->id), cmp_id);

		hwloc_bitmap_set(u->cpus[hit - u->id], t->cpu[i]);
	}
}

static void units_free(struct units *u)
{
	for (unsigned i = 0; i < u->n; i++)
		hwloc_bitmap_free(u->cpus[i]);
	free(u->cpus);
	free(u->id);
}

/* All units of one size (returned in *SIZE)? */
static bool units_uniform(const struct units *u, unsigned *size)
{
	*size = hwloc_bitmap_weight(u->cpus[0]);
	for (unsigned i = 1; i < u->n; i++)
		if ((unsigned)hwloc_bitmap_weight(u->cpus[i]) != *size)
			return false;
	return true;
}

/* Does every unit of IN lie inside one unit of OUT? */
static bool units_nested(const struct units *in, const struct units *out)
{
	for (unsigned i = 0; i < in->n; i++) {
		unsigned j;

		for (j = 0; j < out->n; j++)
			if (hwloc_bitmap_isincluded(in->cpus[i], out->cpus[j]))
				break;
		if (j == out->n)
			return false;
	}
	return true;
}

/* How many units lie entirely in SET. */
static unsigned units_whole_in(const struct units *u, hwloc_const_bitmap_t set)
{
	unsigned n = 0;

	for (unsigned i = 0; i < u->n; i++)
		n += hwloc_bitmap_isincluded(u->cpus[i], set);
	return n;
}

/* Is SET a union of whole units? */
static bool units_union(const struct units *u, hwloc_const_bitmap_t set)
{
	for (unsigned i = 0; i < u->n; i++)
		if (hwloc_bitmap_intersects(u->cpus[i], set) &&
		    !hwloc_bitmap_isincluded(u->cpus[i], set))
			return false;
	return true;
}

/* How many units SET touches. */
static unsigned units_touched(const struct units *u, hwloc_const_bitmap_t set)
{
	unsigned n = 0;

	for (unsigned i = 0; i < u->n; i++)
		n += hwloc_bitmap_intersects(u->cpus[i], set);
	return n;
}

static unsigned weight_and(hwloc_const_bitmap_t a, hwloc_const_bitmap_t b)
{
	hwloc_bitmap_t x = hwloc_bitmap_alloc();
	unsigned n;

	hwloc_bitmap_and(x, a, b);
	n = hwloc_bitmap_weight(x);
	hwloc_bitmap_free(x);
	return n;
}

/* How often each property was asserted, and on how much. */
struct counts {
	unsigned long cases, ops, allocs, failures_expected, releases, opts_refused;
	unsigned long whole_outer, whole_inner, whole_l3, whole_cores, uncore_fit;
	unsigned long distributed, hint_aligned, single_node, full_cores, offline_cases, max_cpus;
};

/* One case: a machine, a kubelet configuration, and what is held. */
struct pcase {
	unsigned long long seed;
	unsigned op;
	char *spec;
	hwloc_bitmap_t offline, online, reserved, pool, shared, usable, hint, result;
	hwloc_topology_t topo;
	struct rm_cputopo *t;
	struct units lv[4]; /* socket, node, core, uncore */
	struct rm_cpualloc_opts o;
	enum rm_tm_policy policy;
	bool offline_in_shared;
	hwloc_bitmap_t *held;
	unsigned nheld;
	unsigned count;
	int rc;
	char *msg;
	unsigned failed;
};

enum { U_SOCKET, U_NODE, U_CORE, U_UNCORE };

static char *opts_list(const struct rm_cpualloc_opts *o, const char *sep, const char *prefix)
{
	static const char *const names[] = { "full-pcpus-only", "distribute-cpus-across-numa",
					     "align-by-socket", "distribute-cpus-across-cores",
					     "prefer-align-cpus-by-uncorecache" };
	const bool on[] = { o->full_pcpus_only, o->distribute_cpus_across_numa, o->align_by_socket,
			    o->distribute_cpus_across_cores, o->prefer_align_cpus_by_uncorecache };
	char *s = xstrdup(""), *n;

	for (unsigned i = 0; i < 5; i++) {
		if (!on[i])
			continue;
		n = xasprintf("%s%s%s%s", s, *s ? sep : "", prefix, names[i]);
		free(s);
		s = n;
	}
	return s;
}

__attribute__((format(printf, 3, 4)))
static void prop_fail(struct pcase *c, const char *prop, const char *fmt, ...)
{
	char *off = rm_cpulist_format(c->offline), *resv = rm_cpulist_format(c->reserved);
	char *shared = rm_cpulist_format(c->shared), *hint = rm_cpulist_format(c->hint);
	char *res = rm_cpulist_format(c->result), *opts = opts_list(&c->o, ",", "");
	char *cli = opts_list(&c->o, " ", "--");
	va_list ap;

	fprintf(stderr, "test-cpualloc: props: seed %llu, step %u: %s: ", c->seed, c->op, prop);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  topology: '%s'\n  offline: '%s'\n  reserved: '%s'\n"
		"  options: '%s'\n  policy: %s\n  free (shared pool): '%s'\n  count: %u\n"
		"  hint: '%s'\n  status: %d%s%s\n  result: '%s'\n"
		"  replay: test-cpualloc props %llu 1\n"
		"  replay: test-cpualloc --topology '%s' --offline '%s' --available '%s' "
		"--reserved '%s' --policy %s %s allocate %u\n",
		c->spec, off, resv, opts, rm_tm_policy_name(c->policy), shared, c->count, hint,
		c->rc, c->msg ? " " : "", c->msg ? c->msg : "", res, c->seed, c->spec, off,
		shared, resv, rm_tm_policy_name(c->policy), cli, c->count);
	free(off);
	free(resv);
	free(shared);
	free(hint);
	free(res);
	free(opts);
	free(cli);
	c->failed++;
}

/*
 * A synthetic description: PACKAGES 1-8, NUMA nodes per package 1-4 (or packages per node),
 * L3 caches per node 1-4 (or one L3 over two nodes, or none), cores per L3 1-32, SMT 1, 2 or 4;
 * PUs numbered core by core, Linux-style (thread t of core c is c + t * cores), or shuffled.
 * Machines are kept under MAX CPUs by giving them fewer cores per L3.
 */
static char *gen_spec(struct rng *r, unsigned max)
{
	static const unsigned smt[] = { 1, 2, 4 };
	unsigned layout = rnd(r, 4), pk = 1 + rnd(r, 8), nn = 1 + rnd(r, 4), l3 = 1 + rnd(r, 4);
	unsigned cores = 1 + rnd(r, 32), pu = smt[rnd(r, 3)], numbering = rnd(r, 10), per, total;
	char *head, *spec, *idx = NULL;
	size_t len = 0;
	FILE *f;

	if (layout == 2) { /* packages per node: 1-8 packages in all */
		nn = 1 + rnd(r, 4);
		pk = 1 + rnd(r, 8 / nn);
	}
	if (layout == 1)
		nn = 2; /* NUMA nodes per L3 */
	if (layout == 3)
		l3 = 1;
	per = pk * nn * l3 * pu;
	if (per * cores > max)
		cores = max / per ? max / per : 1;
	total = per * cores;
	switch (layout) {
	case 0:
		head = xasprintf("package:%u numa:%u l3:%u core:%u", pk, nn, l3, cores);
		break;
	case 1:
		head = xasprintf("package:%u l3:%u numa:%u core:%u", pk, l3, nn, cores);
		break;
	case 2:
		head = xasprintf("numa:%u package:%u l3:%u core:%u", nn, pk, l3, cores);
		break;
	default:
		head = xasprintf("package:%u numa:%u core:%u", pk, nn, cores);
		break;
	}
	if (pu > 1 && numbering >= 4) {
		unsigned ncores = total / pu, *perm = xmalloc(total * sizeof(*perm)), i;

		for (i = 0; i < total; i++) /* logical PU i: thread i % pu of core i / pu */
			perm[i] = numbering < 9 ? i / pu + i % pu * ncores : i;
		for (i = total - 1; numbering == 9 && i > 0; i--) {
			unsigned j = rnd(r, i + 1), x = perm[i];

			perm[i] = perm[j];
			perm[j] = x;
		}
		f = open_memstream(&idx, &len);
		for (i = 0; i < total; i++)
			fprintf(f, "%s%u", i ? "," : "", perm[i]);
		fclose(f);
		free(perm);
	}
	spec = idx ? xasprintf("%s pu:%u(indexes=%s)", head, pu, idx) : xasprintf("%s pu:%u", head, pu);
	free(head);
	free(idx);
	return spec;
}

/* What rm_cpualloc_check_opts must refuse, from its documentation. */
static bool opts_refused(const struct rm_cputopo *t, const struct rm_cpualloc_opts *o,
			 enum rm_tm_policy policy)
{
	bool cores = o->distribute_cpus_across_cores;

	return (cores && (o->full_pcpus_only || o->distribute_cpus_across_numa ||
			  o->prefer_align_cpus_by_uncorecache)) ||
	       (o->prefer_align_cpus_by_uncorecache && o->distribute_cpus_across_numa) ||
	       (o->align_by_socket &&
		(policy == RM_TM_SINGLE_NUMA_NODE || t->num_sockets > t->num_nodes));
}

/* Set up case SEED; false (after reporting) when the machine cannot be built. */
static bool case_init(struct pcase *c, struct rng *r, unsigned long long seed,
		      struct counts *k)
{
	unsigned max = rnd(r, 8) ? 1024 : 4096, i, n;
	hwloc_bitmap_t all;
	char *msg = NULL;
	int rc;

	memset(c, 0, sizeof(*c));
	c->seed = seed;
	c->spec = gen_spec(r, max);
	c->offline = hwloc_bitmap_alloc();
	c->online = hwloc_bitmap_alloc();
	c->reserved = hwloc_bitmap_alloc();
	c->pool = hwloc_bitmap_alloc();
	c->shared = hwloc_bitmap_alloc();
	c->usable = hwloc_bitmap_alloc();
	c->hint = hwloc_bitmap_alloc();
	c->result = hwloc_bitmap_alloc();
	if (!(c->topo = load_spec(c->spec, NULL, false))) {
		prop_fail(c, "machine", "hwloc refused the synthetic description");
		return false;
	}
	all = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(c->topo));
	n = hwloc_bitmap_weight(all);
	if (n > 1 && rnd(r, 4) == 0) { /* CPUs offline, never all */
		unsigned off = 1 + rnd(r, n - 1 < 8 ? n - 1 : 8), *cpu = xmalloc(n * sizeof(*cpu));
		int id;

		i = 0;
		hwloc_bitmap_foreach_begin(id, all)
		{
			cpu[i++] = id;
		}
		hwloc_bitmap_foreach_end();
		for (i = 0; i < off; i++)
			hwloc_bitmap_set(c->offline, cpu[rnd(r, n)]);
		free(cpu);
		hwloc_topology_destroy(c->topo);
		if (!(c->topo = load_spec(c->spec, c->offline, false))) {
			hwloc_bitmap_free(all);
			prop_fail(c, "machine", "hwloc refused to take CPUs offline");
			return false;
		}
		k->offline_cases++;
	}
	hwloc_bitmap_free(all);
	c->t = cputopo_of(c->topo);
	for (i = 0; i < c->t->ncpus; i++)
		hwloc_bitmap_set(c->online, c->t->cpu[i]);
	if (c->t->ncpus > k->max_cpus)
		k->max_cpus = c->t->ncpus;
	units_build(&c->lv[U_SOCKET], c->t, c->t->socket);
	units_build(&c->lv[U_NODE], c->t, c->t->node);
	units_build(&c->lv[U_CORE], c->t, c->t->core);
	units_build(&c->lv[U_UNCORE], c->t, c->t->uncore);

	/* one kubelet configuration: options and policy as the kubelet would accept them; hints
	 * and NUMA distribution only up to the kubelet's default of 8 NUMA nodes */
	for (i = 0; i < 1000; i++) {
		c->o = (struct rm_cpualloc_opts){
			.full_pcpus_only = rnd(r, 10) < 3,
			.distribute_cpus_across_numa = rnd(r, 10) < 3,
			.align_by_socket = rnd(r, 10) < 3,
			.distribute_cpus_across_cores = rnd(r, 10) < 2,
			.prefer_align_cpus_by_uncorecache = rnd(r, 10) < 3,
		};
		c->policy = rnd(r, 2) ? RM_TM_NONE : (enum rm_tm_policy)(1 + rnd(r, 3));
		if (c->t->num_nodes > 8) {
			c->policy = RM_TM_NONE;
			c->o.distribute_cpus_across_numa = false;
		}
		rc = rm_cpualloc_check_opts(c->t, &c->o, c->policy, &msg);
		free(msg);
		msg = NULL;
		if ((rc == RM_CPUALLOC_EINVAL) != opts_refused(c->t, &c->o, c->policy) ||
		    (rc && rc != RM_CPUALLOC_EINVAL)) {
			prop_fail(c, "option check", "rm_cpualloc_check_opts returned %d", rc);
			return false;
		}
		if (!rc)
			break;
		k->opts_refused++;
	}
	if (i == 1000) {
		c->o = (struct rm_cpualloc_opts){ 0 };
		c->policy = RM_TM_NONE;
	}

	/* reserved CPUs: none, a count chosen as the kubelet does, or a list of any CPUs */
	switch (rnd(r, 3)) {
	case 0:
		break;
	case 1:
		n = 1 + rnd(r, 2 * c->t->threads_per_core + 1);
		if (n >= c->t->ncpus)
			break;
		rc = rm_cpualloc_reserve(c->t, n, &c->o, c->reserved, &msg);
		if (rc || (unsigned)hwloc_bitmap_weight(c->reserved) != n ||
		    !hwloc_bitmap_isincluded(c->reserved, c->online)) {
			c->count = n;
			c->rc = rc;
			c->msg = msg;
			prop_fail(c, "reserve", "not %u online CPUs", n);
			return false;
		}
		break;
	default:
		n = 1 + rnd(r, 4);
		for (i = 0; i < n && i + 1 < c->t->ncpus; i++)
			hwloc_bitmap_set(c->reserved, c->t->cpu[rnd(r, c->t->ncpus)]);
		break;
	}
	hwloc_bitmap_copy(c->pool, c->online);
	c->offline_in_shared = !hwloc_bitmap_iszero(c->offline) && rnd(r, 2);
	return true;
}

static void case_fini(struct pcase *c)
{
	for (unsigned i = 0; i < c->nheld; i++)
		hwloc_bitmap_free(c->held[i]);
	free(c->held);
	for (unsigned l = 0; c->t && l < 4; l++)
		units_free(&c->lv[l]);
	rm_cputopo_free(c->t);
	if (c->topo)
		hwloc_topology_destroy(c->topo);
	hwloc_bitmap_free(c->offline);
	hwloc_bitmap_free(c->online);
	hwloc_bitmap_free(c->reserved);
	hwloc_bitmap_free(c->pool);
	hwloc_bitmap_free(c->shared);
	hwloc_bitmap_free(c->usable);
	hwloc_bitmap_free(c->hint);
	hwloc_bitmap_free(c->result);
	free(c->spec);
	free(c->msg);
}

/* The CPUs of the hinted nodes, or of the sockets holding them with align-by-socket. */
static void hint_cpus(const struct pcase *c, hwloc_bitmap_t out)
{
	const struct units *nodes = &c->lv[U_NODE], *sockets = &c->lv[U_SOCKET];
	unsigned i;

	hwloc_bitmap_zero(out);
	for (i = 0; i < nodes->n; i++)
		if (hwloc_bitmap_isset(c->hint, nodes->id[i]))
			hwloc_bitmap_or(out, out, nodes->cpus[i]);
	for (i = 0; c->o.align_by_socket && i < sockets->n; i++)
		if (hwloc_bitmap_intersects(sockets->cpus[i], out))
			hwloc_bitmap_or(out, out, sockets->cpus[i]);
}

/* A count: small, a multiple of a unit, all, too many, or any. */
static unsigned gen_count(struct pcase *c, struct rng *r, unsigned navail)
{
	const struct rm_cputopo *t = c->t;
	unsigned tpc = t->threads_per_core ? t->threads_per_core : 1, n, x = rnd(r, 100);
	unsigned units[] = { tpc, t->cpus_per_uncore, t->num_nodes ? t->ncpus / t->num_nodes : 1,
			     t->cpus_per_socket };

	if (x < 35) {
		n = 2 * t->cpus_per_uncore < navail ? 2 * t->cpus_per_uncore : navail;
		n = 1 + rnd(r, n ? n : 1);
	} else if (x < 60) {
		n = units[rnd(r, 4)] * (1 + rnd(r, 3));
	} else if (x < 68) {
		n = navail + 1 + rnd(r, tpc + 1);
	} else if (x < 74) {
		n = navail;
	} else if (x < 77) {
		n = 0;
	} else {
		n = rnd(r, navail + 1);
	}
	if (c->o.full_pcpus_only && rnd(r, 100) < 85)
		n = (n + tpc - 1) / tpc * tpc;
	return n;
}

/* The status the documentation promises for this allocation (hint aside). */
static int expected_status(const struct pcase *c, unsigned navail, const char **prefix)
{
	const struct rm_cputopo *t = c->t;
	unsigned phys = 0, i;

	*prefix = NULL;
	if (c->count == 0)
		return 0;
	if (c->o.full_pcpus_only) {
		if (t->threads_per_core && c->count % t->threads_per_core) {
			*prefix = "requested ";
			return RM_CPUALLOC_EINVAL;
		}
		for (i = 0; i < c->lv[U_CORE].n; i++) /* a core with a reserved CPU is not free */
			if (!hwloc_bitmap_intersects(c->lv[U_CORE].cpus[i], c->reserved))
				phys += weight_and(c->lv[U_CORE].cpus[i], c->pool);
		if (c->count > phys) {
			*prefix = "not enough free physical CPUs: ";
			return RM_CPUALLOC_ENOSPC;
		}
	}
	if (c->count > navail) {
		*prefix = "not enough free CPUs: ";
		return RM_CPUALLOC_ENOSPC;
	}
	return 0;
}

/* Are all CPUs of the machine online and every unit of each level of one size? */
static bool case_uniform(const struct pcase *c, unsigned size[4])
{
	bool uniform = hwloc_bitmap_iszero(c->offline);

	for (unsigned l = 0; l < 4; l++)
		uniform &= units_uniform(&c->lv[l], &size[l]);
	return uniform;
}

/* The first M units of U lying entirely in SET, by ascending id. */
static void first_whole(const struct units *u, hwloc_const_bitmap_t set, unsigned m,
			hwloc_bitmap_t out)
{
	hwloc_bitmap_zero(out);
	for (unsigned i = 0; i < u->n && m; i++)
		if (hwloc_bitmap_isincluded(u->cpus[i], set)) {
			hwloc_bitmap_or(out, out, u->cpus[i]);
			m--;
		}
}

/*
 * Distributed allocation (§4 of the reference): the smallest K from the kubelet's range for
 * which some K of the NUMA nodes with free CPUs qualify (enough CPUs, enough groups of G, each
 * node at least the even share); 0 when none does and the take falls back to packing.
 */
static unsigned distributed_k(const struct pcase *c, long g, long *share)
{
	const struct units *nodes = &c->lv[U_NODE];
	long fc[32], groups, per_node, needed, n = c->count;
	unsigned cand = 0, kmin, kmax, k, i;
	unsigned long mask;

	for (i = 0; i < nodes->n; i++) {
		long f = weight_and(nodes->cpus[i], c->usable);

		if (f && cand < 32)
			fc[cand++] = f;
	}
	groups = ((long)c->t->ncpus - 1) / g + 1;
	per_node = (groups - 1) / nodes->n + 1;
	needed = (n - 1) / g + 1;
	kmin = (needed - 1) / per_node + 1;
	kmax = needed < (long)cand ? needed : cand;
	for (k = kmin; k <= kmax; k++) {
		*share = n / k / g * g;
		for (mask = 1; mask < 1UL << cand; mask++) {
			long total = 0, grouped = 0;
			bool even = true;

			if ((unsigned)__builtin_popcountl(mask) != k)
				continue;
			for (i = 0; i < cand; i++)
				if (mask & 1UL << i) {
					total += fc[i];
					grouped += fc[i] / g;
					even &= fc[i] >= *share;
				}
			if (total >= n && grouped * g >= n && even)
				return k;
		}
	}
	return 0;
}

/* The properties of one successful allocation. */
static void check_result(struct pcase *c, struct counts *k, bool hinted)
{
	const struct rm_cputopo *t = c->t;
	unsigned tpc = t->threads_per_core ? t->threads_per_core : 1, size[4], i;
	unsigned so, si, count = c->count;
	bool uniform = case_uniform(c, size), numa_first = t->num_sockets >= t->num_nodes;
	const struct units *outer = &c->lv[numa_first ? U_NODE : U_SOCKET];
	const struct units *inner = &c->lv[numa_first ? U_SOCKET : U_NODE];
	hwloc_bitmap_t x = hwloc_bitmap_alloc();

	so = size[numa_first ? U_NODE : U_SOCKET];
	si = size[numa_first ? U_SOCKET : U_NODE];

	/* full-pcpus-only: whole cores, on a machine whose cores are all whole. When a reserved
	 * CPU splits a core, its free sibling is still available to the take (the kubelet leaves
	 * the siblings out of its count of free physical CPUs only), and two paths of the kubelet
	 * then hand it out: a hint taken first (min(count, aligned) CPUs from the hinted nodes,
	 * whatever the SMT), and distribute-cpus-across-numa (a node's groups are its free CPUs
	 * divided by the threads per core, lone siblings included) */
	if (c->o.full_pcpus_only && units_uniform(&c->lv[U_CORE], &size[U_CORE]) &&
	    size[U_CORE] == tpc &&
	    ((!hinted && !c->o.distribute_cpus_across_numa) ||
	     units_union(&c->lv[U_CORE], c->reserved))) {
		k->full_cores++;
		if (!units_union(&c->lv[U_CORE], c->result))
			prop_fail(c, "full-pcpus-only", "the result splits a core");
	}

	/* packed, no hint narrowing it, on a uniform machine (§3 steps 2, 3, 4 and 5): a count of
	 * M whole units, with at least M such units free, is taken as whole units; for the outer
	 * level (NUMA nodes when NUMA-first, else sockets) the M lowest-numbered free ones */
	if (!c->o.distribute_cpus_across_numa && !hinted && uniform && count) {
		if (count % so == 0 && units_whole_in(outer, c->usable) >= count / so) {
			k->whole_outer++;
			first_whole(outer, c->usable, count / so, x);
			if (!hwloc_bitmap_isequal(x, c->result))
				prop_fail(c, "packed whole units", "not the %u lowest free %s",
					  count / so, numa_first ? "NUMA nodes" : "sockets");
		}
		if (count % si == 0 && units_nested(inner, outer) &&
		    units_whole_in(inner, c->usable) >= count / si) {
			k->whole_inner++;
			if (!units_union(inner, c->result))
				prop_fail(c, "packed whole units", "not whole %s",
					  numa_first ? "sockets" : "NUMA nodes");
		}
		if (c->o.prefer_align_cpus_by_uncorecache && count % size[U_UNCORE] == 0 &&
		    units_nested(&c->lv[U_UNCORE], &c->lv[U_NODE]) &&
		    units_nested(&c->lv[U_UNCORE], &c->lv[U_SOCKET]) &&
		    units_whole_in(&c->lv[U_UNCORE], c->usable) >= count / size[U_UNCORE]) {
			k->whole_l3++;
			if (!units_union(&c->lv[U_UNCORE], c->result))
				prop_fail(c, "packed whole units", "not whole L3 caches");
		}
		if (!c->o.distribute_cpus_across_cores && count % tpc == 0 &&
		    units_whole_in(&c->lv[U_CORE], c->usable) >= count / tpc) {
			k->whole_cores++;
			if (!units_union(&c->lv[U_CORE], c->result))
				prop_fail(c, "packed whole units", "not whole cores");
		}
	}

	/* prefer-align-cpus-by-uncorecache (§3 step 4): a count no larger than an L3 and smaller
	 * than a NUMA node and a socket, with an L3 entirely free, stays in one L3, when the
	 * kubelet's partial step can make the count there: whole cores, or one CPU less than
	 * whole cores for an odd count (so with 4 threads per core, counts of 4n and 4n - 1) */
	if (c->o.prefer_align_cpus_by_uncorecache && !hinted && uniform && count &&
	    count <= size[U_UNCORE] && count < size[U_NODE] && count < size[U_SOCKET] &&
	    units_whole_in(&c->lv[U_UNCORE], c->usable) >= 1 &&
	    (count == size[U_UNCORE] ||
	     (count + tpc - 1) / tpc * tpc - (tpc > 1 && count % 2) == count)) {
		k->uncore_fit++;
		if (units_touched(&c->lv[U_UNCORE], c->result) != 1)
			prop_fail(c, "uncore alignment", "the result spans %u L3 caches",
				  units_touched(&c->lv[U_UNCORE], c->result));
	}

	/* distribute-cpus-across-numa (§4), without align-by-socket (which caps the shares): when
	 * some set of nodes qualifies, the smallest such set size K is used, every node of it gets
	 * at least the even share S = floor(N / K / G) * G and a multiple of G, so that the shares
	 * differ by at most the remainder N - K * S */
	if (c->o.distribute_cpus_across_numa && !c->o.align_by_socket && !hinted && count) {
		long g = c->o.full_pcpus_only ? tpc : 1, share = 0;
		unsigned kk = count % g ? 0 : distributed_k(c, g, &share);

		if (kk) {
			k->distributed++;
			if (units_touched(&c->lv[U_NODE], c->result) != kk)
				prop_fail(c, "distributed", "the result spans %u NUMA nodes, not %u",
					  units_touched(&c->lv[U_NODE], c->result), kk);
			for (i = 0; i < c->lv[U_NODE].n; i++) {
				long got = weight_and(c->lv[U_NODE].cpus[i], c->result);

				if (got && (got < share || got % g))
					prop_fail(c, "distributed", "node %d gets %ld CPUs, the even "
						  "share is %ld in groups of %ld", c->lv[U_NODE].id[i],
						  got, share, g);
			}
		}
	}
	hwloc_bitmap_free(x);
}

static void do_alloc(struct pcase *c, struct rng *r, struct counts *k)
{
	const struct rm_cputopo *t = c->t;
	hwloc_bitmap_t shared0, resv0, aligned = hwloc_bitmap_alloc(), x = hwloc_bitmap_alloc();
	unsigned navail, i;
	const char *prefix;
	bool preferred = false, hinted = false;
	int want;

	hwloc_bitmap_andnot(c->usable, c->pool, c->reserved);
	navail = hwloc_bitmap_weight(c->usable);
	c->count = gen_count(c, r, navail);
	hwloc_bitmap_copy(c->shared, c->pool);
	if (c->offline_in_shared) /* CPUs the topology lacks are ignored */
		hwloc_bitmap_or(c->shared, c->shared, c->offline);
	shared0 = hwloc_bitmap_dup(c->shared);
	resv0 = hwloc_bitmap_dup(c->reserved);
	hwloc_bitmap_zero(c->hint);
	free(c->msg);
	c->msg = NULL;
	k->allocs++;

	/* the Topology Manager's hint first, as test-cpualloc allocate --policy does */
	c->rc = 0;
	if (c->policy != RM_TM_NONE)
		c->rc = rm_cpualloc_hint(t, c->usable, c->count, NULL, c->policy, &c->o, c->hint,
					 &preferred, &c->msg);
	if (c->policy == RM_TM_SINGLE_NUMA_NODE) {
		/* single-numa-node admits exactly when one node has COUNT CPUs free */
		bool fits = c->count == 0;

		for (i = 0; i < c->lv[U_NODE].n; i++)
			fits |= weight_and(c->lv[U_NODE].cpus[i], c->usable) >= c->count;
		if (fits != (c->rc == 0) ||
		    (c->rc && (c->rc != RM_CPUALLOC_ENOSPC ||
			       strncmp(c->msg, "topology manager policy single-numa-node: ", 42)))) {
			prop_fail(c, "single-numa-node", "the hint %s, but %s node has the CPUs free",
				  c->rc ? "fails" : "succeeds", fits ? "a" : "no");
			goto out;
		}
	} else if (c->rc && (c->policy != RM_TM_RESTRICTED || c->rc != RM_CPUALLOC_ENOSPC ||
			     strncmp(c->msg, "topology manager policy restricted: ", 36))) {
		prop_fail(c, "hint", "unexpected failure");
		goto out;
	}
	hwloc_bitmap_zero(c->result);
	if (c->rc) {
		k->failures_expected++;
		goto out;
	}
	hwloc_bitmap_fill(c->result); /* must come back empty on failure */
	c->rc = rm_cpualloc_allocate(t, c->shared, c->reserved, c->count, &c->o, c->hint,
				     c->result, &c->msg);

	/* the status the documentation promises; on failure nothing is taken or changed */
	want = expected_status(c, navail, &prefix);
	if (c->rc != want) {
		prop_fail(c, "status", "expected %d", want);
		goto out;
	}
	if (!hwloc_bitmap_isequal(c->shared, shared0) ||
	    !hwloc_bitmap_isequal(c->reserved, resv0)) {
		prop_fail(c, "inputs", "the shared pool or the reserved CPUs changed");
		goto out;
	}
	if (c->rc) {
		char *exact = xasprintf("not enough free CPUs: requested %u, available %u", c->count,
					navail);

		k->failures_expected++;
		if (!hwloc_bitmap_iszero(c->result) || !c->msg ||
		    strncmp(c->msg, prefix, strlen(prefix)) ||
		    (!strcmp(prefix, "not enough free CPUs: ") && strcmp(c->msg, exact)))
			prop_fail(c, "failure", "wrong message, or a result");
		free(exact);
		goto out;
	}

	/* every success: the exact count, of free online CPUs that are not reserved, held by
	 * no one else */
	if ((unsigned)hwloc_bitmap_weight(c->result) != c->count) {
		prop_fail(c, "count", "%d CPUs", hwloc_bitmap_weight(c->result));
		goto out;
	}
	if (!hwloc_bitmap_isincluded(c->result, c->usable) ||
	    !hwloc_bitmap_isincluded(c->result, c->online)) {
		prop_fail(c, "subset", "CPUs that are not free, online and unreserved");
		goto out;
	}
	for (i = 0; i < c->nheld; i++)
		if (hwloc_bitmap_intersects(c->result, c->held[i])) {
			prop_fail(c, "overlap", "CPUs of an earlier allocation");
			goto out;
		}

	/* a hint: min(count, aligned) CPUs from the hinted nodes (their sockets with
	 * align-by-socket); single-numa-node: one node, all CPUs from it */
	if (!hwloc_bitmap_iszero(c->hint)) {
		unsigned na;

		hint_cpus(c, aligned);
		hwloc_bitmap_and(aligned, aligned, c->usable);
		na = hwloc_bitmap_weight(aligned);
		hinted = !hwloc_bitmap_isequal(aligned, c->usable);
		hwloc_bitmap_and(x, aligned, c->result);
		k->hint_aligned++;
		if ((unsigned)hwloc_bitmap_weight(x) != (c->count < na ? c->count : na))
			prop_fail(c, "hint", "%d CPUs from the hinted nodes",
				  hwloc_bitmap_weight(x));
		if (c->policy == RM_TM_SINGLE_NUMA_NODE) {
			k->single_node++;
			if (hwloc_bitmap_weight(c->hint) != 1 || !preferred ||
			    !hwloc_bitmap_isincluded(c->result, aligned))
				prop_fail(c, "single-numa-node", "not one preferred node");
		}
	}
	check_result(c, k, hinted);
	if (c->failed)
		goto out;

	hwloc_bitmap_andnot(c->pool, c->pool, c->result);
	c->held = xrealloc(c->held, (c->nheld + 1) * sizeof(*c->held));
	c->held[c->nheld++] = hwloc_bitmap_dup(c->result);
out:
	hwloc_bitmap_free(shared0);
	hwloc_bitmap_free(resv0);
	hwloc_bitmap_free(aligned);
	hwloc_bitmap_free(x);
}

/* Release allocation I: its CPUs were not free, and afterwards exactly the held ones are not. */
static void do_release(struct pcase *c, unsigned i, struct counts *k)
{
	hwloc_bitmap_t expect = hwloc_bitmap_dup(c->online), set = c->held[i];

	k->releases++;
	hwloc_bitmap_zero(c->hint);
	hwloc_bitmap_copy(c->result, set);
	c->count = hwloc_bitmap_weight(set);
	c->rc = 0;
	if (hwloc_bitmap_intersects(set, c->pool))
		prop_fail(c, "release", "CPUs that were free");
	hwloc_bitmap_or(c->pool, c->pool, set);
	hwloc_bitmap_free(set);
	c->held[i] = c->held[--c->nheld];
	for (unsigned j = 0; j < c->nheld; j++)
		hwloc_bitmap_andnot(expect, expect, c->held[j]);
	if (!hwloc_bitmap_isequal(expect, c->pool))
		prop_fail(c, "release", "the free CPUs are not the online ones less those held");
	hwloc_bitmap_free(expect);
}

static unsigned run_case(unsigned long long seed, struct counts *k)
{
	struct rng r = { seed };
	struct pcase c;
	unsigned nops, failed;

	k->cases++;
	if (case_init(&c, &r, seed, k)) {
		nops = 8 + rnd(&r, 25);
		for (c.op = 1; c.op <= nops && !c.failed; c.op++) {
			k->ops++;
			if (c.nheld && rnd(&r, 100) < 35)
				do_release(&c, rnd(&r, c.nheld), k);
			else
				do_alloc(&c, &r, k);
		}
		while (c.nheld && !c.failed)
			do_release(&c, rnd(&r, c.nheld), k);
	}
	failed = c.failed;
	case_fini(&c);
	return failed;
}

/* props SEED N: exit 0 when every property held, 1 otherwise. */
static int props(int argc, char **argv)
{
	struct counts k = { 0 };
	unsigned long long seed;
	unsigned long n, i, failed = 0;
	char *end;

	if (argc != 4)
		usage();
	seed = strtoull(argv[2], &end, 10);
	if (*end || !*argv[2])
		usage();
	n = strtoul(argv[3], &end, 10);
	if (*end || !*argv[3] || n > 1000000)
		usage();
	for (i = 0; i < n; i++)
		failed += run_case(seed + i, &k) != 0;
	printf("props seed=%llu cases=%lu failed=%lu ops=%lu allocs=%lu refused=%lu releases=%lu "
	       "offline_cases=%lu max_cpus=%lu opts_refused=%lu full_cores=%lu whole_outer=%lu "
	       "whole_inner=%lu whole_l3=%lu whole_cores=%lu uncore_fit=%lu distributed=%lu "
	       "hint_aligned=%lu single_node=%lu\n", seed, k.cases, failed, k.ops, k.allocs,
	       k.failures_expected, k.releases, k.offline_cases, k.max_cpus, k.opts_refused,
	       k.full_cores, k.whole_outer, k.whole_inner, k.whole_l3, k.whole_cores,
	       k.uncore_fit, k.distributed, k.hint_aligned, k.single_node);
	return failed ? RM_EXIT_FAILURE : 0;
}

int main(int argc, char **argv)
{
	enum { O_TOPO = 0x100, O_OFFLINE, O_AVAIL, O_RESV, O_RESV_COUNT, O_HINT, O_PROVIDER, O_POLICY, O_OPTION };
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, O_TOPO },
		{ "offline", required_argument, NULL, O_OFFLINE },
		{ "available", required_argument, NULL, O_AVAIL },
		{ "reserved", required_argument, NULL, O_RESV },
		{ "reserve-count", required_argument, NULL, O_RESV_COUNT },
		{ "hint", required_argument, NULL, O_HINT },
		{ "provider", required_argument, NULL, O_PROVIDER },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "option", required_argument, NULL, O_OPTION },
		{ "full-pcpus-only", no_argument, NULL, 'f' },
		{ "distribute-cpus-across-numa", no_argument, NULL, 'n' },
		{ "align-by-socket", no_argument, NULL, 's' },
		{ "distribute-cpus-across-cores", no_argument, NULL, 'c' },
		{ "prefer-align-cpus-by-uncorecache", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	struct rm_cpualloc_opts opts = { 0 };
	hwloc_bitmap_t offline = NULL, avail = NULL, resv = NULL, hint = NULL, provider = NULL, result;
	const char *spec = NULL, *cmd;
	enum rm_tm_policy policy = RM_TM_NONE;
	bool have_policy = false;
	long resv_count = -1;
	unsigned long count = 0;
	struct rm_cputopo *t;
	hwloc_topology_t topo;
	char *msg = NULL, *end;
	int c, rc = 0;

	if (argc > 1 && !strcmp(argv[1], "props"))
		return props(argc, argv);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_TOPO:
			spec = optarg;
			break;
		case O_OFFLINE:
			parse_set(optarg, &offline);
			break;
		case O_AVAIL:
			parse_set(optarg, &avail);
			break;
		case O_RESV:
			parse_set(optarg, &resv);
			break;
		case O_RESV_COUNT:
			resv_count = strtol(optarg, &end, 10);
			if (*end || resv_count < 0)
				usage();
			break;
		case O_HINT:
			parse_set(optarg, &hint);
			break;
		case O_PROVIDER:
			parse_set(optarg, &provider);
			break;
		case O_POLICY:
			if ((c = rm_tm_policy_parse(optarg)) < 0)
				usage();
			policy = c;
			have_policy = true;
			break;
		case O_OPTION:
			if ((rc = rm_cpualloc_opt_parse(&opts, optarg, &msg)))
				fail(rc, msg);
			break;
		case 'f':
			opts.full_pcpus_only = true;
			break;
		case 'n':
			opts.distribute_cpus_across_numa = true;
			break;
		case 's':
			opts.align_by_socket = true;
			break;
		case 'c':
			opts.distribute_cpus_across_cores = true;
			break;
		case 'u':
			opts.prefer_align_cpus_by_uncorecache = true;
			break;
		default:
			usage();
		}
	}
	if (!spec || optind >= argc)
		usage();
	cmd = argv[optind++];
	if (strcmp(cmd, "check") && strcmp(cmd, "info")) {
		if (optind != argc - 1)
			usage();
		count = strtoul(argv[optind], &end, 10);
		if (*end || !*argv[optind] || count > 1000000)
			usage();
	} else if (optind != argc) {
		usage();
	}

	topo = load(spec, offline);
	t = cputopo_of(topo);
	if (!t) {
		fputs("test-cpualloc: the topology has no CPU\n", stderr);
		return RM_EXIT_USAGE;
	}
	result = hwloc_bitmap_alloc();
	if (!avail) {
		avail = hwloc_bitmap_alloc();
		for (unsigned i = 0; i < t->ncpus; i++)
			hwloc_bitmap_set(avail, t->cpu[i]);
	}

	if (!strcmp(cmd, "info")) {
		printf("cpus=%u cores=%u sockets=%u nodes=%u uncore=%u threads_per_core=%u "
		       "cpus_per_socket=%u cpus_per_uncore=%u\n", t->num_cpus, t->num_cores,
		       t->num_sockets, t->num_nodes, t->num_uncore, t->threads_per_core,
		       t->cpus_per_socket, t->cpus_per_uncore);
		for (unsigned i = 0; i < t->ncpus; i++)
			printf("cpu=%d socket=%d node=%d core=%d uncore=%d\n", t->cpu[i], t->socket[i],
			       t->node[i], t->core[i], t->uncore[i]);
		goto out;
	}
	/* the kubelet refuses these at start, whatever is asked after */
	if ((rc = rm_cpualloc_check_opts(t, &opts, policy, &msg)))
		goto bad;
	if (!strcmp(cmd, "check")) {
		puts("ok");
	} else if (!strcmp(cmd, "take")) {
		if ((rc = rm_cpualloc_take(t, avail, count, &opts, result, &msg)))
			goto bad;
		print_set(result);
	} else if (!strcmp(cmd, "reserve")) {
		if ((rc = rm_cpualloc_reserve(t, count, &opts, result, &msg)))
			goto bad;
		print_set(result);
	} else if (!strcmp(cmd, "hint")) {
		bool preferred;

		if (resv)
			hwloc_bitmap_andnot(avail, avail, resv);
		if ((rc = rm_cpualloc_hint(t, avail, count, provider, policy, &opts, result, &preferred,
					   &msg)))
			goto bad;
		if (hwloc_bitmap_iszero(result)) {
			puts("none");
		} else {
			char *s = rm_cpulist_format(result);

			printf("%s %s\n", s, preferred ? "preferred" : "not-preferred");
			free(s);
		}
	} else if (!strcmp(cmd, "allocate")) {
		if (resv_count >= 0) {
			/* the kubelet's automatic reservation, then Allocate */
			if (!resv)
				resv = hwloc_bitmap_alloc();
			if ((rc = rm_cpualloc_reserve(t, resv_count, &opts, resv, &msg)))
				goto bad;
		}
		if (!hint && have_policy) {
			hwloc_bitmap_t usable = hwloc_bitmap_dup(avail);

			hint = hwloc_bitmap_alloc();
			if (resv)
				hwloc_bitmap_andnot(usable, usable, resv);
			rc = rm_cpualloc_hint(t, usable, count, provider, policy, &opts, hint, NULL, &msg);
			hwloc_bitmap_free(usable);
			if (rc)
				goto bad;
		}
		if ((rc = rm_cpualloc_allocate(t, avail, resv, count, &opts, hint, result, &msg)))
			goto bad;
		print_set(result);
	} else {
		usage();
	}
out:
	rm_cputopo_free(t);
	hwloc_topology_destroy(topo);
	hwloc_bitmap_free(offline);
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(resv);
	hwloc_bitmap_free(hint);
	hwloc_bitmap_free(provider);
	hwloc_bitmap_free(result);
	return fflush(stdout) ? RM_EXIT_FAILURE : 0;
bad:
	rm_cputopo_free(t);
	hwloc_topology_destroy(topo);
	hwloc_bitmap_free(offline);
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(resv);
	hwloc_bitmap_free(hint);
	hwloc_bitmap_free(provider);
	hwloc_bitmap_free(result);
	fail(rc, msg);
	return RM_EXIT_FAILURE;
}
