/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for NVIDIA's libnvidia-ml.so.1 (NVML), built as that name for tests: it answers the
 * few calls rmtools makes from the environment.
 *   FAKE_NVML_MEMORY  "BUSID=BYTES,..." with NVML's bus ids ("00000000:1A:00.0"); another bus id
 *                     is NVML_ERROR_NOT_FOUND
 *   FAKE_NVML_INIT    "fail": nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_ECC     "BUSID=COUNT,...": the volatile uncorrected ECC errors of those GPUs;
 *                     another GPU has ECC off (NVML_ERROR_NOT_SUPPORTED)
 *   FAKE_NVML_PENDING "BUSID=1,...": GPUs with pages waiting to be retired
 *   FAKE_NVML_XIDS    "BUSID=XID,...": the XID events of those GPUs, each given once by
 *                     nvmlEventSetWait_v2 after its GPU registered for XID events
 *   FAKE_NVML_LOG     a file that gets one line per event: load, init, handle BUSID, memory
 *                     BUSID, set-create, register BUSID, wait TIMEOUT, set-free, shutdown,
 *                     unload
 * Built with -DFAKE_NVML_NO_EVENTS it has no event calls. It allocates nothing, so that a process that loads and unloads it stays leak-free.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
};

typedef struct nvml_device *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct nvml_event_set *nvmlEventSet_t;
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType, eventData;
	unsigned gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
#define XID_CRITICAL 0x8ULL

#define MAX_DEVICES 64
#define MAX_EVENTS 64

static char bus_ids[MAX_DEVICES][32];
static unsigned long long totals[MAX_DEVICES];
static int ndevices, initialized;
static char ecc_ids[MAX_DEVICES][32], pending_ids[MAX_DEVICES][32];
static unsigned long long ecc_counts[MAX_DEVICES], pending[MAX_DEVICES];
static int necc, npending;
static char event_ids[MAX_EVENTS][32];
static unsigned long long event_xids[MAX_EVENTS];
static int event_given[MAX_EVENTS], nevents;

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

/* The environment's list NAME, "BUSID=NUMBER,...", into KEYS and VALUES: their number. */
static int read_list(const char *name, char (*keys)[32], unsigned long long *values, int max)
{
	const char *p = getenv(name);
	int n = 0;

	while (p && *p && n < max) {
		size_t len = strcspn(p, "=,");
		char *end;

		if (p[len] != '=' || len >= sizeof(keys[0]))
			break;
		memcpy(keys[n], p, len);
		keys[n][len] = '\0';
		values[n++] = strtoull(p + len + 1, &end, 10);
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* The value of BUS_ID in the list KEYS, VALUES (N entries), or -1. */
static long long lookup(const char *bus_id, char (*keys)[32], const unsigned long long *values, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(keys[i], bus_id))
			return (long long)values[i];
	return -1;
}

int nvmlInit_v2(void)
{
	log_event("init", NULL);
	if (getenv("FAKE_NVML_INIT") && !strcmp(getenv("FAKE_NVML_INIT"), "fail"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	ndevices = read_list("FAKE_NVML_MEMORY", bus_ids, totals, MAX_DEVICES);
	necc = read_list("FAKE_NVML_ECC", ecc_ids, ecc_counts, MAX_DEVICES);
	npending = read_list("FAKE_NVML_PENDING", pending_ids, pending, MAX_DEVICES);
	nevents = read_list("FAKE_NVML_XIDS", event_ids, event_xids, MAX_EVENTS);
	memset(event_given, 0, sizeof(event_given));
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

/* The index of DEV among the devices, -1 when it is none. */
static long device_index(nvmlDevice_t dev)
{
	long i = (const char (*)[32])dev - bus_ids;

	return dev && i >= 0 && i < ndevices ? i : -1;
}

/* NVML_MEMORY_ERROR_TYPE_UNCORRECTED (1), NVML_VOLATILE_ECC (0): FAKE_NVML_ECC */
int nvmlDeviceGetTotalEccErrors(nvmlDevice_t dev, int type, int counter, unsigned long long *count)
{
	long i = device_index(dev);
	long long n;

	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (i < 0 || !count || type != 1 || counter != 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	log_event("ecc", bus_ids[i]);
	if ((n = lookup(bus_ids[i], ecc_ids, ecc_counts, necc)) < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*count = (unsigned long long)n;
	return NVML_SUCCESS;
}

int nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t dev, int *state)
{
	long i = device_index(dev);

	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (i < 0 || !state)
		return NVML_ERROR_INVALID_ARGUMENT;
	*state = lookup(bus_ids[i], pending_ids, pending, npending) > 0;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_NO_EVENTS /* built without them: an NVML older than its event calls */
static int event_set; /* the one set: its address is the handle */
static int registered[MAX_DEVICES];


int nvmlEventSetCreate(nvmlEventSet_t *set)
{
	log_event("set-create", NULL);
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	*set = (nvmlEventSet_t)&event_set;
	return NVML_SUCCESS;
}

int nvmlEventSetFree(nvmlEventSet_t set)
{
	log_event("set-free", NULL);
	return set == (nvmlEventSet_t)&event_set ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

int nvmlDeviceRegisterEvents(nvmlDevice_t dev, unsigned long long types, nvmlEventSet_t set)
{
	long i = device_index(dev);

	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (i < 0 || set != (nvmlEventSet_t)&event_set || !(types & XID_CRITICAL))
		return NVML_ERROR_INVALID_ARGUMENT;
	log_event("register", bus_ids[i]);
	registered[i] = 1;
	return NVML_SUCCESS;
}

int nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms)
{
	char ms[16];

	ms[0] = (char)('0' + (timeout_ms > 9 ? 9 : timeout_ms)); /* 9: nine or more */
	ms[1] = '\0';
	log_event("wait", ms);
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (set != (nvmlEventSet_t)&event_set || !data)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int e = 0; e < nevents; e++)
		for (int i = 0; i < ndevices; i++)
			if (!event_given[e] && registered[i] && !strcmp(bus_ids[i], event_ids[e])) {
				event_given[e] = 1;
				data->device = (nvmlDevice_t)(bus_ids + i);
				data->eventType = XID_CRITICAL;
				data->eventData = event_xids[e];
				data->gpuInstanceId = data->computeInstanceId = ~0u;
				return NVML_SUCCESS;
			}
	return NVML_ERROR_TIMEOUT;
}
#endif
