# Sourced by integration scripts that need an ssh: place: a real sshd on 127.0.0.1 with its
# own host and user keys in a scratch folder, and a far home of its own (sshd's ForceCommand,
# as tests/ssh/test_ssh_place.sh does, so the real home is never touched).
#   sshd_lib_start DIR   starts it; writes DIR/home/.ssh/{config,known_hosts,id_ed25519}
#                        with one Host, `box`; sets SSHD_LIB_PORT; returns non-zero on failure
#   sshd_lib_stop DIR    stops it
# The caller sets HOME=DIR/home for conch-place. Needs root (sshd) and /usr/sbin/sshd.
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
    /usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log" || { cat "$d/sshd.log"; return 1; }
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -f "$d/sshd.pid" ] && break; sleep 0.2; done
    echo "[127.0.0.1]:$SSHD_LIB_PORT $(cut -d' ' -f1,2 "$d/hostkey.pub")" >"$d/home/.ssh/known_hosts"
    printf 'Host box\n  HostName 127.0.0.1\n  Port %s\n  User root\n  IdentityAgent none\n  GlobalKnownHostsFile none\n  ConnectTimeout 3\n' \
        "$SSHD_LIB_PORT" >"$d/home/.ssh/config"
    chmod 600 "$d/home/.ssh/config"
    [ -f "$d/sshd.pid" ]
}

sshd_lib_stop() {
    [ -f "$1/sshd.pid" ] && kill "$(cat "$1/sshd.pid")" 2>/dev/null
    return 0
}
