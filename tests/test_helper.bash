# SPDX-License-Identifier: GPL-2.0-or-later
# Common set-up for the bats tests: build tree first in PATH, C locale, private HOME.
#
# The tests are laid out as util-linux lays out its own:
#   tests/*.bats                 the libraries' tests (libcommon, state, cpualloc, cgroup, input)
#                                and the documentation's (docs)
#   tests/rm-TOOL.bats           a tool's commands, options and errors
#   tests/rm-TOOL/               one folder per tool: a bats file per further subject
#                                (rm-topo/draw.bats, ...), and the tool's helpers and inputs
#   tests/expected/rm-TOOL/NAME  golden files: what a command of the tool prints, as assert_golden
#                                (below) compares it
#   tests/contract/              what every tool promises alike: bad input changes nothing, a lost
#                                report is said (exit status, one line)
#   tests/snapshots/             /sys and /proc trees for --sysroot (see README.md there)
#   tests/unit/                  C programs the bats files run (make check builds them)
#   tests/fuzz/                  libFuzzer harnesses and their corpora
#   tests/vm/                    the real-kernel lab, apart from make check (see README.md there)
#   tests/fake-*.py              FUSE fakes of kernel file systems (mount_fake below)
# tests/rm-TOOL.bats loads test_helper and rm-TOOL/helper; a bats file of a folder loads
# ../test_helper and its folder's helpers by their bare names.
# make check runs the bats files that TESTS lists in tests/Makemodule.am (docs.bats checks that
# it lists every one); what they read besides goes in EXTRA_DIST there (tests/expected whole).
#
# Golden files: a long expected listing (6 lines or more) is kept in tests/expected/rm-TOOL/NAME
# rather than in the test, which says
#	run -0 rm-topo --topology "$SMALL" cpus
#	assert_golden rm-topo cpus-synthetic
# Short expectations stay inline, where they read better. After a deliberate change of output,
# run the tests concerned with RM_REGENERATE=1: assert_golden then writes each output to its
# file instead of comparing (and says so), and the change is read in the diff:
#	RM_REGENERATE=1 bats tests/rm-topo.bats
#	git diff tests/expected/
# A new golden file is made the same way: write the assert_golden line, then regenerate.

bats_require_minimum_version 1.8.0
bats_load_library bats-support
bats_load_library bats-assert

# the source tree: the nearest directory above the test holding configure.ac
if [ -z "${RM_SRCDIR:-}" ]; then
	RM_SRCDIR=$BATS_TEST_DIRNAME
	while [ ! -f "$RM_SRCDIR/configure.ac" ] && [ "$RM_SRCDIR" != / ]; do
		RM_SRCDIR=$(dirname "$RM_SRCDIR")
	done
fi
RM_BUILDDIR=${RM_BUILDDIR:-$RM_SRCDIR}
PATH="$RM_BUILDDIR:$PATH"
export LC_ALL=C HOME="$BATS_TEST_TMPDIR" PATH RM_SRCDIR RM_BUILDDIR
unset RM_SYSROOT RM_TOPOLOGY RM_STATE_DIR RM_CONFIG_DIR RM_CGROUP_ROOT RM_RESCTRL_ROOT

# Snapshots kept in the project, and the shared real-machine fixtures (may be absent).
SNAPSHOTS="$RM_SRCDIR/tests/snapshots"
FIXTURES="${RM_FIXTURES:-$RM_SRCDIR/../shared/fixtures/lscpu}"

# Skip, visibly, unless root.
require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

require_fixtures() {
	[ -d "$FIXTURES" ] || skip "../shared/fixtures is absent"
}

# The value of KEY in the first record of $output that has it.
field() {
	printf '%s\n' "$output" | grep -o "\(^\| \)$1=[^ ]*" | head -n 1 | sed "s/^ *$1=//"
}

# Exit status 2, nothing on stdout, and one line on stderr holding MESSAGE, which starts with
# the program's name ("rm-topo: " or "rm-topo cpus: "): usage_error MESSAGE COMMAND [ARGS...]
usage_error() {
	local msg=$1
	shift
	run -2 --separate-stderr "$@"
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} =~ ^rm-[a-z]+(\ [a-z]+)?:\  ]] ||
		fail "first line of stderr does not start with the program's name: '${stderr_lines[0]}'"
	[[ ${stderr_lines[0]} == *"$msg"* ]] ||
		fail "first line of stderr: '${stderr_lines[0]}', expected: '$msg'"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "more than one line on stderr: '$stderr'"
}

# ---- expected outputs: golden files ----

# assert_golden TOOL NAME [TEXT]: TEXT ("$output" when not given) is the golden file
# tests/expected/TOOL/NAME, compared whole, as "$(cat FILE)" (trailing newlines aside); a
# difference fails with a diff. The test's and the file's temporary directories are written
# $BATS_TEST_TMPDIR and $BATS_FILE_TMPDIR, so that the file holds no path of one run. With
# RM_REGENERATE=1 it writes TEXT to the file instead, and says so on the TAP stream.
assert_golden() {
	local tool=$1 name=$2 text file expected
	if [ "$#" -ge 3 ]; then text=$3; else text=$output; fi
	file=$RM_SRCDIR/tests/expected/$tool/$name
	[ -z "${BATS_TEST_TMPDIR:-}" ] || text=${text//"$BATS_TEST_TMPDIR"/'$BATS_TEST_TMPDIR'}
	[ -z "${BATS_FILE_TMPDIR:-}" ] || text=${text//"$BATS_FILE_TMPDIR"/'$BATS_FILE_TMPDIR'}
	if [ "${RM_REGENERATE:-}" = 1 ]; then
		mkdir -p "${file%/*}"
		printf '%s\n' "$text" >"$file"
		echo "# RM_REGENERATE=1: wrote tests/expected/$tool/$name" >&3
		return 0
	fi
	if [ ! -f "$file" ]; then
		fail "no golden file tests/expected/$tool/$name (RM_REGENERATE=1 writes it from the output)"
		return
	fi
	expected=$(cat "$file")
	[ "$text" = "$expected" ] ||
		fail "differs from tests/expected/$tool/$name (- expected, + actual):
$(diff -u --label "tests/expected/$tool/$name" --label output "$file" - <<<"$text" | tail -n +3)"
}

# ---- FUSE fakes of kernel file systems (tests/fake-*.py) ----

# Debian's python3, which sees python3-fusepy (a python3 earlier in PATH may not)
PY=${RM_PYTHON:-/usr/bin/python3}
MOUNTS=() FAKE_PIDS=()

# Skip, visibly, unless root can mount the fakes.
require_fuse() {
	require_root
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	"$PY" -c 'import fusepy' 2>/dev/null || "$PY" -c 'import fuse' 2>/dev/null ||
		skip "python3-fusepy is not installed (apt-get install python3-fusepy fuse3)"
}

# mount_fake FAKE DIR [options]: mount tests/FAKE (fake-cgroupfs.py, ...) at DIR until teardown
# (fakes_cleanup), once the mount is there; the server's stderr in $BATS_TEST_TMPDIR/FAKE.log.
mount_fake() {
	local fake=$RM_SRCDIR/tests/$1 dir=$2 log=$BATS_TEST_TMPDIR/${1%.py}.log fpid
	shift 2
	[ -f "$fake" ] || skip "$fake is absent"
	mkdir -p "$dir"
	fpid=$("$PY" "$fake" "$dir" "$@" --background --log "$log") ||
		fail "${fake##*/} did not mount $dir: $(cat "$log")"
	MOUNTS+=("$dir")
	FAKE_PIDS+=("$fpid")
}

# In teardown: unmount every fake; their servers then exit.
fakes_cleanup() {
	local m p i
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2>/dev/null || fusermount -u "$m" 2>/dev/null || true
	done
	for p in "${FAKE_PIDS[@]}"; do
		for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill "$p" 2>/dev/null || true
	done
	MOUNTS=() FAKE_PIDS=()
}
