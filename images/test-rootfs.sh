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

# A program and the libraries ldd lists for it, at the same paths.
copy_with_libs() {
    mkdir -p "$root$(dirname "$1")"
    cp -L "$1" "$root$1"
    ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
        sort -u | while read -r lib; do
            mkdir -p "$root$(dirname "$lib")"
            [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
        done
}

# curl with the libraries it links and the CA bundle, for the egress tests' HTTPS requests
# through the sidecar (busybox's wget cannot send a proxy credential over CONNECT).
if command -v curl >/dev/null 2>&1; then
    curl_bin=$(command -v curl)
    mkdir -p "$root/etc/ssl/certs"
    copy_with_libs "$curl_bin" # /usr/bin is a link to /bin here
    [ -f /etc/ssl/certs/ca-certificates.crt ] &&
        cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
fi

# git with its helpers (git-remote-https among them, hard links kept), for a clone and a push
# through the sidecar that ends TLS; node and npm, for a fetch from the registry.
if command -v git >/dev/null 2>&1 && [ -d /usr/lib/git-core ]; then
    copy_with_libs "$(command -v git)"
    copy_with_libs /usr/lib/git-core/git-remote-https
    mkdir -p "$root/usr/lib"
    cp -a /usr/lib/git-core "$root/usr/lib/"
fi
if command -v node >/dev/null 2>&1 && [ -d /usr/lib/node_modules/npm ]; then
    copy_with_libs "$(command -v node)"
    mkdir -p "$root/usr/lib/node_modules"
    cp -a /usr/lib/node_modules/npm "$root/usr/lib/node_modules/"
    ln -sf /usr/lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
fi
