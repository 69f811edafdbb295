#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench compare: matching, verdicts against threshold and noise, exit status, both formats.
load ../test_helper
load bench_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	# a baseline by hand: the runs of each spread by about 2%
	cat >base.rec <<-'END'
	machine=ci model="AMD EPYC" arch=x86_64 kernel=6.1.0 cpus=0-1 nodes=0 topology=0a1b2c3d
	bench=mem op=copy cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt best=22.00 median=21.80 min=21.60 max=22.00 unit=GB/s runs=5 spread=1.8 ran_on=0-1 mem_on=0 status=ok reason=-
	bench=mem op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt best=23.00 median=22.80 min=22.50 max=23.00 unit=GB/s runs=5 spread=2.2 ran_on=0-1 mem_on=0 status=ok reason=-
	bench=lat size=16KiB pages=4KiB cpu=0 mem_node=0 best=1.40 median=1.41 min=1.40 max=1.43 unit=ns runs=5 spread=2.1 loads=1000000 ran_on=0 mem_on=0 status=ok reason=-
	bench=jitter cpu=1 shared=no interval_us=1000 duration_ms=10000 policy=fifo priority=99 samples=10000 overruns=0 min=2.00 avg=3.00 median=2.90 p99=8.00 p999=15.00 max=40.00 unit=us runs=5 spread=3.0 ran_on=1
	END
}

# NEW from BASE with FIELD of the record matching PATTERN set to VALUE: with_value PATTERN FIELD VALUE
with_value() {
	sed -E "/$1/ s/ $2=[^ ]+/ $2=$3/" base.rec
}

@test "compare: a 20% bandwidth drop is a regression: exit 1, and said on stderr" {
	with_value 'op=triad' best 18.40 >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec
	assert_records change
	assert_equal "${#lines[@]}" 4
	assert_line --index 1 'change=mem params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" metric=best unit=GB/s base=23.00 new=18.40 delta=-20.0 threshold=5.0 noise=2.2 verdict=regressed reason=-'
	assert_line --index 0 --partial 'metric=best unit=GB/s base=22.00 new=22.00 delta=0.0 '
	assert_line --index 0 --partial ' verdict=same'
	assert_line --index 3 --partial 'change=jitter '
	assert_line --index 3 --partial ' metric=p99 unit=us base=8.00 new=8.00 '
	assert_equal "$stderr" "rm-bench: 1 of 4 measurements regressed (worse by more than 5% and their runs' spread)"
}

@test "compare: a 1% change within the noise is not flagged: exit 0" {
	with_value 'op=triad' best 22.77 >new.rec
	run -0 --separate-stderr rm-bench compare base.rec new.rec
	assert_line --index 1 --partial 'base=23.00 new=22.77 delta=-1.0 threshold=5.0 noise=2.2 verdict=same'
	refute_output --partial regressed
	assert_equal "$stderr" ''
}

@test "compare: beyond the threshold but within the runs' spread is noise, not a regression" {
	# 8% slower, but the new runs spread over 12%
	with_value 'op=triad' best 21.16 | sed -E '/op=triad/ s/ spread=[^ ]+/ spread=12.0/' >new.rec
	run -0 rm-bench compare base.rec new.rec
	assert_line --index 1 --partial 'delta=-8.0 threshold=5.0 noise=12.0 verdict=noise'
	# without a spread field, (max - min) / median of the runs
	sed -E '/op=triad/ s/ spread=[^ ]+//; /op=triad/ s/ min=[^ ]+/ min=19.00/' new.rec >new2.rec
	run -0 rm-bench compare base.rec new2.rec
	assert_line --index 1 --partial 'delta=-8.0 threshold=5.0 noise=17.5 verdict=noise'
}

@test "compare: the direction follows the unit: faster is better, rates higher, times lower" {
	# latency 20% higher: a regression; bandwidth 20% higher: an improvement
	with_value 'bench=lat' best 1.68 >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec
	assert_line --index 2 --partial 'unit=ns base=1.40 new=1.68 delta=20.0 threshold=5.0 noise=2.1 verdict=regressed'
	with_value 'op=copy' best 26.40 >new.rec
	run -0 rm-bench compare base.rec new.rec
	assert_line --index 0 --partial 'delta=20.0 threshold=5.0 noise=1.8 verdict=improved'
	# jitter: p99 by default
	with_value 'bench=jitter' p99 12.00 >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec
	assert_line --index 3 --partial 'metric=p99 unit=us base=8.00 new=12.00 delta=50.0 '
}

@test "compare: --threshold and --metric" {
	with_value 'op=triad' best 21.00 >new.rec
	run -1 rm-bench compare base.rec new.rec
	run -0 rm-bench compare --threshold 10% base.rec new.rec
	assert_line --index 1 --partial 'delta=-8.7 threshold=10.0 noise=2.2 verdict=same'
	run -0 rm-bench compare --threshold 10 base.rec new.rec
	# median and max of each: one record per metric, max compared as is
	with_value 'bench=jitter' max 80.00 >new.rec
	run -1 --separate-stderr rm-bench compare --metric median,max base.rec new.rec
	assert_line --partial 'change=jitter params="cpu=1 shared=no interval_us=1000 policy=fifo priority=99" metric=median unit=us base=2.90 new=2.90 delta=0.0 threshold=5.0 noise=3.0 verdict=same'
	assert_line --partial 'metric=max unit=us base=40.00 new=80.00 delta=100.0 threshold=5.0 noise=3.0 verdict=regressed'
	# measurements without p999 are not compared: exit 1, each saying why
	run -1 --separate-stderr rm-bench compare --metric p999 base.rec base.rec -o change,metric,verdict,reason
	assert_output "$(printf '%s\n' 'change=mem metric=- verdict=skipped reason="none of --metric p999 in both"' \
		'change=mem metric=- verdict=skipped reason="none of --metric p999 in both"' \
		'change=lat metric=- verdict=skipped reason="none of --metric p999 in both"' \
		'change=jitter metric=p999 verdict=same reason=-')"
	assert_equal "$stderr" "rm-bench: 3 measurements could not be compared (verdict=skipped, see reason)"
}

@test "compare: matched by name and parameters: missing, added, --ignore" {
	# the triad on other CPUs is another measurement
	sed -E '/op=triad/ s/ cpus=0-1 / cpus=2-3 /' base.rec >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec -o change,params,verdict
	assert_line --index 1 'change=mem params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=missing'
	assert_line --index 4 'change=mem params="op=triad cpus=2-3 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=added'
	assert_equal "$stderr" "rm-bench: 1 of 4 measurements of 'base.rec' missing from 'new.rec' (--allow-missing accepts that)"
	run -0 rm-bench compare --ignore cpus base.rec new.rec -o change,verdict
	assert_output "$(printf 'change=%s verdict=same\n' mem mem lat jitter)"
	# results and observations are not parameters: other runs, CPUs seen, loads
	sed -E 's/ runs=5 / runs=3 /; s/ loads=[0-9]+ / loads=5 /; s/ ran_on=0-1 / ran_on=1 /' \
		base.rec >new.rec
	run -0 rm-bench compare base.rec new.rec -o verdict
	assert_output "$(printf 'verdict=same\n%.0s' 1 2 3 4)"
}

@test "compare: a parameter at '-' is no parameter; a neighbour is one; counters are results" {
	# a newer rm-bench writes neighbour=- and the resctrl counters: the same measurement
	sed -E '/op=triad/ s/ stores=nt / stores=nt neighbour=- /; /op=triad/ s/ status=ok/ llc_occupancy=4MiB mbm_total=21.00 mbm_local=20.00 status=ok/' base.rec >new.rec
	run -0 rm-bench compare base.rec new.rec -o params,verdict
	assert_line --index 1 'params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=same'
	# with a noisy neighbour it is another measurement
	sed -E '/op=triad/ s/ stores=nt / stores=nt neighbour=2-3 neighbour_rate=30.00 /' base.rec >new.rec
	run -0 rm-bench compare --allow-missing base.rec new.rec -o params,verdict
	assert_line 'params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=missing'
	assert_line 'params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt neighbour=2-3" verdict=added'
}

@test "compare: skipped measurements are reported and not compared" {
	cat >hp.rec <<-'END'
	bench=lat size=64MiB pages=2MiB cpu=0 mem_node=0 best=- median=- min=- max=- unit=ns runs=0 spread=- loads=- ran_on=- mem_on=- status=skipped reason="no pages"
	END
	sed 's/status=skipped reason="no pages"/status=ok reason=-/; s/best=- median=- min=- max=-/best=90 median=91 min=90 max=92/; s/spread=-/spread=2/' hp.rec >hp2.rec
	# taken in BASE, not in NEW: the gate fails closed (exit 1) unless --allow-missing
	run -1 --separate-stderr rm-bench compare hp2.rec hp.rec -o change,metric,verdict,reason
	assert_output 'change=lat metric=- verdict=skipped reason="status=skipped in NEW: no pages"'
	assert_equal "$stderr" "rm-bench: 1 measurement of BASE not taken in NEW, status=skipped (--allow-missing accepts that)"
	run -0 --separate-stderr rm-bench compare --allow-missing hp2.rec hp.rec -o verdict
	assert_output 'verdict=skipped'
	assert_equal "$stderr" ''
	# not taken in BASE, or in neither: reported, nothing was lost
	run -0 --separate-stderr rm-bench compare hp.rec hp2.rec -o reason
	assert_output 'reason="status=skipped in BASE: no pages"'
	assert_equal "$stderr" ''
	run -0 --separate-stderr rm-bench compare hp.rec hp.rec -o reason
	assert_output 'reason="status=skipped in both: no pages"'
	# a regression wins over what was not compared: exit 1
	{ cat base.rec hp2.rec; } >b.rec
	{ with_value 'op=triad' best 18.40; cat hp.rec; } >n.rec
	run -1 --separate-stderr rm-bench compare b.rec n.rec -o verdict
	assert_output "$(printf 'verdict=%s\n' same regressed same same skipped)"
}

@test "compare: NEW without the metric, or with a base of 0, is not compared: exit 1" {
	sed -E '/bench=lat/ s/ best=[^ ]+ median=[^ ]+/ best=- median=-/' base.rec >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec -o change,verdict,reason
	assert_line --index 2 'change=lat verdict=skipped reason="no best, p99 or median in both"'
	assert_equal "$stderr" "rm-bench: 1 measurement could not be compared (verdict=skipped, see reason)"
	with_value 'bench=lat' best 0 >zero.rec
	run -1 --separate-stderr rm-bench compare zero.rec base.rec -o change,metric,verdict,reason
	assert_line --index 2 'change=lat metric=best verdict=skipped reason="best is 0 in BASE"'
	run -1 rm-bench compare --allow-missing zero.rec base.rec -o verdict
}

@test "compare: units of one dimension are converted; others are not compared: exit 1" {
	# 10 GB/s against 1 MB/s: converted to BASE's unit, a regression
	printf '%s\n' 'bench=mem op=copy best=10 unit=GB/s' >gb.rec
	printf '%s\n' 'bench=mem op=copy best=1 unit=MB/s' >mb.rec
	run -1 --separate-stderr rm-bench compare gb.rec mb.rec
	assert_output 'change=mem params="op=copy" metric=best unit=GB/s base=10 new=0.001 delta=-100.0 threshold=5.0 noise=0.0 verdict=regressed reason="NEW in MB/s, converted"'
	# the same rate in other units is the same
	printf '%s\n' 'bench=mem op=copy best=10000 unit=MB/s' >mb.rec
	run -0 rm-bench compare gb.rec mb.rec -o new,delta,verdict
	assert_output 'new=10 delta=0.0 verdict=same'
	printf '%s\n' 'bench=lat size=1MiB best=1.5 unit=us' >us.rec
	printf '%s\n' 'bench=lat size=1MiB best=1400 unit=ns' >ns.rec
	run -0 rm-bench compare us.rec ns.rec -o unit,new,delta,verdict
	assert_output 'unit=us new=1.4 delta=-6.7 verdict=improved'
	# a rate against a time, or a unit not known: not compared, the record says why
	printf '%s\n' 'bench=mem op=copy best=10 unit=ns' >ns.rec
	run -1 --separate-stderr rm-bench compare gb.rec ns.rec -o change,unit,verdict,reason
	assert_output 'change=mem unit=ns verdict=skipped reason="units differ: GB/s and ns"'
	assert_equal "$stderr" "$(printf '%s\n' "rm-bench: units differ, not compared: 'mem op=copy' (GB/s and ns)" \
		"rm-bench: 1 measurement could not be compared (verdict=skipped, see reason)")"
	printf '%s\n' 'bench=mem op=copy best=10 unit=furlongs/s' >f.rec
	run -1 --separate-stderr rm-bench compare gb.rec f.rec -o verdict,reason
	assert_output 'verdict=skipped reason="units differ: GB/s and furlongs/s"'
	# --allow-missing does not accept what could not be compared
	run -1 rm-bench compare --allow-missing gb.rec f.rec -o verdict
}

@test "compare: JSON and records match each other, either way round" {
	# BASE in JSON as rm-bench writes it (sizes in bytes, booleans, null), NEW in records
	cat >base.json <<-'END'
	{
	   "machine": [{"machine": "ci", "model": "AMD EPYC", "topology": "0a1b2c3d"}],
	   "mem": [
	      {"bench": "mem", "op": "triad", "cpus": "0-1", "nodes": "0", "threads": 2, "mem_nodes": "0",
	       "size": 134217728, "pages": 4096, "stores": "nt", "best": 23.00, "median": 22.80,
	       "min": 22.50, "max": 23.00, "unit": "GB/s", "runs": 5, "spread": 2.2, "ran_on": "0-1",
	       "mem_on": "0", "status": "ok", "reason": null}
	   ],
	   "jitter": [
	      {"bench": "jitter", "cpu": 1, "shared": false, "interval_us": 1000, "duration_ms": 10000,
	       "policy": "fifo", "priority": 99, "p99": 8.0, "unit": "us", "spread": 3.0}
	   ],
	   "histogram": [{"bucket": 2, "cpu": 1, "width": 1, "count": 10000}]
	}
	END
	grep -e op=triad -e bench=jitter base.rec | sed -E '/op=triad/ s/ best=[^ ]+/ best=18.40/' >new.rec
	run -1 --separate-stderr rm-bench compare base.json new.rec -o change,params,base,new,verdict
	assert_output "$(printf '%s\n' \
		'change=mem params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" base=23.00 new=18.40 verdict=regressed' \
		'change=jitter params="cpu=1 shared=no interval_us=1000 policy=fifo priority=99" base=8.0 new=8.00 verdict=same')"
	run -0 rm-bench compare new.rec base.json -o change,verdict
	assert_output "$(printf '%s\n' 'change=mem verdict=improved' 'change=jitter verdict=same')"
	# JSON out, JSON in: compare's own JSON is typed
	run -1 --separate-stderr rm-bench compare base.json new.rec -J
	run -0 json_eval '[[c["verdict"], c["delta"]] for c in d["changes"]]'
	assert_output "$(printf '%s\n' '["regressed", -20.0]' '["same", 0.0]')"
	# standard input for one of them
	run -1 --separate-stderr bash -c 'rm-bench compare base.json - <new.rec'
	assert_line --index 0 --partial 'verdict=regressed'
}

@test "compare: real results of rm-bench, records and JSON, compare with themselves" {
	rm-bench mem --size 1M --runs 2 --op triad >a.rec
	rm-bench lat --sizes 16K --runs 1 >>a.rec
	rm-bench mem --size 1M --runs 2 --op triad -J >a.json
	run -0 rm-bench compare a.rec a.rec -o change,verdict
	assert_output "$(printf '%s\n' 'change=mem verdict=same' 'change=lat verdict=same')"
	# the same measurement, in the other format: matched (its figures are another run's)
	run --separate-stderr rm-bench compare a.json a.rec -o change,verdict
	[ "$status" -le 1 ]
	assert_line --index 0 --regexp '^change=mem verdict=(same|noise|regressed|improved)$'
	assert_line --index 1 'change=lat verdict=added'
}

@test "compare: machines that differ are a warning" {
	sed 's/topology=0a1b2c3d/topology=ffffffff/' base.rec >new.rec
	run -0 --separate-stderr rm-bench compare base.rec new.rec
	assert_equal "$stderr" "rm-bench: the results come from different machines or kernels: topology '0a1b2c3d' and 'ffffffff'"
}

@test "compare: bad input exits 2" {
	usage_error "give two result files or directories: BASE and NEW" rm-bench compare base.rec
	usage_error "unexpected argument: 'c'" rm-bench compare a b c
	usage_error "only one of BASE and NEW may be standard input" rm-bench compare - -
	usage_error "cannot read the results: No such file or directory: 'nope'" rm-bench compare \
		base.rec nope
	usage_error "--threshold takes a percentage such as 5%: '-1'" rm-bench compare \
		--threshold -1 base.rec base.rec
	usage_error "--metric: invalid list: 'best,'" rm-bench compare --metric best, base.rec base.rec
	printf 'bench=mem op=copy best=x unit=GB/s\n' >bad.rec
	usage_error "bad.rec: line 1: not a number: 'best=x'" rm-bench compare bad.rec bad.rec
	printf 'bench=mem op="copy\n' >bad.rec
	usage_error "bad.rec: line 1, column" rm-bench compare bad.rec base.rec
	printf '{"mem": [{"bench": "mem", "best": 1,}]}' >bad.json
	usage_error "bad.json: line 1, column 37: expected a key" rm-bench compare bad.json base.rec
	printf '{"mem": [' >bad.json
	usage_error "bad.json: line 1, column 10: unexpected end of input" rm-bench compare \
		bad.json base.rec
	printf '{"a": "\\ud800"}' >bad.json
	usage_error "bad.json: line 1, column 14: unpaired surrogate" rm-bench compare bad.json \
		base.rec
	printf '[] x' >bad.json
	usage_error "bad.json: line 1, column 4: text after the document" rm-bench compare \
		bad.json base.rec
}

@test "compare: an unknown --metric is exit 2, naming it and the known ones" {
	run -2 --separate-stderr rm-bench compare --metric best,bset base.rec base.rec
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-bench compare: --metric: unknown metric: 'bset' (known: avg, best, max, mbm_local, mbm_total, median, min, neighbour_rate, p99, p999, spread)"
	# a result field that is no figure is no metric either
	run -2 --separate-stderr rm-bench compare --metric unit base.rec base.rec
	[[ $stderr == "rm-bench compare: --metric: unknown metric: 'unit' (known: avg, best, "* ]]
	# the known ones are the number fields of the measurements, as the completions offer them
	local known
	known=$(for c in mem lat c2c jitter; do rm-bench "$c" --list-columns --raw; done |
		awk '$2 == "number" { print $1 }' | LC_ALL=C sort -u | paste -sd, - | sed 's/,/, /g')
	run -2 --separate-stderr rm-bench compare --metric nope base.rec base.rec
	assert_equal "$stderr" "rm-bench compare: --metric: unknown metric: 'nope' (known: $known)"
	# and the man page lists the same
	run -0 bash -c "sed -n '/^The metrics are the number fields/,/^another name/p' \
		'$RM_SRCDIR/man/rm-bench.1' | grep '^\.R\?BR\? ' |
		sed -E 's/^\.R?BR? (\( )?([a-z0-9_]+).*/\2/' | paste -sd, - | sed 's/,/, /g'"
	assert_output "$known"
}

# bad_file NAME MESSAGE: NAME as BASE and as NEW is exit 2 with one line, "rm-bench: NAME: MESSAGE"
bad_file() {
	run -2 --separate-stderr rm-bench compare "$1" base.rec
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-bench: $1: $2"
	run -2 --separate-stderr rm-bench compare base.rec "$1"
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-bench: $1: $2"
}

@test "compare: a file without measurements is exit 2, never a pass" {
	: >empty.rec
	bad_file empty.rec "empty, no measurements"
	printf '  \n\t\r\n\n' >blank.rec
	bad_file blank.rec "only white space, no measurements"
	printf '[]\n' >array.json
	bad_file array.json "no records in the JSON document"
	printf '{}' >object.json
	bad_file object.json "no records in the JSON document"
	printf '{"mem": [], "lat": []}\n' >lists.json
	bad_file lists.json "no records in the JSON document"
	printf '# rm-bench mem\n# nothing ran\n' >comments.rec
	bad_file comments.rec "no records, only comments"
	# records, but no measurement among them
	grep '^machine=' base.rec >machine.rec
	bad_file machine.rec "no measurements (bench records)"
	printf '{"machine": [{"machine": "ci"}], "histogram": [{"bucket": 2, "count": 1}]}' \
		>machine.json
	bad_file machine.json "no measurements (bench records)"
	# standard input is named as -
	run -2 --separate-stderr bash -c 'rm-bench compare base.rec - </dev/null'
	assert_equal "$stderr" "rm-bench: -: empty, no measurements"
}

@test "compare: a NUL byte or an unparsable line is exit 2, naming the file and the place" {
	printf 'bench=mem op=copy\0 best=1\n' >nul.rec
	bad_file nul.rec "line 1, column 18: NUL byte in input"
	head -n 2 base.rec >nul2.rec
	printf 'bench=lat\0\n' >>nul2.rec
	bad_file nul2.rec "line 3, column 10: NUL byte in input"
	{ cat base.rec; printf '\0'; } >nul3.rec
	bad_file nul3.rec "line 6, column 1: NUL byte in input"
	printf '{"mem": [{"bench": "mem", "best": 1}]}\0' >nul.json
	bad_file nul.json "line 1, column 39: NUL byte in input"
	{ head -n 2 base.rec; printf 'bench=mem op=copy best\n'; } >junk.rec
	bad_file junk.rec "line 3, column 23: expected '=' after key 'best'"
	printf 'hello world\n' >text.rec
	bad_file text.rec "line 1, column 6: expected '=' after key 'hello'"
}

@test "compare: measurements of BASE missing from NEW are regressions unless --allow-missing" {
	grep -v -e 'op=copy' -e 'bench=lat' base.rec >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec -o change,params,verdict
	assert_output "$(printf '%s\n' \
		'change=mem params="op=copy cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=missing' \
		'change=mem params="op=triad cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=same' \
		'change=lat params="size=16KiB pages=4KiB cpu=0 mem_node=0" verdict=missing' \
		'change=jitter params="cpu=1 shared=no interval_us=1000 policy=fifo priority=99" verdict=same')"
	assert_equal "$stderr" "rm-bench: 2 of 4 measurements of 'base.rec' missing from 'new.rec' (--allow-missing accepts that)"
	# JSON says the same
	run -1 --separate-stderr rm-bench compare base.rec new.rec -J
	run -0 json_eval '[c["verdict"] for c in d["changes"]]'
	assert_output "$(printf '%s\n' missing same missing same)"
	# accepted: still reported, exit 0, nothing said
	run -0 --separate-stderr rm-bench compare --allow-missing base.rec new.rec -o change,verdict
	assert_output "$(printf '%s\n' 'change=mem verdict=missing' 'change=mem verdict=same' \
		'change=lat verdict=missing' 'change=jitter verdict=same')"
	assert_equal "$stderr" ""
	# --allow-missing lets no real regression through
	with_value 'op=triad' best 18.40 | grep -v 'op=copy' >new.rec
	run -1 --separate-stderr rm-bench compare --allow-missing base.rec new.rec -o change,verdict
	assert_line --index 1 'change=mem verdict=regressed'
	assert_equal "$stderr" "rm-bench: 1 of 3 measurements regressed (worse by more than 5% and their runs' spread)"
	# measurements added in NEW are no regression
	{ cat base.rec; sed -n 's/op=copy/op=add/p' base.rec; } >new.rec
	run -0 rm-bench compare base.rec new.rec -o change,verdict
	assert_line --index 4 'change=mem verdict=added'
}

@test "compare: status=failed in either file is a regression unless --allow-missing" {
	# failed in NEW
	sed -E '/bench=lat/ s/status=ok reason=-/status=failed reason="cannot map memory"/' \
		base.rec >failed.rec
	run -1 --separate-stderr rm-bench compare base.rec failed.rec -o change,metric,verdict
	assert_output "$(printf '%s\n' 'change=mem metric=best verdict=same' \
		'change=mem metric=best verdict=same' 'change=lat metric=- verdict=failed' \
		'change=jitter metric=p99 verdict=same')"
	assert_equal "$stderr" "rm-bench: 1 measurement failed, status=failed (--allow-missing accepts that)"
	# two of them
	sed -E '/bench=jitter/ s/$/ status=failed/' failed.rec >failed2.rec
	run -1 --separate-stderr rm-bench compare base.rec failed2.rec -o verdict
	assert_output "$(printf 'verdict=%s\n' same same failed failed)"
	assert_equal "$stderr" "rm-bench: 2 measurements failed, status=failed (--allow-missing accepts that)"
	# failed in BASE
	run -1 --separate-stderr rm-bench compare failed.rec base.rec -o change,verdict
	assert_line --index 2 'change=lat verdict=failed'
	assert_equal "$stderr" "rm-bench: 1 measurement failed, status=failed (--allow-missing accepts that)"
	# a failed measurement only NEW has
	{ cat base.rec; sed -n '/op=copy/ { s/op=copy/op=add/; s/status=ok/status=failed/; p }' \
		base.rec; } >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec -o change,params,verdict
	assert_line --index 4 'change=mem params="op=add cpus=0-1 nodes=0 threads=2 mem_nodes=0 size=128MiB pages=4KiB stores=nt" verdict=failed'
	# accepted: reported, exit 0
	run -0 --separate-stderr rm-bench compare --allow-missing base.rec failed.rec -o verdict
	assert_line --index 2 'verdict=failed'
	assert_equal "$stderr" ""
	# missing and failed at once: both said, one line each
	grep -v 'op=copy' failed.rec >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec -o verdict
	assert_output "$(printf 'verdict=%s\n' missing same failed same)"
	assert_equal "$stderr" "$(printf '%s\n' \
		"rm-bench: 1 of 4 measurements of 'base.rec' missing from 'new.rec' (--allow-missing accepts that)" \
		"rm-bench: 1 measurement failed, status=failed (--allow-missing accepts that)")"
	# skipped is not failed: reported, exit 1 (not compared), 0 with --allow-missing
	sed -E '/bench=lat/ s/status=ok reason=-/status=skipped reason="no pages"/' base.rec >new.rec
	run -1 --separate-stderr rm-bench compare base.rec new.rec -o verdict
	assert_line --index 2 'verdict=skipped'
	run -0 rm-bench compare --allow-missing base.rec new.rec -o verdict
}
