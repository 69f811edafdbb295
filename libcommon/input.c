/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The input of a run, decided once from the options and the environment, with its root fds. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "exitcodes.h"
#include "input.h"
#include "kernfs.h"
#include "msg.h"
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

/* A synthetic description is a list of "type:count" tokens ("package:2 core:8 pu:2"). */
static bool looks_synthetic(const char *spec)
{
	return strchr(spec, ':') && !strchr(spec, '/') && !strstr(spec, ".xml");
}

/* What --topology names: an existing file is XML (a directory is refused when the topology is
 * read), else a synthetic description when it reads as one, else a missing XML file. */
static void topology_kind(struct rm_input *in)
{
	struct stat st;

	in->kind = RM_INPUT_XML;
	if (stat(in->topology, &st) == 0)
		in->topology_errno = S_ISDIR(st.st_mode) ? EISDIR : 0;
	else if (looks_synthetic(in->topology))
		in->kind = RM_INPUT_SYNTHETIC;
	else
		in->topology_errno = errno;
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
	in->kind = in->sysroot ? RM_INPUT_SNAPSHOT : RM_INPUT_LIVE;
	if (in->topology)
		topology_kind(in);
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

bool rm_input_here(const struct rm_input *in)
{
	return in->kind == RM_INPUT_LIVE;
}

bool rm_input_sysfs(const struct rm_input *in)
{
	return in->kind == RM_INPUT_LIVE || in->kind == RM_INPUT_SNAPSHOT;
}

bool rm_input_described(const struct rm_input *in)
{
	return !rm_input_sysfs(in);
}

const char *rm_input_root(const struct rm_input *in)
{
	return in->kind == RM_INPUT_SNAPSHOT ? in->sysroot : NULL;
}

const char *rm_input_name(const struct rm_input *in)
{
	return rm_input_described(in) ? in->topology : rm_input_root(in);
}

void rm_input_invalid(const struct rm_input *in, const char *what)
{
	if (errno == ENOMEM) /* out of memory is no fault of the input */
		rm_err(RM_EXIT_FAILURE, "%s: '%s'", what, rm_input_name(in));
	rm_usage_errx("%s: '%s'", what, rm_input_name(in));
}

/* Exit 2 naming IN and the bounds: what it describes is larger than any machine. */
static void too_large(const struct rm_input *in)
{
	rm_usage_errx("topology too large: '%s' (at most %d PUs and %d children of an object)",
		      in->topology, RM_TOPO_MAX_PUS, RM_TOPO_MAX_ARITY);
}

/*
 * Whether the synthetic description SPEC stays within RM_TOPO_MAX_PUS and RM_TOPO_MAX_ARITY.
 * hwloc multiplies the counts of the levels unchecked and builds every object before anything
 * can be said, so the counts are read here first, as hwloc reads them (topology-synthetic.c):
 * "(attributes)" of the root, then blank-separated levels, "TYPE:COUNT" or "COUNT" with optional
 * "(attributes)", and "[numa...]" attached without a count. Where hwloc finds no count it refuses
 * the description itself.
 */
static bool synthetic_fits(const char *p)
{
	unsigned long long pus = 1, n;
	char *end;

	if (*p == '(' && (p = strchr(p, ')')))
		p++;
	while (p && *p) {
		p += strspn(p, " \n");
		if (*p == '[') {
			if ((p = strchr(p, ']')))
				p++;
			continue;
		}
		if (*p && (*p < '0' || *p > '9') && !(p = strchr(p, ':')))
			break;
		p += *p == ':';
		errno = 0;
		n = strtoull(p, &end, 0);
		if (end == p || !n)
			break;
		if (errno || n > RM_TOPO_MAX_ARITY || (pus *= n) > RM_TOPO_MAX_PUS)
			return false;
		p = end;
		if (*p == '(' && (p = strchr(p, ')')))
			p++;
	}
	return true;
}

void rm_input_check(const struct rm_input *in)
{
	if (in->topology_errno == EISDIR)
		rm_usage_errx("--topology takes an XML file or a synthetic description, use --sysroot "
			      "for a snapshot directory: '%s'", in->topology);
	if (in->topology_errno) {
		errno = in->topology_errno;
		rm_input_invalid(in, "no such topology file");
	}
	if (in->kind == RM_INPUT_SYNTHETIC && !synthetic_fits(in->topology))
		too_large(in);
}

char *rm_input_xml(const struct rm_input *in, size_t *size)
{
	int fd = open(in->topology, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	size_t pus = 0;
	ssize_t n = 0;
	char *buf, *p;

	if (fd < 0 || fstat(fd, &st) < 0)
		rm_input_invalid(in, "cannot read the topology file");
	/* a FIFO or a device may never end: only a file has a size to check */
	errno = 0;
	if (!S_ISREG(st.st_mode))
		rm_input_invalid(in, "not a regular file");
	if (st.st_size > RM_TOPO_XML_MAX)
		rm_usage_errx("topology XML file too large: '%s' (at most %d MiB)", in->topology,
			      RM_TOPO_XML_MAX >> 20);
	buf = xmalloc((size_t)st.st_size + 1);
	for (*size = 0; *size < (size_t)st.st_size; *size += (size_t)n)
		if ((n = read(fd, buf + *size, (size_t)st.st_size - *size)) <= 0)
			break;
	close(fd);
	if (n < 0)
		rm_input_invalid(in, "cannot read the topology file");
	buf[*size] = '\0';
	for (p = buf; (p = strstr(p, "type=\"PU\"")); p++)
		if (++pus > RM_TOPO_MAX_PUS)
			too_large(in);
	return buf;
}
