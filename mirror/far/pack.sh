# pack ROOT: standard input is the NUL-separated list of asked-for names; standard output is
# a tar of exactly those files, nothing else.
cp_enter "$1"
cat >"$cp_tmp/asked"
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
    tar --null --verbatim-files-from --no-recursion -cf - -T "$cp_tmp/asked" 2>>"$cp_tmp/err"
else
    tar --null -n -cf - -T "$cp_tmp/asked" 2>>"$cp_tmp/err"
fi
rc=$?
cp_flush_err
exit "$rc"
