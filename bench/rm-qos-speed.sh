#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos's speed: `rm-qos show` over OWNERS owners (default 200) of a fake cgroup v2 tree, made
# here as a plain directory tree (RM_CGROUP_ROOT) with every file show reads, against `cat` of the
# same files twice (show reads each file twice, an interval apart; the interval here is 1ms).
# Needs hyperfine and jq. The machine is shared and noisy: ROUNDS hyperfine runs with the two in
# alternating order; the figures are the medians of the rounds, and the goal is show under 50 ms.
#   usage: bench/rm-qos-speed.sh [RM_QOS] [RUNS] [ROUNDS] [OWNERS]
set -eu

rm_qos=${1:-./rm-qos}
runs=${2:-20}
rounds=${3:-5}
owners=${4:-200}
# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-qos-speed hyperfine jq
rm_qos=$(bench_program rm-qos-speed "$rm_qos")
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY RM_CONFIG_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cg=$tmp/cg
mkdir -p "$cg/rmtools.slice" "$tmp/state" "$tmp/sys/proc/pressure"
echo "cpuset cpu io memory hugetlb pids" >"$cg/cgroup.controllers"
echo "usage_usec 1000" >"$cg/cpu.stat"
echo "usage_usec 1000" >"$cg/rmtools.slice/cpu.stat"
psi='some avg10=0.00 avg60=0.00 avg300=0.00 total=0
full avg10=0.00 avg60=0.00 avg300=0.00 total=0'
for f in cpu memory io; do echo "$psi" >"$tmp/sys/proc/pressure/$f"; done
printf '           CPU0       CPU1\n  24:          1          2   PCI-MSI 0-edge      nvme0q0\n' \
	>"$tmp/sys/proc/interrupts"
for i in $(seq 1 "$owners"); do
	d=$cg/rmtools.slice/owner$i
	mkdir "$d"
	printf 'usage_usec %d\nuser_usec 1\nsystem_usec 1\nnr_periods 10\nnr_throttled 1\nthrottled_usec 5\n' "$i" >"$d/cpu.stat"
	for f in cpu memory io; do echo "$psi" >"$d/$f.pressure"; done
	echo 1048576 >"$d/memory.current"
	echo max >"$d/memory.high"
	echo max >"$d/memory.max"
	printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n' >"$d/memory.events"
	echo 0 >"$d/hugetlb.2MB.current"
	echo 0 >"$d/hugetlb.1GB.current"
	echo '8:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0' >"$d/io.stat"
	echo 1 >"$d/cpuset.cpus.effective"
done
export RM_CGROUP_ROOT=$cg RM_STATE_DIR=$tmp/state RM_SYSROOT=$tmp/sys RM_RESCTRL_ROOT=$tmp/none

# what show reads, listed once: cat reads them twice as show does
find "$cg" "$tmp/sys/proc" -type f | sort >"$tmp/files"
n=$("$rm_qos" show --interval 1ms | wc -l)
[ "$n" -eq $((owners + 2)) ] || { echo "rm-qos-speed: show printed $n records" >&2; exit 1; }

a="$rm_qos show --interval 1ms"
b="xargs -a $tmp/files cat -- >/dev/null; xargs -a $tmp/files cat -- >/dev/null"
read -r qos_ms cat_ms ratio lo hi < <(bench_ratio "$a >/dev/null" "$b" --warmup 3)
goal=$(awk -v t="$qos_ms" 'BEGIN { print (t < 50 ? "met" : "missed") }')
echo "bench=show owners=$owners files=$(wc -l <"$tmp/files") runs=$runs rounds=$rounds" \
	"rm_qos_ms=$qos_ms cat_ms=$cat_ms ratio=$ratio ratio_min=$lo ratio_max=$hi goal_50ms=$goal"
