/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages apply: make the pools and mounts match hugepages.conf(5), all or nothing. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "exitcodes.h"
#include "record.h"
#include "rm-hugepages.h"
#include "size.h"
#include "xalloc.h"

enum { OPT_DRY_RUN = 0x200, OPT_NO_COMPACT };

static const struct argp_option apply_options[] = {
	{ "no-compact", OPT_NO_COMPACT, NULL, 0, "do not compact memory before retrying", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "check the file, print what it would set, change "
	  "nothing", 0 },
	{ 0 }
};

struct apply_args {
	struct rm_common *c;
	const char *file;
	bool dry_run, no_compact;
};

static error_t apply_parse(int key, char *arg, struct argp_state *state)
{
	struct apply_args *a = state->input;

	switch (key) {
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_NO_COMPACT:
		a->no_compact = true;
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->file = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- the file ---- */

struct tok {
	char *text;
	unsigned col; /* 1-based */
};

#define MAX_TOKENS 16

/* Split LINE in place at blanks, up to a '#' that starts a word. Returns the count, or -1 when
 * the line has too many words. */
static int tokenize(char *line, struct tok *toks)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == MAX_TOKENS)
			return -1;
		toks[n].text = p;
		toks[n].col = (unsigned)(p - line) + 1;
		n++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

struct mount_line {
	unsigned line, col;
	struct mount_req r;
	bool already; /* the mount is there as asked */
	bool mounted, made;
};

struct plan {
	const char *file;
	struct rm_hugepages *hp;
	struct rm_hp_target *t;
	unsigned *tline; /* the line of each target */
	size_t nt;
	struct mount_line *m;
	size_t nm;
	char *err;       /* "FILE:LINE:COL: message" */
};

static void plan_fail(struct plan *p, unsigned line, unsigned col, char *msg)
{
	if (!p->err)
		p->err = xasprintf("%s:%u:%u: %s", p->file, line, col, msg);
	free(msg);
}

static char *show(const char *s)
{
	return rm_record_show(s, strlen(s));
}

/* "key=value" of TOK: the key is cut off in place; *VALUE and its column. -1 when no '='. */
static int split_kv(struct tok *tok, char **value, unsigned *vcol)
{
	char *eq = strchr(tok->text, '=');

	if (!eq || eq == tok->text)
		return -1;
	*eq = '\0';
	*value = eq + 1;
	*vcol = tok->col + (unsigned)(eq + 1 - tok->text);
	return 0;
}

/* A line of pages: SIZE [node=SET] count=N|amount=AMOUNT [spread=yes|no]. */
static void page_line(struct plan *p, unsigned line, struct tok *toks, int n)
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
		return plan_fail(p, line, toks[0].col, msg);
	for (int i = 1; i < n; i++) {
		unsigned vcol;
		char *key;

		if (split_kv(&toks[i], &value, &vcol) < 0) {
			char *x = show(toks[i].text);

			plan_fail(p, line, toks[i].col, xasprintf("expected key=value: '%s'", x));
			free(x);
			return;
		}
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
			char *x = show(value);

			plan_fail(p, line, vcol, xasprintf("invalid spread (yes or no): '%s'", x));
			free(x);
			return;
		} else if (!strcmp(key, "node") || !strcmp(key, "count") || !strcmp(key, "amount")) {
			plan_fail(p, line, toks[i].col,
				  xasprintf("given twice: '%s'", strcmp(key, "node") ? "count or amount"
										  : key));
			return;
		} else {
			char *x = show(key);

			plan_fail(p, line, toks[i].col, xasprintf("unknown key: '%s' (node, count, "
								  "amount, spread)", x));
			free(x);
			return;
		}
	}
	if (!count)
		return plan_fail(p, line, toks[0].col, xasprintf("missing count= or amount=: '%s'",
								 toks[0].text));
	/* count= is a number of pages, amount= a size with its unit */
	if (count[0] != '+' && (is_amount == !count[strspn(count, "0123456789")])) {
		char *x = show(count);

		plan_fail(p, line, count_col,
			  xasprintf(is_amount ? "invalid amount (a size such as 8GiB): '%s'"
					      : "invalid count (a number of pages): '%s'", x));
		free(x);
		return;
	}
	if (rm_hugepages_parse_count(count, hp->sizes[size], &pages, &relative, &msg) < 0)
		return plan_fail(p, line, count_col, msg);
	if (relative)
		return plan_fail(p, line, count_col,
				 xasprintf("a configuration sets counts, it does not add: '%s'",
					   count));
	if ((nwhich = hp_nodes(hp, node, size, &which, &msg)) < 0)
		return plan_fail(p, line, node ? node_col : toks[0].col, msg);
	each = xcalloc((size_t)nwhich, sizeof(uint64_t));
	if (!node || spread)
		rm_hugepages_spread(pages, (size_t)nwhich, each);
	else
		for (long w = 0; w < nwhich; w++)
			each[w] = pages;
	for (long w = 0; w < nwhich && !p->err; w++) {
		for (size_t k = 0; k < p->nt; k++)
			if (p->t[k].size == size && p->t[k].node == which[w]) {
				char *ps = rm_size_format(hp->sizes[size]);

				plan_fail(p, line, node ? node_col : toks[0].col,
					  xasprintf("%s pages of node %u are set on line %u already",
						    ps, hp->nodes[which[w]].id, p->tline[k]));
				free(ps);
				break;
			}
		if (p->err)
			break;
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
static void mount_line(struct plan *p, unsigned line, struct tok *toks, int n)
{
	struct rm_hugepages *hp = p->hp;
	struct mount_req r = { 0 };
	const char *max = NULL;
	unsigned max_col = 0;
	char *msg = NULL, *value;
	bool have_size = false;
	size_t size;

	if (n < 2)
		return plan_fail(p, line, toks[0].col, xstrdup("missing the mount point: 'mount'"));
	if (toks[1].text[0] != '/' || strchr(toks[1].text, '=')) {
		char *x = show(toks[1].text);

		plan_fail(p, line, toks[1].col, xasprintf("not an absolute path: '%s'", x));
		free(x);
		return;
	}
	for (int i = 2; i < n; i++) {
		unsigned vcol;
		char *key;
		int rc = 0;

		if (split_kv(&toks[i], &value, &vcol) < 0) {
			char *x = show(toks[i].text);

			plan_fail(p, line, toks[i].col, xasprintf("expected key=value: '%s'", x));
			free(x);
			return;
		}
		key = toks[i].text;
		if ((!strcmp(key, "size") && have_size) || (!strcmp(key, "uid") && r.have_uid) ||
		    (!strcmp(key, "gid") && r.have_gid) || (!strcmp(key, "mode") && r.have_mode) ||
		    (!strcmp(key, "max_size") && max))
			return plan_fail(p, line, toks[i].col, xasprintf("given twice: '%s'", key));
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
			char *x = show(key);

			plan_fail(p, line, toks[i].col, xasprintf("unknown key: '%s' (size, uid, gid, "
								  "mode, max_size)", x));
			free(x);
			return;
		}
		if (rc < 0)
			return plan_fail(p, line, vcol, msg);
	}
	if (!have_size)
		return plan_fail(p, line, toks[0].col,
				 xasprintf("missing size=: '%s'", toks[1].text));
	if (max) {
		r.have_max = true;
		if (hp_parse_max_size(max, r.page_size, &r.max_size, &msg) < 0)
			return plan_fail(p, line, max_col, msg);
	}
	r.dir = xstrdup(toks[1].text);
	for (size_t len = strlen(r.dir); len > 1 && r.dir[len - 1] == '/';)
		r.dir[--len] = '\0';
	for (size_t k = 0; k < p->nm; k++)
		if (!strcmp(p->m[k].r.dir, r.dir)) {
			plan_fail(p, line, toks[1].col,
				  xasprintf("mounted on line %u already: '%s'", p->m[k].line, r.dir));
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

/* Read and check the whole file; -1 with P->err (or errno for a read error). */
static int read_plan(struct plan *p, FILE *f)
{
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	ssize_t len;

	while (!p->err && (len = getline(&buf, &cap, f)) >= 0) {
		struct tok toks[MAX_TOKENS];
		int n;

		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (strlen(buf) != (size_t)len) {
			plan_fail(p, line, (unsigned)strlen(buf) + 1, xstrdup("a NUL byte in the line"));
			break;
		}
		if ((n = tokenize(buf, toks)) < 0) {
			plan_fail(p, line, 1, xstrdup("too many words"));
			break;
		}
		if (n == 0)
			continue;
		if (!strcmp(toks[0].text, "mount"))
			mount_line(p, line, toks, n);
		else
			page_line(p, line, toks, n);
	}
	free(buf);
	if (!p->err && ferror(f))
		return -1;
	return p->err ? -1 : 0;
}

static void plan_free(struct plan *p)
{
	for (size_t k = 0; k < p->nm; k++)
		free(p->m[k].r.dir);
	free(p->m);
	free(p->t);
	free(p->tline);
	free(p->err);
}

/* Undo the mounts made by this run (newest first). */
static void undo_mounts(struct plan *p)
{
	for (size_t k = p->nm; k-- > 0;) {
		struct mount_line *m = &p->m[k];

		if (m->mounted && umount2(m->r.dir, 0) < 0)
			hp_msg("cannot unmount %s while undoing: %s", m->r.dir, strerror(errno));
		else if (m->made)
			rmdir(m->r.dir);
		m->mounted = m->made = false;
	}
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
	rm_out_flush();
	rm_hugepages_mounts_free(mounts, (size_t)n);
}

int cmd_apply(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		apply_options, apply_parse, "[FILE]",
		"Make the huge page pools and hugetlbfs mounts match FILE (default "
		"$RM_CONFIG_DIR/hugepages.conf, /etc/rmtools/hugepages.conf; - reads standard "
		"input; the format is in rm-hugepages.conf(5)), all or nothing: the whole file is "
		"checked first, then the pools are set with read-back and the mounts made; on a "
		"failure everything done is undone. Pools and mounts the file does not name are left "
		"as they are.",
		NULL, NULL, NULL
	};
	struct apply_args a = { .c = c };
	struct rm_hugepages hp;
	struct plan p = { 0 };
	const char *env = getenv("RM_CONFIG_DIR"), *root;
	char *file = NULL, *msg = NULL, *path = NULL;
	FILE *f;
	int status = RM_EXIT_SUCCESS, rc, lock = -1;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, size_cols, size_ncols, size_defaults);
		return RM_EXIT_SUCCESS;
	}
	root = hp_sysroot(c);
	hp_open(&hp, root);
	file = a.file ? xstrdup(a.file)
		      : env && *env ? xasprintf("%s/hugepages.conf", env) : xstrdup(HP_CONF);
	p.file = file;
	p.hp = &hp;
	if (!strcmp(file, "-")) {
		f = stdin;
		p.file = "(standard input)";
	} else if (!(f = fopen(file, "re"))) {
		hp_msg("cannot read %s: %s", file, strerror(errno));
		status = RM_EXIT_USAGE;
		goto out;
	}
	rc = read_plan(&p, f);
	if (f != stdin)
		fclose(f);
	if (rc < 0 && !p.err) {
		hp_msg("cannot read %s: %s", file, strerror(errno));
		status = RM_EXIT_FAILURE;
		goto out;
	}
	if (p.err)
		goto usage;
	if (!a.dry_run && !root)
		lock = hp_lock();
	/* the mounts as they are now: there already, or a different mount in the way */
	for (size_t k = 0; k < p.nm; k++) {
		rc = hp_mount_check(&p.m[k].r, hp.default_size, &msg);
		if (rc < 0) {
			plan_fail(&p, p.m[k].line, p.m[k].col, msg);
			msg = NULL;
			goto usage;
		}
		p.m[k].already = rc == 1;
	}
	if (rm_hugepages_prepare(&hp, p.t, p.nt, &msg) < 0) {
		hp_msg("%s", msg);
		status = RM_EXIT_FAILURE;
		goto out;
	}
	if (a.dry_run) {
		print_result(c, &p, true);
		goto out;
	}
	if (rm_hugepages_check_writable(&hp, p.t, p.nt, &path) < 0) {
		if (hp_permission_error(errno))
			hp_msg("applying needs root");
		else
			hp_msg("cannot write %s: %s", path, strerror(errno));
		status = RM_EXIT_FAILURE;
		goto out;
	}
	for (size_t k = 0; k < p.nm; k++)
		if (!p.m[k].already && geteuid() != 0) {
			hp_msg("applying needs root");
			status = RM_EXIT_FAILURE;
			goto out;
		}
	if (rm_hugepages_check_memory(&hp, p.t, p.nt, &msg)) {
		hp_msg("%s: %s; nothing changed", p.file, msg);
		status = RM_EXIT_NORESOURCE;
		goto out;
	}
	struct rm_hp_set_opts opts = { .retries = RM_HP_RETRIES, .compact = !a.no_compact };
	rc = rm_hugepages_set(&hp, p.t, p.nt, &opts, &msg);
	if (rc == RM_HP_SET_SHORT) {
		hp_msg("%s: %s; every pool is back to its previous count", p.file, msg);
		status = RM_EXIT_NORESOURCE;
		goto out;
	} else if (rc < 0) {
		hp_msg("%s: %s", p.file, msg);
		status = RM_EXIT_FAILURE;
		goto out;
	}
	for (size_t k = 0; k < p.nm; k++) {
		if (p.m[k].already)
			continue;
		if (hp_mount(&p.m[k].r, &p.m[k].made, &msg) < 0) {
			char *umsg = NULL;

			undo_mounts(&p);
			if (rm_hugepages_restore(&hp, p.t, p.nt, &umsg) < 0) {
				hp_msg("%s:%u: %s; undoing the pools failed: %s", p.file, p.m[k].line,
				       msg, umsg);
				free(umsg);
			} else {
				hp_msg("%s:%u: %s; everything done is undone", p.file, p.m[k].line,
				       msg);
			}
			status = RM_EXIT_FAILURE;
			goto out;
		}
		p.m[k].mounted = true;
	}
	print_result(c, &p, false);
	goto out;
usage:
	hp_msg("%s", p.err);
	status = RM_EXIT_USAGE;
out:
	hp_unlock(lock);
	plan_free(&p);
	free(msg);
	free(path);
	free(file);
	rm_hugepages_close(&hp);
	return status;
}
