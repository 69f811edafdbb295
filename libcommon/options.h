/* SPDX-License-Identifier: GPL-2.0-or-later */
/* argp helpers: the options every tool shares and the GLOBAL-OPTIONS COMMAND [ARGS] split. */
#ifndef RM_OPTIONS_H
#define RM_OPTIONS_H

#include <argp.h>
#include <stdbool.h>

#include "output.h"

/* The values of the shared options, filled by rm_common_argp. */
struct rm_common {
	struct rm_outopts out;
	const char *sysroot;  /* --sysroot or RM_SYSROOT */
	const char *topology; /* --topology or RM_TOPOLOGY */
};

/* Long-only option keys of the shared options start here; tools use keys below it. */
#define RM_OPT_COMMON_BASE 0x1000

/* The shared options, added by rm_parse_global/rm_parse_command: output modes
 * (-J -t -r -n -o --list-columns --bytes) and input (--sysroot --topology). */
extern const struct argp rm_output_argp;
extern const struct argp rm_input_argp;

/* Fill C from the environment (RM_SYSROOT, RM_TOPOLOGY) before parsing options. */
void rm_common_init(struct rm_common *c);

/*
 * A command of a tool: NAME, the function that runs it (argc/argv start at the command name),
 * and a one-line summary for --help.
 */
struct rm_command {
	const char *name;
	int (*run)(int argc, char **argv, struct rm_common *c);
	const char *summary;
};

/* Find NAME in a NULL-terminated table; exits 2 with "unknown command: 'x'" when absent. */
const struct rm_command *rm_command_find(const struct rm_command *cmds, const char *name);

/*
 * Parse the global options of a tool: ARGP (the tool's own global options; its parser gets INPUT)
 * plus the shared output and input options (filling C), in order, stopping at the first operand.
 * Returns the index of the command in argv, or argc when there is none. argp errors exit 2.
 */
int rm_parse_global(const struct argp *argp, int argc, char **argv, struct rm_common *c,
		    void *input);

enum rm_parse_flags {
	RM_PARSE_NO_OUTPUT = 1 << 0, /* the command prints no records: no output-mode options */
	RM_PARSE_IN_ORDER = 1 << 1,  /* operands reach the parser in order, before later options
				      (a parser taking the rest of argv at an operand stops there) */
	RM_PARSE_NO_INPUT = 1 << 2,  /* the command works on this machine: no --sysroot/--topology */
};

/*
 * Parse a command's arguments (argv[0] is the command name): ARGP (the command's options and
 * operands; its parser gets INPUT) plus the shared options, which may also follow the command.
 */
void rm_parse_command(const struct argp *argp, int argc, char **argv, struct rm_common *c,
		      void *input, unsigned flags);

/* Exit 2 with "PROG: MESSAGE" (one line), for invalid input found after option parsing. */
__attribute__((noreturn, format(printf, 1, 2)))
void rm_usage_errx(const char *fmt, ...);

/* Set up a tool's main(): locale-independent output, close_stdout, argp defaults. */
void rm_tool_init(void);

#endif
