#!/usr/bin/env python3
"""export_classes.py - `san export` on chains with several closed classes
(issue 34, item 5): absorbing outcomes are a chain like any other, and an
export needs no steady state.

  1. three models with 2 closed classes (absorbing states; a pair of
     absorbing cycles; an absorbing automaton beside a cycling one, whose
     generator is the Kronecker sum of the two): every format exits 0;
     the Matrix Market file, and PRISM's .tra with the diagonal rebuilt,
     equal the generator written here by hand from the model's text
     (Q = Q_A (+) Q_B, the last automaton varying fastest); the states
     file lists every state in index order; PRISM's init label is on the
     initial states alone;
  2. san solve answers the same models from the initial distribution
     (issue 31; tests/cli/long_run.py checks its numbers): exit 0, the
     two closed classes reported;
  3. interchangeable replicas that each end in one of two absorbing
     states: the lumped chain (6 occupancy states, 3 closed classes) is
     exported, and its generator rows sum to 0.

Environment: SAN (the binary), top_srcdir.  Prints "N passed, M failed".
"""
import os
import shutil
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import check, tally, run  # noqa: E402



ABSORBING = """
identifiers
  a = 1;
  b = 2;
events
  loc go (a)
  loc fail (b)
reachability = 1;
network absorbing (continuous)
  aut A
    stt s0
      to(s1) go
      to(s2) fail
    stt s1
    stt s2
results
  done = (st A) == s1;
"""
# Q by hand: s0 -> s1 at 1, s0 -> s2 at 2; s1, s2 absorbing
Q_ABSORBING = {(0, 1): 1.0, (0, 2): 2.0}

CYCLES = """
events
  loc left (1)
  loc right (2)
  loc a01 (3)
  loc a10 (4)
  loc b01 (5)
  loc b10 (6)
reachability = (st A) == s;
network cycles (continuous)
  aut A
    stt s
      to(a0) left
      to(b0) right
    stt a0
      to(a1) a01
    stt a1
      to(a0) a10
    stt b0
      to(b1) b01
    stt b1
      to(b0) b10
"""
Q_CYCLES = {(0, 1): 1.0, (0, 3): 2.0, (1, 2): 3.0, (2, 1): 4.0, (3, 4): 5.0, (4, 3): 6.0}

BESIDE = """
events
  loc go (1)
  loc fail (2)
  loc up (3)
  loc down (4)
reachability = (st A) == s0 && (st B) == t0;
network beside (continuous)
  aut A
    stt s0
      to(s1) go
      to(s2) fail
    stt s1
    stt s2
  aut B
    stt t0
      to(t1) up
    stt t1
      to(t0) down
"""


def kron_sum(qa, na, qb, nb):
    """Q_A (+) Q_B off the diagonal: index = a * nb + b."""
    q = {}
    for (i, j), r in qa.items():
        for b in range(nb):
            q[(i * nb + b, j * nb + b)] = r
    for (i, j), r in qb.items():
        for a in range(na):
            q[(a * nb + i, a * nb + j)] = r
    return q


Q_BESIDE = kron_sum({(0, 1): 1.0, (0, 2): 2.0}, 3, {(0, 1): 3.0, (1, 0): 4.0}, 2)


def with_diagonal(off, n):
    q = dict(off)
    for i in range(n):
        q[(i, i)] = -sum(r for (k, j), r in off.items() if k == i and j != i)
    return {k: v for k, v in q.items() if v != 0}


def read_mtx(text):
    lines = [l for l in text.splitlines() if l and not l.startswith("%")]
    n, m, nnz = map(int, lines[0].split())
    q = {}
    for l in lines[1:1 + nnz]:
        i, j, v = l.split()
        if float(v) != 0:
            q[(int(i) - 1, int(j) - 1)] = float(v)
    return n, q


def read_tra(text):
    lines = text.split("\n")
    n, _ = map(int, lines[0].split())
    q = {}
    for l in lines[1:]:
        if l.strip():
            i, j, v = l.split()
            q[(int(i), int(j))] = float(v)
    return n, q


def same(a, b):
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-12 * abs(b[k]) for k in a)


tmp = tempfile.mkdtemp(prefix="san_export_classes_")
for name, text, off, n, initial in (("absorbing", ABSORBING, Q_ABSORBING, 3, {0, 1, 2}),
                                    ("cycles", CYCLES, Q_CYCLES, 5, {0}),
                                    ("beside", BESIDE, Q_BESIDE, 6, {0})):
    path = os.path.join(tmp, name + ".san")
    with open(path, "w") as f:
        f.write(text)
    # 2. the steady state from the initial distribution (issue 31)
    rc, out, err = run(["solve", path], cwd=tmp)
    check(rc == 0 and "classes      2 closed" in out,
          f"{name}: solve from the initial distribution ({rc}: {err.strip()[:200]})")
    # 1. every format
    for fmt in ("mtx", "states", "dot", "dot-reach", "prism"):
        rc, out, err = run(["export", "-f", fmt, "-o", name + "." + fmt, path], cwd=tmp)
        check(rc == 0, f"{name}: export -f {fmt}: exit {rc}: {err.strip()[:300]}")
    want = with_diagonal(off, n)
    try:
        with open(os.path.join(tmp, name + ".mtx")) as f:
            nm, q = read_mtx(f.read())
        check(nm == n and same(q, want), f"{name}: mtx {q} != by hand {want}")
        with open(os.path.join(tmp, name + ".prism.tra")) as f:
            nt, t = read_tra(f.read())
        check(nt == n and same(with_diagonal(t, n), want), f"{name}: .tra {t} != by hand {off}")
        with open(os.path.join(tmp, name + ".states")) as f:
            rows = [l for l in f.read().splitlines()[1:] if l]
        check([int(r.split(",")[0]) for r in rows] == list(range(n)),
              f"{name}: states file {rows}")
        with open(os.path.join(tmp, name + ".prism.lab")) as f:
            lab = f.read().splitlines()
        init = {int(l.split(":")[0]) for l in lab[1:] if "0" in l.split(":")[1].split()}
        check(init == initial, f"{name}: init on {sorted(init)}, want {sorted(initial)}")
    except (OSError, ValueError, IndexError) as e:
        check(False, f"{name}: reading the exports: {e}")

# 3. lumped replicas with absorbing ends
REPLICAS = """
identifiers
  R = [1..2];
events
  loc win[R] (1)
  loc lose[R] (2)
partial reachability = (nb [P[1]..P[2]] s) == 2;
network duel (continuous)
  aut P[i:R]
    stt s
      to(w) win[i]
      to(l) lose[i]
    stt w
    stt l
"""
path = os.path.join(tmp, "replicas.san")
with open(path, "w") as f:
    f.write(REPLICAS)
rc, out, err = run(["export", "-f", "mtx", path], cwd=tmp)
check(rc == 0 and "lumped" in err, f"replicas: export lumped: exit {rc}: {err.strip()[:300]}")
if rc == 0:
    n, q = read_mtx(out)
    rows = [sum(v for (i, j), v in q.items() if i == r) for r in range(n)]
    check(n == 6 and all(abs(s) < 1e-12 for s in rows), f"replicas: {n} states, row sums {rows}")

shutil.rmtree(tmp, ignore_errors=True)
tally.exit()
