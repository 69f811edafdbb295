# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo calc: locations, set operations, output forms and errors, checked against hwloc-calc.

load ../test_helper

# 2 packages x 2 dies (one NUMA node each) x 2 L3 x 2 L2/L1d/cores x 2 threads: 32 CPUs.
DEEP="package:2 die:2 numa:1 l3:2 l2:2 l1d:1 core:1 pu:2"
# 2 packages x 2 NUMA nodes x 2 L3 x 4 cores x 2 threads: 64 CPUs.
BIG="package:2 numa:2 l3:2 core:4 pu:2"
# SMT siblings numbered as Linux does on x86: core 0 holds CPUs 0 and 4, core 1 CPUs 1 and 5...
# so hwloc's logical PU order (0,4,1,5,2,6,3,7) is not the kernel's.
SMT="package:2 numa:1 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)"
# Packages and NUMA nodes whose kernel numbers differ from hwloc's logical ones:
# package L#0 is P#1 and holds node P#3 (CPUs 0-1); package L#1 is P#0 with node P#5 (CPUs 2-3).
RENUM="package:2(indexes=1,0) numa:1(indexes=3,5) core:2 pu:1"

# A comma-separated list of numbers (hwloc-calc -I) as a sorted kernel cpulist.
ranges() {
	tr ',' '\n' | sort -n | awk '
		NF && !n { s = e = $1; n = 1; next }
		NF && $1 == e + 1 { e = $1; next }
		NF { out = out sep (s == e ? s : s "-" e); sep = ","; s = e = $1 }
		END { if (n) out = out sep (s == e ? s : s "-" e); print out }'
}

# A mask of hwloc-calc (0x0000ffff,0x0) or of rm-topo (ffff,00000000) in one form: no 0x, no
# leading zeros, 8 digits in every word after the first.
norm_mask() {
	local m w out=
	read -r m
	IFS=, read -ra words <<<"${m//0x/}"
	for w in "${words[@]}"; do
		if [ -z "$out" ]; then
			out=$(printf '%x' "0x$w")
		else
			out+=,$(printf '%08x' "0x$w")
		fi
	done
	echo "$out"
}

# rm-topo calc on TOPO prints EXPECTED for ARGS, and so does hwloc-calc with HWARGS (its
# comma-separated indexes as a cpulist).
# usage: agree TOPO EXPECTED "RM-TOPO ARGS" "HWLOC-CALC ARGS"  (each word-split)
agree() {
	local topo=$1 expected=$2 hw
	# shellcheck disable=SC2086
	run -0 rm-topo --topology "$topo" calc $3
	assert_equal "$output" "$expected"
	# shellcheck disable=SC2086
	hw=$(hwloc-calc -i "$topo" $4 2>/dev/null | ranges)
	assert_equal "$hw" "$expected"
}

# The CPUs of LOCATIONS (logical indexes), from rm-topo and from hwloc-calc, are EXPECTED.
cpus_are() {
	local topo=$1 expected=$2
	shift 2
	run -0 rm-topo --topology "$topo" calc "$@"
	assert_equal "$output" "$expected"
	assert_equal "$(hwloc-calc -i "$topo" --po -I pu "$@" 2>/dev/null | ranges)" "$expected"
}

# The same with --physical (hwloc-calc -p).
physical_cpus_are() {
	local topo=$1 expected=$2
	shift 2
	run -0 rm-topo --topology "$topo" calc --physical "$@"
	assert_equal "$output" "$expected"
	assert_equal "$(hwloc-calc -i "$topo" -p -I pu "$@" 2>/dev/null | ranges)" "$expected"
}


# ---- locations ----

@test "every location type, as hwloc-calc computes it" {
	cpus_are "$DEEP" 0-31 machine:0
	cpus_are "$DEEP" 16-31 package:1
	cpus_are "$DEEP" 16-31 socket:1
	cpus_are "$DEEP" 8-15 die:1
	cpus_are "$DEEP" 24-31 node:3
	cpus_are "$DEEP" 24-31 numa:3
	cpus_are "$DEEP" 4-7 l3:1
	cpus_are "$DEEP" 6-7 l2:3
	cpus_are "$DEEP" 10-11 l1:5
	cpus_are "$DEEP" 4-11 core:2-5
	cpus_are "$DEEP" 0-3 pu:0-3
	run -0 rm-topo --topology "$DEEP" calc cpu:0-3
	assert_output "0-3"
	run -0 rm-topo --topology "$DEEP" calc CPU:5 Node:0
	assert_output "0-7"
}

@test "index lists: ranges and commas inside a location" {
	cpus_are "$BIG" 16-47 node:1-2
	run -0 rm-topo --topology "$BIG" calc core:0,2
	assert_output "0-1,4-5"
	run -0 rm-topo --topology "$BIG" calc core:0-1,4,30-40
	assert_output "0-3,8-9,60-63"
	cpus_are "$BIG" 8-23 l3:1-2
	run -0 rm-topo --topology "$BIG" calc l3:0,3
	assert_output "0-7,24-31"
}

@test "chained locations: package:1.core:0 and deeper" {
	cpus_are "$BIG" 32-33 package:1.core:0
	cpus_are "$BIG" 16-31 package:0.numa:1
	cpus_are "$BIG" 35,37 package:1.core:1-2.pu:1
	cpus_are "$DEEP" 27 package:1.die:1.l3:0.core:1.pu:1
	# indexes below the first level count inside the parent
	cpus_are "$BIG" 16-17 package:0.core:8
}

@test "all, node:all and TYPE:all" {
	cpus_are "$BIG" 0-63 all
	cpus_are "$BIG" 0-63 node:all
	cpus_are "$DEEP" 16-31 package:1.core:all
	run -0 rm-topo --topology "$BIG" calc ALL
	assert_output "0-63"
}

@test "plain cpulists and masks" {
	run -0 rm-topo --topology "$BIG" calc 0-3,8
	assert_output "0-3,8"
	run -0 rm-topo --topology "$BIG" calc 8 0-3
	assert_output "0-3,8"
	cpus_are "$BIG" 0-3 0x0f
	cpus_are "$BIG" 4-11 0xff0
	run -0 rm-topo --topology "$BIG" calc ff,00000000
	assert_output "32-39"
	assert_equal "$(hwloc-calc -i "$BIG" --po -I pu 0xff,0x00000000 2>/dev/null | ranges)" "32-39"
	run -0 rm-topo --topology "$BIG" calc 80000000,00000001
	assert_output "0,63"
}

@test "plain cpulists in the kernel's stride form" {
	run -0 rm-topo --topology "$BIG" calc 0-15:2/4
	assert_output "0-1,4-5,8-9,12-13"
}

@test "the union of several locations is the default" {
	cpus_are "$BIG" 16-47 node:1 node:2
	cpus_are "$BIG" 0-1,32-63 core:0 package:1
	run -0 rm-topo --topology "$BIG" calc node:1 node:1 16-17
	assert_output "16-31"
}

# ---- set operations ----

@test "--and: intersection, as hwloc-calc's x prefix" {
	agree "$BIG" 16-31 "--and package:0 node:1" "--po -I pu package:0 xnode:1"
	run -0 rm-topo --topology "$BIG" calc --and package:0 node:1
	assert_output "16-31"
	run -0 rm-topo --topology "$BIG" calc -a node:0 l3:1 8-11,40
	assert_output "8-11"
	run -0 rm-topo --topology "$BIG" calc --and node:0 node:1
	assert_output ""
	assert_equal "$(hwloc-calc -i "$BIG" node:0 xnode:1 2>/dev/null)" "0x0"
}

@test "--not: the first location less the others, as hwloc-calc's ~ prefix" {
	run -0 rm-topo --topology "$BIG" calc --not all node:0 node:3
	assert_output "16-47"
	assert_equal "$(hwloc-calc -i "$BIG" --po -I pu all ~node:0 ~node:3 2>/dev/null | ranges)" "16-47"
	run -0 rm-topo --topology "$BIG" calc -x package:1 core:16 62-63
	assert_output "34-61"
	assert_equal "$(hwloc-calc -i "$BIG" --po -I pu package:1 ~core:16 ~0xc0000000,0x0 2>/dev/null | ranges)" "34-61"
	# with one location, that location
	run -0 rm-topo --topology "$BIG" calc --not node:1
	assert_output "16-31"
}

@test "--and and --not exclude each other" {
	usage_error "options --and and --not exclude each other" \
		rm-topo --topology "$BIG" calc --and --not node:0 node:1
}

# ---- output forms ----

@test "--mask: a hex mask as in cpumap files, the value hwloc-calc gives" {
	local loc
	run -0 rm-topo --topology "$BIG" calc --mask node:1
	assert_output "ffff0000"
	run -0 rm-topo --topology "$BIG" calc --mask all
	assert_output "ffffffff,ffffffff"
	run -0 rm-topo --topology "$BIG" calc -m 32-35
	assert_output "f,00000000"
	run -0 rm-topo --topology "$BIG" calc --mask --not all all
	assert_output "0"
	for loc in node:0 node:1 package:1 core:16 pu:63 l3:3 all; do
		run -0 rm-topo --topology "$BIG" calc --mask "$loc"
		assert_equal "$output" "$(hwloc-calc -i "$BIG" "$loc" 2>/dev/null | norm_mask)"
	done
}

@test "--count: the number of CPUs, as hwloc-calc -N pu" {
	agree "$BIG" 16 "--count node:1" "-N pu node:1"
	agree "$BIG" 64 "--count all" "-N pu all"
	agree "$DEEP" 2 "-N l2:3" "-N pu l2:3"
	run -0 rm-topo --topology "$BIG" calc --count --and node:0 node:1
	assert_output "0"
}

@test "--objects node: which NUMA nodes a set touches, as hwloc-calc -I node" {
	agree "$BIG" 0 "--objects node 3-9" "-I node 0x3f8"
	agree "$BIG" 0-1 "--objects node 14-17" "-I node 0x3c000"
	run -0 rm-topo --topology "$BIG" calc --objects node package:1 core:0
	assert_output "0,2-3"
	run -0 rm-topo --topology "$BIG" calc -O numa --count all
	assert_output "4"
}

@test "--objects core with --count, and other object types" {
	agree "$BIG" 4 "--objects core --count 3-9" "-N core 0x3f8"
	run -0 rm-topo --topology "$BIG" calc --objects core 3-9
	assert_output "1-4"
	assert_equal "$(hwloc-calc -i "$BIG" -I core 0x3f8 2>/dev/null | ranges)" "1-4"
	agree "$BIG" 8 "--objects l3 --count all" "-N l3 all"
	agree "$DEEP" 2 "--objects die --count package:1" "-N die package:1"
	run -0 rm-topo --topology "$BIG" calc --objects package node:2
	assert_output "1"
	run -0 rm-topo --topology "$BIG" calc --objects cpu 1-3
	assert_output "1-3"
}

@test "--mask excludes --count and --objects; --objects takes a known type" {
	usage_error "option --mask excludes --count and --objects" \
		rm-topo --topology "$BIG" calc --mask --count all
	usage_error "option --mask excludes --count and --objects" \
		rm-topo --topology "$BIG" calc --mask --objects node all
	usage_error "unknown object type: 'frob'" rm-topo --topology "$BIG" calc --objects frob all
}

# ---- logical and physical indexes ----

@test "logical and --physical PU indexes differ when SMT siblings are numbered apart" {
	cpus_are "$SMT" 4 pu:1
	physical_cpus_are "$SMT" 1 pu:1
	cpus_are "$SMT" 0-1,4-5 pu:0-3
	physical_cpus_are "$SMT" 0-3 pu:0-3
	cpus_are "$SMT" 1,5 core:1
	cpus_are "$SMT" 6 package:1.pu:1
	run -0 rm-topo --topology "$SMT" calc --logical pu:1
	assert_output "4"
	# a plain cpulist is always the kernel's numbers
	run -0 rm-topo --topology "$SMT" calc 1
	assert_output "1"
	run -0 rm-topo --topology "$SMT" calc --physical 1
	assert_output "1"
}

@test "logical and --physical package and node indexes" {
	cpus_are "$RENUM" 0-1 package:0
	physical_cpus_are "$RENUM" 2-3 package:0
	cpus_are "$RENUM" 2-3 node:1
	physical_cpus_are "$RENUM" 0-1 node:3
	physical_cpus_are "$RENUM" 2-3 node:5
	usage_error "no such location on this machine: 'node:3'" rm-topo --topology "$RENUM" calc node:3
	usage_error "no such location on this machine: 'node:1'" \
		rm-topo --topology "$RENUM" calc --physical node:1
}

@test "--objects gives logical or, with --physical, kernel numbers" {
	agree "$RENUM" 0 "--objects node 0-1" "-I node 0x3"
	agree "$RENUM" 3 "--physical --objects node 0-1" "-p -I node 0x3"
	agree "$RENUM" 0 "--objects package 0-1" "-I package 0x3"
	agree "$RENUM" 0 "-p --objects package 2" "-p -I package 0x4"
	run -0 rm-topo --topology "$RENUM" calc --physical --objects node all
	assert_output "3,5"
	run -0 rm-topo --topology "$SMT" calc --objects cpu 4
	assert_output "1"
	run -0 rm-topo --topology "$SMT" calc --objects pu --physical 4
	assert_output "4"
}

# ---- standard input ----

@test "without locations, one result per line of standard input" {
	printf 'node:0\npackage:1 node:0\n\ncore:0\n' >"$BATS_TEST_TMPDIR/in"
	run -0 rm-topo --topology "$BIG" calc <"$BATS_TEST_TMPDIR/in"
	assert_output - <<'EOF'
0-15
0-15,32-63
0-1
EOF
	printf 'node:0\nall\n' >"$BATS_TEST_TMPDIR/in"
	run -0 rm-topo --topology "$BIG" calc --count <"$BATS_TEST_TMPDIR/in"
	assert_output "$(printf '16\n64')"
	printf 'package:0 node:1\n\tall  l3:7 \n' >"$BATS_TEST_TMPDIR/in"
	run -0 rm-topo --topology "$BIG" calc --and <"$BATS_TEST_TMPDIR/in"
	assert_output "$(printf '16-31\n56-63')"
	run -0 rm-topo --topology "$BIG" calc </dev/null
	assert_output ""
}

@test "standard input: a bad line is reported, the others still printed, exit 2" {
	printf 'node:0\nfrob:1\nnode:1\n99\ncore:0\n' >"$BATS_TEST_TMPDIR/in"
	run -2 --separate-stderr rm-topo --topology "$BIG" calc <"$BATS_TEST_TMPDIR/in"
	assert_output - <<'EOF'
0-15
16-31
0-1
EOF
	assert_equal "${#stderr_lines[@]}" 2
	assert_equal "${stderr_lines[0]}" "rm-topo: unknown location type 'frob' in 'frob:1'"
	assert_equal "${stderr_lines[1]}" "rm-topo: CPUs not on this machine: '99' (it has 0-63)"
}

# ---- errors ----

@test "errors: unknown type, index out of range, reversed range, CPUs not on the machine" {
	usage_error "unknown location type 'frob' in 'frob:1'" rm-topo --topology "$BIG" calc frob:1
	usage_error "unknown location type 'frob' in 'package:0.frob:1'" \
		rm-topo --topology "$BIG" calc package:0.frob:1
	usage_error "no such location on this machine: 'node:4'" rm-topo --topology "$BIG" calc node:4
	usage_error "no such location on this machine: 'cpu:64'" rm-topo --topology "$BIG" calc cpu:64
	usage_error "no such location on this machine: 'package:1.core:16'" \
		rm-topo --topology "$BIG" calc package:1.core:16
	usage_error "invalid range '3-1'" rm-topo --topology "$BIG" calc 3-1
	usage_error "invalid location 'node:3-1'" rm-topo --topology "$BIG" calc node:3-1
	usage_error "invalid location 'node:x'" rm-topo --topology "$BIG" calc node:x
	usage_error "CPUs not on this machine: '64-70' (it has 0-63)" \
		rm-topo --topology "$BIG" calc 0-70
	usage_error "CPUs not on this machine: '64'" rm-topo --topology "$BIG" calc 1,00000000,00000000
	usage_error "expected TYPE:INDEXES" rm-topo --topology "$BIG" calc package:0.core
	# the first bad location stops the line: nothing printed
	usage_error "frob:1" rm-topo --topology "$BIG" calc node:0 frob:1
}

@test "errors: unknown options exit 2 with the message first" {
	usage_error "unrecognized option '--frob'" rm-topo --topology "$BIG" calc --frob all
	usage_error "invalid option -- 'J'" rm-topo --topology "$BIG" calc -J all
}

@test "a write error on stdout exits 1" {
	run -1 --separate-stderr bash -c "rm-topo --topology '$BIG' calc all >/dev/full"
	assert_equal "$stderr" "rm-topo: write error: No space left on device"
	run -1 --separate-stderr bash -c "echo all | rm-topo --topology '$BIG' calc >/dev/full"
	[[ $stderr == "rm-topo: write error"* ]]
}

@test "RM_TOPOLOGY and options after the locations" {
	RM_TOPOLOGY=$BIG run -0 rm-topo calc node:3
	assert_output "48-63"
	RM_TOPOLOGY=$BIG run -0 rm-topo calc node:3 --topology "$DEEP"
	assert_output "24-31"
	run -0 rm-topo calc pu:1 --topology "$SMT" --physical
	assert_output "1"
}
