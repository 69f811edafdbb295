/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option values of rm-bench: counts, durations, sizes, percentages. */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "rm-bench.h"
#include "size.h"
#include "xalloc.h"

long parse_long(struct argp_state *state, const char *opt, const char *arg, long min, long max)
{
	uint64_t v;

	/* every caller's MIN is at least 0: a plain decimal */
	if (min < 0 || rm_parse_uint(arg, (uint64_t)min, (uint64_t)max, &v))
		argp_error(state, "%s takes an integer from %ld to %ld: '%s'", opt, min, max, arg);
	return (long)v;
}

int parse_runs(struct argp_state *state, const char *arg)
{
	return (int)parse_long(state, "--runs", arg, 1, 1000);
}

int parse_duration(const char *arg, uint64_t *ns)
{
	return rm_duration_parse(arg, ns);
}

uint64_t parse_size(struct argp_state *state, const char *opt, const char *arg)
{
	char *msg = NULL;
	uint64_t v;

	if (rm_size_parse(arg, &v, &msg) < 0) {
		free(msg);
		argp_error(state, "%s: invalid size: '%s'", opt, arg);
	}
	if (v == 0)
		argp_error(state, "%s: the size must not be zero: '%s'", opt, arg);
	return v;
}

void parse_size_list(struct argp_state *state, const char *opt, const char *arg,
		     uint64_t **sizes, size_t *n)
{
	const char *p = arg;

	*n = 0;
	if (!*arg)
		argp_error(state, "%s: invalid list: '%s'", opt, arg);
	/* *SIZES stays reachable from the caller's arguments if argp_error exits */
	*sizes = xrealloc(*sizes, (strlen(arg) / 2 + 1) * sizeof(**sizes));
	for (;;) {
		size_t len = strcspn(p, ",");
		char tok[64], *msg = NULL;
		uint64_t v;

		if (len == 0 || len >= sizeof(tok))
			argp_error(state, "%s: invalid list: '%s'", opt, arg);
		memcpy(tok, p, len);
		tok[len] = 0;
		if (rm_size_parse(tok, &v, &msg) < 0 || v == 0) {
			free(msg);
			argp_error(state, "%s: invalid size: '%s'", opt, tok);
		}
		(*sizes)[(*n)++] = v;
		p += len;
		if (!*p)
			break;
		p++;
	}
}

double parse_percent(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || !isfinite(v) || v < 0)
		return -1;
	if (*end == '%')
		end++;
	return *end ? -1 : v;
}
