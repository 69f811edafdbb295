/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interrupts: /proc/irq/N affinities and node, /proc/interrupts and /proc/softirqs counts. */
#ifndef RM_IRQ_H
#define RM_IRQ_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>

/* One row of /proc/interrupts or /proc/softirqs. */
struct rm_irq_row {
	char *name;                 /* "24", "LOC", "TIMER", ... */
	int irq;                    /* the number of a numbered row, else -1 */
	unsigned long long *count;  /* per column (rm_irq_counts.cpu), 0 where the row has none */
	unsigned long long total;
	char *chip;                 /* "IR-PCI-MSIX-0000:41:00.0", or NULL */
	char *hwirq;                /* "0-edge", or NULL */
	char *actions;              /* "nvme0q0", the description of a named row, or NULL */
};

struct rm_irq_counts {
	int ncols;
	int *cpu;                   /* the CPU of each column (offline CPUs have none) */
	struct rm_irq_row *row;
	size_t nrows;
};

/* Read FILE ("proc/interrupts" or "proc/softirqs") under ROOT (NULL: this machine). 0, or -1
 * with *ERRMSG. */
int rm_irq_counts_read(const char *root, const char *file, struct rm_irq_counts *c,
		       char **errmsg);
void rm_irq_counts_free(struct rm_irq_counts *c);

/* The row named NAME, or NULL. */
const struct rm_irq_row *rm_irq_counts_find(const struct rm_irq_counts *c, const char *name);

/* The sum of ROW's counts on the CPUs of SET. */
unsigned long long rm_irq_row_sum(const struct rm_irq_counts *c, const struct rm_irq_row *row,
				  hwloc_const_bitmap_t set);

/* The numbered directories of ROOT/proc/irq, ascending, in *IRQS (free()). Their number, or -1
 * with errno. */
int rm_irq_list(const char *root, int **irqs);

/* ROOT/proc/irq/IRQ/FILE ("smp_affinity_list", "effective_affinity_list") into SET; -1 when
 * missing or unreadable. */
int rm_irq_read_set(const char *root, int irq, const char *file, hwloc_bitmap_t set);

/* The NUMA node of the IRQ's device (ROOT/proc/irq/IRQ/node), -1 when unknown. */
int rm_irq_node(const char *root, int irq);

/* Whether the kernel manages the IRQ's affinity itself (IRQD_AFFINITY_MANAGED in debugfs'
 * irq/irqs/IRQ): 1, 0, or -1 when debugfs does not say. */
int rm_irq_managed(const char *root, int irq);

/* Write LIST to ROOT/proc/irq/IRQ/smp_affinity_list: 0 or an errno. EIO is the kernel's answer
 * for an IRQ whose affinity cannot be set from user space (managed, per-CPU, no balancing). */
int rm_irq_set_affinity(const char *root, int irq, const char *list);

#endif
