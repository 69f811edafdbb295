/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What rm-devices reads below a sysroot, and a copy of it with the kernel's links, for snapshots. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devices.h"
#include "snaparchive.h"
#include "sysfs.h"
#include "xalloc.h"

/* Below each function's directory, sys/bus/pci/devices/ADDR/: */
static const char *const function_files[] = {
	"uevent", "class", "vendor", "device", "subsystem_vendor", "subsystem_device", "revision",
	"config", "resource", "irq", "numa_node", "local_cpulist", "local_cpus",
	"current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
	"sriov_totalvfs", "sriov_numvfs", "mem_info_vram_total",
	"infiniband/*/ports/*/state", "infiniband/*/ports/*/link_layer",
	"infiniband_verbs/uverbs*/dev", "drm/renderD*/dev", "drm/card*/dev",
	"virtio*/drm/renderD*/dev", "virtio*/drm/card*/dev", "accel/accel*/dev",
	"nvme/nvme*/dev", "nvme/nvme*/nvme*n*/dev",
};
/* directories whose names are what is read */
static const char *const function_dirs[] = {
	"net/*", "virtio*/net/*", "fpga_region",
};
static const char *const function_links[] = {
	"driver", "iommu_group", "physfn", "virtfn*",
};
/* elsewhere */
static const char *const other_files[] = {
	"proc/devices", "proc/driver/nvidia/gpus/*/information", "sys/class/kfd/kfd/dev",
	"sys/class/misc/rdma_cm/dev", "sys/class/vfio/*/dev",
};

#define D "sys/bus/pci/devices/*/"
const struct rm_devices_snap_path rm_devices_snapshot_paths[] = {
	{ "sys/bus/pci/devices/*", RM_DEVICES_SNAP_LINK },
	{ D "driver", RM_DEVICES_SNAP_LINK },
	{ D "iommu_group", RM_DEVICES_SNAP_LINK },
	{ D "physfn", RM_DEVICES_SNAP_LINK },
	{ D "virtfn*", RM_DEVICES_SNAP_LINK },
	{ D "uevent", RM_DEVICES_SNAP_FILE },
	{ D "class", RM_DEVICES_SNAP_FILE },
	{ D "vendor", RM_DEVICES_SNAP_FILE },
	{ D "device", RM_DEVICES_SNAP_FILE },
	{ D "subsystem_vendor", RM_DEVICES_SNAP_FILE },
	{ D "subsystem_device", RM_DEVICES_SNAP_FILE },
	{ D "revision", RM_DEVICES_SNAP_FILE },
	{ D "config", RM_DEVICES_SNAP_FILE },
	{ D "resource", RM_DEVICES_SNAP_FILE },
	{ D "irq", RM_DEVICES_SNAP_FILE },
	{ D "numa_node", RM_DEVICES_SNAP_FILE },
	{ D "local_cpulist", RM_DEVICES_SNAP_FILE },
	{ D "local_cpus", RM_DEVICES_SNAP_FILE },
	{ D "current_link_speed", RM_DEVICES_SNAP_FILE },
	{ D "current_link_width", RM_DEVICES_SNAP_FILE },
	{ D "max_link_speed", RM_DEVICES_SNAP_FILE },
	{ D "max_link_width", RM_DEVICES_SNAP_FILE },
	{ D "sriov_totalvfs", RM_DEVICES_SNAP_FILE },
	{ D "sriov_numvfs", RM_DEVICES_SNAP_FILE },
	{ D "mem_info_vram_total", RM_DEVICES_SNAP_FILE },
	{ D "net/*", RM_DEVICES_SNAP_FILE },
	{ D "virtio*/net/*", RM_DEVICES_SNAP_FILE },
	{ D "fpga_region", RM_DEVICES_SNAP_FILE },
	{ D "infiniband/*/ports/*/state", RM_DEVICES_SNAP_FILE },
	{ D "infiniband/*/ports/*/link_layer", RM_DEVICES_SNAP_FILE },
	{ D "infiniband_verbs/uverbs*/dev", RM_DEVICES_SNAP_FILE },
	{ D "drm/renderD*/dev", RM_DEVICES_SNAP_FILE },
	{ D "drm/card*/dev", RM_DEVICES_SNAP_FILE },
	{ D "virtio*/drm/renderD*/dev", RM_DEVICES_SNAP_FILE },
	{ D "virtio*/drm/card*/dev", RM_DEVICES_SNAP_FILE },
	{ D "accel/accel*/dev", RM_DEVICES_SNAP_FILE },
	{ D "nvme/nvme*/dev", RM_DEVICES_SNAP_FILE },
	{ D "nvme/nvme*/nvme*n*/dev", RM_DEVICES_SNAP_FILE },
	/* what rm-devices health reads: AER counters, power, ports (their directories are made
	 * for the files below them; a directory matched here is no file to copy) */
	{ D "aer_dev_*", RM_DEVICES_SNAP_FILE },
	{ D "aer_rootport_total_err_*", RM_DEVICES_SNAP_FILE },
	{ D "power_state", RM_DEVICES_SNAP_FILE },
	{ D "net/*/carrier", RM_DEVICES_SNAP_FILE },
	{ D "net/*/flags", RM_DEVICES_SNAP_FILE },
	{ D "net/*/operstate", RM_DEVICES_SNAP_FILE },
	{ D "virtio*/net/*/carrier", RM_DEVICES_SNAP_FILE },
	{ D "virtio*/net/*/flags", RM_DEVICES_SNAP_FILE },
	{ D "virtio*/net/*/operstate", RM_DEVICES_SNAP_FILE },
	{ D "infiniband/*", RM_DEVICES_SNAP_FILE },
	{ D "infiniband/*/ports/*", RM_DEVICES_SNAP_FILE },
	{ "sys/bus/pci/slots/*/address", RM_DEVICES_SNAP_FILE },
	{ "sys/bus/pci/slots/*/adapter", RM_DEVICES_SNAP_FILE },
	{ "sys/bus/pci/slots/*/power", RM_DEVICES_SNAP_FILE },
	{ "proc/devices", RM_DEVICES_SNAP_FILE },
	{ "proc/driver/nvidia/gpus/*/information", RM_DEVICES_SNAP_FILE },
	{ "sys/class/kfd/kfd/dev", RM_DEVICES_SNAP_FILE },
	{ "sys/class/misc/rdma_cm/dev", RM_DEVICES_SNAP_FILE },
	{ "sys/class/vfio/*/dev", RM_DEVICES_SNAP_FILE },
	{ NULL, RM_DEVICES_SNAP_FILE },
};
#undef D

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct snap {
	const char *root;
	char *eroot; /* ROOT with glob's special characters escaped */
	const char *dir; /* for messages */
	int dirfd;       /* every file is made relative to it, through no link */
	int count;
	char *errmsg;
};

static int copy_link(struct snap *s, const char *from, const char *to);

static int fail(struct snap *s, const char *what, const char *path)
{
	if (!s->errmsg)
		s->errmsg = xasprintf("cannot %s '%s': %s", what, path, strerror(errno));
	return -1;
}

/* mkdir -p DIR/REL */
static int make_dirs(struct snap *s, const char *rel)
{
	int fd = rm_tree_open_dir(s->dirfd, rel, true);

	if (fd < 0) {
		char *path = xasprintf("%s/%s", s->dir, rel);
		int rc = fail(s, "create", path);

		free(path);
		return rc;
	}
	close(fd);
	return 0;
}

static int make_parent(struct snap *s, const char *rel)
{
	char *copy = xstrdup(rel), *slash = strrchr(copy, '/');
	int rc = 0;

	if (slash) {
		*slash = '\0';
		rc = make_dirs(s, copy);
	}
	free(copy);
	return rc;
}

/* Copy the regular file ROOT/FROM to DIR/TO byte for byte (config is binary); 1 when copied,
 * 0 when it cannot be read (write-only, or needs root). */
static int copy_file(struct snap *s, const char *from, const char *to)
{
	char *src = rm_sysfs_path(s->root, from), *dst, buf[8192];
	int in, out, rc = 1;
	struct stat st;
	ssize_t n;

	in = lstat(src, &st) == 0 && S_ISREG(st.st_mode) ? open(src, O_RDONLY | O_CLOEXEC) : -1;
	free(src);
	if (in < 0)
		return 0;
	/* sysfs says 4096 bytes for every attribute; read first, so unreadable ones leave no file */
	n = read(in, buf, sizeof(buf));
	if (n < 0) {
		close(in);
		return 0;
	}
	if (make_parent(s, to) < 0) {
		close(in);
		return -1;
	}
	dst = xasprintf("%s/%s", s->dir, to);
	out = rm_tree_create(s->dirfd, to, 0644);
	if (out < 0)
		rc = errno == EEXIST ? 0 : fail(s, "create", dst);
	while (rc > 0 && n > 0) {
		if (write(out, buf, (size_t)n) != n) {
			rc = fail(s, "write", dst);
			break;
		}
		n = read(in, buf, sizeof(buf));
	}
	if (out >= 0 && close(out) < 0 && rc > 0)
		rc = fail(s, "write", dst);
	close(in);
	free(dst);
	return rc;
}

/* REL, a directory below the function, made in the copy: what rm-devices reads is its name. */
static int copy_dir(struct snap *s, const char *to)
{
	return make_dirs(s, to) < 0 ? -1 : 1;
}

/* The path LINK_DIR/TARGET with "." and ".." resolved; NULL when it leaves the root. */
static char *resolve(const char *link_dir, const char *target)
{
	char *joined = target[0] == '/' ? xstrdup(target + 1) : xasprintf("%s/%s", link_dir, target);
	char **parts = xcalloc(strlen(joined) + 1, sizeof(char *)), *save = NULL, *tok, *out;
	size_t n = 0, len = 1;

	for (tok = strtok_r(joined, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!n) {
				free(parts);
				free(joined);
				return NULL;
			}
			n--;
			continue;
		}
		parts[n++] = tok;
	}
	for (size_t i = 0; i < n; i++)
		len += strlen(parts[i]) + 1;
	out = xcalloc(len, 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, "/");
		strcat(out, parts[i]);
	}
	free(parts);
	free(joined);
	return out;
}

/* Every match of GLOB below ROOT/BASE (ROOT-relative paths, BASE included), through FN. */
static int each_match(struct snap *s, const char *base, const char *pattern,
		      int (*fn)(struct snap *, const char *, void *), void *arg)
{
	char *pat = xasprintf("%s/%s%s%s", s->eroot ? s->eroot : "", base, *base ? "/" : "",
			      pattern);
	char *top = rm_sysfs_path(s->root, "");
	size_t skip = strlen(top);
	glob_t g;
	int rc = 0;

	free(top);
	if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && rc >= 0; i++) {
			int r = fn(s, g.gl_pathv[i] + skip, arg);

			if (r < 0)
				rc = -1;
			else
				s->count += r;
		}
		globfree(&g);
	}
	free(pat);
	return rc;
}

struct dev_copy {
	const char *from_base; /* ROOT-relative: sys/bus/pci/devices/ADDR */
	const char *to_base;   /* DIR-relative: where the function's directory is made */
	int kind;              /* 0 file, 1 directory, 2 link */
};

static int copy_member(struct snap *s, const char *rel, void *arg)
{
	const struct dev_copy *c = arg;
	const char *tail = rel + strlen(c->from_base);
	char *to = xasprintf("%s%s", c->to_base, tail);
	int rc = c->kind == 0 ? copy_file(s, rel, to) : c->kind == 1 ? copy_dir(s, to) :
		 copy_link(s, rel, to);

	free(to);
	return rc;
}

static int copy_plain(struct snap *s, const char *rel, void *arg)
{
	(void)arg;
	return copy_file(s, rel, rel);
}

/* "../" for each component of DIRPART, then REAL: a relative link from DIRPART to REAL. */
static char *relative_to(const char *dirpart, const char *real)
{
	char *out = xstrdup(""), *t;

	for (const char *p = dirpart; *p; p++)
		if (p == dirpart || p[-1] == '/') {
			t = xasprintf("%s../", out);
			free(out);
			out = t;
		}
	t = xasprintf("%s%s", out, real);
	free(out);
	return t;
}

/* The link ROOT/FROM copied as DIR/TO: the same target (made relative when it was absolute), and
 * the target's directory made when it is in the tree, so that readers that resolve the link
 * (lspci) find it. */
static int copy_link(struct snap *s, const char *from, const char *to)
{
	char *src = rm_sysfs_path(s->root, from), *dst, *todir = xstrdup(to), *real, *target;
	char buf[4096];
	ssize_t n = readlink(src, buf, sizeof(buf) - 1);
	int rc = 1;

	free(src);
	if (n <= 0) {
		free(todir);
		return 0;
	}
	buf[n] = '\0';
	*strrchr(todir, '/') = '\0';
	if (buf[0] != '/') {
		real = resolve(todir, buf);
	} else {
		char *r = rm_sysfs_path(s->root, "");

		real = !s->root ? resolve("", buf) :
		       !strncmp(buf, r, strlen(r)) ? resolve("", buf + strlen(r)) : NULL;
		free(r);
	}
	target = real && buf[0] == '/' ? relative_to(todir, real) : xstrdup(buf);
	if (make_dirs(s, todir) < 0 || (real && make_dirs(s, real) < 0)) {
		rc = -1;
	} else {
		dst = xasprintf("%s/%s", s->dir, to);
		if (rm_tree_symlink(s->dirfd, to, target) < 0 && errno != EEXIST)
			rc = fail(s, "create", dst);
		free(dst);
	}
	free(target);
	free(real);
	free(todir);
	return rc;
}

/* Where the link REL (in DIRPART) points below the root, ROOT-relative; NULL when it leaves the
 * tree or is no link. */
static char *link_place(struct snap *s, const char *rel, const char *dirpart, char **target)
{
	char *src = rm_sysfs_path(s->root, rel), buf[4096], *real;
	ssize_t n = readlink(src, buf, sizeof(buf) - 1);

	free(src);
	*target = NULL;
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if (buf[0] != '/') {
		real = resolve(dirpart, buf);
	} else if (!s->root) {
		real = resolve("", buf);
	} else {
		/* an absolute link into the snapshot itself: keep the part below it */
		char *r = rm_sysfs_path(s->root, "");

		real = !strncmp(buf, r, strlen(r)) ? resolve("", buf + strlen(r)) : NULL;
		free(r);
	}
	if (real)
		*target = buf[0] == '/' ? relative_to(dirpart, real) : xstrdup(buf);
	return real;
}

/* One function: its directory where its link points, the link, then its files and links. */
static int copy_function(struct snap *s, const char *rel, void *arg)
{
	char *dirpart = xstrdup(rel), *target, *real, *dst;
	const char *name = strrchr(rel, '/') + 1;
	struct dev_copy c = { rel, NULL, 0 };
	unsigned dom, bus, slot, fn;
	char tail;
	int rc = 0;

	(void)arg;
	*strrchr(dirpart, '/') = '\0';
	real = link_place(s, rel, dirpart, &target);
	free(dirpart);
	/* a PCI function's name (checked here so that rm-topo needs no libpci for this file) */
	if (sscanf(name, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &tail) != 4) {
		free(real);
		free(target);
		return 0;
	}
	c.to_base = real ? real : rel; /* no link (a copy already): a plain directory */
	if (make_dirs(s, c.to_base) < 0) {
		free(real);
		free(target);
		return -1;
	}
	if (real && make_parent(s, rel) < 0) {
		rc = -1;
	} else if (real) {
		dst = xasprintf("%s/%s", s->dir, rel);
		if (rm_tree_symlink(s->dirfd, rel, target) < 0 && errno != EEXIST)
			rc = fail(s, "create", dst);
		free(dst);
	}
	free(target);
	for (size_t i = 0; i < N(function_files) && rc >= 0; i++)
		rc = each_match(s, rel, function_files[i], copy_member, &c);
	c.kind = 1;
	for (size_t i = 0; i < N(function_dirs) && rc >= 0; i++)
		rc = each_match(s, rel, function_dirs[i], copy_member, &c);
	c.kind = 2;
	for (size_t i = 0; i < N(function_links) && rc >= 0; i++)
		rc = each_match(s, rel, function_links[i], copy_member, &c);
	free(real);
	return rc < 0 ? -1 : 1;
}

/* ROOT with glob's special characters escaped. */
static char *glob_escape(const char *root)
{
	char *out = xmalloc(2 * strlen(root) + 1), *o = out;

	for (; *root; root++) {
		if (strchr("*?[]\\", *root))
			*o++ = '\\';
		*o++ = *root;
	}
	*o = '\0';
	return out;
}

int rm_devices_snapshot(const char *root, const char *dir, char **errmsg)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0) {
		*errmsg = xasprintf("cannot open '%s': %s", dir, strerror(errno));
		return -1;
	}
	rc = rm_devices_snapshot_at(root, fd, dir, errmsg);
	close(fd);
	return rc;
}

int rm_devices_snapshot_at(const char *root, int dirfd, const char *dir, char **errmsg)
{
	struct snap s = { root && *root && strcmp(root, "/") ? root : NULL, NULL, dir, dirfd, 0,
			  NULL };
	int rc;

	if (s.root)
		s.eroot = glob_escape(s.root);
	rc = each_match(&s, "sys/bus/pci/devices", "*", copy_function, NULL);
	for (size_t i = 0; i < N(other_files) && rc >= 0; i++)
		rc = each_match(&s, "", other_files[i], copy_plain, NULL);
	free(s.eroot);
	if (rc < 0) {
		*errmsg = s.errmsg ? s.errmsg : xstrdup("cannot copy the PCI devices");
		return -1;
	}
	free(s.errmsg);
	return s.count;
}
