/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-bench weights: weighted-interleave weights per node from the measured bandwidth matrix,
 * beside the kernel's and HMAT's, set on request and journaled for --restore. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpulist.h"
#include "exitcodes.h"
#include "kernfs.h"
#include "msg.h"
#include "rm-bench.h"
#include "state.h"
#include "sysfs.h"
#include "wiweights.h"
#include "xalloc.h"

/* The journal: $RM_STATE_DIR/weights.state, one record per node set, written before the write:
 *   weight=N was=W    the kernel's weight of node N before the first --apply */
#define WEIGHTS_STATE "weights"
#define MAXNODES 64

enum { W_NODE, W_FROM, W_BANDWIDTH, W_WEIGHT, W_KERNEL, W_HMAT_READ, W_HMAT_WRITE };
static const struct rm_column weights_cols[] = {
	[W_NODE] = { "node", RM_COL_INT, "the memory node" },
	[W_FROM] = { "from", RM_COL_SET, "the CPU nodes whose bandwidth to it the weight is from" },
	[W_BANDWIDTH] = { "bandwidth", RM_COL_FLOAT, "GB/s from them (mem --matrix, triad median)" },
	[W_WEIGHT] = { "weight", RM_COL_INT, "the weight proposed (or set, or restored)" },
	[W_KERNEL] = { "kernel", RM_COL_INT, "the kernel's weight before (weighted_interleave)" },
	[W_HMAT_READ] = { "hmat_read", RM_COL_INT, "HMAT's read bandwidth from access0, MB/s" },
	[W_HMAT_WRITE] = { "hmat_write", RM_COL_INT, "HMAT's write bandwidth from access0, MB/s" },
};

enum { OPT_INPUT = 0x200, OPT_FROM, OPT_APPLY, OPT_RESTORE };
struct weights_args {
	const char *input, *from;
	bool apply, restore, dry_run;
};
static const struct argp_option weights_options[] = {
	{ "input", OPT_INPUT, "FILE", 0,
	  "read the bandwidth matrix from FILE (records of mem --matrix) instead of measuring", 0 },
	{ "from", OPT_FROM, "NODES", 0,
	  "weights as the CPU nodes NODES see the bandwidth (default: each node from its own "
	  "package's CPU node)", 0 },
	{ "apply", OPT_APPLY, NULL, 0, "set the kernel's weights to those proposed (root)", 0 },
	{ "restore", OPT_RESTORE, NULL, 0, "put back the weights --apply found (root)", 0 },
	{ "dry-run", RM_OPT_DRY_RUN, NULL, 0, "print what --apply or --restore would set", 0 },
	{ 0 }
};

static error_t weights_parse(int key, char *arg, struct argp_state *state)
{
	struct weights_args *a = state->input;

	switch (key) {
	case OPT_INPUT: a->input = arg; break;
	case OPT_FROM: a->from = arg; break;
	case OPT_APPLY: a->apply = true; break;
	case OPT_RESTORE: a->restore = true; break;
	case RM_OPT_DRY_RUN: a->dry_run = true; break;
	case ARGP_KEY_ARG: argp_error(state, "unexpected argument: '%s'", arg); break;
	case ARGP_KEY_END:
		if (a->apply && a->restore)
			argp_error(state, "--apply and --restore exclude each other");
		if (a->restore && (a->input || a->from))
			argp_error(state, "--restore takes no --input or --from");
		if (a->dry_run && !a->apply && !a->restore)
			argp_error(state, "--dry-run goes with --apply or --restore");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* bw[c][m]: GB/s from CPU node c to memory node m, 0 where not measured. */
typedef double matrix[MAXNODES][MAXNODES];

/* A node number of a record's single-node set field, or -1. */
static int one_node(const struct rm_record *r, const char *key)
{
	const char *v = rm_record_get(r, key);
	char *end;
	long n;

	if (!v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	return errno || end == v || *end || n < 0 || n >= MAXNODES ? -1 : (int)n;
}

/* Read the triad records of a matrix from IN (NAME in messages); exits 2 on bad input. */
static void read_matrix(FILE *in, const char *name, matrix bw)
{
	struct rm_record r = { 0 };
	unsigned line = 0, n = 0;
	char *msg = NULL;
	int got;

	while ((got = rm_record_read(in, &line, &r, &msg)) > 0) {
		const char *bench = rm_record_get(&r, "bench"), *op = rm_record_get(&r, "op"),
			   *st = rm_record_get(&r, "status"), *med = rm_record_get(&r, "median");
		int c = one_node(&r, "nodes"), m = one_node(&r, "mem_nodes");
		char *end;
		double x;

		if (bench && !strcmp(bench, "mem") && op && !strcmp(op, "triad") && st &&
		    !strcmp(st, "ok")) {
			if (c < 0 || m < 0 || !med)
				rm_usage_errx("%s: line %u: not a record of mem --matrix (one node in "
					      "nodes and mem_nodes, a median)", name, line);
			x = strtod(med, &end);
			if (end == med || *end || !(x > 0))
				rm_usage_errx("%s: line %u: bad median: '%s'", name, line, med);
			bw[c][m] = x;
			n++;
		}
		rm_record_free(&r);
	}
	if (got < 0)
		rm_usage_errx("%s: %s", name, msg);
	if (!n)
		rm_usage_errx("no triad bandwidth of mem --matrix in '%s'", name);
}

/* Measure the matrix with this program's mem --matrix --op triad. */
static void measure_matrix(matrix bw)
{
	char *argv[] = { "rm-bench", "mem", "--matrix", "--op", "triad", NULL };
	posix_spawn_file_actions_t fa;
	int fd[2], status, rc;
	pid_t pid;
	FILE *in;

	if (pipe2(fd, O_CLOEXEC))
		rm_err(RM_EXIT_FAILURE, "pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc)
		rm_errx(RM_EXIT_FAILURE, "cannot run mem --matrix: %s", strerror(rc));
	in = fdopen(fd[0], "r");
	if (!in)
		rm_err(RM_EXIT_FAILURE, "fdopen");
	read_matrix(in, "mem --matrix", bw);
	fclose(in);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		rm_errx(RM_EXIT_FAILURE, "mem --matrix failed");
}

/* Node NODE's integer in the kernel's weights (HMAT: "read_bandwidth" or "write_bandwidth" of
 * access0 instead) under ROOT, or -1. */
static long long read_int(const char *root, int node, const char *hmat)
{
	char path[160];
	uint64_t v;

	if (hmat)
		snprintf(path, sizeof(path), "sys/devices/system/node/node%d/access0/initiators/%s",
			 node, hmat);
	else
		snprintf(path, sizeof(path), RM_WI_DIR "/node%d", node);
	return rm_sysfs_read_u64(root, path, &v) ? -1 : (long long)v;
}

struct plan {
	int n;
	int node[MAXNODES];
	hwloc_bitmap_t from[MAXNODES];
	double bw[MAXNODES];
	unsigned weight[MAXNODES];
	long long kernel[MAXNODES];
};

/*
 * Group the memory nodes and weigh each group. With FROM, one group: every memory node, seen
 * from the mean of FROM's rows. Without, each memory node goes with the CPU node that reaches
 * it fastest (its own node, or for memory without CPUs the package it hangs off), and the
 * nodes of one such CPU node are weighed against each other.
 */
static void propose(matrix bw, hwloc_const_bitmap_t from, struct plan *p)
{
	int home[MAXNODES];

	for (int m = 0; m < MAXNODES; m++) {
		double best = 0;

		home[m] = -1;
		for (int c = 0; c < MAXNODES; c++)
			if (bw[c][m] > best && (!from || hwloc_bitmap_isset(from, (unsigned)c)))
				best = bw[c][m], home[m] = c;
		if (home[m] < 0)
			continue;
		p->node[p->n] = m;
		p->from[p->n] = hwloc_bitmap_alloc();
		if (from) {
			int k = 0;
			unsigned c;

			hwloc_bitmap_foreach_begin(c, from) {
				if (c < MAXNODES && bw[c][m] > 0)
					p->bw[p->n] += bw[c][m], k++;
			}
			hwloc_bitmap_foreach_end();
			p->bw[p->n] /= k;
			hwloc_bitmap_copy(p->from[p->n], from);
		} else {
			p->bw[p->n] = best;
			hwloc_bitmap_set(p->from[p->n], (unsigned)home[m]);
		}
		p->n++;
	}
	if (from && p->n) {
		rm_wi_weights(p->bw, (size_t)p->n, RM_WI_RESOLUTION, p->weight);
		return;
	}
	for (int c = 0; c < MAXNODES; c++) {
		double g[MAXNODES];
		unsigned w[MAXNODES];
		int idx[MAXNODES], k = 0;

		for (int i = 0; i < p->n; i++)
			if (home[p->node[i]] == c)
				idx[k] = i, g[k++] = p->bw[i];
		if (k && !rm_wi_weights(g, (size_t)k, RM_WI_RESOLUTION, w))
			for (int j = 0; j < k; j++)
				p->weight[idx[j]] = w[j];
	}
}

/* The journal's weight records into the plan (restore: weight = was). Exits 2 on a bad one. */
static void plan_restore(const struct rm_state *st, const char *root, struct plan *p)
{
	for (size_t i = 0; i < st->nrecords && p->n < MAXNODES; i++) {
		const struct rm_record *r = &st->records[i];
		int node = one_node(r, "weight");
		const char *was = rm_record_get(r, "was");
		char *end;
		unsigned long w;

		if (strcmp(rm_record_kind(r), "weight"))
			continue;
		w = was ? strtoul(was, &end, 10) : 0;
		if (node < 0 || !was || *end || w < 1 || w > RM_WI_MAX)
			rm_errx(RM_EXIT_FAILURE, "%s: bad record on line %u", st->path, r->line);
		p->node[p->n] = node;
		p->weight[p->n] = (unsigned)w;
		p->kernel[p->n] = read_int(root, node, NULL);
		p->n++;
	}
}

/* Write the plan's weights, each undone if a later one fails. 0, or -1 with *ERRMSG. */
static int write_weights(const char *dir, const struct plan *p, char **errmsg)
{
	struct rm_kernfs_log log = { .flags = RM_KERNFS_NOFOLLOW };
	int rc = 0;

	for (int i = 0; i < p->n && !rc; i++) {
		char file[32], val[16], was[24];

		snprintf(file, sizeof(file), "node%d", p->node[i]);
		snprintf(val, sizeof(val), "%u", p->weight[i]);
		snprintf(was, sizeof(was), "%lld", p->kernel[i]);
		rc = rm_kernfs_put(&log, dir, file, val, was, errmsg);
	}
	if (rc)
		rm_kernfs_undo(&log, errmsg);
	rm_kernfs_log_free(&log);
	return rc;
}

int cmd_weights(int argc, char **argv, struct rm_common *c)
{
	static const struct argp argp = {
		weights_options, weights_parse, NULL,
		"Weighted-interleave weights per memory node from the measured bandwidth: "
		"proposed beside the kernel's and HMAT's, set with --apply, put back with --restore.",
		NULL, NULL, NULL
	};
	struct weights_args a = { 0 };
	struct plan p = { 0 };
	hwloc_bitmap_t from = NULL;
	struct rm_state st = { 0 };
	const char *root;
	char *dir, *msg = NULL;
	struct rm_out *out;
	bool change;

	rm_parse_command(&argp, argc, argv, c, &a, 0);
	if (c->out.list_columns) {
		rm_out_list_columns(&c->out, weights_cols, ARRAY_SIZE(weights_cols), NULL);
		return RM_EXIT_SUCCESS;
	}
	rm_out_check(&c->out, weights_cols, ARRAY_SIZE(weights_cols), NULL);
	root = c->sysroot && *c->sysroot ? c->sysroot : NULL;
	change = (a.apply || a.restore) && !a.dry_run;
	if (!a.input && !a.restore && root)
		rm_usage_errx("measuring needs this machine: --sysroot goes with --input");
	if (a.from) {
		from = hwloc_bitmap_alloc();
		if (rm_cpulist_parse(a.from, from, &msg) || hwloc_bitmap_iszero(from))
			rm_usage_errx("--from: %s: '%s'", msg ? msg : "no node", a.from);
	}
	if ((a.apply || a.restore) && !rm_sysfs_exists(root, RM_WI_DIR))
		rm_usage_errx("the kernel has no weighted interleave (Linux 6.9+): '%s'", RM_WI_DIR);
	if (change && !root && geteuid())
		rm_usage_errx("setting weights needs root");
	if (root && rm_kernfs_root_add(root) < 0)
		rm_err(RM_EXIT_USAGE, "%s", root);
	dir = rm_sysfs_path(root, RM_WI_DIR);

	if (a.restore) {
		rm_state_open_or_exit(&st, WEIGHTS_STATE, change ? RM_STATE_WRITE : RM_STATE_READ,
				      "rm-bench(1)", "setting weights");
		plan_restore(&st, root, &p);
	} else {
		static matrix bw;

		if (a.input) {
			FILE *in = strcmp(a.input, "-") ? fopen(a.input, "re") : stdin;

			if (!in)
				rm_errx(RM_EXIT_USAGE, "cannot read '%s': %s", a.input, strerror(errno));
			read_matrix(in, a.input, bw);
			if (in != stdin)
				fclose(in);
		} else {
			measure_matrix(bw);
		}
		propose(bw, from, &p);
		if (!p.n)
			rm_usage_errx("no node measured from --from: '%s'", a.from);
		for (int i = 0; i < p.n; i++) {
			p.kernel[i] = read_int(root, p.node[i], NULL);
			if (a.apply && p.kernel[i] < 0)
				rm_usage_errx("no weight of node %d in the kernel: '%s/node%d'",
					      p.node[i], dir, p.node[i]);
		}
	}

	if (change && a.apply) {
		/* the journal first: each node's weight before the first --apply, kept until
		 * --restore, so that a second --apply does not forget the original */
		rm_state_open_or_exit(&st, WEIGHTS_STATE, RM_STATE_WRITE, "rm-bench(1)",
				      "setting weights");
		for (int i = 0; i < p.n; i++) {
			char id[16], was[24];
			struct rm_record r = { 0 };

			snprintf(id, sizeof(id), "%d", p.node[i]);
			if (rm_state_find(&st, "weight", id) >= 0)
				continue;
			snprintf(was, sizeof(was), "%lld", p.kernel[i]);
			rm_record_set(&r, "weight", id);
			rm_record_set(&r, "was", was);
			rm_state_add(&st, &r);
		}
		if (rm_state_commit(&st))
			rm_err(RM_EXIT_FAILURE, "cannot write '%s'", st.path);
	}
	if (change && write_weights(dir, &p, &msg))
		rm_errx(RM_EXIT_FAILURE, "%s", msg); /* undone; the journal's olds still stand */
	if (change && a.restore) {
		while (st.nrecords)
			rm_state_remove(&st, st.nrecords - 1);
		if (rm_state_commit(&st))
			rm_err(RM_EXIT_FAILURE, "weights restored, but cannot empty '%s'", st.path);
	}
	rm_state_close(&st);

	out = rm_out_new(&c->out, "weights", weights_cols, ARRAY_SIZE(weights_cols), NULL, true);
	for (int i = 0; i < p.n; i++) {
		long long r = read_int(root, p.node[i], "read_bandwidth"),
			  w = read_int(root, p.node[i], "write_bandwidth");

		rm_out_begin(out);
		rm_out_int(out, W_NODE, p.node[i]);
		rm_out_set(out, W_FROM, p.from[i]);
		if (p.bw[i] > 0)
			rm_out_float(out, W_BANDWIDTH, p.bw[i], 2);
		rm_out_int(out, W_WEIGHT, p.weight[i]);
		if (p.kernel[i] >= 0)
			rm_out_int(out, W_KERNEL, p.kernel[i]);
		if (r >= 0)
			rm_out_int(out, W_HMAT_READ, r);
		if (w >= 0)
			rm_out_int(out, W_HMAT_WRITE, w);
		rm_out_end(out);
		hwloc_bitmap_free(p.from[i]);
	}
	rm_out_close(out);
	hwloc_bitmap_free(from);
	free(dir);
	free(msg);
	rm_out_flush();
	return RM_EXIT_SUCCESS;
}
