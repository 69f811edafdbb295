/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks of libcommon/cdi.c's version choice, run by tests/rm-devices/exports.bats. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cdi.h"

static int failed;

static void expect(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want)) {
		printf("%s: %s, expected %s\n", what, got, want);
		failed = 1;
	}
}

int main(void)
{
	/*
	 * The newest cdiVersion each runtime's CDI library loads: Debian 12's podman 4.3.1
	 * vendors container-device-interface 0.5 (0.1.0-0.5.0), Debian 13's podman 5.4
	 * a 0.8 or later one.
	 */
	static const struct { const char *runtime, *newest; } runtimes[] = {
		{ "Debian 12 podman 4.3", "0.5.0" },
		{ "Debian 13 podman 5.4", "0.8.0" },
	};

	expect("no feature", rm_cdi_version(0), "0.3.0");
	expect("digit-led name", rm_cdi_version(RM_CDI_DIGIT_NAME), "0.5.0");
	expect("dot in the class", rm_cdi_version(RM_CDI_CLASS_DOT | RM_CDI_DIGIT_NAME), "0.6.0");
	expect("intelRdt", rm_cdi_version(RM_CDI_INTEL_RDT | RM_CDI_DIGIT_NAME), "0.7.0");
	expect("netDevices", rm_cdi_version(RM_CDI_NET_DEVICES | RM_CDI_INTEL_RDT), "1.1.0");
	if (rm_cdi_version_rank("0.3.0") != 0 || rm_cdi_version_rank("1.1.0") != 7 ||
	    rm_cdi_version_rank("0.9.0") != -1 || rm_cdi_version_rank("") != -1) {
		puts("rm_cdi_version_rank: wrong rank");
		failed = 1;
	}
	/* the default, and every spec written under it, loads in both */
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (rm_cdi_version_rank(RM_CDI_VERSION_DEFAULT) > rm_cdi_version_rank(runtimes[i].newest)) {
			printf("default %s is above %s's %s\n", RM_CDI_VERSION_DEFAULT,
			       runtimes[i].runtime, runtimes[i].newest);
			failed = 1;
		}
	/* the version a spec of GPUs with digit-led owners needs is within the default */
	if (rm_cdi_version_rank(rm_cdi_version(RM_CDI_DIGIT_NAME)) >
	    rm_cdi_version_rank(RM_CDI_VERSION_DEFAULT)) {
		puts("a spec of GPUs is above the default");
		failed = 1;
	}
	return failed;
}
