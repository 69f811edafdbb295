/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files of /sys and /proc set to wanted values, each value before journaled and restored. */
#ifndef RM_KNOBS_H
#define RM_KNOBS_H

#include <stddef.h>

struct rm_knob {
	char *path;   /* below the root: "sys/devices/system/cpu/cpu3/cpuidle/state2/disable" */
	char *value;
};

/*
 * Bring the files under ROOT (NULL: this machine) in step with WANT: each file's value before
 * is journaled in $RM_STATE_DIR/JOURNAL.state (records "file=PATH was=VALUE" after a
 * "boot=BOOT_ID" one; a journal of another boot is dropped) before it is written, and a journaled
 * file WANT no longer names is restored. All or nothing for the writes: 0, or -1 with *ERRMSG
 * after undoing them. Restores that fail are said in *WARN (allocated, or NULL).
 */
int rm_knobs_sync(const char *root, const char *journal, const struct rm_knob *want, size_t n,
		  char **warn, char **errmsg);

#endif
