"""Waiting in the Python tests for what they can be told (tests/lib/wait.sh's twin).

One bound in seconds per wait, on the monotonic clock, never a count of polls: the poll sets
how soon the event is seen, never whether it is."""
import time


def wait_until(seconds, ready, poll=0.02):
    """Calls ready() until it returns something true (returned), or None once seconds passed."""
    end = time.monotonic() + seconds
    while True:
        got = ready()
        if got:
            return got
        if time.monotonic() >= end:
            return None
        time.sleep(poll)
