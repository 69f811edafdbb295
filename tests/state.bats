#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The state module: locking, checksums, atomic replacement, refusal of corrupt or unsafe state.
load test_helper

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	ts="$RM_BUILDDIR/tests/unit/test-state"
}

@test "state: a state never written reads as empty, and is not created by reading" {
	run -0 "$ts" demo count
	assert_output 0
	[ ! -e "$RM_STATE_DIR" ]
}

@test "state: records survive a round trip, with quoting" {
	run -0 "$ts" demo add owner web cpus=2-5 "note=a b \"c\""
	run -0 "$ts" demo add owner db cpus=6
	run -0 "$ts" demo list
	assert_line --index 0 'owner=web cpus=2-5 note="a b \"c\""'
	assert_line --index 1 'owner=db cpus=6'
	run -0 head -n 1 "$RM_STATE_DIR/demo.state"
	assert_output --regexp '^rmtools_state=demo version=1 records=2 checksum=[0-9a-f]{8}$'
	run -0 "$ts" demo remove owner web
	run -0 "$ts" demo list
	assert_output 'owner=db cpus=6'
	run -3 "$ts" demo remove owner web
}

@test "state: the directory and file are writable by their owner only" {
	run -0 "$ts" demo add owner web
	run -0 stat -c %a "$RM_STATE_DIR" "$RM_STATE_DIR/demo.state"
	assert_line --index 0 755
	assert_line --index 1 644
	# no temporary files are left behind
	run -0 find "$RM_STATE_DIR" -name '.*'
	assert_output ''
}

@test "state: a corrupt file is refused with its path and reason, and left as it was" {
	run -0 "$ts" demo add owner web cpus=2
	sed -i 's/cpus=2/cpus=3/' "$RM_STATE_DIR/demo.state"
	cp "$RM_STATE_DIR/demo.state" "$BATS_TEST_TMPDIR/before"
	run -1 "$ts" demo add owner db
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/demo.state': checksum mismatch"
	run -1 "$ts" demo list
	cmp "$RM_STATE_DIR/demo.state" "$BATS_TEST_TMPDIR/before"
}

@test "state: truncated, foreign and newer files are refused" {
	run -0 "$ts" demo add owner web cpus=2
	run -0 "$ts" demo add owner db cpus=3
	head -c -5 "$RM_STATE_DIR/demo.state" > "$BATS_TEST_TMPDIR/t" && cp "$BATS_TEST_TMPDIR/t" "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output --partial "corrupt state file"
	echo '{"policyName":"static"}' > "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output "test-state: not an rmtools state file: '$RM_STATE_DIR/demo.state'"
	printf 'rmtools_state=other version=1 records=0 checksum=00000000\n' > "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output --partial "holds 'other' state, not 'demo'"
	printf 'rmtools_state=demo version=9 records=0 checksum=00000000\n' > "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output --partial "has version 9; this rmtools reads version 1"
}

@test "state: a world-writable directory or a symlinked state file is refused" {
	mkdir -m 0777 "$RM_STATE_DIR"
	chmod 0777 "$RM_STATE_DIR"
	run -1 "$ts" demo add owner web
	assert_output --partial "unsafe state directory"
	chmod 0755 "$RM_STATE_DIR"
	echo x > "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo add owner web
	assert_output --partial "cannot read '$RM_STATE_DIR/demo.state'"
	run -0 cat "$BATS_TEST_TMPDIR/elsewhere"
	assert_output x
}

@test "state: 64 concurrent writers lose no update" {
	for i in $(seq 1 64); do "$ts" demo add owner "o$i" & done
	wait
	run -0 "$ts" demo count
	assert_output 64
	run -0 "$ts" demo list
	[ "$(printf '%s\n' "$output" | sort -u | wc -l)" -eq 64 ]
}

@test "state: kill -9 at random points never leaves a corrupt or half-written file" {
	for i in $(seq 1 100); do
		"$ts" demo add owner "k$i" & pid=$!
		sleep "0.00$((RANDOM % 9))"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		# whatever happened, the file reads back whole
		"$ts" demo count >/dev/null || { "$ts" demo list; false; }
	done
	n=$("$ts" demo count)
	[ "$n" -ge 0 ] && [ "$n" -le 100 ]
}

@test "names: what users may call an owner or a class" {
	for good in a web-1 db_2.x A9 "$(printf 'x%.0s' $(seq 64))"; do
		run -0 "$ts" valid "$good"
	done
	for bad in '' -web .hidden ../etc a/b 'a b' "$(printf 'x%.0s' $(seq 65))" 'é'; do
		run -1 "$ts" valid "$bad"
	done
}
