# places/ssh/: the SSH place: ~/.ssh/config, known_hosts, the libssh2 session.
libconch_la_SOURCES += \
	places/ssh/ssh_config.c places/ssh/ssh_config.h places/ssh/ssh_config_int.h \
	places/ssh/ssh_keywords.c \
	places/ssh/ssh_host.c \
	places/ssh/ssh_jump.c \
	places/ssh/ssh_fs.c \
	places/ssh/ssh_text.c places/ssh/ssh_text.h \
	places/ssh/known_hosts.c places/ssh/known_hosts.h \
	places/ssh/ssh_handles.h places/ssh/ssh_session.h places/ssh/ssh_session_int.h \
	places/ssh/ssh_session.c places/ssh/ssh_auth.c places/ssh/ssh_exec.c \
	places/ssh/ssh_transport.c places/ssh/ssh_pump.c \
	places/ssh/ssh_place.c places/ssh/ssh_place.h \
	places/ssh/ssh_mirror.c places/ssh/ssh_warm.c \
	places/ssh/ssh_remote.c places/ssh/ssh_remote.h \
	places/ssh/ssh_keeper.c places/ssh/ssh_keeper.h places/ssh/ssh_keeper_int.h \
	places/ssh/ssh_keeper_wire.c places/ssh/ssh_keeper_client.c \
	places/ssh/ssh_request.c places/ssh/ssh_request.h \
	places/ssh/place-ssh.c places/ssh/place-ssh-int.h places/ssh/place-ssh-check.c

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
