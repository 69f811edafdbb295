/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Quieting CPUs at run time: IRQs, workqueues, kernel threads, sysctls, the lockup detectors and
 * RPS/XPS off them, journaled. */
#ifndef RM_QUIET_H
#define RM_QUIET_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>

/* The journal: $RM_STATE_DIR/quiet.state (libcommon/state.c), one record per value changed,
 * written before the change, so that a later sync restores it after a crash:
 *   boot=BOOT_ID cpus=LIST        the boot the values belong to, the CPUs kept quiet
 *   irq=N was=LIST                /proc/irq/N/smp_affinity_list before
 *   file=PATH was=VALUE           a workqueue cpumask, a sysctl or an RPS or XPS mask before
 *                                 (PATH below the root)
 *   kthread=PID start=TICKS was=LIST   a kernel thread's affinity before
 *   unmovable=N                   an IRQ on the quiet CPUs whose affinity the kernel keeps
 * A journal of another boot is dropped: the kernel started from its defaults again. */
#define RM_QUIET_STATE "quiet"

/* The sysctls set while CPUs are quiet, with why (the man page's ISOLATION section says the
 * same). */
struct rm_quiet_sysctl {
	const char *path;  /* below the root */
	const char *value;
	const char *why;
};
extern const struct rm_quiet_sysctl rm_quiet_sysctls[];

/* What a sync left for its caller to say. */
struct rm_quiet_result {
	hwloc_bitmap_t unmovable;  /* IRQs on the quiet CPUs that cannot be moved (ids as a set) */
	char *irqbalance;          /* a note about irqbalance (restart it by hand), or NULL */
};

/*
 * Bring the machine under ROOT (NULL: this one; kernel threads are moved only there) in step
 * with QUIET, the CPUs to keep quiet (empty: restore everything): every movable IRQ's affinity,
 * the unbound workqueue cpumasks and movable kernel threads leave them for ONLINE minus QUIET,
 * the sysctls are set, irqbalance is told to ban them; each previous value is journaled first and
 * restored when QUIET no longer needs it. All or nothing: 0, or -1 with *ERRMSG after undoing
 * what was done. RES (may be NULL) gets the rest; free it with rm_quiet_result_free.
 */
int rm_quiet_sync(const char *root, hwloc_const_bitmap_t quiet, hwloc_const_bitmap_t online,
		  struct rm_quiet_result *res, char **errmsg);
void rm_quiet_result_free(struct rm_quiet_result *res);

/* The IRQs the journal found unmovable into SET (read-only; empty without a journal). */
void rm_quiet_unmovable(hwloc_bitmap_t set);

/* Kernel threads: whether PID is one, and whether its affinity can be changed (no
 * PF_NO_SETAFFINITY), from ROOT/proc/PID/stat. -1 when it cannot be read. */
int rm_quiet_kthread(const char *root, int pid, bool *movable);

/* Where irqbalance's banned CPUs are written under ROOT: a systemd drop-in when systemd runs,
 * else an environment file. Allocated. */
char *rm_quiet_irqbalance_file(const char *root);

#endif
