# SPDX-License-Identifier: GPL-2.0-or-later
# README.md's "Kubernetes: a node from rmtools to a kubelet": the files rmtools writes for the
# kubelet, the container runtime and the scheduler, from tests/rm-devices/fixtures.bash's
# fx_virtio_gpu machine (the lab's system shape: 8 CPUs, GPUs gpu0 on node 0 and gpu1 on node 1).
# k8s_node DIR prints the section's body: each command, then the file it writes, indented by
# four spaces as README.md prints it; tests/docs.bats checks that README.md holds them.
# Needs SNAPSHOTS and the tools in PATH.

# The set-up the section starts from.
K8S_NODE_SETUP=(
	"rm-cpuset reserve 0-1"
	"rm-devices alloc --owner train --type gpu --count 1 --numa-node 1"
	"rm-cpuset alloc --owner train --count 2 --numa-node 1"
)
# Each file: the command as README.md prints it (with -o FILE; run without), the file, and what
# reads it, tab-separated.
K8S_NODE_FILES=(
	"rm-cpuset export kubelet --kubelet-version 1.33	/etc/kubernetes/kubelet.conf.d/50-rmtools-cpuset.conf	the kubelet, from its --config-dir at start"
	"rm-devices export cdi	/etc/cdi/rmtools-gpu.json	containerd and CRI-O, when a pod's DRA claim or device plugin names rmtools.io/gpu=gpu0"
	"rm-devices export resourceslice --driver gpu.example.com --node-name worker-1	/var/lib/rmtools/resourceslices.yaml	the scheduler, once the DRA driver's kubelet plugin (or kubectl apply) publishes it"
	"rm-topo export nrt --node-name worker-1 --topology-manager-policy single-numa-node	/var/lib/rmtools/nrt.yaml	the scheduler's NodeResourceTopologyMatch plugin, once kubectl apply (or NFD's topology updater) publishes it"
)

k8s_node() {
	local dir=$1 line cmd file rest
	fx_virtio_gpu "$dir/root" || return 1
	(
		export RM_SYSROOT=$dir/root RM_STATE_DIR=$dir/state
		echo "The node: CPUs 0-1 reserved; owner \`train\` holds gpu1 and two CPUs of its NUMA node:"
		echo
		for cmd in "${K8S_NODE_SETUP[@]}"; do
			echo "    $cmd"
			${cmd/rm-cpuset /rm-cpuset --no-cgroups } >/dev/null || return 1
		done
		for line in "${K8S_NODE_FILES[@]}"; do
			IFS=$'\t' read -r cmd file rest <<<"$line"
			echo
			echo "\`$cmd -o $file\`, read by $rest:"
			echo
			# the hook's rm-cpuset where the Debian package installs it
			$cmd | sed 's|"path": "[^"]*/rm-cpuset"|"path": "/usr/bin/rm-cpuset"|; s/^/    /; s/^ *$//' || return 1
		done
	)
}
