#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The selector and class-file parsers against hostile input: the libFuzzer harnesses
# tests/fuzz/fuzz-selector.c and tests/fuzz/fuzz-classes.c (built here with clang when it is
# installed; Debian package clang), and nesting far deeper than the selector parser's limit,
# refused with a message rather than a crash.
load ../test_helper

FUZZ_DIR="$RM_SRCDIR/tests/fuzz"
LIB="$RM_SRCDIR/libcommon"

# build NAME SOURCE...: the harness tests/fuzz/NAME.c with libcommon's SOURCEs, instrumented, and
# the rest of libcommon from the build's libcommon.a; clang's messages in clang-NAME.log
build() {
	local name=$1
	shift
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$RM_BUILDDIR" -I"$LIB" "$FUZZ_DIR/$name.c" "$@" \
		"$RM_BUILDDIR/libcommon/libcommon.a" -lhwloc -lm -o "$BATS_FILE_TMPDIR/$name" \
		>"$BATS_FILE_TMPDIR/clang-$name.log" 2>&1 || rm -f "$BATS_FILE_TMPDIR/$name"
}

setup_file() {
	command -v clang >/dev/null || return 0
	# Whether this clang has libFuzzer at all: an empty target, linked with nothing of ours. A
	# clang without it is a missing tool (a skip); a harness that does not build is a failure.
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' \
		>"$BATS_FILE_TMPDIR/probe.c"
	clang -fsanitize=fuzzer,address,undefined "$BATS_FILE_TMPDIR/probe.c" \
		-o "$BATS_FILE_TMPDIR/probe" >"$BATS_FILE_TMPDIR/probe.log" 2>&1 || return 0
	# each parser and what it calls, so that coverage guides the fuzzer through all of it (the
	# policy names of class files are parsed in cpualloc.c)
	build fuzz-selector "$LIB"/selector-*.c "$LIB/record.c" "$LIB/size.c"
	build fuzz-classes "$LIB/classes.c" "$LIB"/selector-*.c "$LIB/record.c" "$LIB/size.c" \
		"$LIB/cpualloc.c"
}

# require_harness NAME: sets HARNESS; skips when clang or its libFuzzer runtime is not installed,
# fails with clang's messages when the harness does not build
require_harness() {
	command -v clang >/dev/null || skip "clang is not installed (Debian package clang)"
	[ -x "$BATS_FILE_TMPDIR/probe" ] ||
		skip "clang has no libFuzzer runtime: $(grep -m 1 -i error "$BATS_FILE_TMPDIR/probe.log")"
	HARNESS=$BATS_FILE_TMPDIR/$1
	if [ ! -x "$HARNESS" ]; then
		cat "$BATS_FILE_TMPDIR/clang-$1.log" >&2
		fail "clang cannot build tests/fuzz/$1.c with libcommon (messages above)"
	fi
}

# corpus_runs_clean CORPUS: each input of the seed corpus once, under ASan, UBSan and LSan
corpus_runs_clean() {
	local n
	n=$(find "$FUZZ_DIR/$1" -type f | wc -l)
	[ "$n" -ge 5 ]
	run -0 "$HARNESS" -runs=0 "$FUZZ_DIR/$1"
	assert_output --partial "INITED"
	refute_output --partial "ERROR: AddressSanitizer"
	refute_output --partial "ERROR: LeakSanitizer"
	refute_output --partial "runtime error"
}

# mutate CORPUS DICT: libFuzzer mutates a copy of CORPUS for five seconds
mutate() {
	# the fuzzer adds what it finds to the corpus: a copy, not the project's
	cp -r "$FUZZ_DIR/$1" "$BATS_TEST_TMPDIR/corpus"
	# -timeout: an input that takes longer than 10 s is reported as a hang and fails the run
	run -0 "$HARNESS" -max_total_time=5 -timeout=10 -rss_limit_mb=2048 \
		-dict="$FUZZ_DIR/$2" -print_final_stats=1 "$BATS_TEST_TMPDIR/corpus"
	assert_output --partial "Done "
	assert_output --regexp 'stat::number_of_executed_units: *[0-9]{3,}'
	refute_output --partial "ERROR:"
}

@test "fuzz: the selector corpus runs clean under ASan, UBSan and LSan" {
	require_harness fuzz-selector
	corpus_runs_clean corpus
}

@test "fuzz: libFuzzer mutates the selector corpus for five seconds: no crash, leak or hang" {
	require_harness fuzz-selector
	mutate corpus selector.dict
}

@test "fuzz: the class-file corpus runs clean under ASan, UBSan and LSan" {
	require_harness fuzz-classes
	corpus_runs_clean corpus-classes
}

@test "fuzz: libFuzzer mutates the class-file corpus for five seconds: no crash, leak or hang" {
	require_harness fuzz-classes
	mutate corpus-classes classes.dict
}

@test "fuzz: 100000 nested parentheses or nots are refused at the limit, not recursed into" {
	local file=$BATS_TEST_TMPDIR/deep.conf
	{
		printf '[class deep]\nselector = '
		head -c 100000 /dev/zero | tr '\0' '('
		printf 'has(pf)'
		head -c 100000 /dev/zero | tr '\0' ')'
		printf '\n'
	} >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" \
		"rm-class: $file:2:76: selector nested too deeply (more than 64 levels of parentheses and 'not')"
	{
		printf '[class deep]\nselector = '
		for _ in $(seq 1 10000); do printf 'not not not not not not not not not not '; done
		printf 'has(pf)\n'
	} >"$file"
	run -2 --separate-stderr rm-class check "$file"
	assert_equal "$stderr" \
		"rm-class: $file:2:268: selector nested too deeply (more than 64 levels of parentheses and 'not')"
	# on the command line, and unbalanced
	run -2 --separate-stderr rm-class match --selector "$(head -c 60000 /dev/zero | tr '\0' '(')" \
		</dev/null
	assert_equal "$stderr" \
		"rm-class: invalid selector: line 1, column 65: selector nested too deeply (more than 64 levels of parentheses and 'not')"
	# long flat selectors are no problem: 20000 clauses
	{
		printf '[class wide]\nselector = has(pf)'
		for _ in $(seq 1 20000); do printf ' or numa == 1'; done
		printf '\n'
	} >"$file"
	run -0 rm-class check "$file"
	assert_output "file=$file classes=1"
}
