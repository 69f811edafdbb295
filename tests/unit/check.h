/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The unit programs' checks: CHECK(COND, FORMAT, ...) counts a check, and a failed one is printed
 * to stderr with its place; the program prints "N checks, M failed" at the end. */
#ifndef RM_TESTS_CHECK_H
#define RM_TESTS_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                  \
	do {                                                                              \
		checks++;                                                                 \
		if (!(cond)) {                                                            \
			failures++;                                                       \
			fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                   \
			fprintf(stderr, __VA_ARGS__);                                     \
			fputc('\n', stderr);                                              \
		}                                                                         \
	} while (0)

#endif
