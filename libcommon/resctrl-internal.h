/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What reading resctrl (resctrl.c) and managing its groups (resctrl-groups.c) share: file
 * reading, the kernel's last status, bit helpers, group directories. Private to libcommon. */
#ifndef RM_RESCTRL_INTERNAL_H
#define RM_RESCTRL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernfs.h"
#include "xalloc.h"

/* ---- files ---- */

/* How resctrl files are opened: links are followed, writes do not truncate. */
#define FILES 0

static inline char *read_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *s = rm_kernfs_read(path, FILES);

	free(path);
	return s;
}


/* The kernel's reason for the last refusal (info/last_cmd_status), as " (resctrl: REASON)", or
 * "" when it says "ok" or cannot be read. Allocated. */
static inline char *last_status(const char *root)
{
	char *dir = xasprintf("%s/info", root), *s = read_file(dir, "last_cmd_status"), *out;

	free(dir);
	if (!s || !*s || !strcmp(s, "ok")) {
		free(s);
		return xstrdup("");
	}
	for (char *p = s; *p; p++)
		if (*p == '\n')
			*p = ' ';
	out = xasprintf(" (resctrl: %s)", s);
	free(s);
	return out;
}

static inline int popcount(uint64_t v)
{
	return __builtin_popcountll(v);
}

static inline uint64_t low_bits(int n)
{
	return n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
}

/* Whether the set bits of V form one run (0 counts as one). */
static inline bool contiguous(uint64_t v)
{
	if (!v)
		return true;
	v >>= __builtin_ctzll(v);
	return (v & (v + 1)) == 0;
}

static inline int longest_run(uint64_t v)
{
	int best = 0;

	while (v) {
		int run;

		v >>= __builtin_ctzll(v);
		run = __builtin_ctzll(~v);
		if (run > best)
			best = run;
		v = run >= 64 ? 0 : v >> run;
	}
	return best;
}

/* ---- control groups ---- */

static inline bool is_group_name(const char *name)
{
	return strcmp(name, "info") && strcmp(name, "mon_data") && strcmp(name, "mon_groups");
}

static inline char *group_dir(const char *root, const char *name)
{
	return *name ? xasprintf("%s/%s", root, name) : xstrdup(root);
}

#endif
