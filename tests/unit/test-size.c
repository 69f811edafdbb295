/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line filter over libcommon/size.c, driven by tests/libcommon.bats. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "size.h"

int main(int argc, char **argv)
{
	const char *cmd = argc == 3 ? argv[1] : "";
	uint64_t bytes;
	char *msg = NULL, *s;

	if (!strcmp(cmd, "parse") || !strcmp(cmd, "canon")) {
		if (rm_size_parse(argv[2], &bytes, &msg)) {
			fprintf(stderr, "%s\n", msg);
			free(msg);
			return RM_EXIT_USAGE;
		}
		if (!strcmp(cmd, "parse")) {
			printf("%" PRIu64 "\n", bytes);
			return fflush(stdout) ? RM_EXIT_FAILURE : 0;
		}
	} else if (!strcmp(cmd, "format")) {
		char *end;

		errno = 0;
		bytes = strtoull(argv[2], &end, 10);
		if (errno || end == argv[2] || *end || argv[2][0] == '-') {
			fprintf(stderr, "bad number: '%s'\n", argv[2]);
			return RM_EXIT_USAGE;
		}
	} else {
		fputs("usage: test-size parse|canon|format STR\n", stderr);
		return RM_EXIT_USAGE;
	}
	/* format, and canon: parse then format. */
	s = rm_size_format(bytes);
	puts(s);
	free(s);
	return fflush(stdout) ? RM_EXIT_FAILURE : 0;
}
