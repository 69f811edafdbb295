/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <string.h>

#include "cdi.h"

static const char *const versions[] = { "0.3.0", "0.4.0", "0.5.0", "0.6.0",
					"0.7.0", "0.8.0", "1.0.0", "1.1.0" };

const char *rm_cdi_version(unsigned features)
{
	if (features & RM_CDI_NET_DEVICES)
		return "1.1.0";
	if (features & RM_CDI_INTEL_RDT)
		return "0.7.0";
	if (features & RM_CDI_CLASS_DOT)
		return "0.6.0";
	if (features & RM_CDI_DIGIT_NAME)
		return "0.5.0";
	return "0.3.0";
}

int rm_cdi_version_rank(const char *v)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (!strcmp(v, versions[i]))
			return (int)i;
	return -1;
}

const char *rm_cdi_versions(void)
{
	return "0.3.0, 0.4.0, 0.5.0, 0.6.0, 0.7.0, 0.8.0, 1.0.0, 1.1.0";
}
