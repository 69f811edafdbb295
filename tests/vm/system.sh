#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lab's full-system shape (machine "system" in tests/vm/lab.sh, which sources this file): a
# Debian 12 root file system with systemd and cloud-init on the numa4 machine, provisioned by
# cloud-init from a NoCloud seed (tests/vm/system/lab.yaml, then README.md's node.yaml), rebooted
# on the same disk, with tests/vm/system/bootN.bats run in the guest on boot N.
#
#   tests/vm/lab.sh system-6.12                 the shape alone (TAP like every shape)
#   tests/vm/lab.sh --shell system-6.12         a provisioned node with a root console here
#   tests/vm/system.sh monitor SOCKET COMMAND   one QEMU monitor command to a running boot
#
# The root file system is built once with mmdebstrap from the Debian archive of the host's apt
# sources and kept in $RM_LAB_CACHE/system as an ext4 image named by a hash of its package list,
# its recipe and its kernel; each run boots it through a qcow2 overlay of its own. The guest's
# disks: the root file system (virtio-blk, label rmlab-root), the NoCloud seed (vfat, CIDATA),
# and RMLAB (ext4, read-only): the package built by tests/vm/package.sh as a local apt
# repository (repo/) and this folder's guest side (system/). The check unit baked into the image
# (rmlab-check.service) runs /lab/system/run on each boot the kernel command line numbers
# (rmlab.boot=N); it writes TAP to the second serial port, then reboots or powers off. Each boot
# is one QEMU process (-no-reboot); the overlay carries the disk from one to the next.

SYSTEM_SUITE=bookworm
# The root file system's packages (mmdebstrap --variant=apt, no Recommends): systemd, cloud-init
# with the schema validator, ifupdown with a DHCP client for cloud-init's fallback network, the
# checks' tools, what the package rmtools depends on (the guests reach no archive), and Slurm,
# munge, podman and crun for the node descriptions that run them.
SYSTEM_PACKAGES="systemd-sysv udev dbus kmod cloud-init python3-jsonschema ifupdown
isc-dhcp-client procps util-linux iproute2 e2fsprogs pciutils less bats bats-assert bats-support
numactl irqbalance libhwloc15 libnuma1 libcgroup2 libsmartcols1 libarchive13 libpci3 libblkid1
libmount1 zlib1g slurmd slurmctld slurm-client munge podman crun"
SYSTEM_TIMEOUT=${RM_LAB_SYSTEM_TIMEOUT:-900} # seconds one boot of the shape may take, checks included
SYSTEM_DIR=${SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/vm/system

# ---- root file system -------------------------------------------------------------------------
# The deb lines of the Debian bookworm archive (with its updates and security suites) as the
# host's apt sees it now, main component.
system_sources() {
	apt-cache policy 2>/dev/null | awk -v suite="$SYSTEM_SUITE" '
		/^ *-?[0-9]+ [a-z+]+:\/\// { uri = $2; split($3, sc, "/"); next }
		/^ +release / && /o=Debian,/ && /c=main,/ && uri != "" {
			n = $0; sub(/.*n=/, "", n); sub(/,.*/, "", n)
			if ((n == suite || n == suite "-updates" || n == suite "-security") && !seen[uri " " sc[1]]++)
				print "deb " uri " " sc[1] " main"
			uri = ""
		}'
}

# The files the image is made from besides the package list: a change to any rebuilds it.
system_recipe() {
	declare -f system_image system_rootfs system_customize
	cat "$SYSTEM_DIR/rmlab-check.service" "$SYSTEM_DIR/kubelet.service"
}

# system_customize DIR KERNEL_DIR: what the image has on top of its packages.
system_customize() {
	local root=$1 kdir=$2 mdir
	# the kernel's modules, for udev and modprobe (the kernel itself is booted from the cache)
	mdir=$(ls -d "$kdir"/lib/modules/*/ | head -n 1)
	mkdir -p "$root/usr/lib/modules" && cp -a "${mdir%/}" "$root/usr/lib/modules/" || return 1
	# no archive: the guests reach no network beyond QEMU's DHCP; packages come from RMLAB
	rm -f "$root/etc/apt/sources.list"
	# the apt timers would take the dpkg lock from cloud-init's package installation; podman's
	# auto-update pulls images from registries the guests do not reach
	ln -sf /dev/null "$root/etc/systemd/system/apt-daily.timer"
	ln -sf /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
	ln -sf /dev/null "$root/etc/systemd/system/podman-auto-update.timer"
	ln -sf /dev/null "$root/etc/systemd/system/podman-auto-update.service"
	cat >"$root/etc/fstab" <<-'EOF'
	LABEL=rmlab-root / ext4 defaults,errors=remount-ro 0 1
	LABEL=RMLAB /lab ext4 ro,nofail,x-systemd.device-timeout=30s 0 0
	EOF
	mkdir -p "$root/lab"
	# cloud-init looks for NoCloud only (ds-identify probes nothing else); the locale is one
	# every system has (en_US.UTF-8, cloud-init's default, is not generated)
	printf 'datasource_list: [ NoCloud, None ]\nlocale: C.UTF-8\n' >"$root/etc/cloud/cloud.cfg.d/95_rmlab.cfg"
	# root logged in on the serial console, for --shell and for debugging a boot
	mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
	cat >"$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<-'EOF'
	[Service]
	ExecStart=
	ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 - $TERM
	EOF
	install -m 0644 "$SYSTEM_DIR/rmlab-check.service" "$root/etc/systemd/system/rmlab-check.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sf ../rmlab-check.service "$root/etc/systemd/system/multi-user.target.wants/rmlab-check.service"
	# a stand-in for the kubelet, ordered as the kubelet is, that records what it finds at start
	install -m 0644 "$SYSTEM_DIR/kubelet.service" "$root/etc/systemd/system/kubelet.service"
	ln -sf ../kubelet.service "$root/etc/systemd/system/multi-user.target.wants/kubelet.service"
	# every run's first boot is a first boot: systemd makes the machine ID then
	: >"$root/etc/machine-id"
	rm -f "$root/var/lib/dbus/machine-id"
}

# system_image KERNEL_DIR: the path of the root file system image for this kernel in the cache,
# named by the hash of what it is made from.
system_image() {
	local key
	key=$( { echo "$SYSTEM_SUITE $SYSTEM_PACKAGES $(basename "$1")"; system_recipe; } | sha256sum)
	echo "$RM_LAB_CACHE/system/rootfs-${key:0:16}.img"
}

# system_rootfs KERNEL_DIR IMAGE LOG: build IMAGE unless another build made it meanwhile (one
# build at a time: the lock), with mmdebstrap's and mke2fs's messages in LOG; the other images
# of the cache are removed. Errors: one line on stderr. Run as a job of its own (system_wait):
# it sets traps, and a signal ends mmdebstrap and removes the unfinished build.
system_rootfs() {
	local kdir=$1 img=$2 log=$3 cache=$RM_LAB_CACHE/system tmp='' pid='' sources start size
	trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid"; exit 143' TERM INT HUP
	trap '[ -n "$tmp" ] && rm -rf --one-file-system "$tmp"' EXIT
	mkdir -p "$cache" && exec 9>"$cache/lock" || { echo "cannot create $cache" >&2; return 1; }
	flock -w 1800 9 & pid=$!
	wait "$pid" || { echo "$cache/lock is held by another build for 30 min" >&2; return 1; }
	[ -f "$img" ] && return 0
	mapfile -t sources < <(system_sources)
	[ ${#sources[@]} -gt 0 ] ||
		{ echo "no Debian $SYSTEM_SUITE archive in the host's apt sources (run apt-get update)" >&2; return 1; }
	tmp=$(mktemp -d "$cache/build.XXXXXX") && chmod 0755 "$tmp" || return 1
	start=$SECONDS
	# root mode: a directory with the right owners, for mke2fs -d
	timeout -k 10 1800 mmdebstrap --mode=root --variant=apt \
		--include="$(echo $SYSTEM_PACKAGES | tr ' ' ,)" \
		--aptopt='Acquire::Languages "none"' --dpkgopt='path-exclude=/usr/share/locale/*' \
		"$SYSTEM_SUITE" "$tmp/root" "${sources[@]}" >"$log" 2>&1 &
	pid=$!
	wait "$pid" || { echo "mmdebstrap failed ($(grep -m 1 '^E: ' "$log")): see $log" >&2; return 1; }
	pid=
	system_customize "$tmp/root" "$kdir" || { echo "cannot customize the root file system" >&2; return 1; }
	# the files' size and 1 GiB for what the boots install and write
	size=$(( $(du -s --block-size=1M "$tmp/root" | cut -f1) + 1024 ))
	truncate -s "${size}M" "$tmp/rootfs.img" &&
		mke2fs -q -t ext4 -L rmlab-root -d "$tmp/root" "$tmp/rootfs.img" >>"$log" 2>&1 ||
		{ echo "mke2fs failed: see $log" >&2; return 1; }
	rm -f "$cache"/rootfs-*.img
	mv "$tmp/rootfs.img" "$img" || return 1
	echo "root file system $(basename "$img") built in $((SECONDS - start)) s, ${size} MiB" >>"$log"
}

# ---- the run's disks and initramfs ------------------------------------------------------------
# system_initrd KERNEL_DIR OUT: busybox, the modules that mount the root disk, tests/vm/system/init
system_initrd() {
	local kdir=$1 out=$2 root b
	root=$(dirname "$out")/initrd.d
	rm -rf "$root" && mkdir -p "$root"/usr/{bin,lib} "$root"/{proc,sys,dev,newroot} || return 1
	ln -s usr/bin "$root/bin"; ln -s usr/bin "$root/sbin"; ln -s usr/lib "$root/lib"
	install -m 0755 /bin/busybox "$root/usr/bin/busybox"
	for b in $(/bin/busybox --list); do
		[ -e "$root/usr/bin/$b" ] || ln -s busybox "$root/usr/bin/$b"
	done
	install -m 0755 "$SYSTEM_DIR/init" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$out.base" &&
		build_modules "$kdir" "$out.mods" virtio_blk crc32c_generic ext4 &&
		cat "$out.base" "$out.mods" >"$out" || return 1
	rm -rf "$root" "$out.base" "$out.mods"
}

# system_seed DIR NAME: DIR/seed.img, the NoCloud seed (vfat labelled CIDATA) with the user-data
# (the lab's part, lab.yaml, then README.md's example, node.yaml) and an instance ID of the
# shape's name.
system_seed() {
	local dir=$1 name=$2
	printf 'instance-id: rmlab-%s\nlocal-hostname: rmlab\n' "$name" >"$dir/meta-data"
	cat "$SYSTEM_DIR/lab.yaml" "$SYSTEM_DIR/node.yaml" >"$dir/user-data" &&
		mkfs.vfat -n CIDATA -C "$dir/seed.img" 2048 >/dev/null &&
		mcopy -i "$dir/seed.img" "$dir/user-data" "$dir/meta-data" :: || return 1
}

# system_labdisk DIR DEB: DIR/rmlab.img (ext4, label RMLAB): repo/, a flat apt repository with
# DEB, and system/, this folder's guest side.
system_labdisk() {
	local dir=$1 deb=$2 top=$1/rmlab f
	rm -rf "$top" && mkdir -p "$top/repo" "$top/system" && chmod 0755 "$top" "$top/repo" "$top/system" || return 1
	cp "$deb" "$top/repo/" || return 1
	f=$top/repo/$(basename "$deb")
	{
		dpkg-deb -f "$f"
		echo "Filename: ./$(basename "$f")"
		echo "Size: $(stat -c %s "$f")"
		echo "SHA256: $(sha256sum <"$f" | cut -d' ' -f1)"
		echo
	} >"$top/repo/Packages" || return 1
	{
		echo "Origin: rmlab"
		echo "Label: rmlab"
		echo "Date: $(date -Ru)"
		echo "SHA256:"
		echo " $(sha256sum <"$top/repo/Packages" | cut -d' ' -f1) $(stat -c %s "$top/repo/Packages") Packages"
	} >"$top/repo/Release" || return 1
	cp -a "$SYSTEM_DIR"/. "$dir/user-data" "$top/system/" && chmod -R a+rX "$top" || return 1
	truncate -s 64M "$dir/rmlab.img" && mke2fs -q -t ext4 -L RMLAB -d "$top" "$dir/rmlab.img" || return 1
	rm -rf "$top"
}

# system_devices RUNDIR: the shape's devices on top of the numa4 machine
system_devices() {
	local run=$1
	# GPUs: one behind an expander of node 0, one behind a second root port of node 1's
	# expander, and one on the root complex (pcie.0 has no proximity domain: NUMA node -1)
	echo "-device pxb-pcie,id=pxb0,bus_nr=32,numa_node=0,bus=pcie.0"
	echo "-device pcie-root-port,id=rp3,bus=pxb0,chassis=3,slot=3 -device virtio-gpu-pci,id=gpu0,bus=rp3"
	echo "-device pcie-root-port,id=rp2,bus=pxb1,chassis=2,slot=2 -device virtio-gpu-pci,id=gpu1,bus=rp2"
	echo "-device virtio-gpu-pci,id=gpu2,bus=pcie.0"
	# cloud-init's fallback network: DHCP from QEMU, no route beyond it
	echo "-netdev user,id=net0,restrict=on -device virtio-net-pci,netdev=net0,id=nic0,bus=pcie.0"
	echo "-drive if=none,id=root,file=$run/root.qcow2,format=qcow2,cache=unsafe,discard=unmap"
	echo "-device virtio-blk-pci,drive=root,id=vda,bus=pcie.0"
	echo "-drive if=none,id=seed,file=$run/seed.img,format=raw,readonly=on -device virtio-blk-pci,drive=seed,id=vdb,bus=pcie.0"
	echo "-drive if=none,id=rmlab,file=$run/rmlab.img,format=raw,readonly=on -device virtio-blk-pci,drive=rmlab,id=vdc,bus=pcie.0"
	echo "-qmp unix:$run/qmp.sock,server=on,wait=off"
}

# system_monitor SOCKET COMMAND: COMMAND (a human monitor command, as "info pci" or
# "set_link nic0 off") to the QEMU of a boot through its QMP socket (tests/vm/monitor.py, which
# the other shapes' guests use too); prints the answer, and fails when QEMU refuses the command.
system_monitor() {
	timeout 30 python3 "$(dirname "${BASH_SOURCE[0]}")/monitor.py" command "$1" "$2"
}

# ---- boots ------------------------------------------------------------------------------------
# system_wait CMD...: CMD as a job of its own, waited for; system_boot's trap ends it on a signal
system_wait() {
	local rc
	"$@" &
	SYSTEM_PID=$!
	wait "$SYSTEM_PID"
	rc=$?
	SYSTEM_PID=
	return $rc
}

# system_fail NAME REASON: the shape's results as one failure
system_fail() {
	printf '1..1\nnot ok 1 %s\n# end of tests\n' "$2" >"$LOGDIR/$1.tap"
	return 1
}

# system_boot NAME [shell]: the shape's boots, one after the other on one disk; their results
# in $LOGDIR/NAME.tap as one stream ("boot N: test"), consoles in NAME.bootN.console, the
# times in NAME.time. With shell: one boot, provisioned, with the console on this terminal.
system_boot() {
	local name=$1 shell=${2:-} kernel cgroup extra kdir vmlinuz base deb run args boots n
	NAME=$name
	kernel=$(INDEX=1 shape_field) || die "no shape $name (see --list)"
	cgroup=$(INDEX=3 shape_field); extra=$(INDEX=4 shape_field)
	rm -f "$LOGDIR/$name".{tap,time} "$LOGDIR/$name".boot*.{tap,console}
	run=$WORK/$name
	mkdir -p "$run" || return 1
	SYSTEM_PID=
	trap '[ -n "$SYSTEM_PID" ] && kill -TERM "$SYSTEM_PID" 2>/dev/null && wait "$SYSTEM_PID"; rm -rf "$run"; exit 143' TERM INT HUP
	local p
	for p in mmdebstrap qemu-img mkfs.vfat mcopy mke2fs flock python3; do
		command -v "$p" >/dev/null || system_fail "$name" \
			"$p is missing (apt-get install mmdebstrap qemu-utils dosfstools mtools e2fsprogs python3)" || return 1
	done
	[ "$(id -u)" -eq 0 ] || { system_fail "$name" "the root file system is built as root (mmdebstrap --mode=root)"; return 1; }
	kdir=$(fetch_kernel "$kernel") || { system_fail "$name" "no kernel $kernel"; return 1; }
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -n 1)

	local t=$SECONDS rc
	base=$(system_image "$kdir")
	if [ ! -f "$base" ]; then
		system_wait system_rootfs "$kdir" "$base" "$LOGDIR/$name.rootfs.log" 2>"$run/error" ||
			{ system_fail "$name" "root file system: $(tail -n 1 "$run/error")"; return 1; }
	fi
	echo "# $name: root file system $(basename "$base") ready in $((SECONDS - t)) s" >>"$LOGDIR/$name.time"
	if [ -n "${RM_LAB_DEB:-}" ]; then
		deb=$RM_LAB_DEB
	else
		t=$SECONDS
		system_wait timeout -k 10 1200 "$SRCDIR/tests/vm/package.sh" "$LOGDIR/$name.package" >"$run/package.log" 2>&1 ||
			{ system_fail "$name" "tests/vm/package.sh: $(tail -n 1 "$run/package.log")"; return 1; }
		deb=$(ls "$LOGDIR/$name.package"/rmtools_*.deb | head -n 1)
		echo "# $name: package $(basename "$deb") ready in $((SECONDS - t)) s" >>"$LOGDIR/$name.time"
	fi
	[ -f "$deb" ] || { system_fail "$name" "no package $deb"; return 1; }
	system_initrd "$kdir" "$run/initrd" || { system_fail "$name" "initramfs failed"; return 1; }
	system_seed "$run" "$name" || { system_fail "$name" "NoCloud seed failed"; return 1; }
	system_labdisk "$run" "$deb" || { system_fail "$name" "RMLAB disk failed"; return 1; }
	qemu-img create -q -f qcow2 -b "$base" -F raw "$run/root.qcow2" || { system_fail "$name" "qemu-img failed"; return 1; }
	truncate -s 64M "$run/nvme.img"

	args="console=ttyS0,115200 panic=-1 mitigations=off"
	[ "$cgroup" = v2 ] && args="$args cgroup_no_v1=all"
	[ "$extra" != - ] && args="$args ${extra//,nohz_full=/ nohz_full=}"
	local qemu=(qemu-system-x86_64 -accel tcg,thread=single -nodefaults -display none
		$(machine_args numa4 "$run/nvme.img") $(system_devices "$run") -kernel "$vmlinuz" -initrd "$run/initrd")
	if [ -n "$shell" ]; then
		echo "lab: $name: QEMU monitor: tests/vm/system.sh monitor $run/qmp.sock 'info pci'"
		"${qemu[@]}" -append "$args" -serial mon:stdio -serial "file:$run/tap" -no-reboot
		rm -rf "$run"
		return
	fi

	# boots: one per bootN.bats; each ends when the guest reboots or powers off (-no-reboot)
	boots=$(ls "$SYSTEM_DIR" | sed -n 's/^boot\([0-9][0-9]*\)\.bats$/\1/p' | sort -n | tail -n 1)
	for n in $(seq 1 "${boots:-0}"); do
		t=$SECONDS
		system_wait timeout -k 10 "$SYSTEM_TIMEOUT" "${qemu[@]}" \
			-append "$args rmlab.boot=$n rmlab.boots=$boots rmlab.t0=$(date +%s.%N)" \
			-serial "file:$LOGDIR/$name.boot$n.console" -serial "file:$LOGDIR/$name.boot$n.tap" -no-reboot \
			</dev/null >>"$LOGDIR/$name.boot$n.console" 2>&1
		rc=$?
		echo "# $name: boot $n: $((SECONDS - t)) s, qemu exit $rc, kernel $(basename "$kdir")" >>"$LOGDIR/$name.time"
		grep -q '^# end of tests' "$LOGDIR/$name.boot$n.tap" 2>/dev/null || break
	done
	system_merge "$name" "${boots:-0}"
	rm -rf "$run"
}

# system_merge NAME BOOTS: NAME.bootN.tap into NAME.tap, results named "boot N: test"; a boot
# that did not finish is one failure with its console's last lines, the boots after it one each.
# Other lines go without their "# ": lab.sh makes every line that is not a result a comment.
# Each result's time (bats --timing) goes to NAME.time.
system_merge() {
	local name=$1 boots=$2 n count=0 tap planned results line failed=
	{
		for n in $(seq 1 "$boots"); do
			tap=$LOGDIR/$name.boot$n.tap
			if [ -n "$failed" ]; then
				count=$((count + 1)); echo "not ok $count boot $n: not run, boot $failed did not finish"
				continue
			fi
			planned=$(sed -n 's/^1\.\.\([0-9]*\)\r*$/\1/p' "$tap" 2>/dev/null)
			results=$(grep -c -E '^(not )?ok [0-9]+' "$tap" 2>/dev/null)
			while IFS= read -r line; do
				line=${line%$'\r'}
				if [[ $line =~ ^(not\ ok|ok)\ [0-9]+\ (.*)\ in\ ([0-9]+)ms$ ]]; then
					count=$((count + 1)); echo "${BASH_REMATCH[1]} $count boot $n: ${BASH_REMATCH[2]}"
					printf '# boot %s: %4d.%d s %s\n' "$n" $((BASH_REMATCH[3] / 1000)) \
						$((BASH_REMATCH[3] % 1000 / 100)) "${BASH_REMATCH[2]}" >>"$LOGDIR/$name.time"
				elif [[ $line =~ ^(not\ ok|ok)\ [0-9]+\ (.*)$ ]]; then
					count=$((count + 1)); echo "${BASH_REMATCH[1]} $count boot $n: ${BASH_REMATCH[2]}"
				elif [[ $line =~ ^1\.\.[0-9]+$ || $line == "# end of tests" ]]; then
					:
				else
					[[ $line =~ ^#\ ?(.*)$ ]] && line=${BASH_REMATCH[1]}
					echo "boot $n: $line"
				fi
			done < <(cat "$tap" 2>/dev/null)
			if ! grep -q '^# end of tests' "$tap" 2>/dev/null || [ -z "$planned" ] || [ "$planned" != "$results" ]; then
				failed=$n; count=$((count + 1))
				echo "not ok $count boot $n: the guest did not finish its checks, ${results:-0} of ${planned:-?} results (console: $LOGDIR/$name.boot$n.console)"
				tail -n 30 "$LOGDIR/$name.boot$n.console" 2>/dev/null | tr -d '\r' | sed 's/^/  /'
			fi
		done
		echo "1..$count"
		echo "# end of tests"
	} >"$LOGDIR/$name.tap"
}

# tests/vm/system.sh monitor SOCKET COMMAND, run directly
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u -o pipefail
	case ${1:-} in
	monitor) [ $# -eq 3 ] && { system_monitor "$2" "$3"; exit; } ;;
	esac
	echo "usage: tests/vm/system.sh monitor SOCKET COMMAND (the shape runs from tests/vm/lab.sh)" >&2
	exit 2
fi
