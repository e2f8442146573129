#!/bin/sh
# Integration: the SSH place against a real sshd on 127.0.0.1, with its own host and user keys
# in a scratch folder, started here and stopped at exit. Needs root (sshd's privilege
# separation); installs openssh-server when it is missing. Loopback only.
set -u
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run sshd"; exit 77; }
if [ ! -x /usr/sbin/sshd ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y openssh-server >/dev/null 2>&1 ||
        { echo "SKIP: cannot install openssh-server"; exit 77; }
fi
RUN="$(pwd)/tests/ssh/ssh_run"
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/wait.sh"
. "$top/tests/ssh/sshd-lib.sh"
T=$(mktemp -d /tmp/conch-sshd-XXXXXX)
AGENT_PID=
cleanup() {
    [ -f "$T/sshd.pid" ] && kill "$(cat "$T/sshd.pid")" 2>/dev/null
    [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM # through the EXIT trap, once: a trap that only cleaned up went on
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }
ok() { echo "ok: $*"; }

mkdir -p "$T/home/.ssh" /run/sshd && chmod 700 "$T/home/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$T/otherkey"
ssh-keygen -q -t ed25519 -N '' -f "$T/home/.ssh/id_ed25519"
ssh-keygen -q -t ed25519 -N 'secret' -f "$T/enc"
ssh-keygen -q -t ed25519 -N '' -f "$T/agentkey"
cat "$T/home/.ssh/id_ed25519.pub" "$T/enc.pub" "$T/agentkey.pub" > "$T/authorized_keys"
PORT=$((20000 + $$ % 20000))
cat > "$T/sshd_config" <<CFG
Port $PORT
ListenAddress 127.0.0.1
HostKey $T/hostkey
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowTcpForwarding yes
LogLevel ERROR
CFG
sshd_lib_daemon "$T" "$T/sshd_config" "$T/sshd.log" "$PORT" || exit 99

echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/hostkey.pub")" > "$T/home/.ssh/known_hosts"
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/otherkey.pub")" > "$T/changed_kh"
: > "$T/empty_kh"
common="  HostName 127.0.0.1
  Port $PORT
  User root
  GlobalKnownHostsFile none"
cat > "$T/home/.ssh/config" <<CFG
Host box
$common
  IdentityAgent none
  PermitLocalCommand yes
  LocalCommand touch $T/pwned
  ForwardAgent yes
Host unknownkey
$common
  IdentityAgent none
  UserKnownHostsFile $T/empty_kh
Host changed
$common
  IdentityAgent none
  UserKnownHostsFile $T/changed_kh
Host viaproxy
$common
  IdentityAgent none
  ProxyCommand /usr/sbin/sshd -i -f $T/sshd_config -E $T/sshd-i.log
Host viajump
$common
  IdentityAgent none
  ProxyJump box
Host enconly
$common
  IdentityAgent none
  IdentitiesOnly yes
  IdentityFile $T/enc
Host viaagent
$common
  IdentityFile $T/absent
Host wild*
$common
CFG
export HOME="$T/home"
unset SSH_AUTH_SOCK

run() { timeout 30 "$RUN" "$@" > "$T/out" 2> "$T/err" < /dev/null; echo $?; }

rc=$(run box -- sh -c 'printf out; printf err >&2; exit 3')
[ "$rc" = 3 ] && [ "$(cat "$T/out")" = out ] && [ "$(cat "$T/err")" = err ] &&
    ok "streams apart, status kept" || fail "streams/status: rc=$rc out=$(cat "$T/out") err=$(cat "$T/err")"

rc=$(run box -- printf '%s|' 'a b' "it's" '$(touch /tmp/conch-pwn)' '`id`')
[ "$rc" = 0 ] && [ "$(cat "$T/out")" = "a b|it's|\$(touch /tmp/conch-pwn)|\`id\`|" ] &&
    [ ! -e /tmp/conch-pwn ] && ok "shell injection in arguments stays text" ||
    fail "quoting: rc=$rc out=$(cat "$T/out")"

rc=$(run box -- sh -c 'kill -TERM $$')
[ "$rc" = 143 ] && ok "signal as 128+n" || fail "signal: rc=$rc"

rc=$(printf 'hello' | timeout 30 "$RUN" box --stdin -- cat 2>"$T/err"; echo "/$?")
[ "$rc" = "hello/0" ] && ok "stdin passed on" || fail "stdin: $rc $(cat "$T/err")"

[ ! -e "$T/pwned" ] && ok "LocalCommand never run" || fail "LocalCommand ran"

rc=$(run unknownkey -- true)
[ "$rc" = 125 ] && grep -q 'from a terminal (`ssh unknownkey`)' "$T/err" &&
    ok "unknown host key refused with the next step" || fail "unknown key: rc=$rc $(cat "$T/err")"

rc=$(run changed -- true)
[ "$rc" = 125 ] && grep -q CHANGED "$T/err" && ok "changed host key refused" ||
    fail "changed key: rc=$rc $(cat "$T/err")"

rc=$(run viaproxy -- echo proxied)
[ "$rc" = 0 ] && [ "$(cat "$T/out")" = proxied ] && ok "ProxyCommand" ||
    fail "ProxyCommand: rc=$rc $(cat "$T/err")"

rc=$(run viajump -- echo jumped)
[ "$rc" = 0 ] && [ "$(cat "$T/out")" = jumped ] && ok "ProxyJump" ||
    fail "ProxyJump: rc=$rc $(cat "$T/err")"

rc=$(run enconly -- true)
[ "$rc" = 125 ] && grep -q 'never asks for a passphrase' "$T/err" &&
    ok "passphrase key skipped, no prompt" || fail "passphrase: rc=$rc $(cat "$T/err")"

eval "$(ssh-agent -s)" > /dev/null && AGENT_PID=$SSH_AGENT_PID
ssh-add -q "$T/agentkey" 2>/dev/null
rc=$(run viaagent -- echo agent)
[ "$rc" = 0 ] && [ "$(cat "$T/out")" = agent ] && ok "agent" || fail "agent: rc=$rc $(cat "$T/err")"
unset SSH_AUTH_SOCK

rc=$(run wildcard -- true)
[ "$rc" = 125 ] && grep -q 'not a Host' "$T/err" && ok "wildcard-only name refused" ||
    fail "wildcard: rc=$rc $(cat "$T/err")"

rc=$(run '-oProxyCommand=touch' -- true)
[ "$rc" = 125 ] && ok "option-shaped name refused" || fail "option name: rc=$rc"

chmod 666 "$T/home/.ssh/config"
rc=$(run box -- true)
[ "$rc" = 125 ] && grep -q 'bad owner or permissions' "$T/err" && ok "writable config refused" ||
    fail "writable config: rc=$rc $(cat "$T/err")"
chmod 600 "$T/home/.ssh/config"

exit $FAILED
