/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages limit: an owner's hugetlb cgroup limits, below the rmtools parent. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "hugetlb.h"
#include "rm-hugepages.h"
#include "size.h"
#include "state.h"
#include "xalloc.h"

enum { LM_OWNER, LM_SIZE, LM_LIMIT, LM_RSVD_LIMIT, LM_USAGE, LM_RSVD_USAGE, LM_CGROUP };
const struct rm_column limit_cols[] = {
	[LM_OWNER] = { "owner", RM_COL_STRING, "the owner's name" },
	[LM_SIZE] = { "size", RM_COL_SIZE, "the page size" },
	[LM_LIMIT] = { "limit", RM_COL_STRING,
		       "the most memory its page faults may take (SIGBUS beyond), or max" },
	[LM_RSVD_LIMIT] = { "rsvd_limit", RM_COL_STRING,
			    "the most memory it may reserve (mmap fails beyond), or max" },
	[LM_USAGE] = { "usage", RM_COL_SIZE, "the memory of its pages in use" },
	[LM_RSVD_USAGE] = { "rsvd_usage", RM_COL_SIZE, "the memory it has reserved" },
	[LM_CGROUP] = { "cgroup", RM_COL_STRING, "its cgroup directory" },
};
const size_t limit_ncols = ARRAY_SIZE(limit_cols);

enum { OPT_REMOVE = 0x200, OPT_DRY_RUN };

static const struct argp_option limit_options[] = {
	{ "remove", OPT_REMOVE, NULL, 0,
	  "remove the owner's limits (and its cgroup, unless it is rm-cpuset's)", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the limit it would set, change nothing", 0 },
	{ 0 }
};

struct limit_args {
	struct rm_common *c;
	const char *owner, *size, *amount;
	bool remove, dry_run;
};

static error_t limit_parse(int key, char *arg, struct argp_state *state)
{
	struct limit_args *a = state->input;

	switch (key) {
	case OPT_REMOVE:
		a->remove = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->owner)
			a->owner = arg;
		else if (!a->size)
			a->size = arg;
		else if (!a->amount)
			a->amount = arg;
		else
			argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->c->out.list_columns)
			break;
		if (a->size && !a->amount)
			argp_error(state, "missing COUNT, AMOUNT or max after SIZE");
		if (a->remove && (!a->owner || a->size))
			argp_error(state, "--remove takes an OWNER alone");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void hp_print_limit(struct rm_out *out, const struct rm_outopts *o, const char *owner,
		    uint64_t size, const struct rm_hugetlb_limit *l, const char *cgroup)
{
	char *v;

	rm_out_begin(out);
	rm_out_str(out, LM_OWNER, owner);
	rm_out_size(out, LM_SIZE, size);
	v = l->limited ? hp_size_text(o, l->limit) : xstrdup("max");
	rm_out_str(out, LM_LIMIT, v);
	free(v);
	if (l->have_rsvd) {
		v = l->rsvd_limited ? hp_size_text(o, l->rsvd_limit) : xstrdup("max");
		rm_out_str(out, LM_RSVD_LIMIT, v);
		free(v);
		rm_out_size(out, LM_RSVD_USAGE, l->rsvd_usage);
	}
	rm_out_size(out, LM_USAGE, l->usage);
	rm_out_str(out, LM_CGROUP, cgroup);
	rm_out_end(out);
}

int hp_print_owner(struct rm_out *out, const struct rm_outopts *o, const struct rm_hugetlb *h,
		   const struct rm_hugepages *hp, const char *owner, size_t only, char **errmsg)
{
	char *dir = rm_hugetlb_path(h, owner);
	int rc = 0;

	for (size_t s = 0; s < hp->nsizes && rc >= 0; s++) {
		struct rm_hugetlb_limit l;

		if (only != SIZE_MAX && s != only)
			continue;
		rc = rm_hugetlb_read(h, owner, hp->sizes[s], &l, errmsg);
		if (rc > 0)
			hp_print_limit(out, o, owner, hp->sizes[s], &l, dir);
	}
	free(dir);
	return rc < 0 ? -1 : 0;
}

/* Mark the commit of OWNER's limit of pages of SIZE: PAGES of them, or none when not LIMITED. */
static void commit_limit(const struct rm_hugepages *hp, const char *owner, size_t size,
			 bool limited, uint64_t pages)
{
	char *ps = rm_size_format(hp->sizes[size]);
	char *amount = limited ? rm_size_format(pages * hp->sizes[size]) : xstrdup("max");

	rm_committed("set the %s hugetlb limit of owner '%s' to %s", ps, owner, amount);
	free(amount);
	free(ps);
}

int cmd_limit(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		limit_options, limit_parse, "[OWNER [SIZE COUNT|AMOUNT|max]]",
		"Limit the huge pages of SIZE an owner's processes may take, with the hugetlb "
		"cgroup of the owner below the rmtools parent (both the page fault limit and, where "
		"the kernel has it, the reservation limit). Processes started by 'rm-cpuset run "
		"--owner OWNER' join it. Without SIZE, print the owner's limits; without OWNER, "
		"every owner's.",
		NULL, NULL, NULL
	};
	struct limit_args a = { .c = c };
	struct rm_hugepages hp;
	struct rm_hugetlb h = { 0 };
	struct rm_out *out = NULL;
	size_t size = SIZE_MAX;
	uint64_t pages = 0;
	bool relative = false, limited = true;
	char *msg = NULL, **names = NULL;
	int status = RM_EXIT_SUCCESS, rc, n = 0, lock = -1;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	/* parse and check everything, -o included, before the lock */
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, limit_cols, limit_ncols, NULL);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, limit_cols, limit_ncols, NULL);
	hp_open(&hp, hp_sysroot(c));
	if (a.owner && !rm_owner_name_valid(a.owner)) {
		rm_warnx("invalid owner name: '%s'%s", a.owner,
		       rm_name_valid(a.owner) ? " names rm-cpuset's shared pool" : "");
		rm_hugepages_close(&hp);
		return RM_EXIT_USAGE;
	}
	if (a.size && rm_hugepages_parse_size(&hp, a.size, &size, &msg) < 0)
		goto usage;
	if (a.amount) {
		if (!strcmp(a.amount, "max"))
			limited = false;
		else if (rm_hugepages_parse_count(a.amount, hp.sizes[size], &pages, &relative,
						  &msg) < 0)
			goto usage;
		if (relative) {
			msg = xasprintf("invalid limit (a count, an amount or max): '%s'", a.amount);
			goto usage;
		}
	}
	if (rm_hugetlb_open(&h, &msg) < 0) {
		rm_warnx("%s", msg);
		free(msg);
		rm_hugepages_close(&hp);
		return RM_EXIT_FAILURE;
	}
#define OUT() (out ? out : (out = rm_out_new(&c->out, "limits", limit_cols, \
						    limit_ncols, NULL, true)))
	if (!a.owner) {
		if ((n = rm_hugetlb_owners(&h, &names, &msg)) < 0) {
			n = 0;
			goto fail;
		}
		for (int i = 0; i < n; i++)
			if (hp_print_owner(OUT(), &c->out, &h, &hp, names[i], SIZE_MAX, &msg) < 0)
				goto fail;
		goto done;
	}
	if (!a.amount && !a.remove) {
		char *dir = rm_hugetlb_path(&h, a.owner);

		if (access(dir, F_OK) < 0) {
			msg = xasprintf("no hugetlb cgroup for owner: '%s'", a.owner);
			free(dir);
			goto usage;
		}
		free(dir);
		if (hp_print_owner(OUT(), &c->out, &h, &hp, a.owner, SIZE_MAX, &msg) < 0)
			goto fail;
		goto done;
	}
	/* the dry run refuses an owner as the run would */
	if (!a.remove && rm_hugetlb_check(&h, a.owner, &msg) < 0)
		goto usage;
	if (a.dry_run) {
		if (!a.remove) {
			struct rm_hugetlb_limit l = {
				.limited = limited, .limit = pages * hp.sizes[size], .have_rsvd = true,
				.rsvd_limited = limited, .rsvd_limit = pages * hp.sizes[size],
			};
			char *dir = rm_hugetlb_path(&h, a.owner);

			hp_print_limit(OUT(), &c->out, a.owner, hp.sizes[size], &l, dir);
			free(dir);
		}
		goto done;
	}
	if (geteuid() != 0 && access(h.mount, W_OK) < 0 && hp_permission_error(errno)) {
		rm_warnx("setting limits needs root");
		status = RM_EXIT_FAILURE;
		goto done;
	}
	lock = hp_lock();
	if (a.remove) {
		char *dir = rm_hugetlb_path(&h, a.owner);
		bool had = access(dir, F_OK) == 0;

		/* its cgroup gone is the change, even when removing the empty parent fails */
		rc = rm_hugetlb_remove(&h, a.owner, hp.sizes, hp.nsizes, &msg);
		if (had && (rc == 0 || (!h.cpuset && access(dir, F_OK) < 0)))
			rm_committed("removed the hugetlb limits of owner '%s'", a.owner);
		free(dir);
		if (rc < 0)
			goto fail;
		goto done;
	}
	/* apply: rm_hugetlb_set undoes what it did on a failure */
	rc = rm_hugetlb_set(&h, a.owner, hp.sizes[size], limited, pages * hp.sizes[size], &msg);
	if (rc == -2)
		goto usage;
	if (rc < 0)
		goto fail;
	commit_limit(&hp, a.owner, size, limited, pages);
	/* report */
	if (hp_print_owner(OUT(), &c->out, &h, &hp, a.owner, size, &msg) < 0)
		goto fail;
	goto done;
usage:
	hp_failx("%s", msg);
	status = RM_EXIT_USAGE;
	goto done;
fail:
	hp_failx("%s", msg);
	status = RM_EXIT_FAILURE;
done:
	hp_unlock(lock);
	if (status == RM_EXIT_SUCCESS)
		OUT();
	rm_out_close(out);
	rm_out_flush();
	if (h.mount)
		rm_hugetlb_close(&h);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(msg);
	rm_hugepages_close(&hp);
	return status;
}
