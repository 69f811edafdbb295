/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-cpuset boot-plan: the kernel command line that quiets the isolated CPUs from boot on. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

enum { B_PLAN, B_CPUS, B_HOUSEKEEPING, B_CMDLINE, B_RUNNING, B_REBOOT, B_LATENCY };
static const struct rm_column plan_cols[] = {
	[B_PLAN] = { "boot_plan", RM_COL_STRING, "isolated: the plan for the isolated CPUs" },
	[B_CPUS] = { "cpus", RM_COL_SET,
		     "the CPUs to isolate: the isolated owners', else those outside the "
		     "reservation" },
	[B_HOUSEKEEPING] = { "housekeeping", RM_COL_SET, "the CPUs left for the kernel's work" },
	[B_CMDLINE] = { "cmdline", RM_COL_STRING,
			"the kernel parameters to add (\"\" when nothing is to isolate)" },
	[B_RUNNING] = { "running", RM_COL_STRING,
			"those parameters on the running kernel's command line" },
	[B_REBOOT] = { "reboot", RM_COL_BOOL, "the running kernel lacks the plan's parameters" },
	[B_LATENCY] = { "latency", RM_COL_STRING,
			"the owners' latency classes, set at run time with them: "
			"OWNER:CPUS:latency=USEC,governor=NAME,min_freq=KHZ ... (\"\" for none)" },
};

/* The latency classes of P's owners, one word each (latency.c sets them at run time). */
static char *latency_classes(struct pool *p)
{
	static const char *const keys[] = { "latency", "governor", "min_freq" };
	char *out = xstrdup("");

	for (size_t i = 0; i < p->st.nrecords; i++) {
		const struct rm_record *r = &p->st.records[i];
		char *word = NULL, *n;

		if (strcmp(rm_record_kind(r), "owner"))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			const char *v = rm_record_get(r, keys[k]);

			if (!v)
				continue;
			n = word ? xasprintf("%s,%s=%s", word, keys[k], v) :
				   xasprintf("%s:%s:%s=%s", rm_record_get(r, "owner"),
					     rm_record_get(r, "cpus") ?: "", keys[k], v);
			free(word);
			word = n;
		}
		if (!word)
			continue;
		n = xasprintf("%s%s%s", out, *out ? " " : "", word);
		free(word);
		free(out);
		out = n;
	}
	return out;
}

static error_t no_args(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_ARG)
		argp_error(state, "unexpected argument: '%s'", arg);
	return ARGP_ERR_UNKNOWN;
}

/* The words of the running kernel's command line that set what the plan sets. */
static char *running_params(const char *root)
{
	static const char *const keys[] = { "isolcpus=", "nohz_full=", "rcu_nocbs=",
					    "irqaffinity=", "skew_tick=", NULL };
	char *cmdline = rm_sysfs_read(root, "proc/cmdline"), *w, *save = NULL, *out = xstrdup("");

	for (w = cmdline ? strtok_r(cmdline, " \n", &save) : NULL; w;
	     w = strtok_r(NULL, " \n", &save))
		for (int k = 0; keys[k]; k++)
			if (!strncmp(w, keys[k], strlen(keys[k]))) {
				char *n = xasprintf("%s%s%s", out, *out ? " " : "", w);

				free(out);
				out = n;
			}
	free(cmdline);
	return out;
}

int cmd_boot_plan(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		NULL, no_args, NULL,
		"What needs a reboot to be quiet, planned: the kernel command line for the CPUs of "
		"the isolated owners (or, with none, the CPUs outside the reservation): "
		"isolcpus=managed_irq (managed IRQs, which cannot be moved at run time), nohz_full "
		"(no tick while one task runs), rcu_nocbs (RCU callbacks off them) and "
		"irqaffinity (where IRQs start), skew_tick=1 (the CPUs' ticks apart, not all at "
		"once); and the owners' latency classes, which are set at "
		"run time. Prints one record; changes nothing.",
		NULL, NULL, NULL
	};
	hwloc_bitmap_t cpus, set, hk;
	char *list, *hkl, *cmdline, *running, *latency;
	struct rm_out *out;
	struct pool p;

	rm_parse_command(&argp, argc, argv, c, NULL, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, plan_cols, ARRAY_SIZE(plan_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	cpus = hwloc_bitmap_alloc();
	set = hwloc_bitmap_alloc();
	hk = hwloc_bitmap_alloc();
	pool_open(&p, c, POOL_ANY_TOPOLOGY);
	for (size_t i = 0; i < p.st.nrecords; i++)
		if (!strcmp(rm_record_kind(&p.st.records[i]), "owner") &&
		    !strcmp(rm_record_get(&p.st.records[i], "isolate") ?: "no", "yes")) {
			pool_owner_cpus(&p.st.records[i], set);
			hwloc_bitmap_or(cpus, cpus, set);
		}
	if (hwloc_bitmap_iszero(cpus) && !hwloc_bitmap_iszero(p.reserved))
		hwloc_bitmap_andnot(cpus, p.present, p.reserved);
	hwloc_bitmap_andnot(hk, p.present, cpus);
	list = rm_cpulist_format(cpus);
	hkl = rm_cpulist_format(hk);
	cmdline = hwloc_bitmap_iszero(cpus) || hwloc_bitmap_iszero(hk) ? xstrdup("") :
		  xasprintf("isolcpus=managed_irq,%s nohz_full=%s rcu_nocbs=%s irqaffinity=%s "
			    "skew_tick=1", list, list, list, hkl);
	running = rm_input_sysfs(p.t->in) ? running_params(rm_input_root(p.t->in)) : NULL;

	out = rm_out_new(&c->out, "boot_plans", plan_cols, ARRAY_SIZE(plan_cols), NULL, true);
	rm_out_begin(out);
	rm_out_str(out, B_PLAN, "isolated");
	rm_out_set(out, B_CPUS, cpus);
	rm_out_set(out, B_HOUSEKEEPING, hk);
	rm_out_str(out, B_CMDLINE, cmdline);
	rm_out_str(out, B_RUNNING, running);
	if (running) {
		/* every planned word on the running command line */
		bool missing = false;
		char *dup = xstrdup(cmdline), *w, *save = NULL;

		for (w = strtok_r(dup, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			size_t n = strlen(w);
			const char *r = running;

			missing = true;
			while ((r = strstr(r, w)))
				if ((r == running || r[-1] == ' ') && (r[n] == ' ' || !r[n])) {
					missing = false;
					break;
				} else {
					r++;
				}
			if (missing)
				break;
		}
		free(dup);
		rm_out_bool(out, B_REBOOT, missing);
	}
	latency = latency_classes(&p);
	rm_out_str(out, B_LATENCY, latency);
	free(latency);
	rm_out_end(out);
	rm_out_close(out);
	rm_out_flush();
	free(list);
	free(hkl);
	free(cmdline);
	free(running);
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(hk);
	pool_close(&p);
	return RM_EXIT_SUCCESS;
}
