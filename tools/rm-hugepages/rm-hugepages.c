/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages: huge page pools per NUMA node, reserved with read-back, all or nothing. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

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
	{ "overcommit", cmd_overcommit, "the surplus pages of a size the kernel may add on demand" },
	{ "plan", cmd_plan, "the kernel command line that reserves pages at boot" },
	{ "apply", cmd_apply, "make the machine match a configuration file" },
	{ "export", cmd_export, "what the kubelet needs to know" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_SIZES = RM_OPT_LIST_COMMANDS + 1 };

static const struct argp_option global_options[] = {
	{ "list-sizes", OPT_LIST_SIZES, NULL, OPTION_HIDDEN, "print the page sizes offered", 0 },
	{ 0 }
};

/* Print the page sizes offered, one a line. */
static void list_sizes(const struct rm_common *c)
{
	struct rm_hugepages hp;

	hp_open(&hp, hp_sysroot(c));
	for (size_t i = 0; i < hp.nsizes; i++) {
		char *s = rm_hugepages_kernel_size(hp.sizes[i]);

		puts(s);
		free(s);
	}
	rm_hugepages_close(&hp);
}

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	static bool opt_list_sizes;

	switch (key) {
	case OPT_LIST_SIZES:
		/* listed once all global options are read: a --sysroot may follow */
		opt_list_sizes = true;
		return 0;
	case ARGP_KEY_END:
		if (opt_list_sizes) {
			list_sizes(state->input);
			exit(RM_EXIT_SUCCESS);
		}
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct rm_tool tool = {
	.doc = "Show and set the huge page pools of each page size on each NUMA node, read back "
	       "what the kernel gave and undo everything when it gave too little; mount "
	       "hugetlbfs, limit owners with the hugetlb cgroup, plan the boot command line.",
	.commands = commands, .name_width = 16, .manuals = "rm-hugepages(1)",
	.default_args = (const char *const[]){ "show", NULL },
	.options = global_options, .parse = global_parse, .locks = true,
};

int main(int argc, char **argv)
{
	return rm_tool_main(&tool, argc, argv);
}
