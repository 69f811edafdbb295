#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-storage on a real kernel: the NVMe disk behind the node-1 expander, io.max of an owner under
# rm-cpuset run, and a project quota on an ext4 made on that disk.
load helper

DISK=/dev/nvme0n1
MNT=/tmp/prj

teardown() {
	umount "$MNT" 2>/dev/null || true
	rm-storage release --all >/dev/null 2>&1 || true
	rm-cpuset release --all >/dev/null 2>&1 || true
}

# timed COMMAND...: run it, and set $ms to the milliseconds it took (bash's clock: busybox's date
# has no nanoseconds)
timed() {
	local t0=${EPOCHREALTIME/./} t1
	"$@"
	t1=${EPOCHREALTIME/./}
	ms=$(((t1 - t0) / 1000))
}

@test "storage: list shows the NVMe namespace with its controller's node and PCI address" {
	[ -b "$DISK" ] || skip "no NVMe disk in this machine shape"
	run -0 rm-storage list -o disk,kind,size,node,pci
	assert_line --regexp '^disk=nvme0n1 kind=nvme size=64MiB node=1 pci=0000:4[0-9a-f]:00\.0$'
}

@test "storage: --write-bps 2M on the NVMe disk: 8 MiB of direct writes under rm-cpuset run take 3.5 s, 2.5 s less without" {
	[ -b "$DISK" ] || skip "no NVMe disk in this machine shape"
	# cpuset and io share the unified hierarchy: the owner is rm-cpuset's first
	run -0 rm-cpuset alloc --count 1 --owner job
	run -0 rm-storage limit job nvme0n1 --write-bps 2M -o limit,disk,write_bps,applied
	assert_output "limit=job disk=nvme0n1 write_bps=2MiB applied=yes"
	grep -q "^$(cat /sys/block/nvme0n1/dev) rbps=max wbps=2097152 riops=max wiops=max$" \
		/sys/fs/cgroup/rmtools.slice/job/io.max
	timed rm-cpuset run --owner job -- dd if=/dev/zero of=$DISK bs=1M count=8 oflag=direct
	local limited=$ms
	echo "limited: $ms ms" >&3
	[ "$ms" -ge 3500 ] || fail "8 MiB at 2 MiB/s took $ms ms"
	run -0 rm-storage show job -o wbytes
	assert_output "wbytes=8MiB"
	run -0 rm-storage release job
	# the same run without the limit: the disk's own time, slow under emulation (TCG)
	timed rm-cpuset run --owner job -- dd if=/dev/zero of=$DISK bs=1M count=8 oflag=direct
	echo "released: $ms ms" >&3
	# both carry the emulation's cost; the throttle's own wait is 3.5-4 s of the limited run
	[ $((limited - ms)) -ge 2500 ] || fail "8 MiB without the limit took $ms ms, $limited ms with it"
}

@test "storage: quota 4M on ext4 with project quotas: 8 MiB fails with EDQUOT near 4 MiB; usage; release" {
	[ -b "$DISK" ] || skip "no NVMe disk in this machine shape"
	command -v mke2fs >/dev/null || skip "no mke2fs in the guest"
	mke2fs -q -F -t ext4 -O quota,project "$DISK"
	mkdir -p "$MNT"
	mount -t ext4 -o prjquota "$DISK" "$MNT"
	mkdir "$MNT/job"
	chmod 0777 "$MNT/job"
	run -0 rm-storage quota "$MNT/job" 4M -o quota,limit
	assert_output "quota=$MNT/job limit=4MiB"
	# as nobody: root's CAP_SYS_RESOURCE passes over hard limits
	run su -s /bin/sh nobody -c "dd if=/dev/zero of=$MNT/job/big bs=1M count=8 conv=fsync"
	assert_failure
	assert_output --partial "Disk quota exceeded"
	local size
	size=$(stat -c %s "$MNT/job/big")
	[ "$size" -ge $((3 * 1024 * 1024)) ] && [ "$size" -le $((4 * 1024 * 1024)) ] ||
		fail "wrote $size bytes"
	run -0 rm-storage usage -o used,limit --bytes
	[[ $output =~ ^used=([0-9]+)\ limit=4194304$ ]]
	[ "${BASH_REMATCH[1]}" -ge $((3 * 1024 * 1024)) ]
	run -0 rm-storage release "$MNT/job"
	rm "$MNT/job/big"
	run -0 su -s /bin/sh nobody -c "dd if=/dev/zero of=$MNT/job/big bs=1M count=8 conv=fsync"
	# and a filesystem without prjquota is refused, naming what it needs
	umount "$MNT"
	mount -t ext4 "$DISK" "$MNT"
	run -2 --separate-stderr rm-storage quota "$MNT/job" 4M
	[[ $stderr == *"prjquota"* ]]
}

@test "storage: an I/O-only owner on cgroup v2: alloc --shared, limit, run on the shared pool's CPUs, release" {
	[ -b "$DISK" ] || skip "no NVMe disk in this machine shape"
	# the steps of cgroup v1, with the owner made in the shared pool first
	run -0 rm-cpuset alloc --shared --owner backup -o owner,cpus,cgroup
	assert_output "owner=backup cpus=\"\" cgroup=/sys/fs/cgroup/rmtools.slice/backup"
	run -0 rm-storage limit backup nvme0n1 --write-bps 2M -o limit,applied
	assert_output "limit=backup applied=yes"
	# an exclusive owner made afterwards takes its CPUs from it; the limit stays
	run -0 rm-cpuset alloc --count 2 --owner db --numa-node 0
	run -0 rm-cpuset run --owner backup -- sh -c \
		'cat /proc/self/cgroup; grep Cpus_allowed_list /proc/self/status; dd if=/dev/zero of='$DISK' bs=64k count=16 oflag=direct 2>/dev/null'
	assert_line "0::/rmtools.slice/backup"
	assert_line --regexp '^Cpus_allowed_list:[[:space:]]+2-7$'
	grep -q "^$(cat /sys/block/nvme0n1/dev) rbps=max wbps=2097152 riops=max wiops=max$" \
		/sys/fs/cgroup/rmtools.slice/backup/io.max
	run -0 rm-storage show backup -o wbytes
	assert_output "wbytes=1MiB"
	run -0 rm-cpuset list -o owner,count
	assert_output $'owner=backup count=0\nowner=db count=2'
	run -0 rm-cpuset release backup
	[ ! -e /sys/fs/cgroup/rmtools.slice/backup ]
}
