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
	run -0 stat -c %a "$RM_STATE_DIR" "$RM_STATE_DIR/demo.state" "$RM_STATE_DIR/demo.lock"
	assert_line --index 0 755
	assert_line --index 1 644
	assert_line --index 2 600
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
	assert_output "test-state: cannot read '$RM_STATE_DIR/demo.state': it is a symlink"
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

# ---- locks ----

# Hold the lock file $1 (created 0600 when missing) in the background until the test ends; the
# holder's pid in $holder. hold LOCKFILE [sh|ex]
hold() {
	"$PY" -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_SH if sys.argv[3] == "sh" else fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(60)' "$1" "$BATS_TEST_TMPDIR/held" "${2:-ex}" 3>&- &
	holder=$!
	for _ in $(seq 1 200); do [ -e "$BATS_TEST_TMPDIR/held" ] && break; sleep 0.05; done
	[ -e "$BATS_TEST_TMPDIR/held" ]
	rm "$BATS_TEST_TMPDIR/held"
}

teardown() {
	[ -z "${holder:-}" ] || { kill "$holder" 2>/dev/null || true; wait "$holder" 2>/dev/null || true; }
	# the machine as it was: rm-hugepages' lock directory only when this test made it
	[ -z "${made_run_dir:-}" ] || rm -rf /run/rmtools
}

# A directory that user nobody can reach, for $RM_STATE_DIR.
public_state_dir() {
	local d=$BATS_TEST_TMPDIR
	while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
}

# bats test_tags=root
@test "lock: the state's lock file is 0600: another user can neither read nor hold it" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (runuser)"
	public_state_dir
	run -0 "$ts" demo add owner web
	run -0 stat -c '%a %u' "$RM_STATE_DIR/demo.lock"
	assert_output '600 0'
	# nobody reaches the directory and reads the state, but cannot open the lock to block root
	run -0 runuser -u nobody -- cat "$RM_STATE_DIR/demo.state"
	run runuser -u nobody -- flock -n -s "$RM_STATE_DIR/demo.lock" true
	[ "$status" -ne 0 ]
	assert_output --partial 'Permission denied'
	# and reads the state without it
	run -0 runuser -u nobody -- env RM_STATE_DIR="$RM_STATE_DIR" "$ts" demo list
	assert_output 'owner=web'
	# a lock file of a wider mode (an earlier rmtools made them 0644) is not held by others, and
	# is narrowed by its owner
	chmod 0644 "$RM_STATE_DIR/demo.lock"
	run -0 runuser -u nobody -- env RM_STATE_DIR="$RM_STATE_DIR" "$ts" demo list
	assert_output 'owner=web'
	run -0 stat -c %a "$RM_STATE_DIR/demo.lock"
	assert_output 644
	run -0 "$ts" demo add owner db
	run -0 stat -c %a "$RM_STATE_DIR/demo.lock"
	assert_output 600
}

@test "lock: a held lock names its holder and gives up after --wait with exit 3" {
	run -0 "$ts" demo add owner web
	hold "$RM_STATE_DIR/demo.lock"
	SECONDS=0
	RM_LOCK_WAIT=1 run -3 timeout 20 "$ts" demo add owner db
	assert_output "test-state: lock still held by pid $holder after 1 s: '$RM_STATE_DIR/demo.lock'"
	[ "$SECONDS" -lt 5 ]
	kill "$holder"
	wait "$holder" || true
	run -0 "$ts" demo list
	assert_output 'owner=web'
	# --wait 0 fails at once; a tool's option, before or after the command, beats RM_LOCK_WAIT
	hold "$RM_STATE_DIR/cpuset.lock"
	SECONDS=0
	RM_LOCK_WAIT=60 run -3 timeout 20 rm-cpuset --topology "core:2 pu:1" --wait 0 alloc --count 1 --owner x
	assert_output "rm-cpuset: lock still held by pid $holder after 0 s: '$RM_STATE_DIR/cpuset.lock'"
	RM_LOCK_WAIT=60 run -3 timeout 20 rm-cpuset --topology "core:2 pu:1" alloc --wait 1 --count 1 --owner x
	assert_output "rm-cpuset: lock still held by pid $holder after 1 s: '$RM_STATE_DIR/cpuset.lock'"
	[ "$SECONDS" -lt 10 ]
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
}

@test "lock: a waiting command says once which pid holds the lock, and goes on when it is free" {
	mkdir -m 0755 "$RM_STATE_DIR"
	hold "$RM_STATE_DIR/cpuset.lock"
	( sleep 3; kill "$holder" ) &
	run -0 --separate-stderr timeout 30 rm-cpuset --topology "core:2 pu:1" --wait 20 alloc --count 1 --owner x -o owner,cpus
	assert_output 'owner=x cpus=0'
	assert_equal "$stderr" "rm-cpuset: waiting up to 20 s for the lock held by pid $holder: '$RM_STATE_DIR/cpuset.lock'"
	wait
}

@test "lock: readers share the lock; a writer waits for them" {
	run -0 "$ts" demo add owner web
	hold "$RM_STATE_DIR/demo.lock" sh
	run -0 timeout 20 "$ts" demo list
	assert_output 'owner=web'
	RM_LOCK_WAIT=0.2 run -3 timeout 20 "$ts" demo add owner db
	assert_output --partial "lock still held by pid $holder after 0.2 s"
}

@test "lock: a FIFO, a symlink or a hard link at the lock path is refused, never waited on" {
	mkdir -m 0755 "$RM_STATE_DIR"
	mkfifo "$RM_STATE_DIR/demo.lock"
	run -1 timeout 10 "$ts" demo add owner web
	assert_output "test-state: lock file is not a regular file: '$RM_STATE_DIR/demo.lock'"
	run -1 timeout 10 "$ts" demo list
	assert_output "test-state: lock file is not a regular file: '$RM_STATE_DIR/demo.lock'"
	rm "$RM_STATE_DIR/demo.lock"
	touch "$BATS_TEST_TMPDIR/victim"
	ln -s "$BATS_TEST_TMPDIR/victim" "$RM_STATE_DIR/demo.lock"
	run -1 timeout 10 "$ts" demo add owner web
	assert_output "test-state: lock file is a symlink: '$RM_STATE_DIR/demo.lock'"
	rm "$RM_STATE_DIR/demo.lock"
	ln "$BATS_TEST_TMPDIR/victim" "$RM_STATE_DIR/demo.lock"
	run -1 timeout 10 "$ts" demo add owner web
	assert_output "test-state: lock file has other links: '$RM_STATE_DIR/demo.lock'"
	run -0 stat -c %a "$BATS_TEST_TMPDIR/victim"
	assert_output 644
	[ ! -e "$RM_STATE_DIR/demo.state" ]
}

@test "state: a FIFO at the state path is refused, never read" {
	run -0 "$ts" demo add owner web
	rm "$RM_STATE_DIR/demo.state"
	mkfifo "$RM_STATE_DIR/demo.state"
	run -1 timeout 10 "$ts" demo list
	assert_output "test-state: cannot read '$RM_STATE_DIR/demo.state': not a regular file"
	run -1 timeout 10 "$ts" demo add owner db
	assert_output "test-state: cannot read '$RM_STATE_DIR/demo.state': not a regular file"
	[ -p "$RM_STATE_DIR/demo.state" ]
	rm "$RM_STATE_DIR/demo.state"
	mkfifo "$RM_STATE_DIR/cpuset.state"
	run -1 timeout 10 rm-cpuset --topology "core:2 pu:1" list
	assert_output --partial "cannot read '$RM_STATE_DIR/cpuset.state': not a regular file"
}

@test "lock: --wait and RM_LOCK_WAIT take seconds; anything else is exit 2" {
	for bad in x -1 1e3 inf '' 1.2.3 86401 0x10; do
		run -2 rm-cpuset --topology "core:2 pu:1" --wait "$bad" list
		assert_output "rm-cpuset: invalid --wait: '$bad' (seconds, from 0 to 86400)"
		RM_LOCK_WAIT=$bad run -2 rm-devices list-allocations
		assert_output "rm-devices: invalid RM_LOCK_WAIT: '$bad' (seconds, from 0 to 86400)"
	done
	run -0 rm-cpuset --topology "core:2 pu:1" --wait 0.5 list
	RM_LOCK_WAIT=2.5 run -0 rm-devices list-allocations
	[ ! -e "$RM_STATE_DIR/cpuset.state" ]
}

# bats test_tags=root
@test "lock: rm-hugepages' lock is 0600 in a 0700 directory; held, it is waited for with --wait" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ -d /sys/kernel/mm/hugepages/hugepages-2048kB ] || skip "no 2 MiB huge pages"
	[ -e /run/rmtools ] || made_run_dir=1
	# +0 surplus pages: takes the lock, changes nothing
	run -0 rm-hugepages overcommit 2M +0 -o pool -r
	assert_output 2MiB
	run -0 stat -c '%a %u %F' /run/rmtools /run/rmtools/hugepages.lock
	assert_line --index 0 '700 0 directory'
	assert_line --index 1 '600 0 regular empty file'
	run runuser -u nobody -- flock -n /run/rmtools/hugepages.lock true
	[ "$status" -ne 0 ]
	assert_output --partial 'Permission denied'
	hold /run/rmtools/hugepages.lock
	SECONDS=0
	run -3 timeout 20 rm-hugepages --wait 1 overcommit 2M +0
	assert_output "rm-hugepages: lock still held by pid $holder after 1 s: '/run/rmtools/hugepages.lock'"
	[ "$SECONDS" -lt 5 ]
	kill "$holder"
	wait "$holder" || true
	# a FIFO at the lock path is refused at once, and left for the admin to see
	rm /run/rmtools/hugepages.lock
	mkfifo -m 0600 /run/rmtools/hugepages.lock
	run -1 timeout 10 rm-hugepages overcommit 2M +0
	assert_output "rm-hugepages: lock file is not a regular file: '/run/rmtools/hugepages.lock'"
	rm /run/rmtools/hugepages.lock
}

# ---- the state's directory ----

@test "state: a relative or empty RM_STATE_DIR is exit 2" {
	cd "$BATS_TEST_TMPDIR"
	RM_STATE_DIR=rel run -2 "$ts" demo add owner web
	assert_output "test-state: RM_STATE_DIR must be an absolute directory: 'rel'"
	[ ! -e rel ]
	RM_STATE_DIR= run -2 "$ts" demo list
	assert_output "test-state: RM_STATE_DIR must be an absolute directory: ''"
	RM_STATE_DIR=rel run -2 rm-cpuset --topology "core:2 pu:1" alloc --count 1 --owner x
	assert_output "rm-cpuset: RM_STATE_DIR must be an absolute directory: 'rel'"
	RM_STATE_DIR= run -2 rm-devices list-allocations
	assert_output "rm-devices: RM_STATE_DIR must be an absolute directory: ''"
}

# ---- content: whole files (valid checksum) with bad records ----

# A state file NAME whose records are stdin, with a valid header and checksum: raw NAME <RECORDS
raw() {
	mkdir -p -m 0755 "$RM_STATE_DIR"
	"$ts" raw "$1"
}

# The state NAME is refused with MESSAGE by test-state and left as it was: refused NAME MESSAGE
refused() {
	cp "$RM_STATE_DIR/$1.state" "$BATS_TEST_TMPDIR/before"
	run -1 "$ts" "$1" list
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/$1.state': $2"
	run -1 "$ts" "$1" add owner zz cpus=99
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/$1.state': $2"
	cmp "$RM_STATE_DIR/$1.state" "$BATS_TEST_TMPDIR/before"
}

@test "state: a whole cpuset state with a duplicate owner is refused" {
	raw cpuset <<-'EOF'
	owner=web cpus=0-1 mems=0
	owner=web cpus=2 mems=0
	EOF
	refused cpuset "line 3: owner 'web' is also on line 2"
	# rm-cpuset itself: exit 1, the same reason and what to do
	run -1 rm-cpuset --topology "core:4 pu:1" list
	assert_output "rm-cpuset: corrupt state file '$RM_STATE_DIR/cpuset.state': line 3: owner 'web' is also on line 2; restore it from a backup, or move it away to start empty (rm-cpuset(1), STATE)"
	run -1 rm-cpuset --topology "core:4 pu:1" alloc --count 1 --owner db
	cmp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/before"
}

@test "state: an owner named ../../etc is refused" {
	raw cpuset <<<'owner=../../etc cpus=0'
	refused cpuset "line 2: invalid owner name: '../../etc'"
	raw devices <<<'device=0000:1a:00.0 owner=../../etc type=gpu'
	refused devices "line 2: invalid owner name: '../../etc'"
	raw devices <<<'device=0000:1a:00.0 type=gpu'
	refused devices "line 2: no 'owner' field"
}

@test "state: one CPU held by two owners is refused" {
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=web cpus=0-1
	owner=db cpus=1-2
	EOF
	refused cpuset "line 4: CPUs 1 of owner 'db' are also owner 'web''s (line 3)"
}

@test "state: one GPU held by two owners is refused" {
	raw devices <<-'EOF'
	device=0000:1a:00.0 owner=a type=gpu vendor=10de product=20b0 driver=nvidia numa=0 created=1
	device=0000:1a:00.0 owner=b type=gpu vendor=10de product=20b0 driver=nvidia numa=0 created=2
	EOF
	refused devices "line 3: device 0000:1a:00.0 of owner 'b' is also owner 'a''s (line 2)"
	run -1 rm-devices list-allocations
	assert_output "rm-devices: corrupt state file '$RM_STATE_DIR/devices.state': line 3: device 0000:1a:00.0 of owner 'b' is also owner 'a''s (line 2); restore it from a backup, or move it away to start empty (rm-devices(1), STATE)"
}

@test "state: bad fields and unknown kinds are refused, with the line" {
	raw cpuset <<<'owner=web cpus=0-x'
	refused cpuset "line 2: bad 'cpus' field: invalid character 'x' in CPU list: '0-x'" ||
		refused cpuset "line 2: bad 'cpus' field: $(cd / && "$ts" cpuset list 2>&1 | sed 's/.*cpus. field: //')"
	raw cpuset <<<'owner=web'
	refused cpuset "line 2: no 'cpus' field"
	raw cpuset <<<'owner=web cpus=0 isolate=maybe'
	refused cpuset "line 2: bad 'isolate' field: 'maybe' (yes or no)"
	raw cpuset <<<'owner=web cpus=0 pid=12x'
	refused cpuset "line 2: bad 'pid' field: '12x'"
	raw cpuset <<<'gpu=0 owner=web'
	refused cpuset "line 2: unknown record: 'gpu'"
	raw cpuset <<-'EOF'
	reserved=0 strict=no
	reserved=1 strict=no
	EOF
	refused cpuset "line 3: a second 'reserved' record (line 2)"
	raw devices <<<'device=0000:1A:00.0 owner=a type=gpu'
	refused devices "line 2: bad device address: '0000:1A:00.0'"
	raw devices <<<'owner=x cpus=0'
	refused devices "line 2: not a device allocation record: 'owner'"
	# well-formed states of both tools pass
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	reserved=3 strict=yes
	owner=web cpus=0-1 mems=0 count=2 isolate=no pid=- start=- created=1
	owner=db cpus=2 mems=0 count=1 isolate=yes pid=1 start=5 created=1 add_mems=1
	EOF
	run -0 "$ts" cpuset count
	assert_output 4
}

@test "state: version=1junk and other bad headers are refused" {
	raw demo <<<'owner=web'
	sed -i '1s/version=1 /version=1junk /' "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/demo.state': line 1: bad version: '1junk'"
	raw demo <<<'owner=web'
	sed -i '1s/records=1 /records=1x /' "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/demo.state': no record count"
	raw demo <<<'owner=web'
	sed -i '1s/checksum=\([0-9a-f]*\)/checksum=\1zz/' "$RM_STATE_DIR/demo.state"
	run -1 "$ts" demo list
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/demo.state': checksum mismatch"
}

@test "owners: rm_owner_cpus reads rm-cpuset's state through the state module" {
	run -3 "$ts" owner-cpus web
	assert_output ''
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-15 nodes=0 online=0-15
	owner=web cpus=0-3,8 mems=0
	owner=db cpus=4 mems=0 l3_ways=- l3_exclusive=no l3_masks=- mem_bandwidth=50% mb=0:50
	EOF
	run -0 "$ts" owner-cpus web
	assert_output 0-3,8
	# an owner in the shared pool: found, with no CPU of its own
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-15 nodes=0 online=0-15
	owner=web cpus="" mems=0 count=0
	owner=db cpus=4 mems=0 l3_ways=- l3_exclusive=no l3_masks=- mem_bandwidth=50% mb=0:50
	EOF
	run -0 "$ts" owner-cpus web
	assert_output ''
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-15 nodes=0 online=0-15
	owner=web cpus=0-3,8 mems=0
	owner=db cpus=4 mems=0 l3_ways=- l3_exclusive=no l3_masks=- mem_bandwidth=50% mb=0:50
	EOF
	# an owner with L3 ways or a bandwidth limit has a resctrl group
	run -0 "$ts" owner-cpus db
	assert_output '4 resctrl'
	run -3 "$ts" owner-cpus cache
	raw cpuset <<<'owner=web cpus=0 pid=x'
	run -1 "$ts" owner-cpus web
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/cpuset.state': line 2: bad 'pid' field: 'x'"
}

@test "state: an owner's memory or pids limit that is not a bounded number is refused" {
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=job cpus="" count=0 pids_max=eight
	EOF
	refused cpuset "line 3: owner 'job': invalid pids_max: 'eight'"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=job cpus="" count=0 memory_max=1073741824 memory_high=99999999999999999999
	EOF
	refused cpuset "line 3: owner 'job': invalid memory_high: '99999999999999999999'"
}

@test "state: impossible content with a valid checksum is refused, with the line" {
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=web cpus=2-5 count=4
	EOF
	refused cpuset "line 3: CPUs 4-5 of owner 'web' are not in the topology record"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	reserved=0-1 strict=yes
	owner=web cpus=1-2 count=2
	EOF
	refused cpuset "line 4: CPUs 1 of owner 'web' are reserved"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	reserved=0 strict=no
	owner=web cpus=0 count=1
	EOF
	refused cpuset "line 4: CPUs 0 of owner 'web' are reserved"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	reserved=3-4 strict=no
	EOF
	refused cpuset "line 3: CPUs 4 of the reserved pool are not in the topology record"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=shared cpus=1 count=1
	EOF
	refused cpuset "line 3: invalid owner name: 'shared'"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=web cpus="" count=0 isolate=yes
	EOF
	refused cpuset "line 3: owner 'web' in the shared pool has isolate=yes"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=web cpus="" count=0 l3_ways=2
	EOF
	refused cpuset "line 3: owner 'web' in the shared pool has a resctrl group"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=web cpus="" count=0 add_mems=1
	EOF
	refused cpuset "line 3: owner 'web' in the shared pool has add_mems"
	raw cpuset <<<'owner=web cpus=1 count=1'
	refused cpuset "no 'topology' record, which every state with owners has"
	raw cpuset <<<'reserved=1 strict=no'
	refused cpuset "no 'topology' record, which every state with reserved CPUs has"
	raw cpuset <<-'EOF'
	topology=0badcafe cpus=0-3 nodes=0 online=0-3
	owner=web cpus=1-2 count=3
	EOF
	refused cpuset "line 3: owner 'web' has count=3 but 2 CPUs"
	# rm-cpuset acts on none of them
	run -1 rm-cpuset --topology "core:4 pu:1" release web
	assert_output --partial "restore it from a backup"
	cmp "$RM_STATE_DIR/cpuset.state" "$BATS_TEST_TMPDIR/before"
}

@test "state: rm-storage's records are checked too: owners, disks, numbers" {
	raw storage <<<'limit=../../../../victim/iov disk=sda devno=8:0 read_bps=1048576'
	refused storage "line 2: invalid owner name: '../../../../victim/iov'"
	raw storage <<<'limit=web disk=../sda devno=8:0'
	refused storage "line 2: bad 'disk' field: '../sda'"
	raw storage <<<'limit=web disk=sda devno=8'
	refused storage "line 2: bad 'devno' field: '8'"
	raw storage <<<'limit=web disk=sda devno=8:0 write_iops=lots'
	refused storage "line 2: bad 'write_iops' field: 'lots'"
	raw storage <<-'EOF'
	limit=web disk=sda devno=8:0 read_bps=1
	limit=web disk=sda devno=8:0 read_bps=2
	EOF
	refused storage "line 3: owner 'web' on disk 'sda' is also on line 2"
	raw storage <<<'quota=srv/data fs=/srv device=sda project=1 size=1'
	refused storage "line 2: bad quota directory: 'srv/data'"
	raw storage <<<'quota=/srv/../etc fs=/srv device=sda project=1 size=1'
	refused storage "line 2: bad quota directory: '/srv/../etc'"
	raw storage <<<'quota=/srv/data fs=/srv device=sda size=1'
	refused storage "line 2: no 'project' field"
	raw storage <<<'unknown=1'
	refused storage "line 2: unknown record: 'unknown'"
	# rm-storage refuses to show or act on it, and says what to do
	raw storage <<<'limit=../../../../victim/iov disk=sda devno=8:0 read_bps=1048576'
	run -1 rm-storage show
	assert_output "rm-storage: corrupt state file '$RM_STATE_DIR/storage.state': line 2: invalid owner name: '../../../../victim/iov'; restore it from a backup, or move it away to start empty (rm-storage(1), STATE)"
	# a well-formed one passes
	raw storage <<-'EOF'
	limit=web disk=nvme0n1 devno=259:0 read_bps=1048576 write_bps=- read_iops=- write_iops=- weight=- latency_target=- conf=0a1b2c3d
	quota=/srv/data fs=/srv device=/dev/sda1 project=10 size=1073741824 inodes=- owner=web
	EOF
	run -0 "$ts" storage count
	assert_output 2
}

@test "state: a state larger than the limit is refused before it is read" {
	mkdir -p -m 0755 "$RM_STATE_DIR"
	truncate -s 300M "$RM_STATE_DIR/cpuset.state"
	run -1 "$ts" cpuset list
	assert_output "test-state: corrupt state file '$RM_STATE_DIR/cpuset.state': larger than 16 MiB"
	run -1 rm-cpuset --topology "core:4 pu:1" list
	assert_output --partial "larger than 16 MiB; restore it from a backup"
	rm -f "$RM_STATE_DIR/cpuset.state"
}

@test "state: failures carry their kind: a non-root writer is told it needs root, a corrupt file how to recover" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (runuser)"
	chmod 0755 "$BATS_TEST_TMPDIR"
	mkdir -p -m 0755 "$RM_STATE_DIR"
	rm-cpuset --topology "core:4 pu:1" --no-cgroups alloc --count 1 --owner web >/dev/null
	run runuser -u nobody -- env RM_STATE_DIR="$RM_STATE_DIR" rm-cpuset --topology "core:4 pu:1" \
		--no-cgroups release web
	assert_failure 1
	assert_output --regexp '; changing allocations needs root$'
	# an unsafe directory is not a question of root: no hint
	chmod 0777 "$RM_STATE_DIR"
	run -1 rm-cpuset --topology "core:4 pu:1" list
	assert_output "rm-cpuset: unsafe state directory (must be owned by root or you, and not writable by others): '$RM_STATE_DIR'"
	chmod 0755 "$RM_STATE_DIR"
}

# ---- atomic replacement ----

@test "atomicfile: a symlink at the target is refused, not followed; a file is replaced" {
	d=$BATS_TEST_TMPDIR/out
	mkdir "$d"
	echo keep > "$BATS_TEST_TMPDIR/victim"
	ln -s "$BATS_TEST_TMPDIR/victim" "$d/target"
	run -1 "$ts" replace "$d/target" new
	assert_output "test-state: an output is a regular file, a character device or a FIFO, not a symlink: '$d/target'"
	[ -L "$d/target" ]
	rm "$d/target"
	echo old > "$d/target"
	run -0 "$ts" replace "$d/target" new
	[ -f "$d/target" ] && [ ! -L "$d/target" ]
	run -0 cat "$d/target"
	assert_output new
	run -0 cat "$BATS_TEST_TMPDIR/victim"
	assert_output keep
	run -0 stat -c %a "$d/target"
	assert_output 644
	# nothing else is left in the directory
	run -0 ls -A "$d"
	assert_output target
	# a symlinked directory is refused
	ln -s "$d" "$BATS_TEST_TMPDIR/linkdir"
	run -1 "$ts" replace "$BATS_TEST_TMPDIR/linkdir/target" other
	assert_output "test-state: cannot create a file next to '$BATS_TEST_TMPDIR/linkdir/target': its directory is a symlink"
	run -0 cat "$d/target"
	assert_output new
}

@test "atomicfile: a symlink planted where the temporary goes cannot redirect the write" {
	d=$BATS_TEST_TMPDIR/out
	mkdir "$d"
	echo keep > "$BATS_TEST_TMPDIR/victim"
	ln -s "$BATS_TEST_TMPDIR/victim" "$d/.target.AAAAAA"
	run -1 "$ts" replace-at "$d" target .target.AAAAAA new
	assert_output "test-state: cannot create a file next to 'target': File exists"
	run -0 cat "$BATS_TEST_TMPDIR/victim"
	assert_output keep
	[ ! -e "$d/target" ]
	# with a free name it goes through
	run -0 "$ts" replace-at "$d" target .target.BBBBBB new
	run -0 cat "$d/target"
	assert_output new
	[ -L "$d/.target.AAAAAA" ] && [ ! -e "$d/.target.BBBBBB" ]
}
