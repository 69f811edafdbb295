/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-storage list: one record per block device, from sysfs, libmount and libblkid. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid.h>
#include <libmount.h>

#include "dynlib.h"
#include "exitcodes.h"
#include "rm-storage.h"
#include "sysfs.h"
#include "xalloc.h"

enum { D_DISK, D_KIND, D_SIZE, D_ROTATIONAL, D_MODEL, D_NODE, D_PCI, D_SCHEDULER,
       D_QUEUE_DEPTH, D_LOGICAL, D_PHYSICAL, D_DEVNO, D_PARENTS, D_FSTYPE, D_MOUNTS };
static const struct rm_column disk_cols[] = {
	[D_DISK] = { "disk", RM_COL_STRING, "the kernel's name of the disk" },
	[D_KIND] = { "kind", RM_COL_STRING, "nvme, ssd, hdd or virtual (loop, dm, md, virtio...)" },
	[D_SIZE] = { "size", RM_COL_SIZE, "its capacity" },
	[D_ROTATIONAL] = { "rotational", RM_COL_BOOL, "whether it spins" },
	[D_MODEL] = { "model", RM_COL_STRING, "the model its device reports" },
	[D_NODE] = { "node", RM_COL_INT, "the NUMA node of its controller" },
	[D_PCI] = { "pci", RM_COL_STRING, "the PCI address of its controller" },
	[D_SCHEDULER] = { "scheduler", RM_COL_STRING, "the I/O scheduler in use" },
	[D_QUEUE_DEPTH] = { "queue_depth", RM_COL_INT,
			    "the device's queue depth (SCSI), else the block layer's requests" },
	[D_LOGICAL] = { "logical_block", RM_COL_SIZE, "the logical block size" },
	[D_PHYSICAL] = { "physical_block", RM_COL_SIZE, "the physical block size" },
	[D_DEVNO] = { "devno", RM_COL_STRING, "MAJ:MIN, as io.max names it" },
	[D_PARENTS] = { "parents", RM_COL_STRING, "the devices a dm or md device is made of" },
	[D_FSTYPE] = { "fstype", RM_COL_STRING, "the filesystem on the whole disk" },
	[D_MOUNTS] = { "mounts", RM_COL_STRING, "where it and its partitions are mounted" },
};
static const char disk_defaults[] =
	"disk,kind,size,rotational,model,node,pci,scheduler,queue_depth,logical_block,"
	"physical_block,parents,mounts";

/* sys/block/NAME/FILE, allocated or NULL. */
static char *blk(const char *sysroot, const char *name, const char *file)
{
	char *p = xasprintf("sys/block/%s/%s", name, file), *s = rm_sysfs_read(sysroot, p);

	free(p);
	return s;
}

static bool blk_u64(const char *sysroot, const char *name, const char *file, uint64_t *v)
{
	char *p = xasprintf("sys/block/%s/%s", name, file);
	int rc = rm_sysfs_read_u64(sysroot, p, v);

	free(p);
	return rc == 0;
}

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static const char *kind(const char *sysroot, const char *name, bool rot)
{
	static const char *const virt[] = { "loop", "ram", "zram", "dm-", "md", "nbd", "vd", "xvd",
					    "rbd", NULL };
	char *drv;
	bool virtio;

	if (prefix(name, "nvme"))
		return "nvme";
	for (size_t i = 0; virt[i]; i++)
		if (prefix(name, virt[i]))
			return "virtual";
	drv = blk(sysroot, name, "device/driver/module/..");
	free(drv);
	drv = blk(sysroot, name, "device/modalias");
	virtio = drv && prefix(drv, "virtio");
	free(drv);
	return virtio ? "virtual" : rot ? "hdd" : "ssd";
}

/* Whether S looks like a PCI address 0000:00:00.0. */
static bool is_pci(const char *s)
{
	unsigned a, b, c, d;
	char end;

	return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &a, &b, &c, &d, &end) == 4;
}

/* The PCI function closest to the disk in its sysfs path (the controller), allocated or NULL. */
static char *controller(const char *sysroot, const char *name)
{
	char *p = xasprintf("sys/block/%s", name), *path = rm_sysfs_path(sysroot, p);
	char *real = realpath(path, NULL), *tok, *save, *found = NULL;

	free(p);
	free(path);
	for (tok = real ? strtok_r(real, "/", &save) : NULL; tok; tok = strtok_r(NULL, "/", &save))
		if (is_pci(tok)) {
			free(found);
			found = xstrdup(tok);
		}
	free(real);
	return found;
}

/* The names in sys/block/NAME/SUB (holders, slaves) or its partitions, comma-joined. */
static char *dir_list(const char *sysroot, const char *name, const char *sub, bool partitions)
{
	char *p = xasprintf("sys/block/%s/%s", name, sub), *path = rm_sysfs_path(sysroot, p);
	struct dirent **ents = NULL;
	int n = scandir(path, &ents, NULL, alphasort);
	char *out = xstrdup("");

	for (int i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;
		bool keep = *e != '.';

		if (keep && partitions) {
			char *f = xasprintf("sys/block/%s/%s/partition", name, e);

			keep = rm_sysfs_exists(sysroot, f);
			free(f);
		}
		if (keep) {
			char *o = xasprintf("%s%s%s", out, *out ? "," : "", e);

			free(out);
			out = o;
		}
		free(ents[i]);
	}
	free(ents);
	free(p);
	free(path);
	return out;
}

/* Whether MAJ:MIN text S is DEV. */
static bool devno_is(const char *s, dev_t dev)
{
	unsigned ma, mi;

	return s && sscanf(s, "%u:%u", &ma, &mi) == 2 && makedev(ma, mi) == dev;
}

/* The mount points of the disk NAME and of its partitions PARTS, and the type of the
 * filesystem on the whole disk when mounted. */
static char *mounts_of(struct libmnt_table *tb, const char *sysroot, const char *name,
		       const char *devno, const char *parts, const char **fstype)
{
	struct libmnt_iter *it = lmnt.mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	char *out = xstrdup("");

	*fstype = NULL;
	while (tb && it && lmnt.mnt_table_next_fs(tb, it, &fs) == 0) {
		dev_t dev = lmnt.mnt_fs_get_devno(fs);
		bool mine = devno_is(devno, dev);
		char *list, *tok, *save;

		if (!dev)
			continue;
		if (mine && !*fstype)
			*fstype = lmnt.mnt_fs_get_fstype(fs);
		list = xstrdup(parts);
		for (tok = strtok_r(list, ",", &save); tok && !mine; tok = strtok_r(NULL, ",", &save)) {
			char *f = xasprintf("%s/dev", tok), *d = blk(sysroot, name, f);

			mine = devno_is(d, dev);
			free(d);
			free(f);
		}
		free(list);
		if (mine) {
			char *o = xasprintf("%s%s%s", out, *out ? "," : "", lmnt.mnt_fs_get_target(fs));

			free(out);
			out = o;
		}
	}
	lmnt.mnt_free_iter(it);
	return out;
}

struct st_libmount lmnt;

void st_libmount_load(void)
{
	RM_DL_LOAD(lmnt, "libmount.so.1", LIBMOUNT_FUNCTIONS);
}

/* libblkid, opened with dlopen when a filesystem type is first probed (as libmount) */
#define LIBBLKID_FUNCTIONS(X) \
	X(blkid_do_safeprobe) \
	X(blkid_free_probe) \
	X(blkid_new_probe) \
	X(blkid_probe_enable_superblocks) \
	X(blkid_probe_lookup_value) \
	X(blkid_probe_set_device) \
	X(blkid_probe_set_superblocks_flags)

static struct {
#define X(f) __typeof__(f) *f;
	LIBBLKID_FUNCTIONS(X)
#undef X
} lblkid;

/* The filesystem type libblkid finds on /dev/NAME; NULL when none, or not readable. */
static char *probe_type(const char *name)
{
	char *dev = xasprintf("/dev/%s", name), *type = NULL;
	const char *v = NULL;
	blkid_probe pr;
	int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

	free(dev);
	if (fd < 0)
		return NULL;
	RM_DL_LOAD(lblkid, "libblkid.so.1", LIBBLKID_FUNCTIONS);
	if ((pr = lblkid.blkid_new_probe())) {
		if (lblkid.blkid_probe_set_device(pr, fd, 0, 0) == 0 &&
		    lblkid.blkid_probe_enable_superblocks(pr, 1) == 0 &&
		    lblkid.blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE) == 0 &&
		    lblkid.blkid_do_safeprobe(pr) == 0 &&
		    lblkid.blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0 && v)
			type = xstrdup(v);
		lblkid.blkid_free_probe(pr);
	}
	close(fd);
	return type;
}

static void print_disk(struct rm_out *out, struct libmnt_table *tb, const char *sysroot,
		       const char *name, bool want_fstype)
{
	uint64_t size = 0, rot = 0, v;
	char *s, *devno = blk(sysroot, name, "dev"), *pci, *parts, *m;
	const char *fstype;

	blk_u64(sysroot, name, "size", &size);
	blk_u64(sysroot, name, "queue/rotational", &rot);
	rm_out_begin(out);
	rm_out_str(out, D_DISK, name);
	rm_out_str(out, D_KIND, kind(sysroot, name, rot));
	rm_out_size(out, D_SIZE, size * 512);
	rm_out_bool(out, D_ROTATIONAL, rot);
	s = blk(sysroot, name, "device/model");
	rm_out_str(out, D_MODEL, s && *s ? s : NULL);
	free(s);
	if ((pci = controller(sysroot, name))) {
		char *p = xasprintf("sys/bus/pci/devices/%s/numa_node", pci);
		char *n = rm_sysfs_read(sysroot, p);

		if (n && strcmp(n, "-1"))
			rm_out_int(out, D_NODE, atoll(n));
		free(n);
		free(p);
		rm_out_str(out, D_PCI, pci);
		free(pci);
	}
	if ((s = blk(sysroot, name, "queue/scheduler"))) {
		char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

		if (b)
			*b = '\0';
		rm_out_str(out, D_SCHEDULER, a ? a + 1 : s);
		free(s);
	}
	if (blk_u64(sysroot, name, "device/queue_depth", &v) ||
	    blk_u64(sysroot, name, "queue/nr_requests", &v))
		rm_out_int(out, D_QUEUE_DEPTH, (long long)v);
	if (blk_u64(sysroot, name, "queue/logical_block_size", &v))
		rm_out_size(out, D_LOGICAL, v);
	if (blk_u64(sysroot, name, "queue/physical_block_size", &v))
		rm_out_size(out, D_PHYSICAL, v);
	rm_out_str(out, D_DEVNO, devno);
	s = dir_list(sysroot, name, "slaves", false);
	rm_out_str(out, D_PARENTS, s);
	free(s);
	parts = dir_list(sysroot, name, ".", true);
	m = mounts_of(tb, sysroot, name, devno, parts, &fstype);
	if (fstype)
		rm_out_str(out, D_FSTYPE, fstype);
	else if (want_fstype && !sysroot && (s = probe_type(name))) {
		rm_out_str(out, D_FSTYPE, s);
		free(s);
	}
	rm_out_str(out, D_MOUNTS, m);
	free(m);
	free(parts);
	free(devno);
	rm_out_end(out);
}

/* Whether the column list of O asks for fstype (probing reads the device: only then). */
static bool wants_fstype(const struct rm_outopts *o)
{
	return o->columns && strstr(o->columns, "fstype");
}

int cmd_list(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, NULL, NULL,
		"One record per block device that has a size: its kind, capacity, NUMA node and "
		"PCI address of its controller, queue, block sizes, the devices it is made of, "
		"and where it and its partitions are mounted.",
		NULL, NULL, NULL
	};
	const char *sysroot;
	char *path, *mi;
	struct dirent **ents = NULL;
	struct libmnt_table *tb;
	struct rm_out *out;
	int n;

	rm_parse_command(&argp, argc, argv, c, NULL, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, disk_cols, ARRAY_SIZE(disk_cols), disk_defaults);
		return RM_EXIT_SUCCESS;
	}
	sysroot = st_sysroot(c);
	out = rm_out_new(&c->out, "disks", disk_cols, ARRAY_SIZE(disk_cols), disk_defaults, true);
	st_libmount_load();
	mi = rm_sysfs_path(sysroot, "proc/self/mountinfo");
	tb = access(mi, R_OK) == 0 ? lmnt.mnt_new_table_from_file(mi) : NULL;
	free(mi);
	path = rm_sysfs_path(sysroot, "sys/block");
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		rm_out_close(out);
		lmnt.mnt_unref_table(tb);
		rm_errx(RM_EXIT_USAGE, "no block devices here: '%s'", path);
	}
	free(path);
	for (int i = 0; i < n; i++) {
		uint64_t size = 0;

		if (*ents[i]->d_name != '.' && blk_u64(sysroot, ents[i]->d_name, "size", &size) &&
		    size)
			print_disk(out, tb, sysroot, ents[i]->d_name, wants_fstype(&c->out));
		free(ents[i]);
	}
	free(ents);
	lmnt.mnt_unref_table(tb);
	rm_out_close(out);
	rm_out_flush();
	return RM_EXIT_SUCCESS;
}
