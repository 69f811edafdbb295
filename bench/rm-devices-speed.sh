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
# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-devices-speed hyperfine jq lspci
rm_devices=$(bench_program rm-devices-speed "$rm_devices")
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

bench_compare gpu-server-list rm_devices "$rm_devices --sysroot $tree list" lspci "$lspci_tree"
bench_compare gpu-server-list-all rm_devices "$rm_devices --sysroot $tree list --all" lspci "$lspci_tree"
bench_compare this-machine-list rm_devices "$rm_devices list" lspci "lspci -D -nn"
bench_compare this-machine-list-all rm_devices "$rm_devices list --all" lspci "lspci -D -nn"
instructions gpu-server-list "$rm_devices --sysroot $tree list" "$lspci_tree"
instructions gpu-server-list-all "$rm_devices --sysroot $tree list --all" "$lspci_tree"
instructions this-machine-list-all "$rm_devices list --all" "lspci -D -nn"
