# mirror/: listing, manifest, plan, pack, checked landing, and the far side's POSIX scripts.
libconch_la_SOURCES += \
	mirror/mirror.h \
	mirror/rules.c mirror/rules.h \
	mirror/event-lines.c mirror/event-lines.h \
	mirror/transport.c mirror/transport.h \
	mirror/transport-local.c \
	mirror/walk.c mirror/walk.h \
	mirror/listing.c mirror/listing.h \
	mirror/manifest.c mirror/manifest.h \
	mirror/landing.c mirror/landing.h mirror/archive-util.h \
	mirror/layer.c mirror/layer.h mirror/layer-int.h mirror/layer-move.c \
	mirror/git/git.h mirror/git/git-table.c mirror/git/git-table.h mirror/git/git-landing.c mirror/git/git-landing.h \
	mirror/git/git-landing-int.h mirror/git/git-folder.c mirror/git/git-objects.c mirror/git/git-refs.c \
	mirror/git/git-run.c mirror/git/git-run.h mirror/git/git-commits.c mirror/git/git-commits.h \
	mirror/git/git-loose.c mirror/git/git-loose.h mirror/git/git-modules.c mirror/git/git-modules.h \
	mirror/git/git-outside.c mirror/git/git-outside.h \
	mirror/links.c mirror/links.h \
	mirror/keys.c mirror/keys.h mirror/keys-ini.c mirror/keys-yaml.c mirror/keys-toml.c \
	mirror/run-keys.c mirror/run-keys.h \
	mirror/held.c mirror/held.h \
	mirror/pack.c mirror/pack.h \
	mirror/sync.h mirror/far-copy.c mirror/far-copy.h mirror/push.c mirror/pull.c \
	mirror/staging.c mirror/staging.h \
	mirror/remote-lock.c mirror/remote-lock.h \
	mirror/far-place.h mirror/remote-run.c mirror/remote-run.h \
	mirror/far.h
nodist_libconch_la_SOURCES = mirror/far-scripts.c
BUILT_SOURCES = mirror/far-scripts.c
CLEANFILES = mirror/far-scripts.c

MIRROR_FAR = $(srcdir)/mirror/far
mirror/far-scripts.c: $(MIRROR_FAR)/embed.sh $(MIRROR_FAR)/common.sh $(MIRROR_FAR)/list.sh \
		$(MIRROR_FAR)/unpack.sh $(MIRROR_FAR)/pack.sh $(MIRROR_FAR)/lock.sh
	$(AM_V_GEN)mkdir -p mirror && { \
	  printf '/* Generated from mirror/far by embed.sh; do not edit. */\n#include "mirror/far.h"\n'; \
	  sh $(MIRROR_FAR)/embed.sh cp_far_list_script $(MIRROR_FAR)/common.sh $(MIRROR_FAR)/list.sh; \
	  sh $(MIRROR_FAR)/embed.sh cp_far_unpack_script $(MIRROR_FAR)/common.sh $(MIRROR_FAR)/unpack.sh; \
	  sh $(MIRROR_FAR)/embed.sh cp_far_pack_script $(MIRROR_FAR)/common.sh $(MIRROR_FAR)/pack.sh; \
	  sh $(MIRROR_FAR)/embed.sh cp_far_lock_script $(MIRROR_FAR)/common.sh $(MIRROR_FAR)/lock.sh; \
	} >$@.tmp && mv $@.tmp $@

EXTRA_DIST += mirror/far

# Tests: the hostile-tar generator and scratch trees are shared by the unit tests and the fuzzer.
MIRROR_TEST_HELPERS = tests/mirror/tarbuild.c tests/mirror/tarbuild.h \
	tests/mirror/scratch.c tests/mirror/scratch.h \
	tests/mirror/landrun.c tests/mirror/landrun.h

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_mirror_layer
tests_unit_test_mirror_layer_SOURCES = tests/unit/test_mirror_layer.c tests/unit/put-file.h
tests_unit_test_mirror_layer_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_mirror_layer_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_mirror_layer
check_PROGRAMS += tests/unit/test_host_run
tests_unit_test_host_run_SOURCES = tests/unit/test_host_run.c tests/unit/put-file.h
tests_unit_test_host_run_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_host_run_CPPFLAGS = $(AM_CPPFLAGS) -DHOST_RUN_FILES=\"$(srcdir)/tests/integration/host-run-files\"
tests_unit_test_host_run_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_host_run
check_PROGRAMS += tests/unit/test_run_keys
tests_unit_test_run_keys_SOURCES = tests/unit/test_run_keys.c tests/unit/put-file.h $(MIRROR_TEST_HELPERS)
tests_unit_test_run_keys_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_run_keys_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_run_keys
check_PROGRAMS += tests/unit/test_git_gate
tests_unit_test_git_gate_SOURCES = tests/unit/test_git_gate.c tests/unit/put-file.h
tests_unit_test_git_gate_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_git_gate_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_git_gate
check_PROGRAMS += tests/unit/test_mirror_landing
tests_unit_test_mirror_landing_SOURCES = tests/unit/test_mirror_landing.c tests/unit/one-list.h $(MIRROR_TEST_HELPERS)
tests_unit_test_mirror_landing_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_mirror_landing_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_mirror_landing
endif

# The landing's fuzz target: built with libFuzzer under --enable-fuzzers, replayed always.
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_landing
tests_fuzz_fuzz_landing_SOURCES = tests/fuzz/fuzz_landing.c $(MIRROR_TEST_HELPERS)
tests_fuzz_fuzz_landing_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_landing_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_landing
tests_fuzz_replay_landing_SOURCES = tests/fuzz/fuzz_landing.c tests/fuzz/replay.c \
	$(MIRROR_TEST_HELPERS)
tests_fuzz_replay_landing_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/landing\"
tests_fuzz_replay_landing_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_landing

# The readers of .npmrc, .yarnrc.yml and .cargo/config.toml and the rule over them.
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_run_keys
tests_fuzz_fuzz_run_keys_SOURCES = tests/fuzz/fuzz_run_keys.c
tests_fuzz_fuzz_run_keys_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_run_keys_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_run_keys
tests_fuzz_replay_run_keys_SOURCES = tests/fuzz/fuzz_run_keys.c tests/fuzz/replay.c
tests_fuzz_replay_run_keys_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/run_keys\"
tests_fuzz_replay_run_keys_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_run_keys

# Writes the fuzzer's seed corpus (run by hand: tests/mirror/gen-corpus tests/fuzz/corpus/landing).
check_PROGRAMS += tests/mirror/gen-corpus
tests_mirror_gen_corpus_SOURCES = tests/mirror/gen-corpus.c tests/mirror/tarbuild.c \
	tests/mirror/tarbuild.h
tests_mirror_gen_corpus_LDADD = libconch.la $(LIB_LIBS)

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_mirror_sync
tests_unit_test_mirror_sync_SOURCES = tests/unit/test_mirror_sync.c $(MIRROR_TEST_HELPERS)
tests_unit_test_mirror_sync_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_mirror_sync_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_mirror_sync
endif

# The far side's answer to the lock or the probe (the copy's id, then its listing).
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_far_answer
tests_fuzz_fuzz_far_answer_SOURCES = tests/fuzz/fuzz_far_answer.c
tests_fuzz_fuzz_far_answer_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_far_answer_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_far_answer
tests_fuzz_replay_far_answer_SOURCES = tests/fuzz/fuzz_far_answer.c tests/fuzz/replay.c
tests_fuzz_replay_far_answer_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/far_answer\"
tests_fuzz_replay_far_answer_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_far_answer

# The shared remote run with a fake place over the local transport.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_remote_run
tests_unit_test_remote_run_SOURCES = tests/unit/test_remote_run.c tests/mirror/scratch.c \
	tests/mirror/scratch.h
tests_unit_test_remote_run_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_remote_run_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_remote_run
endif

# The git gate's readers of a box's .git: loose objects, the table, ref names (fuzzed, corpus
# replayed).
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_git_object
tests_fuzz_fuzz_git_object_SOURCES = tests/fuzz/fuzz_git_object.c
tests_fuzz_fuzz_git_object_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_git_object_LDADD = libconch.la $(LIB_LIBS)
endif
check_PROGRAMS += tests/fuzz/replay_git_object
tests_fuzz_replay_git_object_SOURCES = tests/fuzz/fuzz_git_object.c tests/fuzz/replay.c
tests_fuzz_replay_git_object_CPPFLAGS = $(AM_CPPFLAGS) -DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/git_object\"
tests_fuzz_replay_git_object_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_git_object
