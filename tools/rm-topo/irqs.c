/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-topo irqs: each IRQ's device, affinity, effective affinity, NUMA node and count per CPU. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "input.h"
#include "irq.h"
#include "output.h"
#include "rm-topo.h"
#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { I_IRQ, I_DEVICE, I_CHIP, I_HWIRQ, I_AFFINITY, I_EFFECTIVE, I_NODE, I_COUNT, I_COUNTS,
       I_MANAGED };
static const struct rm_column irq_cols[] = {
	[I_IRQ] = { "irq", RM_COL_INT, "the IRQ number (/proc/irq/N)" },
	[I_DEVICE] = { "device", RM_COL_STRING, "its actions: the handlers' names (nvme0q1, ...)" },
	[I_CHIP] = { "chip", RM_COL_STRING,
		     "the interrupt controller (PCI-MSIX-0000:41:00.0 names the PCI device)" },
	[I_HWIRQ] = { "hwirq", RM_COL_STRING, "the controller's number and trigger" },
	[I_AFFINITY] = { "affinity", RM_COL_SET, "the CPUs it may go to (smp_affinity_list)" },
	[I_EFFECTIVE] = { "effective", RM_COL_SET,
			  "the CPUs it goes to (effective_affinity_list)" },
	[I_NODE] = { "node", RM_COL_INT, "the NUMA node of its device (- for none)" },
	[I_COUNT] = { "count", RM_COL_INT, "interrupts since boot, all CPUs" },
	[I_COUNTS] = { "counts", RM_COL_STRING,
		       "interrupts since boot per CPU that took any (CPU:N,...)" },
	[I_MANAGED] = { "managed", RM_COL_BOOL,
			"the kernel manages its affinity (from debugfs; - when not mounted)" },
};
static const char irq_defaults[] = "irq,device,affinity,effective,node,count,counts";

static error_t no_operands(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_ARG)
		argp_error(state, "unexpected argument: '%s'", arg);
	return ARGP_ERR_UNKNOWN;
}

int cmd_irqs(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, no_operands, NULL,
		"One record per IRQ of /proc/irq: the device that raises it, where it may go and "
		"where it goes, its device's NUMA node, and how many interrupts each CPU took "
		"(/proc/interrupts).",
		NULL, NULL, NULL
	};
	const struct rm_input *in;
	const char *root;
	hwloc_bitmap_t set;
	struct rm_irq_counts ic;
	bool have_counts;
	struct rm_out *out;
	char *msg = NULL;
	int *irqs = NULL, n;

	rm_parse_command(&argp, argc, argv, c, NULL, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, irq_cols, ARRAY_SIZE(irq_cols), irq_defaults);
		return RM_EXIT_SUCCESS;
	}
	in = rm_input_resolve(c);
	if (rm_input_described(in))
		rm_usage_errx("irqs reads /proc/irq: a topology (--topology) has none; use --sysroot");
	root = rm_input_root(in);
	set = hwloc_bitmap_alloc();
	if ((n = rm_irq_list(root, &irqs)) < 0)
		rm_errx(RM_EXIT_FAILURE, "cannot read %s/proc/irq: %s", root ? root : "",
		     strerror(errno));
	have_counts = rm_irq_counts_read(root, "proc/interrupts", &ic, &msg) == 0;
	if (!have_counts) {
		rm_warnx("%s", msg);
		free(msg);
	}
	out = rm_out_new(&c->out, "irqs", irq_cols, ARRAY_SIZE(irq_cols), irq_defaults, true);
	for (int i = 0; i < n; i++) {
		const struct rm_irq_row *row = NULL;
		char id[16];
		int node, managed;

		snprintf(id, sizeof(id), "%d", irqs[i]);
		if (have_counts)
			row = rm_irq_counts_find(&ic, id);
		rm_out_begin(out);
		rm_out_int(out, I_IRQ, irqs[i]);
		rm_out_str(out, I_DEVICE, row ? row->actions : NULL);
		rm_out_str(out, I_CHIP, row ? row->chip : NULL);
		rm_out_str(out, I_HWIRQ, row ? row->hwirq : NULL);
		if (rm_irq_read_set(root, irqs[i], "smp_affinity_list", set) == 0)
			rm_out_set(out, I_AFFINITY, set);
		if (rm_irq_read_set(root, irqs[i], "effective_affinity_list", set) == 0)
			rm_out_set(out, I_EFFECTIVE, set);
		if ((node = rm_irq_node(root, irqs[i])) >= 0)
			rm_out_int(out, I_NODE, node);
		if (row) {
			char *counts = xstrdup("");

			rm_out_int(out, I_COUNT, (long long)row->total);
			for (int k = 0; k < ic.ncols; k++)
				if (row->count[k]) {
					char *s = xasprintf("%s%s%d:%llu", counts, *counts ? "," : "",
							    ic.cpu[k], row->count[k]);

					free(counts);
					counts = s;
				}
			rm_out_str(out, I_COUNTS, counts);
			free(counts);
		}
		if ((managed = rm_irq_managed(root, irqs[i])) >= 0)
			rm_out_bool(out, I_MANAGED, managed);
		rm_out_end(out);
	}
	rm_out_close(out);
	rm_out_flush();
	if (have_counts)
		rm_irq_counts_free(&ic);
	free(irqs);
	hwloc_bitmap_free(set);
	return RM_EXIT_SUCCESS;
}
