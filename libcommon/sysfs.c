/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading /sys and /proc files under an optional root, so --sysroot replays a snapshot. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "kernfs.h"
#include "sysfs.h"
#include "xalloc.h"

char *rm_sysfs_path(const char *root, const char *path)
{
	while (*path == '/')
		path++;
	if (!root || !*root || !strcmp(root, "/"))
		return xasprintf("/%s", path);
	return xasprintf("%s/%s", root, path);
}

char *rm_sysfs_read(const char *root, const char *path)
{
	char *full = rm_sysfs_path(root, path), *buf;
	size_t len;

	buf = rm_kernfs_read_raw(full, 0, &len);
	free(full);
	if (!buf)
		return NULL;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	return buf;
}

int rm_sysfs_read_set(const char *root, const char *path, hwloc_bitmap_t set)
{
	char *s = rm_sysfs_read(root, path), *msg = NULL;
	int rc;

	if (!s)
		return -1;
	rc = rm_cpulist_parse_list(s, set, &msg);
	free(msg);
	free(s);
	return rc;
}

int rm_sysfs_read_u64(const char *root, const char *path, uint64_t *value)
{
	char *s = rm_sysfs_read(root, path), *end;
	int rc = -1;

	if (!s)
		return -1;
	errno = 0;
	*value = strtoull(s, &end, 10);
	if (!errno && end != s && *end == '\0')
		rc = 0;
	free(s);
	return rc;
}

bool rm_sysfs_exists(const char *root, const char *path)
{
	char *full = rm_sysfs_path(root, path);
	bool ok = access(full, F_OK) == 0;

	free(full);
	return ok;
}
