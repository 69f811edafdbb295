/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos show and watch: one record per owner, the pool and the system, over an interval. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closestream.h"
#include "devhealth.h"
#include "exitcodes.h"
#include "input.h"
#include "output.h"
#include "rm-qos.h"
#include "xalloc.h"

enum { OPT_INTERVAL = 'i', OPT_COUNT = 'c' };
enum { SHOW_COUNT_MAX = 1000000 }; /* rounds of --count */

struct show_args {
	char **owners;
	int n;
	uint64_t interval;
	long count;
};

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	struct show_args *a = state->input;
	uint64_t n;

	switch (key) {
	case OPT_INTERVAL:
		a->interval = interval_arg(state, arg);
		return 0;
	case OPT_COUNT:
		if (rm_parse_uint(arg, 1, SHOW_COUNT_MAX, &n))
			argp_error(state, "invalid count: '%s' (from 1 to %d)", arg, SHOW_COUNT_MAX);
		a->count = (long)n;
		return 0;
	case ARGP_KEY_ARG:
		a->owners = xrealloc(a->owners, (a->n + 1) * sizeof(*a->owners));
		a->owners[a->n++] = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* Owner T's allocated devices among the unhealthy H (NH readings) into V: "" when none. */
static void unhealthy_devices(const struct target *t, const struct rm_health *h, size_t nh,
			      struct mval *v)
{
	char *list;

	if (t->kind != TARGET_OWNER)
		return;
	list = xstrdup("");
	for (size_t i = 0; i < nh; i++)
		if (!strcmp(h[i].owner, t->name)) {
			char *s = xasprintf("%s%s%s", list, *list ? "," : "", h[i].addr);

			free(list);
			list = s;
		}
	v->kind = MV_STR;
	v->str = list;
}

static void print_round(struct targets *ts, const struct rm_outopts *opts)
{
	struct rm_out *out = rm_out_new(opts, "owners", metric_cols, M_N, metric_defaults, true);
	struct rm_health *h = NULL;
	size_t nh = 0;

	/* the devices' health, read each round, only when it is shown */
	if (rm_out_shown(out, M_UNHEALTHY_DEVICES)) {
		const char *root = rm_input_root(rm_input());

		h = rm_health_owned_unhealthy(root && *root ? root : NULL, NULL, &nh);
	}
	for (size_t i = 0; i < ts->n; i++) {
		struct mval v[M_N];

		metrics_get(&ts->v[i], v);
		if (rm_out_shown(out, M_UNHEALTHY_DEVICES))
			unhealthy_devices(&ts->v[i], h, nh, &v[M_UNHEALTHY_DEVICES]);
		metrics_out(out, v);
		metrics_free(v);
	}
	rm_health_scan_free(h, nh);
	rm_out_close(out);
	rm_out_flush();
}

static int run(int argc, char **argv, struct rm_common *c, bool watch)
{
	static const struct argp_option show_options[] = {
		{ "interval", OPT_INTERVAL, "DURATION", 0,
		  "measure rates over DURATION (default 1s)", 0 },
		{ 0 }
	};
	static const struct argp_option watch_options[] = {
		{ "interval", OPT_INTERVAL, "DURATION", 0,
		  "a round every DURATION (default 1s)", 0 },
		{ "count", OPT_COUNT, "N", 0, "stop after N rounds (default: never)", 0 },
		{ 0 }
	};
	const struct argp show_argp = {
		show_options, show_parse, "[OWNER...]",
		"One record per owner (every owner any tool knows, then the shared pool and the rest "
		"of the system), or per OWNER given: rates over the interval, pressure stalls, "
		"memory, huge pages, I/O, L3 and memory bandwidth, interrupts. Percentages are "
		"numbers of percent.", NULL, NULL, NULL
	};
	const struct argp watch_argp = {
		watch_options, show_parse, "[OWNER...]",
		"The records of show, again every interval: one record per owner per round on a "
		"pipe; a table redrawn each round on a terminal.", NULL, NULL, NULL
	};
	struct show_args a = { .interval = 1000000000u, .count = watch ? -1 : 1 };
	struct rm_outopts opts;
	struct targets ts;
	bool redraw;

	rm_parse_command(watch ? &watch_argp : &show_argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		free(a.owners);
		rm_out_list_columns(&c->out, metric_cols, M_N, metric_defaults);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, metric_cols, M_N, metric_defaults);
	opts = c->out;
	redraw = watch && isatty(STDOUT_FILENO) && opts.mode == RM_OUT_RECORDS;
	if (redraw)
		opts.mode = RM_OUT_TABLE;
	targets_find(&ts, a.owners, a.n);
	free(a.owners);
	targets_sample(&ts, false);
	for (long round = 0; a.count < 0 || round < a.count; round++) {
		sleep_ns(a.interval);
		targets_sample(&ts, true);
		if (redraw)
			fputs("\033[H\033[2J", stdout);
		print_round(&ts, &opts);
		if (!rm_flush_stdout())
			break; /* rm_close_stdout reports it */
	}
	targets_free(&ts);
	return RM_EXIT_SUCCESS;
}

int cmd_show(int argc, char **argv, struct rm_common *c)
{
	return run(argc, argv, c, false);
}

int cmd_watch(int argc, char **argv, struct rm_common *c)
{
	return run(argc, argv, c, true);
}
