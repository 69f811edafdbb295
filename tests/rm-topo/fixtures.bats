# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo agrees with its peers: lscpu on real machines' snapshots, hwloc on synthetic topologies.
load ../test_helper

# ---- helpers: real machines (../shared/fixtures/lscpu, util-linux's lscpu test dumps) ----

# CPU lists ("0-3,8", "0,1", "" or '""') expanded to one CPU a line.
expand_list() {
	printf '%s\n' "$1" | tr -d '" ' | awk -F, '{
		for (i = 1; i <= NF; i++) {
			n = split($i, r, "-")
			if (n == 1 && r[1] != "") print r[1]
			else if (n == 2) for (c = r[1]; c <= r[2]; c++) print c
		} }'
}

# The CPUs (os numbers, ascending, comma-separated) hwloc-calc gives for INPUT and LOCATION
# (rm-topo's "cpu:" is hwloc's "pu:"); more hwloc-calc options may follow.
hw_cpus() {
	local input=$1 loc=$2
	shift 2
	hwloc-calc --input "$input" "$@" "${loc//cpu:/pu:}" --intersect PU --physical-output |
		tr , '\n' | sort -n | paste -sd,
}

# rm-topo's CPU list output as hw_cpus prints it.
rm_cpus() {
	expand_list "$1" | paste -sd,
}

# "CPU ID" lines to "CPU N", N numbering the IDs in order of first appearance: which CPUs share
# an ID is kept, the ID itself is not (lscpu and hwloc number logical ids differently).
canon() {
	awk '$2 == "-" { print $1, "-"; next } { if (!($2 in m)) m[$2] = n++; print $1, m[$2] }'
}

# Load fixture machine NAME (see machine_dir).
machine() {
	require_fixtures
	M=$1
	[ -d "$FIXTURES/$1/sys" ] || fail "no fixture '$1' in $FIXTURES"
	machine_dir "$FIXTURES/$1"
}

# Load the snapshot DIR: lscpu's summary ($LSCPU) and its -p CPU,CORE,SOCKET,NODE table
# ($LSCPU_P, "-" for an empty column), rm-topo's table of online CPUs ($RM_P), its counts
# ($RM_COUNTS), its number of CPUs and online and offline lists.
machine_dir() {
	DIR=$1
	LSCPU=$(lscpu --sysroot "$DIR")
	LSCPU_P=$(lscpu --sysroot "$DIR" -p=CPU,CORE,SOCKET,NODE |
		awk -F, '!/^#/ { for (i = 1; i <= 4; i++) if ($i == "") $i = "-"; print $1, $2, $3, $4 }')
	run -0 rm-topo --sysroot "$DIR" cpus --online -r -o cpu,core,package,node
	RM_P=$output
	run -0 rm-topo --sysroot "$DIR" -o cores,packages,nodes
	RM_COUNTS=${lines[0]}
	run -0 rm-topo --sysroot "$DIR" -o cpus,online,offline
	RM_CPUS=$(field cpus) RM_ONLINE=$(field online) RM_OFFLINE=$(field offline)
}

# Use the upstream lscpu that made NAME.expected instead of Debian's (REASON says why).
use_upstream_lscpu() {
	local exp="$FIXTURES/$M.expected"

	echo "# $M: lscpu from $exp: $1" >&3
	LSCPU=$(sed '/^$/q' "$exp")
	# the first parse section, columns found by name in its "# CPU,Core,..." header
	LSCPU_P=$(awk -F, '
		/^# CPU,/ && !hdr { hdr = 1; sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		hdr && /^$/ { exit }
		hdr { c = $col["Core"]; s = $col["Socket"]; n = $col["Node"]
		      print $1, c == "" ? "-" : c, s == "" ? "-" : s, n == "" ? "-" : n }' "$exp")
	[ -n "$LSCPU_P" ] || fail "no parse section in $exp"
}

# The value lscpu's summary gives KEY ("On-line CPU(s) list"), empty when it has no such line.
lscpu_value() {
	printf '%s\n' "$LSCPU" | sed -n "s/^$1: *//p" | head -n 1
}

# lscpu's counts as "cores=N packages=N nodes=N": Socket(s) times Book(s) and Drawer(s) where it
# prints them per book or drawer (s390), summed over the blocks it prints per CPU type (ARM);
# nodes is "-" when it prints no NUMA line.
lscpu_counts() {
	printf '%s\n' "$LSCPU" | awk -F: '
		function flush() { if (cps != "") { cores += cps * s; socks += s } cps = ""; s = 1 }
		BEGIN { cps = ""; s = 1; nodes = "-" }
		/^Core\(s\) per socket:/ { flush(); cps = $2 + 0 }
		/^(Socket\(s\)|Socket\(s\) per book|Book\(s\)|Book\(s\) per drawer|Drawer\(s\)):/ { s *= $2 }
		/^NUMA node\(s\):/ { nodes = $2 + 0 }
		END { flush(); printf "cores=%d packages=%d nodes=%s\n", cores, socks, nodes }'
}

# Counts read straight from the snapshot's sysfs files, a third opinion: distinct
# thread_siblings (cores) and core_siblings (packages) masks of online CPUs, node dirs
# (a kernel without NUMA has none and is one node).
sysfs_counts() {
	local cpu=$DIR/sys/devices/system/cpu c cores packages nodes

	cores=$(for c in $(expand_list "$(cat "$cpu/online")"); do
		cat "$cpu/cpu$c/topology/thread_siblings" 2>/dev/null || echo "none$c"
	done | sort -u | wc -l)
	packages=$(for c in $(expand_list "$(cat "$cpu/online")"); do
		cat "$cpu/cpu$c/topology/core_siblings" 2>/dev/null || echo "none$c"
	done | sort -u | wc -l)
	nodes=$(find "$DIR/sys/devices/system" -maxdepth 2 -name 'node[0-9]*' -type d | wc -l)
	[ "$nodes" -gt 0 ] || nodes=1
	echo "cores=$cores packages=$packages nodes=$nodes"
}

# Online and offline CPU lists and the number of CPUs are lscpu's.
same_cpus() {
	assert_equal "$(expand_list "$RM_ONLINE")" "$(expand_list "$(lscpu_value 'On-line CPU(s) list')")"
	assert_equal "$(expand_list "$RM_OFFLINE")" "$(expand_list "$(lscpu_value 'Off-line CPU(s) list')")"
	assert_equal "$RM_CPUS" "$(lscpu_value 'CPU(s)')"
	# and rm-topo's table lists exactly the online CPUs
	assert_equal "$(printf '%s\n' "$RM_P" | cut -d' ' -f1)" "$(expand_list "$RM_ONLINE")"
}

# The CPU -> COLUMN partition (core, socket or node) is lscpu -p's, for each COLUMN given.
same_mapping() {
	local col n

	assert_equal "$(printf '%s\n' "$RM_P" | cut -d' ' -f1)" \
		"$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f1)"
	for col in "$@"; do
		case $col in
		core) n=2 ;; socket) n=3 ;; node) n=4 ;; *) fail "bad column $col" ;;
		esac
		assert_equal "$(printf '%s\n' "$RM_P" | cut -d' ' -f1,$n | canon)" \
			"$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f1,$n | canon)"
	done
}

# rm-topo's COLUMN (core, package, node) is VALUE for every online CPU.
all_in() {
	local n

	case $1 in core) n=2 ;; package) n=3 ;; node) n=4 ;; esac
	assert_equal "$(printf '%s\n' "$RM_P" | cut -d' ' -f$n | sort -u)" "$2"
}

# rm-topo's counts are these (checked by hand against the snapshot) and the sysfs files'.
counts_are() {
	assert_equal "$RM_COUNTS" "$1"
	assert_equal "$(sysfs_counts)" "$1"
}

# ---- one test per machine ----

@test "x86_64-epyc_7451: 2 sockets, 8 NUMA nodes, SMT2, as lscpu" {
	machine x86_64-epyc_7451
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=48 packages=2 nodes=8"
}

@test "x86_64-64cpu: 4 sockets, sparse NUMA ids 0,2,3, possible > present, as lscpu" {
	machine x86_64-64cpu
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=32 packages=4 nodes=3"
	# node ids are the kernel's, not renumbered
	assert_equal "$(printf '%s\n' "$RM_P" | cut -d' ' -f4 | sort -u | tr '\n' ' ')" "0 2 3 "
	# possible 0-79 but present 0-63: the 16 absent CPUs are neither online nor offline
	assert_equal "$RM_CPUS $RM_OFFLINE" '64 ""'
}

@test "x86_64-64cpu-linux6.2: 1 socket laptop, SMT2, as lscpu" {
	machine x86_64-64cpu-linux6.2
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=1 nodes=1"
}

@test "x86_64-dell_e4310: possible 0-7 / present 0-3, as lscpu" {
	machine x86_64-dell_e4310
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=2 packages=1 nodes=1"
	assert_equal "$RM_CPUS $RM_OFFLINE" '4 ""'
}

@test "vbox-win: VM with a whole node0 directory, as lscpu" {
	machine vbox-win
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=2 packages=1 nodes=1"
	# the one snapshot with node0/meminfo and distance: 2054748 kB, free 100792 kB
	run -0 rm-topo --sysroot "$DIR" nodes
	assert_output "node=0 cpus=0-1 memory=2054748KiB free=100792KiB distances=10 packages=0 memory_only=no tier=- nearest=0"
}

@test "vmware_fpe: VM, 2 sockets, 4 NUMA nodes, possible 0-31 / present 0-15, as lscpu" {
	machine vmware_fpe
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=8 packages=2 nodes=4"
}

@test "arm-A510-A710-A715-X3: heterogeneous ARM, packages per cluster; lscpu numbers per core type" {
	machine arm-A510-A710-A715-X3
	same_cpus
	# lscpu prints one block per core type (A510 x3, A710 x2, A715 x2, X3 x1), each claiming
	# "Socket(s): 1", and restarts its logical core and socket ids for each type, so its -p
	# table puts CPUs 0,3,5,7 on one "core 0" and all CPUs in "socket 0": lscpu is wrong
	# there. The kernel says every CPU is its own core (thread_siblings_list is itself) and
	# physical_package_id is 0 for CPUs 0-2, 1 for 3-6 and 2 for 7 (one per cluster, as older
	# ARM kernels number them); lscpu itself shows that with --physical. Compare with that.
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f2,3 | tr '\n' ' ')" \
		"0 0 1 0 2 0 0 0 1 0 0 0 1 0 0 0 "
	LSCPU_P=$(lscpu --sysroot "$DIR" -p=CPU,CORE,SOCKET,NODE --physical |
		awk -F, '!/^#/ { print $1, $3 ":" $2, $3, $4 == "" ? "-" : $4 }')
	same_mapping core socket
	assert_equal "$(printf '%s\n' "$RM_P" | cut -d' ' -f3 | tr '\n' ' ')" "0 0 0 1 1 1 1 2 "
	# no node/ directory: lscpu prints no node, hwloc one node holding every CPU
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	# lscpu's sum over its blocks: 8 cores as rm-topo, but 4 "sockets" for 3 packages
	assert_equal "$(lscpu_counts)" "cores=8 packages=4 nodes=-"
	counts_are "cores=8 packages=3 nodes=1"
}

@test "armv7: small ARM without node/ directory" {
	machine armv7
	same_cpus
	same_mapping core socket
	# no node/ directory (kernel without NUMA): lscpu's Node column is empty and it prints no
	# NUMA line; hwloc makes one node of the whole machine
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	assert_equal "$(lscpu_counts)" "cores=2 packages=1 nodes=-"
	counts_are "cores=2 packages=1 nodes=1"
}

@test "ppc64-POWER7: SMT4, 4 sockets, as lscpu" {
	machine ppc64-POWER7
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=4 nodes=1"
}

@test "ppc64-POWER7-64cpu: SMT4, a second NUMA node without CPUs, as lscpu" {
	machine ppc64-POWER7-64cpu
	same_cpus
	same_mapping core socket node
	# both count the CPU-less node1 (lscpu prints an empty "NUMA node1 CPU(s):")
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=16 packages=16 nodes=2"
	run -0 rm-topo --sysroot "$DIR" nodes -o node,cpus,packages
	assert_line -n 0 "node=0 cpus=0-63 packages=0-15"
	assert_line -n 1 'node=1 cpus="" packages=""'
}

@test "ppc-qemu: one CPU, no node/ directory" {
	machine ppc-qemu
	same_cpus
	same_mapping core socket
	# no node/ directory: lscpu's Node column is empty, hwloc's single node holds the CPU
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4)" "-"
	all_in node 0
	assert_equal "$(lscpu_counts)" "cores=1 packages=1 nodes=-"
	counts_are "cores=1 packages=1 nodes=1"
}

@test "s390-lpar: CPUs 0,6,7 offline, books; lscpu counts the whole machine" {
	machine s390-lpar
	same_cpus
	assert_equal "$RM_OFFLINE" "0,6-7"
	same_mapping core socket
	# no node/ directory: lscpu's Node column is empty, hwloc's single node
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	# lscpu's summary takes "Core(s) per socket: 4, Socket(s) per book: 6, Book(s): 4" from
	# /proc/sysinfo's "CPU Topology SW: 0 0 0 4 6 4": the whole machine (CEC), not this LPAR.
	# Its own -p table shows what the LPAR has: 17 online CPUs, each its own core, in 7 sockets
	# (core_siblings_list 0-2, 3-5, 8-10, 11-14, 15, 16-18, 19 with 0 offline; physical_package_id
	# is -1).
	assert_equal "$(lscpu_counts)" "cores=96 packages=24 nodes=-"
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f2 | sort -u | wc -l)" 17
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f3 | sort -u | wc -l)" 7
	counts_are "cores=17 packages=7 nodes=1"
	# the offline CPUs: listed, with no core, package or node (their topology/ is absent)
	run -0 rm-topo --sysroot "$DIR" cpus --offline -o cpu,core,package,node,online
	assert_output "cpu=0 core=- package=- node=- online=no
cpu=6 core=- package=- node=- online=no
cpu=7 core=- package=- node=- online=no"
}

@test "s390-lpar-drawer: drawers and books; lscpu counts the whole machine" {
	machine s390-lpar-drawer
	same_cpus
	same_mapping core socket node
	# "Core(s) per socket: 8, Socket(s) per book: 3, Book(s) per drawer: 2, Drawer(s): 4" come
	# from /proc/sysinfo "CPU Topology SW: 0 0 4 2 3 8", the whole machine. The LPAR's 8 CPUs
	# are in physical packages 2 (CPUs 0-1) and 3 (2-7), as lscpu's own -p table says.
	assert_equal "$(lscpu_counts)" "cores=192 packages=24 nodes=1"
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f3 | sort -u | wc -l)" 2
	counts_are "cores=8 packages=2 nodes=1"
	# node0/cpumap covers the 141 possible CPUs; lscpu prints "0-140", rm-topo those present
	assert_equal "$(lscpu_value 'NUMA node0 CPU(s)')" "0-140"
	run -0 rm-topo --sysroot "$DIR" nodes -o node,cpus
	assert_output "node=0 cpus=0-7"
}

@test "s390-kvm: KVM guest, one CPU per book, no node/ directory" {
	machine s390-kvm
	same_cpus
	same_mapping core socket
	# no node/ directory: lscpu's Node column is empty, hwloc's single node
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	# "Socket(s) per book: 1, Book(s): 3": 3 sockets, as rm-topo's 3 packages
	assert_equal "$(lscpu_counts)" "cores=3 packages=3 nodes=-"
	counts_are "cores=3 packages=3 nodes=1"
}

@test "s390-zvm: z/VM guest, one CPU per book, no node/ directory" {
	machine s390-zvm
	same_cpus
	same_mapping core socket
	# no node/ directory: lscpu's Node column is empty, hwloc's single node
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	assert_equal "$(lscpu_counts)" "cores=4 packages=4 nodes=-"
	counts_are "cores=4 packages=4 nodes=1"
}

@test "s390-nested-virt: nested KVM, drawers, as lscpu" {
	machine s390-nested-virt
	same_cpus
	same_mapping core socket node
	# "Socket(s) per book: 1, Book(s) per drawer: 1, Drawer(s): 2": 2 sockets, as rm-topo
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=2 packages=2 nodes=1"
}

@test "sparc64: sparse CPU ids 6-7,10-11,14-15, no node/ directory" {
	machine sparc64
	same_cpus
	assert_equal "$RM_ONLINE" "6-7,10-11,14-15"
	same_mapping core socket
	# no node/ directory: lscpu's Node column is empty, hwloc's single node
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	assert_equal "$(lscpu_counts)" "cores=6 packages=6 nodes=-"
	counts_are "cores=6 packages=6 nodes=1"
}

@test "loongarch-kvm_on_loongson_3c6000: 32 one-core sockets, as lscpu" {
	machine loongarch-kvm_on_loongson_3c6000
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=32 packages=32 nodes=1"
}

@test "loongarch-loongson_3a5000_hv: 4 cores, as lscpu" {
	machine loongarch-loongson_3a5000_hv
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=1 nodes=1"
}

@test "rv64-milkvpioneer: RISC-V, 64 CPUs, 4 NUMA nodes, as upstream lscpu" {
	machine rv64-milkvpioneer
	same_cpus
	# Debian's lscpu 2.38.1 predates RISC-V topology support (its -p columns are empty); the
	# .expected file was made by upstream lscpu, which has it
	use_upstream_lscpu "lscpu 2.38.1 prints no RISC-V cores or sockets"
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=64 packages=1 nodes=4"
}

@test "rv64-visionfive2: RISC-V board, 4 cores, as upstream lscpu" {
	machine rv64-visionfive2
	same_cpus
	use_upstream_lscpu "lscpu 2.38.1 prints no RISC-V cores or sockets"
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=1 nodes=1"
}

@test "rv64-linux: RISC-V, kernel says one core with 2 threads, no node/ directory" {
	machine rv64-linux
	same_cpus
	use_upstream_lscpu "lscpu 2.38.1 prints no RISC-V cores or sockets"
	# the kernel's default topology (no cpu-map in the device tree): core_id and
	# physical_package_id -1, thread_siblings_list 0-1 for both CPUs. Both tools report what it
	# says, one core with two threads, though a U74-MC has no SMT.
	same_mapping core socket
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f4 | sort -u)" "-"
	all_in node 0
	assert_equal "$(lscpu_counts)" "cores=1 packages=1 nodes=-"
	counts_are "cores=1 packages=1 nodes=1"
}

# ---- the snapshots kept in tests/snapshots (these run without ../shared) ----

@test "kept x86-2s-smt: as lscpu and hwloc-calc" {
	machine_dir "$SNAPSHOTS/x86-2s-smt"
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=2 nodes=2"
	# lscpu's cache columns (CPU,,L1d,L1i,L2,L3): the L2 and L3 partitions are rm-topo's
	assert_equal "$(rm-topo --sysroot "$DIR" cpus -r -o cpu,l2 | canon)" \
		"$(lscpu --sysroot "$DIR" -p=CPU,CACHE | awk -F, '!/^#/ { print $1, $5 }' | canon)"
	assert_equal "$(rm-topo --sysroot "$DIR" cpus -r -o cpu,l3 | canon)" \
		"$(lscpu --sysroot "$DIR" -p=CPU,CACHE | awk -F, '!/^#/ { print $1, $6 }' | canon)"
	for loc in node:1 package:0 core:1-2 l3:1 cpu:4-5; do
		run -0 rm-topo --sysroot "$DIR" calc "$loc"
		assert_equal "$(rm_cpus "$output")" "$(hw_cpus "$DIR" "$loc")"
	done
}

@test "kept x86-offline-isolated: offline CPU 3 as lscpu" {
	machine_dir "$SNAPSHOTS/x86-offline-isolated"
	same_cpus
	assert_equal "$RM_ONLINE $RM_OFFLINE $RM_CPUS" "0-2 3 4"
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=3 packages=1 nodes=1"
	# lscpu -a lists CPU 3 with empty core, socket and node; rm-topo with "-"
	assert_equal "$(lscpu --sysroot "$DIR" -p=CPU,CORE,SOCKET,NODE -a | grep '^3,')" "3,,,"
	run -0 rm-topo --sysroot "$DIR" cpus --offline -r -o cpu,core,package,node
	assert_output "3 - - -"
}

@test "kept numa-memoryless-cpuless: 3 nodes, one without memory, one without CPUs, as lscpu" {
	machine_dir "$SNAPSHOTS/numa-memoryless-cpuless"
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=1 nodes=3"
	assert_equal "$(lscpu_value 'NUMA node2 CPU(s)')" ""
	for loc in node:0 node:1 node:2 all; do
		run -0 rm-topo --sysroot "$DIR" calc --objects node "$loc"
		assert_equal "$(rm_cpus "$output")" \
			"$(hwloc-calc --input "$DIR" "$loc" --intersect NUMAnode)"
	done
}

@test "kept s390-lpar: offline CPUs and books as lscpu, which divides without /proc/sysinfo" {
	machine_dir "$SNAPSHOTS/s390-lpar"
	same_cpus
	same_mapping core socket
	all_in node 0
	# rm-topo snapshot leaves out /proc/sysinfo (rm-topo does not read it), so lscpu derives its
	# summary from its table: 17 cores / 7 sockets = 2 per socket, 7 sockets / 2 books = 3 per
	# book, 2 books: 12 cores and 6 sockets. Its -p table has 17 and 7, as rm-topo.
	assert_equal "$(lscpu_counts)" "cores=12 packages=6 nodes=-"
	assert_equal "$(printf '%s\n' "$LSCPU_P" | cut -d' ' -f3 | sort -u | wc -l)" 7
	counts_are "cores=17 packages=7 nodes=1"
}

@test "kept this-vm and cgroup-v2: as lscpu; the cgroup's allowed CPUs as hwloc-calc" {
	machine_dir "$SNAPSHOTS/this-vm"
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=2 packages=1 nodes=1"
	machine_dir "$SNAPSHOTS/cgroup-v2"
	same_cpus
	same_mapping core socket node
	assert_equal "$(lscpu_counts)" "$RM_COUNTS"
	counts_are "cores=4 packages=1 nodes=1"
	# hwloc-calc drops the CPUs the cgroup does not allow, unless --disallowed
	run -0 rm-topo --sysroot "$DIR" -o allowed
	assert_equal "$(rm_cpus "$(field allowed)")" "$(hw_cpus "$DIR" all)"
	assert_equal "$(rm_cpus "$(field allowed)")" "1,2"
	run -0 rm-topo --sysroot "$DIR" calc all
	assert_equal "$(rm_cpus "$output")" "$(hw_cpus "$DIR" all --disallowed)"
}

# ---- synthetic topologies: rm-topo agrees with hwloc-info and hwloc-calc ----

# hwloc-info's object counts as rm-topo's summary fields.
hwloc_counts() {
	hwloc-info --input "$1" | awk '
		{ sub(/^ *(Special )?depth -?[0-9]+: */, ""); n[$2] = $1 }
		END { printf "packages=%d nodes=%d l3=%d cores=%d cpus=%d\n",
			n["Package"], n["NUMANode"], n["L3Cache"], n["Core"], n["PU"] }'
}

# For each location, rm-topo calc gives the CPUs, NUMA nodes and count hwloc-calc gives; where
# hwloc-calc finds nothing (it only warns, and exits 0), rm-topo refuses the location (exit 2).
calc_agrees() {
	local desc=$1 loc hw
	shift
	for loc in "$@"; do
		hw=$(hw_cpus "$desc" "$loc" 2>/dev/null)
		if [ -z "$hw" ]; then
			run -2 --separate-stderr rm-topo --topology "$desc" calc "$loc"
			assert_equal "$stderr" "rm-topo: no such location on this machine: '$loc'"
			continue
		fi
		run -0 rm-topo --topology "$desc" calc "$loc"
		assert_equal "$(rm_cpus "$output")" "$hw"
		run -0 rm-topo --topology "$desc" calc --objects node "$loc"
		assert_equal "$(rm_cpus "$output")" \
			"$(hwloc-calc --input "$desc" "${loc//cpu:/pu:}" --intersect NUMAnode)"
		run -0 rm-topo --topology "$desc" calc --count "$loc"
		assert_equal "$output" "$(hwloc-calc --input "$desc" "${loc//cpu:/pu:}" --number-of PU)"
	done
}

# The XML lstopo writes for DESC gives rm-topo the records the description gives, except the
# fields only a description defines (no isolated CPUs, no huge pages; XML does not say).
xml_agrees() {
	local desc=$1 xml=$BATS_TEST_TMPDIR/topo.xml cmd s x
	lstopo-no-graphics --input "$desc" "$xml"
	for cmd in "cpus -o cpu,core,package,node,l3,l2,l1,online,allowed,core_id,package_id,die" \
		cores packages nodes caches \
		"summary -o packages,nodes,l3,cores,cpus,threads_per_core,online,offline,memory,allowed"; do
		run -0 rm-topo --topology "$desc" $cmd
		s=$output
		run -0 rm-topo --topology "$xml" $cmd
		x=$output
		assert_equal "$x" "$s"
	done
}

# Which CPUs share an object of each level: rm-topo's cpus fields against hwloc-calc's
# hierarchical listing (one TYPE:N.PU:M per CPU, in CPU order); a level hwloc does not have is
# "-" in every record.
partitions_agree() {
	local desc=$1 field type n

	for field in package:Package core:Core l3:L3Cache l2:L2Cache l1:L1dCache node:NUMAnode; do
		type=${field#*:} field=${field%%:*}
		run -0 rm-topo --topology "$desc" cpus -r -o cpu,"$field"
		n=$(hwloc-calc --input "$desc" all --number-of "$type" 2>/dev/null)
		if [ "${n:-0}" -eq 0 ]; then
			assert_equal "$(printf '%s\n' "$output" | cut -d' ' -f2 | sort -u)" "-"
			continue
		fi
		assert_equal "$(printf '%s\n' "$output" | canon)" \
			"$(hwloc-calc --input "$desc" all -H "$type".pu 2>/dev/null | tr ' ' '\n' |
				awk -F. '{ print NR - 1, $1 }' | canon)"
	done
}

synthetic_agrees() {
	local desc=$1

	run -0 rm-topo --topology "$desc" -o packages,nodes,l3,cores,cpus
	assert_equal "${lines[0]}" "$(hwloc_counts "$desc")"
	partitions_agree "$desc"
	calc_agrees "$desc" node:1 package:1.core:2 l3:3 core:2-5 cpu:0-3 node:0 all
	xml_agrees "$desc"
}

@test "synthetic 'package:2 numa:2 l3:2 core:4 pu:2' agrees with hwloc" {
	synthetic_agrees "package:2 numa:2 l3:2 core:4 pu:2"
	run -0 rm-topo --topology "package:2 numa:2 l3:2 core:4 pu:2" -o packages,nodes,l3,cores,cpus
	assert_line -n 0 "packages=2 nodes=4 l3=8 cores=32 cpus=64"
}

@test "synthetic 'package:8 core:64 pu:2' (1024 CPUs) agrees with hwloc" {
	synthetic_agrees "package:8 core:64 pu:2"
	run -0 rm-topo --topology "package:8 core:64 pu:2" -o packages,nodes,l3,cores,cpus,online
	assert_line -n 0 "packages=8 nodes=1 l3=0 cores=512 cpus=1024 online=0-1023"
	run -0 rm-topo --topology "package:8 core:64 pu:2" cpus -c 1023 -o cpu,core,package
	assert_output "cpu=1023 core=511 package=7"
}

@test "synthetic 'numa:4 core:2 pu:1' (no package level) agrees with hwloc" {
	synthetic_agrees "numa:4 core:2 pu:1"
	run -0 rm-topo --topology "numa:4 core:2 pu:1" -o packages,nodes,l3,cores,cpus
	assert_line -n 0 "packages=0 nodes=4 l3=0 cores=8 cpus=8"
}

@test "synthetic 'package:1 core:1 pu:1' agrees with hwloc" {
	synthetic_agrees "package:1 core:1 pu:1"
	run -0 rm-topo --topology "package:1 core:1 pu:1" -o packages,nodes,l3,cores,cpus
	assert_line -n 0 "packages=1 nodes=1 l3=0 cores=1 cpus=1"
}

@test "synthetic 'package:2 l3:1 l2:4 l1d:1 core:1 pu:4' (SMT4, caches) agrees with hwloc" {
	synthetic_agrees "package:2 l3:1 l2:4 l1d:1 core:1 pu:4"
	run -0 rm-topo --topology "package:2 l3:1 l2:4 l1d:1 core:1 pu:4" caches -c 4 -o cache,cpus
	assert_output "cache=l1:1 cpus=4-7
cache=l2:1 cpus=4-7
cache=l3:0 cpus=0-15"
}
