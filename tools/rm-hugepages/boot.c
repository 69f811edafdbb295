/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-hugepages plan and export: the boot command line, and what the kubelet needs to know. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "input.h"
#include "rm-hugepages.h"
#include "size.h"
#include "topology.h"
#include "xalloc.h"

enum { OPT_NODE = 0x200, OPT_SPREAD, OPT_DEFAULT };

static const struct argp_option plan_options[] = {
	{ "node", OPT_NODE, "SET", 0,
	  "reserve on these NUMA nodes (a list, or all), each getting the amount (Linux 5.16+)", 0 },
	{ "spread", OPT_SPREAD, NULL, 0, "split each amount evenly over the --node SET", 0 },
	{ "default", OPT_DEFAULT, "SIZE", 0,
	  "the default page size (default_hugepagesz; default: the first SIZE given)", 0 },
	{ 0 }
};

struct plan_args {
	const char *node, *def;
	bool spread;
	char **amounts;
	int namounts;
};

static error_t plan_parse(int key, char *arg, struct argp_state *state)
{
	struct plan_args *a = state->input;

	switch (key) {
	case OPT_NODE:
		a->node = arg;
		break;
	case OPT_SPREAD:
		a->spread = true;
		break;
	case OPT_DEFAULT:
		a->def = arg;
		break;
	case ARGP_KEY_ARG:
		a->amounts = xrealloc(a->amounts, (a->namounts + 1) * sizeof(char *));
		a->amounts[a->namounts++] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->namounts)
			argp_error(state, "missing [SIZE:]COUNT or [SIZE:]AMOUNT");
		if (a->spread && !a->node)
			argp_error(state, "--spread needs --node SET");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void add_size(struct rm_hugepages *hp, uint64_t bytes)
{
	size_t i = 0;

	if (rm_hugepages_size_index(hp, bytes) >= 0)
		return;
	while (i < hp->nsizes && hp->sizes[i] < bytes)
		i++;
	hp->sizes = xrealloc(hp->sizes, (hp->nsizes + 1) * sizeof(uint64_t));
	memmove(hp->sizes + i + 1, hp->sizes + i, (hp->nsizes - i) * sizeof(uint64_t));
	hp->sizes[i] = bytes;
	hp->nsizes++;
}

/*
 * The pools of the machine --topology describes, for a plan: its NUMA nodes with their memory,
 * every node offering every size. The sizes are the huge page types of the topology's nodes (an
 * XML file of a machine lists them), else those of this machine's kernel and, on x86, 2MiB and
 * 1GiB (what x86-64 kernels offer, whatever this machine's CPU or kernel has). A node the topology gives no memory (a synthetic description without
 * "(memory=...)"; hwloc then invents 1GiB) has unknown memory: the plan is not checked against
 * it. Returns whether the memory is known.
 */
static bool hp_topology(struct rm_hugepages *hp, const struct rm_common *c)
{
	struct rm_topo *t = rm_topo_load(c, 0);
	bool memory = t->in->kind != RM_INPUT_SYNTHETIC || strstr(t->in->topology, "memory=");
	bool listed; /* the topology lists its page sizes */
	uint64_t base = (uint64_t)sysconf(_SC_PAGESIZE);
	struct rm_hugepages here;
	hwloc_obj_t o = NULL;
	char *msg = NULL;

	memset(hp, 0, sizeof(*hp));
	while ((o = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, o)))
		for (unsigned i = 0; i < o->attr->numanode.page_types_len; i++)
			if (o->attr->numanode.page_types[i].size > base)
				add_size(hp, o->attr->numanode.page_types[i].size);
	listed = hp->nsizes;
	if (!listed && rm_hugepages_open(&here, NULL, &msg) == 0) {
		for (size_t i = 0; i < here.nsizes; i++)
			add_size(hp, here.sizes[i]);
		hp->default_size = here.default_size;
		rm_hugepages_close(&here);
	}
	free(msg);
#if defined(__x86_64__) || defined(__i386__)
	if (!listed) {
		add_size(hp, UINT64_C(2) << 20);
		add_size(hp, UINT64_C(1) << 30);
	}
#endif
	if (!hp->default_size || rm_hugepages_size_index(hp, hp->default_size) < 0)
		hp->default_size = rm_hugepages_size_index(hp, UINT64_C(2) << 20) >= 0 ?
			UINT64_C(2) << 20 : hp->sizes[0];
	hp->numa = true;
	while ((o = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, o))) {
		struct rm_hp_node *n;

		hp->nodes = xrealloc(hp->nodes, (hp->nnodes + 1) * sizeof(*hp->nodes));
		n = &hp->nodes[hp->nnodes++];
		n->id = o->os_index;
		n->mem_total = memory ? o->attr->numanode.local_memory : 0;
		n->offers = xcalloc(hp->nsizes, sizeof(bool));
		for (size_t i = 0; i < hp->nsizes; i++)
			n->offers[i] = true;
	}
	rm_topo_free(t);
	return memory;
}

/* One planned size: its index and the pages per node (all on the first when no --node). */
struct plan_size {
	size_t size;
	uint64_t *pages; /* per node index */
};

int cmd_plan(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		plan_options, plan_parse, "[SIZE:]COUNT|AMOUNT...",
		"Print the kernel command line that reserves these pages at boot: "
		"default_hugepagesz=, then hugepagesz= and hugepages= for each SIZE (the default "
		"size when left out), with the per-node form hugepages=0:N,1:M for --node. "
		"Examples: 1G:16, 1G:16GiB, 2M:1024. With --topology, for the machine it describes: "
		"its NUMA nodes and their memory (a synthetic one without \"(memory=...)\" is not "
		"checked against memory).",
		NULL, NULL, NULL
	};
	const struct rm_input *in;
	struct plan_args a = { 0 };
	struct rm_hugepages hp;
	struct plan_size *ps = NULL;
	struct rm_hp_target *t = NULL;
	size_t nps = 0, def = SIZE_MAX, *which = NULL, nt = 0;
	long nwhich = 0;
	char *msg = NULL;
	int status = RM_EXIT_SUCCESS;
	bool gigantic = false, memory = true;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT);
	/* --topology only: RM_TOPOLOGY is for the tools that read topologies, as hp_sysroot says */
	in = rm_input_resolve(c);
	if (rm_input_described(in) && in->given)
		memory = hp_topology(&hp, c);
	else
		hp_open(&hp, hp_sysroot(c));
	ps = xcalloc((size_t)a.namounts, sizeof(*ps));
	if (a.def && rm_hugepages_parse_size(&hp, a.def, &def, &msg) < 0)
		goto usage;
	for (int i = 0; i < a.namounts; i++) {
		char *arg = a.amounts[i], *colon = strchr(arg, ':'), *sz;
		const char *count = colon ? colon + 1 : arg;
		uint64_t pages, *each;
		bool relative;
		size_t size;
		long k;

		if (colon) {
			sz = xasprintf("%.*s", (int)(colon - arg), arg);
			k = rm_hugepages_parse_size(&hp, sz, &size, &msg);
			free(sz);
			if (k < 0)
				goto usage;
		} else if (hp.default_size &&
			   (k = rm_hugepages_size_index(&hp, hp.default_size)) >= 0) {
			size = (size_t)k;
		} else {
			msg = xasprintf("no default page size here: give SIZE:COUNT: '%s'", arg);
			goto usage;
		}
		for (size_t j = 0; j < nps; j++)
			if (ps[j].size == size) {
				char *s = rm_size_format(hp.sizes[size]);

				msg = xasprintf("page size given twice: '%s'", s);
				free(s);
				goto usage;
			}
		if (rm_hugepages_parse_count(count, hp.sizes[size], &pages, &relative, &msg) < 0)
			goto usage;
		if (relative) {
			msg = xasprintf("invalid count (the boot has nothing to add to): '%s'", count);
			goto usage;
		}
		free(which);
		which = NULL;
		if (a.node && (nwhich = hp_nodes(&hp, a.node, size, &which, &msg)) < 0)
			goto usage;
		ps[nps].size = size;
		ps[nps].pages = each = xcalloc(hp.nnodes, sizeof(uint64_t));
		nps++;
		for (size_t n = 0; n < hp.nnodes; n++)
			each[n] = UINT64_MAX; /* not named */
		if (a.node) {
			uint64_t *split = xcalloc((size_t)nwhich, sizeof(uint64_t));

			if (a.spread)
				rm_hugepages_spread(pages, (size_t)nwhich, split);
			for (long w = 0; w < nwhich; w++)
				each[which[w]] = a.spread ? split[w] : pages;
			free(split);
		} else {
			/* the kernel spreads them over the nodes with memory */
			size_t nmem = 0, m = 0;
			uint64_t *split;

			for (size_t n = 0; n < hp.nnodes; n++)
				nmem += hp.nodes[n].offers[size];
			split = xcalloc(nmem ? nmem : 1, sizeof(uint64_t));
			rm_hugepages_spread(pages, nmem ? nmem : 1, split);
			for (size_t n = 0; n < hp.nnodes; n++)
				if (hp.nodes[n].offers[size])
					each[n] = split[m++];
			free(split);
		}
		gigantic |= hp.sizes[size] >= (UINT64_C(1) << 30);
	}

	/* does it fit the nodes' memory? */
	t = xcalloc(hp.nsizes * hp.nnodes, sizeof(*t));
	for (size_t s = 0; s < hp.nsizes; s++)
		for (size_t n = 0; n < hp.nnodes; n++) {
			t[nt].size = s;
			t[nt].node = n;
			for (size_t j = 0; j < nps; j++)
				if (ps[j].size == s && ps[j].pages[n] != UINT64_MAX)
					t[nt].want = ps[j].pages[n];
			nt++;
		}
	if (rm_hugepages_check_memory(&hp, t, nt, &msg)) {
		rm_warnx("%s", msg);
		status = RM_EXIT_NORESOURCE;
		goto out;
	}

	if (def == SIZE_MAX)
		def = ps[0].size;
	{
		char *k = rm_hugepages_kernel_size(hp.sizes[def]);

		printf("default_hugepagesz=%s", k);
		free(k);
	}
	for (size_t j = 0; j < nps; j++) {
		char *k = rm_hugepages_kernel_size(hp.sizes[ps[j].size]);

		printf(" hugepagesz=%s hugepages=", k);
		free(k);
		if (!a.node) {
			uint64_t sum = 0;

			for (size_t n = 0; n < hp.nnodes; n++)
				if (ps[j].pages[n] != UINT64_MAX)
					sum += ps[j].pages[n];
			printf("%" PRIu64, sum);
			continue;
		}
		for (size_t n = 0, first = 1; n < hp.nnodes; n++) {
			if (ps[j].pages[n] == UINT64_MAX)
				continue;
			printf("%s%u:%" PRIu64, first ? "" : ",", hp.nodes[n].id, ps[j].pages[n]);
			first = 0;
		}
	}
	putchar('\n');
	if (!memory)
		rm_warnx("note: the topology gives no memory sizes, so the plan is not checked against "
		       "the nodes' memory (give them: \"numa:2(memory=64GiB) ...\")");
	if (gigantic)
		rm_warnx("note: reserve 1GiB pages at boot, as this line does: once the machine has run "
		       "a while its memory is fragmented, the kernel seldom finds free 1GiB blocks, "
		       "and a reserve at run time falls short");
	if (a.node)
		rm_warnx("note: the per-node form hugepages=N:COUNT needs Linux 5.16 or later");
	goto out;
usage:
	rm_warnx("%s", msg);
	status = RM_EXIT_USAGE;
out:
	for (size_t j = 0; j < nps; j++)
		free(ps[j].pages);
	free(ps);
	free(t);
	free(which);
	free(msg);
	free(a.amounts);
	rm_hugepages_close(&hp);
	return status;
}

/* ---- export kubelet ---- */

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	const char **format = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (*format)
			argp_error(state, "unexpected argument: '%s'", arg);
		if (strcmp(arg, "kubelet"))
			argp_error(state, "unknown format: '%s' (kubelet)", arg);
		*format = arg;
		break;
	case ARGP_KEY_END:
		if (!*format)
			argp_error(state, "missing FORMAT (kubelet)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* BYTES as a Kubernetes quantity: "2Mi", "1536Mi", "8Gi", "0". Allocated. */
static char *quantity(uint64_t bytes)
{
	char *s = rm_size_format(bytes);
	size_t len = strlen(s);

	/* "2MiB" -> "2Mi", "512B" -> "512", "0B" -> "0" */
	if (len && s[len - 1] == 'B')
		s[--len] = '\0';
	return s;
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, export_parse, "kubelet",
		"Deprecated: the kubelet reads no such file ('rm-cpuset export kubelet' writes its "
		"configuration). Print, as YAML, the huge pages the kubelet will advertise (hugepages-2Mi, "
		"hugepages-1Gi, ...) for the machine and for each NUMA node (its memory manager's "
		"view), and warn about what the kubelet cannot do with them.",
		NULL, NULL, NULL
	};
	const char *format = NULL;
	struct rm_hugepages hp;
	char *msg = NULL;
	int status = RM_EXIT_SUCCESS;
	uint64_t *per = NULL; /* pages per size and node */

	rm_parse_command(&argp, argc, argv, c, &format, RM_PARSE_NO_OUTPUT);
	hp_open(&hp, hp_sysroot(c));
	per = xcalloc(hp.nsizes * hp.nnodes, sizeof(uint64_t));
	for (size_t s = 0; s < hp.nsizes; s++)
		for (size_t n = 0; n < hp.nnodes; n++) {
			struct rm_hp_counts cnt;

			if (!hp.nodes[n].offers[s])
				continue;
			if (rm_hugepages_read_node(&hp, s, n, &cnt, &msg) < 0) {
				rm_warnx("%s", msg);
				status = RM_EXIT_FAILURE;
				goto out;
			}
			/* the kubelet counts nr_hugepages, surplus included */
			per[s * hp.nnodes + n] = cnt.total;
		}
	printf("# Huge pages as the kubelet will advertise them (rm-hugepages export kubelet).\n"
	       "# It reads the pools when it starts: reserve them before it starts, or restart "
	       "it.\n"
	       "# Do not put hugepages-* in reservedMemory, systemReserved or kubeReserved.\n"
	       "hugepages:\n  capacity:\n");
	for (size_t s = 0; s < hp.nsizes; s++) {
		uint64_t sum = 0;
		char *res = quantity(hp.sizes[s]), *q;

		for (size_t n = 0; n < hp.nnodes; n++)
			sum += per[s * hp.nnodes + n];
		q = quantity(sum * hp.sizes[s]);
		printf("    hugepages-%s: %s\n", res, q);
		free(q);
		free(res);
	}
	printf("  numaNodes:\n");
	for (size_t n = 0; n < hp.nnodes; n++) {
		printf("  - numaNode: %u\n", hp.nodes[n].id);
		for (size_t s = 0; s < hp.nsizes; s++) {
			char *res, *q;

			if (!hp.nodes[n].offers[s])
				continue;
			res = quantity(hp.sizes[s]);
			q = quantity(per[s * hp.nnodes + n] * hp.sizes[s]);
			printf("    hugepages-%s: %s\n", res, q);
			free(q);
			free(res);
		}
	}
	rm_warnx("warning: export kubelet is deprecated: the kubelet reads no such file; 'rm-cpuset "
		 "export kubelet' writes the KubeletConfiguration drop-in");
	rm_warnx("warning: the kubelet cannot reserve huge pages: a hugepages-* entry in "
	       "reservedMemory, systemReserved or kubeReserved stops it from starting");
	rm_warnx("warning: the kubelet reads the pools only when it starts: restart it after "
	       "reserve, release or apply");
out:
	free(per);
	free(msg);
	rm_hugepages_close(&hp);
	return status;
}
