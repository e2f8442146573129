# unpack ROOT [ID [PUSHED]]: standard input is a tar written by conch-place; it may hold the deletion list
# as .conch-mirror-deletions (NUL-separated names) and .conch-mirror-sent (the names it
# holds, "./NAME" NUL-separated). Extracts, deletes, then lists what was sent (everything if
# the tar does not say). With ID (not empty), the copy is new: its id is written once all
# arrived. PUSHED, a fifo of the copy's lock (lock.sh): this script's exit status goes there
# on every way out, for the command that waits for the push.
cp_pushed=
case ${3:-} in '') ;; /*) cp_pushed=$3 ;; *) cp_pushed=$PWD/$3 ;; esac
if [ -n "$cp_pushed" ]; then
    trap 'cp_s=$?; [ -p "$cp_pushed" ] && echo "$cp_s" >"$cp_pushed"; rm -rf "$cp_tmp"' EXIT
fi
cp_enter "$1"
tar -xf - 2>>"$cp_tmp/err"
rc=$?
listed=
if [ -f .conch-mirror-sent ]; then
    cat .conch-mirror-sent >"$cp_tmp/sent" && listed="$cp_tmp/sent"
    rm -f .conch-mirror-sent
fi
if [ -f .conch-mirror-deletions ]; then
    xargs -0 rm -f -- <.conch-mirror-deletions 2>>"$cp_tmp/err"
    rm -f .conch-mirror-deletions
fi
[ "$rc" -eq 0 ] || cp_fail "$rc"
if [ -n "${2:-}" ]; then
    { printf '%s\n' "$2" >.conch-mirror-id.new && mv -f .conch-mirror-id.new .conch-mirror-id; } \
        2>>"$cp_tmp/err" || cp_fail 1
fi
if [ -n "$listed" ]; then
    cp_list "$listed"
else
    cp_list
fi
cp_flush_err
exit 0
