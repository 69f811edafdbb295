#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rm-hugepages' speed on this machine, as root: reserving and releasing PAGES 2 MiB pages
# (default 2048, 4 GiB) with `rm-hugepages reserve 2M N` + `rm-hugepages release 2M`, against
# hugeadm (libhugetlbfs-bin) doing the same with `--pool-pages-min 2M:N` + `--pool-pages-min 2M:0`,
# side by side in one run. The machine is shared and noisy: ROUNDS hyperfine runs with the two
# in alternating order; the figure is the median of the rounds' ratios, with their range, not the
# absolute times. Needs hyperfine and jq; installs libhugetlbfs-bin when hugeadm is missing.
# Leaves the pools as it found them (counts and overcommit).
#   usage: bench/rm-hugepages-speed.sh [RM_HUGEPAGES] [RUNS] [ROUNDS] [PAGES]
set -eu

rm_hugepages=${1:-./rm-hugepages}
runs=${2:-20}
rounds=${3:-7}
pages=${4:-2048}
pool=/sys/kernel/mm/hugepages/hugepages-2048kB
tmp=$(mktemp -d)

[ "$(id -u)" -eq 0 ] || { echo "rm-hugepages-speed: needs root (it reserves pages)" >&2; exit 2; }
[ -d "$pool" ] || { echo "rm-hugepages-speed: no 2 MiB huge pages here" >&2; exit 2; }
if ! command -v hugeadm >/dev/null; then
	echo "rm-hugepages-speed: installing libhugetlbfs-bin for hugeadm" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		libhugetlbfs-bin >/dev/null ||
		{ echo "rm-hugepages-speed: needs hugeadm (apt-get install libhugetlbfs-bin)" >&2; exit 2; }
fi
# shellcheck source=lib.bash
. "$(dirname "$0")/lib.bash"

bench_needs rm-hugepages-speed hyperfine jq
rm_hugepages=$(bench_program rm-hugepages-speed "$rm_hugepages")
export LC_ALL=C
unset RM_SYSROOT RM_TOPOLOGY RM_CGROUP_ROOT RM_CONFIG_DIR

# hugeadm also moves nr_overcommit_hugepages: put every pool back as it was, whatever happens
saved=()
for f in /sys/devices/system/node/node*/hugepages/hugepages-*/nr_hugepages \
	/sys/kernel/mm/hugepages/hugepages-*/nr_overcommit_hugepages; do
	[ -e "$f" ] && saved+=("$f=$(cat "$f")")
done
restore() {
	local s
	for s in "${saved[@]}"; do
		# unchanged files are left alone: 1 GiB pools refuse any overcommit write
		[ "$(cat "${s%=*}")" = "${s##*=}" ] || echo "${s##*=}" >"${s%=*}" || true
	done
	rm -rf "$tmp"
}
trap restore EXIT
before=$(cat "$pool/nr_hugepages")
[ "$before" -eq 0 ] || { echo "rm-hugepages-speed: 2 MiB pages are reserved already" >&2; exit 2; }

# Both get every page, or the comparison means nothing.
"$rm_hugepages" reserve 2M "$pages" >/dev/null
[ "$(cat "$pool/nr_hugepages")" -eq "$pages" ] || { echo "rm-hugepages-speed: rm-hugepages got too few pages" >&2; exit 1; }
"$rm_hugepages" release 2M >/dev/null
hugeadm --pool-pages-min "2M:$pages" 2>/dev/null
[ "$(cat "$pool/nr_hugepages")" -eq "$pages" ] || { echo "rm-hugepages-speed: hugeadm got too few pages" >&2; exit 1; }
hugeadm --pool-pages-min 2M:0 2>/dev/null

a="$rm_hugepages reserve 2M $pages >/dev/null && $rm_hugepages release 2M >/dev/null"
b="hugeadm --pool-pages-min 2M:$pages 2>/dev/null && hugeadm --pool-pages-min 2M:0 2>/dev/null"
read -r rm_ms peer_ms ratio ratio_min ratio_max < <(bench_ratio "$a" "$b" --warmup 3)
[ "$(cat "$pool/nr_hugepages")" -eq 0 ] || { echo "rm-hugepages-speed: pages left behind" >&2; exit 1; }
goal=$(awk -v q="$ratio" 'BEGIN { print (q <= 1 ? "met" : "missed") }')
echo "bench=reserve-release-2M pages=$pages runs=$runs rounds=$rounds" \
	"rm_hugepages_ms=$rm_ms hugeadm_ms=$peer_ms ratio=$ratio ratio_min=$ratio_min" \
	"ratio_max=$ratio_max goal=$goal"

printf '\n%-56s %14s\n' "reserve + release $pages pages of 2 MiB" "figure"
printf '%-56s %11.2f ms\n' "rm-hugepages reserve + release (median)" "$rm_ms"
printf '%-56s %11.2f ms\n' "hugeadm --pool-pages-min N + 0 (median, same run)" "$peer_ms"
printf '%-56s %14s\n' "ratio rm-hugepages / hugeadm (range)" "$ratio ($ratio_min-$ratio_max)"
printf '%-56s %14s\n' "no slower than hugeadm" "$goal"
