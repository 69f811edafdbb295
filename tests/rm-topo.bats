# SPDX-License-Identifier: GPL-2.0-or-later
# rm-topo: summary, listings, filters, output modes, errors and export nfd on synthetic machines.

load test_helper

# 2 packages x 2 NUMA nodes x 2 L3 x 4 cores x 2 threads: 64 CPUs, 4 nodes, 8 L3, 32 cores.
BIG="package:2 numa:2 l3:2 core:4 pu:2"
# 2 packages (one node each) x 2 cores x 2 threads with L1d, L2 and L3: 8 CPUs.
SMALL="package:2 numa:1 l3:1(size=16MiB) l2:2(size=1MiB) l1d:1(size=48KiB) core:1 pu:2"
MODEL='Intel(R) Xeon(R) "Gold" 6130 \ v2'

# Kernel hex mask of CPUs LO..HI on a machine of N CPUs: 32-bit words, comma separated.
cpumask() {
	local lo=$1 hi=$2 n=$3 g c w out=
	for ((g = (n - 1) / 32; g >= 0; g--)); do
		w=0
		for ((c = g * 32; c < g * 32 + 32; c++)); do
			((c >= lo && c <= hi)) && w=$((w | 1 << (c - g * 32)))
		done
		out+=$(printf '%08x' "$w")
		((g)) && out+=,
	done
	echo "$out"
}

# A /sys and /proc tree for --sysroot: NCPUS CPUs in NNODES packages of one NUMA node each, two
# threads per core, CPUs 0..NONLINE-1 online, ISOLATED written to cpu/isolated as the kernel does.
make_sysroot() {
	local root=$1 ncpus=$2 nnodes=$3 nonline=$4 isolated=$5
	local per=$((ncpus / nnodes)) c n d p s i row
	local cpu=$root/sys/devices/system/cpu node=$root/sys/devices/system/node
	local hp=$root/sys/kernel/mm/hugepages

	mkdir -p "$cpu" "$node" "$root/proc/sys/kernel" "$hp/hugepages-2048kB" "$hp/hugepages-1048576kB"
	echo testhost >"$root/proc/sys/kernel/hostname"
	echo "0-$((ncpus - 1))" >"$cpu/possible"
	echo "0-$((ncpus - 1))" >"$cpu/present"
	echo "0-$((nonline - 1))" >"$cpu/online"
	echo "$isolated" >"$cpu/isolated"
	echo >"$cpu/nohz_full"
	for ((c = 0; c < ncpus; c++)); do
		d=$cpu/cpu$c
		mkdir -p "$d"
		if ((c >= nonline)); then
			echo 0 >"$d/online"
			continue
		fi
		echo 1 >"$d/online"
		p=$((c / per)) s=$((c - c % 2))
		mkdir -p "$d/topology"
		echo "$p" >"$d/topology/physical_package_id"
		echo "$(((c % per) / 2))" >"$d/topology/core_id"
		cpumask "$s" "$((s + 1))" "$ncpus" >"$d/topology/thread_siblings"
		cpumask "$s" "$((s + 1))" "$ncpus" >"$d/topology/core_cpus"
		cpumask "$((p * per))" "$((p * per + per - 1))" "$ncpus" >"$d/topology/core_siblings"
		cpumask "$((p * per))" "$((p * per + per - 1))" "$ncpus" >"$d/topology/package_cpus"
	done
	echo "0-$((nnodes - 1))" >"$node/possible"
	echo "0-$((nnodes - 1))" >"$node/online"
	for ((n = 0; n < nnodes; n++)); do
		d=$node/node$n
		mkdir -p "$d"
		echo "$((n * per))-$((n * per + per - 1))" >"$d/cpulist"
		cpumask "$((n * per))" "$((n * per + per - 1))" "$ncpus" >"$d/cpumap"
		row=
		for ((i = 0; i < nnodes; i++)); do
			row+="${row:+ }$((i == n ? 10 : 21))"
		done
		echo "$row" >"$d/distance"
		printf 'Node %d MemTotal:       4194304 kB\nNode %d MemFree:        1048576 kB\n' \
			"$n" "$n" >"$d/meminfo"
	done
}

setup_file() {
	local d=$BATS_FILE_TMPDIR

	# XML: 2 packages (CPUModel with spaces, quotes and a backslash), one 1 GiB node each,
	# a 32 MiB 16-way L3 each, 2 cores x 2 threads; 2 MiB and 1 GiB pages; a SLIT-like matrix.
	lstopo-no-graphics --input "package:2 numa:1(memory=1GiB) l3:1(size=32MiB) core:2 pu:2" \
		"$d/a.xml"
	sed -e 's|cache_associativity="0"|cache_associativity="16"|' \
		-e 's|<page_type size="4096" count="262144"/>|&<page_type size="2097152" count="0"/><page_type size="1073741824" count="0"/>|' \
		"$d/a.xml" >"$d/b.xml"
	printf 'name=NUMALatency\n5\n2\nnuma:0\nnuma:1\n10\n21\n21\n10\n' >"$d/dist.txt"
	hwloc-annotate "$d/b.xml" "$d/c.xml" root distances "$d/dist.txt"
	hwloc-annotate "$d/c.xml" "$d/machine.xml" package:all info CPUModel "$MODEL"

	# Snapshots: 8 CPUs with 6-7 offline and 2-3,5 isolated; 64 CPUs with every odd one
	# isolated; one node.
	make_sysroot "$d/sr8" 8 2 6 2-3,5
	make_sysroot "$d/sr64" 64 2 64 "$(seq -s, 1 2 63)"
	make_sysroot "$d/sr1" 4 1 4 ""
}

setup() {
	XML=$BATS_FILE_TMPDIR/machine.xml
	SR8=$BATS_FILE_TMPDIR/sr8
	SR64=$BATS_FILE_TMPDIR/sr64
	SR1=$BATS_FILE_TMPDIR/sr1
}


# $output is one JSON document and each Python expression over it (d) holds.
json_check() {
	printf '%s\n' "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for e in sys.argv[1:]:
    if not eval(e):
        sys.exit("does not hold: " + e + "\n" + json.dumps(d)[:3000])
' "$@"
}

# A kernel cpulist, one CPU a line.
expand_list() {
	local part lo hi parts
	IFS=, read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		lo=${part%-*} hi=${part#*-}
		seq "$lo" "$hi"
	done
}

# NFD's rules for a label line: prefix (DNS subdomain) / name, '=', value (see
# ecosystem-formats.md section 2).
nfd_valid_line() {
	local line=$1 key value prefix name
	local dns='^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
	local nm='^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$'

	key=${line%%=*} value=${line#*=}
	[[ $line == *=* ]] || return 1
	[[ $key == */* ]] || return 1
	prefix=${key%/*} name=${key##*/}
	((${#prefix} <= 253 && ${#name} <= 63 && ${#value} <= 63)) || return 1
	[[ $prefix =~ $dns && $name =~ $nm ]] || return 1
	[[ -z $value || $value =~ $nm ]] || return 1
	# kubernetes.io namespaces are denied except feature.node and profile.node
	if [[ $prefix == kubernetes.io || $prefix == *.kubernetes.io ]]; then
		[[ $prefix == feature.node.kubernetes.io || $prefix == *.feature.node.kubernetes.io ||
			$prefix == profile.node.kubernetes.io || $prefix == *.profile.node.kubernetes.io ]] ||
			return 1
	fi
}

# ---- help ----

@test "--help names every command, each command takes --help" {
	run -0 rm-topo --help
	for cmd in summary cpus cores packages nodes caches distances calc snapshot export; do
		assert_line --regexp "^  $cmd +[a-z]"
	done
	for cmd in cpus cores packages nodes caches distances summary; do
		run -0 rm-topo "$cmd" --help
		assert_line --index 0 "Usage: rm-topo $cmd [OPTION...]"
		assert_output --partial "--topology"
	done
}

# ---- summary ----

@test "summary: a synthetic machine, exact records" {
	run -0 rm-topo --topology "$BIG"
	assert_output - <<'EOF'
machine=- arch=- model=- packages=2 nodes=4 l3=8 cores=32 cpus=64 threads_per_core=2 online=0-63 offline="" isolated="" nohz_full="" memory=4GiB hugepage_sizes="" allowed=0-63 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-15 memory=1GiB free=- distances=- packages=0 memory_only=no tier=- nearest=0
node=1 cpus=16-31 memory=1GiB free=- distances=- packages=0 memory_only=no tier=- nearest=1
node=2 cpus=32-47 memory=1GiB free=- distances=- packages=1 memory_only=no tier=- nearest=2
node=3 cpus=48-63 memory=1GiB free=- distances=- packages=1 memory_only=no tier=- nearest=3
EOF
}

@test "summary: the settings that move memory or make latency vary, from the kernel's files" {
	for f in sys/kernel/mm/transparent_hugepage/enabled proc/sys/kernel/numa_balancing \
		proc/sys/vm/zone_reclaim_mode sys/kernel/mm/ksm/run; do
		[ -r "/$f" ] || skip "needs a kernel with THP, NUMA balancing and KSM"
	done
	thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
	run -0 rm-topo summary -o thp,numa_balancing,zone_reclaim_mode,ksm
	assert_line --index 0 "thp=$thp numa_balancing=$(</proc/sys/kernel/numa_balancing) zone_reclaim_mode=$(</proc/sys/vm/zone_reclaim_mode) ksm=$(</sys/kernel/mm/ksm/run)"
	# a snapshot keeps them
	run -0 rm-topo snapshot "$BATS_TEST_TMPDIR/snap"
	mkdir -p "$BATS_TEST_TMPDIR/sr/sys/kernel/mm/ksm" "$BATS_TEST_TMPDIR/sr/proc/sys/vm" \
		"$BATS_TEST_TMPDIR/sr/sys/kernel/mm/transparent_hugepage" "$BATS_TEST_TMPDIR/sr/proc/sys/kernel"
	echo 'always madvise [never]' >"$BATS_TEST_TMPDIR/sr/sys/kernel/mm/transparent_hugepage/enabled"
	echo 2 >"$BATS_TEST_TMPDIR/sr/proc/sys/kernel/numa_balancing"
	echo 1 >"$BATS_TEST_TMPDIR/sr/proc/sys/vm/zone_reclaim_mode"
	echo x >"$BATS_TEST_TMPDIR/sr/sys/kernel/mm/ksm/run"
	cp -r "$BATS_TEST_TMPDIR"/snap/sys/devices "$BATS_TEST_TMPDIR/sr/sys/"
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/sr" summary -o thp,numa_balancing,zone_reclaim_mode,ksm -J
	json_check 'd["machine"][0] == {"thp": "never", "numa_balancing": 2, "zone_reclaim_mode": 1, "ksm": None}'
}

@test "summary: 'summary' is the default command" {
	run -0 rm-topo --topology "$BIG"
	local bare=$output
	run -0 rm-topo --topology "$BIG" summary
	assert_equal "$output" "$bare"
}

@test "summary: XML with a quoted model name, memory, huge pages and distances" {
	run -0 rm-topo --topology "$XML"
	assert_output - <<'EOF'
machine=- arch=- model="Intel(R) Xeon(R) \"Gold\" 6130 \\ v2" packages=2 nodes=2 l3=2 cores=4 cpus=8 threads_per_core=2 online=0-7 offline="" isolated=- nohz_full=- memory=2GiB hugepage_sizes=2MiB,1GiB allowed=0-7 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-3 memory=1GiB free=- distances=10,21 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=4-7 memory=1GiB free=- distances=21,10 packages=1 memory_only=no tier=- nearest=1
EOF
}

@test "summary: a snapshot with offline and isolated CPUs, free memory and a host name" {
	run -0 rm-topo --sysroot "$SR8"
	assert_output - <<'EOF'
machine=testhost arch=- model=- packages=2 nodes=2 l3=0 cores=3 cpus=8 threads_per_core=2 online=0-5 offline=6-7 isolated=2-3,5 nohz_full="" memory=8GiB hugepage_sizes=2MiB,1GiB allowed=0-5 memory_only_nodes="" thp=- numa_balancing=- zone_reclaim_mode=- ksm=-
node=0 cpus=0-3 memory=4GiB free=1GiB distances=10,21 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=4-5 memory=4GiB free=1GiB distances=21,10 packages=1 memory_only=no tier=- nearest=1
EOF
}

@test "summary: this machine has a machine record and node records" {
	run -0 rm-topo
	assert_line --index 0 --regexp '^machine=[^ ]+ arch='
	assert_line --regexp '^node=[0-9]+ cpus='
	[[ $(field cpus) =~ ^[1-9][0-9]*$ ]]
}

@test "summary: -o selects the machine record's fields, node records keep theirs" {
	run -0 rm-topo --topology "$XML" -o cpus,MEMORY,hugepage_sizes
	assert_output - <<'EOF'
cpus=8 memory=2GiB hugepage_sizes=2MiB,1GiB
node=0 cpus=0-3 memory=1GiB free=- distances=10,21 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=4-7 memory=1GiB free=- distances=21,10 packages=1 memory_only=no tier=- nearest=1
EOF
}

@test "summary: --bytes and --json give huge page sizes and memory in bytes" {
	run -0 rm-topo --topology "$XML" --bytes -o memory,hugepage_sizes
	assert_line --index 0 "memory=2147483648 hugepage_sizes=2097152,1073741824"
	assert_line --index 1 "node=0 cpus=0-3 memory=1073741824 free=- distances=10,21 packages=0 memory_only=no tier=- nearest=0"
	run -0 rm-topo --topology "$XML" --json
	json_check 'd["machine"][0]["memory"] == 2147483648' \
		'd["machine"][0]["hugepage_sizes"] == "2097152,1073741824"' \
		'd["nodes"][1]["memory"] == 1073741824'
}

@test "summary: JSON holds both record kinds, typed; empty sets are \"\", unknown is null" {
	run -0 rm-topo --topology "$XML" -J
	json_check 'sorted(d) == ["machine", "nodes"]' \
		'd["machine"][0]["model"] == "Intel(R) Xeon(R) \"Gold\" 6130 \\ v2"' \
		'd["machine"][0]["packages"] == 2 and type(d["machine"][0]["packages"]) is int' \
		'd["machine"][0]["offline"] == ""' \
		'd["machine"][0]["isolated"] is None and d["machine"][0]["machine"] is None' \
		'd["machine"][0]["online"] == "0-7"' \
		'[n["node"] for n in d["nodes"]] == [0, 1]' \
		'd["nodes"][0]["distances"] == "10,21" and d["nodes"][0]["free"] is None'
	run -0 rm-topo --topology "$BIG" --json
	json_check 'd["machine"][0]["isolated"] == "" and d["machine"][0]["hugepage_sizes"] == ""'
}

@test "summary: an argument is refused" {
	usage_error "unexpected argument: 'extra'" rm-topo --topology "$BIG" summary extra
}

# ---- cpus ----

@test "cpus: one record per CPU with core, package, node and cache ids" {
	run -0 rm-topo --topology "$SMALL" cpus
	assert_golden rm-topo cpus-small
}

@test "cpus: 64 CPUs over 4 nodes and 8 L3 caches" {
	run -0 rm-topo --topology "$BIG" cpus
	assert_equal "${#lines[@]}" 64
	assert_line --index 0 "cpu=0 core=0 package=0 node=0 l3=0 l2=- l1=- online=yes isolated=no allowed=yes"
	assert_line --index 9 "cpu=9 core=4 package=0 node=0 l3=1 l2=- l1=- online=yes isolated=no allowed=yes"
	assert_line --index 17 "cpu=17 core=8 package=0 node=1 l3=2 l2=- l1=- online=yes isolated=no allowed=yes"
	assert_line --index 63 "cpu=63 core=31 package=1 node=3 l3=7 l2=- l1=- online=yes isolated=no allowed=yes"
}

@test "cpus: offline and isolated CPUs of a snapshot" {
	run -0 rm-topo --sysroot "$SR8" cpus
	assert_golden rm-topo cpus-sr8
}

@test "cpus: -o +LIST adds the non-default columns" {
	run -0 rm-topo --topology "$SMALL" cpus -o +core_id,package_id,die -c 6
	assert_output "cpu=6 core=3 package=1 node=1 l3=1 l2=3 l1=3 online=yes isolated=no allowed=yes core_id=3 package_id=1 die=-"
}

@test "cpus: this machine lists every online CPU" {
	local online
	online=$(cat /sys/devices/system/cpu/online)
	run -0 rm-topo cpus --online -r -o cpu
	assert_equal "$output" "$(expand_list "$online")"
	run -0 rm-topo cpus -o cpu,online
	for c in $(expand_list "$online"); do
		assert_line "cpu=$c online=yes"
	done
}

# ---- cores ----

@test "cores: one record per core with its threads" {
	run -0 rm-topo --topology "$SMALL" cores
	assert_output - <<'EOF'
core=0 package=0 node=0 cpus=0-1 l3=0 core_id=0
core=1 package=0 node=0 cpus=2-3 l3=0 core_id=1
core=2 package=1 node=1 cpus=4-5 l3=1 core_id=2
core=3 package=1 node=1 cpus=6-7 l3=1 core_id=3
EOF
	run -0 rm-topo --topology "$BIG" cores
	assert_equal "${#lines[@]}" 32
	assert_line --index 31 "core=31 package=1 node=3 cpus=62-63 l3=7 core_id=31"
}

@test "cores: a snapshot's cores are numbered within their package" {
	run -0 rm-topo --sysroot "$SR8" cores -o +kind
	assert_output - <<'EOF'
core=0 package=0 node=0 cpus=0-1 l3=- core_id=0 kind=-
core=1 package=0 node=0 cpus=2-3 l3=- core_id=1 kind=-
core=2 package=1 node=1 cpus=4-5 l3=- core_id=0 kind=-
EOF
}

# ---- packages ----

@test "packages: CPUs, nodes, counts and the model name" {
	run -0 rm-topo --topology "$XML" packages
	assert_output - <<'EOF'
package=0 cpus=0-3 nodes=0 cores=2 threads=4 l3=1 model="Intel(R) Xeon(R) \"Gold\" 6130 \\ v2" package_id=0
package=1 cpus=4-7 nodes=1 cores=2 threads=4 l3=1 model="Intel(R) Xeon(R) \"Gold\" 6130 \\ v2" package_id=1
EOF
	run -0 rm-topo --topology "$BIG" packages
	assert_output - <<'EOF'
package=0 cpus=0-31 nodes=0-1 cores=16 threads=32 l3=4 model=- package_id=0
package=1 cpus=32-63 nodes=2-3 cores=16 threads=32 l3=4 model=- package_id=1
EOF
}

@test "packages: the model name survives JSON, table and raw" {
	run -0 rm-topo --topology "$XML" packages -J
	json_check 'd["packages"][0]["model"] == "Intel(R) Xeon(R) \"Gold\" 6130 \\ v2"'
	run -0 rm-topo --topology "$XML" packages -t -o package,model
	assert_line --index 1 --regexp '^ *0 Intel\(R\) Xeon\(R\) "Gold" 6130 \\ v2$'
	# raw: bare, blanks and backslashes as \xHH as lsblk -r writes them; printf %b reads them back
	run -0 rm-topo --topology "$XML" packages -r -o model,package
	assert_line --index 0 'Intel(R)\x20Xeon(R)\x20"Gold"\x206130\x20\x5c\x20v2 0'
	read -r model package <<<"${lines[0]}"
	assert_equal "$(printf '%b' "$model")" 'Intel(R) Xeon(R) "Gold" 6130 \ v2'
	assert_equal "$package" 0
}

# ---- nodes ----

@test "nodes: tables print sizes for people as lsblk does, --bytes in bytes; records and JSON exact" {
	local m expected
	while read -r m expected; do
		run -0 rm-topo --topology "numa:1(memory=$m) pu:1" nodes -t -n -o memory
		assert_output --regexp "^ *$expected\$"
	done <<-'EOF'
	4941544KiB 4.7G
	1536KiB 1.5M
	2GiB 2G
	1TiB 1T
	1000 1000B
	EOF
	run -0 rm-topo --topology "numa:1(memory=4941544KiB) pu:1" nodes -t -o node,memory --bytes
	assert_line --index 1 --regexp '^ +0 +5060141056$'
	run -0 rm-topo --topology "numa:1(memory=4941544KiB) pu:1" nodes -o memory
	assert_output 'memory=4941544KiB'
	run -0 rm-topo --topology "numa:1(memory=4941544KiB) pu:1" nodes -r -o memory
	assert_output '4941544KiB'
	run -0 rm-topo --topology "numa:1(memory=4941544KiB) pu:1" nodes -J -o memory
	json_check 'd["nodes"][0]["memory"] == 5060141056'
}

@test "nodes: CPUs, memory and the distance row" {
	run -0 rm-topo --topology "$XML" nodes
	assert_output - <<'EOF'
node=0 cpus=0-3 memory=1GiB free=- distances=10,21 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=4-7 memory=1GiB free=- distances=21,10 packages=1 memory_only=no tier=- nearest=1
EOF
}

@test "nodes: a snapshot states total and free memory" {
	run -0 rm-topo --sysroot "$SR8" nodes
	assert_output - <<'EOF'
node=0 cpus=0-3 memory=4GiB free=1GiB distances=10,21 packages=0 memory_only=no tier=- nearest=0
node=1 cpus=4-5 memory=4GiB free=1GiB distances=21,10 packages=1 memory_only=no tier=- nearest=1
EOF
	run -0 rm-topo --sysroot "$SR8" nodes --bytes -o node,memory,free
	assert_line --index 0 "node=0 memory=4294967296 free=1073741824"
}

# ---- caches ----

@test "caches: level, type, size, line size and CPUs" {
	run -0 rm-topo --topology "$SMALL" caches
	assert_golden rm-topo caches-small
	run -0 rm-topo --topology "$XML" caches
	assert_output - <<'EOF'
cache=l3:0 level=3 type=unified size=32MiB line=64B ways=16 cpus=0-3 id=-
cache=l3:1 level=3 type=unified size=32MiB line=64B ways=16 cpus=4-7 id=-
EOF
}

@test "caches: instruction caches are listed" {
	run -0 rm-topo --topology "package:1 numa:1 l2:1 l1d:1 l1i:1(size=32KiB) core:1 pu:1" caches
	assert_line "cache=l1i:0 level=1 type=instruction size=32KiB line=64B ways=- cpus=0 id=-"
}

@test "caches: --bytes and JSON give sizes in bytes" {
	run -0 rm-topo --topology "$SMALL" caches --bytes -o cache,size,line -c 0
	assert_output - <<'EOF'
cache=l1:0 size=49152 line=64
cache=l2:0 size=1048576 line=64
cache=l3:0 size=16777216 line=64
EOF
	run -0 rm-topo --topology "$SMALL" caches -J
	json_check 'len(d["caches"]) == 10' \
		'd["caches"][0] == {"cache": "l1:0", "level": 1, "type": "data", "size": 49152, "line": 64, "ways": None, "cpus": "0-1", "id": None}'
}

# ---- distances ----

@test "distances: the matrix, one record per pair" {
	run -0 rm-topo --topology "$XML" distances
	assert_output - <<'EOF'
distance=0:0 from=0 to=0 value=10
distance=0:1 from=0 to=1 value=21
distance=1:0 from=1 to=0 value=21
distance=1:1 from=1 to=1 value=10
EOF
	run -0 rm-topo --sysroot "$SR8" distances -r -o value
	assert_equal "${lines[*]}" "10 21 21 10"
}

@test "distances: --matrix, a record per node and a column per node, as numactl -H" {
	run -0 rm-topo --topology "$XML" distances --matrix
	assert_output - <<'EOF'
node=0 node0=10 node1=21
node=1 node0=21 node1=10
EOF
	run -0 rm-topo --topology "$XML" distances -m -t
	assert_output - <<'EOF'
NODE NODE0 NODE1
   0    10    21
   1    21    10
EOF
	run -0 rm-topo --topology "$XML" distances -m --node 1 -J
	json_check 'd["distances"] == [{"node": 1, "node0": 21, "node1": 10}]'
	run -0 rm-topo --topology "$XML" distances -m --list-columns -r
	assert_equal "$(cut -d' ' -f1-3 <<<"$output" | tr '\n' ' ')" "node integer yes node0 integer yes node1 integer yes "
	run -0 rm-topo --topology "$XML" distances -m -o node1 -r
	assert_equal "${lines[*]}" "21 10"
}

# numactl -H's distance block ("node   0   1" / "  0:  10  21") as --matrix records.
numactl_matrix() {
	numactl -H | awk '/^node distances:/ { on = 1; next }
		on && /^node / { for (i = 2; i <= NF; i++) id[i] = $i; n = NF; next }
		on && /^ *[0-9]+:/ { sub(":", "", $1); line = "node=" $1
			for (i = 2; i <= n; i++) line = line " node" id[i] "=" $i; print line }'
}

@test "distances and nodes: the same as numactl -H on this machine" {
	command -v numactl >/dev/null || skip "numactl is not installed (the numactl package)"
	numactl -H >/dev/null 2>&1 || skip "needs a NUMA kernel (CONFIG_NUMA)"
	run -0 numactl_matrix
	[ -n "$output" ]
	want=$output
	run -0 rm-topo distances --matrix
	assert_output "$want"
	# sizes: numactl prints MemTotal in MiB; free moves, so within 64 MiB
	while read -r node memory free used; do
		run -0 numactl -H
		size=$(sed -n "s/^node $node size: \([0-9]*\) MB\$/\1/p" <<<"$output")
		nfree=$(sed -n "s/^node $node free: \([0-9]*\) MB\$/\1/p" <<<"$output")
		assert_equal "$((memory >> 20))" "$size"
		d=$((free / 1048576 - nfree))
		((d < 64 && d > -64)) || fail "node $node free: $free bytes, numactl: $nfree MB"
		assert_equal "$used" "$((memory - free))"
	done < <(rm-topo nodes -r -o node,memory,free,used --bytes)
}

@test "distances: a single node has its distance to itself" {
	run -0 rm-topo --sysroot "$SR1" distances
	assert_output "distance=0:0 from=0 to=0 value=10"
}

@test "distances: none known is said on stderr, stdout stays empty" {
	run -0 --separate-stderr rm-topo --topology "$BIG" distances
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-topo: no NUMA distances known for this machine"
}

# ---- filters ----

@test "filters: --node on every listing" {
	run -0 rm-topo --topology "$BIG" cpus --node 2 -r -o cpu
	assert_equal "${lines[*]}" "$(seq -s " " 32 47)"
	run -0 rm-topo --topology "$BIG" cores --node 1,3 -r -o core
	assert_equal "${lines[*]}" "$(seq -s " " 8 15) $(seq -s " " 24 31)"
	run -0 rm-topo --topology "$BIG" packages --node 3 -o package
	assert_output "package=1"
	run -0 rm-topo --topology "$BIG" nodes --node 1-2 -o node,cpus
	assert_output - <<'EOF'
node=1 cpus=16-31
node=2 cpus=32-47
EOF
	run -0 rm-topo --topology "$BIG" caches --node 3 -o cache
	assert_output - <<'EOF'
cache=l3:6
cache=l3:7
EOF
	run -0 rm-topo --topology "$XML" distances --node 1
	assert_output - <<'EOF'
distance=1:0 from=1 to=0 value=21
distance=1:1 from=1 to=1 value=10
EOF
}

@test "filters: --package on every listing (logical ids)" {
	run -0 rm-topo --topology "$SMALL" cpus --package 1 -r -o cpu
	assert_equal "${lines[*]}" "4 5 6 7"
	run -0 rm-topo --topology "$SMALL" cores -P 0 -r -o core
	assert_equal "${lines[*]}" "0 1"
	run -0 rm-topo --topology "$BIG" packages --package 1 -o package,cpus
	assert_output "package=1 cpus=32-63"
	run -0 rm-topo --topology "$BIG" nodes --package 0 -r -o node
	assert_equal "${lines[*]}" "0 1"
	run -0 rm-topo --topology "$SMALL" caches --package 1 -r -o cache
	assert_equal "${lines[*]}" "l1:2 l1:3 l2:2 l2:3 l3:1"
	run -0 rm-topo --topology "$XML" distances --package 0 -r -o distance
	assert_equal "${lines[*]}" "0:0 0:1"
}

@test "filters: --cpus on every listing, as a list, a mask or a stride" {
	run -0 rm-topo --topology "$SMALL" cpus --cpus 1,6-7 -r -o cpu
	assert_equal "${lines[*]}" "1 6 7"
	run -0 rm-topo --topology "$SMALL" cpus -c 0xf0 -r -o cpu
	assert_equal "${lines[*]}" "4 5 6 7"
	run -0 rm-topo --topology "$SMALL" cpus -c 0-7:2/4 -r -o cpu
	assert_equal "${lines[*]}" "0 1 4 5"
	run -0 rm-topo --topology "$SMALL" cores -c 3-4 -r -o core
	assert_equal "${lines[*]}" "1 2"
	run -0 rm-topo --topology "$BIG" packages -c 31 -r -o package
	assert_equal "$output" "0"
	run -0 rm-topo --topology "$BIG" nodes -c 15-16 -r -o node
	assert_equal "${lines[*]}" "0 1"
	run -0 rm-topo --topology "$SMALL" caches -c 2 -r -o cache
	assert_equal "${lines[*]}" "l1:1 l2:1 l3:0"
	run -0 rm-topo --topology "$XML" distances -c 4 -r -o distance
	assert_equal "${lines[*]}" "1:0 1:1"
}

@test "filters: --online and --offline on every listing" {
	run -0 rm-topo --sysroot "$SR8" cpus --offline -r -o cpu
	assert_equal "${lines[*]}" "6 7"
	run -0 rm-topo --sysroot "$SR8" cpus --online -r -o cpu
	assert_equal "${lines[*]}" "0 1 2 3 4 5"
	run -0 rm-topo --sysroot "$SR8" cores --online -r -o core
	assert_equal "${lines[*]}" "0 1 2"
	run -0 rm-topo --sysroot "$SR8" cores --offline
	assert_output ""
	run -0 rm-topo --sysroot "$SR8" packages --online -r -o package
	assert_equal "${lines[*]}" "0 1"
	run -0 rm-topo --sysroot "$SR8" nodes --online -r -o node
	assert_equal "${lines[*]}" "0 1"
	run -0 rm-topo --sysroot "$SR8" nodes --offline
	assert_output ""
	run -0 rm-topo --sysroot "$SR8" distances --offline
	assert_output ""
	run -0 rm-topo --sysroot "$SR8" distances --online -r -o distance
	assert_equal "${lines[*]}" "0:0 0:1 1:0 1:1"
	run -0 rm-topo --topology "$SMALL" caches --online -r -o cache
	assert_equal "${#lines[@]}" 10
	run -0 rm-topo --topology "$SMALL" caches --offline
	assert_output ""
}

@test "filters: combined filters intersect" {
	run -0 rm-topo --topology "$BIG" cpus --package 1 --cpus 30-34 --node 2 -r -o cpu
	assert_equal "${lines[*]}" "32 33 34"
	run -0 rm-topo --sysroot "$SR8" cpus --node 0 --online -c 3-7 -r -o cpu
	assert_equal "${lines[*]}" "3"
	run -0 rm-topo --topology "$BIG" cpus --node 0 --cpus 16
	assert_output ""
}

@test "filters: bad values exit 2 with one line" {
	usage_error "invalid --cpus" rm-topo --topology "$SMALL" cpus --cpus 1-x
	usage_error "invalid --cpus" rm-topo --topology "$SMALL" cpus --cpus 3-1
	usage_error "CPUs not on this machine: '8-9'" rm-topo --topology "$SMALL" cpus -c 6-9
	usage_error "no such NUMA node: '7'" rm-topo --topology "$SMALL" nodes --node 7
	usage_error "invalid --node" rm-topo --topology "$SMALL" nodes --node x
	usage_error "no such package: '2'" rm-topo --topology "$SMALL" cores --package 2
	usage_error "invalid --package" rm-topo --topology "$SMALL" packages --package ,
	usage_error "--online and --offline exclude each other" \
		rm-topo --topology "$SMALL" cpus --online --offline
	usage_error "unexpected argument: 'x'" rm-topo --topology "$SMALL" caches x
}

# ---- output modes ----

@test "JSON: every command gives one valid document named after its records" {
	local cmd
	for cmd in summary cpus cores packages nodes caches distances; do
		run -0 rm-topo --topology "$XML" "$cmd" --json
		printf '%s\n' "$output" | python3 -m json.tool >/dev/null
	done
	run -0 rm-topo --topology "$XML" cpus -J
	json_check 'list(d) == ["cpus"] and len(d["cpus"]) == 8'
	run -0 rm-topo --topology "$XML" distances -J
	json_check 'd["distances"][1] == {"distance": "0:1", "from": 0, "to": 1, "value": 21}'
	# an empty listing is an empty array
	run -0 rm-topo --topology "$XML" cpus -J -c ""
	json_check 'd == {"cpus": []}'
}

@test "JSON: numbers are numbers, booleans true/false, unknown null, sets strings" {
	run -0 rm-topo --sysroot "$SR8" cpus --json
	json_check 'd["cpus"][2] == {"cpu": 2, "core": 1, "package": 0, "node": 0, "l3": None, "l2": None, "l1": None, "online": True, "isolated": True, "allowed": True}' \
		'd["cpus"][7]["online"] is False and d["cpus"][7]["core"] is None' \
		'all(type(c["cpu"]) is int for c in d["cpus"])'
	run -0 rm-topo --sysroot "$SR8" nodes --json
	json_check 'd["nodes"][1] == {"node": 1, "cpus": "4-5", "memory": 4294967296, "free": 1073741824, "distances": "21,10", "packages": "1", "memory_only": False, "tier": None, "nearest": 1}'
	run -0 rm-topo --topology "$XML" cores --json -o core,cpus,kind
	json_check 'd["cores"][0] == {"core": 0, "cpus": "0-1", "kind": None}'
}

@test "JSON: -o and a listing of unknown isolation" {
	run -0 rm-topo --topology "$XML" cpus -J -o CPU,isolated -c 0
	json_check 'd == {"cpus": [{"cpu": 0, "isolated": None}]}'
}

@test "table: a header line, aligned columns, -n drops the header" {
	run -0 rm-topo --topology "$XML" nodes --table
	assert_output - <<'EOF'
NODE CPUS MEMORY FREE DISTANCES PACKAGES MEMORY_ONLY TIER NEAREST
   0 0-3      1G    - 10,21     0        no             -       0
   1 4-7      1G    - 21,10     1        no             -       1
EOF
	run -0 rm-topo --topology "$XML" nodes -t -n
	assert_output - <<'EOF'
   0 0-3      1G    - 10,21     0        no             -       0
   1 4-7      1G    - 21,10     1        no             -       1
EOF
	run -0 rm-topo --topology "$SMALL" cpus -t -o cpu,l2,online
	assert_line --index 0 "CPU L2 ONLINE"
	assert_line --index 8 "  7  3 yes"
	assert_equal "${#lines[@]}" 9
}

@test "table: to a pipe as libsmartcols writes it on a terminal: headings, widths, empty, encoded" {
	command -v script >/dev/null || skip "script(1) is not installed"
	local args tty
	# a pipe gets rmtools' own writing of the table, a terminal libsmartcols'; a value with a
	# backslash (the XML's model name) goes through libsmartcols either way
	for args in "--sysroot $RM_SRCDIR/tests/snapshots/x86-2s-memory-tiers nodes -t -o +access0_initiators,memory_side_caches,origin" \
		"--topology '$SMALL' cpus -t -n -o cpu,l2" "--topology '$SMALL' -t" \
		"--topology '$SMALL' cpus -t -o core,cpu --offline" "--topology $XML packages -t -o package,model"; do
		run -0 env COLUMNS=250 script -qec "rm-topo $args" /dev/null
		tty=${output//$'\r'/}
		eval "set -- $args"
		run -0 rm-topo "$@"
		assert_equal "$output" "$tty"
	done
}

@test "start-up: the libraries few commands use are opened at first use, not linked" {
	local tool lib
	for tool in rm-topo rm-storage rm-class rm-hugepages; do
		run -0 readelf -d "$RM_BUILDDIR/$tool"
		for lib in libz.so libpci.so libblkid.so libmount.so libsmartcols.so libarchive.so; do
			refute_output --partial "[$lib"
		done
	done
}

@test "start-up: the listings read from sysfs load no libhwloc; a topology opens it, one bitmap" {
	local snap=$SNAPSHOTS/x86-2s-memory-tiers args
	# configure links libhwloc.so where no libhwloc.a is installed
	! grep -qxF 'S["HWLOC_LAZY_TRUE"]="#"' "$RM_BUILDDIR/config.status" ||
		skip "configured to link libhwloc (no libhwloc.a, or rm_cv_hwloc_lazy=no)"
	run -0 readelf -d "$RM_BUILDDIR/rm-topo"
	refute_output --partial "[libhwloc.so"
	for args in "nodes" "distances --matrix -t" "--sysroot $snap nodes -o +access0_initiators" \
		"--sysroot $snap distances"; do
		# shellcheck disable=SC2086 # words of ARGS
		run -0 env LD_DEBUG=files rm-topo $args
		assert_output --regexp "node=|NODE|distance="
		refute_output --regexp "libhwloc|libudev"
		# libm, unless a sanitizer's runtime needs it (ASan's does)
		refute_output --regexp "file=libm\.so[^ ]* \[0\]; +needed by [^ ]*rm-topo "
	done
	# a command that builds a topology opens libhwloc, whose bitmap calls go to rm-topo's copy
	run -0 env LD_DEBUG=bindings rm-topo --sysroot "$snap" cpus
	assert_output --regexp "binding file [^ ]*libhwloc\.so\.15 "
	assert_output --regexp "libhwloc\.so\.15 \[0\] to [^ ]*rm-topo \[0\]: normal symbol .hwloc_bitmap_alloc'"
	refute_output --regexp "to [^ ]*libhwloc\.so\.15 \[0\]: normal symbol .hwloc_bitmap_"
}

@test "table: the summary prints two tables, separated by a blank line" {
	run -0 rm-topo --topology "$SMALL" -t -o packages,cpus
	assert_golden rm-topo summary-table-small
}

@test "raw: values only, space separated, never quoted; the empty set is an empty value" {
	run -0 rm-topo --topology "$SMALL" cpus --raw -c 2-3
	assert_output - <<'EOF'
2 1 0 0 0 1 1 yes no yes
3 1 0 0 0 1 1 yes no yes
EOF
	run -0 rm-topo --topology "$BIG" -r -o packages,offline,model
	assert_line --index 0 '2  -'
	assert_line --index 1 "0 0-15 1GiB - - 0 no - 0"
}

@test "-o: chosen fields in the given order, case-insensitive" {
	run -0 rm-topo --topology "$SMALL" cpus -o NODE,cpu,L3 -c 3-4
	assert_output - <<'EOF'
node=0 cpu=3 l3=0
node=1 cpu=4 l3=1
EOF
	run -0 rm-topo --topology "$SMALL" cores --output=Cpus,core -c 0
	assert_output "cpus=0-1 core=0"
	run -0 rm-topo --topology "$SMALL" cores -o +KIND -c 0
	assert_output "core=0 package=0 node=0 cpus=0-1 l3=0 core_id=0 kind=-"
	# a default field given again with + is not repeated
	run -0 rm-topo --topology "$SMALL" cores -o +cpus,kind -c 0
	assert_output "core=0 package=0 node=0 cpus=0-1 l3=0 core_id=0 kind=-"
}

@test "-o: an unknown or malformed field list exits 2" {
	usage_error "unknown field: 'frob'" rm-topo --topology "$SMALL" cpus -o cpu,frob
	usage_error "unknown field: 'frob'" rm-topo --topology "$SMALL" cpus -o +frob
	usage_error "unknown field: 'frob'" rm-topo --topology "$SMALL" -o frob
	usage_error "field given twice: 'CPU'" rm-topo --topology "$SMALL" cpus -o cpu,CPU
	usage_error "invalid field list" rm-topo --topology "$SMALL" cpus -o cpu,
	usage_error "invalid field list" rm-topo --topology "$SMALL" cpus -o ""
}

@test "--list-columns in each mode" {
	run -0 rm-topo cpus --list-columns
	assert_line --index 0 'column=cpu type=integer default=yes description="logical CPU number, as the kernel numbers it"'
	assert_line --regexp '^column=online type=boolean default=yes '
	assert_line --regexp '^column=die type=integer default=no '
	assert_equal "${#lines[@]}" 19
	run -0 rm-topo cpus --list-columns --json
	json_check 'len(d["columns"]) == 19' \
		'd["columns"][0] == {"column": "cpu", "type": "integer", "default": True, "description": "logical CPU number, as the kernel numbers it"}' \
		'[c["column"] for c in d["columns"] if not c["default"]] == ["core_id", "package_id", "die", "kind", "efficiency", "capacity", "maxmhz", "minmhz", "features"]'
	run -0 rm-topo cpus --list-columns --table
	assert_line --index 0 --regexp '^COLUMN +TYPE +DEFAULT +DESCRIPTION$'
	assert_line --index 1 --regexp '^cpu +integer +yes +logical CPU number'
	run -0 rm-topo cpus --list-columns --table -n
	assert_line --index 0 --regexp '^cpu +integer +yes +logical CPU number'
	run -0 rm-topo cpus --list-columns --raw
	assert_line --index 0 'cpu integer yes logical\x20CPU\x20number,\x20as\x20the\x20kernel\x20numbers\x20it'
}

@test "--list-columns: every listing and the summary; -o accepts each listed field" {
	local cmd col
	for cmd in summary cpus cores packages nodes caches distances; do
		run -0 rm-topo "$cmd" --list-columns -r
		local cols=()
		for col in $(printf '%s\n' "${lines[@]}" | cut -d' ' -f1); do
			cols+=("$col")
		done
		[ "${#cols[@]}" -ge 4 ]
		run -0 rm-topo --topology "$XML" "$cmd" -o "$(IFS=,; echo "${cols[*]}")"
		assert_line --index 0 --regexp "^${cols[0]}="
	done
	run -0 rm-topo --list-columns
	assert_line --index 0 --regexp '^column=machine '
	assert_line --regexp '^column=hugepage_sizes type=string '
	assert_line --regexp '^column=memory type=size '
}

@test "modes exclude each other, in any position" {
	usage_error "options --json and --table exclude each other" rm-topo --json --table
	usage_error "options --json and --table exclude each other" rm-topo cpus -J -t
	usage_error "options --json and --table exclude each other" \
		rm-topo --topology "$SMALL" -J cpus -t
	usage_error "options --table and --raw exclude each other" rm-topo nodes -t -r
	usage_error "options --raw and --json exclude each other" rm-topo -r summary -J
}

@test "options go before or after the command" {
	run -0 rm-topo --topology "$SMALL" -o cpu,node -r cpus -c 4-5
	local before=$output
	assert_equal "$before" "$(printf '4 1\n5 1')"
	run -0 rm-topo cpus -c 4-5 -r --topology "$SMALL" -o cpu,node
	assert_equal "$output" "$before"
	run -0 rm-topo -J nodes --topology "$XML"
	json_check 'len(d["nodes"]) == 2'
}

@test "RM_TOPOLOGY selects the input; --topology and --sysroot override it" {
	RM_TOPOLOGY=$SMALL run -0 rm-topo cpus -r -o cpu
	assert_equal "${#lines[@]}" 8
	RM_TOPOLOGY=$SMALL run -0 rm-topo cpus --topology "$BIG" -r -o cpu
	assert_equal "${#lines[@]}" 64
	RM_TOPOLOGY=$SMALL run -0 rm-topo --sysroot "$SR8" -o machine
	assert_line --index 0 "machine=testhost"
	RM_SYSROOT=$SR8 run -0 rm-topo -o machine,offline
	assert_line --index 0 "machine=testhost offline=6-7"
	RM_SYSROOT=$SR8 run -0 rm-topo --topology "$XML" -o cpus
	assert_line --index 0 "cpus=8"
	# both set: the topology wins
	RM_SYSROOT=$SR8 RM_TOPOLOGY=$BIG run -0 rm-topo -o cpus
	assert_line --index 0 "cpus=64"
	RM_TOPOLOGY=$BIG run -0 rm-topo calc all
	assert_output "0-63"
}

@test "a bad topology exits 2 with one line" {
	usage_error "no such topology file: '$BATS_TEST_TMPDIR/none.xml'" \
		rm-topo --topology "$BATS_TEST_TMPDIR/none.xml"
	usage_error "invalid synthetic topology: 'frob:2'" rm-topo --topology "frob:2" cpus
	echo "not xml" >"$BATS_TEST_TMPDIR/bad.xml"
	usage_error "bad.xml'" rm-topo --topology "$BATS_TEST_TMPDIR/bad.xml"
	usage_error "use --sysroot for a snapshot directory" rm-topo --topology "$BATS_TEST_TMPDIR"
	RM_TOPOLOGY="frob:2" usage_error "invalid synthetic topology" rm-topo nodes
}

@test "a write error on stdout exits 1 with 'write error'" {
	local args
	for args in "" "cpus" "cpus -J" "nodes -t" "caches -r" "distances" "cpus --list-columns" \
		"calc all" "export nfd"; do
		run -1 --separate-stderr bash -c "rm-topo --topology '$XML' $args >/dev/full"
		assert_equal "$stderr" "rm-topo: write error: No space left on device"
	done
}

# ---- errors ----

@test "unknown options and commands exit 2 with the message first" {
	usage_error "unrecognized option '--frob'" rm-topo --frob
	usage_error "unrecognized option '--frob'" rm-topo cpus --frob
	usage_error "invalid option -- 'Q'" rm-topo nodes -Q
	usage_error "unknown command: 'frob'" rm-topo frob
	usage_error "unknown command: 'frob'" rm-topo --topology "$SMALL" frob --json
	# the name in messages is the program's, however it was run
	usage_error "unrecognized option '--frob'" "$RM_BUILDDIR/rm-topo" --frob
}

# ---- export nfd ----

@test "export nfd: exact labels for a synthetic machine" {
	run -0 rm-topo --topology "$BIG" export nfd
	assert_golden rm-topo export-nfd-big
	run -0 rm-topo --topology "package:1 numa:1 core:4 pu:1" export nfd
	assert_line "feature.node.kubernetes.io/rmtools-smt=false"
	assert_line "feature.node.kubernetes.io/rmtools-threads-per-core=1"
	assert_line "feature.node.kubernetes.io/rmtools-l3-caches=0"
}

@test "export nfd: huge page sizes and isolated CPUs of a snapshot" {
	run -0 rm-topo --sysroot "$SR8" export nfd
	assert_golden rm-topo export-nfd-sr8
	run -0 rm-topo --topology "$XML" export nfd
	assert_line "feature.node.kubernetes.io/rmtools-hugepages-2Mi=true"
	assert_line "feature.node.kubernetes.io/rmtools-hugepages-1Gi=true"
	refute_output --partial "isolated"
}

@test "export nfd: a CPU list too long for a label value is left out, its count kept" {
	run -0 rm-topo --sysroot "$SR64" export nfd
	assert_line "feature.node.kubernetes.io/rmtools-isolated-cpu-count=32"
	refute_output --partial "rmtools-isolated-cpus="
}

@test "export nfd: every line is a comment or a label NFD accepts" {
	local input line
	for input in "--topology=$BIG" "--topology=$XML" "--sysroot=$SR8" "--sysroot=$SR64" \
		"--topology=package:1 numa:1 core:1 pu:1" live; do
		if [ "$input" = live ]; then
			run -0 rm-topo export nfd
		else
			run -0 rm-topo "$input" export nfd
		fi
		[ "${#lines[@]}" -ge 6 ]
		for line in "${lines[@]}"; do
			[[ $line == "#"* && $line != "# +"* ]] && continue
			nfd_valid_line "$line" || fail "not a valid NFD label: '$line' ($input)"
		done
		# no key twice (a later one would silently win)
		assert_equal "$(printf '%s\n' "${lines[@]}" | grep -v '^#' | cut -d= -f1 | sort | uniq -d)" ""
	done
}

@test "export nfd --output: the file, mode 0644, replaced atomically, no temporary left" {
	local dir=$BATS_TEST_TMPDIR/features.d
	mkdir "$dir"
	(umask 077 && rm-topo --topology "$BIG" export nfd --output "$dir/rmtools")
	assert_equal "$(stat -c %a "$dir/rmtools")" 644
	run -0 rm-topo --topology "$BIG" export nfd
	assert_equal "$(cat "$dir/rmtools")" "$output"
	run -0 rm-topo --sysroot "$SR8" export -o "$dir/rmtools" nfd
	assert_output ""
	run -0 grep -c 'isolated-cpus=2-3_5' "$dir/rmtools"
	assert_equal "$(ls -A "$dir")" "rmtools"
	# a relative name is written in the current directory
	cd "$dir" && rm-topo --topology "$BIG" export nfd --output=local
	assert_equal "$(ls -A "$dir" | tr '\n' ' ')" "local rmtools "
}

@test "export nfd --output: a failed write exits 1 and leaves no temporary file" {
	local dir=$BATS_TEST_TMPDIR/features.d
	run -1 --separate-stderr rm-topo --topology "$BIG" export nfd --output "$dir/no/such/file"
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} == "rm-topo: "*"'$dir/no/such/file'"* ]]
	# a directory at the name is refused before anything is written
	mkdir -p "$dir/rmtools"
	usage_error "not a directory: '$dir/rmtools'" \
		rm-topo --topology "$BIG" export nfd --output "$dir/rmtools"
	assert_equal "$(ls -A "$dir")" "rmtools"
	# a device written into that fails the write
	run -1 --separate-stderr rm-topo --topology "$BIG" export nfd --output /dev/full
	assert_equal "$stderr" "rm-topo: cannot write '/dev/full': No space left on device"
	[ -c /dev/full ]
}

@test "export: a bad or missing format exits 2" {
	usage_error "unknown export format: 'xml'" rm-topo --topology "$BIG" export xml
	usage_error "missing FORMAT" rm-topo --topology "$BIG" export
	usage_error "unexpected argument: 'nfd'" rm-topo --topology "$BIG" export nfd nfd
	usage_error "--json, --node-name, --topology-manager-* and --vendor-domain are for nrt" rm-topo --topology "$BIG" export nfd -J
}

@test "output options before a command that prints no records are refused" {
	run -2 --separate-stderr rm-topo --topology "package:1 core:2 pu:1" -J calc all
	assert_equal "$stderr" "rm-topo: output options do not apply to 'calc'"
	assert_output ''
	run -2 rm-topo --list-columns snapshot "$BATS_TEST_TMPDIR/snap"
	[ ! -e "$BATS_TEST_TMPDIR/snap" ]
}

@test "-o: an empty list, a lone + and a trailing comma are refused, naming the list as given" {
	for list in '' + '+cpu,' 'cpu,' '+,cpu'; do
		run -2 --separate-stderr rm-topo --topology "package:1 core:2 pu:1" cpus -o "$list"
		assert_equal "$stderr" "rm-topo: invalid field list: '$list'"
		assert_output ''
	done
}

@test "cpus: kind, efficiency, capacity and MHz agree with hwloc's cpukinds on a hybrid sysroot" {
	local sr=$BATS_TEST_TMPDIR/hy c cap mhz line k eff set cpus
	make_sysroot "$sr" 8 2 8 ""
	# CPUs 0-3 big (capacity 1024, 4 GHz), 4-7 little (capacity 512, 2 GHz)
	for c in 0 1 2 3 4 5 6 7; do
		cap=$((c < 4 ? 1024 : 512)) mhz=$((c < 4 ? 4000 : 2000))
		echo "$cap" >"$sr/sys/devices/system/cpu/cpu$c/cpu_capacity"
		mkdir -p "$sr/sys/devices/system/cpu/cpu$c/cpufreq"
		echo "${mhz}000" >"$sr/sys/devices/system/cpu/cpu$c/cpufreq/cpuinfo_max_freq"
		echo 800000 >"$sr/sys/devices/system/cpu/cpu$c/cpufreq/cpuinfo_min_freq"
	done
	run rm-topo --sysroot "$sr" cpus -o cpu,kind,efficiency,capacity,maxmhz,minmhz -c 0,5
	[ "$status" -eq 0 ]
	[ "$output" = "cpu=0 kind=performance efficiency=1 capacity=1024 maxmhz=4000 minmhz=800
cpu=5 kind=efficiency efficiency=0 capacity=512 maxmhz=2000 minmhz=800" ]
	# hwloc's own view of the same tree: each kind's CPUs have its efficiency in our listing
	HWLOC_FSROOT=$sr lstopo-no-graphics --cpukinds >"$BATS_TEST_TMPDIR/lstopo.txt"
	run grep -c '^CPU kind #' "$BATS_TEST_TMPDIR/lstopo.txt"
	[ "$output" -eq 2 ]
	while read -r line; do
		eff=$(sed -n 's/.* efficiency \([0-9]*\) .*/\1/p' <<<"$line")
		set=$(sed -n 's/.* cpuset \(0x[0-9a-f,x]*\).*/\1/p' <<<"$line")
		cpus=$(python3 -c 'import sys; m = int(sys.argv[1].replace(",0x", ""), 16)
print(",".join(str(i) for i in range(m.bit_length()) if m >> i & 1))' "$set")
		[ -n "$cpus" ]
		run rm-topo --sysroot "$sr" cpus -o efficiency -c "$cpus"
		[ "$status" -eq 0 ]
		[ "$(sort -u <<<"$output")" = "efficiency=$eff" ]
	done < <(grep '^CPU kind #' "$BATS_TEST_TMPDIR/lstopo.txt")
	# one kind: no kind name
	run rm-topo --sysroot "$SR1" cpus -o kind -c 0
	[ "$output" = "kind=-" ]
}

# The placement features of lscpu's Flags line on a root (live when empty), in rm-topo's order.
lscpu_placement() {
	LC_ALL=C lscpu ${1:+-s "$1"} | sed -n 's/^Flags: *//p' | tr ' ' '\n' |
		grep -Fx -e avx2 -e avx_vnni -e avx512f -e avx512_vnni -e avx512_bf16 -e avx512_fp16 \
			-e amx_tile -e amx_bf16 -e amx_int8 -e amx_fp16 -e asimd -e sve -e sve2 -e sme \
			-e sme2 -e bf16 -e i8mm | sort -u
}

@test "cpus: the features column is lscpu's Flags, the placement ones, here and on the fixtures" {
	local fx want got some=0
	run -0 rm-topo cpus -c 0 -r -o features
	[ -n "$output" ]
	assert_equal "$(tr , '\n' <<<"$output" | sort)" "$(lscpu_placement "")"
	require_fixtures
	for fx in x86_64-64cpu arm-A510-A710-A715-X3 x86_64-64cpu-linux6.2; do
		[ -f "$FIXTURES/$fx/proc/cpuinfo" ] || continue
		want=$(lscpu_placement "$FIXTURES/$fx")
		got=$(rm-topo --sysroot "$FIXTURES/$fx" cpus -c 0 -r -o features | tr , '\n' | sort)
		assert_equal "$got" "$want"
		[ -z "$got" ] || some=$((some + 1))
	done
	[ "$some" -ge 1 ]
	# every CPU has its own line in cpuinfo; an XML or synthetic topology says nothing
	run -0 rm-topo --sysroot "$FIXTURES/arm-A510-A710-A715-X3" cpus -r -o features
	assert_equal "$(sort -u <<<"$output" | wc -l)" 1
	run -0 rm-topo --topology "package:1 core:2 pu:1" cpus -o cpu,features
	assert_output $'cpu=0 features=-\ncpu=1 features=-'
}
