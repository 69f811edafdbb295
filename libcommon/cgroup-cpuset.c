/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cpusets in cgroups below the rmtools parent: find the hierarchy, sync children, undo failures. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "cgroup-cpuset.h"
#include "cpulist.h"
#include "input.h"
#include "kernfs.h"
#include "state.h"
#include "xalloc.h"

#define FILES RM_CGROUP_FILES

/* ---- finding the hierarchy ---- */

static void set_hierarchy(struct rm_cgroups *cg, enum rm_cgroup_version v, const char *mount)
{
	cg->version = v;
	cg->mount = xstrdup(mount);
	cg->parent = xasprintf("%s/%s", mount, v == RM_CGROUP_V1 ? RM_CGROUP_PARENT_V1
								 : RM_CGROUP_PARENT_V2);
}

/* MOUNT is v2 when its cgroup.controllers offers cpuset, v1 when it has cpuset.cpus. */
static bool try_mount(struct rm_cgroups *cg, const char *mount)
{
	if (rm_kernfs_list_has(mount, "cgroup.controllers", "cpuset", FILES)) {
		set_hierarchy(cg, RM_CGROUP_V2, mount);
		return true;
	}
	if (rm_cgroup_has_file(mount, "cpuset.cpus") &&
	    !rm_cgroup_has_file(mount, "cgroup.controllers")) {
		set_hierarchy(cg, RM_CGROUP_V1, mount);
		return true;
	}
	return false;
}

static char *no_cpuset_msg(const char *where)
{
	return xasprintf("no cpuset cgroup controller is mounted (v1 cpuset or the unified "
			 "hierarchy's cpuset): '%s'", where);
}

/* Laid out like /sys/fs/cgroup: unified at the top or in unified/ (hybrid), v1 in cpuset/. */
static int find_under_root(struct rm_cgroups *cg, const char *env, char **errmsg)
{
	enum rm_cgroup_version v;
	char *mount, *root;

	if (rm_cgroup_find(env, "cpuset", "cpuset.cpus", &v, &mount) == 0) {
		set_hierarchy(cg, v, mount);
		free(mount);
		return 0;
	}
	root = rm_cgroup_strip_root(env);
	*errmsg = no_cpuset_msg(root);
	free(root);
	return -1;
}

/* Where libcgroup finds cpuset mounted, on the live system. */
static int find_with_libcgroup(struct rm_cgroups *cg, char **errmsg)
{
	char *mp;
	int rc = rm_cgroup_mounted("cpuset", &mp, errmsg);

	if (rc > 0)
		*errmsg = no_cpuset_msg(RM_CGROUP_ROOT_DEFAULT);
	if (rc)
		return -1;
	if (!try_mount(cg, mp)) {
		*errmsg = no_cpuset_msg(mp);
		free(mp);
		return -1;
	}
	free(mp);
	return 0;
}

/* The running kernel as MAJOR * 1000 + MINOR (6.1 is 6001), 0 when unknown; its release in REL. */
static int kernel_version(char *rel, size_t len)
{
	struct utsname u;
	unsigned major, minor;

	snprintf(rel, len, "-");
	if (uname(&u) < 0)
		return 0;
	snprintf(rel, len, "%s", u.release);
	if (sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return (int)(major * 1000 + minor);
}

/* What a cpuset-enabled v2 cgroup DIR's files say: cpuset.cpus.exclusive (6.7+) makes remote
 * partitions; cpuset.cpus.partition alone has the "isolated" type from 6.1 on, which no file
 * tells, so the kernel's version does. */
static enum rm_cgroup_partitions partitions_of(const char *dir)
{
	char rel[128];

	if (rm_cgroup_has_file(dir, "cpuset.cpus.exclusive"))
		return RM_PARTITIONS_REMOTE;
	if (rm_cgroup_has_file(dir, "cpuset.cpus.partition") &&
	    kernel_version(rel, sizeof(rel)) >= 6001)
		return RM_PARTITIONS_ROOT;
	return RM_PARTITIONS_NONE;
}

/*
 * How the kernel makes isolated partitions. Files tell first: the parent's own cpuset files when
 * it exists with cpuset enabled; else the root-only cpuset.cpus.isolated
 * (6.8+); else any cpuset-enabled child of the root. With no such cgroup yet the running kernel's
 * version decides on the live system (6.7+ remote, 6.1+ root), and a test tree under
 * $RM_CGROUP_ROOT says none; rm_cgroups_sync checks the parent again once it has made it.
 */
static enum rm_cgroup_partitions detect_partitions(const struct rm_cgroups *cg)
{
	enum rm_cgroup_partitions found = RM_PARTITIONS_NONE;
	bool decided = false;
	struct dirent *e;
	char rel[128];
	int v;
	DIR *d;

	if (rm_cgroup_has_file(cg->parent, "cpuset.cpus"))
		return partitions_of(cg->parent);
	if (rm_cgroup_has_file(cg->mount, "cpuset.cpus.isolated"))
		return RM_PARTITIONS_REMOTE;
	if ((d = opendir(cg->mount))) {
		while (!decided && (e = readdir(d))) {
			char *path;

			if (e->d_name[0] == '.')
				continue;
			path = xasprintf("%s/%s", cg->mount, e->d_name);
			if (rm_kernfs_is_dir(path, FILES) &&
			    rm_cgroup_has_file(path, "cpuset.cpus")) {
				found = partitions_of(path);
				decided = true;
			}
			free(path);
		}
		closedir(d);
	}
	if (decided || rm_input()->cgroup_tree)
		return found;
	v = kernel_version(rel, sizeof(rel));
	return v >= 6007 ? RM_PARTITIONS_REMOTE : v >= 6001 ? RM_PARTITIONS_ROOT : RM_PARTITIONS_NONE;
}

static char *read_partition(const char *dir, char **full, char **errmsg);

/*
 * Our isolated partitions' CPUs have left the root's effective set (remote: the parent's
 * cpuset.cpus.exclusive; root: all of the parent's cpuset.cpus while it is a root partition);
 * they are still ours to give, else a second sync with the same wants is refused.
 */
static int add_parent_cpus(struct rm_cgroups *cg, char **errmsg)
{
	const char *file = NULL;
	char *path, *full = NULL, *word;
	hwloc_bitmap_t ours;
	int rc;

	if (cg->partitions == RM_PARTITIONS_REMOTE &&
	    rm_cgroup_has_file(cg->parent, "cpuset.cpus.exclusive"))
		file = "cpuset.cpus.exclusive";
	if (cg->partitions == RM_PARTITIONS_ROOT &&
	    rm_cgroup_has_file(cg->parent, "cpuset.cpus.partition")) {
		if (!(word = read_partition(cg->parent, &full, errmsg)))
			return -1;
		if (!strcmp(full, "root"))
			file = "cpuset.cpus";
		free(word);
		free(full);
	}
	if (!file)
		return 0;
	ours = hwloc_bitmap_alloc();
	path = xasprintf("%s/%s", cg->parent, file);
	rc = rm_cgroup_read_set(path, ours, errmsg);
	hwloc_bitmap_or(cg->cpus, cg->cpus, ours);
	hwloc_bitmap_free(ours);
	free(path);
	return rc;
}

int rm_cgroups_open(struct rm_cgroups *cg, char **errmsg)
{
	const struct rm_input *in = rm_input();
	char *path;
	int rc;

	memset(cg, 0, sizeof(*cg));
	if (in->cgroup_tree)
		rc = find_under_root(cg, in->cgroup_root, errmsg);
	else
		rc = find_with_libcgroup(cg, errmsg);
	if (rc < 0)
		return -1;

	cg->cpus = hwloc_bitmap_alloc();
	cg->mems = hwloc_bitmap_alloc();
	if (cg->version == RM_CGROUP_V1) {
		path = xasprintf("%s/cpuset.effective_cpus", cg->mount);
		if (!rm_kernfs_exists(path, FILES)) {
			free(path);
			path = xasprintf("%s/cpuset.cpus", cg->mount);
		}
		rc = rm_cgroup_read_set(path, cg->cpus, errmsg);
		free(path);
		if (rc == 0) {
			path = xasprintf("%s/cpuset.effective_mems", cg->mount);
			if (!rm_kernfs_exists(path, FILES)) {
				free(path);
				path = xasprintf("%s/cpuset.mems", cg->mount);
			}
			rc = rm_cgroup_read_set(path, cg->mems, errmsg);
			free(path);
		}
	} else {
		path = xasprintf("%s/cpuset.cpus.effective", cg->mount);
		rc = rm_cgroup_read_set(path, cg->cpus, errmsg);
		free(path);
		if (rc == 0) {
			path = xasprintf("%s/cpuset.mems.effective", cg->mount);
			rc = rm_cgroup_read_set(path, cg->mems, errmsg);
			free(path);
		}
		cg->partitions = rc == 0 ? detect_partitions(cg) : RM_PARTITIONS_NONE;
		if (rc == 0)
			rc = add_parent_cpus(cg, errmsg);
	}
	if (rc < 0) {
		rm_cgroups_close(cg);
		return -1;
	}
	return 0;
}

void rm_cgroups_close(struct rm_cgroups *cg)
{
	free(cg->mount);
	free(cg->parent);
	if (cg->cpus)
		hwloc_bitmap_free(cg->cpus);
	if (cg->mems)
		hwloc_bitmap_free(cg->mems);
	if (cg->offline)
		hwloc_bitmap_free(cg->offline);
	memset(cg, 0, sizeof(*cg));
}

void rm_cgroups_set_offline(struct rm_cgroups *cg, hwloc_const_bitmap_t offline)
{
	if (cg->offline)
		hwloc_bitmap_free(cg->offline);
	cg->offline = offline ? hwloc_bitmap_dup(offline) : NULL;
}

void rm_cgroups_cpus_written(const struct rm_cgroups *cg, hwloc_const_bitmap_t cpus,
			     hwloc_bitmap_t written)
{
	hwloc_bitmap_copy(written, cpus);
	if (cg->version == RM_CGROUP_V1 && cg->offline)
		hwloc_bitmap_andnot(written, written, cg->offline);
}

char *rm_cgroups_path(const struct rm_cgroups *cg, const char *name)
{
	return xasprintf("%s/%s", cg->parent, name);
}

/* ---- reading ---- */

/* The first word of DIR/cpuset.cpus.partition ("member", "root", "isolated"), allocated; the
 * whole text in *FULL when FULL is not NULL ("isolated invalid (reason)"). */
static char *read_partition(const char *dir, char **full, char **errmsg)
{
	char *path = xasprintf("%s/cpuset.cpus.partition", dir), *s, *word;

	s = rm_cgroup_read_text(path, errmsg);
	free(path);
	if (!s)
		return NULL;
	word = xstrdup(s);
	word[strcspn(word, " \t")] = '\0';
	if (full)
		*full = s;
	else
		free(s);
	return word;
}

int rm_cgroups_read(const struct rm_cgroups *cg, const char *name, hwloc_bitmap_t cpus,
		    hwloc_bitmap_t mems, bool *isolated, char **errmsg)
{
	char *dir = rm_cgroups_path(cg, name), *path, *full = NULL, *word;
	int rc;

	if (isolated)
		*isolated = false;
	if (!rm_kernfs_is_dir(dir, FILES)) {
		free(dir);
		return 0;
	}
	path = xasprintf("%s/cpuset.cpus", dir);
	rc = rm_cgroup_read_set(path, cpus, errmsg);
	free(path);
	if (rc == 0) {
		path = xasprintf("%s/cpuset.mems", dir);
		rc = rm_cgroup_read_set(path, mems, errmsg);
		free(path);
	}
	if (rc == 0 && isolated && cg->version == RM_CGROUP_V2 &&
	    rm_cgroup_has_file(dir, "cpuset.cpus.partition")) {
		if ((word = read_partition(dir, &full, errmsg))) {
			*isolated = !strcmp(full, "isolated");
			free(word);
			free(full);
		} else {
			rc = -1;
		}
	}
	free(dir);
	return rc < 0 ? -1 : 1;
}

int rm_cgroups_children(const struct rm_cgroups *cg, char ***names, char **errmsg)
{
	return rm_cgroup_children(cg->parent, names, errmsg);
}

/* ---- changing, with an undo log ---- */

/*
 * Every change made by a sync is logged with how to revert it, and on a failure the log is
 * replayed backwards: a directory made is removed, a directory removed is made again (its cpus and
 * mems are logged as writes just before it, so they are restored right after), a file written gets
 * its old value back (for cgroup.subtree_control, the opposite token; for cgroup.procs, the pid
 * goes back where it was). Files inside a directory made in the same sync are not logged: removing
 * the directory reverts them.
 */
struct sync {
	struct rm_cgroups *cg;
	struct rm_kernfs_log log;
	char *err; /* the first error */
};

static int fail(struct sync *s, char *msg)
{
	if (!s->err)
		s->err = msg;
	else
		free(msg);
	return -1;
}

/* Write VALUE to DIR/FILE; when UNDO is not NULL, log writing it back. */
static int put(struct sync *s, const char *dir, const char *file, const char *value,
	       const char *undo)
{
	char *msg;

	return rm_kernfs_put(&s->log, dir, file, value, undo, &msg) < 0 ? fail(s, msg) : 0;
}

/* Write SET to DIR/FILE unless it holds it already; LOG: log the old value for undo. */
static int put_set(struct sync *s, const char *dir, const char *file, hwloc_const_bitmap_t set,
		   bool log)
{
	char *path = xasprintf("%s/%s", dir, file), *msg = NULL, *old = NULL, *val;
	hwloc_bitmap_t cur = hwloc_bitmap_alloc();
	int rc = 0;

	if (rm_cgroup_read_set(path, cur, &msg) < 0) {
		rc = fail(s, msg);
		goto out;
	}
	if (hwloc_bitmap_isequal(cur, set))
		goto out;
	old = rm_cpulist_format(cur);
	val = rm_cpulist_format(set);
	rc = put(s, dir, file, val, log ? old : NULL);
	free(val);
out:
	free(old);
	free(path);
	hwloc_bitmap_free(cur);
	return rc;
}

static int make_dir(struct sync *s, const char *path)
{
	char *msg;

	return rm_kernfs_mkdir(&s->log, path, &msg) < 0 ? fail(s, msg) : 0;
}

/* "+cpuset" in DIR's cgroup.subtree_control unless listed; undone with "-cpuset". */
static int enable_cpuset(struct sync *s, const char *dir, bool log)
{
	if (rm_kernfs_list_has(dir, "cgroup.subtree_control", "cpuset", FILES))
		return 0;
	return put(s, dir, "cgroup.subtree_control", "+cpuset", log ? "-cpuset" : NULL);
}

/* The parent, made when missing. *MADE: whether this sync made it. */
static int setup_parent(struct sync *s, hwloc_const_bitmap_t cpus, hwloc_const_bitmap_t mems,
			bool *made)
{
	struct rm_cgroups *cg = s->cg;

	*made = !rm_kernfs_is_dir(cg->parent, FILES);
	if (cg->version == RM_CGROUP_V2) {
		if (enable_cpuset(s, cg->mount, true) < 0)
			return -1;
		if (*made && make_dir(s, cg->parent) < 0)
			return -1;
		return enable_cpuset(s, cg->parent, !*made);
	}
	/* v1: a new cgroup starts with empty sets; children must stay within the parent's */
	if (*made) {
		if (make_dir(s, cg->parent) < 0 ||
		    put_set(s, cg->parent, "cpuset.cpus", cg->cpus, false) < 0 ||
		    put_set(s, cg->parent, "cpuset.mems", cg->mems, false) < 0)
			return -1;
		return 0;
	}
	hwloc_bitmap_t cur = hwloc_bitmap_alloc();
	char *path = xasprintf("%s/cpuset.cpus", cg->parent), *msg = NULL;
	int rc = rm_cgroup_read_set(path, cur, &msg);

	if (rc < 0)
		fail(s, msg);
	else if (!hwloc_bitmap_isincluded(cpus, cur))
		rc = put_set(s, cg->parent, "cpuset.cpus", cg->cpus, true);
	free(path);
	if (rc == 0) {
		path = xasprintf("%s/cpuset.mems", cg->parent);
		rc = rm_cgroup_read_set(path, cur, &msg);
		if (rc < 0)
			fail(s, msg);
		else if (!hwloc_bitmap_isincluded(mems, cur))
			rc = put_set(s, cg->parent, "cpuset.mems", cg->mems, true);
		free(path);
	}
	hwloc_bitmap_free(cur);
	return rc;
}

/* Move every process (v1: and then every thread) of DIR into SHARED, logging each move. */
static int empty_child(struct sync *s, const char *dir, const char *shared)
{
	static const char *const files[] = { "cgroup.procs", "tasks" };
	int nfiles = s->cg->version == RM_CGROUP_V1 ? 2 : 1, rc = 0;

	for (int f = 0; f < nfiles && rc == 0; f++) {
		char *from = xasprintf("%s/%s", dir, files[f]);
		char *to = shared ? xasprintf("%s/%s", shared, files[f]) : NULL;

		/* processes may fork while we move them: go round until none is left */
		for (int round = 0; round < 16 && rc == 0; round++) {
			pid_t *pids;
			char *msg = NULL;
			ssize_t n = rm_cgroup_read_pids(from, &pids, &msg);

			if (n < 0)
				rc = fail(s, msg);
			else if (n > 0 && !to)
				rc = fail(s, xasprintf("cannot remove %s: it holds processes and no "
						       "'%s' child is wanted to take them", dir,
						       RM_CGROUP_SHARED));
			for (ssize_t i = 0; i < n && rc == 0; i++) {
				char pid[24];
				int e;

				snprintf(pid, sizeof(pid), "%d", (int)pids[i]);
				e = rm_kernfs_write(to, pid, FILES);
				if (e == 0)
					rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, from, pid);
				else if (e != ESRCH) /* ESRCH: it has exited meanwhile */
					rc = fail(s, xasprintf("cannot write '%s' to %s: %s", pid, to,
							       strerror(e)));
			}
			free(pids);
			if (n <= 0)
				break;
		}
		free(from);
		free(to);
	}
	return rc;
}

/* Remove the unwanted child NAME: processes into SHARED (may be NULL), then rmdir. */
static int remove_child(struct sync *s, const char *name, const char *shared)
{
	char *dir = rm_cgroups_path(s->cg, name), *cpus = NULL, *mems = NULL;
	char *pc = xasprintf("%s/cpuset.cpus", dir), *pm = xasprintf("%s/cpuset.mems", dir);
	char *msg = NULL;
	int rc = -1;

	if (empty_child(s, dir, shared) < 0)
		goto out;
	if (!(cpus = rm_cgroup_read_text(pc, &msg)) || !(mems = rm_cgroup_read_text(pm, &msg))) {
		fail(s, msg);
		goto out;
	}
	if (rm_kernfs_rmdir(dir) < 0) {
		fail(s, xasprintf("cannot remove %s: %s", dir, strerror(errno)));
		goto out;
	}
	/* undone backwards: made again, then cpus, then mems */
	rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, pm, mems);
	rm_kernfs_log_push(&s->log, RM_KERNFS_WRITE, pc, cpus);
	rm_kernfs_log_push(&s->log, RM_KERNFS_MKDIR, dir, NULL);
	rc = 0;
out:
	free(cpus);
	free(mems);
	free(pc);
	free(pm);
	free(dir);
	return rc;
}

static bool find_name(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static const struct rm_cgroup_want *find_want(const struct rm_cgroup_want *want, size_t n,
					      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(want[i].name, name))
			return &want[i];
	return NULL;
}

char *rm_cgroups_isolate_refused(const struct rm_cgroups *cg, hwloc_const_bitmap_t keep)
{
	char rel[128];

	kernel_version(rel, sizeof(rel));
	if (cg->version == RM_CGROUP_V1)
		return xstrdup("--isolate needs cgroup v2 cpuset partitions (this machine uses the v1 "
			       "cpuset controller, whose isolation needs load balancing off in its "
			       "root cpuset for the whole machine)");
	if (cg->partitions == RM_PARTITIONS_NONE)
		return xasprintf("--isolate needs cgroup v2 cpuset partitions (cpuset.cpus.partition "
				 "with its \"isolated\" type, Linux 6.1 or later; this is Linux %s)",
				 rel);
	if (cg->partitions == RM_PARTITIONS_ROOT && (!keep || !hwloc_bitmap_intersects(keep, cg->cpus)))
		return xasprintf("--isolate on Linux %s makes %s a root cpuset partition, which takes "
				 "its CPUs from every process outside it (Linux 6.7's "
				 "cpuset.cpus.exclusive would not): reserve the CPUs the rest of the "
				 "system keeps first (rm-cpuset reserve)", rel, RM_CGROUP_PARENT_V2);
	return NULL;
}

/* The shared want's KEEP, or NULL. */
static hwloc_const_bitmap_t want_keep(const struct rm_cgroup_want *want, size_t n)
{
	const struct rm_cgroup_want *w = find_want(want, n, RM_CGROUP_SHARED);

	return w ? w->keep : NULL;
}

/* Everything that can be refused before any write. */
static int check_wants(const struct rm_cgroups *cg, const struct rm_cgroup_want *want, size_t n,
		       char **errmsg)
{
	for (size_t i = 0; i < n; i++) {
		const struct rm_cgroup_want *w = &want[i];
		hwloc_const_bitmap_t keep = want_keep(want, n);
		char *outside;

		if (!rm_name_valid(w->name)) {
			*errmsg = xasprintf("invalid cgroup name: '%s'", w->name);
			return -1;
		}
		if (find_want(want, i, w->name)) {
			*errmsg = xasprintf("cgroup named twice: '%s'", w->name);
			return -1;
		}
		if (hwloc_bitmap_iszero(w->cpus) || hwloc_bitmap_iszero(w->mems)) {
			*errmsg = xasprintf("empty %s for cgroup '%s'",
					    hwloc_bitmap_iszero(w->cpus) ? "cpus" : "mems", w->name);
			return -1;
		}
		for (int m = 0; m < 2; m++) {
			hwloc_bitmap_t set = hwloc_bitmap_dup(m ? w->mems : w->cpus);
			hwloc_const_bitmap_t have = m ? cg->mems : cg->cpus;

			/* offline CPUs are not the root's now, but still the machine's */
			if (!m && cg->offline)
				hwloc_bitmap_andnot(set, set, cg->offline);
			if (hwloc_bitmap_isincluded(set, have)) {
				hwloc_bitmap_free(set);
				continue;
			}
			hwloc_bitmap_t extra = hwloc_bitmap_alloc();
			char *avail = rm_cpulist_format(have);

			hwloc_bitmap_andnot(extra, set, have);
			hwloc_bitmap_free(set);
			outside = rm_cpulist_format(extra);
			*errmsg = xasprintf("cgroup '%s' wants %s the cgroup root lacks (it has %s): '%s'",
					    w->name, m ? "nodes" : "CPUs", avail, outside);
			free(outside);
			free(avail);
			hwloc_bitmap_free(extra);
			return -1;
		}
		if (w->isolate && (*errmsg = rm_cgroups_isolate_refused(cg, keep)))
			return -1;
		if (w->isolate && keep && hwloc_bitmap_intersects(w->cpus, keep) &&
		    cg->partitions == RM_PARTITIONS_ROOT) {
			*errmsg = xasprintf("cgroup '%s' cannot be isolated on CPUs the rest of the "
					    "system keeps", w->name);
			return -1;
		}
	}
	return 0;
}

/* The file holding an isolated partition's own CPUs: cpuset.cpus.exclusive where there is one. */
static const char *own_cpus_file(const char *dir)
{
	return rm_cgroup_has_file(dir, "cpuset.cpus.exclusive") ? "cpuset.cpus.exclusive" :
								  "cpuset.cpus";
}

/* Whether DIR is a valid isolated partition owning exactly CPUS. */
static int isolated_as(const char *dir, hwloc_const_bitmap_t cpus, bool *yes, char **errmsg)
{
	char *full = NULL, *word = read_partition(dir, &full, errmsg), *path;
	hwloc_bitmap_t ex;
	int rc;

	*yes = false;
	if (!word)
		return -1;
	free(word);
	if (strcmp(full, "isolated")) {
		free(full);
		return 0;
	}
	free(full);
	ex = hwloc_bitmap_alloc();
	path = xasprintf("%s/%s", dir, own_cpus_file(dir));
	rc = rm_cgroup_read_set(path, ex, errmsg);
	*yes = rc == 0 && hwloc_bitmap_isequal(ex, cpus);
	free(path);
	hwloc_bitmap_free(ex);
	return rc;
}

/* DIR's partition type as WORD ("member", "root", "isolated") unless it reads so already (an
 * invalid one is written again); logged with its old type unless NEWDIR. */
static int set_partition(struct sync *s, const char *dir, const char *word, bool newdir)
{
	char *msg = NULL, *full = NULL, *old = read_partition(dir, &full, &msg);
	int rc = 0;

	if (!old)
		return fail(s, msg);
	if (strcmp(full, word))
		rc = put(s, dir, "cpuset.cpus.partition", word, newdir ? NULL : old);
	free(old);
	free(full);
	return rc;
}

/* Fail unless DIR's partition reads back as WORD: the kernel reports an invalid partition, with
 * its reason, only when the file is read. */
static int check_partition(struct sync *s, const char *dir, const char *word)
{
	char *msg = NULL, *full = NULL, *w = read_partition(dir, &full, &msg);

	if (!w)
		return fail(s, msg);
	free(w);
	if (strcmp(full, word)) {
		fail(s, xasprintf("cannot make %s %s partition: %s", dir,
				  !strcmp(word, "root") ? "a root" : "an isolated", full));
		free(full);
		return -1;
	}
	free(full);
	return 0;
}

/* Back to a member with no exclusive CPUs, unless it is one already. */
static int unisolate(struct sync *s, const char *dir)
{
	hwloc_bitmap_t none;
	int rc;

	if (set_partition(s, dir, "member", false) < 0)
		return -1;
	if (!rm_cgroup_has_file(dir, "cpuset.cpus.exclusive"))
		return 0;
	none = hwloc_bitmap_alloc();
	rc = put_set(s, dir, "cpuset.cpus.exclusive", none, true);
	hwloc_bitmap_free(none);
	return rc;
}

/* Make DIR an isolated partition owning CPUS, unless it is one. NEWDIR: made by this sync
 * (nothing to log). Its siblings' cpuset.cpus no longer overlap CPUS: the kernel wants a
 * partition's CPUs exclusive among its siblings. */
static int isolate(struct sync *s, const char *dir, hwloc_const_bitmap_t cpus, bool newdir)
{
	char *msg = NULL;
	bool same;

	if (isolated_as(dir, cpus, &same, &msg) < 0)
		return fail(s, msg);
	if (same)
		return 0;
	if (s->cg->partitions == RM_PARTITIONS_REMOTE &&
	    put_set(s, dir, "cpuset.cpus.exclusive", cpus, !newdir) < 0)
		return -1;
	if (set_partition(s, dir, "isolated", newdir) < 0)
		return -1;
	return check_partition(s, dir, "isolated");
}

/* RM_PARTITIONS_ROOT: the parent a root partition holding CPUS, which leave the root's effective
 * set. MADE: made by this sync (nothing to log). */
static int parent_root(struct sync *s, hwloc_const_bitmap_t cpus, bool made)
{
	const char *parent = s->cg->parent;

	if (put_set(s, parent, "cpuset.cpus", cpus, !made) < 0 ||
	    set_partition(s, parent, "root", made) < 0)
		return -1;
	return check_partition(s, parent, "root");
}

/* RM_PARTITIONS_ROOT: the parent back to a member with no CPUs of its own, as it was made. */
static int parent_member(struct sync *s)
{
	hwloc_bitmap_t none = hwloc_bitmap_alloc();
	int rc = set_partition(s, s->cg->parent, "member", false);

	if (rc == 0)
		rc = put_set(s, s->cg->parent, "cpuset.cpus", none, true);
	hwloc_bitmap_free(none);
	return rc;
}

/* Refuse to remove a child holding processes when no shared child is wanted, before any write. */
static int check_removable(const struct rm_cgroups *cg, const struct rm_cgroup_want *want,
			   size_t n, char **names, int nnames, char **errmsg)
{
	if (find_want(want, n, RM_CGROUP_SHARED))
		return 0;
	for (int i = 0; i < nnames; i++) {
		char *dir, *path;
		pid_t *pids;
		ssize_t np;

		if (find_want(want, n, names[i]))
			continue;
		dir = rm_cgroups_path(cg, names[i]);
		path = xasprintf("%s/cgroup.procs", dir);
		np = rm_cgroup_read_pids(path, &pids, errmsg);
		if (np > 0)
			*errmsg = xasprintf("cannot remove %s: it holds processes and no '%s' child "
					    "is wanted to take them", dir, RM_CGROUP_SHARED);
		free(pids);
		free(path);
		free(dir);
		if (np != 0)
			return -1;
	}
	return 0;
}

/* Each existing wanted child's cpuset.cpus narrowed to what it keeps (old and new), so that no
 * child holds CPUs that another is about to take as an isolated partition. */
static int shrink_children(struct sync *s, const struct rm_cgroup_want *want, size_t n,
			   char **names, int nnames)
{
	hwloc_bitmap_t cur = hwloc_bitmap_alloc();
	int rc = 0;

	for (int i = 0; i < nnames && rc == 0; i++) {
		const struct rm_cgroup_want *w = find_want(want, n, names[i]);
		char *dir, *path, *msg = NULL;

		if (!w)
			continue;
		dir = rm_cgroups_path(s->cg, names[i]);
		path = xasprintf("%s/cpuset.cpus", dir);
		if (rm_cgroup_read_set(path, cur, &msg) < 0) {
			rc = fail(s, msg);
		} else if (!hwloc_bitmap_isincluded(cur, w->cpus)) {
			hwloc_bitmap_and(cur, cur, w->cpus);
			if (!hwloc_bitmap_iszero(cur))
				rc = put_set(s, dir, "cpuset.cpus", cur, true);
		}
		free(path);
		free(dir);
	}
	hwloc_bitmap_free(cur);
	return rc;
}

/*
 * The steps of a sync, in the order the kernel accepts them; -1 with S->err on a failure.
 * With isolated partitions: children that stop being (or change as) one go back to members,
 * every child narrows to the CPUs it keeps, then children are made or grow, unwanted ones go
 * (their CPUs may be another's now), the parent becomes what the partitions need (remote: its
 * cpuset.cpus.exclusive; root: a root partition), and only then do children become isolated,
 * when no sibling's cpuset.cpus overlaps theirs.
 */
static int sync_steps(struct sync *s, const struct rm_cgroup_want *want, size_t n, char **names,
		      int nnames)
{
	struct rm_cgroups *cg = s->cg;
	hwloc_bitmap_t allcpus = hwloc_bitmap_alloc(), allmems = hwloc_bitmap_alloc();
	hwloc_bitmap_t isol = hwloc_bitmap_alloc(), pex = hwloc_bitmap_alloc();
	hwloc_const_bitmap_t keep = want_keep(want, n);
	char *pexpath = xasprintf("%s/cpuset.cpus.exclusive", cg->parent), *msg = NULL;
	char *shared = NULL;
	bool made, isolating = false, v2p, remote, root;
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		hwloc_bitmap_t written = hwloc_bitmap_alloc();

		rm_cgroups_cpus_written(cg, want[i].cpus, written);
		hwloc_bitmap_or(allcpus, allcpus, written);
		hwloc_bitmap_free(written);
		hwloc_bitmap_or(allmems, allmems, want[i].mems);
		if (want[i].isolate) {
			hwloc_bitmap_or(isol, isol, want[i].cpus);
			isolating = true;
		}
	}

	if (setup_parent(s, allcpus, allmems, &made) < 0)
		goto out;
	if (cg->version == RM_CGROUP_V2) {
		/* now that the parent has its cpuset files, they tell for sure */
		cg->partitions = partitions_of(cg->parent);
		if (isolating && (msg = rm_cgroups_isolate_refused(cg, keep))) {
			fail(s, msg);
			goto out;
		}
	}
	v2p = cg->version == RM_CGROUP_V2 && cg->partitions != RM_PARTITIONS_NONE;
	remote = v2p && cg->partitions == RM_PARTITIONS_REMOTE;
	root = v2p && cg->partitions == RM_PARTITIONS_ROOT;

	/* remote: the parent's exclusive CPUs cover the old and the new isolated children */
	if (remote) {
		if (rm_cgroup_read_set(pexpath, pex, &msg) < 0) {
			fail(s, msg);
			goto out;
		}
		hwloc_bitmap_or(pex, pex, isol);
		if (put_set(s, cg->parent, "cpuset.cpus.exclusive", pex, !made) < 0)
			goto out;
	}

	/* children that stop being (or change as) isolated partitions give their CPUs back first */
	for (int i = 0; v2p && i < nnames; i++) {
		const struct rm_cgroup_want *w = find_want(want, n, names[i]);
		char *dir = rm_cgroups_path(cg, names[i]);
		bool same = false;
		int r = 0;

		if (w && w->isolate && (r = isolated_as(dir, w->cpus, &same, &msg)) < 0)
			fail(s, msg);
		if (r == 0 && !same)
			r = unisolate(s, dir);
		free(dir);
		if (r < 0)
			goto out;
	}
	if (v2p && shrink_children(s, want, n, names, nnames) < 0)
		goto out;

	/* create or update the wanted children: cpus, then mems (v1 needs both before a process
	 * may join; writing the same value again is skipped) */
	for (size_t i = 0; i < n; i++) {
		char *dir = rm_cgroups_path(cg, want[i].name);
		bool newdir = !rm_kernfs_is_dir(dir, FILES);
		hwloc_bitmap_t written = hwloc_bitmap_alloc();
		int r = newdir ? make_dir(s, dir) : 0;

		rm_cgroups_cpus_written(cg, want[i].cpus, written);
		if (r == 0)
			r = put_set(s, dir, "cpuset.cpus", written, !newdir);
		hwloc_bitmap_free(written);
		if (r == 0)
			r = put_set(s, dir, "cpuset.mems", want[i].mems, !newdir);
		free(dir);
		if (r < 0)
			goto out;
	}

	/* remove the children not wanted, their processes going to the shared child */
	if (find_want(want, n, RM_CGROUP_SHARED))
		shared = rm_cgroups_path(cg, RM_CGROUP_SHARED);
	for (int i = 0; i < nnames; i++)
		if (!find_want(want, n, names[i]) && remove_child(s, names[i], shared) < 0)
			goto out;

	/* root: the parent a root partition holding every CPU of its children but the system's */
	if (root && isolating) {
		hwloc_bitmap_t held = hwloc_bitmap_alloc();
		int r;

		hwloc_bitmap_andnot(held, allcpus, keep);
		r = parent_root(s, held, made);
		hwloc_bitmap_free(held);
		if (r < 0)
			goto out;
	}

	/* the isolated partitions, now that no sibling holds their CPUs (pass 0), then every one
	 * still valid after the others' and the parent's changes (pass 1) */
	for (int pass = 0; v2p && pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			char *dir;
			int r;

			if (!want[i].isolate)
				continue;
			dir = rm_cgroups_path(cg, want[i].name);
			/* a child made in this sync is not logged: removing it reverts it */
			r = pass == 0 ? isolate(s, dir, want[i].cpus,
						!find_name(names, nnames, want[i].name)) :
					check_partition(s, dir, "isolated");
			free(dir);
			if (r < 0)
				goto out;
		}

	/* remote: the parent's exclusive CPUs are exactly the isolated children's; root: with no
	 * isolated child left, the parent is a member with no CPUs of its own again */
	if (remote && put_set(s, cg->parent, "cpuset.cpus.exclusive", isol, true) < 0)
		goto out;
	if (root && !isolating && parent_member(s) < 0)
		goto out;
	rc = 0;
out:
	free(shared);
	free(pexpath);
	hwloc_bitmap_free(allcpus);
	hwloc_bitmap_free(allmems);
	hwloc_bitmap_free(isol);
	hwloc_bitmap_free(pex);
	return rc;
}

int rm_cgroups_sync(struct rm_cgroups *cg, const struct rm_cgroup_want *want, size_t n,
		    char **errmsg)
{
	struct sync s = { .cg = cg, .log = { .flags = FILES | RM_KERNFS_ESRCH_OK } };
	char **names = NULL;
	int nnames, rc = 0;

	if (check_wants(cg, want, n, errmsg) < 0)
		return -1;
	if ((nnames = rm_cgroups_children(cg, &names, errmsg)) < 0)
		return -1;
	if (n == 0 && !rm_kernfs_is_dir(cg->parent, FILES))
		goto out; /* nothing wanted, nothing there */
	if (check_removable(cg, want, n, names, nnames, errmsg) < 0) {
		rc = -1;
		goto out;
	}
	if (sync_steps(&s, want, n, names, nnames) < 0) {
		rm_kernfs_undo(&s.log, &s.err);
		*errmsg = s.err;
		rc = -1;
	}
	rm_kernfs_log_free(&s.log);
out:
	rm_kernfs_names_free(names, nnames);
	return rc;
}

int rm_cgroups_attach(struct rm_cgroups *cg, const char *name, pid_t pid, char **errmsg)
{
	char *dir = rm_cgroups_path(cg, name), *path = xasprintf("%s/cgroup.procs", dir);
	char val[24];
	int rc;

	snprintf(val, sizeof(val), "%d", (int)pid);
	if (!rm_name_valid(name)) {
		*errmsg = xasprintf("invalid cgroup name: '%s'", name);
		rc = EINVAL;
	} else if (!rm_kernfs_is_dir(dir, FILES)) {
		*errmsg = xasprintf("no such cgroup: '%s'", dir);
		rc = ENOENT;
	} else if ((rc = rm_kernfs_write(path, val, FILES))) {
		*errmsg = xasprintf("cannot write '%s' to %s: %s", val, path, strerror(rc));
	}
	free(path);
	free(dir);
	return rc ? -1 : 0;
}

int rm_cgroups_remove_parent(struct rm_cgroups *cg, char **errmsg)
{
	char **names;
	int n = rm_cgroups_children(cg, &names, errmsg);

	if (n < 0)
		return -1;
	rm_kernfs_names_free(names, n);
	if (n > 0 || !rm_kernfs_is_dir(cg->parent, FILES))
		return 0;
	/* the root's "+cpuset" (v2) stays: other cgroups may have come to rely on it */
	if (rm_kernfs_rmdir(cg->parent) < 0) {
		*errmsg = xasprintf("cannot remove %s: %s", cg->parent, strerror(errno));
		return -1;
	}
	return 0;
}
