/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The owner layer: owner names, and the records of rm-cpuset's and rm-devices' states as structs. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "owner.h"
#include "ownlimit.h"
#include "state.h"
#include "xalloc.h"

bool rm_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

bool rm_owner_name_valid(const char *name)
{
	return rm_name_valid(name) && strcmp(name, RM_OWNER_SHARED);
}

struct check {
	const char *path;
	char **errmsg;
};

/* "corrupt state file 'PATH': line N: REASON" (LINE 0: no line); returns -1. */
__attribute__((format(printf, 3, 4)))
static int bad(const struct check *c, unsigned line, const char *fmt, ...)
{
	va_list ap;
	char *reason;

	va_start(ap, fmt);
	if (vasprintf(&reason, fmt, ap) < 0)
		reason = NULL;
	va_end(ap);
	if (line)
		*c->errmsg = xasprintf("corrupt state file '%s': line %u: %s", c->path, line,
				       reason ? reason : "bad record");
	else
		*c->errmsg = xasprintf("corrupt state file '%s': %s", c->path,
				       reason ? reason : "bad record");
	free(reason);
	return -1;
}

/* Field KEY of R as a set in list form into SET (emptied when absent). REQUIRED: absent is bad. */
static int get_set(const struct check *c, const struct rm_record *r, const char *key,
		   bool required, hwloc_bitmap_t set)
{
	const char *v = rm_record_get(r, key);
	char *msg = NULL;
	int rc;

	hwloc_bitmap_zero(set);
	if (!v)
		return required ? bad(c, r->line, "no '%s' field", key) : 0;
	if (rm_cpulist_parse_list(v, set, &msg) == 0)
		return 0;
	rc = bad(c, r->line, "bad '%s' field: %s", key, msg);
	free(msg);
	return rc;
}

/* Field KEY of R, when present, is one of "yes" and "no"; *ON is set from it. */
static int get_bool(const struct check *c, const struct rm_record *r, const char *key, bool *on)
{
	const char *v = rm_record_get(r, key);

	*on = false;
	if (!v)
		return 0;
	if (strcmp(v, "yes") && strcmp(v, "no"))
		return bad(c, r->line, "bad '%s' field: '%s' (yes or no)", key, v);
	*on = !strcmp(v, "yes");
	return 0;
}

/* Field KEY of R, when present, is "-" (DASH_OK) or a decimal number below 2^63. */
static int get_number(const struct check *c, const struct rm_record *r, const char *key,
		      bool dash_ok, long long *out)
{
	const char *v = rm_record_get(r, key);
	char *end;

	*out = 0;
	if (!v || (dash_ok && !strcmp(v, "-")))
		return 0;
	errno = 0;
	if (!isdigit((unsigned char)*v) || (*out = strtoll(v, &end, 10), errno) || *end)
		return bad(c, r->line, "bad '%s' field: '%s'", key, v);
	return 0;
}

/* A valid owner name in field KEY of R. */
static int get_owner(const struct check *c, const struct rm_record *r, const char *key,
		     const char **name)
{
	*name = rm_record_get(r, key);
	if (!*name)
		return bad(c, r->line, "no '%s' field", key);
	if (!rm_owner_name_valid(*name))
		return bad(c, r->line, "invalid owner name: '%s'", *name);
	return 0;
}

/* "line LINE: CPUs SET of WHAT WHY"; returns -1. */
static int cpus_bad(const struct check *c, unsigned line, hwloc_const_bitmap_t set,
		    const char *what, const char *why)
{
	char *list = rm_cpulist_format(set);

	bad(c, line, "CPUs %s of %s %s", list, what, why);
	free(list);
	return -1;
}

/* What the records of a whole cpuset state must say together: the owners' and reserved CPUs
 * within the machine the state was made for, and no owner on a reserved CPU (rm-cpuset never
 * writes either). SET is scratch. */
static int check_cpuset_content(const struct rm_owner_state *os, const struct check *c,
				const struct rm_record *topology, const struct rm_record *reserved,
				hwloc_bitmap_t set)
{
	if (!topology) {
		if (!os->nowners && !reserved)
			return 0;
		return bad(c, 0, "no 'topology' record, which every state with %s has",
			   os->nowners ? "owners" : "reserved CPUs");
	}
	if (hwloc_bitmap_andnot(set, os->reserved, os->topo_cpus), !hwloc_bitmap_iszero(set))
		return cpus_bad(c, reserved->line, set, "the reserved pool",
				"are not in the topology record");
	for (size_t i = 0; i < os->nowners; i++) {
		const struct rm_cpuset_owner *o = &os->owners[i];
		char *what = xasprintf("owner '%s'", o->name);
		int rc = 0;

		if (hwloc_bitmap_andnot(set, o->cpus, os->topo_cpus), !hwloc_bitmap_iszero(set))
			rc = cpus_bad(c, o->line, set, what, "are not in the topology record");
		else if (hwloc_bitmap_and(set, o->cpus, os->reserved), !hwloc_bitmap_iszero(set))
			rc = cpus_bad(c, o->line, set, what, "are reserved");
		free(what);
		if (rc)
			return rc;
	}
	return 0;
}

/* rm-cpuset's state, version 1: topology and reserved at most once each, then owners. */
static int parse_cpuset(struct rm_owner_state *os, const struct check *c,
			const struct rm_record *recs, size_t n)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	const struct rm_record *topology = NULL, *reserved = NULL;
	struct rm_ownlimit limits;
	long long num, pid;
	char *msg = NULL;
	int rc = -1;

	os->owners = xcalloc(n ? n : 1, sizeof(*os->owners));
	for (size_t i = 0; i < n; i++) {
		const struct rm_record *r = &recs[i];
		const char *kind = rm_record_kind(r);
		struct rm_cpuset_owner *o;

		if (!strcmp(kind, "topology")) {
			if (topology) {
				bad(c, r->line, "a second 'topology' record (line %u)", topology->line);
				goto out;
			}
			topology = r;
			os->topology = r->fields[0].value;
			if (get_set(c, r, "cpus", true, os->topo_cpus) ||
			    get_set(c, r, "nodes", false, set) ||
			    get_set(c, r, "online", false, os->topo_online))
				goto out;
			if (!rm_record_get(r, "online")) /* written with every CPU online */
				hwloc_bitmap_copy(os->topo_online, os->topo_cpus);
			continue;
		}
		if (!strcmp(kind, "reserved")) {
			if (reserved) {
				bad(c, r->line, "a second 'reserved' record (line %u)", reserved->line);
				goto out;
			}
			reserved = r;
			if (get_set(c, r, "reserved", true, os->reserved) ||
			    get_bool(c, r, "strict", &os->strict))
				goto out;
			continue;
		}
		if (strcmp(kind, "owner")) {
			bad(c, r->line, "unknown record: '%s'", kind);
			goto out;
		}
		o = &os->owners[os->nowners];
		o->line = r->line;
		o->cpus = hwloc_bitmap_alloc();
		o->mems = hwloc_bitmap_alloc();
		o->add_mems = hwloc_bitmap_alloc();
		os->nowners++;
		if (get_owner(c, r, "owner", &o->name) || get_set(c, r, "cpus", true, o->cpus) ||
		    get_set(c, r, "mems", false, o->mems) ||
		    get_set(c, r, "add_mems", false, o->add_mems) ||
		    get_bool(c, r, "isolate", &o->isolate) ||
		    get_number(c, r, "pid", true, &pid) || get_number(c, r, "start", true, &num) ||
		    get_number(c, r, "created", false, &num) ||
		    get_number(c, r, "count", false, &num))
			goto out;
		o->pid = (long)pid;
		if (rm_ownlimit_from_record(r, &limits, &msg) < 0) {
			bad(c, r->line, "owner '%s': %s", o->name, msg);
			free(msg);
			goto out;
		}
		o->resctrl = rm_record_get(r, "l3_ways") != NULL;
		/* no CPU: an owner in the shared pool, with nothing exclusive to check */
		if (hwloc_bitmap_iszero(o->cpus) &&
		    (o->isolate || o->resctrl || !hwloc_bitmap_iszero(o->add_mems))) {
			bad(c, r->line, "owner '%s' in the shared pool has %s", o->name,
			    o->isolate ? "isolate=yes" : o->resctrl ? "a resctrl group" : "add_mems");
			goto out;
		}
		if (rm_record_get(r, "count") && num != hwloc_bitmap_weight(o->cpus)) {
			bad(c, r->line, "owner '%s' has count=%lld but %d CPUs", o->name, num,
			    hwloc_bitmap_weight(o->cpus));
			goto out;
		}
		for (size_t j = 0; j + 1 < os->nowners; j++) {
			const struct rm_cpuset_owner *p = &os->owners[j];

			if (!strcmp(p->name, o->name)) {
				bad(c, r->line, "owner '%s' is also on line %u", o->name, p->line);
				goto out;
			}
			if (hwloc_bitmap_intersects(p->cpus, o->cpus)) {
				char *both;

				hwloc_bitmap_and(set, p->cpus, o->cpus);
				both = rm_cpulist_format(set);
				bad(c, r->line, "CPUs %s of owner '%s' are also owner '%s''s (line %u)", both,
				    o->name, p->name, p->line);
				free(both);
				goto out;
			}
		}
	}
	rc = check_cpuset_content(os, c, topology, reserved, set);
out:
	hwloc_bitmap_free(set);
	return rc;
}

/* A PCI address in the canonical form rm-devices writes: dddd:bb:dd.f, lower-case hex. Checked
 * here rather than with libpci so that every tool reading the state need not link libpci. */
static bool addr_canonical(const char *a)
{
	static const char form[] = "xxxx:xx:xx.x";

	if (strlen(a) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == 'x' ? !strchr("0123456789abcdef", a[i]) || !a[i] : a[i] != form[i])
			return false;
	/* device 0-1f, function 0-7 */
	return (a[8] == '0' || a[8] == '1') && a[11] <= '7';
}

/* rm-devices' state, version 1: device records only, each device held once. */
static int parse_devices(struct rm_owner_state *os, const struct check *c,
			 const struct rm_record *recs, size_t n)
{
	long long num;

	os->devices = xcalloc(n ? n : 1, sizeof(*os->devices));
	for (size_t i = 0; i < n; i++) {
		const struct rm_record *r = &recs[i];
		struct rm_device_holding *d = &os->devices[os->ndevices];

		if (strcmp(rm_record_kind(r), "device"))
			return bad(c, r->line, "not a device allocation record: '%s'", rm_record_kind(r));
		d->addr = r->fields[0].value;
		d->line = r->line;
		if (!addr_canonical(d->addr))
			return bad(c, r->line, "bad device address: '%s'", d->addr);
		if (get_owner(c, r, "owner", &d->owner))
			return -1;
		if (!(d->type = rm_record_get(r, "type")) || !*d->type)
			return bad(c, r->line, "no 'type' field");
		if (get_number(c, r, "numa", true, &num) || get_number(c, r, "created", false, &num))
			return -1;
		for (size_t j = 0; j < os->ndevices; j++)
			if (!strcmp(os->devices[j].addr, d->addr))
				return bad(c, r->line, "device %s of owner '%s' is also owner '%s''s (line %u)",
					   d->addr, d->owner, os->devices[j].owner,
					   os->devices[j].line);
		os->ndevices++;
	}
	return 0;
}

/* A block device name as sysfs spells it (sda, nvme0n1, dm-0, cciss!c0d0): no '/', not "." or
 * "..", at most 32 bytes (the kernel's DISK_NAME_LEN). */
static bool disk_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n && n < 32 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789_.:!-") == n && strcmp(s, ".") && strcmp(s, "..");
}

/* MAJ:MIN, two decimal numbers. */
static bool devno_valid(const char *s)
{
	size_t a = strspn(s, "0123456789");

	return a && a <= 10 && s[a] == ':' && strspn(s + a + 1, "0123456789") == strlen(s + a + 1) &&
	       s[a + 1] && strlen(s + a + 1) <= 10;
}

/* rm-storage's state, version 1: I/O limits, each owner and disk once, and quotas. */
static int parse_storage(struct rm_owner_state *os, const struct check *c,
			 const struct rm_record *recs, size_t n)
{
	static const char *const limit_keys[] = { "read_bps", "write_bps", "read_iops",
						  "write_iops", "weight", "latency_target" };
	static const char *const quota_keys[] = { "project", "size" };
	struct rm_storage_limit *l;
	long long num;

	os->limits = xcalloc(n ? n : 1, sizeof(*os->limits));
	for (size_t i = 0; i < n; i++) {
		const struct rm_record *r = &recs[i];
		const char *kind = rm_record_kind(r), *v;

		if (!strcmp(kind, "quota")) {
			v = r->fields[0].value;
			if (v[0] != '/' || strstr(v, "/../") || strstr(v, "/./") ||
			    (strlen(v) >= 3 && !strcmp(v + strlen(v) - 3, "/..")))
				return bad(c, r->line, "bad quota directory: '%s'", v);
			for (size_t k = 0; k < sizeof(quota_keys) / sizeof(*quota_keys); k++)
				if (!rm_record_get(r, quota_keys[k]))
					return bad(c, r->line, "no '%s' field", quota_keys[k]);
			if (get_number(c, r, "project", false, &num) ||
			    get_number(c, r, "size", false, &num) ||
			    get_number(c, r, "inodes", true, &num))
				return -1;
			v = rm_record_get(r, "owner");
			if (v && strcmp(v, "-") && !rm_owner_name_valid(v))
				return bad(c, r->line, "invalid owner name: '%s'", v);
			continue;
		}
		if (strcmp(kind, "limit"))
			return bad(c, r->line, "unknown record: '%s'", kind);
		l = &os->limits[os->nlimits];
		l->line = r->line;
		if (get_owner(c, r, "limit", &l->owner))
			return -1;
		if (!(l->disk = rm_record_get(r, "disk")) || !disk_name_valid(l->disk))
			return bad(c, r->line, "bad 'disk' field: '%s'", l->disk ? l->disk : "");
		if (!(l->devno = rm_record_get(r, "devno")) || !devno_valid(l->devno))
			return bad(c, r->line, "bad 'devno' field: '%s'", l->devno ? l->devno : "");
		for (size_t k = 0; k < sizeof(limit_keys) / sizeof(*limit_keys); k++)
			if (get_number(c, r, limit_keys[k], true, &num))
				return -1;
		for (size_t j = 0; j < os->nlimits; j++)
			if (!strcmp(os->limits[j].owner, l->owner) &&
			    !strcmp(os->limits[j].disk, l->disk))
				return bad(c, r->line, "owner '%s' on disk '%s' is also on line %u",
					   l->owner, l->disk, os->limits[j].line);
		os->nlimits++;
	}
	return 0;
}

int rm_owner_state_parse(struct rm_owner_state *os, const char *name, unsigned version,
			 const char *path, const struct rm_record *recs, size_t n, char **errmsg)
{
	const struct check c = { path, errmsg };
	int rc = 0;

	memset(os, 0, sizeof(*os));
	os->version = version;
	os->reserved = hwloc_bitmap_alloc();
	os->topo_cpus = hwloc_bitmap_alloc();
	os->topo_online = hwloc_bitmap_alloc();
	if (version != 1) {
		*errmsg = xasprintf("state file '%s' has version %u; this rmtools reads version 1",
				    path, version);
		return -1;
	}
	if (!strcmp(name, RM_OWNER_STATE_CPUSET))
		rc = parse_cpuset(os, &c, recs, n);
	else if (!strcmp(name, RM_OWNER_STATE_DEVICES))
		rc = parse_devices(os, &c, recs, n);
	else if (!strcmp(name, RM_OWNER_STATE_STORAGE))
		rc = parse_storage(os, &c, recs, n);
	if (rc < 0) {
		rm_owner_state_free(os);
		return -1;
	}
	return 0;
}

void rm_owner_state_free(struct rm_owner_state *os)
{
	for (size_t i = 0; i < os->nowners; i++) {
		hwloc_bitmap_free(os->owners[i].cpus);
		hwloc_bitmap_free(os->owners[i].mems);
		hwloc_bitmap_free(os->owners[i].add_mems);
	}
	free(os->owners);
	free(os->devices);
	free(os->limits);
	hwloc_bitmap_free(os->reserved);
	hwloc_bitmap_free(os->topo_cpus);
	hwloc_bitmap_free(os->topo_online);
	memset(os, 0, sizeof(*os));
}

const struct rm_cpuset_owner *rm_owner_find(const struct rm_owner_state *os, const char *name)
{
	for (size_t i = 0; i < os->nowners; i++)
		if (!strcmp(os->owners[i].name, name))
			return &os->owners[i];
	return NULL;
}

int rm_owner_cpus(const char *owner, hwloc_bitmap_t cpus, bool *resctrl, char **errmsg)
{
	const struct rm_cpuset_owner *o;
	struct rm_state st;

	hwloc_bitmap_zero(cpus);
	if (resctrl)
		*resctrl = false;
	if (rm_state_open(&st, RM_OWNER_STATE_CPUSET, RM_STATE_READ, errmsg) < 0) {
		rm_state_close(&st);
		return -1;
	}
	if ((o = rm_owner_find(&st.owners, owner))) {
		hwloc_bitmap_copy(cpus, o->cpus);
		if (resctrl)
			*resctrl = o->resctrl;
	}
	rm_state_close(&st);
	return o != NULL;
}
