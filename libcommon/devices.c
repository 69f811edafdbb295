/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCI devices from sysfs: type, place, device nodes and names, and their records (hints and
 * choice are in devices-alloc.c). */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <pci/pci.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "devices.h"
#include "dynlib.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

static const char *const type_names[RM_DEV_NTYPES] = {
	[RM_DEV_GPU] = "gpu", [RM_DEV_NIC] = "nic", [RM_DEV_IB] = "ib", [RM_DEV_FPGA] = "fpga",
	[RM_DEV_ACCEL] = "accel", [RM_DEV_NVME] = "nvme",
	[RM_DEV_VFIO] = "vfio", [RM_DEV_OTHER] = "other",
};

const char *rm_devices_type_name(enum rm_device_type type)
{
	return type >= 0 && type < RM_DEV_NTYPES ? type_names[type] : "other";
}

int rm_devices_type_parse(const char *name)
{
	for (int i = 0; i < RM_DEV_NTYPES; i++)
		if (!strcmp(name, type_names[i]))
			return i;
	return -1;
}

bool rm_devices_domain_valid(const char *d)
{
	size_t n = strlen(d), label = 0;

	if (n == 0 || n > 253 || !isalpha((unsigned char)d[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = d[i];

		if (ch == '.') {
			if (label == 0 || d[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!(islower((unsigned char)ch) || isdigit((unsigned char)ch) || ch == '-') ||
		    (label == 0 && ch == '-') || ++label > 63)
			return false;
	}
	return label > 0 && d[n - 1] != '-';
}

/* ---- addresses ---- */

static int addr_fields(const char *s, unsigned *dom, unsigned *bus, unsigned *slot, unsigned *fn)
{
	const char *p = s;
	unsigned long v[4];
	int n = 0, digits;
	char *end;

	/* [DOMAIN:]BUS:SLOT.FUNC, hex, no sign or blanks */
	for (;;) {
		if (!isxdigit((unsigned char)*p))
			return -1;
		errno = 0;
		v[n] = strtoul(p, &end, 16);
		digits = (int)(end - p);
		if (errno || digits > 8)
			return -1;
		n++;
		p = end;
		if (*p == ':' && n < 3) {
			p++;
			continue;
		}
		if (*p == '.' && n >= 2 && n <= 3) {
			p++;
			if (!isxdigit((unsigned char)*p) || p[1])
				return -1;
			v[n++] = strtoul(p, NULL, 16);
			break;
		}
		return -1;
	}
	if (n == 3) { /* BUS:SLOT.FUNC */
		v[3] = v[2], v[2] = v[1], v[1] = v[0], v[0] = 0;
	}
	if (v[1] > 0xff || v[2] > 0x1f || v[3] > 7)
		return -1;
	*dom = (unsigned)v[0], *bus = (unsigned)v[1], *slot = (unsigned)v[2], *fn = (unsigned)v[3];
	return 0;
}

int rm_devices_addr_parse(const char *s, char *buf)
{
	unsigned dom, bus, slot, fn;

	if (addr_fields(s, &dom, &bus, &slot, &fn) < 0)
		return -1;
	snprintf(buf, 24, "%04x:%02x:%02x.%x", dom, bus, slot, fn);
	return 0;
}

static uint64_t addr_key(const char *addr)
{
	unsigned dom, bus, slot, fn;

	if (addr_fields(addr, &dom, &bus, &slot, &fn) < 0)
		return UINT64_MAX;
	return (uint64_t)dom << 16 | bus << 8 | slot << 3 | fn;
}

/* ---- reading one function's directory ---- */

/* NAME in directory DFD, trailing newlines and blanks removed; NULL when unreadable. */
static char *read_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	char buf[4096];
	ssize_t n;
	size_t len = 0;

	if (fd < 0)
		return NULL;
	/* sysfs attributes are one page at most and come whole from the first read, as a regular
	 * file's short read is its end: read again only while the buffer fills */
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += (size_t)n;
		if (len < sizeof(buf) - 1)
			break;
	}
	close(fd);
	if (n < 0)
		return NULL;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	return xstrdup(buf);
}

static long read_long_at(int dfd, const char *name, int base, long fallback)
{
	char *s = read_at(dfd, name), *end;
	long v;

	if (!s)
		return fallback;
	errno = 0;
	v = strtol(s, &end, base);
	if (errno || end == s || *end)
		v = fallback;
	free(s);
	return v;
}

/* The last component of the link NAME in DFD ("nvidia" for driver -> .../drivers/nvidia). */
static char *link_base_at(int dfd, const char *name)
{
	char buf[4096], *slash;
	ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	return xstrdup(slash ? slash + 1 : buf);
}

/* The entries of DIR (relative to DFD) whose names start with PREFIX, sorted; NULL-terminated,
 * NULL when none. */
static int cmp_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t i = 0;

	/* natural order: uverbs2 before uverbs10 */
	while (x[i] && x[i] == y[i] && !isdigit((unsigned char)x[i]))
		i++;
	if (isdigit((unsigned char)x[i]) && isdigit((unsigned char)y[i])) {
		unsigned long a1 = strtoul(x + i, NULL, 10), b1 = strtoul(y + i, NULL, 10);

		if (a1 != b1)
			return a1 < b1 ? -1 : 1;
	}
	return strcmp(x, y);
}

static char **list_at(int dfd, const char *dir, const char *prefix, size_t *count)
{
	int fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t n = 0, plen = strlen(prefix);
	char **names = NULL;
	struct dirent *e;
	DIR *d;

	*count = 0;
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return NULL;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, plen))
			continue;
		names = xrealloc(names, (n + 2) * sizeof(*names));
		names[n++] = xstrdup(e->d_name);
		names[n] = NULL;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	*count = n;
	return names;
}

static void free_list(char **names)
{
	for (char **p = names; p && *p; p++)
		free(*p);
	free(names);
}

/* The names in a function's directory, read once, so that absent attributes are not opened. */
struct entries {
	char **names; /* sorted */
	size_t n;
};

static bool has(const struct entries *e, const char *name)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(e->names[mid], name);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int cmp_plain(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_entries(int dfd, struct entries *e)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	e->names = NULL;
	e->n = 0;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (e->n == cap)
			e->names = xrealloc(e->names, (cap = cap ? 2 * cap : 64) * sizeof(char *));
		e->names[e->n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (e->n)
		qsort(e->names, e->n, sizeof(char *), cmp_plain);
}

static void free_entries(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->names[i]);
	free(e->names);
}

/* Append S to the comma list *LIST. */
static void list_add(char **list, const char *s)
{
	char *n = *list ? xasprintf("%s,%s", *list, s) : xstrdup(s);

	free(*list);
	*list = n;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static void add_node(struct rm_devnode **nodes, size_t *n, char kind, char *path, char *devfile,
		     int major, int minor)
{
	*nodes = xrealloc(*nodes, (*n + 1) * sizeof(**nodes));
	(*nodes)[(*n)++] = (struct rm_devnode){ path, kind, devfile, major, minor };
}

static bool has_node(const struct rm_devnode *nodes, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nodes[i].path, path))
			return true;
	return false;
}

/* Vendors whose VGA and display controllers are compute GPUs, not a BMC's frame buffer. */
static bool gpu_vendor(int vendor)
{
	return vendor == 0x10de || vendor == 0x1002 || vendor == 0x8086;
}

/* What the class code (and vendor) says, before looking at links and ports. */
static enum rm_device_type class_type(unsigned cls, int vendor)
{
	unsigned base = cls >> 16, sub = (cls >> 8) & 0xff;

	/* FPGAs have no class of their own: Xilinx/AMD and Intel/Altera cards, whatever they say */
	if ((vendor == 0x10ee || vendor == 0x1172) && base != 0x06)
		return RM_DEV_FPGA;
	switch (base) {
	case 0x03:
		return sub == 0x02 || gpu_vendor(vendor) ? RM_DEV_GPU : RM_DEV_OTHER;
	case 0x02:
		return sub == 0x07 ? RM_DEV_IB : RM_DEV_NIC;
	case 0x12:
		return RM_DEV_ACCEL;
	case 0x0b:
		return sub == 0x40 ? RM_DEV_ACCEL : RM_DEV_OTHER;
	case 0x01:
		return sub == 0x08 ? RM_DEV_NVME : RM_DEV_OTHER;
	default:
		return RM_DEV_OTHER;
	}
}

/* "16.0 GT/s PCIe" as "16.0GT/s"; NULL for "Unknown". */
static char *link_speed(char *s)
{
	char *o = s, *p;

	if (!s)
		return NULL;
	if ((p = strstr(s, " PCIe")))
		*p = '\0';
	for (p = s; *p; p++)
		if (*p != ' ')
			*o++ = *p;
	*o = '\0';
	if (!*s || !isdigit((unsigned char)*s)) {
		free(s);
		return NULL;
	}
	return s;
}

/* The number of bridges in a path "A/B/C". */
static size_t path_depth(const char *path)
{
	size_t n = 0;

	if (!path || !*path)
		return 0;
	for (n = 1; *path; path++)
		n += *path == '/';
	return n;
}

/* The root and the bridges above the function from its sys/bus/pci/devices link:
 * ../../../devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:1a:00.0 */
static void read_place(struct rm_device *d, int busfd, const char *name)
{
	char buf[4096], *save = NULL, *tok, tmp[24];
	ssize_t n = readlinkat(busfd, name, buf, sizeof(buf) - 1);

	if (n <= 0)
		return; /* a copied directory: the place is unknown */
	buf[n] = '\0';
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strncmp(tok, "pci", 3) && strchr(tok, ':') && !strchr(tok, '.')) {
			/* a host bridge (the last one, under a VMD domain): a new root */
			free(d->root);
			free(d->path);
			d->root = xstrdup(tok + 3);
			d->path = NULL;
		} else if (d->root && rm_devices_addr_parse(tok, tmp) == 0 &&
			   strcmp(tmp, d->addr)) {
			list_add(&d->path, tmp);
		}
	}
	if (!d->root)
		return;
	if (!d->path) {
		d->path = xstrdup("");
		return;
	}
	/* the switch: the upstream port above the device's own downstream port (root port,
	 * upstream port, downstream port: three bridges at least) */
	for (char *p = d->path; *p; p++)
		if (*p == ',')
			*p = '/';
	if (path_depth(d->path) >= 3) {
		char *last = strrchr(d->path, '/'), *prev;

		*last = '\0';
		prev = strrchr(d->path, '/');
		d->sw = xstrdup(prev + 1);
		*last = '/';
	}
}

/* InfiniBand: the HCA's name, its ports' states and link layers. */
static void read_ib(struct rm_device *d, int dfd, const struct entries *e)
{
	size_t nhca, nports;
	char **hca = has(e, "infiniband") ? list_at(dfd, "infiniband", "", &nhca) : NULL, **ports;
	char *dir;

	if (!hca)
		return;
	d->rdma = xstrdup(hca[0]);
	dir = xasprintf("infiniband/%s/ports", hca[0]);
	ports = list_at(dfd, dir, "", &nports);
	for (size_t i = 0; i < nports; i++) {
		char *f = xasprintf("%s/%s/state", dir, ports[i]), *v = read_at(dfd, f), *c;

		/* "4: ACTIVE" */
		c = v ? strchr(v, ':') : NULL;
		if (v) {
			char *s = c ? c + 1 + strspn(c + 1, " ") : v;
			lower(s);
			list_add(&d->ib_state, s);
		}
		free(v);
		free(f);
		f = xasprintf("%s/%s/link_layer", dir, ports[i]);
		v = read_at(dfd, f);
		if (v) {
			lower(v);
			list_add(&d->link_layer, v);
		}
		free(v);
		free(f);
	}
	free_list(ports);
	free(dir);
	free_list(hca);
}

/* Network interfaces: net/, and virtio's net/ one level down. */
static void read_netdevs(struct rm_device *d, int dfd, const struct entries *e)
{
	size_t n;
	char **names;

	if (has(e, "net")) {
		names = list_at(dfd, "net", "", &n);
		for (size_t i = 0; i < n; i++)
			list_add(&d->netdevs, names[i]);
		free_list(names);
	}
	for (size_t i = 0; i < e->n; i++) {
		char *dir;

		if (strncmp(e->names[i], "virtio", 6))
			continue;
		dir = xasprintf("%s/net", e->names[i]);
		names = list_at(dfd, dir, "", &n);
		for (size_t k = 0; k < n; k++)
			list_add(&d->netdevs, names[k]);
		free_list(names);
		free(dir);
	}
}

/* Character devices of a class directory below the function: drm/renderD*, accel/accel*,
 * infiniband_verbs/uverbs*, nvme/nvme* (and their namespaces, block devices). */
static void read_class_nodes(struct rm_device *d, int dfd, const struct entries *e,
			     const char *rel, const char *cls, const char *prefix, const char *devdir)
{
	size_t n = 0;
	/* a directory one level down (virtio0/drm) is looked for without the listing */
	char **names = strchr(cls, '/') || has(e, cls) ? list_at(dfd, cls, prefix, &n) : NULL;

	for (size_t i = 0; i < n; i++) {
		add_node(&d->nodes, &d->nnodes, 'c', xasprintf("/dev/%s%s", devdir, names[i]),
			 xasprintf("%s/%s/%s/dev", rel, cls, names[i]), -1, -1);
		if (!strcmp(cls, "nvme")) {
			size_t nns;
			char *sub = xasprintf("%s/%s", cls, names[i]);
			char **ns = list_at(dfd, sub, names[i], &nns);

			for (size_t k = 0; k < nns; k++)
				if (ns[k][strlen(names[i])] == 'n') /* not nvme0c0n1 */
					add_node(&d->nodes, &d->nnodes, 'b',
						 xasprintf("/dev/%s", ns[k]),
						 xasprintf("%s/%s/%s/dev", rel, sub, ns[k]), -1, -1);
			free_list(ns);
			free(sub);
		}
	}
	free_list(names);
}

/* The DRM directories of the function: drm/, or virtioN/drm/ for a virtio device (virtio-gpu),
 * whose DRM device is the virtio device's child, not the PCI function's. */
static char **drm_dirs(const struct entries *e, size_t *n)
{
	char **dirs = xcalloc(e->n + 2, sizeof(*dirs));

	*n = 0;
	if (has(e, "drm"))
		dirs[(*n)++] = xstrdup("drm");
	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->names[i], "virtio", 6))
			dirs[(*n)++] = xasprintf("%s/drm", e->names[i]);
	return dirs;
}

/* /dev/dri/cardN and /dev/dri/renderDN of the function's DRM devices. */
static void read_drm_nodes(struct rm_device *d, int dfd, const struct entries *e, const char *rel)
{
	size_t n;
	char **dirs = drm_dirs(e, &n);

	for (size_t i = 0; i < n; i++) {
		read_class_nodes(d, dfd, e, rel, dirs[i], "card", "dri/");
		read_class_nodes(d, dfd, e, rel, dirs[i], "renderD", "dri/");
	}
	free_list(dirs);
}

/* Whether the function has a DRM card or render node: a display controller that is a GPU
 * whatever its subclass (virtio-gpu is 0x0380, "other display controller"). */
static bool has_drm_node(int dfd, const struct entries *e)
{
	size_t n, k = 0;
	char **dirs = drm_dirs(e, &n);

	for (size_t i = 0; i < n && !k; i++) {
		char **c = list_at(dfd, dirs[i], "card", &k), **r;

		free_list(c);
		if (!k) {
			r = list_at(dfd, dirs[i], "renderD", &k);
			free_list(r);
		}
	}
	free_list(dirs);
	return k > 0;
}

/* The NVIDIA driver's minor for the GPU: /proc/driver/nvidia/gpus/ADDR/information. */
static int nvidia_minor(const char *sysroot, const char *addr)
{
	char *path = xasprintf("proc/driver/nvidia/gpus/%s/information", addr);
	char *s = rm_sysfs_read(sysroot, path), *p;
	int minor = -1;

	free(path);
	if (s && (p = strstr(s, "Device Minor:")))
		minor = (int)strtol(p + 13, NULL, 10);
	free(s);
	return minor;
}

/* The major of a character device driver in /proc/devices ("nvidia-uvm"), or -1. */
static int proc_major(const char *sysroot, const char *name)
{
	char *s = rm_sysfs_read(sysroot, "proc/devices"), *line, *save = NULL;
	int major = -1;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line && major < 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char drv[64];
		int m;

		if (!strncmp(line, "Block", 5))
			break;
		if (sscanf(line, "%d %63s", &m, drv) == 2 && !strcmp(drv, name))
			major = m;
	}
	free(s);
	return major;
}

static void read_nodes(struct rm_device *d, const char *sysroot, int dfd,
		       const struct entries *e, const char *rel, int *uvm_major)
{
	if (d->driver && !strcmp(d->driver, "nvidia")) {
		int minor = nvidia_minor(sysroot, d->addr);

		/* without the driver's file the minor is filled in by address order later */
		add_node(&d->nodes, &d->nnodes, 'c',
			 minor >= 0 ? xasprintf("/dev/nvidia%d", minor) : NULL, NULL, 195, minor);
		if (*uvm_major == -2)
			*uvm_major = proc_major(sysroot, "nvidia-uvm");
		add_node(&d->shared, &d->nshared, 'c', xstrdup("/dev/nvidiactl"), NULL, 195, 255);
		add_node(&d->shared, &d->nshared, 'c', xstrdup("/dev/nvidia-uvm"), NULL, *uvm_major,
			 *uvm_major >= 0 ? 0 : -1);
		add_node(&d->shared, &d->nshared, 'c', xstrdup("/dev/nvidia-uvm-tools"), NULL,
			 *uvm_major, *uvm_major >= 0 ? 1 : -1);
	}
	read_drm_nodes(d, dfd, e, rel);
	read_class_nodes(d, dfd, e, rel, "accel", "accel", "accel/");
	read_class_nodes(d, dfd, e, rel, "infiniband_verbs", "uverbs", "infiniband/");
	read_class_nodes(d, dfd, e, rel, "nvme", "nvme", "");
	if (d->driver && !strcmp(d->driver, "amdgpu"))
		add_node(&d->shared, &d->nshared, 'c', xstrdup("/dev/kfd"),
			 xstrdup("sys/class/kfd/kfd/dev"), -1, -1);
	if (d->rdma && !has_node(d->shared, d->nshared, "/dev/infiniband/rdma_cm"))
		add_node(&d->shared, &d->nshared, 'c', xstrdup("/dev/infiniband/rdma_cm"),
			 xstrdup("sys/class/misc/rdma_cm/dev"), -1, -1);
	if (d->driver && !strcmp(d->driver, "vfio-pci") && d->iommu_group >= 0) {
		add_node(&d->nodes, &d->nnodes, 'c', xasprintf("/dev/vfio/%d", d->iommu_group),
			 xasprintf("sys/class/vfio/%d/dev", d->iommu_group), -1, -1);
		add_node(&d->shared, &d->nshared, 'c', xstrdup("/dev/vfio/vfio"), NULL, 10, 196);
	}
}

/* The largest memory BAR from "resource": one "start end flags" line per region. */
static uint64_t largest_bar(int dfd)
{
	char *s = read_at(dfd, "resource"), *line, *save = NULL;
	uint64_t best = 0;
	int i = 0;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line && i < 6;
	     line = strtok_r(NULL, "\n", &save), i++) {
		unsigned long long start, end, flags;

		if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) == 3 && end > start &&
		    (flags & 0x200) && end - start + 1 > best) /* IORESOURCE_MEM */
			best = end - start + 1;
	}
	free(s);
	return best;
}

/* PCI_CLASS=30200, PCI_ID=10DE:20B0 and PCI_SUBSYS_ID=10DE:1234 of the function's uevent;
 * false when it has no uevent with them (a tree without one: the attribute files then). */
static bool read_uevent(struct rm_device *d, int dfd)
{
	char *s = read_at(dfd, "uevent"), *line, *save = NULL;
	unsigned cls = 0, v = 0, p = 0, sv = 0, sp = 0;
	int got = 0;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "PCI_CLASS=%x", &cls) == 1)
			got |= 1;
		else if (sscanf(line, "PCI_ID=%x:%x", &v, &p) == 2)
			got |= 2;
		else if (sscanf(line, "PCI_SUBSYS_ID=%x:%x", &sv, &sp) == 2)
			got |= 4;
	}
	free(s);
	if (got != 7)
		return false;
	d->class_code = cls;
	d->vendor = (int)v;
	d->product = (int)p;
	d->subvendor = (int)sv;
	d->subproduct = (int)sp;
	return true;
}

/* Read the function NAME of BUSFD (sys/bus/pci/devices); 0 when kept, -1 when left out. */
static int read_device(struct rm_device *d, const char *sysroot, int busfd, const char *name,
		       unsigned flags, int *uvm_major)
{
	struct entries e;
	char *s, *rel;
	int dfd;

	memset(d, 0, sizeof(*d));
	if (rm_devices_addr_parse(name, d->addr) < 0)
		return -1;
	dfd = openat(busfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	/* uevent says in one read what class, vendor, device and subsystem_* say in five */
	if (!read_uevent(d, dfd)) {
		d->class_code = (unsigned)read_long_at(dfd, "class", 16, 0xffffff);
		d->vendor = (int)read_long_at(dfd, "vendor", 16, -1);
		d->product = (int)read_long_at(dfd, "device", 16, -1);
		d->subvendor = (int)read_long_at(dfd, "subsystem_vendor", 16, -1);
		d->subproduct = (int)read_long_at(dfd, "subsystem_device", 16, -1);
	}
	d->type = class_type(d->class_code, d->vendor);
	d->driver = link_base_at(dfd, "driver");
	read_entries(dfd, &e);
	if (d->type == RM_DEV_OTHER && d->class_code >> 16 == 0x03 && has_drm_node(dfd, &e))
		d->type = RM_DEV_GPU;
	/* an FPGA behind a generic class: the Linux FPGA framework or DFL knows it */
	if ((d->type == RM_DEV_ACCEL || d->type == RM_DEV_OTHER) &&
	    ((d->driver && !strcmp(d->driver, "dfl-pci")) || faccessat(dfd, "fpga_region", F_OK, 0) == 0))
		d->type = RM_DEV_FPGA;
	/* bound to vfio-pci, the function is the guest's or a user-space driver's, whatever its
	 * class: only its /dev/vfio group is of use on the host (class and vendor stay) */
	if (d->driver && !strcmp(d->driver, "vfio-pci"))
		d->type = RM_DEV_VFIO;
	if (d->type == RM_DEV_OTHER && !(flags & RM_DEVICES_ALL)) {
		free(d->driver);
		d->driver = NULL;
		free_entries(&e);
		close(dfd);
		return -1;
	}
	d->key = addr_key(d->addr);
	d->numa = (int)read_long_at(dfd, "numa_node", 10, -1);
	if (d->numa < 0)
		d->numa = -1;
	if ((s = read_at(dfd, "local_cpulist"))) {
		d->cpus = hwloc_bitmap_alloc();
		if (rm_cpulist_parse_list(s, d->cpus, NULL) < 0) {
			hwloc_bitmap_free(d->cpus);
			d->cpus = NULL;
		}
		free(s);
	}
	read_place(d, busfd, name);
	s = has(&e, "iommu_group") ? link_base_at(dfd, "iommu_group") : NULL;
	d->iommu_group = s ? (int)strtol(s, NULL, 10) : -1;
	free(s);
	if (has(&e, "current_link_speed"))
		d->link_speed = link_speed(read_at(dfd, "current_link_speed"));
	d->link_width = has(&e, "current_link_width") ?
			(int)read_long_at(dfd, "current_link_width", 10, -1) : -1;
	d->numvfs = d->totalvfs = -1;
	if (has(&e, "physfn") && (d->pf = link_base_at(dfd, "physfn"))) {
		char tmp[24];

		d->sriov = RM_SRIOV_VF;
		if (rm_devices_addr_parse(d->pf, tmp) == 0) {
			free(d->pf);
			d->pf = xstrdup(tmp);
		}
	} else if (has(&e, "sriov_totalvfs") &&
		   (d->totalvfs = (int)read_long_at(dfd, "sriov_totalvfs", 10, -1)) >= 0) {
		d->sriov = RM_SRIOV_PF;
		d->numvfs = (int)read_long_at(dfd, "sriov_numvfs", 10, -1);
	}
	/* bridges and the like (--all) have no interfaces, ports or device nodes of interest */
	if (d->type != RM_DEV_OTHER) {
		read_netdevs(d, dfd, &e);
		read_ib(d, dfd, &e);
		/* a VPI adapter's class follows its firmware's link type; its ports say what it
		 * is now */
		if ((d->type == RM_DEV_IB || d->type == RM_DEV_NIC) && d->link_layer)
			d->type = strstr(d->link_layer, "infiniband") ? RM_DEV_IB : RM_DEV_NIC;
		rel = xasprintf("sys/bus/pci/devices/%s", name);
		read_nodes(d, sysroot, dfd, &e, rel, uvm_major);
		free(rel);
		if (has(&e, "mem_info_vram_total") && (s = read_at(dfd, "mem_info_vram_total"))) {
			d->memory = strtoull(s, NULL, 10); /* amdgpu */
			free(s);
		}
	}
	d->bar = largest_bar(dfd);
	free_entries(&e);
	close(dfd);
	return 0;
}

static int cmp_devices(const void *a, const void *b)
{
	const struct rm_device *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* libpci's message hooks, which pci_init would set: we call no more than the name lookups */
__attribute__((format(printf, 1, 2)))
static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

__attribute__((noreturn, format(printf, 1, 2)))
static void pci_fatal(char *msg, ...)
{
	va_list ap;

	fprintf(stderr, "%s: libpci: ", program_invocation_short_name);
	va_start(ap, msg);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(RM_EXIT_FAILURE);
}

/*
 * libpci is opened with dlopen at the first name lookup rather than linked: only the listings
 * with names need it, and linked it adds to the start-up of every command of the tools that
 * list devices. Its soname has been libpci.so.3 since pciutils 3.0.
 */
#define LIBPCI_FUNCTIONS(X) \
	X(pci_alloc) \
	X(pci_cleanup) \
	X(pci_lookup_name)

static struct {
#define X(f) __typeof__(f) *f;
	LIBPCI_FUNCTIONS(X)
#undef X
} lpci;

static void lookup_names(struct rm_devices *devs)
{
	struct pci_access *pa;
	char buf[256];

	RM_DL_LOAD(lpci, "libpci.so.3", LIBPCI_FUNCTIONS);
	pa = lpci.pci_alloc();
	/* no pci_init: it would scan the bus for a second time; names need only the ids file */
	pa->error = pci_fatal;
	pa->warning = pci_quiet;
	pa->debug = pci_quiet;
	devs->pci = pa;
	for (size_t i = 0; i < devs->n; i++) {
		struct rm_device *d = &devs->dev[i];
		const char *s;

		if (d->vendor < 0)
			continue;
		/* pci.ids only, as the issue and lspci -nn without udev: no hwdb, no network */
		s = lpci.pci_lookup_name(pa, buf, sizeof(buf),
				    PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
				    d->vendor);
		if (s)
			d->vendor_name = xstrdup(s);
		if (d->product < 0)
			continue;
		s = lpci.pci_lookup_name(pa, buf, sizeof(buf),
				    PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
				    d->vendor, d->product);
		if (s)
			d->product_name = xstrdup(s);
	}
}

/* ---- GPU memory from NVML ---- */

/* The few parts of nvml.h used here; libnvidia-ml.so.1 is loaded when asked for, not linked. */
typedef int nvml_return;                /* nvmlReturn_t: NVML_SUCCESS is 0 */
typedef struct nvml_device *nvml_device; /* nvmlDevice_t */
struct nvml_memory {                    /* nvmlMemory_t, in bytes */
	unsigned long long total, free, used;
};

struct nvml {
	void *lib;
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*by_bus_id)(const char *bus_id, nvml_device *dev);
	nvml_return (*memory_info)(nvml_device dev, struct nvml_memory *mem);
	const char *(*error_string)(nvml_return rc);
};

/* "cannot read GPU memory from NVML: FUNCTION: ERROR (CODE)", once per scan. */
static void nvml_warn(const struct nvml *n, const char *what, const char *addr, nvml_return rc)
{
	const char *s = n->error_string ? n->error_string(rc) : NULL;

	rm_warnx("warning: cannot read GPU memory from NVML: %s%s%s%s: %s (%d)", what, addr ? ": '" : "", addr ? addr : "",
		addr ? "'" : "", s ? s : "error", rc);
}

/* The memory of the nvidia driver's GPUs whose memory is unknown, as device plugins read it. */
static void nvml_memory(struct rm_devices *devs)
{
	struct nvml n = { 0 };
	size_t want = 0;
	nvml_return rc;
	bool warned = false;

	for (size_t i = 0; i < devs->n; i++)
		want += devs->dev[i].driver && !strcmp(devs->dev[i].driver, "nvidia") &&
			!devs->dev[i].memory;
	if (!want || !(n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)))
		return; /* no NVML: the memory stays unknown */
	*(void **)&n.init = dlsym(n.lib, "nvmlInit_v2");
	*(void **)&n.shutdown = dlsym(n.lib, "nvmlShutdown");
	*(void **)&n.by_bus_id = dlsym(n.lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&n.memory_info = dlsym(n.lib, "nvmlDeviceGetMemoryInfo");
	*(void **)&n.error_string = dlsym(n.lib, "nvmlErrorString");
	if (!n.init || !n.shutdown || !n.by_bus_id || !n.memory_info) {
		rm_warnx("warning: cannot read GPU memory from NVML: libnvidia-ml.so.1 "
			"lacks %s",
			!n.init ? "nvmlInit_v2" : !n.shutdown ? "nvmlShutdown" :
			!n.by_bus_id ? "nvmlDeviceGetHandleByPciBusId_v2" :
				       "nvmlDeviceGetMemoryInfo");
		dlclose(n.lib);
		return;
	}
	if ((rc = n.init())) {
		nvml_warn(&n, "nvmlInit_v2", NULL, rc);
		dlclose(n.lib);
		return;
	}
	for (size_t i = 0; i < devs->n; i++) {
		struct rm_device *d = &devs->dev[i];
		struct nvml_memory mem = { 0 };
		unsigned dom, bus, slot, fn;
		nvml_device h = NULL;
		char id[32];

		if (!d->driver || strcmp(d->driver, "nvidia") || d->memory ||
		    addr_fields(d->addr, &dom, &bus, &slot, &fn) < 0)
			continue;
		/* NVML's bus id form: an 8-digit domain, upper case */
		snprintf(id, sizeof(id), "%08X:%02X:%02X.%X", dom, bus, slot, fn);
		if ((rc = n.by_bus_id(id, &h))) {
			if (!warned)
				nvml_warn(&n, "nvmlDeviceGetHandleByPciBusId_v2", d->addr, rc);
			warned = true;
		} else if ((rc = n.memory_info(h, &mem))) {
			if (!warned)
				nvml_warn(&n, "nvmlDeviceGetMemoryInfo", d->addr, rc);
			warned = true;
		} else {
			d->memory = mem.total;
		}
	}
	n.shutdown();
	dlclose(n.lib);
}

int rm_devices_scan(const char *sysroot, unsigned flags, struct rm_devices *devs, char **errmsg)
{
	char *dir;
	struct dirent *e;
	int busfd, uvm_major = -2, nvidia = 0, index[RM_DEV_NTYPES] = { 0 };
	size_t cap = 0;
	DIR *d;

	memset(devs, 0, sizeof(*devs));
	if (sysroot && *sysroot) {
		struct stat st;

		if (stat(sysroot, &st) < 0 || !S_ISDIR(st.st_mode)) {
			*errmsg = xasprintf("not a directory: '%s'", sysroot);
			return -1;
		}
	}
	dir = rm_sysfs_path(sysroot, "sys/bus/pci/devices");
	d = opendir(dir);
	free(dir);
	if (!d)
		return 0; /* no PCI bus */
	busfd = dirfd(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (devs->n == cap)
			devs->dev = xrealloc(devs->dev, (cap = cap ? 2 * cap : 64) * sizeof(*devs->dev));
		if (read_device(&devs->dev[devs->n], sysroot, busfd, e->d_name, flags,
				&uvm_major) == 0)
			devs->n++;
	}
	closedir(d);
	if (devs->n)
		qsort(devs->dev, devs->n, sizeof(*devs->dev), cmp_devices);
	for (size_t i = 0; i < devs->n; i++) {
		struct rm_device *dv = &devs->dev[i];

		dv->index = index[dv->type]++;
		/* an NVIDIA GPU whose minor the driver did not say: the driver numbers them in
		 * probe order, which is address order */
		if (dv->nnodes && !dv->nodes[0].path && dv->nodes[0].major == 195) {
			dv->nodes[0].minor = nvidia;
			dv->nodes[0].path = xasprintf("/dev/nvidia%d", nvidia);
		}
		if (dv->driver && !strcmp(dv->driver, "nvidia"))
			nvidia++;
	}
	if (flags & RM_DEVICES_NAMES)
		lookup_names(devs);
	/* NVML answers for this machine only: a sysroot's GPUs are another machine's */
	if ((flags & RM_DEVICES_MEMORY) && !(sysroot && *sysroot))
		nvml_memory(devs);
	return 0;
}

static void free_nodes(struct rm_devnode *n, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(n[i].path);
		free(n[i].devfile);
	}
	free(n);
}

void rm_devices_free(struct rm_devices *devs)
{
	for (size_t i = 0; i < devs->n; i++) {
		struct rm_device *d = &devs->dev[i];

		free(d->vendor_name);
		free(d->product_name);
		free(d->driver);
		if (d->cpus)
			hwloc_bitmap_free(d->cpus);
		free(d->root);
		free(d->path);
		free(d->sw);
		free(d->link_speed);
		free(d->pf);
		free_nodes(d->nodes, d->nnodes);
		free_nodes(d->shared, d->nshared);
		free(d->netdevs);
		free(d->rdma);
		free(d->ib_state);
		free(d->link_layer);
	}
	free(devs->dev);
	if (devs->pci)
		lpci.pci_cleanup(devs->pci);
	memset(devs, 0, sizeof(*devs));
}

struct rm_device *rm_devices_find(const struct rm_devices *devs, const char *addr)
{
	for (size_t i = 0; i < devs->n; i++)
		if (!strcmp(devs->dev[i].addr, addr))
			return &devs->dev[i];
	return NULL;
}

char *rm_devices_name(const struct rm_device *d)
{
	return xasprintf("%s%d", rm_devices_type_name(d->type), d->index);
}

/* ---- places ---- */

/* The number of leading bridges two paths share. */
static size_t common_bridges(const char *a, const char *b)
{
	size_t n = 0;

	if (!*a || !*b)
		return 0;
	for (;;) {
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");

		if (la != lb || strncmp(a, b, la))
			return n;
		n++;
		if (!a[la] || !b[lb])
			return n;
		a += la + 1;
		b += lb + 1;
	}
}

const char *rm_devices_link(const struct rm_device *a, const struct rm_device *b)
{
	bool same_node = a->numa >= 0 && a->numa == b->numa;
	size_t k;

	if (!strcmp(a->addr, b->addr))
		return "X";
	if (a->numa >= 0 && b->numa >= 0 && a->numa != b->numa)
		return "SYS";
	if (!a->root || !b->root || strcmp(a->root, b->root))
		return same_node ? "NODE" : "SYS";
	k = common_bridges(a->path, b->path);
	if (k == 0)
		return "PHB";
	/* below one switch: at most one port each under the bridge they share */
	if (path_depth(a->path) - k <= 1 && path_depth(b->path) - k <= 1)
		return "PIX";
	return "PXB";
}

int rm_devices_node_number(const char *sysroot, const struct rm_devnode *n, int *maj,
			   int *min)
{
	char *s;
	int rc = -1;

	if (!n->devfile) {
		*maj = n->major;
		*min = n->minor;
		return n->major >= 0 && n->minor >= 0 ? 0 : -1;
	}
	s = rm_sysfs_read(sysroot, n->devfile);
	if (s && sscanf(s, "%d:%d", maj, min) == 2)
		rc = 0;
	free(s);
	if (rc < 0 && (!sysroot || !*sysroot)) {
		struct stat st; /* this machine: the node itself */

		if (stat(n->path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
			*maj = (int)major(st.st_rdev);
			*min = (int)minor(st.st_rdev);
			rc = 0;
		}
	}
	return rc;
}

/* ---- records ---- */

enum {
	DC_DEVICE, DC_TYPE, DC_NAME, DC_VENDOR, DC_PRODUCT, DC_VENDOR_NAME, DC_PRODUCT_NAME,
	DC_DRIVER, DC_NUMA, DC_CPUS, DC_ROOT, DC_IOMMU_GROUP, DC_DEV_NODES, DC_SWITCH, DC_PATH,
	DC_LINK_SPEED, DC_LINK_WIDTH, DC_SRIOV, DC_VFS, DC_TOTAL_VFS, DC_PF, DC_NETDEVS, DC_RDMA,
	DC_IB_STATE, DC_LINK_LAYER, DC_MEMORY, DC_BAR, DC_CLASS, DC_SUBVENDOR, DC_SUBPRODUCT,
	DC_SHARED_NODES, DC_COUNT
};

const struct rm_column rm_devices_columns[] = {
	[DC_DEVICE] = { "device", RM_COL_STRING, "PCI address (domain:bus:slot.function)" },
	[DC_TYPE] = { "type", RM_COL_STRING, "gpu, nic, ib, fpga, accel, nvme, vfio or other" },
	[DC_NAME] = { "name", RM_COL_STRING, "type and index among its type by address (gpu0)" },
	[DC_VENDOR] = { "vendor", RM_COL_STRING, "PCI vendor id, 4 hex digits" },
	[DC_PRODUCT] = { "product", RM_COL_STRING, "PCI device id, 4 hex digits" },
	[DC_VENDOR_NAME] = { "vendor_name", RM_COL_STRING, "vendor name from pci.ids" },
	[DC_PRODUCT_NAME] = { "product_name", RM_COL_STRING, "device name from pci.ids" },
	[DC_DRIVER] = { "driver", RM_COL_STRING, "bound driver" },
	[DC_NUMA] = { "numa", RM_COL_INT, "NUMA node (- when the kernel says none)" },
	[DC_CPUS] = { "cpus", RM_COL_SET, "local CPUs (local_cpulist)" },
	[DC_ROOT] = { "root", RM_COL_STRING, "PCI root (host bridge) domain:bus" },
	[DC_IOMMU_GROUP] = { "iommu_group", RM_COL_INT, "IOMMU group" },
	[DC_DEV_NODES] = { "dev_nodes", RM_COL_STRING, "its own device nodes" },
	[DC_SWITCH] = { "switch", RM_COL_STRING, "upstream port of the PCIe switch above it" },
	[DC_PATH] = { "path", RM_COL_STRING, "bridges from the root down to it" },
	[DC_LINK_SPEED] = { "link_speed", RM_COL_STRING, "current PCIe link speed" },
	[DC_LINK_WIDTH] = { "link_width", RM_COL_INT, "current PCIe link width (lanes)" },
	[DC_SRIOV] = { "sriov", RM_COL_STRING, "SR-IOV role: pf, vf or no" },
	[DC_VFS] = { "vfs", RM_COL_INT, "PF: virtual functions enabled (sriov_numvfs)" },
	[DC_TOTAL_VFS] = { "total_vfs", RM_COL_INT, "PF: virtual functions possible" },
	[DC_PF] = { "pf", RM_COL_STRING, "VF: its physical function" },
	[DC_NETDEVS] = { "netdevs", RM_COL_STRING, "network interfaces" },
	[DC_RDMA] = { "rdma", RM_COL_STRING, "RDMA (InfiniBand verbs) device" },
	[DC_IB_STATE] = { "ib_state", RM_COL_STRING, "InfiniBand port states, per port" },
	[DC_LINK_LAYER] = { "link_layer", RM_COL_STRING, "port link layers: infiniband, ethernet" },
	[DC_MEMORY] = { "memory", RM_COL_SIZE, "GPU memory, where sysfs (amdgpu) or NVML (nvidia) states it" },
	[DC_BAR] = { "bar", RM_COL_SIZE, "size of its largest memory BAR" },
	[DC_CLASS] = { "class", RM_COL_STRING, "PCI class code, 6 hex digits" },
	[DC_SUBVENDOR] = { "subvendor", RM_COL_STRING, "PCI subsystem vendor id" },
	[DC_SUBPRODUCT] = { "subproduct", RM_COL_STRING, "PCI subsystem device id" },
	[DC_SHARED_NODES] = { "shared_nodes", RM_COL_STRING,
			      "device nodes every user of its driver needs" },
};
const size_t rm_devices_ncolumns = DC_COUNT;
const char rm_devices_defaults[] =
	"device,type,name,vendor,product,vendor_name,product_name,driver,numa,cpus,root,"
	"iommu_group,dev_nodes";

static char *hex4(int v)
{
	return v < 0 ? NULL : xasprintf("%04x", v);
}

static char *node_list(const struct rm_devnode *n, size_t count)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < count; i++) {
		char *t = xasprintf("%s%s%s", s, i ? "," : "", n[i].path);

		free(s);
		s = t;
	}
	return s;
}

/* Column I of D as record text (NULL: unknown), and its JSON-relevant type from the table. */
static char *column_text(const struct rm_device *d, int i, bool bytes)
{
	switch (i) {
	case DC_DEVICE: return xstrdup(d->addr);
	case DC_TYPE: return xstrdup(rm_devices_type_name(d->type));
	case DC_NAME: return rm_devices_name(d);
	case DC_VENDOR: return hex4(d->vendor);
	case DC_PRODUCT: return hex4(d->product);
	case DC_VENDOR_NAME: return d->vendor_name ? xstrdup(d->vendor_name) : NULL;
	case DC_PRODUCT_NAME: return d->product_name ? xstrdup(d->product_name) : NULL;
	case DC_DRIVER: return d->driver ? xstrdup(d->driver) : NULL;
	case DC_NUMA: return d->numa >= 0 ? xasprintf("%d", d->numa) : NULL;
	case DC_CPUS: return d->cpus ? rm_cpulist_format(d->cpus) : NULL;
	case DC_ROOT: return d->root ? xstrdup(d->root) : NULL;
	case DC_IOMMU_GROUP: return d->iommu_group >= 0 ? xasprintf("%d", d->iommu_group) : NULL;
	case DC_DEV_NODES: return node_list(d->nodes, d->nnodes);
	case DC_SWITCH: return d->sw ? xstrdup(d->sw) : NULL;
	case DC_PATH: return d->path ? xstrdup(d->path) : NULL;
	case DC_LINK_SPEED: return d->link_speed ? xstrdup(d->link_speed) : NULL;
	case DC_LINK_WIDTH: return d->link_width >= 0 ? xasprintf("%d", d->link_width) : NULL;
	case DC_SRIOV:
		return xstrdup(d->sriov == RM_SRIOV_PF ? "pf" : d->sriov == RM_SRIOV_VF ? "vf" : "no");
	case DC_VFS: return d->numvfs >= 0 ? xasprintf("%d", d->numvfs) : NULL;
	case DC_TOTAL_VFS: return d->totalvfs >= 0 ? xasprintf("%d", d->totalvfs) : NULL;
	case DC_PF: return d->pf ? xstrdup(d->pf) : NULL;
	case DC_NETDEVS: return xstrdup(d->netdevs ? d->netdevs : "");
	case DC_RDMA: return d->rdma ? xstrdup(d->rdma) : NULL;
	case DC_IB_STATE: return d->ib_state ? xstrdup(d->ib_state) : NULL;
	case DC_LINK_LAYER: return d->link_layer ? xstrdup(d->link_layer) : NULL;
	case DC_MEMORY:
		return !d->memory ? NULL : bytes ? xasprintf("%llu", (unsigned long long)d->memory)
						  : rm_size_format(d->memory);
	case DC_BAR:
		return !d->bar ? NULL : bytes ? xasprintf("%llu", (unsigned long long)d->bar)
					       : rm_size_format(d->bar);
	case DC_CLASS: return xasprintf("%06x", d->class_code);
	case DC_SUBVENDOR: return hex4(d->subvendor);
	case DC_SUBPRODUCT: return hex4(d->subproduct);
	case DC_SHARED_NODES: return node_list(d->shared, d->nshared);
	}
	return NULL;
}

void rm_devices_out(struct rm_out *out, const struct rm_device *d)
{
	rm_out_begin(out);
	for (int i = 0; i < DC_COUNT; i++) {
		char *s;

		switch (rm_devices_columns[i].type) {
		case RM_COL_INT:
			s = column_text(d, i, false);
			if (s)
				rm_out_int(out, i, strtoll(s, NULL, 10));
			free(s);
			break;
		case RM_COL_SIZE:
			if (i == DC_MEMORY && d->memory)
				rm_out_size(out, i, d->memory);
			else if (i == DC_BAR && d->bar)
				rm_out_size(out, i, d->bar);
			break;
		case RM_COL_SET:
			rm_out_set(out, i, d->cpus);
			break;
		default:
			s = column_text(d, i, false);
			rm_out_str(out, i, s);
			free(s);
		}
	}
	rm_out_end(out);
}

void rm_devices_record(const struct rm_device *d, struct rm_record *rec)
{
	rm_record_free(rec);
	for (int i = 0; i < DC_COUNT; i++) {
		char *s = column_text(d, i, false);

		rm_record_set(rec, rm_devices_columns[i].name, s ? s : "-");
		free(s);
	}
}
