# relay/: the loopback door for assistants that run their own shell (ADR 0106, DESIGN.md "The
# relay"): the request judge, the tickets, the control socket, the door and the runner. It
# stands on src/base/ only: a run through the door is `conch-place run` itself, started as a
# process, so relay/ includes nothing from places/ or mirror/.
libconch_la_SOURCES += \
	relay/request.c relay/request.h \
	relay/tickets.c relay/tickets.h \
	relay/frames.c relay/frames.h \
	relay/control.c relay/control.h \
	relay/relay.h \
	relay/door.c relay/door-int.h relay/conn.c \
	relay/peer.c relay/peer.h relay/turnaway.c relay/turnaway.h \
	relay/urlfile.c \
	relay/hook.c relay/hook-judge.c relay/hook.h \
	relay/runner.c relay/runner.h \
	src/cmd-relay.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_relay_tickets
tests_unit_test_relay_tickets_SOURCES = tests/unit/test_relay_tickets.c
tests_unit_test_relay_tickets_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_relay_tickets_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_relay_tickets

# Who the door lets in (the peer's uid) and arguments carried whole from mint to run.
check_PROGRAMS += tests/unit/test_relay_door
tests_unit_test_relay_door_SOURCES = tests/unit/test_relay_door.c
tests_unit_test_relay_door_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_relay_door_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_relay_door

check_PROGRAMS += tests/unit/test_relay_request
tests_unit_test_relay_request_SOURCES = tests/unit/test_relay_request.c
tests_unit_test_relay_request_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_relay_request_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_relay_request
endif

# The request judge (hostile bytes from any local program) and the runner's frame reader
# (bytes from whatever listens on the port): fuzzed, their corpora replayed.
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_relay_request tests/fuzz/fuzz_relay_frames \
	tests/fuzz/fuzz_relay_hook
tests_fuzz_fuzz_relay_hook_SOURCES = tests/fuzz/fuzz_relay_hook.c
tests_fuzz_fuzz_relay_hook_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_relay_hook_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_relay_request_SOURCES = tests/fuzz/fuzz_relay_request.c
tests_fuzz_fuzz_relay_request_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_relay_request_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_relay_frames_SOURCES = tests/fuzz/fuzz_relay_frames.c
tests_fuzz_fuzz_relay_frames_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_relay_frames_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_relay_request tests/fuzz/replay_relay_frames
tests_fuzz_replay_relay_request_SOURCES = tests/fuzz/fuzz_relay_request.c tests/fuzz/replay.c
tests_fuzz_replay_relay_request_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/relay_request\"
tests_fuzz_replay_relay_request_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_relay_frames_SOURCES = tests/fuzz/fuzz_relay_frames.c tests/fuzz/replay.c
tests_fuzz_replay_relay_frames_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/relay_frames\"
tests_fuzz_replay_relay_frames_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_relay_request tests/fuzz/replay_relay_frames

# The hook's JSON call and the person's settings file: fuzzed, its corpus replayed.
check_PROGRAMS += tests/fuzz/replay_relay_hook
tests_fuzz_replay_relay_hook_SOURCES = tests/fuzz/fuzz_relay_hook.c tests/fuzz/replay.c
tests_fuzz_replay_relay_hook_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/relay_hook\"
tests_fuzz_replay_relay_hook_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_relay_hook

# The door end to end: the real binary, the container place on Docker, and ssh: against a
# test sshd (root). It waits for the other tests that count boxes on the shared engines.
# The Claude Code hook: failing closed, the person's rules and the assistant's process
# (hook.test), and the real Claude Code CLI from npm against a local fake of the Messages API
# (claude-code.test, which installs it once into ~/.cache/conch-place/claude-code).
TESTS += tests/relay/relay.test tests/relay/hook.test tests/relay/claude-code.test
EXTRA_DIST += tests/relay/relay.test tests/relay/hook.test tests/relay/claude-code.test \
	tests/relay/fake-messages.py relay/examples/pretooluse-hook.sh tests/ssh/sshd-lib.sh bench/relay
