/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health: what the kernel says of one PCI function (AER, links, power, slots, ports). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devhealth.h"
#include "kernfs.h"
#include "sysfs.h"
#include "xalloc.h"

/* A file of the function ADDR (sys/bus/pci/devices/ADDR/FILE), NULL when unreadable. */
static char *dev_read(const char *sysroot, const char *addr, const char *file)
{
	char *rel = xasprintf("sys/bus/pci/devices/%s/%s", addr, file), *s;

	s = rm_sysfs_read(sysroot, rel);
	free(rel);
	return s;
}

/* The number S holds, freed; -1 when none or negative. */
static int64_t take_number(char *s)
{
	char *end;
	long long v = -1;

	if (s) {
		errno = 0;
		v = strtoll(s, &end, 0);
		if (end == s || errno || v < 0)
			v = -1;
	}
	free(s);
	return v;
}

static int64_t dev_number(const char *sysroot, const char *addr, const char *file)
{
	return take_number(dev_read(sysroot, addr, file));
}

/* Append WORD to the comma list *LIST. */
static void list_add(char **list, const char *word)
{
	char *s = xasprintf("%s%s%s", *list ? *list : "", *list ? "," : "", word);

	free(*list);
	*list = s;
}

/*
 * aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal (drivers/pci/pcie/aer.c): one "NAME COUNT"
 * line per error kind and the TOTAL_ERR_* line. The total, -1 when the file is missing (no AER);
 * the kinds counted go to *KINDS.
 */
static int64_t aer_file(const char *sysroot, const char *addr, const char *file, char **kinds)
{
	char *s = dev_read(sysroot, addr, file), *save = NULL;
	int64_t total = -1;

	if (!s)
		return -1;
	for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[48];
		long long v;

		if (sscanf(line, "%47s %lld", name, &v) != 2 || v < 0)
			continue;
		if (!strncmp(name, "TOTAL_ERR_", 10)) {
			total = v;
		} else if (v > 0) {
			char *w = xasprintf("%s:%lld", name, v);

			list_add(kinds, w);
			free(w);
		}
	}
	free(s);
	return total;
}

/* "16.0 GT/s PCIe" as 16.0; 0 when unknown. */
static double link_speed(const char *sysroot, const char *addr, const char *file)
{
	char *s = dev_read(sysroot, addr, file);
	double v = s && isdigit((unsigned char)*s) ? strtod(s, NULL) : 0;

	free(s);
	return v;
}

/* A max_link_width; -1 for the kernel's PCIE_LNK_WIDTH_UNKNOWN (255: Link Capabilities read
 * as 0, as after an uncorrectable error) or none. */
static int64_t link_width(const char *sysroot, const char *addr, const char *file)
{
	int64_t w = dev_number(sysroot, addr, file);

	return w == 0xff ? -1 : w;
}

/*
 * The link between the downstream-facing port UP and the function DOWN below it: degraded when
 * it trained (DOWN's current_link_*) below the smaller of both ends' max_link_*. Its text, or
 * NULL. A link that reads no speed or width (down, or no PCIe capability) is not judged.
 */
static char *link_check(const char *sysroot, const char *up, const char *down)
{
	double cur = link_speed(sysroot, down, "current_link_speed");
	double max = link_speed(sysroot, down, "max_link_speed");
	double umax = link_speed(sysroot, up, "max_link_speed");
	int64_t w = dev_number(sysroot, down, "current_link_width");
	int64_t wmax = link_width(sysroot, down, "max_link_width");
	int64_t uwmax = link_width(sysroot, up, "max_link_width");

	if (cur <= 0 || max <= 0 || umax <= 0 || w <= 0 || wmax <= 0 || uwmax <= 0)
		return NULL;
	if (umax < max)
		max = umax;
	if (uwmax < wmax)
		wmax = uwmax;
	if (cur >= max && w >= wmax)
		return NULL;
	return xasprintf("%s:%gGT/s:x%lld<%gGT/s:x%lld", down, cur, (long long)w, max,
			 (long long)wmax);
}

/*
 * Every link from the root port down to the function: along root port, upstream port, downstream
 * port, ..., function, the links are those of each downstream-facing port (the root port, a
 * switch's downstream port: even places) with the function after it.
 */
static void links(const char *sysroot, struct rm_health *h)
{
	const struct rm_device *d = h->d;
	char *path = xasprintf("%s%s%s", d->path ? d->path : "", d->path ? "/" : "", d->addr);
	char *save = NULL, *prev = NULL;
	int i = 0;

	for (char *a = strtok_r(path, "/", &save); a; a = strtok_r(NULL, "/", &save), i++) {
		if (i % 2) {
			char *l = link_check(sysroot, prev, a);

			if (l) {
				list_add(&h->link, l);
				h->cond[RM_HC_LINK_DEGRADED] = true;
			}
			free(l);
		}
		prev = a;
	}
	free(path);
}

/* The hotplug slot of ADDR (sys/bus/pci/slots/NAME/address is its DOMAIN:BUS:DEV), when it has
 * one: an empty adapter or power off is a device pulled or failed (drivers/pci/hotplug). */
static void slot(const char *sysroot, struct rm_health *h)
{
	char *dir = rm_sysfs_path(sysroot, "sys/bus/pci/slots"), **names = NULL;
	int n = rm_kernfs_subdirs(dir, 0, NULL, &names);

	for (int i = 0; i < n && !h->slot; i++) {
		char *rel = xasprintf("sys/bus/pci/slots/%s/address", names[i]);
		char *a = rm_sysfs_read(sysroot, rel);

		free(rel);
		if (a && !strncmp(a, h->addr, strlen(a)) && h->addr[strlen(a)] == '.') {
			char *adapter, *power;

			h->slot = xstrdup(names[i]);
			rel = xasprintf("sys/bus/pci/slots/%s/adapter", names[i]);
			adapter = rm_sysfs_read(sysroot, rel);
			free(rel);
			rel = xasprintf("sys/bus/pci/slots/%s/power", names[i]);
			power = rm_sysfs_read(sysroot, rel);
			free(rel);
			if ((adapter && !strcmp(adapter, "0")) || (power && !strcmp(power, "0")))
				h->cond[RM_HC_SLOT_EMPTY] = true;
			free(adapter);
			free(power);
		}
		free(a);
	}
	rm_kernfs_names_free(names, n);
	free(dir);
}

static bool is_virtio(const char *name)
{
	return !strncmp(name, "virtio", 6);
}

/* FILE of the network interface IFC of ADDR: net/IFC/FILE of the function, else of its virtioN
 * child's net/ (a virtio-net interface is that child's), as rm-devices list found IFC. */
static char *ifc_read(const char *sysroot, const char *addr, const char *ifc, const char *file)
{
	char *rel = xasprintf("net/%s/%s", ifc, file), *s = dev_read(sysroot, addr, rel), *dir;
	char **kids = NULL;
	int n;

	free(rel);
	if (s)
		return s;
	rel = xasprintf("sys/bus/pci/devices/%s", addr);
	dir = rm_sysfs_path(sysroot, rel);
	free(rel);
	n = rm_kernfs_subdirs(dir, 0, is_virtio, &kids);
	for (int i = 0; !s && i < n; i++) {
		rel = xasprintf("%s/net/%s/%s", kids[i], ifc, file);
		s = dev_read(sysroot, addr, rel);
		free(rel);
	}
	rm_kernfs_names_free(kids, n);
	free(dir);
	return s;
}

static int64_t ifc_number(const char *sysroot, const char *addr, const char *ifc,
			  const char *file)
{
	return take_number(ifc_read(sysroot, addr, ifc, file));
}

/* Network interfaces up (IFF_UP in flags) without carrier or with operstate down; InfiniBand
 * ports whose state is not ACTIVE. */
static void ports(const char *sysroot, struct rm_health *h)
{
	const struct rm_device *d = h->d;
	char *list = d->netdevs ? xstrdup(d->netdevs) : NULL, *save = NULL, *dir, *full;
	char **hcas = NULL;
	int nh;

	for (char *ifc = list ? strtok_r(list, ",", &save) : NULL; ifc;
	     ifc = strtok_r(NULL, ",", &save)) {
		int64_t flags = ifc_number(sysroot, d->addr, ifc, "flags");
		int64_t carrier = ifc_number(sysroot, d->addr, ifc, "carrier");
		char *oper = ifc_read(sysroot, d->addr, ifc, "operstate");

		if (flags >= 0 && (flags & 1) &&
		    (carrier == 0 || (oper && (!strcmp(oper, "down") ||
					       !strcmp(oper, "lowerlayerdown"))))) {
			list_add(&h->ports_down, ifc);
			h->cond[RM_HC_PORT_DOWN] = true;
		}
		free(oper);
	}
	free(list);
	if (!d->rdma)
		return;
	dir = xasprintf("sys/bus/pci/devices/%s/infiniband", d->addr);
	full = rm_sysfs_path(sysroot, dir);
	nh = rm_kernfs_subdirs(full, 0, NULL, &hcas);
	free(full);
	for (int i = 0; i < nh; i++) {
		char *pdir = xasprintf("%s/%s/ports", dir, hcas[i]), **ports = NULL;

		int np;

		full = rm_sysfs_path(sysroot, pdir);
		np = rm_kernfs_subdirs(full, 0, NULL, &ports);

		for (int k = 0; k < np; k++) {
			char *f = xasprintf("infiniband/%s/ports/%s/state", hcas[i], ports[k]);
			char *s = dev_read(sysroot, d->addr, f);

			/* "4: ACTIVE" (drivers/infiniband/core/sysfs.c) */
			if (s && !strstr(s, "ACTIVE")) {
				char *p = xasprintf("%s/%s", hcas[i], ports[k]);

				list_add(&h->ports_down, p);
				free(p);
				h->cond[RM_HC_IB_PORT_DOWN] = true;
			}
			free(s);
			free(f);
		}
		rm_kernfs_names_free(ports, np);
		free(full);
		free(pdir);
	}
	rm_kernfs_names_free(hcas, nh);
	free(dir);
}

void rm_health_read(const char *sysroot, struct rm_health *h)
{
	const struct rm_device *d = h->d;
	char *root;

	for (int k = 0; k < RM_HN_N; k++) {
		h->count[k] = -1;
		h->rate[k] = -1;
	}
	h->nvme_warning = -1;
	h->retired_pending = -1;
	slot(sysroot, h);
	if (!d) {
		h->cond[RM_HC_GONE] = true;
		return;
	}
	if (!d->driver)
		h->cond[h->expected ? RM_HC_UNBOUND : RM_HC_NO_DRIVER] = true;
	else if (h->expected && strcmp(h->expected, d->driver))
		h->cond[RM_HC_REBOUND] = true;
	h->power = dev_read(sysroot, d->addr, "power_state");
	h->cond[RM_HC_D3COLD] = h->power && !strcmp(h->power, "D3cold");
	h->count[RM_HN_AER_COR] = aer_file(sysroot, d->addr, "aer_dev_correctable", &h->aer_errors);
	h->count[RM_HN_AER_NONFATAL] = aer_file(sysroot, d->addr, "aer_dev_nonfatal", &h->aer_errors);
	h->count[RM_HN_AER_FATAL] = aer_file(sysroot, d->addr, "aer_dev_fatal", &h->aer_errors);
	/* the root port: the first bridge of the path, counting what it received from below */
	if (d->path) {
		root = xasprintf("%.*s", (int)strcspn(d->path, "/"), d->path);
		h->count[RM_HN_ROOT_COR] = dev_number(sysroot, root, "aer_rootport_total_err_cor");
		h->count[RM_HN_ROOT_NONFATAL] = dev_number(sysroot, root,
							"aer_rootport_total_err_nonfatal");
		h->count[RM_HN_ROOT_FATAL] = dev_number(sysroot, root, "aer_rootport_total_err_fatal");
		h->root_port = root;
	}
	for (int k = RM_HN_AER_COR; k <= RM_HN_ROOT_FATAL; k++)
		h->cond[RM_HC_AER_CORRECTABLE + k] = h->count[k] > 0;
	links(sysroot, h);
	ports(sysroot, h);
	if (d->type == RM_DEV_NVME)
		rm_health_nvme(sysroot, h);
	if (d->driver && !strcmp(d->driver, "nvidia") && !sysroot)
		rm_health_nvml(h);
}

void rm_health_rates(struct rm_health *h, const struct rm_health *prev, double seconds)
{
	if (seconds <= 0)
		return;
	for (int k = 0; k < RM_HN_N; k++)
		if (h->count[k] >= 0 && prev->count[k] >= 0 && h->count[k] >= prev->count[k])
			h->rate[k] = (double)(h->count[k] - prev->count[k]) * 60 / seconds;
}

void rm_health_free(struct rm_health *h)
{
	free(h->owner);
	free(h->expected);
	free(h->driver);
	free(h->type);
	free(h->aer_errors);
	free(h->root_port);
	free(h->link);
	free(h->power);
	free(h->slot);
	free(h->ports_down);
	free(h->conditions);
	free(h->unhealthy);
}
