/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files of the kernel's pseudo file systems: whole reads, single writes, and an undo log. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernfs.h"
#include "xalloc.h"

/*
 * Written by hand: these files are read whole and written with one write(2) each, which stdio
 * does not promise, and the same code must run against the test trees that stand in for them.
 */

char *rm_kernfs_read_raw(const char *path, int flags, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | (flags & RM_KERNFS_NOFOLLOW ? O_NOFOLLOW : 0));
	size_t cap = 256;
	char *buf;

	*len = 0;
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (*len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		n = read(fd, buf + *len, cap - *len - 1);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			close(fd);
			free(buf);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			break;
		*len += n;
	}
	close(fd);
	buf[*len] = '\0';
	return buf;
}

char *rm_kernfs_read(const char *path, int flags)
{
	size_t len;
	char *buf = rm_kernfs_read_raw(path, flags, &len);

	if (!buf)
		return NULL;
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	return buf;
}

int rm_kernfs_write(const char *path, const char *value, int flags)
{
	char *buf = xasprintf("%s\n", value);
	size_t len = strlen(buf);
	int fd, rc = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC | (flags & RM_KERNFS_NOFOLLOW ? O_NOFOLLOW : 0) |
				(flags & RM_KERNFS_TRUNC ? O_TRUNC : 0));
	if (fd < 0) {
		rc = errno;
	} else {
		do
			n = write(fd, buf, len);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			rc = errno;
		else if ((size_t)n != len)
			rc = EIO;
		if (close(fd) < 0 && !rc && errno != EINTR)
			rc = errno;
	}
	free(buf);
	return rc;
}

static int stat_as(const char *path, int flags, struct stat *st)
{
	return flags & RM_KERNFS_NOFOLLOW ? lstat(path, st) : stat(path, st);
}

bool rm_kernfs_exists(const char *path, int flags)
{
	struct stat st;

	return stat_as(path, flags, &st) == 0;
}

bool rm_kernfs_is_dir(const char *path, int flags)
{
	struct stat st;

	return stat_as(path, flags, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rm_kernfs_list_has(const char *dir, const char *file, const char *word, int flags)
{
	char *path = xasprintf("%s/%s", dir, file), *s = rm_kernfs_read(path, flags), *tok, *save;
	bool found = false;

	free(path);
	if (!s)
		return false;
	for (tok = strtok_r(s, " \t\n", &save); tok && !found; tok = strtok_r(NULL, " \t\n", &save))
		found = !strcmp(tok, word);
	free(s);
	return found;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rm_kernfs_subdirs(const char *dir, int flags, bool (*keep)(const char *), char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *path;
		bool is_dir;

		if (e->d_name[0] == '.' || (keep && !keep(e->d_name)))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		is_dir = rm_kernfs_is_dir(path, flags);
		free(path);
		if (!is_dir)
			continue;
		*names = xrealloc(*names, (n + 1) * sizeof(**names));
		(*names)[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(**names), cmp_names);
	return n;
}

void rm_kernfs_names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- the undo log ---- */

void rm_kernfs_log_push(struct rm_kernfs_log *log, enum rm_kernfs_undo_kind kind, const char *path,
			const char *value)
{
	if (log->n == log->cap) {
		log->cap = log->cap ? 2 * log->cap : 16;
		log->u = xrealloc(log->u, log->cap * sizeof(*log->u));
	}
	log->u[log->n].kind = kind;
	log->u[log->n].path = xstrdup(path);
	log->u[log->n].value = value ? xstrdup(value) : NULL;
	log->n++;
}

void rm_kernfs_undo(struct rm_kernfs_log *log, char **errmsg)
{
	char *uerr = NULL;

	while (log->n) {
		struct rm_kernfs_undo *u = &log->u[--log->n];
		int rc = 0;

		switch (u->kind) {
		case RM_KERNFS_RMDIR:
			if (rmdir(u->path) < 0)
				rc = errno;
			if (rc && !uerr)
				uerr = xasprintf("cannot remove %s: %s", u->path, strerror(rc));
			break;
		case RM_KERNFS_MKDIR:
			if (mkdir(u->path, 0755) < 0 && errno != EEXIST)
				rc = errno;
			if (rc && !uerr)
				uerr = xasprintf("cannot create %s: %s", u->path, strerror(rc));
			break;
		case RM_KERNFS_WRITE:
			rc = rm_kernfs_write(u->path, u->value, log->flags);
			if (rc == ESRCH && (log->flags & RM_KERNFS_ESRCH_OK))
				rc = 0;
			if (rc && !uerr)
				uerr = xasprintf("cannot write '%s' to %s: %s", u->value, u->path,
						 strerror(rc));
			break;
		}
		free(u->path);
		free(u->value);
	}
	if (uerr) {
		char *m = xasprintf("%s; undoing it failed: %s", *errmsg, uerr);

		free(*errmsg);
		free(uerr);
		*errmsg = m;
	}
}

void rm_kernfs_log_free(struct rm_kernfs_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->u[i].path);
		free(log->u[i].value);
	}
	free(log->u);
	*log = (struct rm_kernfs_log){ .flags = log->flags };
}

int rm_kernfs_put(struct rm_kernfs_log *log, const char *dir, const char *file, const char *value,
		  const char *undo, char **errmsg)
{
	char *path = xasprintf("%s/%s", dir, file);
	int rc = rm_kernfs_write(path, value, log->flags);

	if (rc) {
		char *shown = xstrdup(value);

		for (char *p = shown; *p; p++)
			if (*p == '\n')
				*p = ' ';
		*errmsg = xasprintf("cannot write '%s' to %s: %s", shown, path, strerror(rc));
		free(shown);
	} else if (undo) {
		rm_kernfs_log_push(log, RM_KERNFS_WRITE, path, undo);
	}
	free(path);
	return rc ? -1 : 0;
}

int rm_kernfs_mkdir(struct rm_kernfs_log *log, const char *path, char **errmsg)
{
	if (mkdir(path, 0755) < 0) {
		*errmsg = xasprintf("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	rm_kernfs_log_push(log, RM_KERNFS_RMDIR, path, NULL);
	return 0;
}
