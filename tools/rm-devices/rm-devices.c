/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices: find a node's GPUs, NICs, HCAs and accelerators, hand them to owners, export them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "classes.h"
#include "exitcodes.h"
#include "options.h"
#include "rm-devices.h"

static const struct rm_command commands[] = {
	{ "list", cmd_list, "one record per device (the default)" },
	{ "show", cmd_show, "everything known about one device" },
	{ "topo", cmd_topo, "how the devices connect: PCI roots, switches, NUMA nodes" },
	{ "alloc", cmd_alloc, "give an owner devices, NUMA-aligned" },
	{ "release", cmd_release, "give an owner's devices back" },
	{ "list-allocations", cmd_list_allocations, "one record per allocated device" },
	{ "grant", cmd_grant, "let an owner's cgroup use its devices' nodes" },
	{ "health", cmd_health, "check that allocated devices are still there" },
	{ "export", cmd_export, "CDI spec, Slurm gres.conf, NFD labels or DRA ResourceSlices" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_TYPES = RM_OPT_LIST_COMMANDS + 1 };

static const struct argp_option global_options[] = {
	{ "list-types", OPT_LIST_TYPES, NULL, OPTION_HIDDEN, "print the device types", 0 },
	{ 0 }
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	if (key != OPT_LIST_TYPES)
		return ARGP_ERR_UNKNOWN;
	for (int t = 0; t < RM_DEV_NTYPES; t++)
		puts(rm_devices_type_name(t));
	exit(RM_EXIT_SUCCESS);
}

static const struct rm_tool tool = {
	.doc = "Find the GPUs, network adapters, InfiniBand HCAs, FPGAs, accelerators and NVMe "
	       "drives of this machine, say where each sits (NUMA node, local CPUs, PCI root, "
	       "IOMMU group), hand them to named owners, and export them for container runtimes, "
	       "Slurm and Kubernetes.",
	.commands = commands, .name_width = 18, .manuals = "rm-devices(1)",
	.default_args = (const char *const[]){ "list", NULL },
	.options = global_options, .parse = global_parse, .locks = true,
};

int main(int argc, char **argv)
{
	atexit(rm_classes_release); /* what --class loaded */
	return rm_tool_main(&tool, argc, argv);
}
