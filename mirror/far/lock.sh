# lock LOCK ROOT MODE TOKEN: one command at a time per copy (issue 9). Makes the copy's folder,
# takes its lock, then answers "ok" (or "ok after") and, framed, the copy's id (cp_id) and its
# files (cp_list), so the near side learns which copy is there without another round trip.
# Other first lines: "busy WHO" (123), "nofolder" (121), "missing TOOL" (124, common.sh).
#   hold:    the lock lives as long as this shell, which holds it until its input ends (ssh:
#            the channel; a cut connection or a killed conch-place frees it by itself).
#   lease:   the lock is a lease that ends at the time it names unless renewed (cloud: no
#            channel outlives a request; every far script renews it first, and the run
#            renews it while the command runs), so a killed run holds it 2 minutes at most.
#   renew:   pushes the lease TOKEN holds 2 minutes on; release: removes it if TOKEN holds it.
case $1 in /*) cp_lock=$1 ;; *) cp_lock=$PWD/$1 ;; esac # still right after the cd below
cp_root=$2
cp_mode=$3
cp_token=$4
cp_now() { date +%s; }
cp_holder() { cat -- "$cp_lock" 2>/dev/null; }
case $cp_mode in
release)
    case $(cp_holder) in "lease $cp_token "*) rm -f -- "$cp_lock" ;; esac
    exit 0
    ;;
renew)
    case $(cp_holder) in
    "lease $cp_token "*)
        echo "lease $cp_token $(($(cp_now) + 120))" >"$cp_lock.new" && mv -f -- "$cp_lock.new" "$cp_lock"
        exit $?
        ;;
    esac
    exit 123
    ;;
esac
mkdir -p -- "${cp_lock%/*}" "$cp_root" 2>>"$cp_tmp/err" || {
    echo nofolder
    cp_fail 121
}
if [ "$cp_mode" = hold ]; then cp_me="hold $$"; else cp_me="lease $cp_token $(($(cp_now) + 120))"; fi
cp_take() { (set -C && echo "$cp_me" >"$cp_lock") 2>/dev/null; }
# A lock whose holder is gone: its shell ended (hold) or its time passed (lease).
cp_stale() {
    h=$(cp_holder)
    [ -n "$h" ] || { sleep 1; h=$(cp_holder); }
    set -- $h
    case ${1:-} in
    hold) ! kill -0 "${2:-0}" 2>/dev/null ;;
    lease) [ "${3:-0}" -lt "$(cp_now)" ] 2>/dev/null ;;
    *) true ;;
    esac
}
if ! cp_take; then
    if cp_stale; then
        rm -f -- "$cp_lock" "$cp_lock.pgid"
        cp_take || { echo "busy"; exit 123; }
    else
        set -- $(cp_holder)
        echo "busy ${2:-}"
        exit 123
    fi
fi
cd -- "$cp_root" 2>>"$cp_tmp/err" || {
    echo nofolder
    cp_fail 121
}
cp_here=$PWD
# hold: two fifos save a round trip each ("ok after" says they are there).
#   LOCK.done:   the command's far script writes its status there once it ended (ssh's run
#                script, through cp_far_exec's done_path); the copy's listing after the
#                command then comes unasked on this stream.
#   LOCK.pushed: the push's unpack writes its status there (unpack.sh); a command sent on the
#                push's heels waits for it, and runs only after a whole push. This shell holds
#                it open both ways, so neither side ever waits for the other to open it.
cp_after=
if [ "$cp_mode" = hold ] && rm -f -- "$cp_lock.done" "$cp_lock.pushed" &&
    mkfifo -m 600 -- "$cp_lock.done" "$cp_lock.pushed" 2>/dev/null && exec 7<>"$cp_lock.pushed"; then
    cp_after=' after'
fi
# An answer is framed ("conch-bytes N", then N bytes): a held lock's stream stays open.
cp_framed() {
    printf 'conch-bytes %s\n' "$(($(wc -c <"$1")))"
    cat -- "$1"
}
echo "ok$cp_after"
{
    cp_id
    cp_list
} >"$cp_tmp/answer"
cp_framed "$cp_tmp/answer"
cp_flush_err
[ "$cp_mode" = hold ] || exit 0
if [ -n "$cp_after" ]; then
    (
        cd /
        exec 7>&-
        exec 5<>"$cp_lock.done" && IFS= read -r _ <&5 || exit 0
        : >"$cp_tmp/err"
        cp_enter "$cp_here" # as a probe would: a copy the command removed lists empty
        {
            cp_id
            cp_list
        } >"$cp_tmp/after"
        cp_framed "$cp_tmp/after"
        cp_flush_err
    ) &
    cp_lister=$!
fi
# Our output ends here but for the lister's; the lock stays, held from outside the copy (a
# shell sitting in it would keep its disk busy).
exec >/dev/null 2>&1
cd /
while read -r _; do :; done
# A run script still to write its status must not wait for a reader that is gone, nor one
# still waiting for a push wait for ever: it is told the push failed.
if [ -n "$cp_after" ]; then
    exec 6<>"$cp_lock.done"
    kill "$cp_lister" 2>/dev/null
    echo 125 >&7
fi
rm -f -- "$cp_lock" "$cp_lock.pgid" "$cp_lock.done" "$cp_lock.pushed"
exit 0
