# src/: entry, commands and shared plumbing.
libconch_la_SOURCES += \
	src/error.c src/error.h \
	src/util.c src/util.h \
	src/buf.c src/buf.h \
	src/log.c src/log.h \
	src/json.c src/json.h \
	src/paths.c src/paths.h \
	src/hostname.c src/hostname.h \
	src/settings.c src/settings.h \
	src/command.c src/command.h \
	src/commands.c \
	src/cmd-help.c \
	src/cmd-config.c \
	src/cmd-key.c \
	src/secrets.c src/secrets.h
libconch_la_SOURCES += \
	src/http.c src/http.h \
	src/signals.c src/signals.h \
	src/cmd-run.c \
	src/cmd-clean.c \
	src/cmd-places.c \
	src/cmd-image.c \
	src/cmd-doctor.c \
	src/cmd-egress-proxy.c \
	src/cmd-hosts.c \
	src/cmd-ssh-keeper.c
