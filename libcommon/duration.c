/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Durations given on the command line: a number and a unit (500ms, 1s, 2.5m). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"

int rm_duration_parse(const char *arg, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || !isfinite(v) || v < 0 || *arg == '-' || *arg == '+')
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].ns;
			if (v > 1e18)
				return -1;
			*ns = (uint64_t)(v + 0.5);
			return 0;
		}
	return -1;
}
