# SPDX-License-Identifier: GPL-2.0-or-later
# Common set-up for the bats tests: build tree first in PATH, C locale, private HOME.
bats_require_minimum_version 1.8.0
bats_load_library bats-support
bats_load_library bats-assert

# the source tree: the nearest directory above the test holding configure.ac
if [ -z "${RM_SRCDIR:-}" ]; then
	RM_SRCDIR=$BATS_TEST_DIRNAME
	while [ ! -f "$RM_SRCDIR/configure.ac" ] && [ "$RM_SRCDIR" != / ]; do
		RM_SRCDIR=$(dirname "$RM_SRCDIR")
	done
fi
RM_BUILDDIR=${RM_BUILDDIR:-$RM_SRCDIR}
PATH="$RM_BUILDDIR:$PATH"
export LC_ALL=C HOME="$BATS_TEST_TMPDIR" PATH RM_SRCDIR RM_BUILDDIR
unset RM_SYSROOT RM_TOPOLOGY RM_STATE_DIR RM_CONFIG_DIR RM_CGROUP_ROOT RM_RESCTRL_ROOT

# Snapshots kept in the project, and the shared real-machine fixtures (may be absent).
SNAPSHOTS="$RM_SRCDIR/tests/snapshots"
FIXTURES="${RM_FIXTURES:-$RM_SRCDIR/../shared/fixtures/lscpu}"

# Skip, visibly, unless root.
require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

require_fixtures() {
	[ -d "$FIXTURES" ] || skip "../shared/fixtures is absent"
}

# The value of KEY in the first record of $output that has it.
field() {
	printf '%s\n' "$output" | grep -o "\(^\| \)$1=[^ ]*" | head -n 1 | sed "s/^ *$1=//"
}

# Exit status 2, nothing on stdout, and MESSAGE on the first line of stderr, which starts with
# the program's name ("rm-topo: " or "rm-topo cpus: "): usage_error MESSAGE COMMAND [ARGS...]
usage_error() {
	local msg=$1
	shift
	run -2 --separate-stderr "$@"
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} =~ ^rm-[a-z]+(\ [a-z]+)?:\  ]] ||
		fail "first line of stderr does not start with the program's name: '${stderr_lines[0]}'"
	[[ ${stderr_lines[0]} == *"$msg"* ]] ||
		fail "first line of stderr: '${stderr_lines[0]}', expected: '$msg'"
}

