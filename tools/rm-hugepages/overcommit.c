/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages overcommit: the surplus pages of one size the kernel may add on demand. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "rm-hugepages.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

enum { OPT_DRY_RUN = 0x200 };

static const struct argp_option overcommit_options[] = {
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "print the pool as it would be, change nothing", 0 },
	{ 0 }
};

struct overcommit_args {
	struct rm_common *c;
	const char *size, *count;
	bool dry_run;
};

static error_t overcommit_parse(int key, char *arg, struct argp_state *state)
{
	struct overcommit_args *a = state->input;

	switch (key) {
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->size)
			a->size = arg;
		else if (!a->count)
			a->count = arg;
		else
			argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->c->out.list_columns)
			break;
		if (!a->size)
			argp_error(state, "missing SIZE");
		if (!a->count)
			argp_error(state, "missing COUNT or AMOUNT");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_overcommit(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		overcommit_options, overcommit_parse, "SIZE COUNT|AMOUNT",
		"Let the kernel add up to COUNT surplus pages of SIZE (or AMOUNT of memory) beyond "
		"the persistent ones when mappings ask for them, and give them back when they are "
		"freed (nr_overcommit_hugepages; one value per size, the kernel keeps none per "
		"node); +COUNT adds, 0 stops it. The value is read back. Gigantic pages (1G on x86) "
		"cannot be overcommitted (exit status 2).",
		NULL, NULL, NULL
	};
	struct overcommit_args a = { .c = c };
	struct rm_hugepages hp;
	struct rm_hp_counts g;
	struct rm_out *out;
	const char *root;
	char *msg = NULL, *rel = NULL, *full = NULL, *ps = NULL;
	uint64_t pages = 0, got, before;
	bool relative = false;
	size_t size;
	int status = RM_EXIT_SUCCESS, lock = -1, rc;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	/* parse and check everything, -o included, before the lock */
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, pool_cols, pool_ncols, NULL);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, pool_cols, pool_ncols, NULL);
	root = hp_sysroot(c);
	hp_open(&hp, root);
	if (rm_hugepages_parse_size(&hp, a.size, &size, &msg) < 0)
		goto usage;
	if (rm_hugepages_gigantic(&hp, size)) {
		msg = hp_gigantic_msg(&hp, size, a.size);
		goto usage;
	}
	if (rm_hugepages_parse_count(a.count, hp.sizes[size], &pages, &relative, &msg) < 0)
		goto usage;
	/* changes of this machine are serialised; a test tree is the test's own */
	if (!a.dry_run && !root)
		lock = hp_lock();
	/* plan: the value it ends with */
	if (rm_hugepages_read_pool(&hp, size, &g, &msg) < 0 ||
	    rm_hugepages_read_overcommit(&hp, size, &g.overcommit, &msg) < 0)
		goto fail;
	g.have_overcommit = true;
	before = g.overcommit;
	if (relative) {
		uint64_t most = UINT64_MAX / hp.sizes[size];

		if (g.overcommit > most || pages > most - g.overcommit) {
			msg = xasprintf("count too large: '%s'", a.count);
			goto usage;
		}
		pages += g.overcommit;
	}
	if (a.dry_run) {
		g.overcommit = pages;
		goto print;
	}
	if (pages != g.overcommit) {
		rel = rm_hugepages_node_file(&hp, size, SIZE_MAX, "nr_overcommit_hugepages");
		full = rm_sysfs_path(hp.sysroot, rel);
		if (access(full, W_OK) < 0) {
			if (hp_permission_error(errno))
				msg = xstrdup("setting the overcommit needs root");
			else
				msg = xasprintf("cannot write %s: %s", full, strerror(errno));
			goto fail;
		}
		/* apply: written, read back, the value before written back when it reads wrong */
		rc = rm_hugepages_set_overcommit(&hp, size, pages, &got, &msg);
		if (rc == -2) {
			/* the kernel's word on a size found not gigantic above */
			free(msg);
			msg = hp_gigantic_msg(&hp, size, a.size);
			goto usage;
		}
		if (rc < 0) {
			char *m;

			ps = rm_size_format(hp.sizes[size]);
			m = got == before ? xasprintf("%s; nothing changed", msg)
			    : got == UINT64_MAX
				? xasprintf("%s; the overcommit of %s pages cannot be read back", msg, ps)
				: xasprintf("%s; the overcommit of %s pages stands at %" PRIu64, msg, ps,
					    got);
			free(msg);
			msg = m;
			goto fail;
		}
		ps = rm_size_format(hp.sizes[size]);
		rm_committed("set the overcommit of %s pages to %" PRIu64, ps, pages);
	}
	/* report */
	if (rm_hugepages_read_pool(&hp, size, &g, &msg) < 0) {
		hp_failx("%s", msg);
		status = RM_EXIT_FAILURE;
		goto out;
	}
print:
	out = rm_out_new(&c->out, "pools", pool_cols, pool_ncols, NULL, true);
	hp_print_pool(out, &hp, size, &g);
	rm_out_close(out);
	rm_out_flush();
	goto out;
usage:
	status = RM_EXIT_USAGE;
	rm_warnx("%s", msg);
	goto out;
fail:
	status = RM_EXIT_FAILURE;
	rm_warnx("%s", msg);
out:
	hp_unlock(lock);
	free(msg);
	free(rel);
	free(full);
	free(ps);
	rm_hugepages_close(&hp);
	return status;
}
