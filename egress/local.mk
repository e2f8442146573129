# egress/: the egress proxy (`conch-place egress-proxy`), its tests, fuzzers and bench.
libconch_la_SOURCES += \
	egress/egress.h egress/sign-ins-codec.c egress/sidecar-main.c
# policy/: what may pass and how a refusal is said: the allow-list, addresses, the box's
# credential, the strict parsers of what a box sends, the method table, reasons and the log.
libconch_la_SOURCES += \
	egress/policy/policy.c egress/policy/policy.h \
	egress/policy/addr.c egress/policy/addr.h \
	egress/policy/box-credential.c egress/policy/box-credential.h \
	egress/policy/connect-request.c egress/policy/connect-request.h \
	egress/policy/elog.c egress/policy/elog.h \
	egress/policy/http1.c egress/policy/http1.h \
	egress/policy/methods.c egress/policy/methods.h \
	egress/policy/verdict.c egress/policy/verdict.h
# proxy/: the event loop, from the CONNECT to a blind tunnel's bytes, its lookups and upstream.
libconch_la_SOURCES += \
	egress/proxy/proxy.c egress/proxy/proxy.h egress/proxy/proxy-int.h \
	egress/proxy/proxy-accept.c egress/proxy/proxy-conn.c egress/proxy/proxy-dial.c \
	egress/proxy/proxy-flow.c egress/proxy/proxy-head.c egress/proxy/proxy-hello.c \
	egress/proxy/proxy-refuse.c egress/proxy/proxy-relay.c \
	egress/proxy/listen.c \
	egress/proxy/hello.c egress/proxy/hello.h \
	egress/proxy/watch.c egress/proxy/watch.h \
	egress/proxy/resolver.c egress/proxy/resolver.h \
	egress/proxy/upstream.c egress/proxy/upstream.h
# terminate/: tunnels whose TLS the sidecar ends, the certificates it mints and its CA.
libconch_la_SOURCES += \
	egress/terminate/terminate.c egress/terminate/terminate.h egress/terminate/terminate-int.h \
	egress/terminate/terminate-io.c egress/terminate/terminate-log.c \
	egress/terminate/terminate-queue.c egress/terminate/terminate-request.c \
	egress/terminate/terminate-response.c egress/terminate/terminate-scrub.c \
	egress/terminate/answer.c egress/terminate/answer.h \
	egress/terminate/ca.c egress/terminate/ca.h \
	egress/terminate/mint.c egress/terminate/mint.h \
	egress/terminate/tls.c egress/terminate/tls.h
# sign-ins/: the sign-in channel, its table and keys messages, and the answers' scrubber.
libconch_la_SOURCES += \
	egress/sign-ins/sign-ins.h \
	egress/sign-ins/sign-ins-table.c egress/sign-ins/sign-ins-table.h \
	egress/sign-ins/sign-ins-feed.c egress/sign-ins/sign-ins-feed.h \
	egress/sign-ins/sign-ins-door.c egress/sign-ins/sign-ins-door.h \
	egress/sign-ins/keys-message.c egress/sign-ins/keys-message.h \
	egress/sign-ins/scrub.c egress/sign-ins/scrub.h

# The loopback integration test: the real binary, a TLS and an echo upstream on 127.x.y.z:443.
TESTS += tests/egress/proxy.test
EXTRA_DIST += tests/egress/proxy.test
# The upstream proxy's credential in the sidecar's environment and nowhere in the box (engines).
TESTS += tests/egress/sidecar-upstream.test
EXTRA_DIST += tests/egress/sidecar-upstream.test

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_egress_request tests/unit/test_egress_addr \
	tests/unit/test_egress_auth_log tests/unit/test_egress_hello tests/unit/test_egress_upstream \
	tests/unit/test_egress_watch tests/unit/test_egress_resolver tests/unit/test_egress_http \
	tests/unit/test_egress_sign_ins tests/unit/test_egress_scrub tests/unit/test_egress_keys
tests_unit_test_egress_scrub_SOURCES = tests/unit/test_egress_scrub.c
tests_unit_test_egress_scrub_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_scrub_LDADD = $(TEST_LIBS)
tests_unit_test_egress_keys_SOURCES = tests/unit/test_egress_keys.c
tests_unit_test_egress_keys_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_keys_LDADD = $(TEST_LIBS)
tests_unit_test_egress_sign_ins_SOURCES = tests/unit/test_egress_sign_ins.c
tests_unit_test_egress_sign_ins_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_sign_ins_LDADD = $(TEST_LIBS)
tests_unit_test_egress_http_SOURCES = tests/unit/test_egress_http.c
tests_unit_test_egress_http_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_http_LDADD = $(TEST_LIBS)
tests_unit_test_egress_request_SOURCES = tests/unit/test_egress_request.c
tests_unit_test_egress_request_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_request_LDADD = $(TEST_LIBS)
tests_unit_test_egress_addr_SOURCES = tests/unit/test_egress_addr.c
tests_unit_test_egress_addr_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_addr_LDADD = $(TEST_LIBS)
tests_unit_test_egress_auth_log_SOURCES = tests/unit/test_egress_auth_log.c
tests_unit_test_egress_auth_log_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_auth_log_LDADD = $(TEST_LIBS)
tests_unit_test_egress_hello_SOURCES = tests/unit/test_egress_hello.c
tests_unit_test_egress_hello_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_hello_LDADD = $(TEST_LIBS)
tests_unit_test_egress_upstream_SOURCES = tests/unit/test_egress_upstream.c
tests_unit_test_egress_upstream_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_upstream_LDADD = $(TEST_LIBS)
tests_unit_test_egress_watch_SOURCES = tests/unit/test_egress_watch.c
tests_unit_test_egress_watch_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_watch_LDADD = $(TEST_LIBS)
tests_unit_test_egress_resolver_SOURCES = tests/unit/test_egress_resolver.c
tests_unit_test_egress_resolver_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_egress_resolver_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_egress_request tests/unit/test_egress_addr \
	tests/unit/test_egress_auth_log tests/unit/test_egress_hello tests/unit/test_egress_upstream \
	tests/unit/test_egress_watch tests/unit/test_egress_resolver tests/unit/test_egress_http \
	tests/unit/test_egress_sign_ins tests/unit/test_egress_scrub tests/unit/test_egress_keys
endif

# Fuzz targets for what the proxy reads from a box: its request head, its ClientHello, the rest
# of a tunnel's handshake both ways, the addresses a resolver hands back, the answers the scrubber
# searches for sign-ins, and (from conch-place,
# but holding secrets, so as strict) the sign-in channel's messages. Built as libFuzzer programs with --enable-fuzzers; always
# replayed.
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_proxy_request tests/fuzz/fuzz_proxy_addr tests/fuzz/fuzz_proxy_hello \
	tests/fuzz/fuzz_proxy_watch tests/fuzz/fuzz_proxy_http1 tests/fuzz/fuzz_proxy_sign_ins \
	tests/fuzz/fuzz_proxy_scrub
tests_fuzz_fuzz_proxy_scrub_SOURCES = tests/fuzz/fuzz_proxy_scrub.c
tests_fuzz_fuzz_proxy_scrub_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_scrub_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_proxy_sign_ins_SOURCES = tests/fuzz/fuzz_proxy_sign_ins.c
tests_fuzz_fuzz_proxy_sign_ins_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_sign_ins_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_proxy_http1_SOURCES = tests/fuzz/fuzz_proxy_http1.c
tests_fuzz_fuzz_proxy_http1_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_http1_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_proxy_watch_SOURCES = tests/fuzz/fuzz_proxy_watch.c
tests_fuzz_fuzz_proxy_watch_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_watch_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_proxy_hello_SOURCES = tests/fuzz/fuzz_proxy_hello.c
tests_fuzz_fuzz_proxy_hello_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_hello_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_proxy_request_SOURCES = tests/fuzz/fuzz_proxy_request.c
tests_fuzz_fuzz_proxy_request_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_request_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_fuzz_proxy_addr_SOURCES = tests/fuzz/fuzz_proxy_addr.c
tests_fuzz_fuzz_proxy_addr_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_proxy_addr_LDADD = libconch.la $(LIB_LIBS)
endif

check_PROGRAMS += tests/fuzz/replay_proxy_request tests/fuzz/replay_proxy_addr \
	tests/fuzz/replay_proxy_hello tests/fuzz/replay_proxy_watch tests/fuzz/replay_proxy_http1 \
	tests/fuzz/replay_proxy_sign_ins tests/fuzz/replay_proxy_scrub
tests_fuzz_replay_proxy_scrub_SOURCES = tests/fuzz/fuzz_proxy_scrub.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_scrub_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_scrub\"
tests_fuzz_replay_proxy_scrub_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_proxy_sign_ins_SOURCES = tests/fuzz/fuzz_proxy_sign_ins.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_sign_ins_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_sign_ins\"
tests_fuzz_replay_proxy_sign_ins_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_proxy_http1_SOURCES = tests/fuzz/fuzz_proxy_http1.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_http1_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_http1\"
tests_fuzz_replay_proxy_http1_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_proxy_watch_SOURCES = tests/fuzz/fuzz_proxy_watch.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_watch_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_watch\"
tests_fuzz_replay_proxy_watch_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_proxy_hello_SOURCES = tests/fuzz/fuzz_proxy_hello.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_hello_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_hello\"
tests_fuzz_replay_proxy_hello_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_proxy_request_SOURCES = tests/fuzz/fuzz_proxy_request.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_request_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_request\"
tests_fuzz_replay_proxy_request_LDADD = libconch.la $(LIB_LIBS)
tests_fuzz_replay_proxy_addr_SOURCES = tests/fuzz/fuzz_proxy_addr.c tests/fuzz/replay.c
tests_fuzz_replay_proxy_addr_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/proxy_addr\"
tests_fuzz_replay_proxy_addr_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_proxy_request tests/fuzz/replay_proxy_addr tests/fuzz/replay_proxy_hello \
	tests/fuzz/replay_proxy_watch tests/fuzz/replay_proxy_http1 tests/fuzz/replay_proxy_sign_ins \
	tests/fuzz/replay_proxy_scrub
EXTRA_DIST += bench/egress-proxy
