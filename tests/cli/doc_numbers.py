#!/usr/bin/env python3
"""doc_numbers.py - the buffer and grain figures the documentation states
are produced by a command, run here (issue 33: "every number in doc/ that
states a buffer or a grain is produced by a command in a test").

A checked statement carries, right after its paragraph, an HTML comment
(invisible in the rendered page):

    <!-- check: ARGS | PATH = V1, V2, ... -->

ARGS is a `san` command line whose -f json output is read; PATH selects
values in it: dot-separated keys, `[*]` for every item of a list, e.g.
configurations[*].buffer.  The values found must equal V1, V2, ... in
order (numbers: equal when rounded to the digits written), and each Vi
must appear, as written, in the paragraph just above the comment, so the
prose and the check cannot drift apart.

Files: README.md, doc/*.md.  Environment: SAN (default ./san),
top_srcdir (default .).  At least one check per file listed in MUST (a
file whose markers were all deleted fails).
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, fail, tally  # noqa: E402

MUST = ["doc/python.md", "doc/indices.md"]
MARK = re.compile(r"<!--\s*check:\s*(.*?)\s*\|\s*(\S+)\s*=\s*(.*?)\s*-->", re.S)


def select(doc, path):
    vals = [doc]
    for part in path.split("."):
        m = re.fullmatch(r"(\w+)(\[\*\])?", part)
        if not m:
            raise ValueError("bad path part %r" % part)
        vals = [v[m.group(1)] for v in vals]
        if m.group(2):
            vals = [x for v in vals for x in v]
    return vals


def same(found, written):
    """found (a number from the JSON) equals written (as in the text) when
    rounded to the digits written."""
    if re.fullmatch(r"-?\d+", written):
        return found == int(written)
    digits = len(written.split(".")[1]) if "." in written else 0
    return round(float(found), digits) == float(written)


def paragraph_before(text, pos):
    start = text.rfind("\n\n", 0, pos)
    return text[start + 2 if start >= 0 else 0:pos]


def check_file(path):
    text = open(path).read()
    n = 0
    for m in MARK.finditer(text):
        n += 1
        args, sel, want = m.group(1), m.group(2), [w.strip() for w in m.group(3).split(",")]
        line = text.count("\n", 0, m.start()) + 1
        where = "%s:%d" % (os.path.relpath(path, TOP), line)
        cmd = shlex.split(args)
        if cmd[0] != "san":
            fail("%s: the command must start with san: %s" % (where, args))
            continue
        p = subprocess.run([SAN] + cmd[1:], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            fail("%s: %s: exit %d: %s" % (where, args, p.returncode, p.stderr.strip()))
            continue
        try:
            got = select(json.loads(p.stdout), sel)
        except (ValueError, KeyError, TypeError) as e:
            fail("%s: %s: cannot select %s: %s" % (where, args, sel, e))
            continue
        if len(got) != len(want) or not all(same(g, w) for g, w in zip(got, want)):
            fail("%s: %s gives %s = %s; the text says %s" % (where, args, sel, got, want))
        para = paragraph_before(text, m.start())
        for w in want:
            if not re.search(r"(?<![\d.])%s(?![\d])" % re.escape(w), para):
                fail("%s: %s is checked but not stated in the paragraph above" % (where, w))
    return n


def main():
    files = [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "doc", "*.md")))
    total = 0
    for f in files:
        n = check_file(f)
        total += n
        rel = os.path.relpath(f, TOP)
        if rel in MUST and n == 0:
            fail("%s: no checked statement (its buffer and grain figures are checked here)" % rel)
    print("%d checked statements in %d files: %d failures" % (total, len(files), tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
