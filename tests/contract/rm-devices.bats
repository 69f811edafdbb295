#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The command pipeline of rm-devices: bad input changes nothing (exit 2, one line), a lost report exits 4.
load ../test_helper
load helper
load ../rm-devices/fixtures

setup_file() {
	GPU="$BATS_FILE_TMPDIR/gpu"
	fx_gpu_server "$GPU"
	export GPU
}

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	STATE=$RM_STATE_DIR/devices.state
	# a cgroup v1 devices hierarchy of plain directories
	mkdir -p "$BATS_TEST_TMPDIR/cg/devices"
	: >"$BATS_TEST_TMPDIR/cg/devices/devices.allow"
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	OUT=$BATS_TEST_TMPDIR/out
	mkdir -p "$OUT"
}

dev() { rm-devices --sysroot "$GPU" "$@"; }

# The bytes of the state, the cgroup tree and the export directory, as one hash.
snapshot() {
	(cd "$BATS_TEST_TMPDIR" && find state cg out -print0 2>/dev/null | LC_ALL=C sort -z |
		xargs -0 -I{} sh -c 'echo "{}"; [ ! -f "{}" ] || cat "{}"') | md5sum
}

# Every command that changes something, with bad input: the arguments of rm-devices after
# --sysroot, as the shell splits them ('' is an empty argument).
BAD_INPUTS=(
	"alloc --type gpu --count 1 --owner new -o bogus"
	"alloc --type gpu --count 1 --owner new -o +bogus"
	"alloc --type gpu --count 1 --owner new -o device,device"
	"alloc --type gpu --count 1 --owner new -o ''"
	"alloc --type gpu --count 1 --owner new -J -t"
	"alloc --type gpu --count 1 --owner new --list-columns -o device"
	"alloc --type gpu --count 1 --owner new --dry-run -o bogus"
	"alloc --type gpu --count 0 --owner new"
	"alloc --type gpu --count x --owner new"
	"alloc --type nope --count 1 --owner new"
	"alloc --count 1 --owner new"
	"alloc --type gpu --class c --count 1 --owner new"
	"alloc --type gpu --owner new"
	"alloc --type gpu --count 1"
	"alloc --type gpu --count 1 --owner bad/name"
	"alloc --type gpu --count 1 --owner ''"
	"alloc --type gpu --count 1 --owner new --numa-node 9"
	"alloc --type gpu --count 1 --owner new --numa-node x"
	"alloc --type gpu --count 1 --owner new --near-cpus 99"
	"alloc --type gpu --count 1 --owner new --policy nope"
	"alloc --type gpu --count 1 --owner new extra"
	"release base -o bogus"
	"release base -o +bogus"
	"release base -J -t"
	"release"
	"release --all base"
	"release nosuch"
	"release base nosuch"
	"release bad/name"
	"grant base -o bogus"
	"grant base -o +bogus"
	"grant base -J -r"
	"grant base --systemd -o devnode"
	"grant base --systemd -J"
	"grant nosuch"
	"grant bad/name"
	"grant"
	"grant base extra"
	"grant base --pid x"
	"export"
	"export nomad"
	"export gres --output ''"
	"export cdi --output \$OUT/spec.yaml"
	"export cdi --output \$OUT/spec.json --type gpu,nic"
	"export gres --vendor-domain example.com"
	"export gres --type nope"
)

@test "bad input to every changing command: exit 2, one line, state and cgroups unchanged" {
	run -0 dev alloc --type gpu --count 2 --owner base
	check_bad_inputs rm-devices dev
}

records() { grep -c "owner=$1 " "$STATE" || true; }

@test "alloc, grant and release with stdout closed or full: exit 4, the change made once" {
	report_lost '>&-' "allocated 0000:1a:00.0,0000:1b:00.0 to 'web'" \
		dev alloc --type gpu --count 2 --owner web
	assert_equal "$(records web)" 2
	report_lost '>/dev/full' "allocated 0000:1c:00.0 to 'web'" \
		dev alloc --type ib --count 1 --owner web
	assert_equal "$(records web)" 3
	report_lost '>/dev/full' \
		"granted the device nodes of 'web' in $RM_CGROUP_ROOT/devices/rmtools/web" dev grant web
	run -0 grep -c rwm "$RM_CGROUP_ROOT/devices/rmtools/web/devices.allow"
	assert_output 7
	report_lost '>&-' "released the devices of 'web'" dev release web
	assert_equal "$(records web)" 0
	[ ! -e "$RM_CGROUP_ROOT/devices/rmtools/web" ]
	run -2 dev release web
}

@test "export --output writes the file once; a closed stdout does not matter to it" {
	run -0 --separate-stderr redirected '>&-' dev export gres --output "$OUT/gres.conf"
	run -0 grep -c '^Name=gpu ' "$OUT/gres.conf"
	assert_output 8
	run -0 ls -A "$OUT"
	assert_output gres.conf
}
