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

With --repair N, N random repairable systems follow (repair_draw():
pools of components failing at 1e-3..1e-2 and repaired at 1..10, a
shared repair unit or per-component repair, coupled by a synchronizing
common cause or a load-sharing rate; 10^3..10^4 states), judged alike.

Exit status 1 when a model FAILs, 99 when the tester cannot run, else 0.

Examples:
  tests/difftest/krontest.py --count 60 --repair 6
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


# ---------------------------------------------------------------------------
# The repairable family (issue 27): a few automata, pools of identical
# components (a count automaton each) and single units, failing at
# 1e-3..1e-2 per component and repaired at 1..10, either by one shared
# repair unit (a synchronizing event per component kind) or each by its
# own repair, coupled by a common-cause failure (a synchronizing event)
# or a load-sharing rate (a function of another automaton's state).
# Rates span four decades; 10^3..10^4 product states.  Written as .san
# text here: no san gen template has this shape.
# ---------------------------------------------------------------------------

REPAIR_PRODUCT = (1000, 12000)      # the product space the draw aims at


def repair_draw(rng):
    """(model text, a one-line description) of a random repairable system."""
    while True:
        pools = [rng.randint(2, 30) for _ in range(rng.randint(1, 3))]
        units = rng.randint(0 if len(pools) > 1 else 1, 3)
        shared = rng.random() < 0.5
        product = 1
        for n in pools:
            product *= n + 1
        product *= 2 ** units * ((1 + len(pools) + units) if shared else 1)
        if REPAIR_PRODUCT[0] <= product <= REPAIR_PRODUCT[1]:
            break

    def r(lo, hi):
        return "%.4g" % (lo * (hi / lo) ** rng.random())
    coupling = rng.choice(["sync", "rate", "both"])
    kinds = ["P%d" % i for i in range(len(pools))] + ["U%d" % i for i in range(units)]
    other = kinds[1] if len(kinds) > 1 else None    # coupled to pool 0
    ident, events, auts = [], [], []
    for i, n in enumerate(pools):
        p = "P%d" % i
        ident.append("K%d = [0..%d];" % (i, n))
        fail = "%s * (st %s)" % (r(1e-3, 1e-2), p)
        if i == 0 and other and coupling in ("rate", "both"):
            # load sharing: pool 0 fails faster while the other kind is down
            down = ("((st %s) < %d)" % (other, pools[1]) if other[0] == "P"
                    else "((st %s) == down)" % other)
            fail = "(%s) * (1 + (%s * %s))" % (fail, r(1, 10), down)
        events.append("loc fail%s (%s)" % (p, fail))
        rate = r(1, 10)
        if shared:
            events.append("loc start%s (%s * ((st %s) < %d))" % (p, r(1, 10), p, n))
            events.append("syn rep%s (%s) {%s, Rep}" % (p, rate, p))
        elif rng.random() < 0.5:    # one repairer per failed component
            events.append("loc rep%s (%s * (%d - (st %s)))" % (p, rate, n, p))
        else:                       # one repairer for the pool
            events.append("loc rep%s (%s * ((st %s) < %d))" % (p, rate, p, n))
        auts.append(["  aut %s" % p, "    stt w[K%d]" % i,
                     "      to(--) fail%s" % p, "      to(++) rep%s" % p])
    for i in range(units):
        u = "U%d" % i
        events.append("loc fail%s (%s)" % (u, r(1e-3, 1e-2)))
        rate = r(1, 10)
        if shared:
            events.append("loc start%s (%s * ((st %s) == down))" % (u, r(1, 10), u))
            events.append("syn rep%s (%s) {%s, Rep}" % (u, rate, u))
        else:
            events.append("loc rep%s (%s)" % (u, rate))
        auts.append(["  aut %s" % u, "    stt up    to(down) fail%s" % u,
                     "    stt down  to(up) rep%s" % u])
    common = other and coupling in ("sync", "both")
    if common:
        # a common cause fails a component of pool 0 and one of the other kind
        events.append("syn cc (%s) {P0, %s}" % (r(1e-3, 1e-2), other))
        auts[0].append("      to(--) cc")
        j = kinds.index(other)
        if other[0] == "P":
            auts[j].append("      to(--) cc")
        else:
            auts[j][1] += "  to(down) cc"
    if shared:
        auts.append(["  aut Rep", "    stt idle " + " ".join("to(r%s) start%s" % (k, k) for k in kinds)]
                    + ["    stt r%s  to(idle) rep%s" % (k, k) for k in kinds])
    up = (["((st P%d) == %d)" % (i, n) for i, n in enumerate(pools)] +
          ["((st U%d) == up)" % i for i in range(units)])
    init = up + (["((st Rep) == idle)"] if shared else [])
    text = "\n".join(["// krontest's repairable family", "identifiers"] +
                     ["  " + x for x in ident] + ["", "events"] + ["  " + x for x in events] +
                     ["", "partial reachability = %s;" % " && ".join(init), "",
                      "network repair (continuous)"] + ["\n".join(a) for a in auts] +
                     ["", "results", "  all_up = %s;" % " && ".join(up), ""])
    what = "repair pools %s units %d, %s repair%s%s, product %d" % (
        ",".join(map(str, pools)), units, "shared" if shared else "own",
        ", common cause" if common else "",
        ", load sharing" if other and coupling in ("rate", "both") else "", product)
    return text, what


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


def judge(san, source, tmp, timeout, max_states):
    """source: san gen's arguments (a list) or the model's text."""
    model = os.path.join(tmp, "m.san")
    with open(model, "w") as f:
        if isinstance(source, str):
            f.write(source)
        else:
            g = subprocess.run([san, "gen"] + source, capture_output=True, text=True)
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
    ap.add_argument("--repair", type=int, default=0, metavar="N",
                    help="then N models of the repairable family (0)")
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
    rng_repair = random.Random(a.seed)     # its own draws: the others' stay as they were
    counts = {}
    fails = 0
    tmp = tempfile.mkdtemp(prefix="krontest.")
    try:
        for i in range(a.count + a.repair):
            if i < a.count:
                source = draw(rng)
                what = "san gen " + " ".join(source)
            else:
                source, what = repair_draw(rng_repair)
            verdict, why = judge(san, source, tmp, a.timeout, a.max_states)
            counts[verdict] = counts.get(verdict, 0) + 1
            line = "krontest %d: %s: %s: %s" % (i, verdict, what, why)
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
    print("krontest: seed %d, %d models: %s" % (a.seed, a.count + a.repair, ", ".join(
        "%s %d" % kv for kv in sorted(counts.items()))))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
