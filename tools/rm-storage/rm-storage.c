/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-storage: block devices, per-owner disk I/O limits with the io cgroup, directory quotas. */
#include "config.h"

#include "options.h"
#include "rm-storage.h"

static const struct rm_command commands[] = {
	{ "list", cmd_list, "one record per disk (default)" },
	{ "limit", cmd_limit, "set an owner's I/O limits on a disk" },
	{ "show", cmd_show, "the owners' limits and I/O counters per disk" },
	{ "release", cmd_release, "lift an owner's limits and quotas, or a directory's quota" },
	{ "apply", cmd_apply, "set the recorded limits again (after a reboot)" },
	{ "gc", cmd_gc, "forget limits and quotas of what is gone" },
	{ "quota", cmd_quota, "a project quota on a directory of ext4 or XFS" },
	{ "usage", cmd_usage, "the space and files used under each quota" },
	{ NULL, NULL, NULL },
};

static const struct rm_tool tool = {
	.doc = "List the block devices, limit the disk I/O of owners (the cgroup of rm-cpuset's "
	       "owners) and put project quotas on directories.",
	.commands = commands, .name_width = 10, .manuals = "rm-storage(1)",
	.default_args = (const char *const[]){ "list", NULL },
	.locks = true,
};

int main(int argc, char **argv)
{
	return rm_tool_main(&tool, argc, argv);
}
