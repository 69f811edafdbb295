#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos on a real kernel with PSI (psi=1): a cpu.max-limited busy loop is throttled and stalls,
# a memory-hungry owner over memory.high stalls on memory, and blame finds the CPU hog.
load helper

CG=/sys/fs/cgroup
P=$CG/rmtools.slice

setup_file() {
	[ -r /proc/pressure/cpu ] && cat /proc/pressure/cpu >/dev/null 2>&1 ||
		skip "no pressure stall information in this kernel (psi=1)"
	[ -e $CG/cgroup.controllers ] || skip "no cgroup v2 here"
	export MADE_PARENT=
	[ -d $P ] || { mkdir $P; MADE_PARENT=1; }
	echo "+cpuset +cpu +memory" >$CG/cgroup.subtree_control
	echo "+cpuset +cpu +memory" >$P/cgroup.subtree_control
}

teardown_file() {
	[ -n "${MADE_PARENT:-}" ] && rmdir $P 2>/dev/null || true
}

LOOPS=()

# owner NAME CPUS: a cgroup below rmtools.slice on CPUS.
owner() {
	mkdir "$P/$1"
	echo 0 >"$P/$1/cpuset.mems"
	echo "$2" >"$P/$1/cpuset.cpus"
}

# busy NAME: a busy loop in owner NAME's cgroup.
busy() {
	sh -c "echo \$\$ >$P/$1/cgroup.procs && exec sh -c 'while :; do :; done'" &
	LOOPS+=($!)
}

# hungry NAME MiB: a loop that fills a MiB buffer again and again in owner NAME's cgroup.
hungry() {
	sh -c "echo \$\$ >$P/$1/cgroup.procs && exec sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=$2M count=2 2>/dev/null; done'" &
	LOOPS+=($!)
}

teardown() {
	local p d
	for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${LOOPS[@]}"; do wait "$p" 2>/dev/null || true; done
	for d in "$P"/qos-*; do
		[ -d "$d" ] || continue
		kill -9 $(cat "$d/cgroup.procs") 2>/dev/null || true
		wait_until sh -c "[ -z \"\$(cat $d/cgroup.procs)\" ]"
		rmdir "$d"
	done
}

# gt A B: whether the number A is above B.
gt() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'
}

@test "lab qos: a cpu.max-limited busy owner is throttled and stalls; check names it" {
	owner qos-cpu 5
	owner qos-idle 4
	echo "20000 100000" >$P/qos-cpu/cpu.max
	busy qos-cpu
	busy qos-cpu
	run -0 rm-qos show --interval 2s -o owner,cpu_used,cpu_throttled,cpu_some qos-cpu qos-idle
	[[ ${lines[0]} =~ ^owner=qos-cpu\ cpu_used=([0-9.]+)\ cpu_throttled=([0-9.]+)\ cpu_some=([0-9.]+)$ ]] ||
		fail "${lines[0]}"
	gt "${BASH_REMATCH[2]}" 50 || fail "not throttled: ${lines[0]}"
	gt "${BASH_REMATCH[3]}" 1 || fail "no CPU pressure: ${lines[0]}"
	gt 0.3 "${BASH_REMATCH[1]}" || fail "more than cpu.max: ${lines[0]}"
	assert_line -n 1 'owner=qos-idle cpu_used=0.00 cpu_throttled=0.00 cpu_some=0.00'
	run -1 rm-qos check --interval 1s --slo 'qos-cpu: cpu.pressure.some < 1%' --slo 'qos-idle: cpu.pressure.some < 1%'
	assert_equal "${#lines[@]}" 1
	assert_line -n 0 --regexp '^violation=qos-cpu slo="cpu.pressure.some < 1%" clause="cpu.pressure.some < 1%" field=cpu.pressure.some value=[0-9.]+ source=expression$'
}

@test "lab qos: an owner over memory.high stalls on memory and counts high events, others none" {
	owner qos-mem 4
	owner qos-calm 5
	echo 16M >$P/qos-mem/memory.high
	hungry qos-mem 32
	run -0 rm-qos show --interval 2s -o owner,memory_some,memory_high_events,memory_high qos-mem qos-calm
	[[ ${lines[0]} =~ ^owner=qos-mem\ memory_some=([0-9.]+)\ memory_high_events=([0-9]+)\ memory_high=16MiB$ ]] ||
		fail "${lines[0]}"
	gt "${BASH_REMATCH[1]}" 0 || fail "no memory pressure: ${lines[0]}"
	gt "${BASH_REMATCH[2]}" 0 || fail "no high events: ${lines[0]}"
	assert_line -n 1 'owner=qos-calm memory_some=0.00 memory_high_events=0 memory_high=max'
}

@test "lab qos: blame ranks the CPU hog on the victim's CPU first" {
	owner qos-victim 6
	owner qos-hog 6
	owner qos-other 4
	busy qos-victim
	busy qos-hog
	busy qos-other
	run -0 rm-qos blame qos-victim --window 3s --interval 500ms
	assert_line -n 0 --regexp '^neighbour=qos-hog owner=qos-victim resource=cpu score=[0-9.]+ '
	refute_line --partial 'neighbour=qos-other owner=qos-victim resource=cpu'
	[[ $(field stall) != 0.00 ]] || fail "the victim did not stall: $output"
}
