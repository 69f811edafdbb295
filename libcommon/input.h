/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The input of a run, decided once: live machine, --sysroot tree or --topology, and the roots. */
#ifndef RM_INPUT_H
#define RM_INPUT_H

#include <stdbool.h>

struct rm_common;

enum rm_input_kind {
	RM_INPUT_LIVE,      /* this machine */
	RM_INPUT_SNAPSHOT,  /* a /sys and /proc tree: --sysroot or RM_SYSROOT */
	RM_INPUT_XML,       /* an hwloc XML file: --topology or RM_TOPOLOGY */
	RM_INPUT_SYNTHETIC, /* a synthetic description ("package:2 core:8 pu:2"): the same */
};

/*
 * Every root is registered with the kernfs layer (rm_kernfs_root_add) when decided, so that what
 * is read and written beneath it is opened from its descriptor and never leaves it. The callers
 * ask the functions below what the input is rather than reading KIND, SYSROOT and TOPOLOGY.
 */
struct rm_input {
	enum rm_input_kind kind;
	const char *sysroot;      /* the snapshot's tree (an archive's unpacked copy), or NULL */
	const char *topology;     /* the XML file or the synthetic description, or NULL */
	int topology_errno;       /* why TOPOLOGY names no topology (EISDIR: a directory), or 0 */
	const char *env_sysroot;  /* RM_SYSROOT when set and not empty, else NULL */
	const char *env_topology; /* RM_TOPOLOGY when set and not empty, else NULL */
	bool given;               /* --sysroot or --topology on the command line */
	int sysroot_fd;           /* O_PATH descriptor of SYSROOT, -1 when none or unopenable */
	char *cgroup_root;        /* RM_CGROUP_ROOT, else /sys/fs/cgroup */
	bool cgroup_tree;         /* RM_CGROUP_ROOT: a test tree stands in for the live mounts */
	int cgroup_fd;            /* O_PATH descriptor of CGROUP_ROOT, -1 when unopenable */
	char *resctrl_root;       /* RM_RESCTRL_ROOT, else SYSROOT/sys/fs/resctrl or /sys/fs/resctrl */
	bool resctrl_tree;        /* RM_RESCTRL_ROOT: a test tree stands in for the live mount */
	int resctrl_fd;           /* O_PATH descriptor of RESCTRL_ROOT, -1 when unopenable */
};

/* The variables RM_SYSROOT and RM_TOPOLOGY as defaults for the options, before they are parsed:
 * RM_TOPOLOGY wins when both are set. */
void rm_input_defaults(const char **sysroot, const char **topology);

/*
 * Decide the input from C (its options, which override the variables), once: later calls return
 * the same. C may be NULL (the variables alone) for code that has no options. RM_SYSROOT=/ is
 * this machine; --sysroot / is a snapshot. A --topology that names an existing file is XML, else
 * one that reads as "type:count" tokens is synthetic, else it is XML with TOPOLOGY_ERRNO set.
 */
const struct rm_input *rm_input_resolve(const struct rm_common *c);

/* The input decided so far: rm_input_resolve(NULL) unless the options decided it already. */
const struct rm_input *rm_input(void);

/* Whether IN is this machine: its cgroups, resctrl groups and processes may be touched. */
bool rm_input_here(const struct rm_input *in);

/* Whether /sys and /proc can be read: this machine or a snapshot. */
bool rm_input_sysfs(const struct rm_input *in);

/* Whether IN is a described machine (XML or synthetic), which has no /sys or /proc. */
bool rm_input_described(const struct rm_input *in);

/* The tree /sys and /proc are read under: the snapshot's; NULL for this machine (and for a
 * described one). */
const char *rm_input_root(const struct rm_input *in);

/* IN as messages name it: the snapshot's tree, the XML file or the description; NULL for this
 * machine. */
const char *rm_input_name(const struct rm_input *in);

/* Exit 2 with "WHAT: 'NAME'" (1, with the reason, when out of memory): IN is not what a
 * topology is read from. */
__attribute__((noreturn)) void rm_input_invalid(const struct rm_input *in, const char *what);

/*
 * The largest machine a --topology may describe, above what Linux runs on (NR_CPUS is at most
 * 8192): hwloc builds every object of a synthetic description, and slows past these.
 */
#define RM_TOPO_MAX_PUS 16384
#define RM_TOPO_MAX_ARITY 1024          /* children of one object in a synthetic description */
#define RM_TOPO_XML_MAX (64 * 1024 * 1024) /* bytes of an XML file */

/* Exit 2 with one line when a --topology names no topology (TOPOLOGY_ERRNO): a directory, or a
 * name that is neither a file nor a synthetic description; or a synthetic description past the
 * bounds above. */
void rm_input_check(const struct rm_input *in);

/* The XML file IN names, read whole (NUL-terminated, *SIZE bytes before the NUL); exits 2 when
 * it is not a regular file or is past the bounds above (in bytes or PUs). */
char *rm_input_xml(const struct rm_input *in, size_t *size);

#endif
