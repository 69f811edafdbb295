/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices grant: an owner's cgroup may use its devices' nodes (cgroup v1 devices controller). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "devcg.h"
#include "exitcodes.h"
#include "kernfs.h"
#include "rm-devices.h"
#include "xalloc.h"

enum { OPT_DENY_OTHERS = 0x400, OPT_PID, OPT_SYSTEMD, OPT_DRY_RUN };

struct grant_args {
	const char *owner;
	bool deny_others, systemd, dry_run;
	pid_t *pids;
	int npids;
};

static const struct argp_option grant_options[] = {
	{ "deny-others", OPT_DENY_OTHERS, NULL, 0,
	  "deny every other device first, but the basic ones (/dev/null, /dev/tty, ...)", 0 },
	{ "pid", OPT_PID, "PID", 0, "move the process PID into the cgroup (repeatable)", 0 },
	{ "systemd", OPT_SYSTEMD, NULL, 0,
	  "print DeviceAllow= lines for a systemd unit instead, on any cgroup version", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print what would be granted, change nothing", 0 },
	{ 0 }
};

static error_t grant_parse(int key, char *arg, struct argp_state *state)
{
	struct grant_args *a = state->input;
	uint64_t v;

	switch (key) {
	case OPT_DENY_OTHERS:
		a->deny_others = true;
		break;
	case OPT_PID:
		if (rm_parse_uint(arg, 1, 0x3fffffff, &v))
			argp_error(state, "invalid process id: '%s'", arg);
		a->pids = xrealloc(a->pids, (a->npids + 1) * sizeof(*a->pids));
		a->pids[a->npids++] = (pid_t)v;
		break;
	case OPT_SYSTEMD:
		a->systemd = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (a->owner)
			argp_error(state, "unexpected argument: '%s'", arg);
		a->owner = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* One line of the grant: a node, the device it is for (NULL: shared), its numbers. */
struct grant {
	char *path;
	const char *device;
	char kind;
	int major, minor; /* minor -1 with --deny-others' "136:*" */
};

/* What runc allows every container (its default device rules), kept by --deny-others. */
static const struct { const char *path; int major, minor; } basic[] = {
	{ "/dev/null", 1, 3 }, { "/dev/zero", 1, 5 }, { "/dev/full", 1, 7 },
	{ "/dev/random", 1, 8 }, { "/dev/urandom", 1, 9 }, { "/dev/tty", 5, 0 },
	{ "/dev/ptmx", 5, 2 }, { "/dev/pts/*", 136, -1 },
};

enum { GC_DEVNODE, GC_DEVICE, GC_OWNER, GC_TYPE, GC_MAJOR, GC_MINOR, GC_ACCESS, GC_CGROUP };
static const struct rm_column grant_cols[] = {
	[GC_DEVNODE] = { "devnode", RM_COL_STRING, "the device node" },
	[GC_DEVICE] = { "device", RM_COL_STRING, "the PCI device it belongs to (- when shared)" },
	[GC_OWNER] = { "owner", RM_COL_STRING, "the owner" },
	[GC_TYPE] = { "type", RM_COL_STRING, "c (character) or b (block)" },
	[GC_MAJOR] = { "major", RM_COL_INT, "major device number" },
	[GC_MINOR] = { "minor", RM_COL_INT, "minor device number (- for all)" },
	[GC_ACCESS] = { "access", RM_COL_STRING, "what is allowed: r, w, m (mknod)" },
	[GC_CGROUP] = { "cgroup", RM_COL_STRING, "the owner's devices cgroup" },
};

static bool have_path(const struct grant *g, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(g[i].path, path))
			return true;
	return false;
}

static void free_grants(struct grant *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].path);
	free(g);
}

/* Write LINE to DIR/FILE in one write (a v1 devices file takes one rule a write). */
static int write_rule(const char *dir, const char *file, const char *line, char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file);
	/* O_CREAT for a plain-directory tree laid out like cgroupfs (RM_CGROUP_ROOT in tests) */
	int fd = rm_kernfs_open(path, O_WRONLY | O_APPEND | O_CREAT, RM_KERNFS_NOFOLLOW), rc = 0;
	size_t len = strlen(line);

	if (fd < 0 || write(fd, line, len) != (ssize_t)len) {
		*errmsg = xasprintf("cannot write '%.*s' to %s: %s%s", (int)strcspn(line, "\n"), line,
				    path, strerror(errno),
				    errno == EACCES || errno == EPERM ? "; granting needs root" : "");
		rc = -1;
	}
	if (fd >= 0 && close(fd) < 0 && !rc) {
		*errmsg = xasprintf("cannot write %s: %s", path, strerror(errno));
		rc = -1;
	}
	free(path);
	return rc;
}

static char *rule(const struct grant *g, const char *access)
{
	if (g->minor < 0)
		return xasprintf("%c %d:* %s\n", g->kind, g->major, access);
	return xasprintf("%c %d:%d %s\n", g->kind, g->major, g->minor, access);
}

/* The devices (or v2) cgroup PID is in now ("/" when unknown), to move it back on failure. */
static char *devices_cgroup_of(pid_t pid)
{
	char *path = xasprintf("/proc/%d/cgroup", (int)pid), line[4096], *out = NULL;
	FILE *f = fopen(path, "re");

	free(path);
	while (f && !out && fgets(line, sizeof(line), f)) {
		/* v1's devices line, or v2's "0::" */
		char *p = strstr(line, ":devices:");
		size_t skip = 9;

		if (!p && !strncmp(line, "0::", 3)) {
			p = line;
			skip = 3;
		}
		if (p) {
			p[strcspn(p, "\n")] = '\0';
			out = xstrdup(p + skip);
		}
	}
	if (f)
		fclose(f);
	return out ? out : xstrdup("/");
}

/*
 * Make DIR (and its rmtools parent), deny all first with --deny-others, allow each grant, move
 * the processes in. On a failure undo what was done and return -1 with *ERRMSG.
 */
static int apply(const char *dir, bool v2, const struct grant_args *a, const struct grant *g,
		 size_t n, char **errmsg)
{
	bool replaced = false;
	char *parent = xstrdup(dir), *mount, **was = xcalloc((size_t)a->npids + 1, sizeof(char *));
	bool made_parent = false, made_dir = false;
	size_t allowed = 0;
	int moved = 0, rc = -1;
	char *line;

	*strrchr(parent, '/') = '\0';
	mount = xstrdup(parent);
	*strrchr(mount, '/') = '\0';
	if (rm_kernfs_mkdir_path(parent, 0755) == 0)
		made_parent = true;
	else if (errno != EEXIST) {
		*errmsg = xasprintf("cannot create %s: %s%s", parent, strerror(errno),
				    errno == EACCES || errno == EPERM ? "; granting needs root" : "");
		goto out;
	}
	if (rm_kernfs_mkdir_path(dir, 0755) == 0)
		made_dir = true;
	else if (errno != EEXIST) {
		*errmsg = xasprintf("cannot create %s: %s%s", dir, strerror(errno),
				    errno == EACCES || errno == EPERM ? "; granting needs root" : "");
		goto undo;
	}
	if (v2) {
		/* cgroup v2: one allow-list program in place of the rules (always deny-others) */
		struct rm_devcg_rule *r = xcalloc(n + 1, sizeof(*r));
		int fd = rm_kernfs_open(dir, O_RDONLY | O_DIRECTORY, RM_KERNFS_NOFOLLOW);

		for (size_t i = 0; i < n; i++)
			r[i] = (struct rm_devcg_rule){ g[i].kind, g[i].major, g[i].minor };
		if (fd < 0)
			*errmsg = xasprintf("cannot open %s: %s", dir, strerror(errno));
		replaced = fd >= 0 && rm_devcg_replace(fd, r, n, NULL, errmsg) == 0;
		if (fd >= 0)
			close(fd);
		free(r);
		if (!replaced)
			goto undo;
		allowed = n;
	}
	if (!v2 && a->deny_others && write_rule(dir, "devices.deny", "a\n", errmsg) < 0)
		goto undo;
	for (allowed = v2 ? n : 0; allowed < n; allowed++) {
		line = rule(&g[allowed], "rwm");
		if (write_rule(dir, "devices.allow", line, errmsg) < 0) {
			free(line);
			goto undo;
		}
		free(line);
	}
	for (moved = 0; moved < a->npids; moved++) {
		char pid[32];

		was[moved] = devices_cgroup_of(a->pids[moved]);
		snprintf(pid, sizeof(pid), "%d\n", (int)a->pids[moved]);
		if (write_rule(dir, "cgroup.procs", pid, errmsg) < 0)
			goto undo;
	}
	rc = 0;
	goto out;
undo:
	/* the processes back where they were, then the rules or the cgroups made */
	while (moved-- > 0) {
		char *back = xasprintf("%s%s", mount, was[moved]), pid[32], *m = NULL;

		snprintf(pid, sizeof(pid), "%d\n", (int)a->pids[moved]);
		write_rule(back, "cgroup.procs", pid, &m);
		free(m);
		free(back);
	}
	if (made_dir) {
		rm_kernfs_rmdir(dir);
	} else if (replaced) {
		/* the earlier program is detached already: the new one stays, and the message says so */
		char *m = xasprintf("%s; the processes were moved back, but the owner's cgroup %s keeps "
				    "the new device program", *errmsg, dir);

		free(*errmsg);
		*errmsg = m;
		goto out;
	} else if (!v2) {
		char *m = NULL;

		while (allowed-- > 0) {
			line = rule(&g[allowed], "rwm");
			write_rule(dir, "devices.deny", line, &m);
			free(m);
			m = NULL;
			free(line);
		}
	}
	if (made_parent)
		rm_kernfs_rmdir(parent);
	{
		char *m = xasprintf("%s; nothing was changed", *errmsg);

		free(*errmsg);
		*errmsg = m;
	}
out:
	for (int i = 0; i < a->npids; i++)
		free(was[i]);
	free(was);
	free(parent);
	free(mount);
	return rc;
}

int cmd_grant(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		grant_options, grant_parse, "OWNER",
		"Let the owner's cgroup use the device nodes of its devices: with the cgroup v1 "
		"devices controller, write them to devices.allow of the owner's cgroup "
		"(devices/rmtools/OWNER); with cgroup v2, attach to rmtools.slice/OWNER a BPF device "
		"program that allows those and the basic nodes only (as --deny-others), replacing "
		"the one an earlier grant attached. Prints one record per node granted.",
		NULL, NULL, NULL
	};
	struct grant_args a = { 0 };
	struct grant *g = NULL;
	size_t n = 0;
	struct rm_devices devs;
	struct rm_state st;
	struct rm_out *out = NULL;
	char *dir = NULL, *msg = NULL;
	bool v2 = false;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		free(a.pids);
		rm_out_list_columns(&c->out, grant_cols, ARRAY_SIZE(grant_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	if (!a.owner)
		rm_usage_errx("grant: missing OWNER");
	check_owner(a.owner);
	/* -o and the output modes are checked before anything changes */
	if (a.systemd && (c->out.mode != RM_OUT_RECORDS || c->out.columns || c->out.bytes ||
			   c->out.noheadings))
		rm_usage_errx("--systemd prints DeviceAllow= lines, not records: no -J, -t, -r, -n, "
			      "-o or --bytes");
	check_columns(c, grant_cols, ARRAY_SIZE(grant_cols), NULL);
	if (!a.systemd && !devices_cgroups(c))
		rm_usage_errx("grant changes this machine's cgroups, not those of a --sysroot "
			      "(--systemd prints the lines for a unit)");
	if (!a.systemd) {
		dir = devices_cgroup(a.owner, &v2);
		if (!dir && !v2)
			rm_errx(RM_EXIT_FAILURE, "no cgroup v1 devices controller (devices/) and no "
			     "cgroup v2 hierarchy under the cgroup root: '%s'", cgroup_root());
		if (!dir) {
			char *m = rm_cgroup_unified(cgroup_root());

			dir = rm_cgroup_owner_path(RM_CGROUP_V2, m, a.owner);
			free(m);
		}
		/* records: -o is checked before anything changes */
		out = rm_out_new(&c->out, "grants", grant_cols, ARRAY_SIZE(grant_cols), NULL,
					 true);
	}
	dstate_open(&st, false);
	if (!dstate_has_owner(&st, a.owner)) {
		rm_state_close(&st);
		free(a.pids);
		free(dir);
		rm_usage_errx("no such owner: '%s'", a.owner);
	}
	devices_load(c, RM_DEVICES_ALL, &devs);
	g = xcalloc(2 * devs.n + ARRAY_SIZE(basic) + 1, sizeof(*g));
	for (size_t i = 0; i < st.nrecords && !msg; i++) {
		const struct rm_record *r = &st.records[i];
		const struct rm_device *d;

		if (strcmp(rm_record_get(r, "owner"), a.owner))
			continue;
		d = rm_devices_find(&devs, r->fields[0].value);
		if (!d) {
			msg = xasprintf("device %s of '%s' is gone (see rm-devices health)",
					r->fields[0].value, a.owner);
			break;
		}
		for (int pass = 0; pass < 2 && !msg; pass++) {
			const struct rm_devnode *nodes = pass ? d->shared : d->nodes;
			size_t count = pass ? d->nshared : d->nnodes;

			for (size_t k = 0; k < count && !msg; k++) {
				struct grant *x = &g[n];

				if (have_path(g, n, nodes[k].path))
					continue;
				g = xrealloc(g, (n + ARRAY_SIZE(basic) + 2) * sizeof(*g));
				x = &g[n];
				x->path = xstrdup(nodes[k].path);
				x->device = pass ? NULL : d->addr;
				x->kind = nodes[k].kind;
				n++;
				if (dir &&
				    rm_devices_node_number(devices_sysroot(c), &nodes[k], &x->major,
							   &x->minor) < 0)
					msg = xasprintf("cannot find the device numbers of %s's "
							"node: '%s'", d->addr, nodes[k].path);
			}
		}
	}
	rm_state_close(&st);
	if (msg) {
		free_grants(g, n);
		rm_devices_free(&devs);
		free(a.pids);
		free(dir);
		devices_fail(RM_CPUALLOC_EINTERNAL, msg);
	}
	if (a.deny_others || v2)
		for (size_t i = 0; i < ARRAY_SIZE(basic); i++)
			if (!have_path(g, n, basic[i].path))
				g[n++] = (struct grant){ xstrdup(basic[i].path), NULL, 'c',
							 basic[i].major, basic[i].minor };

	if (a.systemd) {
		for (size_t i = 0; i < n; i++)
			if (!strchr(g[i].path, '*'))
				printf("DeviceAllow=%s rwm\n", g[i].path);
			else
				printf("DeviceAllow=char-pts rwm\n");
		free_grants(g, n);
		rm_devices_free(&devs);
		free(a.pids);
		return RM_EXIT_SUCCESS;
	}
	if (!a.dry_run && apply(dir, v2, &a, g, n, &msg) < 0) {
		free(dir);
		free_grants(g, n);
		rm_devices_free(&devs);
		free(a.pids);
		devices_fail(RM_CPUALLOC_EINTERNAL, msg);
	}
	if (!a.dry_run)
		rm_committed("granted the device nodes of '%s' in %s", a.owner, dir);
	for (size_t i = 0; i < n; i++) {
		char kind[2] = { g[i].kind, '\0' };

		rm_out_begin(out);
		rm_out_str(out, GC_DEVNODE, g[i].path);
		rm_out_str(out, GC_DEVICE, g[i].device);
		rm_out_str(out, GC_OWNER, a.owner);
		rm_out_str(out, GC_TYPE, kind);
		rm_out_int(out, GC_MAJOR, g[i].major);
		if (g[i].minor >= 0)
			rm_out_int(out, GC_MINOR, g[i].minor);
		rm_out_str(out, GC_ACCESS, "rwm");
		rm_out_str(out, GC_CGROUP, dir);
		rm_out_end(out);
	}
	rm_out_close(out);
	rm_out_flush();
	free(dir);
	free_grants(g, n);
	rm_devices_free(&devs);
	free(a.pids);
	return RM_EXIT_SUCCESS;
}
