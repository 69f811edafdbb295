# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo draw: object counts against hwloc, terminal goldens, width, SVG parsed and rendered.
load ../test_helper

BIG="pack:2 numa:2 l3:2 core:8 pu:2"
NUMA4="$RM_SRCDIR/tests/vm/snapshots/numa4-6.12"

# The number of boxes of each kind in a terminal drawing on stdin: "packages nodes l3 cores pus".
drawn_counts() {
	local s
	s=$(cat)
	for re in 'Package [0-9]' 'NUMA [0-9]' 'L3( [0-9.]+[KMGT]?i?B)?[|│ ]' 'Core [0-9]' 'PU [0-9]'; do
		printf '%s\n' "$s" | grep -oE "[|│]$re" | wc -l
	done | paste -sd' '
}

# The same counts as hwloc gives them for INPUT (a directory, an XML file or a synthetic topology).
hwloc_counts() {
	local type n
	for type in package numanode l3cache core pu; do
		n=$(hwloc-calc --input "$1" --number-of "$type" all 2>/dev/null) || true
		echo "${n:-0}" # hwloc-calc prints nothing for a type the machine lacks
	done | paste -sd' '
}

# The same counts from an SVG's rectangles, by class.
svg_counts() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg", root.tag
assert root.get("version") == "1.1" and root.get("viewBox"), root.attrib
assert root.find(ns + "title").text.startswith("Topology of ")
rects = [r.get("class") for r in root.iter(ns + "rect")]
texts = [t.text or "" for t in root.iter(ns + "text")]
l3 = sum(1 for c, t in zip([r for r in rects if r], texts) if c == "cache" and t.startswith("L3"))
print(rects.count("package"), rects.count("node"), l3, rects.count("core"), rects.count("pu"))
PY
}

# This machine as hwloc XML, discovered as rm-topo discovers it: from the kernel's sysfs, without
# hwloc's x86 (cpuid) component, which topology.c leaves out.
live_xml() {
	HWLOC_COMPONENTS=-x86 lstopo-no-graphics --of xml "$1" 2>/dev/null
}

# Render SVG to PNG with librsvg and check it is a PNG of a sane size.
render_ok() {
	local svg=$1 png=${1%.svg}.png
	run -0 rsvg-convert "$svg" -o "$png"
	run -0 python3 - "$png" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert 100 <= w <= 20000 and 50 <= h <= 20000, (w, h)
print(w, h)
PY
}

@test "draw: counts agree with hwloc on snapshots, a synthetic topology and this machine's XML" {
	local xml=$BATS_TEST_TMPDIR/live.xml
	live_xml "$xml"
	for dir in "$SNAPSHOTS/x86-2s-smt" "$SNAPSHOTS/this-vm" "$NUMA4"; do
		run -0 env COLUMNS=400 rm-topo --sysroot "$dir" draw --no-devices
		assert_equal "$(printf '%s\n' "$output" | drawn_counts)" "$(hwloc_counts "$dir")"
	done
	for input in "$BIG" "$xml"; do
		run -0 env COLUMNS=400 rm-topo --topology "$input" draw
		assert_equal "$(printf '%s\n' "$output" | drawn_counts)" "$(hwloc_counts "$input")"
	done
	run -0 env COLUMNS=400 rm-topo draw --no-devices
	assert_equal "$(printf '%s\n' "$output" | drawn_counts)" "$(hwloc_counts "$xml")"
}

@test "draw: the 2-socket snapshot's drawing, in box characters and in ASCII" {
	run -0 env COLUMNS=100 rm-topo --sysroot "$SNAPSHOTS/x86-2s-smt" draw
	assert_golden rm-topo draw-2s
	run -0 env COLUMNS=100 rm-topo --sysroot "$SNAPSHOTS/x86-2s-smt" draw --ascii
	assert_golden rm-topo draw-2s-ascii
}

@test "draw: a big topology wraps its rows within the terminal's width" {
	for cols in 60 80 132; do
		run -0 env COLUMNS=$cols rm-topo --topology "$BIG" draw
		assert_equal "$(printf '%s\n' "$output" | drawn_counts)" "$(hwloc_counts "$BIG")"
		longest=$(printf '%s\n' "$output" | python3 -c \
			'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin.buffer.read().decode().splitlines()))')
		((longest <= cols)) || fail "a line of $longest columns in $cols"
		run -0 env COLUMNS=$cols rm-topo --topology "$BIG" draw --ascii
		longest=$(printf '%s\n' "$output" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
		((longest <= cols)) || fail "an ASCII line of $longest columns in $cols"
		((longest >= cols - 20)) || fail "an ASCII drawing of $longest columns uses too little of $cols"
	done
}

@test "draw: devices under their node's package, --no-devices and --no-caches" {
	run -0 env COLUMNS=200 rm-topo --sysroot "$NUMA4" draw --ascii
	assert_output --partial "NVMe 0000:41:00.0 nvme0n1"
	# node 1 is in package 1, drawn to the right of package 0: the device sits below package 1
	assert_line --index 3 --regexp '^\|\|Package 0 +\| \|Package 1 +\|\|$'
	pkg1=$(printf '%s\n' "${lines[3]}" | grep -bo 'Package 1' | cut -d: -f1)
	line=$(printf '%s\n' "$output" | grep 'NVMe')
	col=$(printf '%s' "${line%%NVMe*}" | wc -c)
	((pkg1 > 20 && col > pkg1)) || fail "the NVMe device is not under package 1: column $col, package 1 at $pkg1"
	run -0 env COLUMNS=200 rm-topo --sysroot "$NUMA4" draw --no-devices
	refute_output --partial "NVMe"
	run -0 env COLUMNS=200 rm-topo --sysroot "$NUMA4" draw --no-caches
	refute_output --partial "L3"
	refute_output --partial "L2"
	assert_output --partial "NVMe"
	assert_equal "$(printf '%s\n' "$output" | grep -o 'PU [0-9]' | wc -l)" 8
}

@test "draw --svg: parses as SVG 1.1, counts agree with hwloc, renders to PNG" {
	local svg=$BATS_TEST_TMPDIR/big.svg
	run -0 rm-topo --topology "$BIG" draw --svg "$svg"
	assert_output ""
	assert_equal "$(svg_counts "$svg")" "$(hwloc_counts "$BIG")"
	render_ok "$svg"
	svg=$BATS_TEST_TMPDIR/2s.svg
	run -0 rm-topo --sysroot "$SNAPSHOTS/x86-2s-smt" draw --svg "$svg"
	assert_equal "$(svg_counts "$svg")" "$(hwloc_counts "$SNAPSHOTS/x86-2s-smt")"
	render_ok "$svg"
	svg=$BATS_TEST_TMPDIR/live.svg
	run -0 rm-topo draw --svg - --no-devices
	printf '%s\n' "$output" >"$svg"
	live_xml "$BATS_TEST_TMPDIR/live.xml"
	assert_equal "$(svg_counts "$svg")" "$(hwloc_counts "$BATS_TEST_TMPDIR/live.xml")"
	render_ok "$svg"
}

@test "draw --svg: names are escaped as XML" {
	local dir="$BATS_TEST_TMPDIR/a&b<c>\"d'" svg=$BATS_TEST_TMPDIR/esc.svg
	cp -r "$SNAPSHOTS/x86-2s-smt" "$dir"
	run -0 rm-topo --sysroot "$dir" draw --svg "$svg"
	grep -q 'Topology of .*a&amp;b&lt;c&gt;&quot;d&apos;' "$svg"
	run -0 python3 -c 'import sys, xml.etree.ElementTree as E
print(E.parse(sys.argv[1]).getroot().find("{http://www.w3.org/2000/svg}title").text)' "$svg"
	assert_output "Topology of $dir"
}

@test "draw --svg: refuses a symbolic link, never writes through it or replaces it" {
	local target=$BATS_TEST_TMPDIR/target link=$BATS_TEST_TMPDIR/link.svg
	echo keep >"$target"
	ln -s "$target" "$link"
	usage_error "not a symlink: '$link'" rm-topo --topology "$BIG" draw --svg "$link"
	assert_equal "$(cat "$target")" keep
	[ -L "$link" ]
	run -1 rm-topo --topology "$BIG" draw --svg "$BATS_TEST_TMPDIR/no/such/dir.svg"
}

@test "draw: usage errors change nothing" {
	local svg=$BATS_TEST_TMPDIR/x.svg
	usage_error "exclude each other" rm-topo --topology "$BIG" draw --ascii --svg "$svg"
	[ ! -e "$svg" ]
	usage_error "empty --svg" rm-topo --topology "$BIG" draw --svg ""
	usage_error "unexpected argument" rm-topo --topology "$BIG" draw extra
	usage_error "" rm-topo --topology "$BIG" draw --no-such-option
}
