# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos tests: a fake cgroup v2 tree (RM_CGROUP_ROOT) and a sysroot with /proc files.

# fake_owner NAME [CPUS]: a cgroup under rmtools.slice with every file rm-qos reads, idle.
fake_owner() {
	local d=$CG/rmtools.slice/$1
	mkdir -p "$d"
	printf 'usage_usec 1000\nuser_usec 500\nsystem_usec 500\nnr_periods 10\nnr_throttled 0\nthrottled_usec 0\n' >"$d/cpu.stat"
	for f in cpu memory io; do
		printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$d/$f.pressure"
	done
	echo 1048576 >"$d/memory.current"
	echo max >"$d/memory.high"
	echo max >"$d/memory.max"
	printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n' >"$d/memory.events"
	echo 0 >"$d/hugetlb.2MB.current"
	echo 0 >"$d/hugetlb.1GB.current"
	printf '8:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n' >"$d/io.stat"
	echo "${2:-}" >"$d/cpuset.cpus.effective"
}

# A tree of db (CPUs 2-3, 1 GiB, 3 high events, 2 OOM kills, 4 huge pages of 2 MiB), web (4-5)
# and the shared pool (0-1,6-7); a sysroot with pressure and interrupts; an empty state dir.
setup_qos() {
	CG=$BATS_TEST_TMPDIR/cg
	S=$BATS_TEST_TMPDIR/sys
	mkdir -p "$CG/rmtools.slice" "$S/proc/pressure"
	echo "cpuset cpu io memory hugetlb pids" >"$CG/cgroup.controllers"
	printf 'usage_usec 5000\n' >"$CG/cpu.stat"
	printf 'usage_usec 3000\n' >"$CG/rmtools.slice/cpu.stat"
	fake_owner db 2-3
	fake_owner web 4-5
	fake_owner shared 0-1,6-7
	echo 1073741824 >"$CG/rmtools.slice/db/memory.current"
	echo 805306368 >"$CG/rmtools.slice/db/memory.high"
	printf 'low 0\nhigh 3\nmax 0\noom 2\noom_kill 2\noom_group_kill 0\n' >"$CG/rmtools.slice/db/memory.events"
	echo 8388608 >"$CG/rmtools.slice/db/hugetlb.2MB.current"
	printf 'some avg10=2.50 avg60=1.00 avg300=0.20 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$CG/rmtools.slice/db/cpu.pressure"
	for f in cpu memory io; do
		printf 'some avg10=1.25 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$S/proc/pressure/$f"
	done
	printf '           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7\n' >"$S/proc/interrupts"
	printf '  24:          1          2          3          4          5          6          7          8   PCI-MSI 0-edge      nvme0q0\n' >>"$S/proc/interrupts"
	mkdir -p "$BATS_TEST_TMPDIR/state"
	export RM_CGROUP_ROOT=$CG RM_SYSROOT=$S RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	export RM_RESCTRL_ROOT=$BATS_TEST_TMPDIR/no-resctrl
}

# busy OWNER: in the background, grow OWNER's CPU use (1 CPU), throttled periods (all, one a
# 20 ms period) and CPU stall (half the time), as a cpu.max-limited busy loop does; stop with
# stop_busy. The counters follow the clock, not the loop's turns: a loop slowed by a loaded
# machine writes fewer times, never less use.
busy() {
	local d=$CG/rmtools.slice/$1
	(
		t0=${EPOCHREALTIME/./}
		while :; do
			us=$((${EPOCHREALTIME/./} - t0))
			u=$((1000 + us)) p=$((10 + us / 20000)) s=$((us / 2))
			printf 'usage_usec %d\nnr_periods %d\nnr_throttled %d\nthrottled_usec 0\n' \
				"$u" "$p" "$((p - 10))" >"$d/cpu.stat.new"
			mv "$d/cpu.stat.new" "$d/cpu.stat"
			printf 'some avg10=50.00 avg60=0.00 avg300=0.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
				"$s" >"$d/cpu.pressure.new"
			mv "$d/cpu.pressure.new" "$d/cpu.pressure"
			sleep 0.02
		done
	) 3>&- &
	BUSY+=($!)
}

stop_busy() {
	local p
	for p in "${BUSY[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	BUSY=()
}

# Every test: the tree above, and no busy process left behind.
setup() {
	BUSY=()
	setup_qos
}

teardown() {
	stop_busy
}
