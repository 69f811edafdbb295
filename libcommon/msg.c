/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one error path: one-line messages with control bytes escaped, and the report after a commit. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "msg.h"

static char *committed;
static char committed_fallback[] = "the change"; /* when even the text cannot be allocated */
static const char *where;
static FILE *out; /* where messages go, NULL for stderr */

void rm_msg_escape(FILE *f, const char *s, size_t n)
{
	for (const unsigned char *p = (const unsigned char *)s; p < (const unsigned char *)s + n; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

static void put_escaped(const char *s)
{
	rm_msg_escape(out ? out : stderr, s, strlen(s));
}

void rm_msg_to(FILE *f)
{
	out = f;
}

void rm_vmsg(const char *fmt, va_list ap, int errnum)
{
	char buf[1024], *text = buf, *heap = NULL;
	FILE *f;
	va_list again;
	int n;

	/* formatted on the stack first, so that a message about memory needs none */
	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		text = (char *)fmt;
	else if ((size_t)n >= sizeof(buf) && vasprintf(&heap, fmt, again) >= 0)
		text = heap;
	va_end(again);
	f = out ? out : stderr;
	fprintf(f, "%s: ", program_invocation_short_name);
	if (where) {
		put_escaped(where);
		fputs(": ", f);
	}
	put_escaped(text);
	if (errnum) {
		fputs(": ", f);
		put_escaped(strerror(errnum));
	}
	if (committed && !strstr(text, committed)) {
		fputs("; ", f);
		put_escaped(committed);
		fputs(" stands", f);
	}
	fputc('\n', f);
	free(heap);
}

void rm_msg_where(const char *w)
{
	where = w;
}

int rm_exit_status(int status)
{
	if (committed && (status == RM_EXIT_USAGE || status == RM_EXIT_NORESOURCE))
		return RM_EXIT_FAILURE;
	return status;
}

void rm_warnx(const char *fmt, ...)
{
	va_list ap;
	char *saved = committed;

	committed = NULL; /* a warning does not repeat the commit */
	va_start(ap, fmt);
	rm_vmsg(fmt, ap, 0);
	va_end(ap);
	committed = saved;
}

void rm_warn(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;
	char *saved = committed;

	committed = NULL;
	va_start(ap, fmt);
	rm_vmsg(fmt, ap, errnum);
	va_end(ap);
	committed = saved;
}

void rm_errx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rm_vmsg(fmt, ap, 0);
	va_end(ap);
	exit(rm_exit_status(status));
}

void rm_err(int status, const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	rm_vmsg(fmt, ap, errnum);
	va_end(ap);
	exit(errnum == ENOMEM ? RM_EXIT_FAILURE : rm_exit_status(status));
}

void rm_usage_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rm_vmsg(fmt, ap, 0);
	va_end(ap);
	exit(rm_exit_status(RM_EXIT_USAGE));
}

void rm_committed(const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	rm_committed_clear();
	committed = text ? text : committed_fallback;
}

const char *rm_committed_change(void)
{
	return committed;
}

void rm_committed_clear(void)
{
	if (committed != committed_fallback)
		free(committed);
	committed = NULL;
}
