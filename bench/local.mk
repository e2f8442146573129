# bench/ adds its sources, tests and scripts here.
# bench/mirror: the mirror beside rsync (run by hand: bench/mirror).
noinst_PROGRAMS += bench/mirror-drive
bench_mirror_drive_SOURCES = bench/mirror-drive.c
bench_mirror_drive_LDADD = libconch.la $(LIB_LIBS)
EXTRA_DIST += bench/mirror
