#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices grant (cgroup v1 devices controller in a plain-directory tree and, as root, on this
# machine; cgroup v2's program where it cannot go, DeviceAllow= lines) and health (devices gone, unbound,
# rebound, replaced between alloc and health).
load ../test_helper
load fixtures

setup_file() {
	GPU="$BATS_FILE_TMPDIR/gpu"
	fx_gpu_server "$GPU"
	export GPU
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	CG="$BATS_TEST_TMPDIR/cg"
	LIVE_DIR=
	SLEEPER=
}

teardown() {
	[ -z "$SLEEPER" ] || kill "$SLEEPER" 2>/dev/null || true
	if [ -n "$LIVE_DIR" ]; then
		# this test's cgroup only: its processes back to the root, then the directories
		if [ -d "$LIVE_DIR" ]; then
			while read -r p; do echo "$p" >/sys/fs/cgroup/devices/cgroup.procs; done \
				<"$LIVE_DIR/cgroup.procs" 2>/dev/null || true
			rmdir "$LIVE_DIR" 2>/dev/null || true
		fi
		rmdir /sys/fs/cgroup/devices/rmtools 2>/dev/null || true
	fi
}

dev() { rm-devices --sysroot "$GPU" "$@"; }

# A cgroup v1 devices hierarchy as plain directories under $CG (the root's devices.allow marks it).
v1_tree() {
	mkdir -p "$CG/devices"
	: >"$CG/devices/devices.allow"
	export RM_CGROUP_ROOT=$CG
}

@test "grant: v1 devices.allow of the owner's cgroup gets its devices' nodes" {
	run -0 dev alloc --type gpu --count 2 --owner train
	run -0 dev alloc --type ib --count 1 --owner train
	v1_tree
	run -0 --separate-stderr dev grant train
	assert_equal "$stderr" ""
	assert_golden rm-devices grant-v1
	run -0 cat "$CG/devices/rmtools/train/devices.allow"
	assert_golden rm-devices grant-v1-devices.allow
	[ ! -e "$CG/devices/rmtools/train/devices.deny" ]
	# the GPU whose minor the driver numbered out of address order
	run -0 dev alloc --type gpu --count 1 --owner other
	run -0 dev grant other -o devnode,device,minor -r
	assert_line '/dev/nvidia3 0000:3d:00.0 3'
}

@test "grant: --dry-run changes nothing, --deny-others denies all but the basic nodes first" {
	run -0 dev alloc --type nvme --count 1 --owner db
	v1_tree
	run -0 dev grant db --dry-run -o devnode,type,major,minor -r
	assert_output "$(printf '%s\n' '/dev/nvme0 c 240 0' '/dev/nvme0n1 b 259 0')"
	[ ! -e "$CG/devices/rmtools" ]
	run -0 dev grant db --deny-others -o devnode -r
	assert_equal "${#lines[@]}" 10
	assert_line '/dev/pts/*'
	run -0 cat "$CG/devices/rmtools/db/devices.deny"
	assert_output a
	run -0 cat "$CG/devices/rmtools/db/devices.allow"
	assert_golden rm-devices grant-deny-others-devices.allow
}

@test "grant: --pid moves processes in; a failure half-way is undone" {
	run -0 dev alloc --type gpu --count 1 --owner job
	v1_tree
	run -0 dev grant job --pid 4242 --pid 4243
	run -0 cat "$CG/devices/rmtools/job/cgroup.procs"
	assert_output "$(printf '4242\n4243')"
	# a cgroup whose cgroup.procs cannot be written: the rules just added are taken back
	mkdir -p "$CG/devices/rmtools/bad/cgroup.procs"
	run -0 dev alloc --type ib --count 1 --owner bad
	run -1 --separate-stderr dev grant bad --pid 4244
	assert_equal "$output" ""
	[[ $stderr == "rm-devices: cannot write '4244' to $CG/devices/rmtools/bad/cgroup.procs: "*"; nothing was changed" ]] ||
		fail "stderr: $stderr"
	assert_equal "$(cat "$CG/devices/rmtools/bad/devices.deny")" \
		"$(tac "$CG/devices/rmtools/bad/devices.allow")"
	assert_equal "$(wc -l <"$CG/devices/rmtools/bad/devices.allow")" 2
}

@test "grant: on cgroup v2 a BPF program allows its nodes and the basic ones; a failure changes nothing" {
	run -0 dev alloc --type gpu --count 1 --owner train
	mkdir -p "$CG"
	echo "cpuset cpu io memory pids" >"$CG/cgroup.controllers"
	export RM_CGROUP_ROOT=$CG
	run -0 dev grant train --dry-run -o devnode,major,minor,cgroup -r
	assert_line --index 0 "/dev/nvidia0 195 0 $CG/rmtools.slice/train"
	assert_line --index 4 "/dev/null 1 3 $CG/rmtools.slice/train"
	assert_line --index 11 "/dev/pts/* 136 - $CG/rmtools.slice/train"
	assert_equal "${#lines[@]}" 12
	# a plain directory is no cgroup: the program cannot go there (or BPF needs root)
	run -1 --separate-stderr dev grant train
	[[ $stderr == "rm-devices: cannot "*"device program"*"; nothing was changed" ]] ||
		fail "stderr: $stderr"
	assert_equal "$(ls -A "$CG")" cgroup.controllers
	# --systemd: the lines alone, on any machine, also for a --sysroot
	unset RM_CGROUP_ROOT
	run -0 --separate-stderr dev grant train --systemd --deny-others
	assert_equal "$stderr" ""
	assert_line --index 0 'DeviceAllow=/dev/nvidia0 rwm'
	assert_line 'DeviceAllow=/dev/null rwm'
	assert_line 'DeviceAllow=char-pts rwm'
}

@test "grant: refusals" {
	run -0 dev alloc --type gpu --count 1 --owner train
	usage_error "grant changes this machine's cgroups" dev grant train
	v1_tree
	usage_error "no such owner: 'nobody'" dev grant nobody
	usage_error "invalid owner name: 'a/b'" dev grant a/b
	usage_error "grant: missing OWNER" dev grant
	usage_error "invalid process id: 'x'" dev grant train --pid x
	rm "$CG/devices/devices.allow"
	run -1 --separate-stderr dev grant train
	assert_equal "$stderr" "rm-devices: no cgroup v1 devices controller (devices/) and no cgroup v2 hierarchy under the cgroup root: '$CG'"
	assert_equal "$(find "$CG" -mindepth 1)" "$CG/devices"
}

@test "release: removes the owner's devices cgroup, and the parent when it is the last" {
	run -0 dev alloc --type gpu --count 1 --owner a
	run -0 dev alloc --type gpu --count 1 --owner b
	v1_tree
	run -0 dev grant a
	run -0 dev grant b
	run -0 dev release a
	[ ! -e "$CG/devices/rmtools/a" ]
	[ -d "$CG/devices/rmtools/b" ]
	run -0 dev release b
	[ ! -e "$CG/devices/rmtools" ]
	assert_equal "$(ls -A "$CG/devices")" devices.allow
}

@test "grant: this machine's v1 devices controller, for real (root)" {
	local cg=/sys/fs/cgroup/devices dir
	require_root
	[ -f "$cg/devices.allow" ] || skip "no cgroup v1 devices hierarchy at $cg"
	[ ! -e "$cg/rmtools" ] || skip "$cg/rmtools exists already; not touching it"
	run -0 bash -c 'rm-devices list -o type -r | head -n 1'
	[ -n "$output" ] || skip "this machine has no device of interest"
	run -0 rm-devices alloc --type "$output" --count 1 --owner rmtools-test
	dir=$cg/rmtools/rmtools-test
	LIVE_DIR=$dir
	sleep 600 &
	SLEEPER=$!
	run -0 rm-devices grant rmtools-test --deny-others --pid "$SLEEPER" -o devnode -r
	assert_line /dev/null
	# the kernel's list: only what was allowed (its own nodes first, if it has any)
	run -0 tail -n 8 "$dir/devices.list"
	assert_golden rm-devices grant-live-devices.list
	refute_output --partial 'a *:*'
	run -0 cat "$dir/cgroup.procs"
	assert_output "$SLEEPER"
	grep -q ":devices:/rmtools/rmtools-test$" "/proc/$SLEEPER/cgroup"
	# released while the process is in it: the cgroup stays, with a warning
	run -0 --separate-stderr rm-devices release rmtools-test
	[[ $stderr == "rm-devices: cannot remove the devices cgroup '$dir'"* ]] || fail "stderr: $stderr"
	[ -d "$dir" ]
	kill "$SLEEPER"
	wait "$SLEEPER" 2>/dev/null || true
	SLEEPER=
	# with the process gone, release removes the cgroup, and the parent with the last owner
	run -0 rm-devices alloc --type "$(rm-devices list -o type -r | head -n 1)" --count 1 \
		--owner rmtools-test
	run -0 --separate-stderr rm-devices release rmtools-test
	assert_equal "$stderr" ""
	[ ! -e "$dir" ]
	[ ! -e "$cg/rmtools" ]
}

# ---- health ----

# A copy of the GPU server to change under the allocations.
copy_tree() {
	cp -a "$GPU" "$BATS_TEST_TMPDIR/gpu"
	T="$BATS_TEST_TMPDIR/gpu"
}

@test "health: all there, exit 0 and nothing printed; --all prints them" {
	run -0 dev alloc --type gpu --count 2 --owner a
	run -0 --separate-stderr dev health
	assert_equal "$output$stderr" ""
	run -0 dev health a --all -o device,owner,health,driver,expected,type
	assert_output "$(printf '%s\n' 'device=0000:1a:00.0 owner=a health=ok driver=nvidia expected=nvidia type=gpu' \
		'device=0000:1b:00.0 owner=a health=ok driver=nvidia expected=nvidia type=gpu')"
	# nothing allocated: healthy
	run -0 dev release a
	run -0 dev health
	assert_output ''
}

@test "health: a device that disappears after alloc, one unbound, one rebound, one replaced" {
	local d
	copy_tree
	run -0 rm-devices --sysroot "$T" alloc --type gpu --count 4 --owner train
	run -0 rm-devices --sysroot "$T" alloc --type ib --count 1 --owner net
	# 1a:00.0 goes away (hot unplug, fell off the bus)
	d=$(readlink -f "$T/sys/bus/pci/devices/0000:1a:00.0")
	rm "$T/sys/bus/pci/devices/0000:1a:00.0"
	rm -r "$d"
	# 1b:00.0 loses its driver, 3d:00.0 is bound to vfio-pci, 3e:00.0 is another card now
	rm "$T/sys/bus/pci/devices/0000:1b:00.0/driver"
	mkdir -p "$T/sys/bus/pci/drivers/vfio-pci"
	ln -sfn ../../../../../../../bus/pci/drivers/vfio-pci "$T/sys/bus/pci/devices/0000:3d:00.0/driver"
	echo 0x2330 >"$T/sys/bus/pci/devices/0000:3e:00.0/device"
	sed -i 's/^PCI_ID=10DE:20B0$/PCI_ID=10DE:2330/' "$T/sys/bus/pci/devices/0000:3e:00.0/uevent"
	run -1 --separate-stderr rm-devices --sysroot "$T" health -o device,owner,health,driver,expected,type
	assert_equal "$stderr" ""
	assert_output "$(printf '%s\n' \
		'device=0000:1a:00.0 owner=train health=gone driver=- expected=nvidia type=gpu' \
		'device=0000:1b:00.0 owner=train health=unbound driver=- expected=nvidia type=gpu' \
		'device=0000:3d:00.0 owner=train health=rebound driver=vfio-pci expected=nvidia type=gpu' \
		'device=0000:3e:00.0 owner=train health=replaced driver=nvidia expected=nvidia type=gpu')"
	# the other owner's device is fine
	run -0 rm-devices --sysroot "$T" health net
	assert_output ''
	run -1 rm-devices --sysroot "$T" health train -o device,health -r
	assert_equal "${#lines[@]}" 4
	# the gone device cannot be granted; the rest of the machine is read as before
	run -1 --separate-stderr env RM_CGROUP_ROOT="$CG" rm-devices --sysroot "$T" grant train --systemd
	assert_equal "$stderr" "rm-devices: device 0000:1a:00.0 of 'train' is gone (see rm-devices health)"
	# eight GPUs less the gone one and the one now bound to vfio-pci, which lists as vfio
	run -0 --separate-stderr rm-devices --sysroot "$T" list --type gpu -o device -r
	assert_equal "${#lines[@]}" 6
	run -0 --separate-stderr rm-devices --sysroot "$T" list --type vfio -o device -r
	assert_output '0000:3d:00.0'
}

@test "health: bad input" {
	usage_error "no such owner: 'x'" dev health x
	usage_error "invalid owner name: 'x/y'" dev health x/y
	usage_error "unknown field: 'bogus'" dev health -o bogus
}
