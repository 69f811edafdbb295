/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health from the kernel: the conditions, the policy that weighs them, one reading. */
#ifndef RM_DEVICES_HEALTH_H
#define RM_DEVICES_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "rm-devices.h"

/* The conditions, in the order of the health field. */
enum hcond {
	HC_GONE,             /* an allocated (or watched) function is no longer on the bus */
	HC_REPLACED,         /* another vendor:device at its address */
	HC_UNBOUND,          /* its driver was unbound */
	HC_REBOUND,          /* another driver took it */
	HC_NO_DRIVER,        /* no driver bound */
	HC_D3COLD,           /* power_state D3cold */
	HC_SLOT_EMPTY,       /* its hotplug slot reports no adapter or no power */
	HC_AER_CORRECTABLE,  /* aer_dev_correctable TOTAL_ERR_COR */
	HC_AER_NONFATAL,     /* aer_dev_nonfatal TOTAL_ERR_NONFATAL */
	HC_AER_FATAL,        /* aer_dev_fatal TOTAL_ERR_FATAL */
	HC_ROOT_AER_CORRECTABLE, /* its root port's aer_rootport_total_err_cor */
	HC_ROOT_AER_NONFATAL,
	HC_ROOT_AER_FATAL,
	HC_LINK_DEGRADED,    /* a link on its path trained below what both ends can do */
	HC_NVME_CRITICAL_WARNING, /* SMART log critical warning bits */
	HC_NVME_MEDIA_ERRORS, /* SMART log media and data integrity errors */
	HC_PORT_DOWN,        /* a network interface up without carrier */
	HC_IB_PORT_DOWN,     /* an InfiniBand port not ACTIVE */
	HC_GPU_ECC,          /* NVML: volatile uncorrected ECC errors */
	HC_GPU_RETIRED_PENDING, /* NVML: pages waiting to be retired at the next reset */
	HC_N
};

/* What a condition makes of a device. */
enum hlevel { HL_OK, HL_WARN, HL_UNHEALTHY };

/* Counters: unknown is -1. */
enum hcount {
	HN_AER_COR, HN_AER_NONFATAL, HN_AER_FATAL,
	HN_ROOT_COR, HN_ROOT_NONFATAL, HN_ROOT_FATAL,
	HN_MEDIA, HN_ECC,
	HN_N
};

/* One device's reading. Strings allocated, NULL unknown. */
struct health {
	char addr[24];
	const struct rm_device *d;     /* NULL: gone */
	char *owner;                   /* from the state, or NULL */
	char *expected;                /* the driver it should have, or NULL */
	char *driver;                  /* the driver it has */
	char *type;
	int64_t count[HN_N];
	double rate[HN_N];             /* per minute since the last reading; < 0 unknown */
	char *aer_errors;              /* the error kinds counted: "BadTLP:3,RxErr:1" */
	char *root_port;
	char *link;                    /* the degraded link: "ADDR:2.5GT/s:x1<8.0GT/s:x4" */
	char *power;                   /* power_state */
	char *slot;                    /* the slot's name, when it has one */
	int nvme_warning;              /* -1 unknown */
	char *ports_down;              /* "eth0,mlx5_0/1" */
	int retired_pending;           /* -1 unknown */
	bool cond[HC_N];
	enum hlevel level;
	char *conditions;              /* the conditions that count, "aer_nonfatal,link_degraded" */
	char *unhealthy;               /* those of them that make it unhealthy */
};

/* The condition's name ("aer_nonfatal"); -1 for an unknown NAME. */
const char *hcond_name(enum hcond c);
int hcond_parse(const char *name);
/* "ok", "warn", "unhealthy". */
const char *hlevel_name(enum hlevel l);

/* Load the policy: FILE (exit 2 when unreadable or malformed), else $RM_CONFIG_DIR/
 * devices-health.conf when it exists, else the defaults. */
void health_policy_load(const char *file);
/* H's level and conditions (h->level, h->conditions) under the policy. */
void health_judge(struct health *h);

/* Read H's evidence for its device D (NULL: gone) below SYSROOT (NULL: this machine). */
void health_read(const char *sysroot, struct health *h);
/* Rates of H's counters against PREV, read SECONDS before. */
void health_rates(struct health *h, const struct health *prev, double seconds);
void health_free(struct health *h);

/* The NVMe SMART log of H's controller (health-nvme.c): critical warning, media errors. */
void health_nvme(const char *sysroot, struct health *h);
/* NVML's ECC counts of H's NVIDIA GPU, when libnvidia-ml.so.1 is there (health-nvml.c). */
void health_nvml(struct health *h);

/*
 * The health of every device of DEVS that F selects (NULL: every listed type), and of the
 * allocated devices gone (owner, expected driver and identity from the state), judged: *N
 * readings, allocated, in address order. OWNERS (NULL or none named: any) keeps only the devices
 * of those owners. BASE (NBASE readings, the first of a --watch) gives the driver each device
 * should keep and the devices that must stay; PREV (NPREV, read SECONDS before) the counters the
 * rates are of.
 */
struct health *health_scan(const char *sysroot, const struct rm_devices *devs,
			   const struct filter *f, const struct rm_owners *owners,
			   const struct health *base, size_t nbase, const struct health *prev,
			   size_t nprev, double seconds, size_t *n);
void health_scan_free(struct health *h, size_t n);

/* The reading of ADDR among H, or NULL. */
const struct health *health_find(const struct health *h, size_t n, const char *addr);

/* The health of this machine's (or --sysroot's) devices once, under the default policy file:
 * for the exports and listings. */
struct health *health_once(const struct rm_common *c, const struct rm_devices *devs, size_t *n);

#endif
