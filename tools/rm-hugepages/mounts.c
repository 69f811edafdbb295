/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages mount and umount: hugetlbfs for one page size, and what apply shares of them. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "exitcodes.h"
#include "mountpoint.h"
#include "record.h"
#include "rm-hugepages.h"
#include "size.h"
#include "xalloc.h"

static char *shown(const char *s)
{
	return rm_record_show(s, strlen(s));
}

int hp_parse_mode(const char *s, mode_t *mode, char **errmsg)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5 || s[strspn(s, "01234567")]) {
		char *x = shown(s);

		*errmsg = xasprintf("invalid mode (octal, as 0770): '%s'", x);
		free(x);
		return -1;
	}
	v = strtoul(s, NULL, 8);
	if (v > 07777) {
		*errmsg = xasprintf("invalid mode (octal, as 0770): '%s'", s);
		return -1;
	}
	*mode = (mode_t)v;
	return 0;
}

/* A number of at most 32 bits, or -1. */
static long long plain_id(const char *s)
{
	char *end;
	unsigned long long v;

	if (!*s || s[strspn(s, "0123456789")])
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || v >= UINT32_MAX ? -1 : (long long)v;
}

int hp_parse_uid(const char *s, uid_t *uid, char **errmsg)
{
	long long v = plain_id(s);
	struct passwd *pw;

	if (v >= 0) {
		*uid = (uid_t)v;
		return 0;
	}
	if (!(pw = getpwnam(s))) {
		char *x = shown(s);

		*errmsg = xasprintf("no such user: '%s'", x);
		free(x);
		return -1;
	}
	*uid = pw->pw_uid;
	return 0;
}

int hp_parse_gid(const char *s, gid_t *gid, char **errmsg)
{
	long long v = plain_id(s);
	struct group *gr;

	if (v >= 0) {
		*gid = (gid_t)v;
		return 0;
	}
	if (!(gr = getgrnam(s))) {
		char *x = shown(s);

		*errmsg = xasprintf("no such group: '%s'", x);
		free(x);
		return -1;
	}
	*gid = gr->gr_gid;
	return 0;
}

int hp_parse_max_size(const char *s, uint64_t page_size, uint64_t *bytes, char **errmsg)
{
	if (rm_size_parse(s, bytes, errmsg) < 0)
		return -1;
	if (!*bytes || *bytes % page_size) {
		char *ps = rm_size_format(page_size), *x = shown(s);

		*errmsg = xasprintf("not a whole number of %s pages: '%s'", ps, x);
		free(x);
		free(ps);
		return -1;
	}
	return 0;
}

char *hp_mount_options(const struct mount_req *r)
{
	char *ps = rm_hugepages_kernel_size(r->page_size), *o = xasprintf("pagesize=%s", ps), *n;

	free(ps);
	if (r->have_uid) {
		n = xasprintf("%s,uid=%u", o, (unsigned)r->uid);
		free(o);
		o = n;
	}
	if (r->have_gid) {
		n = xasprintf("%s,gid=%u", o, (unsigned)r->gid);
		free(o);
		o = n;
	}
	if (r->have_mode) {
		n = xasprintf("%s,mode=%04o", o, (unsigned)r->mode);
		free(o);
		o = n;
	}
	if (r->have_max) {
		n = xasprintf("%s,size=%" PRIu64, o, r->max_size);
		free(o);
		o = n;
	}
	return o;
}

/* Whether mount M is what R asks for (the options R leaves out are the kernel's defaults). */
static bool same_mount(const struct mount_req *r, const struct rm_hp_mount *m)
{
	return !strcmp(m->fstype, "hugetlbfs") && m->page_size == r->page_size &&
	       m->uid == (r->have_uid ? r->uid : 0) && m->gid == (r->have_gid ? r->gid : 0) &&
	       m->mode == (r->have_mode ? r->mode : 0755) && m->have_max == r->have_max &&
	       (!r->have_max || m->max_size == r->max_size);
}

int hp_mount_check(const struct mount_req *r, uint64_t default_size, char **errmsg)
{
	struct rm_hp_mount *mounts = NULL;
	const struct rm_hp_mount *m;
	char *real;
	long n;
	int rc = 0;

	/* no link on the way, nothing a user other than root could swap */
	if (rm_mountpoint_check(r->dir, errmsg) < 0)
		return -1;
	if (!(real = realpath(r->dir, NULL)))
		return 0; /* made by the mount */
	if ((n = rm_hugepages_mounts(NULL, default_size, &mounts, errmsg)) < 0) {
		free(real);
		return -1;
	}
	m = rm_hugepages_mount_at(mounts, (size_t)n, real);
	if (m && same_mount(r, m)) {
		rc = 1;
	} else if (m && !strcmp(m->fstype, "hugetlbfs")) {
		*errmsg = xasprintf("already a hugetlbfs mount with other options (%s): '%s'",
				    m->options, r->dir);
		rc = -1;
	} else if (m) {
		*errmsg = xasprintf("already a mount point (%s): '%s'", m->fstype, r->dir);
		rc = -1;
	}
	rm_hugepages_mounts_free(mounts, (size_t)n);
	free(real);
	return rc;
}

int hp_mount(const struct mount_req *r, bool *made, char **errmsg)
{
	char *opts = hp_mount_options(r);
	int fd = rm_mountpoint_open(r->dir, made, errmsg);

	if (fd < 0) {
		free(opts);
		return -1;
	}
	/* on the directory checked and opened, whatever its path leads to by now */
	if (rm_mount_fd(fd, "hugetlbfs", "hugetlbfs", MS_NOSUID | MS_NODEV, opts) < 0) {
		*errmsg = xasprintf("cannot mount hugetlbfs (%s) on %s: %s", opts, r->dir,
				    strerror(errno));
		if (*made)
			rm_mountpoint_remove(r->dir);
		*made = false;
		close(fd);
		free(opts);
		return -1;
	}
	close(fd);
	free(opts);
	return 0;
}

/* ---- the commands ---- */

enum { OPT_SIZE = 0x200, OPT_UID, OPT_GID, OPT_MODE, OPT_MAX_SIZE, OPT_DRY_RUN };

struct mount_args {
	struct rm_common *c;
	bool umount;
	const char *dir, *size, *uid, *gid, *mode, *max_size;
	bool dry_run;
};

static const struct argp_option mount_options[] = {
	{ "size", OPT_SIZE, "SIZE", 0, "the page size of the mount (2M, 1G, ...)", 0 },
	{ "uid", OPT_UID, "USER", 0, "the owner of its root directory (default root)", 0 },
	{ "gid", OPT_GID, "GROUP", 0, "the group of its root directory (default root)", 0 },
	{ "mode", OPT_MODE, "MODE", 0, "the mode of its root directory, octal (default 0755)", 0 },
	{ "max-size", OPT_MAX_SIZE, "AMOUNT", 0,
	  "the most memory its files may hold, a whole number of pages (default no limit)", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the mount it would make, change nothing", 0 },
	{ 0 }
};

static const struct argp_option umount_options[] = {
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the mount it would remove, change nothing", 0 },
	{ 0 }
};

static error_t mount_parse(int key, char *arg, struct argp_state *state)
{
	struct mount_args *a = state->input;

	switch (key) {
	case OPT_SIZE:
		a->size = arg;
		break;
	case OPT_UID:
		a->uid = arg;
		break;
	case OPT_GID:
		a->gid = arg;
		break;
	case OPT_MODE:
		a->mode = arg;
		break;
	case OPT_MAX_SIZE:
		a->max_size = arg;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (a->dir)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->dir = arg;
		break;
	case ARGP_KEY_END:
		if (a->c->out.list_columns)
			break;
		if (!a->dir)
			argp_error(state, "missing DIR");
		if (!a->umount && !a->size)
			argp_error(state, "missing --size SIZE");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* DIR as given, checked: absolute, no trailing '/'. Allocated, or NULL with *ERRMSG. */
static char *check_dir(const char *dir, char **errmsg)
{
	char *d;
	size_t len;

	if (dir[0] != '/') {
		char *x = shown(dir);

		*errmsg = xasprintf("not an absolute path: '%s'", x);
		free(x);
		return NULL;
	}
	d = xstrdup(dir);
	len = strlen(d);
	while (len > 1 && d[len - 1] == '/')
		d[--len] = '\0';
	return d;
}

/* The mount record of DIR as the table has it now (a planned one from R when not there). */
static void print_mount(const struct rm_common *c, const struct rm_hugepages *hp,
			const struct mount_req *r, const char *dir)
{
	struct rm_out *out = rm_out_new(&c->out, "mounts", mount_cols, mount_ncols, mount_defaults,
					true);
	struct rm_hp_mount *mounts = NULL;
	const struct rm_hp_mount *m = NULL;
	char *msg = NULL, *real = realpath(dir, NULL);
	long n = rm_hugepages_mounts(NULL, hp->default_size, &mounts, &msg);

	if (n >= 0 && real)
		m = rm_hugepages_mount_at(mounts, (size_t)n, real);
	if (m && !strcmp(m->fstype, "hugetlbfs")) {
		hp_print_mount(out, &c->out, m);
	} else if (r) {
		struct rm_hp_mount planned = {
			.dir = (char *)dir, .fstype = "hugetlbfs", .page_size = r->page_size,
			.uid = r->have_uid ? r->uid : 0, .gid = r->have_gid ? r->gid : 0,
			.mode = r->have_mode ? r->mode : 0755, .have_max = r->have_max,
			.max_size = r->max_size,
		};

		planned.options = hp_mount_options(r);
		hp_print_mount(out, &c->out, &planned);
		free(planned.options);
	}
	rm_out_close(out);
	rm_out_flush();
	free(msg);
	free(real);
	if (n > 0)
		rm_hugepages_mounts_free(mounts, (size_t)n);
}

int cmd_mount(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		mount_options, mount_parse, "DIR",
		"Mount a hugetlbfs for pages of one size at DIR (made when missing), as "
		"'mount -t hugetlbfs -o pagesize=SIZE nodev DIR'. A DIR that is already such a mount "
		"is left as it is; one that is another mount is refused.",
		NULL, NULL, NULL
	};
	struct mount_args a = { .c = c };
	struct mount_req r = { 0 };
	struct rm_hugepages hp;
	size_t size;
	char *msg = NULL;
	int status = RM_EXIT_SUCCESS, rc, lock = -1;
	bool made;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	/* parse and check everything, -o included, before the lock */
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, mount_cols, mount_ncols, mount_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, mount_cols, mount_ncols, mount_defaults);
	/* mounts are this machine's: its page sizes, whatever RM_SYSROOT says */
	hp_open(&hp, NULL);
	if (!(r.dir = check_dir(a.dir, &msg)) ||
	    rm_hugepages_parse_size(&hp, a.size, &size, &msg) < 0)
		goto usage;
	r.page_size = hp.sizes[size];
	if ((a.uid && (r.have_uid = true) && hp_parse_uid(a.uid, &r.uid, &msg) < 0) ||
	    (a.gid && (r.have_gid = true) && hp_parse_gid(a.gid, &r.gid, &msg) < 0) ||
	    (a.mode && (r.have_mode = true) && hp_parse_mode(a.mode, &r.mode, &msg) < 0) ||
	    (a.max_size && (r.have_max = true) &&
	     hp_parse_max_size(a.max_size, r.page_size, &r.max_size, &msg) < 0))
		goto usage;
	if (!a.dry_run && geteuid() != 0) {
		rm_warnx("mounting needs root");
		status = RM_EXIT_FAILURE;
		goto out;
	}
	if (!a.dry_run)
		lock = hp_lock();
	/* plan: a mount there already is left as it is; another one is refused */
	if ((rc = hp_mount_check(&r, hp.default_size, &msg)) < 0)
		goto usage;
	/* apply: hp_mount removes the directory it made when the mount fails */
	if (rc == 0 && !a.dry_run) {
		if (hp_mount(&r, &made, &msg) < 0) {
			rm_warnx("%s; nothing changed", msg);
			status = RM_EXIT_FAILURE;
			goto out;
		}
		rm_committed("mounted hugetlbfs on %s", r.dir);
	}
	print_mount(c, &hp, &r, r.dir);
	goto out;
usage:
	rm_warnx("%s", msg);
	status = RM_EXIT_USAGE;
out:
	hp_unlock(lock);
	free(msg);
	free(r.dir);
	rm_hugepages_close(&hp);
	return status;
}

int cmd_umount(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		umount_options, mount_parse, "DIR",
		"Unmount the hugetlbfs at DIR; the directory stays. DIR must be a hugetlbfs mount.",
		NULL, NULL, NULL
	};
	struct mount_args a = { .c = c, .umount = true };
	struct rm_hugepages hp;
	struct rm_hp_mount *mounts = NULL;
	const struct rm_hp_mount *m = NULL;
	char *msg = NULL, *dir = NULL, *real = NULL;
	int status = RM_EXIT_SUCCESS, lock = -1;
	long n = 0;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	/* parse and check everything, -o included, before the lock */
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, mount_cols, mount_ncols, mount_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, mount_cols, mount_ncols, mount_defaults);
	hp_open(&hp, NULL);
	if (!(dir = check_dir(a.dir, &msg)))
		goto usage;
	if (!a.dry_run && geteuid() != 0) {
		rm_warnx("unmounting needs root");
		status = RM_EXIT_FAILURE;
		goto out;
	}
	if (!a.dry_run)
		lock = hp_lock();
	if ((n = rm_hugepages_mounts(NULL, hp.default_size, &mounts, &msg)) < 0) {
		rm_warnx("%s", msg);
		status = RM_EXIT_FAILURE;
		n = 0;
		goto out;
	}
	if ((real = realpath(dir, NULL)) && strcmp(real, dir)) {
		/* what a link leads to is not unmounted: the mount is named by its own path */
		msg = xasprintf("a mount point is named by its own path, no symlink, '.' or '..': "
				"'%s' is '%s'", a.dir, real);
		goto usage;
	}
	if (real)
		m = rm_hugepages_mount_at(mounts, (size_t)n, real);
	if (!m || strcmp(m->fstype, "hugetlbfs")) {
		msg = xasprintf("not a hugetlbfs mount: '%s'", a.dir);
		goto usage;
	}
	{
		struct rm_out *out = rm_out_new(&c->out, "mounts", mount_cols, mount_ncols,
						mount_defaults, true);

		if (!a.dry_run && umount2(real, UMOUNT_NOFOLLOW) < 0) {
			rm_warnx("cannot unmount %s: %s", real, strerror(errno));
			status = RM_EXIT_FAILURE;
		} else {
			if (!a.dry_run)
				rm_committed("unmounted the hugetlbfs at %s", real);
			hp_print_mount(out, &c->out, m);
		}
		rm_out_close(out);
		rm_out_flush();
	}
	goto out;
usage:
	rm_warnx("%s", msg);
	status = RM_EXIT_USAGE;
out:
	hp_unlock(lock);
	rm_hugepages_mounts_free(mounts, (size_t)n);
	free(real);
	free(msg);
	free(dir);
	rm_hugepages_close(&hp);
	return status;
}
