/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared state files: flock for every access, CRC-checked records, atomic replacement. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "state.h"
#include "xalloc.h"

const char *rm_state_dir(void)
{
	const char *d = getenv("RM_STATE_DIR");

	return d && *d ? d : RM_STATE_DIR_DEFAULT;
}

bool rm_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || !isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

/* The directory must be ours to trust: a real directory, owned by root or by us, and not
 * writable by group or others (it decides who gets which CPUs). */
static int check_dir(const char *dir, enum rm_state_mode mode, char **errmsg)
{
	struct stat st;

	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT || mode == RM_STATE_READ)
			goto sys;
		/* the parent is the admin's; we only create the last component */
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			goto sys;
		if (lstat(dir, &st) < 0)
			goto sys;
	}
	if (!S_ISDIR(st.st_mode)) {
		*errmsg = xasprintf("state directory is not a directory: '%s'", dir);
		return -1;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		*errmsg = xasprintf("unsafe state directory (must be owned by root or you, and not "
				    "writable by others): '%s'", dir);
		return -1;
	}
	return 0;
sys:
	*errmsg = xasprintf("cannot use state directory '%s': %s", dir, strerror(errno));
	return -1;
}

static uint32_t checksum(const char *body, size_t len)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)body, (uInt)len);
}

/* Parse the file's text into ST; errors name the path and the reason. */
static int parse_state(struct rm_state *st, char *text, size_t len, char **errmsg)
{
	char *nl = memchr(text, '\n', len), *msg = NULL, *body;
	struct rm_record hdr = { 0 };
	const char *v;
	unsigned long long count, sum;
	unsigned lineno = 1;
	int rc = -1;

	if (!nl) {
		*errmsg = xasprintf("corrupt state file '%s': no header line", st->path);
		return -1;
	}
	*nl = '\0';
	body = nl + 1;
	if (rm_record_parse_line(text, 1, &hdr, &msg) < 0 ||
	    strcmp(rm_record_kind(&hdr), "rmtools_state")) {
		*errmsg = xasprintf("not an rmtools state file: '%s'", st->path);
		goto out;
	}
	if (strcmp(hdr.fields[0].value, st->name)) {
		*errmsg = xasprintf("state file '%s' holds '%s' state, not '%s'", st->path,
				    hdr.fields[0].value, st->name);
		goto out;
	}
	if (!(v = rm_record_get(&hdr, "version")) || strtoul(v, NULL, 10) != RM_STATE_VERSION) {
		*errmsg = xasprintf("state file '%s' has version %s; this rmtools reads version %d",
				    st->path, v ? v : "-", RM_STATE_VERSION);
		goto out;
	}
	if (!(v = rm_record_get(&hdr, "checksum")) || sscanf(v, "%llx", &sum) != 1 ||
	    sum != checksum(body, len - (body - text))) {
		*errmsg = xasprintf("corrupt state file '%s': checksum mismatch", st->path);
		goto out;
	}
	if (!(v = rm_record_get(&hdr, "records")) || sscanf(v, "%llu", &count) != 1) {
		*errmsg = xasprintf("corrupt state file '%s': no record count", st->path);
		goto out;
	}
	for (char *line = body, *end; *line; line = end + 1) {
		struct rm_record rec = { 0 };

		lineno++;
		end = strchr(line, '\n');
		if (!end) {
			*errmsg = xasprintf("corrupt state file '%s': unterminated last line", st->path);
			goto out;
		}
		*end = '\0';
		if (rm_record_parse_line(line, lineno, &rec, &msg) < 0) {
			*errmsg = xasprintf("corrupt state file '%s': %s", st->path, msg);
			goto out;
		}
		rm_state_add(st, &rec);
	}
	if (st->nrecords != count) {
		*errmsg = xasprintf("corrupt state file '%s': %zu records, header says %llu",
				    st->path, st->nrecords, count);
		goto out;
	}
	rc = 0;
out:
	free(msg);
	rm_record_free(&hdr);
	return rc;
}

static int read_file(int fd, char **text, size_t *len)
{
	size_t cap = 4096;
	ssize_t n;

	*len = 0;
	*text = xmalloc(cap);
	while ((n = read(fd, *text + *len, cap - *len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		*len += n;
		if (*len + 1 >= cap)
			*text = xrealloc(*text, cap *= 2);
	}
	(*text)[*len] = '\0';
	return 0;
}

int rm_state_open(struct rm_state *st, const char *name, enum rm_state_mode mode, char **errmsg)
{
	char *lockpath, *text = NULL;
	size_t len;
	int fd;

	memset(st, 0, sizeof(*st));
	st->lockfd = -1;
	st->mode = mode;
	st->name = xstrdup(name);
	st->dir = xstrdup(rm_state_dir());
	st->path = xasprintf("%s/%s.state", st->dir, name);
	if (mode == RM_STATE_READ && access(st->dir, F_OK) < 0 && errno == ENOENT)
		return 0; /* never written: the empty state */
	if (check_dir(st->dir, mode, errmsg) < 0)
		return -1;

	lockpath = xasprintf("%s/%s.lock", st->dir, name);
	st->lockfd = open(lockpath, (mode == RM_STATE_WRITE ? O_RDWR | O_CREAT : O_RDONLY) |
				    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (st->lockfd < 0 && mode == RM_STATE_READ && errno == ENOENT) {
		free(lockpath);
		return 0; /* never written */
	}
	if (st->lockfd < 0 || flock(st->lockfd, mode == RM_STATE_WRITE ? LOCK_EX : LOCK_SH) < 0) {
		*errmsg = xasprintf("cannot lock '%s': %s", lockpath, strerror(errno));
		free(lockpath);
		return -1;
	}
	free(lockpath);

	fd = open(st->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		*errmsg = xasprintf("cannot read '%s': %s", st->path, strerror(errno));
		return -1;
	}
	if (read_file(fd, &text, &len) < 0) {
		*errmsg = xasprintf("cannot read '%s': %s", st->path, strerror(errno));
		close(fd);
		free(text);
		return -1;
	}
	close(fd);
	if (parse_state(st, text, len, errmsg) < 0) {
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/*
 * Remove the temporary files of writers killed before their rename: only the holder of the
 * exclusive lock makes them, so any found while holding it are a dead writer's.
 */
static void remove_stale_temps(const struct rm_state *st)
{
	char *prefix = xasprintf(".%s.state.", st->name);
	size_t plen = strlen(prefix);
	DIR *d = opendir(st->dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, plen) && strlen(e->d_name) == plen + 6)
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	free(prefix);
}

int rm_state_commit(struct rm_state *st)
{
	char *body = NULL, *tmp;
	size_t len = 0;
	FILE *mem = open_memstream(&body, &len);
	int fd, dfd, saved;
	FILE *f;

	if (st->mode != RM_STATE_WRITE) {
		errno = EBADF;
		return -1;
	}
	for (size_t i = 0; i < st->nrecords; i++)
		rm_record_write(mem, &st->records[i]);
	if (fclose(mem) != 0)
		return -1;

	remove_stale_temps(st);
	tmp = xasprintf("%s/.%s.state.XXXXXX", st->dir, st->name);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto fail_free;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		goto fail_unlink;
	}
	fprintf(f, "rmtools_state=%s version=%d records=%zu checksum=%08x\n", st->name,
		RM_STATE_VERSION, st->nrecords, checksum(body, len));
	fwrite(body, 1, len, f);
	if (fflush(f) != 0 || ferror(f) || fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		fclose(f);
		goto fail_unlink;
	}
	if (fclose(f) != 0 || rename(tmp, st->path) < 0)
		goto fail_unlink;
	/* the rename itself must reach the disk before we report success */
	dfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(body);
	return 0;
fail_unlink:
	saved = errno;
	unlink(tmp);
	errno = saved;
fail_free:
	saved = errno;
	free(tmp);
	free(body);
	errno = saved;
	return -1;
}

void rm_state_close(struct rm_state *st)
{
	for (size_t i = 0; i < st->nrecords; i++)
		rm_record_free(&st->records[i]);
	free(st->records);
	if (st->lockfd >= 0)
		close(st->lockfd);
	free(st->name);
	free(st->dir);
	free(st->path);
	memset(st, 0, sizeof(*st));
	st->lockfd = -1;
}

long rm_state_find(const struct rm_state *st, const char *kind, const char *id)
{
	for (size_t i = 0; i < st->nrecords; i++)
		if (st->records[i].nfields && !strcmp(st->records[i].fields[0].key, kind) &&
		    !strcmp(st->records[i].fields[0].value, id))
			return (long)i;
	return -1;
}

void rm_state_add(struct rm_state *st, struct rm_record *rec)
{
	st->records = xrealloc(st->records, (st->nrecords + 1) * sizeof(*st->records));
	st->records[st->nrecords++] = *rec;
	memset(rec, 0, sizeof(*rec));
}

void rm_state_remove(struct rm_state *st, size_t index)
{
	rm_record_free(&st->records[index]);
	memmove(&st->records[index], &st->records[index + 1],
		(st->nrecords - index - 1) * sizeof(*st->records));
	st->nrecords--;
}
