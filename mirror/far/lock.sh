# lock LOCK ROOT MODE TOKEN: one command at a time per copy (issue 9). Makes the copy's folder,
# takes its lock, then answers "ok", the copy's id (cp_id) and its files (cp_list), so the
# near side learns which copy is there without another round trip. Other first lines:
# "busy WHO" (123), "nofolder" (121), "missing TOOL" (124, common.sh).
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
echo ok
cd -- "$cp_root" 2>>"$cp_tmp/err" || cp_fail 121
cp_id
cp_list
cp_flush_err
[ "$cp_mode" = hold ] || exit 0
# Our output ends here, so the near side reads the answer to its end; the lock stays, held
# from outside the copy (a shell sitting in it would keep its disk busy).
exec >/dev/null 2>&1
cd /
while read -r _; do :; done
rm -f -- "$cp_lock" "$cp_lock.pgid"
exit 0
