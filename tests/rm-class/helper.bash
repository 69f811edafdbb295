# SPDX-License-Identifier: GPL-2.0-or-later
# Set-up shared by the rm-class tests: the device records of the rm-devices fixtures, the records
# written by hand, a class directory of the test's own. Load after test_helper.

# shellcheck source=tests/rm-devices/fixtures.bash
source "$RM_SRCDIR/tests/rm-devices/fixtures.bash"

HAND="$RM_SRCDIR/tests/rm-class/devices.records"
SELECTOR_UNIT="$RM_BUILDDIR/tests/unit/test-selector"

# The device records, every field, of the two rm-devices fixture machines (a GPU server and a
# mixed box), one file each and both together in $FX/all.records; made once per test file.
# FX must be set (setup_file: FX=$BATS_FILE_TMPDIR/fx).
make_fixture_records() {
	fx_gpu_server "$FX/gpu"
	fx_mixed "$FX/mixed"
	rm-class match --selector 'has(device)' --sysroot "$FX/gpu" >"$FX/gpu.records"
	rm-class match --selector 'has(device)' --sysroot "$FX/mixed" >"$FX/mixed.records"
	cat "$FX/gpu.records" "$FX/mixed.records" >"$FX/all.records"
	[ "$(wc -l <"$FX/all.records")" -eq 27 ]
}

# The bus:device.function of each record's device on stdin, space-separated: "3b:00.0 c1:00.0".
ids() {
	sed -n 's/^device=0000:\([^ ]*\).*/\1/p' | paste -sd' '
}

# A class directory for this test: RM_CONFIG_DIR=$BATS_TEST_TMPDIR/etc, classes in classes.d.
# classes NAME.conf < TEXT writes one file.
classes() {
	export RM_CONFIG_DIR="$BATS_TEST_TMPDIR/etc"
	mkdir -p "$RM_CONFIG_DIR/classes.d"
	cat >"$RM_CONFIG_DIR/classes.d/$1"
}
