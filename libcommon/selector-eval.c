/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selector evaluation: matching, explanations, and printing in canonical, CEL and SR-IOV device
 * plugin form. */
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
		if (l->metric) /* a measurement such as 0.52: compared as a decimal */
			return compare(v, &(struct lit){ .kind = LIT_DECIMAL, .d = (double)l->i },
				       NULL, c);
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
	case LIT_DECIMAL: {
		char *e;
		double d;

		errno = 0;
		d = strtod(v, &e);
		if (e == v || errno || (*e && strcmp(e, "%")) || d != d)
			return false;
		*c = (d > l->d) - (d < l->d);
		return true;
	}
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
	case LIT_DECIMAL:
		buf_puts(b, l->src);
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
	char *q = rm_size_quantity(bytes);

	buf_puts(b, q);
	free(q);
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


/* device.attributes["D"].f, or device.capacity["D"].f for sizes; the PCI address and the NUMA
 * node as the standard attributes every DRA driver may publish (resource.kubernetes.io). */
static void cel_access(struct cel *x, const struct node *n)
{
	if (!strcmp(n->field, "device") || !strcmp(n->field, "numa")) {
		buf_printf(&x->b, "device.attributes[\"resource.kubernetes.io\"].%s",
			   !strcmp(n->field, "device") ? "pciBusID" : "numaNode");
		return;
	}
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
