# places/container/: the engine client, the box and its seal, images, leftovers.
libconch_la_SOURCES += \
	places/container/container.h \
	places/container/engine/engine.h \
	places/container/engine/engine-client.c places/container/engine/engine-client.h \
	places/container/engine/engine-discover.c places/container/engine/engine-kind.c \
	places/container/engine/engine-start.c places/container/engine/engine-start.h \
	places/container/engine/rootless.c places/container/engine/rootless.h \
	places/container/engine/stream.c places/container/engine/stream.h \
	places/container/box/create-body.c places/container/box/create-body.h \
	places/container/box/box-spec.c places/container/box/box-spec.h \
	places/container/box/box.c places/container/box/box.h \
	places/container/box/layer-volume.c places/container/box/layer-volume.h \
	places/container/box/caches.c places/container/box/caches.h \
	places/container/box/protect.c places/container/box/protect.h \
	places/container/seal/egress-hint.c places/container/seal/egress-hint.h \
	places/container/engine/images.c places/container/engine/images.h \
	places/container/warm/leftovers.c places/container/warm/leftovers.h \
	places/container/allow/hostconf.c places/container/allow/hostconf.h \
	places/container/allow/registries.c places/container/allow/registries.h \
	places/container/allow/allow.h \
	places/container/allow/allowlist.c places/container/allow/allowlist.h \
	places/container/allow/sign-in-read.c places/container/allow/sign-in-read.h \
	places/container/allow/git-credential.c places/container/allow/git-credential.h \
	places/container/allow/settings-sources.c places/container/allow/settings-sources.h \
	places/container/allow/sign-ins.c places/container/allow/sign-ins.h \
	places/container/allow/sign-ins-list.c places/container/allow/sign-ins-list.h \
	places/container/allow/sign-ins-sources.h places/container/allow/sign-in-expand.c \
	places/container/allow/sign-in-file.c places/container/allow/sign-ins-npm.c \
	places/container/allow/sign-ins-pip.c places/container/allow/sign-ins-git.c \
	places/container/allow/sign-ins-message.c \
	places/container/allow/sign-ins-named.c \
	places/container/allow/sign-ins-share.c \
	places/container/seal/egress-image.c places/container/seal/egress-image.h \
	places/container/seal/sidecar.h places/container/seal/sidecar-start.c \
	places/container/seal/sidecar-keys.c \
	places/container/seal/sidecar-names.c places/container/seal/sidecar-names.h \
	places/container/seal/sidecar-network.c places/container/seal/sidecar-network.h \
	places/container/seal/sidecar-proxy-env.c places/container/seal/sidecar-clean.c \
	places/container/seal/sidecar-hold.c places/container/seal/sidecar-locks.c \
	places/container/seal/seal.c places/container/seal/seal.h \
	places/container/seal/egress-trust.c places/container/seal/egress-trust.h \
	places/container/seal/sign-in-send.c places/container/seal/sign-in-send.h \
	places/container/place-container.c places/container/place-container-int.h \
	places/container/place-container-prepare.c places/container/place-container-run.c \
	places/container/place-container-clean.c places/container/place-container-check.c
libconch_la_SOURCES += places/container/warm/warm.c places/container/warm/warm.h places/container/warm/warm-exec.c \
	places/container/warm/warm-pool.c places/container/warm/warm-pool.h \
	places/container/engine/end-mark.c places/container/engine/end-mark.h \
	places/container/engine/box-pidfd.c places/container/engine/box-pidfd.h \
	places/container/warm/behind.c places/container/warm/behind.h
libconch_la_SOURCES += places/container/engine/rootfs.c places/container/engine/rootfs.h
libconch_la_SOURCES += places/container/seal/npm-default.c
libconch_la_SOURCES += places/container/run-report.c places/container/run-report.h
libconch_la_SOURCES += places/container/seal/seal-probe.c places/container/seal/seal-probe.h
libconch_la_SOURCES += places/container/engine/exit-event.c places/container/engine/exit-event.h

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
