/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What rm-storage's commands share: the input, disks by name, the state, rates. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "exitcodes.h"
#include "input.h"
#include "kernfs.h"
#include "owner.h"
#include "rm-storage.h"
#include "size.h"
#include "sysfs.h"
#include "xalloc.h"

const char *st_sysroot(const struct rm_common *c)
{
	const struct rm_input *in = rm_input_resolve(c);

	if (rm_input_described(in) && in->given)
		rm_usage_errx("disks are not part of a described topology: '--topology' "
			      "(use --sysroot with a snapshot)");
	return rm_input_root(in);
}

void st_live_only(const struct rm_common *c, const char *command)
{
	if (st_sysroot(c))
		rm_usage_errx("%s changes this machine, not a --sysroot tree: '%s'", command,
			      st_sysroot(c));
}

/* The last component of the link sys/class/block/NAME's target's parent, when NAME is a
 * partition: its disk. */
static char *disk_of_partition(const char *sysroot, const char *name)
{
	char *p = xasprintf("sys/class/block/%s/partition", name), *path, *real, *slash;

	if (!rm_sysfs_exists(sysroot, p)) {
		free(p);
		return NULL;
	}
	free(p);
	p = xasprintf("sys/class/block/%s/..", name);
	path = rm_sysfs_path(sysroot, p);
	free(p);
	real = realpath(path, NULL);
	free(path);
	if (!real)
		return NULL;
	slash = strrchr(real, '/');
	p = xstrdup(slash ? slash + 1 : real);
	free(real);
	return p;
}

int st_disk(const char *sysroot, const char *arg, char **name, char **devno, char **errmsg)
{
	char *n = NULL, *p, *disk;

	*name = *devno = NULL;
	if (strchr(arg, '/')) {
		struct stat sb;
		char *link, *real, *slash;

		/* a node: its number, then the kernel's name from sys/dev/block */
		if (stat(arg, &sb) < 0 || !S_ISBLK(sb.st_mode)) {
			*errmsg = xasprintf("not a block device: '%s'", arg);
			return -1;
		}
		p = xasprintf("sys/dev/block/%u:%u", major(sb.st_rdev), minor(sb.st_rdev));
		link = rm_sysfs_path(sysroot, p);
		free(p);
		real = realpath(link, NULL);
		free(link);
		if (!real || !(slash = strrchr(real, '/'))) {
			free(real);
			*errmsg = xasprintf("unknown block device: '%s'", arg);
			return -1;
		}
		n = xstrdup(slash + 1);
		free(real);
	} else {
		n = xstrdup(arg);
	}
	p = xasprintf("sys/class/block/%s/dev", n);
	if (!rm_name_valid(n) || !rm_sysfs_exists(sysroot, p)) {
		free(p);
		free(n);
		*errmsg = xasprintf("unknown block device: '%s'", arg);
		return -1;
	}
	free(p);
	if ((disk = disk_of_partition(sysroot, n))) {
		rm_warnx("note: '%s' is a partition: its disk '%s' is limited (the kernel throttles "
			 "whole disks)", n, disk);
		free(n);
		n = disk;
	}
	p = xasprintf("sys/class/block/%s/dev", n);
	*devno = rm_sysfs_read(sysroot, p);
	free(p);
	if (!*devno) {
		*errmsg = xasprintf("unknown block device: '%s'", arg);
		free(n);
		return -1;
	}
	*name = n;
	return 0;
}

void st_open(struct rm_state *st, enum rm_state_mode mode)
{
	rm_state_open_or_exit(st, ST_STATE, mode, "rm-storage(1)", "changing limits and quotas");
}

void st_commit(struct rm_state *st)
{
	if (rm_state_commit(st) < 0) {
		int e = errno;

		rm_state_close(st);
		rm_errx(RM_EXIT_FAILURE, "cannot write the state: %s", strerror(e));
	}
}

int st_parse_rate(const char *opt, const char *s, bool bytes, uint64_t *v, char **errmsg)
{
	char *end;

	if (!strcmp(s, "max")) {
		*v = 0;
		return 0;
	}
	if (bytes) {
		if (rm_size_parse(s, v, errmsg) < 0) {
			char *m = *errmsg;

			*errmsg = xasprintf("%s: %s", opt, m);
			free(m);
			return -1;
		}
	} else {
		errno = 0;
		*v = strtoull(s, &end, 10);
		if (errno || end == s || *end || *s == '-' || *s == '+') {
			*errmsg = xasprintf("%s: invalid number: '%s'", opt, s);
			return -1;
		}
	}
	if (*v == 0) {
		*errmsg = xasprintf("%s: zero would stop all I/O (give max for no limit): '%s'",
				    opt, s);
		return -1;
	}
	return 0;
}
