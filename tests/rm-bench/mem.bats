#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench mem: STREAM records, pinning and binding seen from inside, options, refusals.
load ../test_helper
load bench_helper

M=(--size 2M --runs 2)

@test "mem: one record per kernel, STREAM's order, well-formed, with rates and units" {
	run -0 --separate-stderr rm-bench mem "${M[@]}"
	assert_records bench
	assert_equal "${#lines[@]}" 4
	assert_line --index 0 --regexp '^bench=mem op=copy cpus=[0-9,-]+ nodes=[0-9,-]+ threads=[0-9]+ mem_nodes=[0-9,-]+ size=[0-9]+[KM]iB pages=4KiB stores=nt neighbour=- best=[0-9]+\.[0-9]{2} median=[0-9.]+ min=[0-9.]+ max=[0-9.]+ unit=GB/s runs=2 spread=[0-9.]+ ran_on=[0-9,-]+ mem_on=[0-9,-]+ neighbour_rate=- llc_occupancy=- mbm_total=- mbm_local=- status=ok reason=-$'
	assert_line --index 1 --partial 'op=scale '
	assert_line --index 2 --partial 'op=add '
	assert_line --index 3 --partial 'op=triad '
	# best is the highest rate, and min <= median <= max
	local line best median min max
	for line in "${lines[@]}"; do
		output=$line
		best=$(field_of . best) median=$(field_of . median)
		min=$(field_of . min) max=$(field_of . max)
		awk -v b="$best" -v m="$median" -v lo="$min" -v hi="$max" \
			'BEGIN { exit !(b == hi && lo <= m && m <= hi && lo > 0) }'
	done
}

@test "mem: pinned where it says: --cpus, --threads, and the affinity mask by default" {
	run -0 rm-bench mem "${M[@]}" --cpus 0 --op triad
	assert_equal "$(field_of op=triad ran_on)" 0
	assert_equal "$(field_of op=triad cpus)" 0
	assert_equal "$(field_of op=triad threads)" 1
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
	run -0 rm-bench mem "${M[@]}" --cpus "$LAST_CPU" --op copy
	assert_equal "$(field_of op=copy ran_on)" "$LAST_CPU"
	# two threads, one on each CPU
	run -0 rm-bench mem "${M[@]}" --cpus "0,$LAST_CPU" --op add
	assert_equal "$(field_of op=add ran_on)" "$(field_of op=add cpus)"
	assert_equal "$(field_of op=add threads)" 2
	# --threads takes some of the CPUs
	run -0 rm-bench mem "${M[@]}" --cpus "0,$LAST_CPU" --threads 1 --op add
	assert_equal "$(field_of op=add threads)" 1
	assert_equal "$(field_of op=add ran_on)" 0
	# the default follows the affinity mask (taskset, rm-cpuset run)
	run -0 taskset -c "$LAST_CPU" rm-bench mem "${M[@]}" --op scale
	assert_equal "$(field_of op=scale cpus)" "$LAST_CPU"
	assert_equal "$(field_of op=scale ran_on)" "$LAST_CPU"
}

@test "mem: memory bound to a node, and found there" {
	run -0 rm-bench mem "${M[@]}" --mem-node 0 --op copy
	assert_equal "$(field_of op=copy mem_nodes)" 0
	assert_equal "$(field_of op=copy mem_on)" 0
	run -0 rm-bench mem "${M[@]}" --node 0 --op copy
	assert_equal "$(field_of op=copy nodes)" 0
}

@test "mem: --op, --size, --stores, --runs and --bytes" {
	run -0 rm-bench mem --op triad,copy --size 3M --runs 3 --stores normal --cpus 0
	assert_equal "${#lines[@]}" 2
	# STREAM's order whatever the order given
	assert_line --index 0 --partial 'op=copy '
	assert_line --index 1 --regexp ' size=3MiB pages=4KiB stores=normal .* runs=3 '
	run -0 rm-bench mem --op copy --size 1M --runs 1 --cpus 0 --bytes -o size,pages
	assert_output 'size=1048576 pages=4096'
	# each thread's share is whole 64-element steps: the size measured is what is stated
	run -0 rm-bench mem --op copy --size 1000K --runs 1 --cpus 0 -o size
	assert_output 'size=1000KiB'
	run -0 rm-bench mem --op copy --size 1024100 --runs 1 --cpus 0 -o size
	assert_output 'size=1000KiB'
}

@test "mem: --matrix, one record per CPU node and memory node" {
	local pairs=$(( $(ls -d /sys/devices/system/node/node[0-9]* | wc -l) ))
	run -0 rm-bench mem --matrix "${M[@]}" -o op,nodes,mem_nodes,mem_on
	assert_records op
	# triad by default; at most one record per node pair
	refute_line --partial 'op=copy'
	[ "${#lines[@]}" -ge 1 ] && [ "${#lines[@]}" -le $((pairs * pairs)) ]
	assert_line --index 0 --regexp '^op=triad nodes=[0-9]+ mem_nodes=[0-9]+ mem_on=[0-9]+$'
	# the memory is where the record says
	for line in "${lines[@]}"; do
		output=$line
		assert_equal "$(field_of . mem_on)" "$(field_of . mem_nodes)"
	done
}

@test "mem: --neighbour copies memory on other cores during the runs, at a rate it states" {
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
	# a window of some 100 ms, so that the neighbour runs in it however busy the machine is
	run -0 --separate-stderr rm-bench mem --size 64M --runs 5 --op triad --cpus 0 --neighbour
	assert_records bench
	# by default the allowed CPUs outside the measured CPU's core
	assert_equal "$(field_of op=triad neighbour)" \
		"$(rm-topo calc --not all "core:$(rm-topo cpus -o core --raw | head -n 1)")"
	assert_equal "$(field_of op=triad ran_on)" 0
	awk -v r="$(field_of op=triad neighbour_rate)" 'BEGIN { exit !(r > 0) }'
	# named CPUs; the neighbour is a parameter of the measurement, its rate a result
	run -0 rm-bench mem --size 16M --runs 2 --op copy --cpus 0 --neighbour="$LAST_CPU" \
		-o neighbour,neighbour_rate,status
	assert_output --regexp "^neighbour=$LAST_CPU neighbour_rate=[0-9]+\.[0-9]{2} status=ok\$"
	assert_equal "$(rm-bench mem --size 16M --runs 1 --op copy --cpus 0 -o neighbour_rate)" \
		'neighbour_rate=-'
}

@test "mem: JSON and table" {
	run -0 rm-bench mem "${M[@]}" --op triad,add -J
	run -0 json_eval '[r["op"] for r in d["mem"]]'
	assert_output "$(printf '%s\n' add triad)"
	run -0 rm-bench mem "${M[@]}" --op triad,add -J
	run -0 json_eval '[type(d["mem"][0][k]).__name__ for k in ("threads", "size", "best", "unit", "reason")]'
	assert_output "$(printf '%s\n' int int float str NoneType)"
	run -0 rm-bench mem "${M[@]}" --op triad -t -o op,unit
	assert_output "$(printf '%s\n' 'OP    UNIT' 'triad GB/s')"
}

@test "mem: huge pages: a skipped record and a warning without them" {
	local free
	free=$(free_2m_pages)
	run -0 --separate-stderr rm-bench mem --pages 2M --size 64M --runs 1 --op copy --cpus 0 \
		--mem-node 0
	assert_records bench
	if [ "$free" -lt 48 ]; then
		assert_output --regexp 'pages=2MiB .* status=skipped reason="not enough 2MiB huge pages free on node 0 \([0-9]+ needed, [0-9]+ free\)"$'
		[[ $stderr == *"huge pages free on node 0"*"skipped"* ]]
	else
		assert_output --regexp 'pages=2MiB .* status=ok '
	fi
}

@test "mem: bad requests exit 2" {
	usage_error "more threads than CPUs" rm-bench mem --threads 9999 --size 1M
	usage_error "--op: unknown kernel: 'copy2'" rm-bench mem --op copy2
	usage_error "--stores takes nt or normal: 'x'" rm-bench mem --stores x
	usage_error "--cpus and --node exclude each other" rm-bench mem --cpus 0 --node 0
	usage_error "--matrix takes no --node, --mem-node or --neighbour" rm-bench mem --matrix --mem-node 0
	usage_error "--matrix takes no --node, --mem-node or --neighbour" rm-bench mem --matrix --neighbour
	usage_error "--neighbour shares CPUs with the measurement: '0'" rm-bench mem --cpus 0 --neighbour=0
	usage_error "--neighbour: no allowed CPU is left outside the measured cores" rm-bench mem --neighbour
	usage_error "unexpected argument: '1'" rm-bench mem --neighbour 1
	usage_error "--pages: no such page size on this machine: '8KiB'" rm-bench mem --pages 8K
	usage_error "--size is too small for 1 threads" rm-bench mem --size 100 --cpus 0
}
