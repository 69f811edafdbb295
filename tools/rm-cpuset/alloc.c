/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset alloc, release, reserve and accept-topology: the commands that divide the CPUs. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "hugetlb.h"
#include "input.h"
#include "kernfs.h"
#include "record.h"
#include "rm-cpuset.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

/* ---- alloc ---- */

enum { OPT_EXPLAIN = 0x400, OPT_SHARED }; /* above the request's options (request.c) */

struct alloc_cmd {
	struct alloc_req r; /* first: the children's input */
	bool shared;
	struct rm_ownlimit limits; /* --memory-max, ... */
};

static const struct argp_option alloc_cmd_options[] = {
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "choose and print, change nothing", 0 },
	{ "shared", OPT_SHARED, NULL, 0,
	  "no exclusive CPUs: the owner's cgroup runs on the shared pool (for its limits)", 0 },
	{ "explain", OPT_EXPLAIN, NULL, 0,
	  "first print the Topology Manager's decision: each provider's hints, the merged hint", 0 },
	{ 0 }
};

static error_t alloc_cmd_parse(int key, char *arg, struct argp_state *state)
{
	struct alloc_cmd *a = state->input;
	struct alloc_req *r = &a->r;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->r;
		state->child_inputs[1] = &a->r;
		state->child_inputs[2] = &a->limits;
		state->child_inputs[3] = &a->r;
		break;
	case RM_OPT_DRY_RUN:
		r->dry_run = true;
		break;
	case OPT_EXPLAIN:
		r->opts.tm.explain = stdout;
		break;
	case OPT_SHARED:
		a->shared = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->shared && r->count)
			argp_error(state, "--shared takes no --count: an owner in the shared pool "
				   "has no exclusive CPUs");
		if (a->shared && (alloc_req_placement_given(r) || r->memory || r->nhugepages ||
				  r->opts.tm.explain))
			argp_error(state, "--shared takes no %s", alloc_req_placement_given(r) ?:
				   r->opts.tm.explain ? "--explain" : "--memory or --hugepages");
		if (a->shared && (r->latency || r->governor || r->min_freq))
			argp_error(state, "--shared takes no latency class (--latency, --governor, "
				   "--min-freq): it applies to exclusive CPUs only");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child alloc_children[] = {
	{ &alloc_argp, 0, NULL, 0 }, { &alloc_memory_argp, 0, NULL, 0 },
	{ &limit_argp, 0, "The owner's memory and pids limits (as rm-cpuset limit sets them):", 0 },
	{ &alloc_latency_argp, 0, NULL, 0 }, { 0 }
};

/* Put a copy of R before the N records at LIST (the loops walk the state backwards). */
static void prepend_copy(struct rm_record *list, size_t *n, const struct rm_record *r)
{
	memmove(list + 1, list, *n * sizeof(*list));
	rm_record_copy(list, r);
	(*n)++;
}

int cmd_alloc(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		alloc_cmd_options, alloc_cmd_parse, NULL,
		"Give OWNER COUNT exclusive CPUs, chosen as the kubelet's static CPU manager policy "
		"chooses them, and with --l3-ways or --mem-bandwidth a resctrl group holding a "
		"share of the L3 cache and of the memory bandwidth; print the allocation record. "
		"With --shared, OWNER gets its cgroup on the shared pool's CPUs instead, for the "
		"limits other tools give it. Not enough free CPUs, cache ways or CLOSIDs: exit 3.",
		alloc_children, NULL, NULL
	};
	struct alloc_cmd a = { 0 };
	struct rm_ownlimit limits;
	hwloc_bitmap_t cpus;
	struct rm_topo *t;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	pool_list_columns(c);
	if (!a.r.count && !a.shared)
		rm_usage_errx("alloc needs --count N (or --shared)");
	if (!a.r.owner)
		rm_usage_errx("alloc needs --owner NAME");
	alloc_check_owner(NULL, a.r.owner);
	t = rm_topo_load(c, 0);
	alloc_memory_check(t, &a.r);
	pool_open_topo(&p, c, (a.r.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS), t);
	limit_check(&p, NULL, a.r.memory, &a.limits, &limits);
	cpus = hwloc_bitmap_alloc();
	if (a.shared) {
		alloc_check_owner(&p, a.r.owner);
		pool_add(&p, a.r.owner, cpus, NULL, false, 0);
	} else {
		alloc_plan(&p, &a.r, cpus);
	}
	rm_ownlimit_to_record(&p.st.records[p.st.nrecords - 1], &limits);
	if (!a.r.dry_run) {
		pool_commit(&p);
		alloc_memory_limits(&p, &a.r, p.st.nrecords - 1);
		alloc_limits(&p, p.st.nrecords - 1);
		if (a.shared)
			rm_committed("made owner '%s' in the shared pool", a.r.owner);
		else
			pool_committed_cpus(cpus, a.r.owner);
	}
	pool_print_owners(&p, c, &p.st.records[p.st.nrecords - 1], 1);
	pool_close(&p);
	alloc_req_free(&a.r);
	hwloc_bitmap_free(cpus);
	return RM_EXIT_SUCCESS;
}

/* ---- release ---- */

static const struct argp_option release_options[] = {
	{ "all", RM_OPT_ALL, NULL, 0, "release every allocation", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would be released, change nothing", 0 },
	{ 0 }
};

int cmd_release(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		release_options, rm_owners_parse, "OWNER...",
		"Give the owners' CPUs back to the shared pool and remove their cgroups (their "
		"processes move to the shared pool's cgroup). Print the released allocations. "
		"With --all, the shared pool's cgroup and the rmtools parent go too when no "
		"process is left in them.",
		NULL, NULL, NULL
	};
	struct rm_owners a = { 0 };
	struct rm_record *gone;
	size_t ngone = 0;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	pool_list_columns(c);
	rm_owners_require(&a, "release");
	pool_open(&p, c, a.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS);
	for (int i = 0; i < a.n; i++)
		if (pool_find(&p, a.names[i]) < 0)
			rm_usage_errx("no such owner: '%s'", a.names[i]);
	gone = xcalloc(p.st.nrecords, sizeof(*gone));
	for (size_t i = p.st.nrecords; i-- > 0;) {
		const struct rm_record *r = &p.st.records[i];

		if (strcmp(rm_record_kind(r), "owner") ||
		    !rm_owners_match(&a, rm_record_get(r, "owner")))
			continue;
		prepend_copy(gone, &ngone, r);
		pool_remove(&p, i);
	}
	if (!a.dry_run && ngone) {
		pool_commit(&p);
		pool_committed_owners("released", gone, ngone);
	}
	if (!a.dry_run && a.all)
		pool_remove_cgroups(&p);
	pool_print_owners(&p, c, gone, ngone);
	pool_free_records(gone, ngone);
	free(a.names);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}

/* ---- reserve ---- */

static const struct argp_option reserve_cmd_options[] = {
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print the reservation, change nothing", 0 },
	{ 0 }
};

struct reserve_cmd {
	struct reserve_req r;
	bool dry_run;
};

static error_t reserve_cmd_parse(int key, char *arg, struct argp_state *state)
{
	struct reserve_cmd *a = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->r;
		break;
	case RM_OPT_DRY_RUN:
		a->dry_run = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_reserve(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_child children[] = { { &reserve_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp argp = {
		reserve_cmd_options, reserve_cmd_parse, "SET\n--count N\n--memory NODE:SIZE,...",
		"Set the system-reserved CPUs: never given to an owner, and (unless --strict) part "
		"of the shared pool. An empty SET (\"\") removes the reservation. With --memory, "
		"the memory reserved per NUMA node for the system (alone, the CPUs stay as they "
		"are). Prints the reserved pool's record.",
		children, NULL, NULL
	};
	struct reserve_cmd a = { 0 };
	struct rm_topo *t;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	print_pools(NULL, c, true);
	t = rm_topo_load(c, 0);
	reserve_check(&a.r, t);
	pool_open_topo(&p, c, a.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS, t);
	reserve_choose(&p, &a.r);
	if (!a.dry_run) {
		char *list = rm_cpulist_format(a.r.cpus);

		pool_commit(&p);
		if (a.r.memory_value)
			rm_committed("reserved memory %s", *a.r.memory_value ? a.r.memory : "none");
		else if (*list)
			rm_committed("reserved CPUs %s%s", list, a.r.strict ? " (strict)" : "");
		else
			rm_committed("removed the reservation");
		free(list);
	}
	print_pools(&p, c, true);
	pool_close(&p);
	reserve_req_free(&a.r);
	return RM_EXIT_SUCCESS;
}

/* ---- accept-topology ---- */

int cmd_accept_topology(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what would be dropped, change nothing",
		  0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, rm_dry_run_parse, NULL,
		"Adopt the CPUs as they are now: drop the allocations (and reserved CPUs) that "
		"name CPUs no longer present, keep the rest (their memory nodes recomputed), and "
		"print the dropped allocations. Offline CPUs are still present.",
		NULL, NULL, NULL
	};
	bool dry_run = false;
	hwloc_bitmap_t cpus;
	struct rm_record *gone;
	size_t ngone = 0;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, &dry_run, 0);
	pool_list_columns(c);
	pool_open(&p, c, (dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS) | POOL_ANY_TOPOLOGY);
	cpus = hwloc_bitmap_alloc();
	gone = xcalloc(p.st.nrecords, sizeof(*gone));
	for (size_t i = p.st.nrecords; i-- > 0;) {
		const struct rm_record *r = &p.st.records[i];

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		pool_owner_cpus(r, cpus);
		if (hwloc_bitmap_isincluded(cpus, p.present)) {
			pool_set_mems(&p, i, cpus);
			continue;
		}
		prepend_copy(gone, &ngone, r);
		pool_remove(&p, i);
	}
	if (!hwloc_bitmap_isincluded(p.reserved, p.present)) {
		hwloc_bitmap_and(cpus, p.reserved, p.present);
		pool_set_reserved(&p, cpus, p.strict);
	}
	if (!dry_run) {
		pool_commit(&p);
		if (ngone)
			pool_committed_owners("adopted the CPUs as they are now and dropped", gone,
					      ngone);
		else
			rm_committed("adopted the CPUs as they are now");
	}
	pool_print_owners(&p, c, gone, ngone);
	pool_free_records(gone, ngone);
	pool_close(&p);
	hwloc_bitmap_free(cpus);
	return RM_EXIT_SUCCESS;
}
