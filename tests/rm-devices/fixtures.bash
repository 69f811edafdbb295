# SPDX-License-Identifier: GPL-2.0-or-later
# Sysfs trees (RM_SYSROOT / --sysroot) of machines with special hardware, built on the fly: the
# CPUs and NUMA nodes of tests/snapshots/x86-2s-smt, and PCI functions laid out as the kernel lays
# them out: directories below sys/devices/pciDDDD:BB/ in bridge order, sys/bus/pci/devices/ADDR
# as relative links to them, driver and iommu_group links, and the files rm-devices and
# `lspci -A linux-sysfs` read (class, vendor, device, config, resource, numa_node, ...).
#
#   fx_gpu_server DIR   2 sockets, 2 NUMA nodes (CPUs 0-1,4-5 and 2-3,6-7), 4 PCIe switches,
#                       each with 2 NVIDIA A100 (class 0x0302, nvidia) and 1 ConnectX-6 HCA
#                       (class 0x0207, mlx5_core, port ACTIVE InfiniBand); 2 switches a node.
#                       Also a BMC's VGA (ASPEED) and an NVMe drive on root 0000:00, node 0.
#   fx_mixed DIR        a VPI ConnectX-5 whose port runs Ethernet (class still 0x0207), an E810
#                       NIC with 8 VFs, a Xilinx FPGA (0x1200), an AMD MI210 (drm render node,
#                       VRAM size), a Habana Gaudi whose numa_node is -1, an H100 bound to vfio-pci.
# Sourced by the tests (and by bench/rm-devices-speed.sh); needs SNAPSHOTS (test_helper.bash).

FX_NODE0=0-1,4-5
FX_NODE1=2-3,6-7
FX_ALL=0-7

# The CPUs and NUMA nodes.
fx_cpus() {
	mkdir -p "$1"
	cp -r "$SNAPSHOTS/x86-2s-smt/." "$1/"
	mkdir -p "$1/sys/bus/pci/devices" "$1/sys/bus/pci/drivers"
}

# The bytes of the numbers given.
fx_bytes() {
	# shellcheck disable=SC2059 # the format is the escapes of the bytes
	printf "$(printf '\\x%02x' "$@")"
}

# fx_dev ROOT PARENT ADDR CLASS VENDOR DEVICE [KEY=VALUE...]: one PCI function at
# sys/devices/PARENT/ADDR (PARENT: "pci0000:17" or "pci0000:17/0000:17:00.0/..."). Keys:
#   numa=N (default -1), driver=NAME, iommu=N, speed="16.0 GT/s PCIe", width=N,
#   totalvfs=N numvfs=N, physfn=ADDR, net=A,B, ib=HCA:STATE:LAYER[/STATE:LAYER...],
#   uverbs=N, render=N (renderD128+N), card=N, vram=BYTES, nvminor=N, accel=N, nvme=N,
#   bar=BYTES (a 64-bit prefetchable BAR besides the 16 MiB one), virtio=N (the card and render
#   nodes after it below the virtio device virtioN, as virtio-gpu has them)
fx_dev() {
	local root=$1 parent=$2 addr=$3 class=$4 vendor=$5 device=$6 dir kv key val cpus
	local numa=-1 bar=0 base sub prog header=0 i hca ports port n drm=drm
	shift 6
	dir="$root/sys/devices/$parent/$addr"
	mkdir -p "$dir"
	printf '0x%06x\n' "$class" >"$dir/class"
	printf '0x%04x\n' "$vendor" >"$dir/vendor"
	printf '0x%04x\n' "$device" >"$dir/device"
	printf '0x%04x\n' "$vendor" >"$dir/subsystem_vendor"
	printf '0x%04x\n' "$device" >"$dir/subsystem_device"
	printf '0x00\n' >"$dir/revision"
	echo 0 >"$dir/irq"
	ln -sr "$dir" "$root/sys/bus/pci/devices/$addr"
	for kv in "$@"; do
		key=${kv%%=*} val=${kv#*=}
		case $key in
		numa) numa=$val ;;
		bar) bar=$val ;;
		driver)
			mkdir -p "$root/sys/bus/pci/drivers/$val"
			ln -sr "$root/sys/bus/pci/drivers/$val" "$dir/driver" ;;
		iommu)
			mkdir -p "$root/sys/kernel/iommu_groups/$val/devices"
			ln -sr "$root/sys/kernel/iommu_groups/$val" "$dir/iommu_group" ;;
		speed) echo "$val" >"$dir/current_link_speed"; echo "$val" >"$dir/max_link_speed" ;;
		width) echo "$val" >"$dir/current_link_width"; echo "$val" >"$dir/max_link_width" ;;
		totalvfs) echo "$val" >"$dir/sriov_totalvfs" ;;
		numvfs) echo "$val" >"$dir/sriov_numvfs" ;;
		physfn)
			ln -s "../$val" "$dir/physfn"
			n=$(find "$(dirname "$dir")/$val" -maxdepth 1 -name 'virtfn*' | wc -l)
			ln -s "../$addr" "$(dirname "$dir")/$val/virtfn$n" ;;
		net) for i in ${val//,/ }; do mkdir -p "$dir/net/$i"; done ;;
		ib)
			hca=${val%%:*} ports=${val#*:} port=1
			for i in ${ports//\// }; do
				mkdir -p "$dir/infiniband/$hca/ports/$port"
				case ${i%%:*} in
				ACTIVE) echo "4: ACTIVE" ;;
				DOWN) echo "1: DOWN" ;;
				*) echo "2: INIT" ;;
				esac >"$dir/infiniband/$hca/ports/$port/state"
				echo "${i#*:}" >"$dir/infiniband/$hca/ports/$port/link_layer"
				port=$((port + 1))
			done ;;
		uverbs)
			mkdir -p "$dir/infiniband_verbs/uverbs$val" "$dir/infiniband_mad/umad$val"
			echo "231:$((192 + val))" >"$dir/infiniband_verbs/uverbs$val/dev" ;;
		virtio) drm=virtio$val/drm ;;
		render)
			mkdir -p "$dir/$drm/renderD$((128 + val))"
			echo "226:$((128 + val))" >"$dir/$drm/renderD$((128 + val))/dev" ;;
		card) mkdir -p "$dir/$drm/card$val"; echo "226:$val" >"$dir/$drm/card$val/dev" ;;
		vram) echo "$val" >"$dir/mem_info_vram_total" ;;
		nvminor)
			mkdir -p "$root/proc/driver/nvidia/gpus/$addr"
			printf 'Model: \t\t NVIDIA A100-SXM4-40GB\nIRQ:   \t\t 0\nDevice Minor: \t %s\nBus Location: \t %s\n' \
				"$val" "$addr" >"$root/proc/driver/nvidia/gpus/$addr/information" ;;
		accel) mkdir -p "$dir/accel/accel$val"; echo "511:$val" >"$dir/accel/accel$val/dev" ;;
		nvme)
			mkdir -p "$dir/nvme/nvme$val/nvme${val}n1"
			echo "240:$val" >"$dir/nvme/nvme$val/dev"
			echo "259:$val" >"$dir/nvme/nvme$val/nvme${val}n1/dev" ;;
		*) echo "fx_dev: unknown key '$key'" >&2; return 1 ;;
		esac
	done
	# the uevent the kernel writes for the function (DRIVER= when one is bound)
	{
		[ -L "$dir/driver" ] && echo "DRIVER=$(basename "$(readlink "$dir/driver")")"
		printf 'PCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n' \
			"$class" "$vendor" "$device" "$vendor" "$device" "$addr"
		printf 'MODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n' "$vendor" "$device" \
			"$vendor" "$device" $((class >> 16)) $(((class >> 8) & 255)) $((class & 255))
	} >"$dir/uevent"
	echo "$numa" >"$dir/numa_node"
	case $numa in 0) cpus=$FX_NODE0 ;; 1) cpus=$FX_NODE1 ;; *) cpus=$FX_ALL ;; esac
	echo "$cpus" >"$dir/local_cpulist"
	case $numa in 0) echo 33 ;; 1) echo cc ;; *) echo ff ;; esac >"$dir/local_cpus"
	# config space: ids, command, status, revision, class, header type (1 for bridges)
	base=$((class >> 16)) sub=$(((class >> 8) & 255)) prog=$((class & 255))
	[ $((class >> 8)) -eq $((0x0604)) ] && header=1
	{
		fx_bytes $((vendor & 255)) $((vendor >> 8)) $((device & 255)) $((device >> 8)) \
			6 4 16 0 0 "$prog" "$sub" "$base" 0 0 "$header" 0
		head -c 48 /dev/zero
	} >"$dir/config"
	# resource: BAR0 16 MiB of memory, BAR2 BAR bytes when given, the rest unused
	{
		printf '0x00000000%02x000000 0x00000000%02xffffff 0x0000000000040200\n' \
			$((16 + ${#addr} % 7)) $((16 + ${#addr} % 7))
		printf '0x0000000000000000 0x0000000000000000 0x0000000000000000\n'
		if [ "$bar" -gt 0 ]; then
			printf '0x0000200000000000 0x%016x 0x000000000014220c\n' $((0x200000000000 + bar - 1))
		else
			printf '0x0000000000000000 0x0000000000000000 0x0000000000000000\n'
		fi
		for i in 3 4 5 6; do
			printf '0x0000000000000000 0x0000000000000000 0x0000000000000000\n'
		done
	} >"$dir/resource"
}

# A root port, a PCIe switch (upstream port, three downstream ports) below it on root R (hex,
# two digits), NUMA node NODE. Prints nothing; the downstream ports are R+2:00.0..02.0.
fx_switch() {
	local root=$1 r=$2 node=$3 rp usp
	rp=$(printf '0000:%02x:00.0' $((16#$r)))
	usp=$(printf '0000:%02x:00.0' $((16#$r + 1)))
	fx_dev "$root" "pci0000:$r" "$rp" 0x060400 0x8086 0x347a numa="$node" driver=pcieport
	fx_dev "$root" "pci0000:$r/$rp" "$usp" 0x060400 0x10b5 0x9797 numa="$node" driver=pcieport
	for i in 0 1 2; do
		fx_dev "$root" "pci0000:$r/$rp/$usp" "$(printf '0000:%02x:%02x.0' $((16#$r + 2)) "$i")" \
			0x060400 0x10b5 0x9797 numa="$node" driver=pcieport
	done
}

# The parent path of downstream port I of the switch on root R.
fx_dsp() {
	local r=$1 i=$2
	printf 'pci0000:%s/0000:%02x:00.0/0000:%02x:00.0/0000:%02x:%02x.0' "$r" $((16#$r)) \
		$((16#$r + 1)) $((16#$r + 2)) "$i"
}

fx_gpu_server() {
	local root=$1 r node k=0 gpu=0 minor b
	fx_cpus "$root"
	printf 'Character devices:\n  1 mem\n195 nvidia\n231 infiniband_verbs\n509 nvidia-uvm\n\nBlock devices:\n259 blkext\n' \
		>"$root/proc/devices"
	mkdir -p "$root/sys/class/misc/rdma_cm"
	echo "10:58" >"$root/sys/class/misc/rdma_cm/dev"
	# root 0000:00: the host bridge, the BMC's VGA, an NVMe drive
	fx_dev "$root" pci0000:00 0000:00:00.0 0x060000 0x8086 0x09a2 numa=0
	fx_dev "$root" pci0000:00 0000:00:1c.0 0x060400 0x8086 0xa190 numa=0 driver=pcieport
	fx_dev "$root" pci0000:00/0000:00:1c.0 0000:03:00.0 0x030000 0x1a03 0x2000 numa=0 \
		driver=ast iommu=1
	fx_dev "$root" pci0000:00 0000:00:1d.0 0x060400 0x8086 0xa198 numa=0 driver=pcieport
	fx_dev "$root" pci0000:00/0000:00:1d.0 0000:01:00.0 0x010802 0x144d 0xa80a numa=0 \
		driver=nvme iommu=2 nvme=0 speed="16.0 GT/s PCIe" width=4
	for r in 17 3a 97 b7; do
		case $r in 17 | 3a) node=0 ;; *) node=1 ;; esac
		fx_switch "$root" "$r" "$node"
		for i in 0 1; do
			b=$(printf '%02x' $((16#$r + 3 + i)))
			# the driver numbered two GPUs against address order: the file says so
			case $gpu in 2) minor=3 ;; 3) minor=2 ;; *) minor=$gpu ;; esac
			fx_dev "$root" "$(fx_dsp "$r" "$i")" "0000:$b:00.0" 0x030200 0x10de 0x20b0 \
				numa="$node" driver=nvidia iommu=$((10 + gpu)) nvminor="$minor" \
				speed="16.0 GT/s PCIe" width=16 bar=$((64 << 30))
			gpu=$((gpu + 1))
		done
		b=$(printf '%02x' $((16#$r + 5)))
		fx_dev "$root" "$(fx_dsp "$r" 2)" "0000:$b:00.0" 0x020700 0x15b3 0x101b numa="$node" \
			driver=mlx5_core iommu=$((30 + k)) net="ib$k" ib="mlx5_$k:ACTIVE:InfiniBand" \
			uverbs="$k" speed="16.0 GT/s PCIe" width=16
		k=$((k + 1))
	done
}

fx_mixed() {
	local root=$1 i
	fx_cpus "$root"
	printf 'Character devices:\n  1 mem\n195 nvidia\n231 infiniband_verbs\n235 kfd\n241 vfio\n\nBlock devices:\n' \
		>"$root/proc/devices"
	mkdir -p "$root/sys/class/kfd/kfd" "$root/sys/class/vfio/77" "$root/sys/class/misc/rdma_cm"
	echo "235:0" >"$root/sys/class/kfd/kfd/dev"
	echo "241:0" >"$root/sys/class/vfio/77/dev"
	echo "10:58" >"$root/sys/class/misc/rdma_cm/dev"
	fx_dev "$root" pci0000:00 0000:00:00.0 0x060000 0x8086 0x09a2 numa=0
	# an E810 with 8 VFs enabled of 64
	fx_dev "$root" pci0000:3a 0000:3a:00.0 0x060400 0x8086 0x347a numa=0 driver=pcieport
	fx_dev "$root" pci0000:3a/0000:3a:00.0 0000:3b:00.0 0x020000 0x8086 0x159b numa=0 \
		driver=ice iommu=40 net=ens1f0 totalvfs=64 numvfs=8 speed="16.0 GT/s PCIe" width=16
	for i in 0 1 2 3 4 5 6 7; do
		fx_dev "$root" pci0000:3a/0000:3a:00.0 "0000:3b:01.$i" 0x020000 0x8086 0x1889 numa=0 \
			driver=iavf iommu=$((41 + i)) net="ens1f0v$i" physfn=0000:3b:00.0
	done
	# a VPI ConnectX-5: its firmware said InfiniBand (class 0x0207), its port runs Ethernet
	fx_dev "$root" pci0000:5d 0000:5d:00.0 0x060400 0x8086 0x347a numa=0 driver=pcieport
	fx_dev "$root" pci0000:5d/0000:5d:00.0 0000:5e:00.0 0x020700 0x15b3 0x1017 numa=0 \
		driver=mlx5_core iommu=50 net=enp94s0np0 ib="mlx5_0:ACTIVE:Ethernet" uverbs=0
	# a Xilinx Alveo U250 (processing accelerator class, but Xilinx: an FPGA)
	fx_dev "$root" pci0000:ae 0000:ae:00.0 0x060400 0x8086 0x347a numa=1 driver=pcieport
	fx_dev "$root" pci0000:ae/0000:ae:00.0 0000:af:00.0 0x120000 0x10ee 0x5004 numa=1 \
		driver=xclmgmt iommu=60
	# an AMD Instinct MI210: display controller class, render node, VRAM size in sysfs
	fx_dev "$root" pci0000:c0 0000:c0:01.0 0x060400 0x1022 0x1483 numa=1 driver=pcieport
	fx_dev "$root" pci0000:c0/0000:c0:01.0 0000:c1:00.0 0x038000 0x1002 0x740f numa=1 \
		driver=amdgpu iommu=70 card=1 render=0 vram=$((64 << 30)) bar=$((32 << 30))
	# a Habana Gaudi whose firmware gives no NUMA node
	fx_dev "$root" pci0000:d7 0000:d7:00.0 0x060400 0x8086 0x347a driver=pcieport
	fx_dev "$root" pci0000:d7/0000:d7:00.0 0000:d8:00.0 0x120000 0x1da3 0x1020 \
		driver=habanalabs iommu=75 accel=0
	# an H100 handed to a VM: vfio-pci, its IOMMU group's node
	fx_dev "$root" pci0000:e2 0000:e2:00.0 0x060400 0x8086 0x347a numa=1 driver=pcieport
	fx_dev "$root" pci0000:e2/0000:e2:00.0 0000:e3:00.0 0x030200 0x10de 0x2330 numa=1 \
		driver=vfio-pci iommu=77
}

# A QEMU guest of the lab's system shape: two virtio-gpu-pci (class 0x0380, "other display
# controller", DRM nodes below their virtio device), one on node 0, one on node 1, and a display
# controller of the same class without a DRM driver (no nodes: not a GPU).
fx_virtio_gpu() {
	local root=$1
	fx_cpus "$root"
	printf 'Character devices:\n  1 mem\n226 drm\n\nBlock devices:\n' >"$root/proc/devices"
	fx_dev "$root" pci0000:00 0000:00:00.0 0x060000 0x8086 0x29c0 numa=-1
	fx_dev "$root" pci0000:00 0000:00:03.0 0x038000 0x1234 0x1111 numa=-1
	fx_dev "$root" pci0000:10 0000:10:00.0 0x060400 0x1b36 0x000c numa=0 driver=pcieport
	fx_dev "$root" pci0000:10/0000:10:00.0 0000:11:00.0 0x038000 0x1af4 0x1050 numa=0 \
		driver=virtio-pci virtio=1 card=0 render=0
	fx_dev "$root" pci0000:20 0000:20:00.0 0x060400 0x1b36 0x000c numa=1 driver=pcieport
	fx_dev "$root" pci0000:20/0000:20:00.0 0000:21:00.0 0x038000 0x1af4 0x1050 numa=1 \
		driver=virtio-pci virtio=2 card=1 render=1
}

# ---- for the tests ----

# In setup_file: the GPU server's tree in $GPU and the mixed machine's in $MIXED.
fx_trees() {
	GPU="$BATS_FILE_TMPDIR/gpu" MIXED="$BATS_FILE_TMPDIR/mixed"
	fx_gpu_server "$GPU"
	fx_mixed "$MIXED"
	export GPU MIXED
}

gpu() { rm-devices --sysroot "$GPU" "$@"; }
mixed() { rm-devices --sysroot "$MIXED" "$@"; }
