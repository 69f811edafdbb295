/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Report write errors on standard output at exit, as util-linux's close_stdout does. */
#ifndef RM_CLOSESTREAM_H
#define RM_CLOSESTREAM_H

#include <stdbool.h>

/* Flush and close stdout; on an error other than EPIPE print "write error" and _exit(1).
 * Register with atexit() first thing in main(). */
void rm_close_stdout(void);

/* fflush(stdout) for a tool that prints as it goes; false on an error, whose reason
 * rm_close_stdout then reports. */
bool rm_flush_stdout(void);

/* Open /dev/null, for the other direction, on any of descriptors 0-2 that is closed. */
void rm_guard_std_fds(void);

#endif
