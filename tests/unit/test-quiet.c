/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the quiet module from the shell on a tree of plain files standing for /proc and /sys. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "quiet.h"

/* test-quiet ROOT QUIET ONLINE: rm_quiet_sync under ROOT; prints "unmovable=LIST" and any note;
 * exit 1 with the message on failure. */
int main(int argc, char **argv)
{
	hwloc_bitmap_t quiet = hwloc_bitmap_alloc(), online = hwloc_bitmap_alloc();
	struct rm_quiet_result res;
	char *msg = NULL, *s;
	int rc;

	if (argc != 4 || rm_cpulist_parse(argv[2], quiet, NULL) ||
	    rm_cpulist_parse(argv[3], online, NULL))
		return RM_EXIT_USAGE;
	if ((rc = rm_quiet_sync(argv[1], quiet, online, &res, &msg))) {
		fprintf(stderr, "test-quiet: %s\n", msg);
		free(msg);
	} else {
		s = rm_cpulist_format(res.unmovable);
		printf("unmovable=%s\n", *s ? s : "\"\"");
		if (res.irqbalance)
			printf("note: %s\n", res.irqbalance);
		free(s);
		rm_quiet_result_free(&res);
	}
	hwloc_bitmap_free(quiet);
	hwloc_bitmap_free(online);
	return rc ? RM_EXIT_FAILURE : RM_EXIT_SUCCESS;
}
