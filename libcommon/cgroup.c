/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cpusets in cgroups below the rmtools parent: find the hierarchy, sync children, undo failures. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcgroup.h>

#include "cgroup.h"
#include "cpulist.h"
#include "kernfs.h"
#include "state.h"
#include "xalloc.h"

/*
 * The cgroupfs files are read and written directly rather than through libcgroup: the same code
 * must run against test trees under $RM_CGROUP_ROOT, and libcgroup only knows the mounts it finds
 * in /proc/self/mounts. libcgroup is used on the live system to find where cpuset is mounted.
 */

/* ---- files ---- */

/* How cgroupfs files are opened: a link as the last component is not followed. */
#define FILES RM_KERNFS_NOFOLLOW

static char *read_text_msg(const char *path, char **errmsg)
{
	char *s = rm_kernfs_read(path, FILES);

	if (!s)
		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
	return s;
}

/* A cpuset list file into SET. */
static int read_set(const char *path, hwloc_bitmap_t set, char **errmsg)
{
	char *s = read_text_msg(path, errmsg), *msg = NULL;

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

static bool file_exists(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool ok = rm_kernfs_exists(path, FILES);

	free(path);
	return ok;
}

/* The pids (or tids) listed in PATH, one a line. Returns the count or -1 with *ERRMSG. */
static ssize_t read_pids(const char *path, pid_t **pids, char **errmsg)
{
	char *s = read_text_msg(path, errmsg), *line, *save;
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
	if (file_exists(mount, "cpuset.cpus") && !file_exists(mount, "cgroup.controllers")) {
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
	char *root = xstrdup(env), *path;
	size_t len = strlen(root);
	bool found;

	while (len > 1 && root[len - 1] == '/')
		root[--len] = '\0';
	found = rm_kernfs_list_has(root, "cgroup.controllers", "cpuset", FILES);
	if (found)
		set_hierarchy(cg, RM_CGROUP_V2, root);
	if (!found) {
		path = xasprintf("%s/unified", root);
		if ((found = rm_kernfs_list_has(path, "cgroup.controllers", "cpuset", FILES)))
			set_hierarchy(cg, RM_CGROUP_V2, path);
		free(path);
	}
	if (!found) {
		path = xasprintf("%s/cpuset", root);
		if ((found = file_exists(path, "cpuset.cpus")))
			set_hierarchy(cg, RM_CGROUP_V1, path);
		free(path);
	}
	if (!found)
		*errmsg = no_cpuset_msg(root);
	free(root);
	return found ? 0 : -1;
}

static int find_with_libcgroup(struct rm_cgroups *cg, char **errmsg)
{
	char *mp = NULL;
	int rc = cgroup_init();

	if (rc == 0)
		rc = cgroup_get_subsys_mount_point("cpuset", &mp);
	if (rc == ECGROUPNOTMOUNTED || rc == ECGROUPNOTEXIST || (rc == 0 && !mp)) {
		*errmsg = no_cpuset_msg(RM_CGROUP_ROOT_DEFAULT);
		return -1;
	}
	if (rc) {
		*errmsg = xasprintf("cannot find the cgroup mounts: %s", cgroup_strerror(rc));
		free(mp);
		return -1;
	}
	if (!try_mount(cg, mp)) {
		*errmsg = no_cpuset_msg(mp);
		free(mp);
		return -1;
	}
	free(mp);
	return 0;
}

/*
 * Whether the kernel offers v2 partitions with cpuset.cpus.exclusive (remote partitions, 6.7+).
 * Files tell, not the kernel version: the parent's own cpuset files when it exists with cpuset
 * enabled; else the root-only cpuset.cpus.isolated (6.8+); else any cpuset-enabled child of the
 * root. On a 6.7 kernel with no cpuset-enabled cgroup yet this says no until the parent exists;
 * rm_cgroups_sync checks the parent again once it has made it.
 */
static bool detect_partitions(const struct rm_cgroups *cg)
{
	DIR *d;
	struct dirent *e;
	bool found = false, decided = false;

	if (file_exists(cg->parent, "cpuset.cpus"))
		return file_exists(cg->parent, "cpuset.cpus.exclusive");
	if (file_exists(cg->mount, "cpuset.cpus.isolated"))
		return true;
	if (!(d = opendir(cg->mount)))
		return false;
	while (!decided && (e = readdir(d))) {
		char *path;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", cg->mount, e->d_name);
		if (rm_kernfs_is_dir(path, FILES) && file_exists(path, "cpuset.cpus")) {
			found = file_exists(path, "cpuset.cpus.exclusive");
			decided = true;
		}
		free(path);
	}
	closedir(d);
	return found;
}

int rm_cgroups_open(struct rm_cgroups *cg, char **errmsg)
{
	const char *env = getenv("RM_CGROUP_ROOT");
	char *path;
	int rc;

	memset(cg, 0, sizeof(*cg));
	if (env && *env)
		rc = find_under_root(cg, env, errmsg);
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
		rc = read_set(path, cg->cpus, errmsg);
		free(path);
		if (rc == 0) {
			path = xasprintf("%s/cpuset.effective_mems", cg->mount);
			if (!rm_kernfs_exists(path, FILES)) {
				free(path);
				path = xasprintf("%s/cpuset.mems", cg->mount);
			}
			rc = read_set(path, cg->mems, errmsg);
			free(path);
		}
	} else {
		path = xasprintf("%s/cpuset.cpus.effective", cg->mount);
		rc = read_set(path, cg->cpus, errmsg);
		free(path);
		if (rc == 0) {
			path = xasprintf("%s/cpuset.mems.effective", cg->mount);
			rc = read_set(path, cg->mems, errmsg);
			free(path);
		}
		cg->partitions = rc == 0 && detect_partitions(cg);
		if (cg->partitions && rc == 0 && file_exists(cg->parent, "cpuset.cpus.exclusive")) {
			/* our isolated partitions' CPUs have left the root's effective set; they are
			 * still ours to give (else a second sync with the same wants is refused) */
			hwloc_bitmap_t ours = hwloc_bitmap_alloc();

			path = xasprintf("%s/cpuset.cpus.exclusive", cg->parent);
			rc = read_set(path, ours, errmsg);
			hwloc_bitmap_or(cg->cpus, cg->cpus, ours);
			hwloc_bitmap_free(ours);
			free(path);
		}
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

	s = read_text_msg(path, errmsg);
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
	rc = read_set(path, cpus, errmsg);
	free(path);
	if (rc == 0) {
		path = xasprintf("%s/cpuset.mems", dir);
		rc = read_set(path, mems, errmsg);
		free(path);
	}
	if (rc == 0 && isolated && cg->version == RM_CGROUP_V2 &&
	    file_exists(dir, "cpuset.cpus.partition")) {
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
	int n = rm_kernfs_subdirs(cg->parent, FILES, NULL, names);

	if (n < 0 && errno == ENOENT)
		return 0;
	if (n < 0)
		*errmsg = xasprintf("cannot read %s: %s", cg->parent, strerror(errno));
	return n;
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

	if (read_set(path, cur, &msg) < 0) {
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
	int rc = read_set(path, cur, &msg);

	if (rc < 0)
		fail(s, msg);
	else if (!hwloc_bitmap_isincluded(cpus, cur))
		rc = put_set(s, cg->parent, "cpuset.cpus", cg->cpus, true);
	free(path);
	if (rc == 0) {
		path = xasprintf("%s/cpuset.mems", cg->parent);
		rc = read_set(path, cur, &msg);
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
			ssize_t n = read_pids(from, &pids, &msg);

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
	if (!(cpus = read_text_msg(pc, &msg)) || !(mems = read_text_msg(pm, &msg))) {
		fail(s, msg);
		goto out;
	}
	if (rmdir(dir) < 0) {
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

static const struct rm_cgroup_want *find_want(const struct rm_cgroup_want *want, size_t n,
					      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(want[i].name, name))
			return &want[i];
	return NULL;
}

#define ISOLATE_NEEDS \
	"--isolate needs cgroup v2 cpuset partitions (cpuset.cpus.exclusive, Linux 6.7+)"

/* Everything that can be refused before any write. */
static int check_wants(const struct rm_cgroups *cg, const struct rm_cgroup_want *want, size_t n,
		       char **errmsg)
{
	for (size_t i = 0; i < n; i++) {
		const struct rm_cgroup_want *w = &want[i];
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
		if (w->isolate && (cg->version != RM_CGROUP_V2 || !cg->partitions)) {
			*errmsg = xstrdup(ISOLATE_NEEDS);
			return -1;
		}
	}
	return 0;
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
	path = xasprintf("%s/cpuset.cpus.exclusive", dir);
	rc = read_set(path, ex, errmsg);
	*yes = rc == 0 && hwloc_bitmap_isequal(ex, cpus);
	free(path);
	hwloc_bitmap_free(ex);
	return rc;
}

/* Back to a member with no exclusive CPUs, unless it is one already. */
static int unisolate(struct sync *s, const char *dir)
{
	char *msg = NULL, *word = read_partition(dir, NULL, &msg);
	hwloc_bitmap_t none;
	int rc;

	if (!word)
		return fail(s, msg);
	rc = strcmp(word, "member") ? put(s, dir, "cpuset.cpus.partition", "member", word) : 0;
	free(word);
	if (rc < 0)
		return -1;
	none = hwloc_bitmap_alloc();
	rc = put_set(s, dir, "cpuset.cpus.exclusive", none, true);
	hwloc_bitmap_free(none);
	return rc;
}

/* Make DIR an isolated partition owning CPUS, unless it is one; the kernel reports an invalid
 * partition only when the file is read back. NEWDIR: made by this sync (nothing to log). */
static int isolate(struct sync *s, const char *dir, hwloc_const_bitmap_t cpus, bool newdir)
{
	char *msg = NULL, *full = NULL, *word;
	bool same;

	if (isolated_as(dir, cpus, &same, &msg) < 0)
		return fail(s, msg);
	if (same)
		return 0;
	if (put_set(s, dir, "cpuset.cpus.exclusive", cpus, !newdir) < 0 ||
	    put(s, dir, "cpuset.cpus.partition", "isolated", newdir ? NULL : "member") < 0)
		return -1;
	if (!(word = read_partition(dir, &full, &msg)))
		return fail(s, msg);
	free(word);
	if (strcmp(full, "isolated")) {
		fail(s, xasprintf("cannot make %s an isolated partition: %s", dir, full));
		free(full);
		return -1;
	}
	free(full);
	return 0;
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
		np = read_pids(path, &pids, errmsg);
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

/* The steps of a sync, in the order the kernel accepts them; -1 with S->err on a failure. */
static int sync_steps(struct sync *s, const struct rm_cgroup_want *want, size_t n, char **names,
		      int nnames)
{
	struct rm_cgroups *cg = s->cg;
	hwloc_bitmap_t allcpus = hwloc_bitmap_alloc(), allmems = hwloc_bitmap_alloc();
	hwloc_bitmap_t isol = hwloc_bitmap_alloc(), pex = hwloc_bitmap_alloc();
	char *pexpath = xasprintf("%s/cpuset.cpus.exclusive", cg->parent), *msg = NULL;
	char *shared = NULL;
	bool made, isolating = false, v2p;
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
		cg->partitions = file_exists(cg->parent, "cpuset.cpus.exclusive");
		if (isolating && !cg->partitions) {
			fail(s, xstrdup(ISOLATE_NEEDS));
			goto out;
		}
	}
	v2p = cg->version == RM_CGROUP_V2 && cg->partitions;

	/* grow: the parent's exclusive CPUs cover the old and the new isolated children */
	if (v2p) {
		if (read_set(pexpath, pex, &msg) < 0) {
			fail(s, msg);
			goto out;
		}
		hwloc_bitmap_or(pex, pex, isol);
		if (put_set(s, cg->parent, "cpuset.cpus.exclusive", pex, !made) < 0)
			goto out;
	}

	/* children that stop being (or change as) isolated partitions give their CPUs back first,
	 * so that no sibling's exclusive CPUs stand in the way of the writes that follow */
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
		if (r == 0 && v2p && want[i].isolate)
			r = isolate(s, dir, want[i].cpus, newdir);
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

	/* shrink: the parent's exclusive CPUs are exactly the isolated children's */
	if (v2p && put_set(s, cg->parent, "cpuset.cpus.exclusive", isol, true) < 0)
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
	if (rmdir(cg->parent) < 0) {
		*errmsg = xasprintf("cannot remove %s: %s", cg->parent, strerror(errno));
		return -1;
	}
	return 0;
}
