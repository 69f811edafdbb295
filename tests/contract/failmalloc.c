/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LD_PRELOAD shim for the contract tests: malloc, calloc and realloc fail with ENOMEM after
 * $FAIL_MALLOC_AFTER calls, to see which exit status running out of memory gives. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);
static long calls, after = -1;

static int fail(void)
{
	if (after < 0) {
		const char *s = getenv("FAIL_MALLOC_AFTER");
		after = s ? atol(s) : 1L << 60;
	}
	if (++calls > after) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n) { return fail() ? NULL : __libc_malloc(n); }
void *calloc(size_t a, size_t b) { return fail() ? NULL : __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return fail() ? NULL : __libc_realloc(p, n); }
