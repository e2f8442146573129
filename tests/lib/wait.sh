# Waiting in the tests for what they can be told: a file, a line, a process, an engine's state.
# One bound in seconds per wait, read off the kernel's clock (not a count of polls, whose length
# depends on how busy the machine is); it only fails a check when the event never comes.
# Sourced by the shell tests: . "$top/tests/lib/wait.sh"

# Hundredths of a second since boot: /proc/uptime (always two decimals) read without a fork.
wait_now() {
    read -r _wait_up _ </proc/uptime
    echo "${_wait_up%.*}${_wait_up#*.}"
}

# wait_until SECONDS COMMAND [ARG...]: runs COMMAND until it succeeds (0), or fails (1) once
# SECONDS have passed without it. The poll is short: it sets how soon the event is seen, never
# whether it is.
wait_until() {
    _wait_end=$(($(wait_now) + $1 * 100))
    shift
    until "$@"; do
        [ "$(wait_now)" -ge "$_wait_end" ] && return 1
        sleep 0.05
    done
    return 0
}

# not COMMAND [ARG...]: succeeds when COMMAND fails, for wait_until's "until it is gone".
not() { ! "$@"; }

# wait_line SECONDS FILE PATTERN: until a line of FILE matches the extended PATTERN.
wait_line() { wait_until "$1" grep -qE -- "$3" "$2" 2>/dev/null; }

# wait_gone SECONDS PID: until process PID has ended (a child still to be reaped counts as gone
# when it is a zombie).
wait_gone() { wait_until "$1" _wait_pid_gone "$2"; }
_wait_pid_gone() {
    kill -0 "$1" 2>/dev/null || return 0
    [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)" = Z ]
}
