#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices list, show and topo on sysfs trees of a GPU server and a mixed machine, and on this
# machine; bad input.
load test_helper
load rm-devices/fixtures

setup_file() {
	fx_trees
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

# Skip, visibly, without lspci (the peer these tests compare with).
need_lspci() {
	command -v lspci >/dev/null || skip "lspci is not installed (apt-get install pciutils)"
}

# lspci on a tree: lspci_tree ROOT ARGS...
lspci_tree() {
	local root=$1
	shift
	lspci -A linux-sysfs -O sysfs.path="$root/sys/bus/pci" "$@" 2>/dev/null
}

@test "list: without a command, one record per device of interest in address order" {
	run -0 --separate-stderr rm-devices --sysroot "$GPU"
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 13
	assert_line --index 0 'device=0000:01:00.0 type=nvme name=nvme0 vendor=144d product=a80a vendor_name="Samsung Electronics Co Ltd" product_name="NVMe SSD Controller PM9A1/PM9A3/980PRO" driver=nvme numa=0 cpus=0-1,4-5 root=0000:00 iommu_group=2 dev_nodes=/dev/nvme0,/dev/nvme0n1'
	assert_line --index 1 'device=0000:1a:00.0 type=gpu name=gpu0 vendor=10de product=20b0 vendor_name="NVIDIA Corporation" product_name="GA100 [A100 SXM4 40GB]" driver=nvidia numa=0 cpus=0-1,4-5 root=0000:17 iommu_group=10 dev_nodes=/dev/nvidia0'
	assert_line --index 3 'device=0000:1c:00.0 type=ib name=ib0 vendor=15b3 product=101b vendor_name="Mellanox Technologies" product_name="MT28908 Family [ConnectX-6]" driver=mlx5_core numa=0 cpus=0-1,4-5 root=0000:17 iommu_group=30 dev_nodes=/dev/infiniband/uverbs0'
	run -0 gpu list -o device,type,name,numa,root -r
	assert_golden rm-devices list-gpu-server-raw
}

@test "list: the BMC's VGA and the bridges are left out, --all shows every function as lspci does" {
	need_lspci
	run -0 gpu list -o device -r
	refute_line 0000:03:00.0
	refute_line 0000:17:00.0
	run -0 gpu list --all -o device -r
	assert_equal "$output" "$(lspci_tree "$GPU" -D -n | cut -d' ' -f1)"
	run -0 gpu list --all -o device,type,vendor,product -r
	assert_line '0000:03:00.0 other 1a03 2000'
	assert_line '0000:18:00.0 other 10b5 9797'
	# ids and classes as lspci reads them from the same tree
	run -0 bash -c "rm-devices --sysroot '$GPU' list --all -o device,vendor,product,class -r |
		cut -c1-27"
	assert_equal "$output" "$(lspci_tree "$GPU" -D -n | awk '{ split($3, id, ":");
		printf "%s %s %s %s\n", $1, id[1], id[2], substr($2, 1, 4) }')"
}

@test "list: vendor and device names are pci.ids', as lspci names them" {
	need_lspci
	local addr vendor product n=0
	run -0 gpu list --all -o device,vendor_name,product_name -r
	while read -r addr; do
		# lspci -mm: "slot" "class" "vendor" "device" ...
		vendor=$(lspci_tree "$GPU" -D -mm -s "$addr" | awk -F'"' '{ print $4 }')
		product=$(lspci_tree "$GPU" -D -mm -s "$addr" | awk -F'"' '{ print $6 }')
		run -0 gpu show "$addr" -o vendor_name,product_name -r
		[[ $product == "Device "* ]] && product=-
		# raw values are bare, their blanks \x20: two words, which printf %b reads back
		[[ $output == *[!\ ]\ [!\ ]* && $output != *\ *\ * ]] || fail "not two raw values: '$output'"
		assert_equal "$(printf '%b' "${output% *}")" "$vendor"
		assert_equal "$(printf '%b' "${output#* }")" "$product"
		n=$((n + 1))
	done < <(gpu list --all -o device -r)
	[ "$n" -eq 37 ]
}

@test "list: the GPUs' device nodes follow the driver's minors, not the address order" {
	run -0 gpu list --type gpu -o device,dev_nodes -r
	assert_line '0000:3d:00.0 /dev/nvidia3'
	assert_line '0000:3e:00.0 /dev/nvidia2'
	# without the driver's file (/proc/driver/nvidia), the minors are taken in address order
	cp -a "$GPU" "$BATS_TEST_TMPDIR/gpu"
	rm -r "$BATS_TEST_TMPDIR/gpu/proc/driver"
	run -0 rm-devices --sysroot "$BATS_TEST_TMPDIR/gpu" list --type gpu -o dev_nodes -r
	assert_output "$(seq -f /dev/nvidia%g 0 7)"
	run -0 gpu show 1a:00.0 -o shared_nodes -r
	assert_output /dev/nvidiactl,/dev/nvidia-uvm,/dev/nvidia-uvm-tools
}

@test "list: --type, --vendor and --node filter, and combine" {
	run -0 gpu list --type ib -o device -r
	assert_output "$(printf '%s\n' 0000:1c:00.0 0000:3f:00.0 0000:9c:00.0 0000:bc:00.0)"
	run -0 gpu list --type gpu,nvme -o name -r
	assert_equal "${#lines[@]}" 9
	refute_line --partial ib
	run -0 gpu list --vendor 15b3 -o name -r
	assert_output "$(printf '%s\n' ib0 ib1 ib2 ib3)"
	run -0 gpu list --vendor 0x10DE --node 1 -o name -r
	assert_output "$(printf '%s\n' gpu4 gpu5 gpu6 gpu7)"
	run -0 gpu list --node 0-1 --type ib -o name,numa -r
	assert_output "$(printf '%s\n' 'ib0 0' 'ib1 0' 'ib2 1' 'ib3 1')"
	run -0 gpu list --type other -o device -r
	assert_line 0000:03:00.0
	refute_line 0000:1a:00.0
	# the node filter leaves out devices without one
	run -0 mixed list --node 0-1 -o device -r
	refute_line 0000:d8:00.0
	run -0 mixed list --vendor 1da3 -o device,numa,cpus -r
	assert_output '0000:d8:00.0 - 0-7'
}

@test "list: a VPI adapter whose port runs Ethernet is a nic, whatever its class says" {
	run -0 mixed show 5e:00.0 -o type,class,rdma,ib_state,link_layer,netdevs,dev_nodes,shared_nodes
	assert_output 'type=nic class=020700 rdma=mlx5_0 ib_state=active link_layer=ethernet netdevs=enp94s0np0 dev_nodes=/dev/infiniband/uverbs0 shared_nodes=/dev/infiniband/rdma_cm'
	# the HCAs of the GPU server run InfiniBand
	run -0 gpu show 0000:9c:00.0 -o type,rdma,ib_state,link_layer,netdevs
	assert_output 'type=ib rdma=mlx5_2 ib_state=active link_layer=infiniband netdevs=ib2'
}

@test "list: an SR-IOV NIC says it is a PF with its VFs, each VF names its PF" {
	run -0 mixed show 3b:00.0 -o sriov,vfs,total_vfs,pf,netdevs,link_speed,link_width
	assert_output 'sriov=pf vfs=8 total_vfs=64 pf=- netdevs=ens1f0 link_speed=16.0GT/s link_width=16'
	run -0 mixed list --type nic -o device,sriov,pf,netdevs -r
	assert_equal "${#lines[@]}" 10
	assert_line '0000:3b:01.0 vf 0000:3b:00.0 ens1f0v0'
	assert_line '0000:3b:01.7 vf 0000:3b:00.0 ens1f0v7'
	assert_line '0000:5e:00.0 no - enp94s0np0'
}

@test "list: an FPGA, an AMD GPU with its render node and memory, a device without NUMA node" {
	run -0 mixed list -o device,type,name,driver,numa,dev_nodes,memory -r
	assert_line '0000:af:00.0 fpga fpga0 xclmgmt 1  -'
	assert_line '0000:c1:00.0 gpu gpu0 amdgpu 1 /dev/dri/card1,/dev/dri/renderD128 64GiB'
	assert_line '0000:d8:00.0 accel accel0 habanalabs - /dev/accel/accel0 -'
	# an H100 bound to vfio-pci is a vfio device, its class and vendor those of the GPU
	assert_line '0000:e3:00.0 vfio vfio0 vfio-pci 1 /dev/vfio/77 -'
	run -0 mixed list --type gpu -o device -r
	assert_output '0000:c1:00.0'
	run -0 mixed list --type vfio -o device,class,vendor,product -r
	assert_output '0000:e3:00.0 030200 10de 2330'
	run -0 mixed show c1:00.0 -o shared_nodes,bar,memory --bytes
	assert_output 'shared_nodes=/dev/kfd bar=34359738368 memory=68719476736'
	run -0 mixed show e3:00.0 -o shared_nodes,iommu_group
	assert_output 'shared_nodes=/dev/vfio/vfio iommu_group=77'
	# JSON: numbers, sizes in bytes, null for unknown
	run -0 mixed list --type accel,gpu,vfio -J -o device,numa,memory
	run -0 jq -c '.devices | map([.device, .numa, .memory])' <<<"$output"
	assert_output '[["0000:c1:00.0",1,68719476736],["0000:d8:00.0",null,null],["0000:e3:00.0",1,null]]'
}

@test "list: a display controller with DRM nodes is a GPU whatever its subclass (virtio-gpu, 0x0380)" {
	fx_virtio_gpu "$BATS_TEST_TMPDIR/vg"
	run -0 rm-devices --sysroot "$BATS_TEST_TMPDIR/vg" list -o device,type,name,class,numa,dev_nodes -r
	assert_output $'0000:11:00.0 gpu gpu0 038000 0 /dev/dri/card0,/dev/dri/renderD128\n0000:21:00.0 gpu gpu1 038000 1 /dev/dri/card1,/dev/dri/renderD129'
	# the same class without DRM nodes stays other
	run -0 rm-devices --sysroot "$BATS_TEST_TMPDIR/vg" list --all -o device,type -r
	assert_line '0000:00:03.0 other'
	# the snapshot keeps the nodes below the virtio device
	run -0 rm-topo --sysroot "$BATS_TEST_TMPDIR/vg" snapshot "$BATS_TEST_TMPDIR/copy"
	run -0 rm-devices --sysroot "$BATS_TEST_TMPDIR/copy" list -o name,dev_nodes -r
	assert_output $'gpu0 /dev/dri/card0,/dev/dri/renderD128\ngpu1 /dev/dri/card1,/dev/dri/renderD129'
}

@test "show: every field of one device, in --list-columns order; short addresses" {
	run -0 rm-devices show --list-columns -r
	local fields
	fields=$(printf '%s\n' "${lines[@]}" | cut -d' ' -f1 | xargs)
	run -0 gpu show 1b:00.0
	assert_equal "$(printf '%s\n' "$output" | grep -o '\(^\| \)[a-z_]*=' | tr -d ' =' | xargs)" "$fields"
	assert_output --partial 'device=0000:1b:00.0 type=gpu name=gpu1 '
	assert_output --partial ' switch=0000:18:00.0 path=0000:17:00.0/0000:18:00.0/0000:19:01.0 link_speed=16.0GT/s link_width=16 sriov=no '
	assert_output --partial ' bar=64GiB class=030200 subvendor=10de subproduct=20b0 '
	# a bridge is a device too
	run -0 gpu show 0000:18:00.0 -o type,driver,path -r
	assert_output 'other pcieport 0000:17:00.0'
	run -0 gpu show 0000:1B:00.0 -o device -r
	assert_output 0000:1b:00.0
}

@test "topo: one record per device with its connection to each, like nvidia-smi topo -m" {
	run -0 gpu topo --type gpu,ib
	assert_equal "${#lines[@]}" 12
	assert_line --index 0 'device=0000:1a:00.0 name=gpu0 type=gpu numa=0 cpus=0-1,4-5 root=0000:17 switch=0000:18:00.0 links=X,PIX,PIX,NODE,NODE,NODE,SYS,SYS,SYS,SYS,SYS,SYS'
	assert_line --index 8 'device=0000:9c:00.0 name=ib2 type=ib numa=1 cpus=2-3,6-7 root=0000:97 switch=0000:98:00.0 links=SYS,SYS,SYS,SYS,SYS,SYS,PIX,PIX,X,NODE,NODE,NODE'
	run -0 gpu topo -t -o name,links --type ib
	assert_line --index 0 --regexp '^NAME +LINKS$'
	assert_line --index 1 --regexp '^ib0 +X,NODE,SYS,SYS$'
	# the matrix is symmetric: row i, column j is row j, column i
	run -0 gpu topo -o links -r
	local i j a b
	for i in $(seq 0 12); do
		for j in $(seq 0 12); do
			a=$(cut -d, -f$((j + 1)) <<<"${lines[i]}")
			b=$(cut -d, -f$((i + 1)) <<<"${lines[j]}")
			[ "$a" = "$b" ] || fail "row $i column $j is $a, row $j column $i is $b"
		done
	done
}

@test "topo: one PCI root through the host bridge (PHB), nested switches (PXB)" {
	local t=$RM_BUILDDIR/tests/unit/test-devices root=$BATS_TEST_TMPDIR/nested p
	[ -x "$t" ] || skip "tests/unit/test-devices is not built (make check builds it)"
	# the BMC's VGA and the NVMe drive: two root ports of root 0000:00
	run -0 "$t" link "$GPU" 03:00.0 01:00.0
	assert_output PHB
	run -0 "$t" link "$GPU" 1a:00.0 1c:00.0
	assert_output PIX
	# a switch below a switch port: two devices under it are PIX, one above and one below PXB
	fx_cpus "$root"
	fx_switch "$root" 40 0
	p=$(fx_dsp 40 0)
	fx_dev "$root" "$p" 0000:43:00.0 0x060400 0x10b5 0x9797 numa=0
	fx_dev "$root" "$p/0000:43:00.0" 0000:44:00.0 0x060400 0x10b5 0x9797 numa=0
	fx_dev "$root" "$p/0000:43:00.0" 0000:44:01.0 0x060400 0x10b5 0x9797 numa=0
	fx_dev "$root" "$p/0000:43:00.0/0000:44:00.0" 0000:45:00.0 0x030200 0x10de 0x20b0 numa=0
	fx_dev "$root" "$p/0000:43:00.0/0000:44:01.0" 0000:46:00.0 0x030200 0x10de 0x20b0 numa=0
	fx_dev "$root" "$(fx_dsp 40 1)" 0000:47:00.0 0x030200 0x10de 0x20b0 numa=0
	run -0 "$t" link "$root" 45:00.0 46:00.0
	assert_output PIX
	run -0 "$t" link "$root" 45:00.0 47:00.0
	assert_output PXB
	run -0 rm-devices --sysroot "$root" topo -o name,switch,links -r
	assert_output "$(printf '%s\n' 'gpu0 0000:43:00.0 X,PIX,PXB' 'gpu1 0000:43:00.0 PIX,X,PXB' \
		'gpu2 0000:41:00.0 PXB,PXB,X')"
}

@test "list: this machine, read as lspci reads it" {
	need_lspci
	run -0 --separate-stderr rm-devices
	assert_equal "$stderr" ""
	# every line a device record of a known type
	for line in "${lines[@]}"; do
		[[ $line =~ ^device=[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\ type=(gpu|nic|ib|fpga|accel|nvme)\  ]] ||
			fail "not a device record: $line"
	done
	# every PCI function, with lspci's ids and classes
	run -0 rm-devices list --all -o device,vendor,product,class -r
	assert_equal "$output" "$(lspci -D -n | awk '{ split($3, id, ":");
		printf "%s %s %s %s\n", $1, id[1], id[2], substr($2, 1, 4) }' |
		while read -r a v p c; do
			printf '%s %s %s %s\n' "$a" "$v" "$p" "$(cut -c3- "/sys/bus/pci/devices/$a/class")"
		done)"
	# network controllers (class 02) are nics or HCAs, NVMe controllers (0108) nvme
	run -0 rm-devices list --type nic,ib -o device -r
	assert_equal "${#lines[@]}" "$(lspci -n | awk '$2 ~ /^02/' | wc -l)"
	run -0 rm-devices list --type nvme -o device -r
	assert_equal "${#lines[@]}" "$(lspci -n | awk '$2 ~ /^0108/' | wc -l)"
	# interfaces as the kernel names them
	run -0 rm-devices list --type nic -o device,netdevs -r
	for line in "${lines[@]}"; do
		for i in $(cut -d' ' -f2 <<<"$line" | tr ',' ' ' | tr -d '"'); do
			[ "$(basename "$(readlink -f "/sys/class/net/$i/device")")" = "${line%% *}" ] ||
				[[ $(readlink -f "/sys/class/net/$i/device") == *"/${line%% *}/"* ]] ||
				fail "$i is not an interface of ${line%% *}"
		done
	done
}

@test "list: a tree without PCI devices lists nothing" {
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run -0 --separate-stderr rm-devices --sysroot "$BATS_TEST_TMPDIR/empty" list --all
	assert_equal "$output" ""
	assert_equal "$stderr" ""
}

@test "list: --list-columns, table and raw output" {
	run -0 rm-devices list --list-columns -r
	assert_line --index 0 'device string yes PCI\x20address\x20(domain:bus:slot.function)'
	assert_line 'numa integer yes NUMA\x20node\x20(-\x20when\x20the\x20kernel\x20says\x20none)'
	assert_line 'cpus cpulist yes local\x20CPUs\x20(local_cpulist)'
	assert_line --partial 'memory size no '
	run -0 gpu list -t -o device,type,numa --type ib
	assert_line --index 0 --regexp '^DEVICE +TYPE +NUMA$'
	assert_line --index 4 --regexp '^0000:bc:00.0 +ib +1$'
	run -0 gpu list -t -n -o device --type ib
	assert_equal "${#lines[@]}" 4
}

@test "bad input: exit 2 with one line, nothing printed" {
	usage_error "unknown device type: 'tpu'" gpu list --type gpu,tpu
	usage_error "invalid vendor id: 'nvidia'" gpu list --vendor nvidia
	usage_error "invalid --node" gpu list --node x
	usage_error "unexpected argument: 'x'" gpu list x
	usage_error "invalid PCI address: '0000:3b:00'" gpu show 0000:3b:00
	usage_error "invalid PCI address: '3b:20.0'" gpu show 3b:20.0
	usage_error "invalid PCI address: 'gpu0'" gpu show gpu0
	usage_error "no such PCI device: '0000:3b:00.1'" gpu show 0000:3b:00.1
	usage_error "show: missing DEVICE" gpu show
	usage_error "unknown field: 'bogus'" gpu list -o device,bogus
	usage_error "not a directory: '$BATS_TEST_TMPDIR/none'" rm-devices --sysroot "$BATS_TEST_TMPDIR/none" list
	usage_error "unknown command: 'lst'" rm-devices lst
}

@test "a described topology (RM_TOPOLOGY, --topology) has no devices: none listed, a note, exit 0" {
	local note="rm-devices: note: a described topology has no devices: 'package:2 core:2 pu:1' (use --sysroot with a snapshot for a machine's devices)"
	RM_TOPOLOGY="package:2 core:2 pu:1" run -0 --separate-stderr rm-devices
	assert_output ''
	assert_equal "$stderr" "$note"
	run -0 --separate-stderr rm-devices --topology "package:2 core:2 pu:1" list --all -J
	assert_equal "$(jq -c . <<<"$output")" '{"devices":[]}'
	assert_equal "$stderr" "$note"
	RM_TOPOLOGY="package:2 core:2 pu:1" run -0 --separate-stderr rm-devices list -t
	assert_output ''
	# --sysroot on the command line wins over the variable
	RM_TOPOLOGY="package:2 core:2 pu:1" run -0 --separate-stderr gpu list -o device -r
	[ "${#lines[@]}" -gt 0 ]
	assert_equal "$stderr" ''
	# a device named there is not on the described machine
	run -2 --separate-stderr rm-devices --topology "package:2 core:2 pu:1" show 3b:00.0
	assert_output ''
	assert_equal "${stderr_lines[0]}" "$note"
	assert_equal "${stderr_lines[1]}" "rm-devices: no such PCI device: '3b:00.0'"
	# a bad description is still an error
	usage_error "invalid synthetic topology: 'package:2 core:2'" rm-devices --topology "package:2 core:2"
}

@test "docs: the listings of rm-devices(1)'s EXAMPLES print what the page shows, on the GPU server" {
	local cmd expected got n=0 failed=''
	# "$ command" lines of the .EX blocks (folded lines joined) with the lines they show;
	# a shown "..." ends a cut
	while IFS=$'\t' read -r cmd expected; do
		[[ $cmd == "rm-devices "* && $cmd != *"|"* ]] || continue
		got=$(RM_SYSROOT=$GPU bash -c "$cmd" 2>&1 | paste -sd ';')
		if [[ $expected == *';...' ]]; then
			[[ $got == "${expected%...}"* ]] || failed+=$'\n'"$cmd: shows '$expected', prints '$got'"
		else
			[[ $got == "$expected" ]] || failed+=$'\n'"$cmd: shows '$expected', prints '$got'"
		fi
		n=$((n + 1))
	done < <(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$RM_SRCDIR/man/rm-devices.1" |
		sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g' | awk '
		function flush() { if (cmd != "" && out != "") print cmd "\t" out; cmd = ""; out = "" }
		/^\.EX/ { on = 1; next }
		/^\.EE/ { flush(); on = 0; next }
		!on { next }
		fold != "" { sub(/^ +/, ""); $0 = fold $0; fold = "" }
		/ \\$/ { fold = substr($0, 1, length($0) - 1); next }
		/^\$ / { flush(); cmd = substr($0, 3); next }
		/^# / { flush(); next }
		cmd != "" { out = out == "" ? $0 : out ";" $0 }')
	[ "$n" -ge 2 ]
	assert_equal "$failed" ""
}
