/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading rmtools' JSON documents back as records, for rm-bench compare. */
#ifndef RM_BENCH_JSON_H
#define RM_BENCH_JSON_H

#include <stddef.h>

#include "record.h"

/*
 * Parse TEXT (LEN bytes), a JSON document as the tools write it: an object of arrays of flat
 * objects ({"mem": [{"bench": "mem", "op": "triad", ...}], ...}), or one array of objects. Each
 * object becomes a record with its members in order: strings unescaped, numbers as written,
 * true/false as yes/no, null as "-"; nested arrays and objects are left out. Returns 0 with
 * *RECS allocated (*N records), or -1 with *ERRMSG allocated ("line 3, column 7: expected ','").
 */
int json_read_records(const char *text, size_t len, struct rm_record **recs, size_t *n,
		      char **errmsg);

#endif
