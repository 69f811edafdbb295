#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos over a fake cgroup v2 tree: check (SLOs met, violated, from files, refused) and blame
# (the neighbours sharing the victim's CPUs and devices, and the score over synthetic series).

load ../test_helper
load helper

@test "check: SLOs met exit 0 and print nothing" {
	run -0 --separate-stderr rm-qos check --interval 10ms --slo 'web: cpu.pressure.some < 1% and memory.oom_kill == 0 and memory.current <= 1MiB'
	assert_output ''
	run -0 --separate-stderr rm-qos check --interval 10ms --slo '*: cpu.used < 1 and cpu_throttled == 0 and irqs < 10'
	assert_output ''
}

@test "check: a violated SLO is a record naming the owner, the clause and the value; exit 1" {
	run -1 rm-qos check --interval 10ms --slo 'db: memory.oom_kill == 0 and memory.current < 2GiB'
	assert_output 'violation=db slo="memory.oom_kill == 0 and memory.current < 2GiB" clause="memory.oom_kill == 0" field=memory.oom_kill value=2 source=expression'
}

@test "check: an SLO file with comments, '*' for every owner, record names and avg10" {
	cat >"$BATS_TEST_TMPDIR/slo" <<-'END'
	# the database and everyone else
	db: cpu.pressure.some.avg10 < 1.5%

	*: memory_high_events == 0 or kind == "pool"
	END
	run -1 rm-qos check --interval 10ms --slo "$BATS_TEST_TMPDIR/slo"
	assert_line -n 0 "violation=db slo=\"cpu.pressure.some.avg10 < 1.5%\" clause=\"cpu.pressure.some.avg10 < 1.5%\" field=cpu.pressure.some.avg10 value=2.50 source=$BATS_TEST_TMPDIR/slo:2"
	assert_line -n 1 --partial 'violation=db slo="memory_high_events == 0 or kind == \"pool\""'
	assert_equal "${#lines[@]}" 3
}

@test "check: a busy owner violates cpu.pressure.some < 1%" {
	busy db
	run -1 rm-qos check --interval 300ms --slo 'db: cpu.pressure.some < 1%' --slo 'web: cpu.pressure.some < 1%'
	assert_equal "${#lines[@]}" 1
	assert_line -n 0 --regexp '^violation=db slo="cpu.pressure.some < 1%" clause="cpu.pressure.some < 1%" field=cpu.pressure.some value=[0-9.]+ source=expression$'
}

@test "check: bad SLOs exit 2 before anything is read" {
	usage_error "no SLO given" rm-qos check
	usage_error "expression: column 25: invalid number '1.2.3%'" rm-qos check --slo 'db: cpu.pressure.some < 1.2.3%'
	usage_error "expression: invalid owner name: '../db'" rm-qos check --slo '../db: cpu.used < 1'
	usage_error "cannot read SLO file 'nonexistent'" rm-qos check --slo nonexistent
	printf 'db cpu.used < 1\n' >"$BATS_TEST_TMPDIR/bad"
	usage_error "$BATS_TEST_TMPDIR/bad:1: expected 'OWNER: EXPRESSION'" rm-qos check --slo "$BATS_TEST_TMPDIR/bad"
}

@test "blame: a record per neighbour sharing the victim's CPUs or devices, the score's parts as fields" {
	echo 2-5 >"$CG/rmtools.slice/web/cpuset.cpus.effective"
	busy web
	busy db
	run -0 rm-qos blame db --window 600ms --interval 200ms
	assert_line -n 0 --regexp '^neighbour=web owner=db resource=cpu score=[0-9.]+ correlation=[-0-9.]+ use=[0-9.]+ stall=[0-9.]+ share=1\.000 tracking=[0-9.]+ slope=[-0-9.]+$'
	assert_line --regexp '^neighbour=web owner=db resource=io score=0\.000 correlation=- use=0\.00 stall=[0-9.]+ share=0\.000 tracking=0\.000 slope=-$'
	refute_line --partial 'neighbour=shared owner=db resource=cpu'
	run -0 rm-qos blame --list-columns --raw
	assert_equal "$(cut -d' ' -f1 <<<"$output")" $'neighbour\nowner\nresource\nscore\ncorrelation\nuse\nstall\nshare\ntracking\nslope'
}

@test "blame's score over synthetic series: a bursty hog above a steady bystander with more use" {
	local unit=$RM_BUILDDIR/tests/unit/test-qos-score
	[ -x "$unit" ] || skip "tests/unit/test-qos-score is not built (make check builds it)"
	run -0 "$unit" show
	assert_line -n 0 'hog score=0.384 share=0.384 tracking=1.000 correlation=1.000 slope=44.99 use=0.50'
	assert_line -n 1 --regexp '^bystander score=0\.000 share=0\.616 tracking=0\.000 correlation=-?0\.000 slope=-0\.10 use=1\.50$'
	assert_line -n 2 --regexp '^[0-9]+ checks, 0 failed$'
}

@test "blame: invalid input exits 2" {
	usage_error "no OWNER given" rm-qos blame
	usage_error "no such owner: 'nobody'" rm-qos blame nobody --window 10ms --interval 10ms
	usage_error "the window is shorter than the interval" rm-qos blame db --window 10ms --interval 1s
	usage_error "invalid owner name: '-x'" rm-qos blame -- -x
	usage_error "more than 100000 intervals in the window" rm-qos blame db --window 1h --interval 1ms
}
