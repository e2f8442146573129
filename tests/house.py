#!/usr/bin/env python3
"""The house's rules, read from the tracked code (DESIGN's layout; issue 34's "what must show").

Each rule prints every place that breaks it; the exit status is the number of rules broken.
  - no product folder holds more than 25 .c files (src/ itself, one file per command, aside);
  - no product file is over 600 lines;
  - no file includes another folder's non-public header: a folder's public header is the one
    named after it (egress/egress.h, places/container/box/box.h), and every header of the
    ground (src/base/) is public; a subfolder may include its own part's headers above it;
  - nothing in places/, egress/, mirror/ or relay/ includes src/ above src/base/, but for the
    run step's request (src/run/run.h), which the ssh keeper is handed;
  - the ground includes only the ground;
  - an engine's kind is compared with a name only where the engine is found;
  - one file writes a create body's CapDrop;
  - no two product .c files share a basename;
  - README.md is under 9,000 bytes.
Run from the top of the tree: python3 tests/house.py [-v].
"""
import os
import re
import subprocess
import sys

PARTS = ("src/", "places/", "egress/", "mirror/", "relay/")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ENGINE_KIND = re.compile(r'str(?:n?case)?cmp\s*\([^;]*"(?:podman|docker)"')
# Where the engine is found: the person's choice read (discover) and the engine's answer told
# apart into its quirks (kind).
ENGINE_FOUND = {"places/container/engine/engine-discover.c", "places/container/engine/engine-kind.c"}
ALLOWED_UP = {"src/run/run.h"}
# places/'s public header is the interface every place implements.
PUBLIC = {"places/place.h"}
CAPDROP = re.compile(r'json_object_object_add\([^;]*"CapDrop"')


def tracked():
    """The product's C files: git's list in a checkout, else every one under the parts."""
    try:
        out = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True, text=True,
                             check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [os.path.join(d, f)[2:] for d, _, names in os.walk(".") for f in names
               if f.endswith((".c", ".h"))]
    return sorted(f for f in out if f.startswith(PARTS) and os.path.exists(f))


def public(header):
    folder = os.path.dirname(header)
    if folder == "src/base" or header in PUBLIC:
        return True
    return os.path.splitext(os.path.basename(header))[0] == os.path.basename(folder)


def inside(here, there):
    """Whether the folder here is there or below it: a part's subfolders are rooms of that part,
    so they may read its own headers (mirror/git/ reads mirror/walk.h), never the other way."""
    return here == there or here.startswith(there + "/")


def rules(files):
    broken = {}

    def add(rule, what):
        broken.setdefault(rule, []).append(what)

    counts = {}
    for f in files:
        if f.endswith(".c"):
            counts[os.path.dirname(f)] = counts.get(os.path.dirname(f), 0) + 1
    for folder, n in sorted(counts.items()):
        if n > 25 and folder != "src":
            add("folders over 25 .c files", "%s: %d" % (folder, n))

    names, capdrop = {}, []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        lines = text.count("\n")
        if lines > 600:
            add("files over 600 lines", "%s: %d" % (f, lines))
        here = os.path.dirname(f)
        for inc in INCLUDE.findall(text):
            if not inc.startswith(PARTS):
                continue
            there = os.path.dirname(inc)
            if not inside(here, there) and not public(inc):
                add("includes of another folder's non-public header", "%s -> %s" % (f, inc))
            if (f.startswith(("places/", "egress/", "mirror/", "relay/")) and inc.startswith("src/")
                    and not inc.startswith("src/base/") and inc not in ALLOWED_UP):
                add("includes from below into src/ above the ground", "%s -> %s" % (f, inc))
            if here == "src/base" and not inc.startswith("src/base/"):
                add("the ground includes above itself", "%s -> %s" % (f, inc))
        if f.endswith(".c") and f not in ENGINE_FOUND and ENGINE_KIND.search(text):
            add("engine kinds compared away from where the engine is found", f)
        if f.endswith(".c") and CAPDROP.search(text):
            capdrop.append(f)
        if f.endswith(".c"):
            names.setdefault(os.path.basename(f), []).append(f)
    if len(capdrop) > 1:
        add("more than one file writes CapDrop", ", ".join(capdrop))
    for name, where in sorted(names.items()):
        if len(where) > 1:
            add("basenames reused", "%s: %s" % (name, ", ".join(where)))

    size = os.path.getsize("README.md")
    if size >= 9000:
        add("README.md at 9,000 bytes or more", str(size))
    return broken


def main():
    broken = rules(tracked())
    for rule, what in broken.items():
        print("house: %s (%d):" % (rule, len(what)))
        for w in what if "-v" in sys.argv or len(what) <= 12 else what[:12] + ["..."]:
            print("  " + w)
    if not broken:
        print("house: every rule holds")
    return len(broken)


if __name__ == "__main__":
    sys.exit(main())
