#!/usr/bin/env python3
"""dialect.py - san print --dialect and san gen --dialect, from the outside.

  1. round trips: for every bundled model (models/*.san, the PEPS models in
     $SHARED_MODELS/peps, the valid files of tests/corpus/warnings) and
     every generator template and mode, `san print --dialect X | san solve -`
     (and `san gen ... --dialect X | san solve -`) gives the original's
     results and throughputs to 1e-12, for X = san, peps2003, peps2007;
  2. the PEPS text has none of what the peers reject: no comments, every
     event rate and routing probability a bare identifier, no nb without
     a range, no event automaton lists, at least two automata;
  3. the rewrites: a state name in nb that another automaton declares at
     another index is expanded (the master/slave `nb [...] Tx`), a state
     name compared with `st A` becomes its index, top-level min/max is
     wrapped; a model PEPS cannot take (discrete time) is refused with the
     construct named, exit 2, nothing written;
  4. san check --peps finds nothing to warn about in any PEPS text
     written (the lint and the rewrites agree); its warnings themselves are
     in tests/corpus/warnings/peps_compat.san;
  5. usage: an unknown dialect exits 2.

Environment: SAN (the binary), top_srcdir, SHARED_MODELS.  Exit 0 when
every check passes; the last line is "N passed, M failed".  VERBOSE=1
lists the passes.
"""
import glob
import json
import os
import re
import subprocess
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, SHARED, check, tally  # noqa: E402

DIALECTS = ["san", "peps2003", "peps2007"]
BOTH = "PEPS 2003 and GTAexpress"       # how the --peps warnings begin
GEN = [
    "ms --mode sync --slaves 3",
    "ms --mode async --slaves 3 --buffer 2",
    "ms --mode sync --slaves 2 --work slices",
    "ms --mode async --slaves 2 --buffer 3 --work slices",
    "pipeline --mode sync --stages 1,2,3",
    "pipeline --mode async --stages 1,2,3 --replicas 1,2,1",
    "pipeline --mode async --stages 1,2,3 --group 1+2,3",
    "pipeline --mode async --stages 1,2 --source poisson:0.5:3",
    "pipeline --mode sync --stages 1,2 --phases 2",
    "pipeline --mode async --stages 1,2 --replicas 2,1 --phases 2",
]


def run(args, text=None):
    # surrogateescape: comments are printed back byte for byte, and some
    # corpus files have bytes that are not UTF-8 in theirs
    p = subprocess.run([SAN] + args, input=text.encode(errors="surrogateescape")
                       if text is not None else None, capture_output=True, timeout=120)
    return (p.returncode, p.stdout.decode(errors="surrogateescape"),
            p.stderr.decode(errors="replace"))


def answers(args, text=None):
    """results and throughputs of `san solve -f json`, or None."""
    rc, out, _ = run(["solve", "-f", "json", "--tol", "1e-13"] + args, text)
    if rc != 0:
        return None
    j = json.loads(out)
    a = {"r:" + k: v for k, v in j["results"].items()}
    a.update({"t:" + k: v for k, v in j["throughputs"].items()})
    return a


def same(ref, got):
    """got has every answer of ref, equal to 1e-12 (relative); the
    throughput of an event the PEPS dialects write as a table (e_t1,
    e_t2, ...) is the sum of its parts'."""
    if ref is None or got is None:
        return False
    for k, v in ref.items():
        w = got.get(k)
        parts = [x for n, x in got.items() if re.fullmatch(re.escape(k) + r"_t\d+", n)]
        if w is None and k.startswith("t:") and parts:
            w = sum(parts)      # an event written as a table: its parts together
        if w is None or abs(v - w) > 1e-12 * max(abs(v), abs(w), 1e-300) and abs(v - w) > 1e-15:
            return False
    return True


def peps_clean(text):
    """None, or what PEPS 2003 / GTAexpress would reject in text."""
    if "//" in text or "/*" in text:
        return "a comment"
    if re.search(r"\bnb [^\[]", text):
        return "nb without a range"
    for m in re.finditer(r"^\s*(loc|syn) \w+(\[[^]]*\])? \(([^)]*)\)(.*);$", text, re.M):
        if not re.fullmatch(r"[A-Za-z_]\w*", m.group(3)):
            return "rate not an identifier: " + m.group(0)
        if m.group(4).strip():
            return "automaton list: " + m.group(0)
    for m in re.finditer(r"^\s*to\([^)]*\) \w+(\[[^]]*\])?(\((.*)\))?$", text, re.M):
        if m.group(3) is not None and not re.fullmatch(r"[A-Za-z_]\w*", m.group(3)):
            return "probability not an identifier: " + m.group(0)
    if len(re.findall(r"^\s*aut ", text, re.M)) < 2 and not re.search(r"^\s*aut \w+\[", text, re.M):
        return "one automaton"
    return None


def models():
    files = sorted(glob.glob(os.path.join(TOP, "models", "*.san")))
    files += sorted(glob.glob(os.path.join(SHARED, "peps", "*.san")))
    files.append(os.path.join(TOP, "tests", "cli", "dialect_long.san"))
    for f in sorted(glob.glob(os.path.join(TOP, "tests", "corpus", "warnings", "*.san"))):
        with open(f, errors="replace") as h:
            head = h.read(2000)
        if "// args:" not in head and run(["check", f])[0] == 0:
            files.append(f)
    return files


def small(path):
    """Models the round trip solves quickly (tss has 10^7 states)."""
    rc, out, _ = run(["check", path])
    m = re.search(r"product states: (\d+)", out)
    return rc == 0 and (not m or int(m.group(1)) <= 200000)


def round_trips():
    for path in models():
        ref = answers([path]) if small(path) else None
        name = os.path.relpath(path, TOP)
        for d in DIALECTS:
            rc, text, err = run(["print", "--dialect", d, path])
            check(rc == 0, "print --dialect %s %s (%s)" % (d, name, err.strip()[:80]))
            if rc != 0:
                continue
            if ref is not None:     # too large to solve here: the text is checked
                check(same(ref, answers(["-"], text)), "round trip %s %s" % (d, name))
            if d != "san":
                bad = peps_clean(text)
                check(bad is None, "%s text of %s: %s" % (d, name, bad))
                _, _, lint = run(["check", "--peps", "-"], text)
                check(BOTH not in lint, "%s text of %s checks clean with --peps: %s"
                      % (d, name, lint[:300]))
    for line in GEN:
        _, orig, _ = run(["gen"] + line.split())
        ref = answers(["-"], orig)
        # ms for PEPS is generated with its slaves written out (--expanded):
        # s_1, not s[1]; the replicated text is rewritten by print instead
        _, written, _ = run(["gen"] + line.split() + ["--expanded"])
        ref_peps = answers(["-"], written) if line.startswith("ms") else ref
        for d in DIALECTS:
            rc, text, err = run(["gen"] + line.split() + ["--dialect", d])
            check(rc == 0 and same(ref if d == "san" else ref_peps, answers(["-"], text)),
                  "gen %s --dialect %s (%s)" % (line, d, err.strip()[:80]))
            if d != "san":
                bad = peps_clean(text)
                check(bad is None, "gen %s --dialect %s: %s" % (line, d, bad))
            if d != "san" and line.startswith("ms"):
                rc, text, err = run(["print", "--dialect", d, "-"], orig)
                check(rc == 0 and same(ref, answers(["-"], text)) and peps_clean(text) is None,
                      "gen %s | print --dialect %s (%s)" % (line, d, err.strip()[:80]))


TWO = """identifiers
  a = 2;
  f = min(st P, 1);
events
  loc go (a);
  loc back (f * 3);
reachability = 1;
network two (continuous)
  aut P
    stt x to(y) go
    stt y to(x) back
  aut Q
    stt y to(x) go2
    stt x to(y) go3
results
  px = st P == x;
  qy = nb [Q..Q] y;
  m = max(st P, st Q);
"""


def rewrites():
    text = TWO.replace("loc back (f * 3);", "loc back (f * 3);\n  loc go2 (a);\n  loc go3 (a);")
    rc, out, err = run(["print", "--dialect", "peps2003", "-"], text)
    check(rc == 0, "rewrites: printed (%s)" % err.strip()[:80])
    check("(st Q == 0)" in out, "rewrites: nb over a state another automaton declares at "
          "another index is expanded:\n" + out)
    check("(st P == 0)" in out, "rewrites: a state compared with st P becomes its index")
    check("f = (0 + min(" in out and "m = (0 + max(" in out, "rewrites: top-level min/max wrapped")
    check(same(answers(["-"], text), answers(["-"], out)), "rewrites: same answers")
    _, gen, _ = run(["gen", "ms", "--mode", "async", "--slaves", "3", "--dialect", "peps2003"])
    check("nb [Slave1..Slave3] Tx" not in gen and "(st Slave1 == 2)" in gen,
          "gen ms: nb [Slave1..Slave3] Tx written as explicit comparisons")
    disc = TWO.replace("(continuous)", "(discrete)")
    rc, out, err = run(["print", "--dialect", "peps2003", "-"], disc)
    check(rc == 2 and out == "" and "discrete" in err,
          "a discrete network is refused, construct named, nothing written: %d %s" % (rc, err))


def long_texts():
    """dialect_long.san: the synchronized rate PEPS 2003 cannot copy
    (about 200 bytes with its functions expanded) is written as a table
    of short rates, and the 20-term result, last, is followed by constant
    results (GTAexpress's 128-byte rows); the peers' answers: make
    peer-check."""
    rc, out, err = run(["print", "--dialect", "peps2003",
                        os.path.join(TOP, "tests", "cli", "dialect_long.san")])
    check(rc == 0, "dialect_long: printed (%s)" % err.strip()[:80])
    check("syn sync (" not in out and re.search(r"^  syn sync_t1 \(rate_sync_t1\);$", out, re.M)
          and re.search(r"^  rate_sync_t1 = [0-9.e-]+ \* \(\(st P == \d\) && \(st Q == \d\)\);$",
                        out, re.M), "dialect_long: the long synchronized rate as a table:\n" + out)
    check(re.search(r"sum20 = f;\n  san_pad_result1 = 0;\n  san_pad_result2 = 0;\n", out),
          "dialect_long: constant results after the long one")


def comments():
    """san print writes a model's comments back at their place: the text
    compared line by line with print_comments.expected (written by hand);
    printing the printed text gives it again; the PEPS dialects write
    none."""
    src = os.path.join(TOP, "tests", "cli", "print_comments.san")
    with open(os.path.join(TOP, "tests", "cli", "print_comments.expected")) as f:
        want = f.read().splitlines()
    rc, out, err = run(["print", src])
    got = out.splitlines()
    check(rc == 0, "comments: printed (%s)" % err.strip()[:80])
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else "<none>"
        g = got[i] if i < len(got) else "<none>"
        check(w == g, "comments: line %d: expected %r, got %r" % (i + 1, w, g))
    rc, again, _ = run(["print", "-"], out)
    check(rc == 0 and again == out, "comments: printing the printed text gives it again")
    check(same(answers([src]), answers(["-"], out)), "comments: same answers")
    rc, peps, _ = run(["print", "--dialect", "peps2003", src])
    check(rc == 0 and "//" not in peps and "/*" not in peps, "comments: none in peps2003")


def usage():
    rc, _, err = run(["print", "--dialect", "peps1999", os.path.join(TOP, "models", "mm1k.san")])
    check(rc == 2 and "peps1999" in err, "print: unknown dialect exits 2")
    rc, _, err = run(["gen", "ms", "--mode", "sync", "--slaves", "2", "--dialect", "x"])
    check(rc == 2 and "dialect" in err, "gen: unknown dialect exits 2")


def main():
    round_trips()
    rewrites()
    long_texts()
    comments()
    usage()
    print("%d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
