/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo snapshot: copy the /sys and /proc files rm-topo reads, for replay with --sysroot. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <libgen.h>
#include <mntent.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devices.h"
#include "exitcodes.h"
#include "record.h"
#include "rm-topo.h"
#include "sysfs.h"
#include "xalloc.h"

/* What hwloc's Linux backend and rm-topo read (see rm-topo(1), FILES). */
static const char *const patterns[] = {
	"proc/cpuinfo",
	"proc/meminfo",
	"proc/sys/kernel/hostname",
	"sys/devices/system/cpu/possible",
	"sys/devices/system/cpu/present",
	"sys/devices/system/cpu/online",
	"sys/devices/system/cpu/offline",
	"sys/devices/system/cpu/isolated",
	"sys/devices/system/cpu/nohz_full",
	"sys/devices/system/cpu/kernel_max",
	"sys/devices/system/cpu/smt/active",
	"sys/devices/system/cpu/smt/control",
	"sys/devices/system/cpu/cpu[0-9]*/online",
	"sys/devices/system/cpu/cpu[0-9]*/topology/*",
	"sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/*",
	"sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq",
	"sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_min_freq",
	"sys/devices/system/cpu/cpu[0-9]*/cpufreq/base_frequency",
	"sys/devices/system/cpu/cpu[0-9]*/cpu_capacity",
	"sys/devices/system/node/possible",
	"sys/devices/system/node/online",
	"sys/devices/system/node/has_cpu",
	"sys/devices/system/node/has_memory",
	"sys/devices/system/node/has_normal_memory",
	"sys/devices/system/node/node[0-9]*/cpumap",
	"sys/devices/system/node/node[0-9]*/cpulist",
	"sys/devices/system/node/node[0-9]*/distance",
	"sys/devices/system/node/node[0-9]*/meminfo",
	"sys/devices/system/node/node[0-9]*/hugepages/hugepages-*/*",
	"sys/devices/virtual/memory_tiering/memory_tier[0-9]*/nodelist",
	"sys/kernel/mm/hugepages/hugepages-*/*",
	"sys/kernel/mm/transparent_hugepage/enabled",
	"sys/kernel/mm/transparent_hugepage/defrag",
};

static enum { DEST_DIR, DEST_TARGZ } dest_kind(const char *dest)
{
	size_t n = strlen(dest);

	if ((n > 7 && !strcmp(dest + n - 7, ".tar.gz")) || (n > 4 && !strcmp(dest + n - 4, ".tgz")))
		return DEST_TARGZ;
	return DEST_DIR;
}

static int mkdir_parents(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static int write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t len = strlen(data);
	int rc = 0;

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/* Copy ROOT/REL, a regular file, to DIR/REL; returns 1 when copied, 0 when left out. */
static int copy_one(const char *root, const char *rel, const char *dir)
{
	char *from = rm_sysfs_path(root, rel), *data = NULL, *to;
	struct stat st;

	if (lstat(from, &st) == 0 && S_ISREG(st.st_mode))
		data = rm_sysfs_read(root, rel);
	free(from);
	if (!data)
		return 0; /* unreadable (write-only or needs root): leave it out */
	to = xasprintf("%s/%s", dir, rel);
	if (mkdir_parents(to) < 0 || write_file(to, data) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot write '%s'", to);
	free(to);
	free(data);
	return 1;
}

/* ROOT with glob's special characters escaped, so a --sysroot named "snap[1]" is found. */
static char *glob_escape(const char *root)
{
	char *out = xmalloc(2 * strlen(root) + 1), *o = out;

	for (; *root; root++) {
		if (strchr("*?[]\\", *root))
			*o++ = '\\';
		*o++ = *root;
	}
	*o = '\0';
	return out;
}

/* Copy every file matching the patterns from ROOT into DIR; returns the number copied. */
static int copy_files(const char *root, const char *dir)
{
	char *eroot = root ? glob_escape(root) : NULL, *base = rm_sysfs_path(root, "");
	size_t skip = strlen(base); /* "ROOT/" before each relative path */
	int copied = 0;

	free(base);
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		char *pat = rm_sysfs_path(eroot, patterns[i]);
		glob_t g;

		if (glob(pat, 0, NULL, &g) == 0) {
			for (size_t j = 0; j < g.gl_pathc; j++)
				copied += copy_one(root, g.gl_pathv[j] + skip, dir);
			globfree(&g);
		}
		free(pat);
	}
	free(eroot);
	return copied;
}

/* This process's cpuset name as hwloc finds it: /proc/self/cpuset, else the cgroup v1 cpuset
 * or v2 line of /proc/self/cgroup. NULL when none. */
static char *cgroup_name(const char *root)
{
	char *s = rm_sysfs_read(root, "proc/self/cpuset"), *name = NULL;

	if (!s && (s = rm_sysfs_read(root, "proc/self/cgroup"))) {
		for (char *line = strtok(s, "\n"); line && !name; line = strtok(NULL, "\n")) {
			char *colon = strchr(line, ':');

			if (colon && !strncmp(colon, ":cpuset:", 8))
				name = xstrdup(colon + 8);
			else if (colon && !strncmp(colon, "::", 2))
				name = xstrdup(colon + 2);
		}
		free(s);
		s = name;
	}
	return s;
}

/*
 * hwloc takes the allowed CPUs (a container's or job's cpuset) from the cgroup mounts in
 * /proc/mounts, /proc/self/cpuset or /proc/self/cgroup, and that cgroup's cpuset files: copy
 * them, and the cgroup lines of /proc/mounts only, so the replay restricts the same CPUs.
 */
static int copy_cgroup_files(const char *root, const char *dir)
{
	static const char *const files[] = { /* the first at the mount point, the others in NAME */
		"cgroup.controllers", "cpuset.cpus.effective", "cpuset.mems.effective",
		"cpuset.cpus", "cpuset.mems", "cpus", "mems",
	};
	char *name = cgroup_name(root), *path = rm_sysfs_path(root, "proc/mounts"), *to;
	FILE *in, *out;
	struct mntent *m;
	int copied = 0;

	copied += copy_one(root, "proc/self/cpuset", dir) + copy_one(root, "proc/self/cgroup", dir);
	in = setmntent(path, "r");
	free(path);
	if (!name || !in)
		goto out;
	to = xasprintf("%s/proc/mounts", dir);
	if (mkdir_parents(to) < 0 || !(out = fopen(to, "wxe")))
		rm_err(RM_EXIT_FAILURE, "cannot write '%s'", to);
	while ((m = getmntent(in))) {
		if (strcmp(m->mnt_type, "cgroup") && strcmp(m->mnt_type, "cgroup2") &&
		    strcmp(m->mnt_type, "cpuset"))
			continue;
		if (addmntent(out, m) != 0)
			rm_err(RM_EXIT_FAILURE, "cannot write '%s'", to);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char *rel = xasprintf("%s%s/%s", m->mnt_dir + strspn(m->mnt_dir, "/"),
					      i ? name : "", files[i]);

			if (!strstr(rel, "..")) /* a snapshot's odd mounts must not write outside DIR */
				copied += copy_one(root, rel, dir);
			free(rel);
		}
	}
	if (fclose(out) != 0)
		rm_err(RM_EXIT_FAILURE, "cannot write '%s'", to);
	copied++;
	free(to);
out:
	if (in)
		endmntent(in);
	free(name);
	return copied;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void run_tar(const char *archive, const char *dir, const char *top)
{
	char *argv[] = { "tar", "-czf", (char *)archive, "-C", (char *)dir, (char *)top, NULL };
	int status;
	pid_t pid;

	if ((errno = posix_spawnp(&pid, "tar", NULL, NULL, argv, environ)) != 0)
		rm_err(RM_EXIT_FAILURE, "cannot run tar");
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rm_errx(RM_EXIT_FAILURE, "tar failed to write '%s'", archive);
}

static error_t snapshot_parse(int key, char *arg, struct argp_state *state)
{
	const char **dest = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (*dest)
			argp_error(state, "unexpected argument: '%s'", arg);
		*dest = arg;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "missing DIR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp snapshot_argp = {
	NULL, snapshot_parse, "DIR|FILE.tar.gz",
	"Copy the /sys and /proc files rm-topo reads into DIR (created; must be new or empty), or "
	"into a gzip'd tar archive, so the machine can be replayed anywhere with --sysroot.",
	NULL, NULL, NULL
};

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

/* Files and links in the copy, for its record. */
static int copied;

static int count_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)path;
	(void)sb;
	(void)ftw;
	copied += type == FTW_F || type == FTW_SL;
	return 0;
}

int cmd_snapshot(int argc, char **argv, struct rm_common *c)
{
	const char *dest = NULL, *root;
	char *work, *top = NULL, *tmp = NULL, *msg = NULL;
	struct stat st;
	int n;

	rm_parse_command(&snapshot_argp, argc, argv, c, &dest, RM_PARSE_NO_OUTPUT);
	if (c->topology)
		rm_usage_errx("snapshot copies a live machine or a --sysroot, not --topology or RM_TOPOLOGY");
	root = c->sysroot;
	if (root) {
		/* validate the source the way every other command does */
		rm_topo_free(rm_topo_load(c, 0));
	}

	if (dest_kind(dest) == DEST_TARGZ) {
		char *copy, *base;

		if (lstat(dest, &st) == 0)
			rm_usage_errx("file exists: '%s'", dest);
		copy = xstrdup(dest);
		base = basename(copy);
		top = xasprintf("%.*s", (int)(strlen(base) - (strstr(base, ".tgz") ? 4 : 7)), base);
		free(copy);
		copy = xstrdup(dest);
		tmp = xasprintf("%s/.rm-topo-snapshot.XXXXXX", dirname(copy));
		free(copy);
		if (!mkdtemp(tmp))
			rm_err(RM_EXIT_FAILURE, "cannot create a directory next to '%s'", dest);
		work = xasprintf("%s/%s", tmp, top);
		if (mkdir(work, 0755) < 0)
			rm_err(RM_EXIT_FAILURE, "cannot create '%s'", work);
	} else {
		if (lstat(dest, &st) == 0) {
			if (!S_ISDIR(st.st_mode) || !dir_is_empty(dest))
				rm_usage_errx("not a new or empty directory: '%s'", dest);
		} else if (mkdir(dest, 0755) < 0) {
			rm_err(RM_EXIT_FAILURE, "cannot create '%s'", dest);
		}
		work = xstrdup(dest);
	}

	copy_files(root, work);
	copy_cgroup_files(root, work);
	/* and what rm-devices reads, so a GPU server can be replayed */
	if (rm_devices_snapshot(root, work, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	copied = 0;
	nftw(work, count_entry, 16, FTW_PHYS);
	n = copied;
	if (tmp) {
		run_tar(dest, tmp, top);
		nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	fputs("snapshot=", stdout);
	rm_record_write_value(stdout, dest);
	printf(" files=%d\n", n);
	free(work);
	free(top);
	free(tmp);
	return RM_EXIT_SUCCESS;
}
