/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one Topology Manager: provider hints merged as the kubelet does, or searched beyond 8 nodes. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "record.h"
#include "topomgr.h"
#include "xalloc.h"

static const char *const policy_names[] = {
	[RM_TM_NONE] = "none",
	[RM_TM_BEST_EFFORT] = "best-effort",
	[RM_TM_RESTRICTED] = "restricted",
	[RM_TM_SINGLE_NUMA_NODE] = "single-numa-node",
};

int rm_tm_policy_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(policy_names) / sizeof(*policy_names); i++)
		if (!strcmp(name, policy_names[i]))
			return (int)i;
	return -1;
}

const char *rm_tm_policy_name(enum rm_tm_policy policy)
{
	return (unsigned)policy < sizeof(policy_names) / sizeof(*policy_names) ?
		       policy_names[policy] : "?";
}

struct rm_tm_provider rm_tm_amount(const uint64_t *free, const uint64_t *total, uint64_t request)
{
	return (struct rm_tm_provider){ .kind = RM_TM_AMOUNT, .free = free, .total = total,
					.request = request };
}

int rm_tm_parse_bool(const char *v)
{
	static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True" };
	static const char *const f[] = { "0", "f", "F", "FALSE", "false", "False" };

	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		if (!strcmp(v, t[i]))
			return 1;
		if (!strcmp(v, f[i]))
			return 0;
	}
	return -1;
}

int rm_tm_opt_parse(struct rm_tm_config *config, const char *arg, char **errmsg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);

	if (len == strlen("prefer-closest-numa-nodes") &&
	    !strncmp(arg, "prefer-closest-numa-nodes", len)) {
		int b = eq ? rm_tm_parse_bool(eq + 1) : 1;

		if (b < 0)
			goto bad;
		config->prefer_closest = b;
		return 0;
	}
	if (len == strlen("max-allowable-numa-nodes") &&
	    !strncmp(arg, "max-allowable-numa-nodes", len)) {
		char *end;
		unsigned long n;

		if (!eq || !eq[1] || eq[1] == '-')
			goto bad;
		errno = 0;
		n = strtoul(eq + 1, &end, 10);
		if (errno || *end || n > UINT_MAX)
			goto bad;
		config->max_nodes = (unsigned)n;
		return 0;
	}
	*errmsg = xasprintf("unknown topology manager option: '%.*s'", (int)len, arg);
	return RM_TM_EINVAL;
bad:
	*errmsg = xasprintf("invalid value for topology manager option '%.*s': '%s'", (int)len, arg,
			    eq ? eq + 1 : "");
	return RM_TM_EINVAL;
}

char *rm_tm_per_node(const int *ids, const uint64_t *count, unsigned nn)
{
	char *s = xstrdup(""), *t;

	for (unsigned i = 0; i < nn; i++) {
		t = xasprintf("%s%snode %d: %llu", s, i ? ", " : "", ids[i],
			      (unsigned long long)count[i]);
		free(s);
		s = t;
	}
	return s;
}

unsigned *rm_tm_distances(hwloc_topology_t topo, hwloc_const_bitmap_t nodes, unsigned nn)
{
	struct hwloc_distances_s *dist = NULL;
	unsigned nr = 1, *out = NULL;
	hwloc_obj_t *objs;
	int id, i = 0;

	if (!nn || hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist,
					       HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) || !nr)
		return NULL;
	objs = xcalloc(nn, sizeof(*objs));
	hwloc_bitmap_foreach_begin(id, nodes) {
		if ((unsigned)i < nn)
			objs[i++] = hwloc_get_numanode_obj_by_os_index(topo, (unsigned)id);
	} hwloc_bitmap_foreach_end();
	out = xcalloc((size_t)nn * nn, sizeof(*out));
	for (unsigned a = 0; a < nn && out; a++)
		for (unsigned b = 0; b < nn; b++) {
			hwloc_uint64_t v1, v2;

			if (!objs[a] || !objs[b] ||
			    hwloc_distances_obj_pair_values(dist, objs[a], objs[b], &v1, &v2)) {
				free(out);
				out = NULL;
				break;
			}
			out[(size_t)a * nn + b] = (unsigned)v1;
		}
	hwloc_distances_release(topo, dist);
	free(objs);
	return out;
}

/* ---- shared rules ---- */

static unsigned popcount(unsigned long m)
{
	return (unsigned)__builtin_popcountl(m);
}

/* The fewest nodes whose amounts (the largest first) reach REQUEST; NN when none do. */
unsigned rm_tm_min_nodes(const uint64_t *amount, unsigned nn, uint64_t request)
{
	uint64_t *v = xcalloc(nn + 1, sizeof(*v)), sum = 0;
	unsigned k = nn;

	memcpy(v, amount, nn * sizeof(*v));
	/* insertion sort, descending: NN is at most a few hundred */
	for (unsigned i = 1; i < nn; i++)
		for (unsigned j = i; j > 0 && v[j] > v[j - 1]; j--) {
			uint64_t x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	for (unsigned i = 0; i < nn; i++) {
		sum += v[i];
		if (sum >= request) {
			k = i + 1;
			break;
		}
	}
	free(v);
	return k;
}

static uint64_t sum_all(const uint64_t *amount, unsigned nn)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < nn; i++)
		s += amount[i];
	return s;
}

/* NUMADistances.CalculateAverageFor over the nodes flagged in IN */
static double avg_distance(const unsigned *d, unsigned nn, const unsigned char *in)
{
	double sum = 0, count = 0;

	for (unsigned a = 0; a < nn; a++)
		for (unsigned b = 0; in[a] && b < nn; b++)
			if (in[b]) {
				sum += d[(size_t)a * nn + b];
				count++;
			}
	return count ? sum / count : 0;
}

/* ---- the exhaustive merge (the kubelet's HintMerger) ---- */

enum { ST_HINT = RM_TM_HINT, ST_PREF = RM_TM_PREFERRED };

struct merge {
	unsigned nn;
	unsigned long all;
	const unsigned *distance;
	bool closest;
};

double rm_tm_mask_distance(const unsigned *distance, unsigned nn, unsigned long mask)
{
	unsigned char in[RM_TM_EXHAUSTIVE_MAX] = { 0 };

	for (unsigned i = 0; i < nn && i < RM_TM_EXHAUSTIVE_MAX; i++)
		in[i] = mask >> i & 1;
	return avg_distance(distance, nn, in);
}

/* IsNarrowerThan: fewer nodes; the same number: the lower mask. */
static bool narrower(unsigned long a, unsigned long b)
{
	unsigned ca = popcount(a), cb = popcount(b);

	return ca == cb ? a < b : ca < cb;
}

/* compareNUMAAffinityMasks: keep CUR unless CAND is closer (same size), or narrower. */
static unsigned long fitter(const struct merge *m, unsigned long cur, unsigned long cand)
{
	if (cand == cur)
		return cur;
	if (m->closest && m->distance && popcount(cur) == popcount(cand)) {
		double dc = rm_tm_mask_distance(m->distance, m->nn, cur);
		double dk = rm_tm_mask_distance(m->distance, m->nn, cand);

		if (dk != dc)
			return dk < dc ? cand : cur;
	}
	return narrower(cand, cur) ? cand : cur;
}

/* HintMerger.compare; CUR 0: none yet. */
static unsigned long merge_compare(const struct merge *m, unsigned long cur, bool cur_pref,
				   unsigned long cand, bool cand_pref, unsigned best_np)
{
	unsigned cc, kc;

	if (!cand)
		return cur;
	if (!cur)
		return cand;
	if (!cur_pref && cand_pref)
		return cand;
	if (cur_pref && !cand_pref)
		return cur;
	if (cur_pref && cand_pref)
		return fitter(m, cur, cand);
	cc = popcount(cur);
	kc = popcount(cand);
	if (cc > best_np)
		return fitter(m, cur, cand);
	if (cc == best_np)
		return kc == best_np ? fitter(m, cur, cand) : cur;
	if (kc > best_np)
		return cur;
	if (kc == best_np)
		return cand;
	if (kc != cc)
		return kc > cc ? cand : cur;
	return fitter(m, cur, cand);
}

/*
 * One provider's hints as states per mask. Returns false for a provider with no hints at all
 * (nil: one preferred hint for any node); *EMPTY for one whose list is empty ({nil, false}).
 */
static bool provider_hints(const struct rm_tm_provider *p, unsigned nn, unsigned long all,
			   unsigned char *st, bool *empty)
{
	unsigned long m;
	unsigned min_aff;
	uint64_t *sum;
	bool any = false;

	*empty = false;
	if (p->kind == RM_TM_NODES) {
		unsigned long need = 0;

		for (unsigned i = 0; i < nn; i++)
			need |= (unsigned long)(p->need[i] != 0) << i;
		if (!need)
			return false;
		for (m = 1; m <= all; m++)
			if ((m & need) == need)
				st[m] = ST_HINT | (m == need ? ST_PREF : 0);
		return true;
	}
	if (p->any)
		return false;
	if (p->hints) {
		for (m = 1; m <= all; m++)
			if ((st[m] = p->hints[m] & (ST_HINT | ST_PREF)))
				any = true;
		*empty = !any;
		return true;
	}
	min_aff = rm_tm_min_nodes(p->total, nn, p->request);
	sum = xcalloc((size_t)all + 1, sizeof(*sum));
	for (m = 1; m <= all; m++) {
		/* the free units of M: those of M less its lowest node, plus that node's */
		sum[m] = sum[m & (m - 1)] + p->free[__builtin_ctzl(m)];
		if (sum[m] < p->request)
			continue;
		any = true;
		st[m] = ST_HINT;
		if (popcount(m) == min_aff || (p->prefer && p->prefer(p->ctx, m, min_aff)))
			st[m] |= ST_PREF;
	}
	free(sum);
	*empty = !any;
	return true;
}

static int exhaustive(const struct rm_tm_config *c, unsigned nn, const unsigned *distance,
		      const struct rm_tm_provider *p, size_t np, unsigned char *best_out,
		      bool *preferred, bool *admit)
{
	struct merge mg = { nn, (1UL << nn) - 1, distance, c->prefer_closest };
	unsigned long all = mg.all, m, best = 0;
	size_t size = (size_t)all + 1;
	unsigned char *cur = xcalloc(size, 1), *st = xcalloc(size, 1), *next = xcalloc(size, 1);
	unsigned long *list = xcalloc(size, sizeof(*list));
	bool single = c->policy == RM_TM_SINGLE_NUMA_NODE, pref = false, none = false;
	/* no hint with a mask merged yet: the next one is the mask the others must equal */
	bool fresh = true;
	unsigned max_min = 0; /* maxOfMinAffinityCounts */
	size_t nlist;

	cur[all] = ST_HINT | ST_PREF; /* the permutation's start: the default affinity */
	for (size_t i = 0; i < np && !none; i++) {
		unsigned long need = 0;
		unsigned min = 0;
		bool empty;

		memset(st, 0, size);
		if (!provider_hints(&p[i], nn, all, st, &empty))
			continue; /* {nil, preferred}: ANDs to the same */
		if (empty)
			st[all] = ST_HINT; /* {nil, false} */
		if (single) /* filterSingleNumaHints: preferred single-node hints only */
			for (m = 1; m <= all; m++)
				if (st[m] && (!(st[m] & ST_PREF) || popcount(m) != 1 || empty))
					st[m] = 0;
		nlist = 0;
		for (m = 1; m <= all; m++)
			if (st[m]) {
				list[nlist++] = m;
				if (!empty && (!min || popcount(m) < min))
					min = popcount(m);
			}
		if (min > max_min)
			max_min = min;
		for (unsigned j = 0; p[i].kind == RM_TM_NODES && j < nn; j++)
			need |= (unsigned long)(p[i].need[j] != 0) << j;
		memset(next, 0, size);
		none = true;
		for (unsigned long a = 1; a <= all; a++) {
			if (!cur[a])
				continue;
			if (p[i].kind == RM_TM_NODES && !single) {
				/* the supersets of NEED: NEED & a, plus any part of the rest of a */
				unsigned long base = a & need, rest = a & ~need, s;

				if (base) {
					next[base] |= ST_HINT |
						      ((fresh || a == need) ? cur[a] & ST_PREF : 0);
					none = false;
				}
				for (s = rest; s; s = (s - 1) & rest) {
					next[base | s] |= ST_HINT;
					none = false;
				}
				continue;
			}
			for (size_t j = 0; j < nlist; j++) {
				unsigned long x = a & list[j];

				if (!x)
					continue;
				/* preferred: every hint preferred and every mask the same */
				next[x] |= ST_HINT | ((fresh || a == list[j]) ?
							      cur[a] & st[list[j]] & ST_PREF : 0);
				none = false;
			}
		}
		memcpy(cur, next, size);
		fresh = false;
	}
	if (!none)
		for (m = 1; m <= all; m++) {
			if (!cur[m])
				continue;
			if (single && (!(cur[m] & ST_PREF) || (popcount(m) != 1 && m != all)))
				continue;
			best = merge_compare(&mg, best, best && (cur[best] & ST_PREF), m,
					     cur[m] & ST_PREF, max_min);
		}
	if (best)
		pref = cur[best] & ST_PREF;
	else
		best = all; /* no permutation: the default affinity, not preferred */
	for (unsigned i = 0; i < nn; i++)
		best_out[i] = best >> i & 1;
	*preferred = pref;
	*admit = c->policy == RM_TM_BEST_EFFORT || c->policy == RM_TM_NONE || pref;
	free(cur);
	free(st);
	free(next);
	free(list);
	return 0;
}

/* ---- the search beyond RM_TM_EXHAUSTIVE nodes ---- */

struct search {
	unsigned nn, na, k;
	const struct rm_tm_provider **amt; /* the amount providers with hints */
	unsigned **order;                  /* per amount provider: nodes by free, largest first */
	const unsigned char *forced;       /* nodes every set must hold */
	unsigned char *in, *best;
	uint64_t *sum;                     /* per amount provider: free units of IN */
	unsigned chosen;
	const unsigned *distance;          /* prefer-closest: every set of K is weighed */
	double best_dist;
	bool found;
	unsigned long budget;              /* prefer-closest: sets weighed at most */
};

/*
 * Can the nodes of IN plus K - chosen of the nodes below LIMIT (not forced, not in IN) hold
 * every request? Each provider alone is bounded by its largest free amounts there, so a false
 * answer is exact and a true one may still fail deeper.
 */
static bool bound(const struct search *s, unsigned limit)
{
	unsigned need = s->k - s->chosen;

	for (unsigned p = 0; p < s->na; p++) {
		uint64_t v = s->sum[p];
		unsigned left = need;

		for (unsigned j = 0; j < s->nn && left && v < s->amt[p]->request; j++) {
			unsigned n = s->order[p][j];

			if (n < limit && !s->forced[n]) {
				v += s->amt[p]->free[n];
				left--;
			}
		}
		if (v < s->amt[p]->request)
			return false;
	}
	return true;
}

/* Decide the nodes below LIMIT, highest first, leaving each out first: the first set found is
 * the lowest mask. With distances, every set is weighed and the closest kept. */
static bool dfs(struct search *s, unsigned limit)
{
	unsigned n;

	if (s->chosen == s->k || limit == 0) {
		if (s->chosen != s->k || !bound(s, 0))
			return false;
		for (unsigned p = 0; p < s->na; p++)
			if (s->amt[p]->allow && !s->amt[p]->allow(s->amt[p]->ctx, s->in))
				return false;
		if (!s->distance) {
			memcpy(s->best, s->in, s->nn);
			s->found = true;
			return true;
		}
		double d = avg_distance(s->distance, s->nn, s->in);

		if (!s->found || d < s->best_dist) {
			memcpy(s->best, s->in, s->nn);
			s->best_dist = d;
			s->found = true;
		}
		return !s->budget || !--s->budget;
	}
	n = limit - 1;
	if (s->forced[n])
		return dfs(s, n);
	/* unfilled places must fit below N */
	if (bound(s, n) && dfs(s, n))
		return true;
	s->in[n] = 1;
	s->chosen++;
	for (unsigned p = 0; p < s->na; p++)
		s->sum[p] += s->amt[p]->free[n];
	if (bound(s, n) && dfs(s, n))
		return true;
	for (unsigned p = 0; p < s->na; p++)
		s->sum[p] -= s->amt[p]->free[n];
	s->chosen--;
	s->in[n] = 0;
	return false;
}

static int search(const struct rm_tm_config *c, unsigned nn, const unsigned *distance,
		  const struct rm_tm_provider *p, size_t np, unsigned char *best_out,
		  bool *preferred, bool *admit)
{
	struct search s = { .nn = nn };
	unsigned char *forced = xcalloc(nn + 1, 1);
	unsigned nforced = 0, lo = 0, *min_aff = xcalloc(np + 1, sizeof(*min_aff));
	bool pref = true, single = c->policy == RM_TM_SINGLE_NUMA_NODE, constrained = false;
	bool refused = false;

	s.amt = xcalloc(np + 1, sizeof(*s.amt));
	s.order = xcalloc(np + 1, sizeof(*s.order));
	for (size_t i = 0; i < np; i++) {
		if (p[i].kind == RM_TM_NODES) {
			unsigned cnt = 0;

			for (unsigned j = 0; j < nn; j++)
				if (p[i].need[j]) {
					cnt++;
					nforced += !forced[j];
					forced[j] = 1;
				}
			if (!cnt)
				continue;
			constrained = true;
			if (single && cnt != 1)
				refused = true; /* filtered out: no permutation at all */
			continue;
		}
		if (p[i].any)
			continue;
		if (sum_all(p[i].free, nn) < p[i].request) {
			pref = false; /* {nil, false}: no constraint, nothing preferred */
			if (single)
				refused = true;
			continue;
		}
		constrained = true;
		min_aff[s.na] = rm_tm_min_nodes(p[i].total, nn, p[i].request);
		if (rm_tm_min_nodes(p[i].free, nn, p[i].request) > lo)
			lo = rm_tm_min_nodes(p[i].free, nn, p[i].request);
		s.amt[s.na++] = &p[i];
	}
	if (nforced > lo)
		lo = nforced;
	memset(best_out, 1, nn);
	if (refused || !constrained) {
		*preferred = !refused && pref;
		goto out;
	}
	for (unsigned i = 0; i < s.na; i++) {
		s.order[i] = xcalloc(nn, sizeof(**s.order));
		for (unsigned j = 0; j < nn; j++)
			s.order[i][j] = j;
		/* stable insertion sort by free, descending */
		for (unsigned j = 1; j < nn; j++)
			for (unsigned x = j; x > 0 && s.amt[i]->free[s.order[i][x]] >
						      s.amt[i]->free[s.order[i][x - 1]]; x--) {
				unsigned t = s.order[i][x];

				s.order[i][x] = s.order[i][x - 1];
				s.order[i][x - 1] = t;
			}
	}
	s.forced = forced;
	s.in = xcalloc(nn + 1, 1);
	s.best = xcalloc(nn + 1, 1);
	s.sum = xcalloc(s.na + 1, sizeof(*s.sum));
	s.distance = c->prefer_closest ? distance : NULL;
	for (s.k = lo ? lo : 1; s.k <= nn && !s.found; s.k++) {
		memcpy(s.in, forced, nn);
		s.chosen = nforced;
		memset(s.sum, 0, (s.na + 1) * sizeof(*s.sum));
		for (unsigned a = 0; a < s.na; a++)
			for (unsigned j = 0; j < nn; j++)
				if (forced[j])
					s.sum[a] += s.amt[a]->free[j];
		s.budget = 1UL << 16;
		if (s.chosen <= s.k && bound(&s, nn))
			dfs(&s, nn);
	}
	if (s.found) {
		unsigned k = 0;

		memcpy(best_out, s.best, nn);
		for (unsigned j = 0; j < nn; j++)
			k += s.best[j];
		for (unsigned i = 0; i < s.na; i++)
			pref = pref && min_aff[i] == k;
		/* a node provider's hint is preferred when it is exactly its nodes */
		for (size_t i = 0; i < np; i++) {
			bool differs = false, has = false;

			for (unsigned j = 0; p[i].kind == RM_TM_NODES && j < nn; j++) {
				has = has || p[i].need[j];
				differs = differs || (p[i].need[j] != 0) != (s.best[j] != 0);
			}
			if (has && differs)
				pref = false;
		}
		if (single && (k != 1 || !pref)) {
			pref = false; /* no single node: the default affinity, refused */
			refused = true;
			memset(best_out, 1, nn);
		}
	} else {
		pref = false;
	}
	*preferred = pref && !refused;
	for (unsigned i = 0; i < s.na; i++)
		free(s.order[i]);
	free(s.in);
	free(s.best);
	free(s.sum);
out:
	if (refused && single)
		*preferred = false;
	*admit = c->policy == RM_TM_BEST_EFFORT || c->policy == RM_TM_NONE || *preferred;
	free(forced);
	free(min_aff);
	free(s.amt);
	free(s.order);
	return 0;
}

char *rm_tm_too_many_nodes(const struct rm_tm_config *config, unsigned nn)
{
	if (!config->max_nodes || nn <= config->max_nodes)
		return NULL;
	return xasprintf("too many NUMA nodes for topology hints (%u, max-allowable-numa-nodes is %u)",
			 nn, config->max_nodes);
}

/* ---- the decision shown ---- */

char *rm_tm_nodes_text(const int *ids, unsigned nn, const unsigned char *in)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *s;

	for (unsigned i = 0; i < nn; i++)
		if (in[i])
			hwloc_bitmap_set(set, ids ? (unsigned)ids[i] : i);
	s = rm_cpulist_format(set);
	hwloc_bitmap_free(set);
	return s;
}

static void explain_record(FILE *out, const char *kind, const char *what, const char *nodes,
			   bool pref, const char *admit, const char *merge)
{
	struct rm_record r = { 0 };

	rm_record_set(&r, kind, what);
	rm_record_set(&r, "nodes", nodes);
	rm_record_set(&r, "preferred", pref ? "yes" : "no");
	if (admit)
		rm_record_set(&r, "admit", admit);
	if (merge)
		rm_record_set(&r, "merge", merge);
	rm_record_write(out, &r);
	rm_record_free(&r);
}

static void explain_hints(const struct rm_tm_config *c, unsigned nn,
			  const struct rm_tm_provider *p)
{
	unsigned long all = (1UL << nn) - 1;
	unsigned char *st = xcalloc((size_t)all + 1, 1), in[RM_TM_EXHAUSTIVE_MAX];
	const char *name = p->name ? p->name : "-";
	bool empty;

	if (!provider_hints(p, nn, all, st, &empty))
		explain_record(c->explain, "hint", name, "any", true, NULL, NULL);
	else if (empty)
		explain_record(c->explain, "hint", name, "none", false, NULL, NULL);
	else
		for (unsigned long m = 1; m <= all; m++)
			if (st[m]) {
				char *nodes;

				for (unsigned i = 0; i < nn; i++)
					in[i] = m >> i & 1;
				nodes = rm_tm_nodes_text(c->ids, nn, in);

				explain_record(c->explain, "hint", name, nodes, st[m] & ST_PREF, NULL,
					       NULL);
				free(nodes);
			}
	free(st);
}

int rm_tm_merge_forced(const struct rm_tm_config *config, unsigned nn, const unsigned *distance,
		       const struct rm_tm_provider *p, size_t np, unsigned char *best,
		       bool *preferred, bool *admit, int force)
{
	unsigned limit = config->exhaustive ? config->exhaustive : RM_TM_EXHAUSTIVE;
	bool every;
	int rc;

	if (config->max_nodes && nn > config->max_nodes)
		return RM_TM_EINVAL;
	if (limit > RM_TM_EXHAUSTIVE_MAX)
		limit = RM_TM_EXHAUSTIVE_MAX;
	if (force == 1)
		limit = RM_TM_EXHAUSTIVE_MAX;
	if (force == 2)
		limit = 0;
	every = nn <= limit;
	if (every)
		rc = exhaustive(config, nn, distance, p, np, best, preferred, admit);
	else
		rc = search(config, nn, distance, p, np, best, preferred, admit);
	if (config->explain) {
		char *nodes = rm_tm_nodes_text(config->ids, nn, best);

		for (size_t i = 0; every && i < np; i++)
			explain_hints(config, nn, &p[i]);
		explain_record(config->explain, "merged", rm_tm_policy_name(config->policy), nodes,
			       *preferred, *admit ? "yes" : "no", every ? "every-set" : "search");
		free(nodes);
	}
	return rc;
}

int rm_tm_merge(const struct rm_tm_config *config, unsigned nn, const unsigned *distance,
		const struct rm_tm_provider *p, size_t np, unsigned char *best, bool *preferred,
		bool *admit)
{
	return rm_tm_merge_forced(config, nn, distance, p, np, best, preferred, admit, 0);
}
