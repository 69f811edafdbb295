/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices list, show and topo: the devices, one in full, and how they connect. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "devhealth.h"
#include "rm-devices.h"
#include "xalloc.h"

static const struct argp_child filter_children[] = { { &filter_argp, 0, NULL, 0 }, { 0 } };

static error_t filter_only_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = state->input;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Whether a listing needs pci.ids: the names are among the fields shown. */
static unsigned name_flags(const struct rm_common *c, bool all_fields)
{
	const char *cols = c->out.columns;

	if (!cols || *cols == '+' || all_fields)
		return RM_DEVICES_NAMES;
	return strcasestr(cols, "_name") ? RM_DEVICES_NAMES : 0;
}

/* Name on stderr the owners holding an unhealthy device (stdout keeps the device records). */
static void warn_unhealthy_owners(const struct rm_common *c, const struct rm_devices *devs)
{
	size_t n;
	struct rm_health *h = rm_health_owned_unhealthy(devices_sysroot(c), devs, &n);

	for (size_t i = 0; i < n; i++)
		rm_warnx("warning: device %s of owner '%s' is unhealthy: %s (see rm-devices "
			 "health)", h[i].addr, h[i].owner, h[i].unhealthy);
	rm_health_scan_free(h, n);
}

static unsigned scan_flags(const struct filter *f)
{
	return f->all || (f->any_type && f->types[RM_DEV_OTHER]) ? RM_DEVICES_ALL : 0;
}

int cmd_list(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, filter_only_parse, NULL,
		"One device record per GPU, network adapter, InfiniBand HCA, FPGA, accelerator and "
		"NVMe drive (with --all, per PCI function), in PCI address order.",
		filter_children, NULL, NULL
	};
	struct filter f;
	struct rm_devices devs;
	struct rm_out *out;

	filter_init(&f);
	rm_parse_command(&argp, argc, argv, c, &f, 0);
	if (c->out.list_columns) {
		filter_free(&f);
		rm_out_list_columns(&c->out, rm_devices_columns, rm_devices_ncolumns,
				    rm_devices_defaults);
		return RM_EXIT_SUCCESS;
	}
	/* -o is checked before the devices are read */
	out = rm_out_new(&c->out, "devices", rm_devices_columns, rm_devices_ncolumns,
			 rm_devices_defaults, true);
	devices_load(c, scan_flags(&f) | name_flags(c, false) | memory_flags(c), &devs);
	for (size_t i = 0; i < devs.n; i++)
		if (filter_match(&f, &devs.dev[i]))
			rm_devices_out(out, &devs.dev[i]);
	rm_out_close(out);
	rm_out_flush();
	warn_unhealthy_owners(c, &devs);
	rm_devices_free(&devs);
	filter_free(&f);
	return RM_EXIT_SUCCESS;
}

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	const char **dev = state->input;

	if (key != ARGP_KEY_ARG)
		return ARGP_ERR_UNKNOWN;
	if (*dev)
		argp_error(state, "unexpected argument: '%s'", arg);
	*dev = arg;
	return 0;
}

int cmd_show(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, show_parse, "DEVICE",
		"Everything known about the PCI device DEVICE (0000:3b:00.0 or 3b:00.0): one device "
		"record with every field.",
		NULL, NULL, NULL
	};
	const char *dev = NULL;
	struct rm_devices devs;
	struct rm_device *d;
	struct rm_out *out;
	char addr[24];

	rm_parse_command(&argp, argc, argv, c, &dev, 0);
	if (c->out.list_columns) {
		/* the fields of device records, marked as list shows them; show shows them all */
		rm_out_list_columns(&c->out, rm_devices_columns, rm_devices_ncolumns,
				    rm_devices_defaults);
		return RM_EXIT_SUCCESS;
	}
	if (!dev)
		rm_usage_errx("show: missing DEVICE");
	if (rm_devices_addr_parse(dev, addr) < 0)
		rm_usage_errx("invalid PCI address: '%s' (such as 0000:3b:00.0 or 3b:00.0)", dev);
	out = rm_out_new(&c->out, "devices", rm_devices_columns, rm_devices_ncolumns, NULL, true);
	devices_load(c, RM_DEVICES_ALL | RM_DEVICES_NAMES | RM_DEVICES_MEMORY, &devs);
	d = rm_devices_find(&devs, addr);
	if (!d) {
		rm_out_close(out);
		rm_devices_free(&devs);
		rm_usage_errx("no such PCI device: '%s'", dev);
	}
	rm_devices_out(out, d);
	rm_out_close(out);
	rm_out_flush();
	rm_devices_free(&devs);
	return RM_EXIT_SUCCESS;
}

enum { TC_DEVICE, TC_NAME, TC_TYPE, TC_NUMA, TC_CPUS, TC_ROOT, TC_SWITCH, TC_LINKS };
static const struct rm_column topo_cols[] = {
	[TC_DEVICE] = { "device", RM_COL_STRING, "PCI address" },
	[TC_NAME] = { "name", RM_COL_STRING, "type and index (gpu0)" },
	[TC_TYPE] = { "type", RM_COL_STRING, "device type" },
	[TC_NUMA] = { "numa", RM_COL_INT, "NUMA node (- for none)" },
	[TC_CPUS] = { "cpus", RM_COL_SET, "local CPUs" },
	[TC_ROOT] = { "root", RM_COL_STRING, "PCI root" },
	[TC_SWITCH] = { "switch", RM_COL_STRING, "upstream port of the PCIe switch above it" },
	[TC_LINKS] = { "links", RM_COL_STRING,
		       "its connection to each device listed, in order: X, PIX, PXB, PHB, NODE, SYS" },
};

int cmd_topo(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, filter_only_parse, NULL,
		"How the devices connect, like nvidia-smi topo -m: one record per device with its "
		"NUMA node, local CPUs, PCI root and switch, and its connection to every device "
		"listed (X itself, PIX one PCIe switch, PXB several switches, PHB one PCI root, NODE "
		"one NUMA node, SYS across NUMA nodes).",
		filter_children, NULL, NULL
	};
	struct filter f;
	struct rm_devices devs;
	struct rm_device **sel;
	struct rm_out *out;
	size_t n = 0;

	filter_init(&f);
	rm_parse_command(&argp, argc, argv, c, &f, 0);
	if (c->out.list_columns) {
		filter_free(&f);
		rm_out_list_columns(&c->out, topo_cols, ARRAY_SIZE(topo_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	out = rm_out_new(&c->out, "devices", topo_cols, ARRAY_SIZE(topo_cols), NULL, true);
	devices_load(c, scan_flags(&f), &devs);
	sel = xcalloc(devs.n + 1, sizeof(*sel));
	for (size_t i = 0; i < devs.n; i++)
		if (filter_match(&f, &devs.dev[i]))
			sel[n++] = &devs.dev[i];
	for (size_t i = 0; i < n; i++) {
		const struct rm_device *d = sel[i];
		char *links = xstrdup(""), *name = rm_devices_name(d), *t;

		for (size_t k = 0; k < n; k++) {
			t = xasprintf("%s%s%s", links, k ? "," : "", rm_devices_link(d, sel[k]));
			free(links);
			links = t;
		}
		rm_out_begin(out);
		rm_out_str(out, TC_DEVICE, d->addr);
		rm_out_str(out, TC_NAME, name);
		rm_out_str(out, TC_TYPE, rm_devices_type_name(d->type));
		if (d->numa >= 0)
			rm_out_int(out, TC_NUMA, d->numa);
		rm_out_set(out, TC_CPUS, d->cpus);
		rm_out_str(out, TC_ROOT, d->root);
		rm_out_str(out, TC_SWITCH, d->sw);
		rm_out_str(out, TC_LINKS, links);
		rm_out_end(out);
		free(links);
		free(name);
	}
	rm_out_close(out);
	rm_out_flush();
	free(sel);
	rm_devices_free(&devs);
	filter_free(&f);
	return RM_EXIT_SUCCESS;
}
