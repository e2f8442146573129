# places/ssh/: the SSH place. config: text, keywords, parse, host; connection: known_hosts,
# libssh2 handles, socket (TCP, ProxyCommand, ProxyJump), auth, session; channel: pump, exec;
# the mirror's transport; the place: its side of the remote run, ops, check; the keeper:
# server, client, wire, request.
libconch_la_SOURCES += \
	places/ssh/config-text.c places/ssh/config-text.h \
	places/ssh/config-keywords.c places/ssh/config-keywords.h \
	places/ssh/config-parse.c places/ssh/config-parse.h \
	places/ssh/config-host.c places/ssh/config-host.h \
	places/ssh/known-hosts.c places/ssh/known-hosts.h \
	places/ssh/handles.c places/ssh/handles.h \
	places/ssh/socket.c places/ssh/socket.h \
	places/ssh/auth.c places/ssh/auth.h \
	places/ssh/session.c places/ssh/session.h \
	places/ssh/pump.c places/ssh/pump.h \
	places/ssh/exec.c places/ssh/exec.h \
	places/ssh/mirror-transport.c places/ssh/mirror-transport.h \
	places/ssh/far-side.c places/ssh/far-side.h \
	places/ssh/place-ssh.c places/ssh/place-ssh.h places/ssh/place-check.c \
	places/ssh/keeper.c places/ssh/ssh.h \
	places/ssh/keeper-client.c places/ssh/keeper-client.h \
	places/ssh/keeper-wire.c places/ssh/keeper-wire.h \
	places/ssh/keeper-request.c places/ssh/keeper-request.h

if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_ssh_config
tests_fuzz_fuzz_ssh_config_SOURCES = tests/fuzz/fuzz_ssh_config.c tests/ssh/memfs.c tests/ssh/memfs.h
tests_fuzz_fuzz_ssh_config_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_ssh_config_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_ssh_config
tests_fuzz_replay_ssh_config_SOURCES = tests/fuzz/fuzz_ssh_config.c tests/ssh/memfs.c tests/ssh/memfs.h tests/fuzz/replay.c
tests_fuzz_replay_ssh_config_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/ssh_config\"
tests_fuzz_replay_ssh_config_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_ssh_config

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_ssh_config
tests_unit_test_ssh_config_SOURCES = tests/unit/test_ssh_config.c tests/ssh/memfs.c tests/ssh/memfs.h
tests_unit_test_ssh_config_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ssh_config_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_ssh_config
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_ssh_known_hosts
tests_unit_test_ssh_known_hosts_SOURCES = tests/unit/test_ssh_known_hosts.c
tests_unit_test_ssh_known_hosts_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ssh_known_hosts_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_ssh_known_hosts
endif

if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_ssh_known_hosts
tests_fuzz_fuzz_ssh_known_hosts_SOURCES = tests/fuzz/fuzz_ssh_known_hosts.c
tests_fuzz_fuzz_ssh_known_hosts_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_ssh_known_hosts_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_ssh_known_hosts
tests_fuzz_replay_ssh_known_hosts_SOURCES = tests/fuzz/fuzz_ssh_known_hosts.c tests/fuzz/replay.c
tests_fuzz_replay_ssh_known_hosts_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/ssh_known_hosts\"
tests_fuzz_replay_ssh_known_hosts_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_ssh_known_hosts

# Integration: a real sshd on 127.0.0.1, started and stopped by the script (root only).
check_PROGRAMS += tests/ssh/ssh_run
tests_ssh_ssh_run_SOURCES = tests/ssh/ssh_run.c
tests_ssh_ssh_run_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/ssh/test_ssh_session.sh
EXTRA_DIST += tests/ssh/test_ssh_session.sh

# The place end to end through the real binary: honest runs, attacks and faults.
TESTS += tests/ssh/test_ssh_place.sh
EXTRA_DIST += tests/ssh/test_ssh_place.sh

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_ssh_request
tests_unit_test_ssh_request_SOURCES = tests/unit/test_ssh_request.c
tests_unit_test_ssh_request_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_ssh_request_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_ssh_request
endif
