/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the state module from the shell: add, remove and list records of a state file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "state.h"

/* test-state NAME list
 * test-state NAME add KIND ID [KEY=VALUE...]   (refuses a duplicate, exit 3)
 * test-state NAME remove KIND ID               (exit 3 when absent)
 * test-state NAME count
 * test-state valid NAME                        (exit 0 when a valid user-given name) */
int main(int argc, char **argv)
{
	struct rm_state st;
	char *msg = NULL;
	bool write;
	int rc = 0;

	if (argc == 3 && !strcmp(argv[1], "valid"))
		return rm_name_valid(argv[2]) ? 0 : 1;
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
