#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-devices on a real kernel: an NVMe controller behind a pxb-pcie expander on NUMA node 1, and
# (numa-6.12) two virtio-net functions on root ports of pcie.0: nic1 with AER on, nic2 in a
# hotplug slot. rm-devices health --watch sees faults the guest's kernel reports: AER errors
# injected by QEMU (pcie_aer_inject_error) and by the kernel's aer_inject, an NVMe SMART critical
# warning set in QEMU, a driver unbound, a device unplugged. The tests run in this order: the AER
# counters and the unplug last until the guest powers off, and QEMU's error comes before
# aer_inject's, which simulates the AER status registers of nic1 and its root port from then on
# (until the module is unloaded).
load helper

INTERVAL=2 # seconds between the readings of --watch
FIELDS=device,health,status,driver,expected,aer_correctable,aer_nonfatal,aer_errors,root_port,root_aer_nonfatal,link_degraded,slot,nvme_critical_warning,time,ports_down

setup_file() {
	export DEVICES_T0=$SECONDS
}

teardown_file() {
	echo "# devices.bats: $((SECONDS - DEVICES_T0)) s" >&3
}

teardown() {
	[ -n "${WATCH:-}" ] && { kill "$WATCH"; wait "$WATCH" || true; }
	return 0
}

# virtio_net AER|SLOT: the address of nic1 (AER on) or nic2 (no AER: the one in a slot); not
# nic3, the multiqueue one of quiet.bats
virtio_net() {
	local d q
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/class")" = 0x020000 ] || continue
		for q in "$d"/virtio*/net/*/queues/tx-1; do [ -e "$q" ] && continue 2; done
		if [ -e "$d/aer_dev_nonfatal" ]; then [ "$1" = AER ]; else [ "$1" = SLOT ]; fi &&
			basename "$d"
	done
}

# nvme_device: the NVMe controller's address
nvme_device() {
	basename "$(readlink -f /sys/class/nvme/nvme0/device)"
}

# needs_faults: skip the test on shapes without the fault devices (tests/vm/lab.sh shape_devices)
needs_faults() {
	[ -n "$(virtio_net AER)" ] && [ -n "$(virtio_net SLOT)" ] ||
		skip "this shape has no virtio-net functions to fault (numa-6.12 has)"
}

# watch_start: rm-devices health --watch --all in the background, its records in $W; returns
# once its first reading (a record for every device) is there.
watch_start() {
	W=$BATS_TEST_TMPDIR/watch
	rm-devices health --watch --all --interval "$INTERVAL" -o "$FIELDS" >"$W" 2>"$W.err" &
	WATCH=$!
	wait_until grep -q "^device=$(nvme_device) " "$W" || fail "no first reading: $(cat "$W.err")"
	T0=$(date +%s)
}

# watch_fault DEVICE: wait for the record of DEVICE's change after the first reading (3 periods
# at most), in $output; fails unless its reading came within one period (and the reading's own
# time) of the fault, at $T0.
watch_fault() {
	local i late
	for i in $(seq $((INTERVAL * 15))); do
		output=$(grep "^device=$1 " "$W" | sed 1d | head -n 1)
		[ -n "$output" ] && break
		sleep 0.2
	done
	[ -n "$output" ] || fail "no change of $1 in $((INTERVAL * 3)) s: $(cat "$W" "$W.err")"
	late=$(( $(field time) - T0 ))
	echo "# seen $late s after the fault: $output" >&3
	[ "$late" -le $((INTERVAL + 2)) ] || fail "seen $late s after the fault, the period is $INTERVAL s"
}

# stays_healthy DEVICE: DEVICE was ok at the first reading and had no change since
stays_healthy() {
	run grep -c "^device=$1 " "$W"
	assert_output 1
	run grep "^device=$1 " "$W"
	assert_output --partial ' health=ok '
}

# aer_count DEVICE FILE: the TOTAL_ERR_ line of DEVICE's AER counter FILE
aer_count() {
	awk '/^TOTAL_ERR_/ { print $2 }' "/sys/bus/pci/devices/$1/$2"
}

@test "the NVMe controller behind the expander is on node 1, with node 1's CPUs" {
	run -0 rm-devices list --type nvme -o type,driver,numa,cpus,root
	assert_output --regexp '^type=nvme driver=nvme numa=1 cpus=4-7 root=0000:40$'
}

@test "its node is the kernel's numa_node" {
	run -0 rm-devices list --type nvme -o device,numa
	dev=$(field device)
	assert_equal "$(field numa)" "$(cat /sys/bus/pci/devices/$dev/numa_node)"
}

@test "health: the devices of a machine without faults are ok" {
	needs_faults
	run -0 rm-devices health --all -o device,health,status
	assert_line "device=$(nvme_device) health=ok status=ok"
	assert_line "device=$(virtio_net AER) health=ok status=ok"
	assert_line "device=$(virtio_net SLOT) health=ok status=ok"
}

# link_widths DEVICE WHEN: the link fields of DEVICE and its port, on fd 3
link_widths() {
	local f port
	port=$(basename "$(readlink -f "/sys/bus/pci/devices/$1/..")")
	for f in "$1" "$port"; do
		echo "# $2 the error: $f max x$(cat /sys/bus/pci/devices/$f/max_link_width) $(cat /sys/bus/pci/devices/$f/max_link_speed), current x$(cat /sys/bus/pci/devices/$f/current_link_width) $(cat /sys/bus/pci/devices/$f/current_link_speed)" >&3
	done
}

@test "health --watch: an uncorrectable non-fatal error from QEMU makes the device unhealthy" {
	needs_faults
	local dev before
	dev=$(virtio_net AER)
	before=$(aer_count "$dev" aer_dev_nonfatal)
	watch_start
	link_widths "$dev" before
	run -0 host_request pcie_aer_inject_error nic1 COMP_ABORT
	assert_output --partial 'OK id: nic1'
	T0=$(date +%s)
	watch_fault "$dev"
	link_widths "$dev" after
	# its Link Capabilities read as 0 since (max_link_width 255, unknown): no degraded link
	assert_equal "$(field link_degraded)" -
	assert_equal "$(field status)" unhealthy
	[[ $(field health) == *aer_nonfatal* ]] || fail "health=$(field health)"
	assert_equal "$(field aer_nonfatal)" $((before + 1))
	[[ $(field aer_errors) == *CmpltAbrt:1* ]] || fail "aer_errors=$(field aer_errors)"
	assert_equal "$(field root_port)" "$(basename "$(readlink -f "/sys/bus/pci/devices/$dev/..")")"
	[ "$(field root_aer_nonfatal)" -ge 1 ] || fail "root_aer_nonfatal=$(field root_aer_nonfatal)"
	stays_healthy "$(nvme_device)"
	stays_healthy "$(virtio_net SLOT)"
}

@test "health --watch: a correctable error from the kernel's aer_inject is counted, and warns" {
	needs_faults
	[ -c /dev/aer_inject ] || skip "the guest kernel has no aer_inject module (CONFIG_PCIEAER_INJECT)"
	local dev bus slot fn before
	dev=$(virtio_net AER)
	before=$(aer_count "$dev" aer_dev_correctable)
	watch_start
	# struct aer_error_inj (drivers/pci/pcie/aer_inject.c): bus, dev, fn, a pad byte, then
	# uncor_status, cor_status (RxErr, bit 0), header_log[4], domain: 32 bytes in one write
	bus=$((16#${dev:5:2})) slot=$((16#${dev:8:2})) fn=${dev:11:1}
	printf "\\x$(printf %02x "$bus")\\x$(printf %02x "$slot")\\x0$fn\\x00"'\x00\x00\x00\x00\x01\x00\x00\x00' \
		>"$BATS_TEST_TMPDIR/einj"
	head -c 20 /dev/zero >>"$BATS_TEST_TMPDIR/einj"
	dd if="$BATS_TEST_TMPDIR/einj" of=/dev/aer_inject bs=32 count=1 2>/dev/null
	T0=$(date +%s)
	watch_fault "$dev"
	assert_equal "$(field aer_correctable)" $((before + 1))
	[[ $(field health) == *aer_correctable* ]] || fail "health=$(field health)"
	[[ $(field aer_errors) == *RxErr:* ]] || fail "aer_errors=$(field aer_errors)"
	stays_healthy "$(nvme_device)"
	# corrected errors only warn: with the uncorrectable ones of the test before ignored
	printf 'aer_nonfatal ignore\nroot_aer_nonfatal ignore\n' >"$BATS_TEST_TMPDIR/policy"
	run -0 rm-devices health --policy "$BATS_TEST_TMPDIR/policy" -o device,health,status,link_degraded
	echo "# $output" >&3
	assert_line --regexp "^device=$dev health=aer_correctable,root_aer_correctable status=warn "
}

@test "health --watch: an NVMe SMART critical warning makes the controller unhealthy, and the exports follow" {
	needs_faults
	local dev
	dev=$(nvme_device)
	watch_start
	# bit 2: NVM subsystem reliability degraded
	host_request qom-set /machine/peripheral/nvme0 smart_critical_warning 4
	T0=$(date +%s)
	watch_fault "$dev"
	assert_equal "$(field status)" unhealthy
	assert_equal "$(field health)" nvme_critical_warning
	assert_equal "$(field nvme_critical_warning)" 0x04
	stays_healthy "$(virtio_net SLOT)"
	run -0 rm-devices export resourceslice --type nvme --driver nvme.example.com --node-name lab
	assert_output --partial "$(printf '%s\n' '    taints:' '    - key: nvme.example.com/unhealthy' \
		'      value: "nvme_critical_warning"' '      effect: NoSchedule')"
	run -0 rm-devices export gres --type nvme
	assert_line "# left out: $dev, unhealthy: nvme_critical_warning"
	refute_line --partial 'Name=nvme'
	run -0 rm-devices export scontrol --node-name lab
	assert_output --regexp "^scontrol update NodeName=lab State=DRAIN Reason='rm-devices:.* nvme $dev nvme_critical_warning"
	# cleared: the controller is ok again, a record of its own
	host_request qom-set /machine/peripheral/nvme0 smart_critical_warning 0
	wait_until eval '[ "$(grep -c "^device=$dev " "$W")" = 3 ]'
	run grep "^device=$dev " "$W"
	assert_line --index 2 --partial ' health=ok '
	run -0 rm-devices export gres --type nvme
	assert_line --partial "File=/dev/nvme0"
}

@test "health --watch: a driver unbound by hand makes the device unhealthy" {
	needs_faults
	local dev
	dev=$(virtio_net SLOT)
	watch_start
	echo "$dev" >/sys/bus/pci/drivers/virtio-pci/unbind
	T0=$(date +%s)
	watch_fault "$dev"
	echo "$dev" >/sys/bus/pci/drivers/virtio-pci/bind
	assert_equal "$(field health)" unbound
	assert_equal "$(field status)" unhealthy
	assert_equal "$(field expected)" virtio-pci
	stays_healthy "$(nvme_device)"
}

@test "health --watch: a port whose link QEMU takes down (set_link) is unhealthy, then ok again" {
	needs_faults
	local dev ifc i back=
	dev=$(virtio_net SLOT)
	ifc=$(basename "$(echo /sys/bus/pci/devices/"$dev"/virtio*/net/*)")
	ip link set "$ifc" up
	wait_until eval '[ "$(cat /sys/class/net/$ifc/carrier)" = 1 ]' || fail "$ifc has no carrier"
	watch_start
	run -0 host_request set_link nic2 off
	T0=$(date +%s)
	watch_fault "$dev"
	assert_equal "$(cat "/sys/class/net/$ifc/carrier")" 0
	assert_equal "$(field health)" port_down
	assert_equal "$(field status)" unhealthy
	assert_equal "$(field ports_down)" "$ifc"
	run -0 host_request set_link nic2 on
	for i in $(seq $((INTERVAL * 15))); do
		back=$(grep "^device=$dev " "$W" | sed 1,2d | head -n 1)
		[ -n "$back" ] && break
		sleep 0.2
	done
	ip link set "$ifc" down
	[[ $back == *' health=ok status=ok '* ]] || fail "not ok again: $back"
	stays_healthy "$(nvme_device)"
}

@test "health --watch: a device unplugged (device_del) is gone, unhealthy" {
	needs_faults
	local dev
	dev=$(virtio_net SLOT)
	[ -e "/sys/bus/pci/devices/$dev/driver" ] || fail "$dev has no driver"
	watch_start
	host_request device_del nic2
	# the guest's kernel ejects it (ACPI hotplug): the fault is its removal
	wait_until eval '[ ! -e /sys/bus/pci/devices/$dev ]' || fail "$dev is still there"
	T0=$(date +%s)
	watch_fault "$dev"
	assert_equal "$(field status)" unhealthy
	[[ $(field health) == gone* ]] || fail "health=$(field health)"
	assert_equal "$(field expected)" virtio-pci
	stays_healthy "$(nvme_device)"
}
