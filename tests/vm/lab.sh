#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-kernel lab: boot Debian's kernels under QEMU (TCG) on machine shapes the host does
# not have, run tests/vm/*.bats inside each boot with the binaries of this build, and print one
# TAP stream of every shape's results.
#
#   tests/vm/lab.sh                   every shape, RM_LAB_JOBS (2) at a time
#   tests/vm/lab.sh numa-6.1 v1-6.1   only these shapes
#   tests/vm/lab.sh --list            the shapes, their kernels and their tests
#   RM_LAB_TESTS=quiet tests/vm/lab.sh rt-6.12   only these bats files in the shapes' boots
#   tests/vm/lab.sh --shell numa-6.12 boot one shape with a shell on this terminal (poweroff -f ends it)
#   tests/vm/lab.sh system-6.12       the Debian 12 node with systemd and cloud-init (system.sh)
#
# Kernels are Debian's packages, unpacked (not installed) into $RM_LAB_CACHE
# (/var/cache/rmtools-lab as root, ~/.cache/rmtools-lab otherwise) and kept there between runs.
# Consoles and results of the last run are in $RM_BUILDDIR/tests/vm/logs.
set -u -o pipefail
PATH=$PATH:/usr/sbin:/sbin

SRCDIR=${RM_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${RM_BUILDDIR:-$SRCDIR}
LOGDIR=$BUILDDIR/tests/vm/logs
if [ -z "${RM_LAB_CACHE:-}" ]; then
	if [ "$(id -u)" -eq 0 ]; then RM_LAB_CACHE=/var/cache/rmtools-lab
	else RM_LAB_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/rmtools-lab; fi
fi
JOBS=${RM_LAB_JOBS:-2}
TIMEOUT=${RM_LAB_TIMEOUT:-600} # seconds a boot may take, tests included
TOOLS="rm-topo rm-cpuset rm-hugepages rm-devices rm-class rm-bench rm-storage rm-qos"

# ---- shapes -------------------------------------------------------------------------------
# NAME KERNEL MACHINE CGROUP "KERNEL ARGUMENTS" "TESTS"
#   KERNEL: 6.12 (newest Debian 12 6.12 build), 6.1 (Debian 12's stock kernel), 6.12-rt
#   MACHINE: numa4 (2 sockets x 2 cores x 2 threads, nodes 0-1 with CPUs, 2-3 memory-only,
#            a pxb-pcie expander on node 1 with an NVMe controller behind a root port)
#            system: numa4 booted from a Debian 12 root file system with systemd and
#            cloud-init, provisioned from a NoCloud seed and rebooted; its checks are
#            tests/vm/system/bootN.bats, run on boot N (tests/vm/system.sh)
#   CGROUP: v2 (cgroup v2 only, cgroup_no_v1=all) or v1 (v1 controllers, v2 at unified/)
SHAPES=(
	"numa-6.12 6.12 numa4 v2 psi=1 topology,cpuset,hotplug,hugepages,devices,bench,quiet,storage,qos"
	"numa-6.1 6.1 numa4 v2 - topology,cpuset,hotplug,hugepages,quiet"
	"v1-6.1 6.1 numa4 v1 - cpuset-v1,hugepages-v1,devices-v1,quiet"
	"isolcpus-6.12 6.12 numa4 v2 isolcpus=domain,managed_irq,6-7,nohz_full=6-7 isolcpus,quiet"
	"rt-6.12 6.12-rt numa4 v2 isolcpus=domain,managed_irq,6-7,nohz_full=6-7 isolcpus,cpuset,quiet"
	"system-6.12 6.12 system v2 - system/bootN"
)

shape_field() { # shape_field NAME INDEX
	local s
	for s in "${SHAPES[@]}"; do
		set -- $s
		[ "$1" = "$NAME" ] && { local a=($s); echo "${a[$INDEX]}"; return 0; }
	done
	return 1
}

die() { echo "lab: $*" >&2; exit 1; }

# ---- kernels --------------------------------------------------------------------------------
# The binary package of a kernel flavour, as apt sees it now.
kernel_package() {
	case $1 in
	6.1) # what Debian 12's linux-image-amd64 depends on
		apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-6\.1\.[0-9.-]*-amd64\)$/\1-unsigned/p' | head -n 1 ;;
	6.12)
		apt-cache pkgnames linux-image-6.12. 2>/dev/null |
			grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -V | tail -n 1 ;;
	6.12-rt)
		apt-cache pkgnames linux-image-6.12. 2>/dev/null |
			grep -E '^linux-image-6\.12\.[0-9]+\+deb12-rt-amd64-unsigned$' | sort -V | tail -n 1 ;;
	esac
}

# fetch_kernel FLAVOUR: unpack the kernel package into the cache once; prints its directory.
fetch_kernel() {
	local pkg dir deb
	pkg=$(kernel_package "$1")
	if [ -z "$pkg" ]; then # no package lists: the newest kernel already cached
		dir=$(ls -d "$RM_LAB_CACHE/$1"/*/ 2>/dev/null | sort -V | tail -n 1)
		[ -n "$dir" ] || die "no Debian package for kernel $1 (run apt-get update)"
		echo "${dir%/}"
		return
	fi
	dir=$RM_LAB_CACHE/$1/$pkg
	if [ ! -f "$dir/.unpacked" ]; then
		mkdir -p "$RM_LAB_CACHE/$1/download" || die "cannot create $RM_LAB_CACHE"
		(cd "$RM_LAB_CACHE/$1/download" && rm -f ./*.deb &&
			apt-get -o APT::Sandbox::User="$(id -un)" download -q "$pkg" >&2) ||
			die "apt-get download $pkg failed"
		deb=$(ls "$RM_LAB_CACHE/$1/download/"*.deb)
		rm -rf "$dir" && mkdir -p "$dir" && dpkg-deb -x "$deb" "$dir" || die "cannot unpack $deb"
		# modules.dep is made when a kernel is installed; make it for the unpacked one
		depmod -b "$dir" "$(basename "$(ls -d "$dir"/lib/modules/*/)")" || die "depmod failed"
		rm -f "$deb"
		touch "$dir/.unpacked"
	fi
	echo "$dir"
}

# fetch_irqbalance: Debian's irqbalance, unpacked into the cache once (never installed: on the
# host it would move the host's IRQs); prints its directory, or nothing when unavailable. The
# guests run the real daemon next to rm-cpuset --isolate (quiet.bats).
fetch_irqbalance() {
	local dir deb ver
	ver=$(apt-cache policy irqbalance 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
		ls -d "$RM_LAB_CACHE"/irqbalance/*/ 2>/dev/null | sort -V | tail -n 1 | sed 's|/$||'
		return
	fi
	dir=$RM_LAB_CACHE/irqbalance/$ver
	if [ ! -f "$dir/.unpacked" ]; then
		mkdir -p "$RM_LAB_CACHE/irqbalance/download" || return
		(cd "$RM_LAB_CACHE/irqbalance/download" && rm -f ./*.deb &&
			apt-get -o APT::Sandbox::User="$(id -un)" download -q irqbalance >&2) || return
		deb=$(ls "$RM_LAB_CACHE/irqbalance/download/"*.deb)
		rm -rf "$dir" && mkdir -p "$dir" && dpkg-deb -x "$deb" "$dir" && rm -f "$deb" &&
			touch "$dir/.unpacked" || return
	fi
	echo "$dir"
}

# ---- initramfs --------------------------------------------------------------------------------
# copy_with_libs ROOT FILE...: FILE and every library ldd names for it, at their paths under
# ROOT (Debian's /lib is /usr/lib).
copy_with_libs() {
	local root=$1 f lib
	shift
	for f in "$@"; do
		install -D -m 0755 "$f" "$root/usr/${f#/usr/}"
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$root/usr/${lib#/usr/}" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root/usr/${lib#/usr/}"
		done
	done
}

# The part of the initramfs every kernel shares: busybox, bash, bats, the tools, the tests.
build_base() {
	local root=$WORK/base b t
	rm -rf "$root" && mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{proc,sys,dev,tmp,run,etc,root,lab/tests}
	ln -s usr/bin "$root/bin"; ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"; ln -s usr/lib64 "$root/lib64"
	install -m 0755 /bin/busybox "$root/usr/bin/busybox"
	for b in $(/bin/busybox --list-full); do
		b=${b#/}; b=${b#usr/}
		[ -e "$root/usr/$b" ] || ln -s /usr/bin/busybox "$root/usr/$b"
	done
	copy_with_libs "$root" /usr/bin/bash
	# mke2fs for rm-storage's quota test (ext4 with the quota and project features)
	if [ -x /usr/sbin/mke2fs ]; then
		copy_with_libs "$root" /usr/sbin/mke2fs
		[ -f /etc/mke2fs.conf ] && install -m 0644 /etc/mke2fs.conf "$root/etc/mke2fs.conf"
	fi
	# numactl -H, to compare rm-topo with where it is installed
	[ -x /usr/bin/numactl ] && copy_with_libs "$root" /usr/bin/numactl
	for t in $TOOLS; do
		[ -x "$BUILDDIR/$t" ] || die "$BUILDDIR/$t is not built"
		copy_with_libs "$root" "$BUILDDIR/$t"
		mv "$root/usr/${BUILDDIR#/usr/}/$t" "$root/usr/bin/$t"
	done
	# the libraries the tools open at first use (libcommon/dynlib.h), which ldd does not name
	for lib in libnuma.so.1 libcgroup.so.2 libsmartcols.so.1 libz.so.1 libpci.so.3 libblkid.so.1 \
		libmount.so.1; do
		b=$(/sbin/ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
		[ -n "$b" ] || die "$lib is not installed"
		copy_with_libs "$root" "$b"
	done
	local irqb
	irqb=$(fetch_irqbalance)
	if [ -n "$irqb" ] && [ -x "$irqb/usr/sbin/irqbalance" ]; then
		copy_with_libs "$root" "$irqb/usr/sbin/irqbalance"
		mv "$root/usr/${irqb#/usr/}/usr/sbin/irqbalance" "$root/usr/sbin/irqbalance"
		mkdir -p "$root/run/irqbalance" "$root/var/lib"
	fi
	cp -a /usr/bin/bats "$root/usr/bin/"
	mkdir -p "$root/usr/lib/bats" "$root/usr/libexec"
	cp -a /usr/lib/bats-core "$root/usr/lib/" && cp -a /usr/libexec/bats-core "$root/usr/libexec/"
	cp -a /usr/lib/bats/bats-support /usr/lib/bats/bats-assert "$root/usr/lib/bats/"
	[ -f /usr/share/misc/pci.ids ] && install -D -m 0644 /usr/share/misc/pci.ids "$root/usr/share/misc/pci.ids"
	install -m 0755 "$SRCDIR/tests/vm/guest/init" "$root/init"
	cp "$SRCDIR"/tests/vm/*.bats "$SRCDIR/tests/vm/guest/helper.bash" "$root/lab/tests/"
	printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\nkvm:x:104:\nnogroup:x:65534:\n' >"$root/etc/group"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$WORK/base.cpio" || die "cpio failed"
}

# The modules a shape needs, decompressed, with the order to load them in (/lab/modules).
# Without MODULES: nvme for its disk; ext4 (with the crc32c its metadata checksums need) and
# quota_v2 for rm-storage's project quotas. A module built in is not found and not needed.
build_modules() { # build_modules KERNEL_DIR OUT.cpio [MODULE...]
	local kdir=$1 out=$2 root=$WORK/mods.$BASHPID mdir ver order=() m mods
	shift 2
	mods=${*:-nvme crc32c_generic ext4 quota_v2}
	mdir=$(ls -d "$kdir"/lib/modules/*/ | head -n 1)
	ver=$(basename "$mdir")
	rm -rf "$root" && mkdir -p "$root/lab"
	add() { # add MODULE-PATH (relative to $mdir), its dependencies first
		local path=$1 dep
		case " ${order[*]} " in *" $path "*) return ;; esac
		for dep in $(sed -n "s|^$path:||p" "$mdir/modules.dep"); do add "$dep"; done
		order+=("$path")
	}
	for m in $mods; do
		m=$(grep -o "^[^:]*/$m\.ko[.a-z]*" "$mdir/modules.dep" | head -n 1)
		[ -n "$m" ] && add "$m"
	done
	: >"$root/lab/modules"
	for m in "${order[@]}"; do
		mkdir -p "$root/lib/modules/$ver/$(dirname "$m")"
		case $m in
		*.xz) xz -dc "$mdir/$m" >"$root/lib/modules/$ver/${m%.xz}" ;;
		*.zst) zstd -qdc "$mdir/$m" >"$root/lib/modules/$ver/${m%.zst}" ;;
		*) cp "$mdir/$m" "$root/lib/modules/$ver/$m" ;;
		esac
		m=${m%.xz}; echo "$ver/${m%.zst}" >>"$root/lab/modules"
	done
	mv "$root/lib" "$root/usr_lib" && mkdir -p "$root/usr" && mv "$root/usr_lib" "$root/usr/lib"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
	rm -rf "$root"
}

# make_initrd KERNEL [SHAPE]: $WORK/initrd.KERNEL, the shared part followed by the kernel's
# modules (the kernel unpacks concatenated archives one after the other); $WORK/initrd.SHAPE for
# a shape with modules of its own (shape_modules), which it loads after the others.
make_initrd() {
	local kdir out=$WORK/initrd.$1 mods=
	[ -n "${2:-}" ] && mods=$(shape_modules "$2")
	[ -n "$mods" ] && out=$WORK/initrd.$2
	[ -f "$out" ] && return 0
	kdir=$(fetch_kernel "$1") || exit 1
	build_modules "$kdir" "$out.mods" ${mods:+nvme crc32c_generic ext4 quota_v2 $mods} &&
		cat "$WORK/base.cpio" "$out.mods" >"$out" && rm -f "$out.mods" || die "initramfs for ${2:-$1} failed"
}

# ---- machines ---------------------------------------------------------------------------------
machine_args() { # machine_args MACHINE NVME-IMAGE
	case $1 in
	numa4)
		echo "-machine q35,hmat=on -cpu max -smp 8,sockets=2,cores=2,threads=2 -m 4G"
		for n in 0 1 2 3; do echo "-object memory-backend-ram,size=1G,id=m$n"; done
		echo "-numa node,nodeid=0,cpus=0-3,memdev=m0,initiator=0"
		echo "-numa node,nodeid=1,cpus=4-7,memdev=m1,initiator=1"
		echo "-numa node,nodeid=2,memdev=m2,initiator=0 -numa node,nodeid=3,memdev=m3,initiator=1"
		# ACPI HMAT: the memory-only nodes slower, as CXL memory (kernels from 6.10 put such
		# nodes in a memory tier of their own)
		local i t lat bw
		for i in 0 1; do
			for t in 0 1 2 3; do
				if [ "$t" = "$i" ]; then lat=80 bw=20G
				elif [ "$t" -lt 2 ]; then lat=130 bw=10G
				elif [ $((t - 2)) = "$i" ]; then lat=250 bw=8G
				else lat=350 bw=4G; fi
				echo "-numa hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat"
				echo "-numa hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw"
			done
		done
		# a memory-side cache in front of each memory-only node, as HBM or CXL memory has
		echo "-numa hmat-cache,node-id=2,size=16M,level=1,associativity=direct,policy=write-back,line=64"
		echo "-numa hmat-cache,node-id=3,size=16M,level=1,associativity=direct,policy=write-back,line=64"
		# node 2 is near socket 0, node 3 near socket 1, as CXL memory behind each socket
		echo "-numa dist,src=0,dst=1,val=21 -numa dist,src=0,dst=2,val=17 -numa dist,src=0,dst=3,val=28"
		echo "-numa dist,src=1,dst=2,val=28 -numa dist,src=1,dst=3,val=17 -numa dist,src=2,dst=3,val=28"
		echo "-device pxb-pcie,id=pxb1,bus_nr=64,numa_node=1,bus=pcie.0"
		echo "-device pcie-root-port,id=rp1,bus=pxb1,chassis=1,slot=1"
		echo "-drive if=none,id=nvm,format=raw,file=$2 -device nvme,id=nvme0,serial=rmlab0001,drive=nvm,bus=rp1"
		;;
	*) die "unknown machine $1" ;;
	esac
}

# The devices and modules some shapes have on top of their machine.
# numa-6.12: the faults of health.bats (devices.bats): a virtio-net with AER on behind a root
# port (pcie_aer_inject_error from the monitor, aer_inject in the guest), and one on a root port
# of its own, to unbind and to unplug (device_del; the root ports of pcie.0 have ACPI hotplug).
shape_devices() { # shape_devices NAME
	case $1 in
	numa-6.12)
		echo "-device pcie-root-port,id=rp3,bus=pcie.0,chassis=3,slot=3"
		echo "-netdev user,id=net1,restrict=on -device virtio-net-pci,netdev=net1,id=nic1,bus=rp3,aer=on"
		echo "-device pcie-root-port,id=rp4,bus=pcie.0,chassis=4,slot=4"
		echo "-netdev user,id=net2,restrict=on -device virtio-net-pci,netdev=net2,id=nic2,bus=rp4"
		if [ -n "$(shape_netns "$1")" ]; then
			echo "-device pcie-root-port,id=rp5,bus=pcie.0,chassis=5,slot=5"
			echo "-netdev tap,id=net3,ifname=mq0,script=no,downscript=no,vhost=off,queues=4"
			echo "-device virtio-net-pci,netdev=net3,id=nic3,bus=rp5,mq=on,vectors=10"
		fi
		;;
	esac
}
# numa-6.12's multiqueue NIC (quiet.bats: its XPS masks) needs QEMU's tap back end, whose
# interface is made in a network namespace of QEMU's own: nothing on the host's network. Root
# only; elsewhere the shape has no such NIC and that test skips. shape_netns NAME: the command
# QEMU runs under.
shape_netns() {
	case $1 in
	numa-6.12) [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null && echo "unshare --net --" ;;
	esac
}
shape_modules() { # shape_modules NAME
	case $1 in
	numa-6.12) echo "virtio_net aer_inject" ;;
	esac
}

# The host channel of a boot (tests/vm/monitor.py serve): the QEMU monitor's QMP socket, and the
# guest's third serial port (ttyS2) on which a test asks the host to run a monitor command
# (host_request in guest/helper.bash). host_args NAME: QEMU's arguments for them.
host_args() {
	echo "-qmp unix:$WORK/$1.qmp,server=on,wait=off"
	echo "-serial unix:$WORK/$1.host,server=on,wait=off"
}
# host_serve NAME: the host side, in the background (HOST_PID), its log in $LOGDIR/NAME.host;
# it ends when QEMU does. Nothing without python3: the guests' requests then skip their tests.
host_serve() {
	HOST_PID=
	command -v python3 >/dev/null || return 1
	python3 "$SRCDIR/tests/vm/monitor.py" serve "$WORK/$1.host" "$WORK/$1.qmp" 2>"$LOGDIR/$1.host" &
	HOST_PID=$!
}

# boot NAME [shell]: boot a shape; results in $LOGDIR/NAME.tap, console in $LOGDIR/NAME.console
boot() {
	local name=$1 shell=${2:-} kernel machine cgroup extra tests kdir vmlinuz initrd img args
	NAME=$name
	kernel=$(INDEX=1 shape_field) || die "no shape $name (see --list)"
	machine=$(INDEX=2 shape_field); cgroup=$(INDEX=3 shape_field)
	extra=$(INDEX=4 shape_field); tests=${RM_LAB_TESTS:-$(INDEX=5 shape_field)}
	if [ "$machine" = system ]; then system_boot "$name" "$shell"; return; fi
	kdir=$(fetch_kernel "$kernel") || exit 1
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -n 1)
	initrd=$WORK/initrd.$kernel
	[ -n "$(shape_modules "$name")" ] && initrd=$WORK/initrd.$name
	make_initrd "$kernel" "$name"
	img=$WORK/$name.nvme.img
	truncate -s 64M "$img"
	args="console=ttyS0,115200 panic=-1 mitigations=off rmlab.shape=$name rmlab.cgroup=$cgroup rmlab.tests=$tests"
	[ "$cgroup" = v2 ] && args="$args cgroup_no_v1=all"
	[ "$extra" != - ] && args="$args ${extra//,nohz_full=/ nohz_full=}"
	rm -f "$LOGDIR/$name.tap" "$LOGDIR/$name.console" "$WORK/$name.qmp" "$WORK/$name.host"
	host_serve "$name" && args="$args rmlab.host=1"
	if [ -n "$shell" ]; then
		echo "lab: $name: QEMU monitor: tests/vm/system.sh monitor $WORK/$name.qmp 'info pci'"
		$(shape_netns "$name") qemu-system-x86_64 -accel tcg,thread=single -nodefaults -display none $(machine_args "$machine" "$img") \
			$(shape_devices "$name") -kernel "$vmlinuz" -initrd "$initrd" -append "$args rmlab.shell=1" \
			-serial mon:stdio -serial "file:$LOGDIR/$name.tap" $(host_args "$name") -no-reboot
		[ -n "$HOST_PID" ] && { kill "$HOST_PID" 2>/dev/null; wait "$HOST_PID"; }
		return
	fi
	# thread=single: one host thread runs every vCPU. Multi-threaded TCG lets a vCPU execute an
	# int3 the kernel's text patching (static keys, flipped by cpuset partition changes) has
	# already replaced (seen as "Oops: int3" in __alloc_pages on 6.12-rt); with two boots at a
	# time on a 2-CPU host it is also the faster.
	local start=$SECONDS
	timeout -k 10 "$TIMEOUT" $(shape_netns "$name") qemu-system-x86_64 -accel tcg,thread=single -nodefaults -display none \
		$(machine_args "$machine" "$img") $(shape_devices "$name") -kernel "$vmlinuz" -initrd "$initrd" \
		-append "$args" -serial "file:$LOGDIR/$name.console" -serial "file:$LOGDIR/$name.tap" \
		$(host_args "$name") -no-reboot </dev/null >>"$LOGDIR/$name.console" 2>&1
	echo "# $name: $(( SECONDS - start )) s, qemu exit $?, kernel $(basename "$kdir")" >"$LOGDIR/$name.time"
	# the host side saw QEMU close the channel; one that did not is ended
	[ -n "$HOST_PID" ] && { kill "$HOST_PID" 2>/dev/null; wait "$HOST_PID"; }
	rm -f "$img"
}

# the system shape (machine "system")
. "$SRCDIR/tests/vm/system.sh" || die "cannot read tests/vm/system.sh"

# ---- main -------------------------------------------------------------------------------------
case ${1:-} in
--list)
	for s in "${SHAPES[@]}"; do
		set -- $s
		echo "shape=$1 kernel=$2 machine=$3 cgroup=$4 args=$5 tests=$6"
	done
	exit 0 ;;
--shell)
	[ $# -eq 2 ] || die "usage: tests/vm/lab.sh --shell SHAPE"
	;;
-*) die "usage: tests/vm/lab.sh [--list | --shell SHAPE | SHAPE...]" ;;
esac

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "1..0 # SKIP qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	exit 0
fi
for p in /bin/busybox cpio dpkg-deb depmod bats; do
	command -v "$p" >/dev/null || die "$p is missing (apt-get install busybox-static cpio kmod bats)"
done

mkdir -p "$LOGDIR" "$RM_LAB_CACHE" || die "cannot create $LOGDIR or $RM_LAB_CACHE"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rmlab.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$WORK"' EXIT
# a signal ends the boots running in the background too
on_signal() { kill -TERM $(jobs -p) 2>/dev/null; exit $((128 + $1)); }
trap 'on_signal 1' HUP; trap 'on_signal 2' INT; trap 'on_signal 15' TERM
build_base

if [ "${1:-}" = --shell ]; then
	boot "$2" shell
	exit
fi

names=()
if [ $# -gt 0 ]; then names=("$@"); else for s in "${SHAPES[@]}"; do names+=("${s%% *}"); done; fi
for n in "${names[@]}"; do NAME=$n INDEX=0 shape_field >/dev/null || die "no shape $n (see --list)"; done

# Kernels and their initramfs first, one at a time (downloads), then the boots in parallel, the
# system shapes (the longest, their root file system and package built in their job) first.
for n in "${names[@]}"; do
	NAME=$n
	if [ "$(INDEX=2 shape_field)" = system ]; then fetch_kernel "$(INDEX=1 shape_field)" >/dev/null
	else make_initrd "$(INDEX=1 shape_field)" "$n"; fi
done
lab_start=$SECONDS
running=0
order=()
for n in "${names[@]}"; do [ "$(NAME=$n INDEX=2 shape_field)" = system ] && order+=("$n"); done
for n in "${names[@]}"; do [ "$(NAME=$n INDEX=2 shape_field)" = system ] || order+=("$n"); done
for n in "${order[@]}"; do
	boot "$n" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

# One TAP stream: each shape's results renumbered and named after the shape.
count=0
for n in "${names[@]}"; do
	tap=$LOGDIR/$n.tap
	cat "$LOGDIR/$n.time" 2>/dev/null
	planned=$(sed -n 's/^1\.\.\([0-9]*\)\r*$/\1/p' "$tap" 2>/dev/null)
	results=$(grep -c -E '^(not )?ok [0-9]+' "$tap" 2>/dev/null)
	if ! grep -q '^# end of tests' "$tap" 2>/dev/null || [ -z "$planned" ] || [ "$planned" != "$results" ]; then
		count=$((count + 1))
		echo "not ok $count $n: the guest did not finish its tests, ${results:-0} of ${planned:-?} results (console: $LOGDIR/$n.console)"
		tail -n 30 "$LOGDIR/$n.console" 2>/dev/null | tr -d '\r' | sed 's/^/#   /'
	fi
	[ -f "$tap" ] || continue
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^(not\ ok|ok)\ [0-9]+\ (.*)$ ]]; then
			count=$((count + 1))
			echo "${BASH_REMATCH[1]} $count $n: ${BASH_REMATCH[2]}"
		elif [[ $line =~ ^1\.\.[0-9]+$ || $line == "# end of tests" ]]; then
			:
		else
			echo "# $line"
		fi
	done <"$tap"
done
echo "# lab: ${#names[@]} boots in $((SECONDS - lab_start)) s, $JOBS at a time"
echo "1..$count"
