#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: build rmtools_VERSION_ARCH.deb from a clean copy of the tree (the files git
# tracks, and new ones it does not ignore; nothing the in-place build generated), check it with
# lintian, and leave both in OUTDIR.
#
#   tests/vm/package.sh OUTDIR     OUTDIR/rmtools_*.deb, OUTDIR/lintian.txt, OUTDIR/build.log
#
# OUTDIR/rmtools.tree holds the hash of the copied tree (names, modes, contents) and the .deb's
# name: a .deb already built from the same tree is kept, and only lintian.txt is checked again.
# Exits 1 with one line on stderr when the build fails or lintian reports an error (E:).
# Needs dpkg-dev, debhelper, lintian and the Build-Depends of debian/control.
set -u -o pipefail

SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "package: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: tests/vm/package.sh OUTDIR"
mkdir -p "$1" || die "cannot create $1"
OUT=$(cd "$1" && pwd)
for p in git dpkg-buildpackage dh lintian; do
	command -v "$p" >/dev/null || die "$p is missing (apt-get install git dpkg-dev debhelper lintian)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rmpkg.XXXXXX") || die "mktemp failed"
BUILD_PID=
cleanup() {
	[ -n "$BUILD_PID" ] && kill -TERM -- "-$BUILD_PID" 2>/dev/null && wait "$BUILD_PID"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# The tree as a tar archive with fixed owners and times: its hash names the tree's content.
# Left out: tracked files deleted in the working tree, and OUTDIR where it lies inside the tree.
case $OUT/ in "$SRCDIR"/*) skip=${OUT#"$SRCDIR"/}/ ;; *) skip=// ;; esac
git -C "$SRCDIR" ls-files -z --cached --others --exclude-standard | sort -zu |
	while IFS= read -r -d '' f; do
		case $f in "$skip"*) continue ;; esac
		if [ -e "$SRCDIR/$f" ] || [ -L "$SRCDIR/$f" ]; then printf '%s\0' "$f"; fi
	done >"$WORK/files" || die "git ls-files failed in $SRCDIR"
tar -C "$SRCDIR" --format=gnu --no-recursion --null -T "$WORK/files" --owner=0 --group=0 \
	--numeric-owner --mtime=@0 -cf "$WORK/tree.tar" || die "cannot archive the tree"
HASH=$(sha256sum <"$WORK/tree.tar") && HASH=${HASH%% *}

check_lintian() { # the lintian report's errors decide
	local n
	n=$(grep -c '^E:' "$OUT/lintian.txt")
	[ "$n" -eq 0 ] || die "lintian reports $n error(s): see $OUT/lintian.txt"
}

if read -r h deb 2>/dev/null <"$OUT/rmtools.tree" && [ "$h" = "$HASH" ] && [ -f "$OUT/$deb" ] &&
	[ -f "$OUT/lintian.txt" ]; then
	echo "package: $OUT/$deb is built from this tree already"
	check_lintian
	exit 0
fi

mkdir "$WORK/rmtools" && tar -C "$WORK/rmtools" -m -xf "$WORK/tree.tar" || die "cannot unpack the tree"
echo "package: building in $WORK/rmtools, log in $OUT/build.log"
(cd "$WORK/rmtools" &&
	DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck noddebs" \
	exec setsid dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1 &
BUILD_PID=$!
wait "$BUILD_PID"
status=$?
BUILD_PID=
if [ "$status" -ne 0 ]; then
	unmet=$(grep -m 1 -o 'Unmet build dependencies:.*' "$OUT/build.log")
	die "${unmet:-dpkg-buildpackage failed (status $status)}: see $OUT/build.log"
fi

debs=("$WORK"/rmtools_*.deb)
[ -f "${debs[0]}" ] || die "dpkg-buildpackage made no rmtools_*.deb"
deb=${debs[0]##*/}
lintian --fail-on none "$WORK"/rmtools_*.changes >"$OUT/lintian.txt" 2>&1 || die "lintian failed: see $OUT/lintian.txt"
rm -f "$OUT"/rmtools_*.deb "$OUT/rmtools.tree"
mv "$WORK/$deb" "$OUT/" || die "cannot move $deb to $OUT"
echo "$HASH $deb" >"$OUT/rmtools.tree"
echo "package: $OUT/$deb"
check_lintian
