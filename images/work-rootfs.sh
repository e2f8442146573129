#!/bin/sh
# The default work image: Debian bookworm with git, Node.js and npm, Python 3 and pip, a C compiler,
# curl and CA certificates. debootstrap's minbase first (--include=npm fails while
# configuring), then the rest with apt-get inside the tree. Needs root.
set -eu
root=$1

# The mirror is this machine's own: read from its apt sources, never written here.
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
if [ -z "$mirror" ]; then
    echo "work-rootfs: no Debian mirror found in /etc/apt/sources.list(.d)" >&2
    exit 1
fi
command -v debootstrap >/dev/null || { echo "work-rootfs: apt-get install debootstrap" >&2; exit 1; }

debootstrap --variant=minbase bookworm "$root" "$mirror"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp -a /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/sources.list"
rm -f "$root"/etc/apt/sources.list.d/*.disabled*
mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
chroot "$root" apt-get update -q
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    git nodejs npm python3 python3-pip gcc libc6-dev make curl ca-certificates
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root/etc/resolv.conf"
: >"$root/etc/resolv.conf"
umount "$root/proc"
trap - EXIT
