/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Resource classes: named selectors over device records, from class files and built-ins. */
#ifndef RM_CLASSES_H
#define RM_CLASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "record.h"
#include "selector.h"

/*
 * A class file (rm-class.conf(5)) holds one or more classes:
 *   [class gpu-16g]
 *   description = GPUs with at least 16 GiB
 *   selector = type == "gpu" and
 *       memory >= 16GiB
 *   count = 1
 *   policy = single-numa-node
 *   exclusive = yes
 * Lines that start with a blank continue the value above; '#' starts a comment line.
 */
struct rm_class {
	char *name;
	char *description;     /* NULL: none */
	struct rm_selector *sel;
	unsigned count;        /* devices a request takes by default: 1 */
	int policy;            /* enum rm_tm_policy (cpualloc.h): RM_TM_NONE by default */
	bool exclusive;        /* devices held by one owner at a time: yes by default */
	char *file;            /* where it is defined; NULL for a built-in */
	unsigned line;         /* of its [class NAME] line */
};

struct rm_classes {
	struct rm_class *v;    /* in the order loaded: built-ins first, then files by name */
	size_t n;
	char **errors;         /* every error met, "FILE:LINE:COLUMN: what" */
	size_t nerrors;
	char **warnings;       /* unknown fields: "FILE:LINE:COLUMN: warning: ..." */
	size_t nwarnings;
	bool io_failed;        /* a file or directory could not be read (exit status 1) */
};

/* The class directory: $RM_CONFIG_DIR/classes.d, else /etc/rmtools/classes.d. Allocated. */
char *rm_classes_dir(void);

/* Add the built-in classes (gpu, nvidia-gpu, amd-gpu, nic, rdma-nic, ib, fpga, accel, sriov-vf). */
void rm_classes_add_builtins(struct rm_classes *cl);

/*
 * Add the classes of the file PATH. Errors (syntax, values, a class named twice in the files)
 * go to cl->errors, and the file's classes are kept only when it has none. Returns the number of
 * classes it defines, or -1 when it cannot be read: a missing file is an error in cl->errors,
 * other failures also set cl->io_failed.
 */
int rm_classes_add_file(struct rm_classes *cl, const char *path);

/*
 * Add the classes of TEXT, LEN bytes read from the file PATH and a NUL after them (the file may
 * hold NUL bytes too, an error); rm_classes_add_file reads the file and calls this. TEXT is
 * changed. Returns the number of classes it defines, with errors as rm_classes_add_file.
 */
int rm_classes_add_text(struct rm_classes *cl, const char *path, char *text, size_t len);

/*
 * Add the *.conf files of DIR in name order (hidden files left out); a missing DIR has none.
 * Returns the number of files, or -1 when DIR cannot be read (as rm_classes_add_file). FN, when
 * not NULL, is called after each file with the number of classes it defined (-1: unreadable).
 */
int rm_classes_add_dir(struct rm_classes *cl, const char *dir,
		       void (*fn)(const char *path, int nclasses, void *arg), void *arg);

/*
 * Load every class: the built-ins, then the files of rm_classes_dir(); a file class replaces the
 * built-in of its name. Returns 0, or the exit status (2: a bad class file, 1: a file that cannot
 * be read) with *ERRMSG the first error.
 */
int rm_classes_load(struct rm_classes *cl, char **errmsg);

/* The class NAME, or NULL. */
const struct rm_class *rm_classes_find(const struct rm_classes *cl, const char *name);

/* "builtin" or "FILE:LINE", allocated. */
char *rm_class_source(const struct rm_class *c);

/* Whether NAME is a valid class name: [A-Za-z0-9][A-Za-z0-9_.-]{0,63}. */
bool rm_class_valid_name(const char *name);

void rm_classes_free(struct rm_classes *cl);

/*
 * Whether the device record DEV belongs to the class CLS: 1 (it does), 0 (it does not), or -1
 * with *ERRMSG (allocated): an unknown class ("no such class: 'x'"), or class files that do not
 * load (the first error). With DEV NULL it only checks CLS (0 or -1); a record of another kind
 * than "device" is in no class. The classes are loaded
 * once per process and kept: this is the one function rm-devices alloc --class and rm-class
 * match share.
 */
int rm_class_match(const char *cls, const struct rm_record *dev, char **errmsg);

/* Whether the selector of class CLS reads FIELD (so that a caller reads it for the records it
 * matches: memory asks NVML, RM_DEVICES_MEMORY); false when CLS does not load. */
bool rm_class_uses(const char *cls, const char *field);

/* The classes rm_class_match loaded (loading them first), or NULL with *ERRMSG and *STATUS (the
 * exit status). For callers that also need a class's count, policy or exclusive. */
const struct rm_classes *rm_classes_get(char **errmsg, int *status);

/* Free what rm_class_match and rm_classes_get keep; call before exiting. */
void rm_classes_release(void);

#endif
