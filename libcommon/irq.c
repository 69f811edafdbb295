/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interrupts: /proc/irq/N affinities and node, /proc/interrupts and /proc/softirqs counts. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irq.h"
#include "kernfs.h"
#include "sysfs.h"
#include "xalloc.h"

/* No library parses /proc/interrupts (procps reads only its totals), so it is read here: a
 * header of CPUn columns, then per row "NAME:" and a count per column, then, for numbered rows,
 * the chip, the hardware IRQ with its trigger, and the actions. */

static char *dupn(const char *s, size_t n)
{
	char *d = xcalloc(n + 1, 1);

	memcpy(d, s, n);
	return d;
}

static char *next_token(char **p)
{
	char *s = *p, *start;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	start = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	*p = s;
	return dupn(start, (size_t)(s - start));
}

static char *trimmed(const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n ? dupn(s, n) : NULL;
}

int rm_irq_counts_read(const char *root, const char *file, struct rm_irq_counts *c,
		       char **errmsg)
{
	char *text = rm_sysfs_read(root, file), *line, *save = NULL, *p, *tok;

	memset(c, 0, sizeof(*c));
	if (!text) {
		char *path = rm_sysfs_path(root, file);

		*errmsg = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	line = strtok_r(text, "\n", &save);
	for (p = line; p && (tok = next_token(&p));) {
		if (!strncmp(tok, "CPU", 3) && isdigit((unsigned char)tok[3])) {
			c->cpu = xrealloc(c->cpu, (size_t)(c->ncols + 1) * sizeof(*c->cpu));
			c->cpu[c->ncols++] = atoi(tok + 3);
		}
		free(tok);
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct rm_irq_row r = { 0 };
		char *colon = strchr(line, ':'), *end;
		int k;

		if (!colon)
			continue;
		*colon = '\0';
		r.name = trimmed(line);
		if (!r.name)
			continue;
		r.irq = -1;
		if (isdigit((unsigned char)r.name[0]))
			r.irq = (int)strtol(r.name, NULL, 10);
		r.count = xcalloc((size_t)c->ncols + 1, sizeof(*r.count));
		p = colon + 1;
		for (k = 0; k < c->ncols; k++) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!isdigit((unsigned char)*p))
				break;
			r.count[k] = strtoull(p, &end, 10);
			r.total += r.count[k];
			p = end;
		}
		if (r.irq >= 0) {
			r.chip = next_token(&p);
			r.hwirq = next_token(&p);
		}
		r.actions = trimmed(p);
		c->row = xrealloc(c->row, (c->nrows + 1) * sizeof(*c->row));
		c->row[c->nrows++] = r;
	}
	free(text);
	return 0;
}

void rm_irq_counts_free(struct rm_irq_counts *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->row[i].name);
		free(c->row[i].count);
		free(c->row[i].chip);
		free(c->row[i].hwirq);
		free(c->row[i].actions);
	}
	free(c->row);
	free(c->cpu);
	memset(c, 0, sizeof(*c));
}

const struct rm_irq_row *rm_irq_counts_find(const struct rm_irq_counts *c, const char *name)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->row[i].name, name))
			return &c->row[i];
	return NULL;
}

unsigned long long rm_irq_row_sum(const struct rm_irq_counts *c, const struct rm_irq_row *row,
				  hwloc_const_bitmap_t set)
{
	unsigned long long sum = 0;

	for (int k = 0; k < c->ncols; k++)
		if (hwloc_bitmap_isset(set, (unsigned)c->cpu[k]))
			sum += row->count[k];
	return sum;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int rm_irq_list(const char *root, int **irqs)
{
	char *path = rm_sysfs_path(root, "proc/irq");
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	free(path);
	*irqs = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (!isdigit((unsigned char)e->d_name[0]) || *end || v < 0 || v > 1 << 30)
			continue;
		*irqs = xrealloc(*irqs, (size_t)(n + 1) * sizeof(**irqs));
		(*irqs)[n++] = (int)v;
	}
	closedir(d);
	if (n)
		qsort(*irqs, (size_t)n, sizeof(**irqs), cmp_int);
	return n;
}

int rm_irq_read_set(const char *root, int irq, const char *file, hwloc_bitmap_t set)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "proc/irq/%d/%s", irq, file);
	return rm_sysfs_read_set(root, rel, set);
}

int rm_irq_node(const char *root, int irq)
{
	char rel[96], *s, *end;
	long v;

	snprintf(rel, sizeof(rel), "proc/irq/%d/node", irq);
	if (!(s = rm_sysfs_read(root, rel)))
		return -1;
	v = strtol(s, &end, 10);
	if (end == s || *end)
		v = -1;
	free(s);
	return (int)v;
}

int rm_irq_managed(const char *root, int irq)
{
	char rel[96], *s;
	int managed;

	snprintf(rel, sizeof(rel), "sys/kernel/debug/irq/irqs/%d", irq);
	if (!(s = rm_sysfs_read(root, rel)))
		return -1;
	managed = strstr(s, "IRQD_AFFINITY_MANAGED") != NULL;
	free(s);
	return managed;
}

int rm_irq_set_affinity(const char *root, int irq, const char *list)
{
	char rel[96], *path;
	int rc;

	snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
	path = rm_sysfs_path(root, rel);
	rc = rm_kernfs_write(path, list, RM_KERNFS_NOFOLLOW | RM_KERNFS_TRUNC);
	free(path);
	return rc;
}
