#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos on a real kernel with PSI (psi=1): a cpu.max-limited busy loop is throttled and stalls,
# a memory-hungry owner over memory.high stalls on memory, blame finds a bursty CPU hog, and
# export's counters follow a busy owner.
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

# bursty NAME: a loop in owner NAME's cgroup that is busy 1 s, then sleeps 1 s, again and again.
bursty() {
	sh -c "echo \$\$ >$P/$1/cgroup.procs && exec sh -c 'while :; do timeout 1 sh -c \"while :; do :; done\"; sleep 1; done'" &
	LOOPS+=($!)
}

# pinned NAME MASK: a busy loop in owner NAME's cgroup on the CPUs of the hex MASK.
pinned() {
	sh -c "echo \$\$ >$P/$1/cgroup.procs && exec taskset $2 sh -c 'while :; do :; done'" &
	LOOPS+=($!)
}

@test "lab qos: blame ranks a bursty hog on the victim's CPU above a steady bystander with more use" {
	owner qos-victim 6
	owner qos-hog 6
	owner qos-other 4-6 # shares the victim's CPU, runs on CPU 4
	busy qos-victim
	bursty qos-hog
	pinned qos-other 0x10
	run -0 rm-qos blame qos-victim --window 6s --interval 200ms -o neighbour,resource,score,correlation,share,tracking,slope,use,stall
	sed "s/^/# /" <<<"$output" >&3
	assert_line -n 0 --regexp '^neighbour=qos-hog resource=cpu score=[0-9.]+ '
	[[ $output =~ neighbour=qos-hog\ resource=cpu\ score=([0-9.]+)\ correlation=([-0-9.]+)\ share=([0-9.]+) ]] ||
		fail "$output"
	local hog_score=${BASH_REMATCH[1]} hog_corr=${BASH_REMATCH[2]} hog_share=${BASH_REMATCH[3]}
	[[ $output =~ neighbour=qos-other\ resource=cpu\ score=([0-9.]+)\ correlation=[-0-9.]+\ share=([0-9.]+) ]] ||
		fail "$output"
	gt "$hog_score" "${BASH_REMATCH[1]}" || fail "the bystander scores above the hog: $output"
	gt "${BASH_REMATCH[2]}" "$hog_share" || fail "the bystander does not have the larger share: $output"
	gt "$hog_corr" 0.8 || fail "the hog's use does not track the stall: $output"
	gt "$(field stall)" 5 || fail "the victim did not stall: $output"
}

@test "lab qos: export's counters of a busy owner grow between two runs" {
	owner qos-cpu 5
	busy qos-cpu
	local f=$BATS_TEST_TMPDIR/rmtools.prom a b
	rm-qos export --output "$f" qos-cpu
	a=$(sed -n 's/^rmtools_cpu_usage_seconds_total{owner="qos-cpu"} //p' "$f")
	grep -q '^rmtools_pressure_cpu_waiting_seconds_total{owner="qos-cpu"} ' "$f" || fail "$(cat "$f")"
	sleep 0.5
	rm-qos export --output "$f" qos-cpu
	b=$(sed -n 's/^rmtools_cpu_usage_seconds_total{owner="qos-cpu"} //p' "$f")
	gt "$b" "$(awk -v a="$a" 'BEGIN { print a + 0.1 }')" || fail "CPU time $a, then $b"
}
