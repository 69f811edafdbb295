/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small strict JSON reader for the documents rmtools writes, turned back into records. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xalloc.h"

/*
 * Written here because the project's libraries (hwloc, libnuma, libsmartcols, ...) write JSON
 * but none reads it, and compare needs only this much: the whole grammar (RFC 8259), with the
 * values of flat objects kept as text. A new build dependency (json-c) for 300 lines was not
 * worth it.
 */

#define MAX_DEPTH 64

struct parser {
	const char *s, *end, *start;
	char *err;
	struct rm_record *recs;
	size_t n;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *p, const char *fmt, ...)
{
	unsigned line = 1, col = 1;
	va_list ap;
	char *msg;

	if (p->err)
		return -1;
	for (const char *q = p->start; q < p->s && q < p->end; q++) {
		if (*q == '\n')
			line++, col = 1;
		else
			col++;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		rm_err(1, "cannot allocate memory");
	va_end(ap);
	p->err = xasprintf("line %u, column %u: %s", line, col, msg);
	free(msg);
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static int expect(struct parser *p, char c)
{
	skip_ws(p);
	if (p->s >= p->end || *p->s != c)
		return fail(p, "expected '%c'", c);
	p->s++;
	return 0;
}

static void put_utf8(FILE *f, uint32_t cp)
{
	if (cp < 0x80) {
		putc((int)cp, f);
	} else if (cp < 0x800) {
		putc((int)(0xc0 | cp >> 6), f);
		putc((int)(0x80 | (cp & 0x3f)), f);
	} else if (cp < 0x10000) {
		putc((int)(0xe0 | cp >> 12), f);
		putc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
		putc((int)(0x80 | (cp & 0x3f)), f);
	} else {
		putc((int)(0xf0 | cp >> 18), f);
		putc((int)(0x80 | ((cp >> 12) & 0x3f)), f);
		putc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
		putc((int)(0x80 | (cp & 0x3f)), f);
	}
}

static int hex4(struct parser *p, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, p->s++) {
		char c = p->s < p->end ? *p->s : 0;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(p, "invalid \\u escape");
	}
	return 0;
}

/* A string at p->s (after its opening quote); *OUT allocated unless OUT is NULL. */
static int string(struct parser *p, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f)
		rm_err(1, "cannot allocate memory");
	for (;;) {
		unsigned char c;

		if (p->s >= p->end) {
			rc = fail(p, "unterminated string");
			break;
		}
		c = (unsigned char)*p->s++;
		if (c == '"')
			break;
		if (c < 0x20) {
			p->s--;
			rc = fail(p, "control character in a string");
			break;
		}
		if (c != '\\') {
			putc(c, f);
			continue;
		}
		c = p->s < p->end ? (unsigned char)*p->s++ : 0;
		switch (c) {
		case '"': case '\\': case '/': putc(c, f); break;
		case 'b': putc('\b', f); break;
		case 'f': putc('\f', f); break;
		case 'n': putc('\n', f); break;
		case 'r': putc('\r', f); break;
		case 't': putc('\t', f); break;
		case 'u': {
			uint32_t cp, lo;

			if ((rc = hex4(p, &cp)) < 0)
				break;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p->end - p->s < 2 || p->s[0] != '\\' || p->s[1] != 'u') {
					rc = fail(p, "unpaired surrogate in \\u escape");
					break;
				}
				p->s += 2;
				if ((rc = hex4(p, &lo)) < 0)
					break;
				if (lo < 0xdc00 || lo > 0xdfff) {
					rc = fail(p, "unpaired surrogate in \\u escape");
					break;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				rc = fail(p, "unpaired surrogate in \\u escape");
				break;
			}
			put_utf8(f, cp);
			break;
		}
		default:
			p->s--;
			rc = fail(p, "invalid escape in a string");
		}
		if (rc < 0)
			break;
	}
	if (fclose(f) != 0)
		rm_err(1, "cannot allocate memory");
	if (rc < 0 || !out) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A number, as written; *OUT allocated. */
static int number(struct parser *p, char **out)
{
	const char *b = p->s;

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s < p->end && *p->s == '0')
		p->s++;
	else if (p->s < p->end && is_digit(*p->s))
		while (p->s < p->end && is_digit(*p->s))
			p->s++;
	else
		return fail(p, "invalid number");
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		if (p->s >= p->end || !is_digit(*p->s))
			return fail(p, "invalid number");
		while (p->s < p->end && is_digit(*p->s))
			p->s++;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (p->s >= p->end || !is_digit(*p->s))
			return fail(p, "invalid number");
		while (p->s < p->end && is_digit(*p->s))
			p->s++;
	}
	*out = xasprintf("%.*s", (int)(p->s - b), b);
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t len = strlen(word);

	if ((size_t)(p->end - p->s) < len || strncmp(p->s, word, len))
		return fail(p, "unexpected character");
	p->s += len;
	return 0;
}

static int value(struct parser *p, int depth, bool records, char **scalar);

/* An object; with RECORDS, it becomes a record when its members are flat. */
static int object(struct parser *p, int depth, bool records)
{
	struct rm_record rec = { 0 };
	bool first = true;

	skip_ws(p);
	if (p->s < p->end && *p->s == '}') {
		p->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL, *val = NULL;

		skip_ws(p);
		if (p->s >= p->end || *p->s != '"') {
			rm_record_free(&rec);
			return fail(p, first ? "expected a key or '}'" : "expected a key");
		}
		p->s++;
		if (string(p, &key) < 0 || expect(p, ':') < 0 ||
		    value(p, depth + 1, records, &val) < 0) {
			free(key);
			rm_record_free(&rec);
			return -1;
		}
		if (val && records) {
			if (rm_record_get(&rec, key)) {
				free(key);
				free(val);
				rm_record_free(&rec);
				return fail(p, "a key given twice");
			}
			rm_record_set(&rec, key, val);
		}
		free(key);
		free(val);
		first = false;
		skip_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == '}') {
			p->s++;
			break;
		}
		rm_record_free(&rec);
		return fail(p, "expected ',' or '}'");
	}
	if (records && rec.nfields) {
		p->recs = xrealloc(p->recs, (p->n + 1) * sizeof(*p->recs));
		p->recs[p->n++] = rec;
	} else {
		rm_record_free(&rec);
	}
	return 0;
}

/* An array: its objects are records when ITEMS_ARE_RECORDS. */
static int array(struct parser *p, int depth, bool items_are_records)
{
	skip_ws(p);
	if (p->s < p->end && *p->s == ']') {
		p->s++;
		return 0;
	}
	for (;;) {
		if (value(p, depth + 1, items_are_records, NULL) < 0)
			return -1;
		skip_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == ']') {
			p->s++;
			return 0;
		}
		return fail(p, "expected ',' or ']'");
	}
}

/*
 * One value. SCALAR (when not NULL) receives a scalar's text; containers give NULL there.
 * RECORDS: an object here is a record (it is an element of a listing's array).
 */
static int value(struct parser *p, int depth, bool records, char **scalar)
{
	char *text = NULL;

	if (scalar)
		*scalar = NULL;
	if (depth > MAX_DEPTH)
		return fail(p, "nested too deeply");
	skip_ws(p);
	if (p->s >= p->end)
		return fail(p, "unexpected end of input");
	switch (*p->s) {
	case '{':
		p->s++;
		/* an object in a member of a record is left out; at the top, its arrays are
		 * listings */
		return object(p, depth, records && !scalar);
	case '[':
		p->s++;
		/* a listing: an array at the top, or in a member of the top object */
		return array(p, depth, depth <= 1);
	case '"':
		p->s++;
		if (string(p, &text) < 0)
			return -1;
		break;
	case 't':
		if (literal(p, "true") < 0)
			return -1;
		text = xstrdup("yes");
		break;
	case 'f':
		if (literal(p, "false") < 0)
			return -1;
		text = xstrdup("no");
		break;
	case 'n':
		if (literal(p, "null") < 0)
			return -1;
		text = xstrdup("-");
		break;
	default:
		if (number(p, &text) < 0)
			return -1;
	}
	if (scalar)
		*scalar = text;
	else
		free(text);
	return 0;
}

int json_read_records(const char *text, size_t len, struct rm_record **recs, size_t *n,
		      char **errmsg)
{
	struct parser p = { .s = text, .end = text + len, .start = text };
	int rc;

	skip_ws(&p);
	if (p.s < p.end && *p.s != '{' && *p.s != '[')
		rc = fail(&p, "expected '{' or '['");
	else
		rc = value(&p, 0, false, NULL);
	if (rc == 0) {
		skip_ws(&p);
		if (p.s < p.end)
			rc = fail(&p, "text after the document");
	}
	if (rc < 0) {
		for (size_t i = 0; i < p.n; i++)
			rm_record_free(&p.recs[i]);
		free(p.recs);
		*errmsg = p.err;
		return -1;
	}
	*recs = p.recs;
	*n = p.n;
	return 0;
}
