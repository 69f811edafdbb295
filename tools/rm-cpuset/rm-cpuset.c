/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset: exclusive, topology-aware CPU allocation with cpusets in cgroups. */
#include "config.h"

#include "options.h"
#include "rm-cpuset.h"

static const struct rm_command commands[] = {
	{ "show", cmd_show, "pools, free CPUs per node, allocations (default)" },
	{ "list", cmd_list, "one record per allocation" },
	{ "alloc", cmd_alloc, "give an owner exclusive CPUs" },
	{ "resize", cmd_resize, "grow or shrink an owner's CPUs in place" },
	{ "limit", cmd_limit, "an owner's memory and pids limits" },
	{ "release", cmd_release, "give an owner's CPUs back to the shared pool" },
	{ "reserve", cmd_reserve, "set the system-reserved CPUs" },
	{ "run", cmd_run, "run a command on its own CPUs or the shared pool" },
	{ "attach", cmd_attach, "move running processes onto an owner's CPUs and cgroup" },
	{ "apply", cmd_apply, "make the cgroups match the state" },
	{ "gc", cmd_gc, "release allocations whose run process is gone" },
	{ "export", cmd_export, "kubelet, Slurm or systemd configuration" },
	{ "accept-topology", cmd_accept_topology, "adopt changed CPUs, keep what fits" },
	{ "mount-resctrl", cmd_mount_resctrl, "mount resctrl for L3 ways and memory bandwidth" },
	{ "noise", cmd_noise, "what still disturbs an owner's CPUs" },
	{ "boot-plan", cmd_boot_plan, "the kernel command line for the isolated CPUs" },
	{ NULL, NULL, NULL },
};

enum { OPT_NO_CGROUPS = RM_OPT_LIST_COMMANDS + 1 };

static const struct argp_option global_options[] = {
	{ "no-cgroups", OPT_NO_CGROUPS, NULL, 0,
	  "keep allocations in the state only; create no cgroups (resctrl groups are still "
	  "kept)", 0 },
	{ 0 }
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	if (key != OPT_NO_CGROUPS)
		return ARGP_ERR_UNKNOWN;
	opt_no_cgroups = true;
	return 0;
}

static const struct rm_tool tool = {
	.doc = "Hand out exclusive CPUs to named owners, keep the rest as a shared pool, and "
	       "enforce both with cpusets in cgroups.",
	.commands = commands, .name_width = 16, .manuals = "rm-cpuset(1)",
	.default_args = (const char *const[]){ "show", NULL },
	.options = global_options, .parse = global_parse, .locks = true,
};

int main(int argc, char **argv)
{
	return rm_tool_main(&tool, argc, argv);
}
