/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo export nfd: a Node Feature Discovery local feature file with topology labels. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cpulist.h"
#include "devices.h"
#include "exitcodes.h"
#include "rm-topo.h"
#include "size.h"
#include "topomgr.h"
#include "xalloc.h"

/* NFD's own namespace: always allowed by nfd-master, whatever denyLabelNs says. */
#define NFD_PREFIX "feature.node.kubernetes.io/rmtools-"

struct export {
	const char *format;
	const char *output;
	struct nrt_opts nrt;
	struct nrt *obj; /* nrt: read before anything is written */
};

enum {
	OPT_OUTPUT_FILE = 'o',
	OPT_JSON = 'J',
	OPT_NODE_NAME = 0x200,
	OPT_TM_POLICY,
	OPT_TM_SCOPE,
	OPT_VENDOR_DOMAIN,
};

static const struct argp_option export_options[] = {
	{ "output", OPT_OUTPUT_FILE, "FILE", 0,
	  "write FILE atomically instead of standard output", 0 },
	{ "json", OPT_JSON, NULL, 0, "nrt: one JSON document instead of YAML", 0 },
	{ "node-name", OPT_NODE_NAME, "NAME", 0, "nrt: the Kubernetes node name (default: the host name)",
	  0 },
	{ "topology-manager-policy", OPT_TM_POLICY, "POLICY", 0,
	  "nrt: the kubelet's topologyManagerPolicy (none, best-effort, restricted, "
	  "single-numa-node; default none)", 0 },
	{ "topology-manager-scope", OPT_TM_SCOPE, "SCOPE", 0,
	  "nrt: the kubelet's topologyManagerScope (container, pod; default container)", 0 },
	{ "vendor-domain", OPT_VENDOR_DOMAIN, "NAME", 0,
	  "nrt: the vendor part of device resources, NAME/TYPE (default "
	  RM_DEVICES_VENDOR_DEFAULT ")", 0 },
	{ 0 }
};

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export *e = state->input;

	switch (key) {
	case OPT_OUTPUT_FILE:
		if (!*arg)
			argp_error(state, "empty --output file name");
		e->output = arg;
		break;
	case OPT_JSON:
		e->nrt.json = e->nrt.given = true;
		break;
	case OPT_NODE_NAME:
		if (!nrt_node_name_valid(arg))
			argp_error(state, "invalid node name: '%s' (a DNS subdomain: lower-case "
				   "letters, digits, '-' and '.')", arg);
		e->nrt.node_name = arg;
		e->nrt.given = true;
		break;
	case OPT_TM_POLICY:
		if ((e->nrt.policy = rm_tm_policy_parse(arg)) < 0)
			argp_error(state, "unknown policy: '%s' (none, best-effort, restricted, "
				   "single-numa-node)", arg);
		e->nrt.given = true;
		break;
	case OPT_TM_SCOPE:
		if (strcmp(arg, "container") && strcmp(arg, "pod"))
			argp_error(state, "unknown scope: '%s' (container, pod)", arg);
		e->nrt.scope = arg;
		e->nrt.given = true;
		break;
	case OPT_VENDOR_DOMAIN:
		if (!rm_devices_domain_valid(arg))
			argp_error(state, "invalid vendor domain: '%s' (a DNS name such as "
				   "example.com)", arg);
		e->nrt.vendor_domain = arg;
		e->nrt.given = true;
		break;
	case ARGP_KEY_ARG:
		if (e->format)
			argp_error(state, "unexpected argument: '%s'", arg);
		if (strcmp(arg, "nfd") && strcmp(arg, "nrt"))
			argp_error(state, "unknown export format: '%s' (known: nfd, nrt)", arg);
		e->format = arg;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "missing FORMAT (nfd, nrt)");
		break;
	case ARGP_KEY_END:
		if (e->format && !strcmp(e->format, "nfd") && e->nrt.given)
			argp_error(state, "--json, --node-name, --topology-manager-* and --vendor-domain are for nrt");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp export_argp = {
	export_options, export_parse, "nfd|nrt",
	"Export the topology for other tools. nfd: labels for a Node Feature Discovery local "
	"feature file (/etc/kubernetes/node-feature-discovery/features.d/rmtools). nrt: a "
	"NodeResourceTopology object (topology.node.k8s.io/v1alpha2) with a zone per NUMA node, "
	"as NFD's topology updater writes it.",
	NULL, NULL, NULL
};

/* NFD label values: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends, or empty. */
static bool valid_label_value(const char *v)
{
	size_t n = strlen(v);

	if (n == 0)
		return true;
	if (n > 63 || !isalnum((unsigned char)v[0]) || !isalnum((unsigned char)v[n - 1]))
		return false;
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
			return false;
	return true;
}

static void label(FILE *f, const char *name, const char *value)
{
	if (valid_label_value(value))
		fprintf(f, NFD_PREFIX "%s=%s\n", name, value);
}

static void label_int(FILE *f, const char *name, long v)
{
	fprintf(f, NFD_PREFIX "%s=%ld\n", name, v);
}

static void write_labels(FILE *f, struct rm_topo *t, const struct export *e)
{
	struct topo_summary s;
	hwloc_obj_t pkg = NULL;
	int cores_per_package = 0;

	if (e->obj) {
		nrt_write(f, e->obj);
		return;
	}
	topo_summary_read(t, &s);
	while ((pkg = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pkg))) {
		int n = hwloc_get_nbobjs_inside_cpuset_by_type(t->topo, pkg->cpuset, HWLOC_OBJ_CORE);
		if (n > cores_per_package)
			cores_per_package = n;
	}
	fputs("# generated by rm-topo export nfd\n", f);
	label_int(f, "numa-nodes", s.nodes);
	label_int(f, "packages", s.packages);
	label_int(f, "cores-per-package", cores_per_package);
	label_int(f, "threads-per-core", s.threads_per_core);
	label(f, "smt", s.threads_per_core > 1 ? "true" : "false");
	label_int(f, "l3-caches", s.l3);
	if (!hwloc_bitmap_iszero(rm_topo_memory_only_nodes(t)))
		label_int(f, "memory-only-numa-nodes", hwloc_bitmap_weight(rm_topo_memory_only_nodes(t)));
	for (int i = 0; i < s.nhugepage_sizes; i++) {
		char *q = rm_size_quantity(s.hugepage_sizes[i]), *name = xasprintf("hugepages-%s", q);

		label(f, name, "true");
		free(name);
		free(q);
	}
	if (t->isolated) {
		char *list = rm_cpulist_format(t->isolated);

		label_int(f, "isolated-cpu-count", hwloc_bitmap_weight(t->isolated));
		/* label values cannot hold commas: 2-5,8 becomes 2-5_8; too long a list is left out */
		for (char *p = list; *p; p++)
			if (*p == ',')
				*p = '_';
		if (*list)
			label(f, "isolated-cpus", list);
		free(list);
	}
	topo_summary_free(&s);
}

/* Write to a dot-file in the same directory (NFD ignores those), fsync, rename into place
 * (atomicfile.h). */
static void write_atomically(const char *path, struct rm_topo *t, const struct export *e)
{
	struct rm_atomic a;
	char *msg = NULL;

	if (rm_atomic_open(&a, path, 0644, &msg) < 0 || (write_labels(a.f, t, e),
							 rm_atomic_commit(&a, &msg) < 0))
		rm_errx(RM_EXIT_FAILURE, "%s", msg);
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	struct export e = { .nrt.scope = "container" };
	struct rm_topo *t;
	char *msg = NULL;

	rm_parse_command(&export_argp, argc, argv, c, &e, RM_PARSE_NO_OUTPUT);
	if (e.output && rm_atomic_check(e.output, &msg) < 0)
		rm_usage_errx("%s", msg);
	t = rm_topo_load(c, 0);
	if (!strcmp(e.format, "nrt"))
		e.obj = nrt_read(t, &e.nrt);
	if (e.output) {
		write_atomically(e.output, t, &e);
		rm_committed("wrote '%s'", e.output);
	} else
		write_labels(stdout, t, &e);
	nrt_free(e.obj);
	rm_topo_free(t);
	return RM_EXIT_SUCCESS;
}
