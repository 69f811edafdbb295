/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Topology loading through hwloc (live, snapshot, XML, synthetic) and location expressions. */
#include "config.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "sysfs.h"
#include "topology.h"
#include "xalloc.h"

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether DIR (sys/devices/system/cpu of a snapshot) has a cpuN/topology directory: without one
 * hwloc's Linux backend gives up and hwloc counts the CPUs of the machine it runs on instead. */
static bool has_cpu_topology(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		char *path;

		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		path = xasprintf("%s/%s/topology", dir, de->d_name);
		found = is_dir(path);
		free(path);
	}
	if (d)
		closedir(d);
	return found;
}

static hwloc_bitmap_t read_cpu_set(const char *root, const char *file)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *path = xasprintf("sys/devices/system/cpu/%s", file);

	if (rm_sysfs_read_set(root, path, set) < 0) {
		hwloc_bitmap_free(set);
		set = NULL;
	}
	free(path);
	return set;
}

/* isolcpus= and nohz_full= as the kernel states them; both files may be absent on old kernels. */
static void read_cpu_states(struct rm_topo *t)
{
	hwloc_const_bitmap_t complete = hwloc_topology_get_complete_cpuset(t->topo);
	const char *root = rm_input_root(t->in);

	t->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t->topo));
	t->possible = read_cpu_set(root, "possible");
	t->present = read_cpu_set(root, "present");
	t->online = read_cpu_set(root, "online");
	t->isolated = read_cpu_set(root, "isolated");
	t->nohz_full = read_cpu_set(root, "nohz_full");

	if (!t->online)
		t->online = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->topo));
	/* Offline means present but not online, as lscpu counts it; the kernel's "offline" file
	 * also lists possible CPUs that are not even present. */
	t->offline = hwloc_bitmap_dup(t->present ? t->present : complete);
	hwloc_bitmap_andnot(t->offline, t->offline, t->online);
}

/* CPU states of an XML or synthetic topology: what hwloc knows. */
static void hwloc_cpu_states(struct rm_topo *t)
{
	t->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t->topo));
	t->online = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->topo));
	t->offline = hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(t->topo));
	hwloc_bitmap_andnot(t->offline, t->offline, t->online);
	t->present = hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(t->topo));
	t->possible = hwloc_bitmap_dup(t->present);
	if (t->in->kind == RM_INPUT_SYNTHETIC) {
		/* a described machine has no isolated CPUs, rather than unknown ones */
		t->isolated = hwloc_bitmap_alloc();
		t->nohz_full = hwloc_bitmap_alloc();
	}
}

/* Each node's own CPUs from the kernel (nodeN/cpulist), among the CPUs hwloc has objects for
 * (as in hwloc's cpusets); false when a node has no such file (XML, synthetic, a kernel without
 * NUMA, a snapshot without node/). */
static bool node_cpus_from_sysfs(struct rm_topo *t)
{
	hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(t->topo);

	if (!rm_input_sysfs(t->in))
		return false;
	for (unsigned i = 0; i < t->nnodes; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i);
		char *path = xasprintf("sys/devices/system/node/node%u/cpulist", o->os_index);
		int rc = rm_sysfs_read_set(rm_input_root(t->in), path, t->node[i].cpus);

		free(path);
		if (rc < 0)
			return false;
		hwloc_bitmap_and(t->node[i].cpus, t->node[i].cpus, all);
	}
	return true;
}

/*
 * Each node's own CPUs from hwloc alone. hwloc attaches a CPU-less node beside the node its
 * memory is nearest to (or higher up), so the node's cpuset is that place's CPUs. The rule: a
 * CPU belongs to the node with the smallest cpuset holding it, the lowest os index among nodes
 * with equal cpusets; so among nodes sharing one cpuset the lowest os index owns the CPUs and
 * the others are memory-only, and a node attached above CPU nodes owns none of their CPUs.
 */
static void node_cpus_from_hwloc(struct rm_topo *t)
{
	int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(t->topo));
	size_t ncpus = last >= 0 ? (size_t)last + 1 : 0;
	/* the node owning each CPU so far, and its weight: one pass over each node's cpuset */
	hwloc_obj_t *owner = xcalloc(ncpus ? ncpus : 1, sizeof(*owner));
	int *owner_weight = xcalloc(ncpus ? ncpus : 1, sizeof(*owner_weight));
	hwloc_obj_t o = NULL;
	unsigned cpu;

	while ((o = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, o))) {
		int w;

		if (!o->cpuset)
			continue;
		w = hwloc_bitmap_weight(o->cpuset);
		hwloc_bitmap_foreach_begin(cpu, o->cpuset) {
			hwloc_obj_t b;

			if (cpu >= ncpus)
				break;
			b = owner[cpu];
			if (!b || w < owner_weight[cpu] ||
			    (w == owner_weight[cpu] && o->os_index < b->os_index)) {
				owner[cpu] = o;
				owner_weight[cpu] = w;
			}
		} hwloc_bitmap_foreach_end();
	}
	for (unsigned i = 0; i < t->nnodes; i++)
		hwloc_bitmap_zero(t->node[i].cpus);
	for (cpu = 0; cpu < ncpus; cpu++)
		if (owner[cpu])
			hwloc_bitmap_set(t->node[owner[cpu]->logical_index].cpus, cpu);
	free(owner);
	free(owner_weight);
}

void rm_topo_read_tiers(const struct rm_input *in, int *tier, unsigned ntier)
{
	const char *root = rm_input_root(in);
	char *dir = rm_sysfs_path(root, "sys/devices/virtual/memory_tiering");
	DIR *d = rm_input_sysfs(in) ? opendir(dir) : NULL;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	struct dirent *de;

	free(dir);
	for (unsigned i = 0; i < ntier; i++)
		tier[i] = -1;
	while (d && (de = readdir(d))) {
		unsigned n, id;
		char tail, *path;

		if (sscanf(de->d_name, "memory_tier%u%c", &n, &tail) != 1)
			continue;
		path = xasprintf("sys/devices/virtual/memory_tiering/%s/nodelist", de->d_name);
		hwloc_bitmap_zero(set);
		if (rm_sysfs_read_set(root, path, set) == 0)
			hwloc_bitmap_foreach_begin(id, set) {
				if (id < ntier)
					tier[id] = (int)n;
			} hwloc_bitmap_foreach_end();
		free(path);
	}
	if (d)
		closedir(d);
	hwloc_bitmap_free(set);
}

/* Each node's memory tier (rm_topo_read_tiers) by logical index. */
static void read_tiers(struct rm_topo *t)
{
	unsigned n = 0;
	int *tier;

	for (unsigned i = 0; i < t->nnodes; i++) {
		unsigned id = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i)->os_index;

		if (id >= n)
			n = id + 1;
	}
	tier = xcalloc(n ? n : 1, sizeof(*tier));
	rm_topo_read_tiers(t->in, tier, n);
	for (unsigned i = 0; i < t->nnodes; i++)
		t->node[i].tier =
			tier[hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i)->os_index];
	free(tier);
}

/* The nearest node with CPUs of each memory-only node: by the distance matrix, ties to the
 * lowest id; without one, the node owning the first CPU of the place hwloc attached it. */
static void find_nearest(struct rm_topo *t)
{
	struct hwloc_distances_s *d = rm_topo_numa_distances(t);

	for (unsigned i = 0; i < t->nnodes; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i), best = NULL;
		int a = d ? hwloc_distances_obj_index(d, o) : -1;
		hwloc_uint64_t bestv = 0;

		if (!hwloc_bitmap_iszero(t->node[i].cpus)) {
			t->node[i].nearest = o;
			continue;
		}
		for (unsigned k = 0; a >= 0 && k < t->nnodes; k++) {
			hwloc_obj_t c = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, k);
			int b = hwloc_distances_obj_index(d, c);
			hwloc_uint64_t v;

			if (b < 0 || hwloc_bitmap_iszero(t->node[k].cpus))
				continue;
			v = d->values[a * d->nbobjs + b];
			if (!best || v < bestv || (v == bestv && c->os_index < best->os_index)) {
				best = c;
				bestv = v;
			}
		}
		if (!best && a < 0 && o->cpuset && !hwloc_bitmap_iszero(o->cpuset))
			best = rm_topo_cpu_node(t, (unsigned)hwloc_bitmap_first(o->cpuset));
		t->node[i].nearest = best;
	}
	if (d)
		hwloc_distances_release(t->topo, d);
}

static void read_nodes(struct rm_topo *t)
{
	int n = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE);

	t->nnodes = n > 0 ? (unsigned)n : 0;
	t->node = xcalloc(t->nnodes ? t->nnodes : 1, sizeof(*t->node));
	t->memory_only = hwloc_bitmap_alloc();
	for (unsigned i = 0; i < t->nnodes; i++) {
		t->node[i].cpus = hwloc_bitmap_alloc();
		t->node[i].tier = -1;
	}
	if (!node_cpus_from_sysfs(t))
		node_cpus_from_hwloc(t);
	for (unsigned i = 0; i < t->nnodes; i++)
		if (hwloc_bitmap_iszero(t->node[i].cpus))
			hwloc_bitmap_set(t->memory_only,
					 hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i)->os_index);
	read_tiers(t);
	find_nearest(t);
}

/* What an XML or synthetic topology stands on (rm_topo_wrap): a described machine. */
static const struct rm_input described = {
	.kind = RM_INPUT_SYNTHETIC,
	.sysroot_fd = -1,
	.cgroup_fd = -1,
	.resctrl_fd = -1,
};

void rm_topo_check_input(const struct rm_input *in)
{
	const char *root = rm_input_root(in);
	char *cpu;

	rm_input_check(in);
	if (in->kind != RM_INPUT_SNAPSHOT)
		return;
	cpu = rm_sysfs_path(root, "sys/devices/system/cpu");
	if (!is_dir(root))
		rm_input_invalid(in, "no such directory");
	if (!is_dir(cpu))
		rm_input_invalid(in, "not a snapshot (no sys/devices/system/cpu)");
	if (!has_cpu_topology(cpu))
		rm_input_invalid(in, "not a snapshot (no sys/devices/system/cpu/cpuN/topology)");
	free(cpu);
}

struct rm_topo *rm_topo_load(const struct rm_common *c, unsigned flags)
{
	const struct rm_input *in = rm_input_resolve(c);
	const char *root = rm_input_root(in);
	struct rm_topo *t = xcalloc(1, sizeof(*t));
	unsigned long hflags = 0;
	char *xml = NULL;
	size_t xml_size;

	t->in = in;
	/* hwloc loads every plugin at the first init, and they pull in large libraries (X11,
	 * OpenCL, libxml2 with ICU): keep PCI only when devices are asked for, libxml2 only to
	 * read XML (hwloc's own XML reader is the fallback). */
	setenv("HWLOC_PLUGINS_BLACKLIST",
	       in->kind == RM_INPUT_XML ?
		       (flags & RM_TOPO_WANT_IO ? "hwloc_gl,hwloc_opencl" :
						  "hwloc_gl,hwloc_opencl,hwloc_pci") :
		       (flags & RM_TOPO_WANT_IO ? "hwloc_gl,hwloc_opencl,hwloc_xml_libxml" :
						  "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml"),
	       0);

	rm_topo_check_input(in);
	if (in->kind == RM_INPUT_SNAPSHOT) {
		/* hwloc's Linux backend reads /sys and /proc under this root (as hwloc --input does) */
		setenv("HWLOC_FSROOT", root, 1);
		unsetenv("HWLOC_XMLFILE");
		unsetenv("HWLOC_SYNTHETIC");
	}

	if (hwloc_topology_init(&t->topo) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot initialize hwloc");
	/* The x86 backend binds to every CPU to run cpuid; sysfs already says what we report. */
	hwloc_topology_set_components(t->topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
	if (rm_input_sysfs(in))
		hflags |= HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED;
	hwloc_topology_set_flags(t->topo, hflags);
	/* hwloc drops instruction caches by default; the caches listing has l1i records */
	hwloc_topology_set_icache_types_filter(t->topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (flags & RM_TOPO_WANT_IO)
		hwloc_topology_set_io_types_filter(t->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);

	/* an XML file is read once and bounded here, and given to hwloc as a buffer: never a FIFO
	 * or a device read forever, nor a file changed in between */
	if (in->kind == RM_INPUT_XML && (xml = rm_input_xml(in, &xml_size),
					 hwloc_topology_set_xmlbuffer(t->topo, xml,
								      (int)xml_size + 1) < 0))
		rm_input_invalid(in, "not a valid hwloc topology XML file");
	if (in->kind == RM_INPUT_SYNTHETIC &&
	    hwloc_topology_set_synthetic(t->topo, in->topology) < 0)
		rm_input_invalid(in, "invalid synthetic topology");
	if (hwloc_topology_load(t->topo) < 0) {
		if (in->kind == RM_INPUT_XML)
			rm_input_invalid(in, "not a valid hwloc topology XML file");
		rm_err(RM_EXIT_FAILURE, "cannot load the topology");
	}
	free(xml);
	if (in->kind == RM_INPUT_SNAPSHOT &&
	    (hwloc_bitmap_iszero(hwloc_topology_get_complete_cpuset(t->topo)) ||
	     !hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->topo), "Backend")))
		rm_input_invalid(in, "not a snapshot (no CPUs found)");

	if (rm_input_sysfs(in))
		read_cpu_states(t);
	else
		hwloc_cpu_states(t);
	read_nodes(t);
	return t;
}

struct rm_topo *rm_topo_wrap(hwloc_topology_t topo)
{
	struct rm_topo *t = xcalloc(1, sizeof(*t));

	t->topo = topo;
	t->borrowed = true;
	t->in = &described;
	hwloc_cpu_states(t);
	read_nodes(t);
	return t;
}

void rm_topo_free(struct rm_topo *t)
{
	if (!t)
		return;
	hwloc_bitmap_free(t->possible);
	hwloc_bitmap_free(t->present);
	hwloc_bitmap_free(t->online);
	hwloc_bitmap_free(t->offline);
	hwloc_bitmap_free(t->isolated);
	hwloc_bitmap_free(t->nohz_full);
	hwloc_bitmap_free(t->allowed);
	for (unsigned i = 0; i < t->nnodes; i++)
		hwloc_bitmap_free(t->node[i].cpus);
	free(t->node);
	hwloc_bitmap_free(t->memory_only);
	if (!t->borrowed)
		hwloc_topology_destroy(t->topo);
	free(t);
}

static const struct {
	const char *name;
	hwloc_obj_type_t type;
} type_names[] = {
	{ "machine", HWLOC_OBJ_MACHINE }, { "package", HWLOC_OBJ_PACKAGE },
	{ "socket", HWLOC_OBJ_PACKAGE },  { "die", HWLOC_OBJ_DIE },
	{ "node", HWLOC_OBJ_NUMANODE },   { "numa", HWLOC_OBJ_NUMANODE },
	{ "numanode", HWLOC_OBJ_NUMANODE }, { "group", HWLOC_OBJ_GROUP },
	{ "l3", HWLOC_OBJ_L3CACHE },      { "l2", HWLOC_OBJ_L2CACHE },
	{ "l1", HWLOC_OBJ_L1CACHE },      { "l1d", HWLOC_OBJ_L1CACHE },
	{ "l1i", HWLOC_OBJ_L1ICACHE },    { "l4", HWLOC_OBJ_L4CACHE },
	{ "core", HWLOC_OBJ_CORE },       { "cpu", HWLOC_OBJ_PU },
	{ "pu", HWLOC_OBJ_PU },
};

int rm_topo_type_parse(const char *name, hwloc_obj_type_t *type, int *cache_depth)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (!strcasecmp(name, type_names[i].name)) {
			*type = type_names[i].type;
			if (cache_depth)
				*cache_depth = hwloc_obj_type_is_cache(*type) ?
					(name[1] - '0') : 0;
			return 0;
		}
	return -1;
}

const char *rm_topo_type_name(hwloc_obj_t obj)
{
	switch (obj->type) {
	case HWLOC_OBJ_MACHINE: return "machine";
	case HWLOC_OBJ_PACKAGE: return "package";
	case HWLOC_OBJ_DIE: return "die";
	case HWLOC_OBJ_NUMANODE: return "node";
	case HWLOC_OBJ_GROUP: return "group";
	case HWLOC_OBJ_L1CACHE: return "l1";
	case HWLOC_OBJ_L1ICACHE: return "l1i";
	case HWLOC_OBJ_L2CACHE: return "l2";
	case HWLOC_OBJ_L3CACHE: return "l3";
	case HWLOC_OBJ_L4CACHE: return "l4";
	case HWLOC_OBJ_CORE: return "core";
	case HWLOC_OBJ_PU: return "cpu";
	default: return hwloc_obj_type_string(obj->type);
	}
}

int rm_topo_objects(struct rm_topo *t, const char *type_name, hwloc_obj_t **objs)
{
	hwloc_obj_type_t type;
	int n;

	*objs = NULL;
	if (rm_topo_type_parse(type_name, &type, NULL) < 0)
		return 0;
	n = hwloc_get_nbobjs_by_type(t->topo, type);
	if (n <= 0)
		return 0;
	*objs = xcalloc(n, sizeof(hwloc_obj_t));
	for (int i = 0; i < n; i++)
		(*objs)[i] = hwloc_get_obj_by_type(t->topo, type, i);
	return n;
}

long rm_topo_os_index(hwloc_obj_t obj)
{
	return obj->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (long)obj->os_index;
}

/* Objects of TYPE inside PARENT whose logical (or os) index is in IDX; their cpusets into SET,
 * and the objects themselves into NEXT for the next level of "a:1.b:2". */
static int select_inside(struct rm_topo *t, hwloc_obj_t parent, hwloc_obj_type_t type,
			 hwloc_const_bitmap_t idx, bool physical, hwloc_obj_t **next, int *nnext)
{
	int n, found = 0;
	bool top = parent == hwloc_get_root_obj(t->topo);

	/* At the top level count every object (CPU-less NUMA nodes included); below, those inside. */
	n = top ? hwloc_get_nbobjs_by_type(t->topo, type) :
		  hwloc_get_nbobjs_inside_cpuset_by_type(t->topo, parent->cpuset, type);
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = top ? hwloc_get_obj_by_type(t->topo, type, i) :
				      hwloc_get_obj_inside_cpuset_by_type(t->topo, parent->cpuset, type, i);
		long key = physical ? rm_topo_os_index(o) : i;

		if (!o || key < 0 || !hwloc_bitmap_isset(idx, (unsigned)key))
			continue;
		*next = xrealloc(*next, (*nnext + 1) * sizeof(hwloc_obj_t));
		(*next)[(*nnext)++] = o;
		found++;
	}
	return found;
}

int rm_topo_location(struct rm_topo *t, const char *expr, bool physical, hwloc_bitmap_t set,
		     char **errmsg)
{
	char *copy, *part, *save = NULL, *msg = NULL;
	hwloc_obj_t *cur, *next = NULL;
	int ncur = 1, nnext = 0, rc = -1;
	hwloc_bitmap_t idx;

	if (!strcasecmp(expr, "all")) {
		hwloc_bitmap_or(set, set, hwloc_topology_get_complete_cpuset(t->topo));
		return 0;
	}
	/* TYPE:INDEXES starts with a letter; anything else is a cpulist, stride or mask */
	if (!isalpha((unsigned char)expr[0]) || !strchr(expr, ':')) {
		hwloc_bitmap_t s = hwloc_bitmap_alloc();

		rc = rm_cpulist_parse(expr, s, &msg);
		if (rc == 0 && (rc = rm_topo_check_cpus(t, s, &msg)) == 0)
			hwloc_bitmap_or(set, set, s);
		if (rc < 0)
			*errmsg = msg;
		hwloc_bitmap_free(s);
		return rc;
	}

	cur = xmalloc(sizeof(hwloc_obj_t));
	cur[0] = hwloc_get_root_obj(t->topo);
	idx = hwloc_bitmap_alloc();
	copy = xstrdup(expr);
	for (part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		char *colon = strchr(part, ':');
		hwloc_obj_type_t type;

		if (!colon || !colon[1] || strstr(expr, "..") || expr[strlen(expr) - 1] == '.') {
			*errmsg = xasprintf("invalid location '%s': expected TYPE:INDEXES", expr);
			goto out;
		}
		*colon = '\0';
		if (rm_topo_type_parse(part, &type, NULL) < 0) {
			*errmsg = xasprintf("unknown location type '%s' in '%s'", part, expr);
			goto out;
		}
		if (!strcasecmp(colon + 1, "all")) {
			hwloc_bitmap_fill(idx);
		} else if (rm_cpulist_parse_list(colon + 1, idx, &msg) < 0) {
			*errmsg = xasprintf("invalid location '%s': %s", expr, msg);
			free(msg);
			goto out;
		}
		nnext = 0;
		for (int i = 0; i < ncur; i++)
			select_inside(t, cur[i], type, idx, physical, &next, &nnext);
		if (!nnext) {
			*errmsg = xasprintf("no such location on this machine: '%s'", expr);
			goto out;
		}
		free(cur);
		cur = next;
		ncur = nnext;
		next = NULL;
	}
	for (int i = 0; i < ncur; i++)
		hwloc_bitmap_or(set, set, cur[i]->type == HWLOC_OBJ_NUMANODE ?
					  rm_topo_node_cpus(t, cur[i]) :
					  cur[i]->cpuset ? cur[i]->cpuset :
					  hwloc_topology_get_complete_cpuset(t->topo));
	rc = 0;
out:
	free(next);
	free(cur);
	free(copy);
	hwloc_bitmap_free(idx);
	return rc;
}

void rm_topo_nodes_of(struct rm_topo *t, hwloc_const_bitmap_t cpus, hwloc_bitmap_t nodes)
{
	hwloc_obj_t node = NULL;

	hwloc_bitmap_zero(nodes);
	while ((node = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, node)))
		if (hwloc_bitmap_intersects(rm_topo_node_cpus(t, node), cpus))
			hwloc_bitmap_set(nodes, node->os_index);
}

hwloc_const_bitmap_t rm_topo_node_cpus(const struct rm_topo *t, hwloc_obj_t node)
{
	return t->node[node->logical_index].cpus;
}

bool rm_topo_node_memory_only(const struct rm_topo *t, hwloc_obj_t node)
{
	return hwloc_bitmap_iszero(t->node[node->logical_index].cpus);
}

hwloc_obj_t rm_topo_node_nearest(const struct rm_topo *t, hwloc_obj_t node)
{
	return t->node[node->logical_index].nearest;
}

int rm_topo_node_tier(const struct rm_topo *t, hwloc_obj_t node)
{
	return t->node[node->logical_index].tier;
}

hwloc_const_bitmap_t rm_topo_memory_only_nodes(const struct rm_topo *t)
{
	return t->memory_only;
}

hwloc_obj_t rm_topo_cpu_node(const struct rm_topo *t, unsigned cpu)
{
	hwloc_obj_t best = NULL;

	for (unsigned i = 0; i < t->nnodes; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i);

		if (hwloc_bitmap_isset(t->node[i].cpus, cpu) && (!best || o->os_index < best->os_index))
			best = o;
	}
	return best;
}

void rm_topo_cpu_table(const struct rm_topo *t, unsigned n, hwloc_obj_t *pu, hwloc_obj_t *node)
{
	hwloc_obj_t o = NULL;
	unsigned cpu;

	if (pu) {
		memset(pu, 0, n * sizeof(*pu));
		while ((o = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PU, o)))
			if (o->os_index < n)
				pu[o->os_index] = o;
	}
	if (!node)
		return;
	memset(node, 0, n * sizeof(*node));
	for (unsigned i = 0; i < t->nnodes; i++) {
		o = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, i);
		hwloc_bitmap_foreach_begin(cpu, t->node[i].cpus) {
			if (cpu >= n)
				break;
			if (!node[cpu] || o->os_index < node[cpu]->os_index)
				node[cpu] = o;
		} hwloc_bitmap_foreach_end();
	}
}

struct hwloc_distances_s *rm_topo_numa_distances(struct rm_topo *t)
{
	struct hwloc_distances_s *d[4];
	unsigned nr = 4;

	if (hwloc_distances_get_by_name(t->topo, "NUMALatency", &nr, d, 0) == 0 && nr > 0) {
		for (unsigned i = 1; i < nr; i++)
			hwloc_distances_release(t->topo, d[i]);
		return d[0];
	}
	nr = 4;
	if (hwloc_distances_get_by_type(t->topo, HWLOC_OBJ_NUMANODE, &nr, d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 && nr > 0) {
		for (unsigned i = 1; i < nr; i++)
			hwloc_distances_release(t->topo, d[i]);
		return d[0];
	}
	return NULL;
}

int rm_topo_check_cpus(struct rm_topo *t, hwloc_const_bitmap_t set, char **errmsg)
{
	hwloc_const_bitmap_t all = hwloc_topology_get_complete_cpuset(t->topo);
	hwloc_bitmap_t extra;
	char *list, *valid;

	if (hwloc_bitmap_isincluded(set, all))
		return 0;
	extra = hwloc_bitmap_dup(set);
	hwloc_bitmap_andnot(extra, extra, all);
	list = rm_cpulist_format(extra);
	valid = rm_cpulist_format(all);
	*errmsg = xasprintf("CPUs not on this machine: '%s' (it has %s)", list, valid);
	free(list);
	free(valid);
	hwloc_bitmap_free(extra);
	return -1;
}
