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
