#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What every tool's outputs promise (-o FILE, --svg FILE, --root DIR) and where rm-hugepages
# mounts: a regular file or nothing at the path is replaced; a character device or a FIFO is
# written into, never replaced; a symlink is refused with exit 2 and nothing changed; nothing
# below --root is followed; a mount point is reached without links, in directories only root
# can change.
load ../test_helper

T="package:1 numa:1 core:4 pu:1"

setup() {
	export RM_STATE_DIR="$BATS_TEST_TMPDIR/state"
	D=
}

teardown() {
	local m
	[ -n "$D" ] || return 0
	# a mount the old code made through a planted link, then the directories
	for m in $(findmnt -rn -o TARGET | grep "^$D/" | sort -r); do umount "$m"; done
	rm -rf "$D"
}

# A directory in /tmp that the user nobody can reach, removed with what is mounted in it.
nobody_dir() {
	D=$(mktemp -d /tmp/rmtools-outputs.XXXXXX)
	chmod 0755 "$D"
}

# The commands that write an output FILE, each as one string for eval.
writers() {
	printf '%s\n' \
		"rm-topo --topology '$T' draw --svg \"\$1\"" \
		"rm-topo --topology '$T' export nrt -o \"\$1\"" \
		"rm-topo --topology '$T' export nfd --output \"\$1\"" \
		"rm-cpuset --topology '$T' export slurm --node-name n -o \"\$1\"" \
		"rm-bench plot --output \"\$1\" '$RM_SRCDIR/tests/rm-bench/plot/latency.rec'"
}

# write CMD FILE: run the writer CMD (from writers) with FILE as its output.
write() {
	eval "set -- \"\$2\"; $1"
}

@test "outputs: a character device is written into, never replaced" {
	require_root
	local null=$BATS_TEST_TMPDIR/dev/null cmd before
	mkdir "$BATS_TEST_TMPDIR/dev"
	mknod -m 0666 "$null" c 1 3
	before=$(stat -c %F:%t:%T:%a:%i "$null")
	rm-cpuset --topology "$T" reserve 0 >/dev/null
	while read -r cmd; do
		run -0 --separate-stderr write "$cmd" "$null"
		assert_equal "$(stat -c %F:%t:%T:%a:%i "$null")" "$before"
	done < <(writers)
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/dev")" null
}

@test "outputs: a FIFO is written into: its reader gets the whole output" {
	local fifo=$BATS_TEST_TMPDIR/fifo got=$BATS_TEST_TMPDIR/got cmd want
	mkfifo "$fifo"
	rm-cpuset --topology "$T" reserve 0 >/dev/null
	while read -r cmd; do
		write "$cmd" "$BATS_TEST_TMPDIR/plain"
		want=$(cat "$BATS_TEST_TMPDIR/plain")
		timeout 20 cat "$fifo" >"$got" &
		run -0 --separate-stderr write "$cmd" "$fifo"
		wait $!
		[ -p "$fifo" ] || fail "$cmd replaced the FIFO"
		assert_equal "$(cat "$got")" "$want"
		rm -f "$BATS_TEST_TMPDIR/plain"
	done < <(writers)
}

@test "outputs: a symlink at the name is refused with exit 2, nothing changed" {
	local dir=$BATS_TEST_TMPDIR/out link cmd
	mkdir "$dir"
	echo keep >"$dir/target"
	ln -s target "$dir/link"
	ln -s /dev/null "$dir/null"
	rm-cpuset --topology "$T" reserve 0 >/dev/null
	while read -r cmd; do
		for link in link null; do
			run -2 --separate-stderr write "$cmd" "$dir/$link"
			assert_equal "$output" ""
			[[ $stderr == *"not a symlink: '$dir/$link'" ]] || fail "$cmd: '$stderr'"
		done
		assert_equal "$(cat "$dir/target")" keep
		assert_equal "$(readlink "$dir/link"):$(readlink "$dir/null")" target:/dev/null
		assert_equal "$(ls -A "$dir" | xargs)" "link null target"
	done < <(writers)
	[ -c /dev/null ]
	# a directory is refused as well, before anything is drawn
	mkdir "$dir/sub"
	usage_error "not a directory: '$dir/sub'" rm-topo --topology "$T" draw --svg "$dir/sub"
}

@test "outputs: a regular file is replaced whole, its old inode left as it was" {
	local file=$BATS_TEST_TMPDIR/labels
	echo old >"$file"
	ln "$file" "$BATS_TEST_TMPDIR/other-name"
	run -0 rm-topo --topology "$T" export nfd -o "$file"
	run -0 grep -c rmtools-numa-nodes=1 "$file"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/other-name")" old
	assert_equal "$(stat -c %a "$file")" 644
}

@test "mount: a link planted by another user in their directory is refused, nothing mounted" {
	require_root
	[ -d /sys/kernel/mm/hugepages/hugepages-2048kB ] || skip "no 2 MiB huge pages"
	nobody_dir
	mkdir "$D/target" "$D/d"
	chown nobody "$D/d"
	runuser -u nobody -- ln -s "$D/target" "$D/d/mnt"
	usage_error "a mount point must lie in directories only root can change: '$D/d' is owned by another user" \
		rm-hugepages mount "$D/d/mnt" --size 2M --uid nobody --mode 0777
	run -32 mountpoint -q "$D/target"
	# in a shared sticky directory (as /tmp), the link itself is refused
	chmod 1777 "$D"
	runuser -u nobody -- ln -s "$D/target" "$D/link"
	usage_error "a mount point is not reached through a symlink: '$D/link'" \
		rm-hugepages mount "$D/link" --size 2M
	run -32 mountpoint -q "$D/target"
	usage_error "a mount point is not reached through a symlink: '$D/link'" \
		rm-hugepages mount "$D/link/sub" --size 2M
	[ ! -e "$D/target/sub" ]
	# a directory a user made there is theirs to swap: refused too
	runuser -u nobody -- mkdir "$D/mine"
	usage_error "a mount point must be owned by root: '$D/mine'" \
		rm-hugepages mount "$D/mine" --size 2M
	run -32 mountpoint -q "$D/mine"
	# root's own directory there is mounted on, and the directory made is a real one
	run -0 rm-hugepages mount "$D/target/sub" --size 2M -o mount
	assert_output "mount=$D/target/sub"
	run -0 mountpoint -q "$D/target/sub"
	# nor is a mount unmounted through a link
	usage_error "a mount point is named by its own path, no symlink, '.' or '..': '$D/link/sub' is '$D/target/sub'" \
		rm-hugepages umount "$D/link/sub"
	run -0 mountpoint -q "$D/target/sub"
	run -0 rm-hugepages umount "$D/target/sub"
	run -32 mountpoint -q "$D/target/sub"
}

@test "export systemd --root: a symlinked directory below DIR is refused, nothing written" {
	local r=$BATS_TEST_TMPDIR/root else=$BATS_TEST_TMPDIR/elsewhere
	rm-cpuset --topology "$T" reserve 0-1 >/dev/null
	mkdir -p "$r" "$else"
	ln -s "$else" "$r/etc"
	usage_error "a symlink below --root is not followed: '$r/etc'" \
		rm-cpuset --topology "$T" export systemd --root "$r"
	assert_equal "$(ls -A "$else")" ""
	# deeper down, and for the last drop-in only: refused before the first is written
	rm "$r/etc"
	mkdir -p "$r/etc/systemd/system"
	ln -s "$else" "$r/etc/systemd/system/init.scope.d"
	usage_error "a symlink below --root is not followed: '$r/etc/systemd/system/init.scope.d'" \
		rm-cpuset --topology "$T" export systemd --root "$r"
	assert_equal "$(cd "$r" && find . | sort | xargs)" \
		". ./etc ./etc/systemd ./etc/systemd/system ./etc/systemd/system/init.scope.d"
	assert_equal "$(ls -A "$else")" ""
	# a drop-in that is a link
	rm "$r/etc/systemd/system/init.scope.d"
	mkdir "$r/etc/systemd/system/init.scope.d"
	ln -s "$else/x" "$r/etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf"
	usage_error "a symlink below --root is not followed: '$r/etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf'" \
		rm-cpuset --topology "$T" export systemd --root "$r"
	assert_equal "$(ls -A "$else")" ""
	# without links, the four drop-ins are written below DIR
	rm "$r/etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf"
	run -0 rm-cpuset --topology "$T" export systemd --root "$r"
	assert_equal "${#lines[@]}" 4
	assert_equal "$(find "$r" -type f | wc -l)" 4
	run -0 cat "$r/etc/systemd/system/init.scope.d/50-rmtools-cpuset.conf"
	assert_line 'AllowedCPUs=0-1'
}
