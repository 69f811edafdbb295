/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hugetlb cgroup limits for owners below the rmtools parent, on cgroup v1 or the unified hierarchy. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugepages.h"
#include "hugetlb.h"
#include "input.h"
#include "kernfs.h"
#include "state.h"
#include "xalloc.h"

/*
 * cgroupfs is read and written directly, as in cgroup.c, so that tests can run against trees
 * under $RM_CGROUP_ROOT. Changes are logged (rm_kernfs_log) and undone on a failure.
 */

/* v1 reads this (PAGE_COUNTER_MAX pages, rounded) for "no limit"; anything this large is none. */
#define UNLIMITED_V1 (UINT64_C(1) << 62)

/* How cgroupfs files are opened: a link as the last component is not followed, and writes
 * truncate first. */
#define FILES RM_HUGETLB_FILES

/* Whether the blank-separated list in DIR/FILE holds WORD or "+WORD". */
static bool list_has(const char *dir, const char *file, const char *word)
{
	char *plus = xasprintf("+%s", word);
	bool found = rm_kernfs_list_has(dir, file, word, FILES) ||
		     rm_kernfs_list_has(dir, file, plus, FILES);

	free(plus);
	return found;
}

/* ---- the hierarchy ---- */

static void set_hierarchy(struct rm_hugetlb *h, enum rm_cgroup_version v, const char *mount)
{
	h->version = v;
	h->mount = xstrdup(mount);
	h->parent = rm_cgroup_owner_path(v, mount, "");
	h->parent[strlen(h->parent) - 1] = '\0';
	h->cpuset = v == RM_CGROUP_V2 && list_has(mount, "cgroup.controllers", "cpuset");
}

int rm_hugetlb_open(struct rm_hugetlb *h, char **errmsg)
{
	const char *root = rm_input()->cgroup_root;
	enum rm_cgroup_version v;
	char *mount;
	bool found;

	memset(h, 0, sizeof(*h));
	if ((found = rm_cgroup_find(root, "hugetlb", NULL, &v, &mount) == 0)) {
		set_hierarchy(h, v, mount);
		free(mount);
	}
	if (!found)
		*errmsg = xasprintf("no hugetlb cgroup controller is mounted (v1 hugetlb or the "
				    "unified hierarchy's hugetlb): '%s'", root);
	return found ? 0 : -1;
}

void rm_hugetlb_close(struct rm_hugetlb *h)
{
	free(h->mount);
	free(h->parent);
	memset(h, 0, sizeof(*h));
}

char *rm_hugetlb_path(const struct rm_hugetlb *h, const char *owner)
{
	return rm_cgroup_owner_path(h->version, h->mount, owner);
}

/* The file of one value: "hugetlb.2MB.max" (v2), "hugetlb.2MB.rsvd.limit_in_bytes" (v1). */
static char *limit_file(const struct rm_hugetlb *h, uint64_t page_size, bool rsvd, bool usage)
{
	char *tok = rm_hugepages_cgroup_size(page_size), *f;
	const char *what = h->version == RM_CGROUP_V2 ? (usage ? "current" : "max")
						      : (usage ? "usage_in_bytes" : "limit_in_bytes");

	f = xasprintf("hugetlb.%s.%s%s", tok, rsvd ? "rsvd." : "", what);
	free(tok);
	return f;
}

/* DIR/FILE as a limit: "max" (v2) or a huge number (v1) is none. */
static int read_limit(const char *dir, const char *file, bool *limited, uint64_t *v,
		      char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file), *s = rm_kernfs_read(path, FILES), *end;
	unsigned long long n;

	if (!s) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	*limited = false;
	*v = 0;
	if (strcmp(s, "max")) {
		errno = 0;
		n = strtoull(s, &end, 10);
		if (errno || end == s || *end) {
			*errmsg = xasprintf("cannot read %s: not a number: '%s'", path, s);
			free(s);
			free(path);
			return -1;
		}
		*v = n;
		*limited = n < UNLIMITED_V1;
	}
	free(s);
	free(path);
	return 0;
}

int rm_hugetlb_read(const struct rm_hugetlb *h, const char *owner, uint64_t page_size,
		    struct rm_hugetlb_limit *l, char **errmsg)
{
	char *dir = rm_hugetlb_path(h, owner), *f, *path;
	bool dummy;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!rm_kernfs_is_dir(dir, FILES)) {
		free(dir);
		return 0;
	}
	f = limit_file(h, page_size, false, false);
	rc = read_limit(dir, f, &l->limited, &l->limit, errmsg);
	free(f);
	if (rc == 0) {
		f = limit_file(h, page_size, false, true);
		rc = read_limit(dir, f, &dummy, &l->usage, errmsg);
		free(f);
	}
	f = limit_file(h, page_size, true, false);
	path = xasprintf("%s/%s", dir, f);
	l->have_rsvd = rm_kernfs_exists(path, FILES);
	free(path);
	if (rc == 0 && l->have_rsvd) {
		rc = read_limit(dir, f, &l->rsvd_limited, &l->rsvd_limit, errmsg);
		if (rc == 0) {
			char *u = limit_file(h, page_size, true, true);

			rc = read_limit(dir, u, &dummy, &l->rsvd_usage, errmsg);
			free(u);
		}
	}
	free(f);
	free(dir);
	return rc < 0 ? -1 : 1;
}

/* ---- changes with undo ---- */

static int enable_hugetlb(struct rm_kernfs_log *lg, const char *dir, char **errmsg)
{
	if (list_has(dir, "cgroup.subtree_control", "hugetlb"))
		return 0;
	return rm_kernfs_put(lg, dir, "cgroup.subtree_control", "+hugetlb", "-hugetlb", errmsg);
}

/* Write a limit file, logging its old value. */
static int put_limit(struct rm_kernfs_log *lg, const struct rm_hugetlb *h, const char *dir,
		     const char *file, bool limited, uint64_t bytes, char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file), *old = rm_kernfs_read(path, FILES), val[24];
	int rc;

	if (!old) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (limited)
		snprintf(val, sizeof(val), "%" PRIu64, bytes);
	else
		snprintf(val, sizeof(val), "%s", h->version == RM_CGROUP_V2 ? "max" : "-1");
	/* v1 reads back its "no limit" as a number that it does not take as input */
	if (h->version == RM_CGROUP_V1 && strtoull(old, NULL, 10) >= UNLIMITED_V1) {
		free(old);
		old = xstrdup("-1");
	}
	rc = rm_kernfs_put(lg, dir, file, val, old, errmsg);
	free(old);
	free(path);
	return rc;
}

int rm_hugetlb_check(const struct rm_hugetlb *h, const char *owner, char **errmsg)
{
	char *dir;
	bool missing;

	if (!rm_name_valid(owner)) {
		*errmsg = xasprintf("invalid owner name: '%s'", owner);
		return -2;
	}
	dir = rm_hugetlb_path(h, owner);
	missing = h->cpuset && !rm_kernfs_is_dir(dir, FILES);
	free(dir);
	if (missing) {
		*errmsg = xasprintf("no rm-cpuset owner of that name: '%s' (cpuset and hugetlb "
				    "share the unified hierarchy here, so an owner's hugetlb limit "
				    "lives in its rm-cpuset cgroup: make the owner first with "
				    "rm-cpuset alloc --owner %s --shared, or --count N for exclusive "
				    "CPUs)", owner, owner);
		return -2;
	}
	return 0;
}

int rm_hugetlb_set_logged(const struct rm_hugetlb *h, const char *owner, uint64_t page_size,
			  bool limited, uint64_t bytes, struct rm_kernfs_log *lg, char **errmsg)
{
	char *dir, *f = NULL, *path = NULL;
	int rc;

	if ((rc = rm_hugetlb_check(h, owner, errmsg)) < 0)
		return rc;
	rc = -1;
	dir = rm_hugetlb_path(h, owner);
	if (h->version == RM_CGROUP_V2 && enable_hugetlb(lg, h->mount, errmsg) < 0)
		goto out;
	if (!rm_kernfs_is_dir(h->parent, FILES) && rm_kernfs_mkdir(lg, h->parent, errmsg) < 0)
		goto out;
	if (h->version == RM_CGROUP_V2 && enable_hugetlb(lg, h->parent, errmsg) < 0)
		goto out;
	if (!rm_kernfs_is_dir(dir, FILES) && rm_kernfs_mkdir(lg, dir, errmsg) < 0)
		goto out;
	f = limit_file(h, page_size, false, false);
	path = xasprintf("%s/%s", dir, f);
	if (!rm_kernfs_exists(path, FILES)) {
		char *tok = rm_hugepages_cgroup_size(page_size);

		*errmsg = xasprintf("the hugetlb controller has no %s limit: '%s'", tok, path);
		free(tok);
		goto out;
	}
	if (put_limit(lg, h, dir, f, limited, bytes, errmsg) < 0)
		goto out;
	free(f);
	free(path);
	f = limit_file(h, page_size, true, false);
	path = xasprintf("%s/%s", dir, f);
	if (rm_kernfs_exists(path, FILES) && put_limit(lg, h, dir, f, limited, bytes, errmsg) < 0)
		goto out;
	rc = 0;
out:
	free(f);
	free(path);
	free(dir);
	return rc;
}

int rm_hugetlb_set(const struct rm_hugetlb *h, const char *owner, uint64_t page_size,
		   bool limited, uint64_t bytes, char **errmsg)
{
	struct rm_kernfs_log lg = { .flags = FILES };
	int rc = rm_hugetlb_set_logged(h, owner, page_size, limited, bytes, &lg, errmsg);

	if (rc == -1)
		rm_kernfs_undo(&lg, errmsg);
	rm_kernfs_log_free(&lg);
	return rc;
}

int rm_hugetlb_remove(const struct rm_hugetlb *h, const char *owner, const uint64_t *page_sizes,
		      size_t nsizes, char **errmsg)
{
	char *dir = rm_hugetlb_path(h, owner);
	int rc = 0;

	if (!rm_kernfs_is_dir(dir, FILES)) {
		free(dir);
		return 0;
	}
	if (h->cpuset) {
		/* rm-cpuset's cgroup: lift the limits of every size or none, leave the cgroup */
		struct rm_kernfs_log lg = { .flags = FILES };

		for (size_t i = 0; i < nsizes && rc == 0; i++) {
			char *f = limit_file(h, page_sizes[i], false, false), *p;

			p = xasprintf("%s/%s", dir, f);
			if (rm_kernfs_exists(p, FILES))
				rc = rm_hugetlb_set_logged(h, owner, page_sizes[i], false, 0, &lg,
							   errmsg);
			free(p);
			free(f);
		}
		if (rc < 0)
			rm_kernfs_undo(&lg, errmsg);
		rm_kernfs_log_free(&lg);
		free(dir);
		return rc < 0 ? -1 : 0;
	}
	if (rm_cgroup_evacuate(dir, h->mount, errmsg) < 0) {
		free(dir);
		return -1;
	}
	if (rm_kernfs_rmdir(dir) < 0) {
		*errmsg = xasprintf("cannot remove %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	/* the parent goes with its last child; "+hugetlb" in the root stays, as "+cpuset" does */
	return rm_cgroup_remove_childless(h->parent, errmsg);
}

int rm_hugetlb_owners(const struct rm_hugetlb *h, char ***names, char **errmsg)
{
	return rm_cgroup_children(h->parent, names, errmsg);
}

int rm_hugetlb_attach(const char *owner, pid_t pid, char **errmsg)
{
	struct rm_hugetlb h;
	char *dir, *msg = NULL;
	int rc;

	if (!rm_name_valid(owner))
		return 0;
	if (rm_hugetlb_open(&h, &msg) < 0) {
		free(msg);
		return 0; /* no hugetlb controller: no limits to join */
	}
	dir = rm_hugetlb_path(&h, owner);
	rc = rm_cgroup_join(dir, pid, errmsg);
	free(dir);
	rm_hugetlb_close(&h);
	return rc;
}
