/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo ps: which processes and threads are bound where, and to which owner, like hwloc-ps. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "cpulist.h"
#include "output.h"
#include "record.h"
#include "owner.h"
#include "rm-topo.h"
#include "sysfs.h"
#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { OPT_ALL = 'a', OPT_THREADS = 0x200, OPT_OWNER };

struct ps_args {
	bool all, threads;
	const char *owner;
};

static const struct argp_option ps_options[] = {
	{ "all", OPT_ALL, NULL, 0, "every process, bound or not (hwloc-ps -a)", 0 },
	{ "threads", OPT_THREADS, NULL, 0, "one record per thread (hwloc-ps -t)", 0 },
	{ "owner", OPT_OWNER, "NAME", 0, "only the processes in this owner's cgroup", 0 },
	{ 0 }
};

static error_t ps_parse(int key, char *arg, struct argp_state *state)
{
	struct ps_args *a = state->input;

	switch (key) {
	case OPT_ALL:
		a->all = true;
		break;
	case OPT_THREADS:
		a->threads = true;
		break;
	case OPT_OWNER:
		if (!rm_name_valid(arg))
			argp_error(state, "invalid owner name: '%s'", arg);
		a->owner = arg;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

enum { PS_PID, PS_TID, PS_NAME, PS_OWNER, PS_CPUS, PS_LOCATION };
static const struct rm_column ps_cols[] = {
	[PS_PID] = { "pid", RM_COL_INT, "process id" },
	[PS_TID] = { "tid", RM_COL_INT, "thread id (with --threads)" },
	[PS_NAME] = { "name", RM_COL_STRING, "the command's name (comm)" },
	[PS_OWNER] = { "owner", RM_COL_STRING,
		       "the rmtools owner whose cgroup holds it (shared: the shared pool)" },
	[PS_CPUS] = { "cpus", RM_COL_SET, "the CPUs it may run on (its affinity)" },
	[PS_LOCATION] = { "location", RM_COL_STRING,
			  "the largest objects those CPUs make up, as calc names them" },
};
static const char ps_defaults[] = "pid,name,owner,cpus,location";

/* /proc, open while ps lists: its files are read relative to it into buffers on the stack, as
 * one process has three to read */
static int proc_fd = -1;

/* Up to SIZE - 1 bytes of /proc/REL into BUF, NUL-ended, without its last newline; false when it
 * cannot be read (the process is gone). */
static bool proc_read(const char *rel, char *buf, size_t size)
{
	int fd = openat(proc_fd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return true;
}

/* "PID/FILE" (or "PID/task/TID/FILE" with TID) into BUF of 64 bytes: the path below /proc,
 * written without stdio's formatting, which would cost more than reading the file */
static const char *pid_path(char *buf, pid_t pid, pid_t tid, const char *file)
{
	char *p = buf + rm_decimal(buf, pid);

	if (tid) {
		p = stpcpy(p, "/task/");
		p += rm_decimal(p, tid);
	}
	*p++ = '/';
	strcpy(p, file); /* FILE is one of ours, of a few letters */
	return buf;
}

/* The owner of PID: the first part of its cgroup path below rmtools.slice (v2) or rmtools (v1);
 * NULL when it is in none. */
static char *owner_of(pid_t pid)
{
	static const char *const parents[] = { "/" RM_CGROUP_PARENT_V2 "/",
					       "/" RM_CGROUP_PARENT_V1 "/" };
	char path[64], s[4096], *line, *save = NULL, *owner = NULL;

	/* both parents start "/rmtools": most processes are in neither, found in one search */
	if (!proc_read(pid_path(path, pid, 0, "cgroup"), s, sizeof(s)) || !strstr(s, "/rmtools"))
		return NULL;
	for (line = strtok_r(s, "\n", &save); line && !owner; line = strtok_r(NULL, "\n", &save)) {
		for (size_t k = 0; k < ARRAY_SIZE(parents) && !owner; k++) {
			char *p = strstr(line, parents[k]);

			if (p) {
				p += strlen(parents[k]);
				owner = xasprintf("%.*s", (int)strcspn(p, "/"), p);
			}
		}
	}
	if (owner && !rm_name_valid(owner)) {
		free(owner);
		owner = NULL;
	}
	return owner;
}

/* "core:0,core:1": the largest objects inside CPUS, named as rm-topo calc names them. */
static char *location_of(struct rm_topo *t, hwloc_const_bitmap_t cpus)
{
	hwloc_bitmap_t left = hwloc_bitmap_dup(cpus);
	char *s = NULL;
	size_t len = 0;

	hwloc_bitmap_and(left, left, hwloc_topology_get_topology_cpuset(t->topo));
	while (!hwloc_bitmap_iszero(left)) {
		hwloc_obj_t o = hwloc_get_first_largest_obj_inside_cpuset(t->topo, left);
		const char *name;

		if (!o)
			break;
		/* a cache with the same CPUs as what it holds is named by that, as hwloc-ps does:
		 * "core:0", not the per-core "l2:0" above it */
		while (hwloc_obj_type_is_cache(o->type) && o->arity == 1 &&
		       hwloc_bitmap_isequal(o->first_child->cpuset, o->cpuset))
			o = o->first_child;
		name = rm_topo_type_name(o);
		s = xrealloc(s, len + strlen(name) + RM_DECIMAL_MAX + 3);
		if (len)
			s[len++] = ',';
		len = (size_t)(stpcpy(s + len, name) - s);
		s[len++] = ':';
		len += rm_decimal(s + len, o->logical_index);
		hwloc_bitmap_andnot(left, left, o->cpuset);
	}
	hwloc_bitmap_free(left);
	return s;
}

/* The comm of /proc/PID[/task/TID]; NULL when gone. */
static char *comm_of(pid_t pid, pid_t tid)
{
	char path[64], s[64];

	return proc_read(pid_path(path, pid, tid, "comm"), s, sizeof(s)) ? xstrdup(s) : NULL;
}

/* Whether PID runs a program: kernel threads have an empty command line. */
static bool is_user(pid_t pid)
{
	char path[64], s[2];

	return proc_read(pid_path(path, pid, 0, "cmdline"), s, sizeof(s)) && *s;
}

static void ps_record(struct rm_topo *t, struct rm_out *out, const struct ps_args *a, pid_t pid,
		      pid_t tid, const char *owner, hwloc_bitmap_t cpus)
{
	char *name, *loc;

	/* kernel threads first, left out as hwloc-ps does: their affinity is not read */
	if (!is_user(pid) || !(name = comm_of(pid, tid)))
		return; /* or gone meanwhile */
	if ((tid ? hwloc_get_proc_cpubind(t->topo, tid, cpus, HWLOC_CPUBIND_THREAD)
		 : hwloc_get_proc_cpubind(t->topo, pid, cpus, HWLOC_CPUBIND_PROCESS)) < 0) {
		free(name);
		return;
	}
	if (!a->all && !owner &&
	    hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(t->topo), cpus)) {
		free(name);
		return; /* neither bound nor an owner's */
	}
	loc = location_of(t, cpus);
	rm_out_begin(out);
	rm_out_int(out, PS_PID, pid);
	if (tid)
		rm_out_int(out, PS_TID, tid);
	rm_out_str(out, PS_NAME, name);
	rm_out_str(out, PS_OWNER, owner);
	rm_out_set(out, PS_CPUS, cpus);
	rm_out_str(out, PS_LOCATION, loc);
	rm_out_end(out);
	free(loc);
	free(name);
}

static int cmp_pid(const void *x, const void *y)
{
	pid_t a = *(const pid_t *)x, b = *(const pid_t *)y;
	return (a > b) - (a < b);
}

/* The numeric entries of DIR, sorted; the count. */
static int ids_of(const char *dir, pid_t **ids)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	*ids = NULL;
	while (d && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		*ids = xrealloc(*ids, (n + 1) * sizeof(**ids));
		(*ids)[n++] = (pid_t)strtol(de->d_name, NULL, 10);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(*ids, n, sizeof(**ids), cmp_pid);
	return n;
}

int cmd_ps(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		ps_options, ps_parse, NULL,
		"The processes bound to some of the CPUs, or in an owner's cgroup, with where they "
		"may run, as hwloc-ps lists them; with --all every process.",
		NULL, NULL, NULL
	};
	struct ps_args a = { 0 };
	struct rm_topo *t;
	struct rm_out *out;
	hwloc_bitmap_t cpus;
	pid_t *pids;
	int n;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_INPUT);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, ps_cols, ARRAY_SIZE(ps_cols), ps_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, ps_cols, ARRAY_SIZE(ps_cols), ps_defaults);
	t = rm_topo_load(c, 0);
	out = rm_out_new(&c->out, "processes", ps_cols, ARRAY_SIZE(ps_cols),
			 a.threads ? "pid,tid,name,owner,cpus,location" : ps_defaults, true);
	cpus = hwloc_bitmap_alloc();
	if ((proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot open /proc");
	n = ids_of("/proc", &pids);
	for (int i = 0; i < n; i++) {
		char *owner = owner_of(pids[i]);

		if (a.owner && (!owner || strcmp(owner, a.owner))) {
			free(owner);
			continue;
		}
		if (a.threads) {
			char dir[48];
			pid_t *tids;
			int m;

			snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pids[i]);
			m = ids_of(dir, &tids);
			for (int k = 0; k < m; k++)
				ps_record(t, out, &a, pids[i], tids[k], owner, cpus);
			free(tids);
		} else {
			ps_record(t, out, &a, pids[i], 0, owner, cpus);
		}
		free(owner);
	}
	free(pids);
	close(proc_fd);
	hwloc_bitmap_free(cpus);
	rm_out_close(out);
	rm_out_flush();
	rm_topo_free(t);
	return RM_EXIT_SUCCESS;
}
