/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-devices export: a CDI spec, Slurm gres.conf lines, NFD labels or DRA ResourceSlices. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "devhealth.h"
#include "owner.h"
#include "resctrl.h"
#include "rm-devices.h"
#include "cdi.h"
#include "slurm.h"
#include "topology.h"
#include "xalloc.h"

/* NFD's own namespace: always allowed by nfd-master, whatever denyLabelNs says */
#define NFD_PREFIX "feature.node.kubernetes.io/rmtools-"

/* The seconds a runtime gives the hook of an owner's device before it fails the container. */
#define CDI_HOOK_TIMEOUT 10

enum { OPT_OUTPUT_FILE = 'o', OPT_VENDOR_DOMAIN = 0x500, OPT_TYPE, OPT_DRIVER, OPT_NODE_NAME,
       OPT_CDI_VERSION };

struct export_args {
	const char *format;
	const char *output;
	const char *domain;
	const char *cdi_max;    /* cdi: the highest cdiVersion to write */
	const char *driver;     /* resourceslice */
	const char *node_name;  /* resourceslice */
	bool types[RM_DEV_NTYPES];
	bool any_type;
};

static const struct argp_option export_options[] = {
	{ "output", OPT_OUTPUT_FILE, "FILE", 0,
	  "write FILE atomically instead of standard output", 0 },
	{ "type", OPT_TYPE, "TYPE", 0,
	  "the device types (a comma list; cdi and gres: one type, default gpu)", 0 },
	{ "vendor-domain", OPT_VENDOR_DOMAIN, "NAME", 0,
	  "cdi: the vendor part of the kind, NAME/TYPE (default " RM_DEVICES_VENDOR_DEFAULT ")", 0 },
	{ "cdi-version", OPT_CDI_VERSION, "VERSION", 0,
	  "cdi: the highest cdiVersion the runtime loads (default " RM_CDI_VERSION_DEFAULT
	  ", Debian 12's podman); a spec that needs more is an error", 0 },
	{ "driver", OPT_DRIVER, "NAME", 0,
	  "resourceslice: the DRA driver publishing the devices (a DNS name), and their "
	  "attributes' domain", 0 },
	{ "node-name", OPT_NODE_NAME, "NAME", 0,
	  "resourceslice, scontrol: the Kubernetes node and pool name, the Slurm node name "
	  "(default the host name)", 0 },
	{ 0 }
};

/* A node name as pool names and spec.nodeName take it: a DNS subdomain of at most 63. */
static bool valid_node_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || s[0] == '-' || s[0] == '.' || s[n - 1] == '-' || s[n - 1] == '.' ||
	    strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' ||
		      s[i] == '.'))
			return false;
	return true;
}

/* Whether FORMAT exports several device types (the others one). */
static bool multi_type(const char *format)
{
	return !strcmp(format, "nfd") || !strcmp(format, "resourceslice") ||
	       !strcmp(format, "scontrol");
}

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *e = state->input;
	const char *bad;
	size_t badlen;

	switch (key) {
	case OPT_OUTPUT_FILE:
		e->output = arg;
		break;
	case OPT_VENDOR_DOMAIN:
		if (!rm_devices_domain_valid(arg))
			argp_error(state, "invalid vendor domain: '%s' (a DNS name such as "
				   "example.com)", arg);
		e->domain = arg;
		break;
	case OPT_DRIVER:
		if (!rm_devices_domain_valid(arg) || strlen(arg) > 63)
			argp_error(state, "invalid driver name: '%s' (a DNS name of at most 63 "
				   "characters such as gpu.example.com)", arg);
		e->driver = arg;
		break;
	case OPT_CDI_VERSION:
		if (rm_cdi_version_rank(arg) < 0)
			argp_error(state, "unknown CDI version: '%s' (%s)", arg, rm_cdi_versions());
		e->cdi_max = arg;
		break;
	case OPT_NODE_NAME:
		if (!valid_node_name(arg))
			argp_error(state, "invalid node name: '%s' (lower-case letters, digits, '-' "
				   "and '.', at most 63)", arg);
		e->node_name = arg;
		break;
	case OPT_TYPE:
		if (parse_types(arg, e->types, &bad, &badlen) < 0)
			argp_error(state, "unknown device type: '%.*s' (gpu, nic, ib, fpga, accel, nvme, vfio, "
				   "other)", (int)badlen, bad);
		e->any_type = true;
		break;
	case ARGP_KEY_ARG:
		if (e->format)
			argp_error(state, "unexpected argument: '%s'", arg);
		if (strcmp(arg, "cdi") && strcmp(arg, "gres") && strcmp(arg, "nfd") &&
		    strcmp(arg, "resourceslice") && strcmp(arg, "scontrol"))
			argp_error(state, "unknown export format: '%s' (cdi, gres, nfd, "
				   "resourceslice, scontrol)", arg);
		e->format = arg;
		break;
	case ARGP_KEY_END:
		if (!e->format)
			argp_error(state, "missing FORMAT (cdi, gres, nfd, resourceslice, scontrol)");
		if ((e->domain || e->cdi_max) && strcmp(e->format, "cdi"))
			argp_error(state, "--%s is for cdi", e->domain ? "vendor-domain" : "cdi-version");
		if (e->driver && strcmp(e->format, "resourceslice"))
			argp_error(state, "--driver is for resourceslice");
		if (e->node_name && strcmp(e->format, "resourceslice") &&
		    strcmp(e->format, "scontrol"))
			argp_error(state, "--node-name is for resourceslice and scontrol");
		if (!e->driver && !strcmp(e->format, "resourceslice"))
			argp_error(state, "resourceslice needs --driver NAME");
		if (e->any_type && !multi_type(e->format)) {
			int n = 0;

			for (int t = 0; t < RM_DEV_NTYPES; t++)
				n += e->types[t];
			if (n != 1)
				argp_error(state, "%s takes one --type", e->format);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- JSON, written by hand: three levels of fixed keys do not need a library ---- */

static void json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			putc(*p, f);
	}
	putc('"', f);
}

static void json_nodes(FILE *f, const struct rm_devnode *const *nodes, size_t n,
		       const char *indent)
{
	fprintf(f, "\"deviceNodes\": [");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n%s  {\"path\": ", i ? "," : "", indent);
		json_string(f, nodes[i]->path);
		putc('}', f);
	}
	fprintf(f, "\n%s]", indent);
}

struct export {
	struct export_args *e;
	struct rm_device **sel;
	size_t n;
	struct rm_topo *t;
	enum rm_device_type type;
	const char *sysroot;
	const char *node;     /* resourceslice: the node and pool */
	const char *left_out; /* resourceslice, gres: comment lines naming the allocated devices */
	struct rm_health *h;     /* the devices' health (nfd, gres, resourceslice, scontrol) */
	size_t nh;
	struct cdi_plan *cdi; /* cdi: what the spec holds */
};

/* The unhealthy conditions of D, or NULL when it is not unhealthy. */
static const char *unhealthy(const struct export *x, const struct rm_device *d)
{
	const struct rm_health *h = rm_health_find(x->h, x->nh, d->addr);

	return h && h->level == RM_HL_UNHEALTHY ? h->unhealthy : NULL;
}

/* Whether device D needs the node at PATH among its driver's shared nodes. */
static bool needs_shared(const struct rm_device *d, const char *path)
{
	for (size_t k = 0; k < d->nshared; k++)
		if (!strcmp(d->shared[k].path, path))
			return true;
	return false;
}

/* Whether NODES[0..N) has a node at PATH. */
static bool has_node(const struct rm_devnode *const *nodes, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nodes[i]->path, path))
			return true;
	return false;
}

/* "netDevices": one entry per network interface of DEVS (each a comma list), under its name. */
static void json_netdevs(FILE *f, struct rm_device *const *devs, size_t ndevs, const char *indent)
{
	size_t i = 0;

	fputs("\"netDevices\": [", f);
	for (size_t k = 0; k < ndevs; k++) {
		char *list = xstrdup(devs[k]->netdevs ? devs[k]->netdevs : ""), *save = NULL;

		for (char *name = strtok_r(list, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			fprintf(f, "%s\n%s  {\"hostInterfaceName\": ", i++ ? "," : "", indent);
			json_string(f, name);
			fputs(", \"name\": ", f);
			json_string(f, name);
			putc('}', f);
		}
		free(list);
	}
	fprintf(f, "\n%s]", indent);
}

/*
 * One device of the spec named NAME, with the containerEdits DEVS[0..N) need: their own nodes and
 * the shared ones not in the spec's COMMON, their network interfaces, variables naming each by
 * its name in NAMES (CDI sets variables by name, so two devices' would clash), with RDT the
 * resctrl group the container joins, and with ATTACH a createRuntime hook that moves the
 * container's process to that owner's CPUs and cgroup (rm-cpuset attach --oci-state).
 */
static void json_cdi_device(FILE *f, const char *name, struct rm_device *const *devs,
			    char *const *names, size_t n, const struct rm_devnode *const *common,
			    size_t ncommon, const char *rdt, const char *attach)
{
	const struct rm_devnode **own = NULL;
	size_t nown = 0;
	bool net = false;

	for (size_t i = 0; i < n; i++) {
		const struct rm_device *d = devs[i];

		own = xrealloc(own, (nown + d->nnodes + d->nshared + 1) * sizeof(*own));
		for (size_t k = 0; k < d->nnodes; k++)
			own[nown++] = &d->nodes[k];
		for (size_t k = 0; k < d->nshared; k++)
			if (!has_node(common, ncommon, d->shared[k].path) &&
			    !has_node(own, nown, d->shared[k].path))
				own[nown++] = &d->shared[k];
		net |= d->netdevs && *d->netdevs;
	}
	fputs("\n    {\n      \"name\": ", f);
	json_string(f, name);
	fputs(",\n      \"containerEdits\": {\n        ", f);
	if (nown) {
		json_nodes(f, own, nown, "        ");
		fputs(",\n        ", f);
	}
	if (net) {
		json_netdevs(f, devs, n, "        ");
		fputs(",\n        ", f);
	}
	if (rdt) {
		fputs("\"intelRdt\": {\"closID\": ", f);
		json_string(f, rdt);
		fputs("},\n        ", f);
	}
	if (attach) {
		fputs("\"hooks\": [\n          {\"hookName\": \"createRuntime\", \"path\": \""
		      RM_BINDIR "/rm-cpuset\",\n           \"args\": [\"rm-cpuset\", \"attach\", "
		      "\"--oci-state\", ", f);
		json_string(f, attach);
		fprintf(f, "], \"timeout\": %d}\n        ],\n        ", CDI_HOOK_TIMEOUT);
	}
	fputs("\"env\": [", f);
	for (size_t i = 0; i < n; i++) {
		char *up = xstrdup(names[i]), *env;

		for (char *p = up; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		env = xasprintf("RM_DEVICE_%s_PCI=%s", up, devs[i]->addr);
		fprintf(f, "%s\n          ", i ? "," : "");
		json_string(f, env);
		free(env);
		if (devs[i]->numa >= 0)
			env = xasprintf("RM_DEVICE_%s_NUMA=%d", up, devs[i]->numa);
		else
			env = xasprintf("RM_DEVICE_%s_NUMA=-", up);
		fputs(",\n          ", f);
		json_string(f, env);
		free(env);
		free(up);
	}
	fputs("\n        ]\n      }\n    }", f);
	free(own);
}

/*
 * An owner of devices of the spec: its name, its devices and their names, its resctrl group,
 * whether it holds CPUs in rm-cpuset's state (its device then has the hook that attaches).
 */
struct cdi_owner {
	char *name, *rdt;
	struct rm_device **devs;
	char **names;
	size_t n;
	bool cpus;
};

static int owner_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cdi_owner *)a)->name, ((const struct cdi_owner *)b)->name);
}

/*
 * The owners of X's devices in rm-devices' state, by name, each with its devices (NAMES are the
 * devices' names in the spec) and the resctrl group rm-cpuset keeps for it (rm_owner_cpus). An
 * owner named like a device of the spec is left out with a warning: the names would clash.
 * Exits 1 when rm-cpuset's state cannot be read: the spec would lack the owner's group.
 */
static struct cdi_owner *cdi_owners(const struct export *x, char *const *names, size_t *nowners)
{
	struct cdi_owner *own = xcalloc(x->n + 1, sizeof(*own));
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	struct rm_state st;
	size_t n = 0;

	dstate_open(&st, false);
	for (size_t i = 0; i < x->n; i++) {
		long r = rm_state_find(&st, "device", x->sel[i]->addr);
		const char *name = r < 0 ? NULL : rm_record_get(&st.records[r], "owner");
		size_t k = 0;

		if (!name)
			continue;
		while (k < n && strcmp(own[k].name, name))
			k++;
		if (k == n) {
			own[n].name = xstrdup(name);
			own[n].devs = xcalloc(x->n, sizeof(*own[n].devs));
			own[n].names = xcalloc(x->n, sizeof(*own[n].names));
			n++;
		}
		own[k].devs[own[k].n] = x->sel[i];
		own[k].names[own[k].n++] = names[i];
	}
	rm_state_close(&st);
	for (size_t k = 0; k < n; k++) {
		char *msg = NULL;
		bool rdt;
		int r;

		for (size_t i = 0; i < x->n; i++)
			if (!strcmp(names[i], own[k].name)) {
				rm_warnx("owner '%s' is named like a device of the spec; not in the spec",
					 own[k].name);
				own[k].n = 0;
			}
		if ((r = rm_owner_cpus(own[k].name, cpus, &rdt, &msg)) < 0)
			rm_errx(RM_EXIT_FAILURE, "%s", msg);
		own[k].cpus = r > 0;
		if (rdt)
			own[k].rdt = xasprintf("%s%s", RM_RESCTRL_PREFIX, own[k].name);
	}
	hwloc_bitmap_free(cpus);
	qsort(own, n, sizeof(*own), owner_cmp);
	*nowners = n;
	return own;
}

/* What a CDI spec holds, worked out before anything is written. */
struct cdi_plan {
	char **names, **all;          /* the devices' names; theirs and the owners' */
	struct cdi_owner *owners;
	const struct rm_devnode **common;
	size_t nowners, nall, ncommon;
	const char *version;
};

/*
 * The spec's containerEdits hold the driver nodes every device of the spec needs (nvidiactl for
 * NVIDIA GPUs); a device's own containerEdits its nodes and the driver nodes only it and some
 * others need (/dev/kfd for an AMD GPU, /dev/vfio/vfio for a vfio-bound one), so that a device
 * requested alone gets no other driver's node. NICs and HCAs move their interfaces into the
 * container with netDevices. Each owner of devices of the spec is a device too, named by the
 * owner: all its devices, the owner's resctrl group (rm-cpuset --l3-ways, --mem-bandwidth)
 * for the container to join, and the hook that puts the container on the owner's CPUs, so that
 * a container started for the owner gets what it holds. The cdiVersion is the lowest that has
 * every feature used; above MAX it is an error (exit 2): the runtime would refuse the spec.
 */
static struct cdi_plan *cdi_plan(const struct export *x, const char *max)
{
	struct cdi_plan *c = xcalloc(1, sizeof(*c));
	const char *cls = rm_devices_type_name(x->type);
	unsigned features = strchr(cls, '.') ? RM_CDI_CLASS_DOT : 0;

	c->common = xcalloc(1, sizeof(*c->common));
	c->names = xcalloc(x->n + 1, sizeof(*c->names));
	for (size_t i = 0; i < x->n; i++) {
		c->names[i] = rm_devices_name(x->sel[i]);
		if (x->sel[i]->netdevs && *x->sel[i]->netdevs)
			features |= RM_CDI_NET_DEVICES;
	}
	c->owners = cdi_owners(x, c->names, &c->nowners);
	c->all = xcalloc(x->n + c->nowners + 1, sizeof(*c->all));
	memcpy(c->all, c->names, x->n * sizeof(*c->all));
	c->nall = x->n;
	for (size_t k = 0; k < c->nowners; k++)
		if (c->owners[k].n) {
			c->all[c->nall++] = c->owners[k].name;
			if (c->owners[k].rdt)
				features |= RM_CDI_INTEL_RDT;
		}
	for (size_t i = 0; i < c->nall; i++)
		if (isdigit((unsigned char)c->all[i][0]))
			features |= RM_CDI_DIGIT_NAME;
	c->version = rm_cdi_version(features);
	if (rm_cdi_version_rank(c->version) > rm_cdi_version_rank(max))
		rm_usage_errx("the spec needs cdiVersion %s (%s), above %s: give --cdi-version %s "
			      "if the runtime loads it", c->version,
			      features & RM_CDI_NET_DEVICES ? "netDevices of network devices" :
			      features & RM_CDI_INTEL_RDT ? "intelRdt: an owner's resctrl group" :
			      "a dot in the class", max, c->version);
	/* the first device's shared nodes that every device needs */
	for (size_t k = 0; x->n && k < x->sel[0]->nshared; k++) {
		const struct rm_devnode *sh = &x->sel[0]->shared[k];
		bool every = true;

		for (size_t i = 1; i < x->n && every; i++)
			every = needs_shared(x->sel[i], sh->path);
		if (!every)
			continue;
		c->common = xrealloc(c->common, (c->ncommon + 1) * sizeof(*c->common));
		c->common[c->ncommon++] = sh;
	}
	return c;
}

static void cdi_plan_free(struct cdi_plan *c, size_t ndevs)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->nowners; k++) {
		free(c->owners[k].name);
		free(c->owners[k].rdt);
		free(c->owners[k].devs);
		free(c->owners[k].names);
	}
	for (size_t i = 0; i < ndevs; i++)
		free(c->names[i]);
	free(c->names);
	free(c->all);
	free(c->owners);
	free(c->common);
	free(c);
}

static void write_cdi(FILE *f, const struct export *x)
{
	const struct cdi_plan *c = x->cdi;
	char *kind = xasprintf("%s/%s", x->e->domain ? x->e->domain : RM_DEVICES_VENDOR_DEFAULT,
			       rm_devices_type_name(x->type));

	fprintf(f, "{\n  \"cdiVersion\": \"%s\",\n  \"kind\": ", c->version);
	json_string(f, kind);
	free(kind);
	if (c->ncommon) {
		fputs(",\n  \"containerEdits\": {\n    ", f);
		json_nodes(f, c->common, c->ncommon, "    ");
		fputs("\n  }", f);
	}
	fputs(",\n  \"devices\": [", f);
	for (size_t i = 0; i < x->n; i++) {
		if (i)
			putc(',', f);
		json_cdi_device(f, c->names[i], &x->sel[i], &c->names[i], 1, c->common, c->ncommon,
				NULL, NULL);
	}
	for (size_t k = 0; k < c->nowners; k++)
		if (c->owners[k].n) {
			putc(',', f);
			json_cdi_device(f, c->owners[k].name, c->owners[k].devs, c->owners[k].names,
					c->owners[k].n, c->common, c->ncommon, c->owners[k].rdt,
					c->owners[k].cpus ? c->owners[k].name : NULL);
		}
	fputs("\n  ]\n}\n", f);
}

/* Slurm's Type: the model in brackets of the pci.ids name, lower case, "_" for blanks. */
char *gres_type(const struct rm_device *d)
{
	const char *s = d->product_name, *open, *close;
	char *out, *o;

	if (!s)
		return NULL;
	if ((open = strchr(s, '[')) && (close = strchr(open, ']')))
		s = open + 1;
	else
		close = s + strlen(s);
	out = o = xmalloc((size_t)(close - s) + 1);
	for (; s < close; s++) {
		if (isalnum((unsigned char)*s) || *s == '.' || *s == '-')
			*o++ = (char)tolower((unsigned char)*s);
		else if ((*s == ' ' || *s == '_' || *s == '/') && o > out && o[-1] != '_')
			*o++ = '_';
	}
	while (o > out && o[-1] == '_')
		o--;
	*o = '\0';
	if (!*out) {
		free(out);
		return NULL;
	}
	return out;
}

static void write_gres(FILE *f, const struct export *x)
{
	hwloc_const_bitmap_t online = hwloc_topology_get_topology_cpuset(x->t->topo);
	hwloc_bitmap_t cores = hwloc_bitmap_alloc();
	const char *name = rm_devices_type_name(x->type);

	fputs("# generated by rm-devices export gres: one line per device in PCI address order;\n"
	      "# Cores= are Slurm's core indices (hwloc logical), not Linux CPU numbers\n"
	      "AutoDetect=off\n", f);
	if (x->left_out)
		fputs(x->left_out, f);
	for (size_t i = 0; i < x->n; i++) {
		const struct rm_device *d = x->sel[i];
		char *type = gres_type(d), *list;

		if (!d->nnodes) {
			rm_warnx("%s has no device node; left out", d->addr);
			free(type);
			continue;
		}
		/* Slurm must not hand out a bad device: its line goes, and slurmd finds fewer
		 * devices than slurm.conf's Gres= until it is repaired */
		if (unhealthy(x, d)) {
			fprintf(f, "# left out: %s, unhealthy: %s\n", d->addr, unhealthy(x, d));
			free(type);
			continue;
		}
		fprintf(f, "Name=%s", name);
		if (type)
			fprintf(f, " Type=%s", type);
		fprintf(f, " File=%s", d->nodes[0].path);
		/* local CPUs that are every CPU (no NUMA node) say nothing: no Cores= */
		if (d->cpus && d->numa >= 0 && !hwloc_bitmap_isincluded(online, d->cpus)) {
			rm_slurm_cores(x->t->topo, d->cpus, cores);
			if (!hwloc_bitmap_iszero(cores)) {
				list = rm_cpulist_format(cores);
				fprintf(f, " Cores=%s", list);
				free(list);
			}
		}
		putc('\n', f);
		free(type);
	}
	hwloc_bitmap_free(cores);
}

static void write_nfd(FILE *f, const struct export *x)
{
	size_t bad[RM_HL_UNHEALTHY + 1] = { 0 };

	fputs("# generated by rm-devices export nfd\n", f);
	for (int t = 0; t < RM_DEV_NTYPES; t++) {
		const char *name = rm_devices_type_name(t);
		size_t count = 0, nonuma = 0;
		int vendor = -2, maxnode = -1;

		for (size_t i = 0; i < x->n; i++) {
			const struct rm_device *d = x->sel[i];

			if ((int)d->type != t)
				continue;
			count++;
			nonuma += d->numa < 0;
			if (d->numa > maxnode)
				maxnode = d->numa;
			vendor = vendor == -2 || vendor == d->vendor ? d->vendor : -1;
		}
		if (!count)
			continue;
		fprintf(f, NFD_PREFIX "%s.count=%zu\n", name, count);
		for (int node = 0; node <= maxnode; node++) {
			size_t k = 0;

			for (size_t i = 0; i < x->n; i++)
				k += (int)x->sel[i]->type == t && x->sel[i]->numa == node;
			if (k)
				fprintf(f, NFD_PREFIX "%s.node%d=%zu\n", name, node, k);
		}
		if (nonuma)
			fprintf(f, NFD_PREFIX "%s.no-numa=%zu\n", name, nonuma);
		if (vendor >= 0)
			fprintf(f, NFD_PREFIX "%s.vendor=%04x\n", name, vendor);
		count = 0;
		for (size_t i = 0; i < x->n; i++)
			count += (int)x->sel[i]->type == t && unhealthy(x, x->sel[i]);
		if (count)
			fprintf(f, NFD_PREFIX "%s.unhealthy=%zu\n", name, count);
	}
	/* the node's device health: always there, so that a selector can ask for 0 */
	for (size_t i = 0; i < x->nh; i++)
		bad[x->h[i].level]++;
	fprintf(f, NFD_PREFIX "health.unhealthy=%zu\n" NFD_PREFIX "health.warn=%zu\n",
		bad[RM_HL_UNHEALTHY], bad[RM_HL_WARN]);
}

/* The command that drains this node in Slurm while a device is unhealthy; nothing when none is
 * (resuming is left to people: the node may be drained for another reason too). */
static void write_scontrol(FILE *f, const struct export *x)
{
	size_t n = 0;

	for (size_t i = 0; i < x->nh; i++) {
		const struct rm_health *h = &x->h[i];

		if (h->level != RM_HL_UNHEALTHY)
			continue;
		/* the words of the reason are names and addresses: nothing to quote in them */
		if (!n++)
			fprintf(f, "scontrol update NodeName=%s State=DRAIN Reason='rm-devices:",
				x->node);
		fprintf(f, "%s %s %s %s", n > 1 ? "," : "", h->type, h->addr, h->unhealthy);
	}
	if (n)
		fputs("'\n", f);
}

static void write_format(FILE *f, const struct export *x)
{
	if (!strcmp(x->e->format, "scontrol")) {
		write_scontrol(f, x);
		return;
	}
	if (!strcmp(x->e->format, "cdi"))
		write_cdi(f, x);
	else if (!strcmp(x->e->format, "gres"))
		write_gres(f, x);
	else if (!strcmp(x->e->format, "resourceslice"))
		write_resourceslice(f, x->e->driver, x->node, x->sel, x->n, x->left_out, x->h,
				    x->nh);
	else
		write_nfd(f, x);
}

/* The host name, lower case, as the kubelet names its node; exits 2 when it is no node name. */
static char *host_node_name(void)
{
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1) < 0)
		rm_usage_errx("cannot read the host name; give --node-name");
	for (char *p = host; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!valid_node_name(host))
		rm_usage_errx("the host name '%s' is no Kubernetes node name; give --node-name", host);
	return xstrdup(host);
}

/*
 * Owners keep their devices: the devices allocated in the state are dropped from X's selection,
 * so that the scheduler never hands them to a pod. Returns comment lines naming them (NULL for
 * none), allocated.
 */
static char *leave_out_allocated(struct export *x)
{
	struct rm_state st;
	char *buf = NULL;
	size_t len = 0, kept = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	dstate_open(&st, false);
	for (size_t i = 0; i < x->n; i++) {
		long r = rm_state_find(&st, "device", x->sel[i]->addr);

		if (r < 0) {
			x->sel[kept++] = x->sel[i];
			continue;
		}
		fprintf(f, "# left out: %s, allocated to owner %s\n", x->sel[i]->addr,
			rm_record_get(&st.records[r], "owner") ?: "-");
	}
	x->n = kept;
	rm_state_close(&st);
	fclose(f);
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Write to a dot-file in the same directory (watchers ignore those), fsync, rename into place
 * (atomicfile.h). Returns 0, or -1 with *ERRMSG and no file left behind. */
static int write_atomically(const char *path, const struct export *x, char **errmsg)
{
	struct rm_atomic a;

	if (rm_atomic_open(&a, path, 0644, errmsg) < 0)
		return -1;
	write_format(a.f, x);
	return rm_atomic_commit(&a, errmsg);
}

int cmd_export(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		export_options, export_parse, "cdi|gres|nfd|resourceslice|scontrol",
		"Export the devices for other tools. cdi: a Container Device Interface spec (JSON) "
		"for podman, Docker, containerd and CRI-O, one device per GPU (--type); gres: Slurm "
		"gres.conf lines with Cores= as Slurm numbers cores; nfd: Node Feature Discovery "
		"labels with the devices per type and NUMA node and their health; resourceslice: "
		"Kubernetes DRA ResourceSlices (YAML) of --driver's pool for this node, at most 128 "
		"devices a slice (64 with taints), the devices allocated to owners left out, the "
		"unhealthy ones tainted; scontrol: the scontrol command that drains this node while "
		"a device is unhealthy (nothing when none is). gres leaves unhealthy devices out.",
		NULL, NULL, NULL
	};
	struct export_args e = { 0 };
	struct export x = { &e, NULL, 0, NULL, RM_DEV_GPU, NULL, NULL, NULL, NULL, 0, NULL };
	struct rm_devices devs;
	char *msg = NULL, *node = NULL, *left_out = NULL;

	rm_parse_command(&argp, argc, argv, c, &e, RM_PARSE_NO_OUTPUT);
	if (e.output && !*e.output)
		rm_usage_errx("no file name given to --output: ''");
	if (e.output && !strcmp(e.format, "cdi")) {
		size_t n = strlen(e.output);

		if (n < 6 || strcmp(e.output + n - 5, ".json"))
			rm_usage_errx("a CDI spec file must end in .json for runtimes to read it: '%s'",
				      e.output);
	}
	if (e.output && rm_atomic_check(e.output, &msg) < 0)
		rm_usage_errx("%s", msg);
	if (e.any_type)
		for (int t = 0; t < RM_DEV_NTYPES; t++)
			if (e.types[t])
				x.type = (enum rm_device_type)t;
	if (!strcmp(e.format, "resourceslice") || !strcmp(e.format, "scontrol")) {
		node = e.node_name ? xstrdup(e.node_name) : host_node_name();
		x.node = node;
	}
	x.sysroot = devices_sysroot(c);
	if (!strcmp(e.format, "gres"))
		x.t = rm_topo_load(c, 0); /* Cores= need the machine's cores */
	devices_load(c, RM_DEVICES_NAMES |
			(e.any_type && e.types[RM_DEV_OTHER] ? RM_DEVICES_ALL : 0), &devs);
	x.sel = xcalloc(devs.n + 1, sizeof(*x.sel));
	for (size_t i = 0; i < devs.n; i++) {
		const struct rm_device *d = &devs.dev[i];
		bool want = multi_type(e.format) ? (!e.any_type || e.types[d->type]) :
			    d->type == x.type;

		if (want)
			x.sel[x.n++] = &devs.dev[i];
	}
	if (!strcmp(e.format, "resourceslice") || !strcmp(e.format, "gres"))
		x.left_out = left_out = leave_out_allocated(&x);
	if (strcmp(e.format, "cdi"))
		x.h = rm_health_once(devices_sysroot(c), &devs, &x.nh);
	if (!x.n && !multi_type(e.format)) {
		msg = xasprintf("no %s devices to export", rm_devices_type_name(x.type));
		free(x.sel);
		rm_devices_free(&devs);
		rm_topo_free(x.t);
		devices_fail(RM_DEVICES_ENOSPC, msg);
	}
	if (!strcmp(e.format, "cdi"))
		x.cdi = cdi_plan(&x, e.cdi_max ? e.cdi_max : RM_CDI_VERSION_DEFAULT);
	if (e.output) {
		if (write_atomically(e.output, &x, &msg) < 0) {
			cdi_plan_free(x.cdi, x.n);
			free(x.sel);
			free(node);
			free(left_out);
			rm_devices_free(&devs);
			rm_topo_free(x.t);
			devices_fail(RM_CPUALLOC_EINTERNAL, msg);
		}
		rm_committed("wrote %s", e.output);
	} else {
		write_format(stdout, &x);
	}
	cdi_plan_free(x.cdi, x.n);
	free(x.sel);
	free(node);
	free(left_out);
	rm_health_scan_free(x.h, x.nh);
	rm_devices_free(&devs);
	rm_topo_free(x.t);
	return RM_EXIT_SUCCESS;
}
