#!/bin/sh
# Brings up the engines the tests run against: a real dockerd and a real Podman API service.
# Idempotent: an engine that already answers is left as it is. Run as root.
set -eu
. "$(cd "$(dirname "$0")/../.." && pwd)/tests/lib/wait.sh"

answers() { # socket
    curl -sf --max-time 3 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1
}

wait_for() { # socket name: until it answers (a fresh machine's first start may take long)
    wait_until 120 answers "$1" && return 0
    echo "engines: $2 did not answer on $1 within 120 s" >&2
    return 1
}

start_docker() {
    answers /var/run/docker.sock && return 0
    command -v dockerd >/dev/null || { echo "engines: dockerd is not installed (apt-get install docker.io)" >&2; return 1; }
    # From /: an engine keeps the folder it started in as its own, and a test clone that
    # started it is removed while the engine still runs.
    (cd / && exec nohup dockerd >/var/log/conch-dockerd.log 2>&1) &
    wait_for /var/run/docker.sock dockerd
}

# Podman on this machine needs runc, cgroupfs and explicit ulimits (root cannot raise
# rlimits here, and crun refuses this cgroup layout).
configure_podman() {
    conf=/etc/containers/containers.conf
    grep -q '^# conch-place test engine' "$conf" 2>/dev/null && return 0
    mkdir -p /etc/containers
    cat >"$conf" <<'CONF'
# conch-place test engine: settings Podman 4.3 needs on this machine.
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
}

start_podman() {
    answers /run/podman/podman.sock && return 0
    command -v podman >/dev/null || { echo "engines: podman is not installed (apt-get install podman)" >&2; return 1; }
    configure_podman
    mkdir -p /run/podman
    (cd / && exec nohup podman system service --time=0 unix:///run/podman/podman.sock >/var/log/conch-podman.log 2>&1) &
    wait_for /run/podman/podman.sock podman
}

# Docker sets the host's FORWARD policy to DROP, and with bridge netfilter on, Podman's internal
# bridges (netavark adds no ACCEPT for them) then drop even box-to-sidecar traffic. Two engines
# on one host is this test machine's doing, so the test set-up lets Podman's bridges through.
let_podman_bridges_through() {
    command -v iptables >/dev/null || return 0
    iptables -S DOCKER-USER >/dev/null 2>&1 || return 0
    iptables -C DOCKER-USER -i podman+ -o podman+ -j ACCEPT 2>/dev/null ||
        iptables -I DOCKER-USER -i podman+ -o podman+ -j ACCEPT
}

# Rootless Podman for every person without root (issue 21): a subordinate id range for each
# person who has none (useradd gives new ones theirs once /etc/subuid exists), overlay storage
# for people who have none yet (Podman 4.3 otherwise picks vfs, which copies the whole image
# for every box), and the device modes rootless networking and fuse need. /dev/net/tun and
# /dev/fuse are 0666 on Debian; this machine has them 0600.
give_subids() {
    touch /etc/subuid /etc/subgid
    min=$(awk '$1 == "UID_MIN" { print $2 }' /etc/login.defs)
    max=$(awk '$1 == "UID_MAX" { print $2 }' /etc/login.defs)
    getent passwd | awk -F: -v min="${min:-1000}" -v max="${max:-60000}" \
        '$3 >= min && $3 <= max { print $1 }' | while read -r person; do
        grep -q "^$person:" /etc/subuid && grep -q "^$person:" /etc/subgid && continue
        start=$(cat /etc/subuid /etc/subgid | awk -F: 'BEGIN { e = 100000 } $2 + $3 > e { e = $2 + $3 } END { print e }')
        usermod --add-subuids "$start-$((start + 65535))" --add-subgids "$start-$((start + 65535))" "$person"
    done
}

ready_rootless() {
    configure_podman # the same runtime settings serve rootless Podman on this machine
    [ -e /etc/containers/storage.conf ] || cat >/etc/containers/storage.conf <<'CONF'
# conch-place: overlay storage (the kernel's own rootless overlay) for every person.
[storage]
driver = "overlay"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
CONF
    give_subids
    for dev in /dev/net/tun /dev/fuse; do
        [ -c "$dev" ] && chmod 0666 "$dev"
    done
    return 0
}

case "${1:-all}" in
docker) start_docker ;;
podman) start_podman ;;
rootless) ready_rootless ;;
all) start_docker && start_podman && let_podman_bridges_through ;;
*) echo "usage: engines.sh [docker|podman|rootless|all]" >&2; exit 2 ;;
esac
