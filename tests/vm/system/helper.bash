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

# quiet_irqs_moved [CPUS]: how many IRQs whose affinity holds one of CPUS (the isolated owner's,
# 4-5) the kernel lets move, each named on fd 3: writing an affinity without CPUS succeeds (the
# affinity is put back at once). Only a managed IRQ may stay there. One awk picks the IRQs that
# hold CPUS: the guest's emulated CPUs make a shell loop over every IRQ take seconds.
quiet_irqs_moved() {
	local f list rest moved=0
	while read -r f list; do
		if [ "$f" = rest ]; then rest=$list; continue; fi
		if echo "$rest" >"$f" 2>/dev/null; then
			echo "# $f held $list and could be moved" >&3
			echo "$list" >"$f"
			moved=$((moved + 1))
		fi
	done < <(awk -v quiet="${1:-4-5}" '
		function expand(list, set,   n, i, p, r, c) {
			n = split(list, p, ",")
			for (i = 1; i <= n; i++) {
				if (split(p[i], r, "-") == 1) r[2] = r[1]
				for (c = r[1] + 0; c <= r[2] + 0; c++) set[c] = 1
			}
		}
		BEGIN {
			expand(quiet, q)
			for (c = 0; c < 8; c++) if (!(c in q)) rest = rest (rest == "" ? "" : ",") c
			print "rest", rest
		}
		{ split("", a); expand($0, a); for (c in q) if (c in a) { print FILENAME, $0; next } }
	' /proc/irq/*/smp_affinity_list)
	echo "$moved"
}

check_quiet_irqs() {
	assert_equal "$(quiet_irqs_moved)" 0
}

# watch_quiet_irqs CPUS SECONDS: no movable IRQ on CPUS at any of the checks, twice a second
watch_quiet_irqs() {
	local end=$((SECONDS + $2)) n=0
	while [ "$SECONDS" -lt "$end" ]; do
		assert_equal "$(quiet_irqs_moved "$1")" 0
		n=$((n + 1))
		sleep 0.5
	done
	echo "# $1: no movable IRQ in $n checks over $2 s" >&3
}

# irqbalance_banned: the banned CPUs of rm-cpuset's irqbalance drop-in
irqbalance_banned() {
	sed -n 's/^Environment=IRQBALANCE_BANNED_CPULIST=//p' \
		/run/systemd/system/irqbalance.service.d/rmtools-quiet.conf
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

# srun_job ARGS...: srun ARGS (30 s at most); on failure its messages and slurmd's on fd 3
srun_job() {
	local rc=0
	timeout -k 5 30 srun "$@" 2>/tmp/srun.err || rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/# srun: /' /tmp/srun.err >&3
		journalctl -b -u slurmd -u slurmctld --no-pager -n 15 | sed 's/^/# /' >&3
	fi
	return "$rc"
}

# ---- podman with rm-devices export cdi (boot2.bats) ----

# podman_image: the local image rmlab (no registry) and the CDI spec, by README.md's container
# section as printed (podman-node.sh)
podman_image() {
	timeout -k 5 120 bash -e /lab/system/podman-node.sh >/dev/null
}

# podman_dri DEVICE: the /dev/dri nodes a container started with --device rmtools.io/gpu=DEVICE
# sees, comma-separated
podman_dri() {
	timeout -k 5 60 podman run --rm --network none --device "rmtools.io/gpu=$1" localhost/rmlab \
		sh -c 'set -- /dev/dri/*; IFS=,; echo "$*"'
}
