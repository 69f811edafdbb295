/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Resctrl: read what the hardware offers (info, schemata, domains, groups, monitoring counters);
 * group management is in resctrl-groups.c. */
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
#include "resctrl-internal.h"
#include "xalloc.h"

/*
 * The resctrl files are read and written directly: no well-kept library covers resctrl (intel's
 * pqos library drives the hardware itself, or resctrl through a daemon-style API that cannot
 * point at a test tree), and the same code must run against the trees tests make under
 * $RM_RESCTRL_ROOT.
 */

/* ---- files ---- */

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

/* ---- the mount and info/ ---- */

char *rm_resctrl_root(const char *sysroot)
{
	const struct rm_input *in = rm_input();
	const char *root = rm_input_root(in);

	if (in->resctrl_tree || (sysroot && root && !strcmp(sysroot, root)))
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
