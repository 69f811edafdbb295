#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench and resctrl's monitoring: counters beside mem and lat from a monitoring group of the
# measurement's own, inside the control group the process is in, removed afterwards (FUSE fake).
load ../test_helper
load ../cgroup_helper
load ../resctrl_helper
load bench_helper

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	R=$BATS_TEST_TMPDIR/resctrl
}

teardown() {
	fakes_cleanup
}

intel() { start_resctrl "$R" --layout intel-2s --cpus "$ONLINE" "$@"; }

# No monitoring group is left: none in the default group's mon_groups, none in a control group's.
no_mon_groups() {
	run -0 find "$R" -path '*/mon_groups/*' -maxdepth 3
	assert_output ""
}

@test "mem: llc_occupancy and memory traffic of the measurement's own threads" {
	intel
	run -0 --separate-stderr rm-bench mem --size 64M --runs 20 --op triad
	assert_equal "$stderr" ""
	# the fake counts 64 KiB a task in each of its 2 domains: the group held this process
	# alone, not the default group's CPUs and tasks
	assert_equal "$(field_of op=triad llc_occupancy)" 128KiB
	# its mbm counters grow with the CPU time of the group's process: the runs moved bytes
	awk -v t="$(field_of op=triad mbm_total)" -v l="$(field_of op=triad mbm_local)" \
		'BEGIN { exit !(t > 0 && l > 0 && l < t) }'
	no_mon_groups
}

@test "lat: llc_occupancy for each working set, a monitoring group each" {
	intel
	run -0 --separate-stderr rm-bench lat --sizes 16K,64K --runs 1 -o size,llc_occupancy
	assert_equal "$stderr" ""
	assert_output "$(printf '%s\n' 'size=16KiB llc_occupancy=128KiB' 'size=64KiB llc_occupancy=128KiB')"
	no_mon_groups
}

@test "inside an allocation: the group is made in the owner's resctrl group" {
	[ "$NCPUS" -ge 2 ] || skip "needs 2 CPUs"
	local l3
	l3=$(rm-topo cpus -o cpu,l3 --raw | awk '$1 == 0 { print $2 }')
	[ "$l3" = 0 ] || skip "CPU 0 of this machine is not in L3 0"
	intel
	run -0 --separate-stderr rm-cpuset --no-cgroups run --count 1 --owner job --l3-ways 2 -- \
		rm-bench lat --sizes 16K --runs 1 -o llc_occupancy
	# one task and the CLOSID of rmtools.job (1), in each domain
	assert_output "llc_occupancy=$((2 * (65536 + 1)))B"
	[ ! -e "$R/rmtools.job" ]
	no_mon_groups
}

@test "counters that cannot be read: one warning, '-' fields, the measurement still made" {
	# one RMID: the default group's; no monitoring group can be made
	intel --rmids 1
	run -0 --separate-stderr rm-bench lat --sizes 16K,32K --runs 1 -o size,llc_occupancy,status
	assert_output "$(printf '%s\n' 'size=16KiB llc_occupancy=- status=ok' 'size=32KiB llc_occupancy=- status=ok')"
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "rm-bench: resctrl counters not read: cannot create $R/mon_groups/rm-bench."*": No space left on device (resctrl: Out of RMIDs)" ]] ||
		fail "stderr: '$stderr'"
	no_mon_groups
}

@test "without resctrl: no counters and no warning" {
	RM_RESCTRL_ROOT=$BATS_TEST_TMPDIR/none run -0 --separate-stderr \
		rm-bench mem --size 2M --runs 1 --op copy -o llc_occupancy,mbm_total,mbm_local
	assert_output 'llc_occupancy=- mbm_total=- mbm_local=-'
	assert_equal "$stderr" ""
}

@test "an interrupted measurement leaves no monitoring group" {
	local pid i st=0
	intel
	rm-bench mem --size 64M --runs 1000 --op copy >/dev/null 2>&1 3>&- 9>&- &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		compgen -G "$R/mon_groups/rm-bench.$pid.*" >/dev/null && break
		sleep 0.1
	done
	compgen -G "$R/mon_groups/rm-bench.$pid.*" >/dev/null || fail "no monitoring group appeared"
	kill -TERM "$pid"
	wait "$pid" || st=$?
	# the signal's own status: the group was removed, then the default action taken
	assert_equal "$st" $((128 + 15))
	no_mon_groups
}
