/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU and node sets as hwloc bitmaps: parse and print the kernel's list, stride and mask forms. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "record.h"
#include "xalloc.h"

/* Set *ERRMSG (when asked for) to a formatted message; returns -1 for the caller to pass on. */
__attribute__((format(printf, 2, 3)))
static int fail(char **errmsg, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!errmsg)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	va_end(ap);
	*errmsg = s;
	return -1;
}


/* "BEFORE'S'AFTER", with LEN bytes of S shown safely. */
static int fail_show(char **errmsg, const char *before, const char *s, size_t len,
		     const char *after)
{
	char *shown = rm_record_show(s, len);

	fail(errmsg, "%s'%s'%s", before, shown, after);
	free(shown);
	return -1;
}

/* "invalid character 'x' in WHAT: 'input'" */
static int fail_char(char **errmsg, const char *what, const char *c, const char *s, size_t len)
{
	char *sc = rm_record_show(c, 1), *ss = rm_record_show(s, len);

	fail(errmsg, "invalid character '%s' in %s: '%s'", sc, what, ss);
	free(sc);
	free(ss);
	return -1;
}

/* The input without the one trailing newline that sysfs files carry. */
static size_t input_length(const char *str)
{
	size_t len = strlen(str);

	if (len && str[len - 1] == '\n')
		len--;
	return len;
}

/*
 * Read a decimal id at *P (before END). Values above RM_CPULIST_MAX saturate instead of
 * overflowing, and are reported with the digits as written.
 */
static int get_number(const char **p, const char *end, unsigned *value, char **errmsg)
{
	const char *start = *p, *q = *p;
	unsigned long v = 0;

	while (q < end && isdigit((unsigned char)*q)) {
		if (v <= RM_CPULIST_MAX)
			v = v * 10 + (*q - '0');
		q++;
	}
	if (q == start)
		return -1; /* no digits: the caller knows what was expected */
	if (v > RM_CPULIST_MAX) {
		char *digits = rm_record_show(start, q - start);

		fail(errmsg, "cpu %s out of range (max %d)", digits, RM_CPULIST_MAX);
		free(digits);
		return -2;
	}
	*p = q;
	*value = v;
	return 0;
}

/*
 * The list and stride forms are parsed by hand: hwloc_bitmap_list_sscanf() is lenient ("0-" is an
 * infinite set, junk is ignored) and knows no stride form, and input errors must be reported.
 */
static int parse_list(const char *str, size_t len, hwloc_bitmap_t set, char **errmsg)
{
	const char *p = str, *end = str + len;

	if (len == 0)
		return 0;

	for (;;) {
		const char *elem = p, *elem_end;
		unsigned start, last, used, group;
		bool stride = false;
		int rc;

		elem_end = memchr(p, ',', end - p);
		if (!elem_end)
			elem_end = end;
		if (elem_end == elem)
			return fail_show(errmsg, elem_end == end ? "trailing comma in cpu list: " :
					 "empty element in cpu list: ", str, len, "");

		rc = get_number(&p, elem_end, &start, errmsg);
		if (rc == -2)
			return -1;
		if (rc < 0)
			goto bad_char;
		last = start;
		if (p < elem_end && *p == '-') {
			p++;
			if (p == elem_end)
				return fail_show(errmsg, "invalid range ", elem, elem_end - elem,
						 ": missing end");
			rc = get_number(&p, elem_end, &last, errmsg);
			if (rc == -2)
				return -1;
			if (rc < 0)
				goto bad_char;
			if (p < elem_end && *p == ':') {
				p++;
				stride = true;
				rc = get_number(&p, elem_end, &used, errmsg);
				if (rc == -2)
					return -1;
				if (rc < 0 || p >= elem_end || *p != '/')
					goto bad_stride;
				p++;
				rc = get_number(&p, elem_end, &group, errmsg);
				if (rc == -2)
					return -1;
				if (rc < 0 || p != elem_end)
					goto bad_stride;
			}
		} else if (p < elem_end && *p == ':') {
			return fail_show(errmsg, "invalid stride ", elem, elem_end - elem,
					 ": needs a range a-b before ':'");
		}
		if (p != elem_end)
			goto bad_char;
		if (start > last)
			return fail_show(errmsg, "invalid range ", elem, elem_end - elem,
					 ": start above end");

		if (!stride) {
			hwloc_bitmap_set_range(set, start, last);
		} else {
			/*
			 * The kernel allows 0 used (an empty stride); refused here, as a set
			 * written that way is surely a mistake.
			 */
			if (group == 0 || used == 0 || used > group)
				return fail_show(errmsg, "invalid stride ", elem, elem_end - elem,
						 ": need 0 < used <= group");
			/* As bitmap_parselist(): groups start at the range's start. */
			for (unsigned g = start; g <= last; g += group) {
				unsigned e = g + used - 1;

				hwloc_bitmap_set_range(set, g, e < last ? e : last);
			}
		}

		if (elem_end == end)
			return 0;
		p = elem_end + 1;
		continue;

bad_stride:
		return fail_show(errmsg, "invalid stride ", elem, elem_end - elem,
				 ": expected a-b:used/group");
bad_char:
		return fail_char(errmsg, "cpu list", p, str, len);
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool has_hex_prefix(const char *s, size_t len)
{
	return len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

static int parse_mask(const char *str, size_t len, hwloc_bitmap_t set, char **errmsg)
{
	const char *p = str, *end = str + len, *top = NULL;
	bool commas = memchr(str, ',', len) != NULL;
	size_t word = 0, below = 0; /* digits in the current word; digits after TOP */
	size_t high;
	unsigned bit;

	if (has_hex_prefix(p, len))
		p += 2;
	if (p == end)
		return fail_show(errmsg, "empty mask: ", str, len, "");

	/* The shape: with commas, words of 8 digits but the first, which has 1 to 8. */
	for (const char *q = p; q <= end; q++) {
		if (q == end || *q == ',') {
			if (word == 0)
				return fail_show(errmsg, "empty word in mask: ", str, len, "");
			if (commas && (q == p + word ? word > 8 : word != 8))
				return fail_show(errmsg, "mask words must be 8 hex digits: ",
						 str, len, "");
			word = 0;
		} else if (hexval(*q) < 0) {
			return fail_char(errmsg, "mask", q, str, len);
		} else {
			word++;
			if (top)
				below++;
			else if (hexval(*q))
				top = q;
		}
	}
	if (!top)
		return 0;

	/* Name the highest cpu when it is out of range; leading zeros are fine. */
	high = 4 * below;
	for (int v = hexval(*top); v > 1; v >>= 1)
		high++;
	if (high > RM_CPULIST_MAX)
		return fail(errmsg, "cpu %zu out of range (max %d)", high, RM_CPULIST_MAX);

	bit = 0;
	for (const char *q = end; q > p; q--) {
		int v;

		if (q[-1] == ',')
			continue;
		v = hexval(q[-1]);
		for (int i = 0; i < 4; i++, bit++)
			if (v & (1 << i))
				hwloc_bitmap_set(set, bit);
	}
	return 0;
}

/* A mask when it says so ("0x"), has hex letters, or looks like a cpumap file (8-digit words). */
static bool looks_like_mask(const char *s, size_t len)
{
	const char *comma;
	size_t word = 0;

	if (has_hex_prefix(s, len))
		return true;
	for (size_t i = 0; i < len; i++)
		if (isxdigit((unsigned char)s[i]) && !isdigit((unsigned char)s[i]))
			return true;
	comma = memchr(s, ',', len);
	if (!comma)
		return false;
	for (const char *q = comma + 1; q <= s + len; q++) {
		if (q == s + len || *q == ',') {
			if (word != 8)
				return false;
			word = 0;
		} else if (!isxdigit((unsigned char)*q)) {
			return false;
		} else {
			word++;
		}
	}
	return true;
}

int rm_cpulist_parse(const char *str, hwloc_bitmap_t set, char **errmsg)
{
	size_t len = input_length(str);
	int rc;

	hwloc_bitmap_zero(set);
	if (looks_like_mask(str, len))
		rc = parse_mask(str, len, set, errmsg);
	else
		rc = parse_list(str, len, set, errmsg);
	if (rc)
		hwloc_bitmap_zero(set);
	return rc;
}

int rm_cpulist_parse_list(const char *str, hwloc_bitmap_t set, char **errmsg)
{
	int rc;

	hwloc_bitmap_zero(set);
	rc = parse_list(str, input_length(str), set, errmsg);
	if (rc)
		hwloc_bitmap_zero(set);
	return rc;
}

int rm_cpulist_parse_mask(const char *str, hwloc_bitmap_t set, char **errmsg)
{
	int rc;

	hwloc_bitmap_zero(set);
	rc = parse_mask(str, input_length(str), set, errmsg);
	if (rc)
		hwloc_bitmap_zero(set);
	return rc;
}

/*
 * The last bit to print, or -1 for the empty set. An infinite set (hwloc's full or "N-" sets,
 * never made by the parsers above) is cut at RM_CPULIST_MAX, or where its tail begins when that
 * is higher, so that printing always ends.
 */
static int last_bit(hwloc_const_bitmap_t set)
{
	int last = hwloc_bitmap_last(set), tail;

	if (last >= 0 || hwloc_bitmap_iszero(set))
		return last;
	tail = hwloc_bitmap_last_unset(set) + 1;
	return tail > RM_CPULIST_MAX ? tail : RM_CPULIST_MAX;
}

char *rm_cpulist_format(hwloc_const_bitmap_t set)
{
	int limit = last_bit(set), cpu = hwloc_bitmap_first(set);
	size_t cap = 64, len = 0;
	char *buf = xmalloc(cap);

	/* into a buffer grown as it fills: a memory stream would clear 8 KiB for each list */
	*buf = '\0';
	while (cpu >= 0 && cpu <= limit) {
		int end = hwloc_bitmap_next_unset(set, cpu) - 1;

		if (end < 0 || end > limit) /* no unset bit after: the infinite tail */
			end = limit;
		if (cap - len < 2 * RM_DECIMAL_MAX + 2) /* room for ",CPU-END" */
			buf = xrealloc(buf, cap *= 2);
		if (len)
			buf[len++] = ',';
		len += rm_decimal(buf + len, cpu);
		if (end != cpu) {
			buf[len++] = '-';
			len += rm_decimal(buf + len, end);
		}
		if (end == limit)
			break;
		cpu = hwloc_bitmap_next(set, end);
	}
	return buf;
}

char *rm_cpulist_format_mask(hwloc_const_bitmap_t set)
{
	int limit = last_bit(set);
	int nwords = limit / 32 + 1;
	char *buf, *p;

	if (limit < 0)
		return xstrdup("0");
	/* 8 hex digits and a comma per 32-bit word. */
	p = buf = xmalloc(9 * (size_t)nwords + 1);
	for (int w = nwords - 1; w >= 0; w--) {
		unsigned long word = 0;

		for (int i = 0; i < 32; i++) {
			int cpu = 32 * w + i;

			if (cpu <= limit && hwloc_bitmap_isset(set, cpu))
				word |= 1UL << i;
		}
		if (w == nwords - 1)
			p += sprintf(p, "%lx", word);
		else
			p += sprintf(p, ",%08lx", word);
	}
	return buf;
}
