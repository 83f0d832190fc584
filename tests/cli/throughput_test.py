#!/usr/bin/env python3
"""thr() in results against independent references.

Every expected number comes from a closed form or from a chain this
file builds and solves by hand (plain Python: CI has no numpy), never
from san's own throughputs:

  - M/M/1/K: thr(arrive) = lambda (1 - P_K), thr(serve) = mu (1 - P_0),
    Little's law R = L / thr(arrive), both storages, every format;
  - functional rates, a synchronizing event with routing: the chain
    built here from the model's rules, thr(e) = sum_s pi(s) rate_e(s)
    [e enabled in s]; and the same sum over san's own vector;
  - a local event of a replicated automaton: thr(e) sums its copies,
    thr(e@P[k]) one of them; thr(w[*]) a replicated event family;
  - the generator's hand-written throughput indices (rate x enabling,
    doc/indices.md) against thr() of their events;
  - transient: thr(e) at t and its integral over [0, t] (expected
    firings), closed forms of a two-state chain;
  - sweep and compare; the errors (exit 2, file:line:col).

thr(e) must also be exactly the throughput san solve reports for e.

Environment: SAN (the binary), top_srcdir.
"""
import csv
import json
import math
import os
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import check, tally, run, generator, stationary  # noqa: E402

REL = 1e-9



def close(x, y, rel=REL, abs_=1e-13):
    return x is not None and y is not None and abs(x - y) <= max(rel * max(abs(x), abs(y)), abs_)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# storage -> options that reach 1e-9 relative on these small chains
STORAGES = {"sparse": ["--storage", "sparse", "--method", "direct", "--tol", "1e-12"],
            "kron": ["--storage", "kron", "--tol", "1e-14", "--max-iter", "200000"]}


def solve_json(path, storage, extra=()):
    rc, out, err = run(["solve", "-q", "-f", "json"] + STORAGES[storage] + list(extra) + [path])
    if rc != 0:
        print("san solve failed:", path, storage, rc, err.strip()[:400])
        return None
    return json.loads(out)


# ---------------------------------------------------------------------
# a stationary distribution by hand: pi Q = 0, sum pi = 1 (Gauss-Jordan)
# ---------------------------------------------------------------------

# ---------------------------------------------------------------------
# M/M/1/K: closed forms, Little's law
# ---------------------------------------------------------------------

MM1K = """identifiers
  lambda = 2;
  mu     = 3;
  K      = [0..10];
events
  loc arrive (lambda)
  loc serve  (mu)
reachability = 1;
network mm1k (continuous)
  aut queue
    stt s[K]
      to(++) arrive
      to(--) serve
results
  L   = st queue;
  X   = thr(arrive);
  Xs  = thr(serve);
  R   = L / thr(arrive);
  R2  = L / X;
  P0  = 1 - thr(serve) / mu;
  PK  = 1 - X / lambda;
"""


def mm1k_ref(lam, mu, k):
    rho = lam / mu
    w = [rho ** n for n in range(k + 1)]
    g = sum(w)
    p = [x / g for x in w]
    L = sum(n * p[n] for n in range(k + 1))
    X = lam * (1 - p[k])
    return {"L": L, "X": X, "Xs": mu * (1 - p[0]), "R": L / X, "R2": L / X,
            "P0": p[0], "PK": p[k]}


def test_mm1k(tmp):
    path = write(tmp, "mm1k.san", MM1K)
    for lam in (2.0, 5.0):
        ref = mm1k_ref(lam, 3.0, 10)
        for st in STORAGES:
            r = solve_json(path, st, ["-D", f"lambda={lam}"])
            check(r is not None, f"mm1k lambda={lam} [{st}] solves")
            if not r:
                continue
            for k, v in ref.items():
                got = r["results"].get(k)
                check(close(got, v), f"mm1k lambda={lam} [{st}] {k}: got {got}, want {v}")
            # the very number the report gives for the event
            check(r["results"]["X"] == r["throughputs"]["arrive"],
                  f"mm1k [{st}] thr(arrive) is the reported throughput")
            check(r["results"]["Xs"] == r["throughputs"]["serve"],
                  f"mm1k [{st}] thr(serve) is the reported throughput")
    ref = mm1k_ref(2.0, 3.0, 10)
    # csv and text carry the same values
    rc, out, _ = run(["solve", "-q", "-f", "csv", path])
    rows = {row["name"]: float(row["value"]) for row in csv.DictReader(l for l in out.splitlines() if not l.startswith("#"))
            if row["kind"] == "result"}
    check(rc == 0 and all(close(rows.get(k), v) for k, v in ref.items()),
          f"mm1k csv results: {rows}")
    rc, out, _ = run(["solve", "-q", path])
    text = {}
    inres = False
    for line in out.splitlines():
        if line.startswith("results"):
            inres = True
        elif inres and line.strip() == "":
            inres = False
        elif inres:
            name, val = line.split()
            text[name] = float(val)
    check(rc == 0 and all(close(text.get(k), v, 1e-11) for k, v in ref.items()),
          f"mm1k text results: {text}")


# ---------------------------------------------------------------------
# functional rates, a synchronizing event with routing: a chain by hand
# ---------------------------------------------------------------------

FUNC = """identifiers
  mu = 1.25;
  nu = 0.75;
  f  = 1 + st B + 2 * (st A == a1);
  g  = 0.5 * (1 + st A) + (st B == b1);
events
  loc go   (f)
  loc back (mu)
  syn sync (g)
  loc reset (nu)
reachability = 1;
network func (continuous)
  aut A
    stt a0 to(a1) go
    stt a1 to(a2) go
           to(a0) sync
    stt a2 to(a0) back
  aut B
    stt b0 to(b1) sync (0.7)
           to(b0) sync (0.3)
    stt b1 to(b0) reset
           to(b1) sync
results
  Xgo    = thr(go);
  Xback  = thr(back);
  Xsync  = thr(sync);
  Xreset = thr(reset);
  Xall   = thr(go) + thr(back) + thr(sync) + thr(reset);
  ratio  = thr(sync) / thr(go);
"""


def func_rates(a, b):
    """Every event's rate and whether it is enabled in (a, b), and its
    moves (destination, probability): the model's rules, by hand."""
    f = 1 + b + 2 * (a == 1)
    g = 0.5 * (1 + a) + (b == 1)
    ev = {}
    ev["go"] = (f, a in (0, 1), [((a + 1, b), 1.0)])
    ev["back"] = (1.25, a == 2, [((0, b), 1.0)])
    # sync: A leaves a1 only; B has it in both states
    bmoves = [(1, 0.7), (0, 0.3)] if b == 0 else [(1, 1.0)]
    ev["sync"] = (g, a == 1, [((0, nb), p) for nb, p in bmoves])
    ev["reset"] = (0.75, b == 1, [((a, 0), 1.0)])
    return ev


def test_functional(tmp):
    path = write(tmp, "func.san", FUNC)
    states = [(a, b) for a in range(3) for b in range(2)]
    arcs = []
    for i, (a, b) in enumerate(states):
        for rate, on, moves in func_rates(a, b).values():
            if on:
                for dst, p in moves:
                    arcs.append((i, states.index(dst), rate * p))
    pi = stationary(generator(len(states), arcs))
    ref = {e: 0.0 for e in ("go", "back", "sync", "reset")}
    for i, (a, b) in enumerate(states):
        for e, (rate, on, _) in func_rates(a, b).items():
            ref[e] += pi[i] * rate * on
    want = {"Xgo": ref["go"], "Xback": ref["back"], "Xsync": ref["sync"],
            "Xreset": ref["reset"], "Xall": sum(ref.values()), "ratio": ref["sync"] / ref["go"]}
    for st in STORAGES:
        vec = os.path.join(tmp, f"func_{st}.csv")
        r = solve_json(path, st, ["--vector", vec])
        check(r is not None, f"functional [{st}] solves")
        if not r:
            continue
        for k, v in want.items():
            got = r["results"].get(k)
            check(close(got, v), f"functional [{st}] {k}: got {got}, want {v}")
        for e in ref:
            check(r["results"]["X" + e] == r["throughputs"][e],
                  f"functional [{st}] thr({e}) is the reported throughput")
        # the explicit sum over san's own vector: rate x probability
        with open(vec) as fh:
            rows = list(csv.DictReader(fh))
        own = {e: 0.0 for e in ref}
        for row in rows:
            a, b = int(row["A"][1]), int(row["B"][1])
            for e, (rate, on, _) in func_rates(a, b).items():
                own[e] += float(row["probability"]) * rate * on
        for e in ref:
            check(close(r["results"]["X" + e], own[e], 1e-12),
                  f"functional [{st}] thr({e}) = sum of p x rate over the vector: "
                  f"{r['results']['X' + e]} vs {own[e]}")


# ---------------------------------------------------------------------
# a local event of a replicated automaton; a replicated event family
# ---------------------------------------------------------------------

REPL = """identifiers
  N = [0..2];
  lambda = 1.5;
  mu = 2;
  W = [0..2];
events
  loc up (lambda)
  loc down (mu)
  loc v[W] (0.25)
  loc w[W] (0.5)
reachability = 1;
network repl (continuous)
  aut P[N]
    stt idle
      to(using) up
    stt using
      to(idle) down
      to(idle) v[1]
  aut C
    stt c0 to(c1) w[0]
           to(c2) w[1]
    stt c1 to(c0) w[2]
    stt c2 to(c0) w[2]
results
  Xup   = thr(up);
  Xup1  = thr(up@P[1]);
  Xdown = thr(down);
  Xv    = thr(v[1]);
  Xvs   = thr(v[*]);
  Xv2   = thr(v[1]@P[2]);
  Xw    = thr(w[*]);
  Xw0   = thr(w[0]);
  Xw2   = thr(w[2]@C);
  busy  = nb using;
  R     = busy / thr(up);
"""


def test_replicated(tmp):
    path = write(tmp, "repl.san", REPL)
    lam, mu, v = 1.5, 2.0, 0.25
    # each replica alone: idle -> using at lambda, back at mu + v
    p_idle = (mu + v) / (lam + mu + v)
    copy = lam * p_idle
    want = {"Xup": 3 * copy, "Xup1": copy, "Xdown": 3 * mu * (1 - p_idle),
            "Xv": 3 * v * (1 - p_idle), "Xvs": 3 * v * (1 - p_idle),
            "Xv2": v * (1 - p_idle),
            # C: c0 leaves at 1 (two events of 0.5), c1 and c2 at 0.5: pi = (1/3, 1/3, 1/3)
            "Xw": 0.5 * 4 / 3, "Xw0": 0.5 / 3, "Xw2": 2 * 0.5 / 3,
            "busy": 3 * (1 - p_idle)}
    want["R"] = want["busy"] / want["Xup"]
    for st in STORAGES:
        r = solve_json(path, st)
        check(r is not None, f"replicated [{st}] solves")
        if not r:
            continue
        for k, val in want.items():
            got = r["results"].get(k)
            check(close(got, val), f"replicated [{st}] {k}: got {got}, want {val}")
        t = r["throughputs"]
        check(r["results"]["Xup"] == t["up@P[0]"] + t["up@P[1]"] + t["up@P[2]"],
              f"replicated [{st}] thr(up) sums the reported copies")
        check(r["results"]["Xup1"] == t["up@P[1]"], f"replicated [{st}] thr(up@P[1])")
        check(r["results"]["Xw"] == t["w[0]"] + t["w[1]"] + t["w[2]"],
              f"replicated [{st}] thr(w[*]) sums the family")
    # print round trip: the printed thr() reads back the same
    rc, out, _ = run(["print", path])
    check(rc == 0 and "thr(v[*])" in out and "thr(up@P[1])" in out and "thr(w[2]@C)" in out,
          "print writes thr() back")
    p2 = write(tmp, "repl_printed.san", out)
    a, b = solve_json(path, "sparse"), solve_json(p2, "sparse")
    check(a and b and a["results"] == b["results"], "printed model: the same results")


# ---------------------------------------------------------------------
# transient: thr at t and its integral, two-state chains
# ---------------------------------------------------------------------

TWO = """identifiers
  N = [0..1];
  lambda = 1.5;
  mu = 2;
events
  loc up (lambda)
  loc down (mu)
reachability = 1;
network two (continuous)
  aut P[N]
    stt idle to(using) up
    stt using to(idle) down
results
  Xup = thr(up);
  Xdown = thr(down);
  busy = nb using;
  R = busy / thr(up);
"""


def test_transient(tmp):
    path = write(tmp, "two.san", TWO)
    lam, mu = 1.5, 2.0
    s = lam + mu
    times = [0.0, 0.25, 1.0, 3.0]
    for st in ("sparse", "kron"):
        rc, out, err = run(["transient", "-q", "-f", "json", "--storage", st, "--rewards",
                            "--initial", "nb idle == 2", "--time", ",".join(map(str, times)), path])
        check(rc == 0, f"transient [{st}] runs: {err.strip()[:300]}")
        if rc != 0:
            continue
        d = json.loads(out)
        for row in d["times"]:
            t = row["t"]
            p_idle = mu / s + lam / s * math.exp(-s * t)
            fired = lam * (mu * t / s + lam / s ** 2 * (1 - math.exp(-s * t)))
            res, acc = row["results"], row["accumulated"]["results"]
            check(close(res["Xup"], 2 * lam * p_idle),
                  f"transient [{st}] t={t} thr(up) {res['Xup']} vs {2 * lam * p_idle}")
            check(close(res["Xdown"], 2 * mu * (1 - p_idle)),
                  f"transient [{st}] t={t} thr(down)")
            check(res["Xup"] == row["throughputs"]["up@P[0]"] + row["throughputs"]["up@P[1]"],
                  f"transient [{st}] t={t} thr(up) sums the reported copies")
            check(close(res["R"], 2 * (1 - p_idle) / (2 * lam * p_idle)),
                  f"transient [{st}] t={t} R")
            check(close(acc["Xup"], 2 * fired, 1e-9, 1e-12),
                  f"transient [{st}] t={t} integral of thr(up) {acc['Xup']} vs {2 * fired}")


# ---------------------------------------------------------------------
# sweep and compare
# ---------------------------------------------------------------------

def test_sweep_compare(tmp):
    path = write(tmp, "mm1k.san", MM1K)
    rc, out, err = run(["sweep", path, "-D", "lambda=1,2,4", "-f", "csv", "-q", "--no-times"])
    check(rc == 0, f"sweep runs: {err.strip()[:300]}")
    if rc == 0:
        for row in csv.DictReader(l for l in out.splitlines() if not l.startswith("#")):
            ref = mm1k_ref(float(row["lambda"]), 3.0, 10)
            for k in ("X", "R", "P0"):
                check(close(float(row[k]), ref[k]), f"sweep lambda={row['lambda']} {k}")
    rc, out, err = run(["compare", "-f", "json", "--no-marginals", path, f"{path} -D lambda=4"])
    check(rc == 0, f"compare runs: {err.strip()[:300]}")
    if rc == 0:
        d = json.loads(out)["results"]
        for i, lam in enumerate((2.0, 4.0)):
            ref = mm1k_ref(lam, 3.0, 10)
            check(close(d["R"]["values"][i], ref["R"]), f"compare lambda={lam} R")


# ---------------------------------------------------------------------
# the generator's rate x enabling indices (doc/indices.md) are thr()
# ---------------------------------------------------------------------

def test_generated(tmp):
    rc, text, err = run(["gen", "ms", "--mode", "async", "--slaves", "3", "--buffer", "4"])
    check(rc == 0, f"gen ms: {err.strip()[:300]}")
    if rc != 0:
        return
    # the slaves replicated: their events are r[1..3], s[1..3] (a family)
    text += ("  tc = thr(c);\n  tr = thr(r[1]) + thr(r[2]) + thr(r[3]);\n"
             "  ts = thr(s[*]);\n")
    path = write(tmp, "ms.san", text)
    for st in STORAGES:
        r = solve_json(path, st)
        check(r is not None, f"gen ms [{st}] solves")
        if not r:
            continue
        res = r["results"]
        check(close(res["pack_throughput"], res["tc"], 1e-12),
              f"gen ms [{st}] pack_throughput {res['pack_throughput']} = thr(c) {res['tc']}")
        check(close(res["pack_throughput"], res["tr"], 1e-12),
              f"gen ms [{st}] pack_throughput = thr(r[1]) + ... {res['tr']}")
        check(close(res["task_throughput"], res["ts"], 1e-12),
              f"gen ms [{st}] task_throughput {res['task_throughput']} = thr(s[*]) {res['ts']}")


# ---------------------------------------------------------------------
# refusals: exit 2 with the position
# ---------------------------------------------------------------------

def test_errors(tmp):
    path = write(tmp, "mm1k.san", MM1K)
    bad = MM1K.replace("loc serve  (mu)", "loc serve  (mu + thr(arrive))")
    p = write(tmp, "bad_rate.san", bad)
    rc, _, err = run(["solve", p])
    check(rc == 2 and "bad_rate.san:7:20: error: thr(arrive)" in err and "results only" in err,
          f"thr() in a rate: {rc} {err.strip()[:300]}")
    bad = MM1K.replace("  X   = thr(arrive);", "  X   = thr(arive);")
    p = write(tmp, "bad_event.san", bad)
    rc, _, err = run(["solve", p])
    check(rc == 2 and "bad_event.san:16:13: error:" in err and "unknown event 'arive'" in err,
          f"thr() of an unknown event: {rc} {err.strip()[:300]}")
    for cmd in (["passage", "--until", "thr(arrive) > 1"],
                ["transient", "--time", "1", "--initial", "X > 0"]):
        rc, _, err = run(cmd + [path])
        check(rc == 2 and "values of the solution" in err, f"{cmd[0]} {cmd[2]}: {rc} {err.strip()[:300]}")
    rc, _, err = run(["print", "--dialect", "peps2003", path])
    check(rc == 2 and "thr(arrive)" in err, f"--dialect peps2003 refuses thr(): {rc} {err.strip()[:300]}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for t in (test_mm1k, test_functional, test_replicated, test_transient,
                  test_sweep_compare, test_generated, test_errors):
            t(tmp)
    tally.exit()


if __name__ == "__main__":
    main()
