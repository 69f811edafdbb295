/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files of /sys and /proc set to wanted values, each value before journaled and restored. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernfs.h"
#include "knobs.h"
#include "state.h"
#include "sysfs.h"
#include "xalloc.h"

static int put(const char *root, const char *path, const char *value)
{
	char *full = rm_sysfs_path(root, path);
	int rc = rm_kernfs_write(full, value, RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC);

	free(full);
	return rc;
}

static const struct rm_knob *wanted(const struct rm_knob *want, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(want[i].path, path))
			return &want[i];
	return NULL;
}

static bool in_old(const struct rm_record *old, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rm_record_get(&old[i], "file") ?: "", path))
			return true;
	return false;
}

static int commit(struct rm_state *st, const char *boot, struct rm_record *r, size_t n)
{
	struct rm_record head = { 0 };

	while (st->nrecords)
		rm_state_remove(st, st->nrecords - 1);
	if (n) {
		rm_record_set(&head, "boot", boot);
		rm_state_add(st, &head);
	}
	for (size_t i = 0; i < n; i++) {
		struct rm_record c;

		rm_record_copy(&c, &r[i]);
		rm_state_add(st, &c);
	}
	return rm_state_commit(st);
}

int rm_knobs_sync(const char *root, const char *journal, const struct rm_knob *want, size_t n,
		  char **warn, char **errmsg)
{
	struct rm_state st;
	struct rm_record *old = NULL, *next = NULL;
	size_t nold = 0, nnext = 0, ndone = 0;
	char *boot = rm_sysfs_read(root, "proc/sys/kernel/random/boot_id") ?: xstrdup("-");
	char **before = xcalloc(n + 1, sizeof(*before));
	int rc = -1;

	*warn = NULL;
	if (rm_state_open(&st, journal, RM_STATE_WRITE, errmsg)) {
		rm_state_close(&st);
		free(boot);
		free(before);
		return -1;
	}
	/* a journal of another boot: its values went with that boot */
	if (rm_state_find(&st, "boot", boot) < 0)
		while (st.nrecords)
			rm_state_remove(&st, st.nrecords - 1);
	for (size_t i = 0; i < st.nrecords; i++)
		if (!strcmp(rm_record_kind(&st.records[i]), "file")) {
			old = xrealloc(old, (nold + 1) * sizeof(*old));
			rm_record_copy(&old[nold++], &st.records[i]);
		}
	/* plan: every value about to change journaled before it changes */
	next = xcalloc(nold + n + 1, sizeof(*next));
	for (size_t i = 0; i < nold; i++)
		rm_record_copy(&next[nnext++], &old[i]);
	for (size_t i = 0; i < n; i++) {
		long j = rm_state_find(&st, "file", want[i].path);

		if (!(before[i] = rm_sysfs_read(root, want[i].path))) {
			*errmsg = xasprintf("cannot read /%s: %s", want[i].path, strerror(errno));
			goto out;
		}
		if (j < 0 && strcmp(before[i], want[i].value)) {
			rm_record_set(&next[nnext], "file", want[i].path);
			rm_record_set(&next[nnext++], "was", before[i]);
		}
	}
	if (commit(&st, boot, next, nnext)) {
		*errmsg = xasprintf("cannot write %s: %s", st.path, strerror(errno));
		goto out;
	}
	/* apply */
	for (; ndone < n; ndone++) {
		if (!strcmp(before[ndone], want[ndone].value))
			continue;
		if ((errno = put(root, want[ndone].path, want[ndone].value))) {
			*errmsg = xasprintf("cannot write '%s' to /%s: %s", want[ndone].value,
					    want[ndone].path, strerror(errno));
			while (ndone-- > 0)
				put(root, want[ndone].path, before[ndone]);
			commit(&st, boot, old, nold);
			goto out;
		}
	}
	/* restore what is no longer wanted; the journal keeps what stays changed */
	for (size_t i = 0; i < nnext; i++)
		rm_record_free(&next[i]);
	nnext = 0;
	for (size_t i = 0; i < nold; i++) {
		const char *path = rm_record_get(&old[i], "file"), *was = rm_record_get(&old[i], "was");
		int e;

		if (wanted(want, n, path)) {
			rm_record_copy(&next[nnext++], &old[i]);
		} else if ((e = put(root, path, was ?: ""))) {
			char *w = xasprintf("%s%scannot restore /%s to '%s': %s", *warn ?: "",
					    *warn ? "; " : "", path, was, strerror(e));

			free(*warn);
			*warn = w;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(before[i], want[i].value) && !in_old(old, nold, want[i].path)) {
			rm_record_set(&next[nnext], "file", want[i].path);
			rm_record_set(&next[nnext++], "was", before[i]);
		}
	if (commit(&st, boot, next, nnext)) {
		*errmsg = xasprintf("cannot write %s: %s", st.path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(before[i]);
	free(before);
	for (size_t i = 0; i < nold; i++)
		rm_record_free(&old[i]);
	for (size_t i = 0; i < nnext; i++)
		rm_record_free(&next[i]);
	free(old);
	free(next);
	free(boot);
	rm_state_close(&st);
	return rc;
}
