#!/usr/bin/env python3
"""krontest.py - does --storage kron answer what --storage sparse answers?

Issue 34's target: the descriptor's auto refuses no model that the
sparse storage's auto solves within its memory.  Random models of the
generator's templates (san gen pipeline and ms, with random modes,
stages, service times, replicas, buffers, sources, phases, slaves), a
few hundred to tens of thousands of states, each solved by `san solve`
with the method auto on both storages (lumping on, san's default):

  FAIL  sparse exits 0 and kron does not (a refusal the user cannot
        mend), or both exit 0 and a state probability differs by more
        than 1e-9 of the larger (states below 1e-14 held to 1e-23
        absolutely: the contract's floor), or a run crashes, times out
        or exits 1 without a message on stderr.
  ok    both answer alike, or both refuse (with a message), or kron
        answers what sparse refuses (it is checked no further here: the
        differential tester judges answers against a reference).

The two storages share no more than the refinement (verify.c): the
products, the methods auto picks (BiCGSTAB with ILU(0) against Jacobi)
and the state orders differ, so agreement to 1e-9 on every state is
evidence, and a refusal on one side only is the failure the issue
counts.

Exit status 1 when a model FAILs, 99 when the tester cannot run, else 0.

Examples:
  tests/difftest/krontest.py --count 60
  tests/difftest/krontest.py --count 1000 --seed 5 --keep /tmp/krontest_fail
"""

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from difftest_models import find_san  # noqa: E402

REL = 1e-9                  # the agreement asked of two answers
FLOOR = 1e-14               # below it a probability is held absolutely
MAX_STATES = 20000          # larger draws are skipped (make check's time)


def log_uniform(rng, lo, hi):
    return round(lo * (hi / lo) ** rng.random(), 3)


def pipeline_args(rng):
    m = rng.randint(1, 5)
    a = ["pipeline", "--mode", rng.choice(["sync", "async"]),
         "--stages", ",".join(str(log_uniform(rng, 0.1, 10)) for _ in range(m))]
    if rng.random() < 0.5:
        big = rng.random() < 0.3        # many replicas: lumped to counts
        a += ["--replicas", ",".join(str(rng.randint(50, 1000) if big else rng.randint(1, 4))
                                     for _ in range(m))]
    if a[2] == "async":
        a += ["--buffer", str(rng.randint(1, 20))]
    if m == 1 or rng.random() < 0.3:    # one saturated stage has no state
        a += ["--source", "poisson:%g:%d" % (log_uniform(rng, 0.1, 10), rng.randint(2, 40))]
    if rng.random() < 0.2:
        a += ["--phases", str(rng.randint(2, 3))]
    return a


def ms_args(rng):
    mode = rng.choice(["sync", "async"])
    a = ["ms", "--mode", mode, "--slaves", str(rng.randint(1, 8))]
    if mode == "async":
        a += ["--buffer", str(rng.randint(1, 40))]
    for flag in ["--task-time", "--pack-time", "--compute-time", "--eval-time"]:
        if rng.random() < 0.4:
            a += [flag, str(log_uniform(rng, 0.005, 5))]
    return a


def draw(rng):
    return pipeline_args(rng) if rng.random() < 0.6 else ms_args(rng)


def solve(san, model, storage, vec, timeout, max_states):
    """(exit status, stderr, parsed report or None); 'timeout' on time-out."""
    cmd = [san, "solve", "-q", "-f", "json", "--storage", storage, "--max-states",
           str(max_states), "--vector", vec, "--no-throughputs", model]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", None
    rep = None
    if p.returncode in (0, 1):
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            rep = None
    return p.returncode, p.stderr.strip(), rep


def read_vector(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    ip = head.index("probability")
    return {tuple(r[1:ip]): float(r[ip]) for r in rows[1:]}


def compare(va, vb):
    """The worst disagreement of two vectors over the same states, as a
    multiple of what is allowed (<= 1 agrees), and where."""
    if va.keys() != vb.keys():
        return float("inf"), "different state sets"
    worst, where = 0.0, ""
    for k, a in va.items():
        b = vb[k]
        allowed = REL * max(abs(a), abs(b), FLOOR)
        r = abs(a - b) / allowed
        if r > worst:
            worst, where = r, "state %s: sparse %.17g, kron %.17g" % (",".join(k), a, b)
    return worst, where


def judge(san, args, tmp, timeout, max_states):
    model = os.path.join(tmp, "m.san")
    with open(model, "w") as f:
        g = subprocess.run([san, "gen"] + args, capture_output=True, text=True)
        if g.returncode != 0:
            return "skip", "gen refused: " + g.stderr.strip()[-200:]
        f.write(g.stdout)
    runs = {}
    for st in ("sparse", "kron"):
        vec = os.path.join(tmp, st + ".csv")
        if os.path.exists(vec):
            os.remove(vec)
        runs[st] = solve(san, model, st, vec, timeout, max_states) + (vec,)
    (rs, es, ps, vs), (rk, ek, pk, vk) = runs["sparse"], runs["kron"]
    if rs == 2 and "max-states" in es:
        return "skip", "over %d states" % max_states
    for st, (rc, err, _, _) in runs.items():
        if rc not in (0, 1) or (rc == 1 and not err):
            return "FAIL", "%s: exit %s%s" % (st, rc, (": " + err[-300:]) if err else " without a message")
    if rs == 0 and rk != 0:
        return "FAIL", "kron refused what sparse answers: " + ek[-300:]
    if rs != 0 or rk != 0:
        return "ok", "refused by %s" % ("both" if rs and rk else "sparse")
    worst, where = compare(read_vector(vs), read_vector(vk))
    if worst > 1:
        return "FAIL", "the answers differ by %.3g times 1e-9 relative (%s)" % (worst, where)
    n = ps["reachable_states"]
    return "ok", "%d states, %s / %s" % (n, ps["solver"]["method"], pk["solver"]["method"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=60, help="models (60)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (1)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per san run (300)")
    ap.add_argument("--max-states", type=int, default=MAX_STATES,
                    help="skip larger models (%d)" % MAX_STATES)
    ap.add_argument("--keep", metavar="DIR", help="keep failing models there")
    ap.add_argument("--verbose", "-v", action="store_true")
    a = ap.parse_args()
    san = find_san()
    if not san or not os.access(san, os.X_OK):
        print("krontest: no san binary (set SAN)", file=sys.stderr)
        return 99
    rng = random.Random(a.seed)
    counts = {}
    fails = 0
    tmp = tempfile.mkdtemp(prefix="krontest.")
    try:
        for i in range(a.count):
            args = draw(rng)
            verdict, why = judge(san, args, tmp, a.timeout, a.max_states)
            counts[verdict] = counts.get(verdict, 0) + 1
            line = "krontest %d: %s: san gen %s: %s" % (i, verdict, " ".join(args), why)
            if verdict == "FAIL":
                fails += 1
                print(line)
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(os.path.join(tmp, "m.san"), os.path.join(a.keep, "k%d.san" % i))
            elif a.verbose:
                print(line)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("krontest: seed %d, %d models: %s" % (a.seed, a.count, ", ".join(
        "%s %d" % kv for kv in sorted(counts.items()))))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
