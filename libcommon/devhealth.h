/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health from the kernel: the conditions, the policy that weighs them, one reading. */
#ifndef RM_DEVHEALTH_H
#define RM_DEVHEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "options.h"

/* The conditions, in the order of the health field. */
enum rm_hcond {
	RM_HC_GONE,             /* an allocated (or watched) function is no longer on the bus */
	RM_HC_REPLACED,         /* another vendor:device at its address */
	RM_HC_UNBOUND,          /* its driver was unbound */
	RM_HC_REBOUND,          /* another driver took it */
	RM_HC_NO_DRIVER,        /* no driver bound */
	RM_HC_D3COLD,           /* power_state D3cold */
	RM_HC_SLOT_EMPTY,       /* its hotplug slot reports no adapter or no power */
	RM_HC_AER_CORRECTABLE,  /* aer_dev_correctable TOTAL_ERR_COR */
	RM_HC_AER_NONFATAL,     /* aer_dev_nonfatal TOTAL_ERR_NONFATAL */
	RM_HC_AER_FATAL,        /* aer_dev_fatal TOTAL_ERR_FATAL */
	RM_HC_ROOT_AER_CORRECTABLE, /* its root port's aer_rootport_total_err_cor */
	RM_HC_ROOT_AER_NONFATAL,
	RM_HC_ROOT_AER_FATAL,
	RM_HC_LINK_DEGRADED,    /* a link on its path trained below what both ends can do */
	RM_HC_NVME_CRITICAL_WARNING, /* SMART log critical warning bits */
	RM_HC_NVME_MEDIA_ERRORS, /* SMART log media and data integrity errors */
	RM_HC_PORT_DOWN,        /* a network interface up without carrier */
	RM_HC_IB_PORT_DOWN,     /* an InfiniBand port not ACTIVE */
	RM_HC_GPU_ECC,          /* NVML: volatile uncorrected ECC errors */
	RM_HC_GPU_RETIRED_PENDING, /* NVML: pages waiting to be retired at the next reset */
	RM_HC_GPU_XID,       /* NVIDIA XIDs: NVML's events, the driver's lines in the kernel log */
	RM_HC_N
};

/* XIDs 0 to RM_HEALTH_XID_MAX are told apart (NVIDIA's catalogue ends far below). */
#define RM_HEALTH_XID_MAX 1023 /* the policy's messages say 1023 */
#define RM_HEALTH_XID_WORDS ((RM_HEALTH_XID_MAX + 64) / 64)

/* What a condition makes of a device. */
enum rm_hlevel { RM_HL_OK, RM_HL_WARN, RM_HL_UNHEALTHY };

/* Counters: unknown is -1. */
enum rm_hcount {
	RM_HN_AER_COR, RM_HN_AER_NONFATAL, RM_HN_AER_FATAL,
	RM_HN_ROOT_COR, RM_HN_ROOT_NONFATAL, RM_HN_ROOT_FATAL,
	RM_HN_MEDIA, RM_HN_ECC,
	RM_HN_N
};

/* One device's reading. Strings allocated, NULL unknown. */
struct rm_health {
	char addr[24];
	const struct rm_device *d;     /* NULL: gone */
	char *owner;                   /* from the state, or NULL */
	char *expected;                /* the driver it should have, or NULL */
	char *driver;                  /* the driver it has */
	char *type;
	int64_t count[RM_HN_N];
	double rate[RM_HN_N];             /* per minute since the last reading; < 0 unknown */
	char *aer_errors;              /* the error kinds counted: "BadTLP:3,RxErr:1" */
	char *root_port;
	char *link;                    /* the degraded link: "ADDR:2.5GT/s:x1<8.0GT/s:x4" */
	char *power;                   /* power_state */
	char *slot;                    /* the slot's name, when it has one */
	int nvme_warning;              /* -1 unknown */
	char *ports_down;              /* "eth0,mlx5_0/1" */
	int retired_pending;           /* -1 unknown */
	bool xids_known;               /* the XIDs below were read (kernel log or NVML) */
	uint64_t xids[RM_HEALTH_XID_WORDS]; /* the XIDs seen: bit N of word N / 64 */
	bool cond[RM_HC_N];
	enum rm_hlevel level;
	char *conditions;              /* the conditions that count, "aer_nonfatal,link_degraded" */
	char *unhealthy;               /* those of them that make it unhealthy */
};

/* The condition's name ("aer_nonfatal"); -1 for an unknown NAME. */
const char *rm_health_cond_name(enum rm_hcond c);
int rm_health_cond_parse(const char *name);
/* "ok", "warn", "unhealthy". */
const char *rm_health_level_name(enum rm_hlevel l);

/* Load the policy: FILE (exit 2 when unreadable or malformed), else $RM_CONFIG_DIR/
 * devices-health.conf when it exists, else the defaults. */
void rm_health_policy_load(const char *file);
/* H's level and conditions (h->level, h->conditions) under the policy. */
void rm_health_judge(struct rm_health *h);

/* Read H's evidence for its device D (NULL: gone) below SYSROOT (NULL: this machine). */
void rm_health_read(const char *sysroot, struct rm_health *h);
/* Rates of H's counters against PREV, read SECONDS before. */
void rm_health_rates(struct rm_health *h, const struct rm_health *prev, double seconds);
void rm_health_free(struct rm_health *h);

/* The NVMe SMART log of H's controller (devhealth-nvme.c): critical warning, media errors. */
void rm_health_nvme(const char *sysroot, struct rm_health *h);
/* NVML's ECC counts of H's NVIDIA GPU, when libnvidia-ml.so.1 is there (devhealth-nvml.c). */
void rm_health_nvml(struct rm_health *h);

/* The NVIDIA XIDs of the N readings H: the nvidia driver's "NVRM: Xid (PCI:BUSID): XID, ..."
 * lines in SYSROOT/dev/kmsg (since boot, as far as the log buffer reaches; read without
 * blocking), and on this machine NVML's XID events since the first reading (devhealth-xid.c). */
void rm_health_xids(const char *sysroot, struct rm_health *h, size_t n);
/* NVML's XID events for the NVIDIA GPUs among H (devhealth-nvml.c). */
void rm_health_nvml_xids(struct rm_health *h, size_t n);
/* Note XID on H. */
void rm_health_xid_add(struct rm_health *h, unsigned xid);
/* Whether H is an NVIDIA GPU, or an allocated GPU gone. */
bool rm_health_is_nvidia(const struct rm_health *h);

/*
 * The health of every device of DEVS of a listed type (not "other"), and of the
 * allocated devices gone (owner, expected driver and identity from the state), judged: *N
 * readings, allocated, in address order. OWNERS (NULL or none named: any) keeps only the devices
 * of those owners. BASE (NBASE readings, the first of a --watch) gives the driver each device
 * should keep and the devices that must stay; PREV (NPREV, read SECONDS before) the counters the
 * rates are of.
 */
struct rm_health *rm_health_scan(const char *sysroot, const struct rm_devices *devs,
			   const struct rm_owners *owners,
			   const struct rm_health *base, size_t nbase, const struct rm_health *prev,
			   size_t nprev, double seconds, size_t *n);
void rm_health_scan_free(struct rm_health *h, size_t n);

/* The reading of ADDR among H, or NULL. */
const struct rm_health *rm_health_find(const struct rm_health *h, size_t n, const char *addr);

/* The health of the devices DEVS of SYSROOT (NULL: this machine) once, under the default policy
 * file: for the exports and listings. */
struct rm_health *rm_health_once(const char *sysroot, const struct rm_devices *devs, size_t *n);

/* The unhealthy devices allocated to owners, judged once as rm_health_once does: *N readings
 * (owner set, d NULL), NULL when none. DEVS: the devices of SYSROOT, NULL to read them here (exit 2 when
 * SYSROOT cannot be read). Nothing is read when no device is allocated. */
struct rm_health *rm_health_owned_unhealthy(const char *sysroot, const struct rm_devices *devs,
					    size_t *n);

#endif
