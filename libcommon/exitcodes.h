/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exit statuses shared by every tool; they are part of the interface (rmtools(7)). */
#ifndef RM_EXITCODES_H
#define RM_EXITCODES_H

#define RM_EXIT_SUCCESS    0 /* done */
#define RM_EXIT_FAILURE    1 /* a system call or a check failed */
#define RM_EXIT_USAGE      2 /* bad option or invalid input; nothing changed */
#define RM_EXIT_NORESOURCE 3 /* not enough CPUs, devices or pages, or a lock still held; nothing changed */
#define RM_EXIT_REPORT     4 /* the change was made and stands, but its report could not be written */

#endif
