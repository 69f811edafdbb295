#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset's commands on synthetic topologies: records, refusals, state, exports, run and gc.
load test_helper

T2="package:2 numa:2 core:4 pu:2" # 32 CPUs, nodes of 8: 0-7, 8-15, 16-23, 24-31

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	STATE="$RM_STATE_DIR/cpuset.state"
}

cs() { rm-cpuset --topology "$T2" "$@"; }

# The state file's bytes, or "none".
state_sum() { if [ -e "$STATE" ]; then md5sum <"$STATE"; else echo none; fi; }

# Refused with exit status STATUS, MESSAGE on stderr, and the state file unchanged.
refused() {
	local status=$1 msg=$2 before
	shift 2
	before=$(state_sum)
	run "-$status" --separate-stderr "$@"
	assert_equal "$output" ""
	[[ $stderr == *"$msg"* ]] || fail "stderr: '$stderr', expected: '$msg'"
	assert_equal "$(state_sum)" "$before"
}

@test "rm-cpuset: with no command shows the pools and the nodes" {
	run -0 cs
	assert_line --index 0 'pool=reserved cpus="" count=0 nodes="" strict=no owners=-'
	assert_line --index 1 'pool=shared cpus=0-31 count=32 nodes=0-3 strict=- owners=-'
	assert_line --index 3 'pool=free cpus=0-31 count=32 nodes=0-3 strict=- owners=-'
	assert_line --index 4 'node=0 cpus=0-7 free=0-7 nfree=8 exclusive="" reserved="" shared=0-7'
	# reading creates no state
	[ ! -e "$STATE" ]
}

@test "alloc: prints the allocation record and keeps it in the state" {
	run -0 cs alloc --count 4 --owner web
	assert_output 'owner=web cpus=0-3 mems=0 cores=0-1 nodes=0 cgroup=-'
	run -0 cs list -o owner,cpus,count,isolate,pid
	assert_output 'owner=web cpus=0-3 count=4 isolate=no pid=-'
	run -0 sed -n 1p "$STATE"
	assert_output --regexp '^rmtools_state=cpuset version=1 records=2 checksum=[0-9a-f]{8}$'
	run -0 sed -n 2,3p "$STATE"
	assert_line --index 0 --regexp '^topology=[0-9a-f]{8} cpus=0-31 nodes=0-3 online=0-31$'
	assert_line --index 1 --regexp '^owner=web cpus=0-3 mems=0 count=4 isolate=no pid=- start=- created=[0-9]+$'
	# the next owner packs beside it; the pools follow
	run -0 cs alloc --count 2 --owner db
	assert_output --partial 'owner=db cpus=4-5 '
	run -0 cs show -o pool,cpus,owners
	assert_line --index 1 'pool=shared cpus=6-31 owners=-'
	assert_line --index 2 'pool=exclusive cpus=0-5 owners=2'
	assert_line --index 4 'node=0 cpus=0-7 free=6-7 nfree=2 exclusive=0-5 reserved="" shared=6-7'
}

@test "alloc: JSON, table and -o" {
	run -0 cs alloc --count 2 --owner web -J
	run -0 jq -c '.allocations[0] | [.owner, .cpus, .mems, .cgroup]' <<<"$output"
	assert_output '["web","0-1","0",null]'
	run -0 cs list -t -o owner,count
	assert_line --index 0 --regexp '^OWNER +COUNT$'
	assert_line --index 1 --regexp '^web +2$'
	run -0 cs list --list-columns --raw
	assert_line --index 0 --partial 'owner string yes'
}

@test "alloc: --dry-run prints the choice and changes nothing" {
	run -0 cs alloc --count 4 --owner web
	before=$(state_sum)
	run -0 cs alloc --count 3 --owner db --dry-run
	assert_output --partial 'owner=db cpus=4-6 '
	assert_equal "$(state_sum)" "$before"
	run -0 cs alloc --count 3 --owner db
	assert_output --partial 'owner=db cpus=4-6 '
}

@test "alloc: bad requests are refused with exit 2 and change nothing" {
	run -0 cs alloc --count 2 --owner web
	refused 2 "alloc needs --count N" cs alloc --owner x
	refused 2 "alloc needs --owner NAME" cs alloc --count 1
	refused 2 "invalid count: '0'" cs alloc --count 0 --owner x
	refused 2 "invalid count: '2x'" cs alloc --count 2x --owner x
	refused 2 "invalid owner name: '../etc'" cs alloc --count 1 --owner ../etc
	refused 2 "invalid owner name: 'shared' names the shared pool" cs alloc --count 1 --owner shared
	refused 2 "owner 'web' already has CPUs" cs alloc --count 1 --owner web
	refused 2 "unknown policy: 'strict'" cs alloc --count 1 --owner x --policy strict
	refused 2 "no such NUMA node: '7'" cs alloc --count 1 --owner x --numa-node 7
	refused 2 "--from: " cs alloc --count 1 --owner x --from 40-41
	refused 2 "invalid --from" cs alloc --count 1 --owner x --from 3-1
	refused 2 "--isolate needs cgroup v2 cpuset partitions" cs alloc --count 1 --owner x --isolate
	refused 2 "unexpected argument: 'extra'" cs alloc --count 1 --owner x extra
	# the kubelet refuses these combinations
	refused 2 "distribute-cpus-across-cores" cs alloc --count 2 --owner x \
		--distribute-cpus-across-cores --full-pcpus-only
	refused 2 "not a multiple of the 2 CPUs per core" cs alloc --count 3 --owner x --full-pcpus-only
}

@test "alloc: not enough free CPUs exits 3, says how many are free, changes nothing" {
	run -0 cs alloc --count 20 --owner big
	refused 3 "not enough free CPUs: requested 12, available 11 (the shared pool keeps at least one CPU" \
		cs alloc --count 12 --owner x
	run -0 cs reserve 31
	refused 3 "not enough free CPUs: requested 12, available 11" cs alloc --count 12 --owner x
	# with a CPU reserved in the shared pool, allocations may take every other CPU
	run -0 cs alloc --count 11 --owner rest
	run -0 cs show -o pool,cpus
	assert_line --index 1 'pool=shared cpus=31'
	refused 3 "not enough free CPUs: requested 4, available 0 in --from" \
		cs alloc --count 4 --owner y --from 30-31 --dry-run
}

@test "alloc: topology manager policies refuse what they cannot align" {
	run -0 cs alloc --count 6 --owner a
	run -0 cs alloc --count 6 --owner b --policy single-numa-node
	assert_output --partial 'cpus=8-13 '
	refused 3 "single-numa-node: no single NUMA node has 9 free CPUs (node 0: 2, node 1: 2, node 2: 8, node 3: 8)" \
		cs alloc --count 9 --owner c --policy single-numa-node
	# two nodes are needed: the preferred pair with the lowest mask ({0,2}) wins
	run -0 cs alloc --count 9 --owner c --policy restricted --dry-run
	assert_output --partial 'cpus=6,16-23 mems=0,2 cores=3,8-11 nodes=0,2 '
	# --numa-node is a second provider: merged with the CPU hints
	run -0 cs alloc --count 4 --owner d --numa-node 3 --policy best-effort --dry-run
	assert_output --partial 'cpus=24-27 '
	refused 3 "the preferred NUMA node cannot hold 3 CPUs on one node" \
		cs alloc --count 3 --owner d --numa-node 0 --policy single-numa-node
	# with no policy it is a preference: what fits there, the rest packed elsewhere
	run -0 cs alloc --count 4 --owner d --numa-node 1 --dry-run
	assert_output --partial 'cpus=6-7,14-15 '
}

@test "alloc --near: device records on stdin" {
	run -0 cs alloc --count 2 --owner gpu --near - --dry-run \
		<<<'device=0000:3b:00.0 type=gpu vendor=10de numa=2'
	assert_output --partial 'cpus=16-17 mems=2 '
	run -0 cs alloc --count 2 --owner gpu --near - --dry-run <<<'device=0000:3b:00.0 numa=-'
	assert_output --partial 'cpus=0-1 '
	refused 2 "standard input: line 1" cs alloc --count 2 --owner gpu --near - <<<'device=x numa'
	refused 2 "invalid device: 'zz'" cs alloc --count 2 --owner gpu --near zz
	refused 2 "no such PCI device: '99:00.0'" cs alloc --count 2 --owner gpu --near 99:00.0
}

@test "release: gives CPUs back; an unknown owner changes nothing" {
	run -0 cs alloc --count 2 --owner a
	run -0 cs alloc --count 2 --owner b
	refused 2 "no such owner: 'nobody'" cs release a nobody
	run -0 cs release --dry-run a
	assert_output --partial 'owner=a cpus=0-1 '
	run -0 cs list -o owner
	assert_output $'owner=a\nowner=b'
	run -0 cs release a
	assert_output --partial 'owner=a cpus=0-1 '
	run -0 cs list -o owner
	assert_output 'owner=b'
	# the freed CPUs are taken again first (fullest core, lowest id)
	run -0 cs alloc --count 1 --owner c
	assert_output --partial 'cpus=0 '
	run -0 cs release --all
	assert_line --index 0 --partial 'owner=b '
	assert_line --index 1 --partial 'owner=c '
	run -0 cs list
	assert_output ''
	refused 2 "missing OWNER" cs release
	refused 2 "--all takes no OWNER" cs release --all b
}

@test "reserve: a list, a count, strict, and refusals" {
	run -0 cs reserve 0-1
	assert_output 'pool=reserved cpus=0-1 count=2 nodes=0 strict=no owners=-'
	run -0 cs alloc --count 2 --owner a
	assert_output --partial 'cpus=2-3 '
	run -0 cs show -o pool,cpus
	assert_line --index 1 'pool=shared cpus=0-1,4-31'
	run -0 cs reserve 0-1 --strict
	run -0 cs show -o pool,cpus,strict
	assert_line --index 0 'pool=reserved cpus=0-1 strict=yes'
	assert_line --index 1 'pool=shared cpus=4-31 strict=-'
	refused 2 "CPUs 2 are allocated to owners" cs reserve 2
	refused 2 "not an online CPU of this machine: '32-33'" cs reserve 30-33
	refused 2 "invalid SET" cs reserve 1-x
	refused 2 "give either SET or --count N" cs reserve
	refused 2 "give either SET or --count N" cs reserve 0 --count 1
	# a count chooses as the kubelet does; here its choice (0-1) is taken: exit 3
	run -0 cs release a
	run -0 cs reserve --count 3 --dry-run
	assert_output --partial 'cpus=0-2 '
	run -0 cs reserve ""
	assert_output --partial 'pool=reserved cpus="" count=0'
	run -1 grep -c '^reserved=' "$STATE"
	assert_output 0
}

@test "state: a state made for other CPUs is refused until accept-topology" {
	run -0 cs alloc --count 4 --owner low
	run -0 cs alloc --count 4 --owner high --from 24-31
	run -0 cs reserve 4-5,30
	before=$(state_sum)
	run -1 --separate-stderr rm-cpuset --topology "package:2 numa:2 core:3 pu:2" list
	assert_equal "$stderr" "rm-cpuset: the CPUs changed since the state $STATE was made (CPUs 24-31 are gone); 'rm-cpuset accept-topology' keeps the allocations that still fit"
	run -1 --separate-stderr rm-cpuset --topology "package:4 numa:1 core:4 pu:2" list
	[[ $stderr == *"the CPUs' cores, packages or NUMA nodes differ"* ]]
	assert_equal "$(state_sum)" "$before"
	refused 2 "accept-topology: unexpected argument: 'high'" \
		rm-cpuset --topology "package:2 numa:2 core:3 pu:2" accept-topology high
	run -0 rm-cpuset --topology "package:2 numa:2 core:3 pu:2" accept-topology --dry-run
	assert_output --partial 'owner=high cpus=24-27 '
	assert_equal "$(state_sum)" "$before"
	run -0 rm-cpuset --topology "package:2 numa:2 core:3 pu:2" accept-topology
	run -0 rm-cpuset --topology "package:2 numa:2 core:3 pu:2" list -o owner,cpus
	assert_output 'owner=low cpus=0-3'
	run -0 rm-cpuset --topology "package:2 numa:2 core:3 pu:2" show -o pool,cpus
	assert_line --index 0 'pool=reserved cpus=4-5'
}

@test "state: a corrupt file is refused with its path and never reset" {
	run -0 cs alloc --count 4 --owner web
	sed -i 's/cpus=0-3/cpus=0-4/' "$STATE"
	before=$(state_sum)
	run -1 --separate-stderr cs list
	[[ $stderr == *"$STATE"* && $stderr == *checksum* ]] || fail "$stderr"
	run -1 cs alloc --count 1 --owner x
	assert_equal "$(state_sum)" "$before"
}

@test "export kubelet: a drop-in matching the reservation" {
	refused 2 "no CPUs are reserved or allocated" cs export kubelet
	run -0 cs reserve 0-1 --strict
	run -0 cs export kubelet --full-pcpus-only --policy single-numa-node
	assert_line --index 3 "#   0-1: rm-cpuset's reserved pool"
	assert_line --index 4 'apiVersion: kubelet.config.k8s.io/v1beta1'
	assert_line --index 5 'kind: KubeletConfiguration'
	assert_line --index 6 'cpuManagerPolicy: static'
	assert_line --index 7 'cpuManagerPolicyOptions:'
	assert_line --index 8 '  full-pcpus-only: "true"'
	assert_line --index 9 '  strict-cpu-reservation: "true"'
	assert_line --index 10 'reservedSystemCPUs: "0-1"'
	assert_line --index 11 'topologyManagerPolicy: single-numa-node'
	refused 2 "align-by-socket" cs export kubelet --align-by-socket --policy single-numa-node
	refused 2 "unknown export format: 'nomad'" cs export nomad
	refused 2 "--root is for systemd" cs export kubelet --root /tmp
	refused 2 "output options do not apply" cs -J export kubelet
}

@test "export systemd: drop-ins keeping system services on the reserved CPUs" {
	run -0 cs reserve 0-1,16
	run -0 cs export systemd
	assert_line --index 0 '# /etc/systemd/system.conf.d/50-rmtools-cpuset.conf'
	assert_line --index 2 '[Manager]'
	assert_line --index 3 'CPUAffinity=0-1,16'
	# (bats drops the empty lines between the files)
	assert_line --index 4 '# /etc/systemd/system/system.slice.d/50-rmtools-cpuset.conf'
	assert_line 'AllowedCPUs=0-1,16'
	assert_line '[Scope]'
	run -0 cs export systemd --root "$BATS_TEST_TMPDIR/root"
	assert_line --index 0 "file=$BATS_TEST_TMPDIR/root/etc/systemd/system.conf.d/50-rmtools-cpuset.conf"
	run -0 cat "$BATS_TEST_TMPDIR/root/etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf"
	assert_line '[Scope]'
	assert_line 'AllowedCPUs=0-1,16'
	refused 2 "--policy is for kubelet" cs export systemd --policy restricted
}

@test "apply needs cgroups" {
	refused 2 "no cgroups are kept for this topology" cs apply
}

# run and gc use this machine (they need real CPUs), with --no-cgroups unless root tests ask.
@test "run: the command runs on its CPUs, its status passes through, the CPUs come back" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -0 rm-cpuset --no-cgroups run --count 1 -- sh -c 'grep Cpus_allowed_list /proc/self/status'
	assert_output --regexp $'^Cpus_allowed_list:\t[0-9]+$'
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
	run -7 rm-cpuset --no-cgroups run --count 1 -- sh -c 'exit 7'
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
	# a signal is raised again: the shell sees 128+15
	run -143 rm-cpuset --no-cgroups run --count 1 -- sh -c 'kill -TERM $$'
	run -127 --separate-stderr rm-cpuset --no-cgroups run --count 1 -- /nonexistent/cmd
	[[ $stderr == *"cannot run '/nonexistent/cmd'"* ]]
	run -126 rm-cpuset --no-cgroups run --count 1 -- "$BATS_TEST_TMPDIR"
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
}

@test "run: --owner reuses an allocation and keeps it; --shared runs on the shared pool" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -0 rm-cpuset --no-cgroups alloc --count 1 --owner svc
	cpu=$(field cpus)
	run -0 rm-cpuset --no-cgroups run --owner svc -- grep Cpus_allowed_list /proc/self/status
	assert_output "Cpus_allowed_list:	$cpu"
	run -0 rm-cpuset --no-cgroups list -o owner
	assert_output 'owner=svc'
	run -0 rm-cpuset --no-cgroups show -o pool,cpus
	shared=$(printf '%s\n' "$output" | sed -n 's/^pool=shared cpus=//p')
	run -0 rm-cpuset --no-cgroups run --shared -- grep Cpus_allowed_list /proc/self/status
	assert_output "Cpus_allowed_list:	$shared"
	refused 2 "no such owner: 'nobody'" rm-cpuset --no-cgroups run --owner nobody -- true
	refused 2 "missing COMMAND" rm-cpuset --no-cgroups run --count 1
	refused 2 "give --count N, --owner NAME or --shared" rm-cpuset --no-cgroups run -- true
	refused 2 "--shared takes no --count" rm-cpuset --no-cgroups run --shared --count 1 -- true
	refused 2 "run needs this machine's topology" cs run --count 1 -- true
}

@test "run: options of the command are its own" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -0 rm-cpuset --no-cgroups run --count 1 sh -c 'echo "$0 $1"' -x --count
	assert_output '-x --count'
}

@test "run: --interleave, --membind, --preferred and --weighted-interleave set the command's policy" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	[ -e /proc/self/numa_maps ] || skip "needs a NUMA kernel (CONFIG_NUMA)"
	node=$(rm-topo nodes -r -o node | head -n1)
	# the heap's policy as numa_maps states it, as numactl's would
	run -0 rm-cpuset --no-cgroups run --shared --interleave "$node" -- grep ' heap ' /proc/self/numa_maps
	assert_output --regexp "^[0-9a-f]+ interleave:$node heap "
	run -0 rm-cpuset --no-cgroups run --count 1 --membind "$node" -- grep ' heap ' /proc/self/numa_maps
	assert_output --regexp "^[0-9a-f]+ bind:$node heap "
	run -0 rm-cpuset --no-cgroups run --count 1 --preferred "$node" -- grep ' heap ' /proc/self/numa_maps
	assert_output --regexp "^[0-9a-f]+ prefer:$node heap "
	if [ -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
		run -0 rm-cpuset --no-cgroups run --shared --weighted-interleave "$node" -- \
			grep ' heap ' /proc/self/numa_maps
		assert_output --regexp "^[0-9a-f]+ weighted interleave:$node heap "
	fi
	# without a policy, memory is bound to the owner's nodes
	run -0 rm-cpuset --no-cgroups run --count 1 -- grep ' heap ' /proc/self/numa_maps
	assert_output --regexp "^[0-9a-f]+ bind:$node heap "
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
	refused 2 "--interleave and --membind: give one memory policy" \
		rm-cpuset --no-cgroups run --shared --interleave 0 --membind 0 -- true
	refused 2 "--preferred takes one NUMA node: '0-1'" \
		rm-cpuset --no-cgroups run --shared --preferred 0-1 -- true
	refused 2 "invalid --membind" rm-cpuset --no-cgroups run --shared --membind x -- true
	refused 2 "--interleave: NUMA nodes '99' are not all among the owner's memory nodes" \
		rm-cpuset --no-cgroups run --count 1 --interleave 99 -- true
	refused 2 "--membind: NUMA nodes '99' are not all among the machine's memory nodes" \
		rm-cpuset --no-cgroups run --shared --membind 99 -- true
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
}

@test "attach: moves every thread of running processes onto the owner's CPUs" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -0 rm-cpuset --no-cgroups alloc --count 1 --owner att
	cpu=$(field cpus)
	# a process with 3 threads besides its main one, and a plain one
	python3 -c 'import threading, time
for _ in range(3): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
time.sleep(60)' &
	p1=$!
	sleep 60 &
	p2=$!
	for _ in $(seq 100); do [ "$(ls /proc/$p1/task | wc -l)" -ge 4 ] && break; sleep 0.1; done
	run -0 rm-cpuset --no-cgroups attach att "$p1" "$p2" --dry-run -o pid,threads,cpus
	assert_output "pid=$p1 threads=4 cpus=$cpu
pid=$p2 threads=1 cpus=$cpu"
	run -0 grep -h Cpus_allowed_list /proc/$p1/task/*/status
	refute_output --partial $'\t'"$cpu"$'\n'
	run -0 rm-cpuset --no-cgroups attach att "$p1" "$p2" --migrate-memory
	assert_line --index 0 --regexp "^pid=$p1 owner=att threads=4 cpus=$cpu mems=[0-9,-]+ cgroup=- unmigrated=[0-9]+$"
	assert_line --index 1 --regexp "^pid=$p2 owner=att threads=1 cpus=$cpu mems=[0-9,-]+ cgroup=- unmigrated=[0-9]+$"
	run -0 grep -h Cpus_allowed_list /proc/$p1/task/*/status /proc/$p2/status
	assert_output "$(printf 'Cpus_allowed_list:\t%s\n' "$cpu" "$cpu" "$cpu" "$cpu" "$cpu")"
	refused 2 "no such owner: 'nobody'" rm-cpuset --no-cgroups attach nobody "$p2"
	refused 2 "invalid process id: 'x'" rm-cpuset --no-cgroups attach att x
	refused 2 "give an OWNER and at least one PID" rm-cpuset --no-cgroups attach att
	kill "$p1" "$p2"
	wait "$p1" "$p2" || true
	refused 2 "no such process: '$p2'" rm-cpuset --no-cgroups attach att "$p2"
	run -0 rm-cpuset --no-cgroups release att
}

@test "attach --oci-state: the process is the top-level \"pid\" of the OCI state on standard input, as a hook gets it" {
	run -0 rm-cpuset --no-cgroups alloc --count 1 --owner att
	cpu=$(field cpus)
	sleep 60 &
	p=$!
	# a "pid" in the annotations or as a string value is not the container's
	run -0 rm-cpuset --no-cgroups attach --oci-state att -o pid,cpus <<<"{\"ociVersion\": \"1.0.2\", \"id\": \"pid\", \"annotations\": {\"pid\": \"1\", \"x\": {\"pid\": 1}}, \"status\": \"created\", \"pid\" : $p, \"bundle\": \"/b\"}"
	assert_output "pid=$p cpus=$cpu"
	run -0 grep Cpus_allowed_list /proc/$p/status
	assert_output "Cpus_allowed_list:	$cpu"
	refused 2 'no "pid" in the OCI state on standard input' rm-cpuset --no-cgroups attach --oci-state att <<<'{"id": "c", "annotations": {"pid": 1}}'
	refused 2 'no "pid" in the OCI state on standard input' rm-cpuset --no-cgroups attach --oci-state att <<<'{"pid": "12"}'
	refused 2 "--oci-state takes no PID: '$p'" rm-cpuset --no-cgroups attach --oci-state att "$p"
	refused 2 "the OCI state on standard input is over 1048576 bytes" rm-cpuset --no-cgroups attach --oci-state att < <(head -c 1048577 /dev/zero)
	kill "$p"
	wait "$p" || true
	refused 2 "no such process: '$p'" rm-cpuset --no-cgroups attach --oci-state att <<<"{\"pid\": $p}"
	run -0 rm-cpuset --no-cgroups release att
}

@test "gc: releases allocations whose run process is gone, keeps the others" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -0 rm-cpuset --no-cgroups reserve 0
	run -0 rm-cpuset --no-cgroups alloc --count 1 --owner manual
	run -0 rm-cpuset --no-cgroups release manual
	rm-cpuset --no-cgroups run --count 1 --owner job -- sleep 30 3>&- &
	runner=$!
	for _ in $(seq 50); do rm-cpuset --no-cgroups list -o owner | grep -q job && break; sleep 0.1; done
	run -0 rm-cpuset --no-cgroups gc --dry-run
	assert_output ''
	kill -9 "$runner"
	wait "$runner" || true
	pkill -f 'sleep 30' || true
	run -0 rm-cpuset --no-cgroups gc --dry-run -o owner,pid
	assert_output "owner=job pid=$runner"
	run -0 rm-cpuset --no-cgroups gc -o owner
	assert_output 'owner=job'
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
}

@test "alloc --cpu-kind: only CPUs of hwloc's most or least efficient kind, through the Topology Manager" {
	local x=$BATS_TEST_TMPDIR/a.xml h=$BATS_TEST_TMPDIR/hybrid.xml
	lstopo-no-graphics --input "package:1 numa:1 core:4 pu:2" "$x"
	hwloc-annotate "$x" "$h" root cpukind 0x0f 1 0 CoreType IntelCore
	hwloc-annotate "$h" "$h" root cpukind 0xf0 0 0 CoreType IntelAtom
	run -0 rm-cpuset --topology "$h" alloc --owner big -c 2 --cpu-kind performance -o owner,cpus
	[ "$output" = "owner=big cpus=0-1" ]
	run -0 rm-cpuset --topology "$h" alloc --owner little -c 4 --cpu-kind efficiency -o owner,cpus
	[ "$output" = "owner=little cpus=4-7" ]
	# the efficiency kind is used up: nothing changes
	refused 3 "of --cpu-kind" rm-cpuset --topology "$h" alloc --owner more -c 1 --cpu-kind efficiency
	# the shared pool keeps one CPU of its own, here one of 2-3
	run -0 rm-cpuset --topology "$h" alloc --owner p2 -c 1 --cpu-kind performance -o cpus
	[[ $output == cpus=[23] ]]
	# one kind: every CPU is both kinds
	RM_STATE_DIR=$BATS_TEST_TMPDIR/one run -0 rm-cpuset --topology "$x" alloc --owner one -c 7 \
		--cpu-kind efficiency -o cpus
	[ "$output" = "cpus=0-6" ]
	refused 2 "invalid --cpu-kind: 'big'" rm-cpuset --topology "$h" alloc --owner x -c 1 --cpu-kind big
}
