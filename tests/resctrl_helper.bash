# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for tests on resctrl: a FUSE fake of its mount (tests/fake-resctrl.py) and plain trees.
# Load after cgroup_helper, whose dump_tree these use.

# start_resctrl DIR [fake-resctrl.py options]: mount the fake at DIR until teardown (fakes_cleanup)
# and point RM_RESCTRL_ROOT at it.
start_resctrl() {
	require_fuse
	mount_fake fake-resctrl.py "$@"
	export RM_RESCTRL_ROOT=$1
}

# Unmount the fake at DIR (a reboot, for the groups); its server exits.
stop_resctrl() {
	umount "$1" 2>/dev/null || fusermount -u "$1"
}

# The tree as dump_tree shows it, less info/last_cmd_status, which every refused write changes.
dump_resctrl() {
	dump_tree "$1" | grep -v '^\./info/last_cmd_status:'
}

# plain_resctrl DIR: a resctrl tree of plain files, as a snapshot would hold one (nothing
# enforced): two L3 domains of 12 ways, MB in percent, monitoring.
plain_resctrl() {
	local d=$1
	mkdir -p "$d/info/L3" "$d/info/MB" "$d/info/L3_MON" "$d/mon_data/mon_L3_00" \
		"$d/mon_data/mon_L3_01" "$d/mon_groups"
	echo ok >"$d/info/last_cmd_status"
	echo fff >"$d/info/L3/cbm_mask"
	echo 2 >"$d/info/L3/min_cbm_bits"
	echo 16 >"$d/info/L3/num_closids"
	echo c00 >"$d/info/L3/shareable_bits"
	echo 10 >"$d/info/MB/bandwidth_gran"
	echo 1 >"$d/info/MB/delay_linear"
	echo 20 >"$d/info/MB/min_bandwidth"
	echo 8 >"$d/info/MB/num_closids"
	printf 'llc_occupancy\nmbm_total_bytes\n' >"$d/info/L3_MON/mon_features"
	echo 128 >"$d/info/L3_MON/num_rmids"
	printf '    L3:0=fff;1=fff\n    MB:0=100;1=100\n' >"$d/schemata"
	echo shareable >"$d/mode"
	echo 0-7 >"$d/cpus_list"
	: >"$d/tasks"
	echo 4096 >"$d/mon_data/mon_L3_00/llc_occupancy"
	echo 8192 >"$d/mon_data/mon_L3_01/llc_occupancy"
	echo 1000 >"$d/mon_data/mon_L3_00/mbm_total_bytes"
	echo Unavailable >"$d/mon_data/mon_L3_01/mbm_total_bytes"
}
