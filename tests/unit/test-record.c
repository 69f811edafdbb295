/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A command-line filter over libcommon/record.c, driven by tests/libcommon.bats. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "record.h"

static void usage(void)
{
	fputs("usage: test-record quote|write|bare|key|roundtrip STR...\n"
	      "       test-record parse|kinds < RECORDS\n"
	      "       test-record get KEY < RECORDS\n", stderr);
	exit(RM_EXIT_USAGE);
}

/* Quote each string, parse it back as a field and compare: 0 when all come back unchanged. */
static int roundtrip(int n, char **strs)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		char *q = rm_record_quote(strs[i]), *line, *msg = NULL;
		struct rm_record rec;

		if (asprintf(&line, "node=0 v=%s end=1", q) < 0)
			abort();
		if (rm_record_parse_line(line, 1, &rec, &msg)) {
			fprintf(stderr, "%s: %s\n", line, msg);
			free(msg);
			rc = 1;
		} else if (rec.nfields != 3 || strcmp(rm_record_get(&rec, "v"), strs[i])) {
			fprintf(stderr, "mismatch for %s\n", q);
			rc = 1;
		}
		rm_record_free(&rec);
		free(line);
		free(q);
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	struct rm_record rec;
	unsigned lineno = 0;
	char *msg = NULL;
	int n = 0, rc;

	if (!strcmp(cmd, "quote") && argc == 3) {
		char *q = rm_record_quote(argv[2]);

		puts(q);
		free(q);
	} else if (!strcmp(cmd, "write") && argc == 3) {
		rm_record_write_value(stdout, argv[2]);
		putchar('\n');
	} else if (!strcmp(cmd, "bare") && argc == 3) {
		return !rm_record_is_bare(argv[2]);
	} else if (!strcmp(cmd, "key") && argc == 3) {
		return !rm_record_valid_key(argv[2]);
	} else if (!strcmp(cmd, "unset") && argc == 3) {
		while ((rc = rm_record_read(stdin, &lineno, &rec, &msg)) > 0) {
			rm_record_unset(&rec, argv[2]);
			rm_record_write(stdout, &rec);
			rm_record_free(&rec);
		}
		if (rc < 0) {
			fprintf(stderr, "%s\n", msg);
			free(msg);
			return 1;
		}
	} else if (!strcmp(cmd, "roundtrip") && argc >= 3) {
		return roundtrip(argc - 2, argv + 2);
	} else if ((!strcmp(cmd, "parse") || !strcmp(cmd, "kinds")) && argc == 2) {
		while ((rc = rm_record_read(stdin, &lineno, &rec, &msg)) > 0) {
			if (cmd[0] == 'k') {
				printf("%u %s\n", rec.line, rm_record_kind(&rec));
			} else {
				if (n++)
					putchar('\n');
				for (size_t i = 0; i < rec.nfields; i++)
					printf("%s\t%s\n", rec.fields[i].key, rec.fields[i].value);
			}
			rm_record_free(&rec);
		}
		if (rc < 0)
			goto bad;
	} else if (!strcmp(cmd, "get") && argc == 3) {
		while ((rc = rm_record_read(stdin, &lineno, &rec, &msg)) > 0) {
			const char *v = rm_record_get(&rec, argv[2]);

			puts(v ? v : "(none)");
			rm_record_free(&rec);
		}
		if (rc < 0)
			goto bad;
	} else {
		usage();
	}
	return fflush(stdout) ? RM_EXIT_FAILURE : 0;
bad:
	fflush(stdout);
	fprintf(stderr, "%s\n", msg);
	free(msg);
	return RM_EXIT_USAGE;
}
