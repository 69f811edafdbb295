/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench run: the suite, after a record of the machine and build so that results compare. */
#include "config.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "rm-bench.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

enum {
	MC_MACHINE, MC_MODEL, MC_ARCH, MC_KERNEL, MC_CPUS, MC_NODES, MC_TOPOLOGY, MC_LLC,
	MC_L1D, MC_L2, MC_L3, MC_MEMORY, MC_HUGEPAGES, MC_THP, MC_GOVERNOR, MC_ISOLATED, MC_NOHZ_FULL, MC_ISA,
	MC_COMPILER, MC_VERSION, MC_DATE,
};
const struct rm_column machine_cols[] = {
	[MC_MACHINE] = { "machine", RM_COL_STRING, "the host name" },
	[MC_MODEL] = { "model", RM_COL_STRING, "the CPU model" },
	[MC_ARCH] = { "arch", RM_COL_STRING, "the architecture (uname -m)" },
	[MC_KERNEL] = { "kernel", RM_COL_STRING, "the kernel release (uname -r)" },
	[MC_CPUS] = { "cpus", RM_COL_SET, "the CPUs the suite may use" },
	[MC_NODES] = { "nodes", RM_COL_SET, "the online NUMA nodes" },
	[MC_TOPOLOGY] = { "topology", RM_COL_STRING,
			  "a digest of the CPUs, cores, packages, nodes and caches" },
	[MC_LLC] = { "llc", RM_COL_SIZE, "the last-level caches of the CPUs, together" },
	[MC_L1D] = { "l1d", RM_COL_SIZE, "the L1 data cache of the CPU lat measures on" },
	[MC_L2] = { "l2", RM_COL_SIZE, "the L2 cache of that CPU" },
	[MC_L3] = { "l3", RM_COL_SIZE, "the L3 cache of that CPU" },
	[MC_MEMORY] = { "memory", RM_COL_SIZE, "the memory of the machine" },
	[MC_HUGEPAGES] = { "hugepages", RM_COL_STRING,
			   "huge pages reserved, per size: SIZE:COUNT,..." },
	[MC_THP] = { "thp", RM_COL_STRING, "transparent huge pages: always, madvise or never" },
	[MC_GOVERNOR] = { "governor", RM_COL_STRING,
			  "the cpufreq governor of the CPUs (mixed when they differ)" },
	[MC_ISOLATED] = { "isolated", RM_COL_SET, "CPUs isolated from the scheduler (isolcpus=)" },
	[MC_NOHZ_FULL] = { "nohz_full", RM_COL_SET, "adaptive-tick CPUs (nohz_full=)" },
	[MC_ISA] = { "isa", RM_COL_STRING, "the vector instructions of the mem kernels" },
	[MC_COMPILER] = { "compiler", RM_COL_STRING, "the compiler rm-bench was built with" },
	[MC_VERSION] = { "version", RM_COL_STRING, "rmtools' version" },
	[MC_DATE] = { "date", RM_COL_STRING, "when the suite started, UTC (ISO 8601)" },
};
const size_t machine_ncols = ARRAY_SIZE(machine_cols);

/* CPU, core, package, node and cache sizes of every CPU, as one number. */
static unsigned long topology_digest(const struct bench *b)
{
	hwloc_topology_t topo = b->t->topo;
	uLong crc = crc32(0L, Z_NULL, 0);
	hwloc_obj_t pu = NULL;

	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
		char buf[160];
		int n = snprintf(buf, sizeof(buf), "%u %d %d %d %llu %llu %llu;", pu->os_index,
				 core ? (int)core->logical_index : -1,
				 pkg ? (int)pkg->logical_index : -1, bench_cpu_node(b, (int)pu->os_index),
				 (unsigned long long)bench_cache_size(b, (int)pu->os_index, 1),
				 (unsigned long long)bench_cache_size(b, (int)pu->os_index, 2),
				 (unsigned long long)bench_cache_size(b, (int)pu->os_index, 3));

		crc = crc32(crc, (const Bytef *)buf, (uInt)n);
	}
	return crc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* "2MiB:0,1GiB:0": the huge pages reserved of each size. */
static char *hugepages(void)
{
	char *path = rm_sysfs_path(NULL, "sys/kernel/mm/hugepages"), *buf = NULL;
	size_t len = 0, n = 0;
	uint64_t kb[16];
	FILE *f = open_memstream(&buf, &len);
	DIR *d = opendir(path);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (n < ARRAY_SIZE(kb) && sscanf(de->d_name, "hugepages-%" SCNu64 "kB", &kb[n]) == 1)
			n++;
	if (d)
		closedir(d);
	free(path);
	qsort(kb, n, sizeof(kb[0]), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		char *file = xasprintf("sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/nr_hugepages",
				       kb[i]);
		char *size = rm_size_format(kb[i] * 1024);
		uint64_t count = 0;

		rm_sysfs_read_u64(NULL, file, &count);
		fprintf(f, "%s%s:%" PRIu64, i ? "," : "", size, count);
		free(file);
		free(size);
	}
	fclose(f);
	if (!n) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The bracketed choice of a sysfs setting such as "always [madvise] never". */
static char *bracketed(const char *path)
{
	char *v = rm_sysfs_read(NULL, path), *l, *r, *out = NULL;

	if (v && (l = strchr(v, '[')) && (r = strchr(l, ']')))
		out = xasprintf("%.*s", (int)(r - l - 1), l + 1);
	free(v);
	return out;
}

static char *governor(const struct bench *b)
{
	char *gov = NULL;
	unsigned i;

	hwloc_bitmap_foreach_begin(i, b->allowed) {
		char *path = xasprintf("sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", i);
		char *g = rm_sysfs_read(NULL, path);

		free(path);
		if (!g)
			continue;
		if (!gov) {
			gov = g;
		} else if (strcmp(gov, g)) {
			free(g);
			free(gov);
			return xstrdup("mixed");
		} else {
			free(g);
		}
	}
	hwloc_bitmap_foreach_end();
	return gov;
}

void machine_record(const struct bench *b, struct rm_out *out)
{
	hwloc_obj_t root = hwloc_get_root_obj(b->t->topo);
	const char *model = hwloc_obj_get_info_by_name(root, "CPUModel");
	struct utsname u;
	char host[256] = "", date[32], digest[16], *s;
	uint64_t llc;
	time_t now = time(NULL);
	struct tm tm;

	if (!model) {
		hwloc_obj_t pkg = hwloc_get_obj_by_type(b->t->topo, HWLOC_OBJ_PACKAGE, 0);

		model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	}
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(digest, sizeof(digest), "%08lx", topology_digest(b));

	rm_out_begin(out);
	rm_out_str(out, MC_MACHINE, *host ? host : NULL);
	rm_out_str(out, MC_MODEL, model);
	rm_out_str(out, MC_ARCH, u.machine);
	rm_out_str(out, MC_KERNEL, u.release);
	rm_out_set(out, MC_CPUS, b->allowed);
	rm_out_set(out, MC_NODES, b->nodes);
	rm_out_str(out, MC_TOPOLOGY, digest);
	llc = bench_llc_size(b, b->allowed);
	if (llc) /* unknown ("-") where the kernel lists no caches, as in some VMs */
		rm_out_size(out, MC_LLC, llc);
	for (int level = 1; level <= 3; level++) {
		uint64_t size = bench_cache_size(b, hwloc_bitmap_first(b->deflt), level);

		if (size)
			rm_out_size(out, MC_L1D + level - 1, size);
	}
	rm_out_size(out, MC_MEMORY, root->total_memory);
	s = hugepages();
	rm_out_str(out, MC_HUGEPAGES, s);
	free(s);
	s = bracketed("sys/kernel/mm/transparent_hugepage/enabled");
	rm_out_str(out, MC_THP, s);
	free(s);
	s = governor(b);
	rm_out_str(out, MC_GOVERNOR, s);
	free(s);
	rm_out_set(out, MC_ISOLATED, b->t->isolated);
	rm_out_set(out, MC_NOHZ_FULL, b->t->nohz_full);
	rm_out_str(out, MC_ISA, mem_isa());
#if defined(__clang__)
	s = xasprintf("clang %s", __clang_version__);
#elif defined(__GNUC__)
	s = xasprintf("gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
	s = NULL;
#endif
	rm_out_str(out, MC_COMPILER, s);
	free(s);
	rm_out_str(out, MC_VERSION, PACKAGE_VERSION);
	rm_out_str(out, MC_DATE, date);
	rm_out_end(out);
}

/* ---- the command ---- */

enum { OPT_QUICK = 0x200, OPT_RUNS };

struct run_args {
	bool quick;
	int runs;
};

static const struct argp_option run_options[] = {
	{ "quick", OPT_QUICK, NULL, 0, "fewer runs, sizes and pairs: under a minute", 0 },
	{ "runs", OPT_RUNS, "N", 0, "timed runs of every measurement (default: each one's)", 0 },
	{ 0 }
};

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	switch (key) {
	case OPT_QUICK:
		a->quick = true;
		break;
	case OPT_RUNS:
		a->runs = parse_runs(state, arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_run(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		run_options, run_parse, NULL,
		"The suite: a machine record (CPU model, kernel, topology digest, huge pages, "
		"governor, build), then mem on each NUMA node, lat at a few sizes on normal and "
		"huge pages, c2c on a sample of pairs, and jitter on one CPU. -o applies to the "
		"machine record. Without a command, rm-bench runs 'run --quick'.",
		NULL, NULL, NULL
	};
	struct run_args a = { 0 };
	struct rm_out *out;
	struct bench_mon *mon;
	struct bench b;
	unsigned node;
	int cpu;

	if (bench_parse(&argp, argc, argv, c, &a, machine_cols, machine_ncols))
		return RM_EXIT_SUCCESS;
	bench_open(&b, c);
	mon = bench_mon_open();
	out = rm_out_new(&c->out, "machine", machine_cols, machine_ncols, NULL, true);
	machine_record(&b, out);
	rm_out_close(out);

	/* mem: each node's CPUs on its own memory */
	{
		struct mem_params p = { .mem_node = -1, .page = b.page,
					.ops = a.quick ? 1u << OP_COPY | 1u << OP_TRIAD : (1u << NOPS) - 1,
					.runs = a.runs ? a.runs : a.quick ? 3 : MEM_RUNS, .mon = mon };

		p.cpus = hwloc_bitmap_alloc();
		out = bench_listing(&c->out, "mem", mem_cols, mem_ncols);
		hwloc_bitmap_foreach_begin(node, b.nodes) {
			bench_node_cpus(&b, (int)node, p.cpus);
			hwloc_bitmap_and(p.cpus, p.cpus, b.deflt);
			if (hwloc_bitmap_iszero(p.cpus))
				continue;
			mem_measure(&b, &p, out);
		}
		hwloc_bitmap_foreach_end();
		rm_out_close(out);
		hwloc_bitmap_free(p.cpus);
	}

	/* lat: inside each cache and beyond, on normal pages and 2 MiB (and 1 GiB) pages */
	cpu = hwloc_bitmap_first(b.deflt);
	{
		uint64_t pages[3] = { b.page }, huge[2] = { 2 << 20, 1 << 30 };
		struct lat_params p = { .cpu = cpu, .mem_node = -1, .pages = pages, .npages = 1,
					.runs = a.runs ? a.runs : a.quick ? 3 : LAT_RUNS, .mon = mon };

		for (size_t i = 0; i < (a.quick ? 1u : 2u); i++)
			if (bench_has_page(&b, huge[i]))
				pages[p.npages++] = huge[i];
		p.nsizes = lat_default_sizes(&b, cpu, &p.sizes);
		out = bench_listing(&c->out, "lat", lat_cols, lat_ncols - 1); /* no load_delay */
		lat_measure(&b, &p, out);
		rm_out_close(out);
		free(p.sizes);
	}

	/* c2c: a sample of pairs, one of each distance first */
	if (hwloc_bitmap_weight(b.deflt) >= 2) {
		struct c2c_params p = { .pairs = a.quick ? 8 : 32,
					.iterations = a.quick ? 5000 : 20000,
					.runs = a.runs ? a.runs : a.quick ? 3 : C2C_RUNS };

		p.cpus = hwloc_bitmap_dup(b.deflt);
		out = bench_listing(&c->out, "c2c", c2c_cols, c2c_ncols);
		c2c_measure(&b, &p, out);
		rm_out_close(out);
		hwloc_bitmap_free(p.cpus);
	} else {
		rm_warnx("one CPU: no c2c");
	}

	/* jitter: the last CPU, the one least likely to serve interrupts and housekeeping */
	{
		struct jitter_params p = { .shared_cpu = -1,
					   .duration = a.quick ? 2000000000ull : 10000000000ull,
					   .interval = 1000000, .priority = 99, .dma_latency = -1,
					   .runs = a.runs ? a.runs : JITTER_RUNS };
		struct jitter_hist *h;

		p.cpus = hwloc_bitmap_alloc();
		hwloc_bitmap_set(p.cpus, (unsigned)hwloc_bitmap_last(b.deflt));
		out = bench_listing(&c->out, "jitter", jitter_cols, jitter_ncols);
		h = jitter_measure(&b, &p, out);
		rm_out_close(out);
		jitter_histogram(h, &c->out, false);
		hwloc_bitmap_free(p.cpus);
	}
	rm_out_flush();
	bench_mon_close(mon);
	bench_close(&b);
	return RM_EXIT_SUCCESS;
}
