#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-storage quota and usage: project quotas on an ext4 loop file (as root), and bad input
# refused before any change.
load ../test_helper
load helper

# An ext4 loop file made with project quotas, mounted with prjquota at $MNT (root).
make_ext4() { # make_ext4 [MKFS-FEATURES [MOUNT-OPTIONS]]
	require_root
	command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"
	truncate -s 64M "$BATS_TEST_TMPDIR/fs.img"
	mkfs.ext4 -q -F -O "${1-quota,project}" "$BATS_TEST_TMPDIR/fs.img"
	LOOP=$(losetup -f --show "$BATS_TEST_TMPDIR/fs.img") || skip "no loop device"
	# outside the test's directory, which nobody may not enter
	MNT=$(mktemp -d /tmp/rm-storage.XXXXXX)
	chmod 0755 "$MNT"
	if ! mount -o "${2-prjquota}" "$LOOP" "$MNT" 2>/dev/null; then
		skip "the kernel cannot mount ext4 with project quotas (CONFIG_QUOTA, CONFIG_QFMT_V2)"
	fi
}

@test "quota: 4M on a directory of ext4: writing 8 MiB fails with EDQUOT near 4 MiB; usage; release" {
	make_ext4
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	mkdir "$MNT/job" "$MNT/job/old"
	echo old >"$MNT/job/old/file"
	chmod 0777 "$MNT/job"
	run -0 rm-storage quota "$MNT/job" 4M --owner st-$$-q --inodes 100
	assert_output --regexp "^quota=$MNT/job project=[0-9]+ limit=4MiB used=[0-9]+KiB inodes=100 inodes_used=3 owner=st-$$-q fs=$MNT$"
	# what was there before joins the project, what is made there inherits it
	[ "$(lsattr -pd "$MNT/job/old" | awk '{ print $1 }')" -ne 0 ]
	# as nobody: root's CAP_SYS_RESOURCE passes over hard limits
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		dd if=/dev/zero of="$MNT/job/big" bs=1M count=8 conv=fsync
	assert_failure
	assert_output --partial "Disk quota exceeded"
	local size
	size=$(stat -c %s "$MNT/job/big")
	[ "$size" -ge $((3 * 1024 * 1024)) ] && [ "$size" -le $((4 * 1024 * 1024)) ] ||
		fail "wrote $size bytes"
	run -0 rm-storage usage "$MNT/job" -o used,limit --bytes
	[[ $output =~ ^used=([0-9]+)\ limit=4194304$ ]]
	[ "${BASH_REMATCH[1]}" -ge $((3 * 1024 * 1024)) ]
	# the quota of an owner goes with the owner
	run -0 rm-storage release st-$$-q
	[ "$(lsattr -pd "$MNT/job" | awk '{ print $1 }')" -eq 0 ]
	rm "$MNT/job/big"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		dd if=/dev/zero of="$MNT/job/big" bs=1M count=8 conv=fsync 2>/dev/null
	run -0 rm-storage usage
	assert_output ""
}

@test "quota: a filesystem without project quotas is refused, naming what it needs" {
	make_ext4 "^quota" ""
	mkdir "$MNT/d"
	usage_error "mount it with the prjquota option" rm-storage quota "$MNT/d" 4M
	[ ! -e "$RM_STATE_DIR/storage.state" ]
}

@test "quota: bad input exits 2 and changes nothing" {
	usage_error "project quotas need a directory of ext4 or XFS" rm-storage quota /proc 4M
	usage_error "not a directory: '$BATS_TEST_TMPDIR/none'" rm-storage quota "$BATS_TEST_TMPDIR/none" 4M
	usage_error "invalid size: '4Q'" rm-storage quota "$BATS_TEST_TMPDIR" 4Q
	usage_error "below 1KiB" rm-storage quota "$BATS_TEST_TMPDIR" 10
	usage_error "invalid owner name: 'a b'" rm-storage quota "$BATS_TEST_TMPDIR" 4M --owner "a b"
	usage_error "--inodes: invalid number: 'x'" rm-storage quota "$BATS_TEST_TMPDIR" 4M --inodes x
	usage_error "give DIR and SIZE" rm-storage quota "$BATS_TEST_TMPDIR"
	usage_error "no quota of rm-storage on that directory" rm-storage usage "$BATS_TEST_TMPDIR"
	[ ! -e "$RM_STATE_DIR/storage.state" ]
}
