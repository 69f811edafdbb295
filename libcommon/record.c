/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record format of CONVENTIONS.md: key=value fields, one record per line. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "record.h"
#include "xalloc.h"

/* the bytes a value may have unquoted: a table, as every value of every record is looked at */
static const bool bare_chars[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true,
	['_'] = true, ['.'] = true, [','] = true, [':'] = true, ['/'] = true, ['+'] = true,
	['@'] = true, ['%'] = true, ['-'] = true,
};

static bool is_bare_char(unsigned char c)
{
	return bare_chars[c];
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

bool rm_record_is_bare(const char *value)
{
	if (!*value)
		return false;
	for (; *value; value++)
		if (!is_bare_char(*value))
			return false;
	return true;
}

bool rm_record_valid_key(const char *key)
{
	if (!(*key >= 'a' && *key <= 'z'))
		return false;
	for (key++; *key; key++)
		if (!((*key >= 'a' && *key <= 'z') || (*key >= '0' && *key <= '9') || *key == '_'))
			return false;
	return true;
}

char *rm_record_quote(const char *value)
{
	char *out, *p;

	if (rm_record_is_bare(value))
		return xstrdup(value);
	/* At worst every byte becomes \xHH, plus the quotes. */
	p = out = xmalloc(4 * strlen(value) + 3);
	*p++ = '"';
	for (; *value; value++) {
		unsigned char c = *value;

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = c;
		} else if (c < 0x20 || c >= 0x7f) {
			p += sprintf(p, "\\x%02x", c);
		} else {
			*p++ = c;
		}
	}
	*p++ = '"';
	*p = '\0';
	return out;
}

void rm_record_write_value(FILE *out, const char *value)
{
	char *q;

	if (rm_record_is_bare(value)) {
		fputs_unlocked(value, out);
		return;
	}
	q = rm_record_quote(value);
	fputs(q, out);
	free(q);
}

size_t rm_decimal(char buf[RM_DECIMAL_MAX], long long v)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char digits[RM_DECIMAL_MAX];
	size_t n = 0, len = 0;

	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return len;
}

/* "line L, column C: ..." for the byte at POS of LINE; returns -1. */
__attribute__((format(printf, 5, 6)))
static int fail(char **errmsg, unsigned lineno, const char *line, const char *pos,
		const char *fmt, ...)
{
	va_list ap;
	char *what;

	if (!errmsg)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	va_end(ap);
	*errmsg = xasprintf("line %u, column %zu: %s", lineno, (size_t)(pos - line) + 1, what);
	free(what);
	return -1;
}

char *rm_record_show(const char *s, size_t len)
{
	char *out = xmalloc(4 * len + 1), *p = out;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = c;
	}
	*p = '\0';
	return out;
}

/* "invalid escape '\q'" for the escape at P: the backslash, its letter and any hex digits. */
static int bad_escape(char **errmsg, unsigned lineno, const char *line, const char *p)
{
	size_t n = 2;
	char *s;

	if (p[1] == 'x')
		for (; n < 4 && is_hex(p[n]); n++)
			;
	s = rm_record_show(p, n);
	fail(errmsg, lineno, line, p, "invalid escape '%s'", s);
	free(s);
	return -1;
}

/* Parse the quoted value at *P (at its opening quote) into an allocated string; -1 on error. */
static int parse_quoted(const char *line, unsigned lineno, const char **pp, char **value,
			char **errmsg)
{
	const char *open = *pp, *p = open + 1;
	char *out = xmalloc(strlen(p) + 1), *o = out;

	for (;;) {
		if (!*p) {
			free(out);
			return fail(errmsg, lineno, line, open, "unterminated quoted value");
		}
		if (*p == '"')
			break;
		if (*p != '\\') {
			/* Raw bytes (a tab, UTF-8) are unambiguous inside quotes: take them. */
			*o++ = *p++;
			continue;
		}
		switch (p[1]) {
		case '"':
		case '\\':
			*o++ = p[1];
			p += 2;
			break;
		case 'n':
			*o++ = '\n';
			p += 2;
			break;
		case 't':
			*o++ = '\t';
			p += 2;
			break;
		case 'x':
			/* \x00 would end the C string early, so it is refused too. */
			if (is_hex(p[2]) && is_hex(p[3]) && (p[2] != '0' || p[3] != '0')) {
				*o++ = hexval(p[2]) << 4 | hexval(p[3]);
				p += 4;
				break;
			}
			/* fall through */
		default:
			free(out);
			if (!p[1])
				return fail(errmsg, lineno, line, open,
					    "unterminated quoted value");
			return bad_escape(errmsg, lineno, line, p);
		}
	}
	*o = '\0';
	*value = out;
	*pp = p + 1;
	return 0;
}

static void add_field(struct rm_record *rec, char *key, char *value)
{
	rec->fields = xrealloc(rec->fields, (rec->nfields + 1) * sizeof(*rec->fields));
	rec->fields[rec->nfields].key = key;
	rec->fields[rec->nfields].value = value;
	rec->nfields++;
}

int rm_record_parse_line(const char *line, unsigned lineno, struct rm_record *rec, char **errmsg)
{
	const char *p = line;

	rec->fields = NULL;
	rec->nfields = 0;
	rec->line = lineno;

	while (is_blank(*p))
		p++;
	if (!*p)
		return fail(errmsg, lineno, line, p, "empty record");

	while (*p) {
		const char *key = p, *val;
		char *k, *v = NULL;

		/* The key runs to '=' or a blank; check it whole, to name it in the message. */
		while (*p && *p != '=' && !is_blank(*p))
			p++;
		k = rm_record_show(key, p - key);
		if (p == key) {
			fail(errmsg, lineno, line, key, "expected a key");
			goto fail;
		}
		if (!rm_record_valid_key(k)) {
			fail(errmsg, lineno, line, key, "invalid key '%s'", k);
			goto fail;
		}
		if (*p != '=') {
			fail(errmsg, lineno, line, p, "expected '=' after key '%s'", k);
			goto fail;
		}
		if (rm_record_get(rec, k)) {
			fail(errmsg, lineno, line, key, "duplicate key '%s'", k);
			goto fail;
		}

		val = ++p;
		if (*p == '"') {
			if (parse_quoted(line, lineno, &p, &v, errmsg))
				goto fail;
			if (*p && !is_blank(*p)) {
				free(v);
				fail(errmsg, lineno, line, p,
				     "expected a space after quoted value");
				goto fail;
			}
		} else {
			while (*p && !is_blank(*p)) {
				if (!is_bare_char(*p)) {
					char *c = rm_record_show(p, 1);

					fail(errmsg, lineno, line, p,
					     "invalid character '%s' in value (quote it)", c);
					free(c);
					goto fail;
				}
				p++;
			}
			if (p == val) {
				fail(errmsg, lineno, line, p, "expected a value after '%s='", k);
				goto fail;
			}
			v = strndup(val, p - val);
			if (!v)
				rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
		}
		add_field(rec, k, v);

		while (is_blank(*p))
			p++;
		continue;
fail:
		free(k);
		rm_record_free(rec);
		return -1;
	}
	return 0;
}

int rm_record_read(FILE *in, unsigned *lineno, struct rm_record *rec, char **errmsg)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	rec->fields = NULL;
	rec->nfields = 0;
	rec->line = *lineno;

	errno = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		const char *p = line;

		++*lineno;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			rc = fail(errmsg, *lineno, line, line + strlen(line), "NUL byte in input");
			break;
		}
		while (is_blank(*p))
			p++;
		if (!*p || *p == '#')
			continue;
		rc = rm_record_parse_line(line, *lineno, rec, errmsg) ? -1 : 1;
		break;
	}
	if (len < 0 && ferror(in)) {
		if (errmsg)
			*errmsg = xasprintf("line %u: cannot read input: %s", *lineno + 1,
					    strerror(errno ? errno : EIO));
		rc = -1;
	}
	free(line);
	return rc;
}

const char *rm_record_get(const struct rm_record *rec, const char *key)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (!strcmp(rec->fields[i].key, key))
			return rec->fields[i].value;
	return NULL;
}

const char *rm_record_kind(const struct rm_record *rec)
{
	return rec->nfields ? rec->fields[0].key : NULL;
}

void rm_record_free(struct rm_record *rec)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		free(rec->fields[i].key);
		free(rec->fields[i].value);
	}
	free(rec->fields);
	rec->fields = NULL;
	rec->nfields = 0;
}

void rm_record_copy(struct rm_record *dst, const struct rm_record *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->nfields; i++)
		rm_record_set(dst, src->fields[i].key, src->fields[i].value);
	dst->line = src->line;
}

void rm_record_set(struct rm_record *rec, const char *key, const char *value)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (!strcmp(rec->fields[i].key, key)) {
			free(rec->fields[i].value);
			rec->fields[i].value = xstrdup(value);
			return;
		}
	add_field(rec, xstrdup(key), xstrdup(value));
}

void rm_record_unset(struct rm_record *rec, const char *key)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (!strcmp(rec->fields[i].key, key)) {
			free(rec->fields[i].key);
			free(rec->fields[i].value);
			memmove(&rec->fields[i], &rec->fields[i + 1],
				(rec->nfields - i - 1) * sizeof(*rec->fields));
			rec->nfields--;
			return;
		}
}

void rm_record_write(FILE *out, const struct rm_record *rec)
{
	for (size_t i = 0; i < rec->nfields; i++) {
		if (i)
			putc(' ', out);
		fputs(rec->fields[i].key, out);
		putc('=', out);
		rm_record_write_value(out, rec->fields[i].value);
	}
	putc('\n', out);
}
