/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The input of a run, decided once from the options and the environment, with its root fds. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "input.h"
#include "kernfs.h"
#include "options.h"
#include "resctrl.h"
#include "snaparchive.h"
#include "xalloc.h"

static struct rm_input input;
static bool decided;

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

void rm_input_defaults(const char **sysroot, const char **topology)
{
	*sysroot = NULL;
	*topology = env("RM_TOPOLOGY");
	if (!*topology)
		*sysroot = env("RM_SYSROOT");
}

/* A registered root's descriptor, -1 when it cannot be opened (the tools that need it say why
 * when they read it). */
static int root_fd(const char *path)
{
	return path ? rm_kernfs_root_add(path) : -1;
}

const struct rm_input *rm_input_resolve(const struct rm_common *c)
{
	struct rm_input *in = &input;
	const char *v;

	if (decided)
		return in;
	decided = true;
	memset(in, 0, sizeof(*in));
	in->env_sysroot = env("RM_SYSROOT");
	in->env_topology = env("RM_TOPOLOGY");
	if (c) {
		in->sysroot = c->sysroot;
		in->topology = c->topology;
		in->given = (c->sysroot && c->sysroot != in->env_sysroot) ||
			    (c->topology && c->topology != in->env_topology);
	} else {
		rm_input_defaults(&in->sysroot, &in->topology);
	}
	if (in->sysroot && !strcmp(in->sysroot, "/") && !in->given)
		in->sysroot = NULL;
	in->source = in->topology ? RM_INPUT_TOPOLOGY
		     : in->sysroot ? RM_INPUT_SYSROOT
				   : RM_INPUT_LIVE;
	/* a snapshot archive given as --sysroot is unpacked here, before its root is opened */
	if (in->sysroot)
		in->sysroot = rm_archive_sysroot(in->sysroot);
	in->sysroot_fd = root_fd(in->sysroot);

	in->cgroup_tree = (v = env("RM_CGROUP_ROOT")) != NULL;
	in->cgroup_root = xstrdup(v ? v : RM_CGROUP_ROOT_DEFAULT);
	in->cgroup_fd = root_fd(in->cgroup_root);

	in->resctrl_tree = (v = env("RM_RESCTRL_ROOT")) != NULL;
	if (v)
		in->resctrl_root = xstrdup(v);
	else if (in->sysroot && strcmp(in->sysroot, "/"))
		in->resctrl_root = xasprintf("%s%s", in->sysroot, RM_RESCTRL_ROOT_DEFAULT);
	else
		in->resctrl_root = xstrdup(RM_RESCTRL_ROOT_DEFAULT);
	in->resctrl_fd = root_fd(in->resctrl_root);
	return in;
}

const struct rm_input *rm_input(void)
{
	return rm_input_resolve(NULL);
}
