/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selector expressions over record fields: a hand-written lexer and recursive-descent parser,
 * matching, explanations, and printing in canonical, CEL and SR-IOV device plugin form. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "size.h"
#include "xalloc.h"

/*
 * Written by hand: the language is small (comparisons, in, ~, has, and/or/not) and no packaged C
 * library parses it; CEL libraries, the nearest standard, exist for Go, C++ and Java but are not
 * packaged for C. The parser is recursive descent with a depth limit (RM_SELECTOR_MAX_DEPTH), so
 * that hostile input ("((((..." a hundred thousand deep) is refused before the stack can grow.
 */

/* ---- the fields of device records (rm-devices list --list-columns) ---- */

const struct rm_selector_field rm_selector_fields[] = {
	{ "device", RM_FIELD_STRING, 0 },
	{ "type", RM_FIELD_STRING, 0 },
	{ "name", RM_FIELD_STRING, 0 },
	{ "vendor", RM_FIELD_HEX, 4 },
	{ "product", RM_FIELD_HEX, 4 },
	{ "vendor_name", RM_FIELD_STRING, 0 },
	{ "product_name", RM_FIELD_STRING, 0 },
	{ "driver", RM_FIELD_STRING, 0 },
	{ "numa", RM_FIELD_INT, 0 },
	{ "cpus", RM_FIELD_LIST, 0 },
	{ "root", RM_FIELD_STRING, 0 },
	{ "iommu_group", RM_FIELD_INT, 0 },
	{ "dev_nodes", RM_FIELD_STRING, 0 },
	{ "switch", RM_FIELD_STRING, 0 },
	{ "path", RM_FIELD_STRING, 0 },
	{ "link_speed", RM_FIELD_STRING, 0 },
	{ "link_width", RM_FIELD_INT, 0 },
	{ "sriov", RM_FIELD_STRING, 0 },
	{ "vfs", RM_FIELD_INT, 0 },
	{ "total_vfs", RM_FIELD_INT, 0 },
	{ "pf", RM_FIELD_STRING, 0 },
	{ "netdevs", RM_FIELD_STRING, 0 },
	{ "rdma", RM_FIELD_STRING, 0 },
	{ "ib_state", RM_FIELD_STRING, 0 },
	{ "link_layer", RM_FIELD_STRING, 0 },
	{ "memory", RM_FIELD_SIZE, 0 },
	{ "bar", RM_FIELD_SIZE, 0 },
	{ "class", RM_FIELD_HEX, 6 },
	{ "subvendor", RM_FIELD_HEX, 4 },
	{ "subproduct", RM_FIELD_HEX, 4 },
	{ "shared_nodes", RM_FIELD_STRING, 0 },
};
const size_t rm_selector_nfields = sizeof(rm_selector_fields) / sizeof(rm_selector_fields[0]);

const char *rm_selector_type_name(enum rm_field_type type)
{
	static const char *const names[] = {
		[RM_FIELD_STRING] = "string", [RM_FIELD_INT] = "integer", [RM_FIELD_HEX] = "hex",
		[RM_FIELD_SIZE] = "size", [RM_FIELD_LIST] = "cpulist",
	};
	return names[type];
}

static const struct rm_selector_field *known_field(const char *name)
{
	for (size_t i = 0; i < rm_selector_nfields; i++)
		if (!strcmp(rm_selector_fields[i].name, name))
			return &rm_selector_fields[i];
	return NULL;
}

/* ---- growing strings ---- */

static char *dupn(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* FMT with AP, allocated. */
static char *vxasprintf(const char *fmt, va_list ap)
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

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void buf_printf(struct buf *b, const char *fmt, ...)
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
static char *buf_take(struct buf *b)
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
static long utf8_decode(const unsigned char *s, size_t *len)
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
static long next_char(const char **p)
{
	size_t len;
	long cp = utf8_decode((const unsigned char *)*p, &len);

	if (cp < 0)
		cp = 0x110000 + (unsigned char)**p;
	*p += len;
	return cp;
}

/* ---- the tree ---- */

enum lit_kind { LIT_STRING, LIT_INT, LIT_HEX, LIT_SIZE, LIT_VERSION };

#define MAX_VERSION 16 /* components of a version */

struct lit {
	enum lit_kind kind;
	char *s;           /* STRING: the value; HEX: the digits as written, lower case */
	long long i;       /* INT */
	uint64_t u;        /* HEX, SIZE */
	unsigned ver[MAX_VERSION]; /* VERSION */
	unsigned nver;
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

static void lit_clear(struct lit *l)
{
	free(l->s);
	free(l->src);
	l->s = l->src = NULL;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	for (size_t i = 0; i < n->nlits; i++)
		lit_clear(&n->lits[i]);
	free(n->lits);
	free(n->field);
	free(n);
}

void rm_selector_free(struct rm_selector *sel)
{
	if (!sel)
		return;
	node_free(sel->root);
	free(sel);
}

void rm_selector_error_free(struct rm_selector_error *e)
{
	free(e->what);
	e->what = NULL;
}

/* ---- the lexer ---- */

enum tok {
	T_END, T_IDENT, T_STRING, T_NUMBER, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_TILDE,
	T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_COMMA
};

struct token {
	enum tok kind;
	const char *start, *end; /* in the text */
	unsigned line, column;
	struct lit lit;          /* T_STRING, T_NUMBER; owned until taken */
};

struct parser {
	const char *text, *p;
	unsigned line;
	const char *bol;         /* the start of the current line */
	struct token tok;
	struct rm_selector_error *err;
	int depth;
};

__attribute__((format(printf, 4, 5)))
static int fail_at(struct parser *ps, unsigned line, unsigned column, const char *fmt, ...)
{
	va_list ap;

	if (ps->err->what)
		return -1;
	ps->err->line = line;
	ps->err->column = column;
	va_start(ap, fmt);
	ps->err->what = vxasprintf(fmt, ap);
	va_end(ap);
	return -1;
}

/* S (LEN bytes) for a message: at most 40 bytes, control and non-ASCII bytes as \xHH. */
static char *shown(const char *s, size_t len)
{
	char *t, *r;

	if (len <= 40)
		return rm_record_show(s, len);
	t = rm_record_show(s, 37);
	r = xasprintf("%s...", t);
	free(t);
	return r;
}

/* "'text'" of the current token, or "the end"; allocated. */
static char *found(const struct parser *ps)
{
	char *s, *r;

	if (ps->tok.kind == T_END)
		return xstrdup("the end");
	s = shown(ps->tok.start, ps->tok.end - ps->tok.start);
	r = xasprintf("'%s'", s);
	free(s);
	return r;
}

/* Fail at the current token: "WHAT, found 'x'". */
__attribute__((format(printf, 2, 3)))
static int fail_found(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	char *what, *f = found(ps);

	va_start(ap, fmt);
	what = vxasprintf(fmt, ap);
	va_end(ap);
	fail_at(ps, ps->tok.line, ps->tok.column, "%s, found %s", what, f);
	free(what);
	free(f);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_hexdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* A decimal integer, the whole of S. */
static bool parse_int(const char *s, long long *out)
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

/* The string literal at ps->p (its opening quote) into T. */
static int lex_string(struct parser *ps, struct token *t)
{
	const char *p = ps->p + 1;
	struct buf b = { 0 };

	for (;;) {
		unsigned char c = *p;

		if (c == '"')
			break;
		if (!c || c == '\n') {
			free(b.s);
			return fail_at(ps, t->line, t->column, "unterminated string");
		}
		if (c < 0x20 || c == 0x7f) {
			free(b.s);
			return fail_at(ps, ps->line, (unsigned)(p - ps->bol) + 1,
				       "control character \\x%02x in a string (write it as \\x%02x)",
				       c, c);
		}
		if (c != '\\') {
			buf_add(&b, (const char *)p, 1);
			p++;
			continue;
		}
		switch (p[1]) {
		case '"':
		case '\\':
			buf_add(&b, p + 1, 1);
			p += 2;
			continue;
		case 'n':
			buf_add(&b, "\n", 1);
			p += 2;
			continue;
		case 't':
			buf_add(&b, "\t", 1);
			p += 2;
			continue;
		case 'x':
			/* \x00 would end the C string early, so it is refused too. */
			if (is_hexdigit(p[2]) && is_hexdigit(p[3]) && (p[2] != '0' || p[3] != '0')) {
				char ch = (char)(hexval(p[2]) << 4 | hexval(p[3]));

				buf_add(&b, &ch, 1);
				p += 4;
				continue;
			}
			break;
		}
		{
			size_t n = 2;
			char *s;

			if (!p[1] || p[1] == '\n') {
				free(b.s);
				return fail_at(ps, t->line, t->column, "unterminated string");
			}
			if (p[1] == 'x')
				for (; n < 4 && is_hexdigit(p[n]); n++)
					;
			s = rm_record_show(p, n);
			free(b.s);
			fail_at(ps, ps->line, (unsigned)(p - ps->bol) + 1,
				"invalid escape '%s' (\\\" \\\\ \\n \\t \\xHH)", s);
			free(s);
			return -1;
		}
	}
	t->lit.kind = LIT_STRING;
	t->lit.s = buf_take(&b);
	ps->p = p + 1;
	return 0;
}

/* A number at ps->p: an integer, hex id, size or version, by its form. */
static int lex_number(struct parser *ps, struct token *t)
{
	const char *start = ps->p, *p = start;
	bool neg = *p == '-', dot = false, alpha = false;
	char *text, *msg = NULL;

	if (neg)
		p++;
	for (; is_digit(*p) || is_alpha(*p) || *p == '.'; p++) {
		dot |= *p == '.';
		alpha |= is_alpha(*p);
	}
	text = dupn(start, p - start);
	ps->p = p;
	t->end = p;
	t->lit.src = text;
	if (neg && (alpha || dot))
		return fail_at(ps, t->line, t->column,
			       "invalid number '%s' (only integers take a sign)", text);
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		const char *digits = text + 2, *sig;
		bool ok = *digits;

		t->lit.kind = LIT_HEX;
		for (const char *c = digits; *c; c++)
			ok &= is_hexdigit(*c);
		if (!ok)
			return fail_at(ps, t->line, t->column, "invalid hex id '%s'", text);
		for (sig = digits; sig[0] == '0' && sig[1]; sig++)
			; /* leading zeros count for nothing */
		if (strlen(sig) > 16)
			return fail_at(ps, t->line, t->column, "hex id out of range: '%s'", text);
		t->lit.u = strtoull(sig, NULL, 16);
		/* the digits as written, in lower case, for the canonical form */
		t->lit.s = xstrdup(digits);
		for (char *c = t->lit.s; *c; c++)
			if (*c >= 'A' && *c <= 'F')
				*c = (char)(*c | 0x20);
		return 0;
	}
	if (dot) {
		const char *q = text;

		t->lit.kind = LIT_VERSION;
		if (alpha)
			return fail_at(ps, t->line, t->column, "invalid version '%s'", text);
		for (;;) {
			unsigned long long v = 0;

			if (!is_digit(*q))
				return fail_at(ps, t->line, t->column, "invalid version '%s'", text);
			for (; is_digit(*q); q++) {
				v = v * 10 + (unsigned)(*q - '0');
				if (v > UINT32_MAX)
					return fail_at(ps, t->line, t->column,
						       "version component out of range: '%s'", text);
			}
			if (t->lit.nver == MAX_VERSION)
				return fail_at(ps, t->line, t->column,
					       "version with more than %d components: '%s'",
					       MAX_VERSION, text);
			t->lit.ver[t->lit.nver++] = (unsigned)v;
			if (!*q)
				break;
			q++; /* the dot */
		}
		return 0;
	}
	if (alpha) {
		t->lit.kind = LIT_SIZE;
		if (rm_size_parse(text, &t->lit.u, &msg)) {
			bool big = msg && strstr(msg, "too large");

			free(msg);
			if (big)
				return fail_at(ps, t->line, t->column, "size out of range: '%s'", text);
			return fail_at(ps, t->line, t->column,
				       "invalid size '%s' (units: B, KiB, MiB, GiB, TiB, PiB, EiB)",
				       text);
		}
		return 0;
	}
	t->lit.kind = LIT_INT;
	if (!parse_int(text, &t->lit.i)) /* digits only here: too large */
		return fail_at(ps, t->line, t->column, "integer out of range: '%s'", text);
	return 0;
}

/* Read the next token into ps->tok, dropping what the last one held. */
static int next(struct parser *ps)
{
	struct token *t = &ps->tok;
	const char *p;

	lit_clear(&t->lit);
	memset(&t->lit, 0, sizeof(t->lit));
	for (;;) {
		if (*ps->p == '\n') {
			ps->line++;
			ps->bol = ++ps->p;
		} else if (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r') {
			ps->p++;
		} else {
			break;
		}
	}
	p = ps->p;
	t->start = p;
	t->line = ps->line;
	t->column = (unsigned)(p - ps->bol) + 1;
	t->end = p + 1;
	switch (*p) {
	case '\0':
		t->kind = T_END;
		t->end = p;
		return 0;
	case '"':
		t->kind = T_STRING;
		if (lex_string(ps, t))
			return -1;
		t->end = ps->p;
		return 0;
	case '(': t->kind = T_LPAREN; break;
	case ')': t->kind = T_RPAREN; break;
	case '[': t->kind = T_LBRACK; break;
	case ']': t->kind = T_RBRACK; break;
	case ',': t->kind = T_COMMA; break;
	case '~': t->kind = T_TILDE; break;
	case '=':
		if (p[1] != '=')
			return fail_at(ps, t->line, t->column, "unexpected '=' (write '==')");
		t->kind = T_EQ;
		t->end = p + 2;
		break;
	case '!':
		if (p[1] != '=')
			return fail_at(ps, t->line, t->column, "unexpected '!' (write 'not')");
		t->kind = T_NE;
		t->end = p + 2;
		break;
	case '<':
	case '>':
		t->kind = p[1] == '=' ? (*p == '<' ? T_LE : T_GE) : (*p == '<' ? T_LT : T_GT);
		t->end = p + (p[1] == '=' ? 2 : 1);
		break;
	case '&':
		return fail_at(ps, t->line, t->column, "unexpected '&' (write 'and')");
	case '|':
		return fail_at(ps, t->line, t->column, "unexpected '|' (write 'or')");
	case '\'':
		return fail_at(ps, t->line, t->column,
			       "unexpected \"'\" (strings are in double quotes)");
	default:
		if (is_digit(*p) || (*p == '-' && is_digit(p[1]))) {
			t->kind = T_NUMBER;
			return lex_number(ps, t);
		}
		if (is_alpha(*p)) {
			t->kind = T_IDENT;
			while (is_alpha(*ps->p) || is_digit(*ps->p))
				ps->p++;
			t->end = ps->p;
			return 0;
		} else {
			char *s = rm_record_show(p, 1);

			fail_at(ps, t->line, t->column, "unexpected character '%s'", s);
			free(s);
			return -1;
		}
	}
	ps->p = t->end;
	return 0;
}

/* Whether the current token is the word WORD. */
static bool is_word(const struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	return ps->tok.kind == T_IDENT && (size_t)(ps->tok.end - ps->tok.start) == n &&
	       !strncmp(ps->tok.start, word, n);
}

static bool is_keyword(const struct parser *ps)
{
	return is_word(ps, "and") || is_word(ps, "or") || is_word(ps, "not") ||
	       is_word(ps, "in") || is_word(ps, "has");
}

/* ---- the parser ---- */

static struct node *new_node(enum node_kind kind)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	return n;
}

static void add_kid(struct node *n, struct node *kid)
{
	n->kids = xrealloc(n->kids, (n->nkids + 1) * sizeof(*n->kids));
	n->kids[n->nkids++] = kid;
}

/* Append KID to the and/or node N, merging a KID of the same kind: "a and (b and c)" is one
 * "and" of three, as it means. */
static void add_flat(struct node *n, struct node *kid)
{
	if (kid->kind != n->kind) {
		add_kid(n, kid);
		return;
	}
	for (size_t i = 0; i < kid->nkids; i++)
		add_kid(n, kid->kids[i]);
	kid->nkids = 0;
	node_free(kid);
}

/* A field name at the current token into *FIELD (allocated); -1 with an error saying CONTEXT. */
static int take_field(struct parser *ps, char **field, const char *context)
{
	char *name;

	if (ps->tok.kind != T_IDENT || is_keyword(ps))
		return fail_found(ps, "expected a field name%s", context);
	name = dupn(ps->tok.start, ps->tok.end - ps->tok.start);
	if (!rm_record_valid_key(name)) {
		fail_at(ps, ps->tok.line, ps->tok.column,
			"invalid field name '%s' (lower-case letters, digits and '_')", name);
		free(name);
		return -1;
	}
	*field = name;
	return 0;
}

/* Which literals each type of known field takes; NULL when L fits F, else what was expected. */
static const char *expected_for(const struct rm_selector_field *f, const struct lit *l)
{
	switch (f->type) {
	case RM_FIELD_STRING:
		return l->kind == LIT_STRING || l->kind == LIT_VERSION ? NULL
								       : "a string or a version";
	case RM_FIELD_LIST:
		return l->kind == LIT_STRING ? NULL : "a string";
	case RM_FIELD_INT:
		return l->kind == LIT_INT || l->kind == LIT_HEX ? NULL : "an integer";
	case RM_FIELD_HEX:
		return l->kind == LIT_HEX || l->kind == LIT_STRING ? NULL
								   : "a hex id such as 0x10de";
	case RM_FIELD_SIZE:
		return l->kind == LIT_SIZE || l->kind == LIT_INT ? NULL : "a size such as 16GiB";
	}
	return NULL;
}

/* A value at the current token, for a comparison of FIELD after OPERATOR; appended to N. */
static int take_value(struct parser *ps, struct node *n, const char *operator)
{
	struct lit *l;
	const char *want;

	if (ps->tok.kind == T_IDENT && !is_keyword(ps)) {
		char *word = shown(ps->tok.start, ps->tok.end - ps->tok.start);

		fail_at(ps, ps->tok.line, ps->tok.column,
			"expected a value after '%s', found '%s' (strings are quoted: \"%s\")",
			operator, word, word);
		free(word);
		return -1;
	}
	if (ps->tok.kind != T_STRING && ps->tok.kind != T_NUMBER)
		return fail_found(ps, "expected a value after '%s'", operator);
	if (n->known && (want = expected_for(n->known, &ps->tok.lit)))
		return fail_found(ps, "expected %s for '%s'", want, n->field);
	if (n->known && n->known->type == RM_FIELD_HEX && ps->tok.lit.kind == LIT_HEX &&
	    ps->tok.lit.u >> (4 * n->known->width))
		return fail_found(ps, "expected at most %d hex digits for '%s'", n->known->width,
				  n->field);
	n->lits = xrealloc(n->lits, (n->nlits + 1) * sizeof(*n->lits));
	l = &n->lits[n->nlits++];
	*l = ps->tok.lit;
	if (!l->src)
		l->src = dupn(ps->tok.start, ps->tok.end - ps->tok.start);
	memset(&ps->tok.lit, 0, sizeof(ps->tok.lit)); /* taken */
	return next(ps);
}

/*
 * Check a glob pattern: '*', '?', '[...]' with ranges and a leading '!' or '^', '\' quoting the
 * next character. NULL when valid, else what is wrong.
 */
static const char *glob_check(const char *pat)
{
	while (*pat) {
		if (*pat == '\\') {
			if (!pat[1])
				return "pattern ends with '\\'";
			pat++;
			next_char(&pat);
		} else if (*pat == '[') {
			pat++;
			if (*pat == '!' || *pat == '^')
				pat++;
			if (*pat == ']')
				pat++;
			while (*pat && *pat != ']') {
				if (*pat == '\\') {
					if (!pat[1])
						return "pattern ends with '\\'";
					pat++;
				}
				next_char(&pat);
			}
			if (!*pat)
				return "unterminated '[' in pattern";
			pat++;
		} else {
			next_char(&pat);
		}
	}
	return NULL;
}

static struct node *parse_or(struct parser *ps);

/* field OP value | field in [value, ...] | field ~ "glob" */
static struct node *parse_comparison(struct parser *ps)
{
	struct node *n = new_node(N_CMP);
	static const enum tok ops[] = { T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE };

	n->line = ps->tok.line;
	n->column = ps->tok.column;
	if (take_field(ps, &n->field, ", 'has', 'not' or '('") || next(ps))
		goto fail;
	n->known = known_field(n->field);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (ps->tok.kind != ops[i])
			continue;
		n->op = (enum op)i;
		if (next(ps) || take_value(ps, n, op_names[i]))
			goto fail;
		return n;
	}
	if (is_word(ps, "in")) {
		n->kind = N_IN;
		if (next(ps))
			goto fail;
		if (ps->tok.kind != T_LBRACK) {
			fail_found(ps, "expected '[' after 'in'");
			goto fail;
		}
		if (next(ps))
			goto fail;
		for (;;) {
			if (take_value(ps, n, n->nlits ? "," : "["))
				goto fail;
			if (ps->tok.kind == T_RBRACK)
				break;
			if (ps->tok.kind != T_COMMA) {
				fail_found(ps, "expected ',' or ']' in the list");
				goto fail;
			}
			if (next(ps))
				goto fail;
		}
		if (next(ps))
			goto fail;
		return n;
	}
	if (ps->tok.kind == T_TILDE) {
		const char *bad;
		unsigned line = ps->tok.line, column = ps->tok.column;

		n->kind = N_GLOB;
		if (n->known && (n->known->type == RM_FIELD_INT || n->known->type == RM_FIELD_SIZE)) {
			fail_at(ps, line, column, "expected a field of text before '~', '%s' holds %s",
				n->field, n->known->type == RM_FIELD_INT ? "integers" : "sizes");
			goto fail;
		}
		if (next(ps))
			goto fail;
		if (ps->tok.kind != T_STRING) {
			fail_found(ps, "expected a pattern in double quotes after '~'");
			goto fail;
		}
		if ((bad = glob_check(ps->tok.lit.s))) {
			fail_at(ps, ps->tok.line, ps->tok.column, "%s", bad);
			goto fail;
		}
		n->known = NULL; /* any string goes: the type check is done */
		if (take_value(ps, n, "~"))
			goto fail;
		n->known = known_field(n->field);
		return n;
	}
	fail_found(ps, "expected an operator (== != < <= > >= in ~) after '%s'", n->field);
fail:
	node_free(n);
	return NULL;
}

/* Enter a nesting level (a parenthesis or a "not"); -1 when too deep. */
static int enter(struct parser *ps)
{
	if (++ps->depth > RM_SELECTOR_MAX_DEPTH)
		return fail_at(ps, ps->tok.line, ps->tok.column,
			       "selector nested too deeply (more than %d levels of parentheses "
			       "and 'not')", RM_SELECTOR_MAX_DEPTH);
	return 0;
}

/* not unary | ( or ) | has(field) | comparison */
static struct node *parse_unary(struct parser *ps)
{
	struct node *n, *kid;

	if (is_word(ps, "not")) {
		if (enter(ps) || next(ps))
			return NULL;
		if (!(kid = parse_unary(ps)))
			return NULL;
		ps->depth--;
		n = new_node(N_NOT);
		add_kid(n, kid);
		return n;
	}
	if (ps->tok.kind == T_LPAREN) {
		unsigned line = ps->tok.line, column = ps->tok.column;

		if (enter(ps) || next(ps))
			return NULL;
		if (!(n = parse_or(ps)))
			return NULL;
		if (ps->tok.kind != T_RPAREN) {
			fail_found(ps, "expected ')' to close the '(' at line %u, column %u", line,
				   column);
			node_free(n);
			return NULL;
		}
		ps->depth--;
		if (next(ps)) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	if (is_word(ps, "has")) {
		n = new_node(N_HAS);
		if (next(ps))
			goto fail;
		if (ps->tok.kind != T_LPAREN) {
			fail_found(ps, "expected '(' after 'has'");
			goto fail;
		}
		if (next(ps))
			goto fail;
		n->line = ps->tok.line;
		n->column = ps->tok.column;
		if (take_field(ps, &n->field, " in 'has(...)'") || next(ps))
			goto fail;
		n->known = known_field(n->field);
		if (ps->tok.kind != T_RPAREN) {
			fail_found(ps, "expected ')' after 'has(%s'", n->field);
			goto fail;
		}
		if (next(ps))
			goto fail;
		return n;
fail:
		node_free(n);
		return NULL;
	}
	return parse_comparison(ps);
}

/* operand { WORD operand }: one node of KIND (N_AND for "and", N_OR for "or") over the
 * operands, or the operand alone */
static struct node *parse_chain(struct parser *ps, enum node_kind kind, const char *word,
				struct node *(*operand)(struct parser *ps))
{
	struct node *first, *n, *kid;

	if (!(first = operand(ps)))
		return NULL;
	if (!is_word(ps, word))
		return first;
	n = new_node(kind);
	add_flat(n, first);
	while (is_word(ps, word)) {
		if (next(ps) || !(kid = operand(ps))) {
			node_free(n);
			return NULL;
		}
		add_flat(n, kid);
	}
	return n;
}

/* unary { and unary } */
static struct node *parse_and(struct parser *ps)
{
	return parse_chain(ps, N_AND, "and", parse_unary);
}

/* and { or and } */
static struct node *parse_or(struct parser *ps)
{
	return parse_chain(ps, N_OR, "or", parse_and);
}

int rm_selector_parse(const char *text, struct rm_selector **sel, struct rm_selector_error *err)
{
	struct parser ps = { .text = text, .p = text, .line = 1, .bol = text, .err = err };
	struct node *root = NULL;

	memset(err, 0, sizeof(*err));
	*sel = NULL;
	if (next(&ps))
		goto fail;
	if (ps.tok.kind == T_END) {
		fail_at(&ps, ps.tok.line, ps.tok.column, "expected a selector, found nothing");
		goto fail;
	}
	if (!(root = parse_or(&ps)))
		goto fail;
	if (ps.tok.kind != T_END) {
		fail_found(&ps, "expected 'and', 'or' or the end of the selector");
		goto fail;
	}
	lit_clear(&ps.tok.lit);
	*sel = xcalloc(1, sizeof(**sel));
	(*sel)->root = root;
	return 0;
fail:
	lit_clear(&ps.tok.lit);
	node_free(root);
	return -1;
}

/* ---- matching ---- */

/* The value of FIELD, NULL when missing or unknown ("-"). */
static const char *value_of(const struct rm_record *rec, const char *field)
{
	const char *v = rm_record_get(rec, field);

	return v && strcmp(v, "-") ? v : NULL;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* Hex digits, with or without 0x, the whole of S. */
static bool parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!is_hexdigit(*s) || v >> 60)
			return false;
		v = v << 4 | (unsigned)hexval(*s);
	}
	*out = v;
	return true;
}

/* The leading numbers of S as a version: an optional 'v', digits and dots; a suffix that starts
 * with anything else ("GT/s", "-rc1") is left out. */
static bool parse_version(const char *s, unsigned *ver, unsigned *n)
{
	*n = 0;
	if (*s == 'v' || *s == 'V')
		s++;
	for (;;) {
		unsigned long long v = 0;

		if (!is_digit(*s) || *n == MAX_VERSION)
			return false;
		for (; is_digit(*s); s++)
			if ((v = v * 10 + (unsigned)(*s - '0')) > UINT32_MAX)
				return false;
		ver[(*n)++] = (unsigned)v;
		if (s[0] != '.' || !is_digit(s[1]))
			return true;
		s++;
	}
}

/* Compare the field value V with L as L's kind reads it (a hex id against an integer field of
 * device records: the field is decimal, the id a number); false when V is not of that kind. */
static bool compare(const char *v, const struct lit *l, const struct rm_selector_field *f, int *c)
{
	long long i;
	uint64_t u;
	unsigned ver[MAX_VERSION], n;

	if (l->kind == LIT_HEX && f && f->type == RM_FIELD_INT) {
		if (!parse_int(v, &i))
			return false;
		*c = i < 0 ? -1 : cmp_u64((uint64_t)i, l->u);
		return true;
	}
	switch (l->kind) {
	case LIT_STRING:
		i = strcmp(v, l->s);
		*c = (i > 0) - (i < 0);
		return true;
	case LIT_INT:
		if (parse_int(v, &i)) {
			*c = (i > l->i) - (i < l->i);
			return true;
		}
		if (rm_size_parse(v, &u, NULL) == 0) {
			*c = l->i < 0 ? 1 : cmp_u64(u, (uint64_t)l->i);
			return true;
		}
		return false;
	case LIT_HEX:
		if (!parse_hex(v, &u))
			return false;
		*c = cmp_u64(u, l->u);
		return true;
	case LIT_SIZE:
		if (rm_size_parse(v, &u, NULL))
			return false;
		*c = cmp_u64(u, l->u);
		return true;
	case LIT_VERSION:
		if (!parse_version(v, ver, &n))
			return false;
		*c = 0;
		for (unsigned k = 0; k < n || k < l->nver; k++) {
			unsigned a = k < n ? ver[k] : 0, b = k < l->nver ? l->ver[k] : 0;

			if (a != b) {
				*c = a > b ? 1 : -1;
				break;
			}
		}
		return true;
	}
	return false;
}

static bool apply(enum op op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	}
	return false;
}

/* One character of a pattern at *PAT ('?', a class or a literal) against the code point CP;
 * advances *PAT. */
static bool glob_one(const char **pat, long cp)
{
	const char *p = *pat;
	bool neg, hit = false;

	if (*p == '?') {
		*pat = p + 1;
		return true;
	}
	if (*p == '\\') {
		p++;
		hit = next_char(&p) == cp;
		*pat = p;
		return hit;
	}
	if (*p != '[') {
		hit = next_char(&p) == cp;
		*pat = p;
		return hit;
	}
	p++;
	neg = *p == '!' || *p == '^';
	p += neg;
	for (bool first = true; *p && (*p != ']' || first); first = false) {
		long lo, hi;

		if (*p == '\\')
			p++;
		lo = hi = next_char(&p);
		if (p[0] == '-' && p[1] && p[1] != ']') {
			p++;
			if (*p == '\\')
				p++;
			hi = next_char(&p);
		}
		hit |= cp >= lo && cp <= hi;
	}
	if (*p == ']')
		p++;
	*pat = p;
	return hit != neg;
}

/* Whether S matches the glob PAT, by characters (UTF-8); linear backtracking on the last '*'. */
static bool glob_match(const char *pat, const char *s)
{
	const char *star_pat = NULL, *star_s = NULL;

	while (*s) {
		const char *p = pat, *t = s;

		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			star_pat = pat;
			star_s = s;
			continue;
		}
		if (*pat && glob_one(&p, next_char(&t))) {
			pat = p;
			s = t;
			continue;
		}
		if (!star_pat)
			return false;
		pat = star_pat;
		next_char(&star_s);
		s = star_s;
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

static bool eval_leaf(const struct node *n, const char *v)
{
	int c;

	if (!v)
		return false;
	switch (n->kind) {
	case N_HAS:
		return true;
	case N_CMP:
		return compare(v, &n->lits[0], n->known, &c) && apply(n->op, c);
	case N_IN:
		for (size_t i = 0; i < n->nlits; i++)
			if (compare(v, &n->lits[i], n->known, &c) && c == 0)
				return true;
		return false;
	case N_GLOB:
		return glob_match(n->lits[0].s, v);
	default:
		return false;
	}
}

static bool eval(const struct node *n, const struct rm_record *rec)
{
	switch (n->kind) {
	case N_AND:
		for (size_t i = 0; i < n->nkids; i++)
			if (!eval(n->kids[i], rec))
				return false;
		return true;
	case N_OR:
		for (size_t i = 0; i < n->nkids; i++)
			if (eval(n->kids[i], rec))
				return true;
		return false;
	case N_NOT:
		return !eval(n->kids[0], rec);
	default:
		return eval_leaf(n, value_of(rec, n->field));
	}
}

bool rm_selector_match(const struct rm_selector *sel, const struct rm_record *rec)
{
	return eval(sel->root, rec);
}

/* ---- canonical form ---- */

/* A string literal: double-quoted, \" \\ \n \t, \xHH for other control bytes and bytes that
 * are not UTF-8; valid UTF-8 is kept. */
static void quote_string(struct buf *b, const char *s)
{
	buf_add(b, "\"", 1);
	while (*s) {
		unsigned char c = *s;
		size_t len;

		if (c == '"' || c == '\\') {
			buf_add(b, "\\", 1);
			buf_add(b, s, 1);
		} else if (c == '\n') {
			buf_puts(b, "\\n");
		} else if (c == '\t') {
			buf_puts(b, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			buf_printf(b, "\\x%02x", c);
		} else if (c >= 0x80) {
			if (utf8_decode((const unsigned char *)s, &len) < 0) {
				buf_printf(b, "\\x%02x", c);
			} else {
				buf_add(b, s, len);
				s += len;
				continue;
			}
		} else {
			buf_add(b, s, 1);
		}
		s++;
	}
	buf_add(b, "\"", 1);
}

static void format_lit(struct buf *b, const struct lit *l)
{
	char *s;

	switch (l->kind) {
	case LIT_STRING:
		quote_string(b, l->s);
		break;
	case LIT_INT:
		buf_printf(b, "%lld", l->i);
		break;
	case LIT_HEX:
		buf_printf(b, "0x%s", l->s);
		break;
	case LIT_SIZE:
		s = rm_size_format(l->u);
		buf_puts(b, s);
		free(s);
		break;
	case LIT_VERSION:
		for (unsigned i = 0; i < l->nver; i++)
			buf_printf(b, "%s%u", i ? "." : "", l->ver[i]);
		break;
	}
}

static void format_node(struct buf *b, const struct node *n)
{
	switch (n->kind) {
	case N_AND:
	case N_OR:
		for (size_t i = 0; i < n->nkids; i++) {
			bool paren = n->kind == N_AND && n->kids[i]->kind == N_OR;

			if (i)
				buf_puts(b, n->kind == N_AND ? " and " : " or ");
			if (paren)
				buf_add(b, "(", 1);
			format_node(b, n->kids[i]);
			if (paren)
				buf_add(b, ")", 1);
		}
		break;
	case N_NOT: {
		bool paren = n->kids[0]->kind != N_HAS && n->kids[0]->kind != N_NOT;

		buf_puts(b, paren ? "not (" : "not ");
		format_node(b, n->kids[0]);
		if (paren)
			buf_add(b, ")", 1);
		break;
	}
	case N_HAS:
		buf_printf(b, "has(%s)", n->field);
		break;
	case N_CMP:
		buf_printf(b, "%s %s ", n->field, op_names[n->op]);
		format_lit(b, &n->lits[0]);
		break;
	case N_IN:
		buf_printf(b, "%s in [", n->field);
		for (size_t i = 0; i < n->nlits; i++) {
			if (i)
				buf_puts(b, ", ");
			format_lit(b, &n->lits[i]);
		}
		buf_add(b, "]", 1);
		break;
	case N_GLOB:
		buf_printf(b, "%s ~ ", n->field);
		format_lit(b, &n->lits[0]);
		break;
	}
}

static char *node_text(const struct node *n)
{
	struct buf b = { 0 };

	format_node(&b, n);
	return buf_take(&b);
}

char *rm_selector_format(const struct rm_selector *sel)
{
	return node_text(sel->root);
}

/* ---- explanations ---- */

struct explain {
	const struct rm_record *rec;
	void (*fn)(const struct rm_selector_clause *clause, void *arg);
	void *arg;
};

/* Report the clauses below N in order; DECIDES: the outcome of the whole rests on N's. */
static void explain_node(const struct explain *x, const struct node *n, bool decides)
{
	bool r;

	switch (n->kind) {
	case N_AND:
	case N_OR:
		/* A failed "and" rests on its failed clauses, a passed "or" on its passed ones;
		 * otherwise on all of them. */
		r = eval(n, x->rec);
		for (size_t i = 0; i < n->nkids; i++) {
			bool kid = eval(n->kids[i], x->rec);
			bool own = (n->kind == N_AND && !r) || (n->kind == N_OR && r) ? kid == r : true;

			explain_node(x, n->kids[i], decides && own);
		}
		break;
	case N_NOT:
		explain_node(x, n->kids[0], decides);
		break;
	default: {
		struct rm_selector_clause c;
		char *text = node_text(n);

		c.text = text;
		c.field = n->field;
		c.value = rm_record_get(x->rec, n->field);
		c.result = eval(n, x->rec);
		c.decides = decides;
		x->fn(&c, x->arg);
		free(text);
	}
	}
}

bool rm_selector_explain(const struct rm_selector *sel, const struct rm_record *rec,
			 void (*fn)(const struct rm_selector_clause *clause, void *arg), void *arg)
{
	struct explain x = { rec, fn, arg };

	explain_node(&x, sel->root, true);
	return eval(sel->root, rec);
}

/* ---- fields the selector reads ---- */

struct seen {
	const char **names;
	size_t n;
};

static void each_field(const struct node *n, struct seen *s,
		       void (*fn)(const char *, unsigned, unsigned, bool, void *), void *arg)
{
	for (size_t i = 0; i < n->nkids; i++)
		each_field(n->kids[i], s, fn, arg);
	if (!n->field)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], n->field))
			return;
	s->names = xrealloc(s->names, (s->n + 1) * sizeof(*s->names));
	s->names[s->n++] = n->field;
	fn(n->field, n->line, n->column, known_field(n->field) != NULL, arg);
}

void rm_selector_each_field(const struct rm_selector *sel,
			    void (*fn)(const char *field, unsigned line, unsigned column, bool known,
				       void *arg),
			    void *arg)
{
	struct seen s = { 0 };

	each_field(sel->root, &s, fn, arg);
	free(s.names);
}

struct uses {
	const char *field;
	bool found;
};

static void note_use(const char *field, unsigned line, unsigned column, bool known, void *arg)
{
	struct uses *u = arg;

	(void)line;
	(void)column;
	(void)known;
	u->found |= !strcmp(field, u->field);
}

bool rm_selector_uses(const struct rm_selector *sel, const char *field)
{
	struct uses u = { field, false };

	if (sel)
		rm_selector_each_field(sel, note_use, &u);
	return u.found;
}

/* ---- other forms: CEL and SR-IOV device plugin selectors ---- */

static const char cel_form[] = "CEL form";
static const char sriov_form[] = "SR-IOV device plugin selector";

/* The clause N has no FORM: *ERRMSG is "'N' has no FORM: why". Returns -1. */
__attribute__((format(printf, 4, 5)))
static int no_form(char **errmsg, const struct node *n, const char *form, const char *fmt, ...)
{
	va_list ap;
	char *why, *text = node_text(n);

	va_start(ap, fmt);
	why = vxasprintf(fmt, ap);
	va_end(ap);
	*errmsg = xasprintf("'%s' has no %s: %s", text, form, why);
	free(why);
	free(text);
	return -1;
}

/* S (UTF-8) as a string literal of CEL (CEL true) or JSON, '"' and '\' escaped; -1 when S is
 * not UTF-8. CEL's is ASCII: \xHH for control characters, \u and \U escapes beyond ASCII; JSON's
 * has \u00HH for control characters and the rest as it is. */
static int quote_utf8(struct buf *b, const char *s, bool cel)
{
	buf_add(b, "\"", 1);
	while (*s) {
		size_t len;
		long cp = utf8_decode((const unsigned char *)s, &len);

		if (cp < 0)
			return -1;
		if (cp == '"' || cp == '\\')
			buf_printf(b, "\\%c", (char)cp);
		else if (cp < 0x20 || (cel && cp == 0x7f))
			buf_printf(b, cel ? "\\x%02lx" : "\\u%04lx", cp);
		else if (!cel || cp < 0x80)
			buf_add(b, s, len);
		else
			buf_printf(b, cp <= 0xffff ? "\\u%04lx" : "\\U%08lx", cp);
		s += len;
	}
	buf_add(b, "\"", 1);
	return 0;
}

/* ---- CEL ---- */

/* A Kubernetes quantity of BYTES: binary suffixes where they state it exactly. */
static void quantity(struct buf *b, uint64_t bytes)
{
	static const char *const suffix[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	int i = 0;

	while (bytes && i < 6 && !(bytes & ((UINT64_C(1) << (10 * (i + 1))) - 1)))
		i++;
	if (!i)
		buf_printf(b, "%" PRIu64, bytes);
	else
		buf_printf(b, "%" PRIu64 "%s", bytes >> (10 * i), suffix[i - 1]);
}

/* One character of a glob's class at *PAT ('\' quoting it) into an RE2 class; advances *PAT. */
static void class_char(struct buf *b, const char **pat)
{
	const char *start;

	if (**pat == '\\')
		++*pat;
	start = *pat;
	next_char(pat);
	if (*pat - start == 1 && strchr("\\]^-[", *start))
		buf_add(b, "\\", 1);
	buf_add(b, start, *pat - start);
}

/* An RE2 regular expression for the glob PAT, whole-string, '.' matching newlines too. */
static char *glob_regex(const char *pat)
{
	struct buf b = { 0 };

	buf_puts(&b, "(?s)^");
	while (*pat) {
		const char *start;

		if (*pat == '*') {
			buf_puts(&b, ".*");
			pat++;
		} else if (*pat == '?') {
			buf_add(&b, ".", 1);
			pat++;
		} else if (*pat == '[') {
			bool first = true;

			pat++;
			buf_add(&b, "[", 1);
			if (*pat == '!' || *pat == '^') {
				buf_add(&b, "^", 1);
				pat++;
			}
			/* items as glob_one reads them: a character or a range, '\' quoting */
			for (; *pat && (*pat != ']' || first); first = false) {
				class_char(&b, &pat);
				if (pat[0] == '-' && pat[1] && pat[1] != ']') {
					buf_add(&b, "-", 1);
					pat++;
					class_char(&b, &pat);
				}
			}
			buf_add(&b, "]", 1);
			if (*pat == ']')
				pat++;
		} else {
			if (*pat == '\\')
				pat++;
			start = pat;
			next_char(&pat);
			if (pat - start == 1 && strchr("\\.+*?()|[]{}^$", *start))
				buf_add(&b, "\\", 1);
			buf_add(&b, start, pat - start);
		}
	}
	buf_add(&b, "$", 1);
	return buf_take(&b);
}

struct cel {
	const char *domain;
	struct buf b;
	char *errmsg;
};


/* device.attributes["D"].f, or device.capacity["D"].f for sizes */
static void cel_access(struct cel *x, const struct node *n)
{
	buf_puts(&x->b, n->known && n->known->type == RM_FIELD_SIZE ? "device.capacity["
								   : "device.attributes[");
	quote_utf8(&x->b, x->domain, true);
	buf_printf(&x->b, "].%s", n->field);
}

/* The literal L for the attribute of N: ints for integer fields, fixed-width hex strings for
 * hex ids, strings. */
static int cel_value(struct cel *x, const struct node *n, const struct lit *l)
{
	switch (l->kind) {
	case LIT_STRING:
		if (quote_utf8(&x->b, l->s, true))
			return no_form(&x->errmsg, n, cel_form, "a string that is not UTF-8");
		return 0;
	case LIT_INT:
		buf_printf(&x->b, "%lld", l->i);
		return 0;
	case LIT_HEX:
		if (n->known->type == RM_FIELD_HEX) {
			buf_printf(&x->b, "\"%0*" PRIx64 "\"", n->known->width, l->u);
			return 0;
		}
		if (l->u > INT64_MAX)
			return no_form(&x->errmsg, n, cel_form,
				       "0x%s is out of range for a CEL int", l->s);
		buf_printf(&x->b, "%" PRIu64, l->u);
		return 0;
	default:
		return no_form(&x->errmsg, n, cel_form, "unexpected value");
	}
}

/* compareTo(quantity("Q")) for a size field, from a size or a count of bytes */
static void cel_compare_to(struct cel *x, const struct node *n, const struct lit *l)
{
	cel_access(x, n);
	buf_puts(&x->b, ".compareTo(quantity(\"");
	if (l->kind == LIT_INT && l->i < 0)
		buf_printf(&x->b, "%lld", l->i);
	else
		quantity(&x->b, l->kind == LIT_INT ? (uint64_t)l->i : l->u);
	buf_puts(&x->b, "\"))");
}

static int cel_node(struct cel *x, const struct node *n, bool paren)
{
	const char *sep;
	char *re;
	int rc;

	if (n->field && !n->known)
		return no_form(&x->errmsg, n, cel_form, "'%s' is not a field of device records",
			       n->field);
	switch (n->kind) {
	case N_AND:
	case N_OR:
		sep = n->kind == N_AND ? " && " : " || ";
		if (paren)
			buf_add(&x->b, "(", 1);
		for (size_t i = 0; i < n->nkids; i++) {
			if (i)
				buf_puts(&x->b, sep);
			if (cel_node(x, n->kids[i], n->kind == N_AND && n->kids[i]->kind == N_OR))
				return -1;
		}
		if (paren)
			buf_add(&x->b, ")", 1);
		return 0;
	case N_NOT:
		buf_add(&x->b, "!", 1);
		return cel_node(x, n->kids[0], n->kids[0]->kind != N_HAS);
	case N_HAS:
		buf_puts(&x->b, "has(");
		cel_access(x, n);
		buf_add(&x->b, ")", 1);
		return 0;
	default:
		break;
	}
	/* A comparison: false where the device lacks the field, as rm-class matches. */
	for (size_t i = 0; i < n->nlits; i++)
		if (n->lits[i].kind == LIT_VERSION)
			return no_form(&x->errmsg, n, cel_form,
				       "versions compare only with version attributes");
	if (paren)
		buf_add(&x->b, "(", 1);
	buf_puts(&x->b, "has(");
	cel_access(x, n);
	buf_puts(&x->b, ") && ");
	switch (n->kind) {
	case N_CMP:
		if (n->known->type == RM_FIELD_SIZE) {
			cel_compare_to(x, n, &n->lits[0]);
			buf_printf(&x->b, " %s 0", op_names[n->op]);
			break;
		}
		cel_access(x, n);
		buf_printf(&x->b, " %s ", op_names[n->op]);
		if (cel_value(x, n, &n->lits[0]))
			return -1;
		break;
	case N_IN:
		if (n->known->type == RM_FIELD_SIZE) {
			buf_add(&x->b, "(", 1);
			for (size_t i = 0; i < n->nlits; i++) {
				if (i)
					buf_puts(&x->b, " || ");
				cel_compare_to(x, n, &n->lits[i]);
				buf_puts(&x->b, " == 0");
			}
			buf_add(&x->b, ")", 1);
			break;
		}
		cel_access(x, n);
		buf_puts(&x->b, " in [");
		for (size_t i = 0; i < n->nlits; i++) {
			if (i)
				buf_puts(&x->b, ", ");
			if (cel_value(x, n, &n->lits[i]))
				return -1;
		}
		buf_add(&x->b, "]", 1);
		break;
	case N_GLOB:
		cel_access(x, n);
		buf_puts(&x->b, ".matches(");
		re = glob_regex(n->lits[0].s);
		rc = quote_utf8(&x->b, re, true);
		free(re);
		if (rc)
			return no_form(&x->errmsg, n, cel_form, "a pattern that is not UTF-8");
		buf_add(&x->b, ")", 1);
		break;
	default:
		break;
	}
	if (paren)
		buf_add(&x->b, ")", 1);
	return 0;
}

int rm_selector_cel(const struct rm_selector *sel, const char *domain, char **cel, char **errmsg)
{
	struct cel x = { domain, { 0 }, NULL };

	if (cel_node(&x, sel->root, false)) {
		free(x.b.s);
		*errmsg = x.errmsg;
		return -1;
	}
	*cel = buf_take(&x.b);
	return 0;
}

/* ---- SR-IOV network device plugin selectors ---- */

/* The selector keys, in the order they are printed. */
enum { SK_VENDORS, SK_DEVICES, SK_DRIVERS, SK_PCI, SK_ROOT, SK_LINK, SK_RDMA, SK_COUNT };
static const char *const sk_names[] = {
	"vendors", "devices", "drivers", "pciAddresses", "rootDevices", "linkTypes", "isRdma",
};


/* The plugin's value for literal L of the clause N on key KEY, into B; -1 with *ERRMSG. */
static int sriov_value(struct buf *b, int key, const struct node *n, const struct lit *l,
		       char **errmsg)
{
	static const char *const types[][2] = {
		{ "nic", "ether" }, { "ib", "infiniband" },
		{ "ethernet", "ether" }, { "infiniband", "infiniband" },
	};

	if (l->kind == LIT_HEX) {
		buf_printf(b, "\"%04" PRIx64 "\"", l->u);
		return 0;
	}
	if (l->kind != LIT_STRING)
		return no_form(errmsg, n, sriov_form, "it takes strings");
	if (key == SK_LINK) {
		for (size_t i = 0; i < 4; i++)
			if (!strcmp(l->s, types[i][0]) &&
			    (i < 2) == !strcmp(n->field, "type")) {
				buf_printf(b, "\"%s\"", types[i][1]);
				return 0;
			}
		return no_form(errmsg, n, sriov_form, "%s",
			       strcmp(n->field, "type")
				       ? "its link types are ethernet and infiniband"
				       : "it selects network devices (type nic or ib)");
	}
	if (quote_utf8(b, l->s, false))
		return no_form(errmsg, n, sriov_form, "a string that is not UTF-8");
	return 0;
}

/* One term (an "and" of clauses, or one clause) as a selector object. */
static int sriov_term(struct buf *out, const struct node *term, int indent, char **errmsg)
{
	static const struct { const char *field; int key; } keys[] = {
		{ "vendor", SK_VENDORS }, { "product", SK_DEVICES }, { "driver", SK_DRIVERS },
		{ "device", SK_PCI }, { "pf", SK_ROOT }, { "type", SK_LINK },
		{ "link_layer", SK_LINK },
	};
	struct node *const *kids = term->kind == N_AND ? term->kids : (struct node *const *)&term;
	size_t nkids = term->kind == N_AND ? term->nkids : 1;
	struct buf val[SK_COUNT] = { { 0 } };
	const struct node *by[SK_COUNT] = { 0 };
	bool any = false;
	int rc = -1;

	for (size_t i = 0; i < nkids; i++) {
		const struct node *n = kids[i];
		int key = -1;

		if (n->kind == N_HAS && !strcmp(n->field, "rdma")) {
			key = SK_RDMA;
		} else if (n->kind == N_CMP || n->kind == N_IN || n->kind == N_HAS) {
			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (!strcmp(n->field, keys[k].field))
					key = keys[k].key;
			if (key < 0 || n->kind == N_HAS) {
				no_form(errmsg, n, sriov_form, "it selects on vendor, product, "
					"driver, device, pf, type, link_layer and has(rdma)");
				goto out;
			}
			if (n->kind == N_CMP && n->op != OP_EQ) {
				no_form(errmsg, n, sriov_form,
					"it selects by equality and 'in' lists");
				goto out;
			}
		} else if (n->kind == N_GLOB) {
			no_form(errmsg, n, sriov_form, "it has no patterns");
			goto out;
		} else {
			no_form(errmsg, n, sriov_form, "it takes an 'or' of 'and's of equalities");
			goto out;
		}
		if (by[key]) {
			char *a = node_text(by[key]);

			no_form(errmsg, n, sriov_form, "'%s' selects on %s already", a,
				sk_names[key]);
			free(a);
			goto out;
		}
		by[key] = n;
		if (key == SK_RDMA) {
			buf_puts(&val[key], "true");
			continue;
		}
		buf_add(&val[key], "[", 1);
		for (size_t l = 0; l < n->nlits; l++) {
			if (l)
				buf_puts(&val[key], ", ");
			if (sriov_value(&val[key], key, n, &n->lits[l], errmsg))
				goto out;
		}
		buf_add(&val[key], "]", 1);
	}
	buf_add(out, "{", 1);
	for (int k = 0; k < SK_COUNT; k++) {
		if (!by[k])
			continue;
		buf_printf(out, "%s\n%*s\"%s\": %s", any ? "," : "", indent + 2, "", sk_names[k],
			   val[k].s);
		any = true;
	}
	buf_printf(out, "\n%*s}", indent, "");
	rc = 0;
out:
	for (int k = 0; k < SK_COUNT; k++)
		free(val[k].s);
	return rc;
}

int rm_selector_sriovdp(const struct rm_selector *sel, int indent, char **json, char **errmsg)
{
	const struct node *root = sel->root;
	struct node *const *terms = root->kind == N_OR ? root->kids : (struct node *const *)&root;
	size_t nterms = root->kind == N_OR ? root->nkids : 1;
	struct buf b = { 0 };

	buf_add(&b, "[", 1);
	for (size_t i = 0; i < nterms; i++) {
		buf_printf(&b, "%s\n%*s", i ? "," : "", indent + 2, "");
		if (sriov_term(&b, terms[i], indent + 2, errmsg)) {
			free(b.s);
			return -1;
		}
	}
	buf_printf(&b, "\n%*s]", indent, "");
	*json = buf_take(&b);
	return 0;
}
