/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks of libcommon/kernfs.c on a directory of plain files: reads, writes, subdirectory
 * listings and the undo log. Usage: test-kernfs DIR (an empty directory). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernfs.h"
#include "xalloc.h"

#include "check.h"

static const char *dir;

static char *at(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
	char *path = at(name);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	free(path);
}

/* The file's text, or "(none)" when it cannot be read; allocated. */
static char *text_of(const char *name)
{
	char *path = at(name);
	size_t len;
	char *s = rm_kernfs_read_raw(path, 0, &len);

	free(path);
	return s ? s : xstrdup("(none)");
}

static bool is_text(const char *name, const char *want)
{
	char *s = text_of(name);
	bool same = !strcmp(s, want);

	if (!same)
		fprintf(stderr, "%s holds '%s', expected '%s'\n", name, s, want);
	free(s);
	return same;
}

static void check_read_write(void)
{
	char *path = at("cpus"), *s;

	put("cpus", "0-3\n\n  ");
	s = rm_kernfs_read(path, 0);
	CHECK(s && !strcmp(s, "0-3"), "read keeps no trailing blanks: '%s'", s ? s : "(null)");
	free(s);
	/* one write of the value and a newline, over what is there unless TRUNC */
	CHECK(rm_kernfs_write(path, "7", 0) == 0, "write");
	CHECK(is_text("cpus", "7\n3\n\n  "), "a write without TRUNC overwrites in place");
	CHECK(rm_kernfs_write(path, "8-9", RM_KERNFS_TRUNC) == 0, "write with TRUNC");
	CHECK(is_text("cpus", "8-9\n"), "a write with TRUNC replaces the file");
	free(path);

	path = at("absent");
	CHECK(rm_kernfs_write(path, "1", 0) == ENOENT, "no file is created");
	CHECK(!rm_kernfs_exists(path, 0), "nothing left behind");
	errno = 0;
	CHECK(!rm_kernfs_read(path, 0) && errno == ENOENT, "reading a missing file: ENOENT");
	free(path);

	/* NOFOLLOW: a link is neither read nor written through, nor seen as a directory */
	path = at("link");
	CHECK(symlink("cpus", path) == 0, "symlink: %s", strerror(errno));
	CHECK(rm_kernfs_write(path, "1", RM_KERNFS_NOFOLLOW) == ELOOP, "write through a link");
	CHECK(!rm_kernfs_read(path, RM_KERNFS_NOFOLLOW), "read through a link");
	s = rm_kernfs_read(path, 0);
	CHECK(s && !strcmp(s, "8-9"), "a link followed without NOFOLLOW");
	free(s);
	CHECK(unlink(path) == 0, "unlink");
	free(path);

	put("controllers", "cpuset cpu\tio\n");
	CHECK(rm_kernfs_list_has(dir, "controllers", "io", 0), "a word in the list");
	CHECK(!rm_kernfs_list_has(dir, "controllers", "cpus", 0), "a prefix is no word");
	CHECK(!rm_kernfs_list_has(dir, "missing", "cpuset", 0), "a missing list has nothing");
}

static bool starts_with_b(const char *name)
{
	return name[0] == 'b';
}

static void check_subdirs(void)
{
	char *sub = at("groups"), *p, **names;
	static const char *const made[] = { "c", "a", "b2", ".hidden", "b1" };
	int n;

	CHECK(mkdir(sub, 0755) == 0, "mkdir");
	for (size_t i = 0; i < sizeof(made) / sizeof(*made); i++) {
		p = xasprintf("%s/%s", sub, made[i]);
		CHECK(mkdir(p, 0755) == 0, "mkdir %s", p);
		free(p);
	}
	put("groups/tasks", "");
	n = rm_kernfs_subdirs(sub, 0, NULL, &names);
	CHECK(n == 4, "4 subdirectories, hidden one and file left out: %d", n);
	if (n == 4)
		CHECK(!strcmp(names[0], "a") && !strcmp(names[1], "b1") &&
		      !strcmp(names[2], "b2") && !strcmp(names[3], "c"),
		      "in name order: %s %s %s %s", names[0], names[1], names[2], names[3]);
	rm_kernfs_names_free(names, n);
	n = rm_kernfs_subdirs(sub, 0, starts_with_b, &names);
	CHECK(n == 2 && !strcmp(names[0], "b1"), "KEEP chooses: %d", n);
	rm_kernfs_names_free(names, n);
	free(sub);

	sub = at("none");
	errno = 0;
	n = rm_kernfs_subdirs(sub, 0, NULL, &names);
	CHECK(n == -1 && errno == ENOENT && !names, "a missing directory: -1, ENOENT");
	rm_kernfs_names_free(names, n);
	free(sub);
}

static void check_undo(void)
{
	struct rm_kernfs_log log = { .flags = RM_KERNFS_TRUNC };
	char *made = at("owner"), *errmsg = NULL;

	put("cpus", "0-1\n");
	put("mems", "0\n");
	/* a directory made, two writes logged with their old values, then undone last first */
	CHECK(rm_kernfs_mkdir(&log, made, &errmsg) == 0, "mkdir: %s", errmsg);
	CHECK(rm_kernfs_put(&log, dir, "cpus", "2-3", "0-1", &errmsg) == 0, "put cpus");
	CHECK(rm_kernfs_put(&log, dir, "cpus", "4", "2-3", &errmsg) == 0, "put cpus again");
	CHECK(rm_kernfs_put(&log, dir, "mems", "1", NULL, &errmsg) == 0, "put without undo");
	CHECK(log.n == 3, "three changes logged: %zu", log.n);
	CHECK(is_text("cpus", "4\n"), "the last write is there");
	errmsg = xstrdup("cannot write 'x' to y: Invalid argument");
	rm_kernfs_undo(&log, &errmsg);
	CHECK(log.n == 0, "the log is empty after undo");
	CHECK(is_text("cpus", "0-1\n"), "cpus written back to the first value");
	CHECK(is_text("mems", "1\n"), "a write logged without undo stays");
	CHECK(!rm_kernfs_exists(made, 0), "the directory made is removed");
	CHECK(!strcmp(errmsg, "cannot write 'x' to y: Invalid argument"),
	      "a clean undo leaves the message: '%s'", errmsg);
	free(errmsg);

	/* a failing write names the file and the value, with several lines on one */
	errmsg = NULL;
	CHECK(rm_kernfs_put(&log, dir, "gone", "L3:0=f\nMB:0=50", "x", &errmsg) == -1,
	      "a write to a missing file fails");
	CHECK(errmsg && strstr(errmsg, "cannot write 'L3:0=f MB:0=50' to ") &&
	      strstr(errmsg, "/gone: No such file or directory"), "message: '%s'", errmsg);
	CHECK(log.n == 0, "a failed write is not logged");
	free(errmsg);

	/* an undo that fails goes on with the rest and adds its first failure to the message */
	CHECK(rm_kernfs_mkdir(&log, made, &errmsg) == 0, "mkdir again");
	put("owner/busy", "");
	CHECK(rm_kernfs_put(&log, dir, "cpus", "5", "0-1", &errmsg) == 0, "put");
	errmsg = xstrdup("the first failure");
	rm_kernfs_undo(&log, &errmsg);
	CHECK(is_text("cpus", "0-1\n"), "the write is undone before the failing rmdir");
	CHECK(strstr(errmsg, "the first failure; undoing it failed: cannot remove ") &&
	      strstr(errmsg, "/owner: Directory not empty"), "message: '%s'", errmsg);
	free(errmsg);

	/* a directory removed is made again; free() of a non-empty log frees its entries */
	rm_kernfs_log_push(&log, RM_KERNFS_MKDIR, made, NULL);
	errmsg = xstrdup("m");
	rm_kernfs_undo(&log, &errmsg);
	CHECK(rm_kernfs_is_dir(made, 0) && !strcmp(errmsg, "m"), "MKDIR over an existing one");
	free(errmsg);
	rm_kernfs_log_push(&log, RM_KERNFS_WRITE, "/nonexistent/x", "1");
	rm_kernfs_log_free(&log);
	CHECK(log.n == 0 && log.flags == RM_KERNFS_TRUNC, "free keeps the flags");
	free(made);
}

/* Opens beneath a root: links inside are followed by reads only, links out and ".." never; the
 * registered root makes writes, mkdirs and rmdirs through a link fail, nothing outside changed. */
static void check_beneath_once(void)
{
	char *root = at("root"), *p;
	int rfd, fd;

	rfd = open(root, O_PATH | O_DIRECTORY);
	CHECK(rfd >= 0, "open root");
	fd = rm_kernfs_openat_beneath(rfd, "a/f", O_WRONLY, 0, true);
	CHECK(fd >= 0, "a/f opens for writing: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = rm_kernfs_openat_beneath(rfd, "in/f", O_WRONLY, 0, true);
	CHECK(fd < 0 && errno == ELOOP, "a write through a directory link: ELOOP, got %d", errno);
	errno = 0;
	fd = rm_kernfs_openat_beneath(rfd, "a/lf", O_WRONLY, 0, true);
	CHECK(fd < 0 && errno == ELOOP, "a write to a file link: ELOOP, got %d", errno);
	fd = rm_kernfs_openat_beneath(rfd, "in/f", O_RDONLY, 0, false);
	CHECK(fd >= 0, "a read follows a link that stays beneath: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = rm_kernfs_openat_beneath(rfd, "out/g", O_RDONLY, 0, false);
	CHECK(fd < 0 && errno == EXDEV, "a read through a link out: EXDEV, got %d", errno);
	errno = 0;
	fd = rm_kernfs_openat_beneath(rfd, "../outside/g", O_RDONLY, 0, false);
	CHECK(fd < 0 && errno == EXDEV, "a read of ..: EXDEV, got %d", errno);
	close(rfd);

	CHECK(rm_kernfs_root_add(root) >= 0, "root registered");
	p = xasprintf("%s/in/f", root);
	CHECK(rm_kernfs_write(p, "9", 0) == ELOOP, "rm_kernfs_write through a link refused");
	free(p);
	p = xasprintf("%s/out/g", root);
	CHECK(rm_kernfs_write(p, "9", 0) == ELOOP, "rm_kernfs_write through a link out refused");
	free(p);
	p = xasprintf("%s/out/new", root);
	CHECK(rm_kernfs_mkdir_path(p, 0755) < 0 && (errno == ELOOP || errno == ENOTDIR), "mkdir through a link refused");
	free(p);
	p = xasprintf("%s/out/sub", root);
	CHECK(rm_kernfs_rmdir(p) < 0 && (errno == ELOOP || errno == ENOTDIR), "rmdir through a link refused");
	free(p);
	p = xasprintf("%s/a/f", root);
	CHECK(rm_kernfs_write(p, "2", RM_KERNFS_TRUNC) == 0, "a plain write beneath works");
	free(p);
	CHECK(is_text("root/a/f", "2\n"), "the plain write landed");
	CHECK(is_text("outside/g", "old\n"), "nothing outside changed");
	p = at("outside/sub");
	CHECK(rm_kernfs_is_dir(p, 0), "no directory removed outside");
	free(p);
	p = at("outside/new");
	CHECK(!rm_kernfs_is_dir(p, 0), "no directory made outside");
	free(p);
	rm_kernfs_roots_clear();
	free(root);
}

static void check_beneath(void)
{
	char *p;

	p = at("root");
	mkdir(p, 0755);
	free(p);
	p = at("root/a");
	mkdir(p, 0755);
	free(p);
	p = at("outside");
	mkdir(p, 0755);
	free(p);
	p = at("outside/sub");
	mkdir(p, 0755);
	free(p);
	put("root/a/f", "1\n");
	put("outside/g", "old\n");
	p = at("root/in");
	CHECK(symlink("a", p) == 0, "symlink in");
	free(p);
	p = at("root/out");
	CHECK(symlink("../outside", p) == 0, "symlink out");
	free(p);
	p = at("root/a/lf");
	CHECK(symlink("f", p) == 0, "symlink lf");
	free(p);
	check_beneath_once();
	rm_kernfs_no_openat2 = true;
	check_beneath_once();
	rm_kernfs_no_openat2 = false;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: test-kernfs DIR\n", stderr);
		return 2;
	}
	dir = argv[1];
	check_read_write();
	check_subdirs();
	check_undo();
	check_beneath();
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
