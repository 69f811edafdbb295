/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rm-qos blame's score (tools/rm-qos/score.c) over synthetic series, driven by
 * tests/rm-qos/check.bats: a check per case, and with "show" the parts of each score. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "score.h"

enum { N = 24 };

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* The neighbours' total use per step: A + B. */
static void sum(const double *a, const double *b, double *all)
{
	for (int i = 0; i < N; i++)
		all[i] = a[i] + b[i];
}

static void show(const char *name, const struct blame_score *s)
{
	printf("%s score=%.3f share=%.3f tracking=%.3f", name, s->score, s->share, s->tracking);
	if (s->fit)
		printf(" correlation=%.3f slope=%.2f", s->correlation, s->slope);
	printf(" use=%.2f\n", s->use);
}

/* A hog 3 steps on, 3 off on the owner's CPU (the owner stalls about 45% while it runs) against
 * a bystander busy all along on 1.5 CPUs of the pool with a little noise of its own: the
 * bystander has the larger share of the use, the hog the score. */
static void bursty_hog(bool print)
{
	double hog[N], by[N], stall[N], all[N];
	struct blame_score h, b;

	for (int i = 0; i < N; i++) {
		hog[i] = (i / 3) % 2 ? 0 : 1;
		by[i] = 1.5 + 0.02 * sin(i * 2.1);
		stall[i] = 45 * hog[i] + 2 + 0.5 * cos(i * 1.3);
	}
	sum(hog, by, all);
	blame_score(stall, hog, all, N, &h);
	blame_score(stall, by, all, N, &b);
	if (print) {
		show("hog", &h);
		show("bystander", &b);
	}
	CHECK(h.score > b.score, "hog %.3f not above bystander %.3f", h.score, b.score);
	CHECK(b.share > h.share, "the bystander's share %.3f not above the hog's %.3f", b.share,
	      h.share);
	CHECK(h.fit && h.correlation > 0.99, "hog correlation %.3f", h.correlation);
	CHECK(h.slope > 40 && h.slope < 50, "hog slope %.2f", h.slope);
	CHECK(h.score > 0.35 && h.score < 0.45, "hog score %.3f", h.score);
	CHECK(b.fit && fabs(b.correlation) < 0.3, "bystander correlation %.3f", b.correlation);
	CHECK(b.score < 0.1, "bystander score %.3f", b.score);
	CHECK(near(h.use, 0.5), "hog mean use %.3f", h.use);
}

/* The stall a fixed multiple of the use: correlation 1, the slope that multiple. */
static void proportional(void)
{
	double use[N], stall[N];
	struct blame_score s;

	for (int i = 0; i < N; i++) {
		use[i] = i % 5;
		stall[i] = 40 * use[i];
	}
	blame_score(stall, use, use, N, &s);
	CHECK(s.fit && near(s.correlation, 1) && near(s.slope, 40), "r %.6f slope %.6f",
	      s.correlation, s.slope);
	CHECK(near(s.share, 1) && near(s.score, 1), "share %.6f score %.6f", s.share, s.score);
}

/* Use that explains half the stall's variance (the other half is its own): tracking 0.5, r
 * squared, not r (0.707), so that a chance correlation weighs little. */
static void half(void)
{
	double use[N], stall[N];
	struct blame_score s;

	for (int i = 0; i < N; i++) {
		use[i] = i % 2;
		stall[i] = 10 * (i % 2 + (i / 2) % 2) + 1;
	}
	blame_score(stall, use, use, N, &s);
	CHECK(s.fit && near(s.correlation, sqrt(0.5)) && near(s.tracking, 0.5), "r %.6f tracking %.6f",
	      s.correlation, s.tracking);
	CHECK(near(s.share, 32.0 / 44) && near(s.score, 0.5 * 32 / 44), "share %.6f score %.6f",
	      s.share, s.score);
}

/* Use that falls as the stall rises: no blame, whatever the share. */
static void opposite(void)
{
	double use[N], stall[N];
	struct blame_score s;

	for (int i = 0; i < N; i++) {
		use[i] = i % 2;
		stall[i] = 10 * (1 - i % 2) + 1;
	}
	blame_score(stall, use, use, N, &s);
	CHECK(s.fit && near(s.correlation, -1), "r %.6f", s.correlation);
	CHECK(s.tracking == 0 && s.score == 0, "tracking %.3f score %.3f", s.tracking, s.score);
}

/* A steady stall: timing tells nothing, the shares are the scores. A varying stall against a
 * steady neighbour: its use explains none of it. */
static void steady(void)
{
	double a[N], b[N], stall[N], all[N];
	struct blame_score sa, sb;

	for (int i = 0; i < N; i++) {
		a[i] = 3;
		b[i] = 1;
		stall[i] = 20;
	}
	sum(a, b, all);
	blame_score(stall, a, all, N, &sa);
	blame_score(stall, b, all, N, &sb);
	CHECK(!sa.fit && sa.tracking == 1 && near(sa.score, 0.75), "score %.6f", sa.score);
	CHECK(!sb.fit && near(sb.score, 0.25), "score %.6f", sb.score);
	for (int i = 0; i < N; i++)
		stall[i] = i % 2 ? 30 : 10;
	blame_score(stall, a, all, N, &sa);
	CHECK(!sa.fit && sa.tracking == 0 && sa.score == 0 && near(sa.share, 0.75),
	      "tracking %.3f score %.3f share %.3f", sa.tracking, sa.score, sa.share);
}

/* No stall, no blame; no steps, nothing at all. */
static void no_stall(void)
{
	double use[N], stall[N] = { 0 };
	struct blame_score s;

	for (int i = 0; i < N; i++)
		use[i] = i % 3;
	blame_score(stall, use, use, N, &s);
	CHECK(s.score == 0 && s.share == 0 && s.tracking == 0 && near(s.use, 1),
	      "score %.3f share %.3f use %.3f", s.score, s.share, s.use);
	blame_score(stall, use, use, 0, &s);
	CHECK(s.score == 0 && s.use == 0, "empty: score %.3f use %.3f", s.score, s.use);
}

int main(int argc, char **argv)
{
	bool print = argc == 2 && !strcmp(argv[1], "show");

	if (argc > 2 || (argc == 2 && !print)) {
		fputs("usage: test-qos-score [show]\n", stderr);
		return 2;
	}
	bursty_hog(print);
	proportional();
	half();
	opposite();
	steady();
	no_stall();
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
