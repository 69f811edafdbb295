/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-class export: classes as Kubernetes DRA DeviceClasses and SR-IOV device plugin resources. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "rm-class.h"
#include "xalloc.h"

/* The CEL expression of a DeviceClass selector may be at most this long (the API's limit). */
#define MAX_CEL (10 * 1024)

enum { OPT_DOMAIN = 0x100, OPT_DRIVER };

struct export_args {
	const char *format;
	const char *domain;
	const char *driver;
	char **names;
	int n;
};

static const struct argp_option export_options[] = {
	{ "domain", OPT_DOMAIN, "DOMAIN", 0,
	  "attribute domain (dra; default the --driver, else rmtools.io) or resource prefix "
	  "(sriovdp; default rmtools.io)", 0 },
	{ "driver", OPT_DRIVER, "NAME", 0, "dra: only devices of this DRA driver", 0 },
	{ 0 }
};

/* A DNS subdomain of at most 63 bytes, as DRA wants attribute domains and driver names. */
static bool dns_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool alnum = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9');
		bool edge = i == 0 || i == n - 1 || s[i - 1] == '.' || s[i + 1] == '.';

		if (!alnum && (edge || (s[i] != '-' && s[i] != '.')))
			return false;
	}
	return true;
}

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;

	switch (key) {
	case OPT_DOMAIN:
		if (!dns_name(arg))
			argp_error(state, "invalid domain: '%s' (lower-case letters, digits, '-' and "
				   "'.', at most 63)", arg);
		a->domain = arg;
		break;
	case OPT_DRIVER:
		if (!dns_name(arg))
			argp_error(state, "invalid driver name: '%s' (lower-case letters, digits, '-' "
				   "and '.', at most 63)", arg);
		a->driver = arg;
		break;
	case ARGP_KEY_ARG:
		if (!a->format) {
			if (strcmp(arg, "dra") && strcmp(arg, "sriovdp"))
				argp_error(state, "unknown export format: '%s' (dra, sriovdp)", arg);
			a->format = arg;
			break;
		}
		a->names = xrealloc(a->names, (a->n + 1) * sizeof(*a->names));
		a->names[a->n++] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->format)
			argp_error(state, "missing FORMAT (dra, sriovdp)");
		if (!a->n)
			argp_error(state, "missing CLASS");
		if (a->driver && strcmp(a->format, "dra"))
			argp_error(state, "--driver is for dra");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* A YAML double-quoted scalar of S. */
static void yaml_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

/* A Kubernetes object name: a DNS subdomain (lower case, digits, '-', '.'). */
static bool object_name(const char *s)
{
	for (const char *p = s; *p; p++)
		if (*p == '_' || (*p >= 'A' && *p <= 'Z'))
			return false;
	return *s && s[0] != '.' && s[0] != '-' && s[strlen(s) - 1] != '.' &&
	       s[strlen(s) - 1] != '-' && !strstr(s, "..");
}

/* Each class as a DeviceClass into F; NULL, or why a class cannot be exported (allocated). */
static char *export_dra(const struct export_args *a, FILE *f)
{
	for (int i = 0; i < a->n; i++) {
		const struct rm_class *c = class_named(a->names[i]);
		char *cel, *msg, *src, *canon;

		if (!object_name(c->name))
			return xasprintf("cannot export class '%s' to dra: not a Kubernetes object "
					 "name (lower-case letters, digits, '-' and '.')", c->name);
		if (rm_selector_cel(c->sel, a->domain, &cel, &msg)) {
			char *r = xasprintf("cannot export class '%s' to dra: %s", c->name, msg);

			free(msg);
			return r;
		}
		if (strlen(cel) + (a->driver ? strlen(a->driver) + 24 : 0) > MAX_CEL) {
			free(cel);
			return xasprintf("cannot export class '%s' to dra: its CEL expression is "
					 "longer than %d bytes", c->name, MAX_CEL);
		}
		src = rm_class_source(c);
		canon = rm_selector_format(c->sel);
		fprintf(f, "%s# rm-class export dra: class %s (%s)\n", i ? "---\n" : "", c->name,
			src);
		fprintf(f, "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
			"  name: %s\n  annotations:\n", c->name);
		if (c->description) {
			fprintf(f, "    %s/description: ", a->domain);
			yaml_string(f, c->description);
			putc('\n', f);
		}
		fprintf(f, "    %s/selector: ", a->domain);
		yaml_string(f, canon);
		fprintf(f, "\nspec:\n  selectors:\n  - cel:\n      expression: |-\n        ");
		if (a->driver)
			fprintf(f, "device.driver == \"%s\" && (%s)\n", a->driver, cel);
		else
			fprintf(f, "%s\n", cel);
		free(src);
		free(canon);
		free(cel);
	}
	return NULL;
}

/* The classes as one plugin configuration into F; NULL, or why a class cannot be exported. */
static char *export_sriovdp(const struct export_args *a, FILE *f)
{
	fputs("{\n  \"resourceList\": [", f);
	for (int i = 0; i < a->n; i++) {
		const struct rm_class *c = class_named(a->names[i]);
		char *json, *msg;

		if (rm_selector_sriovdp(c->sel, 6, &json, &msg)) {
			char *r = xasprintf("cannot export class '%s' to sriovdp: %s", c->name, msg);

			free(msg);
			return r;
		}
		fprintf(f, "%s\n    {\n      \"resourceName\": \"", i ? "," : "");
		/* the plugin takes letters, digits and '_' */
		for (const char *p = c->name; *p; p++)
			putc(*p == '-' || *p == '.' ? '_' : *p, f);
		fprintf(f, "\",\n      \"resourcePrefix\": \"%s\",\n"
			"      \"deviceType\": \"netDevice\",\n      \"selectors\": %s\n    }",
			a->domain, json);
		free(json);
	}
	fputs("\n  ]\n}\n", f);
	return NULL;
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		export_options, export_parse, "dra|sriovdp CLASS...",
		"Print classes in another tool's form. dra: one Kubernetes DRA DeviceClass "
		"(resource.k8s.io/v1) per CLASS, its CEL selector stating the same condition over "
		"device attributes of the domain. sriovdp: an SR-IOV network device plugin "
		"configuration with one resource per CLASS. A class whose selector the format cannot "
		"state is refused (exit status 2), and nothing is printed.",
		NULL, NULL, NULL
	};
	struct export_args a = { 0 };
	char *buf = NULL, *msg;
	size_t len = 0;
	FILE *f;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT | RM_PARSE_NO_INPUT);
	/* the attributes are in the driver's domain, as rm-devices export resourceslice puts them */
	if (!a.domain)
		a.domain = a.driver ? a.driver : "rmtools.io";
	classes(); /* a bad class file is reported before anything else */
	for (int i = 0; i < a.n; i++)
		if (!rm_classes_find(classes(), a.names[i])) {
			const char *name = a.names[i];

			free(a.names);
			class_named(name); /* exits */
		}
	/* all or nothing: the output is printed once every class is exported */
	f = open_memstream(&buf, &len);
	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	msg = !strcmp(a.format, "dra") ? export_dra(&a, f) : export_sriovdp(&a, f);
	fclose(f);
	if (msg) {
		rm_warnx("%s", msg);
		free(msg);
		free(buf);
		free(a.names);
		return RM_EXIT_USAGE;
	}
	fwrite(buf, 1, len, stdout);
	free(buf);
	free(a.names);
	return RM_EXIT_SUCCESS;
}
