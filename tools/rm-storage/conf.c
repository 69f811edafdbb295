/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storage.conf(5): the owners' I/O limits of a node, read and checked whole before apply locks. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "rm-storage.h"
#include "xalloc.h"

/*
 * A line is "limit OWNER DEVICE" and the limit options of "rm-storage limit" as key=value words.
 * Its owner and values are checked by st_limit_parse and st_limit_check, the code the command
 * line goes through, so the file accepts and refuses what the command does; their messages are
 * located at the word they are about.
 */

/* The column in L of what AT names (st_limit_parse, st_limit_check). */
static unsigned at_col(const struct st_conf_line *l, int at)
{
	return at == ST_AT_OWNER ? l->col_owner : l->col_val[at];
}

/* limit OWNER DEVICE key=value...: the operands and options of "rm-storage limit". */
static void limit_line(struct st_conf *cf, struct rm_conf_word *w, int n)
{
	struct st_limit_args a = { 0 };
	struct st_conf_line *l;
	char *msg = NULL;
	int at;

	if (n < 2 || strchr(w[1].text, '='))
		return rm_conf_fail(&cf->f, 0, w[0].col, xstrdup("missing the owner's name"));
	if (n < 3 || strchr(w[2].text, '='))
		return rm_conf_fail(&cf->f, 0, w[0].col, xstrdup("missing the device"));
	cf->lines = xrealloc(cf->lines, (cf->n + 1) * sizeof(*cf->lines));
	l = &cf->lines[cf->n++];
	memset(l, 0, sizeof(*l));
	l->line = cf->f.line;
	l->source = xasprintf("%s:%u", cf->f.file, cf->f.line);
	l->owner = xstrdup(w[1].text);
	l->col_owner = w[1].col;
	l->device = xstrdup(w[2].text);
	l->col_device = w[2].col;
	rm_conf_digest(w + 3, n - 3, l->digest);
	for (int i = 3; i < n; i++) {
		char *value;
		unsigned vcol;
		size_t k;

		if (rm_conf_split(&w[i], &value, &vcol) < 0)
			return rm_conf_fail_shown(&cf->f, w[i].col, "expected key=value: '%s'",
						  w[i].text);
		for (k = 0; k < ST_NLIMITS && strcmp(w[i].text, st_limit_option(k)); k++)
			;
		if (k == ST_NLIMITS)
			return rm_conf_fail_shown(&cf->f, w[i].col,
						  "unknown setting: '%s' (rm-storage.conf(5))",
						  w[i].text);
		if (l->val[k])
			return rm_conf_fail_shown(&cf->f, w[i].col, "given twice: '%s'", w[i].text);
		l->val[k] = xstrdup(value);
		l->col_val[k] = vcol;
	}
	a.owner = l->owner;
	a.device = l->device;
	memcpy(a.val, l->val, sizeof(a.val));
	if (st_limit_parse(&a, &l->l, &at, &msg) < 0)
		return rm_conf_fail(&cf->f, 0, at_col(l, at), msg);
	if (n == 3)
		return rm_conf_fail(&cf->f, 0, w[0].col,
				    xstrdup("missing a limit: read-bps=, write-bps=, read-iops=, "
					    "write-iops=, weight= or latency-target="));
	if (st_limit_none(&l->l))
		return rm_conf_fail(&cf->f, 0, w[0].col,
				    xstrdup("every limit is max: the line limits nothing"));
}

/* Each line's device as a disk of this machine, and each (owner, disk) once. */
static void resolve_disks(struct st_conf *cf)
{
	for (size_t i = 0; i < cf->n && !cf->f.err; i++) {
		struct st_conf_line *l = &cf->lines[i];
		char *where = xasprintf("%s:%u:%u", cf->f.file, l->line, l->col_device), *msg = NULL;
		int rc;

		/* a partition's note names the line */
		rm_msg_where(where);
		rc = st_disk(NULL, l->device, &l->disk, &l->devno, &msg);
		rm_msg_where(NULL);
		free(where);
		if (rc < 0) {
			rm_conf_fail(&cf->f, l->line, l->col_device, msg);
			break;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(cf->lines[k].owner, l->owner) &&
			    !strcmp(cf->lines[k].disk, l->disk)) {
				rm_conf_fail(&cf->f, l->line, l->col_device, xasprintf(
						     "the limit of owner '%s' on disk '%s' is set on "
						     "line %u already", l->owner, l->disk,
						     cf->lines[k].line));
				break;
			}
	}
}

void st_conf_read(struct st_conf *cf, const char *path)
{
	struct rm_conf_word w[RM_CONF_MAX_WORDS];
	int n;

	memset(cf, 0, sizeof(*cf));
	if (rm_conf_open(&cf->f, path) < 0)
		rm_usage_errx("cannot read %s: %s", path, strerror(errno));
	while ((n = rm_conf_next(&cf->f, w)) > 0 && !cf->f.err) {
		if (!strcmp(w[0].text, "limit"))
			limit_line(cf, w, n);
		else
			rm_conf_fail_shown(&cf->f, w[0].col, "unknown setting: '%s' (limit)",
					   w[0].text);
	}
	if (cf->f.err)
		rm_usage_errx("%s", cf->f.err);
	if (n < 0)
		rm_err(RM_EXIT_FAILURE, "cannot read %s", cf->f.file);
	resolve_disks(cf);
	if (cf->f.err)
		rm_usage_errx("%s", cf->f.err);
}

void st_conf_check(struct st_conf *cf, const struct rm_io *io)
{
	for (size_t i = 0; i < cf->n && !cf->f.err; i++) {
		struct st_conf_line *l = &cf->lines[i];
		char *msg = NULL;
		int at;

		if (st_limit_check(io, l->owner, &l->l, &at, &msg) < 0)
			rm_conf_fail(&cf->f, l->line, at_col(l, at), msg);
	}
	if (cf->f.err)
		rm_usage_errx("%s", cf->f.err);
}

void st_conf_free(struct st_conf *cf)
{
	for (size_t i = 0; i < cf->n; i++) {
		struct st_conf_line *l = &cf->lines[i];

		for (size_t k = 0; k < ST_NLIMITS; k++)
			free(l->val[k]);
		free(l->source);
		free(l->owner);
		free(l->device);
		free(l->disk);
		free(l->devno);
	}
	free(cf->lines);
	rm_conf_close(&cf->f);
}
