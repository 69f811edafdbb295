/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Durations given on the command line: a number and a unit (500ms, 1s, 2.5m). */
#ifndef RM_DURATION_H
#define RM_DURATION_H

#include <stdint.h>

/* ARG as a number of nanoseconds: a non-negative decimal and one of ns, us, ms, s, m, h.
 * Returns 0 with *NS, or -1 when ARG is not such a duration or exceeds 10^18 ns. */
int rm_duration_parse(const char *arg, uint64_t *ns);

#endif
