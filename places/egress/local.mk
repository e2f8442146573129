# places/egress/: the egress proxy (`conch-place egress-proxy`), its tests, fuzzers and bench.
libconch_la_SOURCES += \
	places/egress/addr.c places/egress/addr.h \
	places/egress/auth.c places/egress/auth.h \
	places/egress/elog.c places/egress/elog.h \
	places/egress/listen.c \
	places/egress/policy.c places/egress/policy.h \
	places/egress/proxy.c places/egress/proxy.h \
	places/egress/request.c places/egress/request.h \
	places/egress/resolver.c places/egress/resolver.h \
	places/egress/verdict.c places/egress/verdict.h

# The loopback integration test: the real binary, a TLS and an echo upstream on 127.x.y.z:443.
TESTS += tests/egress/proxy.test
EXTRA_DIST += tests/egress/proxy.test

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_egress_request tests/unit/test_egress_addr \
	tests/unit/test_egress_auth_log
tests_unit_test_egress_request_SOURCES = tests/unit/test_egress_request.c
tests_unit_test_egress_request_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_request_LDADD = $(TEST_LIBS)
tests_unit_test_egress_addr_SOURCES = tests/unit/test_egress_addr.c
tests_unit_test_egress_addr_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_addr_LDADD = $(TEST_LIBS)
tests_unit_test_egress_auth_log_SOURCES = tests/unit/test_egress_auth_log.c
tests_unit_test_egress_auth_log_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_auth_log_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_egress_request tests/unit/test_egress_addr \
	tests/unit/test_egress_auth_log
endif
