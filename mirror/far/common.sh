# conch-place mirror, far side: shared by the scripts below. POSIX sh; GNU, BSD and busybox
# tools. File names never appear in argv or in this text: they travel NUL-separated on the
# streams, and find prints them with a "./" prefix so none can start with a dash.
set -u
umask 022
# The tools every script needs; the first missing one is named on standard output (124).
for cp_t in tar find xargs stat mktemp; do
    command -v "$cp_t" >/dev/null 2>&1 || { echo "missing $cp_t"; exit 124; }
done
# A script killed by SIGKILL (or a host that went down) cannot clean up: the next one removes
# our scratch folders older than a day, which no live script keeps (each lasts one transfer).
find "${TMPDIR:-/tmp}" -maxdepth 1 -type d -name 'conch-mirror.*' -user "$(id -u)" -mmin +1440 \
    -exec rm -rf {} + >/dev/null 2>&1
cp_tmp=$(mktemp -d "${TMPDIR:-/tmp}/conch-mirror.XXXXXX") || exit 120
# A signal ends the script (a trapped signal would otherwise let it go on without its scratch
# folder), and every ending removes the scratch folder: SIGPIPE too, when the near side hangs up.
trap 'rm -rf "$cp_tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# Error output is held back and sent at the end, bounded, so that the near side can read
# standard output to its end without standard error filling up and blocking us.
cp_flush_err() {
    if [ -s "$cp_tmp/err" ]; then head -c 65536 "$cp_tmp/err" >&2; fi
}

# A failure whose words say the disk is full leaves with 122, so the near side chooses its
# words from the code (mirror/far.h); the tools' own words are the only place errno shows.
cp_fail() {
    if grep -q -e 'No space left' -e 'Disk quota' -e 'Wrote only' "$cp_tmp/err" 2>/dev/null; then
        cp_flush_err
        exit 122
    fi
    cp_flush_err
    exit "$1"
}

# The copy's id (issue 9): "conch-id ID", or "conch-id -" when the copy has none.
cp_id() {
    i=
    [ -f .conch-mirror-id ] && IFS= read -r i <.conch-mirror-id 2>/dev/null
    case $i in *[!0-9a-f]* | '') i=- ;; esac # builtins only: this runs in every lock
    printf 'conch-id %s\n' "$i"
}

# The copy usually exists: cd first, so that mkdir runs only the first time.
cp_enter() {
    cd -- "$1" 2>/dev/null || { mkdir -p -- "$1" 2>>"$cp_tmp/err" && cd -- "$1" 2>>"$cp_tmp/err"; } ||
        cp_fail 121
}

# The listing, in one of two forms the near side both reads:
#   "conch-list 2\n", then per plain file "TYPE PERMS SIZE MTIME CTIME ./NAME\0" (PERMS in
#   octal), all printed by GNU find in one process, from the same stat as its test;
#   "conch-list 1\n", then the names (NUL after each, an empty name at the end), then one stat
#   record per name in the same order: "MODEHEX SIZE MTIME CTIME NAME\n", by any find and
#   stat (GNU, BSD, busybox). Names may hold newlines, so the near side pairs records with
#   the NUL list instead of splitting lines.
# Dependency folders are pruned here; other rules apply there. cp_list FILE lists only the
# names in FILE ("./NAME", NUL-separated), in the same forms.
cp_record='%y %m %s %T@ %C@ %p\000'

# GNU find, known by what it prints, not by its name: anything else takes the POSIX way.
cp_gnu_find() {
    case $(find . -prune -printf "$cp_record" 2>/dev/null | tr '\000' '\n') in
    'd '[0-7]*' '[0-9]*' '[0-9]*.[0-9]*' '[0-9]*.[0-9]*' .') return 0 ;;
    esac
    return 1
}

cp_find() {
    find . \( -path ./.conch-mirror-id -prune \) -o \( -type d \( -iname node_modules -o -iname .venv -o -iname venv \
        -o -iname target -o -iname __pycache__ -o -iname .gradle -o -iname .tox \
        -o -name '.conch-staging-*' -o -path ./.git/hooks \) -prune \) \
        -o \( -type f "$@" \) 2>>"$cp_tmp/err"
}

cp_list() {
    if cp_gnu_find; then
        printf 'conch-list 2\n'
        if [ $# -eq 0 ]; then
            cp_find -printf "$cp_record"
        elif [ -s "$1" ]; then
            # The names are starting points: each begins with "./", never a dash or "(".
            xargs -0 sh -c 'exec find "$@" -prune -type f -printf "$0"' "$cp_record" \
                <"$1" 2>>"$cp_tmp/err"
        fi
        return 0
    fi
    if [ $# -eq 0 ]; then
        cp_find -print0 >"$cp_tmp/names"
    else
        cat "$1" >"$cp_tmp/names"
    fi
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
