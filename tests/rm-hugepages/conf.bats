#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages apply: hugepages.conf(5) files against sysfs trees and the FUSE fake; every error
# named by file, line and column with nothing changed; all or nothing.
load ../test_helper
load helper

setup() {
	ROOT=$BATS_TEST_TMPDIR/root
	CONF=$BATS_TEST_TMPDIR/hugepages.conf
}

teardown() {
	hp_fakes_cleanup
}

@test "apply: sets every pool the file names, prints them, leaves the others" {
	make_tree "$ROOT" 0:16G 1:16G 2:16G:2M
	echo 7 >"$ROOT/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages"
	cat >"$CONF" <<-'EOF'
	# pages for the databases
	2M node=0 count=1024
	1G node=all amount=8GiB   # 8 GiB on each node that has 1 GiB pages

	2MiB node=1 amount=1GiB spread=yes
	EOF
	run -0 rm-hugepages --sysroot "$ROOT" apply "$CONF" -o size,node,total
	assert_output "$(printf '%s\n' 'size=2MiB node=0 total=1024' 'size=1GiB node=0 total=8' \
		'size=1GiB node=1 total=8' 'size=2MiB node=1 total=512')"
	assert_equal "$(count "$ROOT" 2048 2)" 7
	# again: nothing to do, the same result
	run -0 rm-hugepages --sysroot "$ROOT" apply "$CONF" -o total -r
	assert_output "$(printf '%s\n' 1024 8 8 512)"
	# from standard input, and the default file in RM_CONFIG_DIR
	run -0 rm-hugepages --sysroot "$ROOT" apply - -o total <<<'2M node=0 count=4'
	assert_output 'total=4'
	mkdir "$BATS_TEST_TMPDIR/etc"
	echo '2M count=9' >"$BATS_TEST_TMPDIR/etc/hugepages.conf"
	RM_CONFIG_DIR=$BATS_TEST_TMPDIR/etc run -0 rm-hugepages --sysroot "$ROOT" apply -o node,total
	assert_output "$(printf '%s\n' 'node=0 total=3' 'node=1 total=3' 'node=2 total=3')"
}

@test "apply --dry-run checks the file and prints what it would set" {
	make_tree "$ROOT" 0:16G
	local before
	before=$(tree_sum "$ROOT")
	printf '1G count=2\n2M amount=64MiB\n' >"$CONF"
	run -0 rm-hugepages --sysroot "$ROOT" apply --dry-run "$CONF"
	assert_output "$(printf '%s\n' \
		'size=1GiB node=0 total=2 free=- reserved=- surplus=- memory=2GiB' \
		'size=2MiB node=0 total=32 free=- reserved=- surplus=- memory=64MiB')"
	assert_equal "$(tree_sum "$ROOT")" "$before"
}

# The first line of stderr for FILE's TEXT is MESSAGE, exit status 2, the tree unchanged.
bad_conf() {
	local text=$1 msg=$2 before
	printf '%s\n' "$text" >"$CONF"
	before=$(tree_sum "$ROOT")
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	assert_equal "$output" ""
	assert_equal "${stderr_lines[0]}" "rm-hugepages: $CONF:$msg"
	assert_equal "$(tree_sum "$ROOT")" "$before"
}

@test "apply: a malformed line is named by line and column, exit 2, nothing changed" {
	make_tree "$ROOT" 0:16G 1:16G:2M
	bad_conf $'2M count=1\n3M count=1' "2:1: unknown page size: '3M' (this machine offers 2MiB, 1GiB)"
	bad_conf $'# x\n\n  2M cont=1' "3:6: unknown key: 'cont' (node, count, amount, spread)"
	bad_conf '2M node=0' "1:1: missing count= or amount=: '2M'"
	bad_conf '2M count=1.5' "1:10: invalid count (a number of pages): '1.5'"
	bad_conf '2M count=-5' "1:10: invalid count (a number of pages): '-5'"
	bad_conf '2M count=1GiB' "1:10: invalid count (a number of pages): '1GiB'"
	bad_conf '2M amount=512' "1:11: invalid amount (a size such as 8GiB): '512'"
	bad_conf '1G amount=1536MiB' "1:11: not a whole number of 1GiB pages: '1536MiB'"
	bad_conf '2M count=99999999999999999999' "1:10: count too large: '99999999999999999999'"
	bad_conf '2M count=+4' "1:10: a configuration sets counts, it does not add: '+4'"
	bad_conf '2M count=1 count=2' "1:12: given twice: 'count or amount'"
	bad_conf '2M count' "1:4: expected key=value: 'count'"
	bad_conf '2M node=5 count=1' "1:9: no such NUMA node: '5'"
	bad_conf '1G node=1 count=1' "1:9: NUMA node 1 offers no 1GiB pages: '1'"
	bad_conf '2M count=1 spread=maybe' "1:19: invalid spread (yes or no): 'maybe'"
	bad_conf $'2M node=0 count=1\n2M node=0-1 count=2' \
		"2:9: 2MiB pages of node 0 are set on line 1 already"
	bad_conf 'mount' "1:1: missing the mount point: 'mount'"
	bad_conf 'mount hugepages size=2M' "1:7: not an absolute path: 'hugepages'"
	bad_conf 'mount /mnt/h mode=0770' "1:1: missing size=: '/mnt/h'"
	bad_conf 'mount /mnt/h size=4M' "1:19: unknown page size: '4M' (this machine offers 2MiB, 1GiB)"
	bad_conf 'mount /mnt/h size=2M mode=999' "1:27: invalid mode (octal, as 0770): '999'"
	bad_conf 'mount /mnt/h size=2M gid=no-such-group' "1:26: no such group: 'no-such-group'"
	bad_conf 'mount /mnt/h size=2M uid=no-such-user' "1:26: no such user: 'no-such-user'"
	bad_conf 'mount /mnt/h size=1G max_size=1500M' "1:31: not a whole number of 1GiB pages: '1500M'"
	bad_conf 'mount /mnt/h size=2M size=1G' "1:22: given twice: 'size'"
	bad_conf 'mount /mnt/h size=2M bogus=1' "1:22: unknown key: 'bogus' (size, uid, gid, mode, max_size)"
	bad_conf $'mount /mnt/h size=2M\nmount /mnt/h/ size=1G' "2:7: mounted on line 1 already: '/mnt/h'"
	bad_conf "mount $BATS_TEST_TMPDIR/no/such size=2M" \
		"1:7: no such directory: '$BATS_TEST_TMPDIR/no'"
	bad_conf 'mount /proc size=2M' "1:7: already a mount point (proc): '/proc'"
}

@test "apply: a missing file, more pages than memory, nothing changed" {
	make_tree "$ROOT" 0:4G
	run -2 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$BATS_TEST_TMPDIR/none"
	assert_equal "$stderr" "rm-hugepages: cannot read $BATS_TEST_TMPDIR/none: No such file or directory"
	local before
	before=$(tree_sum "$ROOT")
	printf '2M count=1024\n1G count=4\n' >"$CONF"
	run -3 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	assert_equal "$stderr" "rm-hugepages: $CONF: not enough memory on node 0: its huge pages would hold 6GiB, the node has 4GiB (asked: 1024 pages of 2MiB); nothing changed"
	assert_equal "$(tree_sum "$ROOT")" "$before"
	run -3 --separate-stderr rm-hugepages --sysroot "$ROOT" apply --dry-run "$CONF"
	assert_output ""
	assert_equal "$stderr" "rm-hugepages: $CONF: not enough memory on node 0: its huge pages would hold 6GiB, the node has 4GiB (asked: 1024 pages of 2MiB); nothing changed"
}

@test "fake: all or nothing: the last pool falls short, every pool of every size goes back" {
	require_hp_fuse
	start_hp_fake "$ROOT" --node 0:4G --node 1:4G --unmovable 1:3G
	run -0 rm-hugepages --sysroot "$ROOT" reserve 2M 10 --node 0
	cat >"$CONF" <<-'EOF'
	2M node=0 count=100
	1G node=0 count=2
	2M node=1 count=600
	EOF
	run -3 --separate-stderr rm-hugepages --sysroot "$ROOT" apply "$CONF"
	assert_output ''
	assert_equal "$stderr" "rm-hugepages: $CONF: not enough memory for huge pages on node 1: asked 600 pages of 2MiB, obtained 512; every pool is back to its previous count"
	run -0 rm-hugepages --sysroot "$ROOT" -o size,node,total -r
	assert_line --index 0 '2MiB 0 10'
	assert_line --index 1 '2MiB 1 0'
	assert_line --index 2 '1GiB 0 0'
	# lowering the last line makes the same file fit
	sed -i 's/count=600/count=500/' "$CONF"
	run -0 rm-hugepages --sysroot "$ROOT" apply "$CONF" -o size,node,total -r
	assert_output "$(printf '%s\n' '2MiB 0 100' '1GiB 0 2' '2MiB 1 500')"
}
