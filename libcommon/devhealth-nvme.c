/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health: an NVMe controller's SMART / Health Information log page. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devhealth.h"
#include "msg.h"
#include "sysfs.h"
#include "xalloc.h"

/* The log page (NVMe Base Specification, Get Log Page, Log Identifier 02h): 512 bytes, byte 0
 * the critical warning bits, bytes 160..175 media and data integrity errors (128 bits, little
 * endian). One admin command through the kernel's nvme driver: libnvme would add a library and
 * its dependencies for these few lines. */
#define SMART_LOG 0x02
#define SMART_LEN 512
#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_TIMEOUT_MS 3000 /* the driver aborts the command after this */

/* The log from the controller node PATH: the admin command on this machine; below a sysroot,
 * the 512 bytes of the log in a regular file at that path (snapshots and tests). 0 or -1. */
static int smart_log(const char *sysroot, const char *path, unsigned char *log)
{
	char *full = rm_sysfs_path(sysroot, path);
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc = -1;
	struct stat st;
	static bool told;

	free(full);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto out;
	if (sysroot) {
		if (S_ISREG(st.st_mode) && read(fd, log, SMART_LEN) == SMART_LEN)
			rc = 0;
	} else if (S_ISCHR(st.st_mode)) {
		struct nvme_admin_cmd cmd = {
			.opcode = NVME_ADMIN_GET_LOG_PAGE,
			.nsid = 0xffffffff,
			.addr = (uintptr_t)log,
			.data_len = SMART_LEN,
			/* NUMDL (dwords, 0's based) << 16 | LID */
			.cdw10 = ((SMART_LEN / 4 - 1) << 16) | SMART_LOG,
			.timeout_ms = NVME_TIMEOUT_MS,
		};

		if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd) == 0)
			rc = 0;
		else if ((errno == EACCES || errno == EPERM) && !told) {
			told = true; /* once, not at every reading of --watch */
			rm_warnx("note: reading the SMART log of '%s' needs root", path);
		}
	}
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

void rm_health_nvme(const char *sysroot, struct rm_health *h)
{
	unsigned char log[SMART_LEN];
	uint64_t media = 0;

	for (size_t i = 0; i < h->d->nnodes; i++) {
		const struct rm_devnode *n = &h->d->nodes[i];

		/* the controller: /dev/nvmeN, not its namespaces /dev/nvmeNnM */
		if (n->kind != 'c' || strncmp(n->path, "/dev/nvme", 9) ||
		    strchr(n->path + 9, 'n'))
			continue;
		if (smart_log(sysroot, n->path, log) < 0)
			return;
		for (int b = 7; b >= 0; b--)
			media = media << 8 | log[160 + b];
		for (int b = 8; b < 16; b++)
			if (log[160 + b])
				media = INT64_MAX; /* beyond 2^64: as many as can be told */
		h->nvme_warning = log[0];
		h->count[RM_HN_MEDIA] = media > INT64_MAX ? INT64_MAX : (int64_t)media;
		h->cond[RM_HC_NVME_CRITICAL_WARNING] = log[0] != 0;
		h->cond[RM_HC_NVME_MEDIA_ERRORS] = media > 0;
		return;
	}
}
