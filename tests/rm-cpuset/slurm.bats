#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset export slurm: slurmd -C's node line with CpuSpecList= in Slurm's abstract CPU IDs, on
# synthetic topologies, snapshots and their XML, against slurmd -C, hwloc-calc and rm-devices gres.
load ../test_helper
load ../rm-devices/fixtures

# 32 CPUs, numbered thread by thread: core k = CPUs 2k, 2k+1
T2="package:2 numa:2 core:4 pu:2"
# "0,OFF,1,1+OFF,...": N cores whose threads are i and i+OFF
pairs() {
	local i out=
	for ((i = 0; i < $1; i++)); do out+="${out:+,}$i,$((i + $2))"; done
	echo "$out"
}
# the same machine numbered as x86 does: core i = CPUs i and i+16
MULTI="package:2 numa:2 core:4 pu:2(indexes=$(pairs 16 16))"
# 4-way SMT: 4 sockets x 2 cores x 4 threads, core c = CPUs c, c+8, c+16, c+24
SMT4="package:4 core:2 pu:4(indexes=$(for c in 0 1 2 3 4 5 6 7; do
	printf '%s,%s,%s,%s,' $c $((c + 8)) $((c + 16)) $((c + 24))
done | sed 's/,$//'))"
X86="$SNAPSHOTS/x86-2s-smt" # 2 sockets x 2 cores x 2 threads, core i = CPUs i and i+4

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	STATE="$RM_STATE_DIR/cpuset.state"
}

# The state file's bytes, or "none".
state_sum() { if [ -e "$STATE" ]; then md5sum <"$STATE"; else echo none; fi; }

# The NodeName line of the export (the line after the comment).
node_line() { rm-cpuset export slurm "$@" | grep '^NodeName='; }

# The value of KEY in LINE ("-" when absent).
key() { local v; v=$(tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"); echo "${v:--}"; }

# hwloc's logical PU indexes of the Linux CPUs in LIST (a kernel list), as a kernel list:
# hwloc_li INPUT LIST. INPUT is what hwloc-calc --input takes (synthetic, XML or a snapshot).
hwloc_li() {
	command -v hwloc-calc >/dev/null || skip "hwloc-calc is absent (apt-get install hwloc-nox)"
	local pus=() c a b
	for c in ${2//,/ }; do
		a=${c%-*} b=${c#*-}
		for ((; a <= b; a++)); do pus+=("pu:$a"); done
	done
	hwloc-calc --input "$1" --pi --lo -I pu "${pus[@]}" | tr ',' '\n' | sort -n |
		awk 'NR > 1 && $1 == p + 1 { p = $1; next }
		     { if (NR > 1) out = out (s == p ? s : s "-" p) ","; s = p = $1 }
		     END { print out (s == p ? s : s "-" p) }'
}

@test "export slurm: slurmd -C's node line, its fields in its order" {
	run -0 --separate-stderr rm-cpuset --topology "$T2" export slurm --node-name node01
	assert_line --index 0 "# slurm.conf NodeName line from rm-cpuset export slurm; CpuSpecList= holds Slurm's abstract CPU IDs"
	assert_line --index 1 'NodeName=node01 CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=4096'
	[ "${#lines[@]}" -eq 2 ]
	assert_equal "$stderr" ""
	# reading makes no state
	[ ! -e "$STATE" ]
	# 4-way SMT (hwloc gives a synthetic machine without NUMA nodes 1 GiB)
	run -0 node_line --topology "$SMT4" --node-name n
	assert_output 'NodeName=n CPUs=32 Boards=1 SocketsPerBoard=4 CoresPerSocket=2 ThreadsPerCore=4 RealMemory=1024'
	# no packages: one socket, as slurmd counts
	run -0 node_line --topology "numa:2 core:3 pu:1" --node-name n
	assert_output 'NodeName=n CPUs=6 Boards=1 SocketsPerBoard=1 CoresPerSocket=6 ThreadsPerCore=1 RealMemory=2048'
	# the host name up to its first dot by default
	run -0 node_line --topology "$T2"
	assert_output --regexp "^NodeName=$(hostname | cut -d. -f1) CPUs=32 "
	# a snapshot: RealMemory is its /proc/meminfo MemTotal (33554432 kB) in MiB
	run -0 node_line --sysroot "$X86" --node-name n
	assert_output 'NodeName=n CPUs=8 Boards=1 SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=32768'
	# a hostlist names several nodes
	run -0 node_line --topology "$T2" --node-name 'gpu[01-04]'
	assert_output --regexp '^NodeName=gpu\[01-04\] '
}

@test "export slurm: a topology that states no memory has no RealMemory, and says so" {
	local xml="$BATS_TEST_TMPDIR/nomem.xml"
	command -v lstopo-no-graphics >/dev/null || skip "lstopo-no-graphics is absent (apt-get install hwloc-nox)"
	lstopo-no-graphics --input "$X86" --of xml - | sed 's/ local_memory="[0-9]*"//' >"$xml"
	run -0 --separate-stderr rm-cpuset --topology "$xml" export slurm --node-name n
	assert_line --index 1 'NodeName=n CPUs=8 Boards=1 SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=2'
	assert_equal "$stderr" "rm-cpuset: the topology states no memory size: RealMemory= left out"
}

@test "export slurm: CpuSpecList is the abstract IDs of the reserved CPUs, MemSpecLimit in MiB" {
	# numbered thread by thread, the abstract IDs are the Linux numbers
	run -0 rm-cpuset --topology "$T2" reserve 0-1,16-17 --strict
	run -0 rm-cpuset --topology "$T2" export slurm --node-name n --mem-spec-limit 1G
	assert_line --index 0 "# slurm.conf NodeName line from rm-cpuset export slurm; CpuSpecList= holds Slurm's abstract CPU IDs (Linux CPUs 0-1,16-17)"
	assert_line --index 1 "# CpuSpecList: the CPUs rmtools gave out, on which Slurm runs no job:"
	assert_line --index 2 "#   0-1,16-17: rm-cpuset's reserved pool"
	assert_line --index 3 'NodeName=n CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=4096 CpuSpecList=0-1,16-17 MemSpecLimit=1024'
	run -0 node_line --topology "$T2" --mem-spec-limit 1536MiB
	[ "$(key MemSpecLimit "$output")" = 1536 ]
}

@test "export slurm: siblings numbered apart (i, i+16) are consecutive abstract IDs" {
	rm -rf "$RM_STATE_DIR"
	# cores 0 and 5
	run -0 rm-cpuset --topology "$MULTI" reserve 0,5,16,21
	run -0 node_line --topology "$MULTI"
	[ "$(key CpuSpecList "$output")" = 0-1,10-11 ]
	[ "$(key CpuSpecList "$output")" = "$(hwloc_li "$MULTI" 0,5,16,21)" ]
}

@test "export slurm: 4-way SMT, a core is 4 abstract IDs" {
	# core 3 = CPUs 3, 11, 19, 27; core 6 = 6, 14, 22, 30
	run -0 rm-cpuset --topology "$SMT4" reserve 3,6,11,14,19,22,27,30
	run -0 node_line --topology "$SMT4"
	[ "$(key CpuSpecList "$output")" = 12-15,24-27 ]
	[ "$(key CpuSpecList "$output")" = "$(hwloc_li "$SMT4" 3,6,11,14,19,22,27,30)" ]
}

@test "export slurm: x86-2s-smt (siblings i and i+4), as a snapshot and as hwloc XML" {
	local xml="$BATS_TEST_TMPDIR/x86.xml" st
	command -v lstopo-no-graphics >/dev/null || skip "lstopo-no-graphics is absent (apt-get install hwloc-nox)"
	lstopo-no-graphics --input "$X86" --of xml "$xml"
	for st in sysroot topology; do
		export RM_STATE_DIR="$BATS_TEST_TMPDIR/$st"
		if [ $st = sysroot ]; then set -- --sysroot "$X86"; else set -- --topology "$xml"; fi
		# core 0 = CPUs 0,4; core 3 = CPUs 3,7 (package 1)
		run -0 rm-cpuset "$@" reserve 0,3-4,7
		run -0 node_line "$@" --node-name n
		# the XML states the NUMA nodes' memory, 2 x 16 GiB, as the snapshot's meminfo does
		assert_output 'NodeName=n CPUs=8 Boards=1 SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=32768 CpuSpecList=0-1,6-7'
		[ "$(key CpuSpecList "$output")" = "$(hwloc_li "$X86" 0,3-4,7)" ]
		run -0 rm-cpuset "$@" reserve 2,6
		run -0 node_line "$@"
		[ "$(key CpuSpecList "$output")" = 4-5 ]
	done
}

@test "export slurm: a reservation of part of a core is refused with the whole cores to reserve" {
	local before
	run -0 rm-cpuset --topology "$MULTI" reserve 0,16,5
	before=$(state_sum)
	usage_error "rm-cpuset: the reserved CPUs are not whole cores, and Slurm widens CpuSpecList to whole cores: '0,5,16' (reserve the whole cores: 'rm-cpuset reserve 0,5,16,21')" \
		rm-cpuset --topology "$MULTI" export slurm
	assert_equal "$(state_sum)" "$before"
	# the command it names makes the export work
	run -0 rm-cpuset --topology "$MULTI" reserve 0,5,16,21
	run -0 rm-cpuset --topology "$MULTI" export slurm
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/smt4"
	run -0 rm-cpuset --topology "$SMT4" reserve 3,11,19
	usage_error "reserve the whole cores: 'rm-cpuset reserve 3,11,19,27'" \
		rm-cpuset --topology "$SMT4" export slurm
}

@test "export slurm: a machine Slurm cannot describe in one line is refused" {
	local root="$BATS_TEST_TMPDIR/root"
	# CPU 7 offline: core 3 has one thread, the others two
	cp -r "$X86" "$root"
	rm -rf "$root/sys/devices/system/cpu/cpu7/topology" "$root/sys/devices/system/cpu/cpu7/cache"
	echo 0 >"$root/sys/devices/system/cpu/cpu7/online"
	echo 0-6 >"$root/sys/devices/system/cpu/online"
	echo 7 >"$root/sys/devices/system/cpu/offline"
	usage_error "the cores have different numbers of CPUs" rm-cpuset --sysroot "$root" export slurm
}

@test "export slurm: bad options exit 2 and change nothing" {
	local before
	run -0 rm-cpuset --topology "$T2" reserve 0-1
	before=$(state_sum)
	usage_error "MemSpecLimit is in whole MiB: '8192' (e.g. 512M or 8G; a plain number is bytes)" \
		rm-cpuset --topology "$T2" export slurm --mem-spec-limit 8192
	usage_error "MemSpecLimit is in whole MiB: '0'" rm-cpuset --topology "$T2" export slurm --mem-spec-limit 0
	usage_error "invalid size: '1X'" rm-cpuset --topology "$T2" export slurm --mem-spec-limit 1X
	usage_error "rm-cpuset: MemSpecLimit must be less than RealMemory (4096 MiB): '4096MiB'" \
		rm-cpuset --topology "$T2" export slurm --mem-spec-limit 4G
	usage_error "invalid node name: 'a b'" rm-cpuset --topology "$T2" export slurm --node-name 'a b'
	usage_error "invalid node name: 'n=1'" rm-cpuset --topology "$T2" export slurm --node-name n=1
	usage_error "invalid node name: ''" rm-cpuset --topology "$T2" export slurm --node-name ''
	usage_error "--node-name is for slurm" rm-cpuset --topology "$T2" export kubelet --node-name n
	usage_error "--mem-spec-limit is for slurm" rm-cpuset --topology "$T2" export systemd --mem-spec-limit 1G
	usage_error "--output is for slurm" rm-cpuset --topology "$T2" export kubelet -o /tmp/x
	usage_error "--root is for systemd" rm-cpuset --topology "$T2" export slurm --root /tmp
	usage_error "--policy is for kubelet" rm-cpuset --topology "$T2" export slurm --policy restricted
	usage_error "--full-pcpus-only is for kubelet" rm-cpuset --topology "$T2" export slurm --full-pcpus-only
	usage_error "output options do not apply" rm-cpuset --topology "$T2" -J export slurm
	usage_error "unexpected argument: 'kubelet'" rm-cpuset --topology "$T2" export slurm kubelet
	assert_equal "$(state_sum)" "$before"
}

@test "export slurm: --output writes the file atomically and prints nothing" {
	local dir="$BATS_TEST_TMPDIR/etc" want
	mkdir "$dir"
	run -0 rm-cpuset --topology "$T2" reserve 0-1
	want=$(rm-cpuset --topology "$T2" export slurm --node-name n)
	run -0 rm-cpuset --topology "$T2" export slurm --node-name n --output "$dir/node.conf"
	assert_output ""
	assert_equal "$(cat "$dir/node.conf")" "$want"
	assert_equal "$(stat -c %a "$dir/node.conf")" 644
	# replaced in place, no temporary file left
	run -0 rm-cpuset --topology "$T2" export slurm --node-name m -o "$dir/node.conf"
	run -0 grep -c '^NodeName=m ' "$dir/node.conf"
	assert_equal "$(ls -A "$dir")" node.conf
	# a directory that does not exist: exit 1, nothing written
	run -1 --separate-stderr rm-cpuset --topology "$T2" export slurm -o "$dir/none/node.conf"
	assert_equal "$stderr" "rm-cpuset: cannot create a file next to '$dir/none/node.conf': No such file or directory"
	assert_equal "$(ls -A "$dir")" node.conf
}

@test "export slurm: CpuSpecList and rm-devices export gres Cores= number cores alike" {
	local gpu="$BATS_TEST_TMPDIR/gpu" addr cpus file line cores spec tpc n=0 id
	fx_gpu_server "$gpu"
	# each GPU's local CPUs reserved: their abstract IDs' cores are the GPU's Cores=
	while read -r addr cpus file; do
		export RM_STATE_DIR="$BATS_TEST_TMPDIR/state-$n"
		run -0 rm-cpuset --sysroot "$gpu" reserve "$cpus"
		line=$(node_line --sysroot "$gpu")
		spec=$(key CpuSpecList "$line")
		tpc=$(key ThreadsPerCore "$line")
		cores=$(rm-devices --sysroot "$gpu" export gres | grep " File=$file ")
		cores=${cores##*Cores=}
		# the cores of the abstract IDs: ID / ThreadsPerCore
		id=$(for c in ${spec//,/ }; do seq "${c%-*}" "${c#*-}"; done |
			awk -v t="$tpc" '{ print int($1 / t) }' | sort -nu | paste -sd, |
			sed 's/^0,1$/0-1/; s/^2,3$/2-3/')
		assert_equal "$id" "$cores"
		n=$((n + 1))
	done < <(rm-devices --sysroot "$gpu" list --type gpu -o device,cpus,dev_nodes -r)
	[ "$n" -eq 8 ]
	# node 0's CPUs 0-1,4-5 are cores 0-1, abstract IDs 0-3 (not 0-1,4-5)
	assert_equal "$(key CpuSpecList "$(RM_STATE_DIR="$BATS_TEST_TMPDIR/state-0" node_line --sysroot "$gpu")")" 0-3
}

@test "export slurm: the node line matches slurmd -C on this machine" {
	local ours theirs k
	command -v slurmd >/dev/null || skip "slurmd is absent (apt-get install slurmd)"
	# the first line of slurmd -C is the node line; UpTime= (and Gres= when it finds GPUs) follow
	theirs=$(slurmd -C | head -n 1)
	ours=$(node_line)
	for k in NodeName CPUs Boards SocketsPerBoard CoresPerSocket ThreadsPerCore; do
		assert_equal "$k=$(key "$k" "$ours")" "$k=$(key "$k" "$theirs")"
	done
	# RealMemory: both are the kernel's total RAM (slurmd: sysconf(_SC_PHYS_PAGES) times the
	# page size, i.e. sysinfo's totalram; rm-cpuset: MemTotal of /proc/meminfo, the same
	# totalram) in MiB, rounded down. They differ only where /proc/meminfo is not the kernel's
	# (LXCFS mounts its own over it in containers) or memory was hot-plugged between the reads.
	if findmnt -n /proc/meminfo >/dev/null 2>&1; then
		echo "# /proc/meminfo is a mount of its own (LXCFS?): RealMemory not compared" >&3
	else
		assert_equal "RealMemory=$(key RealMemory "$ours")" "RealMemory=$(key RealMemory "$theirs")"
	fi
}
