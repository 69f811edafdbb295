#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-storage apply with storage.conf(5): the owners' I/O limits of a node described in a file,
# on cgroup trees laid out as /sys/fs/cgroup and a disk of this machine.
load ../test_helper
load helper

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state RM_CONFIG_DIR=$BATS_TEST_TMPDIR/etc
	LOOP='' MNT=''
	mkdir -p "$RM_CONFIG_DIR"
	CONF=$RM_CONFIG_DIR/storage.conf
	some_disk
}

# make_cgroups's trees with several owners: make_v2 OWNER..., make_v1 OWNER
make_v2() {
	local o
	for o in "$@"; do CPUSET=cpuset make_cgroups v2 "$o"; done
	P=$RM_CGROUP_ROOT/rmtools.slice
}

make_v1() {
	make_cgroups v1 "$1"
	P=$RM_CGROUP_ROOT/blkio/rmtools
}

# The state's line of OWNER's limit.
state_of() {
	grep "^limit=$1 " "$RM_STATE_DIR/storage.state"
}

@test "conf: apply sets the file's limits and prints the records; twice changes nothing; an edit changes only its limit" {
	make_v2 web db
	cat >"$CONF" <<-EOF2
	# a node role
	limit web $DISK write-bps=2M read-iops=500
	limit db /dev/$DISK weight=200 latency-target=5000   # the database
	EOF2
	[ -b "/dev/$DISK" ] || sed -i "s|/dev/$DISK|$DISK|" "$CONF"
	run -0 rm-storage apply -o limit,disk,write_bps,read_iops,weight,latency_target
	assert_output - <<-EOF2
	source=$CONF:2 setting=limit owner=web disk=$DISK action=set
	source=$CONF:3 setting=limit owner=db disk=$DISK action=set
	limit=web disk=$DISK write_bps=2MiB read_iops=500 weight=default latency_target=max
	limit=db disk=$DISK write_bps=max read_iops=max weight=200 latency_target=5000
	EOF2
	assert_equal "$(cat "$P/web/io.max")" "$DEVNO rbps=max wbps=2097152 riops=500 wiops=max"
	assert_equal "$(cat "$P/db/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=max"
	assert_equal "$(cat "$P/db/io.weight")" "$DEVNO 200"
	assert_equal "$(cat "$P/db/io.latency")" "$DEVNO target=5000"
	[[ $(state_of web) =~ \ conf=[0-9a-f]{16}$ ]]
	[[ $(state_of db) =~ \ conf=[0-9a-f]{16}$ ]]
	# twice: everything kept, the state untouched
	cp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/state1"
	run -0 rm-storage apply -o limit,applied
	assert_output - <<-EOF2
	source=$CONF:2 setting=limit owner=web disk=$DISK action=keep
	source=$CONF:3 setting=limit owner=db disk=$DISK action=keep
	limit=web applied=yes
	limit=db applied=yes
	EOF2
	cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/state1"
	# the order of a line's words is no change
	sed -i "s/^limit web $DISK write-bps=2M read-iops=500\$/limit web $DISK read-iops=500 write-bps=2M/" "$CONF"
	run -0 rm-storage apply -o limit
	assert_line --index 0 "source=$CONF:2 setting=limit owner=web disk=$DISK action=keep"
	cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/state1"
	# web's line edited: only web changes; a key left out is no limit
	db=$(state_of db)
	sed -i "s/^limit web .*/limit web $DISK write-bps=4M/" "$CONF"
	run -0 rm-storage apply -o limit,write_bps,read_iops
	assert_output - <<-EOF2
	source=$CONF:2 setting=limit owner=web disk=$DISK action=set
	source=$CONF:3 setting=limit owner=db disk=$DISK action=keep
	limit=web write_bps=4MiB read_iops=max
	limit=db write_bps=max read_iops=max
	EOF2
	assert_equal "$(cat "$P/web/io.max")" "$DEVNO rbps=max wbps=4194304 riops=max wiops=max"
	assert_equal "$(cat "$P/db/io.weight")" "$DEVNO 200"
	assert_equal "$(state_of db)" "$db"
	[[ $(state_of web) == "limit=web disk=$DISK devno=$DEVNO read_bps=- write_bps=4194304 read_iops=- "* ]]
}

@test "conf: a dropped line lifts its limits; hand-made limits stay; one the file names is taken over" {
	make_v2 web db hand
	run -0 rm-storage limit hand "$DISK" --read-bps 1M
	hand=$(state_of hand)
	printf 'limit web %s write-bps=2M\nlimit db %s write-iops=100\n' "$DISK" "$DISK" >"$CONF"
	run -0 rm-storage apply -o limit
	assert_output - <<-EOF2
	source=$CONF:1 setting=limit owner=web disk=$DISK action=set
	source=$CONF:2 setting=limit owner=db disk=$DISK action=set
	limit=hand
	limit=web
	limit=db
	EOF2
	# web's line dropped: its limits lifted and forgotten
	printf 'limit db %s write-iops=100\n' "$DISK" >"$CONF"
	run -0 rm-storage apply -o limit
	assert_output - <<-EOF2
	source=- setting=limit owner=web disk=$DISK action=remove
	source=$CONF:1 setting=limit owner=db disk=$DISK action=keep
	limit=hand
	limit=db
	EOF2
	assert_equal "$(cat "$P/web/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=max"
	assert_equal "$(cat "$P/db/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=100"
	run -1 state_of web
	# an empty file lifts what the file made, and only that
	: >"$CONF"
	run -0 rm-storage apply -o limit
	assert_output - <<-EOF2
	source=- setting=limit owner=db disk=$DISK action=remove
	limit=hand
	EOF2
	assert_equal "$(cat "$P/db/io.max")" "$DEVNO rbps=max wbps=max riops=max wiops=max"
	assert_equal "$(state_of hand)" "$hand"
	assert_equal "$(cat "$P/hand/io.max")" "$DEVNO rbps=1048576 wbps=max riops=max wiops=max"
	# a hand-made limit on an owner and disk the file gives becomes the line's, whole
	printf 'limit hand %s write-bps=3M\n' "$DISK" >"$CONF"
	run -0 rm-storage apply -o limit,read_bps,write_bps
	assert_output - <<-EOF2
	source=$CONF:1 setting=limit owner=hand disk=$DISK action=set
	limit=hand read_bps=max write_bps=3MiB
	EOF2
	assert_equal "$(cat "$P/hand/io.max")" "$DEVNO rbps=max wbps=3145728 riops=max wiops=max"
	[[ $(state_of hand) =~ \ conf=[0-9a-f]{16}$ ]]
	# limit by hand on it makes it hand-made again: the next apply sets the line's values
	run -0 rm-storage limit hand "$DISK" --read-bps 2M -o read_bps,write_bps
	assert_output "read_bps=2MiB write_bps=3MiB"
	[[ $(state_of hand) != *conf=* ]]
	run -0 rm-storage apply -o limit,read_bps,write_bps
	assert_output - <<-EOF2
	source=$CONF:1 setting=limit owner=hand disk=$DISK action=set
	limit=hand read_bps=max write_bps=3MiB
	EOF2
	assert_equal "$(cat "$P/hand/io.max")" "$DEVNO rbps=max wbps=3145728 riops=max wiops=max"
}

@test "conf: every error names FILE:LINE:COLUMN, exits 2 and changes nothing" {
	make_v2 web db
	printf 'limit web %s write-bps=1M\n' "$DISK" >"$CONF"
	run -0 rm-storage apply
	cp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
	# bad LINE PREFIX MESSAGE: LINE (@D: the disk) after a line that would change web's limit;
	# the error is at the column after PREFIX
	bad() {
		local line=${1//@D/$DISK} prefix=${2//@D/$DISK}
		printf 'limit web %s write-bps=9M\n%s\n' "$DISK" "$line" >"$CONF"
		run -2 --separate-stderr rm-storage apply
		assert_equal "$output" ""
		assert_equal "$stderr" "rm-storage: $CONF:2:$((${#prefix} + 1)): $3"
		cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
		assert_equal "$(cat "$P/web/io.max")" "$DEVNO rbps=max wbps=1048576 riops=max wiops=max"
		assert_equal "$(cat "$P/db/io.max")" ""
	}
	bad 'limit db @D bogus=1' 'limit db @D ' "unknown setting: 'bogus' (rm-storage.conf(5))"
	bad 'limit db @D --write-bps=1M' 'limit db @D ' "unknown setting: '--write-bps' (rm-storage.conf(5))"
	bad 'limit db @D write-bps=2X' 'limit db @D write-bps=' "--write-bps: invalid size: '2X'"
	bad 'limit db @D read-iops=-5' 'limit db @D read-iops=' "--read-iops: invalid number: '-5'"
	bad 'limit db @D write-bps=1M read-iops=0' 'limit db @D write-bps=1M read-iops=' \
		"--read-iops: zero would stop all I/O (give max for no limit): '0'"
	bad 'limit db @D weight=20000' 'limit db @D weight=' "--weight out of range (1-10000): '20000'"
	bad 'limit db @D write-bps=1M write-bps=2M' 'limit db @D write-bps=1M ' "given twice: 'write-bps'"
	bad 'limit db @D write-bps' 'limit db @D ' "expected key=value: 'write-bps'"
	bad 'limit db @D =1M' 'limit db @D ' "expected key=value: '=1M'"
	bad 'limit db @D' '' "missing a limit: read-bps=, write-bps=, read-iops=, write-iops=, weight= or latency-target="
	bad 'limit db @D write-bps=max weight=max' '' "every limit is max: the line limits nothing"
	bad 'limit db' '' "missing the device"
	bad 'limit db write-bps=1M' '' "missing the device"
	bad 'limit' '' "missing the owner's name"
	bad 'limit -x @D write-bps=1M' 'limit ' "invalid owner name: '-x'"
	bad 'limit shared @D write-bps=1M' 'limit ' "invalid owner name: 'shared' names rm-cpuset's shared pool"
	bad 'owner db count=1' '' "unknown setting: 'owner' (limit)"
	bad 'limit db nosuchdisk write-bps=1M' 'limit db ' "unknown block device: 'nosuchdisk'"
	bad 'limit db ../@D write-bps=1M' 'limit db ' "not a block device: '../$DISK'"
	bad 'limit web @D read-bps=1M' 'limit web ' "the limit of owner 'web' on disk '$DISK' is set on line 1 already"
	if [ -b "/dev/$DISK" ]; then
		bad 'limit web /dev/@D read-bps=1M' 'limit web ' \
			"the limit of owner 'web' on disk '$DISK' is set on line 1 already"
	fi
	# an owner rm-cpuset has no cgroup for yet
	bad 'limit batch @D write-bps=1M' 'limit ' "no rm-cpuset owner of that name: 'batch' (cpuset and io share the unified hierarchy here, so an owner's I/O limits live in its rm-cpuset cgroup: make the owner first with rm-cpuset alloc --owner batch --shared, or --count N for exclusive CPUs)"
	# the first error in the file is the one reported
	printf 'limit db %s bogus=1\nlimit db %s weight=x\n' "$DISK" "$DISK" >"$CONF"
	run -2 rm-storage apply
	prefix="limit db $DISK "
	assert_output "rm-storage: $CONF:1:$((${#prefix} + 1)): unknown setting: 'bogus' (rm-storage.conf(5))"
	# a missing file named on the command line
	run -2 rm-storage apply "$BATS_TEST_TMPDIR/none.conf"
	assert_output "rm-storage: cannot read $BATS_TEST_TMPDIR/none.conf: No such file or directory"
	# an operand too many
	run -2 --separate-stderr rm-storage apply "$CONF" "$CONF"
	[[ ${stderr_lines[0]} == "rm-storage apply: unexpected argument: '$CONF'" ]]
	cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
}

@test "conf: cgroup v1: the blkio files; a dropped line lifts them; what v1 lacks is refused at its key" {
	make_v1 web
	printf 'limit web %s read-bps=4M write-iops=10\n' "$DISK" >"$CONF"
	run -0 rm-storage apply -o limit,read_bps,write_iops,applied
	assert_output - <<-EOF2
	source=$CONF:1 setting=limit owner=web disk=$DISK action=set
	limit=web read_bps=4MiB write_iops=10 applied=yes
	EOF2
	assert_equal "$(cat "$P/web/blkio.throttle.read_bps_device")" "$DEVNO 4194304"
	assert_equal "$(cat "$P/web/blkio.throttle.write_iops_device")" "$DEVNO 10"
	cp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
	prefix="limit web $DISK read-bps=4M latency-target="
	echo "${prefix}100" >"$CONF"
	run -2 rm-storage apply
	assert_output "rm-storage: $CONF:1:$((${#prefix} + 1)): --latency-target needs cgroup v2 (io.latency)"
	prefix="limit web $DISK weight="
	echo "${prefix}100" >"$CONF"
	run -2 rm-storage apply
	assert_output "rm-storage: $CONF:1:$((${#prefix} + 1)): --weight needs blkio.bfq.weight_device (BFQ) or blkio.weight_device (CFQ)"
	cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
	assert_equal "$(cat "$P/web/blkio.throttle.read_bps_device")" "$DEVNO 4194304"
	# dropped: lifted, forgotten, and the cgroup, rm-storage's alone, removed when it can be
	: >"$CONF"
	run -0 --separate-stderr rm-storage apply
	assert_output "source=- setting=limit owner=web disk=$DISK action=remove"
	assert_equal "$(cat "$P/web/blkio.throttle.read_bps_device")" "$DEVNO 0"
	assert_equal "$(cat "$P/web/blkio.throttle.write_iops_device")" "$DEVNO 0"
	# (a tree's directory holds files: it stays, which a note says)
	assert_equal "$stderr" "rm-storage: note: cannot remove $P/web: Directory not empty"
	run -0 rm-storage show
	assert_output ""
}

@test "conf: --dry-run prints the plan and changes nothing; without a file apply keeps the records; standard input" {
	make_v2 web
	printf 'limit web %s write-bps=1M\n' "$DISK" >"$CONF"
	run -0 rm-storage apply --dry-run -o limit,write_bps,applied
	assert_output - <<-EOF2
	source=$CONF:1 setting=limit owner=web disk=$DISK action=set
	limit=web write_bps=1MiB applied=-
	EOF2
	[ ! -e "$RM_STATE_DIR/storage.state" ]
	assert_equal "$(cat "$P/web/io.max")" ""
	run -0 rm-storage apply -o limit,write_bps
	assert_line "limit=web write_bps=1MiB"
	cp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
	# without the file: the recorded limits set again, as before there were files
	rm "$CONF"
	: >"$P/web/io.max"
	run -0 rm-storage apply -o limit,write_bps,applied
	assert_output "limit=web write_bps=1MiB applied=yes"
	assert_equal "$(cat "$P/web/io.max")" "$DEVNO rbps=max wbps=1048576 riops=max wiops=max"
	cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
	# standard input, planned only
	run -0 rm-storage apply --dry-run -o limit,write_bps - <<<"limit web $DISK write-bps=2M"
	assert_output - <<-EOF2
	source="(standard input):1" setting=limit owner=web disk=$DISK action=set
	limit=web write_bps=2MiB
	EOF2
	run -0 rm-storage apply --dry-run -o limit - </dev/null
	assert_output "source=- setting=limit owner=web disk=$DISK action=remove"
	cmp "$RM_STATE_DIR/storage.state" "$BATS_TEST_TMPDIR/before"
	assert_equal "$(cat "$P/web/io.max")" "$DEVNO rbps=max wbps=1048576 riops=max wiops=max"
	# JSON: the settings and the limits in one document
	run -0 rm-storage apply --dry-run -J -o limit - <<<"limit web $DISK write-bps=2M"
	[[ $output == *'"settings": ['*'"action": "set"'*'"limits": ['*'"limit": "web"'* ]]
}
