#!/bin/sh
# The default work image: Debian bookworm with git, Node.js and npm, Python 3 and pip, a C compiler,
# curl and CA certificates. debootstrap's minbase first (--include=npm fails while
# configuring), then the rest with apt-get inside the tree; without root, mmdebstrap.
set -eu
root=$1

# The mirror is this machine's own: read from its apt sources, never written here.
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
if [ -z "$mirror" ]; then
    echo "work-rootfs: no Debian mirror found in /etc/apt/sources.list(.d)" >&2
    exit 1
fi
packages=git,nodejs,npm,python3,python3-pip,gcc,libc6-dev,make,curl,ca-certificates

# Without root: mmdebstrap in a user namespace of the person's subordinate ids (as rootless
# Podman uses them) writes the tree as a tar with its owners right, which conch-place sends as
# it is (images.h CP_ROOTFS_TAR). It installs everything through apt, so npm configures.
if [ "$(id -u)" -ne 0 ]; then
    command -v mmdebstrap >/dev/null || {
        echo "work-rootfs: without root the work image is made by mmdebstrap: ask an administrator to run 'apt-get install mmdebstrap' (bootstrap.sh does)" >&2
        exit 1
    }
    # As the root path leaves them: no resolver of this computer's, no host name of its own.
    exec mmdebstrap --mode=unshare --variant=minbase --include="$packages" \
        --customize-hook='rm -f "$1/etc/hostname"; : >"$1/etc/resolv.conf"' \
        bookworm "$root/rootfs.tar" "$mirror"
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
    $(echo "$packages" | tr , ' ')
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root/etc/resolv.conf"
: >"$root/etc/resolv.conf"
umount "$root/proc"
trap - EXIT
