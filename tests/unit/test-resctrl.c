/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the resctrl module from the shell: schemata parsing, bandwidth requests, monitoring. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "resctrl.h"

static const char *usage =
	"usage: test-resctrl parse               (schemata text on stdin)\n"
	"       test-resctrl mb REQUEST          (under $RM_RESCTRL_ROOT)\n"
	"       test-resctrl has-event EVENT     (exit 1 when absent)\n"
	"       test-resctrl mon-read GROUP EVENT DOMAIN   (GROUP - for the default group,\n"
	"                                                   DOMAIN -1 for the sum)\n"
	"       test-resctrl mon-create GROUP NAME PID\n"
	"       test-resctrl mon-remove GROUP NAME\n";

static int cmd_parse(void)
{
	char buf[4096], *msg = NULL;
	size_t len = fread(buf, 1, sizeof(buf) - 1, stdin), n;
	struct rm_resctrl_line *lines;

	buf[len] = '\0';
	if (rm_resctrl_schemata_parse(buf, &lines, &n, &msg) < 0) {
		fprintf(stderr, "test-resctrl: %s\n", msg);
		free(msg);
		return RM_EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++) {
		printf("%s", lines[i].res);
		for (size_t k = 0; k < lines[i].n; k++)
			printf(" %u=%s", lines[i].dom[k], lines[i].val[k]);
		putchar('\n');
	}
	rm_resctrl_lines_free(lines, n);
	return 0;
}

static const char *group_arg(const char *g)
{
	return strcmp(g, "-") ? g : "";
}

int main(int argc, char **argv)
{
	struct rm_resctrl rc;
	char *root, *msg = NULL, *canon = NULL;
	int status = 0;

	if (argc < 2) {
		fputs(usage, stderr);
		return RM_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "parse"))
		return cmd_parse();
	root = rm_resctrl_root(NULL);
	if (rm_resctrl_open(&rc, root, &msg) < 0) {
		fprintf(stderr, "test-resctrl: %s\n", msg);
		free(msg);
		rm_resctrl_close(&rc);
		free(root);
		return RM_EXIT_FAILURE;
	}
	free(root);
	if (!strcmp(argv[1], "mb") && argc == 3) {
		unsigned long v;

		if ((status = rm_resctrl_mb_value(&rc, argv[2], &v, &canon, &msg)) == 0)
			printf("value=%lu canon=%s unit=%s\n", v, canon,
			       rm_resctrl_unit_name(rc.mb->unit));
	} else if (!strcmp(argv[1], "has-event") && argc == 3) {
		status = rm_resctrl_has_event(&rc, argv[2]) ? 0 : 1;
	} else if (!strcmp(argv[1], "mon-read") && argc == 5) {
		uint64_t v;

		if (rm_resctrl_mon_read(&rc, group_arg(argv[2]), argv[3], strtol(argv[4], NULL, 10),
					&v, &msg) == 0)
			printf("%" PRIu64 "\n", v);
		else
			status = RM_EXIT_FAILURE;
	} else if (!strcmp(argv[1], "mon-create") && argc == 5) {
		if (rm_resctrl_mon_create(&rc, group_arg(argv[2]), argv[3],
					  (pid_t)strtol(argv[4], NULL, 10), &msg) < 0)
			status = RM_EXIT_FAILURE;
	} else if (!strcmp(argv[1], "mon-remove") && argc == 4) {
		if (rm_resctrl_mon_remove(&rc, group_arg(argv[2]), argv[3], &msg) < 0)
			status = RM_EXIT_FAILURE;
	} else {
		fputs(usage, stderr);
		status = RM_EXIT_USAGE;
	}
	if (msg)
		fprintf(stderr, "test-resctrl: %s\n", msg);
	free(msg);
	free(canon);
	rm_resctrl_close(&rc);
	return status;
}
