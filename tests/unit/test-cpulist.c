/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line filter over libcommon/cpulist.c, driven by tests/libcommon.bats. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"

static void usage(void)
{
	fputs("usage: test-cpulist parse|list|mask-only|mask|both STR\n"
	      "       test-cpulist infinite FIRST [STR]\n", stderr);
	exit(RM_EXIT_USAGE);
}

static void print(const char *what, hwloc_const_bitmap_t set)
{
	char *s = strcmp(what, "mask") ? rm_cpulist_format(set) : rm_cpulist_format_mask(set);

	puts(s);
	free(s);
}

int main(int argc, char **argv)
{
	int (*parse)(const char *, hwloc_bitmap_t, char **) = rm_cpulist_parse;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	const char *cmd = argc > 1 ? argv[1] : "";
	char *msg = NULL;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(cmd, "infinite")))
		usage();
	if (!strcmp(cmd, "list"))
		parse = rm_cpulist_parse_list;
	else if (!strcmp(cmd, "mask-only"))
		parse = rm_cpulist_parse_mask;
	else if (!strcmp(cmd, "infinite"))
		parse = NULL;
	else if (strcmp(cmd, "parse") && strcmp(cmd, "mask") && strcmp(cmd, "both"))
		usage();

	if (!parse) {
		/* FIRST onwards for ever, plus STR: hwloc makes such sets; they must print. */
		if (argc == 4 && rm_cpulist_parse(argv[3], set, &msg))
			goto bad;
		hwloc_bitmap_set_range(set, atoi(argv[2]), -1);
		print("list", set);
		print("mask", set);
	} else if (parse(argv[2], set, &msg)) {
		goto bad;
	} else if (!strcmp(cmd, "both")) {
		print("list", set);
		print("mask", set);
	} else {
		print(cmd, set);
	}
	hwloc_bitmap_free(set);
	return fflush(stdout) ? RM_EXIT_FAILURE : 0;
bad:
	fprintf(stderr, "%s\n", msg);
	free(msg);
	hwloc_bitmap_free(set);
	return RM_EXIT_USAGE;
}
