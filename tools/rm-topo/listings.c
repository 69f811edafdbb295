/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo's summary and listings: cpus, cores, packages, nodes, caches, distances. */
#include "config.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cpulist.h"
#include "input.h"
#include "output.h"
#include "rm-topo.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- filters shared by every listing ---- */

enum { OPT_NODE = 'N', OPT_PACKAGE = 'P', OPT_CPUS = 'c', OPT_ONLINE = 'e', OPT_OFFLINE = 'd' };

struct filter {
	const char *node, *package, *cpus;
	bool online, offline;
	hwloc_bitmap_t set;   /* CPUs the filters leave */
	hwloc_bitmap_t nodes; /* NUMA nodes named by --node; NULL for all */
	bool by_cpus;         /* a CPU-based filter was given */
	bool matrix;          /* distances --matrix */
};

static const struct argp_option filter_options[] = {
	{ NULL, 0, NULL, 0, "Filters:", 10 },
	{ "node", OPT_NODE, "SET", 0, "only what is on these NUMA nodes", 10 },
	{ "package", OPT_PACKAGE, "SET", 0, "only what is in these packages (logical ids)", 10 },
	{ "cpus", OPT_CPUS, "SET", 0, "only what holds these CPUs", 10 },
	{ "online", OPT_ONLINE, NULL, 0, "only online CPUs", 10 },
	{ "offline", OPT_OFFLINE, NULL, 0, "only offline CPUs", 10 },
	{ 0 }
};

static error_t filter_parse(int key, char *arg, struct argp_state *state)
{
	struct filter *f = state->input;

	switch (key) {
	case OPT_NODE:
		f->node = arg;
		break;
	case OPT_PACKAGE:
		f->package = arg;
		break;
	case OPT_CPUS:
		f->cpus = arg;
		break;
	case OPT_ONLINE:
		f->online = true;
		break;
	case OPT_OFFLINE:
		f->offline = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (f->online && f->offline)
			argp_error(state, "options --online and --offline exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp filter_argp = { filter_options, filter_parse, NULL, NULL, NULL, NULL, NULL };

static void parse_set_or_die(const char *opt, const char *arg, hwloc_bitmap_t set)
{
	char *msg = NULL;

	if (rm_cpulist_parse(arg, set, &msg) < 0)
		rm_usage_errx("invalid %s: %s", opt, msg);
}

static hwloc_bitmap_t all_cpus(struct rm_topo *t)
{
	hwloc_bitmap_t all = hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(t->topo));

	if (t->present)
		hwloc_bitmap_or(all, all, t->present);
	if (t->online)
		hwloc_bitmap_or(all, all, t->online);
	return all;
}

static void filter_resolve(struct rm_topo *t, struct filter *f)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	char *msg = NULL;

	f->set = all_cpus(t);
	if (f->node) {
		unsigned id;

		f->nodes = hwloc_bitmap_alloc();
		parse_set_or_die("--node", f->node, f->nodes);
		hwloc_bitmap_zero(s);
		hwloc_bitmap_foreach_begin(id, f->nodes) {
			hwloc_obj_t n = hwloc_get_numanode_obj_by_os_index(t->topo, id);
			if (!n)
				rm_usage_errx("no such NUMA node: '%u'", id);
			hwloc_bitmap_or(s, s, rm_topo_node_cpus(t, n));
		} hwloc_bitmap_foreach_end();
		hwloc_bitmap_and(f->set, f->set, s);
	}
	if (f->package) {
		hwloc_bitmap_t ids = hwloc_bitmap_alloc();
		unsigned id;

		parse_set_or_die("--package", f->package, ids);
		hwloc_bitmap_zero(s);
		hwloc_bitmap_foreach_begin(id, ids) {
			hwloc_obj_t p = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, id);
			if (!p)
				rm_usage_errx("no such package: '%u'", id);
			hwloc_bitmap_or(s, s, p->cpuset);
		} hwloc_bitmap_foreach_end();
		hwloc_bitmap_and(f->set, f->set, s);
		hwloc_bitmap_free(ids);
		f->by_cpus = true;
	}
	if (f->cpus) {
		parse_set_or_die("--cpus", f->cpus, s);
		if (rm_topo_check_cpus(t, s, &msg) < 0)
			rm_usage_errx("invalid --cpus: %s", msg);
		hwloc_bitmap_and(f->set, f->set, s);
		f->by_cpus = true;
	}
	if (f->online)
		hwloc_bitmap_and(f->set, f->set, t->online);
	if (f->offline)
		hwloc_bitmap_and(f->set, f->set, t->offline);
	f->by_cpus = f->by_cpus || f->online || f->offline;
	hwloc_bitmap_free(s);
}

static void filter_free(struct filter *f)
{
	hwloc_bitmap_free(f->set);
	hwloc_bitmap_free(f->nodes);
}

/* Parse a listing's arguments (ARGP's); --list-columns of COLS ends here. */
static void listing_parse(const struct argp *argp, int argc, char **argv, struct rm_common *c,
			  struct filter *f, const struct rm_column *cols, size_t ncols,
			  const char *defaults)
{
	memset(f, 0, sizeof(*f));
	rm_parse_command(argp, argc, argv, c, f, 0);
	if (c->out.list_columns && cols) {
		rm_out_list_columns(&c->out, cols, ncols, defaults);
		exit(RM_EXIT_SUCCESS);
	}
}

/*
 * The node table of a node listing whose arguments are parsed (numa_table_read): read from sysfs
 * alone unless a filter names CPUs or packages, which need the topology. --node is checked
 * against the table's nodes.
 */
static void listing_nodes(struct rm_common *c, struct filter *f, struct numa_table *nt,
			  bool packages)
{
	struct rm_topo *t = NULL;
	unsigned id;

	if (f->package || f->cpus || f->online || f->offline) {
		t = rm_topo_load(c, 0);
		filter_resolve(t, f);
	}
	numa_table_read(c, t, nt, packages);
	if (t)
		nt->own_topo = true;
	if (t || !f->node)
		return;
	f->nodes = hwloc_bitmap_alloc();
	parse_set_or_die("--node", f->node, f->nodes);
	hwloc_bitmap_foreach_begin(id, f->nodes) {
		if (numa_table_find(nt, id) < 0)
			rm_usage_errx("no such NUMA node: '%u'", id);
	} hwloc_bitmap_foreach_end();
}

/* Whether node I of NT is left by the filters F (NULL: no filter). */
static bool node_kept(const struct numa_table *nt, unsigned i, const struct filter *f)
{
	return !f || ((!f->nodes || hwloc_bitmap_isset(f->nodes, nt->node[i].id)) &&
		      (!f->by_cpus || hwloc_bitmap_intersects(nt->node[i].cpus, f->set)));
}

/* Parse a listing's arguments (ARGP's, or the filters' when NULL) and load the topology. */
static struct rm_topo *listing_start_argp(const struct argp *argp, int argc, char **argv,
					  struct rm_common *c, struct filter *f,
					  const struct rm_column *cols, size_t ncols,
					  const char *defaults)
{
	struct rm_topo *t;

	listing_parse(argp, argc, argv, c, f, cols, ncols, defaults);
	t = rm_topo_load(c, 0);
	filter_resolve(t, f);
	return t;
}

/* Parse a listing's filters and load the topology. */
static struct rm_topo *listing_start(int argc, char **argv, struct rm_common *c, struct filter *f,
				     const struct rm_column *cols, size_t ncols, const char *defaults,
				     const char *doc)
{
	struct argp argp = filter_argp;

	argp.doc = doc;
	return listing_start_argp(&argp, argc, argv, c, f, cols, ncols, defaults);
}

/*
 * The end of a listing, the command's last work. The topology is left to the end of the process,
 * which gives its memory back at once, where hwloc_topology_destroy would visit every object
 * (3 M instructions for 1024 CPUs); it stays reachable from here for leak checkers.
 */
static struct rm_topo *volatile listed;

static void listing_end(struct rm_topo *t, struct filter *f, struct rm_out *out)
{
	rm_out_close(out);
	rm_out_flush();
	filter_free(f);
	listed = t;
}

/* ---- helpers ---- */

static int logical_of(hwloc_obj_t obj)
{
	return obj ? (int)obj->logical_index : -1;
}

static void out_index(struct rm_out *out, int col, long idx)
{
	if (idx < 0)
		rm_out_str(out, col, NULL);
	else
		rm_out_int(out, col, idx);
}

static hwloc_obj_t cache_of(struct rm_topo *t, hwloc_obj_t pu, hwloc_obj_type_t type)
{
	return hwloc_get_ancestor_obj_by_type(t->topo, type, pu);
}

/* ---- cpus ---- */

enum { CPU_CPU, CPU_CORE, CPU_PACKAGE, CPU_NODE, CPU_L3, CPU_L2, CPU_L1, CPU_ONLINE,
       CPU_ISOLATED, CPU_ALLOWED, CPU_CORE_ID, CPU_PACKAGE_ID, CPU_DIE, CPU_KIND, CPU_EFFICIENCY,
       CPU_CAPACITY, CPU_MAXMHZ, CPU_MINMHZ, CPU_FEATURES };
static const struct rm_column cpu_cols[] = {
	[CPU_CPU] = { "cpu", RM_COL_INT, "logical CPU number, as the kernel numbers it" },
	[CPU_CORE] = { "core", RM_COL_INT, "core (logical id, unique on the machine)" },
	[CPU_PACKAGE] = { "package", RM_COL_INT, "package/socket (logical id)" },
	[CPU_NODE] = { "node", RM_COL_INT, "NUMA node, as the kernel numbers it" },
	[CPU_L3] = { "l3", RM_COL_INT, "L3 (last-level, uncore) cache (logical id)" },
	[CPU_L2] = { "l2", RM_COL_INT, "L2 cache (logical id)" },
	[CPU_L1] = { "l1", RM_COL_INT, "L1 data cache (logical id)" },
	[CPU_ONLINE] = { "online", RM_COL_BOOL, "the CPU is online" },
	[CPU_ISOLATED] = { "isolated", RM_COL_BOOL, "isolated from the scheduler (isolcpus)" },
	[CPU_ALLOWED] = { "allowed", RM_COL_BOOL, "in this process's cpuset (cgroup)" },
	[CPU_CORE_ID] = { "core_id", RM_COL_INT, "physical core id within its package" },
	[CPU_PACKAGE_ID] = { "package_id", RM_COL_INT, "physical package id" },
	[CPU_DIE] = { "die", RM_COL_INT, "die (logical id)" },
	[CPU_KIND] = { "kind", RM_COL_STRING,
		       "CPU kind (hwloc cpukind: its CoreType, else performance/efficiency; - with one kind)" },
	[CPU_EFFICIENCY] = { "efficiency", RM_COL_INT, "hwloc cpukind efficiency rank (higher is faster)" },
	[CPU_CAPACITY] = { "capacity", RM_COL_INT, "scheduler capacity (sysfs cpu_capacity)" },
	[CPU_MAXMHZ] = { "maxmhz", RM_COL_INT, "maximum frequency in MHz (cpufreq)" },
	[CPU_MINMHZ] = { "minmhz", RM_COL_INT, "minimum frequency in MHz (cpufreq)" },
	[CPU_FEATURES] = { "features", RM_COL_STRING,
			   "vector and matrix features that matter for placement (cpuinfo)" },
};
static const char cpu_defaults[] = "cpu,core,package,node,l3,l2,l1,online,isolated,allowed";

/* The kind of CPUs CPUS (hwloc cpukinds): its CoreType or LinuxCPUType info where hwloc
 * has one, else "performance" for the highest efficiency rank and "efficiency" for the
 * lowest; NULL with one kind or none. *EFF gets the rank, -1 when unknown. */
static char *cpukind_of(struct rm_topo *t, hwloc_const_bitmap_t cpus, long *eff)
{
	hwloc_bitmap_t kset = hwloc_bitmap_alloc();
	struct hwloc_info_s *infos;
	unsigned ninfos;
	int efficiency = -1;
	char *name = NULL;
	int nr = hwloc_cpukinds_get_nr(t->topo, 0);
	int k = hwloc_cpukinds_get_by_cpuset(t->topo, cpus, 0);

	if (eff)
		*eff = -1;
	if (k >= 0 && hwloc_cpukinds_get_info(t->topo, (unsigned)k, kset, &efficiency, &ninfos,
					      &infos, 0) == 0) {
		if (eff)
			*eff = efficiency;
		for (unsigned i = 0; i < ninfos && nr > 1; i++)
			if (!name && (!strcmp(infos[i].name, "CoreType") ||
				      !strcmp(infos[i].name, "LinuxCPUType")))
				name = xstrdup(infos[i].value);
		/* kinds are ordered by efficiency, lowest first, when hwloc knows it */
		if (!name && nr > 1 && efficiency >= 0)
			name = xstrdup(k == nr - 1 ? "performance" : k == 0 ? "efficiency" : "other");
	}
	hwloc_bitmap_free(kset);
	return name;
}

/* A number from sysfs file sys/devices/system/cpu/cpuCPU/NAME, divided by DIV; -1 if absent */
static long cpu_sysfs_long(struct rm_topo *t, unsigned cpu, const char *name, long div)
{
	char *path, *s, *end;
	long v = -1;

	if (!rm_input_sysfs(t->in))
		return -1;
	path = xasprintf("sys/devices/system/cpu/cpu%u/%s", cpu, name);
	s = rm_sysfs_read(rm_input_root(t->in), path);
	free(path);
	if (!s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || v < 0)
		v = -1;
	else
		v /= div;
	free(s);
	return v;
}

/* The features of the features column, in this order: x86's vector and matrix extensions, then
 * arm64's. A short list, since a placement asks "which CPUs have AVX-512 or AMX", not for
 * every flag lscpu prints. */
static const char *const placement_features[] = {
	"avx2", "avx_vnni", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16",
	"amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
	"asimd", "sve", "sve2", "sme", "sme2", "bf16", "i8mm",
};

/* FLAGS (a cpuinfo "flags" or "Features" value) as the placement features it has, in the
 * list's order, comma-separated ("" for none). */
static char *placement_of(const char *flags)
{
	char *out = xstrdup("");

	for (size_t k = 0; k < ARRAY_SIZE(placement_features); k++) {
		const char *f = placement_features[k], *p = flags;
		size_t len = strlen(f);

		for (; (p = strstr(p, f)); p += len)
			if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
			    (!p[len] || p[len] == ' ' || p[len] == '\t' || p[len] == '\n'))
				break;
		if (p) {
			char *n = xasprintf("%s%s%s", out, *out ? "," : "", f);

			free(out);
			out = n;
		}
	}
	return out;
}

/*
 * The placement features of each CPU below N from proc/cpuinfo (of the snapshot with
 * --sysroot): FEATURES[CPU], NULL where cpuinfo does not say (an XML or synthetic topology,
 * an architecture without a flags line). The records are "processor : N" followed by
 * "flags : ..." (x86) or "Features : ..." (arm64).
 */
static char **cpu_features_table(const struct rm_topo *t, unsigned n)
{
	char **features = xcalloc(n + 1, sizeof(*features));
	char *info, *line, *save = NULL;
	long cpu = -1;

	if (!rm_input_sysfs(t->in))
		return features;
	if (!(info = rm_sysfs_read(rm_input_root(t->in), "proc/cpuinfo")))
		return features;
	for (line = strtok_r(info, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		size_t key = colon ? (size_t)(colon - line) : 0;

		while (key && (line[key - 1] == ' ' || line[key - 1] == '\t'))
			key--;
		if (!colon)
			continue;
		if (key == 9 && !strncmp(line, "processor", 9))
			cpu = strtol(colon + 1, NULL, 10);
		else if (cpu >= 0 && (unsigned long)cpu < n && !features[cpu] &&
			 ((key == 5 && !strncmp(line, "flags", 5)) ||
			  (key == 8 && !strncmp(line, "Features", 8))))
			features[cpu] = placement_of(colon + 1);
	}
	free(info);
	return features;
}

/* cpufreq's cpuinfo_WHICH_freq of CPU in MHz, else scaling_WHICH_freq; -1 without cpufreq */
static long cpu_freq_mhz(struct rm_topo *t, unsigned cpu, const char *which)
{
	char name[40];
	long v;

	snprintf(name, sizeof(name), "cpufreq/cpuinfo_%s_freq", which);
	v = cpu_sysfs_long(t, cpu, name, 1000);
	if (v >= 0)
		return v;
	snprintf(name, sizeof(name), "cpufreq/scaling_%s_freq", which);
	return cpu_sysfs_long(t, cpu, name, 1000);
}

static void put_optional_bool(struct rm_out *out, int col, hwloc_const_bitmap_t set, unsigned i)
{
	if (set)
		rm_out_bool(out, col, hwloc_bitmap_isset(set, i));
	else
		rm_out_str(out, col, NULL);
}

int cmd_cpus(int argc, char **argv, struct rm_common *c)
{
	struct filter f;
	struct rm_topo *t = listing_start(argc, argv, c, &f, cpu_cols, ARRAY_SIZE(cpu_cols),
					  cpu_defaults,
					  "One record per logical CPU: its core, package, NUMA node and caches.");
	struct rm_out *out = rm_out_new(&c->out, "cpus", cpu_cols, ARRAY_SIZE(cpu_cols),
					cpu_defaults, true);
	int last = hwloc_bitmap_last(f.set);
	unsigned i, n = last >= 0 ? (unsigned)last + 1 : 0;
	/* hwloc_get_pu_obj_by_os_index and rm_topo_cpu_node walk every PU and node per CPU,
	 * which made the listing grow as the square of the CPUs: one walk for all of them */
	hwloc_obj_t *pus = xcalloc(n + 1, sizeof(*pus)), *nodes = xcalloc(n + 1, sizeof(*nodes));
	char **features = rm_out_shown(out, CPU_FEATURES) ? cpu_features_table(t, n) : NULL;

	rm_topo_cpu_table(t, n, pus, nodes);
	hwloc_bitmap_foreach_begin(i, f.set) {
		hwloc_obj_t pu = pus[i];
		hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_CORE, pu) : NULL;
		hwloc_obj_t pkg = pu ? hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pu) : NULL;
		hwloc_obj_t node = pu ? nodes[i] : NULL;

		rm_out_begin(out);
		rm_out_int(out, CPU_CPU, i);
		out_index(out, CPU_CORE, logical_of(core));
		out_index(out, CPU_PACKAGE, logical_of(pkg));
		out_index(out, CPU_NODE, node ? (long)node->os_index : -1);
		out_index(out, CPU_L3, pu ? logical_of(cache_of(t, pu, HWLOC_OBJ_L3CACHE)) : -1);
		out_index(out, CPU_L2, pu ? logical_of(cache_of(t, pu, HWLOC_OBJ_L2CACHE)) : -1);
		out_index(out, CPU_L1, pu ? logical_of(cache_of(t, pu, HWLOC_OBJ_L1CACHE)) : -1);
		rm_out_bool(out, CPU_ONLINE, hwloc_bitmap_isset(t->online, i));
		put_optional_bool(out, CPU_ISOLATED, t->isolated, i);
		rm_out_bool(out, CPU_ALLOWED, hwloc_bitmap_isset(t->allowed, i));
		out_index(out, CPU_CORE_ID, core ? rm_topo_os_index(core) : -1);
		out_index(out, CPU_PACKAGE_ID, pkg ? rm_topo_os_index(pkg) : -1);
		out_index(out, CPU_DIE,
			  pu ? logical_of(hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_DIE, pu)) : -1);
		if (rm_out_shown(out, CPU_KIND) || rm_out_shown(out, CPU_EFFICIENCY)) {
			hwloc_bitmap_t one = hwloc_bitmap_alloc();
			long eff;
			char *kind;

			hwloc_bitmap_only(one, i);
			kind = cpukind_of(t, one, &eff);
			rm_out_str(out, CPU_KIND, kind);
			out_index(out, CPU_EFFICIENCY, eff);
			free(kind);
			hwloc_bitmap_free(one);
		}
		if (rm_out_shown(out, CPU_CAPACITY))
			out_index(out, CPU_CAPACITY, cpu_sysfs_long(t, i, "cpu_capacity", 1));
		if (rm_out_shown(out, CPU_MAXMHZ))
			out_index(out, CPU_MAXMHZ, cpu_freq_mhz(t, i, "max"));
		if (rm_out_shown(out, CPU_MINMHZ))
			out_index(out, CPU_MINMHZ, cpu_freq_mhz(t, i, "min"));
		if (features)
			rm_out_str(out, CPU_FEATURES, features[i]);
		rm_out_end(out);
	} hwloc_bitmap_foreach_end();
	for (i = 0; features && i < n; i++)
		free(features[i]);
	free(features);
	free(pus);
	free(nodes);
	listing_end(t, &f, out);
	return RM_EXIT_SUCCESS;
}

/* ---- cores ---- */

enum { CORE_CORE, CORE_PACKAGE, CORE_NODE, CORE_CPUS, CORE_L3, CORE_CORE_ID, CORE_KIND };
static const struct rm_column core_cols[] = {
	[CORE_CORE] = { "core", RM_COL_INT, "core (logical id)" },
	[CORE_PACKAGE] = { "package", RM_COL_INT, "package (logical id)" },
	[CORE_NODE] = { "node", RM_COL_INT, "NUMA node" },
	[CORE_CPUS] = { "cpus", RM_COL_SET, "the core's CPUs (hardware threads)" },
	[CORE_L3] = { "l3", RM_COL_INT, "L3 cache (logical id)" },
	[CORE_CORE_ID] = { "core_id", RM_COL_INT, "physical core id within its package" },
	[CORE_KIND] = { "kind", RM_COL_STRING, "CPU kind on hybrid machines (hwloc cpukind)" },
};
static const char core_defaults[] = "core,package,node,cpus,l3,core_id";

int cmd_cores(int argc, char **argv, struct rm_common *c)
{
	struct filter f;
	struct rm_topo *t = listing_start(argc, argv, c, &f, core_cols, ARRAY_SIZE(core_cols),
					  core_defaults,
					  "One record per core, with its hardware threads.");
	struct rm_out *out = rm_out_new(&c->out, "cores", core_cols, ARRAY_SIZE(core_cols),
					core_defaults, true);
	hwloc_obj_t core = NULL;

	while ((core = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_CORE, core))) {
		hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t->topo, core->cpuset, HWLOC_OBJ_PU, 0);
		hwloc_obj_t node = pu ? rm_topo_cpu_node(t, pu->os_index) : NULL;
		char *kind;

		if (!hwloc_bitmap_intersects(core->cpuset, f.set))
			continue;
		kind = cpukind_of(t, core->cpuset, NULL);
		rm_out_begin(out);
		rm_out_int(out, CORE_CORE, core->logical_index);
		out_index(out, CORE_PACKAGE,
			  logical_of(hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, core)));
		out_index(out, CORE_NODE, node ? (long)node->os_index : -1);
		rm_out_set(out, CORE_CPUS, core->cpuset);
		out_index(out, CORE_L3, logical_of(hwloc_get_ancestor_obj_by_type(t->topo,
									       HWLOC_OBJ_L3CACHE, core)));
		out_index(out, CORE_CORE_ID, rm_topo_os_index(core));
		rm_out_str(out, CORE_KIND, kind);
		rm_out_end(out);
		free(kind);
	}
	listing_end(t, &f, out);
	return RM_EXIT_SUCCESS;
}

/* ---- packages ---- */

enum { PKG_PACKAGE, PKG_CPUS, PKG_NODES, PKG_CORES, PKG_THREADS, PKG_L3, PKG_MODEL, PKG_PACKAGE_ID };
static const struct rm_column pkg_cols[] = {
	[PKG_PACKAGE] = { "package", RM_COL_INT, "package/socket (logical id)" },
	[PKG_CPUS] = { "cpus", RM_COL_SET, "the package's CPUs" },
	[PKG_NODES] = { "nodes", RM_COL_SET, "NUMA nodes with CPUs in the package" },
	[PKG_CORES] = { "cores", RM_COL_INT, "number of cores" },
	[PKG_THREADS] = { "threads", RM_COL_INT, "number of CPUs (hardware threads)" },
	[PKG_L3] = { "l3", RM_COL_INT, "number of L3 caches" },
	[PKG_MODEL] = { "model", RM_COL_STRING, "CPU model name" },
	[PKG_PACKAGE_ID] = { "package_id", RM_COL_INT, "physical package id" },
};

static const char *model_of(struct rm_topo *t, hwloc_obj_t obj)
{
	const char *m = obj ? hwloc_obj_get_info_by_name(obj, "CPUModel") : NULL;

	if (!m)
		m = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->topo), "CPUModel");
	return m;
}

int cmd_packages(int argc, char **argv, struct rm_common *c)
{
	struct filter f;
	struct rm_topo *t = listing_start(argc, argv, c, &f, pkg_cols, ARRAY_SIZE(pkg_cols), NULL,
					  "One record per package (socket).");
	struct rm_out *out = rm_out_new(&c->out, "packages", pkg_cols, ARRAY_SIZE(pkg_cols), NULL, true);
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	hwloc_obj_t pkg = NULL;

	while ((pkg = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pkg))) {
		if (!hwloc_bitmap_intersects(pkg->cpuset, f.set))
			continue;
		rm_topo_nodes_of(t, pkg->cpuset, nodes);
		rm_out_begin(out);
		rm_out_int(out, PKG_PACKAGE, pkg->logical_index);
		rm_out_set(out, PKG_CPUS, pkg->cpuset);
		rm_out_set(out, PKG_NODES, nodes);
		rm_out_int(out, PKG_CORES, hwloc_get_nbobjs_inside_cpuset_by_type(t->topo, pkg->cpuset,
										    HWLOC_OBJ_CORE));
		rm_out_int(out, PKG_THREADS, hwloc_bitmap_weight(pkg->cpuset));
		rm_out_int(out, PKG_L3, hwloc_get_nbobjs_inside_cpuset_by_type(t->topo, pkg->cpuset,
										 HWLOC_OBJ_L3CACHE));
		rm_out_str(out, PKG_MODEL, model_of(t, pkg));
		out_index(out, PKG_PACKAGE_ID, rm_topo_os_index(pkg));
		rm_out_end(out);
	}
	hwloc_bitmap_free(nodes);
	listing_end(t, &f, out);
	return RM_EXIT_SUCCESS;
}

/* ---- nodes ---- */

enum { NODE_NODE, NODE_CPUS, NODE_MEMORY, NODE_FREE, NODE_DISTANCES, NODE_PACKAGES,
       NODE_MEMORY_ONLY, NODE_TIER, NODE_NEAREST, NODE_USED,
       /* the HMAT: initiators, read and write bandwidth, read and write latency, per access class */
       NODE_ACCESS0, NODE_ACCESS1 = NODE_ACCESS0 + 5, NODE_CACHES = NODE_ACCESS1 + 5, NODE_ORIGIN };
static const char node_defaults[] =
	"node,cpus,memory,free,distances,packages,memory_only,tier,nearest";
static const struct rm_column node_cols[] = {
	[NODE_NODE] = { "node", RM_COL_INT, "NUMA node, as the kernel numbers it" },
	[NODE_CPUS] = { "cpus", RM_COL_SET, "the node's CPUs (\"\" for a CPU-less node)" },
	[NODE_MEMORY] = { "memory", RM_COL_SIZE, "memory on the node" },
	[NODE_FREE] = { "free", RM_COL_SIZE, "free memory on the node (live machine and snapshots)" },
	[NODE_DISTANCES] = { "distances", RM_COL_STRING, "distances to every node, in node order" },
	[NODE_PACKAGES] = { "packages", RM_COL_SET, "packages with CPUs on the node (logical ids)" },
	[NODE_MEMORY_ONLY] = { "memory_only", RM_COL_BOOL,
			       "the node has memory and no CPUs (CXL memory, HBM)" },
	[NODE_TIER] = { "tier", RM_COL_INT,
			"the kernel's memory tier (memory_tierN; lower is faster, Linux 6.1+)" },
	[NODE_NEAREST] = { "nearest", RM_COL_INT,
			   "the nearest node with CPUs (the node itself when it has CPUs)" },
	[NODE_USED] = { "used", RM_COL_SIZE,
			"memory in use on the node: memory less free, as numastat's MemUsed" },
#define NODE_ACCESS_COLS(k, from)                                                             \
	[NODE_ACCESS##k] = { "access" #k "_initiators", RM_COL_SET,                          \
			     "the nodes of the best initiators " from " (HMAT)" },              \
	[NODE_ACCESS##k + 1] = { "access" #k "_read_bandwidth", RM_COL_INT,                  \
				 "read bandwidth in MB/s " from " (HMAT)" },                    \
	[NODE_ACCESS##k + 2] = { "access" #k "_write_bandwidth", RM_COL_INT,                 \
				 "write bandwidth in MB/s " from " (HMAT)" },                   \
	[NODE_ACCESS##k + 3] = { "access" #k "_read_latency", RM_COL_INT,                    \
				 "read latency in ns " from " (HMAT)" },                        \
	[NODE_ACCESS##k + 4] = { "access" #k "_write_latency", RM_COL_INT,                   \
				 "write latency in ns " from " (HMAT)" },
	NODE_ACCESS_COLS(0, "from any initiator")
	NODE_ACCESS_COLS(1, "from CPUs")
#undef NODE_ACCESS_COLS
	[NODE_CACHES] = { "memory_side_caches", RM_COL_STRING,
			  "memory-side caches: Llevel:size:line:indexing:write policy (HMAT)" },
	[NODE_ORIGIN] = { "origin", RM_COL_STRING,
			  "the DAX device of the node's memory, and its CXL region (region0/dax0.0)" },
};

static void node_record(struct rm_out *out, const struct numa_node *n)
{
	rm_out_begin(out);
	rm_out_int(out, NODE_NODE, n->id);
	rm_out_set(out, NODE_CPUS, n->cpus);
	if (n->meminfo) {
		rm_out_size(out, NODE_MEMORY, n->total);
		rm_out_size(out, NODE_FREE, n->free);
		rm_out_size(out, NODE_USED, n->total > n->free ? n->total - n->free : 0);
	} else if (n->memory_known) {
		rm_out_size(out, NODE_MEMORY, n->memory);
	}
	rm_out_str(out, NODE_DISTANCES, n->row);
	rm_out_set(out, NODE_PACKAGES, n->packages);
	rm_out_bool(out, NODE_MEMORY_ONLY, hwloc_bitmap_iszero(n->cpus));
	out_index(out, NODE_TIER, n->tier);
	out_index(out, NODE_NEAREST, n->nearest);
	for (int k = 0; k < 2; k++) {
		const struct numa_access *a = &n->access[k];
		int col = k ? NODE_ACCESS1 : NODE_ACCESS0;

		rm_out_set(out, col, a->initiators);
		for (int v = 0; v < 4; v++)
			out_index(out, col + 1 + v, a->value[v]);
	}
	rm_out_str(out, NODE_CACHES, n->caches);
	rm_out_str(out, NODE_ORIGIN, n->origin);
	rm_out_end(out);
}

static void node_listing(const struct numa_table *nt, struct rm_out *out, const struct filter *f)
{
	for (unsigned i = 0; i < nt->n; i++)
		if (node_kept(nt, i, f))
			node_record(out, &nt->node[i]);
}

int cmd_nodes(int argc, char **argv, struct rm_common *c)
{
	struct filter f;
	struct numa_table nt;
	struct argp argp = filter_argp;
	struct rm_out *out;

	argp.doc = "One record per NUMA node: CPUs, memory and distances.";
	listing_parse(&argp, argc, argv, c, &f, node_cols, ARRAY_SIZE(node_cols), node_defaults);
	out = rm_out_new(&c->out, "nodes", node_cols, ARRAY_SIZE(node_cols), node_defaults, true);
	listing_nodes(c, &f, &nt, rm_out_shown(out, NODE_PACKAGES));
	for (int col = NODE_ACCESS0; col <= NODE_ORIGIN; col++)
		if (rm_out_shown(out, col)) {
			numa_table_hmat(rm_input_resolve(c), &nt,
					c->out.bytes || c->out.mode == RM_OUT_JSON);
			break;
		}
	node_listing(&nt, out, &f);
	rm_out_close(out);
	rm_out_flush();
	filter_free(&f);
	numa_table_free(&nt);
	return RM_EXIT_SUCCESS;
}

/* ---- caches ---- */

enum { CACHE_CACHE, CACHE_LEVEL, CACHE_TYPE, CACHE_SIZE, CACHE_LINE, CACHE_WAYS, CACHE_CPUS,
       CACHE_ID };
static const struct rm_column cache_cols[] = {
	[CACHE_CACHE] = { "cache", RM_COL_STRING, "the cache as a calc location (l3:0)" },
	[CACHE_LEVEL] = { "level", RM_COL_INT, "cache level" },
	[CACHE_TYPE] = { "type", RM_COL_STRING, "unified, data or instruction" },
	[CACHE_SIZE] = { "size", RM_COL_SIZE, "cache size" },
	[CACHE_LINE] = { "line", RM_COL_SIZE, "line size" },
	[CACHE_WAYS] = { "ways", RM_COL_INT, "associativity (ways; 0 when fully associative)" },
	[CACHE_CPUS] = { "cpus", RM_COL_SET, "CPUs sharing the cache" },
	[CACHE_ID] = { "id", RM_COL_INT, "the kernel's cache id" },
};

int cmd_caches(int argc, char **argv, struct rm_common *c)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
		HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
	};
	struct filter f;
	struct rm_topo *t = listing_start(argc, argv, c, &f, cache_cols, ARRAY_SIZE(cache_cols), NULL,
					  "One record per cache (L1 data and instruction, L2, L3...).");
	struct rm_out *out = rm_out_new(&c->out, "caches", cache_cols, ARRAY_SIZE(cache_cols), NULL, true);

	for (size_t k = 0; k < ARRAY_SIZE(types); k++) {
		hwloc_obj_t o = NULL;

		while ((o = hwloc_get_next_obj_by_type(t->topo, types[k], o))) {
			const struct hwloc_cache_attr_s *a = &o->attr->cache;
			char *id;

			if (!hwloc_bitmap_intersects(o->cpuset, f.set))
				continue;
			id = xasprintf("%s:%u", rm_topo_type_name(o), o->logical_index);
			rm_out_begin(out);
			rm_out_str(out, CACHE_CACHE, id);
			rm_out_int(out, CACHE_LEVEL, a->depth);
			rm_out_str(out, CACHE_TYPE, a->type == HWLOC_OBJ_CACHE_DATA ? "data" :
					 a->type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction" : "unified");
			if (a->size)
				rm_out_size(out, CACHE_SIZE, a->size);
			if (a->linesize)
				rm_out_size(out, CACHE_LINE, a->linesize);
			if (a->associativity > 0)
				rm_out_int(out, CACHE_WAYS, a->associativity);
			else if (a->associativity == -1)
				rm_out_int(out, CACHE_WAYS, 0);
			rm_out_set(out, CACHE_CPUS, o->cpuset);
			out_index(out, CACHE_ID, rm_topo_os_index(o));
			rm_out_end(out);
			free(id);
		}
	}
	listing_end(t, &f, out);
	return RM_EXIT_SUCCESS;
}

/* ---- distances ---- */

enum { DIST_DISTANCE, DIST_FROM, DIST_TO, DIST_VALUE };
static const struct rm_column dist_cols[] = {
	[DIST_DISTANCE] = { "distance", RM_COL_STRING, "the pair FROM:TO" },
	[DIST_FROM] = { "from", RM_COL_INT, "NUMA node" },
	[DIST_TO] = { "to", RM_COL_INT, "NUMA node" },
	[DIST_VALUE] = { "value", RM_COL_INT, "relative distance (10 is local, as in ACPI SLIT)" },
};

static error_t distances_parse(int key, char *arg, struct argp_state *state)
{
	struct filter *f = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = f;
		break;
	case 'm':
		f->matrix = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * --matrix: one record per node, one column per node (node0=10 node1=21), as numactl -H lays
 * the matrix out; the columns are the machine's nodes, so they are known once it is loaded.
 */
static void distance_matrix(struct rm_common *c, const struct filter *f,
			    const struct numa_table *nt)
{
	unsigned n = nt->n;
	struct rm_column *cols = xcalloc(n + 1, sizeof(*cols));
	char **names = xcalloc(n + 1, sizeof(*names));
	struct rm_out *out;

	cols[0] = (struct rm_column){ "node", RM_COL_INT, "NUMA node, as the kernel numbers it" };
	for (unsigned j = 0; j < n; j++) {
		names[j] = xasprintf("node%u", nt->node[j].id);
		cols[j + 1] = (struct rm_column){ names[j], RM_COL_INT,
						  "distance to the node (10 is local)" };
	}
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, cols, n + 1, NULL);
	} else {
		out = rm_out_new(&c->out, "distances", cols, n + 1, NULL, true);
		for (unsigned i = 0; nt->dist && i < n; i++) {
			if (!node_kept(nt, i, f))
				continue;
			rm_out_begin(out);
			rm_out_int(out, 0, nt->node[i].id);
			for (unsigned j = 0; j < n; j++)
				if (nt->dist[(size_t)i * n + j] >= 0)
					rm_out_int(out, (int)j + 1, nt->dist[(size_t)i * n + j]);
			rm_out_end(out);
		}
		rm_out_close(out);
	}
	for (unsigned j = 0; j < n; j++)
		free(names[j]);
	free(names);
	free(cols);
}

int cmd_distances(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "matrix", 'm', NULL, 0,
		  "one record per node with a column per node, as numactl -H prints the matrix", 0 },
		{ 0 }
	};
	static const struct argp_child children[] = { { &filter_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp argp = {
		options, distances_parse, NULL,
		"The NUMA distance matrix, one record per pair of nodes (--matrix: per node).",
		children, NULL, NULL
	};
	struct filter f;
	struct numa_table nt;
	struct rm_out *out = NULL;

	/* the matrix's columns are the machine's nodes: --list-columns waits for the topology */
	listing_parse(&argp, argc, argv, c, &f, NULL, 0, NULL);
	if (c->out.list_columns && !f.matrix) {
		/* the input is still checked, as every listing checks it */
		rm_topo_check_input(rm_input_resolve(c));
		rm_out_list_columns(&c->out, dist_cols, ARRAY_SIZE(dist_cols), NULL);
		filter_free(&f);
		return RM_EXIT_SUCCESS;
	}
	listing_nodes(c, &f, &nt, false);
	if (!nt.dist && !c->out.list_columns)
		rm_warnx("no NUMA distances known for this machine");
	if (f.matrix) {
		distance_matrix(c, &f, &nt);
		goto done;
	}
	out = rm_out_new(&c->out, "distances", dist_cols, ARRAY_SIZE(dist_cols), NULL, true);
	for (unsigned i = 0; nt.dist && i < nt.n; i++) {
		if (!node_kept(&nt, i, &f))
			continue;
		for (unsigned j = 0; j < nt.n; j++) {
			char *id = xasprintf("%u:%u", nt.node[i].id, nt.node[j].id);
			long long v = nt.dist[(size_t)i * nt.n + j];

			rm_out_begin(out);
			rm_out_str(out, DIST_DISTANCE, id);
			rm_out_int(out, DIST_FROM, nt.node[i].id);
			rm_out_int(out, DIST_TO, nt.node[j].id);
			if (v >= 0)
				rm_out_int(out, DIST_VALUE, v);
			rm_out_end(out);
			free(id);
		}
	}
	rm_out_close(out);
done:
	rm_out_flush();
	filter_free(&f);
	numa_table_free(&nt);
	return RM_EXIT_SUCCESS;
}

/* ---- summary ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void read_hugepage_sizes(struct rm_topo *t, struct topo_summary *s)
{
	if (rm_input_sysfs(t->in)) {
		char *path = rm_sysfs_path(rm_input_root(t->in), "sys/kernel/mm/hugepages");
		DIR *dir = opendir(path);
		struct dirent *de;

		free(path);
		while (dir && (de = readdir(dir))) {
			unsigned long long kb;

			if (sscanf(de->d_name, "hugepages-%llukB", &kb) != 1)
				continue;
			s->hugepage_sizes = xrealloc(s->hugepage_sizes,
						     (s->nhugepage_sizes + 1) * sizeof(uint64_t));
			s->hugepage_sizes[s->nhugepage_sizes++] = kb * 1024;
		}
		if (dir)
			closedir(dir);
	} else {
		/* hwloc's page types of the first node, less the normal page size */
		hwloc_obj_t n = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, 0);

		for (unsigned i = 1; n && i < n->attr->numanode.page_types_len; i++) {
			s->hugepage_sizes = xrealloc(s->hugepage_sizes,
						     (s->nhugepage_sizes + 1) * sizeof(uint64_t));
			s->hugepage_sizes[s->nhugepage_sizes++] = n->attr->numanode.page_types[i].size;
		}
	}
	if (s->nhugepage_sizes)
		qsort(s->hugepage_sizes, s->nhugepage_sizes, sizeof(uint64_t), cmp_u64);
}

void topo_summary_read(struct rm_topo *t, struct topo_summary *s)
{
	hwloc_obj_t root = hwloc_get_root_obj(t->topo), core = NULL, n = NULL;

	memset(s, 0, sizeof(*s));
	/* hwloc states the running kernel's architecture for a snapshot too: the snapshot's own */
	if (t->in->kind != RM_INPUT_SNAPSHOT)
		s->arch = hwloc_obj_get_info_by_name(root, "Architecture");
	else
		s->arch = s->arch_read = rm_sysfs_read(rm_input_root(t->in),
						       "proc/sys/kernel/arch");
	s->model = model_of(t, hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, 0));
	s->packages = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PACKAGE);
	s->nodes = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE);
	s->l3 = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_L3CACHE);
	s->cores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
	while ((core = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_CORE, core)))
		if (hwloc_bitmap_weight(core->cpuset) > s->threads_per_core)
			s->threads_per_core = hwloc_bitmap_weight(core->cpuset);
	if (!s->cores)
		s->threads_per_core = 1;
	s->cpus = all_cpus(t);
	/* hwloc read each node's MemTotal already; a snapshot without a node's meminfo leaves
	 * the total unknown rather than short */
	while ((n = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, n))) {
		char *path = xasprintf("sys/devices/system/node/node%u/meminfo", n->os_index);
		bool known = t->in->kind != RM_INPUT_SNAPSHOT ||
			     rm_sysfs_exists(rm_input_root(t->in), path);

		free(path);
		if (!known) {
			s->memory = 0;
			break;
		}
		s->memory += n->attr->numanode.local_memory;
	}
	read_hugepage_sizes(t, s);
}

void topo_summary_free(struct topo_summary *s)
{
	hwloc_bitmap_free(s->cpus);
	free(s->hugepage_sizes);
	free(s->arch_read);
}

enum { M_MACHINE, M_ARCH, M_MODEL, M_PACKAGES, M_NODES, M_L3, M_CORES, M_CPUS, M_THREADS,
       M_ONLINE, M_OFFLINE, M_ISOLATED, M_NOHZ_FULL, M_MEMORY, M_HUGEPAGES, M_ALLOWED,
       M_MEMORY_ONLY, M_THP, M_NUMA_BALANCING, M_ZONE_RECLAIM, M_KSM };
static const struct rm_column machine_cols[] = {
	[M_MACHINE] = { "machine", RM_COL_STRING, "host name (\"-\" for snapshots without one)" },
	[M_ARCH] = { "arch", RM_COL_STRING, "architecture" },
	[M_MODEL] = { "model", RM_COL_STRING, "CPU model name" },
	[M_PACKAGES] = { "packages", RM_COL_INT, "number of packages (sockets)" },
	[M_NODES] = { "nodes", RM_COL_INT, "number of NUMA nodes" },
	[M_L3] = { "l3", RM_COL_INT, "number of L3 caches" },
	[M_CORES] = { "cores", RM_COL_INT, "number of cores (of online CPUs)" },
	[M_CPUS] = { "cpus", RM_COL_INT, "number of CPUs present, online or not" },
	[M_THREADS] = { "threads_per_core", RM_COL_INT, "most hardware threads in one core" },
	[M_ONLINE] = { "online", RM_COL_SET, "online CPUs" },
	[M_OFFLINE] = { "offline", RM_COL_SET, "offline CPUs" },
	[M_ISOLATED] = { "isolated", RM_COL_SET, "CPUs isolated from the scheduler (isolcpus=)" },
	[M_NOHZ_FULL] = { "nohz_full", RM_COL_SET, "adaptive-tick CPUs (nohz_full=)" },
	[M_MEMORY] = { "memory", RM_COL_SIZE, "memory on all NUMA nodes" },
	[M_HUGEPAGES] = { "hugepage_sizes", RM_COL_STRING, "huge page sizes the kernel offers" },
	[M_ALLOWED] = { "allowed", RM_COL_SET, "CPUs in this process's cpuset (cgroup)" },
	[M_MEMORY_ONLY] = { "memory_only_nodes", RM_COL_SET,
			    "NUMA nodes with memory and no CPUs (CXL memory, HBM)" },
	[M_THP] = { "thp", RM_COL_STRING,
		    "transparent huge pages: always, madvise or never" },
	[M_NUMA_BALANCING] = { "numa_balancing", RM_COL_INT,
			       "automatic NUMA balancing: 0 off, 1 on, 2 memory tiering, 3 both" },
	[M_ZONE_RECLAIM] = { "zone_reclaim_mode", RM_COL_INT,
			     "reclaim on the local node before using another (0: off)" },
	[M_KSM] = { "ksm", RM_COL_INT, "same-page merging: 0 stopped, 1 running, 2 unmerging" },
};

/* What moves a process's memory or makes its latency vary behind its back: the kernel's
 * settings, read from FILE under the machine's root; NULL when not known. */
static char *setting(struct rm_topo *t, const char *file)
{
	char *v;

	if (!rm_input_sysfs(t->in))
		return NULL;
	v = rm_sysfs_read(rm_input_root(t->in), file);
	if (v && !strcmp(file, "sys/kernel/mm/transparent_hugepage/enabled")) {
		/* "always [madvise] never": the bracketed one */
		char *b = strchr(v, '['), *e = b ? strchr(b, ']') : NULL;

		if (!e) {
			free(v);
			return NULL;
		}
		*e = '\0';
		memmove(v, b + 1, strlen(b + 1) + 1);
	}
	return v;
}

static void out_setting(struct rm_topo *t, struct rm_out *out, int col, const char *file)
{
	char *v = setting(t, file), *end;
	long n;

	if (v && machine_cols[col].type == RM_COL_INT) {
		n = strtol(v, &end, 10);
		if (end != v && !*end)
			rm_out_int(out, col, n);
		else
			rm_out_str(out, col, NULL);
	} else {
		rm_out_str(out, col, v);
	}
	free(v);
}

static char *host_name(struct rm_topo *t)
{
	struct utsname u;

	if (t->in->kind == RM_INPUT_SNAPSHOT)
		return rm_sysfs_read(rm_input_root(t->in), "proc/sys/kernel/hostname");
	if (rm_input_here(t->in) && uname(&u) == 0)
		return xstrdup(u.nodename);
	return NULL;
}

static error_t no_operands(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_ARG)
		argp_error(state, "unexpected argument: '%s'", arg);
	return ARGP_ERR_UNKNOWN;
}

static const struct argp summary_argp = {
	NULL, no_operands, NULL,
	"The machine record (counts, CPU states, memory, huge page sizes), then one record per NUMA node.",
	NULL, NULL, NULL
};

int cmd_summary(int argc, char **argv, struct rm_common *c)
{
	struct rm_out *mout, *nout;
	struct numa_table nt;
	struct topo_summary s;
	struct rm_topo *t;
	char *host, *sizes = NULL;
	size_t len = 0;

	rm_parse_command(&summary_argp, argc, argv, c, NULL, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, machine_cols, ARRAY_SIZE(machine_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	t = rm_topo_load(c, 0);
	topo_summary_read(t, &s);
	host = host_name(t);
	for (int i = 0; i < s.nhugepage_sizes; i++) {
		/* sizes in bytes for --bytes and --json, as in the size columns */
		char *one = c->out.bytes || c->out.mode == RM_OUT_JSON ?
			xasprintf("%" PRIu64, s.hugepage_sizes[i]) : rm_size_format(s.hugepage_sizes[i]);

		sizes = xrealloc(sizes, len + strlen(one) + 2);
		len += sprintf(sizes + len, "%s%s", i ? "," : "", one);
		free(one);
	}

	mout = rm_out_new(&c->out, "machine", machine_cols, ARRAY_SIZE(machine_cols), NULL, true);
	rm_out_begin(mout);
	rm_out_str(mout, M_MACHINE, host);
	rm_out_str(mout, M_ARCH, s.arch);
	rm_out_str(mout, M_MODEL, s.model);
	rm_out_int(mout, M_PACKAGES, s.packages);
	rm_out_int(mout, M_NODES, s.nodes);
	rm_out_int(mout, M_L3, s.l3);
	rm_out_int(mout, M_CORES, s.cores);
	rm_out_int(mout, M_CPUS, hwloc_bitmap_weight(s.cpus));
	rm_out_int(mout, M_THREADS, s.threads_per_core);
	rm_out_set(mout, M_ONLINE, t->online);
	rm_out_set(mout, M_OFFLINE, t->offline);
	rm_out_set(mout, M_ISOLATED, t->isolated);
	rm_out_set(mout, M_NOHZ_FULL, t->nohz_full);
	if (s.memory)
		rm_out_size(mout, M_MEMORY, s.memory);
	rm_out_str(mout, M_HUGEPAGES,
		   t->in->kind == RM_INPUT_SYNTHETIC || sizes ? (sizes ? sizes : "") : NULL);
	rm_out_set(mout, M_ALLOWED, t->allowed);
	rm_out_set(mout, M_MEMORY_ONLY, rm_topo_memory_only_nodes(t));
	out_setting(t, mout, M_THP, "sys/kernel/mm/transparent_hugepage/enabled");
	out_setting(t, mout, M_NUMA_BALANCING, "proc/sys/kernel/numa_balancing");
	out_setting(t, mout, M_ZONE_RECLAIM, "proc/sys/vm/zone_reclaim_mode");
	out_setting(t, mout, M_KSM, "sys/kernel/mm/ksm/run");
	rm_out_end(mout);
	rm_out_close(mout);

	/* -o selects the machine record's fields; the node records keep theirs */
	nout = rm_out_new(&c->out, "nodes", node_cols, ARRAY_SIZE(node_cols), node_defaults, false);
	numa_table_read(c, t, &nt, true);
	node_listing(&nt, nout, NULL);
	numa_table_free(&nt);
	rm_out_close(nout);
	rm_out_flush();

	free(sizes);
	free(host);
	topo_summary_free(&s);
	rm_topo_free(t);
	return RM_EXIT_SUCCESS;
}
