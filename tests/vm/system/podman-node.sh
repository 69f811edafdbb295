# SPDX-License-Identifier: GPL-2.0-or-later
# README.md's container section, run as printed by podman_image (helper.bash) with bash -e: an
# image without a registry, from the node's own dash, ls, cat and sleep and their libraries, and
# the CDI spec where podman reads it.
root=$(mktemp -d) && chmod 755 "$root"
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys"
for f in /bin/dash /bin/ls /bin/cat /bin/sleep; do
  cp "$f" "$root/bin/"
  for lib in $(ldd "$f" | grep -o '/[^ ]*'); do mkdir -p "$root${lib%/*}" && cp -L "$lib" "$root$lib"; done
done
ln -s dash "$root/bin/sh"
tar -C "$root" -c . | podman import - localhost/rmlab
rm -rf "$root"
mkdir -p /etc/cdi
rm-devices export cdi -o /etc/cdi/rmtools-gpu.json
