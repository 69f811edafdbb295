#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench compare over repeated runs, the CI gate: the test's error rates on seeded synthetic
# runs, exact p-values, --history, --confirm, the JUnit XML and Markdown reports.
load ../test_helper
load bench_helper

synth() { /usr/bin/python3 "$BATS_TEST_DIRNAME/synth-runs.py" "$@"; }

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# A result file of one lat measurement whose best is $2: run_file FILE BEST
run_file() {
	printf 'bench=lat size=16KiB pages=4KiB cpu=0 mem_node=0 best=%s unit=ns runs=5 status=ok reason=-\n' "$2" >"$1"
}

# Directory $1 of one-measurement runs with the bests given.
runs_dir() {
	local d=$1 i=0
	shift
	mkdir -p "$d"
	for v in "$@"; do
		run_file "$d/run-$i.rec" "$v"
		i=$((i + 1))
	done
}

@test "gate: noise-only runs raise false alarms at no more than the stated rate" {
	# 400 measurements, 10 runs of BASE against 5 of NEW, the same noise
	synth base 10 400 21
	synth new 5 400 22
	# the test alone (no effect threshold): at most alpha = 5%, with 3 standard deviations
	run -1 --separate-stderr rm-bench compare --threshold 0 base new
	n=$(grep -c 'verdict=regressed' <<<"$output")
	echo "false alarms at --threshold 0: $n of 400" >&3
	[ "$n" -le 33 ]
	# --alpha is the rate: 1% gives fewer
	run --separate-stderr rm-bench compare --threshold 0 --alpha 0.01 base new
	[ "$(grep -c 'verdict=regressed' <<<"$output")" -lt "$n" ]
	# with the default 5% effect threshold as well: under 1%
	run --separate-stderr rm-bench compare base new
	n=$(grep -c 'verdict=regressed' <<<"$output")
	echo "false alarms at --threshold 5: $n of 400" >&3
	[ "$n" -le 4 ]
	# two files of the same noise, compared as before (the best of one run each), raise many
	run -1 rm-bench compare base/run-000.rec new/run-000.rec --threshold 0
	[ "$(grep -c 'verdict=regressed' <<<"$output")" -gt 33 ]
}

@test "gate: a 10% shift is found, and the change records say how" {
	synth base 10 400 21
	synth new 5 400 23 1.10
	run -1 --separate-stderr rm-bench compare base new
	n=$(grep -c 'verdict=regressed' <<<"$output")
	echo "10% shifts found: $n of 400" >&3
	[ "$n" -ge 380 ]
	assert_records change
	assert_line --index 0 --regexp '^change=lat params="size=1KiB pages=4KiB cpu=0 mem_node=0" metric=best unit=ns base=[0-9.]+ new=[0-9.]+ delta=[0-9.]+ threshold=5.0 noise=[0-9.]+ verdict=[a-z]+ reason=- p=0\.[0-9]{4} base_runs=10 new_runs=5$'
	assert_equal "${stderr_lines[0]}" "rm-bench: $n of 400 measurements regressed (worse by more than 5%, p <= 0.05)"
	# an improvement the other way
	run -0 rm-bench compare new base
	[ "$(grep -c 'verdict=improved' <<<"$output")" -ge 380 ]
}

@test "gate: exact p-values, ties at mid-ranks, equal a count of every permutation" {
	check() {
		run_dirs_p=$(rm-bench compare --threshold 0 -o p b n | sed 's/^p=//')
		want=$(/usr/bin/python3 - "$1" "$2" <<-'END'
		import itertools, sys
		b = [float(x) for x in sys.argv[1].split()]
		n = [float(x) for x in sys.argv[2].split()]
		pool = b + n
		s = sorted(pool)
		rank = lambda v: (s.index(v) + len(s) - s[::-1].index(v) + 1) / 2
		r = [rank(v) for v in pool]
		# latency: worse is higher, so NEW's shift up is BASE's rank sum this low or lower
		w = sum(r[:len(b)])
		c = [sum(r[i] for i in k) <= w + 1e-9 for k in itertools.combinations(range(len(pool)), len(b))]
		print("%.4f" % (sum(c) / len(c)))
		END
		)
		assert_equal "$run_dirs_p" "$want"
	}
	runs_dir b 1 2 3; runs_dir n 4 5 6; check "1 2 3" "4 5 6"
	assert_equal "$run_dirs_p" 0.0500
	rm -r b n; runs_dir b 1 2 2 3; runs_dir n 2 3 3 4 5; check "1 2 2 3" "2 3 3 4 5"
	rm -r b n; runs_dir b 10 10 11; runs_dir n 10 11 11; check "10 10 11" "10 11 11"
	rm -r b n; runs_dir b 5 1 9 2 8; runs_dir n 7 3 6; check "5 1 9 2 8" "7 3 6"
}

@test "gate: too few runs to reach --alpha are said; the verdict is noise, not regressed" {
	runs_dir b 100 101; runs_dir n 120 121
	run -0 --separate-stderr rm-bench compare b n -o verdict,p,base_runs,new_runs
	assert_output 'verdict=noise p=0.1667 base_runs=2 new_runs=2'
	assert_equal "$stderr" "rm-bench: too few runs for a change to be significant at --alpha 0.05: 3 runs a side reach 0.05, 4 reach 0.014 (see rm-bench(1))"
	# a file against a directory is repeated runs too: 1 and 3 runs cannot reach 0.05 either
	run -0 --separate-stderr rm-bench compare b/run-0.rec n -o verdict
}

@test "gate: --history compares with the newest runs by name, NEW alone" {
	mkdir hist
	# old runs were slow; the newest 3 are fast, as is NEW
	for i in 1 2 3 4 5; do run_file "hist/2024-01-0$i.rec" 150; done
	for i in 6 7 8; do run_file "hist/2024-01-0$i.rec" "10$i"; done
	: >hist/.partial
	runs_dir new 105 106 107
	run -0 rm-bench compare --history hist --history-runs 3 new -o verdict,base,base_runs
	assert_output 'verdict=same base=107 base_runs=3'
	# all 8: the median is slow, NEW improved
	run -0 rm-bench compare --history hist new -o verdict,base_runs
	assert_output 'verdict=improved base_runs=8'
	# a directory without results, and one argument too many
	mkdir empty
	usage_error "empty: no result files in the directory" rm-bench compare --history empty new
	usage_error "with --history, give NEW only" rm-bench compare --history hist new new
	usage_error "--history-runs" rm-bench compare --history hist --history-runs 0 new
}

@test "gate: --confirm runs NEW again: a fluke passes, a real regression fails" {
	runs_dir base 100 101 102 100 101 102
	runs_dir new 120 121 122
	# the re-runs are as fast as BASE: 3 slow runs of 8 are no regression
	run -0 --separate-stderr rm-bench compare base new --confirm "cat '$PWD/base/run-0.rec'" --confirm-runs 5 -o verdict,new_runs
	assert_output 'verdict=same new_runs=8'
	assert_equal "${stderr_lines[0]}" "rm-bench: 1 measurement regressed, confirming with 5 more runs of NEW: 'cat '$PWD/base/run-0.rec''"
	# the re-runs are slow too: it stands
	run -1 --separate-stderr rm-bench compare base new --confirm "cat '$PWD/new/run-0.rec'" -o verdict,new_runs
	assert_output 'verdict=regressed new_runs=6'
	# nothing regressed: nothing run
	run -0 rm-bench compare base base --confirm "touch '$PWD/ran'"
	[ ! -e ran ]
	# a command that fails, prints no result or outlives its timeout fails the comparison
	run -1 --separate-stderr rm-bench compare base new --confirm "exit 3"
	assert_equal "${stderr_lines[1]}" "rm-bench: --confirm failed (exit status 3): 'exit 3'"
	run -1 --separate-stderr rm-bench compare base new --confirm "sleep 5" --confirm-timeout 200ms
	assert_equal "${stderr_lines[1]}" "rm-bench: --confirm ran past --confirm-timeout: 'sleep 5'"
	usage_error "--confirm-timeout takes a duration" rm-bench compare base new --confirm true --confirm-timeout 0
	usage_error "--confirm-runs" rm-bench compare base new --confirm true --confirm-runs 101
}

@test "gate: missing, failed and added measurements over runs" {
	runs_dir base 100 101 102
	runs_dir new 100 101 102
	# one run of NEW failed: failed
	sed -i 's/status=ok reason=-/status=failed reason=x/' new/run-1.rec
	run -1 --separate-stderr rm-bench compare base new -o verdict
	assert_output 'verdict=failed'
	assert_equal "$stderr" "rm-bench: 1 measurement failed, status=failed (--allow-missing accepts that)"
	run -0 rm-bench compare --allow-missing base new -o verdict
	# a run of BASE that failed is left out of it
	runs_dir new 100 101 102
	cp base/run-0.rec base/run-3.rec
	sed -i 's/status=ok reason=-/status=failed reason=x/' base/run-3.rec
	run -0 rm-bench compare base new -o verdict,base_runs
	assert_output 'verdict=same base_runs=3'
	# missing from every run of NEW; added in NEW
	sed -i 's/size=16KiB/size=32KiB/' new/run-*.rec
	run -1 --separate-stderr rm-bench compare base new -o change,params,verdict
	assert_output "$(printf '%s\n' 'change=lat params="size=16KiB pages=4KiB cpu=0 mem_node=0" verdict=missing' \
		'change=lat params="size=32KiB pages=4KiB cpu=0 mem_node=0" verdict=added')"
	assert_equal "$stderr" "rm-bench: 1 of 1 measurements of 'base' missing from 'new' (--allow-missing accepts that)"
}

@test "gate: --junit writes JUnit XML and --markdown a summary, the records unchanged" {
	synth base 5 3 31
	synth new 5 3 32
	sed -i -E '/size=2KiB/ s/best=([0-9]+)/best=2\1/' new/*.rec
	run -1 --separate-stderr rm-bench compare base new
	records=$output
	run -1 --separate-stderr rm-bench compare base new --junit junit.xml --markdown sum.md
	assert_equal "$output" "$records"
	run -0 /usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse("junit.xml").getroot()
print(s.tag, s.get("tests"), s.get("failures"))
for c in s.iter("testcase"):
    f = c.find("failure")
    print(c.get("classname"), c.get("name"), f.get("type") if f is not None else "ok")
'
	assert_output "$(printf '%s\n' 'testsuites 3 1' \
		'rm-bench.lat size=1KiB pages=4KiB cpu=0 mem_node=0 metric=best ok' \
		'rm-bench.lat size=2KiB pages=4KiB cpu=0 mem_node=0 metric=best regressed' \
		'rm-bench.lat size=3KiB pages=4KiB cpu=0 mem_node=0 metric=best ok')"
	run -0 cat sum.md
	assert_line --index 0 '## rm-bench compare: FAILED, 1 of 3 results'
	assert_line --index 1 '| | measurement | metric | base | new | unit | delta | p | verdict |'
	assert_line --index 3 --regexp '^\| FAIL \| lat size=2KiB pages=4KiB cpu=0 mem_node=0 \| best \| [0-9.]+ \| [0-9.]+ \| ns \| \+[0-9.]+% \| 0\.0040 \| regressed \|$'
	assert_line --index 4 --partial '| ok | lat size=1KiB '
	# a passing comparison says so
	run -0 rm-bench compare base base --markdown sum.md
	run -0 head -n 1 sum.md
	assert_output '## rm-bench compare: passed, 3 results'
	# a directory or a symlink at the name is refused before anything is read
	mkdir d
	ln -s sum.md link.md
	usage_error "--junit" rm-bench compare base new --junit d
	usage_error "--markdown" rm-bench compare base new --markdown link.md
	usage_error "--alpha takes a probability" rm-bench compare base new --alpha 1
	usage_error "--alpha takes a probability" rm-bench compare base new --alpha 0
}
