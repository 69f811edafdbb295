/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages show: the pools per page size and NUMA node, per size, the mounts and THP. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "rm-hugepages.h"
#include "sysfs.h"
#include "xalloc.h"

enum { TH_THP, TH_DEFRAG, TH_SHMEM };
static const struct rm_column thp_cols[] = {
	[TH_THP] = { "thp", RM_COL_STRING, "transparent huge pages: always, madvise or never" },
	[TH_DEFRAG] = { "defrag", RM_COL_STRING, "when page faults compact memory for them" },
	[TH_SHMEM] = { "shmem", RM_COL_STRING, "transparent huge pages for shmem and tmpfs" },
};

static error_t no_args_parse(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_ARG)
		argp_error(state, "unexpected argument: '%s'", arg);
	return ARGP_ERR_UNKNOWN;
}

/* The [chosen] word of a THP setting file, allocated; NULL when absent. */
static char *thp_choice(const char *root, const char *file)
{
	char *rel = xasprintf("sys/kernel/mm/transparent_hugepage/%s", file);
	char *text = rm_sysfs_read(root, rel), *open, *close, *v = NULL;

	free(rel);
	if (!text)
		return NULL;
	if ((open = strchr(text, '[')) && (close = strchr(open, ']')))
		v = xasprintf("%.*s", (int)(close - open - 1), open + 1);
	free(text);
	return v;
}

int cmd_show(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, no_args_parse, NULL,
		"Show the huge page pools: one record per page size and NUMA node (every size the "
		"kernel offers, also with no pages), one per page size with the global pool, one "
		"per hugetlbfs mount, and the transparent huge page settings. -o applies to the "
		"first.",
		NULL, NULL, NULL
	};
	struct rm_hugepages hp;
	struct rm_outopts other;
	struct rm_hp_mount *mounts = NULL;
	struct rm_out *out;
	const char *root;
	char *msg = NULL, *v;
	long nmounts;
	int status = RM_EXIT_SUCCESS;

	rm_parse_command(&argp, argc, argv, c, NULL, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, size_cols, size_ncols, size_defaults);
		return RM_EXIT_SUCCESS;
	}
	root = hp_sysroot(c);
	hp_open(&hp, root);
	nmounts = rm_hugepages_mounts(root, hp.default_size, &mounts, &msg);
	if (nmounts < 0) {
		rm_warnx("%s", msg);
		free(msg);
		rm_hugepages_close(&hp);
		return RM_EXIT_FAILURE;
	}

	out = rm_out_new(&c->out, "pages", size_cols, size_ncols, size_defaults, true);
	for (size_t s = 0; s < hp.nsizes && status == 0; s++) {
		for (size_t n = 0; n < hp.nnodes && status == 0; n++) {
			struct rm_hp_counts cnt;

			if (!hp.nodes[n].offers[s])
				continue;
			if (hp_read_node(&hp, s, n, &cnt, &msg) < 0) {
				status = RM_EXIT_FAILURE;
				break;
			}
			hp_print_size(out, &hp, s, n, &cnt, 0);
		}
	}
	rm_out_close(out);

	other = c->out;
	other.columns = NULL;
	out = rm_out_new(&other, "pools", pool_cols, pool_ncols, NULL, false);
	for (size_t s = 0; s < hp.nsizes && status == 0; s++) {
		struct rm_hp_counts g;

		if (rm_hugepages_read_pool(&hp, s, &g, &msg) < 0) {
			status = RM_EXIT_FAILURE;
			break;
		}
		hp_print_pool(out, &hp, s, &g);
	}
	rm_out_close(out);

	out = rm_out_new(&other, "mounts", mount_cols, mount_ncols, mount_defaults, false);
	for (long i = 0; i < nmounts && status == 0; i++)
		if (!strcmp(mounts[i].fstype, "hugetlbfs"))
			hp_print_mount(out, &other, &mounts[i]);
	rm_out_close(out);

	out = rm_out_new(&other, "thp", thp_cols, ARRAY_SIZE(thp_cols), NULL, false);
	if (status == 0 && rm_sysfs_exists(root, "sys/kernel/mm/transparent_hugepage")) {
		rm_out_begin(out);
		rm_out_str(out, TH_THP, v = thp_choice(root, "enabled"));
		free(v);
		rm_out_str(out, TH_DEFRAG, v = thp_choice(root, "defrag"));
		free(v);
		rm_out_str(out, TH_SHMEM, v = thp_choice(root, "shmem_enabled"));
		free(v);
		rm_out_end(out);
	}
	rm_out_close(out);
	rm_out_flush();
	if (status) {
		rm_warnx("%s", msg);
		free(msg);
	}
	rm_hugepages_mounts_free(mounts, (size_t)(nmounts > 0 ? nmounts : 0));
	rm_hugepages_close(&hp);
	return status;
}
