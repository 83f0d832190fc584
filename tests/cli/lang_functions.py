#!/usr/bin/env python3
"""lang_functions.py - floor, ceil, mod, pow in .san expressions (san(5)).

1. A birth-death chain on 0..N whose birth and death rates are floor,
   ceil, mod and pow of the state: its stationary distribution by the
   product formula, computed here from the same formulas in Python
   (math.floor, math.ceil, Python's % for mod: both take the sign of the
   divisor), and the results (expectations of the functions, a negative
   dividend and a negative divisor for mod's sign rule, a derived result
   of results) against it, within 1e-9 relative.
2. `san print` round trip: the printed text keeps the functions, prints
   to itself, and solves to the same numbers.
3. The names are functions only before '(': constants named mod, pow
   and ceil are read as constants.
4. The lumping detector: four interchangeable replicas whose rates are
   the functions of nb, solved as counts (5 states) and in full (16),
   to the same results within 1e-12.
5. `san print --dialect peps2003` refuses the model with the function
   and its position named; a rate that is mod(a, 0) in some reachable
   state is refused at run time (not a number), exit 2.
The diagnostics for a wrong number of arguments and a divisor 0 are in
tests/corpus/errors (fn_arity.san, fn_mod_zero.san).
"""
import json
import math
import os
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import fail, tally, run, close_rel as close  # noqa: E402

N = 12

MODEL = """// floor, ceil, mod, pow of the state (tests/cli/lang_functions.py)
identifiers
  K = [0..%d];
  mod = 4;
  pow = 1.25;
  ceil = 2;
  up = 1 + floor(st A / 3) + (0.5 * mod(st A, mod));
  down = ceil (st A / ceil) + (0.1 * pow(pow, st A));
  M = mod(17, 5);
events
  loc birth (up)
  loc death (down)
reachability = 1;
network bd (continuous)
  aut A
    stt s[K]
      to(++) birth
      to(--) death
results
  r_floor = floor(st A / 3);
  r_ceil = ceil(st A / 2.5);
  r_mod = mod(st A, 4);
  r_modneg = mod(st A - 5, 3);
  r_moddiv = mod(st A, -3);
  r_pow = pow(2, st A) / 4096;
  r_const = M;
  sq = pow(r_mod, 2) + floor(r_const);
""" % N


def reference():
    """The stationary distribution by the product formula and the
    results as expectations under it."""
    def up(k):
        return 1 + math.floor(k / 3) + 0.5 * (k % 4)

    def down(k):
        return math.ceil(k / 2) + 0.1 * 1.25 ** k

    w = [1.0]
    for k in range(1, N + 1):
        w.append(w[-1] * up(k - 1) / down(k))
    z = sum(w)
    pi = [x / z for x in w]

    def ex(f):
        return sum(p * f(k) for k, p in enumerate(pi))
    r = {
        "r_floor": ex(lambda k: math.floor(k / 3)),
        "r_ceil": ex(lambda k: math.ceil(k / 2.5)),
        "r_mod": ex(lambda k: k % 4),
        "r_modneg": ex(lambda k: (k - 5) % 3),
        "r_moddiv": ex(lambda k: k % -3),
        "r_pow": ex(lambda k: 2.0 ** k / 4096),
        "r_const": 2.0,
    }
    r["sq"] = r["r_mod"] ** 2 + 2
    return r


def solve(path):
    rc, out, err = run(["solve", "--format", "json", path])
    if rc != 0:
        fail("san solve %s: exit %d: %s" % (path, rc, err.strip()[:500]))
        return None
    return json.loads(out)["results"]


def check_solve(tmp):
    path = os.path.join(tmp, "bd.san")
    with open(path, "w") as f:
        f.write(MODEL)
    ref = reference()
    got = solve(path)
    if got is None:
        return path
    for k, v in ref.items():
        if k not in got or not close(got[k], v, 1e-9):
            fail("%s = %r, closed form %r" % (k, got.get(k), v))
        else:
            print("%s = %.12g (closed form %.12g)" % (k, got[k], v))
    return path


def check_print(tmp, path):
    rc, p1, err = run(["print", path])
    if rc != 0:
        fail("san print: exit %d: %s" % (rc, err.strip()[:300]))
        return
    for fn in ("floor(", "ceil(", "mod(", "pow("):
        if fn not in p1:
            fail("san print lost %s...): %s" % (fn, p1[:400]))
    printed = os.path.join(tmp, "printed.san")
    with open(printed, "w") as f:
        f.write(p1)
    rc, p2, err = run(["print", printed])
    if rc != 0 or p2 != p1:
        fail("san print of the printed text differs (exit %d): %s" % (rc, err.strip()[:300]))
    a, b = solve(path), solve(printed)
    if a and b and any(not close(b[k], a[k], 1e-12) for k in a):
        fail("the printed model solves otherwise: %r vs %r" % (b, a))


LUMP = """identifiers
  R = [0..3];
  up = 1 + floor(nb busy / 2) + mod(nb busy, 3);
  down = pow(1.5, nb busy) * ceil(nb idle / 2 + 0.5);
events
  loc go (up)
  loc back (down)
reachability = 1;
network n (continuous)
  aut P[R]
    stt idle to(busy) go
    stt busy to(idle) back
results
  b = nb busy;
  m = mod(nb busy, 3);
"""


def check_lump(tmp):
    path = os.path.join(tmp, "lump.san")
    with open(path, "w") as f:
        f.write(LUMP)
    got = {}
    for mode in ("auto", "off"):
        rc, out, err = run(["solve", "--lump", mode, "--format", "json", path])
        if rc != 0:
            fail("--lump %s: exit %d: %s" % (mode, rc, err.strip()[:300]))
            return
        j = json.loads(out)
        got[mode] = (j["reachable_states"], j["results"])
    if got["auto"][0] != 5 or got["off"][0] != 16:
        fail("lumping: %d and %d states, want 5 and 16" % (got["auto"][0], got["off"][0]))
    a, b = got["auto"][1], got["off"][1]
    if any(not close(a[k], b[k], 1e-12) for k in b):
        fail("lumped %r, full %r" % (a, b))


def check_refusals(tmp, path):
    rc, out, err = run(["print", "--dialect", "peps2003", path])
    if rc != 2 or "7:12: floor(...): PEPS has no floor" not in err:
        fail("--dialect peps2003: exit %d, %r" % (rc, err.strip()[:300]))
    nan = MODEL.replace("(0.5 * mod(st A, mod))", "mod(1, (st A != 3) * 5)")
    bad = os.path.join(tmp, "nan.san")
    with open(bad, "w") as f:
        f.write(nan)
    rc, out, err = run(["solve", bad])
    if rc != 2 or "rate of event 'birth' is not a number in state (A:s[3])" not in err:
        fail("mod(1, 0) at run time: exit %d, %r" % (rc, err.strip()[:300]))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = check_solve(tmp)
        check_print(tmp, path)
        check_lump(tmp)
        check_refusals(tmp, path)
    print("lang_functions: %d failure(s)" % tally.failed)
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
