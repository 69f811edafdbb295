/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sizes: parse "2MiB", "1G", "4096"; print with the largest binary unit that is exact. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "size.h"
#include "xalloc.h"

/* Units by power of 1024; the letter is also the shorthand (K, KB, KiB). */
static const char units[] = "KMGTPE";

/* S for a message: control and non-ASCII bytes as \xHH keep it on one line. */
static char *show(const char *s)
{
	char *out = xmalloc(4 * strlen(s) + 1), *p = out;

	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = c;
	}
	*p = '\0';
	return out;
}

static int fail(char **errmsg, const char *what, const char *str)
{
	if (errmsg) {
		char *s = show(str);

		*errmsg = xasprintf("%s: '%s'", what, s);
		free(s);
	}
	return -1;
}

/* The power of 1024 a suffix stands for, or -1. Letters in any case: "2kb", "2048kB" (sysfs). */
static int suffix_shift(const char *s)
{
	const char *u;

	if (!*s || !strcasecmp(s, "B"))
		return 0;
	u = strchr(units, toupper((unsigned char)s[0]));
	if (!u)
		return -1;
	s++;
	if (*s && strcasecmp(s, "B") && strcasecmp(s, "iB"))
		return -1;
	return 10 * (u - units + 1);
}

/* Written by hand: strtoull() takes signs, spaces and hex, all wrong for a size. */
int rm_size_parse(const char *str, uint64_t *bytes, char **errmsg)
{
	const char *p = str;
	uint64_t n = 0;
	bool big = false;
	int shift;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = *p - '0';

		if (n > (UINT64_MAX - d) / 10)
			big = true;
		else
			n = n * 10 + d;
	}
	if (p == str || (shift = suffix_shift(p)) < 0)
		return fail(errmsg, "invalid size", str);
	if (big || (shift && n > UINT64_MAX >> shift))
		return fail(errmsg, "size too large", str);
	*bytes = n << shift;
	return 0;
}

char *rm_size_format(uint64_t bytes)
{
	int i = 0;

	if (!bytes)
		return xstrdup("0B");
	while (i < 6 && !(bytes & ((UINT64_C(1) << (10 * (i + 1))) - 1)))
		i++;
	if (!i)
		return xasprintf("%" PRIu64 "B", bytes);
	return xasprintf("%" PRIu64 "%ciB", bytes >> (10 * i), units[i - 1]);
}

char *rm_size_quantity(uint64_t bytes)
{
	int i = 0;

	while (bytes && i < 6 && !(bytes & ((UINT64_C(1) << (10 * (i + 1))) - 1)))
		i++;
	if (!i)
		return xasprintf("%" PRIu64, bytes);
	return xasprintf("%" PRIu64 "%ci", bytes >> (10 * i), units[i - 1]);
}
