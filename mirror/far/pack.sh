# pack ROOT: standard input is the NUL-separated list of asked-for names; standard output is
# a tar of exactly those files, nothing else.
cp_enter "$1"
cat >"$cp_tmp/asked"
case $(tar --version 2>/dev/null) in
*'GNU tar'*)
    tar --null --verbatim-files-from --no-recursion -cf - -T "$cp_tmp/asked" 2>>"$cp_tmp/err"
    ;;
*)
    tar --null -n -cf - -T "$cp_tmp/asked" 2>>"$cp_tmp/err"
    ;;
esac
rc=$?
cp_flush_err
exit "$rc"
