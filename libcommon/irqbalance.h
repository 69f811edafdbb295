/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A running irqbalance told its banned CPUs through its socket, without a restart. */
#ifndef RM_IRQBALANCE_H
#define RM_IRQBALANCE_H

/*
 * Tell irqbalance PID (its socket under ROOT, NULL: this machine) to ban the CPUs of LIST from
 * its next pass on ("settings cpus LIST"); LIST NULL or empty: back to what it chose at start
 * (its environment, else isolcpus= and nohz_full=). The list replaces the one irqbalance chose
 * at start. 0 once irqbalance has taken it; 1 when no socket answers (an irqbalance built
 * without it, or not yet listening): restart it with the list in its environment; -1 on any
 * other failure. *ERRMSG on 1 and -1.
 */
int rm_irqbalance_ban(const char *root, int pid, const char *list, char **errmsg);

#endif
