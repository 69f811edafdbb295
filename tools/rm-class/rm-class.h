/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-class's commands and what they share: the loaded classes and the device records. */
#ifndef RM_CLASS_TOOL_H
#define RM_CLASS_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "classes.h"
#include "options.h"
#include "record.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int cmd_list(int argc, char **argv, struct rm_common *c);
int cmd_show(int argc, char **argv, struct rm_common *c);
int cmd_match(int argc, char **argv, struct rm_common *c);
int cmd_check(int argc, char **argv, struct rm_common *c);
int cmd_explain(int argc, char **argv, struct rm_common *c);
int cmd_export(int argc, char **argv, struct rm_common *c);

/* The classes: built-ins and class files. Exits 2 (a bad class file) or 1 with the first error. */
const struct rm_classes *classes(void);

/* The class NAME; exits 2 with "no such class: 'x'" when there is none. */
const struct rm_class *class_named(const char *name);

/* Parse a --selector given on the command line; exits 2 with where it is wrong. */
struct rm_selector *selector_arg(const char *text);

/*
 * The device records to match: those on standard input, or, when standard input is a terminal,
 * closed or /dev/null, or --sysroot is given, the devices rm-devices finds on this machine or in
 * the snapshot (with memory from NVML on this machine when SEL reads it). Records of other kinds
 * than "device" are left out. Exits 2 on malformed input.
 */
struct devices_in {
	struct rm_record *recs;
	char **lines;          /* each record as read, or NULL for discovered devices */
	size_t n;
};
void devices_read(const struct rm_common *c, const struct rm_selector *sel,
		  struct devices_in *in);
/* Warn (on stderr) about each field SEL reads that no record read from standard input has. */
void devices_check_fields(const struct devices_in *in, const struct rm_selector *sel);
void devices_in_free(struct devices_in *in);

#endif
