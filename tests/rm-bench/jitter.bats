#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench jitter: wake-up latency records, the histogram, scheduling policy, refusals.
load ../test_helper
load bench_helper

J=(--duration 200ms --interval 1ms --runs 2)

@test "jitter: one record per CPU, well-formed, in microseconds" {
	run -0 --separate-stderr rm-bench jitter --cpus 0 "${J[@]}"
	assert_records bench
	assert_equal "${#lines[@]}" 1
	assert_output --regexp '^bench=jitter cpu=0 shared=no interval_us=1000 duration_ms=200 policy=(fifo|other) priority=[0-9]+ dma_latency_us=- samples=200 overruns=[0-9]+ min=[0-9.]+ avg=[0-9.]+ median=[0-9.]+ p99=[0-9.]+ p999=[0-9.]+ max=[0-9.]+ unit=us runs=2 spread=[0-9.]+ ran_on=0$'
	# ordered statistics
	awk -v lo="$(field_of . min)" -v m="$(field_of . median)" -v p="$(field_of . p99)" \
		-v q="$(field_of . p999)" -v hi="$(field_of . max)" \
		'BEGIN { exit !(lo <= m && m <= p && p <= q && q <= hi) }'
}

@test "jitter: SCHED_FIFO at the priority as root, SCHED_OTHER with 0 or without the right" {
	run -0 --separate-stderr rm-bench jitter --cpus 0 "${J[@]}" --priority 0 -o policy,priority
	assert_output 'policy=other priority=0'
	assert_equal "$stderr" ''
	if [ "$(id -u)" -eq 0 ]; then
		run -0 rm-bench jitter --cpus 0 "${J[@]}" --priority 42 -o policy,priority
		assert_output 'policy=fifo priority=42'
		# without the right to real-time scheduling: other, and a warning
		command -v setpriv >/dev/null || skip "no setpriv"
		run -0 --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups \
			"$RM_BUILDDIR/rm-bench" jitter --cpus 0 "${J[@]}" -o policy,priority
		assert_output 'policy=other priority=0'
		assert_equal "$stderr" \
			'rm-bench: SCHED_FIFO needs root or CAP_SYS_NICE: measured under SCHED_OTHER'
	fi
}

@test "jitter: --dma-latency holds /dev/cpu_dma_latency, as cyclictest does" {
	run -0 rm-bench jitter --cpus 0 "${J[@]}" -o dma_latency_us
	assert_output 'dma_latency_us=-'
	require_root
	[ -w /dev/cpu_dma_latency ] || skip "no /dev/cpu_dma_latency"
	run -0 --separate-stderr rm-bench jitter --cpus 0 "${J[@]}" --dma-latency 0 -o dma_latency_us
	assert_output 'dma_latency_us=0'
	assert_equal "$stderr" ''
	# without the right to open it: measured all the same, with a warning
	run -0 --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$RM_BUILDDIR/rm-bench" jitter --cpus 0 "${J[@]}" --dma-latency 0 -o dma_latency_us
	assert_output 'dma_latency_us=-'
	# (the same user may also be refused SCHED_FIFO: a second warning)
	assert_equal "${stderr_lines[0]}" \
		'rm-bench: cannot hold /dev/cpu_dma_latency, measured without it: Permission denied'
}

@test "jitter: pinned; several CPUs at once; --compare-shared adds a shared CPU" {
	run -0 rm-bench jitter --cpus "$LAST_CPU" "${J[@]}" -o cpu,shared,ran_on
	assert_output "cpu=$LAST_CPU shared=no ran_on=$LAST_CPU"
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
	run -0 rm-bench jitter --cpus "0,$LAST_CPU" "${J[@]}" -o cpu,ran_on
	assert_output "$(printf 'cpu=%s ran_on=%s\n' 0 0 "$LAST_CPU" "$LAST_CPU")"
	run -0 rm-bench jitter --cpus "$LAST_CPU" "${J[@]}" --compare-shared -o cpu,shared,ran_on
	assert_output "$(printf '%s\n' "cpu=$LAST_CPU shared=no ran_on=$LAST_CPU" \
		'cpu=0 shared=yes ran_on=0')"
	usage_error "--compare-shared needs an allowed CPU outside --cpus: '$ONLINE'" \
		rm-bench jitter --cpus "$ONLINE" "${J[@]}" --compare-shared
}

@test "jitter: the histogram with --histogram and in JSON, adding up to the samples" {
	run -0 rm-bench jitter --cpus 0 "${J[@]}" --histogram
	assert_records 'bench|bucket'
	assert_line --index 1 --regexp '^bucket=[0-9]+ cpu=0 width=(1|10|100|1000|10000) count=[1-9][0-9]*$'
	local sum
	sum=$(printf '%s\n' "$output" | sed -n 's/^bucket=.* count=//p' | awk '{ s += $1 } END { print s }')
	assert_equal "$sum" 200
	run -0 rm-bench jitter --cpus 0 "${J[@]}"
	refute_output --partial 'bucket='
	run -0 rm-bench jitter --cpus 0 "${J[@]}" -J
	run -0 json_eval 'sum(b["count"] for b in d["histogram"]) == d["jitter"][0]["samples"]'
	assert_output true
	run -0 rm-bench jitter --cpus 0 "${J[@]}" -J
	run -0 json_eval '[type(d["jitter"][0][k]).__name__ for k in ("shared", "p99", "samples")]'
	assert_output "$(printf '%s\n' bool float int)"
}

@test "jitter: bad requests exit 2" {
	usage_error "jitter needs --cpus" rm-bench jitter --duration 10ms
	usage_error "--duration: invalid time (a number and ns, us, ms, s, m or h): '10'" \
		rm-bench jitter --cpus 0 --duration 10
	usage_error "--interval must be from 1us to 10s: '100ns'" rm-bench jitter --cpus 0 \
		--interval 100ns
	usage_error "--priority takes an integer from 0 to 99: '100'" rm-bench jitter --cpus 0 \
		--priority 100
	usage_error "--duration must hold one --interval per run at least" rm-bench jitter \
		--cpus 0 --duration 3ms --interval 1ms --runs 5
	usage_error "more than 10^8 wake-ups" rm-bench jitter --cpus 0 --duration 30h \
		--interval 1us
	usage_error "--dma-latency takes an integer from 0 to 2000000000: '-1'" rm-bench jitter \
		--cpus 0 --dma-latency -1
}
