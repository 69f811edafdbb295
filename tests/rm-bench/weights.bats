#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench weights: the computation, proposals from a matrix file, --apply and --restore on a
# fake sysfs root.
load ../test_helper
load bench_helper

wiw() { "$RM_BUILDDIR/tests/unit/test-wiweights" "$@"; }

# A mem --matrix record: CPU node $1 to memory node $2 at $3 GB/s.
triad() {
	echo "bench=mem op=triad cpus=0 nodes=$1 threads=1 mem_nodes=$2 size=32MiB pages=4KiB stores=nt neighbour=\"\" best=$3 median=$3 min=$3 max=$3 unit=GB/s runs=3 spread=0.0 status=ok reason=-"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	# two packages, each a DRAM node (0, 1) and a CXL node near it (2 near 0, 3 near 1)
	{
		triad 0 0 40; triad 0 1 20; triad 0 2 10; triad 0 3 4
		triad 1 0 20; triad 1 1 40; triad 1 2 4; triad 1 3 20
	} >m.rec
	root=$BATS_TEST_TMPDIR/root
	for n in 0 1 2 3; do
		mkdir -p "$root/sys/kernel/mm/mempolicy/weighted_interleave" \
			"$root/sys/devices/system/node/node$n/access0/initiators"
		echo 1 >"$root/sys/kernel/mm/mempolicy/weighted_interleave/node$n"
	done
	echo 40000 >"$root/sys/devices/system/node/node0/access0/initiators/read_bandwidth"
	echo 30000 >"$root/sys/devices/system/node/node0/access0/initiators/write_bandwidth"
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
}

kernel() { cat "$root/sys/kernel/mm/mempolicy/weighted_interleave/node$1"; }

@test "weights: proportional, rounded, at least 1, at most 255, reduced by their divisor" {
	run -0 wiw 16 40 20 10
	assert_output "4 2 1"
	run -0 wiw 16 40 10
	assert_output "4 1"
	run -0 wiw 16 100 1
	assert_output "16 1"
	run -0 wiw 255 1000 1
	assert_output "255 1"
	run -0 wiw 16 30 20
	assert_output "16 11"
	run -0 wiw 16 7 7 7
	assert_output "1 1 1"
	run -2 wiw 16 10 0
	run -2 wiw 0 10
	run -2 wiw 256 10
	run -2 wiw 16
}

@test "weights --input: each node weighed from its own package, beside the kernel's and HMAT's" {
	run -0 rm-bench --sysroot "$root" weights --input m.rec
	assert_output "$(printf '%s\n' \
		'node=0 from=0 bandwidth=40.00 weight=4 kernel=1 hmat_read=40000 hmat_write=30000' \
		'node=1 from=1 bandwidth=40.00 weight=2 kernel=1 hmat_read=- hmat_write=-' \
		'node=2 from=0 bandwidth=10.00 weight=1 kernel=1 hmat_read=- hmat_write=-' \
		'node=3 from=1 bandwidth=20.00 weight=1 kernel=1 hmat_read=- hmat_write=-')"
	run -0 rm-bench --sysroot "$root" weights --input m.rec --from 1 -o node,weight
	assert_output "$(printf '%s\n' node=0\ weight=4 node=1\ weight=8 node=2\ weight=1 node=3\ weight=4)"
	run -0 rm-bench --sysroot "$root" weights --input m.rec -J
	[ "$(json_eval 'd["weights"][1]["weight"]')" = 2 ]
}

@test "weights --apply sets the weights, journaled; --restore puts the old ones back" {
	echo 3 >"$root/sys/kernel/mm/mempolicy/weighted_interleave/node2"
	run -0 rm-bench --sysroot "$root" weights --input m.rec --apply --dry-run
	[ "$(kernel 0)" = 1 ]
	[ ! -e state/weights.state ]
	run -0 rm-bench --sysroot "$root" weights --input m.rec --apply
	assert_line 'node=0 from=0 bandwidth=40.00 weight=4 kernel=1 hmat_read=40000 hmat_write=30000'
	[ "$(kernel 0) $(kernel 1) $(kernel 2) $(kernel 3)" = "4 2 1 1" ]
	grep -qx 'weight=2 was=3' state/weights.state
	# a second --apply keeps the weights found first
	run -0 rm-bench --sysroot "$root" weights --input m.rec --from 1 --apply
	[ "$(kernel 1)" = 8 ]
	grep -qx 'weight=1 was=1' state/weights.state
	run -0 rm-bench --sysroot "$root" weights --restore --dry-run -o node,weight,kernel
	assert_line 'node=2 weight=3 kernel=1'
	[ "$(kernel 1)" = 8 ]
	run -0 rm-bench --sysroot "$root" weights --restore
	[ "$(kernel 0) $(kernel 1) $(kernel 2) $(kernel 3)" = "1 1 3 1" ]
	run -1 grep '^weight=' state/weights.state
}

@test "weights: bad input and a kernel without weights change nothing (exit 2)" {
	usage_error "no triad bandwidth of mem --matrix in 'empty.rec'" \
		rm-bench --sysroot "$root" weights --input empty.rec --apply < <(:) 2>/dev/null || true
	: >empty.rec
	usage_error "no triad bandwidth of mem --matrix in 'empty.rec'" \
		rm-bench --sysroot "$root" weights --input empty.rec --apply
	usage_error "--from: " rm-bench --sysroot "$root" weights --input m.rec --from x --apply
	usage_error "no node measured from --from: '7'" \
		rm-bench --sysroot "$root" weights --input m.rec --from 7 --apply
	usage_error "--sysroot goes with --input" rm-bench --sysroot "$root" weights
	usage_error "--apply and --restore exclude each other" rm-bench weights --apply --restore
	usage_error "--dry-run goes with --apply or --restore" rm-bench weights --dry-run
	rm "$root/sys/kernel/mm/mempolicy/weighted_interleave/node3"
	usage_error "no weight of node 3 in the kernel" \
		rm-bench --sysroot "$root" weights --input m.rec --apply
	[ "$(kernel 0)" = 1 ]
	rm -r "$root/sys/kernel/mm/mempolicy/weighted_interleave"
	usage_error "the kernel has no weighted interleave (Linux 6.9+)" \
		rm-bench --sysroot "$root" weights --input m.rec --apply
	[ ! -e state/weights.state ]
}

@test "weights --apply: a write that fails is undone, the old weights stand (exit 1)" {
	# node 3's file is a symlink, read but never written: the write fails after nodes 0-2
	mv "$root/sys/kernel/mm/mempolicy/weighted_interleave/node3" "$root/node3"
	ln -s ../../../../../node3 "$root/sys/kernel/mm/mempolicy/weighted_interleave/node3"
	run -1 --separate-stderr rm-bench --sysroot "$root" weights --input m.rec --apply
	[[ $stderr == *"cannot write '1'"*node3* ]] || fail "$stderr"
	[ "$(kernel 0) $(kernel 1) $(kernel 2) $(cat "$root/node3")" = "1 1 1 1" ]
}
