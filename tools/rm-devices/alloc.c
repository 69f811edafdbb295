/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices alloc, release and list-allocations: devices handed to named owners. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classes.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "rm-devices.h"
#include "topology.h"
#include "xalloc.h"

enum {
	OPT_COUNT = 'c',
	OPT_TYPE = 0x300,
	OPT_CLASS,
	OPT_OWNER,
	OPT_NUMA_NODE,
	OPT_NEAR_CPUS,
	OPT_POLICY,
	OPT_SAME_ROOT,
	OPT_TM_OPTION,
	OPT_DRY_RUN,
	OPT_EXPLAIN,
};

struct alloc_args {
	int type;           /* -1: not given */
	const char *cls;
	unsigned count;
	const char *owner;
	hwloc_bitmap_t numa, near;
	enum rm_tm_policy policy;
	struct rm_tm_config tm;
	bool same_root, dry_run;
};

static const struct argp_option alloc_options[] = {
	{ "type", OPT_TYPE, "TYPE", 0, "the device type: gpu, nic, ib, fpga, accel, nvme, vfio", 0 },
	{ "class", OPT_CLASS, "CLASS", 0, "devices of an rm-class resource class instead", 0 },
	{ "count", OPT_COUNT, "N", 0, "the number of devices", 0 },
	{ "owner", OPT_OWNER, "NAME", 0, "the owner's name: letters, digits, _ . -", 0 },
	{ "numa-node", OPT_NUMA_NODE, "SET", 0, "prefer devices on these NUMA nodes", 0 },
	{ "near-cpus", OPT_NEAR_CPUS, "SET", 0, "prefer devices on the NUMA nodes of these CPUs", 0 },
	{ "policy", OPT_POLICY, "POLICY", 0,
	  "topology manager policy: none (default), best-effort, restricted, single-numa-node", 0 },
	{ "topology-manager-option", OPT_TM_OPTION, "NAME[=VALUE]", 0,
	  "prefer-closest-numa-nodes[=BOOL] or max-allowable-numa-nodes=N", 0 },
	{ "same-root", OPT_SAME_ROOT, NULL, 0, "all devices on one PCI root, or none", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "choose and print, change nothing", 0 },
	{ "explain", OPT_EXPLAIN, NULL, 0,
	  "first print the Topology Manager's decision: each provider's hints, the merged hint", 0 },
	{ 0 }
};

static hwloc_bitmap_t set_arg(struct argp_state *state, const char *opt, const char *arg,
			      hwloc_bitmap_t old)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *msg = NULL;

	if (old)
		hwloc_bitmap_free(old);
	if (rm_cpulist_parse(arg, set, &msg)) {
		hwloc_bitmap_free(set);
		argp_error(state, "invalid %s: %s", opt, msg);
	}
	return set;
}

static error_t alloc_parse(int key, char *arg, struct argp_state *state)
{
	struct alloc_args *a = state->input;
	uint64_t n;
	int v;

	switch (key) {
	case OPT_TYPE:
		if ((v = rm_devices_type_parse(arg)) < 0 || v == RM_DEV_OTHER)
			argp_error(state, "unknown device type: '%s' (gpu, nic, ib, fpga, accel, nvme, vfio)",
				   arg);
		a->type = v;
		break;
	case OPT_CLASS:
		a->cls = arg;
		break;
	case OPT_COUNT:
		if (rm_parse_uint(arg, 1, 100000, &n))
			argp_error(state, "invalid count: '%s' (a whole number of devices, at least 1)",
				   arg);
		a->count = (unsigned)n;
		break;
	case OPT_OWNER:
		a->owner = arg;
		break;
	case OPT_NUMA_NODE:
		a->numa = set_arg(state, "--numa-node", arg, a->numa);
		break;
	case OPT_NEAR_CPUS:
		a->near = set_arg(state, "--near-cpus", arg, a->near);
		break;
	case OPT_POLICY:
		if ((v = rm_tm_policy_parse(arg)) < 0)
			argp_error(state, "unknown policy: '%s' (none, best-effort, restricted, "
				   "single-numa-node)", arg);
		a->policy = v;
		break;
	case OPT_TM_OPTION: {
		char *msg = NULL;

		if (rm_tm_opt_parse(&a->tm, arg, &msg))
			argp_error(state, "--topology-manager-option: %s", msg); /* exits */
		break;
	}
	case OPT_SAME_ROOT:
		a->same_root = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_EXPLAIN:
		a->tm.explain = stdout;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void alloc_args_free(struct alloc_args *a)
{
	if (a->numa)
		hwloc_bitmap_free(a->numa);
	if (a->near)
		hwloc_bitmap_free(a->near);
}

/* The owner's CPUs in rm-cpuset's state (rm_owner_cpus), as NUMA nodes; empty when it has none.
 * A state rm-cpuset cannot read either gives no preference, with a warning. */
static void owner_cpu_nodes(struct rm_topo *t, const char *owner, hwloc_bitmap_t nodes)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	char *msg = NULL;
	int rc;

	hwloc_bitmap_zero(nodes);
	if ((rc = rm_owner_cpus(owner, cpus, NULL, &msg)) < 0) {
		rm_warnx("%s; no NUMA preference from the owner's CPUs", msg);
		free(msg);
	} else if (rc) {
		rm_topo_nodes_of(t, cpus, nodes);
	}
	hwloc_bitmap_free(cpus);
}

/* Whether the state holds ADDR, or a VF of the PF ADDR, or the PF of the VF ADDR. */
static bool taken(const struct rm_state *st, const struct rm_devices *devs,
		  const struct rm_device *d)
{
	for (size_t i = 0; i < st->nrecords; i++) {
		const char *a = st->records[i].fields[0].value;
		const struct rm_device *o;

		if (!strcmp(a, d->addr))
			return true;
		if (d->pf && !strcmp(a, d->pf))
			return true;
		o = rm_devices_find(devs, a);
		if (o && o->pf && !strcmp(o->pf, d->addr))
			return true;
	}
	return false;
}

static bool wanted(const struct alloc_args *a, const struct rm_device *d)
{
	if (a->cls) {
		struct rm_record rec = { 0 };
		char *msg = NULL;
		int rc;

		rm_devices_record(d, &rec);
		rc = rm_class_match(a->cls, &rec, &msg);
		rm_record_free(&rec);
		if (rc < 0) /* checked before anything was read: cannot happen */
			devices_fail(RM_DEVICES_EINVAL, msg);
		return rc == 1;
	}
	return (int)d->type == a->type;
}

static void add_record(struct rm_state *st, const struct rm_device *d, const char *owner)
{
	struct rm_record r = { 0 };
	char buf[32];

	rm_record_set(&r, "device", d->addr);
	rm_record_set(&r, "owner", owner);
	rm_record_set(&r, "type", rm_devices_type_name(d->type));
	snprintf(buf, sizeof(buf), "%04x", d->vendor & 0xffff);
	rm_record_set(&r, "vendor", buf);
	snprintf(buf, sizeof(buf), "%04x", d->product & 0xffff);
	rm_record_set(&r, "product", buf);
	rm_record_set(&r, "driver", d->driver ? d->driver : "-");
	snprintf(buf, sizeof(buf), "%d", d->numa);
	rm_record_set(&r, "numa", d->numa >= 0 ? buf : "-");
	snprintf(buf, sizeof(buf), "%lld", (long long)time(NULL));
	rm_record_set(&r, "created", buf);
	rm_state_add(st, &r);
}

/* Mark the commit of the allocation of the N devices PICKED to OWNER. */
static void commit_alloc(struct rm_device *const *picked, unsigned n, const char *owner)
{
	char *list = xstrdup("");

	for (unsigned i = 0; i < n; i++) {
		char *m = xasprintf("%s%s%s", list, i ? "," : "", picked[i]->addr);

		free(list);
		list = m;
	}
	rm_committed("allocated %s to '%s'", list, owner);
	free(list);
}

int cmd_alloc(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		alloc_options, alloc_parse, NULL,
		"Give OWNER COUNT devices of TYPE that no one holds, placed as the kubelet's device "
		"manager and Topology Manager place them (aligned with the owner's rm-cpuset CPUs "
		"when it has some; one PCI switch or root first), record them, and print their "
		"device records (for rm-cpuset alloc --near -). Not enough devices: exit 3.",
		NULL, NULL, NULL
	};
	struct alloc_args a = { .type = -1 };
	struct rm_devices devs;
	struct rm_device **all, **cand, **picked;
	hwloc_bitmap_t provider, hint, cpus;
	size_t nall = 0, ncand = 0, *pick;
	struct rm_state st;
	struct rm_topo *t;
	char *msg = NULL, what[64];
	int rc;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		alloc_args_free(&a);
		rm_out_list_columns(&c->out, rm_devices_columns, rm_devices_ncolumns,
				    rm_devices_defaults);
		return RM_EXIT_SUCCESS;
	}
	if ((a.type < 0) == !a.cls)
		rm_usage_errx("alloc needs --type TYPE or --class CLASS (one of them)");
	if (!a.count)
		rm_usage_errx("alloc needs --count N");
	if (!a.owner)
		rm_usage_errx("alloc needs --owner NAME");
	check_owner(a.owner);
	check_columns(c, rm_devices_columns, rm_devices_ncolumns, rm_devices_defaults);
	if (a.cls && rm_class_match(a.cls, NULL, &msg) < 0) {
		alloc_args_free(&a);
		devices_fail(RM_DEVICES_EINVAL, msg);
	}
	snprintf(what, sizeof(what), "%s devices", a.cls ? a.cls : rm_devices_type_name(a.type));

	/* the lock is held from reading the free devices until the new state is in place */
	dstate_open(&st, !a.dry_run);
	t = rm_topo_load(c, 0);
	provider = hwloc_bitmap_alloc();
	hint = hwloc_bitmap_alloc();
	cpus = hwloc_bitmap_alloc();
	rc = 0;
	if (a.numa && !hwloc_bitmap_isincluded(a.numa, hwloc_topology_get_topology_nodeset(t->topo))) {
		char *s = rm_cpulist_format(a.numa);

		msg = xasprintf("no such NUMA node: '%s'", s);
		free(s);
		rc = RM_DEVICES_EINVAL;
	} else if (a.near && rm_topo_check_cpus(t, a.near, &msg)) {
		char *m = xasprintf("--near-cpus: %s", msg);

		free(msg);
		msg = m;
		rc = RM_DEVICES_EINVAL;
	}
	if (rc) {
		hwloc_bitmap_free(provider);
		hwloc_bitmap_free(hint);
		hwloc_bitmap_free(cpus);
		rm_topo_free(t);
		rm_state_close(&st);
		alloc_args_free(&a);
		devices_fail(rc, msg);
	}
	/* the other provider's NUMA nodes: those asked for, else the owner's CPUs' */
	if (a.numa)
		hwloc_bitmap_or(provider, provider, a.numa);
	if (a.near) {
		rm_topo_nodes_of(t, a.near, cpus);
		hwloc_bitmap_or(provider, provider, cpus);
	}
	if (!a.numa && !a.near)
		owner_cpu_nodes(t, a.owner, provider);

	devices_load(c, RM_DEVICES_NAMES | memory_flags(c) |
			(a.cls && rm_class_uses(a.cls, "memory") ? RM_DEVICES_MEMORY : 0), &devs);
	all = xcalloc(devs.n + 1, sizeof(*all));
	cand = xcalloc(devs.n + 1, sizeof(*cand));
	pick = xcalloc(devs.n + 1, sizeof(*pick));
	for (size_t i = 0; i < devs.n; i++) {
		struct rm_device *d = &devs.dev[i];

		/* a PF whose VFs are enabled is handed out through its VFs, as the SR-IOV device
		 * plugin does; the PF itself is not a device to allocate then */
		if (!wanted(&a, d) || (d->sriov == RM_SRIOV_PF && d->numvfs > 0))
			continue;
		all[nall++] = d;
		if (!taken(&st, &devs, d))
			cand[ncand++] = d;
	}
	if (ncand < a.count) {
		msg = xasprintf("not enough free %s: requested %u, available %zu", what, a.count,
				ncand);
		rc = RM_DEVICES_ENOSPC;
	} else if (a.policy == RM_TM_NONE) {
		hwloc_bitmap_copy(hint, provider); /* a plain preference */
	} else {
		hwloc_const_bitmap_t ns = hwloc_topology_get_topology_nodeset(t->topo);
		unsigned *dist = rm_tm_distances(t->topo, ns, (unsigned)hwloc_bitmap_weight(ns));

		rc = rm_devices_hint(all, nall, cand, ncand, ns, a.count, provider, a.policy, &a.tm,
				     dist, a.cls ? a.cls : rm_devices_type_name(a.type), hint, &msg);
		free(dist);
	}
	if (!rc)
		rc = rm_devices_choose(cand, ncand, a.count, hint, a.same_root, what, pick, &msg);
	hwloc_bitmap_free(provider);
	hwloc_bitmap_free(hint);
	hwloc_bitmap_free(cpus);
	rm_topo_free(t);
	if (rc) {
		free(all);
		free(cand);
		free(pick);
		rm_devices_free(&devs);
		rm_state_close(&st);
		alloc_args_free(&a);
		devices_fail(rc, msg);
	}
	picked = xcalloc(a.count + 1, sizeof(*picked));
	for (unsigned i = 0; i < a.count; i++) {
		picked[i] = cand[pick[i]];
		add_record(&st, picked[i], a.owner);
	}
	if (!a.dry_run && rm_state_commit(&st) < 0) {
		int saved = errno;

		free(picked);
		free(all);
		free(cand);
		free(pick);
		rm_devices_free(&devs);
		alloc_args_free(&a);
		msg = xasprintf("cannot write %s: %s; nothing was changed", st.path, strerror(saved));
		rm_state_close(&st);
		devices_fail(RM_CPUALLOC_EINTERNAL, msg);
	}
	if (!a.dry_run)
		commit_alloc(picked, a.count, a.owner);
	rm_state_close(&st);
	print_devices(c, picked, a.count);
	free(picked);
	free(all);
	free(cand);
	free(pick);
	rm_devices_free(&devs);
	alloc_args_free(&a);
	return RM_EXIT_SUCCESS;
}

/* ---- release, list-allocations ---- */

/* Exit 2 unless every owner named has an allocation. */
void check_owners(struct rm_owners *a, struct rm_state *st)
{
	for (int i = 0; i < a->n; i++) {
		if (!rm_name_valid(a->names[i]) || !dstate_has_owner(st, a->names[i])) {
			char *msg = xasprintf("%s: '%s'", rm_name_valid(a->names[i]) ?
					      "no such owner" : "invalid owner name", a->names[i]);

			rm_state_close(st);
			free(a->names);
			devices_fail(RM_DEVICES_EINVAL, msg);
		}
	}
}

int cmd_release(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "all", RM_OPT_ALL, NULL, 0, "release every allocation", 0 },
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0,
		  "print what would be released, change nothing", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_owners_parse, "OWNER...",
		"Give the owners' devices back, remove their devices cgroups (rm-devices grant), and "
		"print the released allocations.",
		NULL, NULL, NULL
	};
	struct rm_owners a = { 0 };
	struct rm_record *gone;
	size_t ngone = 0;
	struct rm_state st;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		free(a.names);
		rm_out_list_columns(&c->out, alloc_cols, alloc_ncols, alloc_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_owners_require(&a, "release");
	check_columns(c, alloc_cols, alloc_ncols, alloc_defaults);
	dstate_open(&st, !a.dry_run);
	check_owners(&a, &st);
	gone = xcalloc(st.nrecords + 1, sizeof(*gone));
	for (size_t i = 0; i < st.nrecords;) {
		if (rm_owners_match(&a, rm_record_get(&st.records[i], "owner"))) {
			rm_record_copy(&gone[ngone++], &st.records[i]);
			rm_state_remove(&st, i);
		} else {
			i++;
		}
	}
	if (!a.dry_run && ngone && rm_state_commit(&st) < 0) {
		char *msg = xasprintf("cannot write %s: %s; nothing was changed", st.path,
				      strerror(errno));

		for (size_t i = 0; i < ngone; i++)
			rm_record_free(&gone[i]);
		free(gone);
		free(a.names);
		rm_state_close(&st);
		devices_fail(RM_CPUALLOC_EINTERNAL, msg);
	}
	if (!a.dry_run && ngone) {
		char *list = xstrdup("");

		for (int i = 0; i < a.n; i++) {
			char *m = xasprintf("%s%s'%s'", list, i ? ", " : "", a.names[i]);

			free(list);
			list = m;
		}
		rm_committed("released the devices of %s", a.all ? "every owner" : list);
		free(list);
	}
	/* the cgroups go once the devices are given back; a failure there only warns */
	if (!a.dry_run && devices_cgroups(c))
		for (size_t i = 0; i < ngone; i++) {
			const char *o = rm_record_get(&gone[i], "owner");
			bool first = true;

			for (size_t k = 0; k < i && first; k++)
				first = strcmp(rm_record_get(&gone[k], "owner"), o);
			if (first)
				devices_cgroup_remove(o);
		}
	rm_state_close(&st);
	print_allocations(c, gone, ngone);
	for (size_t i = 0; i < ngone; i++)
		rm_record_free(&gone[i]);
	free(gone);
	free(a.names);
	return RM_EXIT_SUCCESS;
}

int cmd_list_allocations(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, rm_owners_parse, "[OWNER...]",
		"One record per allocated device (of the OWNERs given), in the order they were "
		"allocated.",
		NULL, NULL, NULL
	};
	struct rm_owners a = { 0 };
	struct rm_record *sel;
	size_t n = 0;
	struct rm_state st;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		free(a.names);
		rm_out_list_columns(&c->out, alloc_cols, alloc_ncols, alloc_defaults);
		return RM_EXIT_SUCCESS;
	}
	dstate_open(&st, false);
	check_owners(&a, &st);
	sel = xcalloc(st.nrecords + 1, sizeof(*sel));
	for (size_t i = 0; i < st.nrecords; i++)
		if (rm_owners_match(&a, rm_record_get(&st.records[i], "owner")))
			sel[n++] = st.records[i];
	print_allocations(c, sel, n);
	free(sel);
	rm_state_close(&st);
	free(a.names);
	return RM_EXIT_SUCCESS;
}
