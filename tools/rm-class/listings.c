/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-class list, show and check: the classes, as records, as class files, and validated. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpualloc.h"
#include "exitcodes.h"
#include "output.h"
#include "rm-class.h"
#include "xalloc.h"

enum { CL_CLASS, CL_SOURCE, CL_COUNT, CL_POLICY, CL_EXCLUSIVE, CL_DESCRIPTION, CL_SELECTOR };
static const struct rm_column class_cols[] = {
	[CL_CLASS] = { "class", RM_COL_STRING, "the class name" },
	[CL_SOURCE] = { "source", RM_COL_STRING, "builtin, or the class file and line" },
	[CL_COUNT] = { "count", RM_COL_INT, "devices a request takes by default" },
	[CL_POLICY] = { "policy", RM_COL_STRING, "the Topology Manager policy of a request" },
	[CL_EXCLUSIVE] = { "exclusive", RM_COL_BOOL, "devices held by one owner at a time" },
	[CL_DESCRIPTION] = { "description", RM_COL_STRING, "what the class is for" },
	[CL_SELECTOR] = { "selector", RM_COL_STRING, "the selector, in canonical form" },
};
static const char class_defaults[] = "class,source,count,policy,exclusive,description";

struct names_args {
	char **names;
	int n;
};

static error_t names_parse(int key, char *arg, struct argp_state *state)
{
	struct names_args *a = state->input;

	if (key != ARGP_KEY_ARG)
		return ARGP_ERR_UNKNOWN;
	a->names = xrealloc(a->names, (a->n + 1) * sizeof(*a->names));
	a->names[a->n++] = arg;
	return 0;
}

/* The classes named in A (each exists, else exit 2), or every class when A names none. */
static const struct rm_class **chosen(const struct names_args *a, size_t *n)
{
	const struct rm_classes *cl = classes();
	const struct rm_class **v;

	if (!a->n) {
		v = xcalloc(cl->n, sizeof(*v));
		for (size_t i = 0; i < cl->n; i++)
			v[i] = &cl->v[i];
		*n = cl->n;
		return v;
	}
	v = xcalloc(a->n, sizeof(*v));
	for (int i = 0; i < a->n; i++) {
		const char *name = a->names[i]; /* in argv */

		if (!rm_classes_find(cl, name)) {
			free(v);
			free(a->names);
			class_named(name); /* exits */
		}
		v[i] = class_named(name);
	}
	*n = a->n;
	return v;
}

int cmd_list(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, names_parse, "[CLASS...]",
		"One record per class (or per CLASS given): built-in classes first, then those of the "
		"class files, in file order; a class file's class replaces the built-in of its name.",
		NULL, NULL, NULL
	};
	struct names_args a = { 0 };
	const struct rm_class **v;
	struct rm_out *out;
	size_t n;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	if (c->out.list_columns) {
		free(a.names);
		rm_out_list_columns(&c->out, class_cols, ARRAY_SIZE(class_cols), class_defaults);
		return RM_EXIT_SUCCESS;
	}
	v = chosen(&a, &n);
	out = rm_out_new(&c->out, "classes", class_cols, ARRAY_SIZE(class_cols), class_defaults,
			 true);
	for (size_t i = 0; i < n; i++) {
		char *src = rm_class_source(v[i]), *sel = rm_selector_format(v[i]->sel);

		rm_out_begin(out);
		rm_out_str(out, CL_CLASS, v[i]->name);
		rm_out_str(out, CL_SOURCE, src);
		rm_out_int(out, CL_COUNT, v[i]->count);
		rm_out_str(out, CL_POLICY, rm_tm_policy_name(v[i]->policy));
		rm_out_bool(out, CL_EXCLUSIVE, v[i]->exclusive);
		rm_out_str(out, CL_DESCRIPTION, v[i]->description);
		rm_out_str(out, CL_SELECTOR, sel);
		rm_out_end(out);
		free(src);
		free(sel);
	}
	rm_out_close(out);
	rm_out_flush();
	free(v);
	free(a.names);
	return RM_EXIT_SUCCESS;
}

int cmd_show(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, names_parse, "[CLASS...]",
		"Print each class (or every class) as a class file defines it, its selector in "
		"canonical form, after a comment naming where it comes from.",
		NULL, NULL, NULL
	};
	struct names_args a = { 0 };
	const struct rm_class **v;
	size_t n;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT | RM_PARSE_NO_INPUT);
	v = chosen(&a, &n);
	for (size_t i = 0; i < n; i++) {
		char *src = rm_class_source(v[i]), *sel = rm_selector_format(v[i]->sel);

		printf("%s# %s\n[class %s]\n", i ? "\n" : "", src, v[i]->name);
		if (v[i]->description)
			printf("description = %s\n", v[i]->description);
		printf("selector = %s\ncount = %u\npolicy = %s\nexclusive = %s\n", sel,
		       v[i]->count, rm_tm_policy_name(v[i]->policy),
		       v[i]->exclusive ? "yes" : "no");
		free(src);
		free(sel);
	}
	free(v);
	free(a.names);
	return RM_EXIT_SUCCESS;
}

/* ---- check ---- */

struct check {
	char **records; /* file=PATH classes=N, printed when there is no error */
	size_t n;
};

static void checked(const char *path, int nclasses, void *arg)
{
	struct check *k = arg;
	char *q;

	if (nclasses < 0)
		return;
	q = rm_record_quote(path);
	k->records = xrealloc(k->records, (k->n + 1) * sizeof(*k->records));
	k->records[k->n++] = xasprintf("file=%s classes=%d", q, nclasses);
	free(q);
}

int cmd_check(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, names_parse, "[FILE...]",
		"Read class files (directories: their *.conf files; none given: the class directory) "
		"and report every error, one a line; print one file record per file when there is "
		"none.",
		NULL, NULL, NULL
	};
	struct names_args a = { 0 };
	struct rm_classes cl = { 0 };
	struct check k = { 0 };
	int status = RM_EXIT_SUCCESS;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT | RM_PARSE_NO_INPUT);
	rm_classes_add_builtins(&cl);
	if (!a.n) {
		char *dir = rm_classes_dir();

		rm_classes_add_dir(&cl, dir, checked, &k);
		free(dir);
	}
	for (int i = 0; i < a.n; i++) {
		struct stat st;

		if (stat(a.names[i], &st) == 0 && S_ISDIR(st.st_mode))
			rm_classes_add_dir(&cl, a.names[i], checked, &k);
		else
			checked(a.names[i], rm_classes_add_file(&cl, a.names[i]), &k);
	}
	for (size_t i = 0; i < cl.nwarnings; i++)
		rm_warnx("%s", cl.warnings[i]);
	for (size_t i = 0; i < cl.nerrors; i++)
		rm_warnx("%s", cl.errors[i]);
	if (cl.nerrors)
		status = cl.io_failed ? RM_EXIT_FAILURE : RM_EXIT_USAGE;
	for (size_t i = 0; i < k.n; i++) {
		if (!cl.nerrors)
			puts(k.records[i]);
		free(k.records[i]);
	}
	free(k.records);
	rm_classes_free(&cl);
	free(a.names);
	return status;
}
