/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CDI spec versions: the lowest one a spec's features need, and the ones runtimes know. */
#ifndef RM_CDI_H
#define RM_CDI_H

#include <stdbool.h>

/*
 * The highest cdiVersion written unless told otherwise: the newest that the CDI library of
 * Debian 12's podman 4.3 (container-device-interface 0.5) loads; Debian 13's podman 5.4
 * loads it too. A runtime refuses a spec whose version it does not know.
 */
#define RM_CDI_VERSION_DEFAULT "0.5.0"

/* The features of a spec that need more than 0.3.0 (SPEC.md's version ladder). */
enum {
	RM_CDI_DIGIT_NAME = 1 << 0,  /* a device name starting with a digit: 0.5.0 */
	RM_CDI_CLASS_DOT = 1 << 1,   /* a dot in the class: 0.6.0 */
	RM_CDI_INTEL_RDT = 1 << 2,   /* intelRdt: 0.7.0 */
	RM_CDI_NET_DEVICES = 1 << 3, /* netDevices: 1.1.0 */
};

/* The lowest cdiVersion that has every feature in FEATURES. */
const char *rm_cdi_version(unsigned features);

/* The rank of version V among those known, oldest 0; -1 when V is none of them. */
int rm_cdi_version_rank(const char *v);

/* The known versions, comma-separated, for messages. */
const char *rm_cdi_versions(void);

#endif
