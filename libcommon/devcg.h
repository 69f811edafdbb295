/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device access of a cgroup v2: an allow-list BPF_PROG_TYPE_CGROUP_DEVICE program, replaced. */
#ifndef RM_DEVCG_H
#define RM_DEVCG_H

#include <stddef.h>
#include <stdint.h>

/* One device node allowed: 'c' or 'b', major, minor (-1: every minor). */
struct rm_devcg_rule {
	char kind;
	int major, minor;
};

/* Attach to the cgroup v2 directory CGFD a device program that allows RULES (read, write,
 * mknod) and denies every other device, then detach the program an earlier call attached (the
 * cgroup is never without one). 0 with *ID (the program's, when ID is not NULL), or -1 with
 * *ERRMSG and the cgroup as it was. */
int rm_devcg_replace(int cgfd, const struct rm_devcg_rule *rules, size_t n, uint32_t *id,
		     char **errmsg);

/* Detach the device programs rm_devcg_replace attached to CGFD: 0, or -1 with *ERRMSG. */
int rm_devcg_remove(int cgfd, char **errmsg);

#endif
