/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device health: NVIDIA XIDs, from the lines the nvidia driver writes to the kernel log. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "devhealth.h"
#include "msg.h"
#include "sysfs.h"

/* /dev/kmsg gives one record a read and refuses (EINVAL) a buffer shorter than the record; the
 * kernel's records are at most 1 KiB of text and their dictionary. */
#define KMSG_RECORD 8192
/* Reads of one pass: a log buffer holds far fewer records (32 MiB at most). */
#define KMSG_MAX_READS (1 << 20)

void rm_health_xid_add(struct rm_health *h, unsigned xid)
{
	if (xid <= RM_HEALTH_XID_MAX)
		h->xids[xid / 64] |= 1ULL << (xid % 64);
	h->cond[RM_HC_GPU_XID] = true;
}

bool rm_health_is_nvidia(const struct rm_health *h)
{
	return h->d ? h->d->vendor == 0x10de && h->d->type == RM_DEV_GPU :
		      h->type && !strcmp(h->type, "gpu");
}

/*
 * One message of the log. The nvidia driver's (nv_report_error, os-interface.c):
 * "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus." The bus
 * id is DOMAIN:BUS:DEVICE (older drivers: BUS:DEVICE, or with .FUNCTION): the GPU is that
 * device's function.
 */
static void xid_message(const char *msg, struct rm_health *h, size_t n)
{
	static const char tag[] = "NVRM: Xid (PCI:";
	const char *p = strstr(msg, tag);
	char id[24], full[32];
	unsigned xid;
	size_t len;

	if (!p || sscanf(p + sizeof(tag) - 1, "%23[0-9a-fA-F:.]): %u", id, &xid) != 2)
		return;
	id[strcspn(id, ".")] = '\0';
	snprintf(full, sizeof(full), "%s%s", strchr(id, ':') == strrchr(id, ':') ? "0000:" : "",
		 id);
	len = strlen(full);
	for (size_t i = 0; i < n; i++)
		if (h[i].xids_known && !strncasecmp(h[i].addr, full, len) && h[i].addr[len] == '.')
			rm_health_xid_add(&h[i], xid);
}

/* A record of /dev/kmsg: "PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;MESSAGE", its dictionary on the
 * lines after it, each begun by a space. */
static void kmsg_line(const char *line, struct rm_health *h, size_t n)
{
	const char *msg = strchr(line, ';');

	if (*line != ' ' && msg)
		xid_message(msg + 1, h, n);
}

/*
 * Every record of SYSROOT/dev/kmsg, without blocking: a pass over the log buffer from its oldest
 * record (below a sysroot, a regular file of such records). -1 when it cannot be opened.
 */
static int kmsg_read(const char *sysroot, struct rm_health *h, size_t n)
{
	char *path = rm_sysfs_path(sysroot, "dev/kmsg"), buf[KMSG_RECORD + 1];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	size_t have = 0;
	static bool told;

	free(path);
	if (fd < 0) {
		if ((errno == EPERM || errno == EACCES) && !told) {
			told = true; /* once, not at every reading of --watch */
			rm_warnx("note: reading NVIDIA XIDs from /dev/kmsg needs root");
		}
		return -1;
	}
	for (long i = 0; i < KMSG_MAX_READS; i++) {
		ssize_t r = read(fd, buf + have, KMSG_RECORD - have);
		char *line = buf, *nl;

		if (r < 0 && (errno == EPIPE || errno == EINTR))
			continue; /* EPIPE: records overwritten while reading; the next follows */
		if (r <= 0)
			break; /* EAGAIN: the whole log read; 0: the end of a file */
		have += (size_t)r;
		buf[have] = '\0';
		for (; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			kmsg_line(line, h, n);
		}
		have -= (size_t)(line - buf);
		if (have == KMSG_RECORD)
			have = 0; /* a line longer than any record: not the kernel's */
		memmove(buf, line, have);
	}
	close(fd);
	return 0;
}

void rm_health_xids(const char *sysroot, struct rm_health *h, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= h[i].xids_known = rm_health_is_nvidia(&h[i]);
	if (!any)
		return;
	if (kmsg_read(sysroot, h, n) < 0)
		for (size_t i = 0; i < n; i++)
			h[i].xids_known = false;
	if (!sysroot)
		rm_health_nvml_xids(h, n);
}
