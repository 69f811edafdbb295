/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-storage quota and usage: project quotas on directories of ext4 and XFS, by the kernel's calls. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <linux/quota.h>
#include <libmount.h>

#include "exitcodes.h"
#include "record.h"
#include "rm-storage.h"
#include "size.h"
#include "xalloc.h"

/*
 * Project quotas are set with quotactl(2) and FS_IOC_FSSETXATTR directly: no quota tool is
 * needed, and nothing is passed to another program. The ID of each quota is recorded in the
 * state; /etc/projid is read so that an ID named there is never taken.
 */
#define EXT4_MAGIC 0xEF53
#define XFS_MAGIC 0x58465342
#define PROJID_FILE "/etc/projid"
#define PROJID_MAX 0xfffffffeu

static int qctl(int cmd, const char *dev, unsigned id, void *addr)
{
	return (int)syscall(SYS_quotactl, QCMD(cmd, PRJQUOTA), dev, id, addr);
}

enum { Q_DIR, Q_PROJECT, Q_LIMIT, Q_USED, Q_INODES, Q_INODES_USED, Q_OWNER, Q_FS, Q_DEVICE };
static const struct rm_column quota_cols[] = {
	[Q_DIR] = { "quota", RM_COL_STRING, "the directory" },
	[Q_PROJECT] = { "project", RM_COL_INT, "its project ID" },
	[Q_LIMIT] = { "limit", RM_COL_SIZE, "the most space its files may take (hard limit)" },
	[Q_USED] = { "used", RM_COL_SIZE, "the space its files take" },
	[Q_INODES] = { "inodes", RM_COL_INT, "the most files it may hold, or -" },
	[Q_INODES_USED] = { "inodes_used", RM_COL_INT, "the files it holds" },
	[Q_OWNER] = { "owner", RM_COL_STRING, "the owner it was given to, or -" },
	[Q_FS] = { "fs", RM_COL_STRING, "the mount point of its filesystem" },
	[Q_DEVICE] = { "device", RM_COL_STRING, "the filesystem's device" },
};
static const char quota_defaults[] = "quota,project,limit,used,inodes,inodes_used,owner,fs";

/* ---- the directory and its filesystem ---- */

struct qdir {
	char *path;   /* absolute, no symlinks */
	int fd;       /* O_DIRECTORY|O_NOFOLLOW */
	char *fs;     /* its mount point */
	char *device; /* its filesystem's device */
	struct fsxattr fsx;
};

static void qdir_free(struct qdir *q)
{
	free(q->path);
	free(q->fs);
	free(q->device);
	if (q->fd >= 0)
		close(q->fd);
	memset(q, 0, sizeof(*q));
	q->fd = -1;
}

/* Open DIR and find its filesystem. 0, or -1 with *ERRMSG (bad input). */
static int qdir_open(struct qdir *q, const char *dir, char **errmsg)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	struct statfs sf;
	struct stat sb;

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	if (!(q->path = realpath(dir, NULL)) ||
	    (q->fd = open(q->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		*errmsg = xasprintf("not a directory: '%s'", dir);
		return -1;
	}
	if (fstatfs(q->fd, &sf) < 0 || fstat(q->fd, &sb) < 0 ||
	    (sf.f_type != EXT4_MAGIC && sf.f_type != XFS_MAGIC)) {
		*errmsg = xasprintf("project quotas need a directory of ext4 or XFS: '%s'", dir);
		return -1;
	}
	if (ioctl(q->fd, FS_IOC_FSGETXATTR, &q->fsx) < 0) {
		*errmsg = xasprintf("cannot read the project of '%s': %s", dir, strerror(errno));
		return -1;
	}
	st_libmount_load();
	tb = lmnt.mnt_new_table_from_file("/proc/self/mountinfo");
	it = lmnt.mnt_new_iter(MNT_ITER_BACKWARD);
	while (tb && it && lmnt.mnt_table_next_fs(tb, it, &fs) == 0)
		if (lmnt.mnt_fs_get_devno(fs) == sb.st_dev && lmnt.mnt_fs_get_srcpath(fs)) {
			q->fs = xstrdup(lmnt.mnt_fs_get_target(fs));
			q->device = xstrdup(lmnt.mnt_fs_get_srcpath(fs));
			break;
		}
	lmnt.mnt_free_iter(it);
	lmnt.mnt_unref_table(tb);
	if (!q->device) {
		*errmsg = xasprintf("cannot find the filesystem of '%s' in the mount table", dir);
		return -1;
	}
	return 0;
}

/* Why the filesystem of Q cannot take project limits, allocated, or NULL. */
static char *qdir_refused(const struct qdir *q)
{
	struct fs_quota_statv sv = { .qs_version = FS_QSTATV_VERSION1 };

	if (qctl(Q_XGETQSTATV, q->device, 0, &sv) == 0 && (sv.qs_flags & FS_QUOTA_PDQ_ENFD))
		return NULL;
	return xasprintf("the filesystem of '%s' does not enforce project quotas: mount it with "
			 "the prjquota option (ext4 also needs the project and quota features: "
			 "mkfs.ext4 -O quota,project, or tune2fs -O project,quota when unmounted): "
			 "'%s'", q->path, q->fs);
}

/* Give FD's inode project ID, with the inherit flag for directories when INHERIT. */
static int set_project(int fd, unsigned id, bool inherit)
{
	struct fsxattr fsx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx) < 0)
		return -1;
	fsx.fsx_projid = id;
	if (inherit)
		fsx.fsx_xflags |= FS_XFLAG_PROJINHERIT;
	else
		fsx.fsx_xflags &= ~FS_XFLAG_PROJINHERIT;
	return ioctl(fd, FS_IOC_FSSETXATTR, &fsx);
}

/* Give the directory FD and everything below it (on its filesystem, links not followed) the
 * project ID. fts and nftw work on paths; this walk opens each entry relative to its directory
 * with O_NOFOLLOW, so that nothing renamed meanwhile can lead it elsewhere. */
static int set_tree(int fd, unsigned id, bool inherit, dev_t dev)
{
	int dfd = dup(fd), rc = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (set_project(fd, id, inherit) < 0) {
		if (d)
			closedir(d);
		else if (dfd >= 0)
			close(dfd);
		return -1;
	}
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	while ((e = readdir(d)) && rc == 0) {
		struct stat sb;
		int cfd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || sb.st_dev != dev ||
		    !(S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode)))
			continue;
		cfd = openat(fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			     (S_ISDIR(sb.st_mode) ? O_DIRECTORY : 0));
		if (cfd < 0)
			continue;
		rc = S_ISDIR(sb.st_mode) ? set_tree(cfd, id, inherit, dev)
					 : set_project(cfd, id, false);
		close(cfd);
	}
	closedir(d);
	return rc;
}

/* Whether ID is named in /etc/projid ("name:id" lines). */
static bool in_projid(unsigned id)
{
	FILE *f = fopen(PROJID_FILE, "re");
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		found = colon && line[0] != '#' && strtoul(colon + 1, NULL, 10) == id;
	}
	if (f)
		fclose(f);
	return found;
}

/* Whether the filesystem of DEV has an entry for project ID (usage or limits). */
static bool in_use(const char *dev, unsigned id)
{
	struct if_dqblk dq;

	return qctl(Q_GETQUOTA, dev, id, &dq) == 0 &&
	       (dq.dqb_curspace || dq.dqb_curinodes || dq.dqb_bhardlimit || dq.dqb_ihardlimit ||
		dq.dqb_bsoftlimit || dq.dqb_isoftlimit);
}

/* The lowest free project ID: not 0, not in /etc/projid, not in the state, not in use. */
static unsigned choose_id(const struct rm_state *st, const char *dev)
{
	for (unsigned id = 1; id < PROJID_MAX; id++) {
		char buf[16];
		bool taken = false;

		snprintf(buf, sizeof(buf), "%u", id);
		for (size_t i = 0; i < st->nrecords && !taken; i++)
			taken = !strcmp(rm_record_kind(&st->records[i]), "quota") &&
				!strcmp(rm_record_get(&st->records[i], "project") ?: "", buf);
		if (!taken && !in_projid(id) && !in_use(dev, id))
			return id;
	}
	return 0;
}

static int set_limits(const char *dev, unsigned id, uint64_t bytes, uint64_t inodes,
		      char **errmsg)
{
	struct if_dqblk dq = {
		.dqb_bhardlimit = (bytes + 1023) / 1024,
		.dqb_ihardlimit = inodes,
		.dqb_valid = QIF_BLIMITS | QIF_ILIMITS,
	};

	if (qctl(Q_SETQUOTA, dev, id, &dq) < 0) {
		*errmsg = xasprintf("cannot set the quota of project %u on '%s': %s", id, dev,
				    strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- records ---- */

static void print_quota(struct rm_out *out, const struct rm_record *r)
{
	const char *dev = rm_record_get(r, "device") ?: "-";
	unsigned id = (unsigned)strtoul(rm_record_get(r, "project") ?: "0", NULL, 10);
	const char *inodes = rm_record_get(r, "inodes") ?: "-";
	struct if_dqblk dq;

	rm_out_begin(out);
	rm_out_str(out, Q_DIR, rm_record_get(r, "quota"));
	rm_out_int(out, Q_PROJECT, id);
	rm_out_size(out, Q_LIMIT, strtoull(rm_record_get(r, "size") ?: "0", NULL, 10));
	if (strcmp(inodes, "-"))
		rm_out_int(out, Q_INODES, strtoll(inodes, NULL, 10));
	if (qctl(Q_GETQUOTA, dev, id, &dq) == 0) {
		rm_out_size(out, Q_USED, dq.dqb_curspace);
		rm_out_int(out, Q_INODES_USED, (long long)dq.dqb_curinodes);
	}
	rm_out_str(out, Q_OWNER, rm_record_get(r, "owner"));
	rm_out_str(out, Q_FS, rm_record_get(r, "fs"));
	rm_out_str(out, Q_DEVICE, dev);
	rm_out_end(out);
}

int st_quota_lift(const struct rm_record *rec, char **errmsg)
{
	unsigned id = (unsigned)strtoul(rm_record_get(rec, "project") ?: "0", NULL, 10);
	const char *dev = rm_record_get(rec, "device") ?: "-";
	struct qdir q;
	char *msg = NULL;

	if (qdir_open(&q, rm_record_get(rec, "quota"), &msg) == 0 && q.fsx.fsx_projid == id) {
		struct stat sb;

		/* the ID off the tree first: a limit lifted while files keep the ID is harmless */
		if (fstat(q.fd, &sb) < 0 || set_tree(q.fd, 0, false, sb.st_dev) < 0) {
			*errmsg = xasprintf("cannot clear the project of '%s': %s", q.path,
					    strerror(errno));
			qdir_free(&q);
			return -1;
		}
	}
	free(msg);
	qdir_free(&q);
	/* the filesystem may be gone with its directory: nothing left to lift there */
	if (set_limits(dev, id, 0, 0, errmsg) < 0 && errno != ENOENT && errno != ENODEV &&
	    errno != ENOTBLK)
		return -1;
	free(*errmsg);
	*errmsg = NULL;
	return 0;
}

bool st_quota_alive(const struct rm_record *rec)
{
	struct qdir q;
	char *msg = NULL;
	bool alive = qdir_open(&q, rm_record_get(rec, "quota"), &msg) == 0 &&
		     q.fsx.fsx_projid == strtoul(rm_record_get(rec, "project") ?: "0", NULL, 10);

	free(msg);
	qdir_free(&q);
	return alive;
}

/* ---- quota ---- */

enum { OPT_OWNER = 0x200, OPT_INODES };

static const struct argp_option quota_options[] = {
	{ "owner", OPT_OWNER, "NAME", 0, "record the quota as NAME's (release NAME lifts it)", 0 },
	{ "inodes", OPT_INODES, "N", 0, "at most N files and directories", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print the quota it would set, change nothing", 0 },
	{ 0 }
};

struct quota_args {
	const char *dir, *size, *owner, *inodes;
	bool dry_run;
};

static error_t quota_parse(int key, char *arg, struct argp_state *state)
{
	struct quota_args *a = state->input;

	switch (key) {
	case OPT_OWNER:
		a->owner = arg;
		break;
	case OPT_INODES:
		a->inodes = arg;
		break;
	case RM_OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->dir)
			a->dir = arg;
		else if (!a->size)
			a->size = arg;
		else
			argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Index of the quota= record of PATH, or -1. */
static long find_quota(const struct rm_state *st, const char *path)
{
	for (size_t i = 0; i < st->nrecords; i++)
		if (!strcmp(rm_record_kind(&st->records[i]), "quota") &&
		    !strcmp(rm_record_get(&st->records[i], "quota"), path))
			return (long)i;
	return -1;
}

int cmd_quota(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		quota_options, quota_parse, "DIR SIZE",
		"Put a project quota on DIR, a directory of ext4 or XFS mounted with prjquota: a "
		"new project ID (never one named in /etc/projid or in use on the filesystem) on "
		"DIR and everything in it, inherited by what is made there, with a hard limit of "
		"SIZE (and of --inodes N files). Given again, the limits change.",
		NULL, NULL, NULL
	};
	struct quota_args a = { 0 };
	uint64_t size, inodes = 0;
	struct rm_state st;
	struct rm_record r = { 0 };
	struct rm_out *out;
	struct qdir q;
	struct stat sb;
	char *msg = NULL, *why, buf[24];
	unsigned id;
	long i;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, quota_cols, ARRAY_SIZE(quota_cols), quota_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, quota_cols, ARRAY_SIZE(quota_cols), quota_defaults);
	if (!a.size)
		rm_usage_errx("quota: give DIR and SIZE");
	if (rm_size_parse(a.size, &size, &msg) < 0)
		rm_usage_errx("%s", msg);
	if (size < 1024)
		rm_usage_errx("quota: SIZE below 1KiB, the unit of quotas: '%s'", a.size);
	if (a.owner && !rm_name_valid(a.owner))
		rm_usage_errx("invalid owner name: '%s'", a.owner);
	if (a.inodes && st_parse_rate("--inodes", a.inodes, false, &inodes, &msg) < 0)
		rm_usage_errx("%s", msg);
	st_live_only(c, "quota");
	/* quotactl(2) and FS_IOC_FSSETXATTR of another's directory need root; say so first */
	if (geteuid() != 0 && !a.dry_run)
		rm_errx(RM_EXIT_FAILURE, "changing limits and quotas needs root");
	if (qdir_open(&q, a.dir, &msg) < 0) {
		qdir_free(&q);
		rm_usage_errx("%s", msg);
	}
	if ((why = qdir_refused(&q))) {
		qdir_free(&q);
		rm_usage_errx("%s", why);
	}
	st_open(&st, a.dry_run ? RM_STATE_READ : RM_STATE_WRITE);
	if ((i = find_quota(&st, q.path)) >= 0) {
		id = (unsigned)strtoul(rm_record_get(&st.records[i], "project") ?: "0", NULL, 10);
	} else if (q.fsx.fsx_projid) {
		rm_state_close(&st);
		rm_usage_errx("'%s' already carries project %u (not rm-storage's)", q.path,
			      q.fsx.fsx_projid);
	} else if (!(id = choose_id(&st, q.device))) {
		rm_state_close(&st);
		rm_errx(RM_EXIT_NORESOURCE, "no free project ID on '%s'", q.fs);
	}
	rm_record_set(&r, "quota", q.path);
	rm_record_set(&r, "fs", q.fs);
	rm_record_set(&r, "device", q.device);
	snprintf(buf, sizeof(buf), "%u", id);
	rm_record_set(&r, "project", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, size);
	rm_record_set(&r, "size", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, inodes);
	rm_record_set(&r, "inodes", inodes ? buf : "-");
	rm_record_set(&r, "owner", a.owner ?: "-");
	out = rm_out_new(&c->out, "quotas", quota_cols, ARRAY_SIZE(quota_cols), quota_defaults,
			 true);
	if (a.dry_run) {
		print_quota(out, &r);
		rm_record_free(&r);
		goto done;
	}
	/* apply with undo: the limits first (on an ID no file has yet), then the ID */
	if (set_limits(q.device, id, size, inodes, &msg) < 0 ||
	    fstat(q.fd, &sb) < 0 || (i < 0 && set_tree(q.fd, id, true, sb.st_dev) < 0)) {
		if (!msg)
			msg = xasprintf("cannot set the project of '%s': %s", q.path,
					strerror(errno));
		if (i < 0) {
			char *m2 = NULL;

			set_tree(q.fd, 0, false, sb.st_dev);
			set_limits(q.device, id, 0, 0, &m2);
			free(m2);
		}
		rm_record_free(&r);
		rm_state_close(&st);
		qdir_free(&q);
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	}
	if (i >= 0)
		rm_state_remove(&st, (size_t)i);
	rm_state_add(&st, &r);
	if (rm_state_commit(&st) < 0) {
		int e = errno;

		st_quota_lift(&st.records[st.nrecords - 1], &msg);
		free(msg);
		rm_state_close(&st);
		qdir_free(&q);
		rm_errx(RM_EXIT_FAILURE, "cannot write the state: %s", strerror(e));
	}
	rm_committed("set a quota of %s on '%s' (project %u)", a.size, q.path, id);
	print_quota(out, &st.records[st.nrecords - 1]);
done:
	rm_state_close(&st);
	qdir_free(&q);
	rm_out_close(out);
	rm_out_flush();
	return RM_EXIT_SUCCESS;
}

int cmd_usage(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, rm_owners_parse, "[DIR...]",
		"The space and files used under each quota rm-storage set (or those on the "
		"directories named), with its limits.",
		NULL, NULL, NULL
	};
	struct rm_owners o = { 0 };
	struct rm_state st;
	struct rm_out *out;
	char **paths;
	int status = RM_EXIT_SUCCESS;

	rm_parse_command(&argp, argc, argv, c, &o, 0);
	if (c->out.list_columns) {
		free(o.names);
		rm_out_list_columns(&c->out, quota_cols, ARRAY_SIZE(quota_cols), quota_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, quota_cols, ARRAY_SIZE(quota_cols), quota_defaults);
	paths = xcalloc((size_t)o.n + 1, sizeof(*paths));
	for (int k = 0; k < o.n; k++)
		if (!(paths[k] = realpath(o.names[k], NULL))) {
			rm_warnx("not a directory: '%s'", o.names[k]);
			status = RM_EXIT_USAGE;
		}
	if (status == RM_EXIT_SUCCESS) {
		st_open(&st, RM_STATE_READ);
		for (int k = 0; k < o.n && status == RM_EXIT_SUCCESS; k++)
			if (find_quota(&st, paths[k]) < 0) {
				rm_warnx("no quota of rm-storage on that directory: '%s'",
					 o.names[k]);
				status = RM_EXIT_USAGE;
			}
		if (status == RM_EXIT_SUCCESS) {
			out = rm_out_new(&c->out, "quotas", quota_cols, ARRAY_SIZE(quota_cols),
					 quota_defaults, true);
			for (size_t i = 0; i < st.nrecords; i++) {
				const struct rm_record *r = &st.records[i];
				bool want = !o.n;

				if (strcmp(rm_record_kind(r), "quota"))
					continue;
				for (int k = 0; k < o.n; k++)
					want |= !strcmp(paths[k], rm_record_get(r, "quota"));
				if (want)
					print_quota(out, r);
			}
			rm_out_close(out);
			rm_out_flush();
		}
		rm_state_close(&st);
	}
	for (int k = 0; k < o.n; k++)
		free(paths[k]);
	free(paths);
	free(o.names);
	return status;
}
