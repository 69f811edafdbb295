#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench c2c: one record per pair and a summary, pinning, pair sampling, refusals.
load ../test_helper
load bench_helper

setup() {
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
}

C=(--iterations 200 --runs 2)

@test "c2c: a record per pair, then the summary, well-formed" {
	run -0 rm-bench c2c --cpus "0,$LAST_CPU" "${C[@]}"
	assert_records bench
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp "^bench=c2c pair=0:$LAST_CPU cpus=0,?-?$LAST_CPU best=[0-9.]+ median=[0-9.]+ min=[0-9.]+ max=[0-9.]+ unit=ns runs=2 spread=[0-9.]+ iterations=200 ran_on=[0-9,-]+\$"
	assert_line --index 1 --regexp "^bench=c2c pair=all cpus=[0-9,-]+ best=[0-9.]+ median=[0-9.]+ min=[0-9.]+ max=[0-9.]+ unit=ns runs=1 spread=0.0 iterations=200 ran_on=-\$"
	# a round trip takes time; the summary of one pair is that pair
	output=${lines[0]}
	awk -v b="$(field_of . best)" 'BEGIN { exit !(b > 0) }'
	local median=$(field_of . median)
	output=${lines[1]}
	assert_equal "$(field_of . median)" "$median"
}

@test "c2c: both threads pinned where the pair says" {
	run -0 rm-bench c2c --cpus "0,$LAST_CPU" "${C[@]}"
	assert_equal "$(field_of '^bench=c2c pair=[0-9]' ran_on)" "$(field_of '^bench=c2c pair=[0-9]' cpus)"
	run -0 taskset -c "0,$LAST_CPU" rm-bench c2c "${C[@]}" -o pair,ran_on
	assert_line --index 0 "pair=0:$LAST_CPU ran_on=$(field_of . ran_on)"
	[[ $(field_of . ran_on) == "0"[,-]"$LAST_CPU" ]]
}

@test "c2c: every pair, or --pairs of them, and the summary counts them" {
	local n=$NCPUS
	[ "$n" -le 8 ] || n=8
	run -0 rm-bench c2c --cpus "0-$((n - 1))" --iterations 50 --runs 1 -o pair,runs
	assert_equal "${#lines[@]}" $((n * (n - 1) / 2 + 1))
	assert_line --index $((n * (n - 1) / 2)) "pair=all runs=$((n * (n - 1) / 2))"
	run -0 rm-bench c2c --cpus "0-$((n - 1))" --pairs 1 --iterations 50 --runs 1 -o pair,runs
	assert_equal "${#lines[@]}" 2
	assert_line --index 1 "pair=all runs=1"
}

@test "c2c: JSON" {
	run -0 rm-bench c2c --cpus "0,$LAST_CPU" "${C[@]}" -J
	run -0 json_eval '[r["pair"] for r in d["c2c"]]'
	assert_output "$(printf '%s\n' "0:$LAST_CPU" all)"
	run -0 rm-bench c2c --cpus "0,$LAST_CPU" "${C[@]}" -J
	run -0 json_eval '[type(d["c2c"][1][k]).__name__ for k in ("median", "runs", "ran_on")]'
	assert_output "$(printf '%s\n' float int NoneType)"
}

@test "c2c: bad requests exit 2" {
	usage_error "c2c needs two CPUs at least: '0'" rm-bench c2c --cpus 0
	usage_error "--iterations takes an integer" rm-bench c2c --iterations 0
	usage_error "--pairs takes an integer" rm-bench c2c --pairs x
	usage_error "--iterations times --runs must stay below 10^9" rm-bench c2c \
		--iterations 100000000 --runs 100
}

@test "c2c: the defaults are c2clat's sampling, 1000 runs of 100 round trips, the best kept" {
	run -0 rm-bench c2c --cpus "0,$LAST_CPU" -o pair,runs,iterations
	assert_line --index 0 "pair=0:$LAST_CPU runs=1000 iterations=100"
	# the long-run mode is the options
	run -0 rm-bench c2c --cpus "0,$LAST_CPU" --iterations 20000 --runs 2 -o runs,iterations
	assert_line --index 0 "runs=2 iterations=20000"
	run -0 rm-bench c2c --help
	assert_output --partial 'round trips per run (default: 100)'
	assert_output --partial 'timed runs per pair (default: 1000)'
}
