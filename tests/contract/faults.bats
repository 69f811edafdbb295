#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Failures after the first change (ENOSPC, EIO at write, close, fsync, rename), injected by
# tests/contract/failio.c: each is undone, or the message says exactly what stands (exit 1).
load ../test_helper
load ../rm-hugepages/helper
load helper

setup_file() {
	command -v cc >/dev/null || skip "no C compiler to build the fault shim"
	FAILIO=$BATS_FILE_TMPDIR/failio.so
	cc -shared -fPIC -o "$FAILIO" "$RM_SRCDIR/tests/contract/failio.c" -ldl
	# a sanitizer build's runtime must come first among the preloaded libraries
	local asan
	asan=$(ldd "$RM_BUILDDIR/rm-storage" | awk '/libasan/ { print $3 }')
	FAILIO="${asan:+$asan }$FAILIO"
	export FAILIO
}

teardown() {
	hp_fakes_cleanup
}

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	io_tree
	local root=$BATS_TEST_TMPDIR/cg
	CGV2=$root
	WEB=$root/rmtools.slice/web
	STATE=$RM_STATE_DIR/storage.state
	DISK=$(ls /sys/class/block | grep -v '[0-9]p[0-9]' | head -n 1)
	DEVNO=$(cat "/sys/class/block/$DISK/dev")
	# huge pages: a two-node tree, and a v1 hugetlb hierarchy with owner web's cgroup
	ROOT=$BATS_TEST_TMPDIR/root
	make_tree "$ROOT" 0:4G 1:4G
	OC=$ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
	HCG=$BATS_TEST_TMPDIR/hcg/hugetlb/rmtools/web
	hugetlb_web "$HCG"
	: >"$HCG/cgroup.procs"
}

# CALL PATH-GLOB ERRNO CMD...: CMD with the first CALL on a path matching the glob failing.
failing() {
	local call=$1 glob=$2 e=$3
	shift 3
	env LD_PRELOAD="$FAILIO" FAIL_CALL="$call" FAIL_PATH="$glob" FAIL_ERRNO="$e" \
		FAIL_LOG="$BATS_TEST_TMPDIR/failed" "$@"
}

# The shim failed the call it was given (else the test proves nothing).
assert_injected() {
	grep -qF -- "$1" "$BATS_TEST_TMPDIR/failed" ||
		fail "no '$1' failed: $(cat "$BATS_TEST_TMPDIR/failed" 2>&1)"
	rm -f "$BATS_TEST_TMPDIR/failed"
}

@test "storage limit: +io whose close fails is undone, not left in cgroup.subtree_control" {
	RM_CGROUP_ROOT=$CGV2 run -1 --separate-stderr \
		failing close '*/cgroup.subtree_control' EIO rm-storage limit web "$DISK" --write-bps 4M
	assert_injected "close $CGV2/cgroup.subtree_control"
	assert_equal "$stderr" "rm-storage: cannot write '+io' to $CGV2/cgroup.subtree_control: Input/output error; everything done is undone"
	refute [ "$(cat "$CGV2/cgroup.subtree_control")" = +io ]
	assert_equal "$(cat "$WEB/io.max")" ''
	[ ! -e "$STATE" ] || run -1 grep '^limit=web ' "$STATE"
}

@test "storage limit: io.max whose close fails is put back with +io; so is a state not renamed" {
	RM_CGROUP_ROOT=$CGV2 run -1 --separate-stderr \
		failing close '*/io.max' EIO rm-storage limit web "$DISK" --write-bps 4M
	assert_injected "close $WEB/io.max"
	assert_equal "$stderr" "rm-storage: cannot write '$DEVNO rbps=max wbps=4194304 riops=max wiops=max' to $WEB/io.max: Input/output error; everything done is undone"
	assert_equal "$(cat "$WEB/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=max"
	refute [ "$(cat "$CGV2/cgroup.subtree_control")" = +io ]
	refute [ "$(cat "$CGV2/rmtools.slice/cgroup.subtree_control")" = +io ]
	RM_CGROUP_ROOT=$CGV2 run -1 --separate-stderr \
		failing rename '*/storage.state' ENOSPC rm-storage limit web "$DISK" --write-bps 4M
	assert_injected "rename $STATE"
	assert_equal "$stderr" "rm-storage: cannot write the state: No space left on device; everything done is undone"
	assert_equal "$(cat "$WEB/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=max"
}

@test "storage release: a state that cannot be written puts the limits back; a retry releases" {
	export RM_CGROUP_ROOT=$CGV2
	run -0 rm-storage limit web "$DISK" --write-bps 4M
	local e
	for e in rename:ENOSPC fsync:EIO; do
		run -1 --separate-stderr \
			failing "${e%:*}" "$RM_STATE_DIR/*storage.state*" "${e#*:}" rm-storage release web
		assert_injected "${e%:*} $RM_STATE_DIR/"
		[[ $stderr =~ ^"rm-storage: cannot write the state: "[^\;]*"; the I/O limits of owner 'web' are set again"$ ]] ||
			fail "$stderr"
		# the state lists the limit, and the machine has it
		assert_equal "$(cat "$WEB/io.max")" "$DEVNO rbps=max wbps=4194304 riops=max wiops=max"
		run -0 grep -c '^limit=web ' "$STATE"
		assert_output 1
	done
	run -0 rm-storage release web
	assert_line 'released=web'
	assert_equal "$(cat "$WEB/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=max"
	run -1 grep '^limit=web ' "$STATE"
}

@test "storage release: a limit that cannot be put back is said, and release again finishes it" {
	export RM_CGROUP_ROOT=$CGV2
	run -0 rm-storage limit web "$DISK" --write-bps 4M
	# the state's rename fails, then the write of io.max that would put the limit back
	run -1 --separate-stderr env LD_PRELOAD="$FAILIO" FAIL_CALL=rename,write \
		FAIL_PATH='*/[si][to]*.[sm]*' FAIL_AFTER=1 FAIL_TIMES=2 FAIL_ERRNO=ENOSPC \
		FAIL_LOG="$BATS_TEST_TMPDIR/failed" rm-storage release web
	assert_injected "rename $STATE"
	assert_equal "$stderr" "rm-storage: cannot write the state: No space left on device; undoing it failed: cannot write '$DEVNO rbps=max wbps=4194304 riops=max wiops=max' to $WEB/io.max: No space left on device; the state still lists them (release again)"
	run -0 rm-storage release web
	run -1 grep '^limit=web ' "$STATE"
}

@test "hugepages overcommit: a value whose close fails is put back, or what stands is said" {
	run -1 --separate-stderr failing close '*/nr_overcommit_hugepages' EIO \
		rm-hugepages --sysroot "$ROOT" overcommit 2M 4
	assert_injected "close $OC"
	assert_equal "$stderr" "rm-hugepages: cannot write '4' to $OC: Input/output error; nothing changed"
	assert_equal "$(cat "$OC")" 0
}

@test "hugepages overcommit: a write back refused too is said with the value that stands" {
	# the fake's files, as the kernel's, are not emptied by the write back's O_TRUNC
	require_hp_fuse
	local fake=$BATS_TEST_TMPDIR/fake
	start_hp_fake "$fake" --node 0:1G --node 1:1G
	OC=$fake/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
	run -1 --separate-stderr env LD_PRELOAD="$FAILIO" FAIL_CALL=close,write \
		FAIL_PATH='*/nr_overcommit_hugepages' FAIL_AFTER=1 FAIL_TIMES=2 \
		rm-hugepages --sysroot "$fake" overcommit 2M 4
	assert_equal "$stderr" "rm-hugepages: cannot write '4' to $OC: Input/output error; writing back 0 failed: Input/output error; the overcommit of 2MiB pages stands at 4"
	assert_equal "$(cat "$OC")" 4
}

@test "hugepages apply: an overcommit whose close fails is undone with the pools" {
	printf '%s\n' '2M count=3' 'overcommit 2M 8' >"$BATS_TEST_TMPDIR/hp.conf"
	run -1 --separate-stderr failing close '*/nr_overcommit_hugepages' EIO \
		rm-hugepages --sysroot "$ROOT" apply "$BATS_TEST_TMPDIR/hp.conf"
	assert_injected "close $OC"
	assert_equal "$stderr" "rm-hugepages: $BATS_TEST_TMPDIR/hp.conf:2: cannot write '8' to $OC: Input/output error; everything done is undone"
	assert_equal "$(cat "$OC")" 0
	assert_equal "$(count "$ROOT" 2048 0) $(count "$ROOT" 2048 1)" "0 0"
}

@test "hugepages limit: a limit whose close fails is undone" {
	RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/hcg run -1 --separate-stderr \
		failing close '*/hugetlb.2MB.limit_in_bytes' EIO \
		rm-hugepages --sysroot "$ROOT" limit web 2M 16
	assert_injected "close $HCG/hugetlb.2MB.limit_in_bytes"
	assert_equal "$stderr" "rm-hugepages: cannot write '33554432' to $HCG/hugetlb.2MB.limit_in_bytes: Input/output error"
	# back to no limit, which v1 takes as -1
	assert_equal "$(cat "$HCG/hugetlb.2MB.limit_in_bytes")" -1
}
