/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo: hardware topology (packages, NUMA nodes, caches, cores, CPUs) and set calculations. */
#include "config.h"

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
	{ "irqs", cmd_irqs, "one record per IRQ: device, affinity, node, count per CPU" },
	{ "ps", cmd_ps, "processes and threads bound to CPUs, by owner, like hwloc-ps" },
	{ "resctrl", cmd_resctrl, "cache and memory bandwidth allocation (RDT, PQoS)" },
	{ "draw", cmd_draw, "a picture of the machine as nested boxes, or SVG, like lstopo" },
	{ "calc", cmd_calc, "set calculations over locations, like hwloc-calc" },
	{ "snapshot", cmd_snapshot, "copy the /sys and /proc files rm-topo reads into DIR" },
	{ "export", cmd_export, "export for other tools (nfd: Node Feature Discovery labels, nrt: NodeResourceTopology)" },
	{ NULL, NULL, NULL },
};

static const struct rm_tool tool = {
	.doc = "Show the hardware topology: packages, NUMA nodes, caches, cores and CPUs.",
	.commands = commands, .name_width = 12, .manuals = "rm-topo(1)",
	.default_args = (const char *const[]){ "summary", NULL },
};

int main(int argc, char **argv)
{
	return rm_tool_main(&tool, argc, argv);
}
