/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench: memory bandwidth and latency per NUMA node, core-to-core latency, jitter, CI gate. */
#include "config.h"

#include "options.h"
#include "rm-bench.h"

static const struct rm_command commands[] = {
	{ "run", cmd_run, "the suite: mem, lat, c2c, jitter (the default)" },
	{ "mem", cmd_mem, "memory bandwidth, STREAM's kernels, per NUMA node" },
	{ "lat", cmd_lat, "memory latency by working-set size and page size" },
	{ "c2c", cmd_c2c, "core-to-core cache-line round trips" },
	{ "jitter", cmd_jitter, "wake-up latency of timer sleeps, as cyclictest" },
	{ "compare", cmd_compare, "compare two result files; exit 1 on a regression" },
	{ "weights", cmd_weights, "weighted-interleave weights from measured bandwidth; set them" },
	{ "plot", cmd_plot, "draw result files as SVG: latency, NUMA matrices, compare" },
	{ NULL, NULL, NULL },
};

static const struct rm_tool tool = {
	.doc = "Measure what resource management is for: memory bandwidth and latency from each "
	       "NUMA node, the effect of huge pages, core-to-core latency and the jitter of a CPU; "
	       "compare two runs.",
	.commands = commands, .name_width = 16, .manuals = "rm-bench(1)",
	.default_args = (const char *const[]){ "run", "--quick", NULL },
};

int main(int argc, char **argv)
{
	return rm_tool_main(&tool, argc, argv);
}
