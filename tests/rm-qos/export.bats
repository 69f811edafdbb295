#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-qos export over a fake cgroup v2 tree: the Prometheus text format, as Debian's promtool
# checks it (fetched by tests/promtool.sh), to standard output and to a file replaced atomically.

load ../test_helper
load helper

setup_file() {
	# fetched once for the file; where the archive is reachable it always is
	PROMTOOL=$("$RM_SRCDIR/tests/promtool.sh" 2>"$BATS_FILE_TMPDIR/promtool.err") || PROMTOOL=
	export PROMTOOL
}

# The test skips here, saying why, when there is no promtool (checks before it have run).
need_promtool() {
	[ -n "$PROMTOOL" ] || skip "no promtool: $(tail -n 1 "$BATS_FILE_TMPDIR/promtool.err")"
}

promtool() {
	"$PROMTOOL" "$@"
}

@test "export: every owner's counters, as the golden file has them; promtool accepts them" {
	run -0 --separate-stderr rm-qos export
	assert_golden rm-qos export
	assert_equal "$stderr" ""
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/m.prom"
	need_promtool
	run -0 promtool check metrics <"$BATS_TEST_TMPDIR/m.prom"
	assert_output ''
}

@test "export: promtool refuses what breaks the conventions, so its check can fail" {
	need_promtool
	rm-qos export >"$BATS_TEST_TMPDIR/m.prom"
	sed 's/rmtools_cpu_usage_seconds_total/rmtools_cpu_usage_ms/' "$BATS_TEST_TMPDIR/m.prom" >"$BATS_TEST_TMPDIR/bad.prom"
	run promtool check metrics <"$BATS_TEST_TMPDIR/bad.prom"
	[ "$status" -ne 0 ] || fail "promtool accepted: $output"
	assert_output --partial 'rmtools_cpu_usage_ms'
}

@test "export OWNER: only those named; a busy owner's counters grow; no PSI leaves pressure out" {
	run -0 rm-qos export web
	refute_output --partial 'owner="db"'
	assert_line 'rmtools_owner_info{owner="web",kind="owner",cpus="4-5"} 1'
	assert_line 'rmtools_io_read_bytes_total{owner="web",device="8:0"} 4096'
	refute_output --partial 'rmtools_memory_high_bytes'
	busy web
	sleep 0.3
	run -0 rm-qos export web
	[[ $output =~ rmtools_cpu_usage_seconds_total\{owner=\"web\"\}\ ([0-9.]+) ]] || fail "$output"
	awk -v u="${BASH_REMATCH[1]}" 'BEGIN { exit !(u > 0.001) }' || fail "no CPU time: $output"
	stop_busy
	rm -r "$S/proc/pressure"
	for f in cpu memory io; do rm "$CG/rmtools.slice/"*/"$f.pressure"; done
	run -0 --separate-stderr rm-qos export db system
	refute_output --partial 'rmtools_pressure_'
	assert_line 'rmtools_memory_oom_kills_total{owner="db"} 2'
	assert_line 'rmtools_owner_info{owner="system",kind="system",cpus=""} 1'
	need_promtool
	printf '%s\n' "$output" | promtool check metrics
}

@test "export --output: the file replaced atomically, mode 0644, the same text; stdout empty" {
	local f=$BATS_TEST_TMPDIR/node-exporter/rmtools.prom ino
	mkdir "$BATS_TEST_TMPDIR/node-exporter"
	echo old >"$f"
	ino=$(stat -c %i "$f")
	run -0 --separate-stderr rm-qos export --output "$f"
	assert_output ''
	[ "$(stat -c '%a %F' "$f")" = "644 regular file" ] || fail "$(stat -c '%a %F' "$f")"
	[ "$(stat -c %i "$f")" != "$ino" ] || fail "written in place, not renamed over"
	diff <(rm-qos export) "$f"
	run -0 ls -A "$BATS_TEST_TMPDIR/node-exporter"
	assert_output 'rmtools.prom'
	need_promtool
	promtool check metrics <"$f"
}

@test "export --output: a symlink or directory refused (exit 2, untouched); a missing folder exits 1" {
	local d=$BATS_TEST_TMPDIR/out
	mkdir "$d" "$d/dir"
	echo keep >"$d/target"
	ln -s target "$d/link"
	usage_error "" rm-qos export --output "$d/link"
	[ "$(cat "$d/target")" = keep ] && [ -L "$d/link" ] || fail "the symlink or its target changed"
	usage_error "" rm-qos export -o "$d/dir"
	usage_error "no file name given to --output: ''" rm-qos export --output ''
	usage_error "invalid owner name: '../x'" rm-qos export ../x
	run -1 --separate-stderr rm-qos export --output "$d/none/m.prom"
	assert_output ''
	[[ $stderr == "rm-qos: "*"$d/none/m.prom"* ]] || fail "$stderr"
	run -0 ls -A "$d"
	assert_output $'dir\nlink\ntarget'
}
