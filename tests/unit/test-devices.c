/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the devices module from the shell: the snapshot copy, its path list, names, links. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "exitcodes.h"

/* test-devices snapshot ROOT DIR   copy what rm-devices reads ("-" for this machine); print
 *                                  "files=N"
 * test-devices paths               the globs rm-topo snapshot is to copy, "link GLOB" or
 *                                  "file GLOB", one a line
 * test-devices addr ADDRESS        the address normalised (exit 2 when malformed)
 * test-devices link ROOT A B       the connection between two devices of ROOT */
int main(int argc, char **argv)
{
	char *msg = NULL, buf[24];
	int n;

	if (argc == 4 && !strcmp(argv[1], "snapshot")) {
		n = rm_devices_snapshot(strcmp(argv[2], "-") ? argv[2] : NULL, argv[3], &msg);
		if (n < 0) {
			fprintf(stderr, "test-devices: %s\n", msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
		printf("files=%d\n", n);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "paths")) {
		for (const struct rm_devices_snap_path *p = rm_devices_snapshot_paths; p->glob; p++)
			printf("%s %s\n", p->kind == RM_DEVICES_SNAP_LINK ? "link" : "file", p->glob);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "addr")) {
		if (rm_devices_addr_parse(argv[2], buf) < 0)
			return RM_EXIT_USAGE;
		puts(buf);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "link")) {
		struct rm_devices devs;
		struct rm_device *a, *b;
		char ba[24], bb[24];

		if (rm_devices_scan(argv[2], RM_DEVICES_ALL, &devs, &msg) < 0) {
			fprintf(stderr, "test-devices: %s\n", msg);
			free(msg);
			return RM_EXIT_FAILURE;
		}
		if (rm_devices_addr_parse(argv[3], ba) < 0 || rm_devices_addr_parse(argv[4], bb) < 0 ||
		    !(a = rm_devices_find(&devs, ba)) || !(b = rm_devices_find(&devs, bb))) {
			rm_devices_free(&devs);
			return RM_EXIT_USAGE;
		}
		puts(rm_devices_link(a, b));
		rm_devices_free(&devs);
		return 0;
	}
	fputs("usage: test-devices snapshot ROOT DIR | paths | addr ADDRESS | link ROOT A B\n",
	      stderr);
	return RM_EXIT_USAGE;
}
