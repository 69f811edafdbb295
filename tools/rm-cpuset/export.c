/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset export (kubelet, systemd) and apply: the state as other tools' configuration. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "rm-cpuset.h"
#include "xalloc.h"

/* The kubelet's cpuManagerPolicyOptions that change a placement, as export flags. */
static const char *const kubelet_options[] = {
	"full-pcpus-only", "distribute-cpus-across-numa", "align-by-socket",
	"distribute-cpus-across-cores", "prefer-align-cpus-by-uncorecache",
};
#define NOPTIONS ARRAY_SIZE(kubelet_options)

enum { OPT_OPTION0 = 0x400, OPT_POLICY = 0x480, OPT_ROOT };

struct export_args {
	const char *format;
	struct rm_cpualloc_opts opts;
	bool given[NOPTIONS];
	int policy; /* -1: not given */
	const char *root;
};

static const struct argp_option export_options[] = {
	{ "policy", OPT_POLICY, "POLICY", 0, "kubelet: topologyManagerPolicy", 0 },
	{ "full-pcpus-only", OPT_OPTION0 + 0, NULL, 0, "kubelet: the policy option", 0 },
	{ "distribute-cpus-across-numa", OPT_OPTION0 + 1, NULL, 0, "kubelet: the policy option", 0 },
	{ "align-by-socket", OPT_OPTION0 + 2, NULL, 0, "kubelet: the policy option", 0 },
	{ "distribute-cpus-across-cores", OPT_OPTION0 + 3, NULL, 0, "kubelet: the policy option", 0 },
	{ "prefer-align-cpus-by-uncorecache", OPT_OPTION0 + 4, NULL, 0,
	  "kubelet: the policy option", 0 },
	{ "root", OPT_ROOT, "DIR", 0,
	  "systemd: write the drop-in files under DIR (/ for this system) instead of printing them",
	  0 },
	{ 0 }
};

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;
	char *msg = NULL;

	if (key >= OPT_OPTION0 && key < OPT_OPTION0 + (int)NOPTIONS) {
		a->given[key - OPT_OPTION0] = true;
		if (rm_cpualloc_opt_parse(&a->opts, kubelet_options[key - OPT_OPTION0], &msg))
			argp_error(state, "%s", msg);
		return 0;
	}
	switch (key) {
	case OPT_POLICY:
		if ((a->policy = rm_tm_policy_parse(arg)) < 0)
			argp_error(state, "unknown policy: '%s' (none, best-effort, restricted, "
				   "single-numa-node)", arg);
		break;
	case OPT_ROOT:
		a->root = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->format)
			argp_error(state, "unexpected argument: '%s'", arg);
		if (strcmp(arg, "kubelet") && strcmp(arg, "systemd"))
			argp_error(state, "unknown export format: '%s' (kubelet, systemd)", arg);
		a->format = arg;
		break;
	case ARGP_KEY_END:
		if (!a->format)
			argp_error(state, "missing FORMAT (kubelet, systemd)");
		if (!strcmp(a->format, "kubelet") && a->root)
			argp_error(state, "--root is for systemd");
		if (!strcmp(a->format, "systemd") && a->policy >= 0)
			argp_error(state, "--policy is for kubelet");
		for (size_t i = 0; i < NOPTIONS; i++)
			if (!strcmp(a->format, "systemd") && a->given[i])
				argp_error(state, "--%s is for kubelet", kubelet_options[i]);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void export_kubelet(struct pool *p, struct export_args *a, const char *reserved)
{
	char *msg = NULL;
	int rc;
	bool any = p->strict;

	if ((rc = rm_cpualloc_check_opts(p->ct, &a->opts, a->policy < 0 ? RM_TM_NONE : a->policy,
					 &msg)))
		pool_fail(rc, msg);
	printf("# KubeletConfiguration drop-in from rm-cpuset, e.g.\n"
	       "# /etc/kubernetes/kubelet.conf.d/50-rmtools-cpuset.conf\n"
	       "apiVersion: kubelet.config.k8s.io/v1beta1\n"
	       "kind: KubeletConfiguration\n"
	       "cpuManagerPolicy: static\n");
	for (size_t i = 0; i < NOPTIONS; i++)
		any |= a->given[i];
	if (any) {
		puts("cpuManagerPolicyOptions:");
		for (size_t i = 0; i < NOPTIONS; i++)
			if (a->given[i])
				printf("  %s: \"true\"\n", kubelet_options[i]);
		if (p->strict)
			puts("  strict-cpu-reservation: \"true\"");
	}
	printf("reservedSystemCPUs: \"%s\"\n", reserved);
	if (a->policy >= 0)
		printf("topologyManagerPolicy: %s\n", rm_tm_policy_name(a->policy));
}

/* Write TEXT to ROOT/PATH: parents made as needed, a temporary file renamed into place. */
static void write_file(const char *root, const char *path, const char *text)
{
	char *full = xasprintf("%s/%s", root, path), *tmp, *slash;
	size_t len = strlen(text);
	int fd;

	for (slash = strchr(full + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(full, 0755) && errno != EEXIST)
			err(RM_EXIT_FAILURE, "cannot create %s", full);
		*slash = '/';
	}
	tmp = xasprintf("%s.XXXXXX", full);
	if ((fd = mkstemp(tmp)) < 0)
		err(RM_EXIT_FAILURE, "cannot create %s", tmp);
	if (fchmod(fd, 0644) || write(fd, text, len) != (ssize_t)len || fsync(fd) || close(fd) ||
	    rename(tmp, full)) {
		int saved = errno;

		unlink(tmp);
		errno = saved;
		err(RM_EXIT_FAILURE, "cannot write %s", full);
	}
	printf("file=%s\n", full);
	free(tmp);
	free(full);
}

static void export_systemd(struct export_args *a, const char *reserved)
{
	static const struct { const char *path, *section, *key; } files[] = {
		{ "etc/systemd/system.conf.d/50-rmtools-cpuset.conf", "Manager", "CPUAffinity" },
		{ "etc/systemd/system/system.slice.d/50-rmtools-cpuset.conf", "Slice", "AllowedCPUs" },
		{ "etc/systemd/system/user.slice.d/50-rmtools-cpuset.conf", "Slice", "AllowedCPUs" },
		{ "etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf", "Scope", "AllowedCPUs" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *text = xasprintf("# from rm-cpuset: system services on the reserved CPUs\n"
				       "[%s]\n%s=%s\n", files[i].section, files[i].key, reserved);

		if (a->root)
			write_file(a->root, files[i].path, text);
		else
			printf("%s# /%s\n%s", i ? "\n" : "", files[i].path, text);
		free(text);
	}
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		export_options, export_parse, "kubelet|systemd",
		"Print configuration that matches the reservation. kubelet: a KubeletConfiguration "
		"drop-in (static CPU manager policy, reservedSystemCPUs, the policy options given, "
		"strict-cpu-reservation when the reservation is strict, topologyManagerPolicy). "
		"systemd: drop-ins keeping system services on the reserved CPUs (CPUAffinity= for "
		"the manager, AllowedCPUs= for system.slice, user.slice and init.scope).",
		NULL, NULL, NULL
	};
	struct export_args a = { .policy = -1 };
	struct pool p;
	char *reserved;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT);
	pool_open(&p, c, 0);
	if (hwloc_bitmap_iszero(p.reserved))
		rm_usage_errx("no CPUs are reserved: run 'rm-cpuset reserve' first (the kubelet's "
			      "static policy needs reserved CPUs)");
	reserved = rm_cpulist_format(p.reserved);
	if (!strcmp(a.format, "kubelet"))
		export_kubelet(&p, &a, reserved);
	else
		export_systemd(&a, reserved);
	free(reserved);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}

/* ---- apply ---- */

enum { APPLY_CGROUP, APPLY_CPUS, APPLY_MEMS, APPLY_ACTION, APPLY_PATH };
static const struct rm_column apply_cols[] = {
	[APPLY_CGROUP] = { "cgroup", RM_COL_STRING, "the child of the rmtools parent (an owner, or shared)" },
	[APPLY_CPUS] = { "cpus", RM_COL_SET, "its cpuset.cpus as the state wants it" },
	[APPLY_MEMS] = { "mems", RM_COL_SET, "its cpuset.mems as the state wants it" },
	[APPLY_ACTION] = { "action", RM_COL_STRING, "create, update, keep or remove" },
	[APPLY_PATH] = { "path", RM_COL_STRING, "its directory" },
};

enum { RG_GROUP, RG_OWNER, RG_CPUS, RG_ACTION, RG_PATH };
static const struct rm_column rgroup_cols[] = {
	[RG_GROUP] = { "group", RM_COL_STRING, "the resctrl group of an owner: rmtools.OWNER" },
	[RG_OWNER] = { "owner", RM_COL_STRING, "its owner" },
	[RG_CPUS] = { "cpus", RM_COL_SET, "its cpus_list as the state wants it" },
	[RG_ACTION] = { "action", RM_COL_STRING, "create, update, keep or remove" },
	[RG_PATH] = { "path", RM_COL_STRING, "its directory" },
};

static void rgroup_record(struct pool *p, struct rm_out *out, const char *name,
			  hwloc_const_bitmap_t cpus, const char *action)
{
	char *path = xasprintf("%s/%s", p->rc.root, name);

	rm_out_begin(out);
	rm_out_str(out, RG_GROUP, name);
	rm_out_str(out, RG_OWNER, name + strlen(RM_RESCTRL_PREFIX));
	rm_out_set(out, RG_CPUS, cpus);
	rm_out_str(out, RG_ACTION, action);
	rm_out_str(out, RG_PATH, path);
	rm_out_end(out);
	free(path);
}

static void apply_record(struct pool *p, struct rm_out *out, const char *name,
			 const struct rm_cgroup_want *w, const char *action)
{
	char *path = rm_cgroups_path(&p->cg, name);

	rm_out_begin(out);
	rm_out_str(out, APPLY_CGROUP, name);
	rm_out_set(out, APPLY_CPUS, w ? w->cpus : NULL);
	rm_out_set(out, APPLY_MEMS, w ? w->mems : NULL);
	rm_out_str(out, APPLY_ACTION, action);
	rm_out_str(out, APPLY_PATH, path);
	rm_out_end(out);
	free(path);
}

int cmd_apply(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would change, change nothing", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_dry_run_parse, NULL,
		"Make the cgroups below the rmtools parent, and the owners' resctrl groups, match "
		"the state (after a reboot, or when someone changed them): one record per cgroup "
		"with what was done, then one per resctrl group.",
		NULL, NULL, NULL
	};
	hwloc_bitmap_t cpus, mems;
	struct rm_cgroup_want *want = NULL;
	struct rm_resctrl_want *rwant = NULL;
	bool dry_run = false, isolated;
	char **names = NULL, *msg = NULL, **removed = NULL;
	const char **actions = NULL, **ractions = NULL;
	struct rm_out *out;
	struct pool p;
	size_t n = 0, i, nr = 0, nremoved = 0;
	int nnames = 0, k, rc;

	rm_parse_command(&argp, argc, argv, c, &dry_run, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, apply_cols, ARRAY_SIZE(apply_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	pool_open(&p, c, (dry_run ? 0 : POOL_WRITE) | POOL_NEED_CGROUPS);
	cpus = hwloc_bitmap_alloc();
	mems = hwloc_bitmap_alloc();
	if (p.resctrl && !p.have_resctrl) {
		for (i = 0; i < p.st.nrecords; i++)
			if (!strcmp(rm_record_kind(&p.st.records[i]), "owner") &&
			    pool_owner_has_resctrl(&p.st.records[i]))
				errx(RM_EXIT_FAILURE, "owners have L3 ways or memory bandwidth, but %s; "
				     "nothing was changed", p.resctrl_err ? p.resctrl_err :
				     "resctrl is not mounted ('rm-cpuset mount-resctrl' first)");
	}
	if (!p.have_cgroups && !p.have_resctrl)
		rm_usage_errx("no cgroups are kept for this topology (--topology, --sysroot or "
			      "--no-cgroups)");
	if (p.have_resctrl) {
		nr = pool_resctrl_wants(&p, p.st.records, p.st.nrecords, &rwant);
		ractions = xcalloc(nr, sizeof(*ractions));
		if ((rc = rm_resctrl_plan(&p.rc, rwant, nr, ractions, &removed, &nremoved, &msg)))
			errx(rc, "%s; nothing was changed", msg);
	}
	if (p.have_cgroups) {
		n = pool_wants(&p, p.st.records, p.st.nrecords, &want);
		if ((nnames = rm_cgroups_children(&p.cg, &names, &msg)) < 0)
			errx(RM_EXIT_FAILURE, "%s", msg);
	}
	actions = xcalloc(n, sizeof(*actions));
	for (i = 0; i < n; i++) {
		if ((rc = rm_cgroups_read(&p.cg, want[i].name, cpus, mems, &isolated, &msg)) < 0)
			errx(RM_EXIT_FAILURE, "%s", msg);
		actions[i] = rc == 0 ? "create" :
			     hwloc_bitmap_isequal(cpus, want[i].cpus) &&
			     hwloc_bitmap_isequal(mems, want[i].mems) &&
			     isolated == want[i].isolate ? "keep" : "update";
	}
	if (!dry_run)
		pool_commit(&p);
	out = rm_out_new(&c->out, "cgroups", apply_cols, ARRAY_SIZE(apply_cols), NULL, true);
	for (i = 0; i < n; i++)
		apply_record(&p, out, want[i].name, &want[i], actions[i]);
	for (k = 0; k < nnames; k++) {
		for (i = 0; i < n && strcmp(names[k], want[i].name); i++)
			;
		if (i == n)
			apply_record(&p, out, names[k], NULL, "remove");
		free(names[k]);
	}
	free(names);
	free(actions);
	rm_out_close(out);
	if (p.have_resctrl) {
		struct rm_outopts opts = c->out;

		opts.columns = NULL; /* -o is for the cgroup records */
		out = rm_out_new(&opts, "resctrl_groups", rgroup_cols, ARRAY_SIZE(rgroup_cols),
				 NULL, false);
		for (i = 0; i < nr; i++)
			rgroup_record(&p, out, rwant[i].name, rwant[i].cpus, ractions[i]);
		for (i = 0; i < nremoved; i++) {
			rgroup_record(&p, out, removed[i], NULL, "remove");
			free(removed[i]);
		}
		rm_out_close(out);
	}
	rm_out_flush();
	free(removed);
	free(ractions);
	pool_resctrl_wants_free(rwant, nr);
	if (want)
		pool_wants_free(want, n);
	pool_close(&p);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(mems);
	return RM_EXIT_SUCCESS;
}
