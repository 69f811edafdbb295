/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line filter over libcommon/cpualloc.c, driven by tests/cpualloc.bats. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpualloc.h"
#include "cpulist.h"
#include "exitcodes.h"

static void usage(void)
{
	fputs("usage: test-cpualloc --topology SYNTHETIC|XML [--available SET] [--reserved SET]\n"
	      "         [--reserve-count N] [--hint NODES] [--provider NODES] [--policy POLICY] [--option NAME[=BOOL]]\n"
	      "         [--full-pcpus-only] [--distribute-cpus-across-numa] [--align-by-socket]\n"
	      "         [--distribute-cpus-across-cores] [--prefer-align-cpus-by-uncorecache]\n"
	      "         take|allocate|hint|reserve COUNT | check | info\n", stderr);
	exit(RM_EXIT_USAGE);
}

static int status(int rc)
{
	return rc == RM_CPUALLOC_EINVAL ? RM_EXIT_USAGE :
	       rc == RM_CPUALLOC_ENOSPC ? RM_EXIT_NORESOURCE : RM_EXIT_FAILURE;
}

static void fail(int rc, char *msg)
{
	fprintf(stderr, "test-cpualloc: %s\n", msg);
	free(msg);
	exit(status(rc));
}

static void parse_set(const char *str, hwloc_bitmap_t *set)
{
	char *msg = NULL;

	*set = hwloc_bitmap_alloc();
	if (rm_cpulist_parse(str, *set, &msg))
		fail(RM_CPUALLOC_EINVAL, msg);
}

static void print_set(hwloc_const_bitmap_t set)
{
	char *s = rm_cpulist_format(set);

	puts(s);
	free(s);
}

static hwloc_topology_t load(const char *spec)
{
	hwloc_topology_t topo;
	struct stat st;
	int bad;

	if (hwloc_topology_init(&topo) < 0) {
		fputs("test-cpualloc: cannot initialize hwloc\n", stderr);
		exit(RM_EXIT_FAILURE);
	}
	if (stat(spec, &st) == 0)
		bad = hwloc_topology_set_xml(topo, spec) < 0;
	else
		bad = hwloc_topology_set_synthetic(topo, spec) < 0;
	if (bad || hwloc_topology_load(topo) < 0) {
		fprintf(stderr, "test-cpualloc: invalid topology: '%s'\n", spec);
		exit(RM_EXIT_USAGE);
	}
	return topo;
}

int main(int argc, char **argv)
{
	enum { O_TOPO = 0x100, O_AVAIL, O_RESV, O_RESV_COUNT, O_HINT, O_PROVIDER, O_POLICY, O_OPTION };
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, O_TOPO },
		{ "available", required_argument, NULL, O_AVAIL },
		{ "reserved", required_argument, NULL, O_RESV },
		{ "reserve-count", required_argument, NULL, O_RESV_COUNT },
		{ "hint", required_argument, NULL, O_HINT },
		{ "provider", required_argument, NULL, O_PROVIDER },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "option", required_argument, NULL, O_OPTION },
		{ "full-pcpus-only", no_argument, NULL, 'f' },
		{ "distribute-cpus-across-numa", no_argument, NULL, 'n' },
		{ "align-by-socket", no_argument, NULL, 's' },
		{ "distribute-cpus-across-cores", no_argument, NULL, 'c' },
		{ "prefer-align-cpus-by-uncorecache", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	struct rm_cpualloc_opts opts = { 0 };
	hwloc_bitmap_t avail = NULL, resv = NULL, hint = NULL, provider = NULL, result;
	const char *spec = NULL, *cmd;
	enum rm_tm_policy policy = RM_TM_NONE;
	bool have_policy = false;
	long resv_count = -1;
	unsigned long count = 0;
	struct rm_cputopo *t;
	hwloc_topology_t topo;
	char *msg = NULL, *end;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_TOPO:
			spec = optarg;
			break;
		case O_AVAIL:
			parse_set(optarg, &avail);
			break;
		case O_RESV:
			parse_set(optarg, &resv);
			break;
		case O_RESV_COUNT:
			resv_count = strtol(optarg, &end, 10);
			if (*end || resv_count < 0)
				usage();
			break;
		case O_HINT:
			parse_set(optarg, &hint);
			break;
		case O_PROVIDER:
			parse_set(optarg, &provider);
			break;
		case O_POLICY:
			if ((c = rm_tm_policy_parse(optarg)) < 0)
				usage();
			policy = c;
			have_policy = true;
			break;
		case O_OPTION:
			if ((rc = rm_cpualloc_opt_parse(&opts, optarg, &msg)))
				fail(rc, msg);
			break;
		case 'f':
			opts.full_pcpus_only = true;
			break;
		case 'n':
			opts.distribute_cpus_across_numa = true;
			break;
		case 's':
			opts.align_by_socket = true;
			break;
		case 'c':
			opts.distribute_cpus_across_cores = true;
			break;
		case 'u':
			opts.prefer_align_cpus_by_uncorecache = true;
			break;
		default:
			usage();
		}
	}
	if (!spec || optind >= argc)
		usage();
	cmd = argv[optind++];
	if (strcmp(cmd, "check") && strcmp(cmd, "info")) {
		if (optind != argc - 1)
			usage();
		count = strtoul(argv[optind], &end, 10);
		if (*end || !*argv[optind] || count > 1000000)
			usage();
	} else if (optind != argc) {
		usage();
	}

	topo = load(spec);
	t = rm_cputopo_new(topo);
	if (!t) {
		fputs("test-cpualloc: the topology has no CPU\n", stderr);
		return RM_EXIT_USAGE;
	}
	result = hwloc_bitmap_alloc();
	if (!avail) {
		avail = hwloc_bitmap_alloc();
		for (unsigned i = 0; i < t->ncpus; i++)
			hwloc_bitmap_set(avail, t->cpu[i]);
	}

	if (!strcmp(cmd, "info")) {
		printf("cpus=%u cores=%u sockets=%u nodes=%u uncore=%u threads_per_core=%u "
		       "cpus_per_socket=%u cpus_per_uncore=%u\n", t->num_cpus, t->num_cores,
		       t->num_sockets, t->num_nodes, t->num_uncore, t->threads_per_core,
		       t->cpus_per_socket, t->cpus_per_uncore);
		for (unsigned i = 0; i < t->ncpus; i++)
			printf("cpu=%d socket=%d node=%d core=%d uncore=%d\n", t->cpu[i], t->socket[i],
			       t->node[i], t->core[i], t->uncore[i]);
		goto out;
	}
	/* the kubelet refuses these at start, whatever is asked after */
	if ((rc = rm_cpualloc_check_opts(t, &opts, policy, &msg)))
		goto bad;
	if (!strcmp(cmd, "check")) {
		puts("ok");
	} else if (!strcmp(cmd, "take")) {
		if ((rc = rm_cpualloc_take(t, avail, count, &opts, result, &msg)))
			goto bad;
		print_set(result);
	} else if (!strcmp(cmd, "reserve")) {
		if ((rc = rm_cpualloc_reserve(t, count, &opts, result, &msg)))
			goto bad;
		print_set(result);
	} else if (!strcmp(cmd, "hint")) {
		bool preferred;

		if (resv)
			hwloc_bitmap_andnot(avail, avail, resv);
		if ((rc = rm_cpualloc_hint(t, avail, count, provider, policy, &opts, result, &preferred,
					   &msg)))
			goto bad;
		if (hwloc_bitmap_iszero(result)) {
			puts("none");
		} else {
			char *s = rm_cpulist_format(result);

			printf("%s %s\n", s, preferred ? "preferred" : "not-preferred");
			free(s);
		}
	} else if (!strcmp(cmd, "allocate")) {
		if (resv_count >= 0) {
			/* the kubelet's automatic reservation, then Allocate */
			if (!resv)
				resv = hwloc_bitmap_alloc();
			if ((rc = rm_cpualloc_reserve(t, resv_count, &opts, resv, &msg)))
				goto bad;
		}
		if (!hint && have_policy) {
			hwloc_bitmap_t usable = hwloc_bitmap_dup(avail);

			hint = hwloc_bitmap_alloc();
			if (resv)
				hwloc_bitmap_andnot(usable, usable, resv);
			rc = rm_cpualloc_hint(t, usable, count, provider, policy, &opts, hint, NULL, &msg);
			hwloc_bitmap_free(usable);
			if (rc)
				goto bad;
		}
		if ((rc = rm_cpualloc_allocate(t, avail, resv, count, &opts, hint, result, &msg)))
			goto bad;
		print_set(result);
	} else {
		usage();
	}
out:
	rm_cputopo_free(t);
	hwloc_topology_destroy(topo);
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(resv);
	hwloc_bitmap_free(hint);
	hwloc_bitmap_free(provider);
	hwloc_bitmap_free(result);
	return fflush(stdout) ? RM_EXIT_FAILURE : 0;
bad:
	rm_cputopo_free(t);
	hwloc_topology_destroy(topo);
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(resv);
	hwloc_bitmap_free(hint);
	hwloc_bitmap_free(provider);
	hwloc_bitmap_free(result);
	fail(rc, msg);
	return RM_EXIT_FAILURE;
}
