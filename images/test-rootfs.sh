#!/bin/sh
# The small test image: busybox-static and its applets, made in seconds.
set -eu
root=$1
bb=/bin/busybox
if [ ! -x "$bb" ] || ldd "$bb" >/dev/null 2>&1; then
    echo "test-rootfs: a static busybox is needed at $bb (apt-get install busybox-static)" >&2
    exit 1
fi
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/var/tmp" "$root/run" "$root/proc" "$root/sys" \
    "$root/dev" "$root/usr"
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
ln -s ../bin "$root/usr/bin"
echo 'root:x:0:0:root:/tmp:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
chmod 1777 "$root/tmp" "$root/var/tmp"

# curl with the libraries it links and the CA bundle, for the egress tests' HTTPS requests
# through the sidecar (busybox's wget cannot send a proxy credential over CONNECT).
if command -v curl >/dev/null 2>&1; then
    curl_bin=$(command -v curl)
    mkdir -p "$root/etc/ssl/certs"
    cp "$curl_bin" "$root/bin/curl"
    ldd "$curl_bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
        sort -u | while read -r lib; do
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        done
    [ -f /etc/ssl/certs/ca-certificates.crt ] &&
        cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
fi
