# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the rm-hugepages tests: sysfs trees made on the spot, the FUSE fake of the pool
# files (tests/fake-hugepages.py), and saving and restoring this machine's pools, mounts and
# hugetlb cgroups around the tests that change them.

HP_UNIT="$RM_BUILDDIR/tests/unit/test-hugepages"

# make_tree DIR NODE...: a plain sysroot with 2 MiB and 1 GiB pages (the default 2 MiB) and a
# NODE per argument, "ID:MEMORY[:SIZES]" ("0:4G", "1:4G:2M" without 1 GiB pages, "2:0" without
# memory); no NODE: no NUMA directories. Every count 0.
make_tree() {
	local root=$1 spec id mem sizes kb total=0 d
	shift
	for kb in 2048 1048576; do
		d=$root/sys/kernel/mm/hugepages/hugepages-${kb}kB
		mkdir -p "$d"
		for f in nr_hugepages nr_hugepages_mempolicy nr_overcommit_hugepages free_hugepages \
			resv_hugepages surplus_hugepages; do
			echo 0 >"$d/$f"
		done
	done
	for spec in "$@"; do
		IFS=: read -r id mem sizes <<<"$spec"
		mem=$(($(numfmt --from=iec "$mem") / 1024))
		total=$((total + mem))
		d=$root/sys/devices/system/node/node$id
		mkdir -p "$d"
		printf 'Node %s MemTotal: %12d kB\nNode %s MemFree: %12d kB\n' "$id" "$mem" "$id" \
			"$mem" >"$d/meminfo"
		[ "$mem" -gt 0 ] || continue
		for kb in 2048 1048576; do
			case ${sizes:-2M,1G} in
			*2M*) [ $kb -eq 2048 ] && hp_node_dir "$d" $kb ;;
			esac
			case ${sizes:-2M,1G} in
			*1G*) [ $kb -eq 1048576 ] && hp_node_dir "$d" $kb ;;
			esac
		done
	done
	[ "$total" -gt 0 ] || total=4194304
	mkdir -p "$root/proc" "$root/sys/kernel/mm/transparent_hugepage"
	printf 'MemTotal: %12d kB\nHugePages_Total: 0\nHugepagesize: 2048 kB\n' "$total" \
		>"$root/proc/meminfo"
	echo 'always [madvise] never' >"$root/sys/kernel/mm/transparent_hugepage/enabled"
	echo 'always defer defer+madvise [madvise] never' \
		>"$root/sys/kernel/mm/transparent_hugepage/defrag"
	: >"$root/proc/mounts"
}

hp_node_dir() {
	mkdir -p "$1/hugepages/hugepages-${2}kB"
	for f in nr_hugepages free_hugepages surplus_hugepages; do
		echo 0 >"$1/hugepages/hugepages-${2}kB/$f"
	done
}

# The count in a node's (or, without NODE, the global) nr_hugepages: count ROOT SIZE_KB [NODE]
count() {
	if [ -n "${3:-}" ]; then
		cat "$1/sys/devices/system/node/node$3/hugepages/hugepages-${2}kB/nr_hugepages"
	else
		cat "$1/sys/kernel/mm/hugepages/hugepages-${2}kB/nr_hugepages"
	fi
}

# Every file of a tree with its contents, to show that nothing changed.
tree_sum() {
	(cd "$1" && find . -type f | LC_ALL=C sort | xargs -d '\n' md5sum | md5sum)
}

# ---- the FUSE fake ----

require_hp_fuse() {
	require_fuse
}

# start_hp_fake DIR [fake-hugepages.py options]: mount the fake at DIR until teardown.
start_hp_fake() {
	mount_fake fake-hugepages.py "$@"
}

hp_fakes_cleanup() {
	fakes_cleanup
}

# ---- this machine ----

# The real pools are shared by every test file that changes them (make check runs files in
# parallel): such tests call require_machine, which waits for the others and saves every pool,
# and restore_machine in teardown, which puts back what the test changed, failed or not.
HP_LOCK=/run/lock/rmtools-hugepages-tests.lock
HP_HELD= HP_SAVED=() HP_TEST_MOUNTS=() HP_TEST_CGROUPS=() HP_UNIFIED_ADDED=

require_machine() {
	local f
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ -d /sys/kernel/mm/hugepages/hugepages-2048kB ] || skip "no 2 MiB huge pages here"
	mkdir -p "${HP_LOCK%/*}"
	exec 8>"$HP_LOCK"
	flock -w 600 8 || skip "another test held $HP_LOCK for 10 minutes"
	HP_HELD=1
	HP_SAVED=()
	local global=
	[ -d /sys/devices/system/node/node0 ] || global=/sys/kernel/mm/hugepages/hugepages-*/nr_hugepages
	# shellcheck disable=SC2086 # the glob
	for f in /sys/devices/system/node/node*/hugepages/hugepages-*/nr_hugepages $global \
		/sys/kernel/mm/hugepages/hugepages-*/nr_overcommit_hugepages; do
		[ -e "$f" ] && HP_SAVED+=("$f=$(cat "$f")")
	done
}

# DIR is a mount the test may make: unmounted and removed in teardown.
test_mount() {
	HP_TEST_MOUNTS+=("$1")
}

# OWNER's hugetlb cgroup is the test's: removed in teardown (with the parent when empty).
test_cgroup() {
	HP_TEST_CGROUPS+=("$1")
}

restore_machine() {
	local s f v m cg dir
	[ -n "$HP_HELD" ] || return 0
	for m in "${HP_TEST_MOUNTS[@]}"; do
		while mountpoint -q "$m"; do umount "$m" || break; done
		rmdir "$m" 2>/dev/null || true
	done
	for cg in "${HP_TEST_CGROUPS[@]}"; do
		for dir in /sys/fs/cgroup/unified/rmtools.slice/"$cg" /sys/fs/cgroup/hugetlb/rmtools/"$cg"; do
			[ -d "$dir" ] || continue
			while read -r p; do echo "$p" >"${dir%/rmtools*}/cgroup.procs" 2>/dev/null; done \
				<"$dir/cgroup.procs"
			rmdir "$dir"
		done
	done
	rmdir /sys/fs/cgroup/unified/rmtools.slice /sys/fs/cgroup/hugetlb/rmtools 2>/dev/null || true
	if [ -n "$HP_UNIFIED_ADDED" ] && [ ! -d /sys/fs/cgroup/unified/rmtools.slice ]; then
		echo -hugetlb >/sys/fs/cgroup/unified/cgroup.subtree_control 2>/dev/null || true
	fi
	for s in "${HP_SAVED[@]}"; do
		f=${s%=*} v=${s##*=}
		[ "$(cat "$f")" = "$v" ] || echo "$v" >"$f"
	done
	exec 8>&-
	HP_HELD= HP_TEST_MOUNTS=() HP_TEST_CGROUPS=()
}

# The unified hierarchy of this machine when it has the hugetlb controller, and whether
# "+hugetlb" must be taken back from its root's subtree_control in teardown.
require_unified_hugetlb() {
	local u=/sys/fs/cgroup/unified
	[ -f /sys/fs/cgroup/cgroup.controllers ] && u=/sys/fs/cgroup
	grep -qw hugetlb "$u/cgroup.controllers" 2>/dev/null ||
		skip "no hugetlb controller on the unified hierarchy"
	grep -qw cpuset "$u/cgroup.controllers" &&
		skip "cpuset is on the unified hierarchy too: limits need an rm-cpuset owner"
	[ "$u" = /sys/fs/cgroup/unified ] || skip "the unified hierarchy is not at $u/unified"
	[ ! -e "$u/rmtools.slice" ] || skip "$u/rmtools.slice exists already; not touching it"
	grep -qw hugetlb "$u/cgroup.subtree_control" || HP_UNIFIED_ADDED=1
}

# The pages of SIZE_KB on this machine's node 0 (or the global count).
machine_count() {
	local f=/sys/devices/system/node/node0/hugepages/hugepages-${1}kB/nr_hugepages
	[ -e "$f" ] || f=/sys/kernel/mm/hugepages/hugepages-${1}kB/nr_hugepages
	cat "$f"
}
