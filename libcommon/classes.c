/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Resource classes: class files and the built-in classes, and the one match function. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classes.h"
#include "cpualloc.h"
#include "xalloc.h"

/* A class file larger than this is refused: classes are a few lines each. */
#define MAX_FILE (1024 * 1024)

/* The built-in classes, in class-file form; a class file may replace any of them. */
static const char builtins[] =
	"[class gpu]\n"
	"description = GPUs of any vendor\n"
	"selector = type == \"gpu\"\n"
	"[class nvidia-gpu]\n"
	"description = NVIDIA GPUs\n"
	"selector = type == \"gpu\" and vendor == 0x10de\n"
	"[class amd-gpu]\n"
	"description = AMD GPUs\n"
	"selector = type == \"gpu\" and vendor == 0x1002\n"
	"[class nic]\n"
	"description = Ethernet adapters, physical and virtual functions\n"
	"selector = type == \"nic\"\n"
	"[class rdma-nic]\n"
	"description = network adapters with RDMA (RoCE or InfiniBand)\n"
	"selector = type in [\"nic\", \"ib\"] and has(rdma)\n"
	"[class ib]\n"
	"description = InfiniBand adapters\n"
	"selector = type == \"ib\"\n"
	"[class fpga]\n"
	"description = FPGAs\n"
	"selector = type == \"fpga\"\n"
	"[class accel]\n"
	"description = processing accelerators\n"
	"selector = type == \"accel\"\n"
	"[class sriov-vf]\n"
	"description = SR-IOV virtual functions\n"
	"selector = sriov == \"vf\"\n";

char *rm_classes_dir(void)
{
	const char *v = getenv("RM_CONFIG_DIR");

	return xasprintf("%s/classes.d", v && *v ? v : "/etc/rmtools");
}

bool rm_class_valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n < 1 || n > 64 || name[0] == '.' || name[0] == '-' || name[0] == '_')
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
			return false;
	return true;
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static void class_free(struct rm_class *c)
{
	free(c->name);
	free(c->description);
	rm_selector_free(c->sel);
	free(c->file);
}

void rm_classes_free(struct rm_classes *cl)
{
	for (size_t i = 0; i < cl->n; i++)
		class_free(&cl->v[i]);
	free(cl->v);
	for (size_t i = 0; i < cl->nerrors; i++)
		free(cl->errors[i]);
	free(cl->errors);
	for (size_t i = 0; i < cl->nwarnings; i++)
		free(cl->warnings[i]);
	free(cl->warnings);
	memset(cl, 0, sizeof(*cl));
}

const struct rm_class *rm_classes_find(const struct rm_classes *cl, const char *name)
{
	for (size_t i = 0; i < cl->n; i++)
		if (!strcmp(cl->v[i].name, name))
			return &cl->v[i];
	return NULL;
}

char *rm_class_source(const struct rm_class *c)
{
	return c->file ? xasprintf("%s:%u", c->file, c->line) : xstrdup("builtin");
}

/* ---- parsing a class file ---- */

/* A key = value entry being read: its value may go on over continuation lines. */
struct keyval {
	int key;             /* index into keys[], -1: none pending */
	unsigned line, column; /* of the value's first byte */
	char *value;         /* selector: lines joined by '\n' as written; others: by one space */
	size_t len;
	unsigned blank;      /* blank and comment lines since the last line of the value */
};

enum { K_DESCRIPTION, K_SELECTOR, K_COUNT, K_POLICY, K_EXCLUSIVE, K_NKEYS };
static const char *const keys[] = { "description", "selector", "count", "policy", "exclusive" };

/* An error of a file, kept to be reported in line order. */
struct file_err {
	unsigned line, column, seq;
	char *msg; /* "FILE:LINE:COLUMN: what" */
};

/* Where a class of the class files is defined: the nodes of fileparse.names. */
struct defined_at {
	const char *name, *file;
	unsigned line;
};

struct fileparse {
	struct rm_classes *cl;
	struct file_err *errs;
	const char *path;
	struct rm_class *v;  /* this file's classes */
	size_t n;
	void *names;         /* tsearch tree of struct defined_at: the classes of the files so far,
				so that a file of many classes is not read in quadratic time */
	unsigned seen[K_NKEYS]; /* line of each key in the current class, 0: not yet */
	unsigned nerrors;
	struct keyval e;
	long cur;            /* the class being read (index into v), -1: none */
	bool skip;           /* continuation lines of a refused line are skipped */
	bool bad_section;    /* the lines of a refused [class] line are skipped */
};

__attribute__((format(printf, 4, 5)))
static void file_error(struct fileparse *f, unsigned line, unsigned column, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	va_end(ap);
	f->errs = xrealloc(f->errs, (f->nerrors + 1) * sizeof(*f->errs));
	f->errs[f->nerrors] = (struct file_err){
		line, column, f->nerrors, xasprintf("%s:%u:%u: %s", f->path, line, column, what)
	};
	free(what);
	f->nerrors++;
}

static int err_cmp(const void *a, const void *b)
{
	const struct file_err *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The file's errors into the classes' list, in the order of the lines. */
static void report(struct fileparse *f)
{
	if (f->nerrors) /* qsort wants a valid pointer, even for nothing */
		qsort(f->errs, f->nerrors, sizeof(*f->errs), err_cmp);
	for (unsigned i = 0; i < f->nerrors; i++)
		push(&f->cl->errors, &f->cl->nerrors, f->errs[i].msg);
	free(f->errs);
	f->errs = NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void append(struct keyval *e, const char *s, size_t n)
{
	e->value = xrealloc(e->value, e->len + n + 1);
	memcpy(e->value + e->len, s, n);
	e->len += n;
	e->value[e->len] = '\0';
}

struct warn_ctx {
	struct fileparse *f;
	unsigned line, column; /* where the value starts */
};

static void warn_unknown(const char *field, unsigned line, unsigned column, bool known,
			 void *arg)
{
	struct warn_ctx *w = arg;
	unsigned l = w->line + line - 1, c = line == 1 ? w->column + column - 1 : column;

	if (known)
		return;

	push(&w->f->cl->warnings, &w->f->cl->nwarnings,
	     xasprintf("%s:%u:%u: warning: unknown field '%s' (not a field of device records)",
		       w->f->path, l, c, field));
}

/* The pending entry's value V is not what its key takes: "expected WHAT, found 'V'". */
static void bad_value(struct fileparse *f, const char *what, const char *v)
{
	char *s = rm_record_show(v, strlen(v)); /* control bytes as \xHH: the message is one line */

	file_error(f, f->e.line, f->e.column, "expected %s, found '%s'", what, s);
	free(s);
}

/* The value of the pending entry into the current class. */
static void finish_entry(struct fileparse *f)
{
	struct keyval *e = &f->e;
	struct rm_class *c = f->cur >= 0 ? &f->v[f->cur] : NULL;
	const char *v = e->value ? e->value : "";
	struct rm_selector_error serr;
	char *end;
	long n;

	if (e->key < 0 || !c)
		goto out;
	switch (e->key) {
	case K_DESCRIPTION:
		free(c->description);
		c->description = xstrdup(v);
		break;
	case K_SELECTOR:
		if (rm_selector_parse(v, &c->sel, &serr)) {
			file_error(f, e->line + serr.line - 1,
				   serr.line == 1 ? e->column + serr.column - 1 : serr.column, "%s",
				   serr.what);
			rm_selector_error_free(&serr);
		} else {
			struct warn_ctx w = { f, e->line, e->column };

			rm_selector_each_field(c->sel, warn_unknown, &w);
		}
		break;
	case K_COUNT:
		errno = 0;
		n = strtol(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || errno || n < 1 || n > 1000000)
			bad_value(f, "a count from 1 to 1000000", v);
		else
			c->count = (unsigned)n;
		break;
	case K_POLICY:
		if ((n = rm_tm_policy_parse(v)) < 0)
			bad_value(f, "a policy (none, best-effort, restricted, single-numa-node)", v);
		else
			c->policy = (int)n;
		break;
	case K_EXCLUSIVE:
		if (!strcmp(v, "yes") || !strcmp(v, "no"))
			c->exclusive = !strcmp(v, "yes");
		else
			bad_value(f, "yes or no", v);
		break;
	}
out:
	free(e->value);
	memset(e, 0, sizeof(*e));
	e->key = -1;
}

/* The class being read is complete: it needs a selector. */
static void finish_class(struct fileparse *f)
{
	struct rm_class *c;

	finish_entry(f);
	if (f->cur < 0)
		return;
	c = &f->v[f->cur];
	if (!c->sel && !f->seen[K_SELECTOR])
		file_error(f, c->line, 1, "expected a selector in class '%s'", c->name);
	f->cur = -1;
}

static int defined_cmp(const void *a, const void *b)
{
	return strcmp(((const struct defined_at *)a)->name, ((const struct defined_at *)b)->name);
}

/* Note that the class NAME is defined at FILE:LINE (strings that outlive the parse). */
static void define(struct fileparse *f, const char *name, const char *file, unsigned line)
{
	struct defined_at *d = xmalloc(sizeof(*d));
	void *node;

	*d = (struct defined_at){ name, file, line };
	if (!(node = tsearch(d, &f->names, defined_cmp)))
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	if (*(struct defined_at **)node != d)
		free(d); /* the first place counts */
}

/* "FILE:LINE" where the class NAME is defined already, in this file or in a file read before;
 * NULL. */
static char *defined(const struct fileparse *f, const char *name)
{
	struct defined_at key = { .name = name };
	void *node = tfind(&key, &f->names, defined_cmp);
	const struct defined_at *d = node ? *(const struct defined_at **)node : NULL;

	return d ? xasprintf("%s:%u", d->file, d->line) : NULL;
}

/* "[class NAME]" at LINE (the whole line, trailing blanks allowed). */
static void section(struct fileparse *f, const char *line, unsigned lineno)
{
	const char *p = line + 1, *name, *end;
	struct rm_class *c;
	char *nm, *where;

	finish_class(f);
	while (is_blank(*p))
		p++;
	if (strncmp(p, "class", 5) || !is_blank(p[5])) {
		file_error(f, lineno, (unsigned)(p - line) + 1, "expected '[class NAME]'");
		return;
	}
	p += 5;
	while (is_blank(*p))
		p++;
	name = p;
	while (*p && *p != ']' && !is_blank(*p))
		p++;
	end = p;
	while (is_blank(*p))
		p++;
	if (end == name) {
		file_error(f, lineno, (unsigned)(p - line) + 1, "expected a class name after "
			   "'[class'");
		return;
	}
	if (*p != ']') {
		char *s = rm_record_show(p, *p ? 1 : 0);

		file_error(f, lineno, (unsigned)(p - line) + 1,
			   "expected ']' after the class name, found %s%s%s", *p ? "'" : "",
			   *p ? s : "the end of the line", *p ? "'" : "");
		free(s);
		return;
	}
	for (p++; is_blank(*p); p++)
		;
	if (*p) {
		file_error(f, lineno, (unsigned)(p - line) + 1,
			   "expected the end of the line after ']'");
		return;
	}
	nm = rm_record_show(name, end - name);
	if (!rm_class_valid_name(nm)) {
		file_error(f, lineno, (unsigned)(name - line) + 1,
			   "invalid class name '%s' (letters, digits, '_', '.' and '-', at most 64, "
			   "starting with a letter or a digit)", nm);
		free(nm);
		return;
	}
	if ((where = defined(f, nm))) {
		file_error(f, lineno, (unsigned)(name - line) + 1,
			   "class '%s' is defined twice (first at %s)", nm, where);
		free(where);
		free(nm);
		return;
	}
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	c = &f->v[f->n++];
	memset(c, 0, sizeof(*c));
	c->name = nm;
	c->count = 1;
	c->policy = RM_TM_NONE;
	c->exclusive = true;
	c->file = xstrdup(f->path);
	c->line = lineno;
	define(f, c->name, c->file, lineno);
	f->cur = (long)f->n - 1;
	memset(f->seen, 0, sizeof(f->seen));
}

/* "key = value" at LINE. */
static void key_value(struct fileparse *f, const char *line, unsigned lineno)
{
	const char *p = line, *key, *val, *end;
	int k = -1;
	char *name;

	finish_entry(f);
	key = p;
	while ((*p >= 'a' && *p <= 'z') || *p == '_')
		p++;
	if (p == key) {
		char *s = rm_record_show(p, 1);

		file_error(f, lineno, 1, "expected a key or '[class NAME]', found '%s'", s);
		free(s);
		return;
	}
	name = rm_record_show(key, p - key);
	while (is_blank(*p))
		p++;
	if (*p != '=') {
		file_error(f, lineno, (unsigned)(p - line) + 1, "expected '=' after '%s'", name);
		goto out;
	}
	for (int i = 0; i < K_NKEYS; i++)
		if (!strcmp(name, keys[i]))
			k = i;
	if (k < 0) {
		file_error(f, lineno, 1,
			   "unknown key '%s' (description, selector, count, policy, exclusive)",
			   name);
		goto out;
	}
	if (f->cur < 0) {
		file_error(f, lineno, 1, "expected '[class NAME]' before '%s'", name);
		goto out;
	}
	if (f->seen[k]) {
		file_error(f, lineno, 1, "'%s' is given twice in class '%s' (first at line %u)",
			   name, f->v[f->cur].name, f->seen[k]);
		goto out;
	}
	f->seen[k] = lineno;
	for (p++; is_blank(*p); p++)
		;
	val = p;
	end = val + strlen(val);
	while (end > val && is_blank(end[-1]))
		end--;
	f->e.key = k;
	f->e.line = lineno;
	f->e.column = (unsigned)(val - line) + 1;
	append(&f->e, val, end - val);
out:
	free(name);
}

/* A line that starts with a blank: more of the pending value. */
static void continuation(struct fileparse *f, const char *line, unsigned lineno)
{
	struct keyval *e = &f->e;
	const char *p = line, *end = line + strlen(line);

	if (f->skip)
		return; /* more of a refused line: its error is enough */
	if (e->key < 0) {
		file_error(f, lineno, 1, "expected a key (a line that starts with a blank "
			   "continues the value above)");
		f->skip = true;
		return;
	}
	if (e->key == K_SELECTOR) {
		/* the lines as written, so that columns in messages are the file's */
		for (unsigned i = 0; i <= e->blank; i++)
			append(e, "\n", 1);
		append(e, line, end - line);
	} else {
		while (is_blank(*p))
			p++;
		while (end > p && is_blank(end[-1]))
			end--;
		if (e->len)
			append(e, " ", 1);
		append(e, p, end - p);
	}
	e->blank = 0;
}

static void parse_text(struct fileparse *f, char *text, size_t len)
{
	unsigned lineno = 0;
	char *line = text, *nl;

	f->e.key = -1;
	f->cur = -1;
	for (size_t i = 0; i < f->cl->n; i++)
		if (f->cl->v[i].file)
			define(f, f->cl->v[i].name, f->cl->v[i].file, f->cl->v[i].line);
	while (line < text + len) {
		const char *p;

		lineno++;
		nl = memchr(line, '\n', text + len - line);
		if (nl)
			*nl = '\0';
		else
			nl = text + len;
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		for (p = line; is_blank(*p); p++)
			;
		if (!*p || *p == '#') {
			if (f->e.key >= 0)
				f->e.blank++;
		} else if (is_blank(*line)) {
			if (!f->bad_section)
				continuation(f, line, lineno);
		} else if (*line == '[') {
			unsigned before;

			finish_class(f); /* its errors are not this line's */
			before = f->nerrors;
			section(f, line, lineno);
			/* one error for a refused class, none for its lines */
			f->bad_section = f->nerrors != before;
			f->skip = false;
		} else if (!f->bad_section) {
			unsigned before;

			finish_entry(f);
			before = f->nerrors;
			key_value(f, line, lineno);
			f->skip = f->nerrors != before;
		}
		line = nl + 1;
	}
	finish_class(f);
	tdestroy(f->names, free);
	f->names = NULL;
}

/* Keep the classes of a file without errors: each replaces a built-in of its name. */
static int adopt(struct fileparse *f)
{
	struct rm_classes *cl = f->cl;
	int n = (int)f->n;

	report(f);
	if (f->nerrors) {
		for (size_t i = 0; i < f->n; i++)
			class_free(&f->v[i]);
		free(f->v);
		return n;
	}
	for (size_t i = 0; i < f->n; i++) {
		for (size_t k = 0; k < cl->n; k++) {
			if (cl->v[k].file || strcmp(cl->v[k].name, f->v[i].name))
				continue;
			class_free(&cl->v[k]);
			memmove(&cl->v[k], &cl->v[k + 1], (cl->n - k - 1) * sizeof(*cl->v));
			cl->n--;
			break;
		}
		cl->v = xrealloc(cl->v, (cl->n + 1) * sizeof(*cl->v));
		cl->v[cl->n++] = f->v[i];
	}
	free(f->v);
	return n;
}

int rm_classes_add_text(struct rm_classes *cl, const char *path, char *text, size_t len)
{
	struct fileparse f = { .cl = cl, .path = path };
	char *nul = memchr(text, '\0', len);

	if (nul) {
		unsigned line = 1;
		const char *bol = text;

		for (const char *p = text; p < nul; p++)
			if (*p == '\n') {
				line++;
				bol = p + 1;
			}
		file_error(&f, line, (unsigned)(nul - bol) + 1, "NUL byte in a class file");
		report(&f);
		return 0;
	}
	parse_text(&f, text, len);
	return adopt(&f);
}

void rm_classes_add_builtins(struct rm_classes *cl)
{
	char *text = xstrdup(builtins);
	size_t first = cl->n;

	rm_classes_add_text(cl, "builtin", text, strlen(text));
	free(text);
	for (size_t i = first; i < cl->n; i++) {
		free(cl->v[i].file);
		cl->v[i].file = NULL;
	}
}

int rm_classes_add_file(struct rm_classes *cl, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	ssize_t r;
	int rc;

	if (fd < 0 || fstat(fd, &st) < 0) {
		push(&cl->errors, &cl->nerrors,
		     xasprintf("cannot read '%s': %s", path, strerror(errno)));
		cl->io_failed |= errno != ENOENT;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		push(&cl->errors, &cl->nerrors, xasprintf("not a regular file: '%s'", path));
		close(fd);
		return -1;
	}
	text = xmalloc(MAX_FILE + 1);
	while ((r = read(fd, text + len, MAX_FILE + 1 - len)) > 0 && len + (size_t)r <= MAX_FILE)
		len += (size_t)r;
	if (r < 0) {
		push(&cl->errors, &cl->nerrors,
		     xasprintf("cannot read '%s': %s", path, strerror(errno)));
		cl->io_failed = true;
		rc = -1;
	} else if (r > 0) {
		push(&cl->errors, &cl->nerrors,
		     xasprintf("class file larger than %d bytes: '%s'", MAX_FILE, path));
		rc = -1;
	} else {
		text[len] = '\0'; /* the last line may have no newline to end it */
		rc = rm_classes_add_text(cl, path, text, len);
	}
	free(text);
	close(fd);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rm_classes_add_dir(struct rm_classes *cl, const char *dir,
		       void (*fn)(const char *path, int nclasses, void *arg), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		push(&cl->errors, &cl->nerrors,
		     xasprintf("cannot read '%s': %s", dir, strerror(errno)));
		cl->io_failed |= errno != ENOTDIR;
		return -1;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf"))
			continue;
		push(&names, &n, xasprintf("%s/%s", dir, de->d_name));
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		int rc = rm_classes_add_file(cl, names[i]);

		if (fn)
			fn(names[i], rc, arg);
		free(names[i]);
	}
	free(names);
	return (int)n;
}

int rm_classes_load(struct rm_classes *cl, char **errmsg)
{
	char *dir = rm_classes_dir();

	memset(cl, 0, sizeof(*cl));
	rm_classes_add_builtins(cl);
	rm_classes_add_dir(cl, dir, NULL, NULL);
	free(dir);
	if (!cl->nerrors)
		return 0;
	*errmsg = xstrdup(cl->errors[0]);
	return cl->io_failed ? RM_EXIT_FAILURE : RM_EXIT_USAGE;
}

/* ---- the classes of this process ---- */

static struct rm_classes loaded;
static bool have_loaded;
static char *load_error;
static int load_status;

const struct rm_classes *rm_classes_get(char **errmsg, int *status)
{
	if (!have_loaded) {
		load_status = rm_classes_load(&loaded, &load_error);
		have_loaded = true;
	}
	if (load_status) {
		*errmsg = xstrdup(load_error);
		*status = load_status;
		return NULL;
	}
	return &loaded;
}

int rm_class_match(const char *cls, const struct rm_record *dev, char **errmsg)
{
	const struct rm_classes *cl;
	const struct rm_class *c;
	int status;

	if (!(cl = rm_classes_get(errmsg, &status)))
		return -1;
	if (!(c = rm_classes_find(cl, cls))) {
		char *s = rm_record_show(cls, strlen(cls));

		*errmsg = xasprintf("no such class: '%s' (see rm-class list)", s);
		free(s);
		return -1;
	}
	/* classes are of devices: a record of another kind is in none */
	if (!dev || !rm_record_kind(dev) || strcmp(rm_record_kind(dev), "device"))
		return 0;
	return rm_selector_match(c->sel, dev);
}

bool rm_class_uses(const char *cls, const char *field)
{
	const struct rm_classes *cl;
	const struct rm_class *c;
	char *msg = NULL;
	int status;

	if (!(cl = rm_classes_get(&msg, &status))) {
		free(msg);
		return false;
	}
	return (c = rm_classes_find(cl, cls)) && rm_selector_uses(c->sel, field);
}

void rm_classes_release(void)
{
	if (have_loaded)
		rm_classes_free(&loaded);
	free(load_error);
	load_error = NULL;
	have_loaded = false;
	load_status = 0;
}
