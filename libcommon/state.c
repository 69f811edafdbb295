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

#include "atomicfile.h"
#include "exitcodes.h"
#include "lock.h"
#include "msg.h"
#include "owner.h"
#include "state.h"
#include "dynlib.h"
#include "xalloc.h"

const char *rm_state_dir(void)
{
	const char *d = getenv("RM_STATE_DIR");

	if (!d)
		return RM_STATE_DIR_DEFAULT;
	/* a relative directory would depend on where the command runs; an empty one is a mistake,
	 * not a request for the default */
	if (*d != '/')
		rm_usage_errx("RM_STATE_DIR must be an absolute directory: '%s'", d);
	return d;
}

/* Open the state directory into ST->dirfd. It must be ours to trust: a real directory, owned by
 * root or by us, and not writable by group or others (it decides who gets which CPUs). */
static int open_dir(struct rm_state *st, char **errmsg)
{
	struct stat sb;

	st->dirfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (st->dirfd < 0 && errno == ENOENT && st->mode == RM_STATE_WRITE) {
		/* the parent is the admin's; we only create the last component */
		if (mkdir(st->dir, 0755) < 0 && errno != EEXIST)
			goto sys;
		st->dirfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (st->dirfd < 0) {
		if (errno == ELOOP || errno == ENOTDIR) {
			*errmsg = xasprintf("state directory is not a directory: '%s'", st->dir);
			st->error = RM_STATE_EUNSAFE;
			return -1;
		}
		goto sys;
	}
	if (fstat(st->dirfd, &sb) < 0)
		goto sys;
	if ((sb.st_uid != 0 && sb.st_uid != geteuid()) || (sb.st_mode & 022)) {
		*errmsg = xasprintf("unsafe state directory (must be owned by root or you, and not "
				    "writable by others): '%s'", st->dir);
		st->error = RM_STATE_EUNSAFE;
		errno = EPERM;
		return -1;
	}
	return 0;
sys:
	*errmsg = xasprintf("cannot use state directory '%s': %s", st->dir, strerror(errno));
	st->error = errno == EACCES || errno == EPERM ? RM_STATE_EACCESS : RM_STATE_ESYSTEM;
	return -1;
}

/* VALUE is a number of DIGITS (decimal, or hexadecimal when HEX) and nothing else. */
static bool strict_number(const char *v, bool hex, unsigned long long *out)
{
	char *end;

	if (!v || !*v || strspn(v, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(v) ||
	    strlen(v) > (hex ? 8 : 19))
		return false;
	*out = strtoull(v, &end, hex ? 16 : 10);
	return !*end;
}

/*
 * zlib's crc32, opened with dlopen at the first state file read or written rather than linked:
 * the commands that keep no state do not pay for loading it. Its soname has been libz.so.1 since
 * zlib 1.1.
 */
#define LIBZ_FUNCTIONS(X) X(crc32)

static struct {
#define X(f) __typeof__(f) *f;
	LIBZ_FUNCTIONS(X)
#undef X
} lz;

static uint32_t checksum(const char *body, size_t len)
{
	RM_DL_LOAD(lz, "libz.so.1", LIBZ_FUNCTIONS);
	return (uint32_t)lz.crc32(lz.crc32(0L, Z_NULL, 0), (const Bytef *)body, (uInt)len);
}

/* Parse the file's text into ST; errors name the path and the reason. */
static int parse_state(struct rm_state *st, char *text, size_t len, char **errmsg)
{
	char *nl = memchr(text, '\n', len), *msg = NULL, *body;
	struct rm_record hdr = { 0 };
	const char *v;
	unsigned long long count, sum, version;
	unsigned lineno = 1;
	int rc = -1;

	if (!nl) {
		*errmsg = xasprintf("corrupt state file '%s': no header line", st->path);
		return -1;
	}
	*nl = '\0';
	body = nl + 1;
	st->error = RM_STATE_EFOREIGN;
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
	st->error = RM_STATE_ECORRUPT;
	if (!(v = rm_record_get(&hdr, "version")) || !strict_number(v, false, &version)) {
		*errmsg = xasprintf("corrupt state file '%s': line 1: bad version: '%s'", st->path,
				    v ? v : "");
		goto out;
	}
	if (version != RM_STATE_VERSION) {
		*errmsg = xasprintf("state file '%s' has version %s; this rmtools reads version %d",
				    st->path, v, RM_STATE_VERSION);
		st->error = RM_STATE_EFOREIGN;
		goto out;
	}
	if (!(v = rm_record_get(&hdr, "checksum")) || !strict_number(v, true, &sum) ||
	    sum != checksum(body, len - (body - text))) {
		*errmsg = xasprintf("corrupt state file '%s': checksum mismatch", st->path);
		goto out;
	}
	if (!(v = rm_record_get(&hdr, "records")) || !strict_number(v, false, &count)) {
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
	/* the content: records of known kinds, valid owners, nothing held twice, typed once */
	rm_owner_state_free(&st->owners);
	if (rm_owner_state_parse(&st->owners, st->name, (unsigned)version, st->path, st->records,
				 st->nrecords, errmsg) < 0)
		goto out;
	st->error = RM_STATE_OK;
	rc = 0;
out:
	free(msg);
	rm_record_free(&hdr);
	return rc;
}

/* Read FD whole, at most MAX bytes: -1 with errno EFBIG past them. */
static int read_file(int fd, size_t max, char **text, size_t *len)
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
		if (*len > max) {
			errno = EFBIG;
			return -1;
		}
		if (*len + 1 >= cap)
			*text = xrealloc(*text, cap *= 2);
	}
	(*text)[*len] = '\0';
	return 0;
}

int rm_state_open(struct rm_state *st, const char *name, enum rm_state_mode mode, char **errmsg)
{
	char *lockpath, *lockname, *text = NULL;
	struct stat sb;
	size_t len;
	int fd;

	memset(st, 0, sizeof(*st));
	st->lockfd = st->dirfd = -1;
	st->mode = mode;
	st->name = xstrdup(name);
	st->dir = xstrdup(rm_state_dir());
	st->path = xasprintf("%s/%s.state", st->dir, name);
	/* the empty state's typed view, replaced by the file's when there is one */
	if (rm_owner_state_parse(&st->owners, name, RM_STATE_VERSION, st->path, NULL, 0, errmsg) < 0)
		return -1;
	if (mode == RM_STATE_READ && access(st->dir, F_OK) < 0 && errno == ENOENT)
		return 0; /* never written: the empty state */
	st->error = RM_STATE_ESYSTEM;
	if (open_dir(st, errmsg) < 0)
		return -1;

	lockname = xasprintf("%s.lock", name);
	lockpath = xasprintf("%s/%s", st->dir, lockname);
	st->lockfd = rm_lock_at(st->dirfd, lockname, lockpath,
				mode == RM_STATE_WRITE ? LOCK_EX : LOCK_SH, mode == RM_STATE_WRITE,
				errmsg);
	free(lockname);
	free(lockpath);
	if (st->lockfd < 0) {
		/* Reading without the lock: none was ever made, or it is root's (mode 0600) and we
		 * are not. The file is only ever replaced by a rename, so what is read is whole. */
		if (mode != RM_STATE_READ || (errno != ENOENT && errno != EACCES)) {
			if (errno == EACCES || errno == EPERM)
				st->error = RM_STATE_EACCESS;
			return -1;
		}
		free(*errmsg);
		*errmsg = NULL;
	}

	fd = openat(st->dirfd, st->path + strlen(st->dir) + 1,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		*errmsg = errno == ELOOP ? xasprintf("cannot read '%s': it is a symlink", st->path)
					 : xasprintf("cannot read '%s': %s", st->path, strerror(errno));
		st->error = errno == ELOOP ? RM_STATE_EUNSAFE : errno == EACCES ? RM_STATE_EACCESS :
			    RM_STATE_ESYSTEM;
		return -1;
	}
	if (fstat(fd, &sb) < 0)
		sb.st_mode = 0;
	if (!S_ISREG(sb.st_mode) ||
	    (sb.st_uid != 0 && sb.st_uid != geteuid())) {
		/* a FIFO or a device planted there is never read: it could block or never end */
		*errmsg = xasprintf(!S_ISREG(sb.st_mode) ? "cannot read '%s': not a regular file"
							 : "cannot read '%s': it belongs to another user",
				    st->path);
		close(fd);
		st->error = RM_STATE_EUNSAFE;
		errno = EINVAL;
		return -1;
	}
	/* the size first: a huge file is refused before it is read */
	if ((uint64_t)sb.st_size > RM_STATE_MAX_BYTES ||
	    read_file(fd, RM_STATE_MAX_BYTES, &text, &len) < 0) {
		if ((uint64_t)sb.st_size > RM_STATE_MAX_BYTES || errno == EFBIG) {
			*errmsg = xasprintf("corrupt state file '%s': larger than %u MiB", st->path,
					    RM_STATE_MAX_BYTES >> 20);
			st->error = RM_STATE_ECORRUPT;
			errno = EINVAL;
		} else {
			*errmsg = xasprintf("cannot read '%s': %s", st->path, strerror(errno));
		}
		close(fd);
		free(text);
		return -1;
	}
	close(fd);
	if (parse_state(st, text, len, errmsg) < 0) {
		free(text);
		errno = EINVAL;
		return -1;
	}
	free(text);
	return 0;
}

void rm_state_open_or_exit(struct rm_state *st, const char *name, enum rm_state_mode mode,
			   const char *page, const char *changing)
{
	enum rm_state_error e;
	char *msg = NULL;

	if (rm_state_open(st, name, mode, &msg) == 0)
		return;
	e = st->error;
	rm_state_close(st);
	if (e == RM_STATE_EACCESS && mode == RM_STATE_WRITE && geteuid() != 0 && changing)
		rm_errx(RM_EXIT_FAILURE, "%s; %s needs root", msg, changing);
	if (e == RM_STATE_ECORRUPT)
		rm_errx(RM_EXIT_FAILURE, "%s; restore it from a backup, or move it away to start "
			"empty%s%s%s", msg, page ? " (" : "", page ? page : "", page ? ", STATE)" : "");
	rm_errx(RM_EXIT_FAILURE, "%s", msg);
}

/*
 * Remove the temporary files of writers killed before their rename: only the holder of the
 * exclusive lock makes them, so any found while holding it are a dead writer's.
 */
static void remove_stale_temps(const struct rm_state *st)
{
	char *prefix = xasprintf(".%s.state.", st->name);
	size_t plen = strlen(prefix);
	int fd = dup(st->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d && fd >= 0)
		close(fd);
	else if (d)
		rewinddir(d);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, plen) && strlen(e->d_name) == plen + 6)
			unlinkat(st->dirfd, e->d_name, 0);
	if (d)
		closedir(d);
	free(prefix);
}

int rm_state_commit(struct rm_state *st)
{
	struct rm_atomic a;
	char *body = NULL, *msg = NULL;
	size_t len = 0;
	FILE *mem;
	int saved;

	if (st->mode != RM_STATE_WRITE || st->dirfd < 0) {
		errno = EBADF;
		return -1;
	}
	mem = open_memstream(&body, &len);
	if (!mem)
		return -1;
	for (size_t i = 0; i < st->nrecords; i++)
		rm_record_write(mem, &st->records[i]);
	if (fclose(mem) != 0)
		return -1;

	remove_stale_temps(st);
	if (rm_atomic_openat(&a, st->dirfd, st->path + strlen(st->dir) + 1, st->path, 0644, NULL,
			     &msg) < 0)
		goto fail;
	fprintf(a.f, "rmtools_state=%s version=%d records=%zu checksum=%08x\n", st->name,
		RM_STATE_VERSION, st->nrecords, checksum(body, len));
	fwrite(body, 1, len, a.f);
	if (rm_atomic_commit(&a, &msg) < 0)
		goto fail;
	free(body);
	return 0;
fail:
	saved = errno;
	free(msg);
	free(body);
	errno = saved;
	return -1;
}

void rm_state_close(struct rm_state *st)
{
	int saved = errno;

	rm_owner_state_free(&st->owners);
	for (size_t i = 0; i < st->nrecords; i++)
		rm_record_free(&st->records[i]);
	free(st->records);
	if (st->lockfd >= 0)
		close(st->lockfd);
	if (st->dirfd >= 0)
		close(st->dirfd);
	free(st->name);
	free(st->dir);
	free(st->path);
	memset(st, 0, sizeof(*st));
	st->lockfd = st->dirfd = -1;
	errno = saved;
}

int rm_state_retype(struct rm_state *st, char **errmsg)
{
	rm_owner_state_free(&st->owners);
	return rm_owner_state_parse(&st->owners, st->name, RM_STATE_VERSION, st->path, st->records,
				    st->nrecords, errmsg);
}

long rm_state_find_kind(const struct rm_state *st, const char *kind)
{
	for (size_t i = 0; i < st->nrecords; i++)
		if (st->records[i].nfields && !strcmp(st->records[i].fields[0].key, kind))
			return (long)i;
	return -1;
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
