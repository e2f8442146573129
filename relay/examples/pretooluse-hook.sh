#!/bin/sh
# A PreToolUse hook for an assistant's Bash tool (Claude Code's hook protocol): after your guard
# has judged the command, this swaps it for the relay's runner, so the command runs in the work
# place (the sealed container by default) and its output and exit status come back unchanged.
# The door is opened once, in the background, and closes with the assistant's process.
# The ticket never shows on a command line (argv is public in /proc): `relay ticket --file`
# puts the URL in a file only you can read, and the swapped command names that file.
# Needs jq. Tested by tests/relay/relay.test.
set -eu
input=$(cat)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.command')
dir=$(printf '%s' "$input" | jq -r '.cwd // empty')
dir=${dir:-$PWD}
# The assistant's process (a hook started through a shell may need its parent's parent).
turn=${CONCH_RELAY_EXIT_WITH:-$PPID}
mint() { conch-place relay ticket --file --workdir "$dir" --timeout 120 -- sh -c "$cmd"; }
file=$(mint 2>/dev/null) || {
    conch-place relay serve --detach --workdir "$dir" --exit-with "$turn" >/dev/null
    file=$(mint)
}
printf '%s' "$input" | jq --arg f "$file" '{hookSpecificOutput: {
    hookEventName: "PreToolUse", permissionDecision: "allow",
    updatedInput: (.tool_input + {command: ("conch-place relay run --file " + ($f | @sh))})}}'
