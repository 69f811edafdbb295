/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output modes: records, and tables written to a pipe or file, are written here; tables on a
 * terminal and JSON go through libsmartcols. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libsmartcols.h>

#include "cpulist.h"
#include "dynlib.h"
#include "exitcodes.h"
#include "options.h"
#include "output.h"
#include "record.h"
#include "size.h"
#include "xalloc.h"

struct rm_out {
	struct rm_outopts opts;
	const struct rm_column *cols;
	size_t ncols;
	int *shown;      /* column indexes in output order */
	size_t nshown;
	int *slot;       /* column index -> position in shown, or -1 */
	char **vals;     /* current record, by position; NULL: unknown */
	char **buf;      /* by position: a buffer kept from record to record, and its size */
	size_t *bufsize;
	struct libscols_table *tb;
	const char *list; /* the table's name */
	bool plain;       /* a table not on a terminal: kept in rows, written by write_plain */
	char **rows;      /* nrows records of nshown values each */
	size_t nrows;
	char *line;       /* a record or raw line, made before it is written */
	size_t linecap;
};

/* libsmartcols is opened when a table or JSON listing is first made (dynlib.h): the records
 * that most runs print do not need it, and linked, its relocations would be resolved at the
 * start of every run of every tool. */
#define LIBSMARTCOLS_FUNCTIONS(X) \
	X(scols_column_set_json_type) \
	X(scols_line_set_data) \
	X(scols_new_table) \
	X(scols_print_table) \
	X(scols_print_table_to_string) \
	X(scols_table_enable_json) \
	X(scols_table_enable_noheadings) \
	X(scols_table_new_column) \
	X(scols_table_new_line) \
	X(scols_table_set_name) \
	X(scols_unref_table)

static struct {
#define X(f) __typeof__(f) *f;
	LIBSMARTCOLS_FUNCTIONS(X)
#undef X
} lsc;

/* JSON documents of closed listings, printed together by rm_out_flush(). */
static char **json_parts;
static size_t njson_parts;

static int column_index(const struct rm_column *cols, size_t ncols, const char *name, size_t len)
{
	for (size_t i = 0; i < ncols; i++)
		if (strlen(cols[i].name) == len && !strncasecmp(cols[i].name, name, len))
			return (int)i;
	return -1;
}

static void add_columns(struct rm_out *out, const char *list, bool strict)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		int idx = column_index(out->cols, out->ncols, p, len);

		if (idx < 0) {
			if (len == 0)
				rm_usage_errx("invalid field list: '%s'", list);
			rm_usage_errx("unknown field: '%.*s' (see --list-columns)", (int)len, p);
		}
		if (out->slot[idx] < 0) {
			out->slot[idx] = (int)out->nshown;
			out->shown[out->nshown++] = idx;
		} else if (strict) {
			rm_usage_errx("field given twice: '%.*s'", (int)len, p);
		}
		p += len;
		if (*p == ',' && !*++p)
			rm_usage_errx("invalid field list: '%s'", list);
	}
}

/*
 * libsmartcols writes an empty string as null, which is how we write unknown, and no data in a
 * boolean column as false; an empty set must stay "" and an unknown boolean null. So every JSON
 * value is written raw (SCOLS_JSON_NUMBER), strings quoted here by json_quote.
 */
static bool json_quoted(enum rm_coltype t)
{
	return t == RM_COL_STRING || t == RM_COL_SET;
}

/* VALUE as a JSON string, with its quotes. */
static char *json_quote(const char *value)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			putc(*p, f);
	}
	putc('"', f);
	if (fclose(f) != 0)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	return buf;
}

/* Fill OUT's shown columns from SEL (-o, or NULL) and DEFAULTS; exits 2 on a bad list. */
static void choose_columns(struct rm_out *out, const char *sel, const char *defaults)
{
	for (size_t i = 0; i < out->ncols; i++)
		out->slot[i] = -1;
	out->nshown = 0;
	if (sel && (!*sel || !strcmp(sel, "+") || sel[strlen(sel) - 1] == ',' ||
		    !strncmp(sel, "+,", 2)))
		rm_usage_errx("invalid field list: '%s'", sel);
	if (sel && *sel != '+') {
		add_columns(out, sel, true);
	} else {
		if (defaults)
			add_columns(out, defaults, true);
		else
			for (size_t i = 0; i < out->ncols; i++)
				out->slot[i] = (int)i, out->shown[out->nshown++] = (int)i;
		if (sel && *sel == '+')
			add_columns(out, sel + 1, false);
	}
}

void rm_out_check(const struct rm_outopts *opts, const struct rm_column *cols, size_t ncols,
		  const char *defaults)
{
	struct rm_out out = { .cols = cols, .ncols = ncols };

	if (opts->list_columns && opts->columns)
		rm_usage_errx("--list-columns takes no -o (it lists the fields -o accepts)");
	out.shown = xcalloc(ncols, sizeof(int));
	out.slot = xmalloc(ncols * sizeof(int));
	choose_columns(&out, opts->columns, defaults);
	free(out.shown);
	free(out.slot);
}

/* Whether a table writes the column's values to its right: numbers. */
static bool right_aligned(enum rm_coltype t)
{
	return t == RM_COL_INT || t == RM_COL_FLOAT || t == RM_COL_SIZE;
}

/* The libsmartcols table of OUT, with its columns. */
static void make_table(struct rm_out *out)
{
	RM_DL_LOAD(lsc, "libsmartcols.so.1", LIBSMARTCOLS_FUNCTIONS);
	out->tb = lsc.scols_new_table();
	if (!out->tb)
		rm_err(RM_EXIT_FAILURE, "failed to allocate output table");
	lsc.scols_table_set_name(out->tb, out->list);
	if (out->opts.mode == RM_OUT_JSON)
		lsc.scols_table_enable_json(out->tb, 1);
	if (out->opts.noheadings)
		lsc.scols_table_enable_noheadings(out->tb, 1);
	for (size_t i = 0; i < out->nshown; i++) {
		const struct rm_column *c = &out->cols[out->shown[i]];
		struct libscols_column *cl;
		char *up = xstrdup(c->name);
		int flags = 0;

		if (out->opts.mode == RM_OUT_TABLE)
			for (char *q = up; *q; q++)
				*q = (char)toupper((unsigned char)*q);
		if (right_aligned(c->type))
			flags |= SCOLS_FL_RIGHT;
		cl = lsc.scols_table_new_column(out->tb, out->opts.mode == RM_OUT_JSON ? c->name : up,
					    0, flags);
		free(up);
		if (!cl)
			rm_err(RM_EXIT_FAILURE, "failed to allocate output column");
		lsc.scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
	}
}

struct rm_out *rm_out_new(const struct rm_outopts *opts, const char *list,
			  const struct rm_column *cols, size_t ncols, const char *defaults,
			  bool apply_columns)
{
	struct rm_out *out = xcalloc(1, sizeof(*out));
	const char *sel = apply_columns ? opts->columns : NULL;

	out->opts = *opts;
	out->cols = cols;
	out->ncols = ncols;
	out->shown = xcalloc(ncols, sizeof(int));
	out->slot = xmalloc(ncols * sizeof(int));
	out->vals = xcalloc(ncols, sizeof(char *));
	out->buf = xcalloc(ncols, sizeof(char *));
	out->bufsize = xcalloc(ncols, sizeof(size_t));
	choose_columns(out, sel, defaults);

	out->list = list;
	/*
	 * A table that is not on a terminal is written here, as libsmartcols would write it there
	 * (nothing to fit to a width), unless a value needs its encoding: loading libsmartcols costs
	 * more than the rest of a short listing.
	 */
	if (opts->mode == RM_OUT_TABLE && !isatty(STDOUT_FILENO))
		out->plain = true;
	else if (opts->mode == RM_OUT_TABLE || opts->mode == RM_OUT_JSON)
		make_table(out);
	return out;
}

bool rm_out_shown(const struct rm_out *out, int col)
{
	return out->slot[col] >= 0;
}

void rm_out_begin(struct rm_out *out)
{
	memset(out->vals, 0, out->nshown * sizeof(*out->vals));
}

/* VALUE (NULL: unknown) as column COL's, copied to the column's buffer: a listing of thousands
 * of records allocates nothing per value. */
static void put_text(struct rm_out *out, int col, const char *value)
{
	int pos = out->slot[col];
	size_t len;

	if (pos < 0 || !value) {
		if (pos >= 0)
			out->vals[pos] = NULL;
		return;
	}
	len = strlen(value) + 1;
	if (len > out->bufsize[pos]) {
		out->bufsize[pos] = len < 32 ? 32 : len;
		out->buf[pos] = xrealloc(out->buf[pos], out->bufsize[pos]);
	}
	memcpy(out->buf[pos], value, len);
	out->vals[pos] = out->buf[pos];
}

/* An allocated VALUE as column COL's; freed. */
static void put(struct rm_out *out, int col, char *value)
{
	put_text(out, col, value);
	free(value);
}

void rm_out_str(struct rm_out *out, int col, const char *value)
{
	put_text(out, col, value);
}

void rm_out_int(struct rm_out *out, int col, long long value)
{
	char buf[RM_DECIMAL_MAX];

	if (out->slot[col] >= 0) {
		rm_decimal(buf, value);
		put_text(out, col, buf);
	}
}

void rm_out_float(struct rm_out *out, int col, double value, int decimals)
{
	put(out, col, xasprintf("%.*f", decimals, value));
}

/*
 * BYTES for people, as lsblk and free print sizes: the largest binary unit (B K M G T P E) with at
 * least one whole of it, and one decimal unless it is 0 ("4.7G", "2M", "512B"), rounded as
 * util-linux rounds. Written here because libsmartcols keeps util-linux's size_to_human_string
 * to itself.
 */
static char *size_human(uint64_t bytes)
{
	static const char units[] = "BKMGTPE";
	unsigned exp = 0;
	uint64_t whole, frac = 0;

	while (exp < 60 && bytes >= (UINT64_C(1) << (exp + 10)))
		exp += 10;
	whole = bytes >> exp;
	if (exp) {
		/* tenths, from the remainder in 1/1024ths of the unit */
		frac = ((bytes & ((UINT64_C(1) << exp) - 1)) / (UINT64_C(1) << (exp - 10)) + 50) / 100;
		if (frac == 10)
			whole++, frac = 0;
	}
	if (frac)
		return xasprintf("%" PRIu64 ".%" PRIu64 "%c", whole, frac, units[exp / 10]);
	return xasprintf("%" PRIu64 "%c", whole, units[exp / 10]);
}

void rm_out_size(struct rm_out *out, int col, uint64_t bytes)
{
	if (out->opts.mode == RM_OUT_JSON || out->opts.bytes)
		put(out, col, xasprintf("%" PRIu64, bytes));
	else if (out->opts.mode == RM_OUT_TABLE)
		put(out, col, size_human(bytes));
	else
		put(out, col, rm_size_format(bytes));
}

void rm_out_bool(struct rm_out *out, int col, bool value)
{
	if (out->opts.mode == RM_OUT_JSON)
		put_text(out, col, value ? "true" : "false");
	else
		put_text(out, col, value ? "yes" : "no");
}

void rm_out_set(struct rm_out *out, int col, hwloc_const_bitmap_t set)
{
	put(out, col, set ? rm_cpulist_format(set) : NULL);
}

/*
 * A --raw value, bare for $(...) and "read": as lsblk -r writes one, every byte that is blank,
 * not printable ASCII or a backslash is \xHH ("a b" is a\x20b); the empty set is nothing.
 * Written at P, which has room for 4 bytes a byte of VALUE; the end.
 */
static char *raw_value(char *p, const char *value)
{
	static const char hex[] = "0123456789abcdef";

	for (const unsigned char *v = (const unsigned char *)value; *v; v++) {
		if (*v <= ' ' || *v >= 0x7f || *v == '\\') {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[*v >> 4];
			*p++ = hex[*v & 15];
		} else {
			*p++ = (char)*v;
		}
	}
	return p;
}

/* A line of the libsmartcols table of OUT with the values VALS, by position (NULL: unknown). */
static void table_line(struct rm_out *out, char *const *vals)
{
	struct libscols_line *ln = lsc.scols_table_new_line(out->tb, NULL);

	if (!ln)
		rm_err(RM_EXIT_FAILURE, "failed to allocate output line");
	for (size_t i = 0; i < out->nshown; i++) {
		const char *v = vals[i];
		char *quoted = NULL;

		/* JSON: unknown is null (libsmartcols writes null for no data) */
		if (!v && out->opts.mode == RM_OUT_TABLE)
			v = "-";
		if (v && out->opts.mode == RM_OUT_JSON && json_quoted(out->cols[out->shown[i]].type))
			v = quoted = json_quote(v);
		if (v && lsc.scols_line_set_data(ln, i, v))
			rm_err(RM_EXIT_FAILURE, "failed to add output data");
		free(quoted);
	}
}

void rm_out_end(struct rm_out *out)
{
	if (out->plain) {
		out->rows = xrealloc(out->rows, (out->nrows + 1) * out->nshown * sizeof(char *));
		for (size_t i = 0; i < out->nshown; i++)
			out->rows[out->nrows * out->nshown + i] = xstrdup(out->vals[i] ? out->vals[i] : "-");
		out->nrows++;
		return;
	}
	if (out->tb) {
		table_line(out, out->vals);
		return;
	}
	/* the record made in one buffer and written at once: a stdio call a value cost more than
	 * the rest of a listing of thousands of CPUs */
	size_t len = 0;

	for (size_t i = 0; i < out->nshown; i++) {
		const char *v = out->vals[i] ? out->vals[i] : "-", *name = out->cols[out->shown[i]].name;
		size_t nlen = strlen(name), vlen = strlen(v);

		/* room for " NAME=", the value with every byte quoted (4 each), quotes, "\n" */
		if (out->linecap - len < nlen + 4 * vlen + 5)
			out->line = xrealloc(out->line, out->linecap = 2 * (len + nlen + 4 * vlen + 5));
		if (i)
			out->line[len++] = ' ';
		if (out->opts.mode == RM_OUT_RAW) {
			len = (size_t)(raw_value(out->line + len, v) - out->line);
			continue;
		}
		memcpy(out->line + len, name, nlen);
		len += nlen;
		out->line[len++] = '=';
		if (rm_record_is_bare(v)) {
			memcpy(out->line + len, v, vlen);
			len += vlen;
		} else {
			char *q = rm_record_quote(v);

			len = (size_t)(stpcpy(out->line + len, q) - out->line);
			free(q);
		}
	}
	out->line[len++] = '\n';
	fwrite(out->line, 1, len, stdout);
}

/* libsmartcols prints one document per table: keep its inside ("name": [...]) for rm_out_flush. */
static void keep_json_part(struct libscols_table *tb)
{
	char *doc = NULL, *start, *end;

	if (lsc.scols_print_table_to_string(tb, &doc) || !doc)
		rm_err(RM_EXIT_FAILURE, "failed to print output table");
	start = strchr(doc, '\n');
	end = strrchr(doc, '}');
	if (!start || !end || end < start)
		rm_errx(RM_EXIT_FAILURE, "unexpected JSON from libsmartcols");
	while (end > start && end[-1] == '\n')
		end--;
	json_parts = xrealloc(json_parts, (njson_parts + 1) * sizeof(char *));
	json_parts[njson_parts++] = xasprintf("%.*s", (int)(end - start - 1), start + 1);
	free(doc);
}

/* Whether the rows of a plain table are printable ASCII alone, without the backslash that starts
 * libsmartcols' escapes, which it writes as they are, one column per byte. */
static bool plain_writable(const struct rm_out *out)
{
	for (size_t i = 0; i < out->nrows * out->nshown; i++)
		for (const char *p = out->rows[i]; *p; p++)
			if (*p < ' ' || *p > '~' || *p == '\\')
				return false;
	return true;
}

/* A plain table as libsmartcols writes one not on a terminal: the names upper-cased as headings,
 * each column as wide as its widest value or heading (shown or not), numbers to the right, one
 * space between columns, no blanks after the last value of a line; nothing without rows. */
static void write_plain(const struct rm_out *out)
{
	size_t *width = xcalloc(out->nshown, sizeof(*width));
	bool heads = !out->opts.noheadings;

	for (size_t i = 0; i < out->nshown; i++) {
		width[i] = strlen(out->cols[out->shown[i]].name);
		for (size_t r = 0; r < out->nrows; r++) {
			size_t len = strlen(out->rows[r * out->nshown + i]);

			if (len > width[i])
				width[i] = len;
		}
	}
	flockfile(stdout);
	for (size_t r = !heads; out->nrows && r <= out->nrows; r++) {
		for (size_t i = 0; i < out->nshown; i++) {
			bool right = right_aligned(out->cols[out->shown[i]].type);
			const char *v = r ? out->rows[(r - 1) * out->nshown + i] :
					    out->cols[out->shown[i]].name;
			size_t len = strlen(v), pad = width[i] - len;

			if (i)
				putchar_unlocked(' ');
			for (; right && pad; pad--)
				putchar_unlocked(' ');
			for (const char *p = v; *p; p++)
				putchar_unlocked(r ? *p : toupper((unsigned char)*p));
			for (; i + 1 < out->nshown && pad; pad--)
				putchar_unlocked(' ');
		}
		putchar_unlocked('\n');
	}
	funlockfile(stdout);
	free(width);
}

void rm_out_close(struct rm_out *out)
{
	static bool printed_table;

	if (!out)
		return;
	if (out->plain) {
		if (plain_writable(out)) {
			if (printed_table)
				putchar('\n');
			write_plain(out);
			printed_table = true;
		} else { /* values to encode: libsmartcols writes them */
			make_table(out);
			for (size_t r = 0; r < out->nrows; r++)
				table_line(out, out->rows + r * out->nshown);
		}
		for (size_t i = 0; i < out->nrows * out->nshown; i++)
			free(out->rows[i]);
		free(out->rows);
	}
	if (out->tb) {
		if (out->opts.mode == RM_OUT_JSON) {
			keep_json_part(out->tb);
		} else {
			/* listings in one run are separated by a blank line */
			if (printed_table)
				putchar('\n');
			lsc.scols_print_table(out->tb);
			printed_table = true;
		}
		lsc.scols_unref_table(out->tb);
	}
	for (size_t i = 0; i < out->ncols; i++)
		free(out->buf[i]);
	free(out->buf);
	free(out->bufsize);
	free(out->line);
	free(out->vals);
	free(out->shown);
	free(out->slot);
	free(out);
}

void rm_out_flush(void)
{
	if (!njson_parts)
		return;
	fputs("{\n", stdout);
	for (size_t i = 0; i < njson_parts; i++) {
		fputs(json_parts[i], stdout);
		fputs(i + 1 < njson_parts ? ",\n" : "\n", stdout);
		free(json_parts[i]);
	}
	fputs("}\n", stdout);
	free(json_parts);
	json_parts = NULL;
	njson_parts = 0;
}

static const char *type_name(enum rm_coltype t)
{
	static const char *const names[] = {
		[RM_COL_STRING] = "string", [RM_COL_INT] = "integer", [RM_COL_FLOAT] = "number",
		[RM_COL_SIZE] = "size",     [RM_COL_BOOL] = "boolean", [RM_COL_SET] = "cpulist",
	};
	return names[t];
}

enum { LC_NAME, LC_TYPE, LC_DEFAULT, LC_DESCRIPTION };
static const struct rm_column list_columns_cols[] = {
	[LC_NAME] = { "column", RM_COL_STRING, "field name" },
	[LC_TYPE] = { "type", RM_COL_STRING, "value type" },
	[LC_DEFAULT] = { "default", RM_COL_BOOL, "shown without -o" },
	[LC_DESCRIPTION] = { "description", RM_COL_STRING, "what the field holds" },
};

void rm_out_list_columns(const struct rm_outopts *opts, const struct rm_column *cols,
			 size_t ncols, const char *defaults)
{
	struct rm_outopts o = *opts;
	struct rm_out *out;

	if (opts->columns)
		rm_usage_errx("--list-columns takes no -o (it lists the fields -o accepts)");
	o.columns = NULL;
	out = rm_out_new(&o, "columns", list_columns_cols,
			 sizeof(list_columns_cols) / sizeof(list_columns_cols[0]), NULL, false);
	for (size_t i = 0; i < ncols; i++) {
		bool def = true;

		if (defaults) {
			size_t len = strlen(cols[i].name);
			const char *p = defaults;

			def = false;
			while (*p) {
				size_t l = strcspn(p, ",");
				if (l == len && !strncmp(p, cols[i].name, len))
					def = true;
				p += l + (p[l] == ',');
			}
		}
		rm_out_begin(out);
		rm_out_str(out, LC_NAME, cols[i].name);
		rm_out_str(out, LC_TYPE, type_name(cols[i].type));
		rm_out_bool(out, LC_DEFAULT, def);
		rm_out_str(out, LC_DESCRIPTION, cols[i].help);
		rm_out_end(out);
	}
	rm_out_close(out);
	rm_out_flush();
}
