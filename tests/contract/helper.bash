# SPDX-License-Identifier: GPL-2.0-or-later
# What the contract tests of every tool share: a command with its stdout closed or full.

# CMD... with its stdout redirected by REDIR.
redirected() {
	local redir=$1
	shift
	eval '"$@"' "$redir"
}

# CMD... with stdout as given by REDIR ('>&-' or '>/dev/full'): exit 4, one line that says
# the change (PHRASE) stands.
report_lost() {
	local redir=$1 phrase=$2
	shift 2
	run --separate-stderr redirected "$redir" "$@"
	[ "$status" -eq 4 ] || fail "$*: exit $status, not 4: $stderr"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "$*: more than one line: '$stderr'"
	[[ $stderr == "${1##*/}: $phrase stands, but its report could not be written"* ||
		$stderr == *"$phrase"*" stands, but its report could not be written"* ]] ||
		fail "$*: '$stderr' does not say '$phrase' stands"
}
