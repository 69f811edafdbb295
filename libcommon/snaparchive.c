/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshot trees written relative to directory fds, tar archives of them, and archives as sysroots. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snaparchive.h"
#include "cleanup.h"
#include "dynlib.h"
#include "exitcodes.h"
#include "msg.h"
#include "options.h"
#include "size.h"
#include "xalloc.h"

/* ---- libarchive, loaded on first use ---- */

/*
 * libarchive is opened with dlopen when an archive is first read or written rather than linked:
 * linked, it brings libxml2, ICU and libstdc++ into the start-up of every tool (several times
 * the work of a whole `lsblk`), though only snapshots given as archives need it. Its soname has
 * been libarchive.so.13 since libarchive 3.0.
 */
#define LIBARCHIVE_SONAME "libarchive.so.13"
#define LIBARCHIVE_FUNCTIONS(X) \
	X(archive_entry_clear) \
	X(archive_entry_filetype) \
	X(archive_entry_free) \
	X(archive_entry_hardlink) \
	X(archive_entry_new) \
	X(archive_entry_pathname) \
	X(archive_entry_perm) \
	X(archive_entry_set_filetype) \
	X(archive_entry_set_gid) \
	X(archive_entry_set_gname) \
	X(archive_entry_set_mtime) \
	X(archive_entry_set_pathname) \
	X(archive_entry_set_perm) \
	X(archive_entry_set_size) \
	X(archive_entry_set_symlink) \
	X(archive_entry_set_uid) \
	X(archive_entry_set_uname) \
	X(archive_entry_size) \
	X(archive_entry_symlink) \
	X(archive_errno) \
	X(archive_error_string) \
	X(archive_read_data_block) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open_fd) \
	X(archive_read_support_filter_all) \
	X(archive_read_support_format_tar) \
	X(archive_write_add_filter) \
	X(archive_write_close) \
	X(archive_write_data) \
	X(archive_write_data_block) \
	X(archive_write_disk_new) \
	X(archive_write_disk_set_options) \
	X(archive_write_finish_entry) \
	X(archive_write_free) \
	X(archive_write_header) \
	X(archive_write_new) \
	X(archive_write_open_fd) \
	X(archive_write_set_format_pax_restricted)

static struct {
#define X(f) __typeof__(f) *f;
	LIBARCHIVE_FUNCTIONS(X)
#undef X
} la;

/* Fill la, or exit 1 naming what is missing. */
static void la_load(void)
{
	RM_DL_LOAD(la, LIBARCHIVE_SONAME, LIBARCHIVE_FUNCTIONS);
}

/* ---- trees below a directory fd ---- */

int rm_tree_open_dir(int dirfd, const char *rel, bool create)
{
	char *copy = xstrdup(rel), *save = NULL;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (char *tok = strtok_r(copy, "/", &save); tok && fd >= 0;
	     tok = strtok_r(NULL, "/", &save)) {
		int next, e;

		if (!strcmp(tok, ".") || !strcmp(tok, "..")) {
			close(fd);
			fd = -1;
			errno = EINVAL;
			break;
		}
		if (create && mkdirat(fd, tok, 0755) < 0 && errno != EEXIST) {
			e = errno;
			close(fd);
			fd = -1;
			errno = e;
			break;
		}
		next = openat(fd, tok, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(fd);
		fd = next;
		errno = e;
	}
	free(copy);
	return fd;
}

/* The fd of REL's directory (made), and REL's last component in *BASE; -1 on failure. */
static int open_parent(int dirfd, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	char *dir;
	int fd;

	*base = slash ? slash + 1 : rel;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		errno = EINVAL;
		return -1;
	}
	dir = slash ? xasprintf("%.*s", (int)(slash - rel), rel) : xstrdup("");
	fd = rm_tree_open_dir(dirfd, dir, true);
	free(dir);
	return fd;
}

int rm_tree_create(int dirfd, const char *rel, mode_t mode)
{
	const char *base;
	int parent = open_parent(dirfd, rel, &base), fd, e;

	if (parent < 0)
		return -1;
	fd = openat(parent, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	e = errno;
	close(parent);
	errno = e;
	return fd;
}

int rm_tree_symlink(int dirfd, const char *rel, const char *target)
{
	const char *base;
	int parent = open_parent(dirfd, rel, &base), rc, e;

	if (parent < 0)
		return -1;
	rc = symlinkat(target, parent, base);
	e = errno;
	close(parent);
	errno = e;
	return rc;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the directory FD but "." and "..", sorted; *N of them. */
static char **list_dir(int fd, size_t *n)
{
	int dup = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	char **names = NULL;
	struct dirent *de;

	*n = 0;
	if (!d) {
		if (dup >= 0)
			close(dup);
		return NULL;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		names = xrealloc(names, (*n + 1) * sizeof(*names));
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), compare_names);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int rm_tree_count(int dirfd)
{
	char **names;
	size_t n;
	int count = 0;

	names = list_dir(dirfd, &n);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int fd;

		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			count += S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
			continue;
		}
		fd = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			count += rm_tree_count(fd);
			close(fd);
		}
	}
	free_names(names, n);
	return count;
}

/* ---- writing archives ---- */

static const struct {
	const char *suffix;
	int filter;
} suffixes[] = {
	{ ".tar", ARCHIVE_FILTER_NONE },
	{ ".tar.gz", ARCHIVE_FILTER_GZIP }, { ".tgz", ARCHIVE_FILTER_GZIP },
	{ ".tar.xz", ARCHIVE_FILTER_XZ }, { ".txz", ARCHIVE_FILTER_XZ },
	{ ".tar.zst", ARCHIVE_FILTER_ZSTD }, { ".tzst", ARCHIVE_FILTER_ZSTD },
	{ ".tar.bz2", ARCHIVE_FILTER_BZIP2 }, { ".tbz2", ARCHIVE_FILTER_BZIP2 },
};

static int suffix_index(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t s = strlen(suffixes[i].suffix);

		if (n > s && !strcmp(name + n - s, suffixes[i].suffix) && name[n - s - 1] != '/')
			return (int)i;
	}
	return -1;
}

const char *rm_archive_suffix(const char *name)
{
	int i = suffix_index(name);

	return i < 0 ? NULL : suffixes[i].suffix;
}

struct writer {
	struct archive *a;
	struct archive_entry *e;
	time_t mtime;
	char *errmsg;
};

static int write_fail(struct writer *w, const char *what, const char *path)
{
	if (!w->errmsg)
		w->errmsg = xasprintf("cannot %s '%s': %s", what, path,
				      errno ? strerror(errno) : la.archive_error_string(w->a));
	return -1;
}

/* The header of PATH, a file of type TYPE with the mode of ST: root's, at the snapshot time. */
static int write_header(struct writer *w, const char *path, mode_t type, mode_t perm, int64_t size,
			const char *link)
{
	la.archive_entry_clear(w->e);
	la.archive_entry_set_pathname(w->e, path);
	la.archive_entry_set_filetype(w->e, type);
	la.archive_entry_set_perm(w->e, perm & 07777);
	la.archive_entry_set_uid(w->e, 0);
	la.archive_entry_set_gid(w->e, 0);
	la.archive_entry_set_uname(w->e, "root");
	la.archive_entry_set_gname(w->e, "root");
	la.archive_entry_set_mtime(w->e, w->mtime, 0);
	la.archive_entry_set_size(w->e, size);
	if (link)
		la.archive_entry_set_symlink(w->e, link);
	errno = 0;
	return la.archive_write_header(w->a, w->e) < ARCHIVE_WARN ? write_fail(w, "write", path) : 0;
}

static int write_file(struct writer *w, int dirfd, const char *name, const char *path,
		      const struct stat *st)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc = 0;
	struct stat fst;
	char buf[16384];
	int64_t left;
	ssize_t n;

	if (fd < 0 || fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode)) {
		if (fd >= 0)
			close(fd);
		return write_fail(w, "read", path);
	}
	left = fst.st_size;
	if (write_header(w, path, AE_IFREG, st->st_mode, left, NULL) < 0) {
		close(fd);
		return -1;
	}
	/* the tree is private: its files do not change while they are archived */
	while (rc == 0 && left > 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
		errno = 0;
		if (la.archive_write_data(w->a, buf, (size_t)n) != n)
			rc = write_fail(w, "write", path);
		left -= n;
	}
	if (rc == 0 && left != 0)
		rc = write_fail(w, "read", path);
	close(fd);
	return rc;
}

/* Every entry below DIRFD, named PREFIX/NAME, in name order. */
static int write_dir(struct writer *w, int dirfd, const char *prefix)
{
	size_t n;
	char **names = list_dir(dirfd, &n);
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		char *path = xasprintf("%s/%s", prefix, names[i]), link[PATH_MAX];
		struct stat st;
		ssize_t len;
		int fd;

		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = write_fail(w, "read", path);
		} else if (S_ISDIR(st.st_mode)) {
			fd = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				rc = write_fail(w, "read", path);
			else if ((rc = write_header(w, path, AE_IFDIR, st.st_mode, 0, NULL)) == 0)
				rc = write_dir(w, fd, path);
			if (fd >= 0)
				close(fd);
		} else if (S_ISLNK(st.st_mode)) {
			len = readlinkat(dirfd, names[i], link, sizeof(link) - 1);
			if (len < 0) {
				rc = write_fail(w, "read", path);
			} else {
				link[len] = '\0';
				rc = write_header(w, path, AE_IFLNK, 0777, 0, link);
			}
		} else if (S_ISREG(st.st_mode)) {
			rc = write_file(w, dirfd, names[i], path, &st);
		}
		free(path);
	}
	free_names(names, n);
	return rc;
}

int rm_archive_write(int treefd, const char *top, int outfd, const char *name, time_t mtime,
		     char **errmsg)
{
	struct writer w = { NULL, NULL, mtime, NULL };
	int i = suffix_index(name), rc = -1;

	la_load();
	w.a = la.archive_write_new();
	w.e = la.archive_entry_new();
	if (!w.a || !w.e)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	errno = 0;
	/* pax restricted: plain ustar headers unless a name is too long for them */
	if (i < 0 || la.archive_write_add_filter(w.a, suffixes[i].filter) != ARCHIVE_OK ||
	    la.archive_write_set_format_pax_restricted(w.a) != ARCHIVE_OK ||
	    la.archive_write_open_fd(w.a, outfd) != ARCHIVE_OK) {
		write_fail(&w, "write", name);
		goto out;
	}
	if (write_header(&w, top, AE_IFDIR, 0755, 0, NULL) < 0 || write_dir(&w, treefd, top) < 0)
		goto out;
	errno = 0;
	if (la.archive_write_close(w.a) != ARCHIVE_OK) {
		write_fail(&w, "write", name);
		goto out;
	}
	rc = 0;
out:
	la.archive_entry_free(w.e);
	la.archive_write_free(w.a);
	if (rc < 0)
		*errmsg = w.errmsg;
	else
		free(w.errmsg);
	return rc;
}

/* ---- archives as sysroots ---- */

static char *unpacked;   /* the private directory, removed at exit or on a signal */
static char *sysroot;    /* the snapshot in it */

/* What an archive may unpack to, unless RM_ARCHIVE_MAX_SIZE or RM_ARCHIVE_MAX_ENTRIES say
 * more: many times a large machine's snapshot, far less than a compressed bomb. */
#define ARCHIVE_MAX_SIZE ((uint64_t)256 << 20)
#define ARCHIVE_MAX_ENTRIES 100000

struct limits {
	uint64_t size, entries;
};

static uint64_t limit(const char *var, uint64_t def, bool size)
{
	const char *v = getenv(var);
	uint64_t n;
	char *end, *msg = NULL;

	if (!v || !*v)
		return def;
	if (size ? rm_size_parse(v, &n, &msg) < 0
		 : (errno = 0, n = strtoull(v, &end, 10), *v < '0' || *v > '9' || *end || errno))
		rm_usage_errx("invalid %s: '%s'", var, v);
	return n;
}

/* A name that is relative, has no ".." component, and is no deeper than the removal at exit
 * goes. */
static bool safe_name(const char *name)
{
	const char *p = name;
	int depth = 0;

	if (*name == '/' || !*name)
		return false;
	while (*p) {
		size_t len = strcspn(p, "/");

		if ((len == 2 && !strncmp(p, "..", 2)) || ++depth > RM_CLEANUP_DEPTH)
			return false;
		p += len + strspn(p + len, "/");
	}
	return true;
}

/* Whether the link NAME -> TARGET stays in the tree, reading its path as written. */
static bool safe_link(const char *name, const char *target)
{
	int depth = -1; /* NAME's own last component is not a directory of the link */
	const char *p;

	if (*target == '/' || !*target)
		return false;
	for (p = name; *p; ) {
		size_t len = strcspn(p, "/");

		if (len && !(len == 1 && *p == '.'))
			depth++;
		p += len + strspn(p + len, "/");
	}
	for (p = target; *p; ) {
		size_t len = strcspn(p, "/");

		if (len == 2 && !strncmp(p, "..", 2)) {
			if (--depth < 0)
				return false;
		} else if (len && !(len == 1 && *p == '.')) {
			depth++;
		}
		p += len + strspn(p + len, "/");
	}
	return true;
}

/*
 * Links that a chain of other links carries out of the tree ("a -> .", "b -> a/../.."): every
 * link of the unpacked tree TOP (REAL: its real path) is resolved by the kernel and must land
 * below it; a dangling one reads nothing and is left.
 */
static const char *escaping_link(int dirfd, const char *path, const char *real)
{
	size_t n;
	char **names = list_dir(dirfd, &n);
	static char bad[PATH_MAX];
	const char *found = NULL;

	for (size_t i = 0; i < n && !found; i++) {
		char *child = xasprintf("%s/%s", path, names[i]), *r;
		struct stat st;
		int fd;

		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			r = realpath(child, NULL);
			if (r && strcmp(r, real) &&
			    (strncmp(r, real, strlen(real)) || r[strlen(real)] != '/')) {
				snprintf(bad, sizeof(bad), "%s", child + strlen(unpacked) + 1);
				found = bad;
			}
			free(r);
		} else if (S_ISDIR(st.st_mode)) {
			fd = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				found = escaping_link(fd, child, real);
				close(fd);
			}
		}
		free(child);
	}
	free_names(names, n);
	return found;
}

/* Exit 1: NAME of the archive PATH could not be written (a full or small TMPDIR, say). */
__attribute__((noreturn)) static void unpack_failed(struct archive *w, const char *name,
						    const char *path)
{
	int e = la.archive_errno(w);

	rm_errx(RM_EXIT_FAILURE, "cannot unpack '%s' from '%s' into '%s': %s", name, path, unpacked,
		e > 0 ? strerror(e) : la.archive_error_string(w));
}

/* Unpack the archive open at FD (named PATH) into the current directory, within LIM. */
static void unpack(int fd, const char *path, const struct limits *lim)
{
	struct archive *r, *w;
	struct archive_entry *e;
	uint64_t total = 0, entries = 0;
	int rc;

	la_load();
	r = la.archive_read_new();
	w = la.archive_write_disk_new();
	if (!r || !w)
		rm_err(RM_EXIT_FAILURE, "cannot allocate memory");
	la.archive_read_support_filter_all(r);
	la.archive_read_support_format_tar(r);
	/* no owners, no special modes, nothing written through a link or outside the directory */
	la.archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_SYMLINKS |
				       ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
				       ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (la.archive_read_open_fd(r, fd, 65536) != ARCHIVE_OK)
		rm_usage_errx("not a readable snapshot archive: '%s': %s", path,
			      la.archive_error_string(r));
	while ((rc = la.archive_read_next_header(r, &e)) != ARCHIVE_EOF) {
		const char *name, *link;
		la_int64_t size;
		mode_t type;

		if (rc < ARCHIVE_WARN)
			rm_usage_errx("not a readable snapshot archive: '%s': %s", path,
				      la.archive_error_string(r));
		name = la.archive_entry_pathname(e);
		type = la.archive_entry_filetype(e);
		link = la.archive_entry_symlink(e);
		if (!name || !safe_name(name) || la.archive_entry_hardlink(e) ||
		    (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) ||
		    (type == AE_IFLNK && (!link || !safe_link(name, link))))
			rm_usage_errx("unsafe entry in the snapshot archive '%s': '%s'", path,
				      name ? name : "");
		/* counted before it is written: the size a header states (a sparse file's whole
		 * length), which the tar reader never goes beyond */
		size = la.archive_entry_size(e);
		total += size > 0 ? (uint64_t)size : 0;
		if (++entries > lim->entries)
			rm_usage_errx("snapshot archive too large: '%s': more than %" PRIu64 " entries at "
				      "'%s' (RM_ARCHIVE_MAX_ENTRIES raises the limit)", path,
				      lim->entries, name);
		if (total > lim->size)
			rm_usage_errx("snapshot archive too large: '%s': more than %s unpacked at '%s' "
				      "(RM_ARCHIVE_MAX_SIZE raises the limit)", path,
				      rm_size_format(lim->size), name);
		/* readable and, for directories, searchable by the owner; no set-id bits */
		la.archive_entry_set_perm(e, (la.archive_entry_perm(e) & 0755) |
					  (type == AE_IFDIR ? 0700 : 0400));
		/* every warning of the writer is a file not written as the archive has it */
		rc = la.archive_write_header(w, e);
		if (rc == ARCHIVE_FAILED && la.archive_errno(w) <= 0)
			rm_usage_errx("unsafe entry in the snapshot archive '%s': '%s': %s", path, name,
				      la.archive_error_string(w));
		if (rc != ARCHIVE_OK)
			unpack_failed(w, name, path);
		if (type == AE_IFREG) {
			const void *buf;
			size_t n;
			la_int64_t offset;

			while ((rc = la.archive_read_data_block(r, &buf, &n, &offset)) == ARCHIVE_OK)
				if (la.archive_write_data_block(w, buf, n, offset) != ARCHIVE_OK)
					unpack_failed(w, name, path);
			if (rc != ARCHIVE_EOF)
				rm_usage_errx("not a readable snapshot archive: '%s': %s", path,
					      la.archive_error_string(r));
		}
		if (la.archive_write_finish_entry(w) != ARCHIVE_OK)
			unpack_failed(w, name, path);
	}
	if (la.archive_write_close(w) != ARCHIVE_OK)
		unpack_failed(w, "", path);
	la.archive_write_free(w);
	la.archive_read_free(r);
}

static bool is_dir_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

const char *rm_archive_sysroot(const char *path)
{
	const char *tmp = getenv("TMPDIR"), *bad;
	int fd, cwd, dirfd, tmpfd, slot;
	char *top = NULL, *real, **names, *name;
	struct limits lim;
	struct stat st;
	size_t n;

	if (!path || unpacked || !rm_archive_suffix(path))
		return path;
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			rm_usage_errx("no such file: '%s'", path);
		rm_err(RM_EXIT_FAILURE, "cannot read '%s'", path);
	}
	if (!S_ISREG(st.st_mode))
		return path; /* a directory named like an archive is a snapshot directory */
	lim.size = limit("RM_ARCHIVE_MAX_SIZE", ARCHIVE_MAX_SIZE, true);
	lim.entries = limit("RM_ARCHIVE_MAX_ENTRIES", ARCHIVE_MAX_ENTRIES, false);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		rm_err(RM_EXIT_FAILURE, "cannot read '%s'", path);

	/* removed at exit and on a signal; one a killed run left is removed here */
	tmp = tmp && *tmp == '/' ? tmp : "/tmp";
	tmpfd = open(tmp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	name = tmpfd >= 0 ? rm_cleanup_mkdtemp(tmpfd, "rmtools-sysroot", &slot) : NULL;
	if (!name)
		rm_err(RM_EXIT_FAILURE, "cannot create a directory in '%s' for '%s'", tmp, path);
	close(tmpfd);
	unpacked = xasprintf("%s/%s", tmp, name);
	free(name);

	/* libarchive writes relative to the working directory: the private one, for the while */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	dirfd = open(unpacked, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cwd < 0 || dirfd < 0 || fchdir(dirfd) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot unpack '%s' into '%s'", path, unpacked);
	unpack(fd, path, &lim);
	if (fchdir(cwd) < 0)
		rm_err(RM_EXIT_FAILURE, "cannot return to the working directory");
	close(cwd);
	close(fd);

	real = realpath(unpacked, NULL);
	if (!real)
		rm_err(RM_EXIT_FAILURE, "cannot read '%s'", unpacked);
	if ((bad = escaping_link(dirfd, unpacked, real)))
		rm_usage_errx("unsafe entry in the snapshot archive '%s': '%s'", path, bad);
	free(real);

	/* the snapshot itself, or the one folder it is in (rm-topo snapshot's archives) */
	if (!is_dir_at(dirfd, "sys")) {
		names = list_dir(dirfd, &n);
		if (n == 1 && is_dir_at(dirfd, names[0])) {
			int one = openat(dirfd, names[0], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (one >= 0 && is_dir_at(one, "sys"))
				top = sysroot = xasprintf("%s/%s", unpacked, names[0]);
			if (one >= 0)
				close(one);
		}
		free_names(names, n);
		if (!top)
			rm_usage_errx("not a snapshot archive (no sys folder in it): '%s'", path);
	}
	close(dirfd);
	return top ? top : unpacked;
}
