/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of libcommon/selector-*.c: a filter driven by tests/rm-class/selector.bats, plus a
 * table of cases checked in C (selftest). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "classes.h"
#include "record.h"
#include "selector.h"
#include "xalloc.h"

#include "check.h"

static int usage(void)
{
	fputs("usage: test-selector parse EXPR | match EXPR (records on stdin) | cel EXPR [DOMAIN]"
	      " | sriovdp EXPR | class CLASS (records on stdin) | fields | selftest\n", stderr);
	return RM_EXIT_USAGE;
}

static struct rm_selector *parse_or_exit(const char *text)
{
	struct rm_selector_error e;
	struct rm_selector *sel;

	if (rm_selector_parse(text, &sel, &e)) {
		fprintf(stderr, "line %u, column %u: %s\n", e.line, e.column, e.what);
		rm_selector_error_free(&e);
		exit(RM_EXIT_USAGE);
	}
	return sel;
}

/* The first field's value of each record on stdin that SEL matches, one a line. */
static int match(struct rm_selector *sel)
{
	struct rm_record rec;
	unsigned lineno = 0;
	char *msg;
	int rc;

	while ((rc = rm_record_read(stdin, &lineno, &rec, &msg)) > 0) {
		if (rm_selector_match(sel, &rec))
			puts(rec.fields[0].value);
		rm_record_free(&rec);
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", msg);
		free(msg);
		return RM_EXIT_USAGE;
	}
	return 0;
}

/* rm_class_match, as rm-devices alloc --class calls it: CLASS checked first (a NULL record),
 * then the first field's value of each record on stdin in the class. */
static int class_match(const char *cls)
{
	struct rm_record rec;
	unsigned lineno = 0;
	char *msg;
	int rc;

	if (rm_class_match(cls, NULL, &msg) < 0) {
		fprintf(stderr, "%s\n", msg);
		free(msg);
		rm_classes_release();
		return RM_EXIT_USAGE;
	}
	while ((rc = rm_record_read(stdin, &lineno, &rec, &msg)) > 0) {
		int r = rm_class_match(cls, &rec, &msg);

		if (r < 0) {
			fprintf(stderr, "%s\n", msg);
			free(msg);
		} else if (r) {
			puts(rec.fields[0].value);
		}
		rm_record_free(&rec);
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", msg);
		free(msg);
	}
	rm_classes_release();
	return rc < 0 ? RM_EXIT_USAGE : 0;
}

/* ---- selftest ---- */

/* Whether EXPR matches the record LINE. */
static int matches(const char *expr, const char *line)
{
	struct rm_selector_error e;
	struct rm_selector *sel;
	struct rm_record rec;
	char *msg = NULL;
	int r;

	if (rm_selector_parse(expr, &sel, &e)) {
		fprintf(stderr, "cannot parse '%s': %s\n", expr, e.what);
		rm_selector_error_free(&e);
		return -1;
	}
	if (rm_record_parse_line(line, 1, &rec, &msg)) {
		fprintf(stderr, "bad record '%s': %s\n", line, msg);
		free(msg);
		rm_selector_free(sel);
		return -1;
	}
	r = rm_selector_match(sel, &rec);
	rm_record_free(&rec);
	rm_selector_free(sel);
	return r;
}

/* The canonical form of EXPR, and that it is a fixed point; NULL when it does not parse. */
static char *canonical(const char *expr)
{
	struct rm_selector_error e;
	struct rm_selector *sel, *again;
	char *s, *t;

	if (rm_selector_parse(expr, &sel, &e)) {
		rm_selector_error_free(&e);
		return NULL;
	}
	s = rm_selector_format(sel);
	rm_selector_free(sel);
	if (rm_selector_parse(s, &again, &e)) {
		CHECK(0, "canonical form '%s' of '%s' does not parse: %s", s, expr, e.what);
		rm_selector_error_free(&e);
		return s;
	}
	t = rm_selector_format(again);
	CHECK(!strcmp(s, t), "canonical form is not stable: '%s' then '%s'", s, t);
	free(t);
	rm_selector_free(again);
	return s;
}

static void selftest_glob(void)
{
	static const struct { const char *pat, *value; int want; } cases[] = {
		{ "A100*", "A100-SXM4-40GB", 1 },
		{ "A100*", "a100", 0 },
		{ "*", "", 1 },
		{ "?", "", 0 },
		{ "?", "\xc3\xa9", 1 },        /* one character, two bytes */
		{ "??", "\xc3\xa9", 0 },
		{ "[a-c]x", "bx", 1 },
		{ "[!a-c]x", "bx", 0 },
		{ "[^a-c]x", "dx", 1 },
		{ "[]]", "]", 1 },
		{ "[\xc3\xa0-\xc3\xbf]", "\xc3\xa9", 1 }, /* a range of code points */
		{ "\\*", "*", 1 },
		{ "\\*", "x", 0 },
		{ "*a*b*", "xxaxxbxx", 1 },
		{ "*a*b", "xxaxxbxxa", 0 },
		{ "*.0", "0000:3b:00.0", 1 },
		{ "0000:3b:0?.*", "0000:3b:01.7", 1 },
	};
	char line[8192];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *expr, *q = rm_record_quote(cases[i].value);
		struct rm_selector_error e;
		struct rm_selector *sel;
		char *pat = xstrdup("");

		/* the pattern as a string literal: backslashes and quotes escaped */
		for (const char *p = cases[i].pat; *p; p++) {
			char *t = xasprintf("%s%s%c", pat, *p == '\\' || *p == '"' ? "\\" : "", *p);

			free(pat);
			pat = t;
		}
		expr = xasprintf("v ~ \"%s\"", pat);
		snprintf(line, sizeof(line), "k=1 v=%s", q);
		if (!*cases[i].value) {
			/* an empty value: has(v) is true, the glob decides */
			snprintf(line, sizeof(line), "k=1 v=\"\"");
		}
		CHECK(matches(expr, line) == cases[i].want, "glob '%s' on '%s': expected %d",
		      cases[i].pat, cases[i].value, cases[i].want);
		CHECK(rm_selector_parse(expr, &sel, &e) == 0, "glob '%s' does not parse", expr);
		rm_selector_free(sel);
		free(expr);
		free(pat);
		free(q);
	}
	/* backtracking stays linear: a long value against many stars */
	{
		char *v = xmalloc(20001);

		memset(v, 'a', 20000);
		v[20000] = '\0';
		snprintf(line, sizeof(line), "k=1 v=%.4000s", v);
		CHECK(matches("v ~ \"*a*a*a*a*a*a*a*a*a*b\"", line) == 0, "many stars");
		free(v);
	}
}

static void selftest_compare(void)
{
	static const struct { const char *expr, *line; int want; } cases[] = {
		/* strings: exact, bytewise order */
		{ "t == \"gpu\"", "k=1 t=gpu", 1 },
		{ "t == \"GPU\"", "k=1 t=gpu", 0 },
		{ "t < \"h\"", "k=1 t=gpu", 1 },
		{ "t != \"nic\"", "k=1 t=gpu", 1 },
		/* missing and unknown fields: every comparison is false, "not" is true */
		{ "t != \"nic\"", "k=1", 0 },
		{ "t != \"nic\"", "k=1 t=-", 0 },
		{ "not t == \"nic\"", "k=1 t=-", 1 },
		{ "has(t)", "k=1 t=-", 0 },
		{ "has(t)", "k=1 t=\"\"", 1 },
		/* integers; a field written as a size compares in bytes */
		{ "n == 0", "k=1 n=0", 1 },
		{ "n > -1", "k=1 n=0", 1 },
		{ "n >= 1024", "k=1 n=1KiB", 1 },
		{ "n == 1", "k=1 n=01", 1 },
		{ "n == 1", "k=1 n=one", 0 },
		{ "n == 9223372036854775807", "k=1 n=9223372036854775807", 1 },
		{ "n < 0", "k=1 n=99999999999999999999", 0 },
		/* hex ids: the field's digits are hex, with or without 0x */
		{ "v == 0x10de", "k=1 v=10de", 1 },
		{ "v == 0x10DE", "k=1 v=10DE", 1 },
		{ "v == 0x00010de", "k=1 v=0x10de", 1 },
		{ "v < 0x1000", "k=1 v=0fff", 1 },
		{ "v == 0x10de", "k=1 v=10dg", 0 },
		/* ... but an integer field of device records stays decimal */
		{ "numa == 0x10", "k=1 numa=16", 1 },
		{ "numa == 0x10", "k=1 numa=10", 0 },
		{ "iommu_group in [0x46, 1]", "k=1 iommu_group=70", 1 },
		/* sizes: both sides in bytes */
		{ "m >= 16GiB", "k=1 m=16GiB", 1 },
		{ "m >= 16GiB", "k=1 m=16G", 1 },
		{ "m >= 16GiB", "k=1 m=17179869183", 0 },
		{ "m == 1024MiB", "k=1 m=1GiB", 1 },
		{ "m > 1KiB", "k=1 m=big", 0 },
		/* versions: component-wise, missing components are 0, a suffix is left out */
		{ "s >= 16.0", "k=1 s=16.0GT/s", 1 },
		{ "s > 8.0", "k=1 s=16.0GT/s", 1 },
		{ "s == 1.2", "k=1 s=1.2.0", 1 },
		{ "s < 1.10", "k=1 s=1.9", 1 },
		{ "s >= 5.15", "k=1 s=v5.15.0-91-generic", 1 },
		{ "s > 5.15", "k=1 s=v5.15.0-91-generic", 0 },
		{ "s == 1.0", "k=1 s=x1.0", 0 },
		/* in, precedence, parentheses */
		{ "n in [0, 1]", "k=1 n=1", 1 },
		{ "n in [0, 1]", "k=1 n=2", 0 },
		{ "t in [\"nic\", \"ib\"]", "k=1 t=ib", 1 },
		{ "a == 1 or a == 2 and b == 3", "k=1 a=1 b=0", 1 },
		{ "(a == 1 or a == 2) and b == 3", "k=1 a=1 b=0", 0 },
		{ "not a == 1 and b == 3", "k=1 a=2 b=3", 1 },
		{ "not (a == 1 and b == 3)", "k=1 a=1 b=0", 1 },
		/* quotes, escapes and UTF-8 in strings */
		{ "p == \"say \\\"hi\\\"\"", "k=1 p=\"say \\\"hi\\\"\"", 1 },
		{ "p == \"caf\xc3\xa9\"", "k=1 p=\"caf\\xc3\\xa9\"", 1 },
		{ "p == \"caf\\xc3\\xa9\"", "k=1 p=\"caf\xc3\xa9\"", 1 },
		{ "p ~ \"caf?\"", "k=1 p=\"caf\xc3\xa9\"", 1 },
		{ "p == \"a\\tb\"", "k=1 p=\"a\\tb\"", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(matches(cases[i].expr, cases[i].line) == cases[i].want,
		      "'%s' on '%s': expected %d", cases[i].expr, cases[i].line, cases[i].want);
}

static void selftest_canonical(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "type==\"gpu\"", "type == \"gpu\"" },
		{ "a == 1 and (b == 2 and c == 3)", "a == 1 and b == 2 and c == 3" },
		{ "(a == 1 or b == 2) or c == 3", "a == 1 or b == 2 or c == 3" },
		{ "a == 1 and (b == 2 or c == 3)", "a == 1 and (b == 2 or c == 3)" },
		{ "(a == 1 and b == 2) or c == 3", "a == 1 and b == 2 or c == 3" },
		{ "not a == 1", "not (a == 1)" },
		{ "not not has(x)", "not not has(x)" },
		{ "not (a == 1 or b == 2)", "not (a == 1 or b == 2)" },
		{ "memory >= 16G", "memory >= 16GiB" },
		{ "memory >= 1024MiB", "memory >= 1GiB" },
		{ "memory >= 1536KiB", "memory >= 1536KiB" },
		{ "vendor == 0x10DE", "vendor == 0x10de" },
		{ "class == 0x030200", "class == 0x030200" },
		{ "n in [ 0,1 ]", "n in [0, 1]" },
		{ "s >= 01.02", "s >= 1.2" },
		{ "p == \"\\x41\"", "p == \"A\"" },
		{ "p == \"\\xff\"", "p == \"\\xff\"" },
		{ "p == \"caf\xc3\xa9\"", "p == \"caf\xc3\xa9\"" },
		{ "p == \"\\x01\"", "p == \"\\x01\"" },
		{ "p ~ \"a\\\\*\"", "p ~ \"a\\\\*\"" },
		{ "a == 1\n  and\n  b == 2", "a == 1 and b == 2" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = canonical(cases[i].in);

		CHECK(s && !strcmp(s, cases[i].out), "canonical of '%s': '%s', expected '%s'",
		      cases[i].in, s ? s : "(error)", cases[i].out);
		free(s);
	}
}

static void selftest_depth(void)
{
	/* at the limit it parses; one more is refused, without recursing further */
	char *deep = xmalloc(2 * RM_SELECTOR_MAX_DEPTH + 16), *p = deep;
	struct rm_selector_error e;
	struct rm_selector *sel;

	for (int i = 0; i < RM_SELECTOR_MAX_DEPTH; i++)
		*p++ = '(';
	p += sprintf(p, "has(x)");
	for (int i = 0; i < RM_SELECTOR_MAX_DEPTH; i++)
		*p++ = ')';
	*p = '\0';
	CHECK(rm_selector_parse(deep, &sel, &e) == 0, "%d levels are refused",
	      RM_SELECTOR_MAX_DEPTH);
	rm_selector_free(sel);
	free(deep);
	deep = xmalloc(2 * RM_SELECTOR_MAX_DEPTH + 16);
	p = deep;
	for (int i = 0; i <= RM_SELECTOR_MAX_DEPTH; i++)
		*p++ = '(';
	p += sprintf(p, "has(x)");
	for (int i = 0; i <= RM_SELECTOR_MAX_DEPTH; i++)
		*p++ = ')';
	*p = '\0';
	CHECK(rm_selector_parse(deep, &sel, &e) < 0 && e.column == RM_SELECTOR_MAX_DEPTH + 1,
	      "%d levels are not refused at column %d", RM_SELECTOR_MAX_DEPTH + 1,
	      RM_SELECTOR_MAX_DEPTH + 1);
	rm_selector_error_free(&e);
	free(deep);
}

static void clause_count(const struct rm_selector_clause *c, void *arg)
{
	int *n = arg;

	*n += c->decides ? 10 : 1;
}

static void selftest_explain(void)
{
	struct rm_selector_error e;
	struct rm_selector *sel;
	struct rm_record rec;
	char *msg;
	int n = 0;

	if (rm_selector_parse("a == 1 and (b == 1 or c == 1) and d == 1", &sel, &e)) {
		CHECK(0, "explain: %s", e.what);
		rm_selector_error_free(&e);
		return;
	}
	if (rm_record_parse_line("k=1 a=1 b=0 c=0 d=1", 1, &rec, &msg)) {
		free(msg);
		rm_selector_free(sel);
		return;
	}
	/* the "or" failed: b and c decide, a and d passed and do not */
	CHECK(!rm_selector_explain(sel, &rec, clause_count, &n) && n == 22,
	      "explain: weight %d, expected 22", n);
	rm_record_free(&rec);
	rm_selector_free(sel);
}

/* RM_SELECTOR_METRICS: dotted fields, decimals and percentages; the plain parser refuses them. */
static void selftest_metrics(void)
{
	/* records of the fields FIELD (and FIELD2) holding VALUE (VALUE2): the record format has
	 * no dotted keys, rm-qos sets them */
	static const struct {
		const char *expr, *field, *value, *field2, *value2;
		int want;
	} cases[] = {
		{ "cpu.pressure.some < 1%", "cpu.pressure.some", "0.52", NULL, NULL, 1 },
		{ "cpu.pressure.some < 1%", "cpu.pressure.some", "12.50", NULL, NULL, 0 },
		{ "cpu.pressure.some < 1%", "cpu.pressure.some", "0.5%", NULL, NULL, 1 },
		{ "cpu.pressure.some < 1%", "cpu.pressure.some", "-", NULL, NULL, 0 },
		{ "cpu.used >= 1.5", "cpu.used", "1.25", NULL, NULL, 0 },
		{ "cpu.used >= 1.5", "cpu.used", "10.0", NULL, NULL, 1 },
		{ "cpu.used < 1", "cpu.used", "0.00", NULL, NULL, 1 },
		{ "cpu.used < 1", "cpu.used", "1.25", NULL, NULL, 0 },
		{ "a.irqs == 0", "a.irqs", "0.0", NULL, NULL, 1 },
		{ "a.b_c == 0 and memory.current < 1GiB", "a.b_c", "0", "memory.current", "512MiB",
		  1 },
	};
	static const char *const bad[] = { "a. == 1", "a..b == 1", "a < 1.2.3", "a < 1e5%" };
	struct rm_selector_error e;
	struct rm_selector *sel;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rm_record rec = { 0 };
		char *s;

		if (rm_selector_parse_flags(cases[i].expr, RM_SELECTOR_METRICS, &sel, &e)) {
			CHECK(0, "metrics '%s' does not parse: %s", cases[i].expr, e.what);
			rm_selector_error_free(&e);
			continue;
		}
		rm_record_set(&rec, "o", "a");
		rm_record_set(&rec, cases[i].field, cases[i].value);
		if (cases[i].field2)
			rm_record_set(&rec, cases[i].field2, cases[i].value2);
		CHECK(rm_selector_match(sel, &rec) == cases[i].want, "metrics '%s' on %s=%s: "
		      "expected %d", cases[i].expr, cases[i].field, cases[i].value, cases[i].want);
		s = rm_selector_format(sel);
		CHECK(!strcmp(s, cases[i].expr), "metrics canonical '%s' of '%s'", s, cases[i].expr);
		free(s);
		rm_record_free(&rec);
		rm_selector_free(sel);
		CHECK(rm_selector_parse(cases[i].expr, &sel, &e) < 0, "plain parser takes '%s'",
		      cases[i].expr);
		rm_selector_error_free(&e);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(rm_selector_parse_flags(bad[i], RM_SELECTOR_METRICS, &sel, &e) < 0,
		      "metrics parser takes '%s'", bad[i]);
		rm_selector_error_free(&e);
	}
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	struct rm_selector *sel;
	char *s, *msg;
	int rc = 0;

	if (!strcmp(cmd, "parse") && argc == 3) {
		sel = parse_or_exit(argv[2]);
		s = rm_selector_format(sel);
		puts(s);
		free(s);
	} else if (!strcmp(cmd, "match") && argc == 3) {
		sel = parse_or_exit(argv[2]);
		rc = match(sel);
	} else if ((!strcmp(cmd, "cel") && (argc == 3 || argc == 4)) ||
		   (!strcmp(cmd, "sriovdp") && argc == 3)) {
		sel = parse_or_exit(argv[2]);
		if (cmd[0] == 'c' ? rm_selector_cel(sel, argc == 4 ? argv[3] : "rmtools.io", &s,
						     &msg)
				  : rm_selector_sriovdp(sel, 0, &s, &msg)) {
			fprintf(stderr, "%s\n", msg);
			free(msg);
			rc = RM_EXIT_USAGE;
		} else {
			puts(s);
			free(s);
		}
	} else if (!strcmp(cmd, "class") && argc == 3) {
		return class_match(argv[2]);
	} else if (!strcmp(cmd, "fields") && argc == 2) {
		for (size_t i = 0; i < rm_selector_nfields; i++)
			printf("%s %s\n", rm_selector_fields[i].name,
			       rm_selector_type_name(rm_selector_fields[i].type));
		return fflush(stdout) ? RM_EXIT_FAILURE : 0;
	} else if (!strcmp(cmd, "selftest") && argc == 2) {
		selftest_glob();
		selftest_compare();
		selftest_canonical();
		selftest_depth();
		selftest_explain();
		selftest_metrics();
		printf("%d checks, %d failed\n", checks, failures);
		return failures ? RM_EXIT_FAILURE : 0;
	} else {
		return usage();
	}
	rm_selector_free(sel);
	if (fflush(stdout))
		return RM_EXIT_FAILURE;
	return rc;
}
