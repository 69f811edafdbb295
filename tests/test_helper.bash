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

# Exit status 2, nothing on stdout, and one line on stderr holding MESSAGE, which starts with
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
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "more than one line on stderr: '$stderr'"
}

# ---- FUSE fakes of kernel file systems (tests/fake-*.py) ----

# Debian's python3, which sees python3-fusepy (a python3 earlier in PATH may not)
PY=${RM_PYTHON:-/usr/bin/python3}
MOUNTS=() FAKE_PIDS=()

# Skip, visibly, unless root can mount the fakes.
require_fuse() {
	require_root
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	"$PY" -c 'import fusepy' 2>/dev/null || "$PY" -c 'import fuse' 2>/dev/null ||
		skip "python3-fusepy is not installed (apt-get install python3-fusepy fuse3)"
}

# mount_fake FAKE DIR [options]: mount tests/FAKE (fake-cgroupfs.py, ...) at DIR until teardown
# (fakes_cleanup), once the mount is there; the server's stderr in $BATS_TEST_TMPDIR/FAKE.log.
mount_fake() {
	local fake=$RM_SRCDIR/tests/$1 dir=$2 log=$BATS_TEST_TMPDIR/${1%.py}.log fpid
	shift 2
	[ -f "$fake" ] || skip "$fake is absent"
	mkdir -p "$dir"
	fpid=$("$PY" "$fake" "$dir" "$@" --background --log "$log") ||
		fail "${fake##*/} did not mount $dir: $(cat "$log")"
	MOUNTS+=("$dir")
	FAKE_PIDS+=("$fpid")
}

# In teardown: unmount every fake; their servers then exit.
fakes_cleanup() {
	local m p i
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2>/dev/null || fusermount -u "$m" 2>/dev/null || true
	done
	for p in "${FAKE_PIDS[@]}"; do
		for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill "$p" 2>/dev/null || true
	done
	MOUNTS=() FAKE_PIDS=()
}
