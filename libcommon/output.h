/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output modes shared by every tool: records (default), JSON, table, raw; -o and --list-columns. */
#ifndef RM_OUTPUT_H
#define RM_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <hwloc.h>

enum rm_outmode {
	RM_OUT_RECORDS = 0,
	RM_OUT_JSON,
	RM_OUT_TABLE,
	RM_OUT_RAW,
};

/* What the user asked for with the common output options. */
struct rm_outopts {
	enum rm_outmode mode;
	bool noheadings;   /* -n: no header line in table mode */
	bool bytes;        /* --bytes: sizes as plain byte counts */
	bool list_columns; /* --list-columns */
	const char *columns; /* -o LIST, or "+LIST" to add to the defaults; NULL for defaults */
};

enum rm_coltype {
	RM_COL_STRING,
	RM_COL_INT,    /* JSON number */
	RM_COL_FLOAT,  /* JSON number */
	RM_COL_SIZE,   /* records "2MiB", JSON bytes */
	RM_COL_BOOL,   /* records yes/no, JSON true/false */
	RM_COL_SET,    /* cpu/node list; JSON string */
};

struct rm_column {
	const char *name;  /* the record key, lower case */
	enum rm_coltype type;
	const char *help;  /* one line for --list-columns and the man page */
};

struct rm_out;

/*
 * Start a listing of one record kind. KIND is the first column's name ("cpu"), LIST its JSON name
 * ("cpus"). DEFAULTS is a comma list of the columns shown by default, or NULL for all. OPTS->columns
 * is applied when APPLY_COLUMNS is true (the command's main kind); an unknown name exits 2.
 * Several listings may be open in one run; JSON puts them in one document.
 */
struct rm_out *rm_out_new(const struct rm_outopts *opts, const char *list,
			  const struct rm_column *cols, size_t ncols, const char *defaults,
			  bool apply_columns);

/*
 * Check OPTS for a listing of COLS (DEFAULTS as for rm_out_new) before anything is done, so that
 * a command that changes something refuses a bad -o before it changes it: exits 2 as rm_out_new
 * would, and also for --list-columns with -o. Prints nothing.
 */
void rm_out_check(const struct rm_outopts *opts, const struct rm_column *cols, size_t ncols,
		  const char *defaults);

/* One record: begin, set any columns (by index into COLS), end. Unset columns are unknown ("-"). */
void rm_out_begin(struct rm_out *out);
void rm_out_str(struct rm_out *out, int col, const char *value); /* NULL: unknown */
void rm_out_int(struct rm_out *out, int col, long long value);
void rm_out_float(struct rm_out *out, int col, double value, int decimals);
void rm_out_size(struct rm_out *out, int col, uint64_t bytes);
void rm_out_bool(struct rm_out *out, int col, bool value);
void rm_out_set(struct rm_out *out, int col, hwloc_const_bitmap_t set); /* NULL: unknown */
void rm_out_end(struct rm_out *out);

/* Whether column COL is shown: a column that costs reads to fill is filled only then. */
bool rm_out_shown(const struct rm_out *out, int col);

/* Finish this listing (table mode prints it here) and free it. */
void rm_out_close(struct rm_out *out);

/* Print what is pending (the JSON document). Call once, after every listing is closed. */
void rm_out_flush(void);

/* --list-columns: print COLS as records/JSON/table/raw per OPTS, marking the defaults. */
void rm_out_list_columns(const struct rm_outopts *opts, const struct rm_column *cols,
			 size_t ncols, const char *defaults);

#endif
