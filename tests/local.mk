# tests/: unit tests (cmocka), fuzz targets and their corpus replays, integration scripts.
#
# A fuzz target tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput. It is built twice:
# with --enable-fuzzers (clang) as a libFuzzer program, and always as replay_NAME, which
# runs every file of tests/fuzz/corpus/NAME/ once in `make check`.

if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_settings
tests_fuzz_fuzz_settings_SOURCES = tests/fuzz/fuzz_settings.c
tests_fuzz_fuzz_settings_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_settings_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_settings
tests_fuzz_replay_settings_SOURCES = tests/fuzz/fuzz_settings.c tests/fuzz/replay.c
tests_fuzz_replay_settings_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/settings\"
tests_fuzz_replay_settings_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_settings
EXTRA_DIST += tests/fuzz/corpus tests/lib/wait.sh tests/lib/wait.py

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_settings
tests_unit_test_settings_SOURCES = tests/unit/test_settings.c
tests_unit_test_settings_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_settings_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_settings
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_container
tests_unit_test_container_SOURCES = tests/unit/test_container.c tests/unit/one-list.h
tests_unit_test_container_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_container_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_container
check_PROGRAMS += tests/unit/test_caches
tests_unit_test_caches_SOURCES = tests/unit/test_caches.c
tests_unit_test_caches_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_caches_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_caches
check_PROGRAMS += tests/unit/test_warm_end
tests_unit_test_warm_end_SOURCES = tests/unit/test_warm_end.c
tests_unit_test_warm_end_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_warm_end_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_warm_end
check_PROGRAMS += tests/unit/test_http_unix
tests_unit_test_http_unix_SOURCES = tests/unit/test_http_unix.c
tests_unit_test_http_unix_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_http_unix_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_http_unix
check_PROGRAMS += tests/unit/test_warm_pool
tests_unit_test_warm_pool_SOURCES = tests/unit/test_warm_pool.c
tests_unit_test_warm_pool_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_warm_pool_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_warm_pool
endif

# Against the real engines: tests/integration/engines.sh and the test image come first
# (bootstrap.sh test does both).
TESTS += tests/integration/container.test
EXTRA_DIST += tests/integration/container.test tests/integration/engines.sh
# -i streaming and signals at every stage; finds its boxes by name, so it may overlap others.
TESTS += tests/integration/container-stream.test
EXTRA_DIST += tests/integration/container-stream.test
# A fresh Docker box's exit status from the die event; a lying image label is not believed.
TESTS += tests/integration/container-exit.test
EXTRA_DIST += tests/integration/container-exit.test

if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_demux
tests_fuzz_fuzz_demux_SOURCES = tests/fuzz/fuzz_demux.c
tests_fuzz_fuzz_demux_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_demux_LDADD = libconch.la $(LIB_LIBS)
endif
check_PROGRAMS += tests/fuzz/replay_demux
tests_fuzz_replay_demux_SOURCES = tests/fuzz/fuzz_demux.c tests/fuzz/replay.c
tests_fuzz_replay_demux_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/demux\"
tests_fuzz_replay_demux_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_demux

# The engines' answers as the HTTP client over their unix socket reads them.
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_engine_answer
tests_fuzz_fuzz_engine_answer_SOURCES = tests/fuzz/fuzz_engine_answer.c
tests_fuzz_fuzz_engine_answer_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_engine_answer_LDADD = libconch.la $(LIB_LIBS)
endif
check_PROGRAMS += tests/fuzz/replay_engine_answer
tests_fuzz_replay_engine_answer_SOURCES = tests/fuzz/fuzz_engine_answer.c tests/fuzz/replay.c
tests_fuzz_replay_engine_answer_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/engine_answer\"
tests_fuzz_replay_engine_answer_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_engine_answer

# The allow-list: its settings readers (fuzzed, corpus replayed), the list, the proxy variables.
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_hostconf
tests_fuzz_fuzz_hostconf_SOURCES = tests/fuzz/fuzz_hostconf.c
tests_fuzz_fuzz_hostconf_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_hostconf_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_hostconf
tests_fuzz_replay_hostconf_SOURCES = tests/fuzz/fuzz_hostconf.c tests/fuzz/replay.c
tests_fuzz_replay_hostconf_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/hostconf\"
tests_fuzz_replay_hostconf_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_hostconf

# The keyless copy of a project's registry settings (fuzzed, corpus replayed).
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_keyless
tests_fuzz_fuzz_keyless_SOURCES = tests/fuzz/fuzz_keyless.c
tests_fuzz_fuzz_keyless_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_keyless_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_keyless
tests_fuzz_replay_keyless_SOURCES = tests/fuzz/fuzz_keyless.c tests/fuzz/replay.c
tests_fuzz_replay_keyless_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/keyless\"
tests_fuzz_replay_keyless_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_keyless

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_allowlist
tests_unit_test_allowlist_SOURCES = tests/unit/test_allowlist.c
tests_unit_test_allowlist_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_allowlist_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_allowlist
# The sign-ins the sidecar adds (a real git with a store helper, and one that hangs).
check_PROGRAMS += tests/unit/test_sign_ins
tests_unit_test_sign_ins_SOURCES = tests/unit/test_sign_ins.c
tests_unit_test_sign_ins_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sign_ins_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_sign_ins
# The sign-ins the person names: the command's checks and store, a run's placeholders.
check_PROGRAMS += tests/unit/test_named_sign_ins
tests_unit_test_named_sign_ins_SOURCES = tests/unit/test_named_sign_ins.c
tests_unit_test_named_sign_ins_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_named_sign_ins_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_named_sign_ins
check_PROGRAMS += tests/unit/test_egress_trust
tests_unit_test_egress_trust_SOURCES = tests/unit/test_egress_trust.c
tests_unit_test_egress_trust_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_trust_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_egress_trust
endif

# The egress sidecar attacked from inside sealed boxes, on both engines (needs the test image
# with curl: conch-place image build test).
TESTS += tests/integration/egress.test
EXTRA_DIST += tests/integration/egress.test

# The command line without an engine: --help everywhere, completion, hosts add/remove.
TESTS += tests/cli/cli.test
EXTRA_DIST += tests/cli/cli.test

# The house's rules (sizes, seams, names: tests/house.py) hold for the tree as it is.
TESTS += tests/house.test
EXTRA_DIST += tests/house.test tests/house.py

# run --report against Docker with the test image; each report checked against its schema.
TESTS += tests/integration/run-report.test
EXTRA_DIST += tests/integration/run-report.test

# auto's choice of engine by image, and DOCKER_HOST used or failed (both engines).
TESTS += tests/integration/engine-choice.test
EXTRA_DIST += tests/integration/engine-choice.test

# An image build's progress line: drawn on a terminal only (Docker; this binary's egress image).
TESTS += tests/integration/progress.test
EXTRA_DIST += tests/integration/progress.test

# The network seal from inside real boxes (issue 10): nothing of this computer, no other folder's
# box, and a host firewall that drops box-to-sidecar traffic refused. Root.
TESTS += tests/integration/seal.test
EXTRA_DIST += tests/integration/seal.test tests/integration/seal-listener.py

# The landing gate on both engines: host-run files refused, hold/land/discard, Ctrl-C, a landing
# cut short by kill -9 and finished, two runs of one folder at once (issue 17).
TESTS += tests/integration/gate.test
EXTRA_DIST += tests/integration/gate.test tests/integration/host-run-files
# Links judged by where they lead, changes --diff reading no link or fifo, a save during a
# cross-disk landing kept, nothing of the gate's left after kill -9 (issue 38).
TESTS += tests/integration/gate-links.test
EXTRA_DIST += tests/integration/gate-links.test
# What the folder's host-run settings name (git's includes, hooks, fsmonitor; yarnPath) and
# Python's start-up files never land from a sealed box (issue 35).
TESTS += tests/integration/host-run.test
EXTRA_DIST += tests/integration/host-run.test
TESTS += tests/integration/git-gate.test
EXTRA_DIST += tests/integration/git-gate.test
# git fetch (a pack, checked) and git pull in a sealed box from a local HTTPS git server (root).
TESTS += tests/integration/git-fetch.test
EXTRA_DIST += tests/integration/git-fetch.test
# A sealed box's package caches outlive it per folder (issue 32): a second npm install downloads
# nothing, another folder's box sees none, container.caches off, clean of those unused 7 days.
TESTS += tests/integration/caches.test
EXTRA_DIST += tests/integration/caches.test

# Sign-ins for hosts the person names (issue 33): the box holds a placeholder the sidecar
# replaces for that host, path and header alone; the secret nowhere in the box, a log or argv.
TESTS += tests/integration/sign-ins.test
EXTRA_DIST += tests/integration/sign-ins.test

# The README's short session run as written, every line it shows checked (issue 34).
TESTS += tests/integration/readme.test
EXTRA_DIST += tests/integration/readme.test README.md docs/container.md docs/egress.md \
	docs/landing.md docs/relay.md docs/remote.md docs/security.md docs/speed.md

# Allowed hosts are for fetching (issue 18): the sidecar ends TLS, a clone works and a push is
# refused before the far side sees it, uploads refused with words, a bad upstream 502, npm from
# the registry, and the CA's key nowhere in a box (both engines, root for port 443).
TESTS += tests/integration/egress-tls.test
EXTRA_DIST += tests/integration/egress-tls.test tests/integration/https-test-server.py

# No secret in a container's config (issue 36): the sidecar's CA key, its boxes' secret, a
# sign-in's token and the upstream's password in no inspect and no engine state on disk.
TESTS += tests/integration/inspect-secrets.test
EXTRA_DIST += tests/integration/inspect-secrets.test

# A person without root (issue 21): rootless Podman of a test user (its own engine, so beside the
# chain below), and Docker through the docker group (on the chain: the shared dockerd).
TESTS += tests/integration/rootless.test tests/integration/docker-group.test
EXTRA_DIST += tests/integration/rootless.test tests/integration/docker-group.test

# The tests that make, count or clean boxes, sidecars and networks on the shared engines run one
# after another, never beside each other (a `clean` in one removes what another is making).
# cloud.test runs beside them (its `clean` is --place cloud); its one comparison with a box,
# cloud-container.test, is on the chain.
tests/integration/container-stream.log: tests/integration/container.log
tests/integration/egress.log: tests/integration/container-stream.log
tests/integration/seal.log: tests/integration/egress.log
tests/egress/sidecar-upstream.log: tests/integration/seal.log
tests/integration/run-report.log: tests/egress/sidecar-upstream.log
tests/integration/engine-choice.log: tests/integration/run-report.log
tests/relay/relay.log: tests/integration/engine-choice.log
tests/cloud/cloud-container.log: tests/relay/relay.log
tests/integration/container-exit.log: tests/cloud/cloud-container.log
tests/integration/gate.log: tests/integration/container-exit.log
tests/integration/egress-tls.log: tests/integration/gate.log
tests/integration/docker-group.log: tests/integration/egress-tls.log
tests/integration/caches.log: tests/integration/docker-group.log

# Every test's time, for the breakdown bootstrap.sh test prints.
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/timed
TEST_LOG_COMPILER = $(LOG_COMPILER)
EXTRA_DIST += tests/timed

# The unit tests' one way to wait for a state, bounded in seconds on CLOCK_MONOTONIC.
EXTRA_DIST += tests/unit/wait.h

# The README's test command with a CPU burner beside it (tests/stress-beside); not in CI. The
# command's own make starts afresh, not as a part of this one.
stress-beside:
	MAKEFLAGS= MAKELEVEL= $(SHELL) $(top_srcdir)/tests/stress-beside
.PHONY: stress-beside
EXTRA_DIST += tests/stress-beside
