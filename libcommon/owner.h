/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The owner layer: valid names, and what each tool's state says owners hold, parsed and checked. */
#ifndef RM_OWNER_H
#define RM_OWNER_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>

#include "record.h"

/* The states whose records the owner layer knows. */
#define RM_OWNER_STATE_CPUSET "cpuset"   /* rm-cpuset: topology, reserved and owner records */
#define RM_OWNER_STATE_DEVICES "devices" /* rm-devices: one device record per held device */
#define RM_OWNER_STATE_STORAGE "storage" /* rm-storage: I/O limit and quota records */

/* The name of the shared pool's cgroup, which no owner may take. */
#define RM_OWNER_SHARED "shared"

/* True when NAME is a valid user-given name: [A-Za-z0-9][A-Za-z0-9_.-]{0,63}. */
bool rm_name_valid(const char *name);

/* True when NAME may name an owner: a valid name (above) other than RM_OWNER_SHARED. */
bool rm_owner_name_valid(const char *name);

/* An owner record of rm-cpuset's state: owner=NAME cpus=SET [mems=SET] [add_mems=SET]
 * [isolate=yes|no] [pid=N|-] ... An empty cpus ("") is an owner in the shared pool: its cgroup
 * runs on the shared pool's CPUs, and it has no isolation, resctrl group or added nodes. */
struct rm_cpuset_owner {
	const char *name; /* points into the records */
	unsigned line;    /* its line in the state file */
	hwloc_bitmap_t cpus, mems, add_mems; /* mems and add_mems empty when not recorded */
	bool isolate;
	bool resctrl;     /* it has a resctrl group, RM_RESCTRL_PREFIX NAME (l3_ways= recorded) */
	long pid;         /* the rm-cpuset run process that holds it, 0 for none */
};

/* A device record of rm-devices' state: device=ADDR owner=NAME type=TYPE ... */
struct rm_device_holding {
	const char *addr, *owner, *type; /* point into the records; addr is canonical */
	unsigned line;
};

/* An I/O limit record of rm-storage's state: limit=OWNER disk=NAME devno=MAJ:MIN READ_BPS=... */
struct rm_storage_limit {
	const char *owner, *disk, *devno; /* point into the records */
	unsigned line;
};

/*
 * The records of a state, typed and checked. Which records a state may hold is decided by its
 * name and version: VERSION 1 of "cpuset", "devices" and "storage" above; other names have no
 * schema (no records are typed) and any records pass.
 */
struct rm_owner_state {
	unsigned version;
	struct rm_cpuset_owner *owners; /* cpuset */
	size_t nowners;
	hwloc_bitmap_t reserved;        /* cpuset: the reserved CPUs, empty when none */
	bool strict;
	const char *topology;           /* cpuset: the topology digest, NULL for no record */
	hwloc_bitmap_t topo_cpus;       /* cpuset: the CPUs the state was made for (present) */
	hwloc_bitmap_t topo_online;     /* cpuset: those of them online then */
	struct rm_device_holding *devices; /* devices */
	size_t ndevices;
	struct rm_storage_limit *limits;   /* storage */
	size_t nlimits;
};

/*
 * Type and check the records RECS of state NAME (format VERSION), read from PATH: every record
 * of a known kind, every field the owner layer reads well-formed (owner names valid, CPU and
 * node lists in the kernel's list form, PCI addresses canonical, block device names and numbers),
 * no duplicate owner, no CPU or device held by two owners. The content must also be possible:
 * rm-cpuset's owners and reserved CPUs lie within the topology record's CPUs (which every state
 * holding them has), none of an owner's CPUs reserved, its count its number of CPUs, and an
 * owner without CPUs (in the shared pool) neither isolated nor with a resctrl group or added
 * memory nodes. Returns 0 (OS filled; the strings point into RECS), or -1 with *ERRMSG
 * "corrupt state file 'PATH': [line N: ]REASON".
 */
int rm_owner_state_parse(struct rm_owner_state *os, const char *name, unsigned version,
			 const char *path, const struct rm_record *recs, size_t n, char **errmsg);
void rm_owner_state_free(struct rm_owner_state *os);

/* The owner record named NAME, or NULL. */
const struct rm_cpuset_owner *rm_owner_find(const struct rm_owner_state *os, const char *name);

/*
 * OWNER's CPUs in rm-cpuset's state, read with the state module (shared lock, checked), and in
 * *RESCTRL (may be NULL) whether it has a resctrl group. Returns 1 (CPUS set; empty for an owner
 * in the shared pool), 0 when there is no such owner (CPUS empty, *RESCTRL false), -1 with *ERRMSG when the state cannot be read.
 */
int rm_owner_cpus(const char *owner, hwloc_bitmap_t cpus, bool *resctrl, char **errmsg);

#endif
