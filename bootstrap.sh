#!/bin/sh
# Sets up a fresh Debian 12 machine for conch-place, as root:
#   ./bootstrap.sh        build dependencies, an engine (started if none answers), the build,
#                         the default work image, and rootless Podman readied for every person
#   ./bootstrap.sh test   the same set-up with both engines (dockerd and Podman's API service)
#                         and the small test image, then `make check`
set -eu
cd "$(dirname "$0")"
mode=${1:-run}

packages="build-essential autoconf automake libtool pkg-config clang clang-format \
libcurl4-openssl-dev libjson-c-dev libarchive-dev libssh2-1-dev libssl-dev libcmocka-dev libc-ares-dev libyaml-dev libhttp-parser-dev zlib1g-dev \
curl ca-certificates git util-linux openssl python3"
# Podman with what it needs without root (uidmap, slirp4netns, fuse-overlayfs), for every person,
# and mmdebstrap, which makes the work image without root.
rootless_packages="podman catatonit runc uidmap slirp4netns fuse-overlayfs mmdebstrap"
engine_packages="docker.io $rootless_packages"
[ "$mode" = test ] && engine_packages="$engine_packages busybox-static openssh-server jq python3-jsonschema rootlesskit"
[ "$mode" = run ] && engine_packages="$engine_packages debootstrap"

missing=""
for p in $packages $engine_packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "bootstrap: installing$missing"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

if [ ! -f Makefile ]; then
    autoreconf -fi
    ./configure
fi
make -j"$(nproc)"

case $mode in
run)
    tests/integration/engines.sh docker
    tests/integration/engines.sh rootless
    # `run` picks the engine that has the work image (Podman too, where the test set-up left
    # it running), so one engine with it is enough: Docker, which this set-up started.
    ./conch-place places | grep -q '^container  *ready' ||
        ./conch-place image build work --engine docker
    ;;
test)
    tests/integration/engines.sh all
    tests/integration/engines.sh rootless
    for engine in docker podman; do
        ./conch-place image build test --engine "$engine"
        ./conch-place image build egress --engine "$engine"
    done
    rm -f tests/durations.txt
    durations() { echo "bootstrap: the slowest tests (seconds):"; sort -rn tests/durations.txt | head -n 12; }
    if ! make -j"$(nproc)" check; then
        durations
        # The failing tests' own words last, where a CI log's tail shows them without the tree.
        for trs in $(grep -rl '^:test-result: FAIL' --include='*.trs' tests); do
            echo "--- ${trs%.trs}.log"
            # A check's own words come just before its FAILED line: a few lines of them too.
            grep -B 6 -E 'FAIL|not ok|rror' "${trs%.trs}.log" | tail -n 60
        done
        exit 1
    fi
    durations
    ;;
*)
    echo "usage: bootstrap.sh [test]" >&2
    exit 2
    ;;
esac
