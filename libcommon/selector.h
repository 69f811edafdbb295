/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selector expressions over the fields of records: parse, match, explain, print (canonical, CEL). */
#ifndef RM_SELECTOR_H
#define RM_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "record.h"

/*
 * The language (rm-class.conf(5) has the grammar):
 *   type == "gpu" and vendor == 0x10de and memory >= 16GiB
 *   type == "ib" and ib_state ~ "active*" and numa in [0, 1]
 *   not has(pf) or (driver == "vfio-pci")
 * Comparisons (== != < <= > >=) of a field with a typed value: "string", integer (-1, 42),
 * hex id (0x10de), size (16GiB, 512MiB, 2G) or version (1.2.3); "in [v, ...]", "~ "glob"",
 * "has(field)", and/or/not, parentheses. A field the record lacks, or whose value is "-"
 * (unknown), makes a comparison false: "numa != 0" is false for a device without a NUMA node,
 * "not numa == 0" is true.
 */
struct rm_selector;

/* Parentheses and "not" nest at most this deep: deeper input is refused, never recursed into. */
#define RM_SELECTOR_MAX_DEPTH 64

struct rm_selector_error {
	unsigned line, column; /* 1-based, of the byte of the text where the error was found */
	char *what;            /* "expected a value after '>=', found ')'", allocated */
};

/*
 * Parse TEXT (lines separated by '\n'). Returns 0 with *SEL, or -1 with ERR filled (free its
 * what with rm_selector_error_free). Known fields of device records (rm_selector_fields) are
 * type-checked: "memory >= 16" is refused, sizes are expected for memory.
 */
int rm_selector_parse(const char *text, struct rm_selector **sel, struct rm_selector_error *err);

/*
 * Flags of rm_selector_parse_flags. RM_SELECTOR_METRICS: the fields are measurements, not device
 * fields (none is type-checked), may be dotted (cpu.pressure.some), and numbers with a fraction
 * (1.5) or a percent sign (1%, 0.5%) are decimals, compared with a field's number (a trailing '%'
 * in the field's value is ignored: percentages are numbers of percent) instead of as versions.
 */
enum { RM_SELECTOR_METRICS = 1 << 0 };
int rm_selector_parse_flags(const char *text, unsigned flags, struct rm_selector **sel,
			    struct rm_selector_error *err);
void rm_selector_free(struct rm_selector *sel);
void rm_selector_error_free(struct rm_selector_error *err);

/* Whether the record REC satisfies SEL. Never fails: a missing field is a false comparison. */
bool rm_selector_match(const struct rm_selector *sel, const struct rm_record *rec);

/* SEL in canonical form, one line, allocated: parsing it again gives the same selector. */
char *rm_selector_format(const struct rm_selector *sel);

/* One clause (a comparison, "in", "~" or "has") and what it gave for one record. */
struct rm_selector_clause {
	const char *text;  /* the clause in canonical form */
	const char *field; /* the field it reads */
	const char *value; /* the record's value of it, NULL when the record has none */
	bool result;
	bool decides;      /* the outcome rests on it: a failed clause of a failed match, or a
			      clause a match needed */
};

/* Call FN for each clause of SEL, in the order written, evaluated on REC. Returns the match. */
bool rm_selector_explain(const struct rm_selector *sel, const struct rm_record *rec,
			 void (*fn)(const struct rm_selector_clause *clause, void *arg), void *arg);

/* The fields SEL reads, each once, in the order first named, with where (line and column of the
 * text) and whether it is a field of device records (rm_selector_fields). */
void rm_selector_each_field(const struct rm_selector *sel,
			    void (*fn)(const char *field, unsigned line, unsigned column, bool known,
				       void *arg),
			    void *arg);

/* Whether SEL reads FIELD (a field name, lower case); false for SEL NULL. */
bool rm_selector_uses(const struct rm_selector *sel, const char *field);

/*
 * SEL as a CEL expression for a Kubernetes DRA DeviceClass: fields are attributes of DOMAIN
 * (device.attributes["rmtools.io"].type) but device and numa, the standard attributes
 * resource.kubernetes.io/pciBusID and numaNode; sizes are capacities compared with quantity(), each
 * comparison guarded with has(). Returns 0 with *CEL allocated, or -1 with *ERRMSG naming the
 * clause that has no CEL form (versions, unknown fields, strings that are not UTF-8).
 */
int rm_selector_cel(const struct rm_selector *sel, const char *domain, char **cel, char **errmsg);

/*
 * SEL as SR-IOV network device plugin selector objects: a JSON array of objects, one per term
 * of a top-level "or", each term an "and" of equalities and "in" lists on vendor, product,
 * driver, device, pf, type (nic, ib) and link_layer, and has(rdma). Returns 0 with *JSON
 * allocated (indented by INDENT spaces after each newline), or -1 with *ERRMSG naming the clause
 * the plugin cannot select on.
 */
int rm_selector_sriovdp(const struct rm_selector *sel, int indent, char **json, char **errmsg);

/* The fields of device records and the values they hold. */
enum rm_field_type {
	RM_FIELD_STRING, /* text; versions compare with its leading numbers */
	RM_FIELD_INT,    /* a decimal integer */
	RM_FIELD_HEX,    /* a hex id of fixed width, without 0x ("10de") */
	RM_FIELD_SIZE,   /* a size ("16GiB") */
	RM_FIELD_LIST,   /* a CPU list, compared as text */
};
struct rm_selector_field {
	const char *name;
	enum rm_field_type type;
	int width; /* RM_FIELD_HEX: the number of hex digits */
};
extern const struct rm_selector_field rm_selector_fields[];
extern const size_t rm_selector_nfields;
/* "string", "integer", "hex", "size", "cpulist" */
const char *rm_selector_type_name(enum rm_field_type type);

#endif
