/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The input of a run, decided once: live machine, --sysroot tree or --topology, and the roots. */
#ifndef RM_INPUT_H
#define RM_INPUT_H

#include <stdbool.h>

struct rm_common;

enum rm_input_source {
	RM_INPUT_LIVE,     /* this machine */
	RM_INPUT_SYSROOT,  /* a /sys and /proc tree: --sysroot or RM_SYSROOT */
	RM_INPUT_TOPOLOGY, /* an hwloc XML file or synthetic description: --topology, RM_TOPOLOGY */
};

/*
 * Every root is registered with the kernfs layer (rm_kernfs_root_add) when decided, so that what
 * is read and written beneath it is opened from its descriptor and never leaves it.
 */
struct rm_input {
	enum rm_input_source source;
	const char *sysroot;      /* the tree in force, or NULL */
	const char *topology;     /* the topology in force, or NULL */
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

/* Decide the input from C (its options, which override the variables), once: later calls return
 * the same. C may be NULL (the variables alone) for code that has no options. */
const struct rm_input *rm_input_resolve(const struct rm_common *c);

/* The input decided so far: rm_input_resolve(NULL) unless the options decided it already. */
const struct rm_input *rm_input(void);

#endif
