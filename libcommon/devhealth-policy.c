/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health policy (devices-health.conf): which conditions make a device unhealthy. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conffile.h"
#include "exitcodes.h"
#include "devhealth.h"
#include "xalloc.h"

static const char *const cond_names[RM_HC_N] = {
	"gone", "replaced", "unbound", "rebound", "no_driver", "d3cold", "slot_empty",
	"aer_correctable", "aer_nonfatal", "aer_fatal",
	"root_aer_correctable", "root_aer_nonfatal", "root_aer_fatal",
	"link_degraded", "nvme_critical_warning", "nvme_media_errors", "port_down",
	"ib_port_down", "gpu_ecc", "gpu_retired_pending", "gpu_xid",
};

/* The counter behind a condition, or -1 for a condition that holds or not. */
static const int cond_counter[RM_HC_N] = {
	[RM_HC_GONE] = -1, [RM_HC_REPLACED] = -1, [RM_HC_UNBOUND] = -1, [RM_HC_REBOUND] = -1,
	[RM_HC_NO_DRIVER] = -1, [RM_HC_D3COLD] = -1, [RM_HC_SLOT_EMPTY] = -1,
	[RM_HC_AER_CORRECTABLE] = RM_HN_AER_COR, [RM_HC_AER_NONFATAL] = RM_HN_AER_NONFATAL,
	[RM_HC_AER_FATAL] = RM_HN_AER_FATAL, [RM_HC_ROOT_AER_CORRECTABLE] = RM_HN_ROOT_COR,
	[RM_HC_ROOT_AER_NONFATAL] = RM_HN_ROOT_NONFATAL, [RM_HC_ROOT_AER_FATAL] = RM_HN_ROOT_FATAL,
	[RM_HC_LINK_DEGRADED] = -1, [RM_HC_NVME_CRITICAL_WARNING] = -1,
	[RM_HC_NVME_MEDIA_ERRORS] = RM_HN_MEDIA, [RM_HC_PORT_DOWN] = -1, [RM_HC_IB_PORT_DOWN] = -1,
	[RM_HC_GPU_ECC] = RM_HN_ECC, [RM_HC_GPU_RETIRED_PENDING] = -1, [RM_HC_GPU_XID] = -1,
};

/* One rule: the condition at LEVEL when its counter reached THRESHOLD and grows by at least
 * RATE a minute (0: either not asked); gpu_xid's when one of the XIDS was seen (none: any). */
struct rule {
	enum rm_hcond cond;
	enum rm_hlevel level;
	int64_t threshold;
	double rate;
	uint64_t xids[RM_HEALTH_XID_WORDS];
};

#define X(n) (1ULL << ((n) % 64)) /* XID N's bit in word N / 64 */

#define MAX_RULES 64

/* The defaults: what ends a device's use (it failed, went away, lost its link or data) is
 * unhealthy; what it survives or what may be on purpose (corrected errors, a slower link, a
 * suspended or driverless device, errors counted at the root port for everything below it)
 * warns. */
static struct rule rules[MAX_RULES] = {
	{ RM_HC_GONE, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_REPLACED, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_UNBOUND, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_REBOUND, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_NO_DRIVER, RM_HL_WARN, 0, 0, { 0 } },
	{ RM_HC_D3COLD, RM_HL_WARN, 0, 0, { 0 } },
	{ RM_HC_SLOT_EMPTY, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_AER_CORRECTABLE, RM_HL_WARN, 1, 0, { 0 } },
	{ RM_HC_AER_NONFATAL, RM_HL_UNHEALTHY, 1, 0, { 0 } },
	{ RM_HC_AER_FATAL, RM_HL_UNHEALTHY, 1, 0, { 0 } },
	{ RM_HC_ROOT_AER_CORRECTABLE, RM_HL_WARN, 1, 0, { 0 } },
	{ RM_HC_ROOT_AER_NONFATAL, RM_HL_WARN, 1, 0, { 0 } },
	{ RM_HC_ROOT_AER_FATAL, RM_HL_WARN, 1, 0, { 0 } },
	{ RM_HC_LINK_DEGRADED, RM_HL_WARN, 0, 0, { 0 } },
	{ RM_HC_NVME_CRITICAL_WARNING, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_NVME_MEDIA_ERRORS, RM_HL_WARN, 1, 0, { 0 } },
	{ RM_HC_PORT_DOWN, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_IB_PORT_DOWN, RM_HL_UNHEALTHY, 0, 0, { 0 } },
	{ RM_HC_GPU_ECC, RM_HL_UNHEALTHY, 1, 0, { 0 } },
	{ RM_HC_GPU_RETIRED_PENDING, RM_HL_WARN, 0, 0, { 0 } },
	/* the XIDs NVIDIA's catalogue (docs.nvidia.com/deploy/xid-errors) resolves by resetting
	 * the GPU or the node: 48 double-bit ECC, 62 internal micro-controller halt, 63 and 64 row
	 * remapping (pending, failed), 74 NVLink, 79 fallen off the bus, 95 uncontained ECC, 119
	 * and 120 GSP; any other (an application's fault, 94 contained ECC, 92 single-bit rate)
	 * warns */
	{ RM_HC_GPU_XID, RM_HL_UNHEALTHY, 0, 0,
	  { X(48) | X(62) | X(63), X(64) | X(74) | X(79) | X(95) | X(119) | X(120) } },
	{ RM_HC_GPU_XID, RM_HL_WARN, 0, 0, { 0 } },
};
static size_t nrules = RM_HC_N + 1;

const char *rm_health_cond_name(enum rm_hcond c)
{
	return cond_names[c];
}

int rm_health_cond_parse(const char *name)
{
	for (int c = 0; c < RM_HC_N; c++)
		if (!strcmp(cond_names[c], name))
			return c;
	return -1;
}

const char *rm_health_level_name(enum rm_hlevel l)
{
	return l == RM_HL_UNHEALTHY ? "unhealthy" : l == RM_HL_WARN ? "warn" : "ok";
}

/* A count or a rate: a non-negative decimal. */
static int parse_number(const char *s, bool integer, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (!*s || *s == '-' || *s == '+' || *end || errno || *v > 1e15 ||
	    (integer && *v != (double)(int64_t)*v))
		return -1;
	return 0;
}

/* An XID list "48,79" into XIDS; -1 when it is not one. */
static int parse_xids(const char *s, uint64_t *xids)
{
	char *end;

	do {
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || *s == '-' || *s == '+' || errno || v > RM_HEALTH_XID_MAX ||
		    (*end && *end != ','))
			return -1;
		xids[v / 64] |= 1ULL << (v % 64);
		s = *end ? end + 1 : end;
	} while (*end); /* after a comma, a number */
	return 0;
}

/* One line: CONDITION LEVEL [threshold=N] [rate=N] [xid=LIST]. */
static void policy_line(struct rm_conf *cf, struct rm_conf_word *w, int n, bool *seen,
			struct rule *out, size_t *nout)
{
	int c = rm_health_cond_parse(w[0].text);
	struct rule r = { 0 };

	if (c < 0) {
		rm_conf_fail_shown(cf, w[0].col, "unknown condition: '%s' (see rm-devices(1), "
				   "HEALTH)", w[0].text);
		return;
	}
	if (n < 2) {
		rm_conf_fail(cf, 0, w[0].col, xasprintf("%s: missing level (unhealthy, warn, "
							"ignore)", w[0].text));
		return;
	}
	r.cond = (enum rm_hcond)c;
	if (!strcmp(w[1].text, "unhealthy"))
		r.level = RM_HL_UNHEALTHY;
	else if (!strcmp(w[1].text, "warn"))
		r.level = RM_HL_WARN;
	else if (strcmp(w[1].text, "ignore")) {
		rm_conf_fail_shown(cf, w[1].col, "unknown level: '%s' (unhealthy, warn, ignore)",
				   w[1].text);
		return;
	}
	for (int i = 2; i < n; i++) {
		char *value;
		unsigned vcol;
		double v;
		bool thr;

		if (rm_conf_split(&w[i], &value, &vcol) < 0 ||
		    (strcmp(w[i].text, "threshold") && strcmp(w[i].text, "rate") &&
		     strcmp(w[i].text, "xid"))) {
			rm_conf_fail_shown(cf, w[i].col, "unknown setting: '%s' (threshold=N, rate=N, "
					   "xid=LIST)", w[i].text);
			return;
		}
		if (!strcmp(w[i].text, "xid")) {
			if (c != RM_HC_GPU_XID) {
				rm_conf_fail(cf, 0, w[i].col, xasprintf("xid= is for gpu_xid, not %s",
									w[0].text));
				return;
			}
			if (parse_xids(value, r.xids) < 0) {
				rm_conf_fail_shown(cf, vcol, "invalid XID list: '%s' (numbers from 0 "
						   "to 1023, comma separated)", value);
				return;
			}
			continue;
		}
		thr = !strcmp(w[i].text, "threshold");
		if (cond_counter[c] < 0) {
			rm_conf_fail(cf, 0, w[i].col, xasprintf("%s counts nothing: no %s", w[0].text,
								w[i].text));
			return;
		}
		if (parse_number(value, thr, &v) < 0) {
			rm_conf_fail_shown(cf, vcol, "invalid number: '%s' (a non-negative number)",
					   value);
			return;
		}
		if (thr)
			r.threshold = (int64_t)v;
		else
			r.rate = v;
	}
	if (cond_counter[c] >= 0 && !r.threshold && !r.rate)
		r.threshold = 1;
	if (*nout >= MAX_RULES) {
		rm_conf_fail(cf, 0, w[0].col, xasprintf("too many rules: at most %d", MAX_RULES));
		return;
	}
	seen[c] = true;
	out[(*nout)++] = r;
}

void rm_health_policy_load(const char *file)
{
	char *path = file ? xstrdup(file) : rm_conf_path("devices-health.conf");
	struct rm_conf_word w[RM_CONF_MAX_WORDS];
	struct rule got[MAX_RULES];
	bool seen[RM_HC_N] = { false };
	size_t ngot = 0, kept = 0;
	struct rm_conf cf;
	int n;

	if (!file && access(path, F_OK) < 0 && errno == ENOENT) {
		free(path); /* no policy file: the defaults */
		return;
	}
	if (rm_conf_open(&cf, path) < 0)
		rm_usage_errx("cannot read %s: %s", path, strerror(errno));
	while ((n = rm_conf_next(&cf, w)) > 0 && !cf.err)
		policy_line(&cf, w, n, seen, got, &ngot);
	if (cf.err)
		rm_usage_errx("%s", cf.err);
	if (n < 0)
		rm_err(RM_EXIT_FAILURE, "cannot read %s", cf.file);
	rm_conf_close(&cf);
	free(path);
	/* a condition the file names has the file's rules only; the others keep the defaults */
	for (size_t i = 0; i < nrules; i++)
		if (!seen[rules[i].cond])
			rules[kept++] = rules[i];
	if (kept + ngot > MAX_RULES)
		rm_usage_errx("too many rules in the health policy: at most %d", MAX_RULES);
	memcpy(rules + kept, got, ngot * sizeof(*got));
	nrules = kept + ngot;
}

static bool rule_holds(const struct rule *r, const struct rm_health *h)
{
	int k = cond_counter[r->cond];

	bool listed = false, any = false;

	if (!h->cond[r->cond])
		return false;
	for (int w = 0; w < RM_HEALTH_XID_WORDS; w++) {
		any |= r->xids[w] != 0;
		listed |= (r->xids[w] & h->xids[w]) != 0;
	}
	if (any && !listed)
		return false;
	if (k < 0)
		return true;
	if (r->threshold && h->count[k] < r->threshold)
		return false;
	if (r->rate && !(h->rate[k] >= r->rate))
		return false;
	return true;
}

/* Append NAME to the comma list *LIST. */
static void add_name(char **list, const char *name)
{
	char *s = xasprintf("%s%s%s", *list ? *list : "", *list ? "," : "", name);

	free(*list);
	*list = s;
}

void rm_health_judge(struct rm_health *h)
{
	h->level = RM_HL_OK;
	free(h->conditions);
	free(h->unhealthy);
	h->conditions = h->unhealthy = NULL;
	for (int c = 0; c < RM_HC_N; c++) {
		enum rm_hlevel l = RM_HL_OK;

		for (size_t i = 0; i < nrules; i++)
			if ((int)rules[i].cond == c && rules[i].level > l && rule_holds(&rules[i], h))
				l = rules[i].level;
		if (l == RM_HL_OK)
			continue;
		add_name(&h->conditions, cond_names[c]);
		if (l == RM_HL_UNHEALTHY)
			add_name(&h->unhealthy, cond_names[c]);
		if (l > h->level)
			h->level = l;
	}
}
