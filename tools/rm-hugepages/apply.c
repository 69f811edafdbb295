/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages apply: make the pools, overcommit, mounts and limits match hugepages.conf(5), all or
 * nothing. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "conffile.h"
#include "exitcodes.h"
#include "hugetlb.h"
#include "kernfs.h"
#include "mountpoint.h"
#include "record.h"
#include "rm-hugepages.h"
#include "size.h"
#include "state.h"
#include "sysfs.h"
#include "xalloc.h"

enum { OPT_NO_COMPACT = 0x200 };

static const struct argp_option apply_options[] = {
	{ "no-compact", OPT_NO_COMPACT, NULL, 0, "do not compact memory before retrying", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "check the file, print what it would set, change "
	  "nothing", 0 },
	{ 0 }
};

struct apply_args {
	struct rm_apply_args a; /* first: rm_apply_parse's input */
	bool no_compact;
};

static error_t apply_parse(int key, char *arg, struct argp_state *state)
{
	struct apply_args *a = state->input;

	if (key != OPT_NO_COMPACT)
		return rm_apply_parse(key, arg, state);
	a->no_compact = true;
	return 0;
}

/* ---- the file ---- */

struct mount_line {
	unsigned line, col;
	struct mount_req r;
	bool already; /* the mount is there as asked */
	bool mounted, made;
};

/* overcommit SIZE COUNT|AMOUNT */
struct overcommit_line {
	unsigned line, col;
	size_t size;
	uint64_t want, before;
	bool written; /* changed by this run */
};

/* limit OWNER SIZE COUNT|AMOUNT|max */
struct limit_line {
	unsigned line, col;
	char *owner;
	size_t size;
	bool limited;
	uint64_t bytes;
};

struct plan {
	struct rm_conf conf;     /* the file, and its first error */
	struct rm_hugepages *hp;
	struct rm_hp_target *t;
	unsigned *tline; /* the line of each target */
	size_t nt;
	struct mount_line *m;
	size_t nm;
	struct overcommit_line *oc;
	size_t noc;
	struct limit_line *lm;
	size_t nlm;
	struct rm_hugetlb h;     /* opened when there are limits */
	bool have_h;
	struct rm_kernfs_log log; /* the cgroup changes of the limits, for undoing them */
};

/* A line of pages: SIZE [node=SET] count=N|amount=AMOUNT [spread=yes|no]. */
static void page_line(struct plan *p, unsigned line, struct rm_conf_word *toks, int n)
{
	struct rm_hugepages *hp = p->hp;
	const char *node = NULL, *count = NULL;
	unsigned node_col = 0, count_col = 0;
	bool spread = false, is_amount = false;
	size_t size, *which = NULL;
	uint64_t pages, *each;
	char *msg = NULL, *value;
	bool relative;
	long nwhich;

	if (rm_hugepages_parse_size(hp, toks[0].text, &size, &msg) < 0)
		return rm_conf_fail(&p->conf, line, toks[0].col, msg);
	for (int i = 1; i < n; i++) {
		unsigned vcol;
		char *key;

		if (rm_conf_split(&toks[i], &value, &vcol) < 0)
			return rm_conf_fail_shown(&p->conf, toks[i].col, "expected key=value: '%s'",
					  toks[i].text);
		key = toks[i].text;
		if (!strcmp(key, "node") && !node) {
			node = value;
			node_col = vcol;
		} else if ((!strcmp(key, "count") || !strcmp(key, "amount")) && !count) {
			count = value;
			count_col = vcol;
			is_amount = !strcmp(key, "amount");
		} else if (!strcmp(key, "spread") && (!strcmp(value, "yes") || !strcmp(value, "no"))) {
			spread = !strcmp(value, "yes");
		} else if (!strcmp(key, "spread")) {
			return rm_conf_fail_shown(&p->conf, vcol, "invalid spread (yes or no): '%s'", value);
		} else if (!strcmp(key, "node") || !strcmp(key, "count") || !strcmp(key, "amount")) {
			rm_conf_fail(&p->conf, line, toks[i].col,
				  xasprintf("given twice: '%s'", strcmp(key, "node") ? "count or amount"
										  : key));
			return;
		} else {
			return rm_conf_fail_shown(&p->conf, toks[i].col,
					  "unknown key: '%s' (node, count, amount, spread)", key);
		}
	}
	if (!count)
		return rm_conf_fail(&p->conf, line, toks[0].col, xasprintf("missing count= or amount=: '%s'",
								 toks[0].text));
	/* count= is a number of pages, amount= a size with its unit */
	if (count[0] != '+' && (is_amount == !count[strspn(count, "0123456789")]))
		return rm_conf_fail_shown(&p->conf, count_col,
				  is_amount ? "invalid amount (a size such as 8GiB): '%s'"
					    : "invalid count (a number of pages): '%s'", count);
	if (rm_hugepages_parse_count(count, hp->sizes[size], &pages, &relative, &msg) < 0)
		return rm_conf_fail(&p->conf, line, count_col, msg);
	if (relative)
		return rm_conf_fail(&p->conf, line, count_col,
				 xasprintf("a configuration sets counts, it does not add: '%s'",
					   count));
	if ((nwhich = hp_nodes(hp, node, size, &which, &msg)) < 0)
		return rm_conf_fail(&p->conf, line, node ? node_col : toks[0].col, msg);
	each = xcalloc((size_t)nwhich, sizeof(uint64_t));
	if (!node || spread)
		rm_hugepages_spread(pages, (size_t)nwhich, each);
	else
		for (long w = 0; w < nwhich; w++)
			each[w] = pages;
	for (long w = 0; w < nwhich; w++) {
		size_t k = 0;

		while (k < p->nt && !(p->t[k].size == size && p->t[k].node == which[w]))
			k++;
		if (k < p->nt) {
			char *ps = rm_size_format(hp->sizes[size]);

			rm_conf_fail(&p->conf, line, node ? node_col : toks[0].col,
				  xasprintf("%s pages of node %u are set on line %u already", ps,
					    hp->nodes[which[w]].id, p->tline[k]));
			free(ps);
			break;
		}
		p->t = xrealloc(p->t, (p->nt + 1) * sizeof(*p->t));
		p->tline = xrealloc(p->tline, (p->nt + 1) * sizeof(*p->tline));
		memset(&p->t[p->nt], 0, sizeof(*p->t));
		p->t[p->nt].size = size;
		p->t[p->nt].node = which[w];
		p->t[p->nt].want = each[w];
		p->tline[p->nt] = line;
		p->nt++;
	}
	free(each);
	free(which);
}

/* mount DIR size=SIZE [uid=USER] [gid=GROUP] [mode=MODE] [max_size=AMOUNT] */
static void mount_line(struct plan *p, unsigned line, struct rm_conf_word *toks, int n)
{
	struct rm_hugepages *hp = p->hp;
	struct mount_req r = { 0 };
	const char *max = NULL;
	unsigned max_col = 0;
	char *msg = NULL, *value;
	bool have_size = false;
	size_t size;

	if (n < 2)
		return rm_conf_fail(&p->conf, line, toks[0].col, xstrdup("missing the mount point: 'mount'"));
	if (toks[1].text[0] != '/' || strchr(toks[1].text, '='))
		return rm_conf_fail_shown(&p->conf, toks[1].col, "not an absolute path: '%s'", toks[1].text);
	for (int i = 2; i < n; i++) {
		unsigned vcol;
		char *key;
		int rc = 0;

		if (rm_conf_split(&toks[i], &value, &vcol) < 0)
			return rm_conf_fail_shown(&p->conf, toks[i].col, "expected key=value: '%s'",
					  toks[i].text);
		key = toks[i].text;
		if ((!strcmp(key, "size") && have_size) || (!strcmp(key, "uid") && r.have_uid) ||
		    (!strcmp(key, "gid") && r.have_gid) || (!strcmp(key, "mode") && r.have_mode) ||
		    (!strcmp(key, "max_size") && max))
			return rm_conf_fail(&p->conf, line, toks[i].col, xasprintf("given twice: '%s'", key));
		if (!strcmp(key, "size")) {
			have_size = true;
			if ((rc = rm_hugepages_parse_size(hp, value, &size, &msg)) == 0)
				r.page_size = hp->sizes[size];
		} else if (!strcmp(key, "uid")) {
			r.have_uid = true;
			rc = hp_parse_uid(value, &r.uid, &msg);
		} else if (!strcmp(key, "gid")) {
			r.have_gid = true;
			rc = hp_parse_gid(value, &r.gid, &msg);
		} else if (!strcmp(key, "mode")) {
			r.have_mode = true;
			rc = hp_parse_mode(value, &r.mode, &msg);
		} else if (!strcmp(key, "max_size")) {
			max = value;
			max_col = vcol;
		} else {
			return rm_conf_fail_shown(&p->conf, toks[i].col,
					  "unknown key: '%s' (size, uid, gid, mode, max_size)", key);
		}
		if (rc < 0)
			return rm_conf_fail(&p->conf, line, vcol, msg);
	}
	if (!have_size)
		return rm_conf_fail_shown(&p->conf, toks[0].col, "missing size=: '%s'", toks[1].text);
	if (max) {
		r.have_max = true;
		if (hp_parse_max_size(max, r.page_size, &r.max_size, &msg) < 0)
			return rm_conf_fail(&p->conf, line, max_col, msg);
	}
	r.dir = xstrdup(toks[1].text);
	for (size_t len = strlen(r.dir); len > 1 && r.dir[len - 1] == '/';)
		r.dir[--len] = '\0';
	for (size_t k = 0; k < p->nm; k++)
		if (!strcmp(p->m[k].r.dir, r.dir)) {
			char *x = rm_record_show(r.dir, strlen(r.dir));

			rm_conf_fail(&p->conf, line, toks[1].col,
				  xasprintf("mounted on line %u already: '%s'", p->m[k].line, x));
			free(x);
			free(r.dir);
			return;
		}
	p->m = xrealloc(p->m, (p->nm + 1) * sizeof(*p->m));
	memset(&p->m[p->nm], 0, sizeof(*p->m));
	p->m[p->nm].line = line;
	p->m[p->nm].col = toks[1].col;
	p->m[p->nm].r = r;
	p->nm++;
}

/* Refuse the words after the last one a line takes: -1 with P->err. */
static int no_more(struct plan *p, unsigned line, struct rm_conf_word *toks, int n, int max)
{
	if (n <= max)
		return 0;
	rm_conf_fail_shown(&p->conf, toks[max].col, "unexpected word: '%s'", toks[max].text);
	return -1;
}

/* overcommit SIZE COUNT|AMOUNT: the words of "rm-hugepages overcommit". */
static void overcommit_line(struct plan *p, unsigned line, struct rm_conf_word *toks, int n)
{
	struct rm_hugepages *hp = p->hp;
	struct overcommit_line o = { .line = line, .col = toks[0].col };
	char *msg = NULL;
	bool relative;

	if (n < 2)
		return rm_conf_fail(&p->conf, line, toks[0].col,
				 xstrdup("missing the page size: 'overcommit'"));
	if (n < 3)
		return rm_conf_fail_shown(&p->conf, toks[0].col,
				  "missing the count or amount after the size: '%s'", toks[1].text);
	if (no_more(p, line, toks, n, 3) < 0)
		return;
	if (rm_hugepages_parse_size(hp, toks[1].text, &o.size, &msg) < 0)
		return rm_conf_fail(&p->conf, line, toks[1].col, msg);
	if (rm_hugepages_gigantic(hp, o.size))
		return rm_conf_fail(&p->conf, line, toks[1].col, hp_gigantic_msg(hp, o.size, toks[1].text));
	if (rm_hugepages_parse_count(toks[2].text, hp->sizes[o.size], &o.want, &relative, &msg) < 0)
		return rm_conf_fail(&p->conf, line, toks[2].col, msg);
	if (relative)
		return rm_conf_fail(&p->conf, line, toks[2].col,
				 xasprintf("a configuration sets counts, it does not add: '%s'",
					   toks[2].text));
	for (size_t k = 0; k < p->noc; k++)
		if (p->oc[k].size == o.size) {
			char *ps = rm_size_format(hp->sizes[o.size]);

			rm_conf_fail(&p->conf, line, toks[1].col,
				  xasprintf("the overcommit of %s pages is set on line %u already", ps,
					    p->oc[k].line));
			free(ps);
			return;
		}
	p->oc = xrealloc(p->oc, (p->noc + 1) * sizeof(*p->oc));
	p->oc[p->noc++] = o;
}

/* limit OWNER SIZE COUNT|AMOUNT|max: the words of "rm-hugepages limit". */
static void limit_line(struct plan *p, unsigned line, struct rm_conf_word *toks, int n)
{
	struct rm_hugepages *hp = p->hp;
	struct limit_line l = { .line = line, .col = n > 1 ? toks[1].col : toks[0].col,
				.limited = true };
	const char *amount;
	uint64_t pages = 0;
	char *msg = NULL;
	bool relative = false;

	if (n < 2)
		return rm_conf_fail(&p->conf, line, toks[0].col, xstrdup("missing the owner: 'limit'"));
	if (n < 3)
		return rm_conf_fail_shown(&p->conf, toks[0].col, "missing the page size after the owner: '%s'",
				  toks[1].text);
	if (n < 4)
		return rm_conf_fail_shown(&p->conf, toks[0].col,
				  "missing COUNT, AMOUNT or max after the size: '%s'", toks[2].text);
	if (no_more(p, line, toks, n, 4) < 0)
		return;
	if (!rm_owner_name_valid(toks[1].text))
		return rm_conf_fail_shown(&p->conf, toks[1].col, rm_name_valid(toks[1].text)
				  ? "invalid owner name: '%s' names rm-cpuset's shared pool"
				  : "invalid owner name: '%s'", toks[1].text);
	if (rm_hugepages_parse_size(hp, toks[2].text, &l.size, &msg) < 0)
		return rm_conf_fail(&p->conf, line, toks[2].col, msg);
	amount = toks[3].text;
	if (!strcmp(amount, "max"))
		l.limited = false;
	else if (rm_hugepages_parse_count(amount, hp->sizes[l.size], &pages, &relative, &msg) < 0)
		return rm_conf_fail(&p->conf, line, toks[3].col, msg);
	if (relative)
		return rm_conf_fail_shown(&p->conf, toks[3].col,
				  "invalid limit (a count, an amount or max): '%s'", amount);
	l.bytes = pages * hp->sizes[l.size];
	for (size_t k = 0; k < p->nlm; k++)
		if (p->lm[k].size == l.size && !strcmp(p->lm[k].owner, toks[1].text)) {
			char *ps = rm_size_format(hp->sizes[l.size]);

			rm_conf_fail(&p->conf, line, toks[1].col,
				  xasprintf("the %s limit of owner %s is set on line %u already", ps,
					    toks[1].text, p->lm[k].line));
			free(ps);
			return;
		}
	l.owner = xstrdup(toks[1].text);
	p->lm = xrealloc(p->lm, (p->nlm + 1) * sizeof(*p->lm));
	p->lm[p->nlm++] = l;
}

/* Read and check the whole file; -1 with P->conf.err (or errno for a read error). */
static int read_plan(struct plan *p)
{
	struct rm_conf_word toks[RM_CONF_MAX_WORDS];
	int n;

	while (!p->conf.err && (n = rm_conf_next(&p->conf, toks)) > 0) {
		unsigned line = p->conf.line;

		if (!strcmp(toks[0].text, "mount"))
			mount_line(p, line, toks, n);
		else if (!strcmp(toks[0].text, "overcommit"))
			overcommit_line(p, line, toks, n);
		else if (!strcmp(toks[0].text, "limit"))
			limit_line(p, line, toks, n);
		else
			page_line(p, line, toks, n);
	}
	return p->conf.err || n < 0 ? -1 : 0;
}

static void plan_free(struct plan *p)
{
	for (size_t k = 0; k < p->nm; k++)
		free(p->m[k].r.dir);
	free(p->m);
	for (size_t k = 0; k < p->nlm; k++)
		free(p->lm[k].owner);
	free(p->lm);
	free(p->oc);
	rm_kernfs_log_free(&p->log);
	if (p->have_h)
		rm_hugetlb_close(&p->h);
	free(p->t);
	free(p->tline);
	rm_conf_close(&p->conf);
}

/* Add "; WHAT" to *ERRMSG. */
static void add_msg(char **errmsg, char *what)
{
	char *m = xasprintf("%s; %s", *errmsg, what);

	free(*errmsg);
	free(what);
	*errmsg = m;
}

/* Undo the mounts made by this run (newest first). -1 when one stays, said in *ERRMSG. */
static int undo_mounts(struct plan *p, char **errmsg)
{
	int rc = 0;

	for (size_t k = p->nm; k-- > 0;) {
		struct mount_line *m = &p->m[k];

		if (m->mounted && umount2(m->r.dir, UMOUNT_NOFOLLOW) < 0) {
			add_msg(errmsg, xasprintf("cannot unmount %s while undoing: %s", m->r.dir,
						  strerror(errno)));
			rc = -1;
		} else if (m->made) {
			rm_mountpoint_remove(m->r.dir);
		}
		m->mounted = m->made = false;
	}
	return rc;
}

/*
 * Undo everything this run changed, newest first: the limits (and the cgroups they made), the
 * mounts, the overcommit values, the pools. Goes on after a failure; 0, or -1 with what stayed
 * added to *ERRMSG.
 */
static int undo_all(struct plan *p, char **errmsg)
{
	size_t len = strlen(*errmsg);
	char *umsg = NULL;
	int rc = 0;

	rm_kernfs_undo(&p->log, errmsg);
	if (strlen(*errmsg) != len)
		rc = -1;
	if (undo_mounts(p, errmsg) < 0)
		rc = -1;
	for (size_t k = p->noc; k-- > 0;) {
		struct overcommit_line *o = &p->oc[k];
		uint64_t got;

		if (!o->written)
			continue;
		if (rm_hugepages_set_overcommit(p->hp, o->size, o->before, &got, &umsg) < 0) {
			add_msg(errmsg, xasprintf("undoing the overcommit failed: %s", umsg));
			free(umsg);
			umsg = NULL;
			rc = -1;
			continue;
		}
		o->written = false;
	}
	if (rm_hugepages_restore(p->hp, p->t, p->nt, &umsg) < 0) {
		add_msg(errmsg, xasprintf("undoing the pools failed: %s", umsg));
		free(umsg);
		rc = -1;
	}
	return rc;
}

/* A step of line LINE failed with MSG: undo everything and say so, on one line. 0 when all was
 * undone, else -1. */
static int fail_undo(struct plan *p, unsigned line, char **msg)
{
	if (undo_all(p, msg) < 0) {
		rm_warnx("%s:%u: %s", p->conf.file, line, *msg);
		return -1;
	}
	rm_warnx("%s:%u: %s; everything done is undone", p->conf.file, line, *msg);
	return 0;
}

static void print_result(const struct rm_common *c, struct plan *p, bool planned)
{
	struct rm_outopts other = c->out;
	struct rm_hp_mount *mounts = NULL;
	struct rm_out *out;
	char *msg = NULL;
	long n = 0;

	out = rm_out_new(&c->out, "pages", size_cols, size_ncols, size_defaults, true);
	for (size_t i = 0; i < p->nt; i++) {
		struct rm_hp_counts cnt;

		if (!planned && hp_read_node(p->hp, p->t[i].size, p->t[i].node, &cnt,
						       &msg) == 0) {
			hp_print_size(out, p->hp, p->t[i].size, p->t[i].node, &cnt, 0);
		} else {
			free(msg);
			msg = NULL;
			hp_print_size(out, p->hp, p->t[i].size, p->t[i].node, NULL, p->t[i].want);
		}
	}
	rm_out_close(out);
	other.columns = NULL;
	if (p->noc) {
		out = rm_out_new(&other, "pools", pool_cols, pool_ncols, NULL, false);
		for (size_t k = 0; k < p->noc; k++) {
			struct rm_hp_counts g;

			if (rm_hugepages_read_pool(p->hp, p->oc[k].size, &g, &msg) < 0) {
				free(msg);
				msg = NULL;
				continue;
			}
			if (planned || !g.have_overcommit) {
				g.have_overcommit = true;
				g.overcommit = p->oc[k].want;
			}
			hp_print_pool(out, p->hp, p->oc[k].size, &g);
		}
		rm_out_close(out);
	}
	out = rm_out_new(&other, "mounts", mount_cols, mount_ncols, mount_defaults, false);
	if (p->nm && (n = rm_hugepages_mounts(NULL, p->hp->default_size, &mounts, &msg)) < 0) {
		free(msg);
		n = 0;
	}
	for (size_t k = 0; k < p->nm; k++) {
		const struct mount_req *r = &p->m[k].r;
		char *real = realpath(r->dir, NULL);
		const struct rm_hp_mount *m = real && (!planned || p->m[k].already)
			? rm_hugepages_mount_at(mounts, (size_t)n, real) : NULL;
		struct rm_hp_mount planned_m = {
			.dir = r->dir, .fstype = "hugetlbfs", .page_size = r->page_size,
			.uid = r->have_uid ? r->uid : 0, .gid = r->have_gid ? r->gid : 0,
			.mode = r->have_mode ? r->mode : 0755, .have_max = r->have_max,
			.max_size = r->max_size,
		};

		if (m) {
			hp_print_mount(out, &other, m);
		} else {
			planned_m.options = hp_mount_options(r);
			hp_print_mount(out, &other, &planned_m);
			free(planned_m.options);
		}
		free(real);
	}
	rm_out_close(out);
	if (p->nlm) {
		out = rm_out_new(&other, "limits", limit_cols, limit_ncols, NULL, false);
		for (size_t k = 0; k < p->nlm; k++) {
			const struct limit_line *l = &p->lm[k];
			char *dir = rm_hugetlb_path(&p->h, l->owner);
			struct rm_hugetlb_limit planned_l = {
				.limited = l->limited, .limit = l->bytes, .have_rsvd = true,
				.rsvd_limited = l->limited, .rsvd_limit = l->bytes,
			};

			if (planned || hp_print_owner(out, &other, &p->h, p->hp, l->owner, l->size,
						      &msg) < 0) {
				free(msg);
				msg = NULL;
				hp_print_limit(out, &other, l->owner, p->hp->sizes[l->size], &planned_l,
					       dir);
			}
			free(dir);
		}
		rm_out_close(out);
	}
	rm_out_flush();
	rm_hugepages_mounts_free(mounts, (size_t)n);
}

/* ---- the command: parse, plan, apply, commit, report ---- */

/* Refuse the file: P->err on one line, exit status 2 (nothing is changed yet). */
static int plan_usage(struct plan *p)
{
	rm_warnx("%s", p->conf.err);
	return RM_EXIT_USAGE;
}

/* Parse: read and check the whole file of A (the default one when none is named) into P, and
 * the owners of its limits. 0, or the exit status after a message. */
static int apply_read(const struct apply_args *a, struct plan *p)
{
	char *path = a->a.file ? xstrdup(a->a.file) : rm_conf_path("hugepages.conf"), *msg = NULL;
	int rc;

	rc = rm_conf_open(&p->conf, path);
	if (rc < 0)
		rm_warnx("cannot read %s: %s", path, strerror(errno));
	free(path);
	if (rc < 0)
		return RM_EXIT_USAGE;
	if (read_plan(p) < 0 && !p->conf.err) {
		rm_warnx("cannot read %s: %s", p->conf.file, strerror(errno));
		return RM_EXIT_FAILURE;
	}
	if (p->conf.err)
		return plan_usage(p);
	/* limits need the hugetlb controller, and an rm-cpuset owner where it shares cpuset's
	 * hierarchy */
	if (p->nlm) {
		if (rm_hugetlb_open(&p->h, &msg) < 0) {
			rm_warnx("%s:%u:%u: %s", p->conf.file, p->lm[0].line, p->lm[0].col, msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
		p->have_h = true;
		p->log = (struct rm_kernfs_log){ .flags = RM_HUGETLB_FILES };
		for (size_t k = 0; k < p->nlm; k++)
			if (rm_hugetlb_check(&p->h, p->lm[k].owner, &msg) < 0) {
				rm_conf_fail(&p->conf, p->lm[k].line, p->lm[k].col, msg);
				return plan_usage(p);
			}
	}
	return 0;
}

/* Plan, under the lock: the mounts there already (or another in the way), the pools and
 * overcommit values before, whether the pools fit. 0, or the exit status after a message. */
static int apply_plan(struct plan *p)
{
	char *msg = NULL;
	int rc;

	for (size_t k = 0; k < p->nm; k++) {
		rc = hp_mount_check(&p->m[k].r, p->hp->default_size, &msg);
		if (rc < 0) {
			rm_conf_fail(&p->conf, p->m[k].line, p->m[k].col, msg);
			return plan_usage(p);
		}
		p->m[k].already = rc == 1;
	}
	if (rm_hugepages_prepare(p->hp, p->t, p->nt, &msg) < 0) {
		rm_warnx("%s", msg);
		free(msg);
		return RM_EXIT_FAILURE;
	}
	for (size_t k = 0; k < p->noc; k++)
		if (rm_hugepages_read_overcommit(p->hp, p->oc[k].size, &p->oc[k].before, &msg) < 0) {
			rm_warnx("%s:%u: %s", p->conf.file, p->oc[k].line, msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
	if (rm_hugepages_check_memory(p->hp, p->t, p->nt, &msg)) {
		rm_warnx("%s: %s; nothing changed", p->conf.file, msg);
		free(msg);
		return RM_EXIT_NORESOURCE;
	}
	return 0;
}

/* Whether everything the plan writes is writable: 0, or 1 after saying what is not. */
static int apply_check_writable(struct plan *p)
{
	char *path = NULL;

	/* PATH says which is not writable, with errno */
	if (rm_hugepages_check_writable(p->hp, p->t, p->nt, &path) < 0)
		goto unwritable;
	for (size_t k = 0; k < p->noc; k++) {
		char *rel;

		if (p->oc[k].want == p->oc[k].before)
			continue;
		rel = rm_hugepages_node_file(p->hp, p->oc[k].size, SIZE_MAX,
					     "nr_overcommit_hugepages");
		path = rm_sysfs_path(p->hp->sysroot, rel);
		free(rel);
		if (access(path, W_OK) < 0)
			goto unwritable;
		free(path);
		path = NULL;
	}
	for (size_t k = 0; k < p->nm; k++)
		if (!p->m[k].already && geteuid() != 0) {
			errno = EPERM;
			goto unwritable;
		}
	if (p->nlm && access(p->h.mount, W_OK) < 0 && hp_permission_error(errno))
		goto unwritable;
	return 0;
unwritable:
	if (hp_permission_error(errno))
		rm_warnx("applying needs root");
	else
		rm_warnx("cannot write %s: %s", path, strerror(errno));
	free(path);
	return RM_EXIT_FAILURE;
}

/* Apply the plan: the pools with read-back, the overcommit values, the mounts, the limits; on a
 * failure everything done is undone and the message says so. 0, or the exit status. */
static int apply_changes(struct plan *p, bool no_compact)
{
	struct rm_hp_set_opts opts = { .retries = RM_HP_RETRIES, .compact = !no_compact };
	char *msg = NULL;
	int rc, status = 0;

	rc = rm_hugepages_set(p->hp, p->t, p->nt, &opts, &msg);
	if (rc == RM_HP_SET_SHORT) {
		rm_warnx("%s: %s; every pool is back to its previous count", p->conf.file, msg);
		free(msg);
		return RM_EXIT_NORESOURCE;
	} else if (rc < 0) {
		bool undone = true;

		for (size_t i = 0; i < p->nt; i++)
			undone &= !p->t[i].written;
		rm_warnx("%s: %s%s", p->conf.file, msg,
			 undone ? "; every pool is back to its previous count" : "");
		free(msg);
		return RM_EXIT_FAILURE;
	}
	for (size_t k = 0; k < p->noc && !status; k++) {
		uint64_t got;

		if (p->oc[k].want == p->oc[k].before)
			continue;
		rc = rm_hugepages_set_overcommit(p->hp, p->oc[k].size, p->oc[k].want, &got, &msg);
		/* the value before not put back: undone with the rest, or said */
		p->oc[k].written = rc < 0 && got != p->oc[k].before;
		if (rc < 0) {
			if (rc == -2) {
				/* the kernel's word on a size found not gigantic */
				char *ks = rm_hugepages_kernel_size(p->hp->sizes[p->oc[k].size]);

				free(msg);
				msg = hp_gigantic_msg(p->hp, p->oc[k].size, ks);
				free(ks);
			}
			/* refused input with nothing left changed is a usage error */
			status = fail_undo(p, p->oc[k].line, &msg) == 0 && rc == -2 ? RM_EXIT_USAGE
										 : RM_EXIT_FAILURE;
			break;
		}
		p->oc[k].written = true;
	}
	for (size_t k = 0; k < p->nm && !status; k++) {
		if (p->m[k].already)
			continue;
		if (hp_mount(&p->m[k].r, &p->m[k].made, &msg) < 0) {
			fail_undo(p, p->m[k].line, &msg);
			status = RM_EXIT_FAILURE;
			break;
		}
		p->m[k].mounted = true;
	}
	for (size_t k = 0; k < p->nlm && !status; k++) {
		const struct limit_line *l = &p->lm[k];

		if (rm_hugetlb_set_logged(&p->h, l->owner, p->hp->sizes[l->size], l->limited,
					  l->bytes, &p->log, &msg) < 0) {
			fail_undo(p, l->line, &msg);
			status = RM_EXIT_FAILURE;
		}
	}
	free(msg);
	return status;
}

/* Commit: mark the change when the run changed anything. */
static void apply_commit(const struct plan *p)
{
	bool changed = p->log.n > 0;

	for (size_t i = 0; i < p->nt; i++)
		changed |= p->t[i].got != p->t[i].before;
	for (size_t k = 0; k < p->noc; k++)
		changed |= p->oc[k].written;
	for (size_t k = 0; k < p->nm; k++)
		changed |= p->m[k].mounted;
	if (changed)
		rm_committed("applied %s", p->conf.file);
}

int cmd_apply(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		apply_options, apply_parse, "[FILE]",
		"Make the huge page pools, overcommit values, hugetlbfs mounts and hugetlb cgroup "
		"limits match FILE (default $RM_CONFIG_DIR/hugepages.conf, "
		"/etc/rmtools/hugepages.conf; - reads standard input; the format is in "
		"rm-hugepages.conf(5)), all or nothing: the whole file is checked first, then the "
		"pools are set with read-back, the overcommit values written and read back, the "
		"mounts made and the limits set; on a failure everything done is undone. What the "
		"file does not name is left as it is.",
		NULL, NULL, NULL
	};
	struct apply_args a = { 0 };
	struct rm_hugepages hp;
	struct plan p = { .hp = &hp };
	const char *root;
	int status, lock = -1;

	/* parse and check everything, -o and the whole file included, before the lock */
	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, size_cols, size_ncols, size_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, size_cols, size_ncols, size_defaults);
	root = hp_sysroot(c);
	hp_open(&hp, root);
	status = apply_read(&a, &p);
	/* changes of this machine are serialised (limits too: the cgroups are this machine's) */
	if (!status && !a.a.dry_run && (!root || p.nlm))
		lock = hp_lock();
	if (!status)
		status = apply_plan(&p);
	if (!status && a.a.dry_run) {
		print_result(c, &p, true);
	} else if (!status && !(status = apply_check_writable(&p)) &&
		   !(status = apply_changes(&p, a.no_compact))) {
		apply_commit(&p);
		print_result(c, &p, false);
	}
	hp_unlock(lock);
	plan_free(&p);
	rm_hugepages_close(&hp);
	return status;
}
