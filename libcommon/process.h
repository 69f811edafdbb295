/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Processes as /proc states them: when one started, so a reused pid is not taken for it. */
#ifndef RM_PROCESS_H
#define RM_PROCESS_H

#include <sys/types.h>

/* PID's start time in clock ticks after boot (field 22 of /proc/PID/stat), or 0 when it is gone. */
unsigned long long rm_process_start_time(pid_t pid);

#endif
