/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU and node sets as hwloc bitmaps: parse and print the kernel's list, stride and mask forms. */
#ifndef RM_CPULIST_H
#define RM_CPULIST_H

#include <hwloc.h>

/* Largest id accepted in any input (the kernel's NR_CPUS limit is 8192; leave room). */
#define RM_CPULIST_MAX 65535

/*
 * Parse a set written in any of the accepted forms into SET (cleared first):
 *   list    "0-3,8,10-11"      (the empty string is the empty set)
 *   stride  "0-15:2/4"         (kernel form a-b:used/group: in each group of 4 from a, the first 2)
 *   mask    "0xff", "ff,00000000" (cpumap form: comma-separated 32-bit hex words, most significant
 *                                   first), any string with hex letters, or "0x"-prefixed
 * One trailing newline is allowed (sysfs files); other blanks are not. Ids above RM_CPULIST_MAX
 * are refused. Returns 0, or -1 with *ERRMSG set to an allocated one-line message naming the
 * problem, and SET empty.
 */
int rm_cpulist_parse(const char *str, hwloc_bitmap_t set, char **errmsg);

/* Same, but only the list and stride forms (a mask is refused). */
int rm_cpulist_parse_list(const char *str, hwloc_bitmap_t set, char **errmsg);

/* Only the mask form; "0x" prefix optional. */
int rm_cpulist_parse_mask(const char *str, hwloc_bitmap_t set, char **errmsg);

/*
 * The kernel list form, ascending, no spaces; "" for the empty set. Allocated. An infinite hwloc
 * set is cut at RM_CPULIST_MAX (or where its infinite tail starts, when that is higher); so is
 * the mask form below.
 */
char *rm_cpulist_format(hwloc_const_bitmap_t set);

/* The cpumap mask form ("ff,00000000", words of 8 hex digits but the first); "0" for empty. */
char *rm_cpulist_format_mask(hwloc_const_bitmap_t set);

#endif
