# conch-place mirror, far side: shared by the scripts below. POSIX sh; GNU, BSD and busybox
# tools. File names never appear in argv or in this text: they travel NUL-separated on the
# streams, and find prints them with a "./" prefix so none can start with a dash.
set -u
umask 022
cp_tmp=$(mktemp -d "${TMPDIR:-/tmp}/conch-mirror.XXXXXX") || exit 120
trap 'rm -rf "$cp_tmp"' EXIT HUP INT TERM

# Error output is held back and sent at the end, bounded, so that the near side can read
# standard output to its end without standard error filling up and blocking us.
cp_flush_err() {
    if [ -s "$cp_tmp/err" ]; then head -c 65536 "$cp_tmp/err" >&2; fi
}

cp_enter() {
    mkdir -p -- "$1" 2>>"$cp_tmp/err" && cd -- "$1" 2>>"$cp_tmp/err" || {
        cp_flush_err
        exit 121
    }
}

# The listing: a header line, the names of the plain files (NUL after each, an empty name
# at the end), then one stat record per name in the same order: "MODEHEX SIZE MTIME CTIME
# NAME\n". Names may hold newlines, so the near side pairs records with the NUL list
# instead of splitting lines. Dependency folders are pruned here; other rules apply there.
cp_list() {
    find . \( -type d \( -iname node_modules -o -iname .venv -o -iname venv \
        -o -iname target -o -iname __pycache__ -o -iname .gradle -o -iname .tox \
        -o -name '.conch-staging-*' -o -path ./.git/hooks \) -prune \) \
        -o \( -type f -print0 \) >"$cp_tmp/names" 2>>"$cp_tmp/err"
    printf 'conch-list 1\n'
    cat "$cp_tmp/names"
    printf '\000'
    [ -s "$cp_tmp/names" ] || return 0
    if stat -c %.9Y . >/dev/null 2>&1; then
        xargs -0 stat -c '%f %s %.9Y %.9Z %n' <"$cp_tmp/names" 2>>"$cp_tmp/err"
    elif stat -c %Y . >/dev/null 2>&1; then
        xargs -0 stat -c '%f %s %Y %Z %n' <"$cp_tmp/names" 2>>"$cp_tmp/err"
    else
        xargs -0 stat -f '%Xp %z %m %c %N' <"$cp_tmp/names" 2>>"$cp_tmp/err"
    fi
    return 0
}
