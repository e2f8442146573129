# Sourced by integration scripts that need an ssh: place: a real sshd on 127.0.0.1 with its
# own host and user keys in a scratch folder, and a far home of its own (sshd's ForceCommand,
# as tests/ssh/test_ssh_place.sh does, so the real home is never touched).
#   sshd_lib_start DIR   starts it; writes DIR/home/.ssh/{config,known_hosts,id_ed25519}
#                        with one Host, `box`; sets SSHD_LIB_PORT; returns non-zero on failure
#   sshd_lib_stop DIR    stops it
#   sshd_lib_daemon DIR CONFIG LOG PORT...
#                        starts sshd on CONFIG (PidFile DIR/sshd.pid) and waits until it
#                        listens on every PORT; the other ssh tests start theirs with it
# The caller sets HOME=DIR/home for conch-place, and sources tests/lib/wait.sh first. Needs root
# (sshd) and /usr/sbin/sshd.
sshd_lib_start() {
    d=$1
    mkdir -p "$d/home/.ssh" "$d/far" /run/sshd && chmod 700 "$d/home/.ssh" || return 1
    ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey" &&
        ssh-keygen -q -t ed25519 -N '' -f "$d/home/.ssh/id_ed25519" || return 1
    cp "$d/home/.ssh/id_ed25519.pub" "$d/authorized_keys"
    SSHD_LIB_PORT=$((20000 + ($$ * 7) % 20000))
    cat >"$d/force.sh" <<'EOF2'
cd "$1" || exit 1
HOME=$1
export HOME
exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"
EOF2
    cat >"$d/sshd_config" <<CFG
Port $SSHD_LIB_PORT
ListenAddress 127.0.0.1
HostKey $d/hostkey
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
LogLevel ERROR
MaxSessions 20
ForceCommand /bin/sh $d/force.sh $d/far
CFG
    sshd_lib_daemon "$d" "$d/sshd_config" "$d/sshd.log" "$SSHD_LIB_PORT" || return 1
    echo "[127.0.0.1]:$SSHD_LIB_PORT $(cut -d' ' -f1,2 "$d/hostkey.pub")" >"$d/home/.ssh/known_hosts"
    printf 'Host box\n  HostName 127.0.0.1\n  Port %s\n  User root\n  IdentityAgent none\n  GlobalKnownHostsFile none\n  ConnectTimeout 3\n' \
        "$SSHD_LIB_PORT" >"$d/home/.ssh/config"
    chmod 600 "$d/home/.ssh/config"
}

# sshd in the foreground (-D), a child of this shell (SSHD_LIB_PID), so that its end is seen
# too: ready once its pid file is written, which sshd does only after its sockets are bound and
# listening; each PORT is then found listening in /proc/net/tcp (a port another program holds
# fails here, with sshd's log, rather than later as a refused connection).
sshd_lib_daemon() {
    _sl_dir=$1 _sl_log=$3
    /usr/sbin/sshd -D -f "$2" -E "$_sl_log" </dev/null &
    SSHD_LIB_PID=$!
    shift 3
    if ! wait_until 60 _sshd_lib_ready "$_sl_dir/sshd.pid" "$SSHD_LIB_PID" ||
        [ ! -s "$_sl_dir/sshd.pid" ]; then
        echo "sshd did not start: $(cat "$_sl_log")"
        return 1
    fi
    for _sl_port; do
        grep -q ":$(printf '%04X' "$_sl_port") 00000000:0000 0A" /proc/net/tcp && continue
        echo "sshd does not listen on $_sl_port: $(cat "$_sl_log")"
        return 1
    done
}
_sshd_lib_ready() { [ -s "$1" ] || _wait_pid_gone "$2"; }

sshd_lib_stop() {
    _sl_pid=$(cat "$1/sshd.pid" 2>/dev/null) && kill "$_sl_pid" 2>/dev/null && wait_gone 30 "$_sl_pid"
    return 0
}
