/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices: find a node's GPUs, NICs, HCAs and accelerators, hand them to owners, export them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	{ "export", cmd_export, "CDI spec, Slurm gres.conf or NFD labels" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_COMMANDS = 0x100, OPT_LIST_TYPES };

static const struct argp_option global_options[] = {
	{ "list-commands", OPT_LIST_COMMANDS, NULL, OPTION_HIDDEN, "print the command names", 0 },
	{ "list-types", OPT_LIST_TYPES, NULL, OPTION_HIDDEN, "print the device types", 0 },
	{ 0 }
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case OPT_LIST_COMMANDS:
		for (const struct rm_command *cmd = commands; cmd->name; cmd++)
			puts(cmd->name);
		exit(RM_EXIT_SUCCESS);
	case OPT_LIST_TYPES:
		for (int t = 0; t < RM_DEV_NTYPES; t++)
			puts(rm_devices_type_name(t));
		exit(RM_EXIT_SUCCESS);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static char *global_help(int key, const char *text, void *input)
{
	(void)input;
	if (key == ARGP_KEY_HELP_POST_DOC) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		fputs("Commands:\n", f);
		for (const struct rm_command *cmd = commands; cmd->name; cmd++)
			fprintf(f, "  %-18s %s\n", cmd->name, cmd->summary);
		fputs("\nEach command takes --help. See rm-devices(1).", f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp global_argp = {
	global_options, global_parse, "[COMMAND [ARGS...]]",
	"Find the GPUs, network adapters, InfiniBand HCAs, FPGAs, accelerators and NVMe drives of "
	"this machine, say where each sits (NUMA node, local CPUs, PCI root, IOMMU group), hand "
	"them to named owners, and export them for container runtimes, Slurm and Kubernetes.\v",
	NULL, global_help, NULL
};

int main(int argc, char **argv)
{
	struct rm_common common;
	int cmd;

	rm_tool_init();
	atexit(rm_classes_release); /* what --class loaded */
	rm_common_init(&common);
	cmd = rm_parse_global(&global_argp, argc, argv, &common, NULL);
	if (cmd >= argc) {
		char *args[] = { "list", NULL };
		return cmd_list(1, args, &common);
	}
	return rm_command_find(commands, argv[cmd])->run(argc - cmd, argv + cmd, &common);
}
