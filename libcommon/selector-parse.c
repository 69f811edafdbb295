/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selector expressions over record fields: the field table, a hand-written lexer and
 * recursive-descent parser (evaluation and printing are in selector-eval.c). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "selector-internal.h"
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
	unsigned flags;          /* RM_SELECTOR_* */
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
	if ((ps->flags & RM_SELECTOR_METRICS) && !alpha && *p == '%')
		p++;
	text = dupn(start, p - start);
	ps->p = p;
	t->end = p;
	t->lit.src = text;
	if ((ps->flags & RM_SELECTOR_METRICS) && !alpha && (dot || p[-1] == '%')) {
		char *e;

		t->lit.kind = LIT_DECIMAL;
		t->lit.percent = p[-1] == '%';
		errno = 0;
		t->lit.d = strtod(text, &e);
		if (e != text + strlen(text) - t->lit.percent || errno || !is_digit(e[-1]))
			return fail_at(ps, t->line, t->column, "invalid number '%s'", text);
		return 0;
	}
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
	t->lit.metric = ps->flags & RM_SELECTOR_METRICS;
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
			while (is_alpha(*ps->p) || is_digit(*ps->p) ||
			       ((ps->flags & RM_SELECTOR_METRICS) && ps->p[0] == '.' &&
				is_alpha(ps->p[1])))
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

/* A record key, or with RM_SELECTOR_METRICS keys joined by dots (cpu.pressure.some). */
static bool valid_field(const struct parser *ps, const char *name)
{
	char *copy, *part, *save = NULL;
	bool ok = true;

	if (!(ps->flags & RM_SELECTOR_METRICS))
		return rm_record_valid_key(name);
	if (!*name || name[strlen(name) - 1] == '.')
		return false;
	copy = xstrdup(name);
	for (part = strtok_r(copy, ".", &save); part && ok; part = strtok_r(NULL, ".", &save))
		ok = rm_record_valid_key(part);
	free(copy);
	return ok && !strstr(name, "..");
}

/* The device field NAME, or NULL when unknown or the fields are measurements. */
static const struct rm_selector_field *field_known(const struct parser *ps, const char *name)
{
	return ps->flags & RM_SELECTOR_METRICS ? NULL : known_field(name);
}

/* A field name at the current token into *FIELD (allocated); -1 with an error saying CONTEXT. */
static int take_field(struct parser *ps, char **field, const char *context)
{
	char *name;

	if (ps->tok.kind != T_IDENT || is_keyword(ps))
		return fail_found(ps, "expected a field name%s", context);
	name = dupn(ps->tok.start, ps->tok.end - ps->tok.start);
	if (!valid_field(ps, name)) {
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
	n->known = field_known(ps, n->field);
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
		n->known = field_known(ps, n->field);
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
		n->known = field_known(ps, n->field);
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
	return rm_selector_parse_flags(text, 0, sel, err);
}

int rm_selector_parse_flags(const char *text, unsigned flags, struct rm_selector **sel,
			    struct rm_selector_error *err)
{
	struct parser ps = { .text = text, .p = text, .line = 1, .bol = text, .err = err,
			     .flags = flags };
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
