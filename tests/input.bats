#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# One input per run: symlinks planted in a --sysroot tree or a RM_CGROUP_ROOT tree make every
# write refuse (exit 1, one line) and nothing outside the tree changes; each tool resolves the
# same input from the options and the variables.
load test_helper
load rm-hugepages/helper
load rm-devices/fixtures

setup() {
	export RM_STATE_DIR=$BATS_TEST_TMPDIR/state
	OUT=$BATS_TEST_TMPDIR/outside
	mkdir -p "$OUT/dir"
	echo 0 >"$OUT/file"
	echo 0 >"$OUT/dir/nr_hugepages"
}

teardown() {
	restore_machine 2>/dev/null || true
}

# Everything under $OUT, names, modes and bytes.
out_sum() { (cd "$OUT" && find . -printf '%p %m %s\n' | sort && cat $(find . -type f | sort)) | md5sum; }

# Refused: exit 1, one line on stderr, stdout empty, $OUT unchanged.
# refused_link COMMAND [ARGS...]
refused_link() {
	local before
	before=$(out_sum)
	run -1 --separate-stderr "$@"
	assert_equal "$output" ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "${1##*/}: "* ]] || fail "stderr: '$stderr'"
	assert_equal "$(out_sum)" "$before"
}

# ---- --sysroot: huge page pools ----

@test "sysroot: reserve refuses a symlinked pool file, pool directory and parent component" {
	local root=$BATS_TEST_TMPDIR/root pool
	make_tree "$root" 0:4G
	export RM_SYSROOT=$root
	pool=$root/sys/devices/system/node/node0/hugepages/hugepages-2048kB
	run -0 rm-hugepages reserve 2M 8 -o total
	assert_output total=8

	mv "$pool/nr_hugepages" "$BATS_TEST_TMPDIR/saved"
	ln -s "$OUT/file" "$pool/nr_hugepages"
	refused_link rm-hugepages reserve 2M 16
	rm "$pool/nr_hugepages"
	mv "$BATS_TEST_TMPDIR/saved" "$pool/nr_hugepages"

	cp -a "$pool/." "$OUT/dir/"
	mv "$pool" "$BATS_TEST_TMPDIR/saved"
	ln -s "$OUT/dir" "$pool"
	refused_link rm-hugepages reserve 2M 16
	rm "$pool"
	mv "$BATS_TEST_TMPDIR/saved" "$pool"

	mv "$root/sys/devices/system/node/node0/hugepages" "$OUT/hp"
	ln -s "$OUT/hp" "$root/sys/devices/system/node/node0/hugepages"
	refused_link rm-hugepages reserve 2M 16
}

# ---- RM_CGROUP_ROOT: hugetlb limits ----

# The v1 hugetlb layout of rm-hugepages.bats with owner web, under $CG.
hugetlb_tree() {
	CG=$BATS_TEST_TMPDIR/cg
	local dir=$CG/hugetlb/rmtools/web f
	mkdir -p "$dir"
	for f in hugetlb.2MB hugetlb.1GB; do
		echo 9223372036854771712 >"$dir/$f.limit_in_bytes"
		echo 9223372036854771712 >"$dir/$f.rsvd.limit_in_bytes"
		echo 0 >"$dir/$f.usage_in_bytes"; echo 0 >"$dir/$f.rsvd.usage_in_bytes"
	done
	: >"$dir/cgroup.procs"
	export RM_CGROUP_ROOT=$CG RM_SYSROOT=$BATS_TEST_TMPDIR/root
	make_tree "$RM_SYSROOT" 0:4G
}

@test "cgroup root: limit refuses a symlinked limit file, cgroup directory and parent" {
	hugetlb_tree
	local web=$CG/hugetlb/rmtools/web
	run -0 rm-hugepages limit web 2M 4 -o limit
	assert_output limit=8MiB

	ln -sf "$OUT/file" "$web/hugetlb.2MB.limit_in_bytes"
	refused_link rm-hugepages limit web 2M 8

	cp -a "$web/." "$OUT/dir/"
	rm -r "$web"
	ln -s "$OUT/dir" "$web"
	refused_link rm-hugepages limit web 2M 8

	rm "$web"
	mv "$CG/hugetlb/rmtools" "$OUT/rmtools"
	ln -s "$OUT/rmtools" "$CG/hugetlb/rmtools"
	refused_link rm-hugepages limit web 2M 8
}

# ---- RM_CGROUP_ROOT: rm-devices grant ----

@test "cgroup root: grant refuses a symlinked cgroup, devices.allow and parent" {
	local gpu=$BATS_TEST_TMPDIR/gpu
	CG=$BATS_TEST_TMPDIR/cg
	fx_gpu_server "$gpu"
	run -0 rm-devices --sysroot "$gpu" alloc --type gpu --count 1 --owner train
	mkdir -p "$CG/devices/rmtools/train"
	: >"$CG/devices/devices.allow"
	export RM_CGROUP_ROOT=$CG

	ln -s "$OUT/file" "$CG/devices/rmtools/train/devices.allow"
	refused_link rm-devices --sysroot "$gpu" grant train
	rm "$CG/devices/rmtools/train/devices.allow"

	rmdir "$CG/devices/rmtools/train"
	ln -s "$OUT/dir" "$CG/devices/rmtools/train"
	refused_link rm-devices --sysroot "$gpu" grant train
	rm "$CG/devices/rmtools/train"

	rmdir "$CG/devices/rmtools"
	ln -s "$OUT/dir" "$CG/devices/rmtools"
	refused_link rm-devices --sysroot "$gpu" grant train
	[ ! -e "$OUT/dir/train" ]
}

# ---- RM_CGROUP_ROOT: rm-cpuset alloc ----

# A unified hierarchy as plain directories under $CG with cpuset, the parent made already.
cpuset_tree() {
	CG=$BATS_TEST_TMPDIR/cg
	mkdir -p "$CG"
	echo cpuset >"$CG/cgroup.controllers"
	echo cpuset >"$CG/cgroup.subtree_control"
	echo 0-7 >"$CG/cpuset.cpus.effective"
	echo 0 >"$CG/cpuset.mems.effective"
	export RM_CGROUP_ROOT=$CG
}

@test "cgroup root: alloc refuses a symlinked parent cgroup, child cgroup and cpuset.cpus" {
	local cs=(rm-cpuset --topology "package:1 core:8 pu:1") d f
	cpuset_tree
	mkdir -p "$OUT/dir/web"
	for f in cgroup.controllers cgroup.subtree_control cpuset.cpus cpuset.mems; do
		: >"$OUT/dir/$f"
		: >"$OUT/dir/web/$f"
	done

	ln -s "$OUT/dir" "$CG/rmtools.slice"
	refused_link "${cs[@]}" alloc --count 2 --owner web
	rm "$CG/rmtools.slice"

	mkdir "$CG/rmtools.slice"
	for f in cgroup.controllers cgroup.subtree_control cpuset.cpus cpuset.mems; do
		: >"$CG/rmtools.slice/$f"
	done
	ln -s "$OUT/dir/web" "$CG/rmtools.slice/web"
	refused_link "${cs[@]}" alloc --count 2 --owner web
	rm "$CG/rmtools.slice/web"

	for d in web shared; do
		mkdir "$CG/rmtools.slice/$d"
		for f in cgroup.controllers cgroup.subtree_control cgroup.procs cpuset.cpus \
			cpuset.mems cpuset.cpus.partition; do
			: >"$CG/rmtools.slice/$d/$f"
		done
	done
	rm "$CG/rmtools.slice/web/cpuset.cpus"
	ln -s "$OUT/file" "$CG/rmtools.slice/web/cpuset.cpus"
	refused_link "${cs[@]}" alloc --count 2 --owner web
	[ ! -e "$RM_STATE_DIR/cpuset.state" ] || run -0 "${cs[@]}" --no-cgroups list -o owner
	refute_output --partial web
}

# ---- one input from options and variables ----

# The same records from the option, the variable, and the option over the other variable.
# same_input TOOL ROOT_OR_SPEC KIND (sysroot or topology) [COMMAND...]
same_input() {
	local tool=$1 what=$2 kind=$3 var want
	shift 3
	var=RM_${kind^^}
	run -0 --separate-stderr "$tool" "--$kind" "$what" "$@" </dev/null
	want=$output
	[ -n "$want" ] || fail "$tool --$kind printed nothing"
	run -0 --separate-stderr env "$var=$what" "$tool" "$@" </dev/null
	assert_equal "$output" "$want"
	# the option wins over the variable of the other kind
	run -0 --separate-stderr env RM_SYSROOT=/nonexistent "$tool" "--$kind" "$what" "$@" </dev/null
	assert_equal "$output" "$want"
}

@test "input: each tool resolves the same input from --sysroot, --topology and their variables" {
	local smt=$SNAPSHOTS/x86-2s-smt hp=$BATS_TEST_TMPDIR/hp syn="package:2 core:4 pu:2"
	local gpu=$BATS_TEST_TMPDIR/gpu
	make_tree "$hp" 0:4G 1:4G
	fx_gpu_server "$gpu"
	# tool          input   kind      command
	same_input rm-topo      "$smt"  sysroot   cpus
	same_input rm-topo      "$syn"  topology  cpus
	same_input rm-cpuset    "$smt"  sysroot   show
	same_input rm-cpuset    "$syn"  topology  show
	same_input rm-devices   "$gpu"  sysroot   list
	same_input rm-class     "$gpu"  sysroot   match gpu
	same_input rm-hugepages "$hp"   sysroot   show
}
