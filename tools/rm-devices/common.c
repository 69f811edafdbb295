/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What rm-devices' commands share: loading and filtering devices, the state, cgroup places. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "input.h"
#include "kernfs.h"
#include "rm-devices.h"
#include "sysfs.h"
#include "topology.h"
#include "xalloc.h"

/* ---- filters ---- */

enum { OPT_TYPE = 0x200, OPT_VENDOR, OPT_NODE, OPT_ALL };

static const struct argp_option filter_options[] = {
	{ "type", OPT_TYPE, "TYPE", 0,
	  "only devices of these types (gpu, nic, ib, fpga, accel, nvme, vfio, other; a comma list)", 0 },
	{ "vendor", OPT_VENDOR, "ID", 0, "only devices of this PCI vendor id (10de, 0x15b3)", 0 },
	{ "node", OPT_NODE, "SET", 0, "only devices on these NUMA nodes", 0 },
	{ "all", OPT_ALL, NULL, 0, "every PCI function, bridges and the like included", 0 },
	{ 0 }
};

int parse_types(const char *arg, bool *types, const char **bad, size_t *badlen)
{
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		char name[16];
		int t = -1;

		if (len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			t = rm_devices_type_parse(name);
		}
		if (t < 0) {
			*bad = p;
			*badlen = len;
			return -1;
		}
		types[t] = true;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static error_t filter_parse(int key, char *arg, struct argp_state *state)
{
	struct filter *f = state->input;
	const char *bad;
	size_t badlen;
	char *end, *msg = NULL;
	unsigned long v;

	switch (key) {
	case OPT_TYPE:
		if (parse_types(arg, f->types, &bad, &badlen) < 0)
			argp_error(state, "unknown device type: '%.*s' (gpu, nic, ib, fpga, accel, nvme, vfio, "
				   "other)", (int)badlen, bad);
		f->any_type = true;
		break;
	case OPT_VENDOR:
		errno = 0;
		v = strtoul(arg + (!strncasecmp(arg, "0x", 2) ? 2 : 0), &end, 16);
		if (!isxdigit((unsigned char)arg[!strncasecmp(arg, "0x", 2) ? 2 : 0]) || *end ||
		    errno || v > 0xffff)
			argp_error(state, "invalid vendor id: '%s' (4 hex digits, such as 10de)", arg);
		f->vendor = (int)v;
		break;
	case OPT_NODE:
		if (!f->nodes)
			f->nodes = hwloc_bitmap_alloc();
		if (rm_cpulist_parse(arg, f->nodes, &msg) < 0) {
			hwloc_bitmap_free(f->nodes);
			f->nodes = NULL;
			argp_error(state, "invalid --node: %s", msg);
		}
		break;
	case OPT_ALL:
		f->all = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp filter_argp = { filter_options, filter_parse, NULL, NULL, NULL, NULL, NULL };

void filter_init(struct filter *f)
{
	memset(f, 0, sizeof(*f));
	f->vendor = -1;
}

void filter_free(struct filter *f)
{
	if (f->nodes)
		hwloc_bitmap_free(f->nodes);
	f->nodes = NULL;
}

bool filter_match(const struct filter *f, const struct rm_device *d)
{
	if (f->any_type && !f->types[d->type])
		return false;
	if (!f->any_type && !f->all && d->type == RM_DEV_OTHER)
		return false;
	if (f->vendor >= 0 && d->vendor != f->vendor)
		return false;
	if (f->nodes && (d->numa < 0 || !hwloc_bitmap_isset(f->nodes, d->numa)))
		return false;
	return true;
}

/* ---- loading ---- */

const char *devices_sysroot(const struct rm_common *c)
{
	const char *root = rm_input_root(rm_input_resolve(c));

	return root && *root ? root : NULL;
}

void devices_load(const struct rm_common *c, unsigned flags, struct rm_devices *devs)
{
	const struct rm_input *in = rm_input_resolve(c);
	char *msg = NULL;

	/* Devices are read from sysfs, which a described topology (--topology, RM_TOPOLOGY) lacks:
	 * the machine it describes has no devices here, which is no error. */
	if (rm_input_described(in)) {
		rm_topo_free(rm_topo_load(c, 0)); /* a description that is not one: exit 2 */
		fprintf(stderr, "%s: note: a described topology has no devices: '%s' (use --sysroot "
			"with a snapshot for a machine's devices)\n", program_invocation_short_name,
			rm_input_name(in));
		memset(devs, 0, sizeof(*devs));
		return;
	}
	if (rm_devices_scan(devices_sysroot(c), flags, devs, &msg) < 0) {
		rm_warnx("%s", msg);
		free(msg);
		exit(RM_EXIT_USAGE);
	}
}

unsigned memory_flags(const struct rm_common *c)
{
	const char *cols = c->out.columns;

	return cols && strcasestr(cols, "memory") ? RM_DEVICES_MEMORY : 0;
}

void print_devices(const struct rm_common *c, struct rm_device *const *devs, size_t n)
{
	struct rm_out *out = rm_out_new(&c->out, "devices", rm_devices_columns, rm_devices_ncolumns,
					rm_devices_defaults, true);

	for (size_t i = 0; i < n; i++)
		rm_devices_out(out, devs[i]);
	rm_out_close(out);
	rm_out_flush();
}

void check_columns(const struct rm_common *c, const struct rm_column *cols, size_t ncols,
		   const char *defaults)
{
	rm_out_check(&c->out, cols, ncols, defaults);
}

void devices_fail(int rc, char *msg)
{
	int status = rc == RM_DEVICES_EINVAL ? RM_EXIT_USAGE : rc == RM_DEVICES_ENOSPC ? RM_EXIT_NORESOURCE : RM_EXIT_FAILURE;

	rm_errx(status, "%s", msg);
}

/* ---- state ---- */

void check_owner(const char *owner)
{
	if (!rm_name_valid(owner))
		rm_usage_errx("invalid owner name: '%s' (letters, digits, '_', '.', '-'; at most "
			      "64, starting with a letter or digit)", owner);
}

void dstate_open(struct rm_state *st, bool write)
{
	/* every record is a device allocation of a valid owner, each device held once: the state
	 * module has the owner layer check that (owner.h) */
	rm_state_open_or_exit(st, DEVICES_STATE, write ? RM_STATE_WRITE : RM_STATE_READ,
			      "rm-devices(1)", "changing allocations");
}

bool dstate_has_owner(const struct rm_state *st, const char *owner)
{
	for (size_t i = 0; i < st->nrecords; i++)
		if (!strcmp(rm_record_get(&st->records[i], "owner"), owner))
			return true;
	return false;
}

enum { AC_DEVICE, AC_OWNER, AC_TYPE, AC_NUMA, AC_DRIVER, AC_VENDOR, AC_PRODUCT, AC_CREATED };
const struct rm_column alloc_cols[] = {
	[AC_DEVICE] = { "device", RM_COL_STRING, "PCI address of the allocated device" },
	[AC_OWNER] = { "owner", RM_COL_STRING, "the owner's name" },
	[AC_TYPE] = { "type", RM_COL_STRING, "device type" },
	[AC_NUMA] = { "numa", RM_COL_INT, "its NUMA node when allocated (- for none)" },
	[AC_DRIVER] = { "driver", RM_COL_STRING, "its driver when allocated" },
	[AC_VENDOR] = { "vendor", RM_COL_STRING, "PCI vendor id" },
	[AC_PRODUCT] = { "product", RM_COL_STRING, "PCI device id" },
	[AC_CREATED] = { "created", RM_COL_INT, "when it was allocated (seconds since the epoch)" },
};
const size_t alloc_ncols = ARRAY_SIZE(alloc_cols);
const char alloc_defaults[] = "device,owner,type,numa,driver";

void print_allocations(const struct rm_common *c, const struct rm_record *recs, size_t n)
{
	struct rm_out *out = rm_out_new(&c->out, "allocations", alloc_cols, alloc_ncols,
					alloc_defaults, true);

	for (size_t i = 0; i < n; i++) {
		const struct rm_record *r = &recs[i];

		rm_out_begin(out);
		for (size_t k = 0; k < alloc_ncols; k++) {
			const char *v = rm_record_get(r, alloc_cols[k].name);

			if (!v || !strcmp(v, "-"))
				continue;
			if (alloc_cols[k].type == RM_COL_INT)
				rm_out_int(out, (int)k, strtoll(v, NULL, 10));
			else
				rm_out_str(out, (int)k, v);
		}
		rm_out_end(out);
	}
	rm_out_close(out);
	rm_out_flush();
}

/* ---- cgroups ---- */

bool devices_cgroups(const struct rm_common *c)
{
	const struct rm_input *in = rm_input_resolve(c);

	return in->cgroup_tree || (!devices_sysroot(c) && !rm_input_described(in));
}

const char *cgroup_root(void)
{
	return rm_input()->cgroup_root;
}

char *devices_cgroup(const char *owner, bool *v2)
{
	enum rm_cgroup_version v = RM_CGROUP_V2;
	char *mount, *dir;

	/* v1 only: the unified hierarchy has no devices files (a BPF program stands in) */
	*v2 = false;
	if (rm_cgroup_find(cgroup_root(), "devices", "devices.allow", &v, &mount) == 0 &&
	    v == RM_CGROUP_V1) {
		dir = rm_cgroup_owner_path(v, mount, owner);
		free(mount);
		return dir;
	}
	free(mount);
	mount = rm_cgroup_unified(cgroup_root());
	*v2 = mount != NULL;
	free(mount);
	return NULL;
}

/* rmdir, and in a plain-directory tree laid out like cgroupfs (tests) its files first. */
static int remove_cgroup_dir(const char *dir)
{
	static const char *const files[] = { "devices.allow", "devices.deny", "devices.list",
					     "cgroup.procs", "tasks" };

	if (rm_kernfs_rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *f = xasprintf("%s/%s", dir, files[i]);
		struct stat st;

		/* only regular files of a plain tree; cgroupfs refuses unlink anyway */
		if (lstat(f, &st) == 0 && S_ISREG(st.st_mode))
			unlink(f);
		free(f);
	}
	return rm_kernfs_rmdir(dir);
}

void devices_cgroup_remove(const char *owner)
{
	bool v2 = false;
	char *dir = devices_cgroup(owner, &v2), *parent;

	if (!dir || access(dir, F_OK) < 0) {
		free(dir);
		return;
	}
	if (remove_cgroup_dir(dir) < 0) {
		rm_warnx("cannot remove the devices cgroup '%s': %s; its processes keep access to the "
		      "devices until it is removed", dir, strerror(errno));
	} else {
		parent = xstrdup(dir);
		*strrchr(parent, '/') = '\0';
		rmdir(parent); /* the rmtools parent, when no owner is left in it */
		free(parent);
	}
	free(dir);
}
