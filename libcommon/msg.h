/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one error path: one-line messages with control bytes escaped, and the report after a commit. */
#ifndef RM_MSG_H
#define RM_MSG_H

#include <stdarg.h>
#include <stdio.h>

/*
 * Every message a tool prints goes through these: "PROG: MESSAGE" on one line of stderr, with
 * control bytes (newlines included) and DEL written as \xHH, so that names read from files or
 * arguments cannot forge lines or terminal sequences. The _err forms append ": strerror(errno)".
 * An errno of ENOMEM always exits RM_EXIT_FAILURE: running out of memory is a failure, not a
 * usage error or a lack of CPUs, devices or pages.
 */
__attribute__((format(printf, 1, 2))) void rm_warnx(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void rm_warn(const char *fmt, ...);
__attribute__((noreturn, format(printf, 2, 3))) void rm_errx(int status, const char *fmt, ...);
__attribute__((noreturn, format(printf, 2, 3))) void rm_err(int status, const char *fmt, ...);
void rm_vmsg(const char *fmt, va_list ap, int errnum);

/* Write the N bytes at S to F with control bytes and DEL as \xHH: one line, whatever S holds. */
void rm_msg_escape(FILE *f, const char *s, size_t n);

/* Send the messages above to F from here on (NULL: stderr, the default): for while stderr is
 * a filter of another library's messages (rm_tool_main's option parsing). */
void rm_msg_to(FILE *f);

/* Put WHERE ("FILE:LINE:COLUMN", NULL for none) before every message from here on: for what a
 * line of a configuration file asks, checked by the code a command line's options go through.
 * The string must live until the next call. */
void rm_msg_where(const char *where);

/* Exit RM_EXIT_USAGE with "PROG: MESSAGE", for invalid input found after option parsing. */
__attribute__((noreturn, format(printf, 1, 2))) void rm_usage_errx(const char *fmt, ...);

/*
 * Say that a change is committed: from here on the command's exit status can no longer claim
 * that nothing changed. Call it right after the commit (state renamed into place, cgroup written)
 * with what was changed ("allocated 0-3 to web"). Later calls replace the text. After it:
 *  - a failure to write standard output (closed, full disk; EPIPE excepted) exits RM_EXIT_REPORT
 *    with "PROG: CHANGE stands, but its report could not be written: REASON";
 *  - rm_errx()/rm_err() with RM_EXIT_USAGE or RM_EXIT_NORESOURCE exit RM_EXIT_FAILURE instead and
 *    add "; CHANGE stands" to the message, since 2 and 3 promise that nothing changed.
 */
__attribute__((format(printf, 1, 2))) void rm_committed(const char *fmt, ...);

/* What rm_committed() recorded, or NULL before a commit. */
const char *rm_committed_change(void);

/* Forget the commit (for a command that undid its change after a later failure). */
void rm_committed_clear(void);

/* The status to exit with for STATUS given the commit so far (see rm_committed). */
int rm_exit_status(int status);

#endif
