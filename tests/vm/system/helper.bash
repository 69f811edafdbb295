# SPDX-License-Identifier: GPL-2.0-or-later
# Set-up for the system shape's checks (bootN.bats), inside the guest booted from the Debian 12
# image: the package is installed by cloud-init, the checks run as root after it finished.
bats_require_minimum_version 1.8.0
bats_load_library bats-support
bats_load_library bats-assert
export LC_ALL=C

# The user-data the node was provisioned from, as the seed disk had it.
USER_DATA=/lab/system/user-data

# ---- the node of README.md's user-data (tests/vm/system/node.yaml) ----
SLICE=/sys/fs/cgroup/rmtools.slice

# cpulist_expand LIST: one CPU a line
cpulist_expand() {
	local part
	for part in ${1//,/ }; do
		case $part in *-*) seq "${part%-*}" "${part#*-}" ;; *) echo "$part" ;; esac
	done
}

# The checks of a provisioned node, after cloud-init on the first boot and from the units alone
# after a reboot.
check_reserved() {
	run -0 rm-cpuset show -o pool,cpus
	assert_line "pool=reserved cpus=0-1"
}

check_owners() {
	run -0 cat "$SLICE/dataplane/cpuset.cpus" "$SLICE/dataplane/cpuset.cpus.partition" \
		"$SLICE/db/cpuset.cpus" "$SLICE/db/cpuset.mems" "$SLICE/db/memory.max"
	assert_output $'4-5\nisolated\n2-3\n0\n268435456'
	run -0 cat "$SLICE/dataplane/hugetlb.2MB.max"
	assert_output $((32 * 2 * 1024 * 1024))
	run -0 cat /sys/fs/cgroup/cpuset.cpus.isolated
	assert_output 4-5
}

# Every IRQ whose affinity still holds a CPU of the isolated owner is one the kernel does not
# let move (a managed IRQ): writing an affinity without those CPUs fails.
check_quiet_irqs() {
	local f list cpu moved=0
	for f in /proc/irq/*/smp_affinity_list; do
		list=$(cat "$f")
		for cpu in $(cpulist_expand "$list"); do
			if [ "$cpu" = 4 ] || [ "$cpu" = 5 ]; then
				if echo 0-3,6-7 >"$f" 2>/dev/null; then
					echo "# $f held $list and could be moved" >&3
					echo "$list" >"$f"
					moved=$((moved + 1))
				fi
				break
			fi
		done
	done
	[ "$moved" -eq 0 ]
}

check_hugepages() {
	run -0 cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages \
		/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages
	assert_output $'64\n64'
}

check_io_max() {
	local devno
	devno=$(cat /sys/class/block/nvme0n1/dev)
	run -0 cat "$SLICE/db/io.max"
	assert_output "$devno rbps=max wbps=52428800 riops=2000 wiops=max"
}

check_units() {
	local u
	for u in rmtools-hugepages rmtools-cpuset rmtools-storage; do
		run systemctl is-active "$u.service"
		[ "$output" = active ] || journalctl -b -u "$u.service" --no-pager -n 5 | sed 's/^/# /' >&3
		assert_output active
	done
	run systemctl --failed --plain --no-legend
	refute_output --partial rmtools
}

# ---- GPUs and Slurm (boot2.bats) ----

# gpu_nodes NUMA: the device nodes of the GPU on NUMA node NUMA ("-": none), comma-separated
gpu_nodes() {
	rm-devices list --type gpu -o numa,dev_nodes -r | awk -v n="$1" '$1 == n { print $2 }'
}

# slurm_configure: slurm.conf, cgroup.conf and gres.conf of a one-node cluster from
# rm-cpuset export slurm --cgroup-conf and rm-devices export gres, by README.md's Slurm section
# as printed (slurm-node.sh); then the node idle (30 s at most).
slurm_configure() {
	local host i end
	host=$(hostname -s)
	echo "# slurm: configuring" >&3
	if ! timeout -k 5 120 bash -e /lab/system/slurm-node.sh; then
		echo "# slurm: slurm-node.sh failed" >&3
		timeout 10 systemctl status --no-pager -n 0 munge slurmctld slurmd 2>&1 | sed 's/^/# /' >&3
		journalctl -b -u slurmd -u slurmctld -u munge --no-pager -n 30 | sed 's/^/# /' >&3
		return 1
	fi
	# 30 s in all, however long each sinfo takes
	for ((i = 0, end = SECONDS + 30; SECONDS < end; i++)); do
		case $(timeout -k 1 5 sinfo -h -N -o %t 2>/dev/null) in idle) echo "# slurm: idle" >&3; return 0 ;; esac
		if [ "$i" = 20 ]; then timeout -k 1 5 scontrol update nodename="$host" state=resume 2>/dev/null || :; fi
		sleep 0.5
	done
	echo "# slurm: the node is not idle after 30 s" >&3
	timeout -k 2 10 sinfo -N -l >&3; timeout -k 2 10 scontrol show node >&3
	journalctl -b -u slurmd -u slurmctld --no-pager -n 20 | sed 's/^/# /' >&3
	return 1
}

# ---- podman with rm-devices export cdi (boot2.bats) ----

# podman_image: the local image rmlab (no registry): the guest's dash, cat and sleep with their
# libraries, through podman import
podman_image() {
	local root=/tmp/rmlab-image f lib
	podman image exists localhost/rmlab && return 0
	rm -rf "$root" && mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" || return 1
	for f in /bin/dash /bin/cat /bin/sleep; do
		cp "$f" "$root/bin/" || return 1
		for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
			mkdir -p "$root${lib%/*}" && cp -L "$lib" "$root$lib" || return 1
		done
	done
	ln -s dash "$root/bin/sh"
	tar -C "$root" -c . | timeout -k 5 60 podman import - localhost/rmlab >/dev/null
	rm -rf "$root"
}

# podman_dri DEVICE: the /dev/dri nodes a container started with --device rmtools.io/gpu=DEVICE
# sees, comma-separated
podman_dri() {
	timeout -k 5 60 podman run --rm --network none --device "rmtools.io/gpu=$1" localhost/rmlab \
		sh -c 'set -- /dev/dri/*; IFS=,; echo "$*"'
}
