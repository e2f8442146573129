#!/bin/sh
# The egress sidecar's image: the conch-place binary that asked for it, the libraries ldd lists
# for it and the dynamic loader, and the few files c-ares reads. No shell, no package
# manager: the sidecar runs `conch-place egress-proxy` and nothing else. Made in a second.
# With this computer's trusted roots, which the sidecar checks each real host against.
# Usage: egress-rootfs.sh ROOTFS   (the binary comes from $CONCH_EGRESS_BINARY)
set -eu
root=$1
bin=${CONCH_EGRESS_BINARY:?the conch-place binary to copy}
[ -x "$bin" ] || { echo "egress-rootfs: $bin is not an executable" >&2; exit 1; }
command -v ldd >/dev/null || { echo "egress-rootfs: ldd is needed (libc-bin)" >&2; exit 1; }

mkdir -p "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/run"
cp "$bin" "$root/conch-place"
chmod 0755 "$root/conch-place"
# "libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)" and the loader's own line.
# libcurl is not among them: conch-place loads it on first use (src/base/lazy-load/lazy-load.h), and the
# sidecar does when it reads an upstream proxy's address; it comes with what it needs.
curl=$(PATH="$PATH:/usr/sbin:/sbin" ldconfig -p | awk '$1 == "libcurl.so.4" && $NF ~ /^\// { print $NF; exit }')
[ -n "$curl" ] || { echo "egress-rootfs: libcurl.so.4 is not installed (apt-get install libcurl4)" >&2; exit 1; }
{ ldd "$bin"; echo "libcurl.so.4 => $curl (0)"; ldd "$curl"; } |
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
    while read -r lib; do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
# c-ares (and getaddrinfo) read this order: files first (the engine writes /etc/hosts), then DNS.
echo 'hosts: files dns' >"$root/etc/nsswitch.conf"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/conch-place' >"$root/etc/passwd"
echo 'nogroup:x:65534:' >"$root/etc/group"
chmod 1777 "$root/tmp"
# This computer's trusted roots: the sidecar ends each tunnel's TLS and checks the real host
# against them (OpenSSL's default file on Debian is /usr/lib/ssl/cert.pem). What it also trusts
# (egress.ca_file) comes in its environment. The image is named after this file too.
roots=${CONCH_EGRESS_ROOTS:-/etc/ssl/certs/ca-certificates.crt}
if [ -f "$roots" ]; then
    mkdir -p "$root/etc/ssl/certs" "$root/usr/lib/ssl"
    cp "$roots" "$root/etc/ssl/certs/ca-certificates.crt"
    ln -s /etc/ssl/certs/ca-certificates.crt "$root/usr/lib/ssl/cert.pem"
    ln -s /etc/ssl/certs "$root/usr/lib/ssl/certs"
else
    echo "egress-rootfs: no trusted roots at $roots (apt-get install ca-certificates)" >&2
    exit 1
fi
