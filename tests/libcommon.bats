#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of libcommon's cpulist, size, record and kernfs modules, through the tests/unit
# programs.
load test_helper

cpulist() { "$RM_BUILDDIR/tests/unit/test-cpulist" "$@"; }
size() { "$RM_BUILDDIR/tests/unit/test-size" "$@"; }
record() { "$RM_BUILDDIR/tests/unit/test-record" "$@"; }

# ---- cpulist: list and stride forms ----

@test "cpulist: list form is kept as written when canonical" {
	run -0 cpulist parse 0-3,8,10-11
	assert_output 0-3,8,10-11
}

@test "cpulist: single cpus merge into ranges, sorted" {
	run -0 cpulist parse 11,10,8,3,2,1,0
	assert_output 0-3,8,10-11
	run -0 cpulist parse 5,5,4-6,0-1,1-2
	assert_output 0-2,4-6
	run -0 cpulist parse 7
	assert_output 7
	run -0 cpulist parse 3-3
	assert_output 3
}

@test "cpulist: the empty string is the empty set" {
	run -0 cpulist parse ''
	assert_output ''
	run -0 cpulist mask ''
	assert_output 0
	run -0 cpulist parse $'\n'
	assert_output ''
}

@test "cpulist: one trailing newline is allowed, as in sysfs files" {
	run -0 cpulist parse $'0-3,8\n'
	assert_output 0-3,8
	run -0 cpulist parse $'ff\n'
	assert_output 0-7
	run -2 cpulist parse $'0-3\n\n'
	assert_output "invalid character '\\x0a' in cpu list: '0-3\\x0a'"
}

@test "cpulist: other whitespace is refused" {
	run -2 cpulist parse ' 0-3'
	assert_output "invalid character ' ' in cpu list: ' 0-3'"
	run -2 cpulist parse '0, 1'
	assert_output "invalid character ' ' in cpu list: '0, 1'"
	run -2 cpulist parse $'0-3\t'
	assert_output "invalid character '\\x09' in cpu list: '0-3\\x09'"
}

@test "cpulist: stride form as the kernel's bitmap_parselist" {
	run -0 cpulist parse 0-15:2/4
	assert_output 0-1,4-5,8-9,12-13
	run -0 cpulist parse 0-15:1/2
	assert_output 0,2,4,6,8,10,12,14
	run -0 cpulist parse 0-15:4/4
	assert_output 0-15
	# groups start at the range's start, and the last group is cut at its end
	run -0 cpulist parse 1-14:2/4
	assert_output 1-2,5-6,9-10,13-14
	run -0 cpulist parse 0-9:3/4
	assert_output 0-2,4-6,8-9
	run -0 cpulist parse 0-3:1/100
	assert_output 0
	run -0 cpulist parse 0-7:1/4,2,16-23:2/8
	assert_output 0,2,4,16-17
}

@test "cpulist: reversed range" {
	run -2 cpulist parse 3-1
	assert_output "invalid range '3-1': start above end"
	run -2 cpulist parse 0,3-1,5
	assert_output "invalid range '3-1': start above end"
}

@test "cpulist: range without an end" {
	run -2 cpulist parse 0-
	assert_output "invalid range '0-': missing end"
	run -2 cpulist parse 4,0-,5
	assert_output "invalid range '0-': missing end"
	run -2 cpulist parse -3
	assert_output "invalid character '-' in cpu list: '-3'"
	run -2 cpulist parse 1-2-3
	assert_output "invalid character '-' in cpu list: '1-2-3'"
}

@test "cpulist: empty elements and stray commas" {
	run -2 cpulist parse 1,,2
	assert_output "empty element in cpu list: '1,,2'"
	run -2 cpulist parse ,1
	assert_output "empty element in cpu list: ',1'"
	run -2 cpulist parse 1,2,
	assert_output "trailing comma in cpu list: '1,2,'"
	run -2 cpulist parse ,
	assert_output "empty element in cpu list: ','"
}

@test "cpulist: garbage characters" {
	run -2 cpulist parse 1x
	assert_output "invalid character 'x' in cpu list: '1x'"
	run -2 cpulist parse '0;1'
	assert_output "invalid character ';' in cpu list: '0;1'"
	run -2 cpulist parse +1
	assert_output "invalid character '+' in cpu list: '+1'"
	run -2 cpulist parse all
	assert_output "invalid character 'l' in mask: 'all'"
	run -2 cpulist parse $'1\xc3\xa9'
	assert_output "invalid character '\\xc3' in cpu list: '1\\xc3\\xa9'"
}

@test "cpulist: bad strides" {
	run -2 cpulist parse 0-15:0/4
	assert_output "invalid stride '0-15:0/4': need 0 < used <= group"
	run -2 cpulist parse 0-15:5/4
	assert_output "invalid stride '0-15:5/4': need 0 < used <= group"
	run -2 cpulist parse 0-15:2/0
	assert_output "invalid stride '0-15:2/0': need 0 < used <= group"
	run -2 cpulist parse 0-15:2
	assert_output "invalid stride '0-15:2': expected a-b:used/group"
	run -2 cpulist parse 0-15:/4
	assert_output "invalid stride '0-15:/4': expected a-b:used/group"
	run -2 cpulist parse 0-15:2/
	assert_output "invalid stride '0-15:2/': expected a-b:used/group"
	run -2 cpulist parse 0-15:2/4:1
	assert_output "invalid stride '0-15:2/4:1': expected a-b:used/group"
	run -2 cpulist parse 3:1/2
	assert_output "invalid stride '3:1/2': needs a range a-b before ':'"
	run -2 cpulist parse 8-4:1/2
	assert_output "invalid range '8-4:1/2': start above end"
}

@test "cpulist: numbers above RM_CPULIST_MAX" {
	run -0 cpulist parse 65535
	assert_output 65535
	run -0 cpulist parse 65530-65535
	assert_output 65530-65535
	run -2 cpulist parse 65536
	assert_output "cpu 65536 out of range (max 65535)"
	run -2 cpulist parse 70000
	assert_output "cpu 70000 out of range (max 65535)"
	run -2 cpulist parse 0-70000
	assert_output "cpu 70000 out of range (max 65535)"
	run -2 cpulist parse 0-15:2/70000
	assert_output "cpu 70000 out of range (max 65535)"
}

@test "cpulist: numbers that overflow any integer type" {
	run -2 cpulist parse 99999999999999999999
	assert_output "cpu 99999999999999999999 out of range (max 65535)"
	run -2 cpulist parse 1-18446744073709551617
	assert_output "cpu 18446744073709551617 out of range (max 65535)"
	run -2 cpulist parse 4294967296
	assert_output "cpu 4294967296 out of range (max 65535)"
}

@test "cpulist: leading zeros are plain decimal" {
	run -0 cpulist parse 007,010
	assert_output 7,10
}

@test "cpulist: errors print nothing on stdout" {
	run -2 --separate-stderr cpulist parse 3-1
	assert_output ''
	[ "$stderr" = "invalid range '3-1': start above end" ]
}

# ---- cpulist: masks ----

@test "cpulist: hex masks with 0x" {
	run -0 cpulist parse 0xff
	assert_output 0-7
	run -0 cpulist parse 0XF0
	assert_output 4-7
	run -0 cpulist parse 0x1
	assert_output 0
	run -0 cpulist parse 0x0
	assert_output ''
	run -0 cpulist parse 0x100000000
	assert_output 32
	run -0 cpulist parse 0x5555
	assert_output 0,2,4,6,8,10,12,14
}

@test "cpulist: hex letters make a mask without 0x" {
	run -0 cpulist parse ff
	assert_output 0-7
	run -0 cpulist parse A
	assert_output 1,3
	run -0 cpulist parse 1f
	assert_output 0-4
}

@test "cpulist: digits only without commas or 0x are a list" {
	run -0 cpulist parse 11
	assert_output 11
	run -0 cpulist parse 10,20
	assert_output 10,20
}

@test "cpulist: cpumap words" {
	run -0 cpulist parse ff,00000000
	assert_output 32-39
	run -0 cpulist parse 00000000,000000ff
	assert_output 0-7
	run -0 cpulist parse 1,00000000
	assert_output 32
	run -0 cpulist parse 80000000,00000001
	assert_output 0,63
	run -0 cpulist parse 0x10000,00000000,00000000
	assert_output 80
	run -0 cpulist parse $'00000000,00000000,0000ffff\n'
	assert_output 0-15
}

@test "cpulist: malformed masks" {
	run -2 cpulist parse 0x
	assert_output "empty mask: '0x'"
	run -2 cpulist parse 0xfg
	assert_output "invalid character 'g' in mask: '0xfg'"
	run -2 cpulist parse ff,0
	assert_output "mask words must be 8 hex digits: 'ff,0'"
	run -2 cpulist parse 0x1,0
	assert_output "mask words must be 8 hex digits: '0x1,0'"
	run -2 cpulist parse 123456789,00000000
	assert_output "mask words must be 8 hex digits: '123456789,00000000'"
	run -2 cpulist parse ff,,00000000
	assert_output "empty word in mask: 'ff,,00000000'"
	run -2 cpulist parse ff,00000000,
	assert_output "empty word in mask: 'ff,00000000,'"
	run -2 cpulist parse 0-a
	assert_output "invalid character '-' in mask: '0-a'"
}

@test "cpulist: masks beyond RM_CPULIST_MAX" {
	local zeros
	zeros=$(printf '0%.0s' $(seq 16384))
	run -0 cpulist parse "0x8${zeros:1}"
	assert_output 65535
	run -2 cpulist parse "0x1${zeros}"
	assert_output "cpu 65536 out of range (max 65535)"
	run -2 cpulist parse "0xf${zeros}"
	assert_output "cpu 65539 out of range (max 65535)"
	# leading zeros do not count
	run -0 cpulist parse "0x${zeros}1"
	assert_output 0
}

@test "cpulist: parse_list refuses masks, parse_mask refuses lists" {
	run -0 cpulist list 0-15:2/4
	assert_output 0-1,4-5,8-9,12-13
	run -2 cpulist list ff
	assert_output "invalid character 'f' in cpu list: 'ff'"
	run -2 cpulist list 0xff
	assert_output "invalid character 'x' in cpu list: '0xff'"
	run -0 cpulist list 1,00000000
	assert_output 0-1
	run -0 cpulist mask-only 11
	assert_output 0,4
	run -0 cpulist mask-only 0x11
	assert_output 0,4
	run -2 cpulist mask-only 1-3
	assert_output "invalid character '-' in mask: '1-3'"
	run -2 cpulist mask-only ''
	assert_output "empty mask: ''"
}

# ---- cpulist: printing ----

@test "cpulist: mask form as in cpumap files, without padding" {
	run -0 cpulist mask 0-7
	assert_output ff
	run -0 cpulist mask 32-39
	assert_output ff,00000000
	run -0 cpulist mask 0,63
	assert_output 80000000,00000001
	run -0 cpulist mask 4
	assert_output 10
	run -0 cpulist mask 31
	assert_output 80000000
	run -0 cpulist mask 32
	assert_output 1,00000000
	run -0 cpulist mask 0-95
	assert_output ffffffff,ffffffff,ffffffff
	run -0 cpulist mask 0-15:2/4
	assert_output 3333
}

@test "cpulist: both forms of a set agree" {
	run -0 cpulist both 0-3,8,10-11
	assert_line -n 0 0-3,8,10-11
	assert_line -n 1 d0f
	run -0 cpulist both 0-1,40,64-65
	assert_line -n 0 0-1,40,64-65
	assert_line -n 1 3,00000100,00000003
}

@test "cpulist: list and mask forms round-trip" {
	local s m
	for s in 0 0-3,8,10-11 1,3,5,7 0-63 31-32 63-64 100,200,300 0-1,4-5,65535; do
		run -0 cpulist mask "$s"
		m=$output
		run -0 cpulist mask-only "$m"
		assert_output "$s"
		run -0 cpulist parse "0x${m//,/}"
		assert_output "$s"
		run -0 cpulist parse "$s"
		assert_output "$s"
	done
}

@test "cpulist: infinite hwloc sets print, cut at RM_CPULIST_MAX or where the tail starts" {
	run -0 cpulist infinite 10 0-3
	assert_line -n 0 0-3,10-65535
	run -0 cpulist infinite 0
	assert_line -n 0 0-65535
	run -0 cpulist infinite 70000 1
	assert_line -n 0 1,70000
	# 70000 is bit 16 of word 2187
	[[ ${lines[1]} =~ ^10000(,00000000){2186},00000002$ ]]
}

@test "cpulist: the full 0-65535 set prints in both forms" {
	run -0 cpulist both 0-65535
	assert_line -n 0 0-65535
	[ "${#lines[1]}" -eq $((2048 * 9 - 1)) ]
	[[ ${lines[1]} =~ ^(ffffffff,)+ffffffff$ ]]
}

# ---- size ----

@test "size: parse units" {
	run -0 size parse 2MiB
	assert_output 2097152
	run -0 size parse 1536KiB
	assert_output 1572864
	run -0 size parse 512B
	assert_output 512
	run -0 size parse 1GiB
	assert_output 1073741824
	run -0 size parse 0B
	assert_output 0
	run -0 size parse 4096
	assert_output 4096
	run -0 size parse 1TiB
	assert_output 1099511627776
	run -0 size parse 1PiB
	assert_output 1125899906842624
	run -0 size parse 1EiB
	assert_output 1152921504606846976
}

@test "size: K/M/G/T/P/E and KB/MB/... are binary, in any case" {
	run -0 size parse 1K
	assert_output 1024
	run -0 size parse 1KB
	assert_output 1024
	run -0 size parse 2048kB
	assert_output 2097152
	run -0 size parse 2m
	assert_output 2097152
	run -0 size parse 1G
	assert_output 1073741824
	run -0 size parse 1gib
	assert_output 1073741824
	run -0 size parse 3T
	assert_output 3298534883328
	run -0 size parse 1P
	assert_output 1125899906842624
	run -0 size parse 2E
	assert_output 2305843009213693952
	run -0 size parse 7b
	assert_output 7
}

@test "size: the largest value, and overflow" {
	run -0 size parse 18446744073709551615B
	assert_output 18446744073709551615
	run -0 size parse 18446744073709551615
	assert_output 18446744073709551615
	run -0 size parse 15E
	assert_output 17293822569102704640
	run -2 size parse 16E
	assert_output "size too large: '16E'"
	run -2 size parse 18446744073709551616
	assert_output "size too large: '18446744073709551616'"
	run -2 size parse 17179869184G
	assert_output "size too large: '17179869184G'"
	run -0 size parse 17179869183G
	assert_output 18446744072635809792
	run -2 size parse 99999999999999999999999999K
	assert_output "size too large: '99999999999999999999999999K'"
}

@test "size: invalid sizes" {
	local s
	for s in '' -1 +1 1.5G 1,5G '2 MiB' ' 2' '2 ' 12X KiB B 2iB 2MiBB 2Mi 0x10 1e3 2KiBB $'2M\n'; do
		run -2 size parse "$s"
		assert_output "invalid size: '${s//$'\n'/\\x0a}'"
	done
}

@test "size: format with the largest exact unit" {
	run -0 size format 0
	assert_output 0B
	run -0 size format 1
	assert_output 1B
	run -0 size format 512
	assert_output 512B
	run -0 size format 1023
	assert_output 1023B
	run -0 size format 1024
	assert_output 1KiB
	run -0 size format 1536
	assert_output 1536B
	run -0 size format 1572864
	assert_output 1536KiB
	run -0 size format 2097152
	assert_output 2MiB
	run -0 size format 3221225472
	assert_output 3GiB
	run -0 size format 68719476736
	assert_output 64GiB
	run -0 size format 1099511627776
	assert_output 1TiB
	run -0 size format 1125899906842624
	assert_output 1PiB
	run -0 size format 1152921504606846976
	assert_output 1EiB
	run -0 size format 17293822569102704640
	assert_output 15EiB
	run -0 size format 18446744073709551615
	assert_output 18446744073709551615B
}

@test "size: parse then format is canonical" {
	run -0 size canon 2048K
	assert_output 2MiB
	run -0 size canon 1024M
	assert_output 1GiB
	run -0 size canon 0
	assert_output 0B
	run -0 size canon 1536KiB
	assert_output 1536KiB
	run -0 size canon 2097152
	assert_output 2MiB
	run -0 size canon 18446744073709551615B
	assert_output 18446744073709551615B
}

# ---- record: writing ----

@test "record: bare values" {
	local s
	for s in abc 0-3,8 64GiB 0000:3b:00.0 a_b /dev/null user@host 50% +1 - x.y A-Z; do
		run -0 record quote "$s"
		assert_output -- "$s"
		run -0 record bare "$s"
	done
}

@test "record: quoted values" {
	run -0 record quote ''
	assert_output '""'
	run -1 record bare ''
	run -0 record quote 'a b'
	assert_output '"a b"'
	run -0 record quote 'say "hi"'
	assert_output '"say \"hi\""'
	run -0 record quote 'back\slash'
	assert_output '"back\\slash"'
	run -0 record quote $'tab\there'
	assert_output '"tab\x09here"'
	run -0 record quote $'two\nlines\r'
	assert_output '"two\x0alines\x0d"'
	run -0 record quote $'\x7f\x01\x1f'
	assert_output '"\x7f\x01\x1f"'
	run -0 record quote 'caf'$'\xc3\xa9'
	assert_output '"caf\xc3\xa9"'
	run -0 record quote 'x=y'
	assert_output '"x=y"'
	run -0 record quote '#1'
	assert_output '"#1"'
	run -0 record quote "it's"
	assert_output "\"it's\""
	run -0 record quote '$HOME~*?()[]{}<>|&;!^`'
	assert_output '"$HOME~*?()[]{}<>|&;!^`"'
	run -1 record bare 'a b'
}

@test "record: write_value prints the same as quote" {
	local s
	for s in abc '' 'a b' 'q"\' $'\t\xff'; do
		run -0 record quote "$s"
		local q=$output
		run -0 record write "$s"
		assert_output -- "$q"
	done
}

@test "record: keys" {
	local k
	for k in a cpu node0 numa_node x_1_ z9; do
		run -0 record key "$k"
	done
	for k in '' Cpu 0a _a a-b 'a b' cpU a= é; do
		run -1 record key "$k"
	done
}

# ---- record: reading ----

@test "record: parse fields, records and comments" {
	run -0 record parse <<'EOF'
# a comment
node=0 cpus=0-15 memory=64GiB

   # indented comment
cpu=3 core=1 package=0 node=0
EOF
	assert_output "$(printf 'node\t0\ncpus\t0-15\nmemory\t64GiB\n\ncpu\t3\ncore\t1\npackage\t0\nnode\t0')"
}

@test "record: blanks between fields, tabs, CR LF and leading blanks" {
	run -0 record parse < <(printf 'a=1   b=2\tc=3 \t d="x y"  \r\n\t e=5\n')
	assert_output "$(printf 'a\t1\nb\t2\nc\t3\nd\tx y\n\ne\t5')"
}

@test "record: quoted values and escapes on input" {
	run -0 record parse <<'EOF'
e="" q="say \"hi\"" b="back\\slash" h="\x41\x62" n="a\nb" t="a\tb" u="\xc3\xa9" v="\xC3\xA9"
EOF
	assert_line -n 0 "$(printf 'e\t')"
	assert_line -n 1 "$(printf 'q\tsay "hi"')"
	assert_line -n 2 "$(printf 'b\tback\\slash')"
	assert_line -n 3 "$(printf 'h\tAb')"
	assert_line -n 4 "n	a"
	assert_line -n 5 "b"
	assert_line -n 6 "$(printf 't\ta\tb')"
	assert_line -n 7 "$(printf 'u\t\xc3\xa9')"
	assert_line -n 8 "$(printf 'v\t\xc3\xa9')"
}

@test "record: raw tabs and UTF-8 inside quotes are taken as they are" {
	run -0 record parse < <(printf 'a="x\ty" b="\xc3\xa9 z"\n')
	assert_output "$(printf 'a\tx\ty\nb\t\xc3\xa9 z')"
}

@test "record: the unknown value '-' stays '-'" {
	run -0 record get vendor <<'EOF'
device=0000:3b:00.0 type=gpu vendor=- numa=0
device=0000:3c:00.0 type=nic
EOF
	assert_output -- "$(printf -- '-\n(none)')"
}

@test "record: kinds and line numbers" {
	run -0 record kinds <<'EOF'
# header

node=0 cpus=0-3
cpu=3 core=1
   
device=x
EOF
	assert_output "$(printf '3 node\n4 cpu\n6 device')"
}

@test "record: errors name line and column" {
	run -2 record parse <<'EOF'
node=0 cpus=0-3
# fine

node=1 cpu 7
EOF
	assert_output "$(printf 'node\t0\ncpus\t0-3\nline 4, column 11: expected \x27=\x27 after key \x27cpu\x27')"

	run -2 --separate-stderr record parse <<<'node=1 cpu 7'
	assert_output ''
	[ "$stderr" = "line 1, column 11: expected '=' after key 'cpu'" ]
}

@test "record: malformed lines" {
	check() {
		run -2 record parse <<<"$1"
		assert_output "$2"
	}
	check 'a=1 b="x'            "line 1, column 7: unterminated quoted value"
	check 'name="abc def ghi'   "line 1, column 6: unterminated quoted value"
	check 'a="x\'               "line 1, column 3: unterminated quoted value"
	check 'a="x\q"'             "line 1, column 5: invalid escape '\\q'"
	check 'a="\x4"'             "line 1, column 4: invalid escape '\\x4'"
	check 'a="\xg0"'            "line 1, column 4: invalid escape '\\x'"
	check 'a="\x00"'            "line 1, column 4: invalid escape '\\x00'"
	check 'a="\r"'              "line 1, column 4: invalid escape '\\r'"
	check 'Cpu=1'               "line 1, column 1: invalid key 'Cpu'"
	check 'a=1 9b=2'            "line 1, column 5: invalid key '9b'"
	check 'a-b=1'               "line 1, column 1: invalid key 'a-b'"
	check 'a"b"=1'              "line 1, column 1: invalid key 'a\"b\"'"
	check "$(printf 'k\xc3\xa9=1')" "line 1, column 1: invalid key 'k\\xc3\\xa9'"
	check '=1'                  "line 1, column 1: expected a key"
	check 'a=1 =2'              "line 1, column 5: expected a key"
	check 'cpu'                 "line 1, column 4: expected '=' after key 'cpu'"
	check 'cpu =3'              "line 1, column 4: expected '=' after key 'cpu'"
	check 'a='                  "line 1, column 3: expected a value after 'a='"
	check 'a= b=2'              "line 1, column 3: expected a value after 'a='"
	check 'a=1 b=  c=3'         "line 1, column 7: expected a value after 'b='"
	check 'a=1 a=2'             "line 1, column 5: duplicate key 'a'"
	check 'a=1 b=2 a="1"'       "line 1, column 9: duplicate key 'a'"
	check 'a=b"c'               "line 1, column 4: invalid character '\"' in value (quote it)"
	check 'a=x=y'               "line 1, column 4: invalid character '=' in value (quote it)"
	check "$(printf 'a=caf\xc3\xa9')" "line 1, column 6: invalid character '\\xc3' in value (quote it)"
	check 'a="x"y'              "line 1, column 6: expected a space after quoted value"
	check 'a="x""y"'            "line 1, column 6: expected a space after quoted value"
}

@test "record: a NUL byte in the input is refused" {
	run -2 record parse < <(printf 'a=1\nb=x\0y\n')
	assert_output "$(printf 'a\t1\nline 2, column 4: NUL byte in input')"
}

@test "record: unset removes one field wherever it stands, and nothing when it is absent" {
	run -0 record unset conf <<<$'limit=db disk=sda conf=0123 rbps=1\nlimit=web conf=9\nlimit=x disk=y\nconf=1 a=2'
	assert_output $'limit=db disk=sda rbps=1\nlimit=web\nlimit=x disk=y\na=2'
}

@test "record: empty input and comments only" {
	run -0 record parse </dev/null
	assert_output ''
	run -0 record parse <<<$'# only\n\n   \n\t# more'
	assert_output ''
}

@test "record: a last line without newline is read" {
	run -0 record parse < <(printf 'a=1\nb=2')
	assert_output "$(printf 'a\t1\n\nb\t2')"
}

# ---- record: round trips ----

@test "record: quote then parse gives the original" {
	local s q all
	all=$(for i in $(seq 1 255); do printf "\\x$(printf %02x "$i")"; done)
	run -0 record roundtrip '' 'a b' 'say "hi"' 'back\slash' '\"' '\\x41' $'tab\there' \
		$'line\nbreak' $'\r' 'caf'$'\xc3\xa9' $'\xff\xfe' '-' '#' ' ' '  lead' 'trail  ' \
		'a=b' '"' "$all"
	for s in '' 'a b' 'say "hi"' 'back\slash' $'tab\there' 'caf'$'\xc3\xa9' x=y 0-3; do
		run -0 record quote "$s"
		q=$output
		run -0 record parse <<<"k=$q z=1"
		assert_output "$(printf 'k\t%s\nz\t1' "$s")"
	done
}

@test "record: every byte but NUL survives a round trip" {
	local i
	for i in $(seq 1 255); do
		run -0 record roundtrip "x$(printf "\\x$(printf %02x "$i")")y"
	done
}

# ---- kernfs: files of the kernel's pseudo file systems, on plain files ----

@test "kernfs: reads, single writes, subdirectory listings and the undo log" {
	run -0 "$RM_BUILDDIR/tests/unit/test-kernfs" "$BATS_TEST_TMPDIR"
	assert_output --regexp '^[0-9]+ checks, 0 failed$'
	[ "${output%% *}" -ge 40 ]
}
