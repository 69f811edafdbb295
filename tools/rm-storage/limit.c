/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-storage limit, show, release, apply, gc: owners' disk I/O limits, recorded in the state. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "iolimit.h"
#include "owner.h"
#include "record.h"
#include "rm-storage.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

enum { L_OWNER, L_DISK, L_DEVNO, L_RBPS, L_WBPS, L_RIOPS, L_WIOPS, L_WEIGHT, L_LATENCY,
       L_APPLIED, L_RBYTES, L_WBYTES, L_RIOS, L_WIOS, L_CGROUP };
static const struct rm_column limit_cols[] = {
	[L_OWNER] = { "limit", RM_COL_STRING, "the owner's name" },
	[L_DISK] = { "disk", RM_COL_STRING, "the disk (a partition given is its disk)" },
	[L_DEVNO] = { "devno", RM_COL_STRING, "its MAJ:MIN" },
	[L_RBPS] = { "read_bps", RM_COL_STRING, "the most bytes read per second, or max" },
	[L_WBPS] = { "write_bps", RM_COL_STRING, "the most bytes written per second, or max" },
	[L_RIOPS] = { "read_iops", RM_COL_STRING, "the most reads per second, or max" },
	[L_WIOPS] = { "write_iops", RM_COL_STRING, "the most writes per second, or max" },
	[L_WEIGHT] = { "weight", RM_COL_STRING, "its proportional weight, or default" },
	[L_LATENCY] = { "latency_target", RM_COL_STRING,
			"the io.latency target in microseconds, or max" },
	[L_APPLIED] = { "applied", RM_COL_BOOL, "whether the cgroup holds these limits" },
	[L_RBYTES] = { "rbytes", RM_COL_SIZE, "bytes read so far (io.stat)" },
	[L_WBYTES] = { "wbytes", RM_COL_SIZE, "bytes written so far" },
	[L_RIOS] = { "rios", RM_COL_INT, "reads so far" },
	[L_WIOS] = { "wios", RM_COL_INT, "writes so far" },
	[L_CGROUP] = { "cgroup", RM_COL_STRING, "the owner's cgroup directory" },
};
static const char limit_defaults[] =
	"limit,disk,read_bps,write_bps,read_iops,write_iops,weight,latency_target,applied,"
	"rbytes,wbytes";

static long find_limit(const struct rm_state *st, const char *owner, const char *disk)
{
	for (size_t i = 0; i < st->nrecords; i++) {
		const struct rm_record *r = &st->records[i];

		if (!strcmp(rm_record_kind(r), "limit") && !strcmp(rm_record_get(r, "limit"), owner) &&
		    !strcmp(rm_record_get(r, "disk") ?: "", disk))
			return (long)i;
	}
	return -1;
}

static void out_num(struct rm_out *out, const struct rm_outopts *o, int col, uint64_t v,
		    bool size, const char *none)
{
	char *s;

	if (!v) {
		rm_out_str(out, col, none);
		return;
	}
	s = size && !o->bytes && o->mode != RM_OUT_JSON ? rm_size_format(v)
							 : xasprintf("%" PRIu64, v);
	rm_out_str(out, col, s);
	free(s);
}

/* One limit record: the limits L, and what the cgroup holds and counts when IO is not NULL. */
static void print_limit(struct rm_out *out, const struct rm_outopts *o, const struct rm_io *io,
			const char *owner, const char *disk, const char *devno,
			const struct rm_io_limit *l)
{
	rm_out_begin(out);
	rm_out_str(out, L_OWNER, owner);
	rm_out_str(out, L_DISK, disk);
	rm_out_str(out, L_DEVNO, devno);
	out_num(out, o, L_RBPS, l->rbps, true, "max");
	out_num(out, o, L_WBPS, l->wbps, true, "max");
	out_num(out, o, L_RIOPS, l->riops, false, "max");
	out_num(out, o, L_WIOPS, l->wiops, false, "max");
	out_num(out, o, L_WEIGHT, l->weight, false, "default");
	out_num(out, o, L_LATENCY, l->latency, false, "max");
	if (io) {
		struct rm_io_limit now;
		struct rm_io_stat stat;
		char *msg = NULL, *dir = rm_io_path(io, owner);
		int rc = rm_io_read(io, owner, devno, &now, &stat, &msg);

		free(msg);
		rm_out_bool(out, L_APPLIED, rc > 0 && st_limit_same(&now, l));
		if (rc > 0) {
			rm_out_size(out, L_RBYTES, stat.rbytes);
			rm_out_size(out, L_WBYTES, stat.wbytes);
			rm_out_int(out, L_RIOS, (long long)stat.rios);
			rm_out_int(out, L_WIOS, (long long)stat.wios);
			rm_out_str(out, L_CGROUP, dir);
		}
		free(dir);
	}
	rm_out_end(out);
}

/* ---- limit ---- */

struct limit_args {
	struct st_limit_args l;
	bool dry_run;
};

static error_t limit_parse(int key, char *arg, struct argp_state *state)
{
	struct limit_args *a = state->input;

	switch (key) {
	case ST_OPT_RBPS: case ST_OPT_WBPS: case ST_OPT_RIOPS: case ST_OPT_WIOPS: case ST_OPT_WEIGHT:
	case ST_OPT_LATENCY:
		a->l.val[key - ST_OPT_RBPS] = arg;
		break;
	case RM_OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->l.owner)
			a->l.owner = arg;
		else if (!a->l.device)
			a->l.device = arg;
		else
			argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void io_open(struct rm_io *io)
{
	char *msg = NULL;

	if (rm_io_open(io, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
}

/* Undo LG after the failure in *MSG, and add what stands: "; UNDONE" when all of it is undone,
 * else (after what could not be undone) "; NOT_UNDONE" when not NULL. UNDONE is freed. */
static void undo_said(struct rm_kernfs_log *lg, char **msg, char *undone, const char *not_undone)
{
	size_t len = strlen(*msg);
	bool any = lg->n > 0;
	char *m = NULL;

	rm_kernfs_undo(lg, msg);
	if (any && strlen(*msg) == len)
		m = xasprintf("%s; %s", *msg, undone);
	else if (any && not_undone)
		m = xasprintf("%s; %s", *msg, not_undone);
	if (m) {
		free(*msg);
		*msg = m;
	}
	free(undone);
}

int cmd_limit(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		st_limit_options, limit_parse, "OWNER DEVICE",
		"Limit the I/O of an owner's processes on a disk with the io cgroup (io.max, "
		"io.weight, io.latency; blkio.throttle.* on cgroup v1), in the owner's cgroup below "
		"the rmtools parent, which 'rm-cpuset run --owner OWNER' joins. Options not given "
		"keep their recorded value; max lifts one. A partition is limited as its disk.",
		NULL, NULL, NULL
	};
	struct limit_args a = { 0 };
	struct rm_io_limit want = { 0 }, given_l;
	struct rm_kernfs_log lg = { .flags = RM_IO_FILES };
	struct rm_state st;
	struct rm_io io;
	struct rm_out *out;
	uint64_t w = 0, gw;
	bool given = false;
	char *name, *devno, *msg = NULL;
	long i;
	int rc, at;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, limit_cols, ARRAY_SIZE(limit_cols), limit_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, limit_cols, ARRAY_SIZE(limit_cols), limit_defaults);
	if (!a.l.device)
		rm_usage_errx("limit: give OWNER and DEVICE");
	if (st_limit_parse(&a.l, &given_l, &at, &msg) < 0)
		rm_usage_errx("%s", msg);
	for (size_t k = 0; k < ST_NLIMITS; k++)
		given |= a.l.val[k] != NULL;
	if (!given)
		rm_usage_errx("limit: give at least one of --read-bps, --write-bps, --read-iops, "
			      "--write-iops, --weight, --latency-target");
	st_live_only(c, "limit");
	if (st_disk(NULL, a.l.device, &name, &devno, &msg) < 0)
		rm_usage_errx("%s", msg);
	io_open(&io);
	if (st_limit_check(&io, a.l.owner, &given_l, &at, &msg) < 0)
		rm_usage_errx("%s", msg);
	/* lock, plan: the recorded limits with the given ones over them */
	st_open(&st, a.dry_run ? RM_STATE_READ : RM_STATE_WRITE);
	if ((i = find_limit(&st, a.l.owner, name)) >= 0)
		st_rec_limit(&st.records[i], &want);
	w = want.weight;
	gw = given_l.weight;
	for (size_t k = 0; k < ST_NLIMITS; k++)
		if (a.l.val[k])
			*st_limit_field(&want, k, &w) = *st_limit_field(&given_l, k, &gw);
	want.weight = (unsigned)w;
	out = rm_out_new(&c->out, "limits", limit_cols, ARRAY_SIZE(limit_cols), limit_defaults,
			 true);
	if (a.dry_run) {
		print_limit(out, &c->out, NULL, a.l.owner, name, devno, &want);
		goto done;
	}
	/* apply with undo, then commit */
	rc = rm_io_set_logged(&io, a.l.owner, devno, &want, &lg, &msg);
	if (rc < 0) {
		undo_said(&lg, &msg, xstrdup("everything done is undone"), NULL);
		rm_kernfs_log_free(&lg);
		rm_state_close(&st);
		rm_errx(rc == -2 ? RM_EXIT_USAGE : RM_EXIT_FAILURE, "%s", msg);
	}
	if (st_limit_none(&want)) {
		if (i >= 0)
			rm_state_remove(&st, (size_t)i);
	} else {
		struct rm_record r = { 0 };

		if (i < 0) {
			rm_record_set(&r, "limit", a.l.owner);
			rm_record_set(&r, "disk", name);
			rm_record_set(&r, "devno", devno);
			rm_state_add(&st, &r);
			i = (long)st.nrecords - 1;
		}
		rm_record_set(&st.records[i], "devno", devno);
		st_rec_set_limit(&st.records[i], &want);
		rm_record_unset(&st.records[i], "conf"); /* set by hand: no longer the file's */
	}
	if (rm_state_commit(&st) < 0) {
		msg = xasprintf("cannot write the state: %s", strerror(errno));
		undo_said(&lg, &msg, xstrdup("everything done is undone"), NULL);
		rm_kernfs_log_free(&lg);
		rm_state_close(&st);
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	}
	rm_committed("set the I/O limits of owner '%s' on disk '%s'", a.l.owner, name);
	print_limit(out, &c->out, &io, a.l.owner, name, devno, &want);
done:
	rm_kernfs_log_free(&lg);
	rm_state_close(&st);
	rm_out_close(out);
	rm_out_flush();
	rm_io_close(&io);
	free(name);
	free(devno);
	return RM_EXIT_SUCCESS;
}

/* ---- show ---- */

int cmd_show(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, rm_owners_parse, "[OWNER...]",
		"The recorded I/O limits of each owner (or those named) on each disk, whether its "
		"cgroup holds them, and what it has read and written (io.stat).",
		NULL, NULL, NULL
	};
	struct rm_owners o = { 0 };
	struct rm_state st;
	struct rm_io io;
	struct rm_out *out;
	char *msg = NULL;
	bool have_io;

	rm_parse_command(&argp, argc, argv, c, &o, 0);
	if (c->out.list_columns) {
		free(o.names);
		rm_out_list_columns(&c->out, limit_cols, ARRAY_SIZE(limit_cols), limit_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, limit_cols, ARRAY_SIZE(limit_cols), limit_defaults);
	for (int k = 0; k < o.n; k++)
		if (!rm_name_valid(o.names[k])) {
			rm_warnx("invalid owner name: '%s'", o.names[k]);
			free(o.names);
			return RM_EXIT_USAGE;
		}
	have_io = rm_io_open(&io, &msg) == 0;
	free(msg);
	st_open(&st, RM_STATE_READ);
	out = rm_out_new(&c->out, "limits", limit_cols, ARRAY_SIZE(limit_cols), limit_defaults,
			 true);
	for (size_t i = 0; i < st.nrecords; i++) {
		const struct rm_record *r = &st.records[i];
		struct rm_io_limit l;

		if (strcmp(rm_record_kind(r), "limit") ||
		    !rm_owners_match(&o, rm_record_get(r, "limit")))
			continue;
		st_rec_limit(r, &l);
		print_limit(out, &c->out, have_io ? &io : NULL, rm_record_get(r, "limit"),
			    rm_record_get(r, "disk") ?: "-", rm_record_get(r, "devno") ?: "-", &l);
	}
	rm_state_close(&st);
	rm_out_close(out);
	rm_out_flush();
	if (have_io)
		rm_io_close(&io);
	free(o.names);
	return RM_EXIT_SUCCESS;
}

/* ---- release, apply, gc ---- */

int st_limits_release(struct rm_state *st, const char *owner, struct rm_kernfs_log *lg,
		      char **errmsg)
{
	struct rm_io_limit none = { 0 };
	struct rm_io io;
	bool any = false;
	int rc = 0;

	for (size_t i = 0; i < st->nrecords; i++)
		any |= !strcmp(rm_record_kind(&st->records[i]), "limit") &&
		       !strcmp(rm_record_get(&st->records[i], "limit"), owner);
	if (!any)
		return 0;
	if (rm_io_open(&io, errmsg) < 0)
		return -1;
	for (size_t i = 0; i < st->nrecords && rc == 0; i++) {
		const struct rm_record *r = &st->records[i];
		char *dir;

		if (strcmp(rm_record_kind(r), "limit") || strcmp(rm_record_get(r, "limit"), owner))
			continue;
		dir = rm_io_path(&io, owner);
		/* a cgroup gone (a reboot, rm-cpuset release) holds nothing to lift; lifting what
		 * is lifted already writes the same values again, so a retry does no harm */
		if (rm_kernfs_is_dir(dir, RM_IO_FILES))
			rc = rm_io_set_logged(&io, owner, rm_record_get(r, "devno") ?: "0:0", &none,
					      lg, errmsg) < 0 ? -1 : 0;
		free(dir);
	}
	if (rc == 0)
		for (size_t i = st->nrecords; i-- > 0;)
			if (!strcmp(rm_record_kind(&st->records[i]), "limit") &&
			    !strcmp(rm_record_get(&st->records[i], "limit"), owner))
				rm_state_remove(st, i);
	rm_io_close(&io);
	return rc < 0 ? -1 : 1;
}

/* After the commit: OWNER's cgroup goes when it is ours alone and empty; one with processes
 * stays, its limits lifted (a note says why). */
static void remove_cgroup(const char *owner)
{
	struct rm_io io;
	char *msg = NULL;

	if (rm_io_open(&io, &msg) == 0 && rm_io_remove(&io, owner, &msg) < 0)
		fprintf(stderr, "%s: note: %s\n", program_invocation_short_name, msg);
	rm_io_close(&io);
	free(msg);
}

static const struct argp_option release_options[] = {
	{ "all", RM_OPT_ALL, NULL, 0, "every owner's limits and every quota", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what it would release, change nothing", 0 },
	{ 0 }
};

/* Whether the state holds anything of the owner or directory NAME. */
static bool names_something(const struct rm_state *st, const char *name)
{
	for (size_t i = 0; i < st->nrecords; i++) {
		const struct rm_record *r = &st->records[i];
		const char *kind = rm_record_kind(r);

		if (!strcmp(rm_record_get(r, kind), name) ||
		    (!strcmp(kind, "quota") && !strcmp(rm_record_get(r, "owner") ?: "", name)))
			return true;
	}
	return false;
}

int cmd_release(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		release_options, rm_owners_parse, "OWNER...|DIR...",
		"Lift the I/O limits of each OWNER and the quotas given --owner OWNER, or the quota "
		"of each DIR (an operand with a '/'), and forget them; with --all, everything "
		"rm-storage set. An owner's cgroup is removed when it is rm-storage's alone.",
		NULL, NULL, NULL
	};
	struct rm_owners o = { 0 };
	struct rm_kernfs_log lg = { .flags = RM_IO_FILES };
	struct rm_state st;
	char *msg = NULL, **names, *lifted = NULL;
	int n, cur = 0, had, status = RM_EXIT_SUCCESS;

	rm_parse_command(&argp, argc, argv, c, &o, RM_PARSE_NO_OUTPUT);
	rm_owners_require(&o, "release");
	for (int k = 0; k < o.n; k++)
		if (!strchr(o.names[k], '/') && !rm_name_valid(o.names[k])) {
			rm_warnx("invalid owner name: '%s'", o.names[k]);
			free(o.names);
			return RM_EXIT_USAGE;
		}
	st_live_only(c, "release");
	st_open(&st, o.dry_run ? RM_STATE_READ : RM_STATE_WRITE);
	/* the names to release: as given, or every owner and directory recorded */
	n = 0;
	names = xcalloc(st.nrecords + (size_t)o.n + 1, sizeof(*names));
	if (o.all) {
		for (size_t i = 0; i < st.nrecords; i++) {
			const struct rm_record *r = &st.records[i];
			const char *id = rm_record_get(r, rm_record_kind(r));
			bool dup = false;

			for (int k = 0; k < n; k++)
				dup |= !strcmp(names[k], id);
			if (!dup)
				names[n++] = xstrdup(id);
		}
	} else {
		for (int k = 0; k < o.n; k++) {
			char *abs = strchr(o.names[k], '/') ? realpath(o.names[k], NULL) : NULL;
			const char *nm = abs ?: o.names[k];

			if (!names_something(&st, nm)) {
				rm_warnx("%s: '%s'", strchr(o.names[k], '/')
					 ? "no quota of rm-storage on that directory"
					 : "no limits or quotas of that owner", o.names[k]);
				free(abs);
				status = RM_EXIT_USAGE;
				goto out;
			}
			names[n++] = abs ?: xstrdup(nm);
		}
	}
	for (cur = 0; cur < n; cur++) {
		const char *nm = names[cur];

		if (o.dry_run) {
			for (size_t i = 0; i < st.nrecords; i++) {
				const struct rm_record *r = &st.records[i];

				if (!strcmp(rm_record_get(r, rm_record_kind(r)), nm) ||
				    !strcmp(rm_record_get(r, "owner") ?: "", nm))
					rm_record_write(stdout, r);
			}
			continue;
		}
		/* the limits lifted with undo, the quotas lifted, then the state: should it not be
		 * written, the limits go back, so that it never lists one the machine lacks */
		had = strchr(nm, '/') ? 0 : st_limits_release(&st, nm, &lg, &msg);
		if (had < 0)
			goto fail_undo;
		for (size_t i = st.nrecords; i-- > 0;) {
			const struct rm_record *r = &st.records[i];
			char *t;

			if (strcmp(rm_record_kind(r), "quota") ||
			    (strcmp(rm_record_get(r, "quota"), nm) &&
			     strcmp(rm_record_get(r, "owner") ?: "", nm)))
				continue;
			if (st_quota_lift(r, &msg) < 0)
				goto fail_undo;
			t = xasprintf("%s%s'%s'", lifted ?: "", lifted ? ", " : "",
				      rm_record_get(r, "quota"));
			free(lifted);
			lifted = t;
			rm_state_remove(&st, i);
		}
		if (rm_state_commit(&st) < 0) {
			msg = xasprintf("cannot write the state: %s", strerror(errno));
			goto fail_undo;
		}
		rm_kernfs_log_free(&lg);
		free(lifted);
		lifted = NULL;
		if (had > 0)
			remove_cgroup(nm);
		rm_committed("released '%s'", nm);
		printf("released=%s\n", nm);
	}
	goto out;
fail_undo:
	undo_said(&lg, &msg, xasprintf("the I/O limits of owner '%s' are set again", names[cur]),
		  "the state still lists them (release again)");
	if (lifted) {
		char *m = xasprintf("%s; the quotas of %s are lifted, but the state still lists them "
				    "(release again)", msg, lifted);

		free(msg);
		msg = m;
	}
	rm_warnx("%s", msg);
	free(msg);
	status = RM_EXIT_FAILURE;
out:
	rm_kernfs_log_free(&lg);
	free(lifted);
	for (int k = 0; k < n; k++)
		free(names[k]);
	free(names);
	free(o.names);
	rm_state_close(&st);
	return status;
}

static const struct argp_option gc_options[] = {
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what it would forget, change nothing", 0 },
	{ 0 }
};

/* ---- apply: storage.conf(5), then every recorded limit ---- */

enum { CONF_SOURCE, CONF_SETTING, CONF_OWNER, CONF_DISK, CONF_ACTION };
static const struct rm_column conf_cols[] = {
	[CONF_SOURCE] = { "source", RM_COL_STRING, "the line of the file: FILE:LINE, - for a limit "
			  "the file no longer has" },
	[CONF_SETTING] = { "setting", RM_COL_STRING, "limit" },
	[CONF_OWNER] = { "owner", RM_COL_STRING, "the owner" },
	[CONF_DISK] = { "disk", RM_COL_STRING, "the disk" },
	[CONF_ACTION] = { "action", RM_COL_STRING, "keep, set or remove" },
};

/* A limit the file made and no longer has: lifted, its record removed. */
struct dropped {
	char *owner, *disk;
};

/*
 * Bring the limit records of ST to the file CF: an (owner, disk) of the file whose record the
 * file made with the same settings (conf= digest) and limits is kept; one whose settings changed,
 * or whose record was made by hand, gets the line's limits; one the file made and no longer has
 * is dropped (*DROPPED, in the state's order). Records made by hand for other (owner, disk)
 * stay. Nothing is written here. Returns whether the records changed.
 */
static bool converge(struct rm_state *st, struct st_conf *cf, struct dropped **dropped,
		     size_t *ndropped)
{
	bool changed = false;

	for (size_t i = 0; i < st->nrecords;) {
		struct rm_record *r = &st->records[i];
		const char *owner = rm_record_get(r, "limit"), *disk = rm_record_get(r, "disk") ?: "-";
		const char *mark = rm_record_get(r, "conf");
		struct st_conf_line *l = NULL;
		struct rm_io_limit have;

		if (strcmp(rm_record_kind(r), "limit")) {
			i++;
			continue;
		}
		for (size_t k = 0; k < cf->n && !l; k++)
			if (!strcmp(cf->lines[k].owner, owner) && !strcmp(cf->lines[k].disk, disk))
				l = &cf->lines[k];
		st_rec_limit(r, &have);
		if (l && mark && !strcmp(mark, l->digest) && st_limit_same(&have, &l->l)) {
			l->action = "keep";
		} else if (l) {
			st_rec_set_limit(r, &l->l);
			rm_record_set(r, "conf", l->digest);
			l->action = "set";
			changed = true;
		} else if (mark) {
			*dropped = xrealloc(*dropped, (*ndropped + 1) * sizeof(**dropped));
			(*dropped)[(*ndropped)++] = (struct dropped){ xstrdup(owner), xstrdup(disk) };
			rm_state_remove(st, i);
			changed = true;
			continue;
		}
		i++;
	}
	for (size_t k = 0; k < cf->n; k++) {
		struct st_conf_line *l = &cf->lines[k];
		struct rm_record r = { 0 };

		if (l->action)
			continue;
		rm_record_set(&r, "limit", l->owner);
		rm_record_set(&r, "disk", l->disk);
		rm_record_set(&r, "devno", l->devno);
		st_rec_set_limit(&r, &l->l);
		rm_record_set(&r, "conf", l->digest);
		rm_state_add(st, &r);
		l->action = "set";
		changed = true;
	}
	return changed;
}

/* Lift the limits of D on its disk, when the disk and the owner's cgroup are there (a reboot,
 * rm-cpuset release: nothing to lift then). 0, or -1 with *ERRMSG. */
static int lift(const struct rm_io *io, const struct dropped *d, struct rm_kernfs_log *lg,
		char **errmsg)
{
	const struct rm_io_limit none = { 0 };
	char *name, *devno, *msg = NULL, *dir;
	int rc = 0;

	if (st_disk(NULL, d->disk, &name, &devno, &msg) < 0) {
		free(msg);
		return 0;
	}
	dir = rm_io_path(io, d->owner);
	if (rm_kernfs_is_dir(dir, RM_IO_FILES))
		rc = rm_io_set_logged(io, d->owner, devno, &none, lg, errmsg) < 0 ? -1 : 0;
	free(dir);
	free(name);
	free(devno);
	return rc;
}

/* The records of the file's settings: dropped limits first, then the file's lines in order. */
static void conf_print(const struct rm_common *c, const struct st_conf *cf,
		       const struct dropped *d, size_t nd)
{
	struct rm_outopts opts = c->out;
	struct rm_out *out;

	opts.columns = NULL; /* -o is for the limit records */
	out = rm_out_new(&opts, "settings", conf_cols, ARRAY_SIZE(conf_cols), NULL, false);
	for (size_t i = 0; i < nd + cf->n; i++) {
		const struct st_conf_line *l = i < nd ? NULL : &cf->lines[i - nd];

		rm_out_begin(out);
		rm_out_str(out, CONF_SOURCE, l ? l->source : NULL);
		rm_out_str(out, CONF_SETTING, "limit");
		rm_out_str(out, CONF_OWNER, l ? l->owner : d[i].owner);
		rm_out_str(out, CONF_DISK, l ? l->disk : d[i].disk);
		rm_out_str(out, CONF_ACTION, l ? l->action : "remove");
		rm_out_end(out);
	}
	rm_out_close(out);
}

/* Whether ST records a limit of OWNER. */
static bool has_limits(const struct rm_state *st, const char *owner)
{
	for (size_t i = 0; i < st->nrecords; i++)
		if (!strcmp(rm_record_kind(&st->records[i]), "limit") &&
		    !strcmp(rm_record_get(&st->records[i], "limit"), owner))
			return true;
	return false;
}

int cmd_apply(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print the limits it would set, change nothing",
		  0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_apply_parse, "[FILE]",
		"Bring the recorded limits to FILE (default $RM_CONFIG_DIR/storage.conf, "
		"/etc/rmtools/storage.conf, when it exists; - reads standard input; the format is "
		"in rm-storage.conf(5)), then set every recorded limit again, as after a reboot: "
		"disks found by name (their numbers recorded anew), all or nothing. The whole file is "
		"checked before anything changes. Prints one record per line of the file with what "
		"was done, then the limit records. Quotas live in the filesystems and need nothing.",
		NULL, NULL, NULL
	};
	struct rm_kernfs_log lg = { .flags = RM_IO_FILES };
	struct rm_apply_args a = { 0 };
	struct st_conf cf = { 0 };
	struct dropped *dropped = NULL;
	size_t ndropped = 0, n;
	bool changed = false, have_conf;
	struct rm_state st;
	struct rm_io io;
	struct rm_out *out;
	char *msg = NULL, *path, **names, **devnos;
	int rc = 0;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, limit_cols, ARRAY_SIZE(limit_cols), limit_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, limit_cols, ARRAY_SIZE(limit_cols), limit_defaults);
	st_live_only(c, "apply");
	/* the file, checked whole before the lock; without one, the state as it is */
	path = a.file ? xstrdup(a.file) : rm_conf_path("storage.conf");
	have_conf = a.file || access(path, F_OK) == 0;
	if (have_conf)
		st_conf_read(&cf, path);
	free(path);
	io_open(&io);
	if (have_conf)
		st_conf_check(&cf, &io);
	/* lock, plan */
	st_open(&st, a.dry_run ? RM_STATE_READ : RM_STATE_WRITE);
	if (have_conf)
		changed = converge(&st, &cf, &dropped, &ndropped);
	/* apply with undo: the dropped limits lifted, every recorded one set */
	for (size_t k = 0; k < ndropped && !a.dry_run && rc == 0; k++)
		if ((rc = lift(&io, &dropped[k], &lg, &msg)) < 0)
			rm_kernfs_undo(&lg, &msg);
	n = st.nrecords;
	names = xcalloc(n + 1, sizeof(*names));
	devnos = xcalloc(n + 1, sizeof(*devnos));
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct rm_record *r = &st.records[i];
		const char *disk = rm_record_get(r, "disk") ?: "-";
		struct rm_io_limit l;

		if (strcmp(rm_record_kind(r), "limit"))
			continue;
		st_rec_limit(r, &l);
		if (st_disk(NULL, disk, &names[i], &devnos[i], &msg) < 0) {
			/* a disk gone stays recorded: gc forgets it */
			fprintf(stderr, "%s: note: %s (rm-storage gc forgets it)\n",
				program_invocation_short_name, msg);
			free(msg);
			msg = NULL;
			continue;
		}
		if (strcmp(devnos[i], rm_record_get(r, "devno") ?: "")) {
			rm_record_set(r, "devno", devnos[i]);
			changed = true;
		}
		if (!a.dry_run && (rc = rm_io_set_logged(&io, rm_record_get(r, "limit"), devnos[i],
							 &l, &lg, &msg)) < 0)
			rm_kernfs_undo(&lg, &msg);
	}
	/* commit */
	if (rc == 0 && changed && !a.dry_run && rm_state_commit(&st) < 0) {
		msg = xasprintf("cannot write the state: %s", strerror(errno));
		rm_kernfs_undo(&lg, &msg);
		rc = -1;
	}
	if (rc == 0 && !a.dry_run && (lg.n || changed)) {
		if (have_conf)
			rm_committed("applied %s and set the recorded I/O limits", cf.f.file);
		else
			rm_committed("set the recorded I/O limits");
	}
	/* an owner left without limits loses its cgroup when that is ours alone */
	for (size_t k = 0; k < ndropped && !a.dry_run && rc == 0; k++) {
		char *note = NULL;
		bool seen = false;

		for (size_t j = 0; j < k; j++)
			seen |= !strcmp(dropped[j].owner, dropped[k].owner);
		if (!seen && !has_limits(&st, dropped[k].owner) &&
		    rm_io_remove(&io, dropped[k].owner, &note) < 0) {
			fprintf(stderr, "%s: note: %s\n", program_invocation_short_name, note);
			free(note);
		}
	}
	/* report */
	if (rc == 0) {
		if (have_conf)
			conf_print(c, &cf, dropped, ndropped);
		out = rm_out_new(&c->out, "limits", limit_cols, ARRAY_SIZE(limit_cols),
				 limit_defaults, true);
		for (size_t i = 0; i < n; i++) {
			struct rm_io_limit l;

			if (!names[i])
				continue;
			st_rec_limit(&st.records[i], &l);
			print_limit(out, &c->out, a.dry_run ? NULL : &io,
				    rm_record_get(&st.records[i], "limit"), names[i], devnos[i], &l);
		}
		rm_out_close(out);
		rm_out_flush();
	}
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		free(devnos[i]);
	}
	free(names);
	free(devnos);
	for (size_t k = 0; k < ndropped; k++) {
		free(dropped[k].owner);
		free(dropped[k].disk);
	}
	free(dropped);
	rm_kernfs_log_free(&lg);
	rm_state_close(&st);
	rm_io_close(&io);
	if (have_conf)
		st_conf_free(&cf);
	if (rc < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	return RM_EXIT_SUCCESS;
}

int cmd_gc(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		gc_options, rm_dry_run_parse, NULL,
		"Forget the limits on disks that are gone, and the quotas of directories that are "
		"gone or no longer carry their project (lifting those limits on the filesystem).",
		NULL, NULL, NULL
	};
	bool dry_run = false;
	struct rm_state st;
	char *msg = NULL;
	size_t gone = 0;

	rm_parse_command(&argp, argc, argv, c, &dry_run, RM_PARSE_NO_OUTPUT);
	st_live_only(c, "gc");
	st_open(&st, dry_run ? RM_STATE_READ : RM_STATE_WRITE);
	for (size_t i = st.nrecords; i-- > 0;) {
		const struct rm_record *r = &st.records[i];
		bool stale;

		if (!strcmp(rm_record_kind(r), "limit")) {
			char *p = xasprintf("sys/class/block/%s/dev", rm_record_get(r, "disk") ?: "-");

			stale = !rm_sysfs_exists(NULL, p);
			free(p);
		} else {
			stale = !strcmp(rm_record_kind(r), "quota") && !st_quota_alive(r);
			if (stale && !dry_run && st_quota_lift(r, &msg) < 0) {
				rm_warnx("%s", msg);
				free(msg);
				msg = NULL;
				continue;
			}
		}
		if (!stale)
			continue;
		rm_record_write(stdout, r);
		gone++;
		if (!dry_run)
			rm_state_remove(&st, i);
	}
	if (gone && !dry_run) {
		st_commit(&st);
		rm_committed("forgot %zu records", gone);
	}
	rm_state_close(&st);
	return RM_EXIT_SUCCESS;
}
