#!/usr/bin/env python3
"""to_expr.py - destinations by an expression, to(+e), to(-e), to(=e) (san(5)).

1. A model whose moves are expressions of the state (X jumps by Y + 1,
   falls by -(Y + 1) or to 0, a synchronized event sets X to
   min(5, X + 2Y) and Y to 0, Y is set to X mod 3) against
   (a) the same model written with explicit targets, one functional
       routing entry per possible amount (generated here): the same
       reachable states and the same steady state within 1e-12;
   (b) its chain built here from the rules above, solved by Gaussian
       elimination: within 1e-12;
   on both storages (sparse and the Kronecker descriptor).
2. The same model as PRISM text (x' = x - (y+1), x' = min(5, x + 2*y),
   y' = mod(x, 3)) through `san import prism`: the import uses to(=...)
   and solves to the same reference within 1e-12.
3. `san print` keeps the clauses and reprints to itself; `--dialect
   peps2003` refuses them with the position.
4. A value that leads off the block where the event fires: exit 2, the
   file:line:col of the event and the line of the to(...) named (sparse
   and kron); likewise from a state where no value lands at all (not a
   silently disabled event); from PRISM, an update off the variable's
   range likewise.
The compile-time errors (a constant off the automaton, an expression that
never lands, a relative move that is not whole) are in tests/corpus/errors
(to_expr_*.san).
"""
import os
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import check, tally, run, json_of, close_1, generator, stationary  # noqa: E402

NX, NY = 6, 3
RATES = {"a": 1.0, "b": 2.0, "c": 0.5, "d": 0.25, "s": 0.7}

HEAD = """identifiers
  K = [0..5];
  jump = st Y + 1;
events
  loc a (1.0 * ((st X + st Y) < 5))
  loc b (2.0 * (st X > st Y))
  loc c (0.5 * (st Y < 2))
  loc d (0.25)
  syn s (0.7)
reachability = 1;
network n (continuous)
"""

BY_EXPR = HEAD + """  aut X
    stt x[K]
      to(+jump) a
      to(-jump) b(0.4)
      to(=0) b(0.6)
      to(=min(5, st X + 2 * st Y)) s
  aut Y
    stt y[0..2]
      to(++) c
      to(=mod(st X, 3)) d
      to(=0) s
"""

PRISM = """ctmc
module MX
  x : [0..5] init 0;
  [] x + y + 1 <= 5 -> 1.0 : (x' = x + y + 1);
  [] x >= y + 1 -> 0.8 : (x' = x - (y + 1)) + 1.2 : (x' = 0);
  [s] true -> 0.7 : (x' = min(5, x + 2 * y));
endmodule
module MY
  y : [0..2] init 0;
  [] y < 2 -> 0.5 : (y' = y + 1);
  [] true -> 0.25 : (y' = mod(x, 3));
  [s] true -> 1 : (y' = 0);
endmodule
"""


def explicit():
    """BY_EXPR with every target named: from x[i], one entry per value of
    Y that leads somewhere, its probability (st Y == y)."""
    out = [HEAD, "  aut X\n    stt x[K]\n"]
    for i in range(NX):
        out.append("    from x[%d]\n" % i)
        for y in range(NY):
            if i + y + 1 < NX:
                out.append("      to(x[%d]) a(st Y == %d)\n" % (i + y + 1, y))
            if i - y - 1 >= 0:
                out.append("      to(x[%d]) b(0.4 * (st Y == %d))\n" % (i - y - 1, y))
            out.append("      to(x[%d]) s(st Y == %d)\n" % (min(5, i + 2 * y), y))
        out.append("      to(x[0]) b(0.6)\n")
    out.append("  aut Y\n    stt y[0..2]\n")
    for j in range(NY):
        out.append("    from y[%d]\n" % j)
        if j + 1 < NY:
            out.append("      to(y[%d]) c\n" % (j + 1))
        for r in range(3):
            out.append("      to(y[%d]) d(st X == %d || st X == %d)\n" % (r, r, r + 3))
        out.append("      to(y[0]) s\n")
    return "".join(out)


def reference():
    """The chain from the rules, every (x, y): pi by Gaussian elimination."""
    states = [(x, y) for x in range(NX) for y in range(NY)]
    idx = {s: k for k, s in enumerate(states)}
    arcs = []
    for (x, y) in states:
        k = idx[(x, y)]
        if x + y + 1 <= 5:
            arcs.append((k, idx[(x + y + 1, y)], RATES["a"]))
        if x >= y + 1:
            arcs.append((k, idx[(x - y - 1, y)], RATES["b"] * 0.4))
            arcs.append((k, idx[(0, y)], RATES["b"] * 0.6))
        if y < 2:
            arcs.append((k, idx[(x, y + 1)], RATES["c"]))
        arcs.append((k, idx[(x, x % 3)], RATES["d"]))
        arcs.append((k, idx[(min(5, x + 2 * y), 0)], RATES["s"]))
    pi = stationary(generator(len(states), arcs))
    return {s: pi[idx[s]] for s in states}


def distribution(path, what, storage, prism=False):
    """{(x, y): p} of san solve's JSON (every state listed by --top)."""
    args = ["solve", "--format", "json", "--top", "1000", "--storage", storage, path]
    d = json_of(args, what)
    if d is None:
        return None
    out = {}
    for t in d["top_states"]:
        st = t["state"]
        if prism:
            key = (int(st["x"].split("_")[1]), int(st["y"].split("_")[1]))
        else:
            key = (int(st["X"][2:-1]), int(st["Y"][2:-1]))
        out[key] = t["p"]
    check(d["reachable_states"] == len(out), "%s: every state listed" % what)
    return out


def same(a, b, what):
    if a is None or b is None:
        return
    check(set(a) == set(b), "%s: the same reachable states (%d, %d)" % (what, len(a), len(b)))
    worst = max(abs(a[s] - b.get(s, 0.0)) for s in a)
    check(all(close_1(a[s], b.get(s, 0.0), 1e-12) for s in a),
          "%s: steady state within 1e-12 (worst %.2e)" % (what, worst))


def main():
    ref = reference()
    with tempfile.TemporaryDirectory() as tmp:
        by = os.path.join(tmp, "by_expr.san")
        ex = os.path.join(tmp, "explicit.san")
        pm = os.path.join(tmp, "moves.prism")
        for path, text in ((by, BY_EXPR), (ex, explicit()), (pm, PRISM)):
            with open(path, "w") as f:
                f.write(text)
        # 1. against the explicit model and the reference, both storages
        for storage in ("sparse", "kron"):
            p_by = distribution(by, "to(expr) %s" % storage, storage)
            p_ex = distribution(ex, "explicit %s" % storage, storage)
            same(p_by, p_ex, "to(expr) vs explicit targets, %s" % storage)
            same(p_by, ref, "to(expr) vs the chain built here, %s" % storage)
        # 2. PRISM's updates by an expression
        rc, out, err = run(["import", "prism", pm])
        check(rc == 0 and "to(=" in out, "import prism writes to(=...) (exit %d) %s" % (rc, err))
        same(distribution(pm, "prism sparse", "sparse", prism=True), ref,
             "PRISM import vs the chain built here")
        # 3. print keeps the clauses and is a fixed point; PEPS refuses
        rc, out, err = run(["print", by])
        check(rc == 0 and "to(+jump) a" in out and "to(-jump) b(0.4)" in out and
              "to(=mod(st X, 3)) d" in out, "print keeps to(+e), to(-e), to(=e)")
        p2 = os.path.join(tmp, "printed.san")
        with open(p2, "w") as f:
            f.write(out)
        rc2, out2, _ = run(["print", p2])
        check(rc2 == 0 and out2 == out, "printed text prints to itself")
        same(distribution(p2, "printed", "sparse"), ref, "printed model vs the chain built here")
        rc, out, err = run(["print", "--dialect", "peps2003", by])
        check(rc == 2 and "by_expr.san" in err and "14:11:" in err and
              "PEPS has no destination by an expression" in err,
              "peps2003 refuses to(+e) with its position (exit %d): %s" % (rc, err.strip()[:300]))
        # 4. a move off the block where the event fires: an error, both storages
        off = os.path.join(tmp, "off.san")
        with open(off, "w") as f:
            f.write(BY_EXPR.replace("(1.0 * ((st X + st Y) < 5))", "(1.0)"))
        for storage in ("sparse", "kron"):
            rc, out, err = run(["solve", "--storage", storage, off])
            check(rc == 2 and "off.san:14:17: error: routing probabilities of event 'a'" in err
                  and "sum to 0" in err and "the to(+...) at line 14:7 leads to no state here" in err,
                  "off the block: exit 2 with the positions, %s (exit %d): %s"
                  % (storage, rc, err.strip()[-400:]))
        # from x[1] no value of st Y + 1 lands: the event must not be
        # silently disabled there, it fires (Y = 0)
        never = os.path.join(tmp, "never.san")
        with open(never, "w") as f:
            f.write("identifiers\n  K = [0..1];\nevents\n  loc f (st Y == 0)\n"
                    "  loc g (1)\n  loc h (1)\nreachability = 1;\n"
                    "network n (continuous)\n  aut X\n    stt x[K] to(+(st Y + 1)) f\n"
                    "  aut Y\n    stt y[0..2] to(++) g to(=0) h\nresults\n  m = st X;\n")
        for storage in ("sparse", "kron"):
            rc, out, err = run(["solve", "--storage", storage, never])
            check(rc == 2 and "from state 'x[1]'" in err and "line 10:14 leads to no state" in err,
                  "no value lands from x[1], where f fires: exit 2, %s (%d): %s"
                  % (storage, rc, err.strip()[-300:]))
        pm2 = os.path.join(tmp, "off.prism")
        with open(pm2, "w") as f:
            f.write(PRISM.replace("x + y + 1 <= 5 ->", "true ->"))
        rc, out, err = run(["solve", pm2])
        check(rc == 2 and "leads to no state here" in err,
              "PRISM update off the range: exit 2 (%d): %s" % (rc, err.strip()[-300:]))
    tally.exit()


main()
