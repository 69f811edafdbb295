/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for NVIDIA's libnvidia-ml.so.1 (NVML), built as that name for tests: it answers the
 * few calls rmtools makes from the environment.
 *   FAKE_NVML_MEMORY  "BUSID=BYTES,..." with NVML's bus ids ("00000000:1A:00.0"); another bus id
 *                     is NVML_ERROR_NOT_FOUND
 *   FAKE_NVML_INIT    "fail": nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_LOG     a file that gets one line per event: load, init, handle BUSID, memory
 *                     BUSID, shutdown, unload
 * It allocates nothing, so that a process that loads and unloads it stays leak-free.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
};

typedef struct nvml_device *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

#define MAX_DEVICES 64

static char bus_ids[MAX_DEVICES][32];
static unsigned long long totals[MAX_DEVICES];
static int ndevices, initialized;

static void log_event(const char *what, const char *arg)
{
	const char *path = getenv("FAKE_NVML_LOG");
	int fd;

	if (!path || !*path || (fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0)
		return;
	if (write(fd, what, strlen(what)) < 0 ||
	    (arg && (write(fd, " ", 1) < 0 || write(fd, arg, strlen(arg)) < 0)) ||
	    write(fd, "\n", 1) < 0) {
		/* a test reads what was written */
	}
	close(fd);
}

__attribute__((constructor)) static void fake_load(void)
{
	log_event("load", NULL);
}

__attribute__((destructor)) static void fake_unload(void)
{
	log_event("unload", NULL);
}

/* FAKE_NVML_MEMORY into bus_ids and totals. */
static void read_devices(void)
{
	const char *p = getenv("FAKE_NVML_MEMORY");

	ndevices = 0;
	while (p && *p && ndevices < MAX_DEVICES) {
		size_t len = strcspn(p, "=,");
		char *end;

		if (p[len] != '=' || len >= sizeof(bus_ids[0]))
			break;
		memcpy(bus_ids[ndevices], p, len);
		bus_ids[ndevices][len] = '\0';
		totals[ndevices++] = strtoull(p + len + 1, &end, 10);
		p = *end == ',' ? end + 1 : end;
	}
}

int nvmlInit_v2(void)
{
	log_event("init", NULL);
	if (getenv("FAKE_NVML_INIT") && !strcmp(getenv("FAKE_NVML_INIT"), "fail"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	read_devices();
	initialized = 1;
	return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
	log_event("shutdown", NULL);
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	initialized = 0;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(int rc)
{
	switch (rc) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	default: return "Unknown Error";
	}
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvmlDevice_t *dev)
{
	log_event("handle", bus_id);
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (!bus_id || !dev)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < ndevices; i++)
		if (!strcmp(bus_ids[i], bus_id)) {
			*dev = (nvmlDevice_t)(bus_ids + i);
			return NVML_SUCCESS;
		}
	return NVML_ERROR_NOT_FOUND;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *mem)
{
	const char (*id)[32] = (const char (*)[32])dev;
	long i = id - bus_ids;

	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (!dev || !mem || i < 0 || i >= ndevices)
		return NVML_ERROR_INVALID_ARGUMENT;
	log_event("memory", bus_ids[i]);
	mem->total = totals[i];
	mem->used = totals[i] / 4;
	mem->free = totals[i] - mem->used;
	return NVML_SUCCESS;
}
