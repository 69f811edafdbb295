/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health: NVIDIA GPUs' ECC errors and XID events from NVML, when libnvidia-ml.so.1 is
 * installed. */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devhealth.h"

/* The few parts of nvml.h used here: the library is loaded at run time, never required. */
typedef int nvml_return;                    /* NVML_SUCCESS is 0 */
typedef struct nvml_device *nvml_device;
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0                 /* since the driver loaded */
typedef struct nvml_event_set *nvml_event_set;
struct nvml_event_data {                    /* nvmlEventData_t */
	nvml_device device;
	unsigned long long type, data;      /* data: the XID */
	unsigned gpu_instance, compute_instance;
};
#define NVML_EVENT_XID_CRITICAL 0x8ULL      /* nvmlEventTypeXidCriticalError */

#define NVML_MAX_GPUS 256                   /* GPUs whose events are asked for */
#define NVML_MAX_EVENTS 4096                /* events taken at one reading; the rest wait */

static struct {
	bool tried, ok;
	nvml_return (*by_bus_id)(const char *bus_id, nvml_device *dev);
	nvml_return (*ecc)(nvml_device dev, int type, int counter, unsigned long long *count);
	nvml_return (*pending)(nvml_device dev, int *state);
	nvml_return (*set_create)(nvml_event_set *set);
	nvml_return (*set_free)(nvml_event_set set);
	nvml_return (*reg)(nvml_device dev, unsigned long long types, nvml_event_set set);
	nvml_return (*wait)(nvml_event_set set, struct nvml_event_data *data, unsigned timeout_ms);
	nvml_event_set set;                 /* NULL: no events */
	struct {
		char addr[24];
		nvml_device dev;
		bool registered;
		uint64_t xids[RM_HEALTH_XID_WORDS];
	} gpu[NVML_MAX_GPUS];
	size_t ngpu;
} nvml;

static void nvml_events_free(void)
{
	nvml.set_free(nvml.set);
}

/* Load and initialise NVML once per run; the library stays loaded for --watch. */
static bool nvml_load(void)
{
	void *lib;
	nvml_return (*init)(void);

	if (nvml.tried)
		return nvml.ok;
	nvml.tried = true;
	if (!(lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)))
		return false; /* no NVML: the GPU's ECC counts stay unknown */
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&nvml.by_bus_id = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&nvml.ecc = dlsym(lib, "nvmlDeviceGetTotalEccErrors");
	*(void **)&nvml.pending = dlsym(lib, "nvmlDeviceGetRetiredPagesPendingStatus");
	*(void **)&nvml.set_create = dlsym(lib, "nvmlEventSetCreate");
	*(void **)&nvml.set_free = dlsym(lib, "nvmlEventSetFree");
	*(void **)&nvml.reg = dlsym(lib, "nvmlDeviceRegisterEvents");
	*(void **)&nvml.wait = dlsym(lib, "nvmlEventSetWait_v2");
	nvml.ok = init && nvml.by_bus_id && init() == 0;
	/* one event set for the run: the XIDs of every reading since the first */
	if (nvml.ok && nvml.set_create && nvml.set_free && nvml.reg && nvml.wait &&
	    nvml.set_create(&nvml.set) == 0)
		atexit(nvml_events_free);
	else
		nvml.set = NULL;
	return nvml.ok;
}

/* H's device in NVML's bus id form (8-digit domain, upper case), as devices.c asks for it. */
static nvml_return by_addr(const char *addr, nvml_device *dev)
{
	unsigned dom, bus, slot, fn;
	char id[32];

	if (sscanf(addr, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4)
		return -1;
	snprintf(id, sizeof(id), "%08X:%02X:%02X.%X", dom, bus, slot, fn);
	return nvml.by_bus_id(id, dev);
}

void rm_health_nvml_xids(struct rm_health *h, size_t n)
{
	struct nvml_event_data e;

	if (!nvml_load() || !nvml.set)
		return;
	/* the GPUs not asked for yet; a GPU NVML does not know or whose events it cannot give is
	 * asked once */
	for (size_t i = 0; i < n && nvml.ngpu < NVML_MAX_GPUS; i++) {
		size_t k = 0;

		if (!h[i].d || !h[i].d->driver || strcmp(h[i].d->driver, "nvidia"))
			continue;
		while (k < nvml.ngpu && strcmp(nvml.gpu[k].addr, h[i].addr))
			k++;
		if (k < nvml.ngpu)
			continue;
		snprintf(nvml.gpu[k].addr, sizeof(nvml.gpu[k].addr), "%s", h[i].addr);
		nvml.gpu[k].registered = by_addr(h[i].addr, &nvml.gpu[k].dev) == 0 &&
			nvml.reg(nvml.gpu[k].dev, NVML_EVENT_XID_CRITICAL, nvml.set) == 0;
		nvml.ngpu++;
	}
	/* the events waiting, without waiting for more */
	for (int k = 0; k < NVML_MAX_EVENTS && nvml.wait(nvml.set, &e, 0) == 0; k++)
		for (size_t g = 0; g < nvml.ngpu; g++)
			if ((e.type & NVML_EVENT_XID_CRITICAL) && nvml.gpu[g].registered &&
			    nvml.gpu[g].dev == e.device && e.data <= RM_HEALTH_XID_MAX)
				nvml.gpu[g].xids[e.data / 64] |= 1ULL << (e.data % 64);
	for (size_t i = 0; i < n; i++)
		for (size_t g = 0; g < nvml.ngpu; g++) {
			if (!nvml.gpu[g].registered || strcmp(nvml.gpu[g].addr, h[i].addr))
				continue;
			h[i].xids_known = true;
			for (int w = 0; w < RM_HEALTH_XID_WORDS; w++) {
				h[i].xids[w] |= nvml.gpu[g].xids[w];
				if (nvml.gpu[g].xids[w])
					h[i].cond[RM_HC_GPU_XID] = true;
			}
		}
}

void rm_health_nvml(struct rm_health *h)
{
	nvml_device dev = NULL;
	unsigned long long n = 0;
	int state = 0;

	if (!nvml_load() || by_addr(h->addr, &dev) != 0)
		return;
	/* ECC off or not supported: unknown, no condition */
	if (nvml.ecc && nvml.ecc(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &n) == 0) {
		h->count[RM_HN_ECC] = n > INT64_MAX ? INT64_MAX : (int64_t)n;
		h->cond[RM_HC_GPU_ECC] = n > 0;
	}
	if (nvml.pending && nvml.pending(dev, &state) == 0) {
		h->retired_pending = state != 0;
		h->cond[RM_HC_GPU_RETIRED_PENDING] = state != 0;
	}
}
