# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for tests that make cgroups: the live v1 cpuset hierarchy, shared between test files,
# and FUSE fakes of cgroup v2 (tests/fake-cgroupfs.py).

# The real cgroup v1 cpuset hierarchy is shared by every test file that makes cgroups in it; make
# check runs files in parallel. Such tests call require_v1_cpuset, which waits for the others,
# and v1_cpuset_cleanup in teardown, which removes only what a test that held the lock left.
V1_CPUSET=/sys/fs/cgroup/cpuset
V1_PARENT=$V1_CPUSET/rmtools
V1_LOCK=/run/lock/rmtools-cgroup-v1.lock
V1_HELD=

# Root, the v1 cpuset hierarchy in use (not the unified one), the lock, and no rmtools parent
# already (someone else's: not ours to touch).
require_v1_cpuset() {
	require_root
	[ -f "$V1_CPUSET/cpuset.cpus" ] || skip "no cgroup v1 cpuset hierarchy at $V1_CPUSET"
	if grep -qw cpuset /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
		skip "the cpuset controller is on the unified hierarchy here"
	fi
	mkdir -p "${V1_LOCK%/*}"
	exec 9>"$V1_LOCK"
	flock -w 300 9 || skip "another test held $V1_LOCK for 5 minutes"
	if [ -e "$V1_PARENT" ]; then
		exec 9>&-
		skip "$V1_PARENT exists already; not touching it"
	fi
	V1_HELD=1
}

v1_cpuset_cleanup() {
	local f t
	[ -n "$V1_HELD" ] || return 0
	if [ -d "$V1_PARENT" ]; then
		# processes back to the root cpuset, then the cgroups, deepest first
		while read -r f; do
			while read -r t; do echo "$t" >"$V1_CPUSET/tasks" 2>/dev/null || true; done <"$f"
		done < <(find "$V1_PARENT" -name tasks)
		find "$V1_PARENT" -depth -type d -exec rmdir {} \;
	fi
	exec 9>&-
	V1_HELD=
}

# ---- FUSE fakes of cgroup v2 ----

FAKE="$RM_SRCDIR/tests/fake-cgroupfs.py"
# Debian's python3, which sees python3-fusepy (a python3 earlier in PATH may not)
PY=${RM_PYTHON:-/usr/bin/python3}
MOUNTS=() FAKE_PIDS=()

require_fuse() {
	require_root
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	[ -f "$FAKE" ] || skip "$FAKE is absent"
	"$PY" -c 'import fusepy' 2>/dev/null || "$PY" -c 'import fuse' 2>/dev/null ||
		skip "python3-fusepy is not installed (apt-get install python3-fusepy fuse3)"
}

# start_fake DIR [fake-cgroupfs.py options]: mount the fake at DIR until teardown.
start_fake() {
	local dir=$1 fpid
	shift
	mkdir -p "$dir"
	fpid=$("$PY" "$FAKE" "$dir" "$@" --background --log "$BATS_TEST_TMPDIR/fake.log") ||
		fail "fake-cgroupfs.py did not mount $dir: $(cat "$BATS_TEST_TMPDIR/fake.log")"
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

# Every directory and file of the tree with its contents, one a line.
dump_tree() {
	(cd "$1" && find . | sort | while read -r f; do
		if [ -d "$f" ]; then echo "$f/"; else echo "$f: $(tr '\n' ' ' < "$f")"; fi
	done)
}
