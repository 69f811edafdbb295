#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo's speed against its peers measured in the same run: the summary against lscpu, the node
# listings against `numactl -H` and `ps --all` against `hwloc-ps -a` on this machine, and
# `rm-topo cpus` on a synthetic 8-package 1024-CPU topology against hwloc-info and hwloc-calc on
# the same description. Needs hyperfine and jq (Debian packages), numactl and hwloc; with
# valgrind, also the instructions of each pair. Prints one record per figure.
# The machine is shared and noisy: each comparison is ROUNDS hyperfine runs with the two commands
# in alternating order, and the figure is the median of the rounds' median ratios.
#   usage: bench/rm-topo-speed.sh [RM_TOPO] [RUNS] [ROUNDS]
set -eu

rm_topo=${1:-./rm-topo}
runs=${2:-20}
rounds=${3:-7}
big="package:8 core:64 pu:2"
# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-topo-speed hyperfine jq lscpu hwloc-info hwloc-calc hwloc-ps numactl
rm_topo=$(bench_program rm-topo-speed "$rm_topo")
export LC_ALL=C

bench_compare summary rm_topo "$rm_topo" lscpu lscpu
bench_compare cpus-1024 rm_topo "$rm_topo --topology '$big' cpus" hwloc_info "hwloc-info --input '$big'"
# the lines of the speed issue's table: each pair as wall time, then as instructions
pairs=(
	"nodes|$rm_topo nodes|numactl|numactl -H"
	"distances|$rm_topo distances --matrix -t|numactl|numactl -H"
	"ps-all|$rm_topo ps --all|hwloc_ps|hwloc-ps -a"
	"cpus-1024-calc|$rm_topo --topology '$big' cpus|hwloc_calc|hwloc-calc --input '$big' --number-of pu all"
)
for p in "${pairs[@]}"; do
	IFS='|' read -r name a peer b <<<"$p"
	bench_compare "$name" rm_topo "$a" "$peer" "$b"
	bench_instructions "$name" rm_topo "$a" "$peer" "$b"
done
