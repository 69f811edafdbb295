/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration files under /etc/rmtools (hugepages.conf, cpuset.conf, storage.conf): one
 * setting a line, words separated by blanks, a '#' that starts a word starts a comment,
 * settings as key=value words; every error located as FILE:LINE:COLUMN. */
#ifndef RM_CONFFILE_H
#define RM_CONFFILE_H

#include <stdio.h>

#define RM_CONF_DIR_DEFAULT "/etc/rmtools"
#define RM_CONF_MAX_WORDS 32    /* words on a line */
#define RM_CONF_MAX_LINE 4096   /* bytes on a line */

struct rm_conf_word {
	char *text;
	unsigned col;   /* 1-based */
};

struct rm_conf {
	char *path;     /* the file's name, "-" for standard input */
	const char *file; /* as messages name it */
	FILE *f;
	char *buf;
	size_t cap;
	unsigned line;  /* of the words last returned */
	char *err;      /* the first error, "FILE:LINE:COL: message", or NULL */
};

/* The file NAME of the configuration directory: $RM_CONFIG_DIR/NAME, else /etc/rmtools/NAME.
 * Allocated. */
char *rm_conf_path(const char *name);

/* Open PATH ("-": standard input) for reading. -1 with errno. */
int rm_conf_open(struct rm_conf *c, const char *path);

/* PATH opened to read ("re"), as cat(1) would but never waiting for a writer: a FIFO nobody
 * writes reads as empty rather than blocks, and a directory fails (EISDIR). NULL with errno. */
FILE *rm_fopen_read(const char *path);
void rm_conf_close(struct rm_conf *c);

/* Split the next line that has words into W (RM_CONF_MAX_WORDS of them). Returns their count,
 * 0 at the end of the file, -1 for a bad line (c->err set) or a read error (c->err NULL,
 * errno set). */
int rm_conf_next(struct rm_conf *c, struct rm_conf_word *w);

/* Record an error at column COL of line LINE (0: the current line), unless one is recorded;
 * MSG is taken. */
void rm_conf_fail(struct rm_conf *c, unsigned line, unsigned col, char *msg);
/* The same with FMT's one %s the SUBJECT as records show it (quoted when it needs to be). */
__attribute__((format(printf, 4, 0)))
void rm_conf_fail_shown(struct rm_conf *c, unsigned col, const char *fmt, const char *subject);

/* "key=value": cut the key off in place, *VALUE and its column. -1 when W has no '=' or an
 * empty key. */
int rm_conf_split(struct rm_conf_word *w, char **value, unsigned *vcol);

/* A digest of the N words W (FNV-1a, 16 hex digits and a NUL in OUT), the same whatever their
 * order: what the state keeps of a line, to tell an unchanged line from an edited one. */
void rm_conf_digest(struct rm_conf_word *w, int n, char out[17]);

#endif
