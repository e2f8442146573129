#!/bin/sh
# A PreToolUse hook for Claude Code's Bash tool: it hands the call to `conch-place relay hook`,
# which judges the command by your own permission rules (your settings files), then swaps it
# for the relay's runner, so it runs in the work place (the sealed container by default) and
# its output and exit status come back unchanged. No jq: conch-place reads the JSON itself.
# It fails closed: Claude Code blocks a call only on status 2, so every failure here, and
# conch-place's own, is status 2 with one line saying what happened; the command the model
# wrote never runs on this computer. Register it as docs/relay.md shows.
# Tested by tests/relay/hook.test and tests/relay/claude-code.test.
if ! command -v conch-place >/dev/null 2>&1; then
    echo "conch-place relay hook: conch-place is not on PATH ($PATH); install it or put its folder on the PATH Claude Code starts with. Nothing was run." >&2
    exit 2
fi
conch-place relay hook
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 2 ] ||
    echo "conch-place relay hook: conch-place ended with status $rc; see its words above. Nothing was run." >&2
[ "$rc" = 0 ] || exit 2
