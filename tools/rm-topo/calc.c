/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo calc: union, intersection and difference of locations, like hwloc-calc. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "rm-topo.h"
#include "xalloc.h"

enum { OPT_AND = 'a', OPT_NOT = 'x', OPT_MASK = 'm', OPT_COUNT = 'N', OPT_OBJECTS = 'O',
       OPT_PHYSICAL = 'p', OPT_LOGICAL = 'l' };

struct calc {
	bool and, not, mask, count, physical;
	const char *objects;
	hwloc_obj_type_t objects_type;
	char **exprs;
	int nexprs;
};

static const struct argp_option calc_options[] = {
	{ "and", OPT_AND, NULL, 0, "intersection of the locations (default: union)", 0 },
	{ "not", OPT_NOT, NULL, 0, "the first location less the others", 0 },
	{ "mask", OPT_MASK, NULL, 0, "print a hex mask as in cpumap files", 0 },
	{ "count", OPT_COUNT, NULL, 0, "print the number of CPUs (or of objects with --objects)", 0 },
	{ "objects", OPT_OBJECTS, "TYPE", 0,
	  "print the objects of TYPE (node, package, core, l3, cpu...) the result touches", 0 },
	{ "physical", OPT_PHYSICAL, NULL, 0, "indexes are the kernel's (os) numbers", 0 },
	{ "logical", OPT_LOGICAL, NULL, 0, "indexes are hwloc's logical numbers (default)", 0 },
	{ 0 }
};

static error_t calc_parse(int key, char *arg, struct argp_state *state)
{
	struct calc *k = state->input;

	switch (key) {
	case OPT_AND:
		k->and = true;
		break;
	case OPT_NOT:
		k->not = true;
		break;
	case OPT_MASK:
		k->mask = true;
		break;
	case OPT_COUNT:
		k->count = true;
		break;
	case OPT_OBJECTS:
		if (rm_topo_type_parse(arg, &k->objects_type, NULL) < 0)
			argp_error(state, "unknown object type: '%s'", arg);
		k->objects = arg;
		break;
	case OPT_PHYSICAL:
		k->physical = true;
		break;
	case OPT_LOGICAL:
		k->physical = false;
		break;
	case ARGP_KEY_ARG:
		k->exprs = xrealloc(k->exprs, (k->nexprs + 1) * sizeof(char *));
		k->exprs[k->nexprs++] = arg;
		break;
	case ARGP_KEY_END:
		if (k->and && k->not)
			argp_error(state, "options --and and --not exclude each other");
		if (k->mask && (k->count || k->objects))
			argp_error(state, "option --mask excludes --count and --objects");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp calc_argp = {
	calc_options, calc_parse, "[LOCATION...]",
	"Compute a CPU set from locations: node:0, package:1, core:2-5, l3:0, cpu:0-3, "
	"package:0.core:1, all, a cpulist (0-3,8) or a mask (0xff). Without LOCATIONs, read one "
	"line of them per result from standard input.",
	NULL, NULL, NULL
};

/* Objects of TYPE whose CPUs intersect SET, as a list of their indexes. */
static void objects_of(struct rm_topo *t, const struct calc *k, hwloc_const_bitmap_t set,
		       hwloc_bitmap_t ids)
{
	hwloc_obj_t o = NULL;

	hwloc_bitmap_zero(ids);
	while ((o = hwloc_get_next_obj_by_type(t->topo, k->objects_type, o))) {
		long id = k->physical ? rm_topo_os_index(o) : (long)o->logical_index;

		hwloc_const_bitmap_t cpus = o->type == HWLOC_OBJ_NUMANODE ?
			rm_topo_node_cpus(t, o) : o->cpuset;

		if (id >= 0 && cpus && hwloc_bitmap_intersects(cpus, set))
			hwloc_bitmap_set(ids, (unsigned)id);
	}
}

/* Evaluate one line's worth of locations and print the result; -1 after printing an error. */
static int calc_one(struct rm_topo *t, const struct calc *k, char **exprs, int n)
{
	hwloc_bitmap_t result = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
	char *msg = NULL, *s;
	int rc = -1;

	for (int i = 0; i < n; i++) {
		hwloc_bitmap_zero(one);
		if (rm_topo_location(t, exprs[i], k->physical, one, &msg) < 0) {
			rm_warnx("%s", msg);
			free(msg);
			goto out;
		}
		if (i == 0)
			hwloc_bitmap_copy(result, one);
		else if (k->and)
			hwloc_bitmap_and(result, result, one);
		else if (k->not)
			hwloc_bitmap_andnot(result, result, one);
		else
			hwloc_bitmap_or(result, result, one);
	}
	if (k->objects) {
		objects_of(t, k, result, one);
		hwloc_bitmap_copy(result, one);
	}
	if (k->count) {
		printf("%d\n", hwloc_bitmap_weight(result));
	} else {
		s = k->mask ? rm_cpulist_format_mask(result) : rm_cpulist_format(result);
		puts(s);
		free(s);
	}
	rc = 0;
out:
	hwloc_bitmap_free(one);
	hwloc_bitmap_free(result);
	return rc;
}

int cmd_calc(int argc, char **argv, struct rm_common *c)
{
	struct calc k = { 0 };
	struct rm_topo *t;
	int status = RM_EXIT_SUCCESS;

	rm_parse_command(&calc_argp, argc, argv, c, &k, RM_PARSE_NO_OUTPUT);
	t = rm_topo_load(c, 0);
	if (k.nexprs) {
		if (calc_one(t, &k, k.exprs, k.nexprs) < 0)
			status = RM_EXIT_USAGE;
	} else {
		char *line = NULL;
		size_t cap = 0;

		/* one result per input line; a bad line is reported and the rest still computed */
		while (getline(&line, &cap, stdin) > 0) {
			char **words = NULL, *w, *save = NULL;
			int n = 0;

			for (w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
				words = xrealloc(words, (n + 1) * sizeof(char *));
				words[n++] = w;
			}
			if (n && calc_one(t, &k, words, n) < 0)
				status = RM_EXIT_USAGE;
			free(words);
			fflush(stdout);
		}
		free(line);
	}
	free(k.exprs);
	rm_topo_free(t);
	return status;
}
