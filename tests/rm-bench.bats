#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-bench's commands: the command line, the columns, refusals common to every measurement.
load test_helper
load rm-bench/bench_helper
load cgroup_helper

@test "rm-bench: --help lists the commands, --list-commands names them" {
	run -0 rm-bench --list-commands
	assert_output "$(printf '%s\n' run mem lat c2c jitter compare weights plot)"
	run -0 rm-bench --help
	assert_line --regexp '^  mem +memory bandwidth'
	assert_line --regexp '^  compare +compare two result files'
	run -0 rm-bench --version
	assert_output --regexp '^rm-bench \(rmtools\) [0-9]+\.[0-9]+'
}

@test "rm-bench: every command lists its columns, in every mode" {
	local cmd kind
	for cmd in run mem lat c2c jitter compare; do
		run -0 rm-bench "$cmd" --list-columns
		assert_records column
		run -0 rm-bench "$cmd" --list-columns --raw
		kind=${lines[0]%% *}
		case $cmd in
		run) assert_equal "$kind" machine ;;
		compare) assert_equal "$kind" change ;;
		*) assert_equal "$kind" bench ;;
		esac
		run -0 rm-bench "$cmd" --list-columns -J
		run -0 json_eval 'd["columns"][0]["column"]'
		assert_output "$kind"
	done
	run -0 rm-bench mem --list-columns -t
	assert_line --index 0 --regexp '^COLUMN +TYPE +DEFAULT +DESCRIPTION$'
	assert_line --regexp '^best +number +yes '
	assert_line --regexp '^size +size +yes '
	run -0 rm-bench mem --list-columns -t -n
	assert_line --index 0 --regexp '^bench +string +yes '
}

@test "rm-bench: unknown commands and options exit 2" {
	usage_error "unknown command: 'bogus'" rm-bench bogus
	usage_error "unrecognized option" rm-bench mem --bogus
	usage_error "unexpected argument: 'x'" rm-bench mem x
	usage_error "unexpected argument: 'x'" rm-bench lat x
	usage_error "unexpected argument: 'x'" rm-bench c2c x
	usage_error "unexpected argument: 'x'" rm-bench run x
	usage_error "options --json and --table exclude each other" rm-bench mem -J -t
	usage_error "unknown field: 'bogus'" rm-bench mem --size 1M --runs 1 -o bogus
}

@test "rm-bench: measurements refuse another machine (--topology, --sysroot, variables)" {
	local cmd
	for cmd in "run --quick" "mem" "lat" "c2c" "jitter --cpus 0"; do
		# shellcheck disable=SC2086 # the command and its options
		usage_error "measurements need this machine" rm-bench --topology "pu:4" $cmd
		# shellcheck disable=SC2086
		RM_SYSROOT=$SNAPSHOTS/this-vm usage_error "measurements need this machine" rm-bench $cmd
	done
	# compare reads files only, the variables do not matter to it
	printf 'bench=lat size=16KiB best=1.0 unit=ns\n' >"$BATS_TEST_TMPDIR/a"
	RM_TOPOLOGY=pu:4 run -0 rm-bench compare "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/a"
	assert_output --partial 'verdict=same'
}

@test "rm-bench: a CPU the machine lacks, bad sets and bad numbers exit 2" {
	usage_error "no such CPU: '99'" rm-bench mem --cpus 99
	usage_error "no such CPU: '99'" rm-bench lat --cpu 99
	usage_error "no such CPU: '99'" rm-bench c2c --cpus 0,99
	usage_error "no such CPU: '99'" rm-bench jitter --cpus 99 --duration 10ms
	usage_error "--cpus: " rm-bench mem --cpus 1-x
	usage_error "--runs takes an integer from 1 to 1000: '0'" rm-bench mem --runs 0
	usage_error "--runs takes an integer from 1 to 1000: 'x'" rm-bench lat --runs x
	usage_error "--threads takes an integer" rm-bench mem --threads -1
	usage_error "--size: invalid size: '12X'" rm-bench mem --size 12X
	usage_error "--size: the size must not be zero" rm-bench mem --size 0
}

@test "rm-bench: a NUMA node that does not exist or has no memory exits 2" {
	usage_error "no such NUMA node: '63'" rm-bench mem --mem-node 63
	usage_error "no such NUMA node: '63'" rm-bench mem --node 63
	usage_error "no such NUMA node: '63'" rm-bench lat --mem-node 63
	usage_error "--mem-node: invalid NUMA node: 'x'" rm-bench lat --mem-node x
	local node=''
	for n in $(seq 0 63); do
		[ -d "/sys/devices/system/node/node$n" ] || continue
		grep -qE "(^|,)$n(,|-|$)" /sys/devices/system/node/has_memory || { node=$n; break; }
	done
	[ -n "$node" ] || skip "every NUMA node of this machine has memory"
	usage_error "NUMA node has no memory: '$node'" rm-bench mem --mem-node "$node"
	usage_error "NUMA node has no memory: '$node'" rm-bench lat --mem-node "$node"
}

@test "rm-bench: a CPU outside this process's cpuset exits 2; the default is the cpuset's" {
	[ "$NCPUS" -ge 2 ] || skip "needs two CPUs"
	require_v1_cpuset
	mkdir -p "$V1_PARENT/bench"
	cat "$V1_CPUSET/cpuset.mems" >"$V1_PARENT/cpuset.mems"
	echo 0 >"$V1_PARENT/cpuset.cpus"
	cat "$V1_CPUSET/cpuset.mems" >"$V1_PARENT/bench/cpuset.mems"
	echo 0 >"$V1_PARENT/bench/cpuset.cpus"
	inside() { bash -c 'echo $$ >"$1/tasks"; shift; exec "$@"' _ "$V1_PARENT/bench" "$@"; }
	usage_error "CPU not allowed here (allowed: 0): '1'" inside rm-bench mem --cpus 1
	usage_error "CPU not allowed here (allowed: 0): '$LAST_CPU'" inside rm-bench jitter \
		--cpus "$LAST_CPU"
	run -0 inside rm-bench mem --size 1M --runs 1 --op copy
	assert_equal "$(field_of '^bench=mem' cpus)" 0
	assert_equal "$(field_of '^bench=mem' ran_on)" 0
}

teardown() {
	v1_cpuset_cleanup
}
