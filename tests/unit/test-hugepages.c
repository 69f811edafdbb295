/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line driver of libcommon/hugepages.c and hugetlb.c for the rm-hugepages tests. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exitcodes.h"
#include "hugepages.h"
#include "hugetlb.h"

static uint64_t number(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "bad number: '%s'\n", s);
		exit(RM_EXIT_USAGE);
	}
	return v;
}

/* Map BYTES of FILE (on a hugetlbfs) shared and write to every page: what a job does. */
static int map(const char *file, uint64_t bytes)
{
	int fd = open(file, O_RDWR | O_CREAT, 0600);
	char *p;

	if (fd < 0) {
		fprintf(stderr, "cannot open %s: %s\n", file, strerror(errno));
		return 1;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "cannot map %" PRIu64 " bytes of %s: %s\n", bytes, file,
			strerror(errno));
		close(fd);
		return 1;
	}
	for (uint64_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
	printf("mapped %" PRIu64 "\n", bytes);
	munmap(p, bytes);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	char *msg = NULL;

	if (!strcmp(cmd, "spread") && argc == 4) {
		uint64_t pages = number(argv[2]), n = number(argv[3]), *each;

		if (!n || n > 4096)
			return RM_EXIT_USAGE;
		each = calloc(n, sizeof(uint64_t));
		rm_hugepages_spread(pages, n, each);
		for (uint64_t i = 0; i < n; i++)
			printf("%s%" PRIu64, i ? " " : "", each[i]);
		putchar('\n');
		free(each);
	} else if (!strcmp(cmd, "count") && argc == 4) {
		uint64_t pages;
		bool relative;

		if (rm_hugepages_parse_count(argv[2], number(argv[3]), &pages, &relative, &msg) < 0) {
			fprintf(stderr, "%s\n", msg);
			free(msg);
			return RM_EXIT_USAGE;
		}
		printf("%s%" PRIu64 "\n", relative ? "+" : "", pages);
	} else if (!strcmp(cmd, "names") && argc == 3) {
		uint64_t b = number(argv[2]);
		char *k = rm_hugepages_kernel_size(b), *c = rm_hugepages_cgroup_size(b),
		     *d = rm_hugepages_dir_name(b);

		printf("%s %s %s\n", k, c, d);
		free(k);
		free(c);
		free(d);
	} else if (!strcmp(cmd, "map") && argc == 4) {
		return map(argv[2], number(argv[3]));
	} else if (!strcmp(cmd, "attach") && argc >= 4) {
		if (rm_hugetlb_attach(argv[2], getpid(), &msg) < 0) {
			fprintf(stderr, "%s\n", msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
		execvp(argv[3], argv + 3);
		fprintf(stderr, "cannot run %s: %s\n", argv[3], strerror(errno));
		return 127;
	} else {
		fputs("usage: test-hugepages spread PAGES N | count STR PAGE_SIZE | names BYTES |\n"
		      "       map FILE BYTES | attach OWNER COMMAND [ARG...]\n", stderr);
		return RM_EXIT_USAGE;
	}
	return fflush(stdout) ? RM_EXIT_FAILURE : 0;
}
