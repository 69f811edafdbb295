/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness for the class-file parser of libcommon/classes.c: any input is read into
 * classes or refused with one-line messages at a place of the text, and what is read is valid. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "selector.h"

#define FILE1 "a.conf"
#define FILE2 "b.conf"

static const uint8_t *in;
static size_t in_size;

/* The length of line LINE (1-based) of the input, without its '\n'; -1 past the last line. */
static long line_length(unsigned line)
{
	const uint8_t *p = in, *end = in + in_size, *nl;

	for (unsigned l = 1; l < line; l++) {
		if (!(nl = memchr(p, '\n', end - p)))
			return -1;
		p = nl + 1;
	}
	nl = memchr(p, '\n', end - p);
	return (nl ? nl : end) - p;
}

static void bad(const char *why, const char *msg)
{
	fprintf(stderr, "%s: '%s'\n", why, msg);
	abort();
}

/* MSG is "FILE:LINE:COLUMN: [warning: ]what", one printable line, at a place of the input (the
 * column may be just after the line's last byte); returns LINE << 32 | COLUMN. */
static uint64_t check_message(const char *msg, const char *file, bool warning)
{
	size_t n = strlen(file);
	unsigned long line, column;
	const char *p;
	char *end;
	long len;

	for (p = msg; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			bad("not one printable line", msg);
	if (strncmp(msg, file, n) || msg[n] != ':')
		bad("no file name", msg);
	line = strtoul(msg + n + 1, &end, 10);
	if (*end != ':' || line < 1)
		bad("no line", msg);
	column = strtoul(end + 1, &end, 10);
	if (*end != ':' || end[1] != ' ' || !end[2] || column < 1)
		bad("no column", msg);
	if (warning != !strncmp(end + 2, "warning: ", 9))
		bad("warning or not", msg);
	if ((len = line_length((unsigned)line)) < 0 || column > (unsigned long)len + 1)
		bad("not a place of the input", msg);
	return (uint64_t)line << 32 | column;
}

/* Add the input as FILE; check what came of it. Returns its classes (-1: errors). */
static int add(struct rm_classes *cl, const char *file)
{
	size_t nerrors = cl->nerrors, nwarnings = cl->nwarnings, n = cl->n;
	char *text = malloc(in_size + 1);
	uint64_t last = 0;
	int rc;

	if (!text)
		abort();
	memcpy(text, in, in_size);
	text[in_size] = '\0';
	rc = rm_classes_add_text(cl, file, text, in_size);
	free(text);
	if (rc < 0)
		abort();
	/* errors in the order of the lines */
	for (size_t i = nerrors; i < cl->nerrors; i++) {
		uint64_t at = check_message(cl->errors[i], file, false);

		if (at < last)
			bad("out of order", cl->errors[i]);
		last = at;
	}
	for (size_t i = nwarnings; i < cl->nwarnings; i++)
		check_message(cl->warnings[i], file, true);
	if (cl->nerrors > nerrors) {
		if (cl->n != n)
			abort(); /* a file with errors adds no class */
		return -1;
	}
	/* each class of the file replaced a built-in or was added */
	if (cl->n > n + (size_t)rc || (size_t)rc > cl->n)
		abort();
	for (size_t i = 0; i < cl->n; i++) {
		const struct rm_class *c = &cl->v[i];
		struct rm_selector_error e;
		struct rm_selector *again;
		char *canon, *src;

		if (!c->file)
			continue;
		if (!rm_class_valid_name(c->name) || !c->sel || c->count < 1 ||
		    c->count > 1000000 || rm_classes_find(cl, c->name) != c)
			abort();
		canon = rm_selector_format(c->sel);
		if (rm_selector_parse(canon, &again, &e))
			bad("canonical form does not parse", canon);
		rm_selector_free(again);
		src = rm_class_source(c);
		free(src);
		free(canon);
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_classes cl = { 0 };
	int n;

	in = data;
	in_size = size;
	rm_classes_add_builtins(&cl);
	if (cl.nerrors || !cl.n)
		abort();
	/* the same text again from another file: each of its classes is defined twice */
	if ((n = add(&cl, FILE1)) > 0 && add(&cl, FILE2) >= 0)
		abort();
	rm_classes_free(&cl);
	return 0;
}
