#!/bin/sh
# Brings up the engines the tests run against: a real dockerd and a real Podman API service.
# Idempotent: an engine that already answers is left as it is. Run as root.
set -eu

answers() { # socket
    curl -sf --max-time 3 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1
}

wait_for() { # socket name
    i=0
    while ! answers "$1"; do
        i=$((i + 1))
        if [ "$i" -gt 60 ]; then
            echo "engines: $2 did not answer on $1 within 30 s" >&2
            return 1
        fi
        sleep 0.5
    done
}

start_docker() {
    answers /var/run/docker.sock && return 0
    command -v dockerd >/dev/null || { echo "engines: dockerd is not installed (apt-get install docker.io)" >&2; return 1; }
    nohup dockerd >/var/log/conch-dockerd.log 2>&1 &
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
    nohup podman system service --time=0 unix:///run/podman/podman.sock >/var/log/conch-podman.log 2>&1 &
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

case "${1:-all}" in
docker) start_docker ;;
podman) start_podman ;;
all) start_docker && start_podman && let_podman_bridges_through ;;
*) echo "usage: engines.sh [docker|podman|all]" >&2; exit 2 ;;
esac
