/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the selector parser (selector-parse.c) and evaluator (selector-eval.c) share: the tree,
 * growing strings, UTF-8 and number helpers. Private to libcommon. */
#ifndef RM_SELECTOR_INTERNAL_H
#define RM_SELECTOR_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "xalloc.h"

/* ---- fields ---- */

static inline const struct rm_selector_field *known_field(const char *name)
{
	for (size_t i = 0; i < rm_selector_nfields; i++)
		if (!strcmp(rm_selector_fields[i].name, name))
			return &rm_selector_fields[i];
	return NULL;
}

/* ---- growing strings ---- */

static inline char *dupn(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* FMT with AP, allocated. */
static inline char *vxasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	return s;
}

struct buf {
	char *s;
	size_t len, cap;
};

static inline void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static inline void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static inline void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vxasprintf(fmt, ap);
	va_end(ap);
	buf_puts(b, s);
	free(s);
}

/* The text so far, allocated (never NULL). */
static inline char *buf_take(struct buf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- UTF-8 ---- */

/* The code point at S (NUL-terminated: the NUL ends any sequence), its length in *LEN; -1
 * (length 1) for a byte that does not start a valid sequence: overlong forms, surrogates and
 * values above U+10FFFF are invalid. */
static inline long utf8_decode(const unsigned char *s, size_t *len)
{
	unsigned char c = s[0];
	size_t need;
	long cp, min;

	*len = 1;
	if (c < 0x80)
		return c;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, cp = c & 0x07, min = 0x10000;
	else
		return -1;
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = need + 1;
	return cp;
}

/* The next character of a NUL-terminated string as a code point (an invalid byte stands for
 * itself, above the Unicode range so that it equals no character); advances *P. */
static inline long next_char(const char **p)
{
	size_t len;
	long cp = utf8_decode((const unsigned char *)*p, &len);

	if (cp < 0)
		cp = 0x110000 + (unsigned char)**p;
	*p += len;
	return cp;
}

/* ---- the tree ---- */

enum lit_kind { LIT_STRING, LIT_INT, LIT_HEX, LIT_SIZE, LIT_VERSION, LIT_DECIMAL };

#define MAX_VERSION 16 /* components of a version */

struct lit {
	enum lit_kind kind;
	char *s;           /* STRING: the value; HEX: the digits as written, lower case */
	long long i;       /* INT */
	uint64_t u;        /* HEX, SIZE */
	unsigned ver[MAX_VERSION]; /* VERSION */
	unsigned nver;
	double d;          /* DECIMAL (RM_SELECTOR_METRICS): 1.5, or 1% with percent */
	bool percent;
	bool metric;       /* INT (RM_SELECTOR_METRICS): also compares with decimal values */
	char *src;         /* the literal as written, for messages */
};

enum node_kind { N_AND, N_OR, N_NOT, N_HAS, N_CMP, N_IN, N_GLOB };
enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
static const char *const op_names[] = { "==", "!=", "<", "<=", ">", ">=" };

struct node {
	enum node_kind kind;
	struct node **kids; /* AND, OR: two or more; NOT: one */
	size_t nkids;
	char *field;        /* HAS, CMP, IN, GLOB */
	const struct rm_selector_field *known;
	enum op op;         /* CMP */
	struct lit *lits;   /* CMP, GLOB: one; IN: one or more */
	size_t nlits;
	unsigned line, column; /* of the field */
};

struct rm_selector {
	struct node *root;
};

/* ---- characters and numbers ---- */

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_hexdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* A decimal integer, the whole of S. */
static inline bool parse_int(const char *s, long long *out)
{
	bool neg = *s == '-';
	unsigned long long v = 0;

	s += neg;
	if (!is_digit(*s))
		return false;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (!is_digit(*s) || v > ((unsigned long long)INT64_MAX + neg - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (long long)(0 - v) : (long long)v;
	return true;
}

#endif
