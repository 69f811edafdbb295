#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages overcommit and the overcommit and limit lines of hugepages.conf(5): sysfs and
# cgroup trees made here (errors by file, line and column, all or nothing), and this machine as
# root, restored afterwards.
load ../test_helper
load helper

setup() {
	ROOT=$BATS_TEST_TMPDIR/root
	CONF=$BATS_TEST_TMPDIR/hugepages.conf
	OC2=$ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
	OC1=$ROOT/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages
}

teardown() {
	hp_fakes_cleanup
	restore_machine
}

# A v1 hugetlb hierarchy with the cgroup of owner web, as the kernel shows it.
cgroup_tree() {
	local f
	CGROOT=$BATS_TEST_TMPDIR/cg
	CG=$CGROOT/hugetlb/rmtools/web
	mkdir -p "$CG"
	for f in hugetlb.2MB hugetlb.1GB; do
		echo 9223372036854771712 >"$CG/$f.limit_in_bytes"
		echo 9223372036854771712 >"$CG/$f.rsvd.limit_in_bytes"
		echo 0 >"$CG/$f.usage_in_bytes"
		echo 0 >"$CG/$f.rsvd.usage_in_bytes"
	done
	: >"$CG/cgroup.procs"
	export RM_CGROUP_ROOT=$CGROOT
}

# Every file and directory of the trees, to show that nothing changed.
trees_sum() {
	local d
	for d in "$@"; do
		tree_sum "$d"
		(cd "$d" && find . | LC_ALL=C sort | md5sum)
	done
}

# ---- the command ----

@test "overcommit: writes the size's nr_overcommit_hugepages, reads it back, show has it" {
	make_tree "$ROOT" 0:8G 1:8G
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M 64
	assert_output 'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=64 default=yes memory=0B nodes=0-1'
	assert_equal "$(cat "$OC2")" 64
	assert_equal "$(cat "$OC1")" 0
	run -0 rm-hugepages --sysroot "$ROOT" show
	assert_line 'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=64 default=yes memory=0B nodes=0-1'
	assert_line 'pool=1GiB total=0 free=0 reserved=0 surplus=0 overcommit=0 default=no memory=0B nodes=0-1'
	# an amount, +COUNT adds, 0 stops it; the same again changes nothing
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2MiB 1GiB -o pool,overcommit
	assert_output 'pool=2MiB overcommit=512'
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M +8 -o overcommit -r
	assert_output 520
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M 520 -J
	run -0 jq -c '.pools[0] | [.pool, .overcommit]' <<<"$output"
	assert_output '[2097152,520]'
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M 0 -o overcommit
	assert_output 'overcommit=0'
	assert_equal "$(cat "$OC2")" 0
	run -0 rm-hugepages overcommit --list-columns -r
	assert_equal "$(cut -d' ' -f1 <<<"$output" | paste -sd,)" \
		pool,total,free,reserved,surplus,overcommit,default,memory,nodes
}

@test "overcommit --dry-run prints the pool as it would be and changes nothing" {
	make_tree "$ROOT" 0:8G
	echo 10 >"$OC2"
	local before
	before=$(trees_sum "$ROOT")
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M +6 --dry-run
	assert_output 'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=16 default=yes memory=0B nodes=0'
	assert_equal "$(trees_sum "$ROOT")" "$before"
}

@test "overcommit: gigantic pages are refused in one line, exit 2, nothing changed" {
	make_tree "$ROOT" 0:8G
	local before
	before=$(trees_sum "$ROOT")
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" overcommit 1G 4
	assert_output ''
	assert_equal "$stderr" "rm-hugepages: the kernel refuses overcommit for gigantic pages such as 1GiB (they are never allocated on demand; reserve them): '1G'"
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" overcommit 1GiB 0 --dry-run
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$(trees_sum "$ROOT")" "$before"
}

@test "overcommit: what is gigantic follows the orders of proc/buddyinfo" {
	[ "$(getconf PAGESIZE)" = 4096 ] || skip "the base page here is not 4 KiB"
	make_tree "$ROOT" 0:8G
	# 19 orders: blocks up to 4 KiB << 18 = 1 GiB, so 1 GiB pages are not gigantic
	printf 'Node 0, zone   Normal%s\n' "$(printf ' %6d' $(seq 19))" >"$ROOT/proc/buddyinfo"
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 1G 2 -o pool,overcommit
	assert_output 'pool=1GiB overcommit=2'
	# 11 orders (MAX_PAGE_ORDER 10, x86's): 4 MiB blocks
	printf 'Node 0, zone   Normal%s\n' "$(printf ' %6d' $(seq 11))" >"$ROOT/proc/buddyinfo"
	run -2 rm-hugepages --sysroot "$ROOT" overcommit 1G 2
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M 2 -o overcommit
	assert_output 'overcommit=2'
}

# Refused with exit status 2, MESSAGE as the one line of stderr, stdout empty, the tree unchanged.
refused() {
	local msg=$1 before
	shift
	before=$(trees_sum "$ROOT")
	run -2 --separate-stderr "$@"
	assert_equal "$output" ""
	assert_equal "$stderr" "$msg"
	assert_equal "$(trees_sum "$ROOT")" "$before"
}

@test "overcommit: bad input exits 2 with one line and changes nothing" {
	make_tree "$ROOT" 0:8G
	export RM_SYSROOT=$ROOT
	refused "rm-hugepages: invalid count: '1.5'" rm-hugepages overcommit 2M 1.5
	refused "rm-hugepages: invalid count: '-4'" rm-hugepages overcommit 2M -- -4
	refused "rm-hugepages: not a whole number of 2MiB pages: '3MiB'" rm-hugepages overcommit 2M 3MiB
	refused "rm-hugepages: count too large: '99999999999999999999'" \
		rm-hugepages overcommit 2M 99999999999999999999
	refused "rm-hugepages: unknown page size: '4M' (this machine offers 2MiB, 1GiB)" \
		rm-hugepages overcommit 4M 1
	refused "rm-hugepages overcommit: missing COUNT or AMOUNT" rm-hugepages overcommit 2M
	refused "rm-hugepages overcommit: missing SIZE" rm-hugepages overcommit
	refused "rm-hugepages overcommit: unexpected argument: '3'" rm-hugepages overcommit 2M 1 3
	refused "rm-hugepages overcommit: unrecognized option '--node'" \
		rm-hugepages overcommit 2M 1 --node 0
	refused "rm-hugepages: huge pages are not part of a described topology: '--topology' (use --sysroot with a snapshot)" \
		rm-hugepages overcommit 2M 1 --topology "numa:2 pu:2"
}

@test "overcommit: a tree without the file fails with nothing changed" {
	make_tree "$ROOT" 0:8G
	rm "$OC2"
	local before
	before=$(trees_sum "$ROOT")
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" overcommit 2M 4
	assert_equal "$stderr" "rm-hugepages: cannot read a page count: '$OC2'"
	assert_equal "$(trees_sum "$ROOT")" "$before"
}

# ---- hugepages.conf: overcommit and limit lines ----

@test "apply: overcommit and limit lines are set and printed; --dry-run changes nothing" {
	make_tree "$ROOT" 0:8G 1:8G
	cgroup_tree
	cat >"$CONF" <<-'EOF'
	2M node=0 count=10
	overcommit 2M 128      # surplus pages on demand
	limit web 2M 1GiB
	limit web 1G max
	limit db 1G 2
	EOF
	# db has no cgroup yet: the dry run prints the limit it would set
	local before
	before=$(trees_sum "$ROOT" "$CGROOT")
	run -0 rm-hugepages --sysroot "$ROOT" apply --dry-run "$CONF"
	assert_output "$(printf '%s\n' \
		'size=2MiB node=0 total=10 free=- reserved=- surplus=- memory=20MiB' \
		'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=128 default=yes memory=0B nodes=0-1' \
		"owner=web size=2MiB limit=1GiB rsvd_limit=1GiB usage=0B rsvd_usage=0B cgroup=$CG" \
		"owner=web size=1GiB limit=max rsvd_limit=max usage=0B rsvd_usage=0B cgroup=$CG" \
		"owner=db size=1GiB limit=2GiB rsvd_limit=2GiB usage=0B rsvd_usage=0B cgroup=$CGROOT/hugetlb/rmtools/db")"
	assert_equal "$(trees_sum "$ROOT" "$CGROOT")" "$before"
	sed -i '/^limit db/d' "$CONF"
	run -0 rm-hugepages --sysroot "$ROOT" apply "$CONF" -o size,node,total
	assert_output "$(printf '%s\n' 'size=2MiB node=0 total=10' \
		'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=128 default=yes memory=0B nodes=0-1' \
		"owner=web size=2MiB limit=1GiB rsvd_limit=1GiB usage=0B rsvd_usage=0B cgroup=$CG" \
		"owner=web size=1GiB limit=max rsvd_limit=max usage=0B rsvd_usage=0B cgroup=$CG")"
	assert_equal "$(cat "$OC2")" 128
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" 1073741824
	assert_equal "$(cat "$CG/hugetlb.2MB.rsvd.limit_in_bytes")" 1073741824
	assert_equal "$(cat "$CG/hugetlb.1GB.limit_in_bytes")" -1
	run -0 rm-hugepages --sysroot "$ROOT" show -o size
	assert_line --partial 'pool=2MiB total=0 free=0 reserved=0 surplus=0 overcommit=128 '
	# again: the same result; JSON has the pools and the limits
	run -0 rm-hugepages --sysroot "$ROOT" apply "$CONF" -J
	run -0 jq -c '[.pools[0].overcommit, [.limits[].limit]]' <<<"$output"
	assert_output '[128,["1073741824","max"]]'
}

# The one line of stderr for FILE's TEXT is "FILE:MESSAGE", exit status 2, the trees unchanged.
bad_conf() {
	local text=$1 msg=$2 before
	printf '%s\n' "$text" >"$CONF"
	before=$(trees_sum "$ROOT" "$CGROOT")
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-hugepages: $CONF:$msg"
	assert_equal "$(trees_sum "$ROOT" "$CGROOT")" "$before"
}

@test "apply: a malformed overcommit or limit line is named by line and column, exit 2, nothing changed" {
	make_tree "$ROOT" 0:8G 1:8G
	cgroup_tree
	bad_conf $'2M count=4\novercommit 1G 2' \
		"2:12: the kernel refuses overcommit for gigantic pages such as 1GiB (they are never allocated on demand; reserve them): '1G'"
	bad_conf 'overcommit' "1:1: missing the page size: 'overcommit'"
	bad_conf '  overcommit 2M' "1:3: missing the count or amount after the size: '2M'"
	bad_conf 'overcommit 3M 1' "1:12: unknown page size: '3M' (this machine offers 2MiB, 1GiB)"
	bad_conf 'overcommit 2M 1.5' "1:15: invalid count: '1.5'"
	bad_conf 'overcommit 2M 3MiB' "1:15: not a whole number of 2MiB pages: '3MiB'"
	bad_conf 'overcommit 2M +4' "1:15: a configuration sets counts, it does not add: '+4'"
	bad_conf 'overcommit 2M 4 8' "1:17: unexpected word: '8'"
	bad_conf 'overcommit 2M count=4' "1:15: invalid count: 'count=4'"
	bad_conf $'overcommit 2M 4\n# x\novercommit 2MiB 1GiB' \
		"3:12: the overcommit of 2MiB pages is set on line 1 already"
	bad_conf 'limit' "1:1: missing the owner: 'limit'"
	bad_conf 'limit web' "1:1: missing the page size after the owner: 'web'"
	bad_conf 'limit web 2M' "1:1: missing COUNT, AMOUNT or max after the size: '2M'"
	bad_conf 'limit ../x 2M 1' "1:7: invalid owner name: '../x'"
	bad_conf 'limit shared 2M 1' "1:7: invalid owner name: 'shared' names rm-cpuset's shared pool"
	bad_conf 'limit web 4M 1' "1:11: unknown page size: '4M' (this machine offers 2MiB, 1GiB)"
	bad_conf 'limit web 2M 3MiB' "1:14: not a whole number of 2MiB pages: '3MiB'"
	bad_conf 'limit web 2M +1' "1:14: invalid limit (a count, an amount or max): '+1'"
	bad_conf 'limit web 2M max 1' "1:18: unexpected word: '1'"
	bad_conf $'limit web 2M 1\nlimit web 2M max' "2:7: the 2MiB limit of owner web is set on line 1 already"
	# a good line before a bad one changes nothing either
	bad_conf $'2M node=0 count=4\novercommit 2M 8\nlimit web 2M 1\nlimit web 1G 1.5' \
		"4:14: invalid count: '1.5'"
}

@test "apply: limits where cpuset shares the unified hierarchy need an rm-cpuset owner" {
	make_tree "$ROOT" 0:8G
	CGROOT=$BATS_TEST_TMPDIR/cg2
	mkdir -p "$CGROOT/unified/rmtools.slice"
	echo 'cpuset hugetlb' >"$CGROOT/unified/cgroup.controllers"
	export RM_CGROUP_ROOT=$CGROOT
	bad_conf $'overcommit 2M 8\nlimit db 2M 2' \
		"2:7: no rm-cpuset owner of that name: 'db' (cpuset and hugetlb share the unified hierarchy here, so an owner's hugetlb limit lives in its rm-cpuset cgroup: make the owner first with rm-cpuset alloc --owner db --shared, or --count N for exclusive CPUs)"
}

@test "apply: limit lines without a hugetlb controller fail before anything changes" {
	make_tree "$ROOT" 0:8G
	export RM_CGROUP_ROOT=$BATS_TEST_TMPDIR/none
	mkdir -p "$RM_CGROUP_ROOT"
	printf '2M count=4\novercommit 2M 8\nlimit web 2M 2\n' >"$CONF"
	local before
	before=$(trees_sum "$ROOT")
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	assert_equal "$stderr" "rm-hugepages: $CONF:3:7: no hugetlb cgroup controller is mounted (v1 hugetlb or the unified hierarchy's hugetlb): '$RM_CGROUP_ROOT'"
	assert_equal "$(trees_sum "$ROOT")" "$before"
}

@test "apply: a limit that fails puts back the pools, overcommit, earlier limits and cgroups made" {
	make_tree "$ROOT" 0:8G 1:8G
	cgroup_tree
	# limits the tree holds as numbers (v1 reads back "no limit" as one it does not take)
	printf '2M node=0 count=10\novercommit 2M 128\nlimit web 2M 1GiB\nlimit web 1G 8\n' >"$CONF"
	run -0 rm-hugepages --sysroot "$ROOT" apply "$CONF"
	local before
	before=$(trees_sum "$ROOT" "$CGROOT")
	# db's cgroup is made, but (a test tree) has no limit files: the last step fails
	cat >"$CONF" <<-'EOF'
	2M node=0 count=20
	1G node=1 count=2
	overcommit 2M 256
	limit web 2M 2GiB
	limit web 1G 1
	limit db 2M 1GiB
	EOF
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	assert_output ''
	assert_equal "$stderr" "rm-hugepages: $CONF:6: the hugetlb controller has no 2MB limit: '$CGROOT/hugetlb/rmtools/db/hugetlb.2MB.limit_in_bytes'; everything done is undone"
	assert_equal "$(trees_sum "$ROOT" "$CGROOT")" "$before"
	[ ! -e "$CGROOT/hugetlb/rmtools/db" ]
	assert_equal "$(count "$ROOT" 2048 0) $(count "$ROOT" 1048576 1) $(cat "$OC2")" "10 0 128"
	assert_equal "$(cat "$CG/hugetlb.2MB.limit_in_bytes")" 1073741824
}

@test "apply: on cgroup v2 the parent and +hugetlb it added go with the failure too" {
	make_tree "$ROOT" 0:8G
	CGROOT=$BATS_TEST_TMPDIR/cg2
	mkdir -p "$CGROOT/unified"
	echo hugetlb >"$CGROOT/unified/cgroup.controllers"
	: >"$CGROOT/unified/cgroup.subtree_control"
	export RM_CGROUP_ROOT=$CGROOT
	printf 'overcommit 2M 16\nlimit web 2M 4\n' >"$CONF"
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	# a directory made in a tree has no cgroup files: enabling hugetlb in the parent fails
	assert_equal "$stderr" "rm-hugepages: $CONF:2: cannot write '+hugetlb' to $CGROOT/unified/rmtools.slice/cgroup.subtree_control: No such file or directory; everything done is undone"
	[ ! -e "$CGROOT/unified/rmtools.slice" ]
	# a tree keeps what was written: "+hugetlb", then "-hugetlb" that undoes it
	assert_equal "$(cat "$CGROOT/unified/cgroup.subtree_control")" -hugetlb
	assert_equal "$(cat "$OC2")" 0
}

@test "fake: apply writes the overcommit once, read back; a failed limit writes it back" {
	require_hp_fuse
	start_hp_fake "$ROOT" --node 0:4G --node 1:4G
	cgroup_tree
	printf '2M node=1 count=8\novercommit 2M 32\nlimit db 2M 4\n' >"$CONF"
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	[[ $stderr == *"; everything done is undone" ]]
	run -0 cat "$ROOT/fake/log"
	assert_output "$(cat <<-EOF
	sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages 8
	sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages 32
	sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages 0
	sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages 0
	EOF
	)"
	run -0 rm-hugepages --sysroot "$ROOT" overcommit 2M 32 -o overcommit
	assert_output 'overcommit=32'
	assert_equal "$(cat "$ROOT/proc/sys/vm/nr_overcommit_hugepages")" 32
}

# ---- this machine, as root ----

@test "root: overcommit of 2 MiB pages set, read back and shown; 1 GiB refused as the kernel does" {
	require_machine
	unset RM_SYSROOT RM_CGROUP_ROOT
	local f=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
	local g=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages before
	before=$(cat "$f")
	run -0 rm-hugepages overcommit 2M $((before + 16)) -o pool,overcommit
	assert_output "pool=2MiB overcommit=$((before + 16))"
	assert_equal "$(cat "$f")" $((before + 16))
	assert_equal "$(cat /proc/sys/vm/nr_overcommit_hugepages)" $((before + 16))
	run -0 rm-hugepages show
	assert_line --regexp "^pool=2MiB .* overcommit=$((before + 16)) "
	if [ -e "$g" ]; then
		local g_before
		g_before=$(cat "$g")
		run -2 --separate-stderr rm-hugepages overcommit 1G 1
		[[ $stderr == *"the kernel refuses overcommit for gigantic pages such as 1GiB"* ]]
		assert_equal "$(cat "$g")" "$g_before"
		# the kernel says so too (restore_machine puts it back should it not)
		run ! bash -c "echo 1 >$g"
	fi
	run -0 rm-hugepages overcommit 2M "$before" -o overcommit
	assert_output "overcommit=$before"
}

@test "root: apply sets overcommit and a limit; a later mount that fails undoes them" {
	local owner=rmtest$$ before conf=$BATS_TEST_TMPDIR/hugepages.conf
	local f=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
	require_machine
	unset RM_SYSROOT RM_CGROUP_ROOT
	require_unified_hugetlb
	test_cgroup "$owner"
	before=$(cat "$f")
	# the mount's directory cannot be made (/proc); the limit comes after it and is not set
	printf 'overcommit 2M %d\nmount /proc/rmtools-test size=2M\nlimit %s 2M 4\n' \
		$((before + 8)) "$owner" >"$conf"
	run -1 --separate-stderr rm-hugepages apply "$conf"
	[[ $stderr == "rm-hugepages: $conf:2: cannot create /proc/rmtools-test: "*"; everything done is undone" ]]
	assert_equal "$(cat "$f")" "$before"
	[ ! -e /sys/fs/cgroup/unified/rmtools.slice/"$owner" ]
	# without the mount: both are set
	printf 'overcommit 2M %d\nlimit %s 2M 4\n' $((before + 8)) "$owner" >"$conf"
	run -0 rm-hugepages apply "$conf" -o size
	assert_line --regexp "^pool=2MiB .* overcommit=$((before + 8)) "
	assert_line --regexp "^owner=$owner size=2MiB limit=8MiB "
	assert_equal "$(cat "$f")" $((before + 8))
	assert_equal "$(cat /sys/fs/cgroup/unified/rmtools.slice/"$owner"/hugetlb.2MB.max)" 8388608
	run -0 rm-hugepages limit "$owner" --remove
}

@test "overcommit +COUNT: a current value too large to add to is refused, nothing changed" {
	make_tree "$ROOT" 0:8G
	echo 18446744073709551615 >"$OC2"
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" overcommit 2M +1
	assert_equal "$stderr" "rm-hugepages: count too large: '+1'"
	assert_equal "$(cat "$OC2")" 18446744073709551615
}

# A unified hierarchy that also holds cpuset, with rm-cpuset's cgroup of owner web.
cpuset_tree() {
	local f
	CGROOT=$BATS_TEST_TMPDIR/cg2
	CG=$CGROOT/unified/rmtools.slice/web
	mkdir -p "$CG"
	echo 'cpuset hugetlb' >"$CGROOT/unified/cgroup.controllers"
	echo +hugetlb >"$CGROOT/unified/cgroup.subtree_control"
	echo +hugetlb >"$CGROOT/unified/rmtools.slice/cgroup.subtree_control"
	for f in hugetlb.2MB hugetlb.1GB; do
		echo max >"$CG/$f.max"
		echo max >"$CG/$f.rsvd.max"
		echo 0 >"$CG/$f.current"
		echo 0 >"$CG/$f.rsvd.current"
	done
	: >"$CG/cgroup.procs"
	export RM_CGROUP_ROOT=$CGROOT
}

@test "limit --dry-run refuses an owner without an rm-cpuset cgroup as the run does" {
	make_tree "$ROOT" 0:8G
	cpuset_tree
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" limit db 2M 2 --dry-run
	assert_equal "$output" ""
	[[ $stderr == "rm-hugepages: no rm-cpuset owner of that name: 'db' "* ]]
	run -0 rm-hugepages --sysroot "$ROOT" limit web 2M 2 --dry-run -o limit
	assert_output 'limit=4MiB'
}

@test "limit --remove in rm-cpuset's cgroup lifts every size's limit or none" {
	make_tree "$ROOT" 0:8G
	cpuset_tree
	run -0 rm-hugepages --sysroot "$ROOT" limit web 2M 2 -o limit
	assert_equal "$(cat "$CG/hugetlb.2MB.max")" 4194304
	# the 1 GiB limit cannot be read: the 2 MiB one, lifted first, is put back
	rm "$CG/hugetlb.1GB.max"
	mkdir "$CG/hugetlb.1GB.max"
	run -1 --separate-stderr rm-hugepages --sysroot "$ROOT" limit web --remove
	assert_equal "$stderr" "rm-hugepages: cannot read $CG/hugetlb.1GB.max: Is a directory"
	assert_equal "$(cat "$CG/hugetlb.2MB.max")" 4194304
}

@test "apply: a control byte in a line is shown escaped, the message stays one line" {
	make_tree "$ROOT" 0:8G
	cgroup_tree
	bad_conf $'limit a\rb' "1:1: missing the page size after the owner: 'a\\x0db'"
	bad_conf $'overcommit 2\rM' "1:1: missing the count or amount after the size: '2\\x0dM'"
	bad_conf $'mount /a\rb' "1:1: missing size=: '/a\\x0db'"
}
