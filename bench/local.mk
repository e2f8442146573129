# bench/: side-by-side benchmarks, run by hand (each prints its figures beside its peer's).
EXTRA_DIST += bench/container-roundtrip
# bench/mirror: the mirror beside rsync.
noinst_PROGRAMS += bench/mirror-drive
bench_mirror_drive_SOURCES = bench/mirror-drive.c
bench_mirror_drive_LDADD = libconch.la $(LIB_LIBS)
EXTRA_DIST += bench/mirror
# bench/ssh: the ssh place beside OpenSSH (per command) and rsync -e ssh (mirror), one run (root).
EXTRA_DIST += bench/ssh bench/delay-relay.py
# bench/egress-proxy's fair floor: a bare splice (or copy) relay, two loopback crossings like the proxy.
noinst_PROGRAMS += bench/splice-relay
bench_splice_relay_SOURCES = bench/splice-relay.c
bench_splice_relay_LDADD = libconch.la $(LIB_LIBS) -lpthread
# bench/all: issue 14's one table (container round trip, proxy), one run; `make bench` runs it.
EXTRA_DIST += bench/all bench/egress-proxy bench/gate bench/git bench/npm-cache
bench: conch-place bench/splice-relay
	$(srcdir)/bench/all
.PHONY: bench
