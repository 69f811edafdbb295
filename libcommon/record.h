/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record format of CONVENTIONS.md: key=value fields, one record per line. */
#ifndef RM_RECORD_H
#define RM_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rm_field {
	char *key;
	char *value; /* unquoted; "-" stays "-" (unknown) */
};

struct rm_record {
	struct rm_field *fields;
	size_t nfields;
	unsigned line; /* 1-based line number in the input */
};

/* True when VALUE can be written bare: non-empty and only A-Za-z0-9_.,:/+@%- */
bool rm_record_is_bare(const char *value);

/* Write VALUE bare or double-quoted with \" \\ and \xHH escapes. */
void rm_record_write_value(FILE *out, const char *value);

/* Room for the decimal text of any long long and its terminating NUL. */
#define RM_DECIMAL_MAX 21

/* The decimal text of V (as printf's "%lld") into BUF; returns its length. Records of
 * thousands of CPUs write tens of thousands of numbers: this is a few instructions a digit. */
size_t rm_decimal(char buf[RM_DECIMAL_MAX], long long v);

/* The same into an allocated string. */
char *rm_record_quote(const char *value);

/* LEN bytes at S for a one-line message, control and non-ASCII bytes as \xHH. Allocated. */
char *rm_record_show(const char *s, size_t len);

/* True when KEY matches [a-z][a-z0-9_]*. */
bool rm_record_valid_key(const char *key);

/*
 * Parse one line (without its newline) into REC; LINENO is stored and used in messages.
 * Returns 0, or -1 with *ERRMSG allocated: "line 3, column 7: expected '=' after key 'cpu'";
 * REC is then empty. Blanks (spaces, tabs) may surround fields; a duplicate key is an error.
 */
int rm_record_parse_line(const char *line, unsigned lineno, struct rm_record *rec, char **errmsg);

/*
 * Read the next record from IN, skipping blank lines and lines starting with '#'.
 * *LINENO counts lines read so far (start it at 0). Returns 1 with a record, 0 at end of input,
 * -1 on a parse or read error (*ERRMSG allocated). A trailing "\r\n" or "\n" is stripped.
 */
int rm_record_read(FILE *in, unsigned *lineno, struct rm_record *rec, char **errmsg);

/* The value of KEY, or NULL when the record has no such field. */
const char *rm_record_get(const struct rm_record *rec, const char *key);

/* The record's kind: the key of its first field ("cpu" for "cpu=3 ..."). */
const char *rm_record_kind(const struct rm_record *rec);

/* Set KEY to VALUE: replaced in place when present, else added at the end (copies both). */
void rm_record_set(struct rm_record *rec, const char *key, const char *value);

/* Remove KEY's field, when there is one. */
void rm_record_unset(struct rm_record *rec, const char *key);

/* Write REC as one line, with its newline. */
void rm_record_write(FILE *out, const struct rm_record *rec);

/* DST (uninitialised) becomes a copy of SRC. */
void rm_record_copy(struct rm_record *dst, const struct rm_record *src);

void rm_record_free(struct rm_record *rec);

#endif
