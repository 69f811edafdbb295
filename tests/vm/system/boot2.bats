#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot 2 of the system shape: the node, rebooted on its disk, comes back from its units alone.
load helper

# slurmd's stop waits on its steps' scope for up to 90 s at shutdown: stopped here, 20 s at
# most, and the containers a failed check left
teardown_file() {
	timeout 20 systemctl stop slurmd slurmctld 2>/dev/null ||
		systemctl kill --signal=KILL slurmd slurmctld 2>/dev/null || :
	timeout -k 5 30 podman rm -a -f -t 0 >/dev/null 2>&1 || :
}

@test "cloud-init finished without errors" {
	run cloud-init status --long
	assert_success
	assert_line "status: done"
}

@test "the package rmtools is installed" {
	run dpkg-query -W -f '${Status}' rmtools
	assert_output "install ok installed"
}

@test "the rmtools units ran at boot, none failed" {
	check_units
}

@test "the reserved CPUs are 0-1" {
	check_reserved
}

@test "the owners' cpusets: dataplane 4-5 in an isolated partition with its hugetlb limit, db 2-3 on node 0 with memory.max" {
	check_owners
}

@test "no IRQ that can move is left on the isolated owner's CPUs" {
	check_quiet_irqs
}

@test "64 pages of 2 MiB on nodes 0 and 1" {
	check_hugepages
}

@test "db's io.max on the NVMe disk" {
	check_io_max
}

@test "the kubelet stand-in started after the rmtools units and found the owners in place" {
	local done start
	for u in rmtools-hugepages rmtools-cpuset rmtools-storage; do
		done=$(systemctl show -P ExecMainExitTimestampMonotonic "$u.service")
		start=$(systemctl show -P ExecMainStartTimestampMonotonic kubelet.service)
		[ "$done" -gt 0 ] && [ "$start" -gt "$done" ]
	done
	run -0 cat /run/kubelet-start.txt
	assert_line "dataplane 4-5"
	assert_line "db 2-3"
}

@test "an edited cpuset.conf and apply: only the edited owner changes" {
	cp /etc/rmtools/cpuset.conf /tmp/cpuset.conf.orig
	sed -i 's/^owner db count=2 /owner db count=1 /' /etc/rmtools/cpuset.conf
	run -0 rm-cpuset apply -o cgroup,action
	assert_line --regexp '^source=/etc/rmtools/cpuset.conf:[0-9]+ setting=reserve name=- cpus=0-1 action=keep$'
	assert_line --regexp '^source=/etc/rmtools/cpuset.conf:[0-9]+ setting=owner name=dataplane cpus=4-5 action=keep$'
	assert_line --regexp '^source=/etc/rmtools/cpuset.conf:[0-9]+ setting=owner name=db cpus=2 action=reallocate$'
	assert_line "cgroup=dataplane action=keep"
	assert_line "cgroup=db action=update"
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/db/cpuset.cpus)" 2
	assert_equal "$(cat /sys/fs/cgroup/rmtools.slice/dataplane/cpuset.cpus.partition)" isolated
}

@test "a bad cpuset.conf changes nothing: exit 2 with FILE:LINE:COLUMN" {
	cp /var/lib/rmtools/cpuset.state /tmp/state.before
	echo "owner web count=two" >>/etc/rmtools/cpuset.conf
	run -2 rm-cpuset apply
	assert_output --regexp "^rm-cpuset: /etc/rmtools/cpuset.conf:[0-9]+:17: invalid count: 'two'"
	cmp /var/lib/rmtools/cpuset.state /tmp/state.before
	cp /tmp/cpuset.conf.orig /etc/rmtools/cpuset.conf
	run -0 rm-cpuset apply
	assert_line --regexp 'name=db cpus=2-3 action=reallocate$'
}

@test "irqbalance under systemd: its drop-in bans dataplane's CPUs, restarts included; an owner isolated at run time is banned through its socket, with no restart" {
	local pid
	run -0 systemctl is-active irqbalance
	assert_equal "$(irqbalance_banned)" 4-5
	# irqbalance places the IRQs every 10 s: each watch covers one of its passes
	run -0 timeout 30 systemctl restart irqbalance
	watch_quiet_irqs 4-5 11
	pid=$(systemctl show -P MainPID irqbalance)
	run -0 --separate-stderr rm-cpuset alloc --owner late --count 2 --isolate -o cpus -r
	assert_output 6-7
	assert_equal "$(systemctl show -P MainPID irqbalance)" "$pid"
	assert_equal "$(irqbalance_banned)" 4-7
	watch_quiet_irqs 4-7 11
	run -0 timeout 30 systemctl restart irqbalance
	watch_quiet_irqs 4-7 11
	run -0 rm-cpuset release late
	assert_equal "$(irqbalance_banned)" 4-5
}

@test "GPUs: virtio-gpus with their DRM nodes and NUMA nodes; alloc gives db the node-0 one; grant confines db's cgroup (BPF)" {
	local mine others
	run -0 rm-devices list --type gpu -o numa,dev_nodes -r
	assert_equal "${#lines[@]}" 3
	assert_line --regexp '^0 /dev/dri/card[0-9]+,/dev/dri/renderD1[0-9][0-9]$'
	assert_line --regexp '^1 /dev/dri/card[0-9]+,/dev/dri/renderD1[0-9][0-9]$'
	assert_line --regexp '^- /dev/dri/card[0-9]+,/dev/dri/renderD1[0-9][0-9]$'
	mine=$(gpu_nodes 0) others=$(gpu_nodes 1),$(gpu_nodes -)
	run -0 rm-devices alloc --type gpu --count 1 --owner db -o numa,dev_nodes -r
	assert_output "0 $mine"
	run -0 rm-devices grant db -o devnode,cgroup -r
	assert_line "${mine%%,*} $SLICE/db"
	assert_line "/dev/null $SLICE/db"
	# in db's cgroup its GPU's nodes open and the others' do not; outside it they all do
	# (true, not the special built-in ":", whose redirection error ends sh)
	run rm-cpuset run --owner db -- sh -c "for n in ${mine//,/ }; do true <>\$n || exit 1; done
		for n in ${others//,/ }; do ! true 2>/dev/null <>\$n || exit 2; done"
	assert_success
	run -0 sh -c ": <>${others%%,*}"
}

@test "Slurm: jobs run off the reserved and the owners' CPUs and GPUs, with MemSpecLimit; a new owner after a re-export too" {
	local free real
	slurm_configure
	timeout -k 2 10 sinfo -N -o '%N %t %c %m %G' | sed 's/^/# /' >&3
	# gres.conf: the two GPUs db does not hold
	run -0 grep -c '^Name=gpu ' /etc/slurm/gres.conf
	assert_output 2
	run grep -F "File=$(gpu_nodes 0 | cut -d, -f1)" /etc/slurm/gres.conf
	assert_failure
	# every CPU a job may have: 6-7 (0-1 reserved, db 2-3, dataplane 4-5)
	run -0 srun_job -c 2 grep Cpus_allowed_list /proc/self/status
	assert_output $'Cpus_allowed_list:\t6-7'
	run ! timeout -k 5 30 srun -c 3 --immediate=5 true
	# MemSpecLimit: 256 MiB of RealMemory withheld from jobs
	run -0 timeout -k 2 10 scontrol show node -o
	assert_output --partial 'MemSpecLimit=256'
	real=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$output")
	run ! timeout -k 5 30 srun --mem="$real" --immediate=5 true
	run -0 srun_job --mem=$((real - 256)) true
	echo '# slurm: CPU and memory checks done' >&3
	# --gres=gpu:1: one of gres.conf's GPUs opens, the other does not
	run -0 srun_job --gres=gpu:1 sh -c 'ok=0; for f in $(sed -n "s/.* File=\([^ ]*\).*/\1/p" /etc/slurm/gres.conf); do true 2>/dev/null <>$f && ok=$((ok + 1)); done; echo $ok'
	assert_output 1
	# a new owner: dataplane's CPUs go to web; after the re-export new jobs stay off web's
	run -0 rm-cpuset release dataplane
	run -0 rm-cpuset alloc --owner web --count 2 --full-pcpus-only --numa-node 1 -o cpus -r
	free=$(sed 's/^4-5$/6-7/; t; s/.*/4-5/' <<<"$output")
	slurm_configure
	run -0 srun_job -c 2 grep Cpus_allowed_list /proc/self/status
	assert_output $'Cpus_allowed_list:\t'"$free"
	run ! timeout -k 5 30 srun -c 3 --immediate=5 true
}

@test "podman: the CDI spec loads; gpu=N gives that GPU's nodes, an owner's name its GPUs, CPUs and cgroup (hook); released while running: the shared pool" {
	local name nodes cid pid
	run -0 podman_image
	run -0 grep -F '"cdiVersion": "0.3.0"' /etc/cdi/rmtools-gpu.json
	# README's line, as printed
	run timeout -k 5 60 podman run --rm --network none --device rmtools.io/gpu=gpu0 localhost/rmlab ls /dev/dri
	[ "$status" = 0 ] || printf '# podman: %s\n' "${lines[@]}" >&3
	assert_success
	assert_equal "$(printf '/dev/dri/%s\n' "${lines[@]}" | paste -sd,)" "$(rm-devices list --type gpu -o name,dev_nodes -r | awk '$1 == "gpu0" { print $2 }')"
	# each GPU by its name: exactly its nodes
	while read -r name nodes; do
		run -0 podman_dri "$name"
		assert_output "$nodes"
	done < <(rm-devices list --type gpu -o name,dev_nodes -r)
	# db's device: db's GPU, and the hook puts the container on db's CPUs and in its cgroup
	run -0 timeout -k 5 60 podman run -d --network none --device rmtools.io/gpu=db localhost/rmlab \
		sh -c 'set -- /dev/dri/*; IFS=,; echo "$*"; exec sleep 120'
	cid=$output
	pid=$(podman inspect -f '{{.State.Pid}}' "$cid")
	run -0 podman logs "$cid"
	assert_output "$(gpu_nodes 0)"
	run -0 cat "/proc/$pid/cgroup"
	assert_output "0::/rmtools.slice/db"
	run -0 grep Cpus_allowed_list "/proc/$pid/status"
	assert_output $'Cpus_allowed_list:\t2-3'
	# db released while it runs: the container goes on in the shared pool's cgroup, with the
	# affinity attach gave it (the kernel keeps it: 2-3 are the shared pool's now); a new one fails
	run -0 rm-cpuset release db
	run -0 cat "/proc/$pid/cgroup"
	assert_output "0::/rmtools.slice/shared"
	run -0 grep Cpus_allowed_list "/proc/$pid/status"
	assert_output $'Cpus_allowed_list:\t2-3'
	run -0 podman inspect -f '{{.State.Running}}' "$cid"
	assert_output true
	run ! timeout -k 5 60 podman run --rm --network none --device rmtools.io/gpu=db localhost/rmlab true
	timeout -k 5 30 podman rm -f -t 0 "$cid" >/dev/null
	# db back from cpuset.conf for the checks after this one
	run -0 rm-cpuset apply
	run -0 cat "$SLICE/db/cpuset.cpus"
	assert_output 2-3
}
