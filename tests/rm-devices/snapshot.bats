#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What rm-devices reads, copied with its links (rm_devices_snapshot, for rm-topo snapshot): the
# copy of a tree or of this machine reads back the same, for rm-devices and for lspci.
load ../test_helper
load fixtures

TD=$RM_BUILDDIR/tests/unit/test-devices
# every field of every PCI function
ALL=+switch,path,link_speed,link_width,sriov,vfs,total_vfs,pf,netdevs,rdma,ib_state,link_layer,memory,bar,class,subvendor,subproduct,shared_nodes

setup_file() {
	fx_trees
}

setup() {
	[ -x "$TD" ] || skip "tests/unit/test-devices is not built (make check builds it)"
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
}

# lspci on a tree, every detail: lspci_tree ROOT
lspci_tree() {
	lspci -D -nn -vv -A linux-sysfs -O sysfs.path="$1/sys/bus/pci" 2>/dev/null
}

@test "snapshot: the copy of a GPU server and a mixed machine reads back the same" {
	local tree copy
	for tree in "$GPU" "$MIXED"; do
		copy=$BATS_TEST_TMPDIR/copy-${tree##*/}
		# rm-topo snapshot copies what rm-devices reads
		run -0 rm-topo --sysroot "$tree" snapshot "$copy"
		assert_output --regexp ' files=[0-9]+$'
		[ "${output##*files=}" -gt 300 ]
		run -0 rm-devices --sysroot "$copy" list --all -o "$ALL"
		assert_equal "$output" "$(rm-devices --sysroot "$tree" list --all -o "$ALL")"
		assert_equal "$(rm-devices --sysroot "$copy" topo)" "$(rm-devices --sysroot "$tree" topo)"
		! command -v lspci >/dev/null ||
			assert_equal "$(lspci_tree "$copy")" "$(lspci_tree "$tree")"
		# the kernel's layout: links into sys/devices/pci*, relative, and the functions' links
		run -0 readlink "$copy/sys/bus/pci/devices/0000:00:00.0"
		assert_output ../../../devices/pci0000:00/0000:00:00.0
	done
	run -0 readlink "$BATS_TEST_TMPDIR/copy-mixed/sys/bus/pci/devices/0000:3b:01.2/physfn"
	assert_output ../0000:3b:00.0
	[ -d "$BATS_TEST_TMPDIR/copy-mixed/sys/bus/pci/devices/0000:3b:00.0/virtfn7" ]
	# allocation and gres.conf from the copy
	run -0 rm-devices --sysroot "$BATS_TEST_TMPDIR/copy-gpu" export gres
	assert_equal "$output" "$(rm-devices --sysroot "$GPU" export gres)"
}

@test "snapshot: this machine's copy reads back as this machine" {
	local copy=$BATS_TEST_TMPDIR/live
	run -0 rm-topo snapshot "$copy"
	run -0 "$TD" snapshot - "$copy"
	run -0 rm-devices --sysroot "$copy" list --all -o "$ALL"
	assert_equal "$output" "$(rm-devices list --all -o "$ALL")"
	[ -n "$output" ] || skip "this machine has no PCI devices"
	command -v lspci >/dev/null || skip "lspci is not installed (apt-get install pciutils)"
	assert_equal "$(lspci -D -nn 2>/dev/null)" \
		"$(lspci -D -nn -A linux-sysfs -O sysfs.path="$copy/sys/bus/pci" 2>/dev/null)"
}

# The files and links rm-devices ARGS... reads below ROOT, ROOT-relative, a function's as
# sys/bus/pci/devices/ADDR/...: files_read ROOT ARGS...
files_read() {
	local tree=$1 line dir name f addr='[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]'
	shift
	strace -f -qq -y -e trace=openat,openat2,readlinkat,faccessat,faccessat2 -o "$BATS_TEST_TMPDIR/trace" \
		rm-devices --sysroot "$tree" "$@" >/dev/null 2>&1 || true
	# openat(4</ROOT/sys/devices/.../0000:1a:00.0>, "class", ...; directories are not files
	grep -v O_DIRECTORY "$BATS_TEST_TMPDIR/trace" |
		sed -n -E 's/^[0-9]+ +[a-z0-9]+\((AT_FDCWD(<[^>]*>)?|[0-9]+<([^>]*)>), "([^"]*)".*/\3|\4/p' |
		while IFS='|' read -r dir name; do
			f=${dir:+$dir/}$name
			f=${f#"$tree"/}
			if [[ $f =~ ^sys/devices/pci[^/]*/(.*/)?($addr)(/.*)?$ ]]; then
				f=sys/bus/pci/devices/${BASH_REMATCH[2]}${BASH_REMATCH[3]}
			fi
			[[ $f == sys/* || $f == proc/* ]] && printf '%s\n' "$f"
		done | sort -u
}

@test "snapshot: every file rm-devices reads below the root is one the path list names" {
	local globs f g re found unlisted='' n=0 tree
	command -v strace >/dev/null || skip "strace is not installed"
	run -0 "$TD" paths
	globs=$(printf '%s\n' "$output" | cut -d' ' -f2)
	assert_line 'link sys/bus/pci/devices/*'
	assert_line 'link sys/bus/pci/devices/*/driver'
	assert_line 'file sys/bus/pci/devices/*/numa_node'
	# grant reads the nodes' numbers (sys/class/*/dev, proc/devices): an owner of every type
	mkdir -p "$BATS_TEST_TMPDIR/cg/devices"
	: >"$BATS_TEST_TMPDIR/cg/devices/devices.allow"
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/cg
	for t in gpu:8 ib:4 nvme:1; do
		rm-devices --sysroot "$GPU" alloc --type "${t%:*}" --count "${t#*:}" --owner x >/dev/null
	done
	for t in gpu:1 vfio:1 nic:2 fpga:1 accel:1; do
		rm-devices --sysroot "$MIXED" alloc --type "${t%:*}" --count "${t#*:}" --owner y >/dev/null
	done
	for tree in "$GPU" "$MIXED"; do
		while IFS= read -r f; do
			found=
			while IFS= read -r g; do
				# as glob(3) matches: "*" stays within one path component
				re=${g//./\\.}
				re=${re//\*/[^/]*}
				[[ $f =~ ^$re$ ]] && { found=1; break; }
			done <<<"$globs"
			[ -n "$found" ] || unlisted+=" $f"
			n=$((n + 1))
		done < <({ files_read "$tree" list --all -o "$ALL"; files_read "$tree" grant --dry-run x
			files_read "$tree" grant --dry-run y; } | sort -u | tee -a "$BATS_TEST_TMPDIR/read")
	done
	[ "$n" -gt 400 ]
	# the files outside the functions' directories were among them
	grep -qx proc/devices "$BATS_TEST_TMPDIR/read"
	grep -qx sys/class/kfd/kfd/dev "$BATS_TEST_TMPDIR/read"
	grep -qx sys/class/vfio/77/dev "$BATS_TEST_TMPDIR/read"
	grep -qx 'proc/driver/nvidia/gpus/0000:1a:00.0/information' "$BATS_TEST_TMPDIR/read"
	grep -qx 'sys/bus/pci/devices/0000:1c:00.0/infiniband/mlx5_0/ports/1/link_layer' \
		"$BATS_TEST_TMPDIR/read"
	assert_equal "$unlisted" ""
}
