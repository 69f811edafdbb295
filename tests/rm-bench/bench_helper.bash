# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for rm-bench's tests: well-formed records and JSON, fields of one record kind.

# A record value: bare or double-quoted with \" \\ \xHH escapes.
RECORD_VALUE='([A-Za-z0-9_.,:/+@%-]+|"([^"\\]|\\["\\]|\\x[0-9a-fA-F]{2})*")'
RECORD_RE="^[a-z][a-z0-9_]*=$RECORD_VALUE( [a-z][a-z0-9_]*=$RECORD_VALUE)*\$"

# Every line of $output is a well-formed record whose first key is one of KINDS (a | list).
assert_records() {
	local kinds=$1 line n=0
	[ -n "$output" ] || fail "no records"
	while IFS= read -r line; do
		[[ $line =~ $RECORD_RE ]] || fail "not a record: '$line'"
		[[ ${line%%=*} =~ ^($kinds)$ ]] || fail "unexpected record kind: '$line'"
		n=$((n + 1))
	done <<<"$output"
	[ "$n" -gt 0 ]
}

# $output is one JSON document; print the result of the Python expression EXPR on it (bound to
# d), one item a line when it is a list.
json_eval() {
	/usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
r = eval(sys.argv[1])
for x in (r if isinstance(r, list) else [r]):
    print(json.dumps(x) if isinstance(x, (dict, list, bool)) or x is None else x)
' "$1" <<<"$output"
}

# The value of FIELD in the record of $output that matches the extended regexp PATTERN.
field_of() {
	printf '%s\n' "$output" | grep -E -- "$1" | head -n 1 | grep -o "\(^\| \)$2=[^ ]*" |
		sed "s/^ *$2=//"
}

# Free 2 MiB huge pages on node 0 (0 when there is no such counter).
free_2m_pages() {
	cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null ||
		echo 0
}

# The CPUs of this machine, and the last of them.
ONLINE=$(cat /sys/devices/system/cpu/online)
NCPUS=$(nproc --all)
LAST_CPU=$((NCPUS - 1))

# As test_helper's usage_error, but a command's name may hold digits ("rm-bench c2c: ...").
usage_error() {
	local msg=$1
	shift
	run -2 --separate-stderr "$@"
	assert_equal "$output" ""
	[[ ${stderr_lines[0]} =~ ^rm-[a-z]+(\ [a-z0-9]+)?:\  ]] ||
		fail "first line of stderr does not start with the program's name: '${stderr_lines[0]}'"
	[[ ${stderr_lines[0]} == *"$msg"* ]] ||
		fail "first line of stderr: '${stderr_lines[0]}', expected: '$msg'"
}

# The machine's own resctrl stays out of the records the tests compare; tests of the counters
# mount a fake and point RM_RESCTRL_ROOT at it.
export RM_RESCTRL_ROOT=/nonexistent/resctrl
