# list ROOT: prints the copy's id (cp_id), then its listing (see cp_list).
cp_enter "$1"
cp_id
cp_list
cp_flush_err
exit 0
