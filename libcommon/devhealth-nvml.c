/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health: NVIDIA GPUs' ECC errors from NVML, when libnvidia-ml.so.1 is installed. */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

#include "devhealth.h"

/* The few parts of nvml.h used here: the library is loaded at run time, never required. */
typedef int nvml_return;                    /* NVML_SUCCESS is 0 */
typedef struct nvml_device *nvml_device;
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0                 /* since the driver loaded */

static struct {
	bool tried, ok;
	nvml_return (*by_bus_id)(const char *bus_id, nvml_device *dev);
	nvml_return (*ecc)(nvml_device dev, int type, int counter, unsigned long long *count);
	nvml_return (*pending)(nvml_device dev, int *state);
} nvml;

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
	nvml.ok = init && nvml.by_bus_id && nvml.ecc && init() == 0;
	return nvml.ok;
}

void rm_health_nvml(struct rm_health *h)
{
	nvml_device dev = NULL;
	unsigned long long n = 0;
	int state = 0;

	if (!nvml_load() || nvml.by_bus_id(h->addr, &dev) != 0)
		return;
	/* ECC off or not supported: unknown, no condition */
	if (nvml.ecc(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &n) == 0) {
		h->count[RM_HN_ECC] = n > INT64_MAX ? INT64_MAX : (int64_t)n;
		h->cond[RM_HC_GPU_ECC] = n > 0;
	}
	if (nvml.pending && nvml.pending(dev, &state) == 0) {
		h->retired_pending = state != 0;
		h->cond[RM_HC_GPU_RETIRED_PENDING] = state != 0;
	}
}
