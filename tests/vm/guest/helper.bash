# SPDX-License-Identifier: GPL-2.0-or-later
# Set-up for the lab's tests, inside a guest booted by tests/vm/lab: the tools are in /usr/bin,
# the machine is the guest's own (no --sysroot, no fakes), state in a private directory.
bats_require_minimum_version 1.8.0
bats_load_library bats-support
bats_load_library bats-assert

export LC_ALL=C HOME=$BATS_TEST_TMPDIR RM_STATE_DIR=$BATS_TEST_TMPDIR/state
unset RM_SYSROOT RM_TOPOLOGY RM_CONFIG_DIR RM_CGROUP_ROOT RM_RESCTRL_ROOT
mkdir -p "$RM_STATE_DIR"

# The value of KEY in the first record of $output that has it.
field() {
	printf '%s\n' "$output" | grep -o "\(^\| \)$1=[^ ]*" | head -n 1 | sed "s/^ *$1=//"
}

# The kernel's own view: sysfs_list node/node2/cpulist
sysfs_list() {
	cat "/sys/devices/system/$1"
}

# The record of node N from rm-topo nodes.
node_record() {
	rm-topo nodes | grep "^node=$1 "
}

# in_list N LIST: whether N is in a kernel list such as 0-1,4
in_list() {
	local r
	for r in ${2//,/ }; do
		[ "$1" -ge "${r%-*}" ] && [ "$1" -le "${r#*-}" ] && return 0
	done
	return 1
}

# wait_until CMD...: run CMD every 0.2 s until it succeeds, for 10 s at most.
wait_until() {
	local i
	for i in $(seq 50); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# runs_in DIR NAME: whether a process called NAME is in the cgroup DIR.
runs_in() {
	local pid
	for pid in $(cat "$1/cgroup.procs" 2>/dev/null); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}

# kill_run DIR PID: SIGKILL the rm-cpuset run PID and every process of its owner's cgroup DIR,
# as a crash would, and wait until the cgroup is empty: SIGKILL is delivered, not waited for,
# and gc rightly keeps an owner whose cgroup still has a process.
kill_run() {
	kill -9 $(cat "$1/cgroup.procs") "$2"
	wait "$2" 2>/dev/null || true
	wait_until grep -q '^populated 0' "$1/cgroup.events"
}

# host_request COMMAND...: the host runs COMMAND, one QEMU human monitor command
# ("device_del nic2", "pcie_aer_inject_error nic1 UNSUP"), on this guest's QEMU
# (tests/vm/monitor.py serve, over ttyS2) and prints its output. Fails with the host's message
# when the monitor refused the command, or after 30 s without an answer; skips the test when
# the host serves no requests (no rmlab.host=1 on the kernel command line). Some commands say
# that they failed only in their output (pcie_aer_inject_error): check it.
host_request() {
	local fd line end=$((SECONDS + 30)) rc=2
	grep -qw 'rmlab.host=1' /proc/cmdline || skip "the host does not answer monitor requests (python3 missing there)"
	exec {fd}<>/dev/ttyS2 || return 1
	stty raw -echo <&"$fd"
	# an answer left from a request that timed out is not this one's
	while IFS= read -r -t 0.1 line <&"$fd"; do :; done
	printf '%s\n' "$*" >&"$fd"
	while [ "$rc" = 2 ] && [ "$SECONDS" -lt "$end" ] &&
		IFS= read -r -t "$((end - SECONDS))" line <&"$fd"; do
		case $line in
		'| '*) printf '%s\n' "${line#| }" ;;
		done) rc=0 ;;
		'error '*) echo "host: $* failed: ${line#error }" >&2; rc=1 ;;
		esac
	done
	exec {fd}>&-
	[ "$rc" = 2 ] && { echo "host: no answer to '$*' in 30 s" >&2; rc=1; }
	return "$rc"
}
