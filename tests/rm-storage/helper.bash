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

# A cgroup tree laid out like /sys/fs/cgroup: v2 (io, and cpuset when $CPUSET) or v1 blkio,
# with the owner's directory and its files made, as the kernel would.
make_cgroups() { # make_cgroups v1|v2 OWNER
	local root=$BATS_TEST_TMPDIR/cg dir
	if [ "$1" = v2 ]; then
		mkdir -p "$root/rmtools.slice/$2"
		echo "${CPUSET:-} io" >"$root/cgroup.controllers"
		: >"$root/cgroup.subtree_control"
		: >"$root/rmtools.slice/cgroup.subtree_control"
		dir=$root/rmtools.slice/$2
		: >"$dir/io.max"
		: >"$dir/io.stat"
		echo "default 100" >"$dir/io.weight"
		: >"$dir/io.latency"
		: >"$root/io.weight"
		: >"$root/io.latency"
	else
		dir=$root/blkio/rmtools/$2
		mkdir -p "$dir"
		for f in read_bps_device write_bps_device read_iops_device write_iops_device \
			io_service_bytes io_serviced; do
			: >"$dir/blkio.throttle.$f"
		done
	fi
	export RM_CGROUP_ROOT=$root
}

# A disk of this machine (sysfs lists loop devices even when none is attached).
some_disk() {
	DISK=$(ls /sys/class/block | grep -v '[0-9]p[0-9]' | head -n 1)
	DEVNO=$(cat "/sys/class/block/$DISK/dev")
}
