# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for tests that make cgroups: the live v1 cpuset hierarchy, shared between test files,
# FUSE fakes of cgroup v2 (tests/fake-cgroupfs.py) and processes to put in them.

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

# start_fake DIR [fake-cgroupfs.py options]: mount the fake at DIR until teardown.
start_fake() {
	mount_fake fake-cgroupfs.py "$@"
}

# start_v2 [fake-cgroupfs.py options]: a fake cgroup v2 root of 16 CPUs and 2 nodes at $R, the
# tools' cgroup root ($RM_CGROUP_ROOT), with rmtools' parent at $P.
start_v2() {
	require_fuse
	R=$BATS_TEST_TMPDIR/cg
	start_fake "$R" --cpus 0-15 --mems 0-1 "$@"
	export RM_CGROUP_ROOT=$R
	P=$R/rmtools.slice
}

# ---- processes ----

SLEEPS=()

# A sleeping process that bats does not wait for; killed in teardown. Sets $pid.
start_sleep() {
	sleep 600 </dev/null >/dev/null 2>&1 3>&- 9>&- &
	pid=$!
	SLEEPS+=("$pid")
}

# In teardown: end every process in SLEEPS.
sleeps_cleanup() {
	local p
	for p in "${SLEEPS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	SLEEPS=()
}

# Every directory and file of the tree with its contents, one a line ("./a/", "./a/f: l1 l2 ").
# One awk reads every file: a process per file made the many-file fake trees slow to compare.
dump_tree() {
	(cd "$1" && find . -printf '%y %p\n' | sort -k2 | awk '
		$1 == "d" { print $2 "/"; next }
		{ s = ""; while ((getline line < $2) > 0) s = s line " "; close($2); print $2 ": " s }')
}
