# bench/: side-by-side benchmarks, run by hand (each prints its figures beside its peer's).
EXTRA_DIST += bench/container-roundtrip
# bench/mirror: the mirror beside rsync.
noinst_PROGRAMS += bench/mirror-drive
bench_mirror_drive_SOURCES = bench/mirror-drive.c
bench_mirror_drive_LDADD = libconch.la $(LIB_LIBS)
EXTRA_DIST += bench/mirror
# bench/ssh: the ssh place beside OpenSSH (per command) and rsync -e ssh (mirror), one run (root).
EXTRA_DIST += bench/ssh
