/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo: hardware topology (packages, NUMA nodes, caches, cores, CPUs) and set calculations. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"
#include "rm-topo.h"

static const struct rm_command commands[] = {
	{ "summary", cmd_summary, "the machine and its NUMA nodes (the default)" },
	{ "cpus", cmd_cpus, "one record per logical CPU" },
	{ "cores", cmd_cores, "one record per core" },
	{ "packages", cmd_packages, "one record per package (socket)" },
	{ "nodes", cmd_nodes, "one record per NUMA node" },
	{ "caches", cmd_caches, "one record per cache" },
	{ "distances", cmd_distances, "the NUMA distance matrix, one record per pair" },
	{ "resctrl", cmd_resctrl, "cache and memory bandwidth allocation (RDT, PQoS)" },
	{ "calc", cmd_calc, "set calculations over locations, like hwloc-calc" },
	{ "snapshot", cmd_snapshot, "copy the /sys and /proc files rm-topo reads into DIR" },
	{ "export", cmd_export, "export for other tools (nfd: Node Feature Discovery labels)" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_COMMANDS = 0x100 };

static const struct argp_option global_options[] = {
	{ "list-commands", OPT_LIST_COMMANDS, NULL, OPTION_HIDDEN, "print the command names", 0 },
	{ 0 }
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_LIST_COMMANDS:
		for (const struct rm_command *cmd = commands; cmd->name; cmd++)
			puts(cmd->name);
		exit(RM_EXIT_SUCCESS);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static char *global_help(int key, const char *text, void *input)
{
	if (key == ARGP_KEY_HELP_POST_DOC) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		fputs("Commands:\n", f);
		for (const struct rm_command *cmd = commands; cmd->name; cmd++)
			fprintf(f, "  %-12s %s\n", cmd->name, cmd->summary);
		fputs("\nEach command takes --help. See rm-topo(1).", f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp global_argp = {
	global_options, global_parse, "[COMMAND [ARGS...]]",
	"Show the hardware topology: packages, NUMA nodes, caches, cores and CPUs.\v", NULL,
	global_help, NULL
};

int main(int argc, char **argv)
{
	struct rm_common common;
	int cmd;

	rm_tool_init();
	rm_common_init(&common);
	cmd = rm_parse_global(&global_argp, argc, argv, &common, NULL);
	if (cmd >= argc) {
		char *args[] = { "summary", NULL };
		return cmd_summary(1, args, &common);
	}
	return rm_command_find(commands, argv[cmd])->run(argc - cmd, argv + cmd, &common);
}
