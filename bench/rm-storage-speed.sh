#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-storage list against `lsblk` on this machine's disks, side by side: the default listing of
# each (lsblk -d: disks without their partitions, as rm-storage lists them) and one with the
# fields they share (name, size, rotational, model, scheduler, queue, block sizes, mounts).
# Needs hyperfine and jq (Debian packages). Prints one record per figure.
# The machine is shared and noisy: each comparison is ROUNDS hyperfine runs with the two commands
# in alternating order, and the figure is the median of the rounds' median ratios, with the
# range of the rounds' ratios.
#   usage: bench/rm-storage-speed.sh [RM_STORAGE] [RUNS] [ROUNDS]
set -eu

rm_storage=${1:-./rm-storage}
runs=${2:-20}
rounds=${3:-7}
# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-storage-speed hyperfine jq lsblk
rm_storage=$(bench_program rm-storage-speed "$rm_storage")
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY RM_STATE_DIR RM_CGROUP_ROOT

# the two see the same disks
[ "$("$rm_storage" list -o disk -r)" = "$(lsblk -dn -b -o NAME,SIZE | awk '$2 > 0 { print $1 }' | sort)" ] ||
	{ echo "rm-storage-speed: rm-storage and lsblk do not see the same disks" >&2; exit 1; }

# start-up alone: the libraries a command does not use are not loaded (libblkid, libmount)
bench_compare version rm_storage "$rm_storage --version" lsblk "lsblk --version"
bench_instructions version rm_storage "$rm_storage --version" lsblk "lsblk --version"
bench_compare list rm_storage "$rm_storage list" lsblk "lsblk -d"
bench_compare list-fields rm_storage \
	"$rm_storage list -o disk,size,rotational,model,scheduler,queue_depth,logical_block,physical_block,mounts" \
	lsblk "lsblk -d -o NAME,SIZE,ROTA,MODEL,SCHED,RQ-SIZE,LOG-SEC,PHY-SEC,MOUNTPOINTS"
