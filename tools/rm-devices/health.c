/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices health: each device's health from the kernel, once, over an interval, or watched. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "closestream.h"
#include "duration.h"
#include "exitcodes.h"
#include "devhealth.h"
#include "rm-devices.h"
#include "xalloc.h"

/* ---- the command ---- */

enum {
	HF_DEVICE, HF_OWNER, HF_HEALTH, HF_DRIVER, HF_EXPECTED, HF_TYPE, HF_STATUS,
	HF_AER_COR, HF_AER_NONFATAL, HF_AER_FATAL,
	HF_AER_COR_RATE, HF_AER_NONFATAL_RATE, HF_AER_FATAL_RATE, HF_AER_ERRORS,
	HF_ROOT_PORT, HF_ROOT_COR, HF_ROOT_NONFATAL, HF_ROOT_FATAL,
	HF_LINK, HF_POWER, HF_SLOT, HF_NVME_WARNING, HF_MEDIA, HF_PORTS_DOWN, HF_GPU_ECC,
	HF_RETIRED, HF_TIME, HF_GPU_XIDS,
};
static const struct rm_column health_cols[] = {
	[HF_DEVICE] = { "device", RM_COL_STRING, "PCI address" },
	[HF_OWNER] = { "owner", RM_COL_STRING, "the owner it is allocated to" },
	[HF_HEALTH] = { "health", RM_COL_STRING,
			"ok, or the conditions found (comma list: gone, aer_nonfatal, ...)" },
	[HF_DRIVER] = { "driver", RM_COL_STRING, "its driver now" },
	[HF_EXPECTED] = { "expected", RM_COL_STRING,
			  "the driver it should have: when allocated, or at the first reading" },
	[HF_TYPE] = { "type", RM_COL_STRING, "device type" },
	[HF_STATUS] = { "status", RM_COL_STRING, "ok, warn or unhealthy, as the policy says" },
	[HF_AER_COR] = { "aer_correctable", RM_COL_INT, "AER correctable errors since boot" },
	[HF_AER_NONFATAL] = { "aer_nonfatal", RM_COL_INT,
			      "AER uncorrectable non-fatal errors since boot" },
	[HF_AER_FATAL] = { "aer_fatal", RM_COL_INT, "AER uncorrectable fatal errors since boot" },
	[HF_AER_COR_RATE] = { "aer_correctable_rate", RM_COL_FLOAT,
			      "correctable errors a minute between the last two readings" },
	[HF_AER_NONFATAL_RATE] = { "aer_nonfatal_rate", RM_COL_FLOAT,
				   "non-fatal errors a minute between the last two readings" },
	[HF_AER_FATAL_RATE] = { "aer_fatal_rate", RM_COL_FLOAT,
				"fatal errors a minute between the last two readings" },
	[HF_AER_ERRORS] = { "aer_errors", RM_COL_STRING, "the AER error kinds counted, KIND:N" },
	[HF_ROOT_PORT] = { "root_port", RM_COL_STRING, "the root port above it" },
	[HF_ROOT_COR] = { "root_aer_correctable", RM_COL_INT,
			  "correctable errors the root port received" },
	[HF_ROOT_NONFATAL] = { "root_aer_nonfatal", RM_COL_INT,
			       "non-fatal errors the root port received" },
	[HF_ROOT_FATAL] = { "root_aer_fatal", RM_COL_INT, "fatal errors the root port received" },
	[HF_LINK] = { "link_degraded", RM_COL_STRING,
		      "the links trained below both ends: ADDR:SPEED:xWIDTH<SPEED:xWIDTH" },
	[HF_POWER] = { "power_state", RM_COL_STRING, "D0, D3hot, D3cold" },
	[HF_SLOT] = { "slot", RM_COL_STRING, "its hotplug slot" },
	[HF_NVME_WARNING] = { "nvme_critical_warning", RM_COL_STRING,
			      "the SMART critical warning bits, 0x00 when none" },
	[HF_MEDIA] = { "media_errors", RM_COL_INT, "NVMe media and data integrity errors" },
	[HF_PORTS_DOWN] = { "ports_down", RM_COL_STRING,
			    "interfaces up without link, InfiniBand ports not active" },
	[HF_GPU_ECC] = { "gpu_ecc", RM_COL_INT, "NVML: uncorrected ECC errors since the driver loaded" },
	[HF_RETIRED] = { "retired_pending", RM_COL_BOOL, "NVML: pages to retire at the next reset" },
	[HF_TIME] = { "time", RM_COL_INT, "when it was read (seconds since the epoch)" },
	[HF_GPU_XIDS] = { "gpu_xids", RM_COL_STRING,
			  "NVIDIA XIDs seen: kernel log since boot, NVML events since the first reading" },
};
static const char health_defaults[] =
	"device,owner,health,driver,expected,type,status,aer_correctable,aer_nonfatal,aer_fatal,"
	"aer_correctable_rate,aer_nonfatal_rate,aer_fatal_rate,aer_errors,root_port,"
	"root_aer_correctable,root_aer_nonfatal,root_aer_fatal,link_degraded,power_state,slot,"
	"nvme_critical_warning,media_errors,ports_down,gpu_ecc,retired_pending,gpu_xids";

static void out_count(struct rm_out *out, int col, int64_t v)
{
	if (v >= 0)
		rm_out_int(out, col, v);
}

static void health_out(struct rm_out *out, const struct rm_health *h, time_t now)
{
	rm_out_begin(out);
	rm_out_str(out, HF_DEVICE, h->addr);
	rm_out_str(out, HF_OWNER, h->owner);
	rm_out_str(out, HF_HEALTH, h->conditions ? h->conditions : "ok");
	rm_out_str(out, HF_DRIVER, h->driver);
	rm_out_str(out, HF_EXPECTED, h->expected);
	rm_out_str(out, HF_TYPE, h->type);
	rm_out_str(out, HF_STATUS, rm_health_level_name(h->level));
	for (int k = RM_HN_AER_COR; k <= RM_HN_AER_FATAL; k++) {
		out_count(out, HF_AER_COR + k, h->count[k]);
		if (h->rate[k] >= 0)
			rm_out_float(out, HF_AER_COR_RATE + k, h->rate[k], 1);
	}
	rm_out_str(out, HF_AER_ERRORS, h->aer_errors);
	rm_out_str(out, HF_ROOT_PORT, h->root_port);
	for (int k = RM_HN_ROOT_COR; k <= RM_HN_ROOT_FATAL; k++)
		out_count(out, HF_ROOT_COR + k - RM_HN_ROOT_COR, h->count[k]);
	rm_out_str(out, HF_LINK, h->link);
	rm_out_str(out, HF_POWER, h->power);
	rm_out_str(out, HF_SLOT, h->slot);
	if (h->nvme_warning >= 0) {
		char w[16];

		snprintf(w, sizeof(w), "0x%02x", h->nvme_warning);
		rm_out_str(out, HF_NVME_WARNING, w);
	}
	out_count(out, HF_MEDIA, h->count[RM_HN_MEDIA]);
	rm_out_str(out, HF_PORTS_DOWN, h->ports_down);
	out_count(out, HF_GPU_ECC, h->count[RM_HN_ECC]);
	if (h->retired_pending >= 0)
		rm_out_bool(out, HF_RETIRED, h->retired_pending);
	rm_out_int(out, HF_TIME, (long long)now);
	if (h->xids_known) {
		char xids[RM_HEALTH_XID_MAX * 5 + 1] = "";
		size_t len = 0;

		for (unsigned x = 0; x <= RM_HEALTH_XID_MAX; x++)
			if (h->xids[x / 64] >> (x % 64) & 1)
				len += (size_t)snprintf(xids + len, sizeof(xids) - len, "%s%u",
							len ? "," : "", x);
		rm_out_str(out, HF_GPU_XIDS, xids);
	}
	rm_out_end(out);
}

/* Whether a reading's verdict differs from the one before (none: P NULL). */
static bool changed(const struct rm_health *h, const struct rm_health *p)
{
	if (!p)
		return h->level != RM_HL_OK;
	return h->level != p->level ||
	       strcmp(h->conditions ? h->conditions : "", p->conditions ? p->conditions : "");
}

struct health_args {
	struct rm_owners o;
	const char *policy;
	double interval;   /* seconds; 0: not given */
	unsigned long count; /* readings of --watch; 0: until stopped */
	bool watch, all;
};

enum { OPT_POLICY = 0x700, OPT_INTERVAL, OPT_WATCH, OPT_COUNT };

static error_t health_parse(int key, char *arg, struct argp_state *state)
{
	struct health_args *a = state->input;
	uint64_t ns;
	char *end;

	switch (key) {
	case ARGP_KEY_ARG:
		a->o.names = xrealloc(a->o.names, (size_t)(a->o.n + 1) * sizeof(*a->o.names));
		a->o.names[a->o.n++] = arg;
		return 0;
	case RM_OPT_ALL:
		a->all = true;
		return 0;
	case OPT_POLICY:
		a->policy = arg;
		return 0;
	case OPT_WATCH:
		a->watch = true;
		return 0;
	case OPT_INTERVAL:
		/* seconds, or a duration with its unit (500ms, 1m) */
		errno = 0;
		a->interval = strtod(arg, &end);
		if (*end || end == arg || errno || !isfinite(a->interval)) {
			if (rm_duration_parse(arg, &ns) < 0)
				a->interval = -1;
			else
				a->interval = (double)ns / 1e9;
		}
		if (a->interval < 0.01 || a->interval > 86400)
			argp_error(state, "invalid --interval: '%s' (seconds from 0.01 to 86400, or "
				   "a duration such as 500ms)", arg);
		return 0;
	case OPT_COUNT:
		errno = 0;
		a->count = strtoul(arg, &end, 10);
		if (*arg == '-' || *end || end == arg || errno || !a->count || a->count > 1000000)
			argp_error(state, "invalid --count: '%s' (1 to 1000000)", arg);
		return 0;
	case ARGP_KEY_END:
		if (a->count && !a->watch)
			argp_error(state, "--count is for --watch");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Sleep SECONDS, or less when a signal stops the watch. */
static void pause_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (!stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmd_health(int argc, char **argv, struct rm_common *c)
{
	static const struct argp_option options[] = {
		{ "all", RM_OPT_ALL, NULL, 0, "a record for healthy devices too", 0 },
		{ "policy", OPT_POLICY, "FILE", 0,
		  "the health policy (default $RM_CONFIG_DIR/devices-health.conf)", 0 },
		{ "interval", OPT_INTERVAL, "SECONDS", 0,
		  "read twice, SECONDS apart, for the error rates; with --watch, between readings "
		  "(default 10)", 0 },
		{ "watch", OPT_WATCH, NULL, 0,
		  "keep reading: a record whenever a device's health changes", 0 },
		{ "count", OPT_COUNT, "N", 0, "--watch: stop after N readings", 0 },
		{ 0 }
	};
	static const struct argp argp = {
		options, health_parse, "[OWNER...]",
		"The health of each device from what the kernel reports (AER errors, degraded links, "
		"driver, power state, hotplug slot, NVMe SMART, network ports; NVML's ECC counts; NVIDIA "
		"XIDs): a "
		"record per device that is not ok, and exit 1 when one is unhealthy. OWNERs: only "
		"their allocated devices.",
		NULL, NULL, NULL
	};
	struct health_args a = { 0 };
	struct rm_health *base = NULL, *prev = NULL, *cur;
	struct rm_devices first = { 0 }, devs;
	size_t nbase = 0, nprev = 0, ncur;
	double t0 = 0, t;
	int status = RM_EXIT_SUCCESS;
	struct rm_state st;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		free(a.o.names);
		rm_out_list_columns(&c->out, health_cols, ARRAY_SIZE(health_cols), health_defaults);
		return RM_EXIT_SUCCESS;
	}
	check_columns(c, health_cols, ARRAY_SIZE(health_cols), health_defaults);
	rm_health_policy_load(a.policy);
	dstate_open(&st, false);
	check_owners(&a.o, &st);
	rm_state_close(&st);
	if (a.watch) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		if (!a.interval)
			a.interval = 10;
	}
	/* the first reading: the base of a watch, or the first of two for the rates */
	for (unsigned long round = 0; !stop; round++) {
		devices_load(c, RM_DEVICES_ALL, &devs);
		t = now_s();
		cur = rm_health_scan(devices_sysroot(c), &devs, &a.o, base, nbase, prev, nprev,
				  t - t0, &ncur);
		if (!a.watch && a.interval && !round) {
			/* only the rates of the second reading are printed */
		} else {
			struct rm_out *out = rm_out_new(&c->out, "health", health_cols,
							ARRAY_SIZE(health_cols), health_defaults,
							true);
			time_t wall = time(NULL);

			status = RM_EXIT_SUCCESS;
			for (size_t i = 0; i < ncur; i++) {
				const struct rm_health *p = round ? rm_health_find(prev, nprev,
									     cur[i].addr) : NULL;

				if (cur[i].level == RM_HL_UNHEALTHY)
					status = RM_EXIT_FAILURE;
				if (a.watch ? (a.all && !round) || changed(&cur[i], p) :
					      a.all || cur[i].level != RM_HL_OK)
					health_out(out, &cur[i], wall);
			}
			rm_out_close(out);
			rm_out_flush();
			/* each reading reaches a pipe or a log as it is made */
			if (!rm_flush_stdout())
				stop = 1; /* rm_close_stdout reports it */
		}
		if (!round) {
			base = cur;
			nbase = ncur;
			first = devs; /* the base's devices stay for the whole run */
		} else {
			if (prev != base)
				rm_health_scan_free(prev, nprev);
			rm_devices_free(&devs); /* what later rounds use of CUR is copied */
		}
		prev = cur;
		nprev = ncur;
		t0 = t;
		if (a.watch ? a.count && round + 1 >= a.count : !a.interval || round)
			break;
		pause_for(a.interval);
	}
	if (prev != base)
		rm_health_scan_free(prev, nprev);
	rm_health_scan_free(base, nbase);
	rm_devices_free(&first);
	free(a.o.names);
	return status;
}
