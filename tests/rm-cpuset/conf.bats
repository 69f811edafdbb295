#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset apply with cpuset.conf(5): the node's reservation and owners described in a file.
load ../test_helper
load ../cgroup_helper

T16="package:2 numa:1 core:4 pu:2"

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/etc"
	mkdir -p "$RM_CONFIG_DIR"
	CONF=$RM_CONFIG_DIR/cpuset.conf
}

teardown() {
	fakes_cleanup
}


apply() {
	rm-cpuset --topology "$T16" apply "$@"
}

@test "conf: apply makes the reservation and the owners; twice changes nothing; an edit changes only its owner" {
	start_v2
	cat >"$CONF" <<-'EOF2'
	# a node role
	reserve count=2 strict=yes
	owner db count=4 isolate=yes policy=single-numa-node
	owner web count=2   # the front end
	EOF2
	run -0 apply -o cgroup,cpus,action
	assert_output - <<-EOF2
	source=$CONF:2 setting=reserve name=- cpus=0-1 action=set
	source=$CONF:3 setting=owner name=db cpus=2-5 action=allocate
	source=$CONF:4 setting=owner name=web cpus=6-7 action=allocate
	cgroup=db cpus=2-5 action=create
	cgroup=web cpus=6-7 action=create
	cgroup=shared cpus=8-15 action=create
	EOF2
	assert_equal "$(cat "$P/db/cpuset.cpus.partition")" isolated
	cp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/state1"
	run -0 apply -o cgroup,action
	assert_output - <<-EOF2
	source=$CONF:2 setting=reserve name=- cpus=0-1 action=keep
	source=$CONF:3 setting=owner name=db cpus=2-5 action=keep
	source=$CONF:4 setting=owner name=web cpus=6-7 action=keep
	cgroup=db action=keep
	cgroup=web action=keep
	cgroup=shared action=keep
	EOF2
	cmp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/state1"
	# the order of a line's words is no change
	sed -i 's/^owner db count=4 isolate=yes policy=single-numa-node$/owner db policy=single-numa-node isolate=yes count=4/' "$CONF"
	run -0 apply -o cgroup,action
	assert_line "source=$CONF:3 setting=owner name=db cpus=2-5 action=keep"
	# web grows: only web changes
	sed -i 's/^owner web count=2/owner web count=3/' "$CONF"
	run -0 apply -o cgroup,action
	assert_line "source=$CONF:3 setting=owner name=db cpus=2-5 action=keep"
	assert_line "source=$CONF:4 setting=owner name=web cpus=6-8 action=reallocate"
	assert_line "cgroup=db action=keep"
	assert_line "cgroup=web action=update"
	assert_equal "$(cat "$P/web/cpuset.cpus")" 6-8
}

@test "conf: owners made by hand stay; an owner the file drops is released; an empty file releases what it made" {
	start_v2
	printf 'owner db count=2\nowner web count=2\n' >"$CONF"
	run -0 apply
	run -0 rm-cpuset --topology "$T16" alloc --count 1 --owner hand -o owner,cpus
	hand=$output
	printf 'owner db count=2\n' >"$CONF"
	run -0 apply -o cgroup,action
	assert_line --index 0 "source=- setting=owner name=web cpus=- action=release"
	assert_line "cgroup=hand action=keep"
	assert_line "cgroup=web action=remove"
	: >"$CONF"
	run -0 apply -o cgroup,action
	assert_line --index 0 "source=- setting=owner name=db cpus=- action=release"
	run -0 rm-cpuset --topology "$T16" list -o owner,cpus
	assert_output "$hand"
	# a hand-made owner under a name the file gives is taken over
	printf 'owner hand count=2\n' >"$CONF"
	run -0 apply -o cgroup,action
	assert_line --index 0 --regexp "^source=$CONF:1 setting=owner name=hand cpus=[0-9,-]+ action=reallocate$"
	run -0 rm-cpuset --topology "$T16" list -o owner,count
	assert_output "owner=hand count=2"
}

@test "conf: a changed reservation allocates the file's owners again; a dropped one is removed" {
	start_v2
	printf 'reserve cpus=0-1\nowner db count=2\n' >"$CONF"
	run -0 apply
	assert_line "source=$CONF:2 setting=owner name=db cpus=2-3 action=allocate"
	printf 'reserve cpus=0-3\nowner db count=2\n' >"$CONF"
	run -0 apply
	assert_line "source=$CONF:1 setting=reserve name=- cpus=0-3 action=set"
	assert_line "source=$CONF:2 setting=owner name=db cpus=4-5 action=reallocate"
	printf 'owner db count=2\n' >"$CONF"
	run -0 apply
	assert_line --index 0 "source=- setting=reserve name=- cpus=- action=remove"
	assert_line --index 1 "source=$CONF:1 setting=owner name=db cpus=0-1 action=reallocate"
	run -0 rm-cpuset --topology "$T16" show -o pool,cpus
	assert_line "pool=reserved cpus=\"\""
}

@test "conf: every error names FILE:LINE:COLUMN, exits 2 or 3 and changes nothing" {
	start_v2
	printf 'owner keep count=1\n' >"$CONF"
	run -0 apply
	cp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/before"
	bad() { # bad STATUS LINE MESSAGE
		printf 'owner keep count=1\n%s\n' "$2" >"$CONF"
		run -"$1" apply
		assert_output "rm-cpuset: $CONF:2:$3"
		cmp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/before"
	}
	bad 2 'owner x count=z' "15: invalid count: 'z' (a whole number of CPUs, at least 1)"
	bad 2 'owner x count=2 policy=foo' "24: unknown policy: 'foo' (none, best-effort, restricted, single-numa-node)"
	bad 2 'owner x count=2 isolate=maybe' "25: invalid isolate (yes or no): 'maybe'"
	bad 2 'owner x count=2 bogus=1' "17: unknown setting: 'bogus' (rm-cpuset.conf(5))"
	bad 2 'owner x count=2 owner=y' "17: unknown setting: 'owner' (rm-cpuset.conf(5))"
	bad 2 'owner x count=2 count=3' "17: given twice: 'count'"
	bad 2 'owner x count=2 isolate=no isolate=yes' "28: given twice: 'isolate'"
	bad 2 'reserve cpus=0 cpus=1' "16: given twice: 'cpus'"
	bad 2 'owner x count=2 near=-' "7: near=- reads standard input: name the device"
	bad 2 'owner x count=2 l3-exclusive=yes' "1: --l3-exclusive needs --l3-ways N"
	bad 2 'owner x' "7: missing count="
	bad 2 'owner count=1' "1: missing the owner's name"
	bad 2 'owner keep count=1' "7: owner 'keep' is set on an earlier line already"
	bad 2 'owner -x count=1' "7: invalid owner name: '-x' (letters, digits, '_', '.', '-'; at most 64, starting with a letter or digit)"
	bad 2 'reserve' "1: give either cpus= or count="
	bad 2 'reserve cpus=0 count=1' "1: give either cpus= or count="
	bad 2 'reserve cpus=0-x' "1: invalid SET: invalid character 'x' in cpu list: '0-x'"
	bad 2 'limit x 1' "1: unknown setting: 'limit' (owner or reserve)"
	bad 2 'owner x count=2 x' "17: expected key=value: 'x'"
	bad 3 'owner x count=100' "7: not enough free CPUs: requested 100, available 14 (the shared pool keeps at least one CPU; reserve CPUs to let allocations take the rest)"
	# a missing file named on the command line
	run -2 rm-cpuset --topology "$T16" apply "$BATS_TEST_TMPDIR/none.conf"
	assert_output "rm-cpuset: cannot read $BATS_TEST_TMPDIR/none.conf: No such file or directory"
}

@test "conf: --dry-run prints the plan and changes nothing; without a file apply keeps the state" {
	start_v2
	printf 'owner db count=2\n' >"$CONF"
	run -0 apply --dry-run -o cgroup,action
	assert_line "source=$CONF:1 setting=owner name=db cpus=0-1 action=allocate"
	assert_line "cgroup=db action=create"
	[ ! -e "$RM_STATE_DIR/cpuset.state" ] || ! grep -q owner=db "$RM_STATE_DIR/cpuset.state"
	run -0 apply
	rm "$CONF"
	run -0 apply -o cgroup,action
	assert_output $'cgroup=db action=keep\ncgroup=shared action=keep'
	# standard input
	run -0 rm-cpuset --topology "$T16" apply --dry-run - <<<'owner db count=3'
	assert_line "source=\"(standard input):1\" setting=owner name=db cpus=0-2 action=reallocate"
	run -0 rm-cpuset --topology "$T16" list -o owner,cpus
	assert_output "owner=db cpus=0-1"
}
