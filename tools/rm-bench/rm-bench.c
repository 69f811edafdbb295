/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench: memory bandwidth and latency per NUMA node, core-to-core latency, jitter, CI gate. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"
#include "rm-bench.h"

static const struct rm_command commands[] = {
	{ "run", cmd_run, "the suite: mem, lat, c2c, jitter (the default)" },
	{ "mem", cmd_mem, "memory bandwidth, STREAM's kernels, per NUMA node" },
	{ "lat", cmd_lat, "memory latency by working-set size and page size" },
	{ "c2c", cmd_c2c, "core-to-core cache-line round trips" },
	{ "jitter", cmd_jitter, "wake-up latency of timer sleeps, as cyclictest" },
	{ "compare", cmd_compare, "compare two result files; exit 1 on a regression" },
	{ NULL, NULL, NULL },
};

enum { OPT_LIST_COMMANDS = 0x100 };

static const struct argp_option global_options[] = {
	{ "list-commands", OPT_LIST_COMMANDS, NULL, OPTION_HIDDEN, "print the command names", 0 },
	{ 0 }
};

static error_t global_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	if (key != OPT_LIST_COMMANDS)
		return ARGP_ERR_UNKNOWN;
	for (const struct rm_command *cmd = commands; cmd->name; cmd++)
		puts(cmd->name);
	exit(RM_EXIT_SUCCESS);
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
		fputs("\nEach command takes --help. See rm-bench(1).", f);
		fclose(f);
		return buf;
	}
	return (char *)text;
}

static const struct argp global_argp = {
	global_options, global_parse, "[COMMAND [ARGS...]]",
	"Measure what resource management is for: memory bandwidth and latency from each NUMA "
	"node, the effect of huge pages, core-to-core latency and the jitter of a CPU; compare "
	"two runs.\v", NULL, global_help, NULL
};

int main(int argc, char **argv)
{
	struct rm_common common;
	int cmd;

	rm_tool_init();
	rm_common_init(&common);
	cmd = rm_parse_global(&global_argp, argc, argv, &common, NULL);
	if (cmd >= argc) {
		char *args[] = { "run", "--quick", NULL };
		return cmd_run(2, args, &common);
	}
	return rm_command_find(commands, argv[cmd])->run(argc - cmd, argv + cmd, &common);
}
