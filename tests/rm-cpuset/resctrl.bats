#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset's L3 ways and memory bandwidth: resctrl groups on FUSE fakes that enforce the kernel's
# rules (two-socket Intel, with CDP, AMD with an L3 per CCX), refusals, undo, run, apply, mount.
load ../test_helper
load ../cgroup_helper
load ../resctrl_helper

# The fakes' machines as synthetic topologies: L3 logical ids are the fakes' domain ids.
TI="package:2 numa:1 l3:1 core:8 pu:2" # Intel: L3 0 holds CPUs 0-15, L3 1 CPUs 16-31
TA="package:1 numa:1 l3:8 core:3 pu:2" # AMD: L3 k holds CPUs 6k to 6k+5

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	STATE="$RM_STATE_DIR/cpuset.state"
	R=$BATS_TEST_TMPDIR/resctrl
	TOPO=$TI
}

teardown() {
	sleeps_cleanup
	fakes_cleanup
}

cs() { rm-cpuset --topology "$TOPO" "$@"; }

intel() { start_resctrl "$R" --layout intel-2s --cpus 0-31 "$@"; }

state_sum() { if [ -e "$STATE" ]; then md5sum <"$STATE"; else echo none; fi; }

# Refused with exit status STATUS and MESSAGE on stderr; nothing on stdout, and the state and
# the resctrl tree as they were: refused STATUS MESSAGE COMMAND...
refused() {
	local status=$1 msg=$2 before
	shift 2
	before=$(state_sum)
	dump_resctrl "$R" >"$BATS_TEST_TMPDIR/before"
	run "-$status" --separate-stderr "$@"
	assert_equal "$output" ""
	[[ $stderr == *"$msg"* ]] || fail "stderr: '$stderr', expected: '$msg'"
	assert_equal "$(state_sum)" "$before"
	dump_resctrl "$R" >"$BATS_TEST_TMPDIR/after"
	run diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_success
}

# ---- Intel, two sockets ----

@test "intel: --l3-ways gives the owner a group with its CPUs and contiguous ways in its L3 domains" {
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 4 -o owner,cpus,l3_ways,l3_exclusive,l3_masks,resctrl
	assert_output "owner=web cpus=0-3 l3_ways=4 l3_exclusive=no l3_masks=0:780 resctrl=$R/rmtools.web"
	# ways 7-10 of socket 0; on socket 1, where it has no CPU, the default group's
	run -0 cat "$R/rmtools.web/schemata" "$R/rmtools.web/mode" "$R/rmtools.web/cpus_list"
	assert_output $'L3:0=780;1=7ff\nMB:0=100;1=100\nshareable\n0-3'
	# shared: the default group keeps every way
	run -0 cat "$R/schemata"
	assert_output $'L3:0=7ff;1=7ff\nMB:0=100;1=100'
	run -0 grep '^owner=web ' "$STATE"
	assert_output --regexp ' created=[0-9]+ l3_ways=4 l3_exclusive=no l3_masks=0:780 mem_bandwidth=- mb=-$'
	# the next owners' ways are kept apart from the others' while there are ways to spare
	run -0 cs alloc --count 2 --owner db --l3-ways 4 -o l3_masks
	assert_output 'l3_masks=0:078'
	run -0 cs alloc --count 20 --owner wide --l3-ways 2 -o cpus,l3_masks
	assert_output 'cpus=6-9,16-31 l3_masks=0:006,1:600'
	# show: the division of each L3, group by group
	run -0 cs show
	assert_line 'l3_id=0 group=default owner=- mask=7ff ways=0-10 count=11 mode=shareable code_mask=- mb=100'
	assert_line 'l3_id=0 group=rmtools.db owner=db mask=078 ways=3-6 count=4 mode=shareable code_mask=- mb=100'
	assert_line 'l3_id=0 group=rmtools.web owner=web mask=780 ways=7-10 count=4 mode=shareable code_mask=- mb=100'
	assert_line 'l3_id=1 group=rmtools.wide owner=wide mask=600 ways=9-10 count=2 mode=shareable code_mask=- mb=100'
	assert_equal "$(printf '%s\n' "$output" | grep -c '^l3_id=')" 8
	run -0 cs show -J
	run -0 jq -c '[(.l3_ways | length), .l3_ways[1].group, .l3_ways[1].ways]' <<<"$output"
	assert_output '[8,"rmtools.db","3-6"]'
	# an owner without resctrl options gets no group and no fields
	run -0 cs alloc --count 1 --owner plain -o l3_ways,l3_masks,resctrl
	assert_output 'l3_ways=0 l3_masks=- resctrl=-'
	[ ! -e "$R/rmtools.plain" ]
	run -0 grep '^owner=plain ' "$STATE"
	assert_output --regexp ' created=[0-9]+$'
}

@test "intel: --l3-exclusive takes the ways from the default group; the kernel keeps others off them" {
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive -o l3_exclusive,l3_masks
	# socket 1: the one way exclusive mode needs in every domain (min_cbm_bits 1)
	assert_output 'l3_exclusive=yes l3_masks=0:700,1:400'
	run -0 cat "$R/schemata" "$R/rmtools.web/mode"
	assert_output $'L3:0=0ff;1=3ff\nMB:0=100;1=100\nexclusive'
	# the fake, as the kernel, refuses another group on those ways
	mkdir "$R/other"
	run ! sh -c "echo 'L3:0=300' >'$R/other/schemata'"
	run -0 cat "$R/info/last_cmd_status"
	assert_output 'Overlaps with exclusive group'
	rmdir "$R/other"
	# a second exclusive owner takes the next ways from the end of the default group's
	run -0 cs alloc --count 2 --owner db --l3-ways 2 --l3-exclusive -o l3_masks
	assert_output 'l3_masks=0:0c0,1:200'
	run -0 cat "$R/schemata"
	assert_output $'L3:0=03f;1=1ff\nMB:0=100;1=100'
	# a shared owner: among the ways no exclusive group has
	run -0 cs alloc --count 2 --owner batch --l3-ways 4 -o l3_masks
	assert_output 'l3_masks=0:03c'
	run -0 cs list -o owner,l3_exclusive
	assert_output $'owner=web l3_exclusive=yes\nowner=db l3_exclusive=yes\nowner=batch l3_exclusive=no'
}

@test "intel: min_cbm_bits 2: fewer ways are refused, and exclusive mode takes 2 in the other socket" {
	intel --min-cbm-bits 2
	refused 2 "--l3-ways 1: the L3 takes at least 2 ways a group (min_cbm_bits)" \
		cs alloc --count 2 --owner web --l3-ways 1
	run -0 cs alloc --count 2 --owner web --l3-ways 3 --l3-exclusive -o l3_masks
	assert_output 'l3_masks=0:700,1:600'
	# the default group keeps at least 2 ways in one run
	refused 3 "no 7 contiguous ways for exclusive use in L3 domain 0 (free: 0ff, 8 ways, at most 8 in a row; taking them must leave the default group, 0ff, at least 2 in one run)" \
		cs alloc --count 2 --owner db --l3-ways 7 --l3-exclusive
	run -0 cs alloc --count 2 --owner db --l3-ways 6 --l3-exclusive -o l3_masks
	assert_output 'l3_masks=0:0fc,1:180'
}

@test "intel: release removes the group; its tasks and CPUs go back, the default group gets its ways back" {
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive
	sleep 600 </dev/null >/dev/null 2>&1 3>&- 9>&- &
	SLEEPS+=($!)
	echo $! >"$R/rmtools.web/tasks"
	run -0 cs release web -o owner,l3_masks
	assert_output 'owner=web l3_masks=0:700,1:400'
	[ ! -e "$R/rmtools.web" ]
	run -0 cat "$R/schemata" "$R/cpus_list"
	assert_output $'L3:0=7ff;1=7ff\nMB:0=100;1=100\n0-31'
	grep -qx "${SLEEPS[0]}" "$R/tasks"
	# release --all takes every group, and leaves other tools' alone
	mkdir "$R/other"
	echo 'L3:0=001;1=001' >"$R/other/schemata"
	run -0 cs alloc --count 2 --owner a --l3-ways 2 --l3-exclusive
	run -0 cs alloc --count 2 --owner b --mem-bandwidth 30%
	run -0 cs release --all
	run -0 ls "$R"
	refute_output --partial rmtools.
	assert_line other
	run -0 cat "$R/schemata"
	assert_output $'L3:0=7ff;1=7ff\nMB:0=100;1=100'
}

@test "intel: not enough free ways: exit 3, what is free, nothing changed" {
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 4 --l3-exclusive
	refused 3 "rm-cpuset: no 8 contiguous ways for exclusive use in L3 domain 0 (free: 07f, 7 ways, at most 7 in a row; taking them must leave the default group, 07f, at least 1 in one run)" \
		cs alloc --count 2 --owner db --l3-ways 8 --l3-exclusive
	run -0 cs release web
	run -0 cs alloc --count 4 --owner web --l3-ways 9 --l3-exclusive
	refused 3 "rm-cpuset: no 3 contiguous free ways in L3 domain 0 (free: 003, 2 ways, at most 2 in a row; the others are exclusive groups')" \
		cs alloc --count 2 --owner db --l3-ways 3
	# and the CPUs were not taken either
	run -0 cs list -o owner
	assert_output owner=web
}

@test "intel: out of CLOSIDs: exit 3 with the groups there are, nothing changed" {
	intel --closids 3
	run -0 cs alloc --count 2 --owner a --mem-bandwidth 50%
	run -0 cs alloc --count 2 --owner b --l3-ways 2
	refused 3 "no free resctrl CLOSID: the hardware has 3 (the default group, 2 of rmtools, 0 of other tools)" \
		cs alloc --count 2 --owner c --l3-ways 2
	refused 3 "no free resctrl CLOSID: the hardware has 3 (the default group, 2 of rmtools, 0 of other tools)" \
		cs alloc --count 2 --owner c --mem-bandwidth 20%
	# another tool's group counts too
	run -0 cs release a
	mkdir "$R/other"
	refused 3 "no free resctrl CLOSID: the hardware has 3 (the default group, 1 of rmtools, 1 of other tools)" \
		cs alloc --count 2 --owner c --l3-ways 2
	# an owner without resctrl options needs none
	run -0 cs alloc --count 2 --owner c
}

@test "intel: requests the hardware cannot meet at all exit 2 and change nothing" {
	intel
	run -0 cs alloc --count 2 --owner web --l3-ways 2
	refused 2 "invalid --l3-ways: '0' (a number of cache ways, at least 1)" \
		cs alloc --count 2 --owner db --l3-ways 0
	refused 2 "invalid --l3-ways: 'x'" cs alloc --count 2 --owner db --l3-ways x
	refused 2 "--l3-ways 12: the L3 has 11 ways (cbm_mask 7ff)" \
		cs alloc --count 2 --owner db --l3-ways 12
	refused 2 "--l3-exclusive needs --l3-ways N" cs alloc --count 2 --owner db --l3-exclusive
	refused 2 "invalid memory bandwidth: '0%' (a percentage from 1 to 100)" \
		cs alloc --count 2 --owner db --mem-bandwidth 0%
	refused 2 "invalid memory bandwidth: '150%' (a percentage from 1 to 100)" \
		cs alloc --count 2 --owner db --mem-bandwidth 150%
	refused 2 "memory bandwidth '5%': the least this machine allocates is 10%" \
		cs alloc --count 2 --owner db --mem-bandwidth 5%
	refused 2 "memory bandwidth '5GBps': this machine allocates a percentage (50%); a rate needs resctrl mounted with mba_MBps (rm-cpuset mount-resctrl --mba-mbps)" \
		cs alloc --count 2 --owner db --mem-bandwidth 5GBps
	refused 2 "invalid memory bandwidth: 'fast' (a percentage such as 50%, or a rate such as 5000MBps or 5GBps)" \
		cs alloc --count 2 --owner db --mem-bandwidth fast
	refused 2 "--shared takes no --l3-ways or --mem-bandwidth" \
		rm-cpuset run --shared --l3-ways 2 -- true
	refused 2 "--l3-ways and --mem-bandwidth are for a new allocation (--count N); 'web' keeps the ones it has" \
		rm-cpuset run --owner web --l3-ways 3 -- true
	# CPUs without an L3 in the topology cannot be mapped to resctrl domains
	TOPO="package:2 core:2 pu:1"
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state2
	STATE=$RM_STATE_DIR/cpuset.state
	refused 2 "the topology has no L3 cache for some of CPUs 0-1: cannot map them to resctrl domains" \
		cs alloc --count 2 --owner db --l3-ways 2
}

@test "without resctrl: --l3-ways and --mem-bandwidth exit 2 with why; other allocations go on" {
	mkdir -p "$R"
	export RM_RESCTRL_ROOT=$R
	if grep -qw resctrl /proc/filesystems; then
		refused 2 "rm-cpuset: --l3-ways needs resctrl: resctrl is not mounted at $R ('rm-cpuset mount-resctrl' mounts it)" \
			cs alloc --count 2 --owner web --l3-ways 2
	else
		refused 2 "rm-cpuset: --l3-ways needs resctrl: this machine has no resctrl at $R (no Intel RDT or AMD PQoS, or a kernel without resctrl)" \
			cs alloc --count 2 --owner web --l3-ways 2
	fi
	# a described topology keeps no resctrl groups
	unset RM_RESCTRL_ROOT
	refused 2 "rm-cpuset: --mem-bandwidth needs resctrl: no resctrl groups are kept for a described topology (--topology, --sysroot)" \
		cs alloc --count 2 --owner web --mem-bandwidth 50%
	refused 2 "needs resctrl" cs alloc --count 2 --owner web --l3-ways 2 --dry-run
	run -0 cs alloc --count 2 --owner web -o owner,resctrl
	assert_output 'owner=web resctrl=-'
	run -0 ls "$R"
	assert_output ''
}

@test "intel: --mem-bandwidth: rounded up to the granularity, only in the owner's domains" {
	intel
	run -0 cs alloc --count 4 --owner web --mem-bandwidth 15% -o l3_ways,mem_bandwidth,l3_masks
	assert_output 'l3_ways=0 mem_bandwidth=15% l3_masks=-'
	run -0 cat "$R/rmtools.web/schemata"
	assert_output $'L3:0=7ff;1=7ff\nMB:0= 20;1=100'
	run -0 grep '^owner=web ' "$STATE"
	assert_output --regexp ' l3_ways=- l3_exclusive=no l3_masks=- mem_bandwidth=15% mb=0:20$'
	run -0 cs alloc --count 4 --owner db --from 16-31 --mem-bandwidth 100% -o mem_bandwidth
	run -0 cat "$R/rmtools.db/schemata"
	assert_output $'L3:0=7ff;1=7ff\nMB:0=100;1=100'
	run -0 cs show
	assert_line 'l3_id=0 group=rmtools.web owner=web mask=7ff ways=0-10 count=11 mode=shareable code_mask=- mb=20'
}

@test "intel, mba_MBps: rates in MBps; percentages refused" {
	intel --mba-mbps
	run -0 cs alloc --count 4 --owner web --mem-bandwidth 5GBps -o mem_bandwidth
	assert_output 'mem_bandwidth=5000MBps'
	run -0 cat "$R/rmtools.web/schemata"
	assert_output $'L3:0=7ff;1=7ff\nMB:0=5000;1=4294967295'
	run -0 cs alloc --count 2 --owner db --mem-bandwidth 1500MB/s -o mem_bandwidth
	assert_output 'mem_bandwidth=1500MBps'
	refused 2 "memory bandwidth '50%': resctrl is mounted with mba_MBps, which takes a rate such as 5000MBps" \
		cs alloc --count 2 --owner x --mem-bandwidth 50%
	refused 2 "invalid memory bandwidth: '0MBps' (more than 0)" \
		cs alloc --count 2 --owner x --mem-bandwidth 0MBps
}

@test "intel with CDP: the owner's code and data masks are the same ways, half as many groups" {
	start_resctrl "$R" --layout intel-2s-cdp --cpus 0-31
	run -0 cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive -o l3_masks
	assert_output 'l3_masks=0:700,1:400'
	run -0 cat "$R/rmtools.web/schemata" "$R/schemata"
	assert_output $'L3CODE:0=700;1=400\nL3DATA:0=700;1=400\n    MB:0=100;1=100\nL3CODE:0=0ff;1=3ff\nL3DATA:0=0ff;1=3ff\n    MB:0=100;1=100'
	run -0 cs show
	assert_line 'l3_id=0 group=rmtools.web owner=web mask=700 ways=8-10 count=3 mode=exclusive code_mask=700 mb=100'
	# 8 CLOSIDs with CDP: the default group and 7 more
	for o in a b c d e f; do run -0 cs alloc --count 1 --owner "$o" --l3-ways 2; done
	refused 3 "no free resctrl CLOSID: the hardware has 8 (the default group, 7 of rmtools, 0 of other tools)" \
		cs alloc --count 1 --owner g --l3-ways 2
	run -0 cs release --all
	run -0 cat "$R/schemata"
	assert_output $'L3CODE:0=7ff;1=7ff\nL3DATA:0=7ff;1=7ff\n    MB:0=100;1=100'
}

# ---- AMD, an L3 per CCX ----

@test "amd: ways in the owner's CCX only (min_cbm_bits 0); bandwidth in eighths of GBps" {
	start_resctrl "$R" --layout amd-ccx --cpus 0-47
	TOPO=$TA
	run -0 cs alloc --count 6 --owner web --l3-ways 4 --l3-exclusive --mem-bandwidth 10GBps -o cpus,l3_masks,mem_bandwidth
	assert_output 'cpus=0-5 l3_masks=0:f000,1:0000,2:0000,3:0000,4:0000,5:0000,6:0000,7:0000 mem_bandwidth=10000MBps'
	run -0 cat "$R/rmtools.web/schemata" "$R/schemata"
	assert_output $'L3:0=f000;1=0000;2=0000;3=0000;4=0000;5=0000;6=0000;7=0000\nMB:0=  80;1=2048;2=2048;3=2048;4=2048;5=2048;6=2048;7=2048\nL3:0=0fff;1=ffff;2=ffff;3=ffff;4=ffff;5=ffff;6=ffff;7=ffff\nMB:0=2048;1=2048;2=2048;3=2048;4=2048;5=2048;6=2048;7=2048'
	# an owner over two CCXs, a percentage of the most
	run -0 cs alloc --count 12 --owner db --l3-ways 8 --mem-bandwidth 50% -o cpus,l3_masks
	assert_output 'cpus=6-17 l3_masks=1:ff00,2:ff00'
	run -0 grep '^owner=db ' "$STATE"
	assert_output --regexp ' mem_bandwidth=50% mb=1:1024,2:1024$'
	refused 2 "memory bandwidth '300GBps': AMD allocates at most 256000MBps" \
		cs alloc --count 2 --owner x --mem-bandwidth 300GBps
	run -0 cs release --all
	run -0 cat "$R/schemata"
	assert_output $'L3:0=ffff;1=ffff;2=ffff;3=ffff;4=ffff;5=ffff;6=ffff;7=ffff\nMB:0=2048;1=2048;2=2048;3=2048;4=2048;5=2048;6=2048;7=2048'
}

# ---- other groups, refusals, undo ----

@test "the fake refuses what the kernel refuses, with the kernel's reasons" {
	intel --closids 2 --min-cbm-bits 2
	# write DATA to FILE, expect a refusal and the reason in info/last_cmd_status
	refuse() {
		run ! sh -c "printf '$2' >'$R/$1'"
		run -0 cat "$R/info/last_cmd_status"
		assert_output "$3"
	}
	refuse schemata 'L3:0=505\n' 'The mask 505 has non-consecutive 1-bits'
	refuse schemata 'L3:0=001\n' 'Need at least 2 bits in the mask'
	refuse schemata 'L3:0=fff\n' 'Mask out of range'
	refuse schemata 'L3:0=xyz\n' 'Non-hex character in the mask xyz'
	refuse schemata 'L3 0=7ff\n' "Missing ':'"
	refuse schemata 'L3:0=7ff;0=7ff\n' 'Duplicate domain 0'
	refuse schemata 'L2:0=7ff\n' "Unknown or unsupported resource name 'L2'"
	refuse schemata 'MB:0=5\n' 'MB value 5 out of range [10,100]'
	refuse cpus_list '0-40\n' 'Can only assign online CPUs'
	# one write is all or nothing; MB is rounded up to the granularity
	run ! sh -c "printf 'MB:0=50\nL3:0=505\n' >'$R/schemata'"
	printf 'MB:1=15\n' >"$R/schemata"
	run -0 cat "$R/schemata"
	assert_output $'L3:0=7ff;1=7ff\nMB:0=100;1= 20'
	# 2 CLOSIDs: the default group and one more
	mkdir "$R/g1"
	run ! mkdir "$R/g2"
	run -0 cat "$R/info/last_cmd_status"
	assert_output 'Out of CLOSIDs'
	# an exclusive group: no overlap, either way
	refuse g1/mode 'exclusive\n' 'Schemata overlaps'
	printf 'L3:0=0ff;1=0ff\n' >"$R/schemata"
	printf 'L3:0=700;1=700\n' >"$R/g1/schemata"
	printf 'exclusive\n' >"$R/g1/mode"
	refuse schemata 'L3:0=7ff\n' 'Overlaps with exclusive group'
	refuse g1/schemata 'L3:0=780\n' 'Overlaps with other group'
}

@test "intel: ways the hardware shares with devices (shareable_bits) are never an exclusive owner's" {
	intel --shareable-bits 600
	run -0 cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive -o l3_masks
	# ways 9-10 are the devices': the ways come from the other end of the default group's
	assert_output 'l3_masks=0:007,1:001'
	run -0 cat "$R/schemata"
	assert_output $'L3:0=7f8;1=7fe\nMB:0=100;1=100'
	# a shared owner may have them
	run -0 cs alloc --count 4 --owner db --l3-ways 4 -o l3_masks
	assert_output 'l3_masks=0:780'
}

@test "other tools' groups: their ways are avoided and never changed; exclusive needs ways in every domain" {
	intel
	# another tool's exclusive group holds ways 8-10 of both sockets
	echo 'L3:0=0ff;1=0ff' >"$R/schemata"
	mkdir "$R/other"
	echo 'L3:0=700;1=700' >"$R/other/schemata"
	echo exclusive >"$R/other/mode"
	run -0 cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive -o l3_masks
	assert_output 'l3_masks=0:0e0,1:080'
	run -0 cat "$R/other/schemata" "$R/other/mode"
	assert_output $'L3:0=700;1=700\nMB:0=100;1=100\nexclusive'
	# a shareable group of another tool holding every way the default group has left on socket 1
	mkdir "$R/batch2"
	echo 'L3:0=018;1=07f' >"$R/batch2/schemata"
	refused 3 "no 1 contiguous ways for exclusive use in L3 domain 1 (free: 000, 0 ways, at most 0 in a row; taking them must leave the default group, 07f, at least 1 in one run); the kernel's exclusive mode needs ways of the group in every domain, also those its CPUs are not in" \
		cs alloc --count 2 --owner db --l3-ways 2 --l3-exclusive
	# shared, it may overlap batch2 but not the exclusive groups
	run -0 cs alloc --count 2 --owner db --l3-ways 2 -o l3_masks
	assert_output 'l3_masks=0:006'
}

@test "a write the kernel refuses: its reason quoted, exit 1, the groups and the cgroups undone" {
	# the fake has CPUs 0-15 online only: the CPUs of socket 1 are refused in cpus_list
	intel
	stop_resctrl "$R"
	start_resctrl "$R" --layout intel-2s --cpus 0-15
	start_fake "$BATS_TEST_TMPDIR/cg" --cpus 0-31 --mems 0-1
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	run -0 cs alloc --count 4 --owner a --l3-ways 2 --l3-exclusive
	dump_tree "$RM_CGROUP_ROOT" >"$BATS_TEST_TMPDIR/cg-before"
	refused 1 "rm-cpuset: cannot write '16-19' to $R/rmtools.web/cpus_list: Invalid argument (resctrl: Can only assign online CPUs); nothing was changed" \
		cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive --from 16-31
	dump_tree "$RM_CGROUP_ROOT" >"$BATS_TEST_TMPDIR/cg-after"
	run diff -u "$BATS_TEST_TMPDIR/cg-before" "$BATS_TEST_TMPDIR/cg-after"
	assert_success
	[ -d "$RM_CGROUP_ROOT/rmtools.slice/a" ]
	[ ! -e "$RM_CGROUP_ROOT/rmtools.slice/web" ]
}

@test "apply: after a reboot the groups are made again with the same ways; dry-run, update, remove" {
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 3 --l3-exclusive
	run -0 cs alloc --count 2 --owner db --mem-bandwidth 50%
	# a reboot: a fresh resctrl
	stop_resctrl "$R"
	start_resctrl "$R" --layout intel-2s --cpus 0-31
	run -0 cs apply --dry-run
	assert_output "group=rmtools.web owner=web cpus=0-3 action=create path=$R/rmtools.web
group=rmtools.db owner=db cpus=4-5 action=create path=$R/rmtools.db"
	[ ! -e "$R/rmtools.web" ]
	run -0 cs apply -J
	run -0 jq -c '[.resctrl_groups[].action]' <<<"$output"
	assert_output '["create","create"]'
	run -0 cat "$R/rmtools.web/schemata" "$R/rmtools.web/mode" "$R/rmtools.db/schemata" "$R/schemata"
	assert_output $'L3:0=700;1=400\nMB:0=100;1=100\nexclusive\nL3:0=0ff;1=3ff\nMB:0= 50;1=100\nL3:0=0ff;1=3ff\nMB:0=100;1=100'
	run -0 cs apply -o cgroup
	assert_output "group=rmtools.web owner=web cpus=0-3 action=keep path=$R/rmtools.web
group=rmtools.db owner=db cpus=4-5 action=keep path=$R/rmtools.db"
	# someone changed a group, and left one of rmtools' that no owner has; another tool's stays
	echo 'MB:0=100' >"$R/rmtools.db/schemata"
	mkdir "$R/rmtools.stray" "$R/other"
	run -0 cs apply
	assert_output "group=rmtools.web owner=web cpus=0-3 action=keep path=$R/rmtools.web
group=rmtools.db owner=db cpus=4-5 action=update path=$R/rmtools.db
group=rmtools.stray owner=stray cpus=- action=remove path=$R/rmtools.stray"
	run -0 cat "$R/rmtools.db/schemata"
	assert_output $'L3:0=0ff;1=3ff\nMB:0= 50;1=100'
	[ ! -e "$R/rmtools.stray" ]
	[ -d "$R/other" ]
	# not mounted: apply refuses, other commands warn and go on
	stop_resctrl "$R"
	refused 1 "owners have L3 ways or memory bandwidth, but resctrl is not mounted ('rm-cpuset mount-resctrl' first); nothing was changed" \
		cs apply
	run -0 --separate-stderr cs alloc --count 2 --owner plain -o owner
	assert_output owner=plain
	[[ $stderr == *"the L3 ways and memory bandwidth of 2 owners are not kept"* ]] || fail "$stderr"
}

@test "run: the command's process joins the owner's group, which goes when it ends" {
	local l3
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	l3=$(rm-topo cpus -o cpu,l3 --raw | awk '$1 == 0 { print $2 }')
	[ "$l3" = 0 ] || skip "CPU 0 of this machine is not in L3 0"
	intel --cpus "0-$(($(nproc --all) - 1))"
	run -0 rm-cpuset --no-cgroups run --count 1 --owner job --l3-ways 2 --mem-bandwidth 40% -- \
		sh -c 'cat "$RM_RESCTRL_ROOT/rmtools.job/tasks" "$RM_RESCTRL_ROOT/rmtools.job/schemata"; echo "$$"'
	assert_equal "${lines[0]}" "${lines[3]}"
	assert_equal "${lines[1]}" 'L3:0=600;1=7ff'
	assert_equal "${lines[2]}" 'MB:0= 40;1=100'
	[ ! -e "$R/rmtools.job" ]
	# an existing owner's group
	run -0 rm-cpuset --no-cgroups alloc --count 1 --owner web --l3-ways 2 --l3-exclusive
	run -0 rm-cpuset --no-cgroups run --owner web -- sh -c 'cat "$RM_RESCTRL_ROOT/rmtools.web/tasks"; echo "$$"'
	assert_equal "${lines[0]}" "${lines[1]}"
	[ -d "$R/rmtools.web" ]
	run -0 rm-cpuset --no-cgroups release web
	[ ! -e "$R/rmtools.web" ]
}

# ---- mount-resctrl ----

@test "mount-resctrl: without resctrl in /proc/filesystems: a clear message, exit 1" {
	mkdir -p "$BATS_TEST_TMPDIR/root/proc" "$R"
	printf 'nodev\tsysfs\nnodev\tcgroup2\n\text4\n' >"$BATS_TEST_TMPDIR/root/proc/filesystems"
	export RM_SYSROOT=$BATS_TEST_TMPDIR/root RM_RESCTRL_ROOT=$R
	for opts in "" "--cdp --dry-run"; do
		# shellcheck disable=SC2086 # the options are words
		run -1 --separate-stderr rm-cpuset mount-resctrl $opts
		assert_output ''
		assert_equal "$stderr" "rm-cpuset: this machine has no resctrl: 'resctrl' is not in /proc/filesystems (no Intel RDT or AMD PQoS, or a kernel built without CONFIG_X86_CPU_RESCTRL)"
	done
	! mountpoint -q "$R"
	usage_error "output options do not apply to 'mount-resctrl'" rm-cpuset -J mount-resctrl
	run -2 --separate-stderr rm-cpuset mount-resctrl --json
	assert_equal "${stderr_lines[0]}" "rm-cpuset mount-resctrl: unrecognized option '--json'"
	run -2 --separate-stderr rm-cpuset mount-resctrl x
	assert_equal "${stderr_lines[0]}" "rm-cpuset mount-resctrl: unexpected argument: 'x'"
}

@test "mount-resctrl --dry-run: the record of the mount it would make, nothing mounted" {
	mkdir -p "$BATS_TEST_TMPDIR/root/proc" "$R"
	printf 'nodev\tsysfs\nnodev\tresctrl\n' >"$BATS_TEST_TMPDIR/root/proc/filesystems"
	export RM_SYSROOT=$BATS_TEST_TMPDIR/root RM_RESCTRL_ROOT=$R
	run -0 rm-cpuset mount-resctrl --cdp --mba-mbps --dry-run
	assert_output "resctrl=$R action=mount options=cdp,mba_MBps"
	run -0 rm-cpuset mount-resctrl --dry-run
	assert_output "resctrl=$R action=mount options=\"\""
	! mountpoint -q "$R"
}

@test "mount-resctrl: a mount the kernel refuses exits 1 with its reason" {
	require_root
	grep -qw resctrl /proc/filesystems && skip "this kernel has resctrl: not mounting it for a test"
	mkdir -p "$BATS_TEST_TMPDIR/root/proc" "$R"
	printf 'nodev\tresctrl\n' >"$BATS_TEST_TMPDIR/root/proc/filesystems"
	RM_SYSROOT=$BATS_TEST_TMPDIR/root RM_RESCTRL_ROOT=$R run -1 --separate-stderr rm-cpuset mount-resctrl --cdp
	assert_equal "$stderr" "rm-cpuset: cannot mount resctrl on $R with cdp: No such device (this machine has no resctrl)"
	! mountpoint -q "$R"
}

@test "mount-resctrl: mounted already: kept with the options asked, exit 1 with others" {
	intel
	run -0 rm-cpuset mount-resctrl
	assert_output "resctrl=$R action=keep options=\"\""
	run -1 --separate-stderr rm-cpuset mount-resctrl --cdp
	assert_equal "$stderr" "rm-cpuset: resctrl is mounted at $R without cdp and without mba_MBps; to change that, unmount it (umount $R; its groups go) and mount it again"
	stop_resctrl "$R"
	start_resctrl "$R" --layout intel-2s-cdp --mba-mbps
	run -0 rm-cpuset mount-resctrl --cdp --mba-mbps
	assert_output "resctrl=$R action=keep options=cdp,mba_MBps"
}

# ---- the manual ----

@test "the RESCTRL example of rm-cpuset(1) prints what rm-cpuset prints" {
	local cmd expected got n=0 failed=''
	intel
	export RM_TOPOLOGY=$TI
	while IFS=$'\t' read -r cmd expected; do
		cmd=${cmd//\/sys\/fs\/resctrl/$R}
		expected=${expected//\/sys\/fs\/resctrl/$R}
		got=$(bash -c "$cmd" 2>/dev/null | paste -sd ';')
		[[ $got == "$expected" ]] || failed+=$'\n'"$cmd: shows '$expected', prints '$got'"
		n=$((n + 1))
	done < <(resctrl_example)
	[ "$n" -ge 6 ]
	assert_equal "$failed" ""
}

# The "# command" lines of the .EX blocks of section RESCTRL of rm-cpuset(1), each with the lines
# it shows: "command<TAB>line;line", folded lines (" \" and an indented continuation) joined.
resctrl_example() {
	awk '/^\.SH / { on = ($0 == ".SH RESCTRL"); next } on' "$RM_SRCDIR/man/rm-cpuset.1" |
		sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\e/\\/g' | awk '
		function flush() { if (cmd != "") print cmd "\t" out; cmd = ""; out = "" }
		/^\.EX/ { ex = 1; next }
		/^\.EE/ { flush(); ex = 0; next }
		!ex { next }
		fold != "" { sub(/^ +/, ""); $0 = fold $0; fold = "" }
		/ \\$/ { fold = substr($0, 1, length($0) - 1); next }
		/^# / { flush(); cmd = substr($0, 3); next }
		cmd != "" { out = out == "" ? $0 : out ";" $0 }'
}

# ---- the library's monitoring, for measurements ----

@test "libcommon: schemata as the kernel prints them, padded" {
	local tr="$RM_BUILDDIR/tests/unit/test-resctrl"
	[ -x "$tr" ] || skip "tests/unit/test-resctrl is not built (make check builds it)"
	run -0 "$tr" parse <<<$'L3CODE:0=7ff;1=0f0\n    MB:0= 50;1=100\n'
	assert_output $'L3CODE 0=7ff 1=0f0\nMB 0=50 1=100'
	run -2 "$tr" parse <<<'L3:0=7ff;1'
	assert_output "test-resctrl: line 1: expected ID=VALUE: '1'"
	run -2 "$tr" parse <<<'L3 0=7ff'
	assert_output "test-resctrl: line 1: missing ':'"
}

@test "libcommon: bandwidth requests and monitoring counters of a plain tree" {
	local tr="$RM_BUILDDIR/tests/unit/test-resctrl"
	[ -x "$tr" ] || skip "tests/unit/test-resctrl is not built (make check builds it)"
	plain_resctrl "$R"
	export RM_RESCTRL_ROOT=$R
	run -0 "$tr" mb 25%
	assert_output 'value=30 canon=25% unit=percent'
	run -2 "$tr" mb 10%
	assert_output "test-resctrl: memory bandwidth '10%': the least this machine allocates is 20%"
	run -0 "$tr" has-event llc_occupancy
	run -1 "$tr" has-event mbm_local_bytes
	run -0 "$tr" mon-read - llc_occupancy -1
	assert_output 12288
	run -0 "$tr" mon-read - llc_occupancy 1
	assert_output 8192
	run -1 "$tr" mon-read - mbm_total_bytes -1
	assert_output "test-resctrl: cannot read $R/mon_data/mon_L3_01/mbm_total_bytes: the kernel says 'Unavailable'"
}

@test "libcommon (fake): a monitoring group for one process, its counters, its removal" {
	local tr="$RM_BUILDDIR/tests/unit/test-resctrl" pid ticks
	[ -x "$tr" ] || skip "tests/unit/test-resctrl is not built (make check builds it)"
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 3
	sleep 600 </dev/null >/dev/null 2>&1 3>&- 9>&- &
	pid=$!
	SLEEPS+=("$pid")
	run -0 "$tr" mon-create rmtools.web bench "$pid"
	run -0 cat "$R/rmtools.web/mon_groups/bench/tasks" "$R/rmtools.web/tasks"
	assert_output "$pid"$'\n'"$pid"
	# the fake's counters: 65536 bytes a task and the CLOSID (1), in each of the 2 domains
	run -0 "$tr" mon-read rmtools.web/mon_groups/bench llc_occupancy -1
	assert_output $((2 * (65536 + 1)))
	# and 10 MB for each clock tick the task ran (starting it may take one on a busy machine)
	ticks=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')
	run -0 "$tr" mon-read rmtools.web/mon_groups/bench mbm_total_bytes 1
	assert_output $((4000000 + 10000000 * ticks))
	run -1 "$tr" mon-create rmtools.web bench 0
	[[ $output == *"cannot create $R/rmtools.web/mon_groups/bench: File exists"* ]]
	run -0 "$tr" mon-remove rmtools.web bench
	[ ! -e "$R/rmtools.web/mon_groups/bench" ]
	run -1 "$tr" mon-create rmtools.web "../x" 0
	assert_output "test-resctrl: invalid monitoring group name: '../x'"
}

@test "intel: resize grows an owner with L3 ways within its L3 domains; the group's CPUs follow, its ways stay" {
	intel
	run -0 cs alloc --count 4 --owner web --l3-ways 4 -o cpus,l3_masks
	assert_output "cpus=0-3 l3_masks=0:780"
	run -0 cs alloc --count 10 --owner db -o cpus
	assert_output "cpus=4-13"
	# L3 0 has CPUs 14-15 left: growth takes them, not socket 1's with no ways of its own
	refused 3 "not enough free CPUs" cs resize --owner web --count 8
	run -0 cs resize --owner web --count 6 -o cpus,l3_masks
	assert_output "cpus=0-3,14-15 l3_masks=0:780"
	run -0 cat "$R/rmtools.web/schemata" "$R/rmtools.web/cpus_list"
	assert_output $'L3:0=780;1=7ff\nMB:0=100;1=100\n0-3,14-15'
	run -0 cs resize --owner web --count 4 -o cpus
	assert_output "cpus=0-3"
	assert_equal "$(cat "$R/rmtools.web/cpus_list")" 0-3
	refused 2 "a resctrl group" cs resize --owner web --shared
}
