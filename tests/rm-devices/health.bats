#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices health from sysfs snapshots: AER counters and rates, links trained below both ends,
# D3cold, empty hotplug slots, NVMe SMART logs, ports down, the policy file, --watch, and the
# exports that read health (resourceslice taints, NFD labels, gres, scontrol).
load ../test_helper
load fixtures

SCHEMA=${RM_SCHEMAS:-$RM_SRCDIR/../shared/reference/schemas}/k8s/resource.k8s.io_v1_ResourceSlice.json

setup_file() {
	GPU="$BATS_FILE_TMPDIR/gpu"
	fx_gpu_server "$GPU"
	export GPU
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/conf"
	cp -a "$GPU" "$BATS_TEST_TMPDIR/gpu"
	T="$BATS_TEST_TMPDIR/gpu"
}

dev() { rm-devices --sysroot "$T" "$@"; }
f() { echo "$T/sys/bus/pci/devices/$1/$2"; }

# The 512-byte SMART log of nvme0 with critical warning WARN and MEDIA media errors, where the
# admin command's answer stands in a snapshot.
smart_log() {
	mkdir -p "$T/dev"
	{
		fx_bytes "$1"
		head -c 159 /dev/zero
		fx_bytes "$2"
		head -c 351 /dev/zero
	} >"$T/dev/nvme0"
}

@test "health: a healthy machine prints nothing and exits 0; --all a record each" {
	run -0 --separate-stderr dev health
	assert_equal "$output$stderr" ""
	run -0 dev health --all -o device,health,status,root_port -r
	assert_equal "${#lines[@]}" 13
	assert_line '0000:1a:00.0 ok ok 0000:17:00.0'
}

@test "health: AER counters of the device and its root port, kinds and levels" {
	printf 'RxErr 0\nBadTLP 3\nTOTAL_ERR_COR 3\n' >"$(f 0000:1a:00.0 aer_dev_correctable)"
	printf 'Undefined 0\nTOTAL_ERR_NONFATAL 0\n' >"$(f 0000:1a:00.0 aer_dev_nonfatal)"
	printf 'CmpltTO 1\nTOTAL_ERR_NONFATAL 1\n' >"$(f 0000:1b:00.0 aer_dev_nonfatal)"
	printf 'TOTAL_ERR_FATAL 0\n' >"$(f 0000:1b:00.0 aer_dev_fatal)"
	echo 4 >"$(f 0000:17:00.0 aer_rootport_total_err_cor)"
	echo 1 >"$(f 0000:17:00.0 aer_rootport_total_err_nonfatal)"
	echo 0 >"$(f 0000:17:00.0 aer_rootport_total_err_fatal)"
	run -1 dev health -o device,health,status,aer_correctable,aer_nonfatal,aer_fatal,aer_errors,root_aer_correctable,root_aer_nonfatal
	assert_output "$(printf '%s\n' \
		'device=0000:1a:00.0 health=aer_correctable,root_aer_correctable,root_aer_nonfatal status=warn aer_correctable=3 aer_nonfatal=0 aer_fatal=- aer_errors=BadTLP:3 root_aer_correctable=4 root_aer_nonfatal=1' \
		'device=0000:1b:00.0 health=aer_nonfatal,root_aer_correctable,root_aer_nonfatal status=unhealthy aer_correctable=- aer_nonfatal=1 aer_fatal=0 aer_errors=CmpltTO:1 root_aer_correctable=4 root_aer_nonfatal=1' \
		'device=0000:1c:00.0 health=root_aer_correctable,root_aer_nonfatal status=warn aer_correctable=- aer_nonfatal=- aer_fatal=- aer_errors=- root_aer_correctable=4 root_aer_nonfatal=1')"
}

@test "health: links trained below both ends, on the device and on the switch above it" {
	# 1a:00.0: a Gen4 x16 GPU at Gen3 x8 below a Gen4 x16 port: degraded
	echo '8.0 GT/s PCIe' >"$(f 0000:1a:00.0 current_link_speed)"
	echo 8 >"$(f 0000:1a:00.0 current_link_width)"
	echo '16.0 GT/s PCIe' >"$(f 0000:19:00.0 max_link_speed)"
	echo 16 >"$(f 0000:19:00.0 max_link_width)"
	# 1b:00.0's switch uplink (17:00.0 to 18:00.0) at x4 of x16
	for a in 0000:17:00.0 0000:18:00.0; do
		echo '16.0 GT/s PCIe' >"$(f $a max_link_speed)"
		echo 16 >"$(f $a max_link_width)"
	done
	echo '16.0 GT/s PCIe' >"$(f 0000:18:00.0 current_link_speed)"
	echo 4 >"$(f 0000:18:00.0 current_link_width)"
	echo 16 >"$(f 0000:19:01.0 max_link_width)"
	echo '16.0 GT/s PCIe' >"$(f 0000:19:01.0 max_link_speed)"
	# 01:00.0: a Gen4 x4 disk in a Gen5 x4 slot runs at Gen4: not degraded
	echo '32.0 GT/s PCIe' >"$(f 0000:00:1d.0 max_link_speed)"
	echo 4 >"$(f 0000:00:1d.0 max_link_width)"
	run -0 dev health -o device,health,status,link_degraded -r
	assert_output "$(printf '%s\n' \
		'0000:1a:00.0 link_degraded warn 0000:18:00.0:16GT/s:x4<16GT/s:x16,0000:1a:00.0:8GT/s:x8<16GT/s:x16' \
		'0000:1b:00.0 link_degraded warn 0000:18:00.0:16GT/s:x4<16GT/s:x16' \
		'0000:1c:00.0 link_degraded warn 0000:18:00.0:16GT/s:x4<16GT/s:x16')"
	# the same link, the disk now at Gen3 of its Gen4: degraded
	echo '8.0 GT/s PCIe' >"$(f 0000:01:00.0 current_link_speed)"
	run -0 dev health -o device,link_degraded -r
	assert_line '0000:01:00.0 0000:01:00.0:8GT/s:x4<16GT/s:x4'
	# its Link Capabilities unreadable (read as 0 after an uncorrectable error): the kernel's
	# max_link_width says 255, PCIE_LNK_WIDTH_UNKNOWN, no width; the link is not judged
	echo '2.5 GT/s PCIe' >"$(f 0000:01:00.0 current_link_speed)"
	echo '2.5 GT/s PCIe' >"$(f 0000:01:00.0 max_link_speed)"
	echo 1 >"$(f 0000:01:00.0 current_link_width)"
	echo 255 >"$(f 0000:01:00.0 max_link_width)"
	run -0 dev health --all -o device,link_degraded -r
	assert_line '0000:01:00.0 -'
}

@test "health: D3cold, an empty hotplug slot, a driver unbound, ports down" {
	echo D3cold >"$(f 0000:1a:00.0 power_state)"
	mkdir -p "$T/sys/bus/pci/slots/7"
	echo 0000:1b:00 >"$T/sys/bus/pci/slots/7/address"
	echo 0 >"$T/sys/bus/pci/slots/7/adapter"
	echo 1 >"$T/sys/bus/pci/slots/7/power"
	rm "$(f 0000:3d:00.0 driver)"
	# ib0 up without carrier; the second HCA's port not active
	echo 0x1003 >"$(f 0000:1c:00.0 net/ib0/flags)"
	echo 0 >"$(f 0000:1c:00.0 net/ib0/carrier)"
	echo down >"$(f 0000:1c:00.0 net/ib0/operstate)"
	echo '1: DOWN' >"$(f 0000:3f:00.0 infiniband/mlx5_1/ports/1/state)"
	# an interface that is down on purpose (IFF_UP clear) is no fault
	echo 0x1002 >"$(f 0000:9c:00.0 net/ib2/flags)"
	echo 0 >"$(f 0000:9c:00.0 net/ib2/carrier)"
	# a virtio-net function: its interface is its virtio0 child's, found through sys/class/net
	fx_dev "$T" pci0000:00 0000:00:05.0 0x020000 0x1af4 0x1041 numa=0 driver=virtio-pci
	mkdir -p "$(f 0000:00:05.0 virtio0/net/eth1)" "$T/sys/class/net"
	ln -s "../../bus/pci/devices/0000:00:05.0/virtio0/net/eth1" "$T/sys/class/net/eth1"
	echo 0x1003 >"$T/sys/class/net/eth1/flags"
	echo 0 >"$T/sys/class/net/eth1/carrier"
	run -1 dev health -o device,health,status,power_state,slot,ports_down -r
	assert_output "$(printf '%s\n' \
		'0000:00:05.0 port_down unhealthy - - eth1' \
		'0000:1a:00.0 d3cold warn D3cold - -' \
		'0000:1b:00.0 slot_empty unhealthy - 7 -' \
		'0000:1c:00.0 port_down unhealthy - - ib0' \
		'0000:3d:00.0 no_driver warn - - -' \
		'0000:3f:00.0 ib_port_down unhealthy - - mlx5_1/1')"
}

@test "health: NVMe SMART critical warning and media errors" {
	smart_log 0 0
	run -0 dev health --all -o device,health,nvme_critical_warning,media_errors -r
	assert_line '0000:01:00.0 ok 0x00 0'
	smart_log 0x04 2
	run -1 dev health -o device,health,status,nvme_critical_warning,media_errors -r
	assert_output '0000:01:00.0 nvme_critical_warning,nvme_media_errors unhealthy 0x04 2'
}

# kmsg RECORD...: the kernel log's records, as /dev/kmsg gives them, in the snapshot.
kmsg() { mkdir -p "$T/dev"; printf '%s\n' "$@" >"$T/dev/kmsg"; }

@test "health: NVIDIA XIDs from the kernel log, the fatal ones unhealthy" {
	kmsg '6,100,5000000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15' \
		'4,101,6000000,-;NVRM: Xid (PCI:0000:1a:00): 79, pid=1234, name=python3, GPU has fallen off the bus.' \
		' SUBSYSTEM=pci' ' DEVICE=+pci:0000:1a:00.0' \
		'4,102,7000000,-;NVRM: Xid (PCI:0000:1b:00): 13, pid=55, name=app, Graphics Exception' \
		'4,103,7100000,-;NVRM: Xid (PCI:0000:1b:00): 94, pid=55, name=app, Contained: SM (0x1)' \
		'4,104,7200000,-;NVRM: Xid (PCI:3d:00.0): 48, An uncorrectable double bit error' \
		'4,105,7300000,-;NVRM: Xid (PCI:0000:1c:00): 79, not a GPU of NVIDIA' \
		'4,106,7400000,-;xNVRM: Xid (PCI:0000:3e:00) 79'
	run -1 dev health -o device,health,status,gpu_xids -r
	assert_output "$(printf '%s\n' '0000:1a:00.0 gpu_xid unhealthy 79' \
		'0000:1b:00.0 gpu_xid warn 13,94' '0000:3d:00.0 gpu_xid unhealthy 48')"
	# the other GPUs: none seen; devices of other vendors: not asked
	run -1 dev health --all -o device,gpu_xids
	assert_line 'device=0000:3e:00.0 gpu_xids=""'
	assert_line 'device=0000:1c:00.0 gpu_xids=-'
	# the policy names the XIDs that make a GPU unhealthy; the rest of gpu_xid then is ok
	mkdir -p "$RM_CONFIG_DIR"
	echo 'gpu_xid unhealthy xid=13,1023' >"$RM_CONFIG_DIR/devices-health.conf"
	run -1 dev health -o device,health,status -r
	assert_output '0000:1b:00.0 gpu_xid unhealthy'
	# the exports see it
	run -0 dev export scontrol --node n1
	assert_output --partial 'gpu_xid'
	for bad in xid=1024 xid=13, xid=-1 xid=; do
		echo "gpu_xid warn $bad" >"$RM_CONFIG_DIR/devices-health.conf"
		usage_error "$RM_CONFIG_DIR/devices-health.conf:1:18: invalid XID list: '${bad#xid=}' (numbers from 0 to 1023, comma separated)" \
			dev health
	done
	echo 'aer_fatal warn xid=79' >"$RM_CONFIG_DIR/devices-health.conf"
	usage_error "$RM_CONFIG_DIR/devices-health.conf:1:16: xid= is for gpu_xid, not aer_fatal" dev health
}

@test "health: the kernel log's records are read to its end, none is waited for" {
	# more than a read's worth of records, none with an end of line at a read's end
	local i recs=()
	for i in $(seq 1 400); do recs+=("6,$i,$i,-;usb 1-1: a line of the log that is about forty-five chars"); done
	kmsg "${recs[@]}" '4,401,401,-;NVRM: Xid (PCI:0000:ba:00): 119, Timeout after 6s of waiting for RPC response from GPU0 GSP!'
	run -1 timeout 10 rm-devices --sysroot "$T" health -o device,gpu_xids -r
	assert_output '0000:ba:00.0 119'
	# no log to read: unknown, not none
	rm "$T/dev/kmsg"
	run -0 dev health --all -o device,gpu_xids -r
	assert_line '0000:ba:00.0 -'
}

@test "health: the policy file decides the levels; bad files are refused" {
	printf 'BadTLP 1\nTOTAL_ERR_COR 120\n' >"$(f 0000:1a:00.0 aer_dev_correctable)"
	echo D3cold >"$(f 0000:1b:00.0 power_state)"
	mkdir -p "$RM_CONFIG_DIR"
	printf '%s\n' '# a fleet that drains on many corrected errors' \
		'aer_correctable warn threshold=10' 'aer_correctable unhealthy threshold=100' \
		'd3cold ignore' >"$RM_CONFIG_DIR/devices-health.conf"
	run -1 dev health -o device,health,status -r
	assert_output '0000:1a:00.0 aer_correctable unhealthy'
	# --policy names another file; a rate needs two readings
	printf 'aer_correctable unhealthy rate=5\n' >"$BATS_TEST_TMPDIR/p.conf"
	run -0 dev health --policy "$BATS_TEST_TMPDIR/p.conf" -o device,health,status -r
	assert_output '0000:1b:00.0 d3cold warn'
	printf 'aer_fatal sometimes\n' >"$BATS_TEST_TMPDIR/bad.conf"
	usage_error "$BATS_TEST_TMPDIR/bad.conf:1:11: unknown level: 'sometimes' (unhealthy, warn, ignore)" \
		dev health --policy "$BATS_TEST_TMPDIR/bad.conf"
	printf 'aer_fatl unhealthy\n' >"$BATS_TEST_TMPDIR/bad.conf"
	usage_error "$BATS_TEST_TMPDIR/bad.conf:1:1: unknown condition: 'aer_fatl' (see rm-devices(1), HEALTH)" \
		dev health --policy "$BATS_TEST_TMPDIR/bad.conf"
	printf 'd3cold warn threshold=2\n' >"$BATS_TEST_TMPDIR/bad.conf"
	usage_error "$BATS_TEST_TMPDIR/bad.conf:1:13: d3cold counts nothing: no threshold" \
		dev health --policy "$BATS_TEST_TMPDIR/bad.conf"
	printf 'aer_fatal warn rate=-1\n' >"$BATS_TEST_TMPDIR/bad.conf"
	usage_error "$BATS_TEST_TMPDIR/bad.conf:1:21: invalid number: '-1' (a non-negative number)" \
		dev health --policy "$BATS_TEST_TMPDIR/bad.conf"
	usage_error "cannot read $BATS_TEST_TMPDIR/none.conf: No such file or directory" \
		dev health --policy "$BATS_TEST_TMPDIR/none.conf"
}

@test "health --interval: the rates between two readings, and a rule on the rate" {
	local file
	file=$(f 0000:1a:00.0 aer_dev_correctable)
	printf 'TOTAL_ERR_COR 10\n' >"$file"
	printf 'aer_correctable unhealthy rate=100\n' >"$BATS_TEST_TMPDIR/p.conf"
	( sleep 0.3; printf 'TOTAL_ERR_COR 40\n' >"$file" ) &
	run -1 dev health --policy "$BATS_TEST_TMPDIR/p.conf" --interval 1 \
		-o device,health,status,aer_correctable,aer_correctable_rate -r
	wait
	# 30 more in about a second: about 1800 a minute
	[[ $output =~ ^0000:1a:00.0\ aer_correctable\ unhealthy\ 40\ 1[5-8][0-9][0-9]\.[0-9]$ ]]
}

@test "health --watch: a record when a device's health changes, the exit status of the last reading" {
	local d
	( sleep 0.5; printf 'TOTAL_ERR_FATAL 1\n' >"$(f 0000:1a:00.0 aer_dev_fatal)"
	  rm "$(f 0000:1b:00.0 driver)"
	  d=$(readlink -f "$(f 0000:bc:00.0 .)"); rm "$T/sys/bus/pci/devices/0000:bc:00.0"; rm -r "$d"
	  sleep 1; printf 'TOTAL_ERR_FATAL 1\n' >"$(f 0000:9a:00.0 aer_dev_fatal)" ) &
	run -1 dev health --watch --interval 1 --count 3 -o device,health,status,driver,expected -r
	wait
	# the first reading has nothing to say; each change once, the unchanged not again
	assert_output "$(printf '%s\n' \
		'0000:1a:00.0 aer_fatal unhealthy nvidia nvidia' \
		'0000:1b:00.0 unbound unhealthy - nvidia' \
		'0000:bc:00.0 gone unhealthy - mlx5_core' \
		'0000:9a:00.0 aer_fatal unhealthy nvidia nvidia')"
	# repaired: the device back to ok is a record too, and the exit status follows; a device
	# without a driver at the first reading only warns
	printf 'TOTAL_ERR_FATAL 0\n' >"$(f 0000:9a:00.0 aer_dev_fatal)"
	( sleep 0.5; printf 'TOTAL_ERR_FATAL 0\n' >"$(f 0000:1a:00.0 aer_dev_fatal)" ) &
	run -0 dev health --watch --interval 1 --count 2 -o device,health,status -r
	wait
	assert_output "$(printf '%s\n' '0000:1a:00.0 aer_fatal unhealthy' '0000:1b:00.0 no_driver warn' \
		'0000:1a:00.0 ok ok')"
}

@test "health --watch: each reading reaches a file as it is made, not at exit" {
	local out=$BATS_TEST_TMPDIR/watch pid i seen=''
	printf 'TOTAL_ERR_FATAL 1\n' >"$(f 0000:1a:00.0 aer_dev_fatal)"
	# the program itself in the background (not the function dev), for kill to end it
	rm-devices --sysroot "$T" health --watch --interval 10 -o device,health -r >"$out" &
	pid=$!
	for i in $(seq 50); do
		seen=$(cat "$out")
		[ -n "$seen" ] && break
		sleep 0.1
	done
	kill "$pid"
	wait "$pid" || true
	assert_equal "$seen" "0000:1a:00.0 aer_fatal"
}

@test "health: options and operands refused" {
	usage_error "invalid --interval: '0' (seconds from 0.01 to 86400, or a duration such as 500ms)" \
		dev health --interval 0
	usage_error "invalid --count: '0' (1 to 1000000)" dev health --watch --count 0
	usage_error "--count is for --watch" dev health --count 2
	run -0 dev health --interval 50ms
}

@test "export: unhealthy devices tainted in ResourceSlices, counted in NFD labels, out of gres.conf, drained in Slurm" {
	printf 'TOTAL_ERR_NONFATAL 1\n' >"$(f 0000:1b:00.0 aer_dev_nonfatal)"
	echo D3cold >"$(f 0000:1a:00.0 power_state)"
	run -0 dev export resourceslice --driver gpu.example.com --node-name n1
	printf '%s\n' "$output" | python3 "$RM_SRCDIR/tests/schema-check.py" "$SCHEMA"
	assert_equal "$(grep -c 'taints:' <<<"$output")" 1
	assert_output --partial "$(printf '%s\n' '  - name: gpu-0000-1b-00-0' )"
	assert_output --partial "$(printf '%s\n' '    taints:' '    - key: gpu.example.com/unhealthy' \
		'      value: "aer_nonfatal"' '      effect: NoSchedule' '  - name: ib-0000-1c-00-0')"
	run -0 dev export nfd
	assert_line 'feature.node.kubernetes.io/rmtools-health.unhealthy=1'
	assert_line 'feature.node.kubernetes.io/rmtools-health.warn=1'
	assert_line 'feature.node.kubernetes.io/rmtools-gpu.unhealthy=1'
	run -0 dev export gres
	assert_line '# left out: 0000:1b:00.0, unhealthy: aer_nonfatal'
	assert_equal "$(grep -c '^Name=gpu' <<<"$output")" 7
	run -0 dev export scontrol --node-name n1
	assert_output "scontrol update NodeName=n1 State=DRAIN Reason='rm-devices: gpu 0000:1b:00.0 aer_nonfatal'"
	# healthy: nothing to drain, and no taint
	printf 'TOTAL_ERR_NONFATAL 0\n' >"$(f 0000:1b:00.0 aer_dev_nonfatal)"
	run -0 dev export scontrol --node-name n1
	assert_output ''
	run -0 dev export resourceslice --driver gpu.example.com --node-name n1
	refute_output --partial 'taints:'
	usage_error "--driver is for resourceslice" dev export scontrol --driver a.b
}

@test "export resourceslice: 64 devices a slice when one is tainted" {
	local i
	# 70 NVMe drives below one root port, one with a critical warning
	for i in $(seq 0 69); do
		fx_dev "$T" pci0000:00/0000:00:1d.0 "$(printf '0000:%02x:00.0' $((0x40 + i)))" 0x010802 \
			0x144d 0xa80a numa=0 driver=nvme
	done
	printf 'TOTAL_ERR_FATAL 2\n' >"$(f 0000:45:00.0 aer_dev_fatal)"
	run -0 dev export resourceslice --type nvme --driver nvme.example.com --node-name n1
	printf '%s\n' "$output" | python3 "$RM_SRCDIR/tests/schema-check.py" "$SCHEMA"
	assert_line '# rm-devices export resourceslice: pool n1, slice 2 of 2'
}

@test "list: the owners holding an unhealthy device are named on stderr" {
	run -0 dev alloc --type gpu --count 2 --owner train
	run -0 --separate-stderr dev list -o device -r
	assert_equal "$stderr" ''
	printf 'TOTAL_ERR_FATAL 1\n' >"$(f 0000:1b:00.0 aer_dev_fatal)"
	printf 'TOTAL_ERR_FATAL 1\n' >"$(f 0000:3d:00.0 aer_dev_fatal)"
	run -0 --separate-stderr dev list -o device -r
	assert_equal "${#lines[@]}" 13
	assert_equal "$stderr" "rm-devices: warning: device 0000:1b:00.0 of owner 'train' is unhealthy: aer_fatal (see rm-devices health)"
}
