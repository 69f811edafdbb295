#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-cpuset alloc --isolate quiets the owner's CPUs on a real kernel: IRQs, workqueues, kernel
# threads and sysctls leave them with NVMe I/O running and Debian's irqbalance daemon started,
# noise says so, and release restores every value byte for byte.
load helper

setup_file() {
	case ${RM_LAB_SHAPE:-} in
	v1-*) ;;
	*isolcpus*|rt-*) export OWNER_CPUS=2-3 OTHER_CPU=0 ;; # 6-7 are isolcpus= there
	*) export OWNER_CPUS=6-7 OTHER_CPU=4 ;;
	esac
}

setup() {
	case ${RM_LAB_SHAPE:-} in
	v1-*) skip "--isolate needs cgroup v2 cpuset partitions; this shape mounts cgroup v1" ;;
	esac
	[ -e /dev/nvme0n1 ] || skip "no NVMe disk in this guest"
	command -v irqbalance >/dev/null || skip "Debian's irqbalance is not in this initramfs (apt-get update on the host)"
	# before 6.7 the isolated partitions' parent is a root partition: CPUs kept for the rest
	[ -e /sys/fs/cgroup/cpuset.cpus.isolated ] || rm-cpuset reserve 0 >/dev/null
}

teardown() {
	[ -n "${DD_PID:-}" ] && kill "$DD_PID" 2>/dev/null
	[ -n "${T_PID:-}" ] && kill "$T_PID" 2>/dev/null
	[ -n "${IRQB_DAEMON:-}" ] && kill "$IRQB_DAEMON" 2>/dev/null
	[ -n "${RPS_WAS:-}" ] && echo "$RPS_WAS" >/sys/class/net/lo/queues/rx-0/rps_cpus
	stop_irqbalance
	rm-cpuset release --all >/dev/null 2>&1 || true
}

# Every value quieting touches, one "path value" line each.
values() {
	local f
	for f in /proc/irq/*/smp_affinity_list /sys/devices/virtual/workqueue/cpumask \
		/sys/devices/virtual/workqueue/*/cpumask /proc/sys/kernel/timer_migration \
		/proc/sys/vm/stat_interval /proc/sys/kernel/watchdog_cpumask \
		/sys/class/net/*/queues/rx-*/rps_cpus /sys/class/net/*/queues/tx-*/xps_cpus; do
		[ -r "$f" ] && echo "$f $(cat "$f" 2>/dev/null)" # lo has no xps_cpus to read
	done
}

# mask_has_owner_cpus FILE...: whether one of the hex CPU masks in FILE (a cpumask,
# rps_cpus, xps_cpus) holds one of the owner's CPUs
mask_has_owner_cpus() {
	local f mask c
	for f in "$@"; do
		mask=$(tr -d ',\n' <"$f")
		for c in $(seq "${OWNER_CPUS%-*}" "${OWNER_CPUS#*-}"); do
			(( (0x$mask >> c) & 1 )) && return 0
		done
	done
	return 1
}

# Whether the unbound workqueues' cpumask holds one of the owner's CPUs.
wq_has_owner_cpus() {
	mask_has_owner_cpus /sys/devices/virtual/workqueue/cpumask
}

start_irqbalance() { # start_irqbalance [ENV-FILE]: the real daemon, as its init script does
	mkdir -p /run/irqbalance
	if [ -n "${1:-}" ]; then
		env $(cat "$1") irqbalance --foreground >/tmp/irqbalance.log 2>&1 3>&- &
	else
		irqbalance --foreground >/tmp/irqbalance.log 2>&1 3>&- &
	fi
	IRQB_PID=$!
	sleep 2
	kill -0 "$IRQB_PID"
}

stop_irqbalance() {
	[ -n "${IRQB_PID:-}" ] && kill "$IRQB_PID" 2>/dev/null && wait "$IRQB_PID" 2>/dev/null
	IRQB_PID=
}

io() { # io [CPU]: NVMe reads in a loop, pinned to CPU when given
	if [ -n "${1:-}" ]; then
		taskset -c "$1" sh -c 'while :; do dd if=/dev/nvme0n1 of=/dev/null bs=4k count=4096 iflag=direct 2>/dev/null; done' 3>&- &
	else
		sh -c 'while :; do dd if=/dev/nvme0n1 of=/dev/null bs=4k count=4096 iflag=direct 2>/dev/null; done' 3>&- &
	fi
	DD_PID=$!
}

# The interrupts the CPUs of $1 took from the IRQs of /proc/irq whose numbers are not in $2
# (a list of unmovable ones), summed.
device_irqs_on() {
	local cpus=$1 skip=" ${2:-} " line name
	awk -v want="$cpus" -v skip="$skip" '
		BEGIN { n = split(want, r, ","); for (i = 1; i <= n; i++) {
			if (split(r[i], ab, "-") == 2) { for (c = ab[1]; c <= ab[2]; c++) on[c] = 1 }
			else on[r[i]] = 1 } }
		NR == 1 { for (i = 1; i <= NF; i++) { sub("CPU", "", $i); col[i] = $i }; next }
		$1 ~ /^[0-9]+:$/ { irq = $1; sub(":", "", irq); if (index(skip, " " irq " ")) next
			for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) if (on[col[i - 1]]) sum += $i }
		END { print sum + 0 }' /proc/interrupts
}

@test "quiet: before --isolate the owner's CPUs take device interrupts and noise exits 1" {
	start_irqbalance
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner plain
	io "${OWNER_CPUS%%[-,]*}"
	a=$(device_irqs_on "$OWNER_CPUS")
	sleep 5
	b=$(device_irqs_on "$OWNER_CPUS")
	echo "# device interrupts on $OWNER_CPUS over 5 s before --isolate: $((b - a))" >&3
	[ "$((b - a))" -gt 0 ]
	run -1 rm-cpuset noise plain --window 1s
	assert_line --regexp '^source=irq/[0-9]+ kind=irq .* movable=yes$'
	# the unbound workqueues may run there (unless the kernel keeps them off at boot)
	if wq_has_owner_cpus; then
		assert_line --regexp '^source=workqueue kind=workqueue name=cpumask cpus=.* movable=yes$'
	fi
}

@test "quiet: after alloc --isolate the owner's CPUs take no interrupt from movable IRQs for 20 s; release restores every value" {
	start_irqbalance
	before=$(values)
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner quiet --isolate
	printf '%s\n' "$output" "$stderr" >&3
	assert_line --partial "owner=quiet cpus=$OWNER_CPUS"
	# irqbalance reads its banned CPUs at start: restart it as rm-cpuset said
	env=/run/rmtools/irqbalance.env
	run -0 cat "$env"
	assert_output --regexp "^IRQBALANCE_BANNED_CPULIST=.*"
	# right after: on PREEMPT_RT the IRQ threads follow their IRQ's new affinity only when they
	# next run, so what is left now is only shown; the check is after the 20 s below
	run rm-cpuset noise quiet --window 0
	printf '# just after alloc: %s\n' "${lines[@]}" | grep 'movable=yes' >&3 || true
	stop_irqbalance
	start_irqbalance "$env"
	# the old irqbalance may have put an IRQ back before it stopped: gc quiets them again
	run -0 rm-cpuset gc
	# every movable IRQ left the CPUs; the workqueue mask and the sysctls changed
	unmovable=$(sed -n 's/^unmovable=\([0-9]*\).*/\1/p' "$RM_STATE_DIR/quiet.state" | tr '\n' ' ')
	for f in /proc/irq/*/smp_affinity_list; do
		n=${f#/proc/irq/}; n=${n%%/*}
		case " $unmovable " in *" $n "*) continue ;; esac
		aff=$(cat "$f")
		run rm-topo calc --cpus "$aff" --and "$OWNER_CPUS" 2>/dev/null
		for c in ${OWNER_CPUS/-/ }; do ! in_list "$c" "$aff" || fail "IRQ $n still has $aff"; done
	done
	! wq_has_owner_cpus || fail "the workqueue cpumask $(cat /sys/devices/virtual/workqueue/cpumask) holds $OWNER_CPUS"
	# the value measured better on 6.1, 6.12 and 6.12-rt (the figures test below)
	assert_equal "$(cat /proc/sys/kernel/timer_migration)" 0
	assert_equal "$(cat /proc/sys/vm/stat_interval)" 10
	# 20 s of NVMe I/O from the rest of the system, irqbalance running with the CPUs banned
	io
	a=$(device_irqs_on "$OWNER_CPUS" "$unmovable")
	sleep 20
	b=$(device_irqs_on "$OWNER_CPUS" "$unmovable")
	echo "# interrupts from movable IRQs on $OWNER_CPUS over 20 s after --isolate: $((b - a)) (unmovable IRQs: ${unmovable:-none})" >&3
	assert_equal "$((b - a))" 0
	run -0 rm-cpuset noise quiet --window 2s
	printf '# %s\n' "${lines[@]}" >&3
	refute_line --partial "movable=yes"
	kill "$DD_PID"; DD_PID=
	# release: every value rm-cpuset changed is back, byte for byte (irqbalance is stopped
	# first: it would move any IRQ again among the CPUs it balances)
	stop_irqbalance
	journaled=$(sed -n 's|^irq=\([0-9]*\) was=\(.*\)$|/proc/irq/\1/smp_affinity_list \2|p' "$RM_STATE_DIR/quiet.state")
	[ -n "$journaled" ]
	run -0 rm-cpuset release quiet
	after=$(values)
	while read -r f v; do
		assert_equal "$(cat "$f")" "$v"
	done <<<"$journaled"
	assert_equal "$(printf '%s\n' "$after" | grep -v '^/proc/irq/')" "$(printf '%s\n' "$before" | grep -v '^/proc/irq/')"
	[ ! -e "$env" ]
}

@test "quiet: release restores every IRQ affinity, workqueue cpumask and sysctl byte for byte" {
	before=$(values)
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner bytes --isolate
	[ "$(values)" != "$before" ]
	run -0 rm-cpuset release bytes
	assert_equal "$(values)" "$before"
	run -0 cat "$RM_STATE_DIR/quiet.state"
	assert_output --regexp '^rmtools_state=quiet version=1 records=0 '
}

@test "quiet: kernel threads with movable affinity leave the CPUs; one put back there moves again on gc and returns on release" {
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner kt --isolate
	# none movable is left there (the kernel moves those of the root cgroup with the isolated
	# partition too)
	run -0 rm-cpuset noise kt --window 0
	refute_line --regexp '^source=kthread/.* movable=yes$'
	# kthreadd put back on every CPU by hand: gc finds it and moves it
	taskset -p -c 0-7 2 >/dev/null
	set=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/2/status)
	in_list "${OWNER_CPUS%-*}" "$set" || skip "the kernel keeps kthreadd off the isolated partition ($set)"
	run -0 rm-cpuset gc
	aff=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/2/status)
	for c in ${OWNER_CPUS/-/ }; do ! in_list "$c" "$aff" || fail "kthreadd still has $aff"; done
	run -0 grep "^kthread=2 " "$RM_STATE_DIR/quiet.state"
	assert_output --regexp "was=$set\$"
	run -0 rm-cpuset release kt
	assert_equal "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/2/status)" "$set"
}

@test "quiet: gc after a killed run --isolate restores the values" {
	before=$(values)
	rm-cpuset run --count 2 --from "$OWNER_CPUS" --owner gone --isolate -- sleep 300 >/dev/null 2>&1 3>&- &
	wait_until runs_in /sys/fs/cgroup/rmtools.slice/gone sleep
	[ "$(cat /proc/sys/vm/stat_interval)" = 10 ]
	kill_run /sys/fs/cgroup/rmtools.slice/gone $!
	run -0 rm-cpuset gc
	assert_equal "$(values)" "$before"
}

@test "quiet: boot-plan names the kernel parameters for the isolated owner's CPUs, and its latency class" {
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner plan --isolate --latency 50
	run -0 rm-cpuset boot-plan
	assert_output --regexp "^boot_plan=isolated cpus=$OWNER_CPUS housekeeping=[0-9,-]+ cmdline=\"isolcpus=managed_irq,$OWNER_CPUS nohz_full=$OWNER_CPUS rcu_nocbs=$OWNER_CPUS irqaffinity=[0-9,-]+ skew_tick=1\" running=.* reboot=yes latency=\"plan:$OWNER_CPUS:latency=50\"$"
}

@test "quiet: rm-topo irqs agrees with /proc/irq and /proc/interrupts" {
	run -0 rm-topo irqs -o irq,affinity,effective
	n=$(ls -d /proc/irq/[0-9]* | wc -l)
	assert_equal "${#lines[@]}" "$n"
	for f in /proc/irq/[0-9]*; do
		i=${f#/proc/irq/}
		eff=$(cat "$f/effective_affinity_list" 2>/dev/null || echo -)
		assert_line "irq=$i affinity=$(cat "$f/smp_affinity_list") effective=${eff:-\"\"}"
	done
	run -0 rm-topo irqs
	assert_line --regexp '^irq=[0-9]+ device=nvme0q[0-9]+ affinity=[0-9,-]+ effective=[0-9,-]+ node=1 '
}

# jitter OWNER: rm-bench jitter on the owner's CPUs (in its cgroup) and on a shared CPU.
jitter() {
	rm-cpuset run --owner "$1" -- rm-bench jitter --cpus "$OWNER_CPUS" --duration 5s \
		-o cpu,samples,overruns,median,p99,p999,max
	rm-bench jitter --cpus "$OTHER_CPU" --duration 5s -o cpu,samples,overruns,median,p99,p999,max
}

@test "quiet: rm-bench jitter on the owner's CPUs against a shared CPU, before and after --isolate (figures)" {
	case ${RM_LAB_SHAPE:-} in
	rt-*) ;;
	*) skip "the jitter figures are taken in the PREEMPT_RT shape (rt-6.12)" ;;
	esac
	start_irqbalance
	io
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner jb
	run -0 jitter jb
	printf "# before --isolate: %s\n" "${lines[@]}" >&3
	assert_equal "${#lines[@]}" 3
	run -0 rm-cpuset release jb
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner ja --isolate
	stop_irqbalance
	start_irqbalance /run/rmtools/irqbalance.env
	run -0 jitter ja
	printf "# after --isolate: %s\n" "${lines[@]}" >&3
	assert_equal "${#lines[@]}" 3
}

# measure OWNER LABEL: rm-cpuset noise --measure on the owner's CPUs, its totals as figures.
measure() {
	run rm-cpuset noise "$1" --measure --window 3s --max-noise 1000000000
	if [ "$status" -ne 0 ]; then printf "# $2 (exit $status): %s\n" "${lines[@]}" >&3; fi
	printf "# $2: %s\n" "${lines[@]}" | grep -E 'cause=all|source=(LOC|local_timer)|rm-cpuset' >&3 || true
	assert_success
	for c in ${OWNER_CPUS/-/ }; do
		assert_line --regexp "^cpu=$c cause=all source=- count=[0-9]+ noise=[0-9]+ share=[0-9.]+ max=[0-9]+ method=$METHOD\$"
	done
}

@test "quiet: noise --measure on the owner's CPUs before and after --isolate, and with timer_migration 0 and 1 (figures)" {
	if grep -qw osnoise /sys/kernel/debug/tracing/available_tracers 2>/dev/null ||
	   grep -qw osnoise /sys/kernel/tracing/available_tracers 2>/dev/null; then METHOD=osnoise; else METHOD=loop; fi
	start_irqbalance
	# a CPU this shell may run on (before 6.7 the reservation keeps it to the reserved CPU)
	hk=$(sed -n 's/^Cpus_allowed_list:\t*//p' /proc/self/status)
	hk=${hk%%[-,]*}
	io "$hk"
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner mb
	measure mb "before --isolate"
	run -0 rm-cpuset release mb
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner ma --isolate
	measure ma "after --isolate"
	# housekeeping CPUs arming short timers while the owner's CPUs are busy (the measurement)
	taskset -c "$hk" sh -c 'while :; do sleep 0.01; done' 3>&- &
	T_PID=$!
	for tm in 0 1; do
		echo "$tm" >/proc/sys/kernel/timer_migration
		measure ma "timer_migration=$tm"
	done
	kill "$T_PID"
	# the osnoise tracer's settings are back; its instance is gone
	[ "$METHOD" = loop ] || [ -z "$(ls /sys/kernel/debug/tracing/instances/ 2>/dev/null)" ]
	run -1 rm-cpuset noise ma --measure --window 1s --threshold 1ns --max-noise 1
}

@test "quiet: irqbalance started as Debian's init script starts it takes the banned CPUs through its socket: no movable IRQ reaches them, its restart with the environment file included" {
	mkdir -p /run/irqbalance
	# the init script: start-stop-daemon --start --exec /usr/sbin/irqbalance -- --pid=/run/irqbalance.pid
	irqbalance --pid=/run/irqbalance.pid 3>&- </dev/null >/dev/null 2>&1
	wait_until test -s /run/irqbalance.pid
	IRQB_DAEMON=$(cat /run/irqbalance.pid)
	wait_until test -S "/run/irqbalance/irqbalance$IRQB_DAEMON.sock"
	io
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner sock --isolate
	refute_output --partial "restart"
	unmovable=$(sed -n 's/^unmovable=\([0-9]*\).*/\1/p' "$RM_STATE_DIR/quiet.state" | tr '\n' ' ')
	a=$(device_irqs_on "$OWNER_CPUS" "$unmovable")
	sleep 12 # longer than irqbalance's 10 s pass
	# restarted as the admin would after reading the note: with the environment file
	kill "$IRQB_DAEMON"; wait_until sh -c "! kill -0 $IRQB_DAEMON 2>/dev/null"
	env $(cat /run/rmtools/irqbalance.env) irqbalance --pid=/run/irqbalance.pid 3>&- </dev/null >/dev/null 2>&1
	sleep 12
	IRQB_DAEMON=$(cat /run/irqbalance.pid)
	b=$(device_irqs_on "$OWNER_CPUS" "$unmovable")
	echo "# interrupts from movable IRQs on $OWNER_CPUS over 24 s, irqbalance told by its socket and restarted: $((b - a))" >&3
	assert_equal "$((b - a))" 0
	run -0 rm-cpuset release sock
	kill "$IRQB_DAEMON"
}

@test "quiet: the lockup detectors (watchdog_cpumask) and RPS (lo's rps_cpus, set to every CPU) leave the owner's CPUs and come back on release" {
	rps=/sys/class/net/lo/queues/rx-0/rps_cpus
	# Debian's kernels have both (CONFIG_LOCKUP_DETECTOR, CONFIG_RPS)
	[ -w /proc/sys/kernel/watchdog_cpumask ] && [ -w "$rps" ]
	RPS_WAS=$(cat "$rps")
	printf '%x' $(( (1 << $(nproc --all)) - 1 )) >"$rps"
	before=$(values)
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner wd --isolate
	wd=$(cat /proc/sys/kernel/watchdog_cpumask)
	mask=$(tr -d ',\n' <"$rps")
	echo "# watchdog_cpumask $wd, lo rx-0 rps_cpus $mask with $OWNER_CPUS isolated" >&3
	[ -n "$wd" ] && [ $((0x$mask)) -ne 0 ]
	for c in ${OWNER_CPUS/-/ }; do
		! in_list "$c" "$wd" || fail "watchdog_cpumask $wd holds CPU $c"
	done
	! mask_has_owner_cpus "$rps" || fail "rps_cpus $mask holds one of $OWNER_CPUS"
	run -0 rm-cpuset release wd
	assert_equal "$(values)" "$before"
}

@test "quiet: a multiqueue NIC's XPS masks (virtio_net gives each queue its CPUs) leave the owner's CPUs and come back on release" {
	local nic f xps
	for f in /sys/class/net/*/queues/tx-3; do [ -d "$f" ] && nic=${f#/sys/class/net/} nic=${nic%%/*}; done
	[ -n "${nic:-}" ] || skip "no multiqueue NIC in this shape (numa-6.12 as root: QEMU's tap back end)"
	xps=(/sys/class/net/"$nic"/queues/tx-*/xps_cpus)
	before=$(values)
	# the owner's CPUs are some queue's own before
	mask_has_owner_cpus "${xps[@]}" || fail "no XPS mask of $nic holds $OWNER_CPUS: $(cat "${xps[@]}" | paste -sd' ')"
	run -0 rm-cpuset alloc --from "$OWNER_CPUS" --count 2 --owner xps --isolate
	echo "# $nic XPS with $OWNER_CPUS isolated: $(cat "${xps[@]}" | paste -sd' ')" >&3
	! mask_has_owner_cpus "${xps[@]}" || fail "an XPS mask of $nic holds one of $OWNER_CPUS: $(cat "${xps[@]}" | paste -sd' ')"
	run -0 rm-cpuset release xps
	assert_equal "$(values)" "$before"
}

@test "latency class: run --count --latency 0 --governor: the command's CPUs poll and have no resume latency, what the VM lacks is named; all is back when it ends" {
	d=/sys/devices/system/cpu
	a=${OWNER_CPUS%-*} b=${OWNER_CPUS#*-}
	state() { grep -r . $d/cpu*/power/pm_qos_resume_latency_us $d/cpu*/cpuidle/state*/disable \
		$d/cpu*/cpufreq/scaling_governor 2>/dev/null || true; } # what the VM lacks is missing
	before=$(state)
	run -0 rm-cpuset run --from "$OWNER_CPUS" --count 2 --latency 0 --governor performance -- \
		cat $d/cpu$a/power/pm_qos_resume_latency_us $d/cpu$b/power/pm_qos_resume_latency_us
	printf '# %s\n' "${lines[@]}" >&3
	assert_equal "$(grep -cx n/a <<<"$output")" 2
	for c in $a $b; do
		[ -e $d/cpu$c/cpufreq ] || assert_line --partial "CPU $c has no cpufreq"
		[ -e $d/cpu$c/cpuidle/state0 ] || assert_line --partial "CPU $c has no cpuidle states"
	done
	assert_equal "$(state)" "$before"
}
