# SPDX-License-Identifier: GPL-2.0-or-later
# rm-storage's tests: a private state, and the loop device, mount and cgroups a test made taken
# down afterwards, should it fail half-way.
setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	LOOP='' MNT=''
}

teardown() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then umount "$MNT"; fi
	if [ -n "$MNT" ] && [ -d "$MNT" ]; then rmdir "$MNT"; fi
	if [ -n "$LOOP" ]; then losetup -d "$LOOP" 2>/dev/null || true; fi
	# the real cgroups of the owners made here, should a test fail half-way
	local d
	for d in /sys/fs/cgroup/blkio/rmtools/st-"$$"-* /sys/fs/cgroup/rmtools.slice/st-"$$"-*; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	for d in /sys/fs/cgroup/blkio/rmtools /sys/fs/cgroup/rmtools.slice; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	return 0
}
