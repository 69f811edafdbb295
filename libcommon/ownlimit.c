/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Memory and pids limits of an owner's cgroup, on cgroup v2 or the v1 memory and pids hierarchies. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "input.h"
#include "ownlimit.h"
#include "size.h"
#include "xalloc.h"

/* cgroupfs is read and written directly, as in cgroup.c, so that tests can run against trees
 * under $RM_CGROUP_ROOT; every change is logged for undo. */

#define FILES RM_OWNLIMIT_FILES
#define BIT(k) (1u << (k))
#define MEMORY_KEYS (BIT(RM_OWNLIMIT_MEMORY_MAX) | BIT(RM_OWNLIMIT_MEMORY_HIGH) | \
		     BIT(RM_OWNLIMIT_MEMORY_MIN) | BIT(RM_OWNLIMIT_SWAP_MAX))
/* v1 reads back "no limit" as a number this large (PAGE_COUNTER_MAX pages), which it does not
 * take as input: -1 is written instead */
#define UNLIMITED_V1 (UINT64_C(1) << 62)

const char *const rm_ownlimit_keys[RM_OWNLIMIT_N] = {
	"memory_max", "memory_high", "memory_min", "swap_max", "pids_max",
};

static const struct {
	const char *v2, *v1; /* the files; NULL: none on v1 */
} files[RM_OWNLIMIT_N] = {
	[RM_OWNLIMIT_MEMORY_MAX] = { "memory.max", "memory.limit_in_bytes" },
	[RM_OWNLIMIT_MEMORY_HIGH] = { "memory.high", "memory.soft_limit_in_bytes" },
	[RM_OWNLIMIT_MEMORY_MIN] = { "memory.min", NULL },
	[RM_OWNLIMIT_SWAP_MAX] = { "memory.swap.max", "memory.memsw.limit_in_bytes" },
	[RM_OWNLIMIT_PIDS_MAX] = { "pids.max", "pids.max" },
};

/* ---- values ---- */

int rm_ownlimit_parse(enum rm_ownlimit_key key, const char *s, uint64_t *v, char **errmsg)
{
	bool pids = key == RM_OWNLIMIT_PIDS_MAX;
	char *msg = NULL, *end;
	int rc = 0;

	if (!strcmp(s, "max")) {
		*v = RM_OWNLIMIT_NONE;
		return 0;
	}
	if (pids) {
		errno = 0;
		*v = strtoull(s, &end, 10);
		rc = *s >= '0' && *s <= '9' && !*end && !errno && *v <= RM_OWNLIMIT_MAX_PIDS ? 0 : -1;
	} else {
		rc = rm_size_parse(s, v, &msg) == 0 && *v <= RM_OWNLIMIT_MAX_BYTES ? 0 : -1;
		free(msg);
	}
	if (rc < 0)
		*errmsg = xasprintf(pids ? "invalid %s: '%s' (a number of processes up to %d, or max)"
				    : "invalid %s: '%s' (a size such as 8G, up to 1EiB, or max)",
				    rm_ownlimit_keys[key], s, RM_OWNLIMIT_MAX_PIDS);
	return rc;
}

int rm_ownlimit_from_record(const struct rm_record *r, struct rm_ownlimit *l, char **errmsg)
{
	memset(l, 0, sizeof(*l));
	for (int k = 0; k < RM_OWNLIMIT_N; k++) {
		const char *s = rm_record_get(r, rm_ownlimit_keys[k]);
		char *end;

		l->v[k] = RM_OWNLIMIT_NONE;
		if (!s)
			continue;
		/* the state keeps plain numbers, as its other sizes */
		errno = 0;
		l->v[k] = strtoull(s, &end, 10);
		if (*s < '0' || *s > '9' || *end || errno ||
		    l->v[k] > (k == RM_OWNLIMIT_PIDS_MAX ? RM_OWNLIMIT_MAX_PIDS : RM_OWNLIMIT_MAX_BYTES)) {
			*errmsg = xasprintf("invalid %s: '%s'", rm_ownlimit_keys[k], s);
			return -1;
		}
		l->set |= BIT(k);
	}
	return 0;
}

void rm_ownlimit_merge(struct rm_ownlimit *l, const struct rm_ownlimit *given)
{
	for (int k = 0; k < RM_OWNLIMIT_N; k++) {
		if (!(given->set & BIT(k)))
			continue;
		l->v[k] = given->v[k];
		if (given->v[k] == RM_OWNLIMIT_NONE)
			l->set &= ~BIT(k);
		else
			l->set |= BIT(k);
	}
}

void rm_ownlimit_to_record(struct rm_record *r, const struct rm_ownlimit *l)
{
	for (int k = 0; k < RM_OWNLIMIT_N; k++) {
		char v[24];

		if (!(l->set & BIT(k))) {
			rm_record_unset(r, rm_ownlimit_keys[k]);
			continue;
		}
		snprintf(v, sizeof(v), "%" PRIu64, l->v[k]);
		rm_record_set(r, rm_ownlimit_keys[k], v);
	}
}

/* ---- the hierarchies ---- */

struct hier {
	enum rm_cgroup_version version;
	char *mount, *parent;
};

static const char *controller(int k)
{
	return k == RM_OWNLIMIT_PIDS_MAX ? "pids" : "memory";
}

/* The hierarchy of CONTROLLER: 0, or -1 with *ERRMSG. */
static int hier_open(struct hier *h, const char *ctl, char **errmsg)
{
	const char *root = rm_input()->cgroup_root;

	memset(h, 0, sizeof(*h));
	if (rm_cgroup_find(root, ctl, NULL, &h->version, &h->mount) < 0) {
		*errmsg = xasprintf("no %s cgroup controller is mounted (v1 %s or the unified "
				    "hierarchy's %s): '%s'", ctl, ctl, ctl, root);
		return -1;
	}
	h->parent = rm_cgroup_owner_path(h->version, h->mount, "");
	h->parent[strlen(h->parent) - 1] = '\0';
	return 0;
}

static void hier_close(struct hier *h)
{
	free(h->mount);
	free(h->parent);
}

static const char *file_of(const struct hier *h, int k)
{
	return h->version == RM_CGROUP_V2 ? files[k].v2 : files[k].v1;
}

int rm_ownlimit_check(const struct rm_ownlimit *l, unsigned given, char **errmsg)
{
	struct hier h;
	int rc = 0;

	for (int k = 0; k < RM_OWNLIMIT_N && !rc; k++) {
		bool limited = l->set & BIT(k);

		if (!(given & BIT(k)))
			continue;
		if (hier_open(&h, controller(k), errmsg) < 0)
			return -1;
		if (!file_of(&h, k) && limited) {
			*errmsg = xasprintf("%s needs cgroup v2: the v1 memory controller has no %s",
					    files[k].v2, files[k].v2);
			rc = -1;
		} else if (k == RM_OWNLIMIT_SWAP_MAX && limited && h.version == RM_CGROUP_V1 &&
			   !(l->set & BIT(RM_OWNLIMIT_MEMORY_MAX))) {
			*errmsg = xasprintf("a swap limit on cgroup v1 needs a memory limit too: "
					    "memory.memsw.limit_in_bytes limits memory and swap "
					    "together");
			rc = -1;
		} else if (k == RM_OWNLIMIT_SWAP_MAX && limited &&
			   /* v1: the root has the file; v2: a child with memory files has */
			   (h.version == RM_CGROUP_V1 ? !rm_cgroup_has_file(h.mount, file_of(&h, k))
			    : rm_cgroup_has_file(h.parent, "memory.max") &&
			      !rm_cgroup_has_file(h.parent, file_of(&h, k)))) {
			*errmsg = xasprintf("the kernel accounts no swap here (no %s): '%s'",
					    file_of(&h, k), h.version == RM_CGROUP_V1 ? h.mount
					    : h.parent);
			rc = -1;
		}
		hier_close(&h);
	}
	return rc;
}

/* ---- writing ---- */

/* The value of KEY in L as the file takes it: a number, or no limit ("max"; v1 memory: -1). */
static void value_of(const struct hier *h, const struct rm_ownlimit *l, int k, char buf[24])
{
	uint64_t v = l->set & BIT(k) ? l->v[k] : RM_OWNLIMIT_NONE;

	if (k == RM_OWNLIMIT_SWAP_MAX && h->version == RM_CGROUP_V1 && v != RM_OWNLIMIT_NONE)
		v += l->v[RM_OWNLIMIT_MEMORY_MAX]; /* memsw: memory and swap together */
	if (v != RM_OWNLIMIT_NONE)
		snprintf(buf, 24, "%" PRIu64, v);
	else
		snprintf(buf, 24, "%s", k == RM_OWNLIMIT_MEMORY_MIN ? "0" :
			 h->version == RM_CGROUP_V1 && k != RM_OWNLIMIT_PIDS_MAX ? "-1" : "max");
}

/* DIR/FILE as a number, "max" and v1's unlimited read as UINT64_MAX; -1 with *ERRMSG. */
static int read_value(const char *dir, const char *file, uint64_t *v, char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file), *s = rm_kernfs_read(path, FILES), *end;
	int rc = -1;

	if (!s) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
	} else if (!strcmp(s, "max")) {
		*v = UINT64_MAX;
		rc = 0;
	} else {
		errno = 0;
		*v = strtoull(s, &end, 10);
		if (errno || end == s || *end)
			*errmsg = xasprintf("cannot read %s: not a number: '%s'", path, s);
		else
			rc = 0;
		if (*v >= UNLIMITED_V1)
			*v = UINT64_MAX;
	}
	free(s);
	free(path);
	return rc;
}

/* Write key K of L to DIR, its old value logged (v1's unlimited logged as -1). */
static int put_key(const struct hier *h, const char *dir, const struct rm_ownlimit *l, int k,
		   struct rm_kernfs_log *log, char **errmsg)
{
	char val[24], *path = xasprintf("%s/%s", dir, file_of(h, k));
	char *old = rm_kernfs_read(path, FILES);
	int rc;

	if (!old) {
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (h->version == RM_CGROUP_V1 && strcmp(old, "max") &&
	    strtoull(old, NULL, 10) >= UNLIMITED_V1) {
		free(old);
		old = xstrdup("-1");
	}
	value_of(h, l, k, val);
	rc = rm_kernfs_put(log, dir, file_of(h, k), val, old, errmsg);
	free(old);
	free(path);
	return rc;
}

/* v2: "+CTL" in DIR's subtree_control, logged. */
static int enable(const char *dir, const char *ctl, struct rm_kernfs_log *log, char **errmsg)
{
	char *plus = xasprintf("+%s", ctl), *minus = xasprintf("-%s", ctl);
	int rc = 0;

	if (!rm_kernfs_list_has(dir, "cgroup.subtree_control", ctl, FILES))
		rc = rm_kernfs_put(log, dir, "cgroup.subtree_control", plus, minus, errmsg);
	free(plus);
	free(minus);
	return rc;
}

/* The keys of one controller's hierarchy H for the cgroup DIR. */
static int put_hier(const struct hier *h, const char *ctl, const char *dir,
		    const struct rm_ownlimit *l, unsigned keys, struct rm_kernfs_log *log,
		    char **errmsg)
{
	if (h->version == RM_CGROUP_V2) {
		if (enable(h->mount, ctl, log, errmsg) < 0 || enable(h->parent, ctl, log, errmsg) < 0)
			return -1;
		if (!rm_kernfs_is_dir(dir, FILES)) {
			*errmsg = xasprintf("the owner has no cgroup: '%s'", dir);
			return -1;
		}
	} else {
		if ((!rm_kernfs_is_dir(h->parent, FILES) && rm_kernfs_mkdir(log, h->parent, errmsg)) ||
		    (!rm_kernfs_is_dir(dir, FILES) && rm_kernfs_mkdir(log, dir, errmsg)))
			return -1;
		if (keys & BIT(RM_OWNLIMIT_MEMORY_MAX) && l->set & BIT(RM_OWNLIMIT_SWAP_MAX))
			keys |= BIT(RM_OWNLIMIT_SWAP_MAX); /* memsw is their sum */
		if (keys & BIT(RM_OWNLIMIT_SWAP_MAX) && keys & BIT(RM_OWNLIMIT_MEMORY_MAX)) {
			/* memory.limit_in_bytes never above memsw: raise memsw first when the new
			 * limit is above the old memsw */
			uint64_t memsw;
			bool first;

			if (read_value(dir, file_of(h, RM_OWNLIMIT_SWAP_MAX), &memsw, errmsg) < 0)
				return -1;
			first = (l->set & BIT(RM_OWNLIMIT_MEMORY_MAX) ? l->v[RM_OWNLIMIT_MEMORY_MAX]
				 : UINT64_MAX) > memsw;
			if (first && put_key(h, dir, l, RM_OWNLIMIT_SWAP_MAX, log, errmsg) < 0)
				return -1;
			if (first)
				keys &= ~BIT(RM_OWNLIMIT_SWAP_MAX);
		}
	}
	for (int k = 0; k < RM_OWNLIMIT_N; k++)
		if (keys & BIT(k) && file_of(h, k) && put_key(h, dir, l, k, log, errmsg) < 0)
			return -1;
	return 0;
}

int rm_ownlimit_put(const char *owner, const struct rm_ownlimit *l, unsigned keys,
		    struct rm_kernfs_log *log, char **errmsg)
{
	static const unsigned part[] = { MEMORY_KEYS, BIT(RM_OWNLIMIT_PIDS_MAX) };
	int rc = 0;

	for (size_t i = 0; i < 2 && !rc; i++) {
		const char *ctl = i ? "pids" : "memory";
		struct hier h;
		char *dir;

		if (!(keys & part[i]))
			continue;
		if (hier_open(&h, ctl, errmsg) < 0)
			return -1;
		dir = rm_cgroup_owner_path(h.version, h.mount, owner);
		rc = put_hier(&h, ctl, dir, l, keys & part[i], log, errmsg);
		free(dir);
		hier_close(&h);
	}
	return rc;
}

/* ---- v1: the owners' own cgroups ---- */

int rm_ownlimit_prune(const char *const *owners, size_t n, char **errmsg)
{
	int rc = 0;

	for (int i = 0; i < 2 && !rc; i++) {
		char **names = NULL, *msg = NULL;
		struct hier h;
		int nn;

		if (hier_open(&h, i ? "pids" : "memory", &msg) < 0) {
			free(msg); /* none mounted: nothing of ours there */
			continue;
		}
		if (h.version == RM_CGROUP_V1 && (nn = rm_cgroup_children(h.parent, &names, errmsg)) >= 0) {
			for (int j = 0; j < nn && !rc; j++) {
				size_t k = 0;
				char *dir;

				while (k < n && strcmp(owners[k], names[j]))
					k++;
				if (k < n)
					continue;
				dir = xasprintf("%s/%s", h.parent, names[j]);
				rc = rm_cgroup_evacuate(dir, h.mount, errmsg);
				if (!rc && rm_kernfs_rmdir(dir) < 0) {
					*errmsg = xasprintf("cannot remove %s: %s", dir, strerror(errno));
					rc = -1;
				}
				free(dir);
			}
			rm_kernfs_names_free(names, nn);
			if (!rc)
				rc = rm_cgroup_remove_childless(h.parent, errmsg);
		} else if (h.version == RM_CGROUP_V1) {
			rc = -1;
		}
		hier_close(&h);
	}
	return rc;
}

int rm_ownlimit_attach(const char *owner, pid_t pid, char **errmsg)
{
	int rc = 0;

	for (int i = 0; i < 2 && !rc; i++) {
		char *msg = NULL, *dir;
		struct hier h;

		if (hier_open(&h, i ? "pids" : "memory", &msg) < 0) {
			free(msg);
			continue;
		}
		if (h.version == RM_CGROUP_V1) {
			dir = rm_cgroup_owner_path(h.version, h.mount, owner);
			rc = rm_cgroup_join(dir, pid, errmsg);
			free(dir);
		}
		hier_close(&h);
	}
	return rc;
}
