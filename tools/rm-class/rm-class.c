/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-class: named resource classes over the device records of rm-devices. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"
#include "rm-class.h"
#include "xalloc.h"

static const struct rm_command commands[] = {
	{ "list", cmd_list, "one record per class, where each comes from (default)" },
	{ "show", cmd_show, "classes in class file form, selectors canonical" },
	{ "match", cmd_match, "the device records of a class, from standard input or found" },
	{ "explain", cmd_explain, "which clauses of a class a device passes and fails" },
	{ "check", cmd_check, "validate class files, reporting every error" },
	{ "export", cmd_export, "DRA DeviceClass or SR-IOV device plugin selectors" },
	{ NULL, NULL, NULL },
};

static const struct rm_tool tool = {
	.doc = "Name classes of devices by what they must offer (type == \"gpu\" and memory >= "
	       "16GiB), and select the devices of a class from the records of rm-devices.",
	.commands = commands, .name_width = 16, .manuals = "rm-class(1) and rm-class.conf(5)",
	.default_args = (const char *const[]){ "list", NULL },
};

/* ---- what the commands share ---- */

const struct rm_classes *classes(void)
{
	const struct rm_classes *cl;
	char *msg = NULL;
	int status;

	if (!(cl = rm_classes_get(&msg, &status))) {
		rm_warnx("%s", msg);
		free(msg);
		exit(status);
	}
	return cl;
}

const struct rm_class *class_named(const char *name)
{
	const struct rm_class *c = rm_classes_find(classes(), name);

	if (!c) {
		char *s = rm_record_show(name, strlen(name));

		rm_warnx("no such class: '%s' (see rm-class list)", s);
		free(s);
		exit(RM_EXIT_USAGE);
	}
	return c;
}

struct rm_selector *selector_arg(const char *text)
{
	struct rm_selector_error e;
	struct rm_selector *sel;

	if (rm_selector_parse(text, &sel, &e)) {
		rm_warnx("invalid selector: line %u, column %u: %s", e.line, e.column, e.what);
		rm_selector_error_free(&e);
		exit(RM_EXIT_USAGE);
	}
	return sel;
}

int main(int argc, char **argv)
{
	/* the classes stay loaded for the run and are freed at exit */
	atexit(rm_classes_release);
	return rm_tool_main(&tool, argc, argv);
}
