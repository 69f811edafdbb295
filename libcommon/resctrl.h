/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cache and memory bandwidth allocation (Intel RDT, AMD PQoS) through the resctrl file system. */
#ifndef RM_RESCTRL_H
#define RM_RESCTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwloc.h>

#include "topology.h"

#define RM_RESCTRL_ROOT_DEFAULT "/sys/fs/resctrl"
/* The control groups rmtools keeps are named RM_RESCTRL_PREFIX OWNER; it touches no other. */
#define RM_RESCTRL_PREFIX "rmtools."
/* A want's L3 mask in a domain where the group takes the default group's ways. */
#define RM_RESCTRL_FOLLOW UINT64_MAX
/* The MB value of the mba_MBps software controller that means "no limit". */
#define RM_RESCTRL_MBPS_MAX 4294967295UL

/* The unit of the MB resource's values. */
enum rm_resctrl_unit {
	RM_RESCTRL_PERCENT, /* Intel: a percentage of the full bandwidth */
	RM_RESCTRL_MBPS,    /* mounted with mba_MBps: MB per second, kept by the kernel */
	RM_RESCTRL_AMD,     /* AMD: units of 1/8 GB per second, 2048 for no limit */
};

/* One directory of info/: what the hardware offers for a resource. Unknown numbers are -1. */
struct rm_resctrl_res {
	char *name;          /* L3, L3CODE, L3DATA, L2, MB, SMBA, L3_MON, ... */
	bool cache, bw, mon; /* a cache (cbm_mask), a bandwidth (bandwidth_gran), monitoring */
	unsigned *domains;   /* the domain ids (the default group's schemata; mon: mon_data) */
	size_t ndomains;
	/* caches */
	uint64_t cbm_mask;
	int cbm_len;         /* bits in cbm_mask */
	int min_cbm_bits;
	uint64_t shareable_bits;
	int sparse;          /* non-contiguous masks allowed: 1, 0, -1 when the kernel does not say */
	long num_closids;
	/* bandwidth */
	long bw_gran, min_bw, delay_linear;
	enum rm_resctrl_unit unit;
	unsigned long bw_max; /* the value that means no limit */
	/* monitoring */
	char *mon_features;  /* comma list; NULL when unknown */
	long num_rmids;
};

/* A resctrl mount: where it is and what its info/ says. */
struct rm_resctrl {
	char *root;
	bool mounted;               /* ROOT/info exists */
	struct rm_resctrl_res *res; /* the info/ directories, sorted by name */
	size_t nres;
	struct rm_resctrl_res *l3[2]; /* L3, or L3CODE and L3DATA with CDP; NULL when absent */
	int nl3;                    /* 0, 1 or 2 (CDP) */
	struct rm_resctrl_res *mb;  /* MB or NULL */
	struct rm_resctrl_res *mon; /* L3_MON or NULL */
	long closids;               /* control groups the hardware can have, the default one
				     * included: the fewest of any allocation resource; -1 */
};

/* $RM_RESCTRL_ROOT when set and not empty, else SYSROOT/sys/fs/resctrl (SYSROOT may be NULL).
 * Allocated. */
char *rm_resctrl_root(const char *sysroot);

/* Whether the kernel has resctrl: "resctrl" in SYSROOT/proc/filesystems (SYSROOT may be NULL). */
bool rm_resctrl_supported(const char *sysroot);

/*
 * Read the mount at ROOT: nothing more when it is not mounted (RC->mounted false, 0 returned),
 * else its info/ and the default group's schemata (for the domains and the MB unit). Returns 0,
 * or -1 with *ERRMSG when a file of a mounted resctrl cannot be read or makes no sense.
 * Call rm_resctrl_close() in both cases.
 */
int rm_resctrl_open(struct rm_resctrl *rc, const char *root, char **errmsg);
void rm_resctrl_close(struct rm_resctrl *rc);

/* The resource named NAME, or NULL. */
const struct rm_resctrl_res *rm_resctrl_find(const struct rm_resctrl *rc, const char *name);

/* The unit of the MB resource as records print it: "percent", "MBps", "GBps/8". */
const char *rm_resctrl_unit_name(enum rm_resctrl_unit unit);

/* The index of domain ID in RES's domains, or -1. */
long rm_resctrl_domain_index(const struct rm_resctrl_res *res, unsigned id);

/* ---- schemata ---- */

/* One line of a schemata file: "L3:0=7ff;1=7ff" as its resource, domain ids and values. */
struct rm_resctrl_line {
	char *res;
	size_t n;
	unsigned *dom;
	char **val; /* as written, blanks removed */
};

/* Parse TEXT (lines as the kernel prints them, names padded with blanks). Returns 0, or -1 with
 * *ERRMSG: "line 2: missing ':'". */
int rm_resctrl_schemata_parse(const char *text, struct rm_resctrl_line **lines, size_t *n,
			      char **errmsg);
void rm_resctrl_lines_free(struct rm_resctrl_line *lines, size_t n);

/* A mask as schemata writes it: hex, zero-padded to the digits of CBM_LEN bits. Allocated. */
char *rm_resctrl_mask_format(uint64_t mask, int cbm_len);

/* ---- control groups ---- */

struct rm_resctrl_group {
	char *name;         /* "" for the default group */
	char *mode;         /* shareable, exclusive, pseudo-locked, ... */
	uint64_t *l3[2];    /* by domain index of rc->l3[k]; NULL without the resource */
	unsigned long *mb;  /* by domain index of rc->mb; NULL without MB */
	hwloc_bitmap_t cpus;
};

/* The control groups of a mounted resctrl: the default group first, then the others by name.
 * Returns 0, or -1 with *ERRMSG. */
int rm_resctrl_groups(const struct rm_resctrl *rc, struct rm_resctrl_group **groups, size_t *n,
		      char **errmsg);
void rm_resctrl_groups_free(struct rm_resctrl_group *groups, size_t n);

/* The ways a group uses in domain index I: its L3 masks, CDP code and data together. */
uint64_t rm_resctrl_group_ways(const struct rm_resctrl *rc, const struct rm_resctrl_group *g,
			       size_t i);

/* The L3 domain ids of CPUS: the kernel's ids of their L3 caches (hwloc's os index, from the
 * cache's id file), or their logical ids when the topology does not know them (synthetic).
 * Returns the number of CPUs in CPUS that have no L3 cache (0 when all have one). */
int rm_resctrl_l3_domains(struct rm_topo *t, hwloc_const_bitmap_t cpus, hwloc_bitmap_t ids);

/* ---- what rmtools wants ---- */

/* One control group of rmtools as it should be. */
struct rm_resctrl_want {
	const char *name;          /* RM_RESCTRL_PREFIX OWNER */
	hwloc_const_bitmap_t cpus; /* its cpus_list */
	bool exclusive;            /* its mode: exclusive (its ways are no other group's) */
	const uint64_t *l3;        /* by L3 domain index: its ways (code and data alike), or
				    * RM_RESCTRL_FOLLOW; NULL: the default group's everywhere */
	const long *mb;            /* by MB domain index: its value, or -1 to leave it; NULL */
};

/*
 * Choose NWAYS contiguous ways in every L3 domain of DOMAINS for a new group, given the groups
 * there are (GROUPS, as rm_resctrl_groups read them) and the groups rmtools wants already (WANT,
 * without the new one). Not EXCLUSIVE: ways no exclusive group has, as few of another group's
 * (but the default group's) as can be, the highest such. EXCLUSIVE: ways no other group has
 * but the default group, which loses them and must keep a valid mask (contiguous, at least
 * min_cbm_bits and 1 way); in the other domains the kernel's exclusive mode still needs
 * min_cbm_bits ways of the group's own, chosen alike. MASKS (one per L3 domain index) receives
 * the ways, or RM_RESCTRL_FOLLOW where the group keeps the default group's.
 * Also checks that a CLOSID is free, which is all it does when NWAYS is 0. Returns 0, or RM_EXIT_USAGE (a request the hardware cannot
 * meet at all) or RM_EXIT_NORESOURCE (not free now) with *ERRMSG saying what is free:
 * "no 4 contiguous free ways in L3 domain 1 (free: 0f0, 4 ways, at most 4 in a row)".
 */
int rm_resctrl_choose(const struct rm_resctrl *rc, const struct rm_resctrl_group *groups,
		      size_t ngroups, const struct rm_resctrl_want *want, size_t nwant,
		      hwloc_const_bitmap_t domains, int nways, bool exclusive, uint64_t *masks,
		      char **errmsg);

/*
 * A memory bandwidth request, "50%" or a rate ("5000MBps", "5GBps", "5GB/s"; 1 GB = 1000 MB),
 * as the MB value of this machine: a percentage rounded up to the granularity (Intel), MBps
 * (mba_MBps), or units of 1/8 GBps (AMD: a rate rounded up, a percentage of 2048). *CANON gets
 * the request as the state keeps it ("50%", "5000MBps"). Returns 0, or RM_EXIT_USAGE with
 * *ERRMSG: outside what the hardware takes, or a form its unit cannot express.
 */
int rm_resctrl_mb_value(const struct rm_resctrl *rc, const char *request, unsigned long *value,
			char **canon, char **errmsg);

/* The action for each want ("create", "update" or "keep") and the names of rmtools groups
 * that would be removed (allocated). Reads only. Returns 0, or what rm_resctrl_sync would
 * return for what it can refuse before writing, with *ERRMSG. */
int rm_resctrl_plan(const struct rm_resctrl *rc, const struct rm_resctrl_want *want, size_t n,
		    const char **actions, char ***removed, size_t *nremoved, char **errmsg);

/*
 * Make the rmtools groups exactly WANT[0..N): remove the others (their tasks and CPUs go back to
 * the default group), take the wanted exclusive ways from the default group and give it back
 * the ways no group uses next to its own, create or update each wanted group (schemata, CPUs,
 * then exclusive mode). Other groups are never changed, but for the CPUs a wanted group takes
 * from them. Everything that can be refused is checked before the first write; a write the
 * kernel refuses undoes every earlier one. Returns 0, or with *ERRMSG RM_EXIT_NORESOURCE (no
 * CLOSID, or ways another group holds now) or RM_EXIT_FAILURE (a write failed; the kernel's
 * info/last_cmd_status is quoted: "cannot write 'L3:0=700;1=7ff' to .../schemata: Invalid
 * argument (resctrl: Overlaps with exclusive group)").
 */
int rm_resctrl_sync(struct rm_resctrl *rc, const struct rm_resctrl_want *want, size_t n,
		    char **errmsg);

/* Move task PID into the group NAME under ROOT (its tasks file). Returns 0 or -1 with
 * *ERRMSG. */
int rm_resctrl_attach(const char *root, const char *name, pid_t pid, char **errmsg);

/* mount -t resctrl resctrl ROOT -o cdp,mba_MBps (as asked). Returns 0, or -1 with errno set
 * and *ERRMSG ("cannot mount resctrl on /sys/fs/resctrl with cdp: No such device"). */
int rm_resctrl_mount(const char *root, bool cdp, bool mba_mbps, char **errmsg);

/* ---- monitoring (for measurements) ---- */

/* Whether L3_MON offers EVENT (llc_occupancy, mbm_total_bytes, mbm_local_bytes). */
bool rm_resctrl_has_event(const struct rm_resctrl *rc, const char *event);

/*
 * Read EVENT of GROUP ("" for the default group, a control group's name, or
 * "GROUP/mon_groups/NAME") in the L3 domain id DOMAIN, or summed over every domain when DOMAIN
 * is negative: bytes of L3 occupied (llc_occupancy) or bytes moved since the group was made
 * (mbm_*_bytes, which wrap at the hardware's counter width). Returns 0, or -1 with *ERRMSG
 * (a file that reads "Unavailable" or "Error" included).
 */
int rm_resctrl_mon_read(const struct rm_resctrl *rc, const char *group, const char *event,
			long domain, uint64_t *value, char **errmsg);

/* The control group holding task TID: "" for the default group, else its name (allocated):
 * the group whose tasks file lists TID. Returns 0, or -1 with *ERRMSG. */
int rm_resctrl_task_group(const struct rm_resctrl *rc, pid_t tid, char **group, char **errmsg);

/* A monitoring group NAME inside GROUP ("" for the default group) holding task PID (when not
 * 0), for counting one process's share; and its removal (its tasks go back to GROUP).
 * Return 0 or -1 with *ERRMSG. */
int rm_resctrl_mon_create(const struct rm_resctrl *rc, const char *group, const char *name,
			  pid_t pid, char **errmsg);
int rm_resctrl_mon_remove(const struct rm_resctrl *rc, const char *group, const char *name,
			  char **errmsg);

#endif
