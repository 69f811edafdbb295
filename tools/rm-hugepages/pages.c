/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages reserve and release: set the pages of one size per NUMA node, all or nothing. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "rm-hugepages.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

enum { OPT_NODE = 0x200, OPT_SPREAD, OPT_NO_COMPACT, OPT_ALLOW_PARTIAL, OPT_DRY_RUN, OPT_TO };

struct pages_args {
	struct rm_common *c;
	bool release;
	const char *size, *count;
	const char *node;
	bool spread, no_compact, allow_partial, dry_run;
};

static const struct argp_option reserve_options[] = {
	{ "node", OPT_NODE, "SET", 0,
	  "these NUMA nodes (a list, or all), each getting COUNT (default: COUNT in total, spread "
	  "over every node)", 0 },
	{ "spread", OPT_SPREAD, NULL, 0,
	  "split COUNT evenly over the nodes, the remainder to the lowest", 0 },
	{ "no-compact", OPT_NO_COMPACT, NULL, 0, "do not compact memory before retrying", 0 },
	{ "allow-partial", OPT_ALLOW_PARTIAL, NULL, 0,
	  "keep the pages obtained when the kernel gives too few (exit status 3)", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the counts it would set, change nothing", 0 },
	{ 0 }
};

static const struct argp_option release_options[] = {
	{ "node", OPT_NODE, "SET", 0,
	  "these NUMA nodes (a list, or all), each left with --to (default: every node)", 0 },
	{ "spread", OPT_SPREAD, NULL, 0, "split --to evenly over the nodes", 0 },
	{ "to", OPT_TO, "COUNT", 0, "the pages to keep (default 0), or an amount such as 1GiB",
	  0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the counts it would set, change nothing", 0 },
	{ 0 }
};

static error_t pages_parse(int key, char *arg, struct argp_state *state)
{
	struct pages_args *a = state->input;

	switch (key) {
	case OPT_NODE:
		a->node = arg;
		break;
	case OPT_SPREAD:
		a->spread = true;
		break;
	case OPT_NO_COMPACT:
		a->no_compact = true;
		break;
	case OPT_ALLOW_PARTIAL:
		a->allow_partial = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_TO:
		a->count = arg;
		break;
	case ARGP_KEY_ARG:
		if (!a->size)
			a->size = arg;
		else if (!a->release && !a->count)
			a->count = arg;
		else
			argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->c->out.list_columns)
			break;
		if (!a->size)
			argp_error(state, "missing SIZE");
		if (!a->release && !a->count)
			argp_error(state, "missing COUNT or AMOUNT");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Fill T[0..n) for the nodes WHICH: what each should end with, PAGES (parsed from a->count) in
 * total or each, added to what the node has when RELATIVE. Exit status or 0. */
static int targets(const struct rm_hugepages *hp, const struct pages_args *a, size_t size,
		   const size_t *which, size_t n, uint64_t pages, bool relative,
		   struct rm_hp_target *t)
{
	uint64_t *each = xcalloc(n, sizeof(uint64_t));
	char *msg = NULL;
	int status = 0;

	for (size_t i = 0; i < n; i++) {
		t[i].size = size;
		t[i].node = which[i];
	}
	if (!a->node || a->spread)
		rm_hugepages_spread(pages, n, each);
	else
		for (size_t i = 0; i < n; i++)
			each[i] = pages;
	if (rm_hugepages_prepare(hp, t, n, &msg) < 0) {
		rm_warnx("%s", msg);
		free(msg);
		free(each);
		return RM_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n && !status; i++) {
		char *ps = rm_size_format(hp->sizes[size]);

		if (relative && each[i] > UINT64_MAX / hp->sizes[size] - t[i].before) {
			rm_warnx("count too large: '%s'", a->count);
			status = RM_EXIT_USAGE;
		}
		t[i].want = relative ? t[i].before + each[i] : each[i];
		if (!status && a->release && t[i].want > t[i].before) {
			rm_warnx("release would add pages on node %u (it has %" PRIu64 " of %s, --to asks "
			       "%" PRIu64 "): '%s' (use reserve)", hp->nodes[t[i].node].id,
			       t[i].before, ps, t[i].want, a->count);
			status = RM_EXIT_USAGE;
		}
		free(ps);
	}
	free(each);
	return status;
}

/* Mark the commit when a pool changed: "reserved 2MiB pages (node 0: 4, node 1: 4)", the
 * persistent pages each node of T holds now. */
static void commit_targets(const struct rm_hugepages *hp, const struct pages_args *a,
			   const struct rm_hp_target *t, size_t n)
{
	char *list = xstrdup(""), *ps;
	bool changed = false;

	for (size_t i = 0; i < n; i++) {
		char *m = xasprintf("%s%snode %u: %" PRIu64, list, i ? ", " : "",
				    hp->nodes[t[i].node].id, t[i].got);

		free(list);
		list = m;
		changed |= t[i].got != t[i].before;
	}
	if (changed) {
		ps = rm_size_format(hp->sizes[t[0].size]);
		rm_committed("%s %s pages (%s)", a->release ? "released" : "reserved", ps, list);
		free(ps);
	}
	free(list);
}

/* Whether rm_hugepages_set left every pool of T as it was (after a failure it undid). */
static bool all_restored(const struct rm_hp_target *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].written)
			return false;
	return true;
}

static void print_targets(const struct rm_common *c, const struct rm_hugepages *hp,
			  const struct rm_hp_target *t, size_t n, bool planned)
{
	struct rm_out *out = rm_out_new(&c->out, "pages", size_cols, size_ncols, size_defaults,
					true);

	for (size_t i = 0; i < n; i++) {
		struct rm_hp_counts cnt;
		char *msg = NULL;

		if (!planned && hp_read_node(hp, t[i].size, t[i].node, &cnt, &msg) == 0) {
			hp_print_size(out, hp, t[i].size, t[i].node, &cnt, 0);
		} else {
			free(msg);
			hp_print_size(out, hp, t[i].size, t[i].node, NULL, planned ? t[i].want
										 : t[i].got);
		}
	}
	rm_out_close(out);
	rm_out_flush();
}

static int pages_run(struct pages_args *a, struct rm_common *c)
{
	const char *verb = a->release ? "releasing" : "reserving";
	struct rm_hugepages hp;
	struct rm_hp_target *t = NULL;
	size_t size, *which = NULL;
	char *msg = NULL, *path = NULL;
	const char *root;
	uint64_t pages = 0;
	bool relative = false;
	int status = RM_EXIT_SUCCESS, lock = -1, rc;
	long n;

	/* parse and check everything, -o included, before the lock */
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, size_cols, size_ncols, size_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, size_cols, size_ncols, size_defaults);
	root = hp_sysroot(c);
	hp_open(&hp, root);
	if (rm_hugepages_parse_size(&hp, a->size, &size, &msg) < 0 ||
	    (n = hp_nodes(&hp, a->node, size, &which, &msg)) < 0 ||
	    (a->count && rm_hugepages_parse_count(a->count, hp.sizes[size], &pages, &relative,
						  &msg) < 0)) {
		rm_warnx("%s", msg);
		status = RM_EXIT_USAGE;
		goto out;
	}
	/* changes of this machine are serialised; a test tree is the test's own */
	if (!a->dry_run && !root)
		lock = hp_lock();
	/* plan: the counts each node ends with */
	t = xcalloc((size_t)n, sizeof(*t));
	if ((status = targets(&hp, a, size, which, (size_t)n, pages, relative, t)))
		goto out;
	if (rm_hugepages_check_memory(&hp, t, (size_t)n, &msg)) {
		rm_warnx("%s; nothing changed", msg);
		status = RM_EXIT_NORESOURCE;
		goto out;
	}
	if (a->dry_run) {
		print_targets(c, &hp, t, (size_t)n, true);
		goto out;
	}
	if (rm_hugepages_check_writable(&hp, t, (size_t)n, &path) < 0) {
		if (hp_permission_error(errno))
			rm_warnx("%s needs root", verb);
		else
			rm_warnx("cannot write %s: %s", path, strerror(errno));
		status = RM_EXIT_FAILURE;
		goto out;
	}
	/* apply, undone by rm_hugepages_set on a failure (and on a shortfall, unless kept) */
	struct rm_hp_set_opts opts = {
		.retries = RM_HP_RETRIES, .compact = !a->no_compact, .keep_partial = a->allow_partial,
	};
	rc = rm_hugepages_set(&hp, t, (size_t)n, &opts, &msg);
	if (rc == RM_HP_SET_SHORT && a->allow_partial) {
		/* what was obtained is kept: a change, so not 3 once anything was */
		commit_targets(&hp, a, t, (size_t)n);
		print_targets(c, &hp, t, (size_t)n, false);
		hp_failx("%s; keeping what was obtained", msg);
		status = RM_EXIT_NORESOURCE;
	} else if (rc == RM_HP_SET_SHORT) {
		rm_warnx("%s; every node is back to its previous count", msg);
		status = RM_EXIT_NORESOURCE;
	} else if (rc < 0) {
		rm_warnx("%s%s", msg, all_restored(t, (size_t)n)
			 ? "; every node is back to its previous count" : "");
		status = RM_EXIT_FAILURE;
	} else {
		commit_targets(&hp, a, t, (size_t)n);
		print_targets(c, &hp, t, (size_t)n, false);
	}
out:
	hp_unlock(lock);
	free(msg);
	free(path);
	free(t);
	free(which);
	rm_hugepages_close(&hp);
	return status;
}

int cmd_reserve(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		reserve_options, pages_parse, "SIZE COUNT|AMOUNT",
		"Set the pages of SIZE (2M, 1G, ...) so that each node ends with COUNT pages, or "
		"AMOUNT of memory (8GiB): the count asked is the count the node ends with; +COUNT "
		"adds. Without --node, COUNT is the total, spread over every node that offers SIZE. "
		"Every write is read back; a short one is retried (after compacting memory), and if "
		"the kernel still gives too few pages every node is put back as it was (exit status "
		"3).",
		NULL, NULL, NULL
	};
	struct pages_args a = { .c = c };

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	return pages_run(&a, c);
}

int cmd_release(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		release_options, pages_parse, "SIZE",
		"Give the pages of SIZE back to the kernel: every node (or the --node SET) keeps "
		"none, or --to COUNT. Pages in use stay until they are freed (as surplus).",
		NULL, NULL, NULL
	};
	struct pages_args a = { .c = c, .release = true };

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	return pages_run(&a, c);
}
