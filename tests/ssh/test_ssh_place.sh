#!/bin/sh
# Integration: `conch-place run --place ssh:HOST` end to end against a real sshd on 127.0.0.1,
# started here and stopped at exit. sshd's ForceCommand gives each port its own far home in
# the scratch folder (the real home is never touched): port A an honest far side, B one whose
# tar and find are hostile, C a copy on a 2 MB disk, D a far side without tar.
# Needs root (sshd). Loopback only; the one name lookup runs in an empty network namespace.
set -u
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run sshd"; exit 77; }
[ -x /usr/sbin/sshd ] || { echo "SKIP: no sshd (bootstrap.sh installs openssh-server)"; exit 77; }
CP="$(pwd)/conch-place"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/lib/wait.sh"
. "$SRC/tests/ssh/sshd-lib.sh"
T=$(mktemp -d /tmp/conch-sshplace-XXXXXX)
# The keepers this test started (each writes its pid in its lock file).
keepers() { cat "$T"/conch*/workplaces/keepers/*.lock 2>/dev/null; }
AGENT_PID=
cleanup() {
    for k in $(keepers); do kill "$k" 2>/dev/null; done
    [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null
    touch "$T/release" # a pull held open (the kill -9 case) lets go
    [ -f "$T/sshd.pid" ] && kill "$(cat "$T/sshd.pid")" 2>/dev/null
    # The far shells of the small host's sessions end with sshd's children: until then the
    # mount is busy.
    wait_until 30 unmounted "$T/small"
    mountpoint -q "$T/small" 2>/dev/null && umount -l "$T/small"
    rm -rf "$T"
}
unmounted() { ! mountpoint -q "$1" 2>/dev/null || umount "$1" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 1' INT TERM # through the EXIT trap, once: a trap that only cleaned up went on
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }
ok() { echo "ok: $*"; }

mkdir -p "$T/home/.ssh" "$T/far" "$T/hostile" "$T/small" "$T/notar" /run/sshd
chmod 700 "$T/home/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$T/otherkey"
ssh-keygen -q -t ed25519 -N '' -f "$T/home/.ssh/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$T/strangerkey"
cp "$T/home/.ssh/id_ed25519.pub" "$T/authorized_keys"
# Eight ports of its own, below the ranges the other ssh tests draw one port from (20000 and
# up: under make -j2 their pids sit next to ours, and the same formula gave them our C).
BASE=$((10000 + ($$ % 1250) * 8))
A=$BASE B=$((BASE + 1)) C=$((BASE + 2)) D=$((BASE + 3)) DEAD=$((BASE + 4)) E=$((BASE + 5))
R=$((BASE + 6)) # a remote forward's port, should anything ask for one
H=$((BASE + 7))

# The far side's front door: a home of its own per port, then the command as sent.
cat >"$T/force.sh" <<'EOF'
cd "$1" || exit 1
HOME=$1
[ -z "$2" ] || PATH=$2
export HOME PATH
exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"
EOF
# A connection that dies mid-transfer: the pack's archive is cut short, then the far sshd
# process of the session is killed, as a dropped network would leave it. A warm channel
# (places/ssh/exec.c) gets its command on standard input: read here the same way.
cat >"$T/force-cut.sh" <<'EOF'
cd "$1" || exit 1
HOME=$1
export HOME
run() {
    case $1 in
    *'cp_tmp/asked'*) /bin/sh -c "$1" | head -c 100000; kill -9 $PPID ;;
    *) exec /bin/sh -c "$1" ;;
    esac
}
case $SSH_ORIGINAL_COMMAND in
*'IFS= read -r n'*)
    IFS= read -r n || exit 0
    c=
    while [ "$n" -gt 0 ]; do IFS= read -r l || exit 0; c="$c$l
"; n=$((n - 1)); done
    run "$c" ;;
*) run "$SSH_ORIGINAL_COMMAND" ;;
esac
EOF
# A pull held open: the pack's archive stops half-way until the test lets it go ($T/release),
# so that conch-place is killed while its pull is under way, not when a race lets it.
cat >"$T/force-hold.sh" <<EOF
cd "\$1" || exit 1
HOME=\$1
export HOME
. "$SRC/tests/lib/wait.sh"
hold() {
    dd bs=6000000 count=1 iflag=fullblock 2>/dev/null
    echo \$\$ >"$T/held" # the far shell, which ends once the pipe does
    wait_until 120 [ -e "$T/release" ]
    cat
}
run() {
    case \$1 in
    *'cp_tmp/asked'*) /bin/sh -c "\$1" | hold ;;
    *) exec /bin/sh -c "\$1" ;;
    esac
}
case \$SSH_ORIGINAL_COMMAND in
*'IFS= read -r n'*)
    IFS= read -r n || exit 0
    c=
    while [ "\$n" -gt 0 ]; do IFS= read -r l || exit 0; c="\$c\$l
"; n=\$((n - 1)); done
    run "\$c" ;;
*) run "\$SSH_ORIGINAL_COMMAND" ;;
esac
EOF
# Hostile tools: find lists a name; tar answers any pack with an archive that tries to climb
# out, plant a hook and swap a file for a link.
mkdir -p "$T/evil/bin" "$T/evil/src/sub" "$T/evil/src/.git/hooks"
echo pwned >"$T/evil/src/.git/hooks/pre-commit"
ln -s /etc/passwd "$T/evil/src/made.txt"
echo escaped >"$T/evil/escape.txt"
(cd "$T/evil/src" && tar -cPf "$T/evil/evil.tar" ../escape.txt .git/hooks/pre-commit made.txt)
cat >"$T/evil/bin/tar" <<EOF
#!/bin/sh
case "\$*" in *-c*) cat "$T/evil/evil.tar"; exit 0;; esac
exec /usr/bin/tar "\$@"
EOF
cat >"$T/evil/bin/find" <<'EOF'
#!/bin/sh
printf './../escape.txt\000./.git/hooks/pre-commit\000'
exec /usr/bin/find "$@"
EOF
chmod +x "$T/evil/bin/tar" "$T/evil/bin/find"
for f in /usr/bin/* /bin/*; do
    n=${f##*/}
    [ "$n" = tar ] || [ -e "$T/notar/$n" ] || ln -s "$f" "$T/notar/$n"
done

cat >"$T/sshd_config" <<CFG
Port $A
Port $B
Port $C
Port $D
Port $E
Port $H
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
MaxSessions 20
ForceCommand /bin/sh $T/force.sh $T/far ""
Match LocalPort $B
  ForceCommand /bin/sh $T/force.sh $T/hostile $T/evil/bin:/usr/local/bin:/usr/bin:/bin
Match LocalPort $C
  ForceCommand /bin/sh $T/force.sh $T/small ""
Match LocalPort $D
  ForceCommand /bin/sh $T/force.sh $T/far $T/notar
Match LocalPort $E
  ForceCommand /bin/sh $T/force-cut.sh $T/far
Match LocalPort $H
  ForceCommand /bin/sh $T/force-hold.sh $T/far
CFG
sshd_lib_daemon "$T" "$T/sshd_config" "$T/sshd.log" $A $B $C $D $E $H || exit 99
mount -t tmpfs -o size=2m tmpfs "$T/small" 2>/dev/null || echo "note: no tmpfs, disk-full case skipped"

key=$(cut -d' ' -f1,2 "$T/hostkey.pub")
for p in $A $B $C $D $E $H; do echo "[127.0.0.1]:$p $key" >>"$T/home/.ssh/known_hosts"; done
echo "[127.0.0.1]:$A $(cut -d' ' -f1,2 "$T/otherkey.pub")" >"$T/changed_kh"
: >"$T/empty_kh"
host() { # NAME PORT [lines, before the defaults: the first value wins]
    printf 'Host %s\n' "$1"
    p=$2
    shift 2
    for l in "$@"; do printf '  %s\n' "$l"; done
    printf '  HostName 127.0.0.1\n  Port %s\n  User root\n  IdentityAgent none\n' "$p"
    printf '  GlobalKnownHostsFile none\n  ConnectTimeout 3\n'
}
{
    host box $A
    host hostile $B
    host small $C
    host notar $D
    host viajump $A "ProxyJump box"
    host unknownkey $A "UserKnownHostsFile $T/empty_kh"
    host changedkey $A "UserKnownHostsFile $T/changed_kh"
    host refusedkey $A "IdentitiesOnly yes" "IdentityFile $T/strangerkey"
    host refused $DEAD
    host nameless $DEAD "HostName nowhere.invalid"
    host cut $E
    host hold $H
    host fwd $A "ForwardAgent yes" "RemoteForward $R 127.0.0.1:$A" "IdentityAgent $T/agent.sock"
} >"$T/home/.ssh/config"
chmod 600 "$T/home/.ssh/config"
export HOME="$T/home" CONCH_HOME="$T/conch"
unset SSH_AUTH_SOCK XDG_RUNTIME_DIR

W="$T/work"
mkdir -p "$W/sub" "$W/node_modules/dep"
echo A >"$W/a.txt"
echo B >"$W/sub/b.txt"
echo SECRET >"$W/.env"
echo dep >"$W/node_modules/dep/index.js"
FARCOPY() { echo "$T/far/.conch-place/copies/$1/work"; }

run() { # PLACE [ARGS...] -- COMMAND: status, output in $T/out and $T/err
    p=$1
    shift
    timeout 60 "$CP" run --place "ssh:$p" --workdir "$W" --chat c1 "$@" >"$T/out" 2>"$T/err" </dev/null
    echo $?
}

# ---- an honest run: push, run, pull, deletions, exit codes, both streams ----
rc=$(run box -- sh -c 'cat a.txt sub/b.txt; echo to-err >&2; echo made >made.txt; rm sub/b.txt; exit 7')
[ "$rc" = 7 ] && [ "$(cat "$T/out")" = "A
B" ] && grep -q '^to-err$' "$T/err" && ok "honest run: status and both streams apart" ||
    fail "honest run: rc=$rc out=$(cat "$T/out") err=$(cat "$T/err")"
[ "$(cat "$W/made.txt" 2>/dev/null)" = made ] && ok "a file made there lands here" ||
    fail "made.txt did not come back"
[ ! -e "$W/sub/b.txt" ] && ok "a deletion there is applied here" || fail "sub/b.txt still here"
F=$(FARCOPY c1)
[ -f "$F/a.txt" ] && [ ! -e "$F/.env" ] && [ ! -e "$F/node_modules" ] &&
    ok "protected places and dependency folders stay here" || fail "far copy: $(ls -A "$F")"

echo A2 >"$W/a.txt"
rm "$W/made.txt"
rc=$(run box -- sh -c 'cat a.txt; ls made.txt 2>&1')
grep -q '^A2$' "$T/out" && grep -q 'No such file' "$T/out" && [ "$rc" = 2 ] &&
    ok "a change and a deletion here reach the copy" || fail "second push: rc=$rc $(cat "$T/out")"

rc=$(run box -- printf '%s|' 'a b' "it's" '$(touch /tmp/conch-pwn-ssh)' '`id`')
[ "$rc" = 0 ] && [ "$(cat "$T/out")" = "a b|it's|\$(touch /tmp/conch-pwn-ssh)|\`id\`|" ] &&
    [ ! -e /tmp/conch-pwn-ssh ] && ok "shell injection in arguments stays text" ||
    fail "quoting: rc=$rc $(cat "$T/out")"

# ---- a project's registry settings reach the copy without their keys (issue 20, item 8) ----
mkdir -p "$W/sub"
printf 'registry=https://r.example/\n//r.example/:_authToken=SEKRIT-NPM\n' >"$W/.npmrc"
printf 'npmRegistryServer: "https://y.example"\nnpmAuthToken: SEKRIT-YARN\n' >"$W/.yarnrc.yml"
printf '[global]\nindex-url = https://u:SEKRIT-PIP@pypi.example/simple\n' >"$W/sub/pip.conf"
cp "$W/.npmrc" "$T/npmrc.here"
rc=$(run box -- sh -c 'cat .npmrc .yarnrc.yml sub/pip.conf; echo registry=https://elsewhere.example/ >.npmrc')
[ "$rc" = 0 ] && [ -s "$T/out" ] && ! grep -q SEKRIT "$T/out" &&
    grep -qx 'registry=https://r.example/' "$T/out" && grep -qx 'npmRegistryServer: "https://y.example"' "$T/out" &&
    grep -qx 'index-url = https://pypi.example/simple' "$T/out" &&
    ok "settings files reach the copy keyless: no token there, the registry lines kept" ||
    fail "keyless push: rc=$rc out=$(cat "$T/out") err=$(cat "$T/err")"
[ -f "$F/sub/pip.conf" ] && [ -f "$F/.yarnrc.yml" ] && ! grep -q SEKRIT "$F/sub/pip.conf" "$F/.yarnrc.yml" &&
    grep -q pypi.example "$F/sub/pip.conf" && ok "the far copy's settings files hold no token" ||
    fail "far settings: $(cat "$F/sub/pip.conf" "$F/.yarnrc.yml" 2>&1)"
cmp -s "$W/.npmrc" "$T/npmrc.here" && grep -q 'not brought back: .npmrc' "$T/err" &&
    ok "a settings file changed there never replaces the one here (its keys kept)" ||
    fail "keyless pull: $(cat "$W/.npmrc") err=$(cat "$T/err")"
rm -f "$W/.npmrc" "$W/.yarnrc.yml" "$W/sub/pip.conf"

# Through a warm channel the command travels as lines on standard input: lines, a trailing
# backslash, a line that is only a quote, and the command's own input after them.
nl='a
b\\
'"'"'
'
rc=$(run box -- sh -c 'printf "%s|" "$1"; wc -l </dev/stdin' conch "$nl")
[ "$rc" = 0 ] && [ "$(cat "$T/out")" = "$nl|0" ] && ok "new lines and backslashes in arguments survive" ||
    fail "lines: rc=$rc $(cat "$T/out")"
rc=$(run box -- sh -c 'kill -TERM $$')
[ "$rc" = 143 ] && ok "a signal ending the command: 128+n" || fail "signal: rc=$rc"
rc=$(run box -- no-such-command-here)
[ "$rc" = 127 ] && ok "command not found: 127" || fail "not found: rc=$rc"

rc=$(printf 'from-stdin' | timeout 30 "$CP" run --place ssh:box --workdir "$W" --chat c1 -i -- cat 2>"$T/err")
[ "$rc" = from-stdin ] && ok "-i passes standard input on" || fail "stdin: '$rc' $(cat "$T/err")"

# ---- -i streams both ways at once, bounded; SIGTERM ends a run whose input is pending ----
head -c 100000000 /dev/urandom >"$T/in100"
want=$(sha256sum <"$T/in100" | cut -d' ' -f1)
got=$(timeout 120 "$CP" run --place ssh:box --workdir "$W" --chat c1 -i -- cat <"$T/in100" 2>"$T/err" |
    sha256sum | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "100 MB through -i cat (ssh): byte for byte" ||
    fail "-i 100 MB: $got != $want $(cat "$T/err")"
rm -f "$T/in100"
# The far command says it has started (its pid, in a file: this computer is the far side), and
# its input stays open until the test ends it: a run that waited for its input to end would
# never end. Its end is waited for 20 s: far past a busy machine's delay, and below the 30 s
# after which a cloud run's lease renewal ends a run on a signal by another way (a run that
# missed the signal ended there in 30 s, as cloud.test saw).
for how in keeper alone; do
    k=1
    [ $how = alone ] && k=0
    rm -f "$T/fifo" "$T/pending-$how" && mkfifo "$T/fifo"
    sleep 600 >"$T/fifo" & # input that never ends: a writer that stays, and writes nothing
    writer=$!
    CONCH_SSH_KEEPER=$k "$CP" run --place ssh:box --workdir "$W" --chat c1 -i -- \
        sh -c 'echo $$ >"$1"; cat >/dev/null; echo never' conch-pending "$T/pending-$how" \
        <"$T/fifo" >"$T/out" 2>&1 &
    pid=$!
    wait_until 60 [ -s "$T/pending-$how" ]
    far=$(cat "$T/pending-$how" 2>/dev/null)
    start=$(date +%s%N)
    kill -TERM $pid
    wait_gone 20 $pid || kill -KILL $pid
    wait $pid
    rc=$?
    took=$((($(date +%s%N) - start) / 1000000))
    gone=no
    [ -n "$far" ] && wait_gone 30 "$far" && gone=yes
    [ "$gone" = yes ] && [ "$rc" = 143 ] && ! grep -q never "$T/out" &&
        ok "SIGTERM with input still pending (ssh, $how): 143 in ${took} ms, the far command gone" ||
        fail "SIGTERM pending ($how): far=$far rc=$rc took=${took}ms $(cat "$T/out")"
    kill $writer 2>/dev/null
    wait $writer 2>/dev/null
done

# ---- nothing lost: a far copy that proves itself (issue 9) ----
# The copy there removed (a wiped disk, someone cleaning ~/.conch-place): everything is sent
# again and nothing is deleted here; -v says why.
echo B >"$W/sub/b.txt"
rc=$(run box -- true)
rm -rf "$(FARCOPY c1)"
timeout 60 "$CP" -v run --place ssh:box --workdir "$W" --chat c1 -- cat a.txt sub/b.txt >"$T/out" 2>"$T/err" </dev/null
rc=$?
[ "$rc" = 0 ] && grep -q '^A2$' "$T/out" && [ -f "$W/a.txt" ] && [ -f "$W/sub/b.txt" ] &&
    grep -q 'no copy there.*sending the whole folder and deleting nothing' "$T/err" &&
    ok "the copy there removed (ssh): all sent again, nothing deleted here" ||
    fail "copy removed: rc=$rc $(cat "$T/out" "$T/err") $(ls -R "$W")"
# One file removed there behind our back, between two runs: sent again, never deleted here.
rm -f "$(FARCOPY c1)/sub/b.txt"
rc=$(run box -- cat sub/b.txt)
[ "$rc" = 0 ] && grep -q '^B$' "$T/out" && [ -f "$W/sub/b.txt" ] &&
    ok "one file removed there behind our back: sent again, kept here" ||
    fail "behind our back: rc=$rc $(cat "$T/out" "$T/err")"
# A copy there that is not ours (another id): treated as empty, the same way.
echo 0123456789abcdef0123456789abcdef >"$(FARCOPY c1)/.conch-mirror-id"
rm -f "$(FARCOPY c1)/a.txt"
rc=$(run box -- cat a.txt)
[ "$rc" = 0 ] && grep -q '^A2$' "$T/out" && [ -f "$W/a.txt" ] &&
    ! grep -q 0123456789abcdef "$(FARCOPY c1)/.conch-mirror-id" &&
    ok "a copy there with another id: treated as empty, nothing deleted here" ||
    fail "other id: rc=$rc $(cat "$T/out" "$T/err")"

# kill -9 of conch-place mid-pull, then the next run: every file old or new, whole; the next
# run brings the rest. Alone (no keeper), so the pull runs in the process killed. The far side
# (host hold) stops its archive half-way and waits: the kill comes with the pull under way,
# its staging folder here, and only then is the far side let go. (No timeout before it: the
# kill would end timeout and leave conch-place to finish its pull.)
mkdir -p "$W/k"
i=1
while [ $i -le 200 ]; do
    { printf 'old %d\n' $i; head -c 60000 /dev/zero; } >"$W/k/f$i"
    i=$((i + 1))
done
rc=$(CONCH_SSH_KEEPER=0 run box -- true)
rm -f "$T/held" "$T/release"
CONCH_SSH_KEEPER=0 "$CP" run --place ssh:hold --workdir "$W" --chat c1 -- sh -c \
    'i=1; while [ $i -le 200 ]; do { printf "new %d\n" $i; head -c 60000 /dev/zero; } >k/f$i; i=$((i+1)); done' \
    >/dev/null 2>"$T/err" &
pid=$!
staging() { [ -s "$T/held" ] && ls -d "$W"/.conch-staging-* >/dev/null 2>&1; }
wait_until 120 staging
staged=$(ls -d "$W"/.conch-staging-* 2>/dev/null | wc -l)
held=$(cat "$T/held" 2>/dev/null)
kill -KILL $pid
wait $pid 2>/dev/null
touch "$T/release"
[ -n "$held" ] && wait_gone 60 "$held"
bad=0 new=0
i=1
while [ $i -le 200 ]; do
    first=$(head -n 1 "$W/k/f$i" 2>/dev/null)
    size=$(wc -c <"$W/k/f$i" 2>/dev/null)
    case "$first" in "old $i" | "new $i") ;; *) bad=$((bad + 1)) ;; esac
    [ "$size" = $((60000 + ${#first} + 1)) ] || bad=$((bad + 1))
    [ "$first" = "new $i" ] && new=$((new + 1))
    i=$((i + 1))
done
[ -n "$held" ] && [ "$staged" -ge 1 ] && [ "$bad" = 0 ] &&
    ok "kill -9 mid-pull: every file old or new, whole ($new of 200 new)" ||
    fail "kill -9 mid-pull: held=$held staged=$staged bad=$bad new=$new $(cat "$T/err")"
# The next run by the same Host (the copy there is known by it), its far side no longer held.
sed -i "s/Port $H/Port $A/" "$T/home/.ssh/config"
rc=$(CONCH_SSH_KEEPER=0 run hold -- true)
new=$(cat "$W"/k/f* | grep -c '^new ')
[ "$rc" = 0 ] && [ "$new" = 200 ] && ! ls -d "$W"/.conch-staging-* >/dev/null 2>&1 &&
    ok "kill -9 mid-pull, then the next run: all 200 new, no staging left" ||
    fail "after kill -9: rc=$rc new=$new $(ls -a "$W") $(cat "$T/err")"
rm -rf "$W/k"
rc=$(CONCH_SSH_KEEPER=0 run hold -- true) # no keeper of its own: the keeper tests meet one
rc=$(run box -- true)
# ---- run --report: the ssh place's facts (host, not sealed, files both ways, stages) ----
echo D >"$W/report-gone.txt"
run box -- true >/dev/null
echo R >"$W/report-in.txt"
rc=$(run box --report "$T/report.json" -- sh -c 'echo x >report-out.txt; rm report-gone.txt; exit 4')
[ "$rc" = 4 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"]
assert (d["place"], d["host"], d["sealed"], d["seal"], d["box"]) == ("ssh:box", "box", False, None, None), d
assert f["how"] == "mirrored" and "report-in.txt" in f["sent"] and "report-out.txt" in f["back"], f
assert {"path": "report-gone.txt", "where": "here"} in f["deleted"], f
assert any(r["path"] == ".env" and r["direction"] == "send" for r in f["refused"]), f
assert {"push", "command", "pull"} <= set(d["stages"]), d["stages"]
assert (d["exit"]["status"], d["exit"]["whose"]) == (4, "command"), d["exit"]
' "$T/report.json" && ok "run --report: host, not sealed, files sent, back, refused, deleted, stages" ||
    fail "ssh report: rc=$rc $(cat "$T/report.json" "$T/err" 2>&1 | head -40)"
rm -f "$W/report-in.txt" "$W/report-out.txt"

# ---- Ctrl-C ends the far command; a killed conch-place too (the watcher) ----
# The far command writes its pid (this computer is the far side) and then is the sleep: the
# signal comes once it runs, and its end is waited for by that pid.
rm -f "$T/far-int" "$T/far-kill"
timeout 60 "$CP" run --place ssh:box --workdir "$W" --chat c1 -- \
    sh -c 'echo $$ >"$1"; exec sleep 600' conch "$T/far-int" >/dev/null 2>&1 &
pid=$!
wait_until 60 [ -s "$T/far-int" ]
far=$(cat "$T/far-int" 2>/dev/null)
kill -INT $pid
wait $pid
rc=$?
# The far command is stopped in the background (the keeper's kill script).
gone=no
[ -n "$far" ] && wait_gone 30 "$far" && gone=yes
[ "$rc" = 130 ] && [ "$gone" = yes ] && ok "Ctrl-C: 130 and the far command is gone" ||
    fail "Ctrl-C: rc=$rc, far '$far' gone: $gone"
"$CP" run --place ssh:box --workdir "$W" --chat c1 -- \
    sh -c 'echo $$ >"$1"; exec sleep 600' conch "$T/far-kill" >/dev/null 2>&1 &
pid=$!
wait_until 60 [ -s "$T/far-kill" ]
far=$(cat "$T/far-kill" 2>/dev/null)
kill -KILL $pid
wait $pid 2>/dev/null
gone=no
[ -n "$far" ] && wait_gone 30 "$far" && gone=yes
[ "$gone" = yes ] && ok "conch-place killed: the far command ends with the channel" ||
    fail "far command '$far' outlived a killed conch-place"
[ -n "$far" ] && kill "$far" 2>/dev/null
# The keeper ends a killed run's far command in the background (TERM, a second, KILL) and
# holds the copy's locks until then: wait for the far lock to go before the lock tests.
wait_until 30 not [ -e "$T/far/.conch-place/locks/c1" ]

# ---- one command at a time per copy: two runs at once are serialised, both complete ----
# Same computer (the lock here), then another computer (its own CONCH_HOME: the lock there).
# The first command holds the copy until the test lets it go, which it does only once the
# second run has said that it waits: no timing to guess on a busy machine.
for who in here there; do
    home=$T/conch
    [ $who = there ] && home=$T/conch-other
    rm -f "$W/order.txt" "$(FARCOPY c1)/order.txt" "$T/go"
    CONCH_HOME=$T/conch timeout 120 "$CP" run --place ssh:box --workdir "$W" --chat c1 -- \
        sh -c "echo first-start >>order.txt; while [ ! -e '$T/go' ]; do sleep 0.1; done; echo first-end >>order.txt; echo 1 >first-$who.txt" \
        >/dev/null 2>&1 &
    pid=$!
    wait_line 60 "$(FARCOPY c1)/order.txt" first-start
    started=$(cat "$(FARCOPY c1)/order.txt" 2>/dev/null)
    rm -f "$T/err"
    rc2=$(CONCH_HOME=$home run box -- sh -c "echo second >>order.txt; echo 2 >second-$who.txt" &
        wait_line 60 "$T/err" 'waiting for it to end'
        touch "$T/go"
        wait)
    touch "$T/go"
    wait $pid
    rc1=$?
    [ "$started" = first-start ] && [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && grep -q 'waiting for it to end' "$T/err" &&
        [ "$(tr '\n' ' ' <"$W/order.txt" 2>/dev/null)" = "first-start first-end second " ] &&
        [ -f "$W/first-$who.txt" ] && [ -f "$W/second-$who.txt" ] &&
        ok "two runs at once on one copy (lock $who): serialised, both complete, nothing lost" ||
        fail "two runs (lock $who): started=$started rc1=$rc1 rc2=$rc2 order=$(tr '\n' ' ' <"$W/order.txt" 2>&1) err=$(cat "$T/err")"
done
rm -f "$W/order.txt" "$W"/first-*.txt "$W"/second-*.txt
rc=$(run box -- true)
wait_until 30 not [ -e "$T/far/.conch-place/locks/c1" ]
[ "$rc" = 0 ] && [ ! -e "$T/far/.conch-place/locks/c1" ] && ok "the far lock ends with its command" ||
    fail "lock left: rc=$rc $(cat "$T/err") $(cat "$T/far/.conch-place/locks/c1") $(ps -o pid,args -p $(cut -d' ' -f2 "$T/far/.conch-place/locks/c1"))"

# ---- the keeper: one connection kept between runs, private, idle-bounded, replaced ----
KD="$T/conch/workplaces/keepers"
vrun() { "$CP" -v run --place ssh:box --workdir "$W" --chat c1 -- true >/dev/null 2>"$T/err"; }
# A busy machine may keep the keeper from answering in time (300 ms): the run then goes alone,
# as it should, so runs are tried until one is served, once the keeper listens.
served_once() { vrun && grep -q 'the keeper serves this run' "$T/err"; }
served() { wait_until 60 keeper_listens && wait_until 60 served_once; }
keeper_listens() { keeper_listens_in "$KD"; }
keeper_listens_in() { [ -s "$(ls "$1"/*.lock 2>/dev/null | head -1)" ] && ls "$1"/*.sock >/dev/null 2>&1; }
vrun && served
k1=$(cat "$KD"/*.lock 2>/dev/null | head -1)
served && [ -n "$k1" ] && kill -0 "$k1" &&
    [ "$(cat "$KD"/*.lock | head -1)" = "$k1" ] && ok "keeper: reused between runs" ||
    fail "keeper reuse: k1=$k1 $(cat "$T/err")"
[ "$(stat -c %a "$KD")" = 700 ] && [ "$(stat -c %a "$KD"/*.sock)" = 600 ] &&
    ok "keeper: folder 0700, socket 0600" || fail "keeper modes: $(ls -la "$KD")"
# Another uid let through the folder's and the socket's modes still gets nothing (SO_PEERCRED).
chmod 711 "$T" "$T/conch" "$T/conch/workplaces" "$KD" && chmod 666 "$KD"/*.sock
ans=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1]); s.settimeout(5)
print(repr(s.recv(1)))' "$(ls "$KD"/*.sock)" 2>&1)
chmod 700 "$T" "$T/conch" "$T/conch/workplaces" "$KD" && chmod 600 "$KD"/*.sock
[ "$ans" = "b''" ] && ok "keeper: another uid is refused" || fail "keeper other uid: $ans"
kill -KILL "$k1"
wait_gone 30 "$k1"
vrun && grep -q 'no keeper' "$T/err" && served && k2=$(cat "$KD"/*.lock | head -1) &&
    [ "$k2" != "$k1" ] && ok "keeper: a dead one is replaced; the run between goes alone" ||
    fail "keeper replace: $(cat "$T/err")"
KI="$T/conch-idle/workplaces/keepers"
CONCH_HOME="$T/conch-idle" CONCH_SSH_KEEPER_IDLE=2 "$CP" run --place ssh:box --workdir "$W" \
    --chat idle -- true >/dev/null 2>&1
# The keeper started by that run: its pid in its lock, then its socket (it listens); with no
# run to serve it ends by itself after its idle time.
wait_until 60 keeper_listens_in "$KI"
ki=$(cat "$KI"/*.lock 2>/dev/null)
gone=no
[ -n "$ki" ] && wait_gone 60 "$ki" && gone=yes
[ "$gone" = yes ] && ! ls "$KI"/*.sock >/dev/null 2>&1 &&
    ok "keeper: exits when idle, its socket gone" || fail "keeper idle: pid '$ki' $(ls -la "$KI")"
CONCH_SSH_KEEPER=0 "$CP" -v run --place ssh:box --workdir "$W" --chat c1 -- true >/dev/null 2>"$T/err"
! grep -q keeper "$T/err" && ok "keeper: CONCH_SSH_KEEPER=0 goes alone" || fail "keeper off: $(cat "$T/err")"

# ---- ProxyJump ----
rc=$(run viajump -- cat a.txt)
[ "$rc" = 0 ] && grep -q A2 "$T/out" && ok "ProxyJump: run and mirror through the hop" ||
    fail "ProxyJump: rc=$rc $(cat "$T/err")"

# ---- words for every failure, each a 125 with the next step ----
words() { # NAME RC-FILE PATTERN WHAT
    [ "$2" = 125 ] && grep -q "$3" "$T/err" && ok "$4" || fail "$4: rc=$2 $(cat "$T/err")"
}
rc=$(run unknownkey -- touch ran); words unknownkey "$rc" 'from a terminal' "unknown host key refused"
rc=$(run changedkey -- touch ran); words changedkey "$rc" 'CHANGED' "changed host key refused"
rc=$(run refusedkey -- touch ran); words refusedkey "$rc" 'refused every key' "refused key: words"
rc=$(run refused -- touch ran); words refused "$rc" 'Nothing answers SSH' "connection refused: words"
rc=$(run notar -- touch ran); words notar "$rc" "no 'tar' command" "far side without tar: words"
rc=$(unshare -n sh -c "timeout 30 '$CP' run --place ssh:nameless --workdir '$W' --chat c1 -- touch ran" \
    >/dev/null 2>"$T/err" </dev/null; echo $?)
words nameless "$rc" 'is not found' "name not found: words"
if command -v python3 >/dev/null; then
    # A far side that takes the connection and never says a word, for as long as the test
    # wants: a run without a time limit would wait until run's timeout (60 s) ends it, 124.
    python3 -c "import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $DEAD)); s.listen(5); c=s.accept(); time.sleep(600)" &
    silent=$!
    # Listening before the run dials it (a loaded machine starts python slowly): the port in
    # /proc/net/tcp's hex, state 0A.
    port_hex=$(printf '%04X' "$DEAD")
    wait_until 60 grep -q ":$port_hex 00000000:0000 0A" /proc/net/tcp
    start=$(date +%s)
    rc=$(run refused -- touch ran)
    took=$(($(date +%s) - start))
    kill $silent 2>/dev/null
    wait $silent 2>/dev/null
    words refused "$rc" 'did not answer' "no answer in time: words, within the time limit ($took s)"
fi
[ ! -e "$W/ran" ] && [ ! -e "$(FARCOPY c1)/ran" ] && ok "never run anywhere on a place failure" ||
    fail "a command ran despite a place failure"

# ---- hostile tar and find on the far side: nothing unsafe lands ----
# The command's status is its own (0), and each hostile entry is named as refused: the archive
# was read, not lost on the way (a run that never got it would land nothing too).
rc=$(run hostile -- sh -c 'echo fine >made.txt')
[ "$rc" = 0 ] && grep -qF 'refused from the far side: ../escape.txt (not asked for)' "$T/err" &&
    grep -qF 'refused from the far side: .git/hooks/pre-commit (not asked for)' "$T/err" &&
    grep -qF 'refused from the far side: made.txt (a symbolic link)' "$T/err" &&
    ok "hostile far tar: the run's status, and every hostile entry received and refused" ||
    fail "hostile tar: rc=$rc $(cat "$T/err")"
[ ! -e "$T/escape.txt" ] && [ ! -e "$W/../escape.txt" ] && [ ! -e "$W/.git/hooks/pre-commit" ] &&
    [ ! -e "$W/made.txt" ] && [ ! -L "$W/made.txt" ] && ok "hostile far tar: no climb out, no hook, no link" ||
    fail "hostile tar landed something: $(ls -la "$W" "$T")"

# ---- the far disk full during a push: 125 with the words, nothing lost here ----
if mountpoint -q "$T/small"; then
    head -c 3000000 /dev/urandom >"$W/big.bin"
    sum=$(sha256sum <"$W/big.bin")
    rc=$(run small -- touch "$T/ran-on-full") # off the full disk: it could be made there
    words small "$rc" 'disk on small is full' "the far disk full during a push: words"
    [ "$(sha256sum <"$W/big.bin")" = "$sum" ] && [ -f "$W/a.txt" ] && [ ! -e "$T/ran-on-full" ] &&
        ok "the far disk full during a push: nothing lost here, the command not run" ||
        fail "disk full lost something: $(ls -la "$W")"
    rm -f "$W/big.bin"
fi

# ---- a push the far side cannot unpack whole: the command sent on its heels never runs ----
# The pack is all written (a directory there where a new file goes: tar reads on, then fails),
# so the command went with it and waited there for the unpack's word.
F=$(FARCOPY c1)
echo "new here" >"$W/blocked.txt"
mkdir -p "$F/blocked.txt/inside" && echo x >"$F/blocked.txt/inside/f"
rc=$(run box -- touch "$T/ran-after-bad-push")
[ "$rc" = 125 ] && [ ! -e "$T/ran-after-bad-push" ] && grep -q 'sending the work folder' "$T/err" &&
    ok "a push not unpacked whole: 125, the command sent with it never ran" ||
    fail "bad push: rc=$rc ran=$(ls "$T/ran-after-bad-push" 2>&1) $(cat "$T/err")"
rm -rf "$F/blocked.txt" "$W/blocked.txt"
rc=$(run box -- true)
[ "$rc" = 0 ] && ok "the next run after a bad push goes ahead" || fail "after bad push: rc=$rc $(cat "$T/err")"

# ---- the connection dropped mid-pull: nothing lands half-way, the next run recovers ----
rc=$(run cut -- sh -c 'head -c 2000000 /dev/urandom >cutbig.bin; echo x >cutsmall.txt')
ls -A "$W" >"$T/after-cut"
[ "$rc" = 125 ] && grep -q 'connection.*broke' "$T/err" && [ ! -e "$W/cutbig.bin" ] && [ ! -e "$W/cutsmall.txt" ] &&
    ! grep -q conch-staging "$T/after-cut" && ok "connection dropped mid-pull: 125, nothing landed half-way" ||
    fail "cut: rc=$rc $(cat "$T/after-cut") $(cat "$T/err")"
sed -i "s/Port $E/Port $A/" "$T/home/.ssh/config"
rc=$(run cut -- true)
[ "$rc" = 0 ] && [ "$(wc -c <"$W/cutbig.bin" 2>/dev/null)" = 2000000 ] && [ -f "$W/cutsmall.txt" ] &&
    cmp -s "$W/cutbig.bin" "$(FARCOPY c1)/cutbig.bin" && ok "the next run recovers: both files whole" ||
    fail "recovery: rc=$rc $(cat "$T/err")"

# ---- no forwarding, whatever ~/.ssh/config asks: the far side gets no agent and no port ----
# The probe is first shown to see forwarding when it happens (OpenSSH's own client, asked
# for both), so its "none" for conch-place cannot come from a probe that sees nothing.
AGENT_PID=$(ssh-agent -s -a "$T/agent.sock" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
# No wait in the probe: sshd serves one connection's requests in order, and a client asks for
# its forwards before it opens the session (OpenSSH does), so a port asked for is listening
# by the time the command runs.
probe='echo "agent=${SSH_AUTH_SOCK:-none}"; echo "listening=$(ss -Hltn "sport = :'$R'" | wc -l)"'
SSH_AUTH_SOCK="$T/agent.sock" timeout 20 ssh -F "$T/home/.ssh/config" -o ForwardAgent=yes \
    -o UserKnownHostsFile="$T/home/.ssh/known_hosts" -i "$T/home/.ssh/id_ed25519" \
    -o ExitOnForwardFailure=yes -o BatchMode=yes fwd "$probe" >"$T/ssh-probe" 2>"$T/err"
grep -q '^agent=/' "$T/ssh-probe" && grep -Eq '^listening=[1-9]$' "$T/ssh-probe" &&
    ok "the forwarding probe sees an agent and a port when ssh forwards them" ||
    fail "probe control: $(cat "$T/ssh-probe" "$T/err")"
rc=$(SSH_AUTH_SOCK="$T/agent.sock" run fwd -- sh -c "$probe")
[ "$rc" = 0 ] && grep -q '^agent=none$' "$T/out" && grep -q '^listening=0$' "$T/out" &&
    ok "ForwardAgent and RemoteForward in ~/.ssh/config: nothing forwarded" ||
    fail "forwarding: rc=$rc $(cat "$T/out" "$T/err")"
kill "$AGENT_PID" 2>/dev/null
AGENT_PID=

# ---- a progress line for a large push, on a terminal only (issue 13) ----
head -c 25000000 /dev/urandom >"$W/large.bin"
rc=$(run box -- true)
! grep -q 'sending' "$T/err" && [ "$rc" = 0 ] && ok "progress: quiet when standard error is no terminal" ||
    fail "progress without a terminal: rc=$rc $(cat "$T/err")"
head -c 25000000 /dev/urandom >"$W/large.bin"
script -qec "'$CP' run --place ssh:box --workdir '$W' --chat c1 -- true" "$T/typescript" >/dev/null 2>&1 </dev/null
grep -q 'conch-place: the work folder: sending [0-9.]* [kM]B of 23.8 MB' "$T/typescript" &&
    ok "progress: a line for a 25 MB push on a terminal" || fail "progress on a terminal: $(cat -v "$T/typescript")"
rm -f "$W/large.bin"
rc=$(run box -- true)

# ---- host-run files never land from the far side (issue 17) ----
plant=$(grep -v '^#' "$SRC/tests/integration/host-run-files")
echo "mine" >"$W/.envrc"
rc=$(run box -- sh -c "for f in $(echo $plant); do mkdir -p \"\$(dirname \"\$f\")\"; echo planted >\"\$f\"; done; echo ok >host-run-ran.txt")
[ "$rc" = 0 ] && [ -f "$W/host-run-ran.txt" ] && ok "host-run: the far command ran and its own file landed" ||
    fail "host-run run: rc=$rc $(cat "$T/err")"
for f in $plant; do
    if [ "$f" = .envrc ]; then
        [ "$(cat "$W/.envrc")" = mine ] && ok "host-run: $f kept as it was here" || fail "host-run: $f replaced"
    else
        [ ! -e "$W/$f" ] && ok "host-run: $f did not land" || fail "host-run: $f landed from the far side"
    fi
done
grep -q 'host-run' "$T/err" && ok "host-run: one line says so" || fail "host-run words: $(cat "$T/err")"
rc=$(run box -- rm -f .envrc)
[ -f "$W/.envrc" ] && ok "host-run: a deletion there is not done here" || fail "host-run: .envrc deleted here"
rm -f "$W/.envrc" "$W/host-run-ran.txt"
rc=$(run box -- true)

# ---- a keyed host-run file lands by its keys from the far side (issue 35 item 1) ----
mkdir -p "$W/.cargo"
printf '[profile.dev]\nopt-level = 0\n' >"$W/.cargo/config.toml"
rc=$(run box -- sh -c "sed -i 's/opt-level = 0/opt-level = 1/' .cargo/config.toml && echo ok >keyed-ran.txt")
[ "$rc" = 0 ] && [ -f "$W/keyed-ran.txt" ] && grep -qx 'opt-level = 1' "$W/.cargo/config.toml" &&
    ok "keyed: a data key's change in .cargo/config.toml lands" ||
    fail "keyed data key: rc=$rc $(cat "$W/.cargo/config.toml") $(cat "$T/err")"
rc=$(run box -- sh -c "printf '[build]\nrustc-wrapper = \"./w\"\n' >>.cargo/config.toml && echo ok >keyed-ran2.txt")
[ "$rc" = 0 ] && [ -f "$W/keyed-ran2.txt" ] && ! grep -q rustc-wrapper "$W/.cargo/config.toml" &&
    grep -q 'build.rustc-wrapper' "$T/err" &&
    ok "keyed: an added build.rustc-wrapper is refused by name" ||
    fail "keyed rustc-wrapper: rc=$rc $(cat "$W/.cargo/config.toml") $(cat "$T/err")"
rm -rf "$W/.cargo" "$W/keyed-ran.txt" "$W/keyed-ran2.txt"
rc=$(run box -- true)

# ---- places and doctor ----
"$CP" places --json >"$T/places.json" 2>"$T/err"
grep -q '"place":"ssh:box","ready":true' "$T/places.json" &&
    grep -q '"place":"ssh:unknownkey","ready":false' "$T/places.json" &&
    ok "places --json lists each Host, ready or with its next step" ||
    fail "places: $(cat "$T/places.json") $(cat "$T/err")"
"$CP" doctor --place ssh:box >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] && grep -q '^far side: tar, find' "$T/out" && grep -q '^host key: matches' "$T/out" &&
    ok "doctor: every check passes on a good host" || fail "doctor box: rc=$rc $(cat "$T/out" "$T/err")"
"$CP" doctor --place ssh:notar >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" != 0 ] && grep -q "no 'tar'" "$T/err" && grep -q 'Install it' "$T/err" &&
    ok "doctor: a missing tar with its one action" || fail "doctor notar: rc=$rc $(cat "$T/err")"

exit $FAILED
