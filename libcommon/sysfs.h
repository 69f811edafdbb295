/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading /sys and /proc files under an optional root (--sysroot). */
#ifndef RM_SYSFS_H
#define RM_SYSFS_H

#include <stdbool.h>
#include <stdint.h>

#include <hwloc.h>

/* ROOT/PATH (ROOT may be NULL or "" for the live system). Allocated. */
char *rm_sysfs_path(const char *root, const char *path);

/* Whole file, trailing newlines removed; NULL when missing or unreadable (errno set). */
char *rm_sysfs_read(const char *root, const char *path);

/* A cpulist/nodelist file (e.g. devices/system/cpu/online) into SET. -1 when missing or invalid. */
int rm_sysfs_read_set(const char *root, const char *path, hwloc_bitmap_t set);

/* An integer file. -1 when missing or invalid. */
int rm_sysfs_read_u64(const char *root, const char *path, uint64_t *value);

bool rm_sysfs_exists(const char *root, const char *path);

#endif
