/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices export resourceslice: the devices as Kubernetes DRA ResourceSlices (resource.k8s.io/v1). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devhealth.h"
#include "record.h"
#include "rm-devices.h"
#include "size.h"
#include "xalloc.h"

/* Limits the API server checks in code (resource/v1 types.go), not in its OpenAPI schema. */
#define SLICE_MAX_DEVICES 128
#define SLICE_MAX_TAINTED 64 /* a slice of which a device has taints */
#define LABEL_VALUE_MAX 63
#define DEVICE_MAX_ATTRS 32
#define ATTR_MAX_STRING 64
/* The standard attributes' domain (k8s.io/dynamic-resource-allocation/deviceattribute). */
#define STD "resource.kubernetes.io/"

/*
 * The fields of device records published as attributes of the driver's domain, under their
 * record names: rm-class's selectors name these, so that its DeviceClass CEL selects them. The
 * PCI address, NUMA node and PCI root go under the standard names too; per-port states, CPU
 * lists, node lists and bridge paths are left out (lists are alpha, states change).
 */
static const char *const record_attrs[] = {
	"type", "name", "vendor", "product", "subvendor", "subproduct", "class", "vendor_name",
	"product_name", "driver", "numa", "root", "iommu_group", "link_speed", "link_width",
	"sriov", "vfs", "total_vfs", "pf", "netdevs", "rdma", "link_layer",
};

/* A YAML double-quoted scalar (JSON's escapes are YAML's too). */
static void yaml_string(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			putc(*p, f);
	}
	putc('"', f);
}

static int column_type(const char *name)
{
	for (size_t i = 0; i < rm_devices_ncolumns; i++)
		if (!strcmp(rm_devices_columns[i].name, name))
			return rm_devices_columns[i].type;
	return RM_COL_STRING;
}

/* The device's name in the pool: a DNS label from its type and PCI address, gpu-0000-3b-00-0. */
static char *resourceslice_device_name(const struct rm_device *d)
{
	char *s = xasprintf("%s-%s", rm_devices_type_name(d->type), d->addr);

	for (char *p = s; *p; p++)
		if (*p == ':' || *p == '.')
			*p = '-';
	return s;
}

/* The PCIe root complex as deviceattribute.GetPCIeRootAttributeByPCIBusID states it:
 * "pci" DOMAIN ":" BUS of the host bridge the device sits below. NULL when unknown. */
static char *pcie_root(const struct rm_device *d)
{
	return d->root ? xasprintf("pci%s", d->root) : NULL;
}

static void attr_int(FILE *f, const char *name, long long v)
{
	fprintf(f, "      %s:\n        int: %lld\n", name, v);
}

static void attr_string(FILE *f, const char *name, const char *v)
{
	fprintf(f, "      %s:\n        string: ", name);
	yaml_string(f, v);
	putc('\n', f);
}

/*
 * The taint of an unhealthy device (resource/v1 DeviceTaint): key DRIVER/unhealthy, its value
 * the first condition that makes it so (a label value), effect NoSchedule: no new claim gets it,
 * pods already using it keep running (NoExecute would evict them; a policy for people to choose).
 */
static void write_taint(FILE *f, const char *driver, const struct rm_health *h)
{
	size_t len = strcspn(h->unhealthy, ",");

	fprintf(f, "    taints:\n    - key: %s/unhealthy\n      value: \"%.*s\"\n"
		"      effect: NoSchedule\n", driver,
		(int)(len > LABEL_VALUE_MAX ? LABEL_VALUE_MAX : len), h->unhealthy);
}

static const struct rm_health *unhealthy(const struct rm_device *d, const struct rm_health *h,
				      size_t nh)
{
	const struct rm_health *x = rm_health_find(h, nh, d->addr);

	return x && x->level == RM_HL_UNHEALTHY ? x : NULL;
}

/* One device of a slice; at most DEVICE_MAX_ATTRS attributes and capacities together. */
static void write_device(FILE *f, const struct rm_device *d, const char *driver,
			 const struct rm_health *h)
{
	struct rm_record rec = { 0 };
	char *name = resourceslice_device_name(d), *root = pcie_root(d), *model = gres_type(d);
	int n = 0;

	rm_devices_record(d, &rec);
	fprintf(f, "  - name: %s\n    attributes:\n", name);
	attr_string(f, STD "pciBusID", d->addr), n++;
	if (root)
		attr_string(f, STD "pcieRoot", root), n++;
	/* no NUMA node: no attribute, as the standard says */
	if (d->numa >= 0) {
		attr_int(f, STD "numaNode", d->numa), n++;
		attr_int(f, "numaNode", d->numa), n++;
	}
	if (model && strlen(model) <= ATTR_MAX_STRING)
		attr_string(f, "model", model), n++;
	for (size_t i = 0; i < sizeof(record_attrs) / sizeof(*record_attrs); i++) {
		const char *v = rm_record_get(&rec, record_attrs[i]);

		/* unknown, or longer than an attribute's string may be: left out */
		if (!v || !*v || !strcmp(v, "-") || strlen(v) > ATTR_MAX_STRING ||
		    n >= DEVICE_MAX_ATTRS)
			continue;
		if (column_type(record_attrs[i]) == RM_COL_INT)
			attr_int(f, record_attrs[i], strtoll(v, NULL, 10));
		else
			attr_string(f, record_attrs[i], v);
		n++;
	}
	if ((d->memory || d->bar) && n + !!d->memory + !!d->bar <= DEVICE_MAX_ATTRS) {
		fputs("    capacity:\n", f);
		if (d->memory) {
			char *q = rm_size_quantity(d->memory);

			fprintf(f, "      memory:\n        value: %s\n", q);
			free(q);
		}
		if (d->bar) {
			char *q = rm_size_quantity(d->bar);

			fprintf(f, "      bar:\n        value: %s\n", q);
			free(q);
		}
	}
	if (h)
		write_taint(f, driver, h);
	rm_record_free(&rec);
	free(name);
	free(root);
	free(model);
}

void write_resourceslice(FILE *f, const char *driver, const char *node,
			 struct rm_device *const *sel, size_t n, const char *left_out,
			 const struct rm_health *h, size_t nh)
{
	size_t per = SLICE_MAX_DEVICES, nslices;

	for (size_t i = 0; i < n; i++)
		if (unhealthy(sel[i], h, nh))
			per = SLICE_MAX_TAINTED;
	nslices = n ? (n + per - 1) / per : 1;
	for (size_t s = 0; s < nslices; s++) {
		size_t first = s * per, last = first + per;

		if (last > n)
			last = n;
		fprintf(f, "%s# rm-devices export resourceslice: pool %s, slice %zu of %zu\n",
			s ? "---\n" : "", node, s + 1, nslices);
		if (!s && left_out)
			fputs(left_out, f);
		fprintf(f, "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n"
			"  name: %s-%s-%zu\nspec:\n  driver: %s\n  nodeName: %s\n  pool:\n"
			"    name: %s\n    generation: 1\n    resourceSliceCount: %zu\n",
			node, driver, s, driver, node, node, nslices);
		if (first == last) {
			fputs("  devices: []\n", f);
			continue;
		}
		fputs("  devices:\n", f);
		for (size_t i = first; i < last; i++)
			write_device(f, sel[i], driver, unhealthy(sel[i], h, nh));
	}
}
