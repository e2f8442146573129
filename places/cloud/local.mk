# places/cloud/: the Daytona place: client, sandbox lifecycle, toolbox, the mirror's transport.
libconch_la_SOURCES += \
	places/cloud/daytona.c places/cloud/daytona.h \
	places/cloud/sandbox-json.c places/cloud/sandbox.c places/cloud/sandbox.h \
	places/cloud/toolbox.c places/cloud/toolbox.h \
	places/cloud/sandbox-home.c places/cloud/sandbox-home.h \
	places/cloud/transport-daytona.c places/cloud/transport-daytona.h \
	places/cloud/cloud_stdin.c places/cloud/cloud_stdin.h \
	places/cloud/place-cloud.c

# The place end to end against a Daytona test server on loopback (tests/cloud/).
TESTS += tests/cloud/cloud.test tests/cloud/cloud-container.test
EXTRA_DIST += tests/cloud/cloud.test tests/cloud/cloud-container.test tests/cloud/server.sh \
	tests/cloud/daytona_server.py

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_cloud_daytona
tests_unit_test_cloud_daytona_SOURCES = tests/unit/test_cloud_daytona.c
tests_unit_test_cloud_daytona_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_cloud_daytona_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_cloud_daytona
endif

if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_daytona_json
tests_fuzz_fuzz_daytona_json_SOURCES = tests/fuzz/fuzz_daytona_json.c
tests_fuzz_fuzz_daytona_json_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_daytona_json_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_daytona_json
tests_fuzz_replay_daytona_json_SOURCES = tests/fuzz/fuzz_daytona_json.c tests/fuzz/replay.c
tests_fuzz_replay_daytona_json_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/daytona_json\"
tests_fuzz_replay_daytona_json_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_daytona_json
