/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the cgroup module from the shell: find the hierarchy, sync children, attach, read back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "cgroup-cpuset.h"
#include "cpulist.h"
#include "exitcodes.h"

static const char *usage =
	"usage: test-cgroup info\n"
	"       test-cgroup sync [NAME=CPUS/MEMS[/isolate][/keep:CPUS]...]\n"
	"       test-cgroup attach NAME PID\n"
	"       test-cgroup read NAME        (exit 3 when absent)\n"
	"       test-cgroup path NAME\n"
	"       test-cgroup children\n"
	"       test-cgroup remove-parent\n";

static char *fmt(hwloc_const_bitmap_t set)
{
	return rm_cpulist_format(set);
}

/* NAME=CPUS/MEMS[/isolate][/keep:CPUS] into W; the bitmaps are allocated. */
static int parse_want(char *arg, struct rm_cgroup_want *w)
{
	char *eq = strchr(arg, '='), *cpus, *mems, *flag, *next, *msg = NULL;
	hwloc_bitmap_t c = hwloc_bitmap_alloc(), m = hwloc_bitmap_alloc();

	w->cpus = c;
	w->mems = m;
	if (!eq)
		return -1;
	*eq = '\0';
	w->name = arg;
	cpus = eq + 1;
	if (!(mems = strchr(cpus, '/')))
		return -1;
	*mems++ = '\0';
	for (flag = strchr(mems, '/'); flag; flag = next) {
		*flag++ = '\0';
		if ((next = strchr(flag, '/')))
			*next = '\0';
		if (!strcmp(flag, "isolate")) {
			w->isolate = true;
		} else if (!strncmp(flag, "keep:", 5) && !w->keep) {
			hwloc_bitmap_t k = hwloc_bitmap_alloc();

			w->keep = k;
			if (rm_cpulist_parse_list(flag + 5, k, &msg) < 0) {
				fprintf(stderr, "test-cgroup: %s\n", msg);
				free(msg);
				return -1;
			}
		} else {
			return -1;
		}
		if (next)
			*next = '/';
	}
	if (rm_cpulist_parse_list(cpus, c, &msg) < 0 || rm_cpulist_parse_list(mems, m, &msg) < 0) {
		fprintf(stderr, "test-cgroup: %s\n", msg);
		free(msg);
		return -1;
	}
	return 0;
}

static int cmd_sync(struct rm_cgroups *cg, int argc, char **argv, char **msg)
{
	size_t n = (size_t)argc;
	struct rm_cgroup_want *want = calloc(n ? n : 1, sizeof(*want));
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		if (parse_want(argv[i], &want[i]) < 0) {
			fputs(usage, stderr);
			rc = -2;
		}
	if (rc == 0)
		rc = rm_cgroups_sync(cg, want, n, msg);
	for (size_t i = 0; i < n; i++) {
		if (want[i].cpus)
			hwloc_bitmap_free((hwloc_bitmap_t)want[i].cpus);
		if (want[i].mems)
			hwloc_bitmap_free((hwloc_bitmap_t)want[i].mems);
		if (want[i].keep)
			hwloc_bitmap_free((hwloc_bitmap_t)want[i].keep);
	}
	free(want);
	return rc;
}

int main(int argc, char **argv)
{
	struct rm_cgroups cg;
	char *msg = NULL, *a, *b;
	int rc = 0;

	if (argc < 2) {
		fputs(usage, stderr);
		return RM_EXIT_USAGE;
	}
	if (rm_cgroups_open(&cg, &msg) < 0) {
		fprintf(stderr, "test-cgroup: %s\n", msg);
		free(msg);
		return RM_EXIT_FAILURE;
	}
	if (!strcmp(argv[1], "info") && argc == 2) {
		a = fmt(cg.cpus);
		b = fmt(cg.mems);
		printf("version=%d mount=%s parent=%s cpus=%s mems=%s partitions=%s\n", cg.version,
		       cg.mount, cg.parent, *a ? a : "\"\"", *b ? b : "\"\"",
		       cg.partitions == RM_PARTITIONS_REMOTE ? "yes" :
		       cg.partitions == RM_PARTITIONS_ROOT ? "root" : "no");
		free(a);
		free(b);
	} else if (!strcmp(argv[1], "sync")) {
		rc = cmd_sync(&cg, argc - 2, argv + 2, &msg);
	} else if (!strcmp(argv[1], "attach") && argc == 4) {
		rc = rm_cgroups_attach(&cg, argv[2], (pid_t)atoi(argv[3]), &msg);
	} else if (!strcmp(argv[1], "read") && argc == 3) {
		hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), mems = hwloc_bitmap_alloc();
		bool iso;

		rc = rm_cgroups_read(&cg, argv[2], cpus, mems, &iso, &msg);
		if (rc == 1) {
			a = fmt(cpus);
			b = fmt(mems);
			printf("cgroup=%s cpus=%s mems=%s isolated=%s\n", argv[2], *a ? a : "\"\"",
			       *b ? b : "\"\"", iso ? "yes" : "no");
			free(a);
			free(b);
			rc = 0;
		} else if (rc == 0) {
			rc = -3;
		}
		hwloc_bitmap_free(cpus);
		hwloc_bitmap_free(mems);
	} else if (!strcmp(argv[1], "path") && argc == 3) {
		a = rm_cgroups_path(&cg, argv[2]);
		puts(a);
		free(a);
	} else if (!strcmp(argv[1], "children") && argc == 2) {
		char **names;
		int n = rm_cgroups_children(&cg, &names, &msg);

		for (int i = 0; i < n; i++) {
			puts(names[i]);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		rc = n < 0 ? -1 : 0;
	} else if (!strcmp(argv[1], "remove-parent") && argc == 2) {
		rc = rm_cgroups_remove_parent(&cg, &msg);
	} else {
		fputs(usage, stderr);
		rc = -2;
	}
	if (msg)
		fprintf(stderr, "test-cgroup: %s\n", msg);
	free(msg);
	rm_cgroups_close(&cg);
	return rc == -2 ? RM_EXIT_USAGE : rc == -3 ? RM_EXIT_NORESOURCE : rc < 0 ? RM_EXIT_FAILURE : 0;
}
