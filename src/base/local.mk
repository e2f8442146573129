# src/base/: the ground every part stands on (errors, buffers, logs, JSON, settings and
# secrets, paths, HTTP over unix sockets and HTTPS, signals, digests). It includes nothing
# from src/, places/ or mirror/.
libconch_la_SOURCES += \
	src/base/error.c src/base/error.h \
	src/base/util.c src/base/util.h \
	src/base/buf.c src/base/buf.h \
	src/base/log.c src/base/log.h \
	src/base/json.c src/base/json.h \
	src/base/paths.c src/base/paths.h \
	src/base/hostname.c src/base/hostname.h \
	src/base/settings.c src/base/settings.h \
	src/base/secrets.c src/base/secrets.h \
	src/base/http.c src/base/http.h \
	src/base/signals.c src/base/signals.h \
	src/base/digest.c src/base/digest.h \
	src/base/protected.c src/base/protected.h \
	src/base/keyless.c src/base/keyless.h \
	src/base/git-hooks.c src/base/git-hooks.h \
	src/base/run-report.c src/base/run-report.h \
	src/base/progress.c src/base/progress.h

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
