/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Processes as /proc states them: when one started, so a reused pid is not taken for it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process.h"

unsigned long long rm_process_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* "pid (comm) state ...": p walks the spaces before fields 3, 4, ... 22 */
		for (i = 3, p = strchr(p, ' '); i < 22 && p; i++)
			p = strchr(p + 1, ' ');
		if (p)
			start = strtoull(p, NULL, 10);
	}
	fclose(f);
	return start;
}
