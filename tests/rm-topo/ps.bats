#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo ps on this machine, against hwloc-ps on the same processes.
load ../test_helper

teardown() {
	[ -z "${pids:-}" ] || kill $pids 2>/dev/null || true
}

# hwloc-ps's line for PID, its location in rm-topo's names: "Core:0" -> "core:0"
hwloc_location() {
	hwloc-ps "$@" | awk -v pid="$pid" '$1 == pid { print tolower($2) }' |
		sed 's/l\([0-9]\)cache/l\1/g; s/ /,/g'
}

@test "ps: bound processes with their CPUs and location, as hwloc-ps" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	command -v hwloc-ps >/dev/null || skip "hwloc-ps is not installed (the hwloc-nox package)"
	taskset -c 0 sleep 60 &
	pid=$!
	sleep 60 &
	pids="$pid $!"
	free=$!
	for _ in $(seq 50); do [ "$(cat /proc/$pid/comm)" = sleep ] && break; sleep 0.1; done
	run -0 rm-topo ps -o pid,name,owner,cpus
	assert_line "pid=$pid name=sleep owner=- cpus=0"
	# unbound and in no owner's cgroup: only with --all
	refute_line --partial "pid=$free "
	run -0 rm-topo ps --all -o pid,cpus
	assert_line "pid=$free cpus=0-$(($(nproc --all) - 1))"
	want=$(hwloc_location)
	[ -n "$want" ]
	run -0 rm-topo ps -o pid,location
	assert_line "pid=$pid location=$want"
	pid=$free run -0 rm-topo ps -a -o pid,location
	assert_line "pid=$free location=$(pid=$free hwloc_location -a)"
	# kernel threads are left out, as hwloc-ps does
	run -0 rm-topo ps -a -o pid
	refute_line "pid=2"
	# no such owner: nothing
	run -0 rm-topo ps --owner nobody-here
	assert_output ''
	run -2 --separate-stderr rm-topo ps --owner ../x
	[[ $stderr == *"invalid owner name: '../x'"* ]]
	run -2 --separate-stderr rm-topo ps --topology "package:1 pu:2"
}

@test "ps: --threads, one record per thread with its own binding" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	python3 -c 'import os, threading, time
def bound():
    os.sched_setaffinity(0, {1})
    time.sleep(60)
threading.Thread(target=bound, daemon=True).start()
time.sleep(60)' &
	pid=$!
	pids=$pid
	for _ in $(seq 100); do [ "$(ls /proc/$pid/task | wc -l)" -ge 2 ] && break; sleep 0.1; done
	sleep 0.2
	run -0 rm-topo ps --threads -a -o pid,tid,cpus
	assert_line "pid=$pid tid=$pid cpus=0-$(($(nproc --all) - 1))"
	assert_line --regexp "^pid=$pid tid=[0-9]+ cpus=1$"
	run -0 rm-topo ps --threads -o pid,cpus
	assert_line "pid=$pid cpus=1"
	refute_line "pid=$pid cpus=0-$(($(nproc --all) - 1))"
}
