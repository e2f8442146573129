# list ROOT: prints the far copy's listing (see cp_list).
cp_enter "$1"
cp_list
cp_flush_err
exit 0
