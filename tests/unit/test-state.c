/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the state module from the shell: add, remove and list records of a state file. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "atomicfile.h"
#include "cpulist.h"
#include "exitcodes.h"
#include "state.h"
#include "xalloc.h"

/* Write the records on stdin as DIR/NAME.state, whatever they hold, with the header and checksum
 * the state module writes: for states that are whole but hold bad records. */
static int write_raw(const char *dir, const char *name)
{
	char *body = NULL, *path = xasprintf("%s/%s.state", dir, name);
	size_t len = 0, n = 0, cap = 0;
	FILE *f;
	int c;

	while ((c = getchar()) != EOF) {
		if (len + 1 >= cap)
			body = xrealloc(body, cap = cap * 2 + 256);
		body[len++] = (char)c;
		n += c == '\n';
	}
	if (!(f = fopen(path, "we")))
		return RM_EXIT_FAILURE;
	fprintf(f, "rmtools_state=%s version=1 records=%zu checksum=%08x\n", name, n,
		(unsigned)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)body, (uInt)len));
	if (len)
		fwrite(body, 1, len, f);
	free(body);
	free(path);
	return fclose(f) ? RM_EXIT_FAILURE : 0;
}

/* test-state NAME list
 * test-state NAME add KIND ID [KEY=VALUE...]   (refuses a duplicate, exit 3)
 * test-state NAME remove KIND ID               (exit 3 when absent)
 * test-state NAME count
 * test-state valid NAME                        (exit 0 when a valid user-given name)
 * test-state raw NAME <RECORDS                  (a whole state file with these records, unchecked)
 * test-state owner-cpus OWNER                   (rm_owner_cpus: its CPUs, and " resctrl" when it
 *                                                has a resctrl group; exit 3 when none)
 * test-state replace PATH TEXT                  (rm_atomic_write)
 * test-state replace-at DIR NAME TMP TEXT       (rm_atomic_openat with the temporary TMP) */
int main(int argc, char **argv)
{
	struct rm_state st;
	char *msg = NULL;
	bool write;
	int rc = 0;

	if (argc == 3 && !strcmp(argv[1], "valid"))
		return rm_name_valid(argv[2]) ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "raw"))
		return write_raw(rm_state_dir(), argv[2]);
	if (argc == 3 && !strcmp(argv[1], "owner-cpus")) {
		hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
		bool resctrl;
		char *list;

		if ((rc = rm_owner_cpus(argv[2], cpus, &resctrl, &msg)) < 0) {
			fprintf(stderr, "test-state: %s\n", msg);
			free(msg);
			hwloc_bitmap_free(cpus);
			return RM_EXIT_FAILURE;
		}
		list = rm_cpulist_format(cpus);
		printf("%s%s\n", list, resctrl ? " resctrl" : "");
		free(list);
		hwloc_bitmap_free(cpus);
		return rc ? 0 : RM_EXIT_NORESOURCE;
	}
	if (argc == 4 && !strcmp(argv[1], "replace")) {
		if (rm_atomic_write(argv[2], argv[3], strlen(argv[3]), 0644, &msg) < 0) {
			fprintf(stderr, "test-state: %s\n", msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "replace-at")) {
		struct rm_atomic a;
		int dfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd < 0 || rm_atomic_openat(&a, dfd, argv[3], argv[3], 0644, argv[4], &msg) < 0 ||
		    (fputs(argv[5], a.f), rm_atomic_commit(&a, &msg) < 0)) {
			fprintf(stderr, "test-state: %s\n", msg ? msg : "cannot open the directory");
			free(msg);
			if (dfd >= 0)
				close(dfd);
			return RM_EXIT_FAILURE;
		}
		close(dfd);
		return 0;
	}
	if (argc < 3)
		return RM_EXIT_USAGE;
	write = !strcmp(argv[2], "add") || !strcmp(argv[2], "remove");
	if (rm_state_open(&st, argv[1], write ? RM_STATE_WRITE : RM_STATE_READ, &msg) < 0) {
		fprintf(stderr, "test-state: %s\n", msg);
		free(msg);
		rm_state_close(&st);
		return RM_EXIT_FAILURE;
	}
	if (!strcmp(argv[2], "list")) {
		for (size_t i = 0; i < st.nrecords; i++)
			rm_record_write(stdout, &st.records[i]);
	} else if (!strcmp(argv[2], "count")) {
		printf("%zu\n", st.nrecords);
	} else if (!strcmp(argv[2], "add") && argc >= 5) {
		struct rm_record rec = { 0 };

		if (rm_state_find(&st, argv[3], argv[4]) >= 0) {
			rc = RM_EXIT_NORESOURCE;
			goto out;
		}
		rm_record_set(&rec, argv[3], argv[4]);
		for (int i = 5; i < argc; i++) {
			char *eq = strchr(argv[i], '=');

			if (!eq)
				return RM_EXIT_USAGE;
			*eq = '\0';
			rm_record_set(&rec, argv[i], eq + 1);
		}
		rm_state_add(&st, &rec);
		if (rm_state_commit(&st) < 0) {
			perror("test-state: commit");
			rc = RM_EXIT_FAILURE;
		}
	} else if (!strcmp(argv[2], "remove") && argc == 5) {
		long i = rm_state_find(&st, argv[3], argv[4]);

		if (i < 0) {
			rc = RM_EXIT_NORESOURCE;
			goto out;
		}
		rm_state_remove(&st, (size_t)i);
		if (rm_state_commit(&st) < 0) {
			perror("test-state: commit");
			rc = RM_EXIT_FAILURE;
		}
	} else {
		rc = RM_EXIT_USAGE;
	}
out:
	rm_state_close(&st);
	return rc;
}
