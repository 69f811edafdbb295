#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench lat: latency records per size and page size, pinning, huge pages, refusals.
load ../test_helper
load bench_helper

@test "lat: one record per size, well-formed, in nanoseconds per load" {
	run -0 rm-bench lat --sizes 16K,256K --runs 2
	assert_records bench
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp '^bench=lat size=16KiB pages=4KiB cpu=[0-9]+ mem_node=[0-9]+ neighbour=- best=[0-9.]+ median=[0-9.]+ min=[0-9.]+ max=[0-9.]+ unit=ns runs=2 spread=[0-9.]+ loads=[0-9]+ ran_on=[0-9]+ mem_on=[0-9]+ neighbour_rate=- llc_occupancy=- status=ok reason=-$'
	assert_line --index 1 --partial 'size=256KiB pages=4KiB '
	# best is the lowest time, min <= median <= max, and a load takes some time
	output=${lines[0]}
	awk -v b="$(field_of . best)" -v lo="$(field_of . min)" -v m="$(field_of . median)" \
		-v hi="$(field_of . max)" 'BEGIN { exit !(b == lo && lo <= m && m <= hi && lo > 0) }'
	[ "$(field_of . loads)" -ge 65536 ]
}

@test "lat: sizes are whole cache lines; the defaults are one per cache level and memory" {
	run -0 rm-bench lat --sizes 1000,100 --runs 1 -o size --bytes
	assert_output "$(printf '%s\n' size=960 size=128)"
	# without --sizes: inside L1, L2, L3 (half of each) and 4 x L3
	run -0 rm-bench lat --runs 1 -o size --bytes
	local l1 l3
	l1=$(cat /sys/devices/system/cpu/cpu0/cache/index0/size 2>/dev/null) || skip "no cache sizes"
	l1=${l1%K}
	assert_line --index 0 "size=$((l1 * 1024 / 2))"
	[ "${#lines[@]}" -ge 2 ] && [ "${#lines[@]}" -le 4 ]
}

@test "lat: pinned where it says, memory where it says" {
	run -0 rm-bench lat --sizes 64K --runs 1 --cpu 0 --mem-node 0
	assert_equal "$(field_of . cpu)" 0
	assert_equal "$(field_of . ran_on)" 0
	assert_equal "$(field_of . mem_node)" 0
	assert_equal "$(field_of . mem_on)" 0
	run -0 rm-bench lat --sizes 64K --runs 1 --cpu "$LAST_CPU"
	assert_equal "$(field_of . ran_on)" "$LAST_CPU"
	run -0 rm-bench lat --sizes 64K --runs 1 --node 0
	assert_equal "$(field_of . ran_on)" "$(field_of . cpu)"
	run -0 taskset -c "$LAST_CPU" rm-bench lat --sizes 64K --runs 1
	assert_equal "$(field_of . cpu)" "$LAST_CPU"
	assert_equal "$(field_of . ran_on)" "$LAST_CPU"
}

@test "lat: 2 MiB pages without reserved ones: a skipped record, a warning, exit 0" {
	local free
	free=$(free_2m_pages)
	run -0 --separate-stderr rm-bench lat --sizes 16K,64M --pages 4K,2M --runs 1 --mem-node 0
	assert_records bench
	assert_equal "${#lines[@]}" 4
	# size by size, each page size in turn
	assert_line --index 0 --partial 'size=16KiB pages=4KiB '
	assert_line --index 1 --partial 'size=16KiB pages=2MiB '
	assert_line --index 2 --partial 'size=64MiB pages=4KiB '
	if [ "$free" -lt 32 ]; then
		assert_line --index 3 --regexp '^bench=lat size=64MiB pages=2MiB cpu=[0-9]+ mem_node=0 neighbour=- best=- median=- min=- max=- unit=ns runs=0 spread=- loads=- ran_on=- mem_on=- neighbour_rate=- llc_occupancy=- status=skipped reason="not enough 2MiB huge pages free on node 0 \(32 needed, [0-9]+ free\)"$'
		[[ $stderr == *"rm-bench: not enough 2MiB huge pages free on node 0 (32 needed,"*"skipped"* ]]
	else
		assert_line --index 3 --partial 'pages=2MiB '
		assert_line --index 3 --partial ' status=ok '
	fi
}

@test "lat: --sweep-to, four sizes per doubling from 4KiB" {
	run -0 rm-bench lat --sweep-to 16K --runs 1 -o size --bytes
	assert_output "$(printf 'size=%s\n' 4096 5120 6144 7168 8192 10240 12288 14336 16384)"
	run -0 rm-bench lat --sweep-to 5000 --runs 1 -o size
	assert_output size=4KiB
}

@test "lat: --neighbour copies memory on the other cores while the chain is followed" {
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
	run -0 rm-bench lat --cpu 0 --sizes 16K,64K --runs 3 --neighbour -o size,cpu,neighbour,neighbour_rate,ran_on
	assert_equal "${#lines[@]}" 2
	assert_equal "$(field_of size=64KiB neighbour)" \
		"$(rm-topo calc --not all "core:$(rm-topo cpus -o core --raw | head -n 1)")"
	assert_equal "$(field_of size=64KiB ran_on)" 0
	awk -v r="$(field_of size=16KiB neighbour_rate)" 'BEGIN { exit !(r > 0) }'
}

@test "lat: JSON" {
	run -0 rm-bench lat --sizes 16K --runs 1 -J
	run -0 json_eval '[d["lat"][0][k] for k in ("bench", "size", "pages", "unit", "status")]'
	assert_output "$(printf '%s\n' lat 16384 4096 ns ok)"
}

@test "lat: bad requests exit 2" {
	usage_error "--cpu takes one CPU: '0-1'" rm-bench lat --cpu 0-1
	usage_error "--cpu and --node exclude each other" rm-bench lat --cpu 0 --node 0
	usage_error "--sizes and --sweep exclude each other" rm-bench lat --sizes 16K --sweep
	usage_error "--sizes and --sweep exclude each other" rm-bench lat --sizes 16K --sweep-to 1M
	usage_error "--sweep-to: invalid size: '1Q'" rm-bench lat --sweep-to 1Q
	usage_error "--sizes: invalid list: '16K,,1M'" rm-bench lat --sizes 16K,,1M
	usage_error "--sizes: invalid size: '1X'" rm-bench lat --sizes 16K,1X
	usage_error "--pages: no such page size on this machine: '8KiB'" rm-bench lat --pages 4K,8K
	usage_error "--neighbour shares CPUs with the measurement: '0-1'" rm-bench lat --cpu 0 --neighbour=0-1
	# not enough memory: exit 3
	run -3 --separate-stderr rm-bench lat --sizes 64T
	assert_output ''
	assert_equal "$stderr" "rm-bench: not enough free memory for the working set: '64TiB'"
}

@test "lat --matrix: a record from each CPU node to each memory node, drawn by plot" {
	local ncpu=0 nmem=0 n
	for n in /sys/devices/system/node/node[0-9]*; do
		[ -n "$(cat "$n/cpulist")" ] && ncpu=$((ncpu + 1))
		[ "$(awk '/MemTotal/ { print $4 }' "$n/meminfo")" -gt 0 ] && nmem=$((nmem + 1))
	done
	run -0 rm-bench lat --matrix --sizes 64K --runs 1
	assert_records bench
	assert_equal "${#lines[@]}" $((ncpu * nmem))
	assert_line --index 0 --regexp '^bench=lat size=64KiB pages=4KiB cpu=[0-9]+ mem_node=[0-9]+ neighbour=- best=[0-9.]+ .* status=ok reason=-$'
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' "$output" >m.rec
	run -0 rm-bench plot --kind matrix --output m.svg m.rec
	run -0 grep -c 'Memory latency' m.svg
	usage_error "--matrix measures every node pair" rm-bench lat --matrix --cpu 0
	usage_error "--matrix measures every node pair" rm-bench lat --matrix --mem-node 0
	usage_error "--matrix measures every node pair" rm-bench lat --matrix --neighbour
}

@test "lat --loaded: the chain idle, then beside a neighbour copying at rising rates" {
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
	run -0 rm-bench lat --loaded=idle,100us,0 --sizes 1M --runs 1 -o neighbour,best,neighbour_rate,load_delay
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 --regexp '^neighbour=- best=[0-9.]+ neighbour_rate=- load_delay=idle$'
	assert_line --index 1 --regexp '^neighbour=[0-9,-]+ best=[0-9.]+ neighbour_rate=[0-9.]+ load_delay=100us$'
	assert_line --index 2 --regexp '^neighbour=[0-9,-]+ best=[0-9.]+ neighbour_rate=[0-9.]+ load_delay=0$'
	# the pauses lower the neighbour's rate
	local slow=$(field_of 'load_delay=100us' neighbour_rate) fast=$(field_of 'load_delay=0$' neighbour_rate)
	awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(s < f) }'
	# load_delay is shown with --loaded only, and listed as not shown by default
	run -0 rm-bench lat --sizes 16K --runs 1
	refute_output --partial load_delay
	run -0 rm-bench lat --list-columns
	assert_line --regexp '^column=load_delay type=string default=no '
	usage_error "--loaded takes up to 64 delays" rm-bench lat --loaded=idle,soon
	usage_error "--loaded takes up to 64 delays" rm-bench lat --loaded=2s
	usage_error "--loaded measures one working set" rm-bench lat --loaded --sizes 1M,2M
	usage_error "--loaded measures one working set" rm-bench lat --loaded --matrix
}
