#!/usr/bin/env python3
"""boundtest.py - does the reported error estimate bound the true error?

san(1) ACCURACY promises that the error estimate of a converged solve
bounds the relative error of every state probability above 1e-14 and of
every marginal, throughput and result that sums non-negative terms.  The
differential tester (difftest.py) holds answers to a fixed 1e-8; this one
holds each answer to its own estimate, on the chains where residual tests
see least: long birth-death chains (M/M/1/K, K up to 2,000, rho near 1),
the same beside independent automata (product form), slow joint modes of
independent slow automata under a fast one, a quasi-birth-death chain (a
queue with phase-modulated arrivals), a tandem line with blocking, and
random nearly completely decomposable SANs (difftest_models' ncd, up to
400 states: the chains checked against GTH over all of their states).

References are independent of san: closed forms (product form) computed
here, or tests/dense_ref (GTH in long double) on the chain this script
builds itself.  Every method on both storages at --tol 1e-4, 1e-6, 1e-10:

  exit 0   for every state p with reference r:  |p - r| <= est * max(r, 1e-14)
           for every marginal, throughput and result v with reference w:
           the states' bound carried through the sum (est times the sum
           of max(p, 1e-14) |term| over its terms), plus 1e-14 |w| for the
           summation
           with est the run's solver.error_estimate (x (1 + 1e-9) for the
           printing).  Anything else is WRONG, unless the report said
           solver.error_bound false (an indicator: 'said').
  exit 1   'refused' when stderr says what to try, else 'bad-refusal'.
  other    'error'.

Exit status 1 when a run was WRONG, bad-refusal or error.

Examples:
  tests/difftest/boundtest.py --count 2
  tests/difftest/boundtest.py --families mm1k --tols 1e-10 --methods bicgstab -v
"""

import argparse
import csv
import decimal
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import difftest_models as dm  # noqa: E402
from difftest_models import find_dense_ref, find_san  # noqa: E402

decimal.getcontext().prec = 40
FAMILIES = ["mm1k", "mm1k_flip", "slow3", "qbd", "tandem", "ncd"]
# not in the default run (24,002 states: a few methods only)
LONG_FAMILIES = ["mm1k_long", "mm1k_kronlong"]
METHODS = ["auto", "direct", "power", "jacobi", "gs", "gmres", "bicgstab", "iad", "ml"]
KRON_METHODS = ["auto", "power", "jacobi", "gmres", "bicgstab", "iad", "ml"]
TOLS = [1e-4, 1e-6, 1e-10]
FLOOR = 1e-14                   # below it a probability is held absolutely
PRINT_SLACK = 1e-9              # the report's digits
INDEX_ROUNDOFF = 1e-14          # the sums behind an index, relative


class Model:
    """A .san text, its automata, and the reference: per state (tuple of
    local state names) its probability; the events' throughputs."""

    def __init__(self, name, text, auts, states, pi, thr, res=None):
        self.name, self.text, self.auts = name, text, auts
        self.states, self.pi, self.thr = states, pi, thr
        self.res = res or {}            # {result: (value, the states' bound weight)}


def normalise(w):
    s = sum(w)
    return [x / s for x in w]


def geometric(lam, mu, k):
    """(lam/mu)^n / sum, n = 0..k, for the doubles lam and mu exactly
    (40 digits: the chain's own rates, not their ratio rounded)."""
    rho = decimal.Decimal(lam) / decimal.Decimal(mu)
    w = [decimal.Decimal(1)]
    for _ in range(k):
        w.append(w[-1] * rho)
    return normalise(w)


def ratio2(a, b):
    """(b/(a+b), a/(a+b)) in 40 digits: a two-state automaton."""
    a, b = decimal.Decimal(a), decimal.Decimal(b)
    return [b / (a + b), a / (a + b)]


def product(parts):
    """Independent automata: [(names, probabilities)] -> states, pi."""
    states, pi = [()], [decimal.Decimal(1)]
    for names, p in parts:
        states = [s + (n,) for s in states for n in names]
        pi = [a * b for a in pi for b in p]
    return states, [float(x) for x in pi]


def queue_text(name, k, arrive, serve):
    return ("  aut %s\n    stt s[Q%s]\n      to(++) %s\n      to(--) %s\n"
            % (name, name, arrive, serve))


def gen_mm1k(rng):
    k = rng.choice([300, 600, 1000, 2000])
    mu = rng.uniform(1, 5)
    lam = mu * rng.uniform(0.9, 1.1)
    text = ("identifiers\n  QA = [0..%d];\nevents\n  loc arrive (%.17g)\n  loc serve (%.17g)\n"
            "reachability = 1;\nnetwork mm1k (continuous)\n%s"
            % (k, lam, mu, queue_text("A", k, "arrive", "serve")))
    text += ("results\n  empty = (st A) == s[0];\n  full = (st A) == s[%d];\n"
             "  length = st A;\n" % k)
    names = ["s[%d]" % n for n in range(k + 1)]
    states, pi = product([(names, geometric(lam, mu, k))])
    thr = {"arrive": lam * (1 - pi[-1]), "serve": mu * (1 - pi[0])}
    res = {"empty": (pi[0], max(pi[0], FLOOR)), "full": (pi[-1], max(pi[-1], FLOOR)),
           "length": (math.fsum(n * p for n, p in enumerate(pi)),
                      math.fsum(n * max(p, FLOOR) for n, p in enumerate(pi)))}
    return Model("mm1k K=%d rho=%.4f" % (k, lam / mu), text, ["A"], states, pi, thr, res)


def gen_mm1k_long(rng):
    """24,002 states: past the 20,000 of a stored chain's LU check by
    count, within it by its band."""
    return gen_mm1k_flip(rng, 12000)


def gen_mm1k_kronlong(rng):
    """6,002 states: past the 4,096 the descriptor's LU check probes."""
    return gen_mm1k_flip(rng, 3000)


def gen_mm1k_flip(rng, k=None):
    k = k or rng.choice([300, 600, 1000])
    mu = rng.uniform(1, 5)
    lam = mu * rng.uniform(0.95, 1.05)
    a, b = rng.uniform(0.1, 10), rng.uniform(0.1, 10)
    text = ("identifiers\n  QA = [0..%d];\nevents\n  loc arrive (%.17g)\n  loc serve (%.17g)\n"
            "  loc up (%.17g)\n  loc down (%.17g)\nreachability = 1;\n"
            "network mm1kflip (continuous)\n%s  aut F\n    stt f0\n      to(f1) up\n"
            "    stt f1\n      to(f0) down\n"
            % (k, lam, mu, a, b, queue_text("A", k, "arrive", "serve")))
    qn = ["s[%d]" % n for n in range(k + 1)]
    qp = geometric(lam, mu, k)
    states, pi = product([(qn, qp), (["f0", "f1"], ratio2(a, b))])
    qp = [float(x) for x in qp]
    thr = {"arrive": lam * (1 - qp[-1]), "serve": mu * (1 - qp[0]),
           "up": a * b / (a + b), "down": b * a / (a + b)}
    return Model("mm1k+flip K=%d rho=%.4f" % (k, lam / mu), text, ["A", "F"], states, pi, thr)


def gen_slow3(rng):
    """A slow queue, a slow two-state cycle, a fast flip: independent,
    so the slow joint mode of the first two is in no coupled group."""
    k = rng.choice([150, 300])
    lam, mu = 1e-6 * rng.uniform(0.9, 1.1), 1.2e-6 * rng.uniform(0.9, 1.1)
    c1, c2 = 1e-6 * rng.uniform(0.5, 2), 1e-6 * rng.uniform(0.5, 2)
    f1, f2 = 10 * rng.uniform(0.5, 2), 10 * rng.uniform(0.5, 2)
    text = ("identifiers\n  QA = [0..%d];\nevents\n  loc arrive (%.17g)\n  loc serve (%.17g)\n"
            "  loc go (%.17g)\n  loc back (%.17g)\n  loc on (%.17g)\n  loc off (%.17g)\n"
            "reachability = 1;\nnetwork slow3 (continuous)\n%s"
            "  aut C\n    stt c0\n      to(c1) go\n    stt c1\n      to(c0) back\n"
            "  aut F\n    stt f0\n      to(f1) on\n    stt f1\n      to(f0) off\n"
            % (k, lam, mu, c1, c2, f1, f2, queue_text("A", k, "arrive", "serve")))
    qn = ["s[%d]" % n for n in range(k + 1)]
    qp, cp, fp = geometric(lam, mu, k), ratio2(c1, c2), ratio2(f1, f2)
    states, pi = product([(qn, qp), (["c0", "c1"], cp), (["f0", "f1"], fp)])
    qp, cp, fp = [float(x) for x in qp], [float(x) for x in cp], [float(x) for x in fp]
    thr = {"arrive": lam * (1 - qp[-1]), "serve": mu * (1 - qp[0]),
           "go": c1 * cp[0], "back": c2 * cp[1], "on": f1 * fp[0], "off": f2 * fp[1]}
    return Model("slow3 K=%d" % k, text, ["A", "C", "F"], states, pi, thr)


def dense(model_name, text, auts, states, arcs, thr_of, dense_ref):
    """The reference by GTH over the chain built here: arcs [(i, j, rate)]."""
    inp = "%d\n" % len(states) + "".join("%d %d %s\n" % (i, j, float(r).hex()) for i, j, r in arcs)
    p = subprocess.run([dense_ref], input=inp, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("dense_ref: %s" % p.stderr.strip())
    pi = [float(x) for x in p.stdout.split()]
    return Model(model_name, text, auts, states, pi, thr_of(pi))


def gen_qbd(rng, dense_ref):
    """M/M/1/K whose arrival rate follows a two-phase environment."""
    k = rng.choice([100, 200, 250])
    mu = rng.uniform(1, 5)
    l0, l1 = mu * rng.uniform(0.5, 0.9), mu * rng.uniform(1.1, 1.6)
    a, b = rng.uniform(0.01, 1), rng.uniform(0.01, 1)
    text = ("identifiers\n  QA = [0..%d];\n  lam = ((st P) == p0) * %.17g + ((st P) == p1) * %.17g;\n"
            "events\n  loc arrive (lam)\n  loc serve (%.17g)\n  loc up (%.17g)\n"
            "  loc down (%.17g)\nreachability = 1;\nnetwork qbd (continuous)\n%s"
            "  aut P\n    stt p0\n      to(p1) up\n    stt p1\n      to(p0) down\n"
            % (k, l0, l1, mu, a, b, queue_text("A", k, "arrive", "serve")))
    states = [("s[%d]" % n, ph) for n in range(k + 1) for ph in ("p0", "p1")]
    at = {s: i for i, s in enumerate(states)}
    arcs = []
    for n in range(k + 1):
        for ph, lam, sw, to in (("p0", l0, a, "p1"), ("p1", l1, b, "p0")):
            i = at[("s[%d]" % n, ph)]
            if n < k:
                arcs.append((i, at[("s[%d]" % (n + 1), ph)], lam))
            if n > 0:
                arcs.append((i, at[("s[%d]" % (n - 1), ph)], mu))
            arcs.append((i, at[("s[%d]" % n, to)], sw))

    def thr(pi):
        t = {"arrive": 0.0, "serve": 0.0, "up": 0.0, "down": 0.0}
        for (q, ph), p in zip(states, pi):
            n = int(q[2:-1])
            t["arrive"] += p * (l0 if ph == "p0" else l1) * (n < k)
            t["serve"] += p * mu * (n > 0)
            t["up" if ph == "p0" else "down"] += p * (a if ph == "p0" else b)
        return t
    return dense("qbd K=%d" % k, text, ["A", "P"], states, arcs, thr, dense_ref)


def gen_tandem(rng, dense_ref):
    """Two queues in line; the first blocks when the second is full."""
    c1, c2 = rng.choice([15, 20]), rng.choice([15, 20])
    lam = rng.uniform(0.8, 1.2)
    m1, m2 = lam * rng.uniform(0.95, 1.1), lam * rng.uniform(0.95, 1.1)
    text = ("identifiers\n  QA = [0..%d];\n  QB = [0..%d];\nevents\n  loc arrive (%.17g)\n"
            "  syn move (%.17g)\n  loc leave (%.17g)\nreachability = 1;\n"
            "network tandem (continuous)\n%s%s"
            % (c1, c2, lam, m1, m2, queue_text("A", c1, "arrive", "move"),
               queue_text("B", c2, "move", "leave")))
    states = [("s[%d]" % i, "s[%d]" % j) for i in range(c1 + 1) for j in range(c2 + 1)]
    at = {s: n for n, s in enumerate(states)}
    arcs = []
    for i in range(c1 + 1):
        for j in range(c2 + 1):
            s = at[("s[%d]" % i, "s[%d]" % j)]
            if i < c1:
                arcs.append((s, at[("s[%d]" % (i + 1), "s[%d]" % j)], lam))
            if i > 0 and j < c2:
                arcs.append((s, at[("s[%d]" % (i - 1), "s[%d]" % (j + 1))], m1))
            if j > 0:
                arcs.append((s, at[("s[%d]" % i, "s[%d]" % (j - 1))], m2))

    def thr(pi):
        t = {"arrive": 0.0, "move": 0.0, "leave": 0.0}
        for (a, b), p in zip(states, pi):
            i, j = int(a[2:-1]), int(b[2:-1])
            t["arrive"] += p * lam * (i < c1)
            t["move"] += p * m1 * (i > 0 and j < c2)
            t["leave"] += p * m2 * (j > 0)
        return t
    return dense("tandem %dx%d" % (c1, c2), text, ["A", "B"], states, arcs, thr, dense_ref)


def gen_ncd(rng, dense_ref):
    """A random nearly completely decomposable SAN of difftest_models
    (fast rates inside blocks, 1e-8..1e-6 between them; up to 400
    states, so most are checked against GTH over the whole chain), with
    its results: a result sums terms of both signs, its states' bound is
    est times the sum of max(p, FLOOR) |value|."""
    m, ref = dm.generate("ncd", rng.randrange(1 << 48), dense_ref, 400)
    at = [{q: k for k, q in enumerate(a.states)} for a in m.auts]
    res = {}
    for name, expr in m.results:
        vals = [expr.eval(m, tuple(at[a][q] for a, q in enumerate(s))) for s in ref.states]
        res[name] = (ref.res[name][0], math.fsum(abs(v) * max(p, FLOOR)
                                                 for v, p in zip(vals, ref.pi)))
    thr = {e: v for e, (v, _) in ref.thr.items()}
    return Model("ncd %d states (%s)" % (len(ref.states), m.notes[1][11:]), m.san_text(),
                 ref.auts, ref.states, ref.pi, thr, res)


def generate(family, rng, dense_ref):
    if family in ("qbd", "tandem", "ncd"):
        return globals()["gen_" + family](rng, dense_ref)
    return globals()["gen_" + family](rng)


# ---------------------------------------------------------------------------

def read_vector(path, auts):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if rows[0] != ["index"] + auts + ["probability"]:
        raise ValueError("vector header %r" % rows[0])
    return {tuple(r[1:-1]): float(r[-1]) for r in rows[1:]}


def marginals(model):
    """{aut: {state: (probability, the state bound's weight: the sum of
    max(p, FLOOR) over its states)}}."""
    out = {a: {} for a in model.auts}
    for s, p in zip(model.states, model.pi):
        for a, q in zip(model.auts, s):
            v, w = out[a].get(q, (0.0, 0.0))
            out[a][q] = (v + p, w + max(p, FLOOR))
    return out


def worst_error(model, got, js, est):
    """max over the judged numbers of |x - ref| / allowed, and the text of
    the worst.  A state is allowed est max(ref, FLOOR); an index the
    states' bound carried through its sum, plus INDEX_ROUNDOFF of it for
    the summation (san's and this script's)."""
    worst = (0.0, "")
    bound = est * (1 + PRINT_SLACK)

    def check(what, x, r, allowed):
        nonlocal worst
        if not isinstance(x, (int, float)) or not math.isfinite(x):
            worst = max(worst, (math.inf, "%s: san %r ref %.6g" % (what, x, r)))
            return
        err = abs(x - r)
        ratio = err / allowed if allowed > 0 else (math.inf if err else 0.0)
        if ratio > worst[0]:
            worst = (ratio, "%s: san %.12g ref %.12g (rel err %.2g, estimate %.2g)"
                     % (what, x, r, err / max(r, FLOOR), est))
    for s, p in zip(model.states, model.pi):
        check("state (%s)" % ",".join(s), got.get(s, math.nan), p, bound * max(p, FLOOR))
    for a, qs in marginals(model).items():
        for q, (v, w) in qs.items():
            check("marginal %s=%s" % (a, q), js.get("marginals", {}).get(a, {}).get(q), v,
                  bound * w + INDEX_ROUNDOFF * v)
    for e, v in model.thr.items():
        check("throughput %s" % e, js.get("throughputs", {}).get(e), v,
              bound * max(v, FLOOR) + INDEX_ROUNDOFF * v)
    for r, (v, w) in model.res.items():
        check("result %s" % r, js.get("results", {}).get(r), v,
              bound * w + INDEX_ROUNDOFF * abs(v))
    return worst


REFUSAL_HINT = re.compile(r"\btry\b|\buse\b|--method|--tol", re.I)


def run_one(san, model, path, storage, method, tol, workdir, timeout):
    vec = os.path.join(workdir, "v-%s-%s.csv" % (storage, method))
    cmd = [san, "solve", path, "--format", "json", "-q", "--method", method, "--storage",
           storage, "--tol", "%g" % tol, "--lump", "off", "--vector", vec]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "error", "timeout after %g s" % timeout, 0.0
    if p.returncode == 0:
        try:
            js = json.loads(p.stdout)
            est = js["solver"]["error_estimate"]
            got = read_vector(vec, model.auts)
        except (ValueError, KeyError, OSError, TypeError) as ex:
            return "error", "exit 0, unreadable output: %s" % ex, 0.0
        if not isinstance(est, (int, float)):
            return "WRONG", "exit 0 without an error estimate", math.inf
        ratio, text = worst_error(model, got, js, est)
        if ratio > 1 and js["solver"].get("error_bound", True) is False:
            return "said", text, ratio      # the report says it is no bound
        return ("ok" if ratio <= 1 else "WRONG"), text, ratio
    last = (p.stderr.strip().splitlines() or [""])[-1]
    if storage == "kron" and method not in KRON_METHODS and p.returncode in (1, 2):
        return "unsupported", last, 0.0
    if p.returncode == 1:
        return ("refused" if REFUSAL_HINT.search(p.stderr) else "bad-refusal"), last, 0.0
    return "error", "exit %d: %s" % (p.returncode, last), 0.0


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=1, help="models per family")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--storages", default="sparse,kron")
    ap.add_argument("--tols", default=",".join("%g" % t for t in TOLS))
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    keep = tempfile.TemporaryDirectory(prefix="boundtest-ref-")
    san, dense_ref = find_san(), find_dense_ref(keep.name)
    if not san or not dense_ref or not os.path.exists(san):
        print("boundtest: no san or no dense reference program", file=sys.stderr)
        return 99
    families = a.families.split(",")
    tols = [float(t) for t in a.tols.split(",")]
    storages = a.storages.split(",")
    counts, worst_ratio, failures = {}, {}, []
    with tempfile.TemporaryDirectory(prefix="boundtest-") as wd:
        for f in families:
            rng = random.Random("%d/%s" % (a.seed, f))
            for k in range(a.count):
                model = generate(f, rng, dense_ref)
                path = os.path.join(wd, "%s-%d.san" % (f, k))
                with open(path, "w") as fh:
                    fh.write(model.text)
                for st in storages:
                    for meth in a.methods.split(","):
                        for tol in tols:
                            v, text, ratio = run_one(san, model, path, st, meth, tol, wd,
                                                     a.timeout)
                            key = (f, st, tol)
                            counts.setdefault(key, {}).setdefault(v, 0)
                            counts[key][v] += 1
                            if v == "ok":
                                worst_ratio[key] = max(worst_ratio.get(key, 0.0), ratio)
                            if v in ("WRONG", "bad-refusal", "error"):
                                failures.append("%s [%s] --storage %s -m %s --tol %g: %s: %s"
                                                % (f, model.name, st, meth, tol, v, text))
                            if a.verbose:
                                print("%-10s %-22s %-6s %-8s %-6g %-11s %s"
                                      % (f, model.name, st, meth, tol, v, text), flush=True)
    print("%-10s %-6s %-6s %4s %4s %7s %11s %5s %5s  %s" % ("family", "store", "tol", "ok", "said",
          "refused", "unsupported", "WRONG", "other", "max err/estimate (ok)"))
    for (f, st, tol), c in sorted(counts.items()):
        other = c.get("bad-refusal", 0) + c.get("error", 0)
        print("%-10s %-6s %-6g %4d %4d %7d %11d %5d %5d  %.3g"
              % (f, st, tol, c.get("ok", 0), c.get("said", 0), c.get("refused", 0),
                 c.get("unsupported", 0),
                 c.get("WRONG", 0), other, worst_ratio.get((f, st, tol), 0.0)))
    for line in failures:
        print("FAIL " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
