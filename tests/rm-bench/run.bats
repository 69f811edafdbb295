#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench run: the suite, its machine record first, every listing present, in both formats.
load ../test_helper
load bench_helper

# The suite twice, once per format (it takes seconds): the tests read the files.
setup_file() {
	export RM_BUILDDIR PATH
	rm-bench run --quick --runs 1 -J >"$BATS_FILE_TMPDIR/run.json" 2>"$BATS_FILE_TMPDIR/json.err"
	echo $? >"$BATS_FILE_TMPDIR/json.status"
	rm-bench run --quick --runs 1 -o machine,kernel,cpus,topology \
		>"$BATS_FILE_TMPDIR/run.rec" 2>"$BATS_FILE_TMPDIR/rec.err"
	echo $? >"$BATS_FILE_TMPDIR/rec.status"
}

@test "run: --quick in JSON: the machine record, then mem, lat, c2c, jitter and histogram" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/json.status")" 0
	output=$(cat "$BATS_FILE_TMPDIR/run.json")
	run -0 json_eval 'list(d.keys())'
	if [ "$NCPUS" -ge 2 ]; then
		assert_output "$(printf '%s\n' machine mem lat c2c jitter histogram)"
	else
		assert_output "$(printf '%s\n' machine mem lat jitter histogram)"
	fi
	output=$(cat "$BATS_FILE_TMPDIR/run.json")
	run -0 json_eval '[d["machine"][0][k] for k in ("arch", "cpus", "isa", "version", "llc")]'
	assert_line --index 0 "$(uname -m)"
	assert_line --index 1 "$ONLINE"
	assert_line --index 2 --regexp '^(avx512|avx|sse2|generic)$'
	assert_line --index 3 "$(cat "$RM_SRCDIR/VERSION")"
	# the L3s (or the deepest caches) of the allowed CPUs; null where the kernel lists none
	if ls /sys/devices/system/cpu/cpu0/cache/index0 >/dev/null 2>&1; then
		assert_line --index 4 --regexp '^[1-9][0-9]*$'
	else
		assert_line --index 4 null
	fi
	# mem: copy and triad on each node; lat on normal and 2 MiB pages (skipped without them)
	output=$(cat "$BATS_FILE_TMPDIR/run.json")
	run -0 json_eval 'sorted(set(r["op"] for r in d["mem"]))'
	assert_output "$(printf '%s\n' copy triad)"
	output=$(cat "$BATS_FILE_TMPDIR/run.json")
	run -0 json_eval 'sorted(set(r["pages"] for r in d["lat"]))'
	assert_output "$(printf '%s\n' 4096 2097152)"
	output=$(cat "$BATS_FILE_TMPDIR/run.json")
	run -0 json_eval '[[r["cpu"], r["runs"], r["ran_on"]] for r in d["jitter"]]'
	assert_output "[$LAST_CPU, 1, \"$LAST_CPU\"]"
}

@test "run: records, the machine record first, -o applying to it alone" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/rec.status")" 0
	run -0 cat "$BATS_FILE_TMPDIR/run.rec"
	assert_records 'machine|bench'
	assert_line --index 0 --regexp "^machine=[^ ]+ kernel=$(uname -r) cpus=$ONLINE topology=[0-9a-f]{8}\$"
	assert_line --index 1 --regexp '^bench=mem op=copy cpus=[0-9,-]+ nodes=0'
	assert_line --regexp '^bench=lat size=[0-9]+[KMG]iB pages=4KiB .* status=ok reason=-$'
	assert_line --regexp "^bench=jitter cpu=$LAST_CPU "
	# the machine record's fields are those of --list-columns
	run -0 rm-bench run --list-columns -r
	assert_equal "${lines[0]%% *}" machine
	assert_line --regexp '^governor string yes '
	assert_line --regexp '^hugepages string yes '
}

@test "run: the suite compares with itself by name and parameters" {
	run -0 rm-bench compare "$BATS_FILE_TMPDIR/run.rec" "$BATS_FILE_TMPDIR/run.rec" -o verdict
	refute_output --partial missing
	refute_output --partial added
	assert_line verdict=same
	# the JSON run and the records run are the same measurements (their figures are
	# another run's: any verdict, but each one matched)
	run --separate-stderr rm-bench compare "$BATS_FILE_TMPDIR/run.json" \
		"$BATS_FILE_TMPDIR/run.rec" -o change,verdict
	[ "$status" -le 1 ]
	refute_output --partial missing
	refute_output --partial added
	assert_line --regexp '^change=c2c verdict=[a-z]+$'
	assert_line --regexp '^change=jitter verdict=[a-z]+$'
	assert_line --regexp '^change=lat verdict=[a-z]+$'
}
