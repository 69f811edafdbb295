/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup file systems: where a controller is mounted (v1, unified, hybrid), reading cgroup files,
 * listing, removing and joining cgroups. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <libcgroup.h>

#include "cgroup.h"
#include "cpulist.h"
#include "dynlib.h"
#include "kernfs.h"
#include "xalloc.h"

/*
 * The cgroupfs files are read and written directly rather than through libcgroup: the same code
 * must run against test trees under $RM_CGROUP_ROOT, and libcgroup only knows the mounts it finds
 * in /proc/self/mounts. libcgroup is used on the live system to find where a controller is
 * mounted.
 */

/* ---- files ---- */

#define FILES RM_CGROUP_FILES

char *rm_cgroup_read_text(const char *path, char **errmsg)
{
	char *s = rm_kernfs_read(path, FILES);

	if (!s)
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
	return s;
}

int rm_cgroup_read_set(const char *path, hwloc_bitmap_t set, char **errmsg)
{
	char *s = rm_cgroup_read_text(path, errmsg), *msg = NULL;

	if (!s)
		return -1;
	if (rm_cpulist_parse_list(s, set, &msg) < 0) {
		*errmsg = xasprintf("cannot read %s: %s", path, msg);
		free(msg);
		free(s);
		return -1;
	}
	free(s);
	return 0;
}

bool rm_cgroup_has_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool ok = rm_kernfs_exists(path, FILES);

	free(path);
	return ok;
}

ssize_t rm_cgroup_read_pids(const char *path, pid_t **pids, char **errmsg)
{
	char *s = rm_cgroup_read_text(path, errmsg), *line, *save;
	size_t n = 0, cap = 16;

	*pids = NULL;
	if (!s)
		return -1;
	*pids = xmalloc(cap * sizeof(**pids));
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long v = strtol(line, &end, 10);

		if (end == line || *end || v <= 0) {
			*errmsg = xasprintf("cannot read %s: not a process id: '%s'", path, line);
			free(*pids);
			*pids = NULL;
			free(s);
			return -1;
		}
		if (n == cap)
			*pids = xrealloc(*pids, (cap *= 2) * sizeof(**pids));
		(*pids)[n++] = (pid_t)v;
	}
	free(s);
	return (ssize_t)n;
}

/* ---- any controller under a root laid out like /sys/fs/cgroup ---- */

char *rm_cgroup_strip_root(const char *root)
{
	char *r = xstrdup(root);
	size_t len = strlen(r);

	while (len > 1 && r[len - 1] == '/')
		r[--len] = '\0';
	return r;
}

/* Whether DIR's cgroup.controllers offers WORD (or "+WORD", as test trees may write it). */
static bool offers(const char *dir, const char *word)
{
	char *plus = xasprintf("+%s", word);
	bool found = rm_kernfs_list_has(dir, "cgroup.controllers", word, FILES) ||
		     rm_kernfs_list_has(dir, "cgroup.controllers", plus, FILES);

	free(plus);
	return found;
}

char *rm_cgroup_unified(const char *root)
{
	char *r = rm_cgroup_strip_root(root), *path;

	if (rm_cgroup_has_file(r, "cgroup.controllers"))
		return r;
	path = xasprintf("%s/unified", r);
	free(r);
	if (rm_cgroup_has_file(path, "cgroup.controllers"))
		return path;
	free(path);
	return NULL;
}

int rm_cgroup_find(const char *root, const char *controller, const char *v1_file,
		   enum rm_cgroup_version *version, char **mount)
{
	char *r = rm_cgroup_strip_root(root), *path;

	*mount = NULL;
	path = xstrdup(r);
	if (offers(path, controller)) {
		*version = RM_CGROUP_V2;
		*mount = path;
	} else {
		free(path);
		path = xasprintf("%s/unified", r);
		if (offers(path, controller)) {
			*version = RM_CGROUP_V2;
			*mount = path;
		} else {
			free(path);
			path = xasprintf("%s/%s", r, controller);
			if (rm_kernfs_is_dir(path, FILES) &&
			    !rm_cgroup_has_file(path, "cgroup.controllers") &&
			    (!v1_file || rm_cgroup_has_file(path, v1_file))) {
				*version = RM_CGROUP_V1;
				*mount = path;
			} else {
				free(path);
			}
		}
	}
	free(r);
	return *mount ? 0 : -1;
}

char *rm_cgroup_owner_path(enum rm_cgroup_version version, const char *mount, const char *owner)
{
	return xasprintf("%s/%s/%s", mount,
			 version == RM_CGROUP_V1 ? RM_CGROUP_PARENT_V1 : RM_CGROUP_PARENT_V2, owner);
}

/* libcgroup is opened at its first use (dynlib.h): only finding the live mounts needs it,
 * and linked, its relocations would be resolved at the start of every run of every tool. */
#define LIBCGROUP_FUNCTIONS(X) \
	X(cgroup_init) \
	X(cgroup_get_subsys_mount_point) \
	X(cgroup_strerror)

static struct {
#define X(f) __typeof__(f) *f;
	LIBCGROUP_FUNCTIONS(X)
#undef X
} lcg;

int rm_cgroup_mounted(const char *controller, char **mount, char **errmsg)
{
	char *mp = NULL;
	int rc;

	*mount = NULL;
	RM_DL_LOAD(lcg, "libcgroup.so.2", LIBCGROUP_FUNCTIONS);
	rc = lcg.cgroup_init();
	if (rc == 0)
		rc = lcg.cgroup_get_subsys_mount_point(controller, &mp);
	if (rc == ECGROUPNOTMOUNTED || rc == ECGROUPNOTEXIST || (rc == 0 && !mp))
		return 1;
	if (rc) {
		*errmsg = xasprintf("cannot find the cgroup mounts: %s", lcg.cgroup_strerror(rc));
		free(mp);
		return -1;
	}
	*mount = mp;
	return 0;
}

int rm_cgroup_children(const char *parent, char ***names, char **errmsg)
{
	int n = rm_kernfs_subdirs(parent, FILES, NULL, names);

	if (n < 0 && errno == ENOENT)
		return 0;
	if (n < 0)
		*errmsg = xasprintf("cannot read %s: %s", parent, strerror(errno));
	return n;
}

int rm_cgroup_remove_childless(const char *parent, char **errmsg)
{
	char **names = NULL;
	int n = rm_cgroup_children(parent, &names, errmsg);

	if (n < 0)
		return -1;
	rm_kernfs_names_free(names, n);
	if (n == 0 && rm_kernfs_is_dir(parent, FILES) && rm_kernfs_rmdir(parent) < 0 &&
	    errno != EBUSY && errno != ENOTEMPTY) {
		*errmsg = xasprintf("cannot remove %s: %s", parent, strerror(errno));
		return -1;
	}
	return 0;
}

int rm_cgroup_join(const char *dir, pid_t pid, char **errmsg)
{
	char *path = xasprintf("%s/cgroup.procs", dir), val[24];
	int rc = 0, e;

	snprintf(val, sizeof(val), "%d", (int)pid);
	if (rm_kernfs_is_dir(dir, FILES) && (e = rm_kernfs_write(path, val, FILES))) {
		*errmsg = xasprintf("cannot write '%s' to %s: %s", val, path, strerror(e));
		rc = -1;
	}
	free(path);
	return rc;
}

int rm_cgroup_evacuate(const char *dir, const char *to_dir, char **errmsg)
{
	char *from = xasprintf("%s/cgroup.procs", dir), *to = xasprintf("%s/cgroup.procs", to_dir);
	int rc = 0;

	for (int round = 0; round < 16 && rc == 0; round++) {
		char *s = rm_kernfs_read(from, RM_CGROUP_FILES), *line, *save;
		bool any = false;

		if (!s) {
			*errmsg = xasprintf("cannot read %s: %s", from, strerror(errno));
			rc = -1;
			break;
		}
		for (line = strtok_r(s, "\n", &save); line && rc == 0;
		     line = strtok_r(NULL, "\n", &save)) {
			int e = rm_kernfs_write(to, line, RM_CGROUP_FILES | RM_KERNFS_TRUNC);

			any = true;
			if (e && e != ESRCH) {
				*errmsg = xasprintf("cannot write '%s' to %s: %s", line, to,
						    strerror(e));
				rc = -1;
			}
		}
		free(s);
		if (!any)
			break;
	}
	free(from);
	free(to);
	return rc;
}
