/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos export: every owner's counters in the Prometheus text format, for node_exporter's
 * textfile collector, to standard output or one file replaced atomically. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "exitcodes.h"
#include "msg.h"
#include "options.h"
#include "rm-qos.h"
#include "size.h"
#include "xalloc.h"

enum { OPT_OUTPUT_FILE = 'o' };

struct export_args {
	char **owners;
	int n;
	const char *output;
};

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;

	switch (key) {
	case OPT_OUTPUT_FILE:
		if (!*arg)
			argp_error(state, "no file name given to --output: ''");
		a->output = arg;
		return 0;
	case ARGP_KEY_ARG:
		a->owners = xrealloc(a->owners, (a->n + 1) * sizeof(*a->owners));
		a->owners[a->n++] = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/*
 * The metric families, in the order written. Names follow Prometheus' conventions (base units
 * in the name, _total on counters) and, for pressure, the names cAdvisor and the kubelet give
 * the same files: waiting is "some", stalled is "full".
 */
enum {
	F_INFO, F_CPU_USAGE, F_CPU_PERIODS, F_CPU_THROTTLED,
	F_CPU_WAITING, F_CPU_STALLED, F_MEMORY_WAITING, F_MEMORY_STALLED, F_IO_WAITING, F_IO_STALLED,
	F_MEMORY_USAGE, F_MEMORY_HIGH, F_MEMORY_MAX, F_MEMORY_HIGH_EVENTS, F_MEMORY_MAX_EVENTS,
	F_MEMORY_OOM_KILLS, F_HUGETLB, F_IO_READ_BYTES, F_IO_WRITE_BYTES, F_IO_READS, F_IO_WRITES,
	F_LLC, F_MBM, F_IRQS, F_N
};
static const struct { const char *name, *type, *help; } families[F_N] = {
	[F_INFO] = { "rmtools_owner_info", "gauge", "An owner, the shared pool or the rest of the "
		     "system, its kind and CPUs (cpuset.cpus.effective); always 1" },
	[F_CPU_USAGE] = { "rmtools_cpu_usage_seconds_total", "counter",
			  "CPU time used (cpu.stat usage_usec)" },
	[F_CPU_PERIODS] = { "rmtools_cpu_periods_total", "counter",
			    "cpu.max enforcement periods (cpu.stat nr_periods)" },
	[F_CPU_THROTTLED] = { "rmtools_cpu_throttled_periods_total", "counter",
			      "cpu.max periods throttled (cpu.stat nr_throttled)" },
	[F_CPU_WAITING] = { "rmtools_pressure_cpu_waiting_seconds_total", "counter",
			    "Time some tasks waited for a CPU (cpu.pressure some total)" },
	[F_CPU_STALLED] = { "rmtools_pressure_cpu_stalled_seconds_total", "counter",
			    "Time all tasks waited for a CPU (cpu.pressure full total)" },
	[F_MEMORY_WAITING] = { "rmtools_pressure_memory_waiting_seconds_total", "counter",
			       "Time some tasks stalled on memory (memory.pressure some total)" },
	[F_MEMORY_STALLED] = { "rmtools_pressure_memory_stalled_seconds_total", "counter",
			       "Time all tasks stalled on memory (memory.pressure full total)" },
	[F_IO_WAITING] = { "rmtools_pressure_io_waiting_seconds_total", "counter",
			   "Time some tasks waited for I/O (io.pressure some total)" },
	[F_IO_STALLED] = { "rmtools_pressure_io_stalled_seconds_total", "counter",
			   "Time all tasks waited for I/O (io.pressure full total)" },
	[F_MEMORY_USAGE] = { "rmtools_memory_usage_bytes", "gauge",
			     "Memory in use (memory.current)" },
	[F_MEMORY_HIGH] = { "rmtools_memory_high_bytes", "gauge",
			    "memory.high, where it is not max" },
	[F_MEMORY_MAX] = { "rmtools_memory_max_bytes", "gauge", "memory.max, where it is not max" },
	[F_MEMORY_HIGH_EVENTS] = { "rmtools_memory_high_events_total", "counter",
				   "Times over memory.high (memory.events high)" },
	[F_MEMORY_MAX_EVENTS] = { "rmtools_memory_max_events_total", "counter",
				  "Times at memory.max (memory.events max)" },
	[F_MEMORY_OOM_KILLS] = { "rmtools_memory_oom_kills_total", "counter",
				 "Processes the OOM killer killed (memory.events oom_kill)" },
	[F_HUGETLB] = { "rmtools_hugetlb_usage_bytes", "gauge",
			"Huge pages in use per page size (hugetlb.SIZE.current)" },
	[F_IO_READ_BYTES] = { "rmtools_io_read_bytes_total", "counter",
			      "Bytes read per device (io.stat rbytes)" },
	[F_IO_WRITE_BYTES] = { "rmtools_io_write_bytes_total", "counter",
			       "Bytes written per device (io.stat wbytes)" },
	[F_IO_READS] = { "rmtools_io_reads_total", "counter",
			 "Read operations per device (io.stat rios)" },
	[F_IO_WRITES] = { "rmtools_io_writes_total", "counter",
			  "Write operations per device (io.stat wios)" },
	[F_LLC] = { "rmtools_llc_occupancy_bytes", "gauge",
		    "L3 occupied (resctrl llc_occupancy)" },
	[F_MBM] = { "rmtools_memory_bandwidth_bytes_total", "counter",
		    "Bytes moved to and from memory (resctrl mbm_total_bytes)" },
	[F_IRQS] = { "rmtools_interrupts_total", "counter",
		     "Interrupts on the owner's exclusive CPUs (/proc/interrupts)" },
};

/* A family being written: its header goes out before its first sample, so that a family no
 * target has is left out. */
struct prom {
	FILE *f;
	int fam;
	bool said;
};

/* A label value as the text format quotes it: \\, \" and \n escaped. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
}

/* One sample of the current family for T: labels owner and the KEY="VALUE" pairs of LABELS (a
 * NULL-terminated list, or NULL), and VALUE. */
static void put_labels(struct prom *p, const struct target *t, const char *const *labels,
		       const char *value)
{
	if (!p->said) {
		fprintf(p->f, "# HELP %s %s\n# TYPE %s %s\n", families[p->fam].name,
			families[p->fam].help, families[p->fam].name, families[p->fam].type);
		p->said = true;
	}
	fprintf(p->f, "%s{owner=\"", families[p->fam].name);
	label_value(p->f, t->name);
	for (; labels && *labels; labels += 2) {
		fprintf(p->f, "\",%s=\"", labels[0]);
		label_value(p->f, labels[1]);
	}
	fprintf(p->f, "\"} %s\n", value);
}

/* One sample with the label KEY="VAL" when KEY. */
static void put(struct prom *p, const struct target *t, const char *key, const char *val,
		const char *value)
{
	put_labels(p, t, (const char *const[]){ key, val, NULL }, value);
}

static void put_u(struct prom *p, const struct target *t, const char *key, const char *val,
		  unsigned long long v)
{
	char s[24];

	snprintf(s, sizeof(s), "%llu", v);
	put(p, t, key, val, s);
}

/* Microseconds as seconds, exactly. */
static void put_usec(struct prom *p, const struct target *t, unsigned long long us)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu.%06llu", us / 1000000, us % 1000000);
	put(p, t, NULL, NULL, s);
}

/* A limit file's bytes; nothing for max or unknown. */
static void put_limit(struct prom *p, const struct target *t, const char *v)
{
	if (v && strcmp(v, "max"))
		put_u(p, t, NULL, NULL, strtoull(v, NULL, 10));
}

/* The samples of T in the family P writes. */
static void emit(struct prom *p, const struct target *t)
{
	const struct sample *s = &t->cur;

	if (p->fam == F_INFO) {
		static const char *const kinds[] = { "owner", "pool", "system" };
		char *cpus = NULL;

		hwloc_bitmap_list_asprintf(&cpus, s->cpus);
		put_labels(p, t, (const char *const[]){ "kind", kinds[t->kind], "cpus", cpus, NULL },
			   "1");
		free(cpus);
		return;
	}
	if (!s->exists)
		return;
	switch (p->fam) {
	case F_CPU_USAGE:
		if (s->have_usage)
			put_usec(p, t, s->usage_usec);
		break;
	case F_CPU_PERIODS:
	case F_CPU_THROTTLED:
		if (s->have_throttle)
			put_u(p, t, NULL, NULL,
			      p->fam == F_CPU_PERIODS ? s->nr_periods : s->nr_throttled);
		break;
	case F_CPU_WAITING: case F_CPU_STALLED: case F_MEMORY_WAITING: case F_MEMORY_STALLED:
	case F_IO_WAITING: case F_IO_STALLED: {
		const struct psi *psi = &s->psi[(p->fam - F_CPU_WAITING) / 2];

		if (psi->ok)
			put_usec(p, t, psi->total[(p->fam - F_CPU_WAITING) % 2]);
		break;
	}
	case F_MEMORY_USAGE:
		if (s->have_current)
			put_u(p, t, NULL, NULL, s->mem_current);
		break;
	case F_MEMORY_HIGH:
		put_limit(p, t, s->mem_high);
		break;
	case F_MEMORY_MAX:
		put_limit(p, t, s->mem_max);
		break;
	case F_MEMORY_HIGH_EVENTS:
		if (s->ev_high >= 0)
			put_u(p, t, NULL, NULL, (unsigned long long)s->ev_high);
		break;
	case F_MEMORY_MAX_EVENTS:
		if (s->ev_max >= 0)
			put_u(p, t, NULL, NULL, (unsigned long long)s->ev_max);
		break;
	case F_MEMORY_OOM_KILLS:
		if (s->ev_oom_kill >= 0)
			put_u(p, t, NULL, NULL, (unsigned long long)s->ev_oom_kill);
		break;
	case F_HUGETLB:
		/* "2MiB:N,1GiB:M": pages per size */
		for (const char *h = s->hugetlb; h && *h;) {
			const char *colon = strchr(h, ':'), *end = strchr(h, ',');
			char *size = colon ? xasprintf("%.*s", (int)(colon - h), h) : NULL;
			uint64_t bytes;

			if (size && rm_size_parse(size, &bytes, NULL) == 0)
				put_u(p, t, "page_size", size, bytes * strtoull(colon + 1, NULL, 10));
			free(size);
			h = end ? end + 1 : "";
		}
		break;
	case F_IO_READ_BYTES: case F_IO_WRITE_BYTES: case F_IO_READS: case F_IO_WRITES:
		for (size_t i = 0; i < s->nio; i++) {
			const struct iodev *d = &s->io[i];

			put_u(p, t, "device", d->dev,
			      p->fam == F_IO_READ_BYTES ? d->rbytes : p->fam == F_IO_WRITE_BYTES
			      ? d->wbytes : p->fam == F_IO_READS ? d->rios : d->wios);
		}
		break;
	case F_LLC:
		if (s->have_llc)
			put_u(p, t, NULL, NULL, s->llc);
		break;
	case F_MBM:
		if (s->have_mbm)
			put_u(p, t, NULL, NULL, s->mbm);
		break;
	case F_IRQS:
		if (s->have_irqs)
			put_u(p, t, NULL, NULL, s->irqs);
		break;
	}
}

static void write_metrics(FILE *f, const struct targets *ts)
{
	for (int fam = 0; fam < F_N; fam++) {
		struct prom p = { f, fam, false };

		for (size_t i = 0; i < ts->n; i++)
			emit(&p, &ts->v[i]);
	}
}

/* All of TEXT to standard output, which stdio has not written to, with write(2): a failure is
 * said with its reason, which stdio's flush at exit would have lost. */
static void write_stdout(const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE)
			return; /* the reader has gone, as rm_close_stdout takes it */
		if (n <= 0)
			rm_err(RM_EXIT_FAILURE, "write error");
		text += n;
		len -= (size_t)n;
	}
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "output", OPT_OUTPUT_FILE, "FILE", 0,
		  "write FILE atomically instead of standard output (for the textfile collector: "
		  "DIR/NAME.prom)", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, export_parse, "[OWNER...]",
		"Every owner's counters and values (the owners of show, or the OWNERs given) in the "
		"Prometheus text format that node_exporter's textfile collector reads: CPU time and "
		"throttling, pressure stall seconds, memory and its limits and events, huge pages, "
		"I/O per device, L3 and memory bandwidth, interrupts. Read once; rates are left to "
		"Prometheus.", NULL, NULL, NULL
	};
	struct export_args a = { 0 };
	struct targets ts;
	char *msg = NULL, *text = NULL;
	size_t len = 0;
	FILE *mem;

	rm_parse_command(&argp, argc, argv, c, &a, RM_PARSE_NO_OUTPUT);
	if (a.output && rm_atomic_check(a.output, &msg) < 0)
		rm_usage_errx("%s", msg);
	targets_find(&ts, a.owners, a.n);
	free(a.owners);
	targets_sample(&ts, true);
	if (!(mem = open_memstream(&text, &len)))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	write_metrics(mem, &ts);
	targets_free(&ts);
	if (fclose(mem))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	if (a.output) {
		if (rm_atomic_write(a.output, text, len, 0644, &msg) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
	} else {
		write_stdout(text, len);
	}
	free(text);
	return RM_EXIT_SUCCESS;
}
