/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Allocation wrappers that exit with a message instead of returning NULL. */
#ifndef RM_XALLOC_H
#define RM_XALLOC_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "msg.h"

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		rm_errx(RM_EXIT_FAILURE, "cannot allocate %zu bytes", n);
	return p;
}

static inline void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		rm_errx(RM_EXIT_FAILURE, "cannot allocate %zu bytes", nmemb * size);
	return p;
}

static inline void *xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);
	if (!p)
		rm_errx(RM_EXIT_FAILURE, "cannot allocate %zu bytes", n);
	return p;
}

static inline char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		rm_errx(RM_EXIT_FAILURE, "cannot allocate %zu bytes", strlen(s) + 1);
	return p;
}

__attribute__((format(printf, 1, 2)))
static inline char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		rm_errx(RM_EXIT_FAILURE, "cannot allocate memory");
	va_end(ap);
	return s;
}

#endif
