#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the path of a promtool for the tests: one on PATH, else the one of Debian's prometheus
# package, downloaded with apt-get download and unpacked (never installed: the package starts a
# server) into $RM_LAB_CACHE/promtool/VERSION, kept between runs as the lab keeps its kernels.
# Exits 1 with a reason on stderr when neither is at hand.
set -u -o pipefail
PATH=$PATH:/usr/sbin:/sbin

if command -v promtool >/dev/null 2>&1; then
	command -v promtool
	exit 0
fi
if [ -z "${RM_LAB_CACHE:-}" ]; then
	if [ "$(id -u)" -eq 0 ]; then RM_LAB_CACHE=/var/cache/rmtools-lab
	else RM_LAB_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/rmtools-lab; fi
fi
cache=$RM_LAB_CACHE/promtool
ver=$(apt-cache policy prometheus 2>/dev/null | sed -n 's/^ *Candidate: *//p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then # no package lists: the newest one unpacked
	dir=$(ls -d "$cache"/*/ 2>/dev/null | sort -V | tail -n 1)
	[ -n "$dir" ] && [ -x "${dir}usr/bin/promtool" ] && { echo "${dir}usr/bin/promtool"; exit 0; }
	echo "promtool.sh: no promtool on PATH and no prometheus package known to apt (run apt-get update)" >&2
	exit 1
fi
dir=$cache/$ver
if [ ! -x "$dir/usr/bin/promtool" ]; then
	# a private folder per run, renamed into place: concurrent runs never see half a tree
	mkdir -p "$cache" && tmp=$(mktemp -d "$cache/.fetch.XXXXXX") || {
		echo "promtool.sh: cannot create a folder in $cache" >&2
		exit 1
	}
	trap 'rm -rf "$tmp"' EXIT
	chmod 755 "$tmp"
	if ! (cd "$tmp" && timeout 300 apt-get -o APT::Sandbox::User="$(id -un)" download -q \
		"prometheus=$ver" >&2); then
		echo "promtool.sh: apt-get download prometheus=$ver failed" >&2
		exit 1
	fi
	mkdir "$tmp/root" && dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root" &&
		[ -x "$tmp/root/usr/bin/promtool" ] || {
		echo "promtool.sh: no usr/bin/promtool in the prometheus package" >&2
		exit 1
	}
	mv -T "$tmp/root" "$dir" 2>/dev/null || [ -x "$dir/usr/bin/promtool" ] || {
		echo "promtool.sh: cannot move promtool into $dir" >&2
		exit 1
	}
fi
echo "$dir/usr/bin/promtool"
