#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench plot: the SVG of each kind parses, holds what the results hold, and renders to PNG.
load ../test_helper
load bench_helper

PLOT="$BATS_TEST_DIRNAME/plot"

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
}

# Print the result of the Python expression EXPR on the SVG FILE, one item a line when it is a
# list: r is the root element, cls(NAME) the elements whose class holds NAME, text(E) the text.
svg_eval() {
	/usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "{http://www.w3.org/2000/svg}svg", r.tag
def cls(name):
    return [e for e in r.iter() if name in e.get("class", "").split()]
def text(e):
    return "".join(e.itertext())
x = eval(sys.argv[2])
for v in (x if isinstance(x, list) else [x]):
    print(v)
' "$1" "$2"
}

# FILE.svg renders with librsvg to FILE.png of WIDTH x HEIGHT pixels, more than a blank page.
assert_renders() {
	run -0 rsvg-convert -o "$1.png" "$1.svg"
	run -0 /usr/bin/python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", d[16:24])
print(w, h, len(d) > 8000)
' "$1.png"
	assert_output "$2 $3 True"
}

@test "plot latency: a line per page size, a point per working set, the caches marked" {
	run -0 --separate-stderr rm-bench plot --output lat.svg "$PLOT/latency.rec"
	assert_output ''
	assert_equal "$stderr" ''
	run -0 svg_eval lat.svg '(r.get("version"), r.get("viewBox"), text(cls("title")[0]))'
	assert_output "('1.1', '0 0 860 520', 'Memory latency by working-set size')"
	# 10 sizes on each page size; the skipped 4GiB one is left out
	run -0 svg_eval lat.svg '(len(cls("line")), len(cls("point")))'
	assert_output '(2, 20)'
	run -0 svg_eval lat.svg '[text(e) for e in cls("legend")]'
	assert_output "$(printf '%s\n' '4KiB pages' '2MiB pages')"
	run -0 svg_eval lat.svg '[text(e) for e in cls("cache-label")]'
	assert_output "$(printf '%s\n' 'L1d 48KiB' 'L2 2MiB' 'L3 32MiB')"
	run -0 svg_eval lat.svg '[text(e) for e in cls("xtick")]'
	assert_output "$(printf '%s\n' 4KiB 16KiB 64KiB 256KiB 1MiB 4MiB 16MiB 64MiB 256MiB 1GiB)"
	run -0 svg_eval lat.svg '[text(e) for e in cls("ytick")]'
	assert_output "$(printf '%s\n' 0 50 100 150)"
	# the points in order of size, latency up the page: 1GiB on 4KiB pages is 120 ns
	run -0 svg_eval lat.svg '[text(e) for e in cls("point")][9]'
	assert_output '1GiB, 120.00 ns'
	run -0 svg_eval lat.svg '[float(a.get("cy")) >= float(b.get("cy")) for a, b in zip(cls("point")[0:9], cls("point")[1:10])]'
	refute_output --partial False
	# the caches sit between their working sets: L2 (2MiB) between 1MiB and 4MiB
	run -0 svg_eval lat.svg 'float(cls("point")[4].get("cx")) < float(cls("cache")[1].get("x1")) < float(cls("point")[5].get("cx"))'
	assert_output True
	assert_renders lat 860 520
}

@test "plot latency: without l1d, l2 and l3 in the machine record, llc marks L3" {
	sed -E '1 s/ l1d=[^ ]+ l2=[^ ]+ l3=[^ ]+//' "$PLOT/latency.rec" >old.rec
	run -0 rm-bench plot --output - old.rec
	printf '%s\n' "$output" >old.svg
	run -0 svg_eval old.svg '[text(e) for e in cls("cache-label")]'
	assert_output 'L3 32MiB'
}

@test "plot matrix: bandwidth and latency heat maps, a cell per pair with its value" {
	run -0 rm-bench plot --output numa.svg "$PLOT/matrix.json"
	run -0 svg_eval numa.svg '[text(e) for e in cls("matrix-title")]'
	assert_output "$(printf '%s\n' 'Memory bandwidth (GB/s)' 'Memory latency (ns)')"
	run -0 svg_eval numa.svg '[len(m.findall(".//*[@class=\"cell\"]")) for m in cls("matrix")]'
	assert_output "$(printf '%s\n' 16 16)"
	# rows the CPUs' node (CPU for lat), columns the memory's node
	run -0 svg_eval numa.svg '[" ".join(text(e) for e in m.iter() if e.get("class") in ("row", "col")) for m in cls("matrix")]'
	assert_output "$(printf '%s\n' '0 1 2 3 0 1 2 3' '0 1 2 3 0 2 4 6')"
	# triad's best, row by row; the pair that was skipped is "-"
	run -0 svg_eval numa.svg '" ".join(text(e) for e in cls("matrix")[0].iter() if e.get("class") == "value")'
	assert_output '40.10 21.30 11.20 10.90 20.80 39.70 10.60 11.40 11.00 10.70 41.20 20.90 10.80 11.10 21.50 -'
	run -0 svg_eval numa.svg '" ".join(text(e) for e in cls("matrix")[1].iter() if e.get("class") == "value")'
	assert_output '92.50 141.00 228.30 231.00 139.80 93.10 230.20 229.50 227.90 231.40 91.80 140.60 232.00 228.80 141.20 92.90'
	# the colour scale, best at the top: the highest bandwidth, the lowest latency
	run -0 svg_eval numa.svg '[text(e) for e in cls("scale-label")]'
	assert_output "$(printf '%s\n' 41.20 10.60 91.80 232.00)"
	run -0 svg_eval numa.svg 'len(cls("scale"))'
	assert_output 2
	assert_renders numa 1028 344
}

@test "plot compare: a bar per change, flagged as compare decides, with its noise band" {
	run -1 rm-bench compare "$PLOT/base.rec" "$PLOT/new.rec"
	local verdicts
	verdicts=$(printf '%s\n' "$output" | grep -v verdict=missing | grep -o 'delta=[^ ]* .*verdict=[a-z]*' |
		sed -E 's/delta=([^ ]+) .*verdict=/\1 /')
	run -0 rm-bench plot --output cmp.svg "$PLOT/base.rec" "$PLOT/new.rec"
	run -0 svg_eval cmp.svg 'len(cls("bar")), len(cls("band")), len(cls("regressed")), len(cls("improved"))'
	assert_output '(6, 6, 1, 1)'
	# each bar's delta and verdict are compare's
	run -0 svg_eval cmp.svg '[text(e).replace("%", "") for e in cls("verdict")]'
	assert_output "$(printf '%s\n' "$verdicts" | sed -E 's/^([0-9])/+\1/')"
	run -0 svg_eval cmp.svg '[text(e) for e in cls("label")]'
	assert_line --index 1 --partial 'mem best: op=triad cpus=0-3 nodes=0 '
	assert_line --index 5 'jitter p99: cpu=3 shared=no interval_us=1000 policy=fifo priority=99'
	# the band: the threshold (5%), or the runs' spread where larger (jitter: 12%)
	run -0 svg_eval cmp.svg '[round(float(e.get("width")) / float(cls("band")[0].get("width")) * 5, 1) for e in cls("band")]'
	assert_output "$(printf '%s\n' 5.0 5.0 5.0 5.0 5.0 12.0)"
	# the regression points left of 0 (bandwidth down), past its band
	run -0 svg_eval cmp.svg 'float(cls("regressed")[0].get("x")) < float(cls("band")[1].get("x"))'
	assert_output True
	run -0 svg_eval cmp.svg '[text(e) for e in cls("note")]'
	assert_output 'not drawn: 1 missing from NEW, 0 added, 0 skipped or failed'
	# --threshold as compare's: 15% leaves the 12% improvement the same
	run -0 rm-bench plot --kind compare --threshold 15 --output cmp15.svg "$PLOT/base.rec" "$PLOT/new.rec"
	run -0 svg_eval cmp15.svg 'len(cls("regressed")), len(cls("improved"))'
	assert_output '(1, 0)'
	assert_renders cmp 1199 346
}

@test "plot: text is XML-escaped" {
	cat >a.rec <<-'END'
	bench=c2c pair="<0&1>" cpus="it's \"x\"" best=60.0 median=61.0 min=60.0 max=62.0 unit=ns runs=5 spread=3.3
	END
	sed 's/best=60.0/best=80.0/' a.rec >b.rec
	run -0 rm-bench plot --output 'e&<.svg' a.rec b.rec
	run -0 svg_eval 'e&<.svg' '[text(e) for e in cls("label")] + [text(r.find("{http://www.w3.org/2000/svg}title"))]'
	assert_line --index 0 "c2c best: pair=\"<0&1>\" cpus=\"it's \\\"x\\\"\""
	assert_line --index 1 'rm-bench compare: b.rec against a.rec'
}

@test "plot: a real run of lat here, read as JSON from standard input" {
	rm-bench lat --sizes 16K,256K,4M --runs 1 -J >lat.json
	run -0 --separate-stderr rm-bench plot --output - - <lat.json
	printf '%s\n' "$output" >real.svg
	run -0 svg_eval real.svg 'len(cls("point")), [text(e) for e in cls("legend")]'
	assert_output "(3, ['4KiB pages'])"
	assert_renders real 860 520
}

@test "plot: the kind follows the results; refusals exit 2 and write nothing" {
	run -0 rm-bench plot --output - "$PLOT/latency.rec"
	assert_output --partial 'Memory latency by working-set size'
	run -0 rm-bench plot --output - "$PLOT/matrix.json"
	assert_output --partial 'NUMA matrix'
	run -0 rm-bench plot --kind latency --output - "$PLOT/latency.rec" "$PLOT/latency.rec"
	assert_output --partial 'Memory latency by working-set size'
	usage_error 'say what to draw with --kind latency, matrix or compare' \
		rm-bench plot --output x.svg "$PLOT/latency.rec" "$PLOT/matrix.json" "$PLOT/base.rec"
	usage_error 'give the SVG file with --output FILE' rm-bench plot "$PLOT/latency.rec"
	usage_error 'give one or more result files' rm-bench plot --output x.svg
	usage_error "--kind takes latency, matrix, compare or loaded: 'bars'" \
		rm-bench plot --kind bars --output x.svg "$PLOT/latency.rec"
	usage_error 'two result files' rm-bench plot --kind compare --output x.svg "$PLOT/base.rec"
	usage_error 'only one result file may be standard input' rm-bench plot --output x.svg - -
	grep -v -e bench=lat -e bench=mem "$PLOT/base.rec" >nolat.rec
	usage_error 'no latency measurements' rm-bench plot --kind latency --output x.svg nolat.rec
	usage_error 'no mem or lat measurements with a CPU and a memory node' \
		rm-bench plot --kind matrix --output x.svg nolat.rec nolat.rec
	usage_error "cannot read the results" rm-bench plot --output x.svg nonexistent.rec
	printf 'bench=lat size=<\n' >bad.rec
	usage_error "bad.rec" rm-bench plot --output x.svg bad.rec
	usage_error "--threshold takes a percentage" \
		rm-bench plot --threshold x --output x.svg "$PLOT/base.rec" "$PLOT/new.rec"
	# no file, no temporary left
	run -0 find . -name '*.svg*'
	assert_output ''
	run -0 rm-bench plot --output x.svg "$PLOT/latency.rec"
	run -0 find . -name '*.svg*'
	assert_output ./x.svg
}

@test "plot: the file is replaced whole; a symlink at its name is refused, not followed" {
	echo keep >target
	ln -s target out.svg
	usage_error "not a symlink: 'out.svg'" rm-bench plot --output out.svg "$PLOT/latency.rec"
	[ -L out.svg ]
	assert_equal "$(cat target)" keep
	run -0 rm-bench plot --output new.svg "$PLOT/latency.rec"
	run -0 svg_eval new.svg 'len(cls("point"))'
	assert_output 20
	# a directory that is a symlink is refused, and nothing is written
	mkdir real && ln -s real link
	usage_error "its directory is a symlink" rm-bench plot --output link/x.svg "$PLOT/latency.rec"
	run -0 ls -A real
	assert_output ''
}

@test "plot loaded: lat --loaded's latency against the neighbour's rate, a point per delay" {
	cd "$BATS_TEST_TMPDIR"
	cat >loaded.rec <<-'END'
	bench=lat size=64MiB pages=4KiB cpu=0 mem_node=0 neighbour=- best=90.00 unit=ns runs=1 neighbour_rate=- status=ok reason=- load_delay=idle
	bench=lat size=64MiB pages=4KiB cpu=0 mem_node=0 neighbour=1-3 best=110.00 unit=ns runs=1 neighbour_rate=12.50 status=ok reason=- load_delay=10us
	bench=lat size=64MiB pages=4KiB cpu=0 mem_node=0 neighbour=1-3 best=180.00 unit=ns runs=1 neighbour_rate=30.00 status=ok reason=- load_delay=0
	END
	run -0 rm-bench plot --output loaded.svg loaded.rec
	run -0 grep -o '<title>[^<]*' loaded.svg
	assert_output "$(printf '%s\n' '<title>Loaded latency: memory latency by the bandwidth of the other cores' \
		'<title>0.00 GB/s beside, 90.00 ns' '<title>12.50 GB/s beside, 110.00 ns' '<title>30.00 GB/s beside, 180.00 ns')"
	run -0 grep -c 'copy rate (GB/s' loaded.svg
	# the latency kind leaves them out; a file without them has none to draw
	usage_error "no latency measurements that ran" rm-bench plot --kind latency --output x.svg loaded.rec
	grep -v load_delay=0 loaded.rec | sed 's/ load_delay=[a-z0-9]*//' >plain.rec
	usage_error "no loaded latency measurements" rm-bench plot --kind loaded --output x.svg plain.rec
}
