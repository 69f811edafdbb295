/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset limit: an owner's memory and pids limits (memory.max, memory.high, memory.min, swap,
 * pids.max), kept in its record and set on its cgroups; alloc takes the same options. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "msg.h"
#include "rm-cpuset.h"
#include "xalloc.h"

enum { OPT_LIMIT = 0x600 }; /* + enum rm_ownlimit_key */

static const struct argp_option limit_options[] = {
	{ "memory-max", OPT_LIMIT + RM_OWNLIMIT_MEMORY_MAX, "SIZE", 0,
	  "memory.max: the owner's memory use never goes above it (v1 memory.limit_in_bytes); "
	  "max for none", 0 },
	{ "memory-high", OPT_LIMIT + RM_OWNLIMIT_MEMORY_HIGH, "SIZE", 0,
	  "memory.high: above it the owner is throttled and reclaimed (v1: "
	  "memory.soft_limit_in_bytes, reclaimed to under contention only); max for none", 0 },
	{ "memory-min", OPT_LIMIT + RM_OWNLIMIT_MEMORY_MIN, "SIZE", 0,
	  "memory.min: memory never reclaimed from the owner (cgroup v2 only); max for none", 0 },
	{ "swap-max", OPT_LIMIT + RM_OWNLIMIT_SWAP_MAX, "SIZE", 0,
	  "memory.swap.max: its swap (v1: memory.memsw.limit_in_bytes, set to --memory-max plus "
	  "SIZE); max for none", 0 },
	{ "pids-max", OPT_LIMIT + RM_OWNLIMIT_PIDS_MAX, "N", 0,
	  "pids.max: its processes and threads; max for none", 0 },
	{ 0 }
};

static error_t limit_parse(int key, char *arg, struct argp_state *state)
{
	struct rm_ownlimit *l = state->input;
	int k = key - OPT_LIMIT;
	char *msg = NULL;

	if (k < 0 || k >= RM_OWNLIMIT_N)
		return ARGP_ERR_UNKNOWN;
	if (rm_ownlimit_parse(k, arg, &l->v[k], &msg) < 0)
		argp_error(state, "%s", msg);
	l->set |= 1u << k;
	return 0;
}

const struct argp limit_argp = { limit_options, limit_parse, NULL, NULL, NULL, NULL, NULL };

/* The limits of the owner record REC; exits 1 for a field the state check let through. */
static void record_limits(const struct rm_record *rec, struct rm_ownlimit *l)
{
	char *msg = NULL;

	if (rm_ownlimit_from_record(rec, l, &msg) < 0)
		rm_errx(RM_EXIT_FAILURE, "owner '%s': %s", rm_record_get(rec, "owner"), msg);
}

void limit_check(const struct pool *p, const struct rm_record *rec, uint64_t memory,
		 const struct rm_ownlimit *given, struct rm_ownlimit *l)
{
	const unsigned reserved = 1u << RM_OWNLIMIT_MEMORY_MAX | 1u << RM_OWNLIMIT_MEMORY_MIN;
	const char *owner = rec ? rm_record_get(rec, "owner") : NULL;
	char *msg = NULL;

	memset(l, 0, sizeof(*l));
	if (rec) {
		record_limits(rec, l);
		memory = strtoull(rm_record_get(rec, "memory") ?: "0", NULL, 10);
	}
	if (memory && given->set & reserved)
		rm_usage_errx("%s%s%shas memory reserved (--memory): its memory.max and memory.min "
			      "are the reservation", owner ? "owner '" : "the owner ", owner ?: "",
			      owner ? "' " : "");
	rm_ownlimit_merge(l, given);
	if (given->set && p->have_cgroups && rm_ownlimit_check(l, given->set, &msg) < 0)
		rm_usage_errx("%s", msg);
}

int owner_limits_put(struct pool *p, const struct rm_record *rec, unsigned keys,
		     struct rm_kernfs_log *log, char **msg)
{
	struct rm_ownlimit l;

	if (!p->have_cgroups)
		return 0;
	record_limits(rec, &l);
	return rm_ownlimit_put(rm_record_get(rec, "owner"), &l, keys ? keys : l.set, log, msg);
}

void alloc_limits(struct pool *p, size_t index)
{
	struct rm_kernfs_log log = { .flags = RM_OWNLIMIT_FILES };
	char *msg = NULL;

	if (owner_limits_put(p, &p->st.records[index], 0, &log, &msg) < 0) {
		/* undo the limits, then the allocation */
		rm_kernfs_undo(&log, &msg);
		rm_kernfs_log_free(&log);
		pool_remove(p, index);
		pool_commit(p);
		rm_errx(RM_EXIT_FAILURE, "%s (the allocation was undone)", msg);
	}
	rm_kernfs_log_free(&log);
}

struct limit_cmd {
	struct rm_ownlimit given; /* first: the child's input */
	const char *owner;
	bool dry_run;
};

enum { OPT_OWNER = 0x680 };

static error_t limit_cmd_parse(int key, char *arg, struct argp_state *state)
{
	struct limit_cmd *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->given;
		break;
	case OPT_OWNER:
		a->owner = arg;
		break;
	case RM_OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_limit(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "owner", OPT_OWNER, "NAME", 0, "the owner", 0 },
		{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print the owner as it would be, change nothing",
		  0 },
		{ 0 }
	};
	static const struct argp_child children[] = { { &limit_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp argp = {
		options, limit_cmd_parse, NULL,
		"Set OWNER's memory and pids limits (an owner with exclusive CPUs or in the shared "
		"pool): kept in its record, written to its cgroup (cgroup v1: its cgroups in the "
		"memory and pids hierarchies), put back by apply, removed with release. The limits "
		"not named stay as they are; max removes one. Prints the owner's record.",
		children, NULL, NULL
	};
	struct rm_kernfs_log log = { .flags = RM_OWNLIMIT_FILES };
	struct limit_cmd a = { 0 };
	struct rm_record old;
	struct rm_ownlimit l;
	char *msg = NULL;
	struct pool p;
	long i;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	pool_list_columns(c);
	if (!a.owner)
		rm_usage_errx("limit needs --owner NAME");
	if (!a.given.set)
		rm_usage_errx("limit needs a limit: --memory-max, --memory-high, --memory-min, "
			      "--swap-max or --pids-max");
	pool_open(&p, c, a.dry_run ? 0 : POOL_WRITE | POOL_NEED_CGROUPS);
	if ((i = pool_find(&p, a.owner)) < 0)
		rm_usage_errx("no such owner: '%s'", a.owner);
	limit_check(&p, &p.st.records[i], 0, &a.given, &l);
	rm_record_copy(&old, &p.st.records[i]);
	rm_ownlimit_to_record(&p.st.records[i], &l);
	if (!a.dry_run) {
		pool_commit(&p);
		if (owner_limits_put(&p, &p.st.records[i], a.given.set, &log, &msg) < 0) {
			rm_kernfs_undo(&log, &msg);
			rm_record_free(&p.st.records[i]);
			rm_record_copy(&p.st.records[i], &old);
			pool_commit(&p);
			rm_errx(RM_EXIT_FAILURE, "%s (nothing was changed)", msg);
		}
		rm_committed("set the limits of '%s'", a.owner);
	}
	rm_kernfs_log_free(&log);
	rm_record_free(&old);
	pool_print_owners(&p, c, &p.st.records[i], 1);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}
