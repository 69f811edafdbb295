/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pool's isolated owners' CPUs kept quiet (libcommon/quiet.c), in step with every commit. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "quiet.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

bool pool_quiet_root(const struct pool *p, const char **root)
{
	if (!p->cgroups)
		return false;
	*root = NULL;
	if (rm_input_here(p->t->in))
		return true;
	/* a test tree: a sysroot with its own /proc/irq */
	*root = rm_input_root(p->t->in);
	return *root && rm_sysfs_exists(*root, "proc/irq");
}

int pool_sync_quiet(struct pool *p, const struct rm_record *records, size_t n, bool warn,
		    char **msg)
{
	hwloc_bitmap_t quiet = hwloc_bitmap_alloc(), cpus = hwloc_bitmap_alloc();
	struct rm_quiet_result res;
	const char *root;
	int rc = 0;
	char *m2 = NULL;

	/* the latency class first: it undoes itself when it fails, and is put back when the
	 * quieting fails */
	if ((rc = pool_sync_latency(p, records, n, warn, msg)))
		goto out;
	if (!pool_quiet_root(p, &root))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rm_record_kind(&records[i]), "owner") &&
		    !strcmp(rm_record_get(&records[i], "isolate") ?: "no", "yes")) {
			pool_owner_cpus(&records[i], cpus);
			hwloc_bitmap_or(quiet, quiet, cpus);
		}
	hwloc_bitmap_and(quiet, quiet, p->all);
	/* what moves goes to the CPUs the kernel was not told to keep quiet at boot, if any */
	hwloc_bitmap_copy(cpus, p->all);
	if (p->t->isolated)
		hwloc_bitmap_andnot(cpus, cpus, p->t->isolated);
	if (p->t->nohz_full)
		hwloc_bitmap_andnot(cpus, cpus, p->t->nohz_full);
	if (!hwloc_bitmap_isincluded(cpus, quiet))
		hwloc_bitmap_or(cpus, cpus, quiet);
	else
		hwloc_bitmap_copy(cpus, p->all);
	if ((rc = rm_quiet_sync(root, quiet, cpus, &res, msg))) {
		if (records != p->before)
			pool_sync_latency(p, p->before, p->nbefore, false, &m2);
		free(m2);
		goto out;
	}
	if (warn && !hwloc_bitmap_iszero(res.unmovable)) {
		char *irqs = rm_cpulist_format(res.unmovable), *q = rm_cpulist_format(quiet);

		rm_warnx("IRQs %s stay on CPUs %s: the kernel keeps their affinity (managed or "
		      "per-CPU); isolcpus=managed_irq,%s on the kernel command line keeps managed "
		      "IRQs off them ('rm-cpuset boot-plan')", irqs, q, q);
		free(irqs);
		free(q);
	}
	if (warn && res.irqbalance)
		rm_warnx("%s", res.irqbalance);
	rm_quiet_result_free(&res);
out:
	hwloc_bitmap_free(quiet);
	hwloc_bitmap_free(cpus);
	return rc;
}

void pool_resync_quiet(struct pool *p)
{
	char *msg = NULL;

	if (pool_sync_quiet(p, p->st.records, p->st.nrecords, true, &msg))
		rm_errx(RM_EXIT_FAILURE, "%s; nothing was changed", msg);
}
