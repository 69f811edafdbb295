#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Every kind of error in selectors, class files, device records and command lines: the exact
# message, exit status 2 (1 for a file that cannot be read), nothing on standard output.
load ../test_helper
load helper

# Check each "SELECTOR<TAB>COLUMN<TAB>MESSAGE" line of stdin: a class file holding the selector
# is refused by rm-class check with "rm-class: FILE:2:COLUMN: MESSAGE" (COLUMN counts from the
# selector's first byte, at column 12 of "selector = ...") and exit status 2, and by match
# --selector with "rm-class: invalid selector: line 1, column COLUMN: MESSAGE".
check_errors() {
	local min=$1 sel col msg file=$BATS_TEST_TMPDIR/t.conf failed='' n=0 want
	while IFS=$'\t' read -r sel col msg; do
		[[ -z $sel || $sel == \#* ]] && continue
		[ "$sel" = '(empty)' ] && sel=''
		printf '[class t]\nselector = %s\n' "$sel" >"$file"
		want="rm-class: $file:2:$((col + 11)): $msg"
		run -2 --separate-stderr rm-class check "$file"
		[ "$output" = "" ] || failed+=$'\n'"$sel: check printed '$output'"
		[ "$stderr" = "$want" ] || failed+=$'\n'"$sel: check said '$stderr'"$'\n'"    expected '$want'"
		run -2 --separate-stderr rm-class match --selector "$sel" </dev/null
		want="rm-class: invalid selector: line 1, column $col: $msg"
		[ "$stderr" = "$want" ] ||
			failed+=$'\n'"$sel: match --selector said '$stderr'"$'\n'"    expected '$want'"
		[ "$output" = "" ] || failed+=$'\n'"$sel: match printed '$output'"
		n=$((n + 1))
	done
	[ "$n" -ge "$min" ] || fail "only $n cases"
	assert_equal "$failed" ""
}

@test "errors: every kind of selector error, with where and what was expected" {
	check_errors 50 <<'EOF'
# the lexer
t == "abc	6	unterminated string
t == "a\qb"	8	invalid escape '\q' (\" \\ \n \t \xHH)
t == "a\x0"	8	invalid escape '\x0' (\" \\ \n \t \xHH)
t == "a\x00"	8	invalid escape '\x00' (\" \\ \n \t \xHH)
t == "a\	6	unterminated string
vendor == 0x10dg	11	invalid hex id '0x10dg'
x == 0x	6	invalid hex id '0x'
x == 0x10000000000000000	6	hex id out of range: '0x10000000000000000'
x == -0x1	6	invalid number '-0x1' (only integers take a sign)
x == -1GiB	6	invalid number '-1GiB' (only integers take a sign)
v >= 1..2	6	invalid version '1..2'
v >= 1.	6	invalid version '1.'
v >= 1.2a	6	invalid version '1.2a'
v >= 99999999999.1	6	version component out of range: '99999999999.1'
v >= 1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17	6	version with more than 16 components: '1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17'
memory >= 16XB	11	invalid size '16XB' (units: B, KiB, MiB, GiB, TiB, PiB, EiB)
memory >= 0and	11	invalid size '0and' (units: B, KiB, MiB, GiB, TiB, PiB, EiB)
memory >= 99999999EiB	11	size out of range: '99999999EiB'
n == 99999999999999999999	6	integer out of range: '99999999999999999999'
n == -9223372036854775809	6	integer out of range: '-9223372036854775809'
type = "gpu"	6	unexpected '=' (write '==')
!has(x)	1	unexpected '!' (write 'not')
type == "gpu" && x == 1	15	unexpected '&' (write 'and')
a == 1 || b == 2	8	unexpected '|' (write 'or')
t == 'x'	6	unexpected "'" (strings are in double quotes)
x @ 1	3	unexpected character '@'
x == 1 ;	8	unexpected character ';'
# the parser
(empty)	1	expected a selector, found nothing
"gpu" == type	1	expected a field name, 'has', 'not' or '(', found '"gpu"'
16GiB <= memory	1	expected a field name, 'has', 'not' or '(', found '16GiB'
a == 1 and	11	expected a field name, 'has', 'not' or '(', found the end
a == 1 or or b == 2	11	expected a field name, 'has', 'not' or '(', found 'or'
Memory >= 1	1	invalid field name 'Memory' (lower-case letters, digits and '_')
_x == 1	1	invalid field name '_x' (lower-case letters, digits and '_')
type	5	expected an operator (== != < <= > >= in ~) after 'type', found the end
type gpu	6	expected an operator (== != < <= > >= in ~) after 'type', found 'gpu'
type ==	8	expected a value after '==', found the end
type == )	9	expected a value after '==', found ')'
type == gpu	9	expected a value after '==', found 'gpu' (strings are quoted: "gpu")
type == and	9	expected a value after '==', found 'and'
n in 0, 1	6	expected '[' after 'in', found '0'
n in []	7	expected a value after '[', found ']'
n in [0 1]	9	expected ',' or ']' in the list, found '1'
n in [0,]	9	expected a value after ',', found ']'
n in [0, 1	11	expected ',' or ']' in the list, found the end
name ~ gpu	8	expected a pattern in double quotes after '~', found 'gpu'
name ~ "a[bc"	8	unterminated '[' in pattern
name ~ "ab\\"	8	pattern ends with '\'
has x	5	expected '(' after 'has', found 'x'
has(1)	5	expected a field name in 'has(...)', found '1'
has()	5	expected a field name in 'has(...)', found ')'
has(x	6	expected ')' after 'has(x', found the end
(a == 1	8	expected ')' to close the '(' at line 1, column 1, found the end
(a == 1))	9	expected 'and', 'or' or the end of the selector, found ')'
a == 1 b == 2	8	expected 'and', 'or' or the end of the selector, found 'b'
a == 1 AND b == 2	8	expected 'and', 'or' or the end of the selector, found 'AND'
not	4	expected a field name, 'has', 'not' or '(', found the end
# types of the fields of device records
vendor == 4318	11	expected a hex id such as 0x10de for 'vendor', found '4318'
vendor == 0x10000	11	expected at most 4 hex digits for 'vendor', found '0x10000'
class == 0x1000000	10	expected at most 6 hex digits for 'class', found '0x1000000'
numa == "0"	9	expected an integer for 'numa', found '"0"'
numa in [0, 1GiB]	13	expected an integer for 'numa', found '1GiB'
memory >= 0x10	11	expected a size such as 16GiB for 'memory', found '0x10'
memory >= "16GiB"	11	expected a size such as 16GiB for 'memory', found '"16GiB"'
driver == 12	11	expected a string or a version for 'driver', found '12'
cpus == 1.2	9	expected a string for 'cpus', found '1.2'
numa ~ "0*"	6	expected a field of text before '~', 'numa' holds integers
memory ~ "16*"	8	expected a field of text before '~', 'memory' holds sizes
EOF
}

@test "errors: a string that runs past its line, and errors on continuation lines" {
	local file=$BATS_TEST_TMPDIR/t.conf
	printf '[class t]\nselector = type == "gpu\n    and numa == 0\n' >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" "rm-class: $file:2:20: unterminated string"
	printf '[class t]\nselector = type == "gpu" and\n    # a comment\n\n    numa ==\n' >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" "rm-class: $file:5:12: expected a value after '==', found the end"
	printf '[class t]\nselector = type == "gpu" and\n\tnuma = 0\n' >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" "rm-class: $file:3:7: unexpected '=' (write '==')"
}

@test "errors: nesting deeper than 64 levels is refused where it starts" {
	local file=$BATS_TEST_TMPDIR/t.conf open close
	open=$(printf '(%.0s' {1..65}) close=$(printf ')%.0s' {1..65})
	printf '[class t]\nselector = %shas(x)%s\n' "$open" "$close" >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" \
		"rm-class: $file:2:76: selector nested too deeply (more than 64 levels of parentheses and 'not')"
	# 64 is fine
	printf '[class t]\nselector = %shas(pf)%s\n' "${open:1}" "${close:1}" >"$file"
	run -0 --separate-stderr rm-class check "$file"
	assert_output "file=$file classes=1"
	printf '[class t]\nselector = %shas(x)\n' "$(printf 'not %.0s' {1..65})" >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" \
		"rm-class: $file:2:268: selector nested too deeply (more than 64 levels of parentheses and 'not')"
}

@test "errors: every kind of class file error, in line order, all in one run" {
	local file=$BATS_TEST_TMPDIR/classes.d/a.conf
	mkdir -p "${file%/*}"
	cat >"$file" <<-'EOF'
	# site classes
	description = outside
	[klass x]
	description = skipped, as its section was refused
	[class bad name]
	[class]
	[class ok] trailing
	[class Bad/Name]
	[class gpu-16g]
	description = GPUs with 16 GiB
	   or more
	selector = type == "gpu" and
	    memory >=
	count = 0
	policy = tight
	exclusive = maybe
	colour = red
	 its continuation is skipped
	selector = x == 1
	Key = 1
	description
	  an orphan continuation after a refused line
	[class gpu-16g]
	[class nosel]
	description = no selector
	[class counts]
	selector = has(pf)
	count = 1000001
	[class counts2]
	selector = has(pf)
	count = 2 gpus
	EOF
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$output" ""
	assert_golden rm-class check-class-file-errors "$stderr"
	[ "${#stderr_lines[@]}" -eq 18 ]
}

@test "errors: the other class file errors" {
	local dir=$BATS_TEST_TMPDIR/d
	mkdir -p "$dir"
	# a continuation line with nothing above it
	printf '  selector = has(pf)\n[class a]\nselector = has(pf)\n' >"$dir/cont.conf"
	run -2 --separate-stderr rm-class check "$dir/cont.conf"
	assert_equal "$stderr" \
		"rm-class: $dir/cont.conf:1:1: expected a key (a line that starts with a blank continues the value above)"
	# a NUL byte
	printf '[class a]\nselector = t == "x\0"\n' >"$dir/nul.conf"
	run -2 --separate-stderr rm-class check "$dir/nul.conf"
	assert_equal "$stderr" "rm-class: $dir/nul.conf:2:19: NUL byte in a class file"
	# a class named twice in two files: the second file's line, naming the first
	printf '[class a]\nselector = has(pf)\n' >"$dir/one.conf"
	printf '# b\n[class a]\nselector = has(rdma)\n' >"$dir/two.conf"
	run -2 --separate-stderr rm-class check "$dir/one.conf" "$dir/two.conf"
	assert_equal "$stderr" \
		"rm-class: $dir/two.conf:2:8: class 'a' is defined twice (first at $dir/one.conf:1)"
	# a missing file (2), a directory given as a file is read as a directory
	run -2 --separate-stderr rm-class check "$dir/missing.conf"
	assert_equal "$stderr" "rm-class: cannot read '$dir/missing.conf': No such file or directory"
	# too large
	{ printf '[class a]\nselector = has(pf)\n'; head -c 1048576 /dev/zero | tr '\0' '#'; } >"$dir/big.conf"
	run -2 --separate-stderr rm-class check "$dir/big.conf"
	assert_equal "$stderr" "rm-class: class file larger than 1048576 bytes: '$dir/big.conf'"
	# control bytes in a value are shown as \xHH: the message stays one line
	printf '[class a]\nselector = has(pf)\ncount = 2\033[31m\npolicy = none\rx\nexclusive = \001\n' \
		>"$dir/ctl.conf"
	run -2 --separate-stderr rm-class check "$dir/ctl.conf"
	assert_equal "$stderr" "$(sed "s|^|rm-class: $dir/ctl.conf:|" <<-'EOF'
	3:9: expected a count from 1 to 1000000, found '2\x1b[31m'
	4:10: expected a policy (none, best-effort, restricted, single-numa-node), found 'none\x0dx'
	5:13: expected yes or no, found '\x01'
	EOF
	)"
}

@test "errors: a last line without its newline is read to its end, also in a file of 1 MiB" {
	local head=$'[class a]\nselector = has(pf)\n' last='description = the last line'
	classes small.conf < <(printf '%s%s' "$head" "$last")
	run -0 rm-class list -o description a
	assert_output 'description="the last line"'
	rm "$RM_CONFIG_DIR/classes.d/small.conf"
	# the largest file read
	classes big.conf < <(
		printf '%s' "$head"
		head -c $((1048576 - ${#head} - ${#last} - 1)) /dev/zero | tr '\0' '#'
		printf '\n%s' "$last"
	)
	local file=$RM_CONFIG_DIR/classes.d/big.conf
	[ "$(wc -c <"$file")" -eq 1048576 ]
	run -0 --separate-stderr rm-class check "$file"
	assert_output "file=$file classes=1"
	assert_equal "$stderr" ""
	run -0 rm-class list -o description a
	assert_output 'description="the last line"'
}

@test "errors: among many classes, a name defined twice names its first place, in any file" {
	local dir=$BATS_TEST_TMPDIR/d
	mkdir -p "$dir"
	seq 1 20000 | sed 's/.*/[class c&]\nselector = has(pf)/' >"$dir/a.conf"
	printf '[class c20000]\nselector = has(pf)\n[class new]\nselector = has(pf)\n[class new]\n' \
		>"$dir/b.conf"
	run -0 rm-class check "$dir/a.conf"
	assert_output "file=$dir/a.conf classes=20000"
	run -2 --separate-stderr rm-class check "$dir/a.conf" "$dir/b.conf"
	assert_equal "$output" ""
	assert_equal "$stderr" "$(printf '%s\n' \
		"rm-class: $dir/b.conf:1:8: class 'c20000' is defined twice (first at $dir/a.conf:39999)" \
		"rm-class: $dir/b.conf:5:8: class 'new' is defined twice (first at $dir/b.conf:3)")"
}

@test "errors: a class file that cannot be read is a failure (exit 1), not bad input" {
	# a file whose read fails, as root too: /proc/self/mem reads EIO at offset 0
	classes ok.conf <<<$'[class a]\nselector = has(pf)'
	ln -s /proc/self/mem "$RM_CONFIG_DIR/classes.d/mem.conf"
	run -1 --separate-stderr rm-class list
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-class: cannot read '$RM_CONFIG_DIR/classes.d/mem.conf': Input/output error"
	run -1 --separate-stderr rm-class check
	assert_equal "$output" ""
	assert_equal "$stderr" "rm-class: cannot read '$RM_CONFIG_DIR/classes.d/mem.conf': Input/output error"
}

@test "errors: a class file without read permission is a failure (exit 1)" {
	[ "$(id -u)" -ne 0 ] || skip "root reads any file"
	local dir=$BATS_TEST_TMPDIR/d
	mkdir -p "$dir"
	printf '[class a]\nselector = has(pf)\n' >"$dir/a.conf"
	chmod 000 "$dir/a.conf"
	run -1 --separate-stderr rm-class check "$dir/a.conf"
	assert_equal "$stderr" "rm-class: cannot read '$dir/a.conf': Permission denied"
}

@test "errors: a bad class file stops every command that reads classes, with its first error" {
	classes bad.conf <<-'EOF'
	[class a]
	selector = type == gpu
	count = 0
	EOF
	local file=$RM_CONFIG_DIR/classes.d/bad.conf
	local msg="rm-class: $file:2:20: expected a value after '==', found 'gpu' (strings are quoted: \"gpu\")"
	for cmd in list "show gpu" "match gpu" "explain gpu 3b:00.0" "export dra gpu"; do
		# shellcheck disable=SC2086 # the command and its arguments
		run -2 --separate-stderr rm-class $cmd <"$HAND"
		assert_equal "$output" ""
		assert_equal "$stderr" "$msg"
	done
	# check names both
	run -2 --separate-stderr rm-class check
	assert_equal "${#stderr_lines[@]}" 2
	assert_equal "${stderr_lines[1]}" "rm-class: $file:3:9: expected a count from 1 to 1000000, found '0'"
	# a class directory that is a file
	rm -r "$RM_CONFIG_DIR/classes.d"
	touch "$RM_CONFIG_DIR/classes.d"
	run -2 --separate-stderr rm-class list
	assert_equal "$stderr" "rm-class: cannot read '$RM_CONFIG_DIR/classes.d': Not a directory"
}

@test "errors: command lines and device records" {
	usage_error "no such class: 'nope' (see rm-class list)" rm-class match nope <"$HAND"
	usage_error "no such class: 'nope' (see rm-class list)" rm-class list gpu nope
	usage_error "no such class: 'nope' (see rm-class list)" rm-class show nope
	usage_error "no such class: 'nope' (see rm-class list)" rm-class export dra gpu nope
	usage_error "unknown command: 'nope' (see 'rm-class --help')" rm-class nope
	usage_error "rm-class match: missing CLASS (or --selector EXPR)" rm-class match
	usage_error "rm-class match: a CLASS or --selector, not both" rm-class match gpu --selector 'has(x)'
	usage_error "rm-class match: unexpected argument: 'ib'" rm-class match gpu ib
	usage_error "rm-class match: invalid count: '0' (from 1 to 1000000)" rm-class match gpu --count 0
	usage_error "rm-class match: invalid count: '2x' (from 1 to 1000000)" rm-class match gpu -c 2x
	usage_error "rm-class explain: missing DEVICE" rm-class explain gpu
	usage_error "rm-class explain: missing CLASS (or --selector EXPR)" rm-class explain
	usage_error "rm-class explain: unexpected argument: 'x'" rm-class explain gpu 3b:00.0 x
	usage_error "no such device: '99:00.0'" rm-class explain gpu 99:00.0 <"$HAND"
	usage_error "rm-class export: missing FORMAT (dra, sriovdp)" rm-class export
	usage_error "rm-class export: unknown export format: 'cdi' (dra, sriovdp)" rm-class export cdi gpu
	usage_error "rm-class export: missing CLASS" rm-class export dra
	usage_error "rm-class export: --driver is for dra" rm-class export sriovdp ib --driver x.io
	usage_error "rm-class export: invalid domain: 'Example.com' (lower-case letters, digits, '-' and '.', at most 63)" \
		rm-class export dra gpu --domain Example.com
	usage_error "rm-class export: invalid driver name: 'gpu..io' (lower-case letters, digits, '-' and '.', at most 63)" \
		rm-class export dra gpu --driver gpu..io
	usage_error "output options do not apply to 'show'" rm-class -J show gpu
	usage_error "rm-class show: invalid option -- 'J'" rm-class show gpu -J
	usage_error "rm-class list: unrecognized option '--sysroot'" rm-class list --sysroot /
	# device records on standard input
	usage_error "standard input: line 2, column 14: expected '=' after key 'type'" \
		rm-class match gpu < <(printf 'device=0000:01:00.0 type=gpu\ndevice=x type\n')
	usage_error "standard input: line 1, column 21: NUL byte in input" \
		rm-class match gpu < <(printf 'device=0000:01:00.0 \0type=gpu\n')
	usage_error "standard input: line 1, column 16: invalid character '\"' in value (quote it)" \
		rm-class match gpu < <(printf 'device=0 type=g"pu\n')
	# discovery: a described topology has no devices; a sysroot must be a directory
	usage_error "devices are read from sysfs, which a described topology does not have: 'pu:4' (use --sysroot with a snapshot)" \
		rm-class match gpu --topology pu:4 </dev/null
	usage_error "not a directory" rm-class match gpu --sysroot "$HAND"
}
