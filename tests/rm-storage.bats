#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-storage: disks from sysfs trees and this machine, I/O limits on cgroup trees and (as root)
# on a loop device, and input refused before any change (quotas: rm-storage/quota.bats).
load test_helper
load rm-storage/helper

# A sysfs tree: an NVMe namespace behind a PCI function on node 1, a SCSI disk with a partition
# mounted at /data, a dm device made of that partition, and an empty loop device.
make_tree() {
	local r=$BATS_TEST_TMPDIR/sys d
	TREE=$r
	mkdir -p "$r/sys/block" "$r/sys/class/block" "$r/proc/self"
	# nvme0n1
	d=$r/sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1
	mkdir -p "$d/queue" "$r/sys/bus/pci/devices/0000:00:04.0"
	echo 1 >"$r/sys/bus/pci/devices/0000:00:04.0/numa_node"
	echo "QEMU NVMe Ctrl" >"$r/sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/model"
	ln -s .. "$d/device"
	echo 259:0 >"$d/dev"
	echo 2097152 >"$d/size"
	echo 0 >"$d/queue/rotational"
	echo "[none] mq-deadline" >"$d/queue/scheduler"
	echo 1023 >"$d/queue/nr_requests"
	echo 512 >"$d/queue/logical_block_size"
	echo 4096 >"$d/queue/physical_block_size"
	ln -s ../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1 "$r/sys/block/nvme0n1"
	# sda and sda1
	d=$r/sys/devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:0
	mkdir -p "$d/block/sda/queue" "$d/block/sda/sda1" "$d/block/sda/holders"
	echo "SLOW DISK  " >"$d/model"
	echo 32 >"$d/queue_depth"
	ln -s ../.. "$d/block/sda/device"
	echo 8:0 >"$d/block/sda/dev"
	echo 8388608 >"$d/block/sda/size"
	echo 1 >"$d/block/sda/queue/rotational"
	echo "mq-deadline [bfq] none" >"$d/block/sda/queue/scheduler"
	echo 64 >"$d/block/sda/queue/nr_requests"
	echo 512 >"$d/block/sda/queue/logical_block_size"
	echo 512 >"$d/block/sda/queue/physical_block_size"
	echo 8:1 >"$d/block/sda/sda1/dev"
	echo 1 >"$d/block/sda/sda1/partition"
	echo 4096 >"$d/block/sda/sda1/size"
	ln -s ../devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:0/block/sda "$r/sys/block/sda"
	ln -s ../../devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:0/block/sda "$r/sys/class/block/sda"
	ln -s ../../devices/pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:0/block/sda/sda1 "$r/sys/class/block/sda1"
	# dm-0 on sda1
	d=$r/sys/devices/virtual/block/dm-0
	mkdir -p "$d/queue" "$d/slaves"
	echo 253:0 >"$d/dev"
	echo 4096 >"$d/size"
	echo 0 >"$d/queue/rotational"
	echo none >"$d/queue/scheduler"
	ln -s ../../../../pci0000:00/0000:00:05.0/host0/target0:0:0/0:0:0:0/block/sda/sda1 "$d/slaves/sda1"
	ln -s ../devices/virtual/block/dm-0 "$r/sys/block/dm-0"
	# loop0, detached
	mkdir -p "$r/sys/devices/virtual/block/loop0/queue"
	echo 7:0 >"$r/sys/devices/virtual/block/loop0/dev"
	echo 0 >"$r/sys/devices/virtual/block/loop0/size"
	ln -s ../devices/virtual/block/loop0 "$r/sys/block/loop0"
	cat >"$r/proc/self/mountinfo" <<-'EOT'
	22 1 8:1 / /data rw,relatime shared:1 - ext4 /dev/sda1 rw
	23 1 0:21 / /proc rw shared:2 - proc proc rw
	EOT
}

# ---- list ----

@test "list: one record per disk with a size, from a sysfs tree" {
	make_tree
	run -0 rm-storage --sysroot "$TREE"
	assert_golden rm-storage list
	run -0 rm-storage --sysroot "$TREE" list -o disk,devno,fstype,mounts
	assert_line --index 1 'disk=nvme0n1 devno=259:0 fstype=- mounts=""'
	assert_line --index 2 'disk=sda devno=8:0 fstype=- mounts=/data'
	run -0 rm-storage --sysroot "$TREE" list -o disk --raw
	assert_output $'dm-0\nnvme0n1\nsda'
}

@test "list: JSON types the fields, -t has a header, --bytes prints bytes" {
	make_tree
	run -0 rm-storage --sysroot "$TREE" list -J -o disk,size,rotational,node
	[[ $output == *'"disk": "nvme0n1",'*'"size": 1073741824,'*'"rotational": false,'*'"node": 1'* ]]
	[[ $output == *'"disk": "dm-0",'*'"node": null'* ]]
	run -0 rm-storage --sysroot "$TREE" list -t -o disk,kind,size
	assert_line --index 0 --regexp '^DISK +KIND +SIZE$'
	run -0 rm-storage --sysroot "$TREE" list --bytes -o disk,size
	assert_line 'disk=sda size=4294967296'
	run -0 rm-storage list --list-columns --raw
	assert_line --index 0 --regexp '^disk string yes '
}

@test "list: this machine's disks are lsblk's disks with a size" {
	command -v lsblk >/dev/null || skip "lsblk is not installed"
	run -0 rm-storage list -o disk --raw
	assert_equal "$output" "$(lsblk -dn -b -o NAME,SIZE | awk '$2 > 0 { print $1 }' | LC_ALL=C sort)"
}

@test "list: --topology is refused, a tree without block devices is refused" {
	usage_error "disks are not part of a described topology" rm-storage --topology "package:1 pu:2" list
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	usage_error "no block devices here" rm-storage --sysroot "$BATS_TEST_TMPDIR/empty" list
}

# ---- limit on cgroup trees ----

@test "limit: cgroup v2 io.max, +io in the root's and the parent's subtree_control, show, release" {
	some_disk
	make_cgroups v2 web
	run -0 rm-storage limit web "$DISK" --write-bps 2M --read-iops 500
	assert_line --partial "limit=web disk=$DISK read_bps=max write_bps=2MiB read_iops=500 write_iops=max"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$DEVNO rbps=max wbps=2097152 riops=500 wiops=max"
	assert_equal "$(cat "$RM_CGROUP_ROOT/cgroup.subtree_control")" "+io"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/cgroup.subtree_control")" "+io"
	# the options not given keep their value; the weight and latency go to their files
	run -0 rm-storage limit web "$DISK" --read-bps 1G --weight 200 --latency-target 5000
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$DEVNO rbps=1073741824 wbps=2097152 riops=500 wiops=max"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.weight")" "$DEVNO 200"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.latency")" "$DEVNO target=5000"
	run -0 rm-storage show web -o limit,disk,read_bps,weight,latency_target
	assert_output "limit=web disk=$DISK read_bps=1GiB weight=200 latency_target=5000"
	grep -q "^limit=web disk=$DISK devno=$DEVNO " "$RM_STATE_DIR/storage.state"
	# (a tree's directory holds files: it stays, which a note says)
	run -0 --separate-stderr rm-storage release web
	assert_output "released=web"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$DEVNO rbps=max wbps=max riops=max wiops=max"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.latency")" "$DEVNO target=max"
	run -0 rm-storage show
	assert_output ""
}

@test "limit: where cpuset shares the unified hierarchy the owner must be rm-cpuset's" {
	some_disk
	CPUSET=cpuset make_cgroups v2 web
	usage_error "no rm-cpuset owner of that name: 'db'" rm-storage limit db "$DISK" --write-bps 1M
	[ ! -e "$RM_CGROUP_ROOT/rmtools.slice/db" ]
	[ ! -e "$RM_STATE_DIR/storage.state" ]
	run -0 rm-storage limit web "$DISK" --write-iops 100
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$DEVNO rbps=max wbps=max riops=max wiops=100"
	# release lifts the limits and leaves rm-cpuset's cgroup
	run -0 rm-storage release --all
	[ -d "$RM_CGROUP_ROOT/rmtools.slice/web" ]
}

@test "limit: cgroup v1 blkio.throttle files; --latency-target needs v2" {
	some_disk
	make_cgroups v1 web
	run -0 rm-storage limit web "$DISK" --read-bps 4M --write-iops 10
	assert_equal "$(cat "$RM_CGROUP_ROOT/blkio/rmtools/web/blkio.throttle.read_bps_device")" \
		"$DEVNO 4194304"
	assert_equal "$(cat "$RM_CGROUP_ROOT/blkio/rmtools/web/blkio.throttle.write_iops_device")" \
		"$DEVNO 10"
	usage_error "--latency-target needs cgroup v2" rm-storage limit web "$DISK" --latency-target 100
	usage_error "--weight needs" rm-storage limit web "$DISK" --weight 100
	run -0 rm-storage limit web "$DISK" --read-bps max --dry-run -o read_bps,write_iops
	assert_output "read_bps=max write_iops=10"
	assert_equal "$(cat "$RM_CGROUP_ROOT/blkio/rmtools/web/blkio.throttle.read_bps_device")" \
		"$DEVNO 4194304"
	# apply writes the recorded limits again
	: >"$RM_CGROUP_ROOT/blkio/rmtools/web/blkio.throttle.read_bps_device"
	run -0 rm-storage show -o applied
	assert_output "applied=no"
	run -0 rm-storage apply -o limit,applied
	assert_output "limit=web applied=yes"
	assert_equal "$(cat "$RM_CGROUP_ROOT/blkio/rmtools/web/blkio.throttle.read_bps_device")" \
		"$DEVNO 4194304"
	run -0 --separate-stderr rm-storage release web
	assert_equal "$(cat "$RM_CGROUP_ROOT/blkio/rmtools/web/blkio.throttle.read_bps_device")" \
		"$DEVNO 0"
}

@test "limit: bad input exits 2 and changes nothing" {
	some_disk
	make_cgroups v2 web
	usage_error "unknown block device: 'nosuchdisk'" rm-storage limit web nosuchdisk --write-bps 1M
	usage_error "not a block device: '../sda'" rm-storage limit web ../sda --write-bps 1M
	usage_error "invalid size: '2X'" rm-storage limit web "$DISK" --write-bps 2X
	usage_error "--read-iops: invalid number: '-5'" rm-storage limit web "$DISK" --read-iops -5
	usage_error "zero would stop all I/O" rm-storage limit web "$DISK" --write-bps 0
	usage_error "invalid owner name: '../x'" rm-storage limit ../x "$DISK" --write-bps 1M
	usage_error "names rm-cpuset's shared pool" rm-storage limit shared "$DISK" --write-bps 1M
	usage_error "give at least one of" rm-storage limit web "$DISK"
	usage_error "--weight out of range" rm-storage limit web "$DISK" --weight 20000
	usage_error "limit changes this machine" rm-storage --sysroot / limit web "$DISK" --write-bps 1M
	usage_error "unknown field: 'nosuch'" rm-storage limit web "$DISK" --write-bps 1M -o nosuch
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" ""
	assert_equal "$(cat "$RM_CGROUP_ROOT/cgroup.subtree_control")" ""
	[ ! -e "$RM_STATE_DIR/storage.state" ]
	usage_error "no limits or quotas of that owner: 'web'" rm-storage release web
	usage_error "missing OWNER" rm-storage release
}

@test "limit: a partition is limited as its disk, and says so" {
	local part disk
	part=$(ls /sys/class/block/*/partition 2>/dev/null | head -n 1)
	if [ -z "$part" ]; then
		# a loop device with a partition table (root)
		require_root
		truncate -s 8M "$BATS_TEST_TMPDIR/parts.img"
		# an MBR with one Linux partition of 4 MiB at 1 MiB
		"$PY" - "$BATS_TEST_TMPDIR/parts.img" <<-'EOT'
		import struct, sys
		with open(sys.argv[1], "r+b") as f:
		    f.seek(446)
		    f.write(struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, 8192))
		    f.seek(510)
		    f.write(b"\x55\xaa")
		EOT
		LOOP=$(losetup -P -f --show "$BATS_TEST_TMPDIR/parts.img") || skip "no loop device"
		part=/sys/class/block/${LOOP#/dev/}p1/partition
		[ -e "$part" ] || sleep 0.2
		[ -e "$part" ] || skip "no partition on this machine, and the kernel scans none on a loop device"
	fi
	part=$(basename "$(dirname "$part")")
	disk=$(basename "$(readlink -f "/sys/class/block/$part/..")")
	make_cgroups v2 web
	run -0 --separate-stderr rm-storage limit web "$part" --write-bps 1M -o disk,devno
	assert_equal "$stderr" "rm-storage: note: '$part' is a partition: its disk '$disk' is limited (the kernel throttles whole disks)"
	assert_output "disk=$disk devno=$(cat "/sys/class/block/$disk/dev")"
	assert_equal "$(cat "$RM_CGROUP_ROOT/rmtools.slice/web/io.max")" \
		"$(cat "/sys/class/block/$disk/dev") rbps=max wbps=1048576 riops=max wiops=max"
}

@test "gc forgets the limits of disks that are gone" {
	some_disk
	make_cgroups v1 web
	run -0 rm-storage limit web "$DISK" --write-bps 1M
	# the disk renamed in the state, its checksum made anew, as if the disk had gone
	"$PY" - "$RM_STATE_DIR/storage.state" "$DISK" <<-'EOT'
	import sys, zlib
	path, disk = sys.argv[1], sys.argv[2]
	head, body = open(path).read().split("\n", 1)
	body = body.replace("disk=%s " % disk, "disk=gonedisk0 ")
	head = head.rsplit("=", 1)[0] + "=%08x" % zlib.crc32(body.encode())
	open(path, "w").write(head + "\n" + body)
	EOT
	run -0 rm-storage gc --dry-run
	assert_output --partial "limit=web disk=gonedisk0 "
	run -0 rm-storage show -o limit,disk
	assert_output "limit=web disk=gonedisk0"
	run -0 rm-storage gc
	assert_output --partial "limit=web disk=gonedisk0 "
	run -0 rm-storage show
	assert_output ""
}

# ---- as root: a loop device ----

@test "root: --write-bps 2M makes 8 MiB of direct writes to a loop device take 3.5 s, and release lifts it" {
	require_root
	command -v losetup >/dev/null || skip "losetup is not installed"
	local owner=st-$$-job t0 t1 ms
	truncate -s 32M "$BATS_TEST_TMPDIR/disk.img"
	LOOP=$(losetup -f --show "$BATS_TEST_TMPDIR/disk.img") || skip "no loop device"
	run -0 rm-storage limit "$owner" "$LOOP" --write-bps 2M
	assert_output --partial "limit=$owner disk=${LOOP#/dev/} read_bps=max write_bps=2MiB"
	t0=$(date +%s%N)
	run -0 rm-cpuset run --owner "$owner" -- dd if=/dev/zero of="$LOOP" bs=1M count=8 oflag=direct
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	echo "limited: $ms ms" >&3
	[ "$ms" -ge 3500 ] || fail "8 MiB at 2 MiB/s took $ms ms"
	run -0 rm-storage show "$owner" -o wbytes
	assert_output "wbytes=8MiB"
	run -0 rm-storage release "$owner"
	t0=$(date +%s%N)
	dd if=/dev/zero of="$LOOP" bs=1M count=8 oflag=direct 2>/dev/null
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	echo "released: $ms ms" >&3
	[ "$ms" -lt 1000 ] || fail "8 MiB without a limit took $ms ms"
	[ ! -d "/sys/fs/cgroup/blkio/rmtools/$owner" ] && [ ! -d "/sys/fs/cgroup/rmtools.slice/$owner" ]
}

@test "not root: list, show and usage work; limit and quota need root and change nothing" {
	require_root
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local bin=$RM_BUILDDIR/rm-storage
	# the default state directory: nobody cannot reach the test's
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- env -u RM_STATE_DIR "$@"; }
	nobody test -x "$bin" || skip "$bin is not reachable for nobody"
	DISK=$(rm-storage list -o disk -r | head -n 1)
	run -0 nobody "$bin" list -o disk
	assert_line "disk=$DISK"
	run -0 nobody "$bin" show
	run -0 nobody "$bin" usage
	run -1 --separate-stderr nobody "$bin" limit "st-$$-nb" "$DISK" --write-bps 1M
	assert_regex "$stderr" '^rm-storage: .*Permission denied; changing limits and quotas needs root$'
	[ ! -d "/sys/fs/cgroup/blkio/rmtools/st-$$-nb" ] && [ ! -d "/sys/fs/cgroup/rmtools.slice/st-$$-nb" ]
	run -1 --separate-stderr nobody "$bin" quota / 4M
	assert_regex "$stderr" '^rm-storage: (.*; )?changing limits and quotas needs root$'
}
