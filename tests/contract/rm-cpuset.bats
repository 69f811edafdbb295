#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The command pipeline of rm-cpuset: bad input changes nothing (exit 2, one line), a lost report exits 4.
load ../test_helper
load helper
load ../cgroup_helper

T16="package:2 numa:1 core:4 pu:2" # 16 CPUs in 2 nodes: 0-7, 8-15

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	STATE="$RM_STATE_DIR/cpuset.state"
}

teardown() {
	sleeps_cleanup
	fakes_cleanup
}

cs() { rm-cpuset --topology "$T16" "$@"; }

# The fake cgroup v2 tree of 16 CPUs in 2 nodes, as T16.
start_v2() {
	require_fuse
	start_fake "$BATS_TEST_TMPDIR/cg" --cpus 0-15 --mems 0-1
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
}

# The bytes of the state and of the cgroup tree (when there is one), as one hash.
snapshot() {
	{
		if [ -e "$STATE" ]; then cat "$STATE"; else echo "no state"; fi
		[ -z "${RM_CGROUP_ROOT:-}" ] || dump_tree "$RM_CGROUP_ROOT"
	} | md5sum
}

# A state to refuse changes to: a reservation and one owner.
base_state() {
	run -0 cs reserve 14-15
	run -0 cs alloc --count 2 --owner base
}

# Every mutating command, with bad input: one per line, the arguments of rm-cpuset after
# --topology, as the shell splits them ('' is an empty argument).
BAD_INPUTS=(
	"alloc --count 2 --owner new -o bogus"
	"alloc --count 2 --owner new -o +bogus"
	"alloc --count 2 --owner new -o owner,owner"
	"alloc --count 2 --owner new -o ''"
	"alloc --count 2 --owner new -o owner,"
	"alloc --count 2 --owner new -J -t"
	"alloc --count 2 --owner new -r -J"
	"alloc --count 2 --owner new --list-columns -o owner"
	"alloc --count 0 --owner new"
	"alloc --count x --owner new"
	"alloc --count 2 --owner bad/name"
	"alloc --count 2 --owner ''"
	"alloc --count 2 --owner shared"
	"alloc --count 2 --owner base"
	"alloc --count 2"
	"alloc --owner new"
	"alloc --count 2 --owner new extra"
	"alloc --count 2 --owner new --policy nope"
	"alloc --count 2 --owner new --numa-node 9"
	"alloc --count 2 --owner new --numa-node x"
	"alloc --count 2 --owner new --from 99"
	"alloc --count 2 --owner new --add-mems 7"
	"alloc --count 2 --owner new --l3-exclusive"
	"alloc --count 2 --owner new --l3-ways 0"
	"alloc --count 2 --owner new --near zz"
	"alloc --count 2 --owner new --bogus-option"
	"release base -o bogus"
	"release base -o +bogus"
	"release base -J -t"
	"release"
	"release --all base"
	"release nosuch"
	"release base nosuch"
	"reserve 12-13 -o bogus"
	"reserve 12-13 -t -r"
	"reserve"
	"reserve 12-13 --count 2"
	"reserve 99"
	"reserve x"
	"reserve 12-13 extra"
	"reserve --count x"
	"gc -o bogus"
	"gc -J -r"
	"gc extra"
	"accept-topology -o bogus"
	"accept-topology -o +nope"
	"accept-topology extra"
	"apply -o bogus"
	"apply extra"
	"export"
	"export nomad"
	"export systemd --root ''"
	"export kubelet --root /tmp"
	"export slurm --output ''"
	"export kubelet --policy nope"
	"export systemd -J"
	"mount-resctrl -o owner"
	"mount-resctrl extra"
	"run"
	"run --count 0 -- true"
	"run --shared --count 2 -- true"
	"run --count 2 -J -- true"
)

@test "bad input to every mutating command: exit 2, one line, the state unchanged" {
	base_state
	check_bad_inputs rm-cpuset cs
}

@test "bad input with a cgroup tree: exit 2, one line, the state and the cgroups unchanged" {
	start_v2
	base_state
	[ -d "$RM_CGROUP_ROOT/rmtools.slice/base" ]
	check_bad_inputs rm-cpuset cs
}

owners() { grep -c '^owner=' "$STATE" || true; }

@test "alloc with stdout closed or full: exit 4, the allocation stands once, a retry adds none" {
	for redir in '>&-' '>/dev/full'; do
		rm -rf "$RM_STATE_DIR"
		report_lost "$redir" "allocated CPUs 0-1 to 'web'" cs alloc --count 2 --owner web
		assert_equal "$(owners)" 1
		run -2 --separate-stderr cs alloc --count 2 --owner web
		[[ $stderr == *"owner 'web' already has CPUs"* ]]
		assert_equal "$(owners)" 1
		run -0 cs list -o owner,cpus
		assert_output "owner=web cpus=0-1"
	done
}

@test "release, reserve, accept-topology with stdout closed or full: exit 4, the change made once" {
	run -0 cs alloc --count 2 --owner web
	report_lost '>/dev/full' "released the CPUs of owner 'web'" cs release web
	assert_equal "$(owners)" 0
	run -2 cs release web
	report_lost '>&-' "reserved CPUs 14-15" cs reserve 14-15
	run -0 grep -c '^reserved=14-15 ' "$STATE"
	assert_output 1
	report_lost '>/dev/full' "removed the reservation" cs reserve ''
	run -1 grep '^reserved=' "$STATE"
	# 8 CPUs where the state was made for 16: the owner of 12-13 is dropped
	run -0 cs alloc --count 2 --owner far --from 12-13
	report_lost '>&-' "adopted the CPUs as they are now and dropped the CPUs of owner 'far'" \
		rm-cpuset --topology "package:1 numa:1 core:4 pu:2" accept-topology
	assert_equal "$(owners)" 0
	run -0 rm-cpuset --topology "package:1 numa:1 core:4 pu:2" accept-topology
	assert_output ''
}

@test "gc with stdout full: exit 4, the gone process's allocation released once" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -0 rm-cpuset --no-cgroups reserve 0
	# run's parent killed: its allocation stays, with a pid that is gone
	run -137 rm-cpuset --no-cgroups run --count 1 --owner job -- sh -c 'kill -9 $PPID'
	run -0 rm-cpuset --no-cgroups list -o owner
	assert_output 'owner=job'
	report_lost '>/dev/full' "released the CPUs of owner 'job'" rm-cpuset --no-cgroups gc
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
	run -0 rm-cpuset --no-cgroups gc
	assert_output ''
}

@test "export systemd --root with stdout full: exit 4, the drop-ins written" {
	run -0 cs reserve 0-1
	report_lost '>/dev/full' "wrote the systemd drop-ins under '$BATS_TEST_TMPDIR/root'" \
		cs export systemd --root "$BATS_TEST_TMPDIR/root"
	run -0 cat "$BATS_TEST_TMPDIR/root/etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf"
	assert_line 'AllowedCPUs=0-1'
}

@test "export systemd --root: a drop-in that cannot be written puts back the ones written before" {
	local r=$BATS_TEST_TMPDIR/root
	run -0 cs reserve 0-1
	mkdir -p "$r/etc/systemd/system.conf.d" "$r/etc/systemd/system"
	echo old >"$r/etc/systemd/system.conf.d/50-rmtools-cpuset.conf"
	# the third drop-in's directory is a file
	touch "$r/etc/systemd/system/user.slice.d"
	run -1 --separate-stderr cs export systemd --root "$r"
	assert_equal "$output" ""
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "more than one line: '$stderr'"
	[[ $stderr == *"user.slice.d"*"put back, nothing was changed" ]] || fail "stderr: '$stderr'"
	run -0 cat "$r/etc/systemd/system.conf.d/50-rmtools-cpuset.conf"
	assert_output old
	[ ! -e "$r/etc/systemd/system/system.slice.d" ]
	[ ! -e "$r/etc/systemd/system/init.scope.d" ]
}

@test "with a cgroup tree: alloc, apply and release with stdout lost exit 4; the cgroups made once" {
	start_v2
	P=$RM_CGROUP_ROOT/rmtools.slice
	report_lost '>&-' "allocated CPUs 0-1 to 'web'" cs alloc --count 2 --owner web
	assert_equal "$(cat "$P/web/cpuset.cpus")" 0-1
	assert_equal "$(owners)" 1
	run -2 cs alloc --count 2 --owner web
	run -0 find "$P" -mindepth 1 -maxdepth 1 -type d
	assert_equal "$(sort <<<"$output")" "$P/shared"$'\n'"$P/web"
	echo 0-15 >"$P/web/cpuset.cpus"
	report_lost '>/dev/full' "made the cgroups match the state" cs apply
	assert_equal "$(cat "$P/web/cpuset.cpus")" 0-1
	report_lost '>/dev/full' "released the CPUs of owner 'web'" cs release web
	[ ! -e "$P/web" ]
	assert_equal "$(owners)" 0
}

@test "a control byte in an argument is escaped in the message" {
	run -2 --separate-stderr cs alloc --count 2 --owner $'we\x1b[31mb\nx'
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "more than one line: '$stderr'"
	[[ $stderr == *"'we\\x1b[31mb\\x0ax'"* ]] || fail "stderr: '$stderr'"
	[[ $stderr != *$'\x1b'* ]] || fail "a raw ESC on stderr"
	run -2 --separate-stderr cs release $'no\x07such'
	[[ $stderr == *"'no\\x07such'"* ]] || fail "stderr: '$stderr'"
	[ ! -e "$STATE" ]
}

@test "run: the child's exit status 2 passes through after its CPUs are released" {
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	run -2 --separate-stderr rm-cpuset --no-cgroups run --count 1 -- sh -c 'exit 2'
	assert_equal "$stderr" ""
	run -0 rm-cpuset --no-cgroups list
	assert_output ''
}
