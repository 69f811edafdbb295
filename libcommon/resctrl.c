/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Resctrl: read what the hardware offers, choose L3 ways, keep rmtools' groups, undo failures. */
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
#include "input.h"
#include "kernfs.h"
#include "resctrl.h"
#include "xalloc.h"

/*
 * The resctrl files are read and written directly: no well-kept library covers resctrl (intel's
 * pqos library drives the hardware itself, or resctrl through a daemon-style API that cannot
 * point at a test tree), and the same code must run against the trees tests make under
 * $RM_RESCTRL_ROOT.
 */

/* ---- files ---- */

/* How resctrl files are opened: links are followed, writes do not truncate. */
#define FILES 0

static char *read_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *s = rm_kernfs_read(path, FILES);

	free(path);
	return s;
}

/* A number file: decimal, or hex with BASE 16. -1 when missing or not a number. */
static long long read_number(const char *dir, const char *name, int base)
{
	char *s = read_file(dir, name), *end;
	long long v = -1;

	if (s && *s) {
		errno = 0;
		v = strtoll(s, &end, base);
		if (errno || *end || v < 0)
			v = -1;
	}
	free(s);
	return v;
}

/* The kernel's reason for the last refusal (info/last_cmd_status), as " (resctrl: REASON)", or
 * "" when it says "ok" or cannot be read. Allocated. */
static char *last_status(const char *root)
{
	char *dir = xasprintf("%s/info", root), *s = read_file(dir, "last_cmd_status"), *out;

	free(dir);
	if (!s || !*s || !strcmp(s, "ok")) {
		free(s);
		return xstrdup("");
	}
	for (char *p = s; *p; p++)
		if (*p == '\n')
			*p = ' ';
	out = xasprintf(" (resctrl: %s)", s);
	free(s);
	return out;
}

static int popcount(uint64_t v)
{
	return __builtin_popcountll(v);
}

static uint64_t low_bits(int n)
{
	return n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
}

/* Whether the set bits of V form one run (0 counts as one). */
static bool contiguous(uint64_t v)
{
	if (!v)
		return true;
	v >>= __builtin_ctzll(v);
	return (v & (v + 1)) == 0;
}

static int longest_run(uint64_t v)
{
	int best = 0;

	while (v) {
		int run;

		v >>= __builtin_ctzll(v);
		run = __builtin_ctzll(~v);
		if (run > best)
			best = run;
		v = run >= 64 ? 0 : v >> run;
	}
	return best;
}

/* ---- the mount and info/ ---- */

char *rm_resctrl_root(const char *sysroot)
{
	const struct rm_input *in = rm_input();

	if (in->resctrl_tree || (sysroot && in->sysroot && !strcmp(sysroot, in->sysroot)))
		return xstrdup(in->resctrl_root);
	if (sysroot && *sysroot && strcmp(sysroot, "/"))
		return xasprintf("%s%s", sysroot, RM_RESCTRL_ROOT_DEFAULT);
	return xstrdup(RM_RESCTRL_ROOT_DEFAULT);
}

bool rm_resctrl_supported(const char *sysroot)
{
	char *path = sysroot && *sysroot && strcmp(sysroot, "/") ?
		     xasprintf("%s/proc/filesystems", sysroot) : xstrdup("/proc/filesystems");
	char *s = rm_kernfs_read(path, FILES), *line, *save = NULL;
	bool found = false;

	free(path);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *word = strrchr(line, '\t') ?: strrchr(line, ' ') ?: line;

		found = !strcmp(word + (*word == '\t' || *word == ' '), "resctrl");
	}
	free(s);
	return found;
}

/* Whether ROOT is mounted with mba_MBps (its super options in /proc/self/mountinfo). */
static bool mounted_mba_mbps(const char *root)
{
	char real[PATH_MAX], *s, *line, *save = NULL;
	bool found = false;

	if (!realpath(root, real) || !(s = rm_kernfs_read("/proc/self/mountinfo", FILES)))
		return false;
	for (line = strtok_r(s, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char mp[PATH_MAX], *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 || strcmp(mp, real))
			continue;
		found = !strncmp(sep + 3, "resctrl ", 8) && strstr(sep, "mba_MBps");
	}
	free(s);
	return found;
}

long rm_resctrl_domain_index(const struct rm_resctrl_res *res, unsigned id)
{
	for (size_t i = 0; res && i < res->ndomains; i++)
		if (res->domains[i] == id)
			return (long)i;
	return -1;
}

const struct rm_resctrl_res *rm_resctrl_find(const struct rm_resctrl *rc, const char *name)
{
	for (size_t i = 0; i < rc->nres; i++)
		if (!strcmp(rc->res[i].name, name))
			return &rc->res[i];
	return NULL;
}

const char *rm_resctrl_unit_name(enum rm_resctrl_unit unit)
{
	return unit == RM_RESCTRL_MBPS ? "MBps" : unit == RM_RESCTRL_AMD ? "GBps/8" : "percent";
}

/* The domains of a monitoring resource: mon_data/mon_L3_00 ... for L3_MON. */
static void mon_domains(struct rm_resctrl *rc, struct rm_resctrl_res *r)
{
	char *dir = xasprintf("%s/mon_data", rc->root), **names, *prefix;
	size_t len = strlen(r->name) - 4; /* without "_MON" */
	int n = rm_kernfs_subdirs(dir, FILES, NULL, &names);

	prefix = xasprintf("mon_%.*s_", (int)len, r->name);
	for (int i = 0; i < n; i++) {
		char *end;
		unsigned long id;

		if (strncmp(names[i], prefix, strlen(prefix)))
			continue;
		id = strtoul(names[i] + strlen(prefix), &end, 10);
		if (*end)
			continue;
		r->domains = xrealloc(r->domains, (r->ndomains + 1) * sizeof(*r->domains));
		r->domains[r->ndomains++] = (unsigned)id;
	}
	rm_kernfs_names_free(names, n);
	free(prefix);
	free(dir);
}

static void read_res(struct rm_resctrl *rc, struct rm_resctrl_res *r, const char *dir)
{
	long long v;
	char *s;

	r->min_cbm_bits = -1;
	r->sparse = -1;
	r->num_closids = read_number(dir, "num_closids", 10);
	r->bw_gran = r->min_bw = r->delay_linear = r->num_rmids = -1;
	if ((v = read_number(dir, "cbm_mask", 16)) >= 0) {
		r->cache = true;
		r->cbm_mask = (uint64_t)v;
		r->cbm_len = 64 - __builtin_clzll(r->cbm_mask | 1);
		r->min_cbm_bits = (int)read_number(dir, "min_cbm_bits", 10);
		v = read_number(dir, "shareable_bits", 16);
		r->shareable_bits = v > 0 ? (uint64_t)v : 0;
		v = read_number(dir, "sparse_masks", 10);
		r->sparse = v < 0 ? -1 : v > 0;
	}
	if ((r->bw_gran = read_number(dir, "bandwidth_gran", 10)) >= 0) {
		r->bw = true;
		r->min_bw = read_number(dir, "min_bandwidth", 10);
		r->delay_linear = read_number(dir, "delay_linear", 10);
	}
	if ((s = read_file(dir, "mon_features"))) {
		r->mon = true;
		for (char *p = s; *p; p++)
			if (*p == '\n')
				*p = ',';
		r->mon_features = s;
		r->num_rmids = read_number(dir, "num_rmids", 10);
		if (strlen(r->name) > 4 && !strcmp(r->name + strlen(r->name) - 4, "_MON"))
			mon_domains(rc, r);
	}
}

/* Domains and default values of the allocation resources, from the default group's schemata. */
static int read_default_schemata(struct rm_resctrl *rc, char **errmsg)
{
	char *path = xasprintf("%s/schemata", rc->root), *msg = NULL;
	char *s = rm_kernfs_read(path, FILES);
	struct rm_resctrl_line *lines;
	size_t n;

	if (!s) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (rm_resctrl_schemata_parse(s, &lines, &n, &msg) < 0) {
		*errmsg = xasprintf("cannot read %s: %s", path, msg);
		free(msg);
		free(s);
		free(path);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct rm_resctrl_res *r = (struct rm_resctrl_res *)rm_resctrl_find(rc, lines[i].res);

		if (!r)
			continue;
		r->ndomains = lines[i].n;
		r->domains = xmalloc(lines[i].n * sizeof(*r->domains));
		memcpy(r->domains, lines[i].dom, lines[i].n * sizeof(*r->domains));
		if (r->bw)
			for (size_t k = 0; k < lines[i].n; k++) {
				unsigned long v = strtoul(lines[i].val[k], NULL, 10);

				if (v > r->bw_max)
					r->bw_max = v;
			}
	}
	rm_resctrl_lines_free(lines, n);
	free(s);
	free(path);
	return 0;
}

/* What MB's values mean: the mount option, else the default group's "no limit" value. */
static void bw_unit(struct rm_resctrl *rc, struct rm_resctrl_res *r)
{
	if (r->bw_max == RM_RESCTRL_MBPS_MAX || mounted_mba_mbps(rc->root)) {
		r->unit = RM_RESCTRL_MBPS;
		r->bw_max = RM_RESCTRL_MBPS_MAX;
	} else if (r->bw_max > 100 || (r->min_bw == 0 && r->delay_linear == 0)) {
		r->unit = RM_RESCTRL_AMD; /* MAX_MBA_BW_AMD */
		r->bw_max = 2048;
	} else {
		r->unit = RM_RESCTRL_PERCENT;
		r->bw_max = 100;
	}
}

int rm_resctrl_open(struct rm_resctrl *rc, const char *root, char **errmsg)
{
	char *info, **names;
	int n;

	memset(rc, 0, sizeof(*rc));
	rc->root = xstrdup(root);
	rc->closids = -1;
	info = xasprintf("%s/info", root);
	rc->mounted = rm_kernfs_is_dir(info, FILES);
	if (!rc->mounted) {
		free(info);
		return 0;
	}
	if ((n = rm_kernfs_subdirs(info, FILES, NULL, &names)) < 0) {
		*errmsg = xasprintf("cannot read %s: %s", info, strerror(errno));
		free(info);
		return -1;
	}
	rc->res = xcalloc(n, sizeof(*rc->res));
	rc->nres = n;
	for (int i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%s", info, names[i]);

		rc->res[i].name = names[i];
		read_res(rc, &rc->res[i], dir);
		free(dir);
	}
	free(names);
	free(info);
	if (read_default_schemata(rc, errmsg) < 0)
		return -1;
	for (size_t i = 0; i < rc->nres; i++) {
		struct rm_resctrl_res *r = &rc->res[i];

		if (!strcmp(r->name, "L3") && r->cache) {
			rc->l3[0] = r;
			rc->nl3 = 1;
		} else if (!strcmp(r->name, "MB") && r->bw)
			rc->mb = r;
		else if (!strcmp(r->name, "L3_MON") && r->mon)
			rc->mon = r;
		if ((r->cache || r->bw) && r->num_closids >= 0 &&
		    (rc->closids < 0 || r->num_closids < rc->closids))
			rc->closids = r->num_closids;
		if (r->bw)
			bw_unit(rc, r);
	}
	if (!rc->nl3) {
		struct rm_resctrl_res *code = (struct rm_resctrl_res *)rm_resctrl_find(rc, "L3CODE");
		struct rm_resctrl_res *data = (struct rm_resctrl_res *)rm_resctrl_find(rc, "L3DATA");

		if (code && data && code->cache && data->cache) {
			if (code->ndomains != data->ndomains ||
			    memcmp(code->domains, data->domains,
				   code->ndomains * sizeof(*code->domains))) {
				*errmsg = xasprintf("%s/schemata: L3CODE and L3DATA have different "
						    "domains", root);
				return -1;
			}
			rc->l3[0] = code;
			rc->l3[1] = data;
			rc->nl3 = 2;
		}
	}
	return 0;
}

void rm_resctrl_close(struct rm_resctrl *rc)
{
	for (size_t i = 0; i < rc->nres; i++) {
		free(rc->res[i].name);
		free(rc->res[i].domains);
		free(rc->res[i].mon_features);
	}
	free(rc->res);
	free(rc->root);
	memset(rc, 0, sizeof(*rc));
}

/* ---- schemata ---- */

void rm_resctrl_lines_free(struct rm_resctrl_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lines[i].res);
		free(lines[i].dom);
		for (size_t k = 0; k < lines[i].n; k++)
			free(lines[i].val[k]);
		free(lines[i].val);
	}
	free(lines);
}

/* S without blanks, allocated. */
static char *squeeze(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;

	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			*o++ = s[i];
	*o = '\0';
	return out;
}

int rm_resctrl_schemata_parse(const char *text, struct rm_resctrl_line **linesp, size_t *np,
			      char **errmsg)
{
	struct rm_resctrl_line *lines = NULL;
	size_t n = 0;
	unsigned lineno = 0;
	const char *p = text;

	while (*p) {
		const char *end = strchr(p, '\n') ?: p + strlen(p), *colon;
		char *body, *item, *save = NULL;
		struct rm_resctrl_line *l;

		lineno++;
		colon = memchr(p, ':', end - p);
		if (!colon) {
			bool blank = true;

			for (const char *q = p; q < end; q++)
				blank = blank && isspace((unsigned char)*q);
			if (!blank) {
				*errmsg = xasprintf("line %u: missing ':'", lineno);
				goto bad;
			}
			p = *end ? end + 1 : end;
			continue;
		}
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		l = &lines[n++];
		memset(l, 0, sizeof(*l));
		l->res = squeeze(p, colon - p);
		body = squeeze(colon + 1, end - colon - 1);
		for (item = strtok_r(body, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
			char *eq = strchr(item, '='), *e;
			unsigned long id;

			errno = 0;
			id = eq ? strtoul(item, &e, 10) : 0;
			if (!eq || e != eq || eq == item || errno || id > UINT_MAX || !eq[1]) {
				*errmsg = xasprintf("line %u: expected ID=VALUE: '%s'", lineno, item);
				free(body);
				goto bad;
			}
			l->dom = xrealloc(l->dom, (l->n + 1) * sizeof(*l->dom));
			l->val = xrealloc(l->val, (l->n + 1) * sizeof(*l->val));
			l->dom[l->n] = (unsigned)id;
			l->val[l->n++] = xstrdup(eq + 1);
		}
		free(body);
		p = *end ? end + 1 : end;
	}
	*linesp = lines;
	*np = n;
	return 0;
bad:
	rm_resctrl_lines_free(lines, n);
	*linesp = NULL;
	*np = 0;
	return -1;
}

char *rm_resctrl_mask_format(uint64_t mask, int cbm_len)
{
	return xasprintf("%0*llx", (cbm_len + 3) / 4, (unsigned long long)mask);
}

/* ---- control groups ---- */

static bool is_group_name(const char *name)
{
	return strcmp(name, "info") && strcmp(name, "mon_data") && strcmp(name, "mon_groups");
}

static char *group_dir(const char *root, const char *name)
{
	return *name ? xasprintf("%s/%s", root, name) : xstrdup(root);
}

void rm_resctrl_groups_free(struct rm_resctrl_group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(groups[i].name);
		free(groups[i].mode);
		free(groups[i].l3[0]);
		free(groups[i].l3[1]);
		free(groups[i].mb);
		if (groups[i].cpus)
			hwloc_bitmap_free(groups[i].cpus);
	}
	free(groups);
}

static int read_group(const struct rm_resctrl *rc, struct rm_resctrl_group *g, char **errmsg)
{
	char *dir = group_dir(rc->root, g->name), *s = NULL, *msg = NULL;
	const char *what = "schemata";
	struct rm_resctrl_line *lines = NULL;
	size_t n = 0;
	int rc_ = -1;

	for (int k = 0; k < rc->nl3; k++)
		g->l3[k] = xcalloc(rc->l3[k]->ndomains, sizeof(uint64_t));
	if (rc->mb)
		g->mb = xcalloc(rc->mb->ndomains, sizeof(unsigned long));
	g->cpus = hwloc_bitmap_alloc();
	if (!(s = read_file(dir, "schemata")))
		goto fail;
	if (rm_resctrl_schemata_parse(s, &lines, &n, &msg) < 0)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		const struct rm_resctrl_line *l = &lines[i];

		for (size_t j = 0; j < l->n; j++) {
			for (int k = 0; k < rc->nl3; k++) {
				long d = rm_resctrl_domain_index(rc->l3[k], l->dom[j]);

				if (strcmp(l->res, rc->l3[k]->name) || d < 0)
					continue;
				g->l3[k][d] = strtoull(l->val[j], NULL, 16);
			}
			if (rc->mb && !strcmp(l->res, rc->mb->name)) {
				long d = rm_resctrl_domain_index(rc->mb, l->dom[j]);

				if (d >= 0)
					g->mb[d] = strtoul(l->val[j], NULL, 10);
			}
		}
	}
	free(s);
	what = "mode";
	if (!(s = read_file(dir, "mode"))) {
		if (*g->name || errno != ENOENT)
			goto fail;
		s = xstrdup("shareable"); /* kernels before 4.19 have no mode file */
	}
	g->mode = s;
	s = NULL;
	what = "cpus_list";
	if (!(s = read_file(dir, "cpus_list")))
		goto fail;
	if (rm_cpulist_parse_list(s, g->cpus, &msg) < 0)
		goto bad;
	rc_ = 0;
	goto out;
fail:
	*errmsg = xasprintf("cannot read %s/%s: %s", dir, what, strerror(errno));
	goto out;
bad:
	*errmsg = xasprintf("cannot read %s/%s: %s", dir, what, msg);
	free(msg);
out:
	rm_resctrl_lines_free(lines, n);
	free(s);
	free(dir);
	return rc_;
}

int rm_resctrl_groups(const struct rm_resctrl *rc, struct rm_resctrl_group **groupsp, size_t *np,
		      char **errmsg)
{
	struct rm_resctrl_group *groups;
	char **names;
	int n = rm_kernfs_subdirs(rc->root, FILES, is_group_name, &names);

	*groupsp = NULL;
	*np = 0;
	if (n < 0) {
		*errmsg = xasprintf("cannot read %s: %s", rc->root, strerror(errno));
		return -1;
	}
	groups = xcalloc(n + 1, sizeof(*groups));
	groups[0].name = xstrdup("");
	for (int i = 0; i < n; i++)
		groups[i + 1].name = names[i];
	free(names);
	for (int i = 0; i <= n; i++)
		if (read_group(rc, &groups[i], errmsg) < 0) {
			rm_resctrl_groups_free(groups, n + 1);
			return -1;
		}
	*groupsp = groups;
	*np = n + 1;
	return 0;
}

uint64_t rm_resctrl_group_ways(const struct rm_resctrl *rc, const struct rm_resctrl_group *g,
			       size_t i)
{
	uint64_t v = 0;

	for (int k = 0; k < rc->nl3; k++)
		if (g->l3[k])
			v |= g->l3[k][i];
	return v;
}

int rm_resctrl_l3_domains(struct rm_topo *t, hwloc_const_bitmap_t cpus, hwloc_bitmap_t ids)
{
	hwloc_bitmap_t covered = hwloc_bitmap_alloc(), rest = hwloc_bitmap_alloc();
	hwloc_obj_t o = NULL;
	int missing;

	hwloc_bitmap_zero(ids);
	while ((o = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_L3CACHE, o))) {
		if (!hwloc_bitmap_intersects(o->cpuset, cpus))
			continue;
		hwloc_bitmap_set(ids, rm_topo_os_index(o) >= 0 ? (unsigned)rm_topo_os_index(o) :
								 o->logical_index);
		hwloc_bitmap_or(covered, covered, o->cpuset);
	}
	hwloc_bitmap_andnot(rest, cpus, covered);
	missing = hwloc_bitmap_weight(rest);
	hwloc_bitmap_free(covered);
	hwloc_bitmap_free(rest);
	return missing;
}

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
	int rc = mount("resctrl", root, "resctrl", 0, *opts ? opts : NULL), saved = errno;

	if (rc < 0)
		*errmsg = xasprintf("cannot mount resctrl on %s%s%s: %s", root, *opts ? " with " : "",
				    opts, strerror(saved));
	free(opts);
	errno = saved;
	return rc < 0 ? -1 : 0;
}

/* ---- monitoring ---- */

bool rm_resctrl_has_event(const struct rm_resctrl *rc, const char *event)
{
	const char *f = rc->mon ? rc->mon->mon_features : NULL;
	size_t len = strlen(event);

	for (; f && *f; f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL)
		if (!strncmp(f, event, len) && (f[len] == ',' || !f[len]))
			return true;
	return false;
}

static int read_counter(const char *path, uint64_t *value, char **errmsg)
{
	char *s = rm_kernfs_read(path, FILES), *end;

	if (!s) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	*value = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno) {
		/* "Unavailable" (no RMID, or not counted yet) or "Error" */
		*errmsg = xasprintf("cannot read %s: the kernel says '%s'", path, s);
		free(s);
		return -1;
	}
	free(s);
	return 0;
}

int rm_resctrl_mon_read(const struct rm_resctrl *rc, const char *group, const char *event,
			long domain, uint64_t *value, char **errmsg)
{
	char *gdir = group_dir(rc->root, group ? group : ""), *dir = xasprintf("%s/mon_data", gdir);
	char **names = NULL, *path;
	int n, rc_ = 0;

	*value = 0;
	free(gdir);
	if (domain >= 0) {
		path = xasprintf("%s/mon_L3_%02ld/%s", dir, domain, event);
		rc_ = read_counter(path, value, errmsg);
		free(path);
		free(dir);
		return rc_;
	}
	if ((n = rm_kernfs_subdirs(dir, FILES, NULL, &names)) <= 0) {
		*errmsg = n < 0 ? xasprintf("cannot read %s: %s", dir, strerror(errno)) :
				  xasprintf("no L3 monitoring domains in %s", dir);
		free(dir);
		return -1;
	}
	for (int i = 0; i < n && rc_ == 0; i++) {
		uint64_t v;

		if (strncmp(names[i], "mon_L3_", 7))
			continue;
		path = xasprintf("%s/%s/%s", dir, names[i], event);
		if ((rc_ = read_counter(path, &v, errmsg)) == 0)
			*value += v;
		free(path);
	}
	rm_kernfs_names_free(names, n);
	free(dir);
	return rc_;
}

/* Whether TEXT, a tasks file, lists TID. */
static bool lists_task(const char *text, pid_t tid)
{
	for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char *end;
		long v = strtol(p, &end, 10);

		if (end != p && (*end == '\n' || !*end) && v == (long)tid)
			return true;
	}
	return false;
}

int rm_resctrl_task_group(const struct rm_resctrl *rc, pid_t tid, char **group, char **errmsg)
{
	char **names;
	int n = rm_kernfs_subdirs(rc->root, FILES, is_group_name, &names);

	*group = NULL;
	if (n < 0) {
		*errmsg = xasprintf("cannot read %s: %s", rc->root, strerror(errno));
		return -1;
	}
	/* the default group's tasks are everyone else's: only the others are read */
	for (int i = 0; i < n && !*group; i++) {
		char *path = xasprintf("%s/%s/tasks", rc->root, names[i]);
		char *text = rm_kernfs_read(path, FILES);

		if (text && lists_task(text, tid))
			*group = xstrdup(names[i]);
		free(text);
		free(path);
	}
	rm_kernfs_names_free(names, n);
	if (!*group)
		*group = xstrdup("");
	return 0;
}

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
