/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line filter over libcommon/wiweights.c, driven by tests/rm-bench/weights.bats:
 * test-wiweights RESOLUTION BW... prints the weights on one line, or exits 2. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "wiweights.h"

int main(int argc, char **argv)
{
	double bw[64];
	unsigned w[64];
	int n = argc - 2;

	if (n < 0 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		bw[i] = strtod(argv[i + 2], NULL);
	if (rm_wi_weights(bw, (size_t)n, (unsigned)strtoul(argv[1], NULL, 10), w))
		return 2;
	for (int i = 0; i < n; i++)
		printf("%s%u", i ? " " : "", w[i]);
	putchar('\n');
	return fflush(stdout) ? 1 : 0;
}
