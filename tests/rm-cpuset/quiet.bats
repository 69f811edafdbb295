#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Quieting CPUs (libcommon/quiet.c) on a tree of plain files standing for /proc and /sys, and
# rm-topo irqs and rm-cpuset noise reading such a tree; tests/vm/quiet.bats is the real kernel.
load ../test_helper

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	tq=$RM_BUILDDIR/tests/unit/test-quiet
	[ -x "$tq" ] || skip "tests/unit/test-quiet is not built (make check builds it)"
	R=$BATS_TEST_TMPDIR/root
	# an 8-CPU machine: IRQ 24 (a NIC on every CPU), 25 (a queue on CPU 6), 26 (on 0-3)
	mkdir -p "$R"/proc/irq/{24,25,26} "$R"/proc/sys/kernel/random "$R"/proc/sys/vm \
		"$R"/sys/devices/virtual/workqueue/writeback
	echo 0-7 >"$R/proc/irq/24/smp_affinity_list"
	echo 6 >"$R/proc/irq/25/smp_affinity_list"
	echo 0-3 >"$R/proc/irq/26/smp_affinity_list"
	echo 1 >"$R/proc/irq/24/node"
	echo 6 >"$R/proc/irq/24/effective_affinity_list"
	echo ff >"$R/sys/devices/virtual/workqueue/cpumask"
	echo ff >"$R/sys/devices/virtual/workqueue/writeback/cpumask"
	echo 1 >"$R/proc/sys/kernel/timer_migration"
	echo 1 >"$R/proc/sys/vm/stat_interval"
	echo 11111111-2222-3333-4444-555555555555 >"$R/proc/sys/kernel/random/boot_id"
	cat >"$R/proc/interrupts" <<-'END'
	           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       
	 24:          5          0          0          0          0          0        100          0  PCI-MSIX-0000:41:00.0    0-edge      eth0
	 25:          0          0          0          0          0          0         42          0  PCI-MSIX-0000:41:00.0    1-edge      eth0-q6
	 26:          1          2          3          4          0          0          0          0  IO-APIC    9-fasteoi   acpi
	LOC:         10         10         10         10         10         10         77         10   Local timer interrupts
	ERR:          0
	END
	before=$(snapshot)
}

# Every value of the tree, "path: value" a line.
snapshot() {
	(cd "$R" && find proc/irq sys proc/sys -type f | sort | while read -r f; do
		echo "$f: $(cat "$f")"; done)
}

@test "quiet: movable IRQs, the workqueue cpumasks and the sysctls leave the quiet CPUs; the journal holds what they were" {
	run -0 "$tq" "$R" 6-7 0-7
	assert_line 'unmovable=""'
	assert_equal "$(cat "$R/proc/irq/24/smp_affinity_list")" 0-5
	assert_equal "$(cat "$R/proc/irq/25/smp_affinity_list")" 0-5 # nothing left: the others
	assert_equal "$(cat "$R/proc/irq/26/smp_affinity_list")" 0-3 # never there: untouched
	assert_equal "$(cat "$R/sys/devices/virtual/workqueue/cpumask")" 3f
	assert_equal "$(cat "$R/sys/devices/virtual/workqueue/writeback/cpumask")" 3f
	assert_equal "$(cat "$R/proc/sys/kernel/timer_migration")" 0
	assert_equal "$(cat "$R/proc/sys/vm/stat_interval")" 10
	run -0 grep -v '^rmtools_state=' "$RM_STATE_DIR/quiet.state"
	assert_golden rm-cpuset quiet-state
	# irqbalance's banned CPUs, for a daemon started without systemd
	assert_equal "$(cat "$R/run/rmtools/irqbalance.env")" IRQBALANCE_BANNED_CPULIST=6-7
}

@test "quiet: the lockup detectors' CPUs and the NICs' RPS and XPS masks leave the quiet CPUs; an empty mask stays empty; the empty set restores them byte for byte" {
	echo 0-7 >"$R/proc/sys/kernel/watchdog_cpumask"
	q=$R/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/queues
	mkdir -p "$q"/rx-{0,1} "$q"/tx-{0,1} "$R/sys/class/net" "$R/sys/devices/virtual/net/lo/queues/rx-0"
	echo ff >"$q/rx-0/rps_cpus"
	echo 00 >"$q/rx-1/rps_cpus"   # RPS off on this queue
	echo 40 >"$q/tx-0/xps_cpus"   # CPU 6 alone: the others take it
	echo 03 >"$q/tx-1/xps_cpus"
	echo 0 >"$R/sys/devices/virtual/net/lo/queues/rx-0/rps_cpus"
	ln -s ../../devices/pci0000:00/0000:00:03.0/virtio0/net/eth0 "$R/sys/class/net/eth0"
	ln -s ../../devices/virtual/net/lo "$R/sys/class/net/lo"
	before=$(snapshot)
	run -0 "$tq" "$R" 6-7 0-7
	assert_equal "$(cat "$R/proc/sys/kernel/watchdog_cpumask")" 0-5
	assert_equal "$(cat "$q/rx-0/rps_cpus")" 3f
	assert_equal "$(cat "$q/rx-1/rps_cpus")" 00
	assert_equal "$(cat "$q/tx-0/xps_cpus")" 3f
	assert_equal "$(cat "$q/tx-1/xps_cpus")" 03
	assert_equal "$(cat "$R/sys/devices/virtual/net/lo/queues/rx-0/rps_cpus")" 0
	run -0 grep -c -e '^file=proc/sys/kernel/watchdog_cpumask was=0-7$' \
		-e '^file=sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/queues/rx-0/rps_cpus was=ff$' \
		-e '^file=sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/queues/tx-0/xps_cpus was=40$' \
		"$RM_STATE_DIR/quiet.state"
	assert_output 3
	run -0 "$tq" "$R" '' 0-7
	assert_equal "$(snapshot)" "$before"
}

@test "quiet: a second sync with more CPUs keeps the first values; the empty set restores everything byte for byte" {
	run -0 "$tq" "$R" 6-7 0-7
	run -0 "$tq" "$R" 4-7 0-7
	assert_equal "$(cat "$R/proc/irq/24/smp_affinity_list")" 0-3
	run -0 grep '^irq=24 ' "$RM_STATE_DIR/quiet.state"
	assert_output 'irq=24 was=0-7'
	run -0 "$tq" "$R" 6-7 0-7
	assert_equal "$(cat "$R/proc/irq/24/smp_affinity_list")" 0-5
	run -0 "$tq" "$R" '' 0-7
	assert_equal "$(snapshot)" "$before"
	run -0 cat "$RM_STATE_DIR/quiet.state"
	assert_output --regexp '^rmtools_state=quiet version=1 records=0 '
	[ ! -e "$R/run/rmtools/irqbalance.env" ]
}

@test "quiet: irqbalance's environment file is not written through a symlinked directory" {
	mkdir -p "$BATS_TEST_TMPDIR/elsewhere/rmtools"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$R/run"
	run "$tq" "$R" 6-7 0-7
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere/rmtools")" ] || fail "written through the link: $output"
	[ -L "$R/run" ]
}

@test "quiet: an IRQ whose affinity cannot be written is reported unmovable, not journaled, and the rest goes on" {
	# a link: the write, which follows none, fails as the kernel's EIO would
	echo 6 >"$R/proc/irq/25/real" && ln -sf real "$R/proc/irq/25/smp_affinity_list"
	run -0 "$tq" "$R" 6-7 0-7
	assert_line unmovable=25
	run -1 grep -c '^irq=25 ' "$RM_STATE_DIR/quiet.state"
	assert_output 0
	run -0 grep '^unmovable=25$' "$RM_STATE_DIR/quiet.state"
	assert_equal "$(cat "$R/proc/irq/24/smp_affinity_list")" 0-5
}

@test "quiet: a sysctl that cannot be written undoes every change and fails" {
	# a link: readable, but the write, which follows none, fails
	mv "$R/proc/sys/vm/stat_interval" "$R/proc/sys/vm/real"
	ln -s real "$R/proc/sys/vm/stat_interval"
	before=$(snapshot)
	run -1 "$tq" "$R" 6-7 0-7
	assert_output --partial "test-quiet: cannot write '10' to /proc/sys/vm/stat_interval"
	assert_equal "$(snapshot)" "$before"
}

@test "quiet: a journal of another boot is dropped: its values belong to that boot" {
	run -0 "$tq" "$R" 6-7 0-7
	echo 99999999-2222-3333-4444-555555555555 >"$R/proc/sys/kernel/random/boot_id"
	echo 0-7 >"$R/proc/irq/24/smp_affinity_list" # the kernel's default again
	echo 1 >"$R/proc/sys/vm/stat_interval"
	echo 0 >"$R/proc/sys/kernel/timer_migration"
	run -0 "$tq" "$R" 6-7 0-7
	run -0 grep '^boot=' "$RM_STATE_DIR/quiet.state"
	assert_output 'boot=99999999-2222-3333-4444-555555555555 cpus=6-7'
	# the old journal said timer_migration was 1; this boot's value is 0, nothing to record
	run -1 grep '^file=proc/sys/kernel/timer_migration ' "$RM_STATE_DIR/quiet.state"
	run -0 grep '^file=proc/sys/vm/stat_interval ' "$RM_STATE_DIR/quiet.state"
	assert_output 'file=proc/sys/vm/stat_interval was=1'
	assert_equal "$(cat "$R/proc/irq/24/smp_affinity_list")" 0-5
}

@test "rm-topo irqs: device, affinity, effective affinity, node and counts per CPU" {
	run -0 rm-topo --sysroot "$R" irqs
	assert_output - <<-'END'
	irq=24 device=eth0 affinity=0-7 effective=6 node=1 count=105 counts=0:5,6:100
	irq=25 device=eth0-q6 affinity=6 effective=- node=- count=42 counts=6:42
	irq=26 device=acpi affinity=0-3 effective=- node=- count=10 counts=0:1,1:2,2:3,3:4
	END
	run -0 rm-topo --sysroot "$R" irqs -o irq,chip,hwirq
	assert_line --index 0 'irq=24 chip=PCI-MSIX-0000:41:00.0 hwirq=0-edge'
	run -2 rm-topo --topology "package:1 pu:2" irqs
}

@test "noise: the owner's CPUs are disturbed by movable IRQs and the workqueues: exit 1" {
	S=$BATS_TEST_TMPDIR/machine
	cp -r "$RM_SRCDIR/tests/snapshots/x86-2s-smt" "$S"
	cp -r "$R/proc/irq" "$R/proc/interrupts" "$S/proc/"
	mkdir -p "$S/sys/devices/virtual" && cp -r "$R/sys/devices/virtual/workqueue" "$S/sys/devices/virtual/"
	run -0 rm-cpuset --sysroot "$S" alloc --from 6-7 --count 2 --owner n -o owner,cpus
	assert_output 'owner=n cpus=6-7'
	run -1 rm-cpuset --sysroot "$S" noise n --window 0
	assert_line 'source=irq/24 kind=irq name=eth0 cpus=6-7 count=0 rate=- movable=yes'
	assert_line 'source=irq/25 kind=irq name=eth0-q6 cpus=6 count=0 rate=- movable=yes'
	refute_line --partial 'source=irq/26 '
	assert_line 'source=workqueue kind=workqueue name=cpumask cpus=6-7 count=- rate=- movable=yes'
	# with the workqueues and IRQs off them: only the IRQ the journal found unmovable stays
	echo 3f >"$S/sys/devices/virtual/workqueue/cpumask"
	echo 0-5 >"$S/proc/irq/24/smp_affinity_list"
	echo 0 >"$S/proc/irq/24/effective_affinity_list"
	printf 'unmovable=25\n' | "$RM_BUILDDIR/tests/unit/test-state" quiet add unmovable 25 >/dev/null 2>&1 ||
		skip "tests/unit/test-state is not built"
	run -0 rm-cpuset --sysroot "$S" noise n --window 0 -o source,movable
	assert_output 'source=irq/25 movable=no'
	run -2 rm-cpuset --sysroot "$S" noise
	run -2 rm-cpuset --sysroot "$S" noise nobody
	run -2 rm-cpuset --sysroot "$S" noise n --window soon
}

# A running irqbalance (pid 4242 in the tree) with its socket, logging into $1.
fake_irqbalance() {
	mkdir -p "$R/proc/4242" "$R/run/irqbalance"
	echo irqbalance >"$R/proc/4242/comm"
	sock=$R/run/irqbalance/irqbalance4242.sock
	[ "${#sock}" -lt 108 ] || fail "the socket's path is too long for sun_path: $sock"
	python3 "$RM_SRCDIR/tests/fake-irqbalance.py" "$sock" "$1" 3>&- &
	FAKE_PID=$!
	wait_for_file "$1.ready"
}

wait_for_file() {
	local i
	for i in $(seq 50); do [ -e "$1" ] && return 0; sleep 0.1; done
	fail "no $1"
}

teardown() {
	[ -z "${FAKE_PID:-}" ] || kill "$FAKE_PID" 2>/dev/null || true
	fakes_cleanup
}

@test "quiet: a running irqbalance is told its banned CPUs through its socket, with credentials, before the IRQs move, and no restart is asked" {
	log=$BATS_TEST_TMPDIR/irqb.log
	fake_irqbalance "$log"
	run -0 "$tq" "$R" 6-7 0-7
	refute_output --partial note:
	run -0 cat "$log"
	assert_output - <<-END
	uid=$(id -u) settings cpus 6-7
	uid=$(id -u) setup
	END
	# the environment file stays for its next start; the isolcpus= CPUs are banned with them
	assert_equal "$(cat "$R/run/rmtools/irqbalance.env")" IRQBALANCE_BANNED_CPULIST=6-7
	mkdir -p "$R/sys/devices/system/cpu" && echo 0 >"$R/sys/devices/system/cpu/isolated"
	: >"$log"
	run -0 "$tq" "$R" 4-7 0-7
	run -0 head -n 1 "$log"
	assert_output "uid=$(id -u) settings cpus 0,4-7"
	# restored: back to what irqbalance bans by itself (the boot-isolated CPU)
	: >"$log"
	run -0 "$tq" "$R" '' 0-7
	run -0 head -n 1 "$log"
	assert_output "uid=$(id -u) settings cpus 0"
	rm "$R/sys/devices/system/cpu/isolated"
	run -0 "$tq" "$R" 6-7 0-7
	: >"$log"
	run -0 "$tq" "$R" '' 0-7
	run -0 head -n 1 "$log"
	assert_output "uid=$(id -u) settings cpus NULL"
}

@test "quiet: an irqbalance without a socket is named for a restart with the environment file" {
	mkdir -p "$R/proc/4242" && echo irqbalance >"$R/proc/4242/comm"
	run -0 "$tq" "$R" 6-7 0-7
	assert_line --partial "note: irqbalance (pid 4242) has no socket"
	assert_line --partial "restart it with the environment in $R/run/rmtools/irqbalance.env"
}

@test "noise --measure: per CPU and cause, by a loop where the kernel has no osnoise tracer; --max-noise and --max-single gate the exit status" {
	S=$BATS_TEST_TMPDIR/machine
	cp -r "$RM_SRCDIR/tests/snapshots/x86-2s-smt" "$S"
	cpus=$(cut -d, -f1 /sys/fs/cgroup/cpuset.cpus.effective 2>/dev/null || echo 0)
	cpu=${cpus%%-*}
	run -0 rm-cpuset --sysroot "$S" --no-cgroups alloc --from "$cpu" --count 1 --owner m
	# every gap above 1 ns is noise: nearly all the time is lost, the limit is passed
	run -1 rm-cpuset --sysroot "$S" --no-cgroups noise m --measure --window 200ms --threshold 1ns --max-noise 1000
	assert_line --regexp "^cpu=$cpu cause=all source=- count=[1-9][0-9]* noise=[1-9][0-9]* share=[0-9.]+ max=[1-9][0-9]* method=loop\$"
	assert_line "cpu=$cpu cause=hw source=- count=- noise=- share=- max=- method=loop"
	assert_line --regexp "^cpu=$cpu cause=thread source=- count=[0-9]+ noise=- share=- max=- method=loop\$"
	# no gap reaches a second: nothing lost, the limits hold
	run -0 rm-cpuset --sysroot "$S" --no-cgroups noise m --measure --window 200ms --threshold 1s --max-noise 0 --max-single 0ns -o cpu,cause,count,noise,max
	assert_line "cpu=$cpu cause=all count=0 noise=0 max=0"
	run -0 rm-cpuset --sysroot "$S" noise m --measure --list-columns
	assert_line --regexp '^column=method type=string '
	run -2 rm-cpuset --sysroot "$S" noise m --max-noise 10
	run -2 rm-cpuset --sysroot "$S" noise m --measure --threshold 0
	run -2 rm-cpuset --sysroot "$S" noise m --measure --max-noise lots
	run -2 rm-cpuset --sysroot "$S" noise m --measure -o cpu,nope
}

@test "noise --measure: by the osnoise tracer in a tracing instance of its own where the kernel has it; the tracer's settings are back and the instance gone after" {
	require_fuse
	S=$BATS_TEST_TMPDIR/machine
	cp -r "$RM_SRCDIR/tests/snapshots/x86-2s-smt" "$S"
	T=$S/sys/kernel/tracing
	mount_fake fake-tracefs.py "$T"
	run -0 rm-cpuset --sysroot "$S" --no-cgroups alloc --from 6-7 --count 2 --owner m
	# per CPU two samples of 100 ms with 25 us of noise each, 12 us at most: 250000 ns per second
	run -0 rm-cpuset --sysroot "$S" --no-cgroups noise m --measure --window 100ms --max-noise 250000 --max-single 12us
	for c in 6 7; do
		assert_line "cpu=$c cause=all source=- count=8 noise=250000 share=0.0250 max=12000 method=osnoise"
		# a cause's time is its events': the samples count the interruptions only
		assert_line "cpu=$c cause=irq source=- count=6 noise=9225 share=0.0009 max=1845 method=osnoise"
		assert_line "cpu=$c cause=softirq source=- count=2 noise=0 share=0.0000 max=0 method=osnoise"
		assert_line "cpu=$c cause=irq source=local_timer:236 count=1 noise=9225 share=0.0009 max=1845 method=osnoise"
	done
	assert_equal "$(cat "$T/osnoise/cpus") $(cat "$T/osnoise/period_us") $(cat "$T/osnoise/runtime_us") $(cat "$T/tracing_thresh")" \
		"0-7 1000000 1000000 0"
	assert_equal "$(ls "$T/instances")" ""
	run -1 rm-cpuset --sysroot "$S" --no-cgroups noise m --measure --window 100ms --max-noise 249999
	run -1 rm-cpuset --sysroot "$S" --no-cgroups noise m --measure --window 100ms --max-single 11us
}

@test "latency class: idle states deeper than --latency disabled, the resume latency limit, governor and minimum frequency on the owner's CPUs only; release restores them; what is missing is named" {
	S=$BATS_TEST_TMPDIR/machine
	cp -r "$RM_SRCDIR/tests/snapshots/x86-2s-smt" "$S"
	mkdir -p "$S/proc/sys/kernel/random"
	echo 11111111-2222-3333-4444-555555555555 >"$S/proc/sys/kernel/random/boot_id"
	for c in 5 6 7; do
		d=$S/sys/devices/system/cpu/cpu$c
		for k in 0 1 2; do
			mkdir -p "$d/cpuidle/state$k"
			echo $((k * k * 10)) >"$d/cpuidle/state$k/latency" # 0, 10, 40 us
			echo 0 >"$d/cpuidle/state$k/disable"
		done
		mkdir -p "$d/power" "$d/cpufreq"
		echo 0 >"$d/power/pm_qos_resume_latency_us"
		echo powersave >"$d/cpufreq/scaling_governor"
		echo 800000 >"$d/cpufreq/scaling_min_freq"
		echo 3000000 >"$d/cpufreq/cpuinfo_max_freq"
	done
	rm -r "$S/sys/devices/system/cpu/cpu7/cpufreq"
	before=$(cd "$S/sys/devices/system/cpu" && grep -r . cpu5 cpu6 cpu7 | sort)
	run -0 rm-cpuset --sysroot "$S" alloc --from 6-7 --count 2 --owner lat --latency 20 --governor performance --min-freq max -o owner,latency,governor,min_freq
	assert_line 'owner=lat latency=20 governor=performance min_freq=max'
	assert_line --partial 'not offered here, left as they are: CPU 7 has no cpufreq'
	d=$S/sys/devices/system/cpu
	assert_equal "$(cat "$d"/cpu6/cpuidle/state{0,1,2}/disable | tr '\n' ' ')" "0 0 1 "
	assert_equal "$(cat "$d"/cpu7/cpuidle/state2/disable)" 1
	assert_equal "$(cat "$d/cpu6/power/pm_qos_resume_latency_us")" 20
	assert_equal "$(cat "$d/cpu6/cpufreq/scaling_governor")" performance
	assert_equal "$(cat "$d/cpu6/cpufreq/scaling_min_freq")" 3000000
	# other CPUs untouched
	assert_equal "$(cat "$d"/cpu5/cpuidle/state2/disable) $(cat "$d/cpu5/cpufreq/scaling_governor")" "0 powersave"
	run -0 rm-cpuset --sysroot "$S" list -o owner,latency
	assert_output 'owner=lat latency=20'
	run -0 rm-cpuset --sysroot "$S" boot-plan -o latency
	assert_output 'latency="lat:6-7:latency=20,governor=performance,min_freq=max"'
	run -0 rm-cpuset --sysroot "$S" release lat
	run -0 rm-cpuset --sysroot "$S" boot-plan -o latency
	assert_output 'latency=""'
	assert_equal "$(cd "$d" && grep -r . cpu5 cpu6 cpu7 | sort)" "$before"
	# 0: polling only, "n/a" as the kernel writes it
	run -0 rm-cpuset --sysroot "$S" alloc --from 6-7 --count 2 --owner poll --latency 0
	assert_equal "$(cat "$d/cpu6/power/pm_qos_resume_latency_us")" n/a
	assert_equal "$(cat "$d"/cpu6/cpuidle/state{1,2}/disable | tr '\n' ' ')" "1 1 "
	run -0 rm-cpuset --sysroot "$S" release poll
	assert_equal "$(cd "$d" && grep -r . cpu5 cpu6 cpu7 | sort)" "$before"
	run -2 rm-cpuset --sysroot "$S" alloc --count 1 --owner bad --latency soon
	run -2 rm-cpuset --sysroot "$S" alloc --count 1 --owner bad --min-freq fast
}

@test "run --count --latency, --governor, --min-freq: the class is the owner's while the command runs and gone with it; without --count it is refused" {
	# --no-cgroups: recorded, not applied (tests/vm/quiet.bats applies it on a real kernel)
	run -0 rm-cpuset --no-cgroups run --count 1 --latency 20 --governor performance --min-freq max -- \
		rm-cpuset list -o latency,governor,min_freq
	assert_output 'latency=20 governor=performance min_freq=max'
	run -0 rm-cpuset list
	assert_output ''
	run -2 rm-cpuset --no-cgroups run --owner x --latency 5 -- true
	assert_output --partial 'are for a new allocation (--count N)'
	run -2 rm-cpuset --no-cgroups run --shared --governor performance -- true
	run -2 rm-cpuset --no-cgroups run --count 1 --latency soon -- true
}

@test "boot-plan: the kernel command line for the CPUs outside the reservation, skew_tick=1 with it; what the running kernel has of it" {
	S=$BATS_TEST_TMPDIR/machine
	cp -r "$RM_SRCDIR/tests/snapshots/x86-2s-smt" "$S"
	run -0 rm-cpuset --sysroot "$S" reserve 0-1
	echo 'BOOT_IMAGE=/vmlinuz isolcpus=managed_irq,2-7 nohz_full=2-7 rcu_nocbs=2-7 irqaffinity=0-1 quiet' >"$S/proc/cmdline"
	run -0 rm-cpuset --sysroot "$S" boot-plan -o cmdline,running,reboot
	assert_output 'cmdline="isolcpus=managed_irq,2-7 nohz_full=2-7 rcu_nocbs=2-7 irqaffinity=0-1 skew_tick=1" running="isolcpus=managed_irq,2-7 nohz_full=2-7 rcu_nocbs=2-7 irqaffinity=0-1" reboot=yes'
	sed -i 's/ quiet$/ skew_tick=1/' "$S/proc/cmdline"
	run -0 rm-cpuset --sysroot "$S" boot-plan -o reboot
	assert_output 'reboot=no'
}
