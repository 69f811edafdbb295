#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices alloc, release and list-allocations on the GPU server tree: NUMA alignment with the
# owner's CPUs, topology manager policies, PCI switch and root preference, SR-IOV, concurrency.
load ../test_helper
load fixtures

setup_file() {
	fx_trees
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	STATE="$RM_STATE_DIR/devices.state"
	gate="$BATS_TEST_TMPDIR/gate"
}

dev() { rm-devices --sysroot "$GPU" "$@"; }

# The state file's bytes, or "none".
state_sum() { if [ -e "$STATE" ]; then md5sum <"$STATE"; else echo none; fi; }

# Refused with exit status STATUS, MESSAGE on the first line of stderr (argp adds its hint on a
# second), nothing on stdout, the state unchanged.
refused() {
	local status=$1 msg=$2 before
	shift 2
	before=$(state_sum)
	run "-$status" --separate-stderr "$@"
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} == "rm-devices"*": "*"$msg"* ]] ||
		fail "stderr: '$stderr', expected: '$msg'"
	assert_equal "$(state_sum)" "$before"
}

# The allocated devices, "ADDR OWNER" a line, sorted.
allocated() {
	dev list-allocations -o device,owner -r | sort
}

@test "alloc: prints the devices' records and keeps them in the state" {
	run -0 --separate-stderr dev alloc --type gpu --count 2 --owner train
	assert_equal "$stderr" ""
	assert_line --index 0 'device=0000:1a:00.0 type=gpu name=gpu0 vendor=10de product=20b0 vendor_name="NVIDIA Corporation" product_name="GA100 [A100 SXM4 40GB]" driver=nvidia numa=0 cpus=0-1,4-5 root=0000:17 iommu_group=10 dev_nodes=/dev/nvidia0'
	assert_line --index 1 --partial 'device=0000:1b:00.0 type=gpu name=gpu1 '
	run -0 sed -n 1p "$STATE"
	assert_output --regexp '^rmtools_state=devices version=1 records=2 checksum=[0-9a-f]{8}$'
	run -0 sed -n 2,3p "$STATE"
	assert_line --index 0 --regexp '^device=0000:1a:00.0 owner=train type=gpu vendor=10de product=20b0 driver=nvidia numa=0 created=[0-9]+$'
	assert_line --index 1 --regexp '^device=0000:1b:00.0 owner=train type=gpu vendor=10de product=20b0 driver=nvidia numa=0 created=[0-9]+$'
	run -0 dev list-allocations
	assert_output "$(printf '%s\n' 'device=0000:1a:00.0 owner=train type=gpu numa=0 driver=nvidia' \
		'device=0000:1b:00.0 owner=train type=gpu numa=0 driver=nvidia')"
	# an owner may take more, of this type or another
	run -0 dev alloc --type ib --count 1 --owner train -o device,type -r
	assert_output '0000:1c:00.0 ib'
	run -0 dev list-allocations train -o device -r
	assert_equal "${#lines[@]}" 3
}

@test "alloc: one PCI switch first; the partly used switch is filled before a free one" {
	run -0 dev alloc --type gpu --count 1 --owner a -o device -r
	assert_output 0000:1a:00.0
	# two more: the switch holding two free GPUs, not 1b and another switch's
	run -0 dev alloc --type gpu --count 2 --owner b -o device,switch -r
	assert_output "$(printf '%s\n' '0000:3d:00.0 0000:3b:00.0' '0000:3e:00.0 0000:3b:00.0')"
	# one more: the GPU left alone on its switch
	run -0 dev alloc --type gpu --count 1 --owner c -o device -r
	assert_output 0000:1b:00.0
	# three: no switch has them, one NUMA node does: its two switches, fullest first
	run -0 dev alloc --type gpu --count 3 --owner d -o device,numa -r
	assert_output "$(printf '%s\n' '0000:9a:00.0 1' '0000:9b:00.0 1' '0000:ba:00.0 1')"
}

@test "alloc: aligned with the NUMA node of the owner's rm-cpuset CPUs" {
	run -0 rm-cpuset --sysroot "$GPU" alloc --count 2 --owner job --numa-node 1
	assert_output --partial 'nodes=1 '
	run -0 dev alloc --type gpu --count 2 --owner job -o device,numa -r
	assert_output "$(printf '%s\n' '0000:9a:00.0 1' '0000:9b:00.0 1')"
	# another owner without CPUs: no preference, the first switch
	run -0 dev alloc --type gpu --count 1 --owner other -o device -r
	assert_output 0000:1a:00.0
	# --numa-node and --near-cpus say it for an owner without CPUs
	run -0 dev alloc --type ib --count 1 --owner x --numa-node 1 -o device -r
	assert_output 0000:9c:00.0
	run -0 dev alloc --type ib --count 1 --owner y --near-cpus 3,7 -o device -r
	assert_output 0000:bc:00.0
	run -0 dev alloc --type ib --count 1 --owner z --near-cpus 0 -o device -r
	assert_output 0000:1c:00.0
}

@test "alloc: the GPUs' records take rm-cpuset to the CPUs next to them" {
	run -0 bash -c "rm-devices --sysroot '$GPU' alloc --type gpu --count 2 --owner train --numa-node 1 |
		rm-cpuset --sysroot '$GPU' alloc --near - --count 2 --owner train --policy single-numa-node"
	assert_output --regexp '^owner=train cpus=[0-9,-]+ mems=1 cores=[0-9,-]+ nodes=1 '
	run -0 dev list-allocations -o device,numa -r
	assert_output "$(printf '%s\n' '0000:9a:00.0 1' '0000:9b:00.0 1')"
}

@test "alloc: single-numa-node refuses when no node has enough, with exit 3 and no change" {
	# five can never be on one node of four
	refused 3 "topology manager policy single-numa-node: no single NUMA node has 5 free gpu devices (free: node 0: 4, node 1: 4)" \
		dev alloc --type gpu --count 5 --owner five --policy single-numa-node
	run -0 dev alloc --type gpu --count 4 --owner big --policy single-numa-node -o device,numa -r
	assert_output "$(printf '%s\n' '0000:1a:00.0 0' '0000:1b:00.0 0' '0000:3d:00.0 0' '0000:3e:00.0 0')"
	run -0 dev release big
	run -0 dev alloc --type gpu --count 2 --owner a --numa-node 0
	run -0 dev alloc --type gpu --count 1 --owner b --numa-node 1
	# four free devices would fit on one node, but node 0 has 2 and node 1 has 3
	refused 3 "topology manager policy single-numa-node: no single NUMA node has 4 free gpu devices (free: node 0: 2, node 1: 3)" \
		dev alloc --type gpu --count 4 --owner more --policy single-numa-node
	run -0 dev alloc --type gpu --count 3 --owner three --policy single-numa-node -o numa -r
	assert_output "$(printf '1\n1\n1')"
	# the owner's CPUs on node 1 and its GPUs must share a node: node 1 has none left
	run -0 rm-cpuset --sysroot "$GPU" alloc --count 1 --owner pinned --numa-node 1
	refused 3 "no single NUMA node has 1 free gpu devices and the owner's CPUs" \
		dev alloc --type gpu --count 1 --owner pinned --policy single-numa-node
	run -0 dev alloc --type gpu --count 1 --owner pinned --policy best-effort -o numa -r
	assert_output 0
}

@test "alloc: restricted wants a preferred affinity, best-effort takes the best there is" {
	run -0 dev alloc --type gpu --count 2 --owner a --numa-node 0
	run -0 dev alloc --type gpu --count 1 --owner b --numa-node 1 -o device -r
	# 5 free: 2 on node 0, 3 on node 1; 4 fit on one node of 4, but no node has 4 free
	refused 3 "topology manager policy restricted: no preferred NUMA affinity for 4 gpu devices (free: node 0: 2, node 1: 3)" \
		dev alloc --type gpu --count 4 --owner r --policy restricted
	run -0 dev alloc --type gpu --count 3 --owner r --policy restricted -o numa -r
	assert_output "$(printf '1\n1\n1')"
	run -0 dev alloc --type gpu --count 2 --owner e --policy best-effort -o numa -r
	assert_output "$(printf '0\n0')"
}

@test "alloc: the Topology Manager's options: max-allowable-numa-nodes refuses, prefer-closest places" {
	refused 2 "too many NUMA nodes for topology hints (2, max-allowable-numa-nodes is 1)" \
		dev alloc --type gpu --count 1 --owner m --policy restricted --topology-manager-option max-allowable-numa-nodes=1
	refused 2 "invalid value for topology manager option 'prefer-closest-numa-nodes': 'maybe'" \
		dev alloc --type gpu --count 1 --owner m --topology-manager-option prefer-closest-numa-nodes=maybe
	run -0 dev alloc --type gpu --count 5 --owner c --policy best-effort --topology-manager-option prefer-closest-numa-nodes -o numa -r
	assert_output "$(printf '0\n0\n0\n0\n1')"
}

@test "alloc: --same-root takes all on one PCI root or refuses" {
	refused 3 "no PCI root has 3 free gpu devices (0000:17: 2, 0000:3a: 2, 0000:97: 2, 0000:b7: 2)" \
		dev alloc --type gpu --count 3 --owner r --same-root
	run -0 dev alloc --type gpu --count 1 --owner a -o device -r
	run -0 dev alloc --type gpu --count 2 --owner r --same-root -o device,root -r
	assert_output "$(printf '%s\n' '0000:3d:00.0 0000:3a' '0000:3e:00.0 0000:3a')"
	# with the owner's node: a root there
	run -0 dev alloc --type gpu --count 2 --owner s --same-root --numa-node 1 -o root -r
	assert_output "$(printf '%s\n' 0000:97 0000:97)"
}

@test "alloc: not enough devices: exit 3, nothing changed" {
	run -0 dev alloc --type gpu --count 6 --owner a
	refused 3 "not enough free gpu devices: requested 3, available 2" \
		dev alloc --type gpu --count 3 --owner b
	refused 3 "not enough free fpga devices: requested 1, available 0" \
		dev alloc --type fpga --count 1 --owner b
	# --dry-run chooses but keeps nothing
	run -0 dev alloc --type gpu --count 2 --owner b --dry-run -o device -r
	assert_output "$(printf '%s\n' 0000:ba:00.0 0000:bb:00.0)"
	run -0 dev list-allocations -o owner -r
	refute_line b
}

@test "alloc: a PF whose VFs are enabled is not handed out, its VFs are" {
	run -0 rm-devices --sysroot "$MIXED" alloc --type nic --count 3 --owner vm -o device,sriov,pf -r
	assert_output "$(printf '%s\n' '0000:3b:01.0 vf 0000:3b:00.0' '0000:3b:01.1 vf 0000:3b:00.0' \
		'0000:3b:01.2 vf 0000:3b:00.0')"
	# 5 VFs and the VPI adapter are left; the PF is not counted
	run -3 --separate-stderr rm-devices --sysroot "$MIXED" alloc --type nic --count 7 --owner more
	assert_equal "$stderr" "rm-devices: not enough free nic devices: requested 7, available 6"
}

@test "release: gives the devices back, prints them; list-allocations by owner" {
	run -0 dev alloc --type gpu --count 2 --owner a
	run -0 dev alloc --type gpu --count 2 --owner b
	run -0 dev alloc --type ib --count 1 --owner c
	run -0 dev list-allocations b c -o device,owner -r
	assert_output "$(printf '%s\n' '0000:3d:00.0 b' '0000:3e:00.0 b' '0000:1c:00.0 c')"
	run -0 dev release a --dry-run -o device -r
	assert_output "$(printf '%s\n' 0000:1a:00.0 0000:1b:00.0)"
	run -0 dev list-allocations a -o device -r
	assert_equal "${#lines[@]}" 2
	run -0 dev release a
	assert_output "$(printf '%s\n' 'device=0000:1a:00.0 owner=a type=gpu numa=0 driver=nvidia' \
		'device=0000:1b:00.0 owner=a type=gpu numa=0 driver=nvidia')"
	run -0 allocated
	assert_output "$(printf '%s\n' '0000:1c:00.0 c' '0000:3d:00.0 b' '0000:3e:00.0 b')"
	# the released GPUs are the first choice again
	run -0 dev alloc --type gpu --count 2 --owner d -o device -r
	assert_output "$(printf '%s\n' 0000:1a:00.0 0000:1b:00.0)"
	run -0 dev release --all -o owner -r
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u | xargs)" "b c d"
	run -0 dev list-allocations
	assert_output ''
	run -0 sed -n 1p "$STATE"
	assert_output --regexp '^rmtools_state=devices version=1 records=0 '
}

@test "bad input: exit 2, one line, the state unchanged" {
	run -0 dev alloc --type gpu --count 1 --owner a
	refused 2 "unknown device type: 'tpu'" dev alloc --type tpu --count 1 --owner b
	refused 2 "unknown device type: 'other'" dev alloc --type other --count 1 --owner b
	refused 2 "invalid owner name: 'a/b'" dev alloc --type gpu --count 1 --owner a/b
	refused 2 "invalid owner name: '../x'" dev alloc --type gpu --count 1 --owner ../x
	refused 2 "invalid count: '0'" dev alloc --type gpu --count 0 --owner b
	refused 2 "alloc needs --count N" dev alloc --type gpu --owner b
	refused 2 "alloc needs --owner NAME" dev alloc --type gpu --count 1
	refused 2 "alloc needs --type TYPE or --class CLASS" dev alloc --count 1 --owner b
	refused 2 "alloc needs --type TYPE or --class CLASS" \
		dev alloc --type gpu --class fast --count 1 --owner b
	refused 2 "no such class: 'fast' (see rm-class list)" dev alloc --class fast --count 1 --owner b
	refused 2 "unknown policy: 'strict'" dev alloc --type gpu --count 1 --owner b --policy strict
	refused 2 "no such NUMA node: '2'" dev alloc --type gpu --count 1 --owner b --numa-node 2
	refused 2 "--near-cpus" dev alloc --type gpu --count 1 --owner b --near-cpus 64
	refused 2 "invalid --numa-node" dev alloc --type gpu --count 1 --owner b --numa-node x
	refused 2 "unknown field: 'bogus'" dev alloc --type gpu --count 1 --owner b -o device,bogus
	refused 2 "unknown field: 'bogus'" dev release a -o bogus
	refused 2 "no such owner: 'zz'" dev release zz
	refused 2 "invalid owner name: 'a/b'" dev release a/b
	refused 2 "release: missing OWNER (or --all)" dev release
	refused 2 "no such owner: 'zz'" dev list-allocations zz
	# a described topology has no devices to give
	before=$(state_sum)
	run -3 --separate-stderr rm-devices --topology "package:2 core:2 pu:1" alloc --type gpu \
		--count 1 --owner b
	assert_equal "${stderr_lines[0]}" "rm-devices: note: a described topology has no devices: 'package:2 core:2 pu:1' (use --sysroot with a snapshot for a machine's devices)"
	assert_equal "${stderr_lines[1]}" "rm-devices: not enough free gpu devices: requested 1, available 0"
	assert_equal "$(state_sum)" "$before"
}

@test "alloc: a corrupt state is refused, never reset" {
	run -0 dev alloc --type gpu --count 1 --owner a
	sed -i 's/owner=a/owner=b/' "$STATE"
	refused 1 "corrupt state file '$STATE': checksum mismatch" \
		dev alloc --type gpu --count 1 --owner c
	refused 1 "checksum mismatch" dev list-allocations
	# a state that is not rm-devices'
	rm -r "$RM_STATE_DIR"
	run -0 "$RM_BUILDDIR/tests/unit/test-state" devices add owner x cpus=0 2>/dev/null ||
		skip "tests/unit/test-state is not built"
	refused 1 "not a device allocation record" dev alloc --type gpu --count 1 --owner c
}

# ---- concurrency ----

# Start jobs together: close the gate, start each with `together ARGS...` in the background
# (rm-devices ARGS once the gate opens), then open the gate.
gate_close() {
	exec 9>"$gate"
	flock -x 9
}
together() {
	flock -s "$gate" rm-devices --sysroot "$GPU" "$@" 9>&-
}
gate_open() {
	flock -u 9
	exec 9>&-
}

@test "24 parallel allocations of one GPU: 8 get distinct GPUs, 16 exit 3, the state is whole" {
	local job pids=() rc ok=0 short=0
	gate_close
	for job in $(seq 1 24); do
		together alloc --type gpu --count 1 --owner "o$job" -o device -r \
			>"$BATS_TEST_TMPDIR/o$job.out" 2>"$BATS_TEST_TMPDIR/o$job.err" &
		pids[job]=$!
	done
	gate_open
	for job in $(seq 1 24); do
		rc=0
		wait "${pids[job]}" || rc=$?
		case $rc in
		0) ok=$((ok + 1))
		   run -0 cat "$BATS_TEST_TMPDIR/o$job.out"
		   assert_output --regexp '^0000:[0-9a-f]{2}:00\.0$'
		   run -0 dev list-allocations "o$job" -o device -r
		   assert_output "$(cat "$BATS_TEST_TMPDIR/o$job.out")" ;;
		3) short=$((short + 1))
		   run -0 cat "$BATS_TEST_TMPDIR/o$job.err"
		   assert_output "rm-devices: not enough free gpu devices: requested 1, available 0"
		   run -0 cat "$BATS_TEST_TMPDIR/o$job.out"
		   assert_output '' ;;
		*) fail "o$job exited $rc: $(cat "$BATS_TEST_TMPDIR/o$job.err")" ;;
		esac
	done
	assert_equal "$ok $short" "8 16"
	# eight distinct GPUs: every GPU, once
	assert_equal "$(cat "$BATS_TEST_TMPDIR"/o*.out | sort | xargs)" \
		"$(dev list --type gpu -o device -r | xargs)"
	run -0 bash -c "grep -c '^device=' '$STATE'"
	assert_output 8
	assert_equal "$(find "$RM_STATE_DIR" -mindepth 1 | sort | xargs)" \
		"$RM_STATE_DIR/devices.lock $RM_STATE_DIR/devices.state"
}

@test "parallel allocations and releases never share a device" {
	local job pids=() rpids=() rc ok=0
	for job in 1 2 3 4; do
		run -0 dev alloc --type gpu --count 1 --owner "r$job"
	done
	gate_close
	for job in $(seq 1 12); do
		together alloc --type gpu --count 1 --owner "a$job" >/dev/null \
			2>"$BATS_TEST_TMPDIR/a$job.err" &
		pids[job]=$!
	done
	for job in 1 2 3 4; do
		together release "r$job" >/dev/null 2>"$BATS_TEST_TMPDIR/r$job.err" &
		rpids[job]=$!
	done
	gate_open
	for job in 1 2 3 4; do
		wait "${rpids[job]}" || fail "release r$job failed: $(cat "$BATS_TEST_TMPDIR/r$job.err")"
	done
	for job in $(seq 1 12); do
		rc=0
		wait "${pids[job]}" || rc=$?
		case $rc in
		0) ok=$((ok + 1)) ;;
		3) ;;
		*) fail "a$job exited $rc: $(cat "$BATS_TEST_TMPDIR/a$job.err")" ;;
		esac
	done
	# the 4 first free GPUs went to someone at least; never a GPU twice; one per winner
	[ "$ok" -ge 4 ] && [ "$ok" -le 8 ] || fail "$ok allocations succeeded"
	run -0 dev list-allocations -o device,owner -r
	assert_equal "${#lines[@]}" "$ok"
	assert_equal "$(printf '%s\n' "${lines[@]}" | cut -d' ' -f1 | sort | uniq -d)" ""
	assert_equal "$(printf '%s\n' "${lines[@]}" | cut -d' ' -f2 | sort | uniq -d)" ""
	refute_line --partial ' r'
}

@test "alloc --class: the devices of an rm-class class, from a class file too" {
	export RM_CONFIG_DIR=$BATS_TEST_TMPDIR/conf
	run -0 dev alloc --class nvidia-gpu --count 2 --owner a -o device,type,vendor
	assert_line --index 0 --regexp '^device=[0-9a-f:.]+ type=gpu vendor=10de$'
	assert_line --index 1 --regexp '^device=[0-9a-f:.]+ type=gpu vendor=10de$'
	# a class no device matches: exit 3, nothing changed
	mkdir -p "$RM_CONFIG_DIR/classes.d"
	printf '[class amd]\nselector = type == "gpu" and vendor == 0x1002\n' >"$RM_CONFIG_DIR/classes.d/amd.conf"
	refused 3 "not enough free amd devices" dev alloc --class amd --count 1 --owner b
	# a broken class file is bad input
	printf '[class bad]\nselector = type ==\n' >"$RM_CONFIG_DIR/classes.d/bad.conf"
	refused 2 "bad.conf:2:" dev alloc --class bad --count 1 --owner b
}

@test "alloc --explain: the providers' hints and the merged hint, before the devices" {
	run -0 dev alloc --type gpu --count 2 --owner a --numa-node 0
	# 2 free on node 0, 4 on node 1: one node holds 3, node 1 alone
	run -0 dev alloc --type gpu --count 3 --owner r --policy restricted --explain -o numa -r
	assert_golden rm-devices alloc-explain-restricted
	# node 0 full; the owner's CPUs on node 0 are a second provider: no hint of both is
	# preferred, and the best of the others is the lower single node
	run -0 dev alloc --type gpu --count 2 --owner b --numa-node 0
	run -0 rm-cpuset --sysroot "$GPU" alloc --count 1 --owner p --numa-node 0
	run -3 --separate-stderr dev alloc --type gpu --count 1 --owner p --policy restricted --explain
	assert_output "$(printf '%s\n' 'hint=gpu nodes=1 preferred=yes' \
		'hint=gpu nodes=0-1 preferred=no' \
		'hint=numa-node nodes=0 preferred=yes' \
		'hint=numa-node nodes=0-1 preferred=no' \
		'merged=restricted nodes=0 preferred=no admit=no merge=every-set')"
	assert_equal "$stderr" "rm-devices: topology manager policy restricted: no preferred NUMA affinity for 1 gpu devices with the owner's CPUs (free: node 0: 0, node 1: 1)"
}
