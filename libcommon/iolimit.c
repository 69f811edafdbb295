/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Disk I/O limits of owners below the rmtools parent: io.max, io.weight, io.latency (v2), blkio (v1). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "iolimit.h"
#include "owner.h"
#include "xalloc.h"

/*
 * cgroupfs is read and written directly, as cgroup.c and hugetlb.c do, so that tests run
 * against trees under $RM_CGROUP_ROOT; libcgroup has no parser for the per-device files.
 */
#define FILES RM_IO_FILES

int rm_io_open(struct rm_io *io, char **errmsg)
{
	const char *root = rm_input()->cgroup_root;
	char *mount;

	memset(io, 0, sizeof(*io));
	if (rm_cgroup_find(root, "io", NULL, &io->version, &mount) < 0) {
		char *v1 = xasprintf("%s/blkio", root);

		if (!rm_kernfs_is_dir(v1, FILES) ||
		    rm_cgroup_find(root, "blkio", NULL, &io->version, &mount) < 0 ||
		    io->version != RM_CGROUP_V1) {
			free(v1);
			*errmsg = xasprintf("no io cgroup controller is mounted (v1 blkio or the "
					    "unified hierarchy's io): '%s'", root);
			return -1;
		}
		free(v1);
	}
	io->mount = mount;
	io->parent = rm_cgroup_owner_path(io->version, mount, "");
	io->parent[strlen(io->parent) - 1] = '\0';
	io->cpuset = io->version == RM_CGROUP_V2 &&
		     rm_kernfs_list_has(mount, "cgroup.controllers", "cpuset", FILES);
	return 0;
}

void rm_io_close(struct rm_io *io)
{
	free(io->mount);
	free(io->parent);
	memset(io, 0, sizeof(*io));
}

char *rm_io_path(const struct rm_io *io, const char *owner)
{
	return rm_cgroup_owner_path(io->version, io->mount, owner);
}

/* The file of the weight: iocost's io.weight or BFQ's, v1 CFQ's or BFQ's; NULL when none. */
static const char *weight_file(const struct rm_io *io)
{
	static const char *const v2[] = { "io.weight", "io.bfq.weight", NULL };
	static const char *const v1[] = { "blkio.bfq.weight_device", "blkio.weight_device", NULL };
	const char *const *f = io->version == RM_CGROUP_V2 ? v2 : v1;

	for (; *f; f++) {
		char *p = xasprintf("%s/%s", io->mount, *f);
		bool there = rm_kernfs_exists(p, FILES);

		free(p);
		if (there)
			return *f;
	}
	return NULL;
}

char *rm_io_refused(const struct rm_io *io, const struct rm_io_limit *l)
{
	if (l->latency && io->version != RM_CGROUP_V2)
		return xstrdup("--latency-target needs cgroup v2 (io.latency)");
	if (l->latency) {
		char *p = xasprintf("%s/io.latency", io->mount);
		bool there = rm_kernfs_exists(p, FILES);

		free(p);
		if (!there)
			return xstrdup("--latency-target needs a kernel with io.latency "
				       "(CONFIG_BLK_CGROUP_IOLATENCY)");
	}
	if (l->weight && !weight_file(io))
		return xstrdup(io->version == RM_CGROUP_V2
			       ? "--weight needs io.weight (blk-iocost) or io.bfq.weight (BFQ)"
			       : "--weight needs blkio.bfq.weight_device (BFQ) or "
				 "blkio.weight_device (CFQ)");
	if (l->weight && (io->version == RM_CGROUP_V2 ? l->weight > 10000
						      : l->weight < 10 || l->weight > 1000))
		return xasprintf("--weight out of range (%s): '%u'",
				 io->version == RM_CGROUP_V2 ? "1-10000" : "10-1000", l->weight);
	return NULL;
}

int rm_io_check(const struct rm_io *io, const char *owner, char **errmsg)
{
	char *dir;
	bool missing;

	if (!rm_name_valid(owner)) {
		*errmsg = xasprintf("invalid owner name: '%s'", owner);
		return -2;
	}
	dir = rm_io_path(io, owner);
	missing = io->cpuset && !rm_kernfs_is_dir(dir, FILES);
	free(dir);
	if (missing) {
		*errmsg = xasprintf("no rm-cpuset owner of that name: '%s' (cpuset and io share the "
				    "unified hierarchy here, so an owner's I/O limits live in its "
				    "rm-cpuset cgroup: make the owner first with rm-cpuset alloc "
				    "--owner %s --shared, or --count N for exclusive CPUs)", owner,
				    owner);
		return -2;
	}
	return 0;
}

/* The line of DEVNO in DIR/FILE without the "DEVNO " (allocated), or NULL when there is none.
 * -1 with *ERRMSG when the file cannot be read. */
static int dev_line(const char *dir, const char *file, const char *devno, char **line,
		    char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file), *s = rm_kernfs_read(path, FILES), *l, *save;
	size_t n = strlen(devno);

	*line = NULL;
	if (!s) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	for (l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, devno, n) && l[n] == ' ' && !*line)
			*line = xstrdup(l + n + 1);
	free(s);
	free(path);
	return 0;
}

/* KEY=VALUE in LINE: VALUE as a number, 0 for "max" or when missing. */
static uint64_t key_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = line; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == '=')
			return strncmp(p + n + 1, "max", 3) ? strtoull(p + n + 1, NULL, 10) : 0;
	return 0;
}

/* Write "DEVNO VALUE" to DIR/FILE unless it already reads CURRENT == VALUE; UNDO written back
 * on an undo. */
static int put_dev(struct rm_kernfs_log *lg, const char *dir, const char *file, const char *devno,
		   const char *value, const char *undo, char **errmsg)
{
	char *v = xasprintf("%s %s", devno, value), *u = xasprintf("%s %s", devno, undo);
	int rc = rm_kernfs_put(lg, dir, file, v, u, errmsg);

	free(v);
	free(u);
	return rc;
}

static int enable_io(struct rm_kernfs_log *lg, const char *dir, char **errmsg)
{
	if (rm_kernfs_list_has(dir, "cgroup.subtree_control", "io", FILES))
		return 0;
	return rm_kernfs_put(lg, dir, "cgroup.subtree_control", "+io", "-io", errmsg);
}

static char *num_or(uint64_t v, const char *none)
{
	return v ? xasprintf("%" PRIu64, v) : xstrdup(none);
}

/* v2: io.max in one write. */
static int set_max_v2(struct rm_kernfs_log *lg, const char *dir, const char *devno,
		      const struct rm_io_limit *l, char **errmsg)
{
	char *old, *r = num_or(l->rbps, "max"), *w = num_or(l->wbps, "max");
	char *ri = num_or(l->riops, "max"), *wi = num_or(l->wiops, "max"), *v;
	int rc = 0;

	if (dev_line(dir, "io.max", devno, &old, errmsg) < 0)
		rc = -1;
	v = xasprintf("rbps=%s wbps=%s riops=%s wiops=%s", r, w, ri, wi);
	if (rc == 0 && (!old || strcmp(old, v)))
		rc = put_dev(lg, dir, "io.max", devno, v,
			     old ?: "rbps=max wbps=max riops=max wiops=max", errmsg);
	free(v);
	free(old);
	free(r);
	free(w);
	free(ri);
	free(wi);
	return rc;
}

/* One per-device value file: "DEVNO WANT" unless it holds that; NONE is its "no value" form. */
static int set_one(struct rm_kernfs_log *lg, const char *dir, const char *file, const char *devno,
		   const char *want, const char *none, char **errmsg)
{
	char *old;
	int rc;

	if (dev_line(dir, file, devno, &old, errmsg) < 0)
		return -1;
	if ((old && !strcmp(old, want)) || (!old && !strcmp(want, none))) {
		free(old);
		return 0;
	}
	rc = put_dev(lg, dir, file, devno, want, old ?: none, errmsg);
	free(old);
	return rc;
}

int rm_io_set_logged(const struct rm_io *io, const char *owner, const char *devno,
		     const struct rm_io_limit *l, struct rm_kernfs_log *lg, char **errmsg)
{
	static const char *const v1[] = { "blkio.throttle.read_bps_device",
					  "blkio.throttle.write_bps_device",
					  "blkio.throttle.read_iops_device",
					  "blkio.throttle.write_iops_device" };
	uint64_t v1val[] = { l->rbps, l->wbps, l->riops, l->wiops };
	const char *wf = weight_file(io);
	char *dir, *s;
	int rc;

	if ((rc = rm_io_check(io, owner, errmsg)) < 0)
		return rc;
	rc = -1;
	dir = rm_io_path(io, owner);
	if (io->version == RM_CGROUP_V2 && enable_io(lg, io->mount, errmsg) < 0)
		goto out;
	if (!rm_kernfs_is_dir(io->parent, FILES) && rm_kernfs_mkdir(lg, io->parent, errmsg) < 0)
		goto out;
	if (io->version == RM_CGROUP_V2 && enable_io(lg, io->parent, errmsg) < 0)
		goto out;
	if (!rm_kernfs_is_dir(dir, FILES) && rm_kernfs_mkdir(lg, dir, errmsg) < 0)
		goto out;
	if (io->version == RM_CGROUP_V2) {
		if (set_max_v2(lg, dir, devno, l, errmsg) < 0)
			goto out;
	} else {
		for (size_t i = 0; i < 4; i++) {
			s = num_or(v1val[i], "0");
			rc = set_one(lg, dir, v1[i], devno, s, "0", errmsg);
			free(s);
			if (rc < 0)
				goto out;
		}
		rc = -1;
	}
	if (wf && (l->weight || io->version == RM_CGROUP_V1 || strcmp(wf, "io.bfq.weight"))) {
		const char *none = io->version == RM_CGROUP_V2 ? "default" : "0";

		s = l->weight ? xasprintf("%u", l->weight) : xstrdup(none);
		rc = set_one(lg, dir, wf, devno, s, none, errmsg);
		free(s);
		if (rc < 0)
			goto out;
		rc = -1;
	}
	if (io->version == RM_CGROUP_V2) {
		char *p = xasprintf("%s/io.latency", dir);
		bool there = rm_kernfs_exists(p, FILES);

		free(p);
		s = l->latency ? xasprintf("target=%" PRIu64, l->latency) : xstrdup("target=max");
		rc = there ? set_one(lg, dir, "io.latency", devno, s, "target=max", errmsg) : 0;
		free(s);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/* The first number of the v1 line "DEVNO [WHAT ]N" in DIR/FILE; 0 when none. */
static uint64_t v1_value(const char *dir, const char *file, const char *devno, const char *what)
{
	char *path = xasprintf("%s/%s", dir, file), *s = rm_kernfs_read(path, FILES), *l, *save;
	uint64_t v = 0;
	char *pre = what ? xasprintf("%s %s ", devno, what) : xasprintf("%s ", devno);

	for (l = s ? strtok_r(s, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, pre, strlen(pre)))
			v = strtoull(l + strlen(pre), NULL, 10);
	free(pre);
	free(s);
	free(path);
	return v;
}

int rm_io_read(const struct rm_io *io, const char *owner, const char *devno,
	       struct rm_io_limit *l, struct rm_io_stat *st, char **errmsg)
{
	char *dir = rm_io_path(io, owner), *line = NULL;
	const char *wf = weight_file(io);
	int rc = 1;

	memset(l, 0, sizeof(*l));
	memset(st, 0, sizeof(*st));
	if (!rm_kernfs_is_dir(dir, FILES)) {
		free(dir);
		return 0;
	}
	if (io->version == RM_CGROUP_V2) {
		if (dev_line(dir, "io.max", devno, &line, errmsg) < 0) {
			free(dir);
			return -1;
		}
		if (line) {
			l->rbps = key_value(line, "rbps");
			l->wbps = key_value(line, "wbps");
			l->riops = key_value(line, "riops");
			l->wiops = key_value(line, "wiops");
			free(line);
		}
		if (dev_line(dir, "io.stat", devno, &line, errmsg) == 0 && line) {
			st->rbytes = key_value(line, "rbytes");
			st->wbytes = key_value(line, "wbytes");
			st->rios = key_value(line, "rios");
			st->wios = key_value(line, "wios");
			free(line);
		}
		if (dev_line(dir, "io.latency", devno, &line, errmsg) == 0 && line) {
			l->latency = key_value(line, "target");
			free(line);
		}
	} else {
		l->rbps = v1_value(dir, "blkio.throttle.read_bps_device", devno, NULL);
		l->wbps = v1_value(dir, "blkio.throttle.write_bps_device", devno, NULL);
		l->riops = v1_value(dir, "blkio.throttle.read_iops_device", devno, NULL);
		l->wiops = v1_value(dir, "blkio.throttle.write_iops_device", devno, NULL);
		st->rbytes = v1_value(dir, "blkio.throttle.io_service_bytes", devno, "Read");
		st->wbytes = v1_value(dir, "blkio.throttle.io_service_bytes", devno, "Write");
		st->rios = v1_value(dir, "blkio.throttle.io_serviced", devno, "Read");
		st->wios = v1_value(dir, "blkio.throttle.io_serviced", devno, "Write");
	}
	free(*errmsg);
	*errmsg = NULL;
	if (wf && dev_line(dir, wf, devno, &line, errmsg) == 0 && line) {
		l->weight = (unsigned)strtoul(line, NULL, 10);
		free(line);
	}
	free(*errmsg);
	*errmsg = NULL;
	free(dir);
	return rc;
}

int rm_io_remove(const struct rm_io *io, const char *owner, char **errmsg)
{
	char *dir = rm_io_path(io, owner);

	if (io->cpuset || !rm_kernfs_is_dir(dir, FILES)) {
		free(dir); /* rm-cpuset's cgroup stays; its limits are already lifted */
		return 0;
	}
	if (rm_kernfs_rmdir(dir) < 0) {
		*errmsg = errno == EBUSY
			  ? xasprintf("cannot remove %s: processes still run in it", dir)
			  : xasprintf("cannot remove %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	return rm_cgroup_remove_childless(io->parent, errmsg);
}

bool rm_io_has_cgroup(const char *owner)
{
	struct rm_io io;
	char *dir, *msg = NULL;
	bool has;

	if (!rm_name_valid(owner) || rm_io_open(&io, &msg) < 0) {
		free(msg);
		return false;
	}
	dir = rm_io_path(&io, owner);
	has = rm_kernfs_is_dir(dir, FILES);
	free(dir);
	rm_io_close(&io);
	return has;
}

int rm_io_attach(const char *owner, pid_t pid, char **errmsg)
{
	struct rm_io io;
	char *dir, *msg = NULL;
	int rc;

	if (!rm_name_valid(owner))
		return 0;
	if (rm_io_open(&io, &msg) < 0) {
		free(msg);
		return 0; /* no io controller: no limits to join */
	}
	if (io.cpuset) { /* the io cgroup is rm-cpuset's: joined there, or kept out by --no-cgroups */
		rm_io_close(&io);
		return 0;
	}
	dir = rm_io_path(&io, owner);
	rc = rm_cgroup_join(dir, pid, errmsg);
	free(dir);
	rm_io_close(&io);
	return rc;
}
