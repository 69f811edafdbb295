/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset: exclusive, topology-aware CPU allocation with cpusets in cgroups. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"
#include "rm-cpuset.h"

static const struct rm_command commands[] = {
	{ "show", cmd_show, "pools, free CPUs per node, allocations (default)" },
	{ "list", cmd_list, "one record per allocation" },
	{ "alloc", cmd_alloc, "give an owner exclusive CPUs" },
	{ "release", cmd_release, "give an owner's CPUs back to the shared pool" },
	{ "reserve", cmd_reserve, "set the system-reserved CPUs" },
	{ "run", cmd_run, "run a command on its own CPUs or the shared pool" },
	{ "apply", cmd_apply, "make the cgroups match the state" },
	{ "gc", cmd_gc, "release allocations whose run process is gone" },
	{ "export", cmd_export, "kubelet or systemd configuration" },
	{ "accept-topology", cmd_accept_topology, "adopt changed CPUs, keep what fits" },
	{ "mount-resctrl", cmd_mount_resctrl, "mount resctrl for L3 ways and memory bandwidth" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_COMMANDS = 0x100, OPT_NO_CGROUPS };

static const struct argp_option global_options[] = {
	{ "no-cgroups", OPT_NO_CGROUPS, NULL, 0,
	  "keep allocations in the state only; create no cgroups (resctrl groups are still "
	  "kept)", 0 },
	{ "list-commands", OPT_LIST_COMMANDS, NULL, OPTION_HIDDEN, "print the command names", 0 },
	{ 0 }
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case OPT_NO_CGROUPS:
		opt_no_cgroups = true;
		break;
	case OPT_LIST_COMMANDS:
		for (const struct rm_command *cmd = commands; cmd->name; cmd++)
			puts(cmd->name);
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
			fprintf(f, "  %-16s %s\n", cmd->name, cmd->summary);
		fputs("\nEach command takes --help. See rm-cpuset(1).", f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp global_argp = {
	global_options, global_parse, "[COMMAND [ARGS...]]",
	"Hand out exclusive CPUs to named owners, keep the rest as a shared pool, and enforce both "
	"with cpusets in cgroups.\v", NULL, global_help, NULL
};

int main(int argc, char **argv)
{
	struct rm_common common;
	int cmd;

	rm_tool_init();
	rm_common_init(&common);
	cmd = rm_parse_global(&global_argp, argc, argv, &common, NULL);
	if (cmd >= argc) {
		char *args[] = { "show", NULL };
		return cmd_show(1, args, &common);
	}
	return rm_command_find(commands, argv[cmd])->run(argc - cmd, argv + cmd, &common);
}
