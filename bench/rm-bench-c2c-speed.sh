#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench c2c with its defaults against c2clat on the same pair of CPUs, run alternately: the
# median over the rounds of rm-bench's best round trip, of twice c2clat's one-way figure (it
# prints half a round trip, whole nanoseconds) and of the rounds' ratios. c2clat is used from
# PATH, else built from C2CLAT_SRC (its c2clat.cpp, or a directory holding it), else from a clone
# of https://github.com/rigtorp/c2clat, in a temporary directory removed at the end. Needs g++.
# Prints one record per round and one for the figure.
#   usage: bench/rm-bench-c2c-speed.sh [RM_BENCH] [ROUNDS] [CPU,CPU]
set -eu

rm_bench=${1:-./rm-bench}
rounds=${2:-7}
# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"
rm_bench=$(bench_program rm-bench-c2c-speed "$rm_bench")
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
allowed=$(taskset -pc $$ | sed 's/.*: //')
pair=${3:-$(python3 -c 'import sys
s=[]
for p in sys.argv[1].split(","):
    a,_,b=p.partition("-"); s += range(int(a), int(b or a)+1)
print("%d,%d" % (s[0], s[-1]) if len(s) > 1 else "")' "$allowed")}
[[ $pair =~ ^[0-9]+,[0-9]+$ ]] || { echo "rm-bench-c2c-speed: two CPUs needed: '$pair'" >&2; exit 2; }

c2clat=$(command -v c2clat || true)
if [ -z "$c2clat" ]; then
	bench_needs rm-bench-c2c-speed g++
	src=${C2CLAT_SRC:-}
	if [ -z "$src" ]; then
		bench_needs rm-bench-c2c-speed git
		git clone -q --depth 1 https://github.com/rigtorp/c2clat "$tmp/src"
		src=$tmp/src
	fi
	[ -d "$src" ] && src=$src/c2clat.cpp
	[ -r "$src" ] || { echo "rm-bench-c2c-speed: no c2clat.cpp: '$src'" >&2; exit 2; }
	# c2clat's own build line
	g++ -O3 -DNDEBUG "$src" -o "$tmp/c2clat" -pthread
	c2clat=$tmp/c2clat
fi

rm_fig() { "$rm_bench" c2c --cpus "$pair" -o best --raw | head -n 1; }
# the pair's entry of c2clat's matrix (row 2, column 3), doubled: a round trip
c2clat_fig() { taskset -c "$pair" "$c2clat" | awk 'NR == 2 { print 2 * $3 }'; }

lines=""
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then
		a=$(rm_fig)
		b=$(c2clat_fig)
	else
		b=$(c2clat_fig)
		a=$(rm_fig)
	fi
	echo "round=$r pair=$pair rm_bench_ns=$a c2clat_ns=$b"
	lines+="$a $b"$'\n'
done
printf '%s' "$lines" | python3 -c '
import statistics, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
a = statistics.median(x for x, _ in rows)
b = statistics.median(y for _, y in rows)
r = [x / y for x, y in rows]
print("figure=c2c peer=c2clat pair=%s rm_bench_ns=%.1f c2clat_ns=%.1f ratio=%.2f ratio_min=%.2f ratio_max=%.2f rounds=%d"
      % (sys.argv[1], a, b, statistics.median(r), min(r), max(r), len(rows)))' "$pair"
