/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Resctrl groups: choose L3 ways, plan and sync rmtools' groups with an undo log, attach tasks,
 * mount, create and remove monitoring groups. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "kernfs.h"
#include "mountpoint.h"
#include "resctrl.h"
#include "resctrl-internal.h"
#include "xalloc.h"

/* ---- how the groups divide the ways: the model behind choosing and syncing ---- */

/* One L3 domain. "Foreign" groups are other tools' (not RM_RESCTRL_PREFIX); "own" ways are
 * those wanted rmtools groups hold as their own (not following the default group). */
struct dom {
	unsigned id;
	uint64_t full, shareable;
	int min_bits;    /* what a mask needs: min_cbm_bits */
	int keep;        /* what the default group keeps: min_cbm_bits, at least 1 */
	bool sparse;
	uint64_t dflt[2], dflt_new[2];
	uint64_t foreign, foreign_excl, own, own_excl;
};

struct model {
	size_t nd;
	struct dom *d;
	size_t nforeign; /* other tools' control groups */
	size_t nours;    /* rmtools groups there are now */
};

/* As rm_name_valid() of the state module (not linked here: it needs zlib), for group names. */
static bool name_valid(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > 64 || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

static bool is_ours(const char *name)
{
	return !strncmp(name, RM_RESCTRL_PREFIX, strlen(RM_RESCTRL_PREFIX));
}

static bool is_exclusive(const char *mode)
{
	/* a pseudo-locked region is as good as exclusive: no one may overlap it */
	return !strcmp(mode, "exclusive") || !strncmp(mode, "pseudo-lock", 11);
}

/* The default group's mask R, grown by the UNUSED ways next to its run (all of them when
 * masks may be sparse). */
static uint64_t absorb(const struct dom *d, uint64_t r, uint64_t unused)
{
	int lo, hi, len = 64 - __builtin_clzll(d->full | 1);

	if (d->sparse)
		return r | unused;
	if (!r)
		return r;
	lo = __builtin_ctzll(r);
	hi = 63 - __builtin_clzll(r);
	while (hi + 1 < len && unused >> (hi + 1) & 1)
		r |= (uint64_t)1 << ++hi;
	while (lo > 0 && unused >> (lo - 1) & 1)
		r |= (uint64_t)1 << --lo;
	return r;
}

static void model_build(const struct rm_resctrl *rc, const struct rm_resctrl_group *groups,
			size_t ngroups, const struct rm_resctrl_want *want, size_t nwant,
			struct model *m)
{
	const struct rm_resctrl_res *r = rc->l3[0];

	memset(m, 0, sizeof(*m));
	for (size_t g = 1; g < ngroups; g++) {
		if (is_ours(groups[g].name))
			m->nours++;
		else
			m->nforeign++;
	}
	if (!r)
		return;
	m->nd = r->ndomains;
	m->d = xcalloc(m->nd, sizeof(*m->d));
	for (size_t i = 0; i < m->nd; i++) {
		struct dom *d = &m->d[i];
		uint64_t rest, unused;

		d->id = r->domains[i];
		d->full = r->cbm_mask;
		d->shareable = r->shareable_bits;
		d->min_bits = r->min_cbm_bits > 0 ? r->min_cbm_bits : 0;
		d->keep = d->min_bits > 1 ? d->min_bits : 1;
		d->sparse = r->sparse == 1;
		for (int k = 0; k < rc->nl3; k++)
			d->dflt[k] = groups[0].l3[k][i];
		for (size_t g = 1; g < ngroups; g++) {
			uint64_t ways = rm_resctrl_group_ways(rc, &groups[g], i);

			if (is_ours(groups[g].name))
				continue;
			d->foreign |= ways;
			if (is_exclusive(groups[g].mode))
				d->foreign_excl |= ways;
		}
		for (size_t w = 0; w < nwant; w++) {
			if (!want[w].l3 || want[w].l3[i] == RM_RESCTRL_FOLLOW)
				continue;
			d->own |= want[w].l3[i];
			if (want[w].exclusive)
				d->own_excl |= want[w].l3[i];
		}
		rest = (d->dflt[0] | d->dflt[1]) & ~d->own_excl;
		unused = d->full & ~(d->foreign | d->own | rest);
		for (int k = 0; k < rc->nl3; k++)
			d->dflt_new[k] = absorb(d, d->dflt[k] & ~d->own_excl, unused);
	}
}

static void model_free(struct model *m)
{
	free(m->d);
}

/* Why MASK is no valid mask in D (NULL when it is): as the kernel's cbm_validate(). */
static char *mask_problem(const struct dom *d, uint64_t mask, int at_least)
{
	if (mask & ~d->full)
		return xstrdup("outside cbm_mask");
	if (!d->sparse && !contiguous(mask))
		return xstrdup("not contiguous");
	if (popcount(mask) < at_least)
		return xasprintf("fewer than %d ways", at_least);
	return NULL;
}

static char *mask_str(const struct rm_resctrl *rc, uint64_t mask)
{
	return rm_resctrl_mask_format(mask, rc->l3[0]->cbm_len);
}

/* The best run of K ways for a new group in D, or 0 (K > 0). */
static uint64_t best_run(const struct rm_resctrl *rc, const struct dom *d, int k, bool exclusive)
{
	int len = rc->l3[0]->cbm_len, best_score = INT_MAX;
	uint64_t allowed, others, dflt = d->dflt_new[0] | d->dflt_new[1], best = 0;

	if (exclusive) {
		allowed = d->full & ~(d->foreign | d->own | d->shareable);
		others = dflt;
	} else {
		allowed = d->full & ~(d->foreign_excl | d->own_excl);
		others = d->foreign | d->own;
	}
	for (int pos = len - k; pos >= 0; pos--) {
		uint64_t run = low_bits(k) << pos;
		int score;
		bool ok = (run & allowed) == run;

		for (int t = 0; ok && exclusive && t < rc->nl3; t++) {
			uint64_t rest = d->dflt_new[t] & ~run;

			ok = popcount(rest) >= d->keep && (d->sparse || contiguous(rest));
		}
		if (!ok)
			continue;
		score = popcount(run & others);
		if (score < best_score) {
			best_score = score;
			best = run;
		}
	}
	return best;
}

static char *no_ways_msg(const struct rm_resctrl *rc, const struct dom *d, int k, bool exclusive,
			 bool touched)
{
	uint64_t allowed = exclusive ? d->full & ~(d->foreign | d->own | d->shareable) :
				       d->full & ~(d->foreign_excl | d->own_excl);
	char *free_s = mask_str(rc, allowed), *dflt = mask_str(rc, d->dflt_new[0] | d->dflt_new[1]);
	char *msg;

	if (exclusive)
		msg = xasprintf("no %d contiguous ways for exclusive use in L3 domain %u (free: %s, "
				"%d ways, at most %d in a row; taking them must leave the default "
				"group, %s, at least %d in one run)%s", k, d->id, free_s,
				popcount(allowed), longest_run(allowed), dflt, d->keep,
				touched ? "" : "; the kernel's exclusive mode needs ways of the group "
				"in every domain, also those its CPUs are not in");
	else
		msg = xasprintf("no %d contiguous free ways in L3 domain %u (free: %s, %d ways, at "
				"most %d in a row; the others are exclusive groups')", k, d->id,
				free_s, popcount(allowed), longest_run(allowed));
	free(free_s);
	free(dflt);
	return msg;
}

int rm_resctrl_choose(const struct rm_resctrl *rc, const struct rm_resctrl_group *groups,
		      size_t ngroups, const struct rm_resctrl_want *want, size_t nwant,
		      hwloc_const_bitmap_t domains, int nways, bool exclusive, uint64_t *masks,
		      char **errmsg)
{
	const struct rm_resctrl_res *r = rc->l3[0];
	struct model m;
	unsigned id;
	int at_least;

	if (!nways) { /* no ways: a CLOSID is all the group needs */
		model_build(rc, groups, ngroups, want, nwant, &m);
		model_free(&m);
		if (rc->closids > 0 && (long)(m.nforeign + nwant + 2) > rc->closids) {
			*errmsg = xasprintf("no free resctrl CLOSID: the hardware has %ld (the "
					    "default group, %zu of rmtools, %zu of other tools)",
					    rc->closids, nwant, m.nforeign);
			return RM_EXIT_NORESOURCE;
		}
		return 0;
	}
	if (!r) {
		*errmsg = xstrdup("this machine's resctrl has no L3 cache allocation (no L3 in "
				  "info/)");
		return RM_EXIT_USAGE;
	}
	at_least = r->min_cbm_bits > 1 ? r->min_cbm_bits : 1;
	if (nways > r->cbm_len || nways < at_least) {
		*errmsg = nways > r->cbm_len ?
			xasprintf("the L3 has %d ways (cbm_mask %llx): cannot give %d", r->cbm_len,
				  (unsigned long long)r->cbm_mask, nways) :
			xasprintf("the L3 takes at least %d ways a group (min_cbm_bits)", at_least);
		return RM_EXIT_USAGE;
	}
	hwloc_bitmap_foreach_begin(id, domains)
		if (rm_resctrl_domain_index(r, id) < 0) {
			char *have = NULL;
			hwloc_bitmap_t all = hwloc_bitmap_alloc();

			for (size_t i = 0; i < r->ndomains; i++)
				hwloc_bitmap_set(all, r->domains[i]);
			have = rm_cpulist_format(all);
			*errmsg = xasprintf("L3 domain %u of the CPUs is not one of resctrl's (%s): "
					    "is the topology this machine's?", id, have);
			free(have);
			hwloc_bitmap_free(all);
			return RM_EXIT_USAGE;
		}
	hwloc_bitmap_foreach_end();
	model_build(rc, groups, ngroups, want, nwant, &m);
	if (rc->closids > 0 && (long)(m.nforeign + nwant + 2) > rc->closids) {
		*errmsg = xasprintf("no free resctrl CLOSID: the hardware has %ld (the default "
				    "group, %zu of rmtools, %zu of other tools)", rc->closids, nwant,
				    m.nforeign);
		model_free(&m);
		return RM_EXIT_NORESOURCE;
	}
	for (size_t i = 0; i < m.nd; i++) {
		struct dom *d = &m.d[i];
		bool touched = hwloc_bitmap_isset(domains, d->id);
		int k = touched ? nways : exclusive ? d->min_bits : -1;

		if (k < 0) {
			masks[i] = RM_RESCTRL_FOLLOW;
			continue;
		}
		masks[i] = k ? best_run(rc, d, k, exclusive) : 0;
		if (k && !masks[i]) {
			*errmsg = no_ways_msg(rc, d, k, exclusive, touched);
			model_free(&m);
			return RM_EXIT_NORESOURCE;
		}
	}
	model_free(&m);
	return 0;
}

/* ---- memory bandwidth requests ---- */

int rm_resctrl_mb_value(const struct rm_resctrl *rc, const char *request, unsigned long *value,
			char **canon, char **errmsg)
{
	const struct rm_resctrl_res *r = rc->mb;
	unsigned long long n, mbps;
	char *end;

	*canon = NULL;
	if (!r) {
		*errmsg = xstrdup("this machine's resctrl has no memory bandwidth allocation (no MB "
				  "in info/)");
		return RM_EXIT_USAGE;
	}
	errno = 0;
	n = isdigit((unsigned char)*request) ? strtoull(request, &end, 10) : 0;
	if (!isdigit((unsigned char)*request) || errno || n > UINT32_MAX ||
	    (strcmp(end, "%") && strcmp(end, "MBps") && strcmp(end, "MB/s") &&
	     strcmp(end, "GBps") && strcmp(end, "GB/s"))) {
		*errmsg = xasprintf("invalid memory bandwidth: '%s' (a percentage such as 50%%, or a "
				    "rate such as 5000MBps or 5GBps)", request);
		return RM_EXIT_USAGE;
	}
	if (!strcmp(end, "%")) {
		if (n < 1 || n > 100) {
			*errmsg = xasprintf("invalid memory bandwidth: '%s' (a percentage from 1 to "
					    "100)", request);
			return RM_EXIT_USAGE;
		}
		if (r->unit == RM_RESCTRL_MBPS) {
			*errmsg = xasprintf("memory bandwidth '%s': resctrl is mounted with "
					    "mba_MBps, which takes a rate such as 5000MBps",
					    request);
			return RM_EXIT_USAGE;
		}
		if (r->unit == RM_RESCTRL_PERCENT) {
			unsigned long gran = r->bw_gran > 0 ? (unsigned long)r->bw_gran : 1;

			if (r->min_bw > 0 && n < (unsigned long long)r->min_bw) {
				*errmsg = xasprintf("memory bandwidth '%s': the least this machine "
						    "allocates is %ld%%", request, r->min_bw);
				return RM_EXIT_USAGE;
			}
			/* as the kernel does: up to the next step of the granularity */
			*value = (n + gran - 1) / gran * gran;
			if (*value > 100)
				*value = 100;
		} else {
			*value = (n * r->bw_max + 99) / 100;
		}
		*canon = xasprintf("%llu%%", n);
		return 0;
	}
	mbps = end[0] == 'G' ? n * 1000 : n;
	if (!mbps) {
		*errmsg = xasprintf("invalid memory bandwidth: '%s' (more than 0)", request);
		return RM_EXIT_USAGE;
	}
	if (r->unit == RM_RESCTRL_PERCENT) {
		*errmsg = xasprintf("memory bandwidth '%s': this machine allocates a percentage "
				    "(50%%); a rate needs resctrl mounted with mba_MBps "
				    "(rm-cpuset mount-resctrl --mba-mbps)", request);
		return RM_EXIT_USAGE;
	}
	if (r->unit == RM_RESCTRL_AMD) {
		/* AMD's unit is 1/8 GBps: 125 MBps */
		*value = (mbps + 124) / 125;
		if (*value > r->bw_max) {
			*errmsg = xasprintf("memory bandwidth '%s': AMD allocates at most %luMBps",
					    request, r->bw_max * 125);
			return RM_EXIT_USAGE;
		}
	} else {
		if (mbps >= RM_RESCTRL_MBPS_MAX) {
			*errmsg = xasprintf("memory bandwidth '%s': more than resctrl takes", request);
			return RM_EXIT_USAGE;
		}
		*value = mbps;
	}
	*canon = xasprintf("%lluMBps", mbps);
	return 0;
}

/* ---- syncing, with an undo log ---- */

/*
 * As in the cgroup module: every change is logged with how to revert it, and a failure replays
 * the log backwards. A group made is removed; a group removed is made again and its schemata,
 * CPUs, tasks and mode written back (logged just before it, so that they follow it); a file
 * written gets its old value back. Files of a group made in the same sync are not logged.
 */
struct sync {
	struct rm_resctrl *rc;
	struct rm_kernfs_log log;
	char *err;
};

static int fail(struct sync *s, char *msg)
{
	if (!s->err)
		s->err = msg;
	else
		free(msg);
	return -1;
}

/* fail() with MSG followed by the kernel's reason for refusing the last command. */
static int fail_why(struct sync *s, char *msg)
{
	char *why = last_status(s->rc->root);

	fail(s, xasprintf("%s%s", msg, why));
	free(why);
	free(msg);
	return -1;
}

/* Write VALUE to DIR/FILE; when UNDO is not NULL, log writing it back. */
static int put(struct sync *s, const char *dir, const char *file, const char *value,
	       const char *undo)
{
	char *msg;

	if (rm_kernfs_put(&s->log, dir, file, value, undo, &msg) == 0)
		return 0;
	return fail_why(s, msg);
}

static int make_group(struct sync *s, const char *dir)
{
	char *msg;

	if (rm_kernfs_mkdir(&s->log, dir, &msg) == 0)
		return 0;
	return fail_why(s, msg);
}

/* The schemata lines of G's cache resources (or of MASKS, by type and domain, when not NULL),
 * and of MB when WITH_MB, joined by newlines. */
static char *cache_lines(const struct rm_resctrl *rc, uint64_t *const *masks)
{
	char *out = xstrdup("");

	for (int k = 0; k < rc->nl3; k++) {
		const struct rm_resctrl_res *r = rc->l3[k];
		char *line = xasprintf("%s:", r->name);

		for (size_t i = 0; i < r->ndomains; i++) {
			char *m = rm_resctrl_mask_format(masks[k][i], r->cbm_len), *next;

			next = xasprintf("%s%s%u=%s", line, i ? ";" : "", r->domains[i], m);
			free(m);
			free(line);
			line = next;
		}
		char *next = xasprintf("%s%s%s", out, *out ? "\n" : "", line);

		free(out);
		free(line);
		out = next;
	}
	return out;
}

/* "MB:0=50;1=100" for the domains where VALS[i] is not -1 (all when ALL), or "" for none. */
static char *mb_line(const struct rm_resctrl *rc, const long *vals, const unsigned long *cur,
		     bool all)
{
	char *line = xasprintf("%s:", rc->mb->name);
	bool any = false;

	for (size_t i = 0; i < rc->mb->ndomains; i++) {
		long v = all ? (long)cur[i] : vals[i];
		char *next;

		if (v < 0)
			continue;
		next = xasprintf("%s%s%u=%ld", line, any ? ";" : "", rc->mb->domains[i], v);
		free(line);
		line = next;
		any = true;
	}
	if (!any) {
		free(line);
		return xstrdup("");
	}
	return line;
}

static char *join_lines(char *a, char *b)
{
	char *out = xasprintf("%s%s%s", a, *a && *b ? "\n" : "", b);

	free(a);
	free(b);
	return out;
}

/* Everything a group has that a re-made one needs back: its whole schemata. */
static char *group_schemata(const struct rm_resctrl *rc, const struct rm_resctrl_group *g)
{
	char *lines = cache_lines(rc, g->l3);

	if (rc->mb)
		lines = join_lines(lines, mb_line(rc, NULL, g->mb, true));
	return lines;
}

static const struct rm_resctrl_group *find_group(const struct rm_resctrl_group *groups, size_t n,
						 const char *name)
{
	for (size_t i = 1; i < n; i++)
		if (!strcmp(groups[i].name, name))
			return &groups[i];
	return NULL;
}

static const struct rm_resctrl_want *find_want(const struct rm_resctrl_want *want, size_t n,
					       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(want[i].name, name))
			return &want[i];
	return NULL;
}

/* The masks W wants, by type and domain index (allocated arrays). */
static void want_masks(const struct rm_resctrl *rc, const struct model *m,
		       const struct rm_resctrl_want *w, uint64_t **masks)
{
	for (int k = 0; k < rc->nl3; k++) {
		masks[k] = xcalloc(m->nd, sizeof(uint64_t));
		for (size_t i = 0; i < m->nd; i++)
			masks[k][i] = w->l3 && w->l3[i] != RM_RESCTRL_FOLLOW ? w->l3[i] :
										  m->d[i].dflt_new[k];
	}
}

/* What differs between group G and want W: cache masks, MB values, CPUs, mode. */
struct diff {
	bool cache, mb, cpus, mode;
};

static struct diff compare(const struct rm_resctrl *rc, const struct model *m,
			   const struct rm_resctrl_group *g, const struct rm_resctrl_want *w)
{
	struct diff df = { 0 };
	uint64_t *masks[2] = { NULL, NULL };

	want_masks(rc, m, w, masks);
	for (int k = 0; k < rc->nl3; k++) {
		df.cache = df.cache || memcmp(masks[k], g->l3[k], m->nd * sizeof(uint64_t));
		free(masks[k]);
	}
	for (size_t i = 0; rc->mb && w->mb && i < rc->mb->ndomains; i++)
		df.mb = df.mb || (w->mb[i] >= 0 && (unsigned long)w->mb[i] != g->mb[i]);
	df.cpus = !hwloc_bitmap_isequal(g->cpus, w->cpus);
	df.mode = strcmp(g->mode, w->exclusive ? "exclusive" : "shareable") != 0;
	return df;
}

/* Everything that can be refused before a write; *ERRMSG and the exit status, or 0. */
static int check_wants(const struct rm_resctrl *rc, const struct model *m,
		       const struct rm_resctrl_want *want, size_t n, char **errmsg)
{
	for (size_t w = 0; w < n; w++) {
		const char *owner = want[w].name + strlen(RM_RESCTRL_PREFIX);

		if (!is_ours(want[w].name) || !name_valid(owner)) {
			*errmsg = xasprintf("invalid resctrl group name: '%s'", want[w].name);
			return RM_EXIT_FAILURE;
		}
		if (find_want(want, w, want[w].name)) {
			*errmsg = xasprintf("resctrl group named twice: '%s'", want[w].name);
			return RM_EXIT_FAILURE;
		}
		if (want[w].l3 && !rc->nl3) {
			*errmsg = xasprintf("resctrl group '%s' wants L3 ways, but this resctrl has "
					    "no L3 allocation", want[w].name);
			return RM_EXIT_FAILURE;
		}
		if (want[w].mb && !rc->mb) {
			*errmsg = xasprintf("resctrl group '%s' wants memory bandwidth, but this "
					    "resctrl has no MB allocation", want[w].name);
			return RM_EXIT_FAILURE;
		}
		for (size_t i = 0; rc->mb && want[w].mb && i < rc->mb->ndomains; i++) {
			long v = want[w].mb[i];

			if (v >= 0 && (rc->mb->unit == RM_RESCTRL_MBPS ? (unsigned long)v >=
				       RM_RESCTRL_MBPS_MAX : (unsigned long)v > rc->mb->bw_max)) {
				*errmsg = xasprintf("resctrl group '%s': MB value %ld is more than "
						    "%lu", want[w].name, v, rc->mb->bw_max);
				return RM_EXIT_FAILURE;
			}
		}
		for (size_t i = 0; want[w].l3 && i < m->nd; i++) {
			const struct dom *d = &m->d[i];
			uint64_t mask = want[w].l3[i], others = 0;
			char *why, *ms;

			if (mask == RM_RESCTRL_FOLLOW)
				continue;
			if ((why = mask_problem(d, mask, d->min_bits))) {
				ms = mask_str(rc, mask);
				*errmsg = xasprintf("resctrl group '%s': mask %s in L3 domain %u is %s",
						    want[w].name, ms, d->id, why);
				free(ms);
				free(why);
				return RM_EXIT_FAILURE;
			}
			for (size_t o = 0; o < n; o++)
				if (o != w && want[o].l3 && want[o].l3[i] != RM_RESCTRL_FOLLOW &&
				    (want[w].exclusive || want[o].exclusive))
					others |= want[o].l3[i];
			if (mask & others) {
				ms = mask_str(rc, mask & others);
				*errmsg = xasprintf("resctrl group '%s': ways %s in L3 domain %u are "
						    "also another rmtools group's", want[w].name, ms,
						    d->id);
				free(ms);
				return RM_EXIT_FAILURE;
			}
			others = want[w].exclusive ? d->foreign | d->shareable : d->foreign_excl;
			if (mask & others) {
				ms = mask_str(rc, mask & others);
				*errmsg = xasprintf("resctrl group '%s': ways %s in L3 domain %u are "
						    "%s now", want[w].name, ms, d->id,
						    mask & d->shareable & ~d->foreign ?
						    "shareable bits (used by hardware)" :
						    "another tool's group's");
				free(ms);
				return RM_EXIT_NORESOURCE;
			}
		}
	}
	if (rc->closids > 0 && (long)(m->nforeign + n + 1) > rc->closids) {
		*errmsg = xasprintf("no free resctrl CLOSID: the hardware has %ld (the default "
				    "group, %zu of rmtools, %zu of other tools)", rc->closids, n,
				    m->nforeign);
		return RM_EXIT_NORESOURCE;
	}
	for (size_t i = 0; i < m->nd; i++)
		for (int k = 0; k < rc->nl3; k++) {
			char *why = mask_problem(&m->d[i], m->d[i].dflt_new[k], m->d[i].keep);

			if (why) {
				char *ms = mask_str(rc, m->d[i].dflt_new[k]);

				*errmsg = xasprintf("the default resctrl group would be left with %s "
						    "in L3 domain %u, which is %s", ms, m->d[i].id,
						    why);
				free(ms);
				free(why);
				return RM_EXIT_NORESOURCE;
			}
		}
	return 0;
}

/* Read the groups and build the model; the exit status and *ERRMSG on a failure. */
static int prepare(const struct rm_resctrl *rc, const struct rm_resctrl_want *want, size_t n,
		   struct rm_resctrl_group **groups, size_t *ngroups, struct model *m,
		   char **errmsg)
{
	int rc_;

	if (!rc->mounted) {
		*errmsg = xasprintf("resctrl is not mounted at %s (rm-cpuset mount-resctrl)",
				    rc->root);
		return RM_EXIT_FAILURE;
	}
	if (rm_resctrl_groups(rc, groups, ngroups, errmsg) < 0)
		return RM_EXIT_FAILURE;
	model_build(rc, *groups, *ngroups, want, n, m);
	if ((rc_ = check_wants(rc, m, want, n, errmsg))) {
		model_free(m);
		rm_resctrl_groups_free(*groups, *ngroups);
		*groups = NULL;
		*ngroups = 0;
	}
	return rc_;
}

int rm_resctrl_plan(const struct rm_resctrl *rc, const struct rm_resctrl_want *want, size_t n,
		    const char **actions, char ***removed, size_t *nremoved, char **errmsg)
{
	struct rm_resctrl_group *groups;
	size_t ngroups;
	struct model m;

	int rc_;

	*removed = NULL;
	*nremoved = 0;
	if ((rc_ = prepare(rc, want, n, &groups, &ngroups, &m, errmsg)))
		return rc_;
	for (size_t w = 0; w < n; w++) {
		const struct rm_resctrl_group *g = find_group(groups, ngroups, want[w].name);
		struct diff df;

		if (!g) {
			actions[w] = "create";
			continue;
		}
		df = compare(rc, &m, g, &want[w]);
		actions[w] = df.cache || df.mb || df.cpus || df.mode ? "update" : "keep";
	}
	for (size_t g = 1; g < ngroups; g++)
		if (is_ours(groups[g].name) && !find_want(want, n, groups[g].name)) {
			*removed = xrealloc(*removed, (*nremoved + 1) * sizeof(**removed));
			(*removed)[(*nremoved)++] = xstrdup(groups[g].name);
		}
	model_free(&m);
	rm_resctrl_groups_free(groups, ngroups);
	return 0;
}

/* Remove our group G: its tasks and CPUs go to the default group. Logged so that undoing makes
 * it again, then writes its schemata, CPUs, tasks and mode back. */
static int remove_group(struct sync *s, const struct rm_resctrl_group *g)
{
	char *dir = group_dir(s->rc->root, g->name), *tasks = read_file(dir, "tasks");
	char *path, *cpus, *schemata, *line, *save = NULL;
	int rc = 0;

	if (!tasks) {
		rc = fail(s, xasprintf("cannot read %s/tasks: %s", dir, strerror(errno)));
		free(dir);
		return rc;
	}
	if (rmdir(dir) < 0) {
		fail(s, xasprintf("cannot remove %s: %s", dir, strerror(errno)));
		free(tasks);
		free(dir);
		return -1;
	}
	/* undone backwards: made again, schemata, CPUs, tasks, mode */
	if (is_exclusive(g->mode)) {
		path = xasprintf("%s/mode", dir);
		rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, path, g->mode);
		free(path);
	}
	path = xasprintf("%s/tasks", dir);
	for (line = strtok_r(tasks, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, path, line);
	free(path);
	path = xasprintf("%s/cpus_list", dir);
	cpus = rm_cpulist_format(g->cpus);
	rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, path, cpus);
	free(cpus);
	free(path);
	path = xasprintf("%s/schemata", dir);
	schemata = group_schemata(s->rc, g);
	rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, path, schemata);
	free(schemata);
	free(path);
	rm_kernfs_log_push(&s->log, RM_KERNFS_MKDIR, dir, NULL);
	free(tasks);
	free(dir);
	return 0;
}

/* Give W's group its CPUs, logging the CPUs of the other groups it takes them from. */
static int put_cpus(struct sync *s, const struct rm_resctrl_group *groups, size_t ngroups,
		    const struct rm_resctrl_want *w, const char *dir, bool newdir)
{
	char *val = rm_cpulist_format(w->cpus), *old = NULL;
	const struct rm_resctrl_group *self = find_group(groups, ngroups, w->name);
	int rc;

	for (size_t g = 1; g < ngroups; g++) {
		if (&groups[g] == self || !hwloc_bitmap_intersects(groups[g].cpus, w->cpus))
			continue;
		char *gdir = group_dir(s->rc->root, groups[g].name), *path, *cpus;

		path = xasprintf("%s/cpus_list", gdir);
		cpus = rm_cpulist_format(groups[g].cpus);
		rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, path, cpus);
		free(cpus);
		free(path);
		free(gdir);
	}
	if (!newdir && self)
		old = rm_cpulist_format(self->cpus);
	rc = put(s, dir, "cpus_list", val, old);
	free(old);
	free(val);
	return rc;
}

static int sync_steps(struct sync *s, const struct rm_resctrl_group *groups, size_t ngroups,
		      const struct model *m, const struct rm_resctrl_want *want, size_t n)
{
	struct rm_resctrl *rc = s->rc;
	bool *shareable_now = xcalloc(n ? n : 1, sizeof(bool));
	uint64_t *dflt_new[2] = { NULL, NULL };
	int rc_ = -1;
	bool dflt_changes = false;

	/* 1. our groups that are not wanted go, giving back their CLOSIDs and ways */
	for (size_t g = 1; g < ngroups; g++)
		if (is_ours(groups[g].name) && !find_want(want, n, groups[g].name) &&
		    remove_group(s, &groups[g]) < 0)
			goto out;

	/* 2. exclusive groups whose ways change are shareable while they do */
	for (size_t w = 0; w < n; w++) {
		const struct rm_resctrl_group *g = find_group(groups, ngroups, want[w].name);
		char *dir;

		struct diff df;
		int r;

		if (!g || !is_exclusive(g->mode))
			continue;
		df = compare(rc, m, g, &want[w]);
		if (!df.cache && want[w].exclusive)
			continue;
		dir = group_dir(rc->root, g->name);
		r = put(s, dir, "mode", "shareable", g->mode);
		free(dir);
		if (r < 0)
			goto out;
		shareable_now[w] = true;
	}

	/* 3. the default group loses the ways wanted exclusively and gets the unused ones back */
	for (int k = 0; k < rc->nl3; k++) {
		dflt_new[k] = xcalloc(m->nd, sizeof(uint64_t));
		for (size_t i = 0; i < m->nd; i++) {
			dflt_new[k][i] = m->d[i].dflt_new[k];
			dflt_changes = dflt_changes || dflt_new[k][i] != groups[0].l3[k][i];
		}
	}
	if (dflt_changes) {
		char *val = cache_lines(rc, dflt_new), *old = cache_lines(rc, groups[0].l3);
		int r = put(s, rc->root, "schemata", val, old);

		free(val);
		free(old);
		if (r < 0)
			goto out;
	}

	/* 4. the wanted groups: made, their schemata, their CPUs */
	for (size_t w = 0; w < n; w++) {
		const struct rm_resctrl_group *g = find_group(groups, ngroups, want[w].name);
		char *dir = group_dir(rc->root, want[w].name), *val = xstrdup(""), *old = NULL;
		struct diff df = { true, true, true, true };
		uint64_t *masks[2] = { NULL, NULL };
		int r = 0;

		if (!g)
			r = make_group(s, dir);
		else
			df = compare(rc, m, g, &want[w]);
		if (r == 0 && df.cache && rc->nl3) {
			want_masks(rc, m, &want[w], masks);
			val = join_lines(val, cache_lines(rc, masks));
			for (int k = 0; k < rc->nl3; k++)
				free(masks[k]);
		}
		if (r == 0 && df.mb && rc->mb && want[w].mb)
			val = join_lines(val, mb_line(rc, want[w].mb, NULL, false));
		if (r == 0 && *val) {
			old = g ? group_schemata(rc, g) : NULL;
			r = put(s, dir, "schemata", val, old);
		}
		if (r == 0 && df.cpus)
			r = put_cpus(s, groups, ngroups, &want[w], dir, !g);
		free(old);
		free(val);
		free(dir);
		if (r < 0)
			goto out;
	}

	/* 5. exclusive mode last, once no other group overlaps */
	for (size_t w = 0; w < n; w++) {
		const struct rm_resctrl_group *g = find_group(groups, ngroups, want[w].name);
		char *dir;
		int r;

		if (!want[w].exclusive || (g && is_exclusive(g->mode) && !shareable_now[w]))
			continue;
		dir = group_dir(rc->root, want[w].name);
		r = put(s, dir, "mode", "exclusive", g ? "shareable" : NULL);
		free(dir);
		if (r < 0)
			goto out;
	}
	rc_ = 0;
out:
	free(dflt_new[0]);
	free(dflt_new[1]);
	free(shareable_now);
	return rc_;
}

int rm_resctrl_sync(struct rm_resctrl *rc, const struct rm_resctrl_want *want, size_t n,
		    char **errmsg)
{
	struct sync s = { .rc = rc, .log = { .flags = FILES | RM_KERNFS_ESRCH_OK } };
	struct rm_resctrl_group *groups;
	size_t ngroups;
	struct model m;
	int rc_;

	if (!n) {
		/* nothing wanted: only ours to remove, if any (no other write without them) */
		char **names;
		int k = rc->mounted ? rm_kernfs_subdirs(rc->root, FILES, is_group_name, &names) : 0;
		bool ours = false;

		for (int i = 0; i < k; i++)
			ours = ours || is_ours(names[i]);
		if (k > 0)
			rm_kernfs_names_free(names, k);
		if (k >= 0 && !ours)
			return 0;
	}
	if ((rc_ = prepare(rc, want, n, &groups, &ngroups, &m, errmsg)))
		return rc_;
	if (sync_steps(&s, groups, ngroups, &m, want, n) < 0) {
		rm_kernfs_undo(&s.log, &s.err);
		*errmsg = s.err;
		rc_ = RM_EXIT_FAILURE;
	}
	rm_kernfs_log_free(&s.log);
	model_free(&m);
	rm_resctrl_groups_free(groups, ngroups);
	return rc_;
}

int rm_resctrl_attach(const char *root, const char *name, pid_t pid, char **errmsg)
{
	char *dir = group_dir(root, name), *path = xasprintf("%s/tasks", dir), val[24], *why;
	int rc;

	snprintf(val, sizeof(val), "%d", (int)pid);
	if (!rm_kernfs_is_dir(dir, FILES)) {
		*errmsg = xasprintf("no such resctrl group: '%s'", dir);
		rc = ENOENT;
	} else if ((rc = rm_kernfs_write(path, val, FILES))) {
		why = last_status(root);
		*errmsg = xasprintf("cannot write '%s' to %s: %s%s", val, path, strerror(rc), why);
		free(why);
	}
	free(path);
	free(dir);
	return rc ? -1 : 0;
}

int rm_resctrl_mount(const char *root, bool cdp, bool mba_mbps, char **errmsg)
{
	char *opts = xasprintf("%s%s%s", cdp ? "cdp" : "", cdp && mba_mbps ? "," : "",
			       mba_mbps ? "mba_MBps" : "");
	bool made = false;
	char *why = NULL;
	/* the directory reached without following a link, in directories only root changes */
	int fd = rm_mountpoint_open(root, &made, &why), rc = -1, saved = errno;

	if (fd >= 0) {
		rc = rm_mount_fd(fd, "resctrl", "resctrl", 0, *opts ? opts : NULL);
		saved = errno;
		close(fd);
		if (rc < 0 && made)
			rm_mountpoint_remove(root);
	}
	if (rc < 0 && why)
		*errmsg = xasprintf("cannot mount resctrl: %s", why);
	else if (rc < 0)
		*errmsg = xasprintf("cannot mount resctrl on %s%s%s: %s", root, *opts ? " with " : "",
				    opts, strerror(saved));
	free(why);
	free(opts);
	errno = saved;
	return rc < 0 ? -1 : 0;
}

/* ---- monitoring groups ---- */

int rm_resctrl_mon_create(const struct rm_resctrl *rc, const char *group, const char *name,
			  pid_t pid, char **errmsg)
{
	char *gdir = group_dir(rc->root, group ? group : "");
	char *dir = xasprintf("%s/mon_groups/%s", gdir, name), *why;
	int rc_ = 0;

	if (!name_valid(name)) {
		*errmsg = xasprintf("invalid monitoring group name: '%s'", name);
		rc_ = -1;
	} else if (mkdir(dir, 0755) < 0) {
		why = last_status(rc->root);
		*errmsg = xasprintf("cannot create %s: %s%s", dir, strerror(errno), why);
		free(why);
		rc_ = -1;
	} else if (pid > 0) {
		char *mon = xasprintf("%s/mon_groups/%s", group ? group : "", name);

		rc_ = rm_resctrl_attach(rc->root, *mon == '/' ? mon + 1 : mon, pid, errmsg);
		free(mon);
		if (rc_ < 0)
			rmdir(dir);
	}
	free(dir);
	free(gdir);
	return rc_;
}

int rm_resctrl_mon_remove(const struct rm_resctrl *rc, const char *group, const char *name,
			  char **errmsg)
{
	char *gdir = group_dir(rc->root, group ? group : "");
	char *dir = xasprintf("%s/mon_groups/%s", gdir, name);
	int rc_ = 0;

	if (!name_valid(name) || rmdir(dir) < 0) {
		*errmsg = xasprintf("cannot remove %s: %s", dir,
				    name_valid(name) ? strerror(errno) : "invalid name");
		rc_ = -1;
	}
	free(dir);
	free(gdir);
	return rc_;
}
