#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices list against `lspci -D -nn` on the same devices, side by side: on the 8-GPU server
# tree of the tests (lspci reading it with -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci) and on
# this machine; `list` (the devices of interest) and `list --all` (every function, as lspci
# lists them). Both load pci.ids for the names. Needs hyperfine and jq (Debian packages), and
# valgrind for the instruction counts (left out without it). Prints one record per figure.
# The machine is shared and noisy: each comparison is ROUNDS hyperfine runs with the two commands
# in alternating order, and the figure is the median of the rounds' median ratios, with the
# range of the rounds' ratios.
#   usage: bench/rm-devices-speed.sh [RM_DEVICES] [RUNS] [ROUNDS]
set -eu

rm_devices=${1:-./rm-devices}
runs=${2:-20}
rounds=${3:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$tmp/hyperfine.json

for tool in hyperfine jq lspci; do
	command -v "$tool" >/dev/null || { echo "rm-devices-speed: needs $tool" >&2; exit 2; }
done
[ -x "$rm_devices" ] || { echo "rm-devices-speed: not executable: '$rm_devices'" >&2; exit 2; }
case $rm_devices in */*) rm_devices=$(cd "$(dirname "$rm_devices")" && pwd)/${rm_devices##*/} ;; esac
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY RM_STATE_DIR RM_CGROUP_ROOT

# the GPU server of tests/rm-devices/fixtures.bash
srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2034 # read by fixtures.bash
SNAPSHOTS=$srcdir/tests/snapshots
# shellcheck source=../tests/rm-devices/fixtures.bash
. "$srcdir/tests/rm-devices/fixtures.bash"
tree=$tmp/gpu-server
fx_gpu_server "$tree"
lspci_tree="lspci -D -nn -A linux-sysfs -O sysfs.path=$tree/sys/bus/pci"
# the two read the same functions
[ "$("$rm_devices" --sysroot "$tree" list --all -o device -r)" = "$($lspci_tree | cut -d' ' -f1)" ] ||
	{ echo "rm-devices-speed: rm-devices and lspci do not see the same functions" >&2; exit 1; }

# compare NAME A-LABEL A-COMMAND B-LABEL B-COMMAND: one record with the medians and the ratio A/B
compare() {
	local name=$1 la=$2 a=$3 lb=$4 b=$5 r lines=""

	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) -eq 1 ]; then set -- "$a" "$b"; else set -- "$b" "$a"; fi
		hyperfine -N --style none --warmup 5 --runs "$runs" --export-json "$json" "$1" "$2" \
			>/dev/null 2>&1
		lines+=$(jq -r --arg a "$a" '.results | map({(.command): .median}) | add |
			"\(.[$a]) \(.[(keys - [$a])[0]])"' "$json")$'\n'
	done
	printf '%s' "$lines" | awk -v n="$name" -v la="$la" -v lb="$lb" -v runs="$runs" -v rounds="$rounds" '
		{ a[NR] = $1 * 1000; b[NR] = $2 * 1000; q[NR] = $1 / $2 }
		function median(v, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		}
		END {
			lo = hi = q[1]
			for (i = 2; i <= NR; i++) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
			printf "bench=%s runs=%d rounds=%d %s_ms=%.3f %s_ms=%.3f ratio=%.3f ratio_min=%.3f ratio_max=%.3f\n",
				n, runs, rounds, la, median(a, NR), lb, median(b, NR), median(q, NR), lo, hi
		}'
}

# instructions NAME A-COMMAND B-COMMAND: callgrind's instruction counts, which do not depend on
# the load of the machine
instructions() {
	local name=$1 a b
	command -v valgrind >/dev/null || return 0
	a=$(count "$2") b=$(count "$3")
	awk -v n="$name" -v a="$a" -v b="$b" \
		'BEGIN { printf "bench=%s-instructions rm_devices=%d lspci=%d ratio=%.3f\n", n, a, b, a / b }'
}
count() {
	# shellcheck disable=SC2086 # the command line is split on purpose
	valgrind --tool=callgrind --callgrind-out-file=/dev/null $1 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

compare gpu-server-list rm_devices "$rm_devices --sysroot $tree list" lspci "$lspci_tree"
compare gpu-server-list-all rm_devices "$rm_devices --sysroot $tree list --all" lspci "$lspci_tree"
compare this-machine-list rm_devices "$rm_devices list" lspci "lspci -D -nn"
compare this-machine-list-all rm_devices "$rm_devices list --all" lspci "lspci -D -nn"
instructions gpu-server-list "$rm_devices --sysroot $tree list" "$lspci_tree"
instructions gpu-server-list-all "$rm_devices --sysroot $tree list --all" "$lspci_tree"
instructions this-machine-list-all "$rm_devices list --all" "lspci -D -nn"
