/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health: the devices to read (listed, allocated, watched), read and judged. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devhealth.h"
#include "msg.h"
#include "owner.h"
#include "state.h"
#include "xalloc.h"

const struct rm_health *rm_health_find(const struct rm_health *h, size_t n, const char *addr)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i].addr, addr))
			return &h[i];
	return NULL;
}

static int health_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rm_health *)a)->addr, ((const struct rm_health *)b)->addr);
}

/* A reading of ADDR at H[*N]: its device D (NULL: gone), owner and expected identity from the
 * allocation record R (NULL: none), else from BASE. */
static void add(struct rm_health *h, size_t *n, const char *addr, const struct rm_device *d,
		const char *type, const struct rm_record *r, const struct rm_health *base)
{
	struct rm_health *x = &h[(*n)++];
	char id[16];
	const char *v;

	memset(x, 0, sizeof(*x));
	snprintf(x->addr, sizeof(x->addr), "%s", addr);
	x->d = d;
	/* an allocated device's type as allocated: one rebound to vfio-pci lists as vfio now */
	x->type = xstrdup(r && rm_record_get(r, "type") ? rm_record_get(r, "type") : type);
	x->driver = d && d->driver ? xstrdup(d->driver) : NULL;
	if (r) {
		x->owner = xstrdup(rm_record_get(r, "owner"));
		v = rm_record_get(r, "driver");
		x->expected = v && strcmp(v, "-") ? xstrdup(v) : NULL;
		if (d) {
			snprintf(id, sizeof(id), "%04x", d->vendor & 0xffff);
			v = rm_record_get(r, "vendor");
			x->cond[RM_HC_REPLACED] = v && strcmp(v, id);
			snprintf(id, sizeof(id), "%04x", d->product & 0xffff);
			v = rm_record_get(r, "product");
			x->cond[RM_HC_REPLACED] |= v && strcmp(v, id);
		}
	} else if (base) {
		v = base->expected ? base->expected : base->driver;
		x->expected = v ? xstrdup(v) : NULL;
	}
}

struct rm_health *rm_health_scan(const char *sysroot, const struct rm_devices *devs,
			   const struct rm_owners *owners,
			   const struct rm_health *base, size_t nbase, const struct rm_health *prev,
			   size_t nprev, double seconds, size_t *n)
{
	struct rm_state st;
	struct rm_health *h;
	size_t k = 0;

	rm_state_open_or_exit(&st, RM_OWNER_STATE_DEVICES, RM_STATE_READ, "rm-devices(1)", NULL);
	h = xcalloc(devs->n + st.nrecords + nbase + 1, sizeof(*h));
	for (size_t i = 0; i < devs->n; i++) {
		const struct rm_device *d = &devs->dev[i];
		long r = rm_state_find(&st, "device", d->addr);
		const struct rm_health *b = rm_health_find(base, nbase, d->addr);

		if (r < 0 && !b && d->type == RM_DEV_OTHER)
			continue;
		add(h, &k, d->addr, d, rm_devices_type_name(d->type), r >= 0 ? &st.records[r] : NULL,
		    b);
	}
	for (size_t i = 0; i < st.nrecords; i++) {
		const char *addr = st.records[i].fields[0].value;

		if (!rm_health_find(h, k, addr))
			add(h, &k, addr, NULL, rm_record_get(&st.records[i], "type") ?: "-",
			    &st.records[i], NULL);
	}
	for (size_t i = 0; i < nbase; i++)
		if (!rm_health_find(h, k, base[i].addr))
			add(h, &k, base[i].addr, NULL, base[i].type, NULL, &base[i]);
	rm_state_close(&st);
	/* the owners asked about: their devices only */
	for (size_t i = 0, kept = 0; i < k || (k = kept, false); i++) {
		if (owners && owners->n && !(h[i].owner && rm_owners_match(owners, h[i].owner))) {
			rm_health_free(&h[i]);
			continue;
		}
		h[kept++] = h[i];
	}
	qsort(h, k, sizeof(*h), health_cmp);
	for (size_t i = 0; i < k; i++) {
		const struct rm_health *p = rm_health_find(prev, nprev, h[i].addr);

		rm_health_read(sysroot, &h[i]);
		if (p)
			rm_health_rates(&h[i], p, seconds);
	}
	rm_health_xids(sysroot, h, k);
	for (size_t i = 0; i < k; i++)
		rm_health_judge(&h[i]);
	*n = k;
	return h;
}

void rm_health_scan_free(struct rm_health *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rm_health_free(&h[i]);
	free(h);
}

struct rm_health *rm_health_once(const char *sysroot, const struct rm_devices *devs, size_t *n)
{
	rm_health_policy_load(NULL);
	return rm_health_scan(sysroot, devs, NULL, NULL, 0, NULL, 0, 0, n);
}


struct rm_health *rm_health_owned_unhealthy(const char *sysroot, const struct rm_devices *devs,
					    size_t *n)
{
	struct rm_devices own = { 0 };
	struct rm_health *h;
	struct rm_state st;
	size_t allocated, k = 0;
	char *msg = NULL;

	*n = 0;
	rm_state_open_or_exit(&st, RM_OWNER_STATE_DEVICES, RM_STATE_READ, "rm-devices(1)", NULL);
	allocated = st.nrecords;
	rm_state_close(&st);
	if (!allocated)
		return NULL;
	if (!devs) {
		if (rm_devices_scan(sysroot, 0, &own, &msg) < 0)
			rm_usage_errx("%s", msg);
		devs = &own;
	}
	h = rm_health_once(sysroot, devs, n);
	for (size_t i = 0; i < *n; i++) {
		h[i].d = NULL; /* DEVS may be freed below */
		if (h[i].owner && h[i].level == RM_HL_UNHEALTHY)
			h[k++] = h[i];
		else
			rm_health_free(&h[i]);
	}
	*n = k;
	rm_devices_free(&own);
	if (!k) {
		free(h);
		return NULL;
	}
	return h;
}
