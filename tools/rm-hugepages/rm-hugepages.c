/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages: huge page pools per NUMA node, reserved with read-back, all or nothing. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"
#include "rm-hugepages.h"

static const struct rm_command commands[] = {
	{ "show", cmd_show, "pools per page size and NUMA node, mounts, THP (default)" },
	{ "reserve", cmd_reserve, "set the pages of a size per node, read back, all or nothing" },
	{ "release", cmd_release, "give pages of a size back (to 0 or --to N)" },
	{ "mount", cmd_mount, "mount a hugetlbfs for one page size" },
	{ "umount", cmd_umount, "unmount a hugetlbfs" },
	{ "limit", cmd_limit, "an owner's hugetlb cgroup limit" },
	{ "plan", cmd_plan, "the kernel command line that reserves pages at boot" },
	{ "apply", cmd_apply, "make the machine match a configuration file" },
	{ "export", cmd_export, "what the kubelet needs to know" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_COMMANDS = 0x100, OPT_LIST_SIZES };

static const struct argp_option global_options[] = {
	{ "list-commands", OPT_LIST_COMMANDS, NULL, OPTION_HIDDEN, "print the command names", 0 },
	{ "list-sizes", OPT_LIST_SIZES, NULL, OPTION_HIDDEN, "print the page sizes offered", 0 },
	{ 0 }
};

static bool list_sizes;

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case OPT_LIST_COMMANDS:
		for (const struct rm_command *cmd = commands; cmd->name; cmd++)
			puts(cmd->name);
		exit(RM_EXIT_SUCCESS);
	case OPT_LIST_SIZES:
		list_sizes = true; /* after --sysroot, which may follow */
		break;
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
		fputs("\nEach command takes --help. See rm-hugepages(1).", f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp global_argp = {
	global_options, global_parse, "[COMMAND [ARGS...]]",
	"Show and set the huge page pools of each page size on each NUMA node, read back what the "
	"kernel gave and undo everything when it gave too little; mount hugetlbfs, limit owners "
	"with the hugetlb cgroup, plan the boot command line.\v", NULL, global_help, NULL
};

int main(int argc, char **argv)
{
	struct rm_common common;
	int cmd;

	rm_tool_init();
	rm_common_init(&common);
	cmd = rm_parse_global(&global_argp, argc, argv, &common, NULL);
	if (list_sizes) {
		struct rm_hugepages hp;

		hp_open(&hp, hp_sysroot(&common));
		for (size_t i = 0; i < hp.nsizes; i++) {
			char *s = rm_hugepages_kernel_size(hp.sizes[i]);

			puts(s);
			free(s);
		}
		rm_hugepages_close(&hp);
		return RM_EXIT_SUCCESS;
	}
	if (cmd >= argc) {
		char *args[] = { "show", NULL };
		return cmd_show(1, args, &common);
	}
	return rm_command_find(commands, argv[cmd])->run(argc - cmd, argv + cmd, &common);
}
