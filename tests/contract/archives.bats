#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Snapshot archives given as --sysroot: a full TMPDIR, bombs, signals and killed runs leave no
# wrong machine and nothing behind; an interrupted rm-topo snapshot leaves no partial output.
load ../test_helper

setup() {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$TMPDIR"
	BOX=$BATS_TEST_TMPDIR/box.tar.gz
	PIDS=()
	SMALL=
}

teardown() {
	local p

	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	if [ -n "$SMALL" ] && mountpoint -q "$SMALL"; then
		umount "$SMALL"
	fi
}

# This machine's snapshot as $BOX.
make_box() {
	rm-topo snapshot "$BOX" >/dev/null
}

# The private folders of --sysroot archives in $TMPDIR, one a line.
unpacked() {
	ls -A "$TMPDIR" | grep '^rmtools-sysroot\.' || true
}

# Wait (20 s at most) until PID has unpacked its archive into a folder in $TMPDIR not among
# BEFORE (the folders there before it started): its name in $DIR.
wait_unpacked() {
	local pid=$1 before=$2 i

	for i in $(seq 200); do
		DIR=$(comm -13 <(printf '%s\n' "$before") <(unpacked))
		[ -n "$DIR" ] && [ -d "$TMPDIR/$DIR/box/sys" ] && sleep 0.2 && return 0
		kill -0 "$pid" 2>/dev/null || fail "process $pid ended before it unpacked"
		sleep 0.1
	done
	fail "process $pid did not unpack its archive in 20 seconds"
}

# Wait (20 s at most) until PID has ended; its exit status in $STATUS.
wait_ended() {
	local pid=$1

	timeout 20 tail --pid="$pid" -f /dev/null || fail "process $pid still runs after 20 seconds"
	STATUS=0
	wait "$pid" || STATUS=$?
}

# `rm-qos watch --sysroot $BOX` in the background, its pid in $PID. Background jobs of a script
# start with SIGINT and SIGQUIT ignored: env gives them their default action back.
start_watch() {
	local before

	before=$(unpacked)
	env --default-signal=INT,QUIT rm-qos watch --sysroot "$BOX" >/dev/null 2>&1 &
	PID=$!
	PIDS+=("$PID")
	wait_unpacked "$PID" "$before"
}

# A gzipped tar FILE with a small snapshot and a file snap/zero of MIB MiB of zeros.
bomb() {
	python3 - "$1" "$SNAPSHOTS/x86-2s-smt" "$2" <<'PY'
import io, sys, tarfile
out, snap, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
class Zeros(io.RawIOBase):
    def __init__(self, n):
        self.left = n
    def readable(self):
        return True
    def readinto(self, b):
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n
with tarfile.open(out, "w:gz") as t:
    t.add(snap, arcname="snap")
    info = tarfile.TarInfo("snap/zero")
    info.size = mib << 20
    t.addfile(info, io.BufferedReader(Zeros(info.size), 1 << 20))
PY
}

@test "--sysroot FILE.tar.gz in a TMPDIR too small for it: exit 1 naming archive and member, no machine" {
	require_root
	SMALL=$BATS_TEST_TMPDIR/small
	mkdir "$SMALL"
	mount -t tmpfs -o size=1m,mode=1777 rmtools-test "$SMALL"
	bomb "$BATS_TEST_TMPDIR/big.tar.gz" 2
	for cmd in "rm-topo" "rm-topo cpus" "rm-qos show"; do
		TMPDIR=$SMALL run -1 --separate-stderr timeout 20 $cmd --sysroot "$BATS_TEST_TMPDIR/big.tar.gz"
		assert_output ""
		[[ $stderr =~ ^rm-[a-z]+:\ cannot\ unpack\ \'snap/[^\']+\'\ from\ \'$BATS_TEST_TMPDIR/big.tar.gz\'\ into\ \'$SMALL/rmtools-sysroot\.[0-9]+\.[A-Za-z0-9]{6}\':\ No\ space\ left\ on\ device$ ]] ||
			fail "$cmd: $stderr"
		assert_equal "$(ls -A "$SMALL")" ""
	done
	# the same archive where there is room
	run -0 timeout 20 rm-topo --sysroot "$BATS_TEST_TMPDIR/big.tar.gz" -o cpus
	assert_line -n 0 "cpus=8"
	assert_equal "$(unpacked)" ""
}

@test "--sysroot of an archive bomb: refused past RM_ARCHIVE_MAX_SIZE, nothing written; the variable raises it" {
	local b=$BATS_TEST_TMPDIR/bomb.tar.gz

	bomb "$b" 300
	[ "$(stat -c %s "$b")" -lt 1048576 ] || fail "the bomb is not small"
	run -2 --separate-stderr timeout 20 rm-topo --sysroot "$b" cpus
	assert_output ""
	assert_equal "$stderr" "rm-topo: snapshot archive too large: '$b': more than 256MiB unpacked at 'snap/zero' (RM_ARCHIVE_MAX_SIZE raises the limit)"
	assert_equal "$(unpacked)" ""
	# a smaller one against a lower limit, then a higher one
	bomb "$b" 3
	RM_ARCHIVE_MAX_SIZE=2MiB run -2 --separate-stderr timeout 20 rm-topo --sysroot "$b" cpus
	assert_equal "$stderr" "rm-topo: snapshot archive too large: '$b': more than 2MiB unpacked at 'snap/zero' (RM_ARCHIVE_MAX_SIZE raises the limit)"
	RM_ARCHIVE_MAX_SIZE=4M run -0 timeout 20 rm-topo --sysroot "$b" -o cpus
	assert_line -n 0 "cpus=8"
	assert_equal "$(unpacked)" ""
}

@test "--sysroot: RM_ARCHIVE_MAX_ENTRIES bounds the entries; bad limits are usage errors" {
	local n

	make_box
	n=$(tar -tzf "$BOX" | wc -l)
	RM_ARCHIVE_MAX_ENTRIES=$((n - 1)) run -2 --separate-stderr timeout 20 rm-topo --sysroot "$BOX"
	[[ $stderr == "rm-topo: snapshot archive too large: '$BOX': more than $((n - 1)) entries at '"*"' (RM_ARCHIVE_MAX_ENTRIES raises the limit)" ]] ||
		fail "$stderr"
	assert_equal "$(unpacked)" ""
	RM_ARCHIVE_MAX_ENTRIES=$n run -0 timeout 20 rm-topo --sysroot "$BOX" -o cpus
	usage_error "invalid RM_ARCHIVE_MAX_ENTRIES: 'many'" env RM_ARCHIVE_MAX_ENTRIES=many rm-topo --sysroot "$BOX"
	usage_error "invalid RM_ARCHIVE_MAX_SIZE: '1q'" env RM_ARCHIVE_MAX_SIZE=1q rm-topo --sysroot "$BOX"
	assert_equal "$(unpacked)" ""
}

@test "--sysroot FILE.tar.gz: SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE leave no unpacked folder" {
	local sig

	make_box
	for sig in INT TERM HUP QUIT PIPE; do
		start_watch
		assert_equal "$(unpacked)" "$DIR"
		kill -s "$sig" "$PID"
		wait_ended "$PID"
		# killed by the signal itself, as a shell expects
		assert_equal "$STATUS" "$((128 + $(kill -l "$sig")))"
		assert_equal "$(unpacked)" ""
	done
}

@test "--sysroot FILE.tar.gz: what a killed run left is removed by the next, a live run's is kept" {
	local dead live

	make_box
	start_watch
	dead=$DIR
	kill -9 "$PID"
	wait_ended "$PID"
	assert_equal "$(unpacked)" "$dead"
	start_watch
	# named like one but not made by a run: another's mode, a link, a file
	mkdir -m 0755 "$TMPDIR/rmtools-sysroot.$PID.AAAAAA"
	ln -s / "$TMPDIR/rmtools-sysroot.$PID.BBBBBB"
	touch "$TMPDIR/rmtools-sysroot.$PID.CCCCCC"
	kill -TERM "$PID"
	wait_ended "$PID"
	run -0 timeout 20 rm-topo --sysroot "$BOX" -o cpus
	assert_equal "$(unpacked)" "rmtools-sysroot.$PID.AAAAAA
rmtools-sysroot.$PID.BBBBBB
rmtools-sysroot.$PID.CCCCCC"
	# a live run's folder stays
	start_watch
	live=$DIR
	run -0 timeout 20 rm-topo --sysroot "$BOX" -o cpus
	unpacked | grep -q -x "$live" || fail "the folder of a live run was removed"
	kill -TERM "$PID"
	wait_ended "$PID"
}

# rm-topo snapshot DEST in the background, each file open slowed down; the snapshot's own pid
# in $PID once it has started writing, strace's in $TRACER.
slow_snapshot() {
	local i

	strace -qq -f -o /dev/null -e trace=openat -e inject=openat:delay_exit=100 \
		rm-topo snapshot "$1" >/dev/null 2>&1 &
	TRACER=$!
	PIDS+=("$TRACER")
	for i in $(seq 200); do
		PID=$(pgrep -P "$TRACER" -x rm-topo || true)
		[ -n "$PID" ] && compgen -G "$2" >/dev/null && return 0
		sleep 0.1
	done
	fail "rm-topo snapshot did not start writing in 20 seconds"
}

@test "rm-topo snapshot ended by a signal leaves neither partial output nor its working folder" {
	local t=$BATS_TEST_TMPDIR/w sig

	mkdir "$t"
	for sig in TERM HUP; do
		slow_snapshot "$t/a.tar.gz" "$t/.rm-topo-snapshot.*/*/sys"
		kill -s "$sig" "$PID"
		wait_ended "$TRACER"
		assert_equal "$(ls -A "$t")" ""
		slow_snapshot "$t/d" "$t/d/sys"
		kill -s "$sig" "$PID"
		wait_ended "$TRACER"
		assert_equal "$(ls -A "$t")" ""
	done
}

@test "--sysroot FILE.tar.gz with output into a device or a FIFO: the unpacked folder still goes at exit" {
	make_box
	mknod "$BATS_TEST_TMPDIR/null" c 1 3
	run -0 rm-topo --sysroot "$BOX" draw --svg "$BATS_TEST_TMPDIR/null"
	run -0 rm-topo --sysroot "$BOX" export nfd -o "$BATS_TEST_TMPDIR/null"
	[ -c "$BATS_TEST_TMPDIR/null" ]
	assert_equal "$(unpacked)" ""
}
