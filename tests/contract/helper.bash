# SPDX-License-Identifier: GPL-2.0-or-later
# What the contract tests of every tool share: a command with its stdout closed or full.

# CMD... with its stdout redirected by REDIR.
redirected() {
	local redir=$1
	shift
	eval '"$@"' "$redir"
}

# CMD... with stdout as given by REDIR ('>&-' or '>/dev/full'): exit 4, one line that says
# the change (PHRASE) stands.
report_lost() {
	local redir=$1 phrase=$2
	shift 2
	run --separate-stderr redirected "$redir" "$@"
	[ "$status" -eq 4 ] || fail "$*: exit $status, not 4: $stderr"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "$*: more than one line: '$stderr'"
	[[ $stderr == "${1##*/}: $phrase stands, but its report could not be written"* ||
		$stderr == *"$phrase"*" stands, but its report could not be written"* ]] ||
		fail "$*: '$stderr' does not say '$phrase' stands"
}

# Each of BAD_INPUTS (arguments as the shell splits them) given to TOOL, run as CMD...: exit 2,
# nothing on stdout, one line on stderr from TOOL, and the caller's snapshot unchanged.
# check_bad_inputs TOOL CMD...
check_bad_inputs() {
	local tool=$1 args before
	shift
	before=$(snapshot) # each bad input must leave it as it is
	for args in "${BAD_INPUTS[@]}"; do
		eval "run --separate-stderr \"\$@\" $args"
		[ "$status" -eq 2 ] || fail "$tool $args: exit $status, not 2: $stderr"
		[ -z "$output" ] || fail "$tool $args: printed '$output'"
		[ "${#stderr_lines[@]}" -eq 1 ] ||
			fail "$tool $args: ${#stderr_lines[@]} lines on stderr: '$stderr'"
		[[ ${stderr_lines[0]} == "$tool"* ]] || fail "$tool $args: message not from $tool: '$stderr'"
		[ "$(snapshot)" = "$before" ] || fail "$tool $args: changed the state or the machine"
	done
}

# A cgroup v2 tree with the io controller and owner web's directory, as the kernel makes it, at
# $BATS_TEST_TMPDIR/cg: io_tree
io_tree() {
	local root=$BATS_TEST_TMPDIR/cg f
	mkdir -p "$root/rmtools.slice/web"
	echo io >"$root/cgroup.controllers"
	: >"$root/cgroup.subtree_control"
	: >"$root/rmtools.slice/cgroup.subtree_control"
	for f in io.max io.stat io.latency; do : >"$root/rmtools.slice/web/$f"; done
	echo "default 100" >"$root/rmtools.slice/web/io.weight"
	: >"$root/io.weight"
	: >"$root/io.latency"
}

# A v1 hugetlb hierarchy of plain directories with owner web's cgroup at DIR, its limits max and
# nothing used: hugetlb_web DIR
hugetlb_web() {
	local f
	mkdir -p "$1"
	for f in hugetlb.2MB hugetlb.1GB; do
		echo 9223372036854771712 >"$1/$f.limit_in_bytes"
		echo 9223372036854771712 >"$1/$f.rsvd.limit_in_bytes"
		echo 0 >"$1/$f.usage_in_bytes"
		echo 0 >"$1/$f.rsvd.usage_in_bytes"
	done
}
