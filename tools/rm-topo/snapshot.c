/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo snapshot: copy the /sys and /proc files rm-topo reads, for replay with --sysroot. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "devices.h"
#include "exitcodes.h"
#include "input.h"
#include "record.h"
#include "rm-topo.h"
#include "snaparchive.h"
#include "sysfs.h"
#include "xalloc.h"

/* What hwloc's Linux backend and rm-topo read (see rm-topo(1), FILES). */
static const char *const patterns[] = {
	"proc/cpuinfo",
	"proc/meminfo",
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
	"sys/devices/system/node/node[0-9]*/access[0-9]*/initiators/*",
	"sys/devices/system/node/node[0-9]*/memory_side_cache/index[0-9]*/*",
	"sys/bus/cxl/devices/region[0-9]*/dax_region[0-9]*/dax[0-9]*/target_node",
	"sys/bus/dax/devices/dax[0-9]*/target_node",
	"proc/sys/kernel/numa_balancing",
	"proc/sys/vm/zone_reclaim_mode",
	"sys/kernel/mm/ksm/run",
	"sys/kernel/mm/hugepages/hugepages-*/*",
	"sys/kernel/mm/transparent_hugepage/enabled",
	"sys/kernel/mm/transparent_hugepage/defrag",
};

/* Where the copy goes: the directory DIRFD, named NAME in messages. */
struct dest {
	int dirfd;
	const char *name;
};

static void write_failed(const struct dest *d, const char *rel)
{
	rm_err(RM_EXIT_FAILURE, "cannot write '%s/%s'", d->name, rel);
}

/* DATA and a newline as the new file REL. */
static void write_file(const struct dest *d, const char *rel, const char *data)
{
	int fd = rm_tree_create(d->dirfd, rel, 0644);
	size_t len = strlen(data);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    close(fd) < 0)
		write_failed(d, rel);
}

/* Copy ROOT/REL, a regular file, to REL in the copy; returns 1 when copied, 0 when left out. */
static int copy_one(const char *root, const char *rel, const struct dest *d)
{
	char *from = rm_sysfs_path(root, rel), *data = NULL;
	struct stat st;

	if (lstat(from, &st) < 0)
		st.st_mode = 0;
	if (S_ISREG(st.st_mode))
		data = rm_sysfs_read(root, rel);
	else if (S_ISLNK(st.st_mode) && strstr(rel, "/initiators/node"))
		data = xstrdup(""); /* an HMAT initiator (a link): its name is what is read */
	free(from);
	if (!data)
		return 0; /* unreadable (write-only or needs root): leave it out */
	write_file(d, rel, data);
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

/* Copy every file matching the patterns from ROOT; returns the number copied. */
static int copy_files(const char *root, const struct dest *d)
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
				copied += copy_one(root, g.gl_pathv[j] + skip, d);
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
static int copy_cgroup_files(const char *root, const struct dest *d)
{
	static const char *const files[] = { /* the first at the mount point, the others in NAME */
		"cgroup.controllers", "cpuset.cpus.effective", "cpuset.mems.effective",
		"cpuset.cpus", "cpuset.mems", "cpus", "mems",
	};
	char *name = cgroup_name(root), *path = rm_sysfs_path(root, "proc/mounts");
	FILE *in, *out;
	struct mntent *m;
	int copied = 0, fd;

	copied += copy_one(root, "proc/self/cpuset", d) + copy_one(root, "proc/self/cgroup", d);
	in = setmntent(path, "r");
	free(path);
	if (!name || !in)
		goto out;
	fd = rm_tree_create(d->dirfd, "proc/mounts", 0644);
	if (fd < 0 || !(out = fdopen(fd, "w")))
		write_failed(d, "proc/mounts");
	while ((m = getmntent(in))) {
		if (strcmp(m->mnt_type, "cgroup") && strcmp(m->mnt_type, "cgroup2") &&
		    strcmp(m->mnt_type, "cpuset"))
			continue;
		if (addmntent(out, m) != 0)
			write_failed(d, "proc/mounts");
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char *rel = xasprintf("%s%s/%s", m->mnt_dir + strspn(m->mnt_dir, "/"),
					      i ? name : "", files[i]);

			if (!strstr(rel, "..")) /* a snapshot's odd mounts must not write outside DIR */
				copied += copy_one(root, rel, d);
			free(rel);
		}
	}
	if (fclose(out) != 0)
		write_failed(d, "proc/mounts");
	copied++;
out:
	if (in)
		endmntent(in);
	free(name);
	return copied;
}

/*
 * What the summary reads from uname(2) on a live machine: the host name, which the kernel also
 * shows in /proc/sys/kernel/hostname, and the architecture, in /proc/sys/kernel/arch on newer
 * kernels. Written from uname for this machine, so the replay prints what the live run prints;
 * copied from a --sysroot snapshot where it has them.
 */
static int copy_uname(const char *root, const struct dest *d)
{
	struct utsname u;

	if (root)
		return copy_one(root, "proc/sys/kernel/hostname", d) +
		       copy_one(root, "proc/sys/kernel/arch", d);
	if (uname(&u) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot read the host name");
	write_file(d, "proc/sys/kernel/hostname", u.nodename);
	write_file(d, "proc/sys/kernel/arch", u.machine);
	return 2;
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
	"into a new tar archive (.tar, .tar.gz, .tgz, .tar.xz, .tar.zst, .tar.bz2), so the machine "
	"can be replayed anywhere with --sysroot DIR or --sysroot FILE.tar.gz.",
	NULL, NULL, NULL
};

static bool dir_is_empty(int fd)
{
	int dup = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	struct dirent *de;
	bool empty = true;

	if (!d) {
		if (dup >= 0)
			close(dup);
		return false;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int cmd_snapshot(int argc, char **argv, struct rm_common *c)
{
	const struct rm_input *in;
	const char *dest = NULL, *root, *suffix;
	char *parent, *base, *top = NULL, *work = NULL, *tmp = NULL, *msg = NULL;
	struct dest d = { -1, NULL };
	/* what a failed or interrupted snapshot leaves is removed (libcommon/cleanup.h): the
	 * archive or the directory made for the copy, and an archive's private working tree */
	int outfd = -1, n, dirfd, created = -1, work_slot = -1;
	size_t len;

	rm_parse_command(&snapshot_argp, argc, argv, c, &dest, RM_PARSE_NO_OUTPUT);
	in = rm_input_resolve(c);
	if (rm_input_described(in))
		rm_usage_errx("snapshot copies a live machine or a --sysroot, not --topology or RM_TOPOLOGY");
	root = rm_input_root(in);
	if (root) {
		/* validate the source the way every other command does */
		rm_topo_free(rm_topo_load(c, 0));
	}

	/* DEST is NAME in the directory PARENT: everything below is made relative to its fd */
	len = strlen(dest);
	while (len > 1 && dest[len - 1] == '/')
		len--;
	parent = xasprintf("%.*s", (int)len, dest);
	base = strrchr(parent, '/');
	if (base == parent) {
		base = xstrdup(parent + 1);
		parent[1] = '\0';
	} else if (base) {
		*base = '\0';
		base = xstrdup(base + 1);
	} else {
		base = parent;
		parent = xstrdup(".");
	}
	if (!*base)
		rm_usage_errx("not a new or empty directory: '%s'", dest);
	dirfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		rm_err(RM_EXIT_FAILURE, "cannot create '%s'", dest);
	d.name = dest;

	if ((suffix = rm_archive_suffix(base))) {
		struct stat st;

		/* a file, a directory or a link there, dangling or not, is never written through */
		if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
			rm_usage_errx("file exists: '%s'", dest);
		outfd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (outfd < 0 && errno == EEXIST)
			rm_usage_errx("file exists: '%s'", dest);
		if (outfd < 0)
			rm_err(RM_EXIT_FAILURE, "cannot create '%s'", dest);
		created = rm_cleanup_add(dirfd, base, false);
		/* the copy is made in a private (0700) directory next to the archive */
		tmp = rm_cleanup_mkdtemp(dirfd, ".rm-topo-snapshot", &work_slot);
		if (!tmp)
			rm_err(RM_EXIT_FAILURE, "cannot create a directory next to '%s'", dest);
		d.dirfd = openat(dirfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d.dirfd < 0)
			rm_err(RM_EXIT_FAILURE, "cannot create a directory next to '%s'", dest);
		top = xasprintf("%.*s", (int)(strlen(base) - strlen(suffix)), base);
		d.name = work = xasprintf("%s/%s", parent, tmp);
	} else {
		if (mkdirat(dirfd, base, 0755) == 0)
			created = rm_cleanup_add(dirfd, base, true);
		else if (errno != EEXIST)
			rm_err(RM_EXIT_FAILURE, "cannot create '%s'", dest);
		/* an existing empty directory is taken; a link to one is not followed */
		d.dirfd = openat(dirfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d.dirfd < 0 || (created < 0 && !dir_is_empty(d.dirfd)))
			rm_usage_errx("not a new or empty directory: '%s'", dest);
	}

	copy_files(root, &d);
	copy_cgroup_files(root, &d);
	copy_uname(root, &d);
	/* and what rm-devices reads, so a GPU server can be replayed */
	if (rm_devices_snapshot_at(root, d.dirfd, d.name, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
	n = rm_tree_count(d.dirfd);
	if (outfd >= 0) {
		if (rm_archive_write(d.dirfd, top, outfd, base, time(NULL), &msg) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
		if (fsync(outfd) < 0 || close(outfd) < 0)
			rm_err(RM_EXIT_FAILURE, "cannot write '%s'", dest);
	}
	close(d.dirfd);
	rm_cleanup_forget(created);
	if (rm_cleanup_now(work_slot) < 0)
		rm_warn("cannot remove '%s'", work);
	free(tmp);
	close(dirfd);

	fputs("snapshot=", stdout);
	rm_record_write_value(stdout, dest);
	printf(" files=%d\n", n);
	free(top);
	free(work);
	if (base != parent)
		free(base);
	free(parent);
	return RM_EXIT_SUCCESS;
}
