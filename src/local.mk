# src/: the entry point and one file per command, over the run step (src/run/) that `run`, the
# relay's door and the ssh keeper share. The ground they and every part stand on, the run report
# and the protected places among it, is src/base/ (its own local.mk).
libconch_la_SOURCES += \
	src/run/run.c src/run/run.h \
	src/command.c src/command.h \
	src/commands.c \
	src/cmd-help.c \
	src/cmd-completion.c \
	src/cmd-config.c \
	src/cmd-key.c \
	src/cmd-run.c \
	src/cmd-clean.c \
	src/cmd-changes.c \
	src/cmd-land.c \
	src/cmd-discard.c \
	src/cmd-places.c \
	src/cmd-image.c \
	src/cmd-doctor.c \
	src/cmd-egress-proxy.c \
	src/cmd-hosts.c \
	src/cmd-sign-ins.c \
	src/cmd-ssh-keeper.c \
	src/cmd-seal-probe.c \
	src/cmd-net-hold.c \
	src/cmd-behind.c

# The bash completion script, made by the binary from its own command tables, so that it never
# drifts from them (bashcompletiondir: bash-completion's pkg-config, else the usual folder).
bashcompletion_DATA = completion/conch-place.bash
completion/conch-place.bash: conch-place$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) completion && ./conch-place$(EXEEXT) completion bash >$@.tmp && mv $@.tmp $@
clean-local: clean-completion
clean-completion:
	rm -rf completion
dist_pkgdata_DATA += docs/run-report.schema.json
