/* SPDX-License-Identifier: GPL-2.0-or-later */
/* argp helpers: the options every tool shares and the GLOBAL-OPTIONS COMMAND [ARGS] split. */
#ifndef RM_OPTIONS_H
#define RM_OPTIONS_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

#include "msg.h"
#include "output.h"

/* The values of the shared options, filled by rm_common_argp. */
struct rm_common {
	struct rm_outopts out;
	/* The input options as parsed, for rm_input_resolve: what they name is asked of it. */
	const char *sysroot;  /* --sysroot or RM_SYSROOT */
	const char *topology; /* --topology or RM_TOPOLOGY */
};

/* Long-only option keys of the shared options start here; tools use keys below it. */
#define RM_OPT_COMMON_BASE 0x1000

/* The shared options, added by rm_tool_main/rm_parse_command: output modes
 * (-J -t -r -n -o --list-columns --bytes) and input (--sysroot --topology). */
extern const struct argp rm_output_argp;
extern const struct argp rm_input_argp;
/* --wait SECONDS (lock.h), for the tools that take locks (struct rm_tool's locks). */
extern const struct argp rm_lock_argp;

/*
 * A command of a tool: NAME, the function that runs it (argc/argv start at the command name),
 * and a one-line summary for --help.
 */
struct rm_command {
	const char *name;
	int (*run)(int argc, char **argv, struct rm_common *c);
	const char *summary;
};

/* The key of the hidden --list-commands; a tool's own global options use keys above it. */
#define RM_OPT_LIST_COMMANDS 0x100

/*
 * A tool: its commands, what its --help says around them, the command line it runs when given
 * no command, and the global options it adds to the shared ones.
 */
struct rm_tool {
	const char *doc;                   /* --help's paragraph before the options */
	const struct rm_command *commands; /* NULL-terminated */
	int name_width;                    /* width of the names under --help's "Commands:" */
	const char *manuals;               /* --help's last words: "See MANUALS." */
	const char *const *default_args;   /* NULL-terminated: run when no command is given */
	const struct argp_option *options; /* the tool's own global options, or NULL */
	argp_parser_t parse;               /* their parser; its input is the struct rm_common */
	bool locks;                        /* takes locks: --wait, globally and in every command */
};

/*
 * The main() of a tool: set up (locale-independent output, close_stdout, the shared options'
 * variables), parse the global options (TOOL's own, the shared ones and a hidden --list-commands
 * that prints the command names), then run the command named by the first operand, or TOOL's
 * default_args when there is none. Returns the command's exit status; an unknown command
 * ("unknown command: 'x'") and option errors exit 2.
 */
int rm_tool_main(const struct rm_tool *tool, int argc, char **argv);

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

/*
 * A number given as an option or operand: plain decimal digits (no sign, blank, base prefix or
 * unit), from MIN to MAX. Returns 0 with *V, or -1 when S is not such a number, overflows or is out
 * of range. Written by hand: strtoul() takes signs, blanks and saturates silently.
 */
int rm_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* Keys of --all and --dry-run for the parsers below; each command's options give the help. */
#define RM_OPT_ALL (RM_OPT_COMMON_BASE - 2)
#define RM_OPT_DRY_RUN (RM_OPT_COMMON_BASE - 1)

/* apply [FILE] with --dry-run (RM_OPT_DRY_RUN): the configuration file named, NULL for the
 * default. Its input is a struct rm_apply_args. */
struct rm_apply_args {
	const char *file;
	bool dry_run;
};
error_t rm_apply_parse(int key, char *arg, struct argp_state *state);
/* The parser of a command with --dry-run as its only option and no operands; its input is a
 * bool, set by --dry-run. */
error_t rm_dry_run_parse(int key, char *arg, struct argp_state *state);

/* ---- OWNER... operands: release, and the listings by owner ---- */

struct rm_owners {
	char **names; /* the OWNER operands as given; free() it */
	int n;
	bool all, dry_run;
};

/* The argp parser of such a command; its input is a struct rm_owners. */
error_t rm_owners_parse(int key, char *arg, struct argp_state *state);

/* Whether OWNER is one of O's names: every owner with --all, or when none is named. */
bool rm_owners_match(const struct rm_owners *o, const char *owner);

/* For release: exit 2 unless O names owners or has --all, and not both. */
void rm_owners_require(const struct rm_owners *o, const char *command);

#endif
