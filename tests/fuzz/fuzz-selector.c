/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness for libcommon/selector-*.c: any input parses or is refused with a position,
 * and what parses prints back to itself and matches, explains and exports without failing. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "selector.h"

/* Device records to match against, of every field type, some fields missing or unknown. */
static const char *const lines[] = {
	("device=0000:3b:00.0 type=gpu name=gpu0 vendor=10de product=20b0 numa=0 memory=40GiB "
	 "link_speed=16.0GT/s class=030200 product_name=\"A100 \\\"SXM4\\\" caf\\xc3\\xa9\""),
	"device=0000:5e:00.0 type=nic vendor=15b3 numa=- sriov=vf pf=0000:5e:00.0 rdma=mlx5_0",
	"device=0000:af:00.0 type=fpga memory=17179869184 numa=1 bar=16MiB",
	"device=x",
};

static struct rm_record recs[sizeof(lines) / sizeof(lines[0])];

static void once(void)
{
	static int done;
	char *msg;

	if (done)
		return;
	done = 1;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (rm_record_parse_line(lines[i], 1, &recs[i], &msg)) {
			fprintf(stderr, "bad record: %s\n", msg);
			abort();
		}
}

static void clause(const struct rm_selector_clause *c, void *arg)
{
	size_t *n = arg;

	/* every clause names its field and prints back */
	if (!c->text || !c->field || !*c->text)
		abort();
	*n += strlen(c->text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_selector_error e;
	struct rm_selector *sel, *again;
	char *text, *canon, *canon2, *out, *msg;
	size_t n = 0;

	once();
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* a NUL inside ends the text, as in a C string */
	if (rm_selector_parse(text, &sel, &e)) {
		if (!e.what || !*e.what || e.line < 1 || e.column < 1)
			abort();
		rm_selector_error_free(&e);
		free(text);
		return 0;
	}
	/* the canonical form parses to the same canonical form */
	canon = rm_selector_format(sel);
	if (rm_selector_parse(canon, &again, &e)) {
		fprintf(stderr, "canonical form '%s' does not parse: %s\n", canon, e.what);
		abort();
	}
	canon2 = rm_selector_format(again);
	if (strcmp(canon, canon2)) {
		fprintf(stderr, "canonical form moves: '%s' then '%s'\n", canon, canon2);
		abort();
	}
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		int r = rm_selector_match(sel, &recs[i]);

		/* the canonical form means the same, and explain agrees */
		if (r != rm_selector_match(again, &recs[i]) ||
		    r != rm_selector_explain(sel, &recs[i], clause, &n))
			abort();
	}
	if (rm_selector_cel(sel, "rmtools.io", &out, &msg) == 0)
		free(out);
	else
		free(msg);
	if (rm_selector_sriovdp(sel, 2, &out, &msg) == 0)
		free(out);
	else
		free(msg);
	free(canon);
	free(canon2);
	rm_selector_free(again);
	rm_selector_free(sel);
	free(text);
	return 0;
}
