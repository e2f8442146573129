# unpack ROOT: standard input is a tar written by conch-place; it may hold the deletion list
# as .conch-mirror-deletions (NUL-separated names). Extracts, deletes, then lists.
cp_enter "$1"
tar -xf - 2>>"$cp_tmp/err"
rc=$?
if [ -f .conch-mirror-deletions ]; then
    xargs -0 rm -f -- <.conch-mirror-deletions 2>>"$cp_tmp/err"
    rm -f .conch-mirror-deletions
fi
if [ "$rc" -ne 0 ]; then
    cp_flush_err
    exit "$rc"
fi
cp_list
cp_flush_err
exit 0
