# src/base/: the ground every part stands on (errors, buffers, logs, JSON, settings and secrets, the
# run report and the protected places, the one list of places and engines, paths, HTTP over unix
# sockets and HTTPS, signals, digests and the name hash, string vectors, clocks, shell quoting,
# unix-socket messages, child processes), one of each. It includes nothing from src/, places/,
# egress/ or mirror/. A module of several files has a subfolder, its header the one named after
# it: settings/, git-hooks/ (what the folder's host-run settings name), lazy-load/.
libconch_la_SOURCES += \
	src/base/error.c src/base/error.h \
	src/base/util.c src/base/util.h \
	src/base/test-hold.c src/base/test-hold.h \
	src/base/proc-start.c src/base/proc-start.h \
	src/base/buf.c src/base/buf.h \
	src/base/log.c src/base/log.h \
	src/base/json.c src/base/json.h \
	src/base/paths.c src/base/paths.h \
	src/base/hostname.c src/base/hostname.h \
	src/base/settings/settings.c src/base/settings/settings.h \
	src/base/settings/settings-int.h src/base/settings/settings-check.c \
	src/base/settings/settings-egress.c \
	src/base/secrets.c src/base/secrets.h \
	src/base/sign-ins-store.c src/base/sign-ins-store.h \
	src/base/http.c src/base/http.h \
	src/base/http-unix.c src/base/http-unix.h \
	src/base/lazy-load/lazy-load.c src/base/lazy-load/lazy-load.h \
	src/base/lazy-load/lazy-curl.c \
	src/base/lazy-load/lazy-archive.c \
	src/base/signals.c src/base/signals.h \
	src/base/digest.c src/base/digest.h \
	src/base/keyless.c src/base/keyless.h \
	src/base/git-hooks/git-hooks.c src/base/git-hooks/git-hooks.h \
	src/base/git-hooks/git-hooks-int.h src/base/git-hooks/git-config-text.c \
	src/base/git-hooks/git-repos.c src/base/git-hooks/yarn-rc.c src/base/git-hooks/named-paths.c \
	src/base/progress.c src/base/progress.h \
	src/base/strvec.c src/base/strvec.h \
	src/base/clock.c src/base/clock.h \
	src/base/shell.c src/base/shell.h \
	src/base/unix-msg.c src/base/unix-msg.h \
	src/base/spawn.c src/base/spawn.h \
	src/base/report-collector.c src/base/report.h \
	src/base/protected.c src/base/protected.h \
	src/base/places-list.c src/base/places-list.h

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_digest
tests_unit_test_digest_SOURCES = tests/unit/test_digest.c
tests_unit_test_digest_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_digest_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_digest
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_run_report tests/unit/test_progress
tests_unit_test_run_report_SOURCES = tests/unit/test_run_report.c
tests_unit_test_run_report_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_run_report_LDADD = $(TEST_LIBS)
tests_unit_test_progress_SOURCES = tests/unit/test_progress.c
tests_unit_test_progress_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_progress_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_run_report tests/unit/test_progress
endif

# One program per ground module: its contract (the header's comment) checked.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_strvec tests/unit/test_clock tests/unit/test_shell \
	tests/unit/test_unix_msg tests/unit/test_spawn
tests_unit_test_strvec_SOURCES = tests/unit/test_strvec.c
tests_unit_test_strvec_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_strvec_LDADD = $(TEST_LIBS)
tests_unit_test_clock_SOURCES = tests/unit/test_clock.c
tests_unit_test_clock_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_clock_LDADD = $(TEST_LIBS)
tests_unit_test_shell_SOURCES = tests/unit/test_shell.c
tests_unit_test_shell_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_shell_LDADD = $(TEST_LIBS)
tests_unit_test_unix_msg_SOURCES = tests/unit/test_unix_msg.c
tests_unit_test_unix_msg_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_unix_msg_LDADD = $(TEST_LIBS)
tests_unit_test_spawn_SOURCES = tests/unit/test_spawn.c
tests_unit_test_spawn_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_spawn_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_strvec tests/unit/test_clock tests/unit/test_shell \
	tests/unit/test_unix_msg tests/unit/test_spawn
endif
