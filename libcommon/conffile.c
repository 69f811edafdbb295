/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading rmtools' line-based configuration files (conffile.h). */
#include "config.h"

#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"
#include "record.h"
#include "xalloc.h"

char *rm_conf_path(const char *name)
{
	const char *v = getenv("RM_CONFIG_DIR");

	return xasprintf("%s/%s", v && *v ? v : RM_CONF_DIR_DEFAULT, name);
}

FILE *rm_fopen_read(const char *path)
{
	/* O_NONBLOCK: the open of a FIFO without a writer returns at once (a blocking one waits
	 * for a writer for ever); reads are blocking again after it, and read end-of-file while
	 * no one writes */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), saved;
	struct stat st;
	FILE *f = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		saved = errno;
	else if (S_ISDIR(st.st_mode))
		saved = EISDIR;
	else if (!(f = fdopen(fd, "re")))
		saved = errno;
	else
		return f;
	close(fd);
	errno = saved;
	return NULL;
}

int rm_conf_open(struct rm_conf *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(path);
	c->file = c->path;
	if (!strcmp(path, "-")) {
		c->f = stdin;
		c->file = "(standard input)";
		return 0;
	}
	if (!(c->f = rm_fopen_read(path))) {
		int saved = errno;

		free(c->path);
		c->path = NULL;
		errno = saved;
		return -1;
	}
	return 0;
}

void rm_conf_close(struct rm_conf *c)
{
	if (c->f && c->f != stdin)
		fclose(c->f);
	free(c->buf);
	free(c->err);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

void rm_conf_fail(struct rm_conf *c, unsigned line, unsigned col, char *msg)
{
	if (!c->err)
		c->err = xasprintf("%s:%u:%u: %s", c->file, line ? line : c->line, col, msg);
	free(msg);
}

void rm_conf_fail_shown(struct rm_conf *c, unsigned col, const char *fmt, const char *subject)
{
	char *x = rm_record_show(subject, strlen(subject));

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	rm_conf_fail(c, 0, col, xasprintf(fmt, x));
#pragma GCC diagnostic pop
	free(x);
}

/* Split LINE in place at blanks, up to a '#' that starts a word. Returns the count, or -1 when
 * the line has too many words. */
static int tokenize(char *line, struct rm_conf_word *w)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == RM_CONF_MAX_WORDS)
			return -1;
		w[n].text = p;
		w[n].col = (unsigned)(p - line) + 1;
		n++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

int rm_conf_next(struct rm_conf *c, struct rm_conf_word *w)
{
	ssize_t len;
	int n;

	if (c->err)
		return -1;
	errno = 0;
	while ((len = getline(&c->buf, &c->cap, c->f)) >= 0) {
		c->line++;
		while (len && (c->buf[len - 1] == '\n' || c->buf[len - 1] == '\r'))
			c->buf[--len] = '\0';
		if (len > RM_CONF_MAX_LINE) {
			rm_conf_fail(c, 0, RM_CONF_MAX_LINE + 1,
				     xasprintf("the line is longer than %d bytes", RM_CONF_MAX_LINE));
			return -1;
		}
		if (strlen(c->buf) != (size_t)len) {
			rm_conf_fail(c, 0, (unsigned)strlen(c->buf) + 1,
				     xstrdup("a NUL byte in the line"));
			return -1;
		}
		if ((n = tokenize(c->buf, w)) < 0) {
			rm_conf_fail(c, 0, 1, xasprintf("more than %d words", RM_CONF_MAX_WORDS));
			return -1;
		}
		if (n)
			return n;
	}
	if (ferror(c->f))
		return -1;
	return 0;
}

int rm_conf_split(struct rm_conf_word *w, char **value, unsigned *vcol)
{
	char *eq = strchr(w->text, '=');

	if (!eq || eq == w->text)
		return -1;
	*eq = '\0';
	*value = eq + 1;
	*vcol = w->col + (unsigned)(eq + 1 - w->text);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rm_conf_digest(struct rm_conf_word *w, int n, char out[17])
{
	char **v = xcalloc((size_t)n + 1, sizeof(*v));
	uint64_t h = 14695981039346656037ULL;

	for (int i = 0; i < n; i++)
		v[i] = w[i].text;
	qsort(v, (size_t)n, sizeof(*v), cmp_str);
	for (int i = 0; i < n; i++)
		for (const unsigned char *p = (const unsigned char *)v[i];; p++) {
			h = (h ^ *p) * 1099511628211ULL;
			if (!*p)
				break;
		}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	free(v);
}
