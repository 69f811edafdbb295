#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# NVIDIA GPUs from NVML (memory; health: ECC errors, pages to retire, XID events), on the live
# machine only and only when asked for: a fake libnvidia-ml.so.1 (tests/unit/fake-nvml.c)
# answers, and the GPU server tree's sys is mounted over /sys in a private mount namespace so
# that its A100s are this machine's.
load ../test_helper
load fixtures

setup_file() {
	GPU="$BATS_FILE_TMPDIR/gpu" NVML="$BATS_FILE_TMPDIR/nvml" NONVML="$BATS_FILE_TMPDIR/none"
	fx_gpu_server "$GPU"
	mkdir -p "$NVML" "$NONVML"
	cc -Wall -Wextra -shared -fPIC -o "$NVML/libnvidia-ml.so.1" \
		"$RM_SRCDIR/tests/unit/fake-nvml.c"
	export GPU NVML NONVML
}

setup() {
	export LD_LIBRARY_PATH="$NVML" FAKE_NVML_LOG="$BATS_TEST_TMPDIR/nvml.log"
	# the A100s at 1a, 3d, 9a, ba have 40 GiB, those at 1b, 3e, 9b, bb 80 GiB
	local id mem=() g40=$((40 << 30)) g80=$((80 << 30))
	for id in 1A 3D 9A BA; do mem+=("00000000:$id:00.0=$g40"); done
	for id in 1B 3E 9B BB; do mem+=("00000000:$id:00.0=$g80"); done
	FAKE_NVML_MEMORY=$(IFS=,; echo "${mem[*]}")
	export FAKE_NVML_MEMORY
	unset FAKE_NVML_INIT
}

# Skip, visibly, unless this machine can mount the tree over /sys in a mount namespace.
require_live() {
	require_root
	unshare -m --propagation private true 2>/dev/null || skip "no mount namespaces (unshare -m)"
	command -v cc >/dev/null || skip "no C compiler for the fake NVML"
}

# live CMD [ARGS...]: CMD with the GPU server's sys over /sys, in a private mount namespace
# (gone when CMD exits).
live() {
	unshare -m --propagation private sh -c 'mount --bind "$0/sys" /sys && exec "$@"' "$GPU" "$@"
}

# The events the fake NVML logged, one a line; "none" when it was never loaded.
nvml_log() { if [ -e "$FAKE_NVML_LOG" ]; then cat "$FAKE_NVML_LOG"; else echo none; fi; }

@test "list -o device,memory: each NVIDIA GPU's memory from NVML, one init per scan" {
	require_live
	run --separate-stderr live rm-devices list --type gpu -o device,memory
	assert_success
	assert_equal "$stderr" ""
	assert_output "device=0000:1a:00.0 memory=40GiB
device=0000:1b:00.0 memory=80GiB
device=0000:3d:00.0 memory=40GiB
device=0000:3e:00.0 memory=80GiB
device=0000:9a:00.0 memory=40GiB
device=0000:9b:00.0 memory=80GiB
device=0000:ba:00.0 memory=40GiB
device=0000:bb:00.0 memory=80GiB"
	run nvml_log
	assert_equal "$(grep -c '^init$' <<<"$output")" 1
	assert_equal "$(grep -c '^memory ' <<<"$output")" 8
	assert_equal "${lines[0]}" load
	assert_equal "${lines[-2]}" shutdown
	assert_equal "${lines[-1]}" unload
}

@test "list: +memory, --bytes, JSON and show ask NVML too" {
	require_live
	run -0 live rm-devices list --type gpu -o +memory
	assert_line --partial "device=0000:1b:00.0 type=gpu name=gpu1 "
	assert_line --regexp '^device=0000:1b:00\.0 .* memory=80GiB$'
	run -0 live rm-devices list --type gpu -o device,memory --bytes
	assert_line "device=0000:9a:00.0 memory=$((40 << 30))"
	run -0 live rm-devices list --type gpu -o device,memory -J
	assert_output --partial "\"device\": \"0000:bb:00.0\",
         \"memory\": $((80 << 30))"
	run -0 live rm-devices show 3e:00.0
	assert_output --regexp ' memory=80GiB '
}

@test "the default listing and -o without memory do not load NVML" {
	require_live
	run -0 live rm-devices list
	run -0 live rm-devices list -o device,driver,bar
	run -0 live rm-devices topo
	run -0 nvml_log
	assert_output none
}

@test "rm-class match: a selector on memory asks NVML, others do not" {
	require_live
	run --separate-stderr live rm-class match --selector 'memory >= 80GiB' </dev/null
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(cut -d' ' -f1 <<<"$output" | tr '\n' ' ')" \
		"device=0000:1b:00.0 device=0000:3e:00.0 device=0000:9b:00.0 device=0000:bb:00.0 "
	run -0 live rm-class match --selector 'vendor == 0x10de and memory >= 40GiB' --count 8 \
		</dev/null
	assert_equal "${#lines[@]}" 8
	rm -f "$FAKE_NVML_LOG"
	run -0 live rm-class match --selector 'type == "gpu" and vendor == 0x10de' </dev/null
	assert_equal "${#lines[@]}" 8
	run -0 nvml_log
	assert_output none
}

@test "NVML init fails: memory is unknown and one warning names the error" {
	require_live
	export FAKE_NVML_INIT=fail
	run --separate-stderr live rm-devices list --type gpu -o device,memory
	assert_success
	assert_equal "$(grep -c 'memory=-$' <<<"$output")" 8
	assert_equal "$stderr" "rm-devices: warning: cannot read GPU memory from NVML: nvmlInit_v2: Driver Not Loaded (9)"
	run -0 nvml_log
	refute_line shutdown
	assert_line unload
	run --separate-stderr live rm-class match --selector 'memory >= 1GiB' </dev/null
	assert_success
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
}

@test "a GPU NVML does not know: its memory unknown, the others read, one warning" {
	require_live
	FAKE_NVML_MEMORY=$(sed 's/00000000:3D:00.0=[0-9]*,//; s/,00000000:BB:00.0=[0-9]*//' \
		<<<"$FAKE_NVML_MEMORY")
	run --separate-stderr live rm-devices list --type gpu -o device,memory
	assert_success
	assert_line "device=0000:1a:00.0 memory=40GiB"
	assert_line "device=0000:3d:00.0 memory=-"
	assert_line "device=0000:bb:00.0 memory=-"
	assert_line "device=0000:9b:00.0 memory=80GiB"
	assert_equal "$stderr" "rm-devices: warning: cannot read GPU memory from NVML: nvmlDeviceGetHandleByPciBusId_v2: '0000:3d:00.0': Not Found (6)"
}

@test "no libnvidia-ml.so.1: memory is unknown, silently" {
	require_live
	! ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 ' ||
		skip "this machine has a libnvidia-ml.so.1"
	export LD_LIBRARY_PATH="$NONVML"
	run --separate-stderr live rm-devices list --type gpu -o device,memory
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(grep -c 'memory=-$' <<<"$output")" 8
	run --separate-stderr live rm-class match --selector 'memory >= 1GiB' </dev/null
	assert_success
	assert_output ""
	assert_equal "$stderr" ""
}

@test "under --sysroot NVML is never asked: the snapshot's GPUs are another machine's" {
	run --separate-stderr rm-devices --sysroot "$GPU" list --type gpu -o device,memory
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(grep -c 'memory=-$' <<<"$output")" 8
	run -0 rm-devices --sysroot "$GPU" show 1a:00.0
	assert_output --regexp ' memory=- '
	run -0 rm-class match --sysroot "$GPU" --selector 'memory >= 1GiB'
	assert_output ""
	run -0 nvml_log
	assert_output none
}

@test "health: NVML's XID events, taken without waiting, the event set freed at exit" {
	require_live
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/conf"
	export FAKE_NVML_XIDS=00000000:1A:00.0=79,00000000:1B:00.0=31,00000000:1A:00.0=13
	run -1 live rm-devices health -o device,health,status,gpu_xids -r
	assert_output $'0000:1a:00.0 gpu_xid unhealthy 13,79\n0000:1b:00.0 gpu_xid warn 31'
	run -0 grep -c '^register ' "$FAKE_NVML_LOG"
	assert_output 8
	run -0 grep '^wait' "$FAKE_NVML_LOG"
	refute_output --partial 'wait 9'
	run -0 grep -c '^set-' "$FAKE_NVML_LOG"
	assert_output 2
	run -0 tail -n 2 "$FAKE_NVML_LOG"
	assert_output $'set-free\nunload'
	# --watch: each GPU registered once, the XIDs kept from one reading to the next
	rm "$FAKE_NVML_LOG"
	run -1 live rm-devices health --watch --count 2 --interval 0.05 -o device,gpu_xids -r
	assert_output $'0000:1a:00.0 13,79\n0000:1b:00.0 31'
	run -0 grep -c '^register ' "$FAKE_NVML_LOG"
	assert_output 8
}

@test "health: an NVML without the event calls gives no XIDs, and no error" {
	require_live
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/conf"
	export FAKE_NVML_XIDS=00000000:1A:00.0=79
	cc -Wall -shared -fPIC -DFAKE_NVML_NO_EVENTS -o "$BATS_TEST_TMPDIR/libnvidia-ml.so.1" \
		"$RM_SRCDIR/tests/unit/fake-nvml.c"
	LD_LIBRARY_PATH=$BATS_TEST_TMPDIR run -0 --separate-stderr live rm-devices health -o device,gpu_xids
	assert_output ''
	assert_equal "$stderr" ''
}

@test "health: NVML's uncorrected ECC errors make a GPU unhealthy, pages to retire warn, ECC off is unknown" {
	require_live
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state" RM_CONFIG_DIR="$BATS_TEST_TMPDIR/conf"
	export FAKE_NVML_ECC=00000000:1A:00.0=2,00000000:1B:00.0=0 FAKE_NVML_PENDING=00000000:1B:00.0=1
	run -1 live rm-devices health -o device,health,status,gpu_ecc,retired_pending -r
	assert_output $'0000:1a:00.0 gpu_ecc unhealthy 2 no\n0000:1b:00.0 gpu_retired_pending warn 0 yes'
	# the GPUs with ECC off: no count, no condition
	run -1 live rm-devices health --all -o device,health,gpu_ecc -r
	assert_line '0000:3d:00.0 ok -'
	run -0 grep -c '^ecc ' "$FAKE_NVML_LOG"
	assert_output 16
}
