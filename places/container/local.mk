# places/container/: the engine client, the box and its seal, images, leftovers.
libconch_la_SOURCES += \
	places/container/container.h \
	places/container/engine.c places/container/engine.h \
	places/container/engine-discover.c \
	places/container/engine-start.c places/container/engine-start.h \
	places/container/rootless.c places/container/rootless.h \
	places/container/stream.c places/container/stream.h \
	places/container/create-body.c places/container/create-body.h \
	places/container/box-spec.c places/container/box-spec.h \
	places/container/box.c places/container/box.h \
	places/container/layer-volume.c places/container/layer-volume.h \
	places/container/caches.c places/container/caches.h \
	places/container/protect.c places/container/protect.h \
	places/container/egress-hint.c places/container/egress-hint.h \
	places/container/images.c places/container/images.h \
	places/container/leftovers.c places/container/leftovers.h \
	places/container/hostconf.c places/container/hostconf.h \
	places/container/registries.c places/container/registries.h \
	places/container/allowlist.c places/container/allowlist.h \
	places/container/sign-in-read.c places/container/sign-in-read.h \
	places/container/git-credential.c places/container/git-credential.h \
	places/container/settings-sources.c places/container/settings-sources.h \
	places/container/sign-ins.c places/container/sign-ins.h \
	places/container/sign-ins-list.c places/container/sign-ins-list.h \
	places/container/sign-ins-sources.h places/container/sign-in-expand.c \
	places/container/sign-in-file.c places/container/sign-ins-npm.c \
	places/container/sign-ins-pip.c places/container/sign-ins-git.c \
	places/container/sign-ins-message.c \
	places/container/sign-ins-named.c \
	places/container/sign-ins-share.c \
	places/container/egress-image.c places/container/egress-image.h \
	places/container/sidecar.h places/container/sidecar-start.c \
	places/container/sidecar-keys.c \
	places/container/sidecar-names.c places/container/sidecar-names.h \
	places/container/sidecar-network.c places/container/sidecar-network.h \
	places/container/sidecar-proxy-env.c places/container/sidecar-clean.c \
	places/container/sidecar-hold.c \
	places/container/seal.c places/container/seal.h \
	places/container/egress-trust.c places/container/egress-trust.h \
	places/container/sign-in-send.c places/container/sign-in-send.h \
	places/container/place-container.c places/container/place-container-int.h \
	places/container/place-container-prepare.c places/container/place-container-run.c \
	places/container/place-container-clean.c places/container/place-container-check.c
libconch_la_SOURCES += places/container/warm.c places/container/warm.h places/container/warm-exec.c \
	places/container/warm-pool.c places/container/warm-pool.h \
	places/container/end-mark.c places/container/end-mark.h \
	places/container/box-pidfd.c places/container/box-pidfd.h \
	places/container/behind.c places/container/behind.h
libconch_la_SOURCES += places/container/rootfs.c places/container/rootfs.h
libconch_la_SOURCES += places/container/npm-default.c
libconch_la_SOURCES += places/container/run-report.c places/container/run-report.h
libconch_la_SOURCES += places/container/seal-probe.c places/container/seal-probe.h
libconch_la_SOURCES += places/container/exit-event.c places/container/exit-event.h

# The die event's reader (fuzzed, corpus replayed in make check).
if ENABLE_FUZZERS
noinst_PROGRAMS += tests/fuzz/fuzz_exit_event
tests_fuzz_fuzz_exit_event_SOURCES = tests/fuzz/fuzz_exit_event.c
tests_fuzz_fuzz_exit_event_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_exit_event_LDADD = libconch.la $(LIB_LIBS)
endif
check_PROGRAMS += tests/fuzz/replay_exit_event
tests_fuzz_replay_exit_event_SOURCES = tests/fuzz/fuzz_exit_event.c tests/fuzz/replay.c
tests_fuzz_replay_exit_event_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCORPUS_DIR=\"$(srcdir)/tests/fuzz/corpus/exit_event\"
tests_fuzz_replay_exit_event_LDADD = libconch.la $(LIB_LIBS)
TESTS += tests/fuzz/replay_exit_event
