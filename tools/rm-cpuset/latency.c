/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An owner's latency class: idle states, resume latency and CPU frequency of its CPUs only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "input.h"
#include "knobs.h"
#include "owner.h"
#include "rm-cpuset.h"
#include "sysfs.h"
#include "xalloc.h"

/* The journal of the values before: $RM_STATE_DIR/latency.state (libcommon/knobs.c). */
#define LATENCY_STATE "latency"
#define CPU_DIR "sys/devices/system/cpu"
/* cpuidle states per CPU looked at: more than any driver has */
#define MAX_STATES 32

enum { OPT_LATENCY = 0x300, OPT_GOVERNOR, OPT_MIN_FREQ };

static error_t latency_parse(int key, char *arg, struct argp_state *state)
{
	struct alloc_req *r = state->input;
	uint64_t n;

	switch (key) {
	case OPT_LATENCY:
		if (rm_parse_uint(arg, 0, 100000000, &n))
			argp_error(state, "invalid --latency: '%s' (microseconds)", arg);
		r->latency = arg;
		break;
	case OPT_GOVERNOR:
		if (!rm_name_valid(arg))
			argp_error(state, "invalid --governor: '%s'", arg);
		r->governor = arg;
		break;
	case OPT_MIN_FREQ:
		if (strcmp(arg, "max") && rm_parse_uint(arg, 1, 100000000, &n))
			argp_error(state, "invalid --min-freq: '%s' (kHz, or max)", arg);
		r->min_freq = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option latency_options[] = {
	{ "latency", OPT_LATENCY, "USEC", 0,
	  "latency class: idle states with a longer exit latency disabled and this resume "
	  "latency limit, on the owner's CPUs only (0: polling only)", 0 },
	{ "governor", OPT_GOVERNOR, "NAME", 0, "the cpufreq governor of the owner's CPUs", 0 },
	{ "min-freq", OPT_MIN_FREQ, "KHZ", 0,
	  "the minimum frequency of the owner's CPUs (kHz, or max)", 0 },
	{ 0 }
};

const struct argp alloc_latency_argp = {
	latency_options, latency_parse, NULL, NULL, NULL, NULL, NULL
};

void latency_record(struct pool *p, const struct alloc_req *r, size_t index)
{
	if (r->latency)
		rm_record_set(&p->st.records[index], "latency", r->latency);
	if (r->governor)
		rm_record_set(&p->st.records[index], "governor", r->governor);
	if (r->min_freq)
		rm_record_set(&p->st.records[index], "min_freq", r->min_freq);
}

static void want(struct rm_knob **w, size_t *n, char *path, const char *value)
{
	*w = xrealloc(*w, (*n + 1) * sizeof(**w));
	(*w)[(*n)++] = (struct rm_knob){ path, xstrdup(value) };
}

static void note(char **notes, const char *what, int cpu)
{
	char *n = xasprintf("CPU %d has no %s", cpu, what), *s;

	if (*notes && strstr(*notes, n)) {
		free(n);
		return;
	}
	s = xasprintf("%s%s%s", *notes ?: "", *notes ? "; " : "", n);
	free(n);
	free(*notes);
	*notes = s;
}

/* The files CPU's class (LATENCY, GOVERNOR, MIN_FREQ, each NULL when not asked) wants under ROOT;
 * what the kernel does not offer goes to NOTES. */
static void cpu_wants(const char *root, int cpu, const char *latency, const char *governor,
		      const char *min_freq, struct rm_knob **w, size_t *n, char **notes)
{
	char *rel, *v;

	if (latency) {
		long limit = strtol(latency, NULL, 10);
		int k;

		for (k = 0; k < MAX_STATES; k++) {
			rel = xasprintf(CPU_DIR "/cpu%d/cpuidle/state%d/latency", cpu, k);
			v = rm_sysfs_read(root, rel);
			free(rel);
			if (!v)
				break;
			if (strtol(v, NULL, 10) > limit)
				want(w, n, xasprintf(CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, k),
				     "1");
			free(v);
		}
		if (!k)
			note(notes, "cpuidle states", cpu);
		rel = xasprintf(CPU_DIR "/cpu%d/power/pm_qos_resume_latency_us", cpu);
		if (rm_sysfs_exists(root, rel))
			want(w, n, rel, limit ? latency : "n/a");
		else
			note(notes, "resume latency limit", cpu), free(rel);
	}
	if (governor || min_freq) {
		rel = xasprintf(CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpu);
		if (!rm_sysfs_exists(root, rel)) {
			note(notes, "cpufreq", cpu);
			free(rel);
			return;
		}
		if (governor)
			want(w, n, rel, governor);
		else
			free(rel);
	}
	if (min_freq) {
		char *max = NULL;

		if (!strcmp(min_freq, "max")) {
			rel = xasprintf(CPU_DIR "/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
			max = rm_sysfs_read(root, rel);
			free(rel);
		}
		want(w, n, xasprintf(CPU_DIR "/cpu%d/cpufreq/scaling_min_freq", cpu),
		     max ?: min_freq);
		free(max);
	}
}

static bool journaled(void)
{
	struct rm_state st;
	char *m = NULL;
	bool yes = rm_state_open(&st, LATENCY_STATE, RM_STATE_READ, &m) == 0 && st.nrecords;

	free(m);
	rm_state_close(&st);
	return yes;
}

int pool_sync_latency(struct pool *p, const struct rm_record *records, size_t n, bool warn,
		      char **msg)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	struct rm_knob *w = NULL;
	size_t nw = 0;
	char *notes = NULL, *fail = NULL;
	const char *root = NULL;
	int rc = 0, cpu;

	if (!rm_input_sysfs(p->t->in) || opt_no_cgroups)
		goto out;
	if (!rm_input_here(p->t->in))
		root = rm_input_root(p->t->in);
	for (size_t i = 0; i < n; i++) {
		const struct rm_record *r = &records[i];
		const char *l = rm_record_get(r, "latency"), *g = rm_record_get(r, "governor"),
			   *f = rm_record_get(r, "min_freq");

		if (strcmp(rm_record_kind(r), "owner") || (!l && !g && !f))
			continue;
		pool_owner_cpus(r, cpus);
		hwloc_bitmap_foreach_begin(cpu, cpus)
			cpu_wants(root, cpu, l, g, f, &w, &nw, &notes);
		hwloc_bitmap_foreach_end();
	}
	/* with no class asked and none journaled, nothing to open */
	if (!nw && !journaled())
		goto out;
	rc = rm_knobs_sync(root, LATENCY_STATE, w, nw, &fail, msg);
	if (warn && fail)
		rm_warnx("%s", fail);
	if (warn && notes && !rc)
		rm_warnx("not offered here, left as they are: %s", notes);
out:
	for (size_t i = 0; i < nw; i++) {
		free(w[i].path);
		free(w[i].value);
	}
	free(w);
	free(notes);
	free(fail);
	hwloc_bitmap_free(cpus);
	return rc;
}
