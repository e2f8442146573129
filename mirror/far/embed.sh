#!/bin/sh
# embed.sh NAME FILE...: prints a C definition of NAME holding the files' text, so the far
# scripts travel inside the binary and cannot drift from the code that parses their output.
name=$1
shift
printf 'const char %s[] =\n' "$name"
cat "$@" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/'
printf '    ;\n'
