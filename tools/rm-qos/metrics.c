/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos's metrics: the rates and values between two samples of a target, as columns and as the
 * fields SLOs name. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rm-qos.h"
#include "size.h"
#include "xalloc.h"

const struct rm_column metric_cols[M_N] = {
	[M_OWNER] = { "owner", RM_COL_STRING, "the owner, shared (the pool) or system (the rest)" },
	[M_KIND] = { "kind", RM_COL_STRING, "owner, pool or system" },
	[M_CPUS] = { "cpus", RM_COL_SET, "its CPUs (cpuset.cpus.effective)" },
	[M_CPU_USED] = { "cpu_used", RM_COL_FLOAT, "CPUs used over the interval (cpu.stat)" },
	[M_CPU_THROTTLED] = { "cpu_throttled", RM_COL_FLOAT,
			      "percent of its cpu.max periods throttled over the interval" },
	[M_CPU_SOME] = { "cpu_some", RM_COL_FLOAT, "percent of the interval some tasks waited "
			 "for a CPU (cpu.pressure)" },
	[M_CPU_FULL] = { "cpu_full", RM_COL_FLOAT, "percent of the interval all tasks waited "
			 "for a CPU" },
	[M_CPU_SOME_AVG10] = { "cpu_some_avg10", RM_COL_FLOAT, "cpu.pressure some avg10" },
	[M_CPU_FULL_AVG10] = { "cpu_full_avg10", RM_COL_FLOAT, "cpu.pressure full avg10" },
	[M_MEMORY_SOME] = { "memory_some", RM_COL_FLOAT, "percent of the interval some tasks "
			    "stalled on memory (memory.pressure)" },
	[M_MEMORY_FULL] = { "memory_full", RM_COL_FLOAT, "percent of the interval all tasks "
			    "stalled on memory" },
	[M_MEMORY_SOME_AVG10] = { "memory_some_avg10", RM_COL_FLOAT, "memory.pressure some avg10" },
	[M_MEMORY_FULL_AVG10] = { "memory_full_avg10", RM_COL_FLOAT, "memory.pressure full avg10" },
	[M_IO_SOME] = { "io_some", RM_COL_FLOAT, "percent of the interval some tasks waited for "
			"I/O (io.pressure)" },
	[M_IO_FULL] = { "io_full", RM_COL_FLOAT, "percent of the interval all tasks waited for "
			"I/O" },
	[M_IO_SOME_AVG10] = { "io_some_avg10", RM_COL_FLOAT, "io.pressure some avg10" },
	[M_IO_FULL_AVG10] = { "io_full_avg10", RM_COL_FLOAT, "io.pressure full avg10" },
	[M_MEMORY_CURRENT] = { "memory_current", RM_COL_SIZE, "memory in use (memory.current)" },
	[M_MEMORY_HIGH] = { "memory_high", RM_COL_STRING, "memory.high: a size or max" },
	[M_MEMORY_MAX] = { "memory_max", RM_COL_STRING, "memory.max: a size or max" },
	[M_MEMORY_HIGH_EVENTS] = { "memory_high_events", RM_COL_INT,
				   "times over memory.high (memory.events high)" },
	[M_MEMORY_MAX_EVENTS] = { "memory_max_events", RM_COL_INT,
				  "times at memory.max (memory.events max)" },
	[M_MEMORY_OOM_KILL] = { "memory_oom_kill", RM_COL_INT,
				"processes the OOM killer killed (memory.events oom_kill)" },
	[M_HUGEPAGES] = { "hugepages", RM_COL_STRING, "huge pages in use per size (hugetlb)" },
	[M_IO_READ] = { "io_read", RM_COL_SIZE, "bytes read per second (io.stat)" },
	[M_IO_WRITE] = { "io_write", RM_COL_SIZE, "bytes written per second (io.stat)" },
	[M_IO_RIOS] = { "io_rios", RM_COL_FLOAT, "read operations per second" },
	[M_IO_WIOS] = { "io_wios", RM_COL_FLOAT, "write operations per second" },
	[M_IO_DEVICES] = { "io_devices", RM_COL_STRING,
			   "per device MAJ:MIN:READ/WRITE bytes per second" },
	[M_LLC_OCCUPANCY] = { "llc_occupancy", RM_COL_SIZE, "L3 occupied (resctrl monitoring)" },
	[M_MBM_BANDWIDTH] = { "mbm_bandwidth", RM_COL_SIZE,
			      "memory bandwidth per second (resctrl mbm_total_bytes)" },
	[M_IRQS] = { "irqs", RM_COL_FLOAT, "interrupts per second on its exclusive CPUs" },
	[M_UNHEALTHY_DEVICES] = { "unhealthy_devices", RM_COL_STRING,
				  "its allocated devices that rm-devices health finds unhealthy" },
};

const char *const metric_slo_names[M_N] = {
	[M_OWNER] = "owner", [M_KIND] = "kind", [M_CPUS] = "cpus",
	[M_CPU_USED] = "cpu.used", [M_CPU_THROTTLED] = "cpu.throttled",
	[M_CPU_SOME] = "cpu.pressure.some", [M_CPU_FULL] = "cpu.pressure.full",
	[M_CPU_SOME_AVG10] = "cpu.pressure.some.avg10",
	[M_CPU_FULL_AVG10] = "cpu.pressure.full.avg10",
	[M_MEMORY_SOME] = "memory.pressure.some", [M_MEMORY_FULL] = "memory.pressure.full",
	[M_MEMORY_SOME_AVG10] = "memory.pressure.some.avg10",
	[M_MEMORY_FULL_AVG10] = "memory.pressure.full.avg10",
	[M_IO_SOME] = "io.pressure.some", [M_IO_FULL] = "io.pressure.full",
	[M_IO_SOME_AVG10] = "io.pressure.some.avg10", [M_IO_FULL_AVG10] = "io.pressure.full.avg10",
	[M_MEMORY_CURRENT] = "memory.current", [M_MEMORY_HIGH] = "memory.high",
	[M_MEMORY_MAX] = "memory.max", [M_MEMORY_HIGH_EVENTS] = "memory.events.high",
	[M_MEMORY_MAX_EVENTS] = "memory.events.max", [M_MEMORY_OOM_KILL] = "memory.oom_kill",
	[M_HUGEPAGES] = "hugepages", [M_IO_READ] = "io.read", [M_IO_WRITE] = "io.write",
	[M_IO_RIOS] = "io.rios", [M_IO_WIOS] = "io.wios", [M_IO_DEVICES] = "io.devices",
	[M_LLC_OCCUPANCY] = "llc.occupancy", [M_MBM_BANDWIDTH] = "mbm.bandwidth",
	[M_IRQS] = "irqs", [M_UNHEALTHY_DEVICES] = "unhealthy_devices",
};

const char metric_defaults[] = "owner,kind,cpu_used,cpu_throttled,cpu_some,memory_some,io_some,"
			       "memory_current,memory_high_events,memory_oom_kill,io_read,io_write,"
			       "unhealthy_devices";

static void num(struct mval *v, double x, int decimals)
{
	v->kind = MV_NUM;
	v->num = x;
	v->decimals = decimals;
}

static void size(struct mval *v, double x)
{
	v->kind = MV_SIZE;
	v->size = x < 0 ? 0 : (uint64_t)(x + 0.5);
}

static void str(struct mval *v, char *s)
{
	if (s) {
		v->kind = MV_STR;
		v->str = s;
	}
}

/* A cgroup limit file's value: "max" as it is, bytes as a size. */
static char *limit(const char *s)
{
	if (!s)
		return NULL;
	if (!strcmp(s, "max"))
		return xstrdup(s);
	return rm_size_format(strtoull(s, NULL, 10));
}

static const struct iodev *iodev_of(const struct sample *s, const char *dev)
{
	for (size_t i = 0; i < s->nio; i++)
		if (!strcmp(s->io[i].dev, dev))
			return &s->io[i];
	return NULL;
}

/* Counter growth from A to B; 0 when it went back (a cgroup made again). */
static double grew(unsigned long long a, unsigned long long b)
{
	return b >= a ? (double)(b - a) : 0;
}

void metrics_get(const struct target *t, struct mval *v)
{
	const struct sample *a = &t->prev, *b = &t->cur;
	double dt = b->t - a->t;
	bool rate = a->exists && b->exists && dt > 0;

	memset(v, 0, M_N * sizeof(*v));
	str(&v[M_OWNER], xstrdup(t->name));
	str(&v[M_KIND], xstrdup(t->kind == TARGET_OWNER ? "owner"
				: t->kind == TARGET_POOL ? "pool" : "system"));
	if (!b->exists)
		return;
	if (!hwloc_bitmap_iszero(b->cpus)) {
		v[M_CPUS].kind = MV_SET;
		v[M_CPUS].set = b->cpus;
	}
	if (rate && a->have_usage && b->have_usage)
		num(&v[M_CPU_USED], grew(a->usage_usec, b->usage_usec) / 1e6 / dt, 2);
	if (rate && a->have_throttle && b->have_throttle) {
		double periods = grew(a->nr_periods, b->nr_periods);

		num(&v[M_CPU_THROTTLED],
		    periods ? 100 * grew(a->nr_throttled, b->nr_throttled) / periods : 0, 2);
	}
	for (int k = 0; k < PSI_N; k++) {
		int col = M_CPU_SOME + 4 * k;

		if (!b->psi[k].ok)
			continue;
		for (int f = 0; f < 2; f++) {
			if (rate && a->psi[k].ok) {
				double pct = 100 * grew(a->psi[k].total[f], b->psi[k].total[f]) /
					     1e6 / dt;

				num(&v[col + f], pct > 100 ? 100 : pct, 2);
			}
			num(&v[col + 2 + f], b->psi[k].avg10[f], 2);
		}
	}
	if (b->have_current)
		size(&v[M_MEMORY_CURRENT], (double)b->mem_current);
	str(&v[M_MEMORY_HIGH], limit(b->mem_high));
	str(&v[M_MEMORY_MAX], limit(b->mem_max));
	if (b->ev_high >= 0)
		num(&v[M_MEMORY_HIGH_EVENTS], (double)b->ev_high, 0);
	if (b->ev_max >= 0)
		num(&v[M_MEMORY_MAX_EVENTS], (double)b->ev_max, 0);
	if (b->ev_oom_kill >= 0)
		num(&v[M_MEMORY_OOM_KILL], (double)b->ev_oom_kill, 0);
	if (b->hugetlb)
		str(&v[M_HUGEPAGES], xstrdup(b->hugetlb));
	if (rate && a->have_io && b->have_io) {
		double r = 0, w = 0, ri = 0, wi = 0;
		char *devs = NULL;

		for (size_t i = 0; i < b->nio; i++) {
			const struct iodev *d = &b->io[i], *o = iodev_of(a, d->dev);
			struct iodev z = { 0 };
			double dr, dw;
			char *s, *rs, *ws;

			if (!o)
				o = &z;
			dr = grew(o->rbytes, d->rbytes) / dt;
			dw = grew(o->wbytes, d->wbytes) / dt;
			r += dr;
			w += dw;
			ri += grew(o->rios, d->rios) / dt;
			wi += grew(o->wios, d->wios) / dt;
			rs = rm_size_format((uint64_t)(dr + 0.5));
			ws = rm_size_format((uint64_t)(dw + 0.5));
			s = xasprintf("%s%s%s:%s/%s", devs ? devs : "", devs ? "," : "", d->dev, rs,
				      ws);
			free(rs);
			free(ws);
			free(devs);
			devs = s;
		}
		size(&v[M_IO_READ], r);
		size(&v[M_IO_WRITE], w);
		num(&v[M_IO_RIOS], ri, 1);
		num(&v[M_IO_WIOS], wi, 1);
		str(&v[M_IO_DEVICES], devs ? devs : xstrdup(""));
	}
	if (b->have_llc)
		size(&v[M_LLC_OCCUPANCY], (double)b->llc);
	if (rate && a->have_mbm && b->have_mbm)
		size(&v[M_MBM_BANDWIDTH], grew(a->mbm, b->mbm) / dt);
	if (rate && a->have_irqs && b->have_irqs)
		num(&v[M_IRQS], grew(a->irqs, b->irqs) / dt, 1);
}

void metrics_free(struct mval *v)
{
	for (int i = 0; i < M_N; i++)
		if (v[i].kind == MV_STR)
			free(v[i].str);
}

void metrics_out(struct rm_out *out, const struct mval *v)
{
	rm_out_begin(out);
	for (int i = 0; i < M_N; i++)
		switch (v[i].kind) {
		case MV_NONE:
			break;
		case MV_NUM:
			if (metric_cols[i].type == RM_COL_INT)
				rm_out_int(out, i, (long long)v[i].num);
			else
				rm_out_float(out, i, v[i].num, v[i].decimals);
			break;
		case MV_SIZE:
			rm_out_size(out, i, v[i].size);
			break;
		case MV_STR:
			rm_out_str(out, i, v[i].str);
			break;
		case MV_SET:
			rm_out_set(out, i, v[i].set);
			break;
		}
	rm_out_end(out);
}

void metrics_record(const struct mval *v, struct rm_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	for (int i = 0; i < M_N; i++) {
		char *s = NULL;

		switch (v[i].kind) {
		case MV_NONE:
			s = xstrdup("-");
			break;
		case MV_NUM:
			s = xasprintf("%.*f", v[i].decimals, v[i].num);
			break;
		case MV_SIZE:
			s = rm_size_format(v[i].size);
			break;
		case MV_STR:
			s = xstrdup(v[i].str);
			break;
		case MV_SET:
			hwloc_bitmap_list_asprintf(&s, v[i].set);
			break;
		}
		rm_record_set(rec, metric_cols[i].name, s);
		if (strcmp(metric_cols[i].name, metric_slo_names[i]))
			rm_record_set(rec, metric_slo_names[i], s);
		free(s);
	}
	rm_record_set(rec, "memory.events.oom_kill", rm_record_get(rec, "memory.oom_kill"));
}
