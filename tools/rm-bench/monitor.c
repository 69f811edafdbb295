/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resctrl's monitoring counters beside a measurement: L3 occupancy and memory traffic. */
#include "config.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resctrl.h"
#include "rm-bench.h"
#include "xalloc.h"

static const char *const event_files[MON_NEVENTS] = {
	[MON_OCCUPANCY] = "llc_occupancy",
	[MON_TOTAL] = "mbm_total_bytes",
	[MON_LOCAL] = "mbm_local_bytes",
};

struct bench_mon {
	struct rm_resctrl rc;
	bool usable;   /* mounted, with at least one of the events */
	bool warned;   /* one warning a command is enough */
	char *group;   /* the control group this process is in; NULL until first needed */
	char *name;    /* the monitoring group of the measurement running; NULL between them */
	unsigned seq;
};

/* The directory of the monitoring group there is now, for removal at exit or on a signal: an
 * interrupted measurement leaves no group behind. */
static char active_dir[PATH_MAX];

static void remove_active(void)
{
	if (active_dir[0])
		rmdir(active_dir);
	active_dir[0] = '\0';
}

static void on_signal(int sig)
{
	remove_active();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_exits(void)
{
	static bool done;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

	if (done)
		return;
	done = true;
	atexit(remove_active);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(sigs[i], on_signal);
	}
}

static void mon_warn(struct bench_mon *m, const char *msg)
{
	if (!m->warned)
		rm_warnx("resctrl counters not read: %s", msg);
	m->warned = true;
}

struct bench_mon *bench_mon_open(void)
{
	struct bench_mon *m = xcalloc(1, sizeof(*m));
	char *root = rm_resctrl_root(NULL), *msg = NULL;

	if (rm_resctrl_open(&m->rc, root, &msg) < 0) {
		mon_warn(m, msg);
		free(msg);
	} else if (m->rc.mounted) {
		for (int e = 0; e < MON_NEVENTS; e++)
			m->usable |= rm_resctrl_has_event(&m->rc, event_files[e]);
	}
	free(root);
	return m;
}

void bench_mon_close(struct bench_mon *m)
{
	if (!m)
		return;
	bench_mon_end(m);
	free(m->group);
	rm_resctrl_close(&m->rc);
	free(m);
}

bool bench_mon_begin(struct bench_mon *m)
{
	char *msg = NULL, *name;
	pid_t tid = gettid();

	if (!m || !m->usable)
		return false;
	bench_mon_end(m);
	if (!m->group && rm_resctrl_task_group(&m->rc, tid, &m->group, &msg) < 0) {
		m->usable = false;
		mon_warn(m, msg);
		free(msg);
		return false;
	}
	/* the calling thread moves in; the threads it starts next are counted with it */
	name = xasprintf("rm-bench.%d.%u", (int)getpid(), m->seq++);
	guard_exits();
	snprintf(active_dir, sizeof(active_dir), "%s%s%s/mon_groups/%s", m->rc.root,
		 *m->group ? "/" : "", m->group, name);
	if (rm_resctrl_mon_create(&m->rc, m->group, name, tid, &msg) < 0) {
		m->usable = false; /* not root, or out of RMIDs: the next ones would fail alike */
		active_dir[0] = '\0';
		mon_warn(m, msg);
		free(msg);
		free(name);
		return false;
	}
	m->name = name;
	return true;
}

void bench_mon_sample(struct bench_mon *m, struct mon_sample *s)
{
	char *path, *msg = NULL;

	memset(s, 0, sizeof(*s));
	s->at = bench_now();
	if (!m || !m->name)
		return;
	path = *m->group ? xasprintf("%s/mon_groups/%s", m->group, m->name) :
			   xasprintf("mon_groups/%s", m->name);
	for (int e = 0; e < MON_NEVENTS; e++) {
		if (!rm_resctrl_has_event(&m->rc, event_files[e]))
			continue;
		if (rm_resctrl_mon_read(&m->rc, path, event_files[e], -1, &s->value[e], &msg) < 0) {
			/* "Unavailable": an RMID the hardware has not counted for yet */
			mon_warn(m, msg);
			free(msg);
			msg = NULL;
			continue;
		}
		s->have[e] = true;
	}
	free(path);
}

void bench_mon_end(struct bench_mon *m)
{
	char *msg = NULL;

	if (!m || !m->name)
		return;
	/* its tasks, the calling thread among them, go back to the control group */
	if (rm_resctrl_mon_remove(&m->rc, m->group, m->name, &msg) < 0) {
		mon_warn(m, msg);
		free(msg);
	}
	active_dir[0] = '\0';
	free(m->name);
	m->name = NULL;
}

double mon_rate(const struct mon_sample *a, const struct mon_sample *b, enum mon_event e)
{
	if (!a->have[e] || !b->have[e] || b->value[e] < a->value[e] || b->at <= a->at)
		return -1;
	return (double)(b->value[e] - a->value[e]) / (double)(b->at - a->at);
}
