# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset under concurrency and kill -9: no CPU given twice, no lost update, no corrupt state.

load ../test_helper

# 8 packages x 8 cores x 2 threads: 128 CPUs. A synthetic topology keeps cgroups out of it, so
# the tests need no root.
TOPO="package:8 core:8 pu:2"
NCPUS=128

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	state="$RM_STATE_DIR/cpuset.state"
	gate="$BATS_TEST_TMPDIR/gate"
}

cs() {
	rm-cpuset --topology "$TOPO" "$@"
}

# Start jobs together: close the gate, start each job with `together ARGS...` in the background
# (rm-cpuset ARGS once the gate opens), then open the gate.
gate_close() {
	exec 9>"$gate"
	flock -x 9
}
together() {
	flock -s "$gate" rm-cpuset --topology "$TOPO" "$@" 9>&-
}
gate_open() {
	flock -u 9
	exec 9>&-
}

# Wait for background job PID, named NAME; its exit status must be WANT (its stderr is in
# $BATS_TEST_TMPDIR/NAME.err): expect_exit NAME PID WANT
expect_exit() {
	local rc=0
	wait "$2" || rc=$?
	[ "$rc" -eq "$3" ] ||
		fail "$1 exited $rc, expected $3: $(cat "$BATS_TEST_TMPDIR/$1.err" 2>/dev/null)"
}

# A kernel cpulist (0-3,8) as one number per line.
expand() {
	local part IFS=,

	for part in ${1//\"/}; do
		if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
	done
}

# The value of KEY in the record LINE: value KEY LINE
value() {
	printf '%s\n' "$2" | grep -o "\(^\| \)$1=[^ ]*" | head -n 1 | sed "s/^ *$1=//; s/\"//g"
}

# The state file's header is whole: the right name and version, a checksum, and a record count
# that matches the lines below it.
check_header() {
	local header n

	[ -f "$state" ] || return 0 # never written: the empty state
	read -r header <"$state"
	[[ $header =~ ^rmtools_state=cpuset\ version=1\ records=([0-9]+)\ checksum=[0-9a-f]{8}$ ]] ||
		fail "bad state header: '$header'"
	n=$(($(wc -l <"$state") - 1))
	[ "$n" -eq "${BASH_REMATCH[1]}" ] || fail "header says ${BASH_REMATCH[1]} records, file has $n"
}

# The state is whole and consistent: `list` reads it (the checksum is valid) and shows every
# owner record; each owner's count= is the size of its cpus=; no CPU has two owners; `show`
# gives the owners' CPUs as the exclusive pool and every other CPU as the shared pool (no
# reservation in these tests). The owners' CPUs are left, sorted, in $BATS_TEST_TMPDIR/owned.
check_state() {
	local owned="$BATS_TEST_TMPDIR/owned" one="$BATS_TEST_TMPDIR/one" rec cpus count n nrec
	local shared exclusive

	check_header
	run -0 --separate-stderr cs list
	[ -z "$stderr" ] || fail "list wrote to stderr: $stderr"
	n=${#lines[@]}
	: >"$owned"
	nrec=0
	if [ -f "$state" ]; then
		while read -r rec; do
			nrec=$((nrec + 1))
			cpus=$(value cpus "$rec")
			count=$(value count "$rec")
			expand "$cpus" >"$one"
			[ "$(wc -l <"$one")" -eq "$count" ] ||
				fail "count=$count but cpus=$cpus in record: $rec"
			cat "$one" >>"$owned"
		done < <(grep '^owner=' "$state")
	fi
	[ "$n" -eq "$nrec" ] || fail "list shows $n allocations, the state has $nrec owner records"
	sort -n "$owned" -o "$owned"
	[ -z "$(uniq -d "$owned")" ] || fail "CPUs given to two owners: $(uniq -d "$owned" | xargs)"

	run -0 --separate-stderr cs show
	shared=$(value cpus "$(printf '%s\n' "${lines[@]}" | grep '^pool=shared ')")
	exclusive=$(value cpus "$(printf '%s\n' "${lines[@]}" | grep '^pool=exclusive ')")
	assert_equal "$(expand "$exclusive" | xargs)" "$(xargs <"$owned")"
	assert_equal "$(expand "$shared" | xargs)" \
		"$(comm -23 <(seq 0 $((NCPUS - 1)) | sort) <(sort "$owned") | sort -n | xargs)"
}

# The state directory holds the state and its lock file (state.h), nothing else.
check_no_leftovers() {
	local extra

	extra=$(find "$RM_STATE_DIR" -mindepth 1 ! -name cpuset.state ! -name cpuset.lock)
	[ -z "$extra" ] || fail "files left in the state directory: ${extra//$'\n'/ }"
}

@test "64 parallel allocations of one CPU get 64 distinct CPUs and 64 records" {
	local job pids=()

	gate_close
	for job in $(seq 1 64); do
		together alloc --count 1 --owner "o$job" >"$BATS_TEST_TMPDIR/o$job.out" \
			2>"$BATS_TEST_TMPDIR/o$job.err" &
		pids[job]=$!
	done
	gate_open
	for job in $(seq 1 64); do
		expect_exit "o$job" "${pids[job]}" 0
		# each printed its own record
		run -0 grep -c "^owner=o$job cpus=[0-9]* " "$BATS_TEST_TMPDIR/o$job.out"
	done
	check_state
	run -0 wc -l <"$BATS_TEST_TMPDIR/owned"
	assert_output 64
	run -0 grep -c '^owner=' "$state"
	assert_output 64
	run -0 bash -c "grep -o '^owner=[^ ]*' '$state' | sort -u | wc -l"
	assert_output 64
	run -0 cs list -o owner -r
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort | xargs)" "$(seq -f 'o%g' 1 64 | sort | xargs)"
	run -0 cs show -o pool,count -r
	assert_line 'shared 64'
	assert_line 'exclusive 64'
	check_no_leftovers
}

@test "parallel allocations of 1 to 4 CPUs with releases interleaved lose nothing" {
	local job pids=() rpids=() sum=0

	# 24 owners to release: 1+2+3+4 CPUs, six times: 60 CPUs
	for job in $(seq 1 24); do
		run -0 cs alloc --count $(((job - 1) % 4 + 1)) --owner "r$job"
	done
	check_state
	# 24 new owners want 60 more: 120 of the 127 the shared pool lets go, in any order
	gate_close
	for job in $(seq 1 24); do
		together alloc --count $(((job - 1) % 4 + 1)) --owner "a$job" \
			>"$BATS_TEST_TMPDIR/a$job.out" 2>"$BATS_TEST_TMPDIR/a$job.err" &
		pids[job]=$!
		together release "r$job" >"$BATS_TEST_TMPDIR/r$job.out" 2>"$BATS_TEST_TMPDIR/r$job.err" &
		rpids[job]=$!
	done
	gate_open
	for job in $(seq 1 24); do
		expect_exit "a$job" "${pids[job]}" 0
		expect_exit "r$job" "${rpids[job]}" 0
		# release prints the allocation it released
		run -0 grep -c "^owner=r$job " "$BATS_TEST_TMPDIR/r$job.out"
	done
	check_state
	run -0 cs list -o owner,count -r
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort | xargs)" \
		"$(for job in $(seq 1 24); do echo "a$job $(((job - 1) % 4 + 1))"; done | sort | xargs)"
	for job in $(seq 1 24); do sum=$((sum + (job - 1) % 4 + 1)); done
	run -0 wc -l <"$BATS_TEST_TMPDIR/owned"
	assert_output "$sum"
	run -0 cs show -o pool,count -r
	assert_line "exclusive $sum"
	assert_line "shared $((NCPUS - sum))"
	check_no_leftovers
}

# N alloc/release cycles on owners k0..k7, each killed with SIGKILL after a random delay within
# about 1.5 times an uninterrupted run. After each: the state reads back whole (list succeeds,
# header valid), the owner acted on is either untouched or changed exactly as asked, and every
# other owner's record is unchanged; every 25 cycles and at the end, check_state.
# Sets nkilled and ndone.
kill_cycles() {
	local n=$1 cycle t0 t1 us delay owner want rc before after was now
	local err="$BATS_TEST_TMPDIR/kill.err"

	# 1.5 times one uninterrupted run (3 allocs and 3 releases timed), in microseconds
	t0=$(date +%s%N)
	for cycle in 1 2 3; do
		cs alloc --count 4 --owner probe >/dev/null
		cs release probe >/dev/null
	done
	t1=$(date +%s%N)
	us=$(((t1 - t0) * 3 / 12000))
	[ "$us" -gt 0 ] || us=1

	nkilled=0 ndone=0
	before=$(cs list -o owner,cpus,count -r)
	for cycle in $(seq 1 "$n"); do
		owner=k$((RANDOM % 8))
		want=$((RANDOM % 4 + 1))
		if ((RANDOM % 2)); then
			set -- alloc --count "$want" --owner "$owner"
		else
			set -- release "$owner"
		fi
		# SIGKILL after 1 to $us microseconds (a timeout of 0 would mean never); the exit
		# status is the tool's own, 137 when the kill landed
		delay=$(((RANDOM * 32768 + RANDOM) % us + 1))
		rc=0
		timeout --foreground --preserve-status -s KILL "$(printf '%d.%06d' $((delay / 1000000)) \
			$((delay % 1000000)))" rm-cpuset --topology "$TOPO" "$@" >/dev/null 2>"$err" ||
			rc=$?

		check_header
		after=$(cs list -o owner,cpus,count -r) ||
			fail "list failed after '$*' (exit $rc): $(cs list 2>&1)"
		was=$(printf '%s\n' "$before" | grep "^$owner " || true)
		now=$(printf '%s\n' "$after" | grep "^$owner " || true)
		# nothing else changed
		assert_equal "$(printf '%s\n' "$after" | grep -v "^$owner " || true)" \
			"$(printf '%s\n' "$before" | grep -v "^$owner " || true)"
		case "$1:$rc" in
		alloc:0)
			[ -z "$was" ] && [[ $now == "$owner "*" $want" ]] ||
				fail "alloc $owner of $want succeeded: before '$was', after '$now'" ;;
		alloc:2)
			[ -n "$was" ] && [ "$now" = "$was" ] ||
				fail "alloc $owner exited 2: before '$was', after '$now': $(cat "$err")" ;;
		release:0)
			[ -n "$was" ] && [ -z "$now" ] ||
				fail "release $owner succeeded: before '$was', after '$now'" ;;
		release:2)
			[ -z "$was" ] && [ -z "$now" ] ||
				fail "release $owner exited 2: before '$was', after '$now': $(cat "$err")" ;;
		alloc:137)
			[ "$now" = "$was" ] || { [ -z "$was" ] && [[ $now == "$owner "*" $want" ]]; } ||
				fail "killed alloc $owner of $want: before '$was', after '$now'" ;;
		release:137)
			[ "$now" = "$was" ] || [ -z "$now" ] ||
				fail "killed release $owner: before '$was', after '$now'" ;;
		*)
			fail "'$*' exited $rc: $(cat "$err")" ;;
		esac
		if [ "$rc" -eq 137 ]; then nkilled=$((nkilled + 1)); else ndone=$((ndone + 1)); fi
		before=$after
		[ $((cycle % 25)) -ne 0 ] || check_state
	done
	check_state
}

@test "kill -9 at random points in 200 alloc/release cycles: the state stays whole and consistent, no temporary file left" {
	kill_cycles 200
	# the kills did land, and not only before the tool started its work
	[ "$nkilled" -ge 20 ] || fail "only $nkilled of 200 runs were killed"
	[ "$ndone" -ge 20 ] || fail "only $ndone of 200 runs finished"
	# the next write removes what a killed run left, and the state still works
	cs release --all >/dev/null
	run -0 cs alloc --count 4 --owner after
	check_no_leftovers
	check_state
	run -0 cs list -o owner,count -r
	assert_output 'after 4'
}

@test "two processes allocating the same owner: exactly one succeeds, the other exits 2" {
	local round pa pb ra rb loser count

	for round in $(seq 1 10); do
		gate_close
		together alloc --count 1 --owner same >"$BATS_TEST_TMPDIR/a.out" 2>"$BATS_TEST_TMPDIR/a.err" &
		pa=$!
		together alloc --count 2 --owner same >"$BATS_TEST_TMPDIR/b.out" 2>"$BATS_TEST_TMPDIR/b.err" &
		pb=$!
		gate_open
		ra=0 rb=0
		wait "$pa" || ra=$?
		wait "$pb" || rb=$?
		[ "$ra.$rb" = "0.2" ] || [ "$ra.$rb" = "2.0" ] ||
			fail "round $round: exit statuses $ra and $rb, expected 0 and 2:" \
				"$(cat "$BATS_TEST_TMPDIR"/[ab].err)"
		# the loser says why and prints nothing; the record is the winner's
		if [ "$ra" -eq 0 ]; then loser=b count=1; else loser=a count=2; fi
		run -0 cat "$BATS_TEST_TMPDIR/$loser.err"
		assert_output --partial "owner 'same' already has CPUs"
		run -0 cat "$BATS_TEST_TMPDIR/$loser.out"
		assert_output ''
		run -0 cs list -o owner,count -r
		assert_output "same $count"
		check_state
		run -0 cs release same
	done
}

@test "the last free CPU: of three parallel allocations one succeeds, two exit 3" {
	local round job pids=() rc winners losers

	run -0 cs alloc --count $((NCPUS - 2)) --owner big
	for round in $(seq 1 5); do
		# 2 CPUs left and no reservation: the shared pool keeps one, one can be allocated
		run -0 cs show -o pool,count -r
		assert_line 'shared 2'
		gate_close
		for job in 1 2 3; do
			together alloc --count 1 --owner "l$job" >"$BATS_TEST_TMPDIR/l$job.out" \
				2>"$BATS_TEST_TMPDIR/l$job.err" &
			pids[job]=$!
		done
		gate_open
		winners=() losers=()
		for job in 1 2 3; do
			rc=0
			wait "${pids[job]}" || rc=$?
			case $rc in
			0) winners+=("l$job") ;;
			3) losers+=("l$job")
			   run -0 cat "$BATS_TEST_TMPDIR/l$job.err"
			   assert_output --partial "not enough free CPUs"
			   run -0 cat "$BATS_TEST_TMPDIR/l$job.out"
			   assert_output '' ;;
			*) fail "round $round: l$job exited $rc: $(cat "$BATS_TEST_TMPDIR/l$job.err")" ;;
			esac
		done
		[ "${#winners[@]}" -eq 1 ] && [ "${#losers[@]}" -eq 2 ] ||
			fail "round $round: succeeded: ${winners[*]}; exited 3: ${losers[*]}"
		run -0 cs list -o owner,count -r
		assert_equal "$(printf '%s\n' "${lines[@]}" | sort | xargs)" "big $((NCPUS - 2)) ${winners[0]} 1"
		run -0 cs show -o pool,count -r
		assert_line 'shared 1'
		assert_line "exclusive $((NCPUS - 1))"
		check_state
		run -0 cs release "${winners[0]}"
	done
}
