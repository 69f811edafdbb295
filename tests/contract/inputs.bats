#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input refused in time and said on one line: bounded topologies, checked numbers, escaped
# messages, and a fixed subset of bench/campaign.sh.
load ../test_helper

T16="package:2 core:4 pu:2"

setup() {
	cd "$BATS_TEST_TMPDIR" || return
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/etc"
	unset RM_TOPOLOGY RM_SYSROOT
	mkdir -p "$RM_CONFIG_DIR/classes.d"
}

# CMD... refused in time: exit 2, nothing on stdout, one line on stderr from the tool, ended,
# without a raw control character.
refused() {
	run --separate-stderr timeout 10 "$@"
	[ "$status" -eq 2 ] || fail "$*: exit $status, not 2: $stderr"
	[ -z "$output" ] || fail "$*: printed '$output'"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "$*: ${#stderr_lines[@]} lines on stderr: '$stderr'"
	[[ $stderr == "${1##*/}"* ]] || fail "$*: message not from $1: '$stderr'"
	[[ $stderr != *[[:cntrl:]]* ]] || fail "$*: raw control character: '$stderr'"
	timeout 10 "$@" 2>&1 >/dev/null | tail -c 1 | od -An -c | grep -q '\\n' ||
		fail "$*: message does not end its line"
}

@test "inputs: a synthetic topology past 16384 PUs or 1024 children is refused before it is built" {
	local spec
	for spec in pu:8000 pu:999999999 pu:18446744073709551616 pu:0x401 \
		"package:1024 core:1024 pu:1024" \
		"group:1024 group:1024 group:1024 group:1024 group:1024 group:1024 group:1024 pu:1024"; do
		refused rm-topo --topology "$spec"
		assert_equal "$stderr" "rm-topo: topology too large: '$spec' (at most 16384 PUs and 1024 children of an object)"
	done
	RM_TOPOLOGY=pu:999999999 refused rm-cpuset show
	refused rm-qos --topology pu:999999999 show
	run -0 rm-topo --topology "package:2 pu:1024" calc -N all
	assert_output 2048
}

@test "inputs: a topology XML is a regular file within the bounds, never a FIFO or a device" {
	local f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	refused rm-topo --topology "$f"
	assert_equal "$stderr" "rm-topo: not a regular file: '$f'"
	refused rm-topo --topology /dev/zero
	# more PUs than the bound: refused before hwloc reads it
	f=$BATS_TEST_TMPDIR/big.xml
	{ echo '<topology>'; printf '<object type="PU"/>\n%.0s' {1..16385}; echo '</topology>'; } >"$f"
	refused rm-topo --topology "$f"
	assert_equal "$stderr" "rm-topo: topology too large: '$f' (at most 16384 PUs and 1024 children of an object)"
	lstopo --input "$T16" "$BATS_TEST_TMPDIR/ok.xml" 2>/dev/null
	run -0 rm-topo --topology "$BATS_TEST_TMPDIR/ok.xml" calc -N all
	assert_output 16
}

@test "inputs: a count that overflows is refused, not run forever" {
	refused rm-qos watch -c 18446744073709551616
	assert_equal "$stderr" "rm-qos watch: invalid count: '18446744073709551616' (from 1 to 1000000)"
	refused rm-qos watch --interval 1ms --count 1000001
	refused rm-cpuset --topology "$T16" alloc --dry-run --owner w --count 18446744073709551617
	refused rm-class match --count 99999999999999999999 gpu
	# signs and blanks are not numbers
	refused rm-bench mem --runs +5 --list-columns
	refused rm-bench mem --runs ' 5' --list-columns
	refused rm-bench mem --node ' 0'
	refused rm-devices alloc --dry-run --owner w --count ' 1'
}

@test "inputs: option errors escape the argument's newlines and escapes, on one line" {
	refused rm-cpuset alloc --count $'1\n2'
	assert_equal "$stderr" "rm-cpuset alloc: invalid count: '1\\x0a2' (a whole number of CPUs, at least 1)"
	refused rm-topo $'--x\e[31m\ny'
	assert_equal "$stderr" "rm-topo: unrecognized option '--x\\x1b[31m\\x0ay'"
	refused rm-topo --topology "$T16" cpus -o $'cpu,\tx'
	# an argument of 100000 characters: the whole line, ended
	local long
	long=$(printf '9%.0s' {1..100000})
	refused rm-cpuset alloc --count "x$long"
	[ "${#stderr}" -gt 100000 ] || fail "message cut: ${#stderr} characters"
}

# A fixed subset of bench/campaign.sh: a command with @ where each bad value goes.
@test "inputs: a subset of the campaign: every bad value refused on one line, nothing changed" {
	local fifo=$BATS_TEST_TMPDIR/fifo long tpl v w before
	local -a values argv words
	mkfifo "$fifo"
	mkdir -p "$RM_STATE_DIR"
	long=$(printf 'a%.0s' {1..100000})
	values=(18446744073709551616 -1 '' $'1\n2' $'\e[31m' "$long" --x "$fifo" /nonexistent/x
		"$BATS_TEST_TMPDIR" pu:99999999999)
	local templates=(
		"rm-topo|--topology|@"
		"rm-topo|--topology|$T16|cpus|-o|@"
		"rm-cpuset|--topology|$T16|alloc|--dry-run|--owner|w|--count|@"
		"rm-hugepages|reserve|--dry-run|2M|@"
		"rm-devices|alloc|--dry-run|--owner|w|--count|@"
		"rm-class|match|--count|@|gpu"
		"rm-qos|watch|--interval|1ms|--count|@"
		"rm-qos|show|--interval|@"
		"rm-bench|mem|--runs|@"
	)
	before=$(ls -lR "$RM_STATE_DIR")
	for tpl in "${templates[@]}"; do
		IFS='|' read -ra words <<<"$tpl"
		for v in "${values[@]}"; do
			argv=()
			for w in "${words[@]}"; do
				[ "$w" = @ ] && argv+=("$v") || argv+=("$w")
			done
			refused "${argv[@]}"
		done
	done
	assert_equal "$(ls -lR "$RM_STATE_DIR")" "$before"
}

@test "inputs: a FIFO nobody writes to, given as a file to read, is read as empty, never waited on" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	run timeout 10 rm-cpuset --topology "package:2 core:4 pu:2" --no-cgroups apply --dry-run "$BATS_TEST_TMPDIR/fifo"
	[ "$status" -ne 124 ] || fail "rm-cpuset apply waited on the FIFO"
	run timeout 10 rm-hugepages apply --dry-run "$BATS_TEST_TMPDIR/fifo"
	[ "$status" -ne 124 ] || fail "rm-hugepages apply waited on the FIFO"
	run timeout 10 rm-storage apply --dry-run "$BATS_TEST_TMPDIR/fifo"
	[ "$status" -ne 124 ] || fail "rm-storage apply waited on the FIFO"
	run -2 timeout 10 rm-bench compare "$BATS_TEST_TMPDIR/fifo" "$BATS_TEST_TMPDIR/fifo"
	# a pipe with a writer is still read whole, as process substitution gives it
	run -2 --separate-stderr rm-hugepages apply --dry-run <(echo; echo "2M 1 extra")
	assert_regex "$stderr" '^rm-hugepages: /dev/fd/[0-9]+:2:4: '
}
