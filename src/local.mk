# src/: the entry point and one file per command. The ground they and every part stand on is
# src/base/ (its own local.mk).
libconch_la_SOURCES += \
	src/command.c src/command.h \
	src/commands.c \
	src/cmd-help.c \
	src/cmd-config.c \
	src/cmd-key.c \
	src/cmd-run.c \
	src/cmd-clean.c \
	src/cmd-places.c \
	src/cmd-image.c \
	src/cmd-doctor.c \
	src/cmd-egress-proxy.c \
	src/cmd-hosts.c \
	src/cmd-ssh-keeper.c \
	src/cmd-seal-probe.c
