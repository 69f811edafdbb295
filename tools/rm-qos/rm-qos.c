/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos: what each owner gets (CPU, pressure stalls, memory, I/O, cache), SLO checks, and who
 * slows an owner down. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "exitcodes.h"
#include "options.h"
#include "rm-qos.h"
#include "xalloc.h"

static const struct rm_command commands[] = {
	{ "show", cmd_show, "one record per owner: use, throttling, pressure, memory, I/O (default)" },
	{ "watch", cmd_watch, "the same, again every interval" },
	{ "check", cmd_check, "check SLOs per owner: a record per violation, exit 1 if any" },
	{ "blame", cmd_blame, "rank the owners whose use moves with an owner's stalls" },
	{ "export", cmd_export, "every owner's counters for Prometheus (node_exporter's textfile "
	  "collector)" },
	{ NULL, NULL, NULL },
};

static const struct rm_tool tool = {
	.doc = "Show whether each owner gets what it was promised (CPU used and throttled, "
	       "pressure stalls, memory, huge pages, I/O, L3 and memory bandwidth, interrupts), "
	       "check SLOs, and find the noisy neighbours of an owner.",
	.commands = commands, .name_width = 16, .manuals = "rm-qos(1)",
	.default_args = (const char *const[]){ "show", NULL },
};

uint64_t interval_arg(struct argp_state *state, const char *arg)
{
	uint64_t ns;

	if (rm_duration_parse(arg, &ns) < 0 || ns < 1000000 || ns > 3600000000000ull)
		argp_error(state, "invalid interval: '%s' (a duration from 1ms to 1h such as 500ms, "
			   "1s)", arg);
	return ns;
}

int main(int argc, char **argv)
{
	return rm_tool_main(&tool, argc, argv);
}
