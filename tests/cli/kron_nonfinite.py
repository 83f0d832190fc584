#!/usr/bin/env python3
"""kron_nonfinite.py - a routing probability that is not finite where its
event is disabled (issue 34, item 7).

The model: A leaves a0 by event e (rate 2 when B is in b1, else 0) to a1
with probability p = 1 / (st B) and to a2 with 1 - p: p is inf (and 1 - p
-inf) where B is in b0, where e cannot fire.  The sparse path skips a
disabled event; the descriptor multiplied rate 0 by inf and met NaN
(exit 1, "best residual inf", a wrong number printed).  Checked:

  1. solve over both storages and every method the descriptor offers
     agrees with the steady state computed here from the generator
     written by hand (Gaussian elimination in plain Python), to 1e-9;
  2. transient and passage over the descriptor agree with the sparse
     path (P(T <= t), the mean) to 1e-9;
  3. the same probability where the event is enabled is still refused,
     exit 2, over both storages (file:line:col, the state named).

Environment: SAN (the binary).  Prints "N passed, M failed".
"""
import json
import os
import shutil
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import check, tally, run, stationary as steady  # noqa: E402



MODEL = """identifiers
  r = ((st B) == b1) * 2;
  p = 1 / (st B);
events
  loc e (r)
  loc back (1)
  loc f (3)
  loc g (1)
reachability = 1;
network kinf (continuous)
  aut A
    stt a0
      to(a1) e (p)
      to(a2) e (1 - p)
    stt a1
      to(a0) back
    stt a2
      to(a0) back
  aut B
    stt b0
      to(b1) f
    stt b1
      to(b2) f
    stt b2
      to(b0) g
results
  in_a1 = (st A) == a1;
"""


def generator():
    """Q over index 3 a + b (B varies fastest), from the model's text."""
    n = 9
    q = [[0.0] * n for _ in range(n)]

    def add(i, j, r):
        if r and i != j:
            q[i][j] += r
            q[i][i] -= r
    for a in range(3):
        for b in range(3):
            i = 3 * a + b
            add(i, 3 * a + (b + 1) % 3, 3.0 if b < 2 else 1.0)     # f, g
            if a == 0 and b == 1:                                  # e: rate 2, p = 1
                add(i, 3 * 1 + b, 2.0)
            if a in (1, 2):
                add(i, b, 1.0)                                     # back
    return q


tmp = tempfile.mkdtemp(prefix="san_kron_nonfinite_")
path = os.path.join(tmp, "kinf.san")
with open(path, "w") as f:
    f.write(MODEL)
pi = steady(generator())
want = pi[3] + pi[4] + pi[5]        # A in a1

# 1. the steady state
for storage, methods in (("sparse", ("auto", "direct", "gs", "gmres")),
                         ("kron", ("auto", "power", "jacobi", "gmres", "bicgstab", "iad"))):
    for method in methods:
        rc, out, err = run(["solve", "-f", "json", "--storage", storage, "--method", method, path])
        try:
            got = json.loads(out)["results"]["in_a1"]
        except (ValueError, KeyError):
            got = None
        check(rc == 0 and got is not None and abs(got - want) <= 1e-9,
              f"solve {storage} {method}: exit {rc}, in_a1 {got} vs {want} by hand; {err[:200]}")

# 2. transient and passage over both storages
ref = {}
for storage in ("sparse", "kron"):
    rc, out, err = run(["transient", "-f", "json", "--storage", storage, "-t", "0.5,2,10", path])
    try:
        tr = [row["results"]["in_a1"] for row in json.loads(out)["times"]]
    except (ValueError, KeyError):
        tr = None
    rc2, out2, err2 = run(["passage", "-f", "json", "--storage", storage, "-t", "1,5",
                           "--until", "(st A) == a1", path])
    try:
        pj = json.loads(out2)
        ps = [row["cdf"] for row in pj["times"]] + [pj["passage"]["mean"]]
    except (ValueError, KeyError):
        ps = None
    check(rc == 0 and tr is not None, f"transient {storage}: exit {rc}: {err[:200]}")
    check(rc2 == 0 and ps is not None, f"passage {storage}: exit {rc2}: {err2[:200]}")
    ref[storage] = (tr, ps)
if all(ref[s][0] and ref[s][1] for s in ref):
    for k in (0, 1):
        a, b = ref["sparse"][k], ref["kron"][k]
        check(all(abs(x - y) <= 1e-9 * max(1, abs(x)) for x, y in zip(a, b)),
              f"{'transient' if k == 0 else 'passage'}: kron {b} vs sparse {a}")

# 3. enabled where p is not finite: refused on both storages
bad = os.path.join(tmp, "kinf_enabled.san")
with open(bad, "w") as f:
    f.write(MODEL.replace("r = ((st B) == b1) * 2;", "r = 2;"))
for storage in ("sparse", "kron"):
    rc, out, err = run(["solve", "--storage", storage, bad])
    check(rc == 2 and "kinf_enabled.san:13:" in err and "not in [0, 1] (inf)" in err,
          f"enabled inf probability, {storage}: exit {rc}: {err[:200]}")

shutil.rmtree(tmp, ignore_errors=True)
tally.exit()
