/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Temporaries removed at exit and when a signal ends the process (INT, TERM, HUP, QUIT, PIPE). */
#ifndef RM_CLEANUP_H
#define RM_CLEANUP_H

#include <stdbool.h>

/* How deep rm_cleanup_remove_tree goes below the tree it removes. */
#define RM_CLEANUP_DEPTH 64

/*
 * Register NAME in the directory DIRFD (a file, or a directory: with TREE everything below it
 * too) for removal when the process exits or is ended by SIGINT, SIGTERM, SIGHUP, SIGQUIT or
 * SIGPIPE; the signal is then raised again with the action it had before, so the exit status is
 * the one a shell expects. What is removed then is exactly what is at NAME now (its device and
 * inode are kept): never a link, nor a file made there later. A fixed table prepared here is all
 * the signal handler reads (no allocation there). A forked child never removes its parent's.
 * Returns the entry's number, or -1 (errno) when it cannot be registered (the table is full,
 * nothing at NAME): the caller goes on, only the removal on a signal is lost.
 */
int rm_cleanup_add(int dirfd, const char *name, bool tree);

/* Forget entry SLOT (-1: nothing), leaving what it named. */
void rm_cleanup_forget(int slot);

/* Remove what entry SLOT names now and forget it; 0, or -1 with errno. */
int rm_cleanup_now(int slot);

/*
 * Remove NAME in DIRFD: a file or link, or a directory and everything below it (at most
 * RM_CLEANUP_DEPTH levels), never following a link. Async-signal-safe. 0, or -1 with errno
 * (0 when nothing is there).
 */
int rm_cleanup_remove_tree(int dirfd, const char *name);

/*
 * A new private (0700) directory PREFIX.PID.XXXXXX in DIRFD, registered as a tree (above) and
 * locked (flock) for as long as the process lives. First the ones of the same PREFIX that
 * killed runs left are removed: a directory of this user, mode 0700, whose PID is gone and whose
 * lock nobody holds. Returns its name (free it), *SLOT its entry; NULL with errno on failure.
 */
char *rm_cleanup_mkdtemp(int dirfd, const char *prefix, int *slot);

#endif
