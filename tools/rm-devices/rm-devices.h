/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices' commands and what they share: device selection, the allocation state, cgroups. */
#ifndef RM_DEVICES_TOOL_H
#define RM_DEVICES_TOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "devices.h"
#include "options.h"
#include "output.h"
#include "state.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The state file: $RM_STATE_DIR/devices.state */
#define DEVICES_STATE "devices"

int cmd_list(int argc, char **argv, struct rm_common *c);
int cmd_show(int argc, char **argv, struct rm_common *c);
int cmd_topo(int argc, char **argv, struct rm_common *c);
int cmd_alloc(int argc, char **argv, struct rm_common *c);
int cmd_release(int argc, char **argv, struct rm_common *c);
int cmd_list_allocations(int argc, char **argv, struct rm_common *c);
int cmd_grant(int argc, char **argv, struct rm_common *c);
int cmd_health(int argc, char **argv, struct rm_common *c);
int cmd_export(int argc, char **argv, struct rm_common *c);

/* The devices a command works on: --type, --vendor, --node, --all. */
struct filter {
	bool types[RM_DEV_NTYPES]; /* all false: every type of interest */
	bool any_type;
	int vendor;                /* -1: any */
	hwloc_bitmap_t nodes;      /* NULL: any */
	bool all;                  /* every PCI function */
};

/* The filter options as an argp child; its input is a struct filter (init with filter_init). */
extern const struct argp filter_argp;
void filter_init(struct filter *f);
void filter_free(struct filter *f);
bool filter_match(const struct filter *f, const struct rm_device *d);

/* Parse a device type list "gpu,ib" into TYPES; -1 with the bad name in *BAD. */
int parse_types(const char *arg, bool *types, const char **bad, size_t *badlen);

/*
 * Read the devices of this machine or of --sysroot (FLAGS: RM_DEVICES_*). A described topology
 * (--topology, RM_TOPOLOGY) has none: no devices, and a note on stderr. Refuses a sysroot that
 * is not a directory (exit 2).
 */
void devices_load(const struct rm_common *c, unsigned flags, struct rm_devices *devs);

/* RM_DEVICES_MEMORY when -o names the memory field (NVML is asked only then), else 0. */
unsigned memory_flags(const struct rm_common *c);

/* The sysroot of C: NULL for this machine. */
const char *devices_sysroot(const struct rm_common *c);

/* Whether cgroups are this machine's to change: the live machine, or RM_CGROUP_ROOT (tests). */
bool devices_cgroups(const struct rm_common *c);

/* The cgroup root: $RM_CGROUP_ROOT or /sys/fs/cgroup. */
const char *cgroup_root(void);

/* The v1 devices hierarchy's rmtools cgroup of OWNER, allocated; NULL when no v1 devices
 * controller is mounted (*V2 then tells whether the unified hierarchy is). */
char *devices_cgroup(const char *owner, bool *v2);

/* Remove the owner's devices cgroup if it has one (release); warns when it cannot. */
void devices_cgroup_remove(const char *owner);

/*
 * The allocation state. Records, one per allocated device:
 *   device=ADDR owner=NAME type=TYPE vendor=VVVV product=PPPP driver=DRIVER|- numa=N|- created=EPOCH
 */
void dstate_open(struct rm_state *st, bool write);
/* Owner names: valid and safe in paths; exits 2 otherwise. */
void check_owner(const char *owner);
/* Exit 2 unless every owner A names has an allocation in ST (closed and A freed then). */
void check_owners(struct rm_owners *a, struct rm_state *st);
/* Whether OWNER has a record. */
bool dstate_has_owner(const struct rm_state *st, const char *owner);

/* Allocation records: columns, defaults, one record, a listing of RECS (owner records only). */
extern const struct rm_column alloc_cols[];
extern const size_t alloc_ncols;
extern const char alloc_defaults[];
void print_allocations(const struct rm_common *c, const struct rm_record *recs, size_t n);

/* A listing of device records (-o applies), flushed. */
void print_devices(const struct rm_common *c, struct rm_device *const *devs, size_t n);

/* Exit 2 when -o names a field COLS lacks, before a command changes anything. */
void check_columns(const struct rm_common *c, const struct rm_column *cols, size_t ncols,
		   const char *defaults);

/* Exit with the status for a devices.h return value, printing MSG (freed). */
__attribute__((noreturn))
void devices_fail(int rc, char *msg);

/* export: Slurm's Type of D (the pci.ids model, lower case), NULL when unknown; allocated. */
char *gres_type(const struct rm_device *d);
/* export resourceslice: SEL (N devices) as the ResourceSlices of DRIVER's pool NODE into F,
 * LEFT_OUT (NULL or comment lines) atop the first; the unhealthy among the NH readings H are
 * tainted. */
struct rm_health;
void write_resourceslice(FILE *f, const char *driver, const char *node,
			 struct rm_device *const *sel, size_t n, const char *left_out,
			 const struct rm_health *h, size_t nh);

#endif
