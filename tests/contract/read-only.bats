#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Read-only commands of rm-topo, rm-cpuset, rm-class and rm-bench: a lost report exits 1 in one line.
load ../test_helper
load helper

T16="package:2 numa:1 core:4 pu:2"

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/etc"
	mkdir -p "$RM_CONFIG_DIR/classes.d"
}

# Every read-only command with records to print: one per line, as the shell splits them.
READ_ONLY=(
	"rm-topo --topology '$T16'"
	"rm-topo --topology '$T16' cpus"
	"rm-topo --topology '$T16' nodes -J"
	"rm-topo --topology '$T16' packages -t"
	"rm-topo --topology '$T16' cores -r"
	"rm-topo --topology '$T16' calc node:0"
	"rm-topo --topology '$T16' export nfd"
	"rm-topo cpus --list-columns"
	"rm-cpuset --topology '$T16' show"
	"rm-cpuset --topology '$T16' list --list-columns"
	"rm-cpuset --topology '$T16' alloc --count 2 --owner web --dry-run"
	"rm-cpuset --topology '$T16' export slurm --node-name n1"
	"rm-class list"
	"rm-class show"
	"rm-class explain --list-columns"
	"rm-bench mem --list-columns"
	"rm-bench run --list-columns -J"
)

@test "read-only commands with stdout full: exit 1, one line, nothing changed" {
	local cmd
	for cmd in "${READ_ONLY[@]}"; do
		eval "run --separate-stderr redirected '>/dev/full' $cmd"
		[ "$status" -eq 1 ] || fail "$cmd >/dev/full: exit $status, not 1: $stderr"
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "$cmd >/dev/full: '$stderr'"
		[[ $stderr == rm-*": write error: No space left on device" ]] ||
			fail "$cmd >/dev/full: '$stderr'"
	done
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
}

@test "read-only commands with stdout closed: exit 1, one line" {
	local cmd
	for cmd in "${READ_ONLY[@]}"; do
		eval "run --separate-stderr redirected '>&-' $cmd"
		[ "$status" -eq 1 ] || fail "$cmd >&-: exit $status, not 1: $stderr"
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "$cmd >&-: '$stderr'"
		[[ $stderr == rm-*": write error"* ]] || fail "$cmd >&-: '$stderr'"
	done
}

@test "rm-bench refuses a bad -o before it measures" {
	local args
	for args in "mem -o bogus" "lat -o +bogus" "c2c -o bench,bench" "jitter -o ''" \
		"run -o nope" "mem --list-columns -o bench"; do
		eval "run -2 --separate-stderr timeout 10 rm-bench $args"
		assert_equal "$output" ""
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "rm-bench $args: '$stderr'"
		[[ $stderr == rm-bench:* ]] || fail "rm-bench $args: '$stderr'"
	done
}

@test "rm-topo export nfd --output: the file is the change; '' refused; a lost report is no failure" {
	local f=$BATS_TEST_TMPDIR/labels
	run -2 --separate-stderr rm-topo --topology "$T16" export nfd --output ''
	assert_equal "$stderr" "rm-topo export: empty --output file name"
	# nothing is printed with --output: a closed stdout loses nothing
	run -0 --separate-stderr redirected '>&-' rm-topo --topology "$T16" export nfd --output "$f"
	assert_equal "$stderr" ""
	run -0 grep -c '^feature.node.kubernetes.io/rmtools-numa-nodes=2$' "$f"
}

@test "--list-columns takes no -o" {
	run -2 --separate-stderr rm-topo cpus --list-columns -o cpu
	assert_equal "$stderr" "rm-topo: --list-columns takes no -o (it lists the fields -o accepts)"
	run -2 --separate-stderr rm-cpuset list --list-columns -o owner
	assert_equal "${#stderr_lines[@]}" 1
}

@test "running out of memory is exit 1 with its reason, never 2 or 3 (which blame the input)" {
	local n so=$BATS_TEST_TMPDIR/failmalloc.so enomem=0
	command -v cc >/dev/null || skip "no C compiler"
	cc -shared -fPIC -o "$so" "$RM_SRCDIR/tests/contract/failmalloc.c"
	for n in $(seq 0 40); do
		run env LD_PRELOAD="$so" FAIL_MALLOC_AFTER=$n rm-topo --topology "$T16" cpus
		# hwloc and glibc's argp crash on some failed allocations (128+signal): not ours
		[ "$status" -ne 2 ] && [ "$status" -ne 3 ] || fail "allocation $n: exit $status: $output"
		[ "$status" -ne 1 ] || enomem=$((enomem + 1))
	done
	[ "$enomem" -gt 3 ]
}
