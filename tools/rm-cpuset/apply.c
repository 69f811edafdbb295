/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset apply: bring the state to what cpuset.conf(5) describes, when there is such a file,
 * then make the cgroups and the owners' resctrl groups match the state. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conffile.h"
#include "exitcodes.h"
#include "hugetlb.h"
#include "record.h"
#include "rm-cpuset.h"
#include "xalloc.h"

/*
 * ---- the file ----
 *
 * A line is the options of a command (alloc for "owner NAME", reserve for "reserve") written as
 * key=value words. Its values are checked by the very parsers of those commands' options, so a
 * file accepts and refuses what the command line does; their messages are caught (argp writes
 * them to the parse's error stream) and located at the word they came from.
 */

/* The key of a word that names the command's operand rather than an option. */
#define RESERVE_CPUS "cpus"

struct conf_line {
	unsigned line;
	char *where;               /* "FILE:LINE:COL" of its name or first word, for messages */
	char *source;              /* "FILE:LINE", for the records */
	char *name;                /* the owner; NULL for the reservation */
	char digest[17];           /* of its settings, as the state's conf= field keeps it */
	char **argv;               /* the settings as options; the request points into them */
	int argc;
	struct alloc_req r;        /* an owner's request */
	struct reserve_req res;    /* the reservation's */
	bool todo;                 /* to be made by this run */
	bool existed;              /* the state has an owner of its name */
};

struct conf {
	struct rm_conf f;
	struct conf_line *owners;
	size_t n;
	struct conf_line *reserve; /* NULL when the file has no reserve line */
};

/* The parse of one line: the parsers of the command's options, its error stream, and where in
 * the line argp was when the first error was written. */
static struct {
	const struct argp *const *argps;
	size_t nargps;
	struct argp_option *options; /* theirs, together */
	FILE *err;
	char *errbuf;
	size_t errlen;
	int cur, bad;
} lp;

static error_t line_parser(int key, char *arg, struct argp_state *state)
{
	error_t rc = ARGP_ERR_UNKNOWN;

	if (key == ARGP_KEY_INIT)
		state->err_stream = lp.err;
	lp.cur = key == ARGP_KEY_END || key == ARGP_KEY_SUCCESS || key == ARGP_KEY_INIT ||
		 key == ARGP_KEY_FINI || key == ARGP_KEY_NO_ARGS ? 0 : state->next - 1;
	for (size_t i = 0; i < lp.nargps; i++) {
		error_t r = lp.argps[i]->parser(key, arg, state);

		if (r != ARGP_ERR_UNKNOWN) {
			rc = r;
			if (key != ARGP_KEY_INIT && key != ARGP_KEY_END)
				break;
		}
	}
	fflush(lp.err);
	if (lp.errlen && lp.bad < 0)
		lp.bad = lp.cur;
	return rc == ARGP_ERR_UNKNOWN && (key == ARGP_KEY_INIT || key == ARGP_KEY_END) ? 0 : rc;
}

static void lp_begin(const struct argp *const *argps, size_t n)
{
	size_t k = 0;

	lp.argps = argps;
	lp.nargps = n;
	for (size_t i = 0; i < n; i++)
		for (const struct argp_option *o = argps[i]->options; o && o->name; o++)
			k++;
	lp.options = xcalloc(k + 1, sizeof(*lp.options));
	k = 0;
	for (size_t i = 0; i < n; i++)
		for (const struct argp_option *o = argps[i]->options; o && o->name; o++)
			lp.options[k++] = *o;
}

static void lp_end(void)
{
	free(lp.options);
	lp.options = NULL;
}

static const struct argp_option *lp_option(const char *name)
{
	for (const struct argp_option *o = lp.options; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static bool is_refused(const char *key, const char *const *refused)
{
	for (; *refused; refused++)
		if (!strcmp(key, *refused))
			return true;
	return false;
}

/* Words W (after the line's command and name) as options in L->argv, checked by the command's
 * parsers (lp_begin) into INPUT; REFUSED: keys that may not be set here. 0, or -1 with the
 * error recorded in C, at the word it is about or at LINE_COL. */
static int line_options(struct rm_conf *c, struct conf_line *l, struct rm_conf_word *w, int n,
			void *input, const char *const *refused, unsigned line_col)
{
	static const struct argp argp = { NULL, line_parser, NULL, NULL, NULL, NULL, NULL };
	unsigned *cols = xcalloc((size_t)n + 3, sizeof(*cols));
	const char *operand = NULL;
	unsigned operand_col = 0;
	struct argp wrapped = argp;
	int rc = 0;

	rm_conf_digest(w, n, l->digest);
	l->argv = xcalloc((size_t)n + 4, sizeof(*l->argv));
	l->argv[l->argc++] = xstrdup("rm-cpuset");
	for (int i = 0; i < n; i++) {
		const struct argp_option *o = NULL;
		char *value;
		unsigned vcol;

		if (rm_conf_split(&w[i], &value, &vcol) < 0) {
			rm_conf_fail_shown(c, w[i].col, "expected key=value: '%s'", w[i].text);
			rc = -1;
			break;
		}
		if (!l->name && !strcmp(w[i].text, RESERVE_CPUS)) {
			operand = value;
			operand_col = vcol;
		} else if (!(o = lp_option(w[i].text)) || is_refused(w[i].text, refused)) {
			rm_conf_fail_shown(c, w[i].col, "unknown setting: '%s' (rm-cpuset.conf(5))",
					   w[i].text);
			rc = -1;
			break;
		}
		/* the keys of the earlier words, cut off by rm_conf_split; hugepages= repeats */
		for (int k = 0; k < i && strcmp(w[i].text, "hugepages"); k++)
			if (!strcmp(w[k].text, w[i].text)) {
				rm_conf_fail_shown(c, w[i].col, "given twice: '%s'", w[i].text);
				rc = -1;
				break;
			}
		if (rc)
			break;
		if (!o)
			continue; /* cpus=: reserve's operand, after the options */
		if (!o->arg) {
			if (strcmp(value, "yes") && strcmp(value, "no")) {
				rm_conf_fail(c, 0, vcol, xasprintf("invalid %s (yes or no): '%s'",
								   o->name, value));
				rc = -1;
				break;
			}
			if (!strcmp(value, "no"))
				continue;
			l->argv[l->argc] = xasprintf("--%s", o->name);
		} else {
			l->argv[l->argc] = xasprintf("--%s=%s", o->name, value);
		}
		cols[l->argc++] = o->arg ? vcol : w[i].col;
	}
	if (!rc && operand) {
		l->argv[l->argc++] = xstrdup("--");
		cols[l->argc] = operand_col;
		l->argv[l->argc++] = xstrdup(operand);
	}
	if (!rc) {
		wrapped.options = lp.options;
		lp.errbuf = NULL;
		lp.errlen = 0;
		lp.bad = -1;
		if (!(lp.err = open_memstream(&lp.errbuf, &lp.errlen)))
			rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
		argp_parse(&wrapped, l->argc, l->argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, input);
		fclose(lp.err);
		if (lp.errlen) {
			/* "rm-cpuset: MESSAGE\nTry ...": the message */
			char *msg = lp.errbuf + strlen("rm-cpuset: ");

			msg[strcspn(msg, "\n")] = '\0';
			rm_conf_fail(c, 0, lp.bad > 0 ? cols[lp.bad] : line_col,
				     xstrdup(msg));
			rc = -1;
		}
		free(lp.errbuf);
	}
	free(cols);
	return rc;
}

static const char *const owner_refused[] = { "owner", NULL };
static const char *const reserve_refused[] = { NULL };

static void line_at(struct conf *cf, struct conf_line *l, unsigned col)
{
	memset(l, 0, sizeof(*l));
	l->line = cf->f.line;
	l->where = xasprintf("%s:%u:%u", cf->f.file, cf->f.line, col);
	l->source = xasprintf("%s:%u", cf->f.file, cf->f.line);
}

/* owner NAME count=N [key=value...]: the options of alloc. */
static void owner_line(struct conf *cf, struct rm_conf_word *w, int n)
{
	static const struct argp *const argps[] = { &alloc_argp, &alloc_memory_argp };
	struct conf_line *l;

	if (n < 2 || strchr(w[1].text, '='))
		return rm_conf_fail(&cf->f, 0, w[0].col, xstrdup("missing the owner's name"));
	for (size_t i = 0; i < cf->n; i++)
		if (!strcmp(cf->owners[i].name, w[1].text))
			return rm_conf_fail_shown(&cf->f, w[1].col, "owner '%s' is set on an earlier "
						  "line already", w[1].text);
	cf->owners = xrealloc(cf->owners, (cf->n + 1) * sizeof(*cf->owners));
	l = &cf->owners[cf->n++];
	line_at(cf, l, w[1].col);
	l->name = xstrdup(w[1].text);
	rm_msg_where(l->where);
	alloc_check_owner(NULL, l->name);
	rm_msg_where(NULL);
	lp_begin(argps, 2);
	if (line_options(&cf->f, l, w + 2, n - 2, &l->r, owner_refused, w[0].col) == 0) {
		l->r.owner = l->name;
		if (!l->r.count)
			rm_conf_fail(&cf->f, 0, w[1].col, xstrdup("missing count="));
		else if (l->r.near && !strcmp(l->r.near, "-"))
			rm_conf_fail(&cf->f, 0, w[1].col,
				     xstrdup("near=- reads standard input: name the device"));
	}
	lp_end();
}

/* reserve cpus=SET|count=N [strict=yes] [memory=NODE:SIZE,...]: the options of reserve. */
static void reserve_line(struct conf *cf, struct rm_conf_word *w, int n)
{
	static const struct argp *const argps[] = { &reserve_argp };
	struct conf_line *l;

	if (cf->reserve)
		return rm_conf_fail(&cf->f, 0, w[0].col,
				    xasprintf("the reservation is set on line %u already",
					      cf->reserve->line));
	l = cf->reserve = xmalloc(sizeof(*l));
	line_at(cf, l, w[0].col);
	lp_begin(argps, 1);
	if (line_options(&cf->f, l, w + 1, n - 1, &l->res, reserve_refused, w[0].col) == 0 &&
	    !!l->res.set + l->res.have_count != 1)
		rm_conf_fail(&cf->f, 0, w[0].col, xstrdup("give either " RESERVE_CPUS "= or count="));
	lp_end();
}

static void conf_free(struct conf *cf)
{
	struct conf_line *all[2] = { cf->owners, cf->reserve };
	size_t counts[2] = { cf->n, cf->reserve ? 1 : 0 };

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < counts[k]; i++) {
			struct conf_line *l = &all[k][i];

			if (l->name)
				alloc_req_free(&l->r);
			else
				reserve_req_free(&l->res);
			for (int a = 0; a < l->argc; a++)
				free(l->argv[a]);
			free(l->argv);
			free(l->where);
			free(l->source);
			free(l->name);
		}
	free(cf->owners);
	free(cf->reserve);
	rm_conf_close(&cf->f);
}

/* Read and check the whole file at PATH against the machine T, before any lock; exits 2 with
 * FILE:LINE:COLUMN on bad input, 1 when it cannot be read. */
static void conf_read(struct conf *cf, const char *path, const struct rm_topo *t)
{
	struct rm_conf_word w[RM_CONF_MAX_WORDS];
	int n;

	if (rm_conf_open(&cf->f, path) < 0)
		rm_usage_errx("cannot read %s: %s", path, strerror(errno));
	while ((n = rm_conf_next(&cf->f, w)) > 0 && !cf->f.err) {
		if (!strcmp(w[0].text, "owner"))
			owner_line(cf, w, n);
		else if (!strcmp(w[0].text, "reserve"))
			reserve_line(cf, w, n);
		else
			rm_conf_fail_shown(&cf->f, w[0].col, "unknown setting: '%s' (owner or "
					   "reserve)", w[0].text);
	}
	if (cf->f.err)
		rm_usage_errx("%s", cf->f.err);
	if (n < 0)
		rm_err(RM_EXIT_FAILURE, "cannot read %s", cf->f.file);
	/* what needs the machine: memory and huge page sizes, nodes */
	for (size_t i = 0; i < cf->n; i++) {
		rm_msg_where(cf->owners[i].where);
		alloc_memory_check(t, &cf->owners[i].r);
	}
	if (cf->reserve) {
		rm_msg_where(cf->reserve->where);
		reserve_check(&cf->reserve->res, t);
	}
	rm_msg_where(NULL);
}

/* ---- converging the state ---- */

enum { CONF_SOURCE, CONF_SETTING, CONF_NAME, CONF_CPUS, CONF_ACTION };
static const struct rm_column conf_cols[] = {
	[CONF_SOURCE] = { "source", RM_COL_STRING, "the line of the file: FILE:LINE, - for an "
			  "owner the file no longer has" },
	[CONF_SETTING] = { "setting", RM_COL_STRING, "owner or reserve" },
	[CONF_NAME] = { "name", RM_COL_STRING, "the owner" },
	[CONF_CPUS] = { "cpus", RM_COL_SET, "its CPUs once applied (the reserved CPUs)" },
	[CONF_ACTION] = { "action", RM_COL_STRING, "keep, allocate, reallocate, release, set or "
			  "remove" },
};

/* What converging did, one entry per line of the file and per owner it no longer has. */
struct conf_done {
	const struct conf_line *l; /* NULL: an owner the file no longer has */
	char *name;                /* the owner, NULL for the reservation */
	const char *action;
};

static void done_add(struct conf_done **d, size_t *n, const struct conf_line *l,
		     const char *name, const char *action)
{
	*d = xrealloc(*d, (*n + 1) * sizeof(**d));
	(*d)[(*n)++] = (struct conf_done){ l, name ? xstrdup(name) : NULL, action };
}

static long reserved_index(const struct pool *p)
{
	for (size_t i = 0; i < p->st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p->st.records[i]), "reserved"))
			return (long)i;
	return -1;
}

/*
 * Bring P's records to the file CF: an owner of the file that the state has with the same
 * settings (conf= digest) is kept; one whose settings changed, or an owner made by hand under a
 * name the file gives, is allocated again; one the file made and no longer has is released.
 * A changed reservation allocates every owner of the file again. Owners made by hand under
 * other names stay as they are. Exits 2 or 3 with the line's place when something cannot be
 * made; nothing is committed here.
 */
static void converge(struct pool *p, struct conf *cf, struct conf_done **done, size_t *ndone)
{
	long ri = reserved_index(p);
	const char *rconf = ri >= 0 ? rm_record_get(&p->st.records[ri], "conf") : NULL;
	bool reserve_change = cf->reserve ? !rconf || strcmp(rconf, cf->reserve->digest) : !!rconf;
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();

	for (size_t i = 0; i < cf->n; i++)
		cf->owners[i].todo = true;
	for (size_t i = p->st.nrecords; i-- > 0;) {
		const struct rm_record *r = &p->st.records[i];
		const char *name = rm_record_get(r, "owner"), *c = rm_record_get(r, "conf");
		struct conf_line *l = NULL;

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		for (size_t k = 0; k < cf->n && !l; k++)
			if (!strcmp(cf->owners[k].name, name))
				l = &cf->owners[k];
		if (l && !reserve_change && c && !strcmp(c, l->digest)) {
			l->todo = false;
			done_add(done, ndone, l, name, "keep");
		} else if (l || c) {
			if (!l)
				done_add(done, ndone, NULL, name, "release");
			else
				l->existed = true;
			pool_remove(p, i);
		}
	}
	if (reserve_change && cf->reserve) {
		rm_msg_where(cf->reserve->where);
		reserve_choose(p, &cf->reserve->res);
		rm_record_set(&p->st.records[reserved_index(p)], "conf", cf->reserve->digest);
		done_add(done, ndone, cf->reserve, NULL, "set");
	} else if (reserve_change) {
		pool_set_reserved_all(p, cpus, false, NULL);
		done_add(done, ndone, NULL, NULL, "remove");
	} else if (cf->reserve) {
		done_add(done, ndone, cf->reserve, NULL, "keep");
	}
	for (size_t k = 0; k < cf->n; k++) {
		struct conf_line *l = &cf->owners[k];
		size_t idx;

		if (!l->todo)
			continue;
		rm_msg_where(l->where);
		idx = alloc_plan(p, &l->r, cpus);
		rm_record_set(&p->st.records[idx], "conf", l->digest);
		done_add(done, ndone, l, l->name, l->existed ? "reallocate" : "allocate");
	}
	rm_msg_where(NULL);
	hwloc_bitmap_free(cpus);
}

/* Owners released first, then the file's lines in order. */
static int done_cmp(const void *a, const void *b)
{
	const struct conf_done *x = a, *y = b;
	unsigned lx = x->l ? x->l->line : 0, ly = y->l ? y->l->line : 0;

	return lx < ly ? -1 : lx > ly;
}

static void conf_print(const struct rm_common *c, struct pool *p, struct conf_done *d, size_t n)
{
	struct rm_outopts opts = c->out;
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	struct rm_out *out;

	opts.columns = NULL; /* -o is for the cgroup records */
	qsort(d, n, sizeof(*d), done_cmp);
	out = rm_out_new(&opts, "settings", conf_cols, ARRAY_SIZE(conf_cols), NULL, false);
	for (size_t i = 0; i < n; i++) {
		long k = d[i].name ? pool_find(p, d[i].name) : -1;

		if (d[i].name && k >= 0)
			pool_owner_cpus(&p->st.records[k], cpus);
		else if (d[i].name)
			hwloc_bitmap_zero(cpus);
		else
			hwloc_bitmap_copy(cpus, p->reserved);
		rm_out_begin(out);
		rm_out_str(out, CONF_SOURCE, d[i].l ? d[i].l->source : NULL);
		rm_out_str(out, CONF_SETTING, d[i].name ? "owner" : "reserve");
		rm_out_str(out, CONF_NAME, d[i].name);
		rm_out_set(out, CONF_CPUS, hwloc_bitmap_iszero(cpus) ? NULL : cpus);
		rm_out_str(out, CONF_ACTION, d[i].action);
		rm_out_end(out);
		free(d[i].name);
	}
	rm_out_close(out);
	free(d);
	hwloc_bitmap_free(cpus);
}


/* ---- the cgroups and resctrl groups ---- */

enum { APPLY_CGROUP, APPLY_CPUS, APPLY_MEMS, APPLY_ACTION, APPLY_PATH };
static const struct rm_column apply_cols[] = {
	[APPLY_CGROUP] = { "cgroup", RM_COL_STRING, "the child of the rmtools parent (an owner, or shared)" },
	[APPLY_CPUS] = { "cpus", RM_COL_SET, "its cpuset.cpus as the state wants it" },
	[APPLY_MEMS] = { "mems", RM_COL_SET, "its cpuset.mems as the state wants it" },
	[APPLY_ACTION] = { "action", RM_COL_STRING, "create, update, keep or remove" },
	[APPLY_PATH] = { "path", RM_COL_STRING, "its directory" },
};

enum { RG_GROUP, RG_OWNER, RG_CPUS, RG_ACTION, RG_PATH };
static const struct rm_column rgroup_cols[] = {
	[RG_GROUP] = { "group", RM_COL_STRING, "the resctrl group of an owner: rmtools.OWNER" },
	[RG_OWNER] = { "owner", RM_COL_STRING, "its owner" },
	[RG_CPUS] = { "cpus", RM_COL_SET, "its cpus_list as the state wants it" },
	[RG_ACTION] = { "action", RM_COL_STRING, "create, update, keep or remove" },
	[RG_PATH] = { "path", RM_COL_STRING, "its directory" },
};

static void rgroup_record(struct pool *p, struct rm_out *out, const char *name,
			  hwloc_const_bitmap_t cpus, const char *action)
{
	char *path = xasprintf("%s/%s", p->rc.root, name);

	rm_out_begin(out);
	rm_out_str(out, RG_GROUP, name);
	rm_out_str(out, RG_OWNER, name + strlen(RM_RESCTRL_PREFIX));
	rm_out_set(out, RG_CPUS, cpus);
	rm_out_str(out, RG_ACTION, action);
	rm_out_str(out, RG_PATH, path);
	rm_out_end(out);
	free(path);
}

static void apply_record(struct pool *p, struct rm_out *out, const char *name,
			 const struct rm_cgroup_want *w, const char *action)
{
	char *path = rm_cgroups_path(&p->cg, name);

	rm_out_begin(out);
	rm_out_str(out, APPLY_CGROUP, name);
	rm_out_set(out, APPLY_CPUS, w ? w->cpus : NULL);
	rm_out_set(out, APPLY_MEMS, w ? w->mems : NULL);
	rm_out_str(out, APPLY_ACTION, action);
	rm_out_str(out, APPLY_PATH, path);
	rm_out_end(out);
	free(path);
}

/* Whether a cgroup's cpuset.cpus HAVE is what wanting CPUS writes there. */
static bool cpus_as_written(const struct rm_cgroups *cg, hwloc_const_bitmap_t have,
			    hwloc_const_bitmap_t cpus)
{
	hwloc_bitmap_t written = hwloc_bitmap_alloc();
	bool same;

	rm_cgroups_cpus_written(cg, cpus, written);
	same = hwloc_bitmap_isequal(have, written);
	hwloc_bitmap_free(written);
	return same;
}

/* After the commit: every owner's memory, huge page and pids limits as its record keeps them (a
 * cgroup made again after a reboot has none). Exits 1 saying what stands on a failure. */
static void apply_memory_limits(struct pool *p)
{
	struct rm_kernfs_log log = { .flags = RM_HUGETLB_FILES };
	char *msg = NULL;

	for (size_t i = 0; i < p->st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p->st.records[i]), "owner") &&
		    (owner_memory_limits(p, &p->st.records[i], &log, &msg) < 0 ||
		     owner_limits_put(p, &p->st.records[i], 0, &log, &msg) < 0))
			rm_errx(RM_EXIT_FAILURE, "the memory limits of '%s': %s",
				rm_record_get(&p->st.records[i], "owner"), msg);
	rm_kernfs_log_free(&log);
}

int cmd_apply(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would change, change nothing", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_apply_parse, "[FILE]",
		"Bring the reservation and the owners to FILE (default $RM_CONFIG_DIR/cpuset.conf, "
		"/etc/rmtools/cpuset.conf, when it exists; - reads standard input; the format is in "
		"rm-cpuset.conf(5)), then make the cgroups below the rmtools parent, and the owners' "
		"resctrl groups, match the state (after a reboot, or when someone changed them). "
		"The whole file is checked before anything changes. Prints one record per line of "
		"the file with what was done, then one per cgroup, then one per resctrl group.",
		NULL, NULL, NULL
	};
	struct rm_apply_args a = { 0 };
	struct conf cf = { 0 };
	struct conf_done *done = NULL;
	size_t ndone = 0;
	char *path;
	struct rm_topo *t;
	bool have_conf;
	hwloc_bitmap_t cpus, mems;
	struct rm_cgroup_want *want = NULL;
	struct rm_resctrl_want *rwant = NULL;
	bool dry_run = false, isolated;
	char **names = NULL, *msg = NULL, **removed = NULL;
	const char **actions = NULL, **ractions = NULL;
	struct rm_out *out;
	struct pool p;
	size_t n = 0, i, nr = 0, nremoved = 0;
	int nnames = 0, k, rc;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	dry_run = a.dry_run;
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, apply_cols, ARRAY_SIZE(apply_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, apply_cols, ARRAY_SIZE(apply_cols), NULL);
	t = rm_topo_load(c, 0);
	/* the file, checked whole before the lock; without one, the state as it is */
	path = a.file ? xstrdup(a.file) : rm_conf_path("cpuset.conf");
	have_conf = a.file || access(path, F_OK) == 0;
	if (have_conf)
		conf_read(&cf, path, t);
	free(path);
	pool_open_topo(&p, c, (dry_run ? 0 : POOL_WRITE) | POOL_NEED_CGROUPS, t);
	if (have_conf)
		converge(&p, &cf, &done, &ndone);
	cpus = hwloc_bitmap_alloc();
	mems = hwloc_bitmap_alloc();
	if (p.resctrl && !p.have_resctrl) {
		for (i = 0; i < p.st.nrecords; i++)
			if (!strcmp(rm_record_kind(&p.st.records[i]), "owner") &&
			    pool_owner_has_resctrl(&p.st.records[i]))
				rm_errx(RM_EXIT_FAILURE, "owners have L3 ways or memory bandwidth, but %s; "
				     "nothing was changed", p.resctrl_err ? p.resctrl_err :
				     "resctrl is not mounted ('rm-cpuset mount-resctrl' first)");
	}
	if (!p.have_cgroups && !p.have_resctrl)
		rm_usage_errx("no cgroups are kept for this topology (--topology, --sysroot or "
			      "--no-cgroups)");
	if (p.have_resctrl) {
		nr = pool_resctrl_wants(&p, p.st.records, p.st.nrecords, &rwant);
		ractions = xcalloc(nr, sizeof(*ractions));
		if ((rc = rm_resctrl_plan(&p.rc, rwant, nr, ractions, &removed, &nremoved, &msg)))
			rm_errx(rc, "%s; nothing was changed", msg);
	}
	if (p.have_cgroups) {
		n = pool_wants(&p, p.st.records, p.st.nrecords, &want);
		if ((nnames = rm_cgroups_children(&p.cg, &names, &msg)) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
	}
	actions = xcalloc(n, sizeof(*actions));
	for (i = 0; i < n; i++) {
		if ((rc = rm_cgroups_read(&p.cg, want[i].name, cpus, mems, &isolated, &msg)) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
		actions[i] = rc == 0 ? "create" :
			     cpus_as_written(&p.cg, cpus, want[i].cpus) &&
			     hwloc_bitmap_isequal(mems, want[i].mems) &&
			     isolated == want[i].isolate ? "keep" : "update";
	}
	if (!dry_run) {
		pool_commit(&p);
		if (have_conf)
			rm_committed("applied %s and made the cgroups%s match the state",
				     cf.f.file, p.have_resctrl ? " and resctrl groups" : "");
		else
			rm_committed("made the cgroups%s match the state",
				     p.have_resctrl ? " and resctrl groups" : "");
		apply_memory_limits(&p);
	}
	if (have_conf)
		conf_print(c, &p, done, ndone);
	out = rm_out_new(&c->out, "cgroups", apply_cols, ARRAY_SIZE(apply_cols), NULL, true);
	for (i = 0; i < n; i++)
		apply_record(&p, out, want[i].name, &want[i], actions[i]);
	for (k = 0; k < nnames; k++) {
		for (i = 0; i < n && strcmp(names[k], want[i].name); i++)
			;
		if (i == n)
			apply_record(&p, out, names[k], NULL, "remove");
		free(names[k]);
	}
	free(names);
	free(actions);
	rm_out_close(out);
	if (p.have_resctrl) {
		struct rm_outopts opts = c->out;

		opts.columns = NULL; /* -o is for the cgroup records */
		out = rm_out_new(&opts, "resctrl_groups", rgroup_cols, ARRAY_SIZE(rgroup_cols),
				 NULL, false);
		for (i = 0; i < nr; i++)
			rgroup_record(&p, out, rwant[i].name, rwant[i].cpus, ractions[i]);
		for (i = 0; i < nremoved; i++) {
			rgroup_record(&p, out, removed[i], NULL, "remove");
			free(removed[i]);
		}
		rm_out_close(out);
	}
	rm_out_flush();
	free(removed);
	free(ractions);
	pool_resctrl_wants_free(rwant, nr);
	if (want)
		pool_wants_free(want, n);
	pool_close(&p);
	if (have_conf)
		conf_free(&cf);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(mems);
	return RM_EXIT_SUCCESS;
}
