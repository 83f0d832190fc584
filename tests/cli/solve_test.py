#!/usr/bin/env python3
"""Steady-state tests of `san solve` against independent references.

Every expected number here comes from a closed form or a hand-solved
chain, never from san itself: M/M/1/K, product-form resource sharing,
Erlang's loss formula, the three-state chain of PEPS's example.san.
Every solver method must reach them.

Environment: SAN (the binary), top_srcdir, SHARED_MODELS.
"""
import decimal
import json
import math
import os
import subprocess
import sys
import tempfile
from itertools import combinations, product
from math import fsum
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, SHARED, check, rs_full, rs_text, tally  # noqa: E402

MODELS = os.path.join(TOP, "models")

METHODS = ["direct", "power", "jacobi", "gs", "gmres", "bicgstab"]
REL = 1e-9          # asked for 1e-12 residual; compare to 1e-9 relative



def close(x, y, rel=REL, abs_=1e-12):
    return abs(x - y) <= max(rel * max(abs(x), abs(y)), abs_)


# The solver's own paths on the models as written: lumping the replicas
# (issue 28) is tested against them in lump_test.py.
LUMP_OFF = {"solve": ["--lump", "off"], "sweep": ["--lump", "off"]}


def run(args, stdin=None):
    args = args[:1] + LUMP_OFF.get(args[0], []) + args[1:] if args else args
    p = subprocess.run([SAN] + args, input=stdin, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


# Iterative methods stop on the residual; the error of the vector can be a
# few thousand times larger on badly conditioned chains, so they are asked
# for 1e-14 to meet 1e-9 relative on every index.  Direct gets 1e-12.
TOL = {"direct": "1e-12"}


def solve(path, method="direct", extra=(), stdin=None):
    rc, out, err = run(["solve", "-q", "-f", "json", "--method", method,
                        "--tol", TOL.get(method, "1e-14"),
                        "--max-iter", "200000"] + list(extra) + [path], stdin)
    if rc != 0:
        print("san solve failed:", path, method, rc, err.strip()[:500])
        return None
    return json.loads(out)


def expect_results(path, ref, what, methods=METHODS, extra=()):
    for m in methods:
        r = solve(path, m, extra)
        check(r is not None, f"{what} [{m}] solves")
        if r is None:
            continue
        check(r["solver"]["converged"], f"{what} [{m}] converged")
        check(r["solver"]["residual"] <= float(TOL.get(m, "1e-14")), f"{what} [{m}] residual {r['solver']['residual']}")
        for k, v in ref.items():
            got = r["results"].get(k)
            check(got is not None and close(got, v), f"{what} [{m}] {k}: got {got}, want {v}")
        for aut, marg in r["marginals"].items():
            check(close(sum(marg.values()), 1.0, 1e-12), f"{what} [{m}] marginals of {aut} sum to 1")


# ---------------------------------------------------------------------
# references
# ---------------------------------------------------------------------

def mm1k(lam, mu, K):
    rho = lam / mu
    w = [rho ** n for n in range(K + 1)]
    g = sum(w)
    p = [x / g for x in w]
    return {"empty": p[0], "full": p[K], "length": sum(n * p[n] for n in range(K + 1)),
            "busy": 1 - p[0]}


def product_form(ratios, R):
    """Truncated product form of reversible resource sharing."""
    n = len(ratios)
    weight = {}
    for k in range(R + 1):
        for s in combinations(range(n), k):
            weight[s] = math.prod(ratios[i] for i in s)
    g = sum(weight.values())
    full = sum(w for s, w in weight.items() if len(s) == R) / g
    empty = weight[()] / g
    use1 = sum(w for s, w in weight.items() if 0 in s) / g
    avg = sum(len(s) * w for s, w in weight.items()) / g
    return {"full": full, "empty": empty, "use1": use1, "average": avg}


def erlang_b(c, a):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def rs_model(nproc, R, lam, mu):
    """The PEPS rs model, scaled: nproc processes P[0..n-1], R resources."""
    return rs_text(nproc, R, lam, mu, "  empty = nb using == 0;\n"
                   "  use1 = st P[0] == using;\n  average = nb using;\n")


def write_tmp(text, suffix=".san"):
    f = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False)
    f.write(text)
    f.close()
    return f.name


# ---------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------

def test_mm1k():
    path = os.path.join(MODELS, "mm1k.san")
    expect_results(path, mm1k(2, 3, 10), "mm1k")
    # -D overrides a constant: lambda 4 > mu (rho > 1)
    expect_results(path, mm1k(4, 3, 10), "mm1k -D lambda=4", extra=["-D", "lambda=4"])


def test_rs_shared():
    path = os.path.join(SHARED, "peps", "rs.san")
    # 11 identical processes, one resource: P(1 in use) = 11 r / (1 + 11 r)
    r = 3 / 6
    full = 11 * r / (1 + 11 * r)
    expect_results(path, {"full": full, "empty": 1 - full, "average": full,
                          "use1": r / (1 + 11 * r)}, "rs.san")
    j = solve(path)
    check(j["reachable_states"] == 12 and j["product_states"] == {"digits": "2048", "approx": 2048}, "rs.san sizes 2048 / 12")
    acq = sum(v for k, v in j["throughputs"].items() if k.startswith("Acq@"))
    rel = sum(v for k, v in j["throughputs"].items() if k.startswith("Rel@"))
    check(close(acq, rel) and close(rel, 6 * full), "rs.san: acquire and release throughputs balance")


def test_rs_manual():
    # the PEPS manual's 4-process model: published values
    published = {"full": 0.562082777, "empty": 0.080106809, "use1": 0.198931909,
                 "average": 1.481975968}
    ratios = [1 / 2, 4 / 5, 3 / 2, 5 / 3]
    ref = product_form(ratios, 2)
    for k, v in published.items():
        check(abs(ref[k] - v) < 5e-10, f"product form reproduces the published {k}")
    expect_results(os.path.join(MODELS, "rs_functions.san"), ref, "rs_functions")
    expect_results(os.path.join(MODELS, "rs_pool.san"), ref, "rs_pool")


def test_rs_scaled():
    for nproc, R in [(8, 3), (12, 4), (16, 16)]:
        path = write_tmp(rs_model(nproc, R, 2.5, 4))
        ref = product_form([2.5 / 4] * nproc, R)
        # a 16-cube has no sparse LU: direct must refuse, not run out of memory
        methods = ["gs", "gmres"] if nproc == 16 else ["direct", "gs", "gmres"]
        expect_results(path, ref, f"rs N={nproc} R={R}", methods=methods)
        if nproc == 16:
            rc, _, err = run(["solve", "-q", "--method", "direct", path])
            check(rc == 1 and "GiB" in err and "--method auto" in err,
                  "direct refuses an LU too large for memory, naming the estimate")
            r = solve(path, "auto")
            check(r is not None and r["solver"]["method"] != "direct", "auto avoids the huge LU")
        os.unlink(path)


def test_first_available():
    a = 3 / 1.5
    b = erlang_b(4, a)
    expect_results(os.path.join(MODELS, "first_available.san"),
                   {"lost": b, "busy_mean": a * (1 - b)}, "first_available")


def test_example():
    # PEPS example.san, solved by hand on its three reachable states
    # x0=(a0,b0), x1=(a1,b0), x2=(a2,b1): 0.1 x0 = 1.2 x2, 3 x1 = 1.2 x2 + ... gives
    # x = (12, 1, 2.5) / 15.5.  (a2,b0) is an isolated pocket and is dropped.
    path = os.path.join(SHARED, "peps", "example.san")
    expect_results(path, {"resA": 1 / 15.5, "resB": 2.5 / 15.5}, "example.san")
    rc, out, err = run(["solve", "-q", path])
    check("isolated pocket" in err and "A:a2 B:b0" in err, "example.san warns about the dropped pocket")


def test_printers():
    # printers3c: every method agrees with direct; marginals consistent with results
    path = os.path.join(SHARED, "peps", "printers3c.san")
    d = solve(path)
    check(abs(sum(d["results"].values()) - 1) < 1e-12, "printers3c: the eight results partition the space")
    for m in METHODS[1:]:
        r = solve(path, m)
        check(r is not None and all(close(r["results"][k], v) for k, v in d["results"].items()),
              f"printers3c [{m}] agrees with direct")


def test_vector_and_formats():
    path = os.path.join(MODELS, "mm1k.san")
    out = tempfile.mktemp(suffix=".csv")
    rc, _, err = run(["solve", "-q", "--vector", out, path])
    check(rc == 0 and os.path.exists(out), "--vector writes a file")
    if os.path.exists(out):
        rows = open(out).read().strip().split("\n")
        check(rows[0] == "index,queue,probability", "vector header")
        probs = [float(r.split(",")[-1]) for r in rows[1:]]
        ref = mm1k(2, 3, 10)
        check(len(probs) == 11 and close(sum(probs), 1, 1e-12) and close(probs[0], ref["empty"]),
              "vector rows hold the distribution")
        os.unlink(out)
    rc, out, _ = run(["solve", "-q", "-f", "csv", path])
    table = "".join(l for l in out.splitlines(True) if not l.startswith("#"))
    check(rc == 0 and out.startswith("# schema: san-output/1\n")
          and table.startswith("kind,name,state,value\n") and "result,empty,," in table, "csv output")
    rc, out, _ = run(["solve", "-q", path])
    check(rc == 0 and "results" in out and "marginals" in out and "throughputs" in out
          and "most probable states" in out, "text report sections")


def test_errors():
    two_classes = write_tmp("""identifiers r = 1;
events loc a (r) loc b (r) loc c (r)
partial reachability = st A == x;
network two (continuous)
  aut A
    stt x to(y) a to(z) b
    stt y to(w) c
    stt w to(y) c
    stt z
results
""")
    # answered from the initial state (issue 31): each class reached
    # with 1/2, named with one of its states
    rc, out, err = run(["solve", "-q", two_classes])
    check(rc == 0 and "classes      2 closed" in out and "e.g. A:z" in out
          and "e.g. A:y" in out and out.count("reached with probability 0.5 ") == 2,
          f"several closed classes: answered, the classes named ({rc}: {err[:200]})")
    absorbing = write_tmp("""identifiers r = 1;
events loc a (r) loc b (r)
reachability = 1;
network absorb (continuous)
  aut A
    stt x to(y) a
    stt y
  aut B
    stt u to(v) b
    stt v
results
  done = (st A == y) && (st B == v);
""")
    r = solve(absorbing)
    check(r is not None and r["results"]["done"] == 1.0 and r["transient_states"] == 3,
          "an absorbing state reached from everywhere is the steady state; the rest is transient")
    os.unlink(absorbing)
    neg = write_tmp("""identifiers f = 2 - 3 * (st A == y);
events loc a (f) loc b (1)
reachability = 1;
network neg (continuous)
  aut A
    stt x to(y) a
    stt y to(x) b
results
""")
    rc, _, err = run(["solve", "-q", neg])
    check(rc == 0, "a negative rate where the event is disabled is harmless")
    neg2 = write_tmp("""identifiers f = 2 - 3 * (st B == v);
events loc a (f) loc b (1) loc c (1) loc d (1)
reachability = 1;
network neg (continuous)
  aut A
    stt x to(y) a
    stt y to(x) b
  aut B
    stt u to(v) c
    stt v to(u) d
results
""")
    rc, _, err = run(["solve", "-q", neg2])
    check(rc == 2 and "negative" in err and "B:v" in err, "negative functional rate: exit 2 naming the state")
    route = write_tmp("""identifiers p = 0.5 + 0.25 * (st B == v);
events loc a (1) loc b (1) loc c (1) loc d (1)
reachability = 1;
network route (continuous)
  aut A
    stt x to(y) a(p) to(x) a(0.5)
    stt y to(x) b
  aut B
    stt u to(v) c
    stt v to(u) d
results
""")
    rc, _, err = run(["solve", "-q", route])
    check(rc == 2 and "sum to" in err and "'a'" in err, "functional routing not summing to 1: exit 2")
    rc, _, err = run(["solve", "-q", "--max-states", "5", os.path.join(MODELS, "mm1k.san")])
    check(rc == 2 and "max-states" in err, "--max-states refuses")
    rc, _, err = run(["solve", "-q", "--max-memory", "1k", os.path.join(MODELS, "mm1k.san")])
    check(rc != 0 and "memory" in err, "--max-memory refuses")
    rc, out, err = run(["solve", "-q", "--method", "power", "--max-iter", "2", "--tol", "1e-14",
                        os.path.join(MODELS, "rs_pool.san")])
    check(rc == 1 and "not converged" in (out + err).lower(), "non-convergence: exit 1 with the best residual")
    for bad in (["--method", "nope"], ["--tol", "-1"], ["--format", "xml"], ["--bogus"], []):
        rc, _, err = run(["solve"] + bad + ([os.path.join(MODELS, "mm1k.san")] if bad else []))
        check(rc == 2, f"usage error {bad}: exit 2")
    rc, _, err = run(["solve", "-D", "nosuch=3", os.path.join(MODELS, "mm1k.san")])
    check(rc == 2 and "nosuch" in err, "-D of an unknown constant: exit 2")
    rc, out, _ = run(["solve", "-q", "-f", "json", "-"], open(os.path.join(MODELS, "mm1k.san")).read())
    check(rc == 0 and close(json.loads(out)["results"]["empty"], mm1k(2, 3, 10)["empty"]), "model from stdin")
    for p in (two_classes, neg, neg2, route):
        os.unlink(p)


def test_products():
    """The report counts the products x Q and their time, on both storages:
    one per sweep of power and Jacobi, one per GMRES step, two per
    BiCGSTAB step, plus residual checks, plus those of the refinement
    cycles that verify the answer (iterations counts both: a cycle is a
    smoothing step, a balance check and the aggregation over every
    partition, one product per block over the descriptor, none on the
    sparse path)."""
    path = os.path.join(MODELS, "rs_pool.san")
    per_iter = {"power": 1, "jacobi": 1, "gmres": 1, "bicgstab": 2}
    for storage in ("sparse", "kron"):
        for m, k in per_iter.items():
            r = solve(path, m, ["--storage", storage])
            check(r is not None, f"products [{storage} {m}] solves")
            if r is None:
                continue
            s = r["solver"]
            cyc = s["refine_cycles"]
            kern = s["iterations"] - cyc
            # a cycle: a smoothing step (1 product on the sparse path,
            # 2 over the descriptor), 2 balance checks, and over the
            # descriptor one product per block of rs_pool's partitions:
            # P1..P4 (2 blocks each), Pool (3), Pi with Pool (5 each), the
            # whole chain (11): 42
            per_cycle = 3 if storage == "sparse" else 4 + 42
            check(kern > 0 and cyc >= 1 and
                  k * kern <= s["products"] <= k * kern + 40 + per_cycle * cyc,
                  f"products [{storage} {m}]: {s['products']} for {kern} iterations "
                  f"and {cyc} refinement cycles")
            check(s["product_s"] is not None and 0 < s["product_s"] <= s["time_s"] + 1e-3,
                  f"product_s [{storage} {m}]: {s['product_s']} (solve {s['time_s']})")
    r = solve(path, "gs")
    check(r is not None and 0 < r["solver"]["products"] < r["solver"]["iterations"],
          "gs: a product per residual check only, not per sweep")


def test_residual_storages():
    """One residual for both storages: three power steps from the uniform
    vector leave the same vector, whose residual, max |pi Q| / (max rate *
    max pi), must come out the same over the sparse generator and over the
    descriptor, and be of order 1, not shrunk by the number of states."""
    for model in ("rs_pool.san", "mm1k.san"):
        res = {}
        for storage in ("sparse", "kron"):
            rc, out, _ = run(["solve", "-q", "-f", "json", "--storage", storage, "--method", "power",
                              "--max-iter", "3", os.path.join(MODELS, model)])
            check(rc == 1, f"{model} [{storage}]: 3 power steps do not converge (exit {rc})")
            res[storage] = json.loads(out)["solver"]["residual"] if out else None
        check(res["sparse"] is not None and res["kron"] is not None
              and close(res["sparse"], res["kron"], 1e-12) and 1e-3 < res["sparse"] < 1,
              f"{model}: the same residual on both storages: {res}")


NCD_MODEL = """identifiers
  eps = {eps};
  F = [0..{last}];
  up = 1 + ((st M == m1) * 2) + ((st M == m2) * 4) + ((st M == m3) * 8);
events
  loc s0 (eps * 1)
  loc s1 (eps * 2)
  loc s2 (eps * 3)
  loc s3 (eps * 4)
  loc on (up)
  loc off (5)
reachability = 1;
network ncd (continuous)
  aut M
    stt m0 to(m1) s0
    stt m1 to(m2) s1
    stt m2 to(m3) s2
    stt m3 to(m0) s3
  aut P[F]
    stt idle to(busy) on
    stt busy to(idle) off
results
  mode0 = st M == m0;
  mode1 = st M == m1;
  mode2 = st M == m2;
  mode3 = st M == m3;
"""


def test_verified():
    """Issue 13: every answer that says converged is right, on both
    storages, and a wrong one is refused with what to try."""
    # M/M/1/K with lambda = 108 mu: the largest |q_jj| is the empty queue,
    # of probability 1e-20; the direct method broke down fixing it
    for lam in (108, 150, 1000):
        ref = mm1k(lam, 1, 10)
        for m in ("direct", "auto"):
            rc, out, err = run(["solve", "-q", "-f", "json", "--method", m, "-D", f"lambda={lam}",
                                "-D", "mu=1", os.path.join(MODELS, "mm1k.san")])
            r = json.loads(out) if rc == 0 else None
            check(r is not None and all(close(r["results"][k], v, 1e-9, 1e-30)
                                        for k, v in ref.items()),
                  f"mm1k lambda={lam} [{m}]: exit {rc}, {err.strip()[:200]}")
    # an event that labels no transition never fires, on both storages
    never = write_tmp("""identifiers
  K = [0..3];
events
  loc arrive (2)
  loc serve  (3)
  loc ghost  (7)
  loc edge   (5)
reachability = 1;
network nv (continuous)
  aut queue
    stt s[K] to(++) arrive to(--) serve
  aut one
    stt z[0..0] to(++) edge
results
  empty = (st queue) == s[0];
""")
    for storage in ("sparse", "kron"):
        r = solve(never, "auto", ["--storage", storage])
        check(r is not None and r["throughputs"]["ghost"] == 0 and r["throughputs"]["edge"] == 0
              and close(r["throughputs"]["arrive"], 2 * (1 - mm1k(2, 3, 3)["full"]), 1e-9),
              f"unused events have throughput 0 [{storage}]: {r and r['throughputs']}")
    os.unlink(never)
    # nearly decomposable: a slow mode automaton (rates 1e-7) gating 10
    # fast ones; its marginal is exact, 12/25, 6/25, 4/25, 3/25
    ncd = write_tmp(NCD_MODEL.format(eps="1e-7", last=9))
    exact = {"mode0": 12 / 25, "mode1": 6 / 25, "mode2": 4 / 25, "mode3": 3 / 25}
    for storage in ("sparse", "kron"):
        for m in ("auto", "iad", "gs", "gmres", "bicgstab", "power", "jacobi"):
            if storage == "kron" and m == "gs":
                continue
            rc, out, err = run(["solve", "-q", "-f", "json", "--method", m, "--storage", storage,
                                "--max-iter", "3000", ncd])
            if m in ("auto", "iad"):
                check(rc == 0, f"ncd [{storage} {m}] solves: {err.strip()[:200]}")
            if rc == 0:
                r = json.loads(out)
                bad = {k: r["results"][k] for k, v in exact.items()
                       if not close(r["results"][k], v, 1e-8)}
                check(not bad and r["solver"]["error_estimate"] <= 1e-10,
                      f"ncd [{storage} {m}]: converged, so right: {bad}")
            else:
                check(rc == 1 and "try" in err, f"ncd [{storage} {m}]: refused with a hint: {err[:200]}")
    os.unlink(ncd)
    # with rates spanning less than the stiffness guard (1e-6 .. 15), the
    # mode automaton's partition is also the fast components' (coupling
    # ~1e-7): auto must see the coupling and aggregate.  The two copies
    # were once pruned together, and auto ran BiCGSTAB (2x the time on the
    # 524,288-state bench/models/ncd17.san)
    ncd = write_tmp(NCD_MODEL.format(eps="1e-6", last=9))
    for storage in ("sparse", "kron"):
        r = solve(ncd, "auto", ["--storage", storage])
        check(r is not None and r["solver"]["method"] == "iad"
              and all(close(r["results"][k], v, 1e-8) for k, v in exact.items()),
              f"ncd eps 1e-6 [{storage} auto]: aggregation chosen and exact "
              f"({r and r['solver']['method']})")
    os.unlink(ncd)
    # the design grid's hardest variant: direct broke down (a fixed state
    # of probability 1e-20), gmres stopped on a tail off by 1%: every
    # method that answers agrees with GTH-accurate iad to 1e-8
    ms = write_tmp(subprocess.run([SAN, "gen", "ms", "--mode", "async", "--slaves", "4",
                                   "--buffer", "40", "--eval-time", "0.25"],
                                  capture_output=True, text=True).stdout)
    ref = solve(ms, "iad")
    check(ref is not None, "ms async 4 buffer 40 [iad] solves")
    for m in ("direct", "gmres", "bicgstab", "gs", "auto"):
        rc, out, err = run(["solve", "-q", "-f", "json", "--method", m, ms])
        if rc == 0 and ref is not None:
            r = json.loads(out)
            bad = {k: (v, ref["results"][k]) for k, v in r["results"].items()
                   if not close(v, ref["results"][k], 1e-8, 1e-13)}
            check(not bad, f"ms async 4 buffer 40 [{m}] agrees with iad: {bad}")
        else:
            check(rc == 1 and "try" in err, f"ms async 4 buffer 40 [{m}]: {err[:200]}")
    os.unlink(ms)
    # independent birth-death automata with rates from 1e-4 to 1e4 (a
    # product form): the refinement stagnates there, auto falls back to a
    # direct solve; every marginal exact
    rates = [(2e-4, 1e-4), (1e-3, 3e-3), (5e-2, 4e-2), (1, 1), (30, 60), (800, 500), (4e3, 1e4)]
    text = "identifiers\n" + "".join(f"  K{i} = [0..2];\n" for i in range(len(rates)))
    text += "events\n" + "".join(f"  loc u{i} ({u}) loc d{i} ({d})\n" for i, (u, d) in enumerate(rates))
    text += "reachability = 1;\nnetwork pf (continuous)\n"
    text += "".join(f"  aut A{i}\n    stt s[K{i}] to(++) u{i} to(--) d{i}\n" for i in range(len(rates)))
    text += "results\n" + "".join(f"  top{i} = st A{i} == s[2];\n" for i in range(len(rates)))
    pf = write_tmp(text)
    exact = {f"top{i}": (u / d) ** 2 / (1 + u / d + (u / d) ** 2) for i, (u, d) in enumerate(rates)}
    for storage in ("sparse", "kron"):
        rc, out, err = run(["solve", "-q", "-f", "json", "--storage", storage, pf])
        if storage == "sparse":
            check(rc == 0, f"stiff product form [auto sparse] solves: {err.strip()[:300]}")
        if rc == 0:
            r = json.loads(out)
            bad = {k: (r["results"][k], v) for k, v in exact.items() if not close(r["results"][k], v, 1e-8)}
            check(not bad, f"stiff product form [auto {storage}]: {bad}")
        else:
            check(rc == 1 and "try" in err, f"stiff product form [auto {storage}]: {err[:200]}")
    os.unlink(pf)


def test_pruned_scan():
    """The reachability function is walked over boxes of states
    (solver/reach_walk.c, lang/expr_range.c), so resource sharing with
    few users is solved in product spaces far beyond the old limit of
    4e9 scanned states.  References: the truncated product form,
    pi(k users) proportional to C(N, k) (lambda/mu)^k for k <= R, and
    the state count sum_{k <= R} C(N, k); both storages."""
    lam, mu = 3.0, 6.0
    rho = lam / mu
    for nproc, R, count in [(40, 3, 10701), (30, 4, 31931)]:
        check(sum(math.comb(nproc, k) for k in range(R + 1)) == count,
              f"rs N={nproc} R={R}: the stated count is sum C(N, k)")
        w = [math.comb(nproc, k) * rho ** k for k in range(R + 1)]
        z = sum(w)
        ref = {"full": w[R] / z, "empty": w[0] / z,
               "average": sum(k * w[k] for k in range(R + 1)) / z,
               # P[0] uses: C(N-1, k-1) of the C(N, k) sets with k users
               "use1": sum(w[k] * k / nproc for k in range(R + 1)) / z}
        # the same from the per-subset product form, as a cross-check
        pf = product_form([rho] * nproc, R) if nproc <= 30 else None
        if pf:
            check(all(close(pf[k], v, 1e-12) for k, v in ref.items()),
                  f"rs N={nproc} R={R}: closed form and product form agree")
        path = write_tmp(rs_model(nproc, R, lam, mu))
        # direct over the generator; GMRES over the descriptor, to 1e-12
        # (1e-14 is not always reached there: 1.03e-14 on N=40)
        for storage, method in (("sparse", "direct"), ("kron", "gmres")):
            what = f"rs N={nproc} R={R} [{storage}]"
            rc, out, err = run(["solve", "-q", "-f", "json", "--storage", storage,
                                "--method", method, "--tol", "1e-12", path])
            r = json.loads(out) if rc == 0 else None
            if r is None:
                print("san solve failed:", what, rc, err.strip()[:300])
            check(r is not None, f"{what} solves (product 2^{nproc})")
            if r is None:
                continue
            check(r["product_states"]["digits"] == str(2 ** nproc)
                  and r["product_states"]["approx"] == 2 ** nproc, f"{what}: product {r['product_states']}")
            check(r["reachable_states"] == count,
                  f"{what}: {r['reachable_states']} reachable states, want {count}")
            check(r["solver"]["converged"], f"{what}: converged")
            for k, v in ref.items():
                got = r["results"].get(k)
                check(got is not None and close(got, v), f"{what} {k}: got {got}, want {v}")
        os.unlink(path)


def grid_model(reach):
    """Three automata A (0..3), B (0..4), C (0..2) moving by +-1; a move
    has rate 1 when the reachability function accepts its destination,
    0 otherwise.  Rates are symmetric on the accepted set, so when that
    set is connected the stationary distribution is uniform on it."""
    def at(a, b, c):
        return reach.format(a=f"({a})", b=f"({b})", c=f"({c})")
    A, B, C = "st A", "st B", "st C"
    ids = {"ua": at(A + " + 1", B, C), "da": at(A + " - 1", B, C),
           "ub": at(A, B + " + 1", C), "db": at(A, B + " - 1", C),
           "uc": at(A, B, C + " + 1"), "dc": at(A, B, C + " - 1")}
    return ("identifiers\n" + "".join(f"  {k} = {v};\n" for k, v in ids.items())
            + "events\n  loc eua (ua) loc eda (da) loc eub (ub) loc edb (db)"
            " loc euc (uc) loc edc (dc)\n"
            f"reachability = {at(A, B, C)};\n"
            "network grid (continuous)\n"
            "  aut A\n    stt q[0..3] to(++) eua to(--) eda\n"
            "  aut B\n    stt q[0..4] to(++) eub to(--) edb\n"
            "  aut C\n    stt q[0..2] to(++) euc to(--) edc\n"
            "results\n  a3 = st A == 3;\n  meanb = st B;\n  c0 = st C == 0;\n"
            "  ab = st A * st B;\n")


def test_scan_unpruned():
    """A reachability function that intervals bound poorly (a product
    compared with a value inside its range) still accepts exactly the
    states it is true in: counted here by brute force, and identified by
    the uniform stationary distribution on them."""
    cases = [
        ("({a} * {b} != 6) && ({b} * {c} != 4 || {a} == 0)",
         lambda a, b, c: a * b != 6 and (b * c != 4 or a == 0)),
        ("{a} * {b} != 6", lambda a, b, c: a * b != 6),
        ("({a} - 1) * ({b} - 2) != {c}", lambda a, b, c: (a - 1) * (b - 2) != c),
    ]
    for text, fn in cases:
        acc = [s for s in product(range(4), range(5), range(3)) if fn(*s)]
        # the test's own premise: the accepted set is connected by +-1 moves
        seen, todo, accs = {acc[0]}, [acc[0]], set(acc)
        while todo:
            x = todo.pop()
            for i in range(3):
                for d in (-1, 1):
                    y = x[:i] + (x[i] + d,) + x[i + 1:]
                    if y in accs and y not in seen:
                        seen.add(y)
                        todo.append(y)
        check(len(seen) == len(acc), f"grid '{text}': the test model is connected")
        n = len(acc)
        ref = {"a3": sum(a == 3 for a, b, c in acc) / n, "meanb": sum(b for a, b, c in acc) / n,
               "c0": sum(c == 0 for a, b, c in acc) / n, "ab": sum(a * b for a, b, c in acc) / n}
        path = write_tmp(grid_model(text))
        for storage, method in (("sparse", "direct"), ("kron", "gmres")):
            what = f"grid '{text}' [{storage}]"
            r = solve(path, method, ["--storage", storage])
            check(r is not None, f"{what} solves")
            if r is None:
                continue
            check(r["reachable_states"] == n and r["dropped_states"] == 0
                  and r["transient_states"] == 0,
                  f"{what}: {r['reachable_states']} reachable ({r['dropped_states']} dropped), "
                  f"want {n} of 60")
            for k, v in ref.items():
                got = r["results"].get(k)
                check(got is not None and close(got, v), f"{what} {k}: got {got}, want {v}")
        os.unlink(path)


def test_scan_too_big():
    """A product beyond 64-bit state indices cannot be scanned: exit 2,
    saying so, on both storages, at once."""
    n = 70
    text = ("identifiers\n  r = 1;\nevents\n"
            + "".join(f"  loc e{i} (r)\n" for i in range(n))
            + "reachability = nb y <= 1;\nnetwork big (continuous)\n"
            + "".join(f"  aut A{i}\n    stt x to(y) e{i}\n    stt y to(x) e{i}\n" for i in range(n))
            + "results\n")
    path = write_tmp(text)
    for storage in ("sparse", "kron"):
        rc, out, err = run(["solve", "-q", "--storage", storage, path])
        check(rc == 2 and str(2 ** n) in err and "too many to scan" in err and "64-bit" in err,
              f"product 2^{n} [{storage}]: exit 2 with the reason (got {rc}: {err.strip()[:200]})")
    os.unlink(path)


def test_pocket_low_fill():
    """An isolated pocket in a reachable set under 1/16 of its product
    space (the tensor path's class check then reads the arcs the
    exploration kept): resource sharing, 12 processes, at most 2 users,
    and an automaton X whose state x1 freezes everything; the function
    admits (x1, nobody using), which nothing reaches.  Dropped with a
    warning on both storages; full against the product form."""
    text = """identifiers
  N = [0..11]; R = 2; lambda = 3; mu = 6;
  f = lambda * (nb using < R) * (st X == x0);
events
  loc Acq (f)
  loc Rel (mu)
reachability = (nb using <= R) && ((st X == x0) || (nb using == 0));
network rs (continuous)
  aut X
    stt x0
    stt x1
  aut P[N]
    stt sleeping to(using) Acq
    stt using to(sleeping) Rel
results
  full = nb using == R;
"""
    w = [math.comb(12, k) * 0.5 ** k for k in range(3)]
    path = write_tmp(text)
    for storage in ("sparse", "kron"):
        rc, out, err = run(["solve", "-q", "-f", "json", "--storage", storage, path])
        ok = rc == 0 and "isolated pocket of 1 state" in err
        d = json.loads(out) if ok else {}
        check(ok and d["reachable_states"] == 79 and close(d["results"]["full"], w[2] / sum(w)),
              f"low-fill pocket [{storage}]: dropped, 79 states, full by the product form "
              f"(got {rc}: {err.strip()[:200]})")
    os.unlink(path)


def test_arcs_dropped():
    """Over the descriptor, the arcs kept for the class check go first
    when the exploration would not fit with them: rs N=24 R=6 (190,051
    states of 2^24) under --max-memory 32M and 56M (they are dropped,
    the check enumerates the successors again) and 1G (kept): the
    product form's full each time; under 16M the class check does not
    fit (its map and Tarjan's arrays, 57 bytes a state), under 8M the
    exploration itself does not: exit 2, saying which."""
    n, r = 24, 6
    w = [math.comb(n, k) * 0.5 ** k for k in range(r + 1)]
    path = write_tmp(rs_model(n, r, 3, 6))
    for mm in ("32M", "56M", "1G"):
        rc, out, err = run(["solve", "-q", "-f", "json", "--storage", "kron", "--max-memory", mm,
                            path])
        d = json.loads(out) if rc == 0 else {}
        check(rc == 0 and d["reachable_states"] == 190051
              and close(d["results"]["full"], w[r] / sum(w)),
              f"rs {n}/{r} kron --max-memory {mm}: full by the product form (got {rc}: "
              f"{err.strip()[:200]})")
    for mm, what in (("16M", "the class check of 190051 states needs more than"),
                     ("8M", "the exploration needs more than")):
        rc, out, err = run(["solve", "-q", "--storage", "kron", "--max-memory", mm, path])
        check(rc == 2 and what in err and "sparse" not in err,
              f"rs {n}/{r} kron --max-memory {mm}: exit 2, '{what}' "
              f"(got {rc}: {err.strip()[:200]})")
    os.unlink(path)


def test_scan_memory():
    """A function that accepts most of a huge product space stops at the
    memory limit while scanning, not when memory runs out: exit 2, with
    the limit in the message, on both storages, in well under a second
    (2^34 states, every one accepted)."""
    n = 34
    text = ("events\n" + "".join(f"  loc e{i} (1)\n" for i in range(n))
            + "reachability = 1;\nnetwork big (continuous)\n"
            + "".join(f"  aut A{i}\n    stt x to(y) e{i}\n    stt y to(x) e{i}\n" for i in range(n))
            + "results\n  r = st A0;\n")
    path = write_tmp(text)
    for storage in ("sparse", "kron"):
        rc, out, err = run(["solve", "-q", "--storage", storage, "--max-memory", "50M", path])
        # the limit named is what the model's own bytes leave of 50 MiB
        check(rc == 2 and "beyond the memory limit of 49.9 MiB" in err and "--max-memory" in err
              and "of the memory limit of 50.0 MiB: the chain had 49.9 MiB" in err,
              f"2^{n} accepted states, --max-memory 50M [{storage}]: exit 2 with the reason "
              f"(got {rc}: {err.strip()[:200]})")
    os.unlink(path)


def test_peps_block_idiom():
    """`stt d[D] to(++) e(p) to(=) e(1-p)`: the routing sums to 1-p at d[L],
    where e never fires (its rate is 0 there).  Accepted, and the chain is
    birth-death: up lam*p below L, down mu, pi_k ~ (lam p / mu)^k."""
    path = os.path.join(TOP, "tests", "corpus", "warnings", "peps_block_idiom.san")
    lam, mu, p, L = 3.0, 2.0, 0.4, 4
    w = [(lam * p / mu) ** k for k in range(L + 1)]
    z = sum(w)
    ref = {"mean": sum(k * w[k] for k in range(L + 1)) / z, "full": w[L] / z}
    expect_results(path, ref, "PEPS block idiom")
    expect_results(path, ref, "PEPS block idiom, kron", methods=["power", "gmres"],
                   extra=["--storage", "kron"])
    # where e can fire at d[L] (a constant rate), the solve says where and why
    text = open(path).read().replace("arrive = lam * (st Q < L);", "arrive = lam;")
    bad = write_tmp(text)
    for storage in ("sparse", "kron"):
        rc, _, err = run(["solve", "--storage", storage, bad])
        check(rc == 2 and ":22:" in err and "sum to 0.6, not 1" in err and "'from d[4]'" in err,
              f"PEPS block idiom where e fires at d[L] [{storage}]: exit 2, placed, 'from' "
              f"suggested (got {rc}: {err.strip()[:300]})")
    os.unlink(bad)


GATE = """identifiers
  D = [0..3];
  lam = 2;
  mu = 3;
  nu = 1.5;
  p = 0.7;
  q = 0.3;
  forgetting = nu * (st G > st Q);
events
  syn e (lam)
  syn s (mu)
  loc forget (forgetting)
partial reachability = (st Q == d[0]) && (st G == g[0]);
network gate (continuous)
  aut Q
    stt d[D] to(++) e(p) to(=) e(q)
             to(--) s
  aut G
    stt g[D] to(++) e
             to(--) s
             to(--) forget
results
  mean = st Q;
  attempts = st G;
  full = st Q == d[3];
"""

GATE_EXPLICIT = """identifiers
  D = [0..3];
  lam = 2;
  mu = 3;
  nu = 1.5;
  p = 0.7;
  q = 0.3;
  forgetting = nu * (st G > st Q);
events
  syn e (lam)
  syn s (mu)
  loc forget (forgetting)
partial reachability = (st Q == d0) && (st G == g[0]);
network gate (continuous)
  aut Q
    stt d0 to(d1) e(p) to(d0) e(q)
    stt d1 to(d2) e(p) to(d1) e(q) to(d0) s
    stt d2 to(d3) e(p) to(d2) e(q) to(d1) s
    stt d3 to(d2) s
  aut G
    stt g[D] to(++) e
             to(--) s
             to(--) forget
results
  mean = st Q;
  attempts = st G;
  full = st Q == d3;
"""


def test_peps_block_idiom_sync():
    """The idiom blocked by a synchronization: G counts the attempts (Q's
    level or more), so at d[3] G is at g[3], where e is not enabled.  The
    same chain as the model with Q's states written out (no e at d3)."""
    idiom, explicit = write_tmp(GATE), write_tmp(GATE_EXPLICIT)
    ref = solve(explicit)
    check(ref is not None, "gated block idiom: the explicit model solves")
    for storage, method in (("sparse", "direct"), ("kron", "gmres")):
        r = solve(idiom, method, ["--storage", storage])
        check(r is not None, f"gated block idiom [{storage}]: accepted and solved")
        if r is None or ref is None:
            continue
        for k, v in ref["results"].items():
            check(close(r["results"][k], v), f"gated block idiom [{storage}] {k}: "
                  f"{r['results'][k]} against {v} written out")
    rc, _, err = run(["check", idiom])
    check(rc == 0 and "error" not in err, f"gated block idiom: check passes ({rc}: {err[:200]})")
    os.unlink(idiom)
    os.unlink(explicit)


def underflow_model(k1, r1, k2, r2):
    """Two independent M/M/1/K queues: pi(n, m) = pi1(n) pi2(m)."""
    return f"""identifiers
  K1 = [0..{k1}]; K2 = [0..{k2}];
events
  loc a1 ({r1})
  loc s1 (1)
  loc a2 ({r2})
  loc s2 (1)
reachability = 1;
network uf (continuous)
  aut Q1
    stt q[K1]
      to(++) a1
      to(--) s1
  aut Q2
    stt r[K2]
      to(++) a2
      to(--) s2
results
  q1_mean = st Q1;
  q2_empty = (st Q2) == 0;
"""


def log_geometric(r, K):
    """log pi(n) of M/M/1/K with load r, n = 0..K, without underflow."""
    lz = math.log(sum(r ** (n - K) for n in range(K + 1))) + K * math.log(r)
    return [n * math.log(r) - lz for n in range(K + 1)]


def test_underflow():
    # Queue 1 at load 6 over 450 places: pi1(0) ~ 6^-450 = 1e-350, below
    # the smallest double; every method overflowed or returned NaN before
    # (issue 27).  The states below DBL_MIN are reported as 0 and counted,
    # every other index stays right.
    k1, r1, k2, r2 = 450, 6.0, 9, 0.5
    path = write_tmp(underflow_model(k1, r1, k2, r2))
    l1, l2 = log_geometric(r1, k1), log_geometric(r2, k2)
    dmin = math.log(2.2250738585072014e-308)
    joint = [a + b for a in l1 for b in l2]
    under = sum(1 for v in joint if v < dmin)
    # below 1e-14 probabilities are held to an absolute accuracy only: a
    # state within a factor 1e3 of DBL_MIN may land on either side
    near = sum(1 for v in joint if abs(v - dmin) < math.log(1e3))
    mean1 = sum(n * math.exp(v) for n, v in enumerate(l1))
    empty2 = math.exp(l2[0])
    runs = [("sparse", m) for m in ("auto", "direct", "bicgstab", "iad")] + \
           [("kron", m) for m in ("auto", "iad", "bicgstab", "jacobi")]
    for storage, m in runs:
        what = f"underflow {storage} {m}"
        rc, out, err = run(["solve", "-q", "-f", "json", "--storage", storage, "--method", m,
                            "--tol", "1e-12", path])
        check(rc == 0, f"{what}: exit {rc} {err.strip()[:300]}")
        if rc != 0:
            continue
        r = json.loads(out)
        got = r["solver"]["underflow_states"]
        check(abs(got - under) <= near, f"{what}: {got} states underflowed, want {under}")
        check(close(r["results"]["q1_mean"], mean1), f"{what}: q1_mean {r['results']['q1_mean']} want {mean1}")
        check(close(r["results"]["q2_empty"], empty2), f"{what}: q2_empty")
        marg = r["marginals"]["Q1"]
        bad = [(n, marg[f"q[{n}]"], math.exp(v)) for n, v in enumerate(l1)
               if not close(marg[f"q[{n}]"], math.exp(v), 1e-9, 1e-14)]
        check(not bad, f"{what}: Q1 marginals off {bad[:3]}")
        zero = [n for n, v in enumerate(l1) if v < dmin - 1e-3 and marg[f"q[{n}]"] != 0]
        check(not zero, f"{what}: marginals of states below DBL_MIN not 0: {zero[:5]}")
    os.unlink(path)


def test_not_converged_estimate():
    """A NOT CONVERGED report carries the error estimate its checks
    reached (issue 29 item 5), the same in text, JSON and CSV, and above
    tol (under it the answer would have passed); a method stopped before
    any refinement gets the checks run on its best vector (the same
    fields).  iad out of --max-iter 1 on a master/slave model that needs
    more cycles; Gauss-Seidel out of --max-iter 2."""
    gen = ["--gen", "ms --mode async --slaves 6 --buffer 10"]
    for args, reached in ((["-m", "iad", "--max-iter", "1"], True),
                          (["-m", "gs", "--max-iter", "2"], "vector")):
        what = " ".join(args)
        rc, text, err = run(["solve"] + args + gen)
        rcj, js, _ = run(["solve", "-q", "-f", "json"] + args + gen)
        rcc, csv_text, _ = run(["solve", "-q", "-f", "csv"] + args + gen)
        check(rc == rcj == rcc == 1 and "not converged" in err,
              f"{what}: exit {rc} {rcj} {rcc}, want 1: {err.strip()[:200]}")
        acc = [l for l in text.splitlines() if l.startswith("accuracy")]
        solver = json.loads(js)["solver"] if rcj == 1 else {}
        est = solver.get("error_estimate", "missing")
        row = [l.split(",")[3] for l in csv_text.splitlines() if l.startswith("solver,error_estimate,")]
        check(solver.get("converged") is False and solver.get("balance") is None,
              f"{what}: json solver {solver}")
        if reached:
            if reached is True:
                # the message names the estimate as %.2e: the same number
                said = float(err.split("error estimate ")[1].split(")")[0]) if "error estimate " in err else None
                check(said is not None and isinstance(est, float) and close(est, said, rel=6e-3),
                      f"{what}: json estimate {est!r}, message {said!r}")
            check(isinstance(est, float) and est > 1e-10, f"{what}: json estimate {est!r}")
            check(row and row[0] and isinstance(est, float) and float(row[0]) == est,
                  f"{what}: csv estimate {row}, json {est!r}")
            check(acc and "NOT CONVERGED" in acc[0] and isinstance(est, float) and
                  f"error estimate {est:.1e} of the returned vector" in acc[0], f"{what}: text {acc}")
        else:
            check(est is None and row == [""], f"{what}: json {est!r}, csv {row}: want none")
            check(acc and "no error estimate (stopped by the time limit" in acc[0],
                  f"{what}: text {acc}")


# t2 -> t1 -> t0 -> c0 <-> c1 from t2: pi = (0, 0, 0, 2/3, 1/3) by hand
TIE_MODEL = os.path.join(TOP, "tests", "cli", "top_ties.san")


def test_top_ties():
    """The most probable states: descending probability, ties by the
    states' order in the product space (their mixed-radix index), not by
    the exploration's numbering; the same over either storage (and the
    distributed engine: tests/cli/petsc.sh)."""
    path = TIE_MODEL
    want = [("c0", 2 / 3), ("c1", 1 / 3), ("t0", 0.0), ("t1", 0.0), ("t2", 0.0)]
    for storage, method in (("sparse", "direct"), ("kron", "gmres")):
        for ntop in (5, 4):
            r = solve(path, method, ["--top", str(ntop), "--storage", storage])
            got = [(t["state"]["A"], t["p"]) for t in r["top_states"]] if r else None
            ok = got is not None and len(got) == ntop and all(
                g[0] == w[0] and close(g[1], w[1]) for g, w in zip(got, want[:ntop]))
            check(ok, f"top states on ties [{storage}, --top {ntop}]: got {got}")


def test_floor_cycles():
    """A --tol below the chain's roundoff floor is noticed in a few
    refinement cycles (solver/numeric/verify.c, FLOOR_FLAT_CYCLES): on
    ms async 4/40 (5,836 states) at tol 1e-13 the aggregation error
    stays at 2.0-2.2e-13 from the 6th cycle; the 12-cycle stagnation
    window took 18 cycles, the flat cycles 10.  The answer keeps its
    estimate: the vector against -m direct's, relative, above 1e-12."""
    path = write_tmp(run(["gen", "ms", "--mode", "async", "--slaves", "4", "--buffer", "40"])[1])
    got = {}
    for m in ("auto", "direct"):
        rc, out, err = run(["solve", "-q", "-f", "json", "-m", m, "--tol", "1e-13",
                            "--vector", "-", path])
        got[m] = json.loads(out) if rc == 0 else None
        check(got[m] is not None, f"ms 4/40 tol 1e-13 [{m}]: exit {rc}, {err.strip()[:200]}")
    a, d = got["auto"], got["direct"]
    if a is None or d is None:
        return
    s = a["solver"]
    check(s["converged"] and 5 <= s["refine_cycles"] <= 11 and "roundoff floor" in s["note"]
          and s["error_estimate"] <= 1e-11,
          f"ms 4/40 tol 1e-13: {s['refine_cycles']} refinement cycles (at most 11), "
          f"estimate {s['error_estimate']}, note {s['note'][:120]!r}")
    pa = {v["index"]: v["p"] for v in a["vector"]}
    pd = {v["index"]: v["p"] for v in d["vector"]}
    worst = max(abs(pa[i] - pd.get(i, 0)) / max(pa[i], pd.get(i, 0)) for i in pa
                if max(pa[i], pd.get(i, 0)) > 1e-12)
    check(len(pa) == len(pd) == 5836 and worst <= s["error_estimate"],
          f"ms 4/40 tol 1e-13: auto against direct {worst:.2g} relative, "
          f"estimate {s['error_estimate']:.2g}")


def test_auto_stops_at_contract():
    """auto's BiCGSTAB asks the checks on the way (krylov.c, num_ls_probe)
    and stops when the contract holds, not at its residual cap of tol
    times 1e-4 (linsolve.c AUTO_KERNEL_TIGHTEN): on rs 18/9 (155,382
    states) at tol 1e-12 the cap took 28 iterations and a cycle (29,
    67 products) where -m bicgstab answers in 18 and 2 cycles (20, 47
    products); the probe answers in 18 and 2.  The answer keeps the
    contract: the closed form of full within the error estimate (the
    plain sum that normalized the vector left every probability 2e-12
    too large, full off by 1.9e-12 for an estimate of 2.7e-13, with
    -m bicgstab too: the sum is compensated now, vec.c)."""
    path = write_tmp(rs_text(18, 9))
    got = {}
    for m in ("auto", "bicgstab"):
        rc, out, err = run(["solve", "-q", "-f", "json", "--storage", "sparse", "--tol", "1e-12",
                            "--method", m, path])
        check(rc == 0, f"rs 18/9 [{m}] answers: {err.strip()[:200]}")
        if rc != 0:
            os.unlink(path)
            return
        got[m] = json.loads(out)
        s, full = got[m]["solver"], got[m]["results"]["full"]
        ref = rs_full(18, 9)
        check(s["error_estimate"] <= 1e-12 and
              abs(full - ref) <= max(s["error_estimate"], 5e-15) * ref,
              f"rs 18/9 [{m}]: full {full!r} for {ref!r}, estimate {s['error_estimate']:.2g}")
    a, b = got["auto"]["solver"], got["bicgstab"]["solver"]
    check(a["method"] == "bicgstab" and a["iterations"] <= 1.25 * b["iterations"] and
          a["products"] <= 1.25 * b["products"],
          f"rs 18/9 tol 1e-12: auto {a['iterations']} iterations, {a['products']} products; "
          f"bicgstab {b['iterations']}, {b['products']} (at most 1.25 times)")
    os.unlink(path)


def test_index_sums_compensated():
    """The marginals and the throughputs are sums over the states too
    (solver/space/state_sums.c): on rs 18/9 as written (--lump off,
    155,382 states, tol 1e-12, 2 threads) their plain sums were up to
    2.4e-13 (marginals) and 2.9e-13 (throughputs) relative off the
    compensated sums of the same vector, the whole of the error estimate
    (2.7e-13): Acq@P[i]'s throughput was 3.5e-13 off its closed form.
    Two identities hold for any vector, whatever its accuracy, and so
    check the sums alone: each automaton's marginals sum to the vector's
    sum, 1 (was 1 - 9.2e-14), and Rel@P[i], of rate 6 in P[i]'s state
    using, has the throughput 6 P(P[i] using) (was 3.4e-13 off); both
    now within 4 ulps.  The closed forms (product form: pi(k using) ~
    C(18, k) (3/6)^k, k <= 9; X(Acq@P[i]) = 3 P(P[i] sleeping, k < 9))
    within twice the estimate: the vector's own error per index reaches
    1.15 times it (4 threads: 7.7e-14 for 6.7e-14)."""
    N, R = 18, 9
    path = write_tmp(rs_text(N, R))
    rc, out, err = run(["solve", "-q", "-f", "json", "--lump", "off", "--tol", "1e-12", "--top",
                        "0", path])
    os.unlink(path)
    check(rc == 0, f"rs 18/9 --lump off answers: {err.strip()[:200]}")
    if rc != 0:
        return
    j = json.loads(out)
    est, marg, thr = j["solver"]["error_estimate"], j["marginals"], j["throughputs"]
    ulp = 2.0 ** -52
    worst_1 = max(abs(v["using"] + v["sleeping"] - 1) for v in marg.values())
    worst_rel = max(abs(thr["Rel@" + a] - 6 * v["using"]) / thr["Rel@" + a]
                    for a, v in marg.items())
    check(len(marg) == N and worst_1 <= 4 * ulp and worst_rel <= 4 * ulp,
          f"rs 18/9 --lump off: marginals sum to 1 +- {worst_1:.2g}, Rel's throughputs "
          f"6 P(using) +- {worst_rel:.2g} relative (4 ulps: {4 * ulp:.2g})")
    w = [math.comb(N, k) * 0.5 ** k for k in range(R + 1)]
    z = fsum(w)
    using = fsum(k * w[k] for k in range(R + 1)) / z / N
    acq = 3 * fsum(w[k] * (N - k) / N for k in range(R)) / z
    worst_m = max(abs(v["using"] - using) / using for v in marg.values())
    worst_t = max(abs(v - acq) / acq for v in thr.values())
    check(est <= 1e-12 and worst_m <= 2 * est and worst_t <= 2 * est,
          f"rs 18/9 --lump off: marginals {worst_m:.2g}, throughputs {worst_t:.2g} relative "
          f"off the product form for an estimate of {est:.2g}")


def test_floor_hint():
    """boundtest's family slow3 (a queue of 150 at rates 1e-6, a slow
    cycle, a flip at rate 8-16): at tol 1e-12 the direct solve, corrected
    by the LU of the generator, measures an error estimate of 3.9e-10,
    the roundoff floor of the checks on these rates (direct, iad and ml
    all stop there).  auto replaced the verdict's "try --tol 1e-09" by
    "try --method gs", which stops at an estimate of 1.0; the verdict
    stays now, and the tolerance it names is answered: busy within the
    estimate of the M/M/1/150 closed form (rho 0.8)."""
    text = ("identifiers\n  QA = [0..150];\nevents\n  loc arrive (1e-6)\n  loc serve (1.25e-6)\n"
            "  loc go (2e-6)\n  loc back (5e-7)\n  loc on (16)\n  loc off (8)\n"
            "reachability = 1;\nnetwork slow3 (continuous)\n"
            "  aut A\n    stt s[QA]\n      to(++) arrive\n      to(--) serve\n"
            "  aut C\n    stt c0\n      to(c1) go\n    stt c1\n      to(c0) back\n"
            "  aut F\n    stt f0\n      to(f1) on\n    stt f1\n      to(f0) off\n"
            "results\n  busy = st A != s[0];\n")
    path = write_tmp(text)
    rc, out, err = run(["solve", "-q", "-f", "json", "--tol", "1e-12", path])
    check(rc == 1 and "roundoff floor" in err and "try --tol 1e-09" in err,
          f"slow3 tol 1e-12: exit 1 naming the floor and --tol 1e-09 (got {rc}: "
          f"{err.strip()[-200:]})")
    rc, out, err = run(["solve", "-q", "-f", "json", "--tol", "1e-9", path])
    os.unlink(path)
    check(rc == 0, f"slow3 tol 1e-9 answers: {err.strip()[:200]}")
    if rc != 0:
        return
    j = json.loads(out)
    rho, k = 0.8, 150
    want = (rho - rho ** (k + 1)) / (1 - rho ** (k + 1))
    got, est = j["results"]["busy"], j["solver"]["error_estimate"]
    check(est <= 1e-9 and abs(got - want) <= est * want,
          f"slow3 tol 1e-9: busy {got!r} for {want!r}, estimate {est:.2g}")


def test_gmres_growing_chain():
    """The named GMRES on an M/M/1/K whose probabilities grow by rho = 1.05
    a state (K = 2000: 1e42 between the smallest and the largest) at tol
    1e-12 (issue 27).  From the uniform start GMRES fixes x_1 = 1; ILU(0)
    is the exact LU there, yet its solve leaves x_K negative (-8e13 on the
    boundtest's seed 87 model, where the answer wants 1.05^1999 = 1e42), a
    flow the move of the fixed state looked past: 3 cycles at the start's
    residual (2.4e-2 here) and "GMRES(30) stalled", the old refusal.  Now
    the fixed state moves by the flows' magnitude after such a cycle and
    the method answers: pi_k proportional to rho^k, within its estimate.
    (K = 600 at rho 1.05 answered before, at the rates tried.)"""
    K, lam = 2000, 1.05
    path = write_tmp(f"""identifiers
  K1 = [0..{K}];
events
  loc a1 ({lam})
  loc s1 (1)
reachability = 1;
network q (continuous)
  aut Q1
    stt q[K1]
      to(++) a1
      to(--) s1
results
  q1_mean = st Q1;
""")
    rc, out, err = run(["solve", "-q", "-f", "json", "--storage", "sparse", "-m", "gmres",
                        "--tol", "1e-12", path])
    os.unlink(path)
    check(rc == 0, f"gmres mm1k K={K} rho {lam} tol 1e-12 answers: exit {rc} {err.strip()[:200]}")
    if rc != 0:
        return
    r = json.loads(out)
    est = r["solver"]["error_estimate"]
    # in decimal (28 digits): exp(log pi) is off by 1e-14 relative here
    w = [decimal.Decimal(1)]
    for _ in range(K):
        w.append(w[-1] * decimal.Decimal(lam))
    g = sum(w)
    ref = [float(x / g) for x in w]
    marg = r["marginals"]["Q1"]
    # below 1e-14 a probability is held to an absolute accuracy (boundtest)
    worst = max(abs(marg[f"q[{n}]"] - p) / max(p, 1e-14) for n, p in enumerate(ref))
    mean = sum(n * p for n, p in enumerate(ref))
    check(est <= 1e-12 and worst <= est and
          abs(r["results"]["q1_mean"] - mean) <= est * mean,
          f"gmres mm1k K={K} rho {lam}: error {worst:.2g} against the closed form, "
          f"estimate {est:.2g}")


def main():
    tests = [test_mm1k, test_peps_block_idiom, test_peps_block_idiom_sync, test_rs_manual, test_rs_scaled, test_first_available,
             test_vector_and_formats, test_errors, test_products, test_residual_storages,
             test_pruned_scan, test_scan_unpruned, test_scan_too_big, test_scan_memory,
             test_pocket_low_fill, test_arcs_dropped, test_verified, test_underflow,
             test_not_converged_estimate, test_top_ties, test_floor_cycles,
             test_auto_stops_at_contract, test_index_sums_compensated, test_floor_hint,
             test_gmres_growing_chain]
    if os.path.isdir(os.path.join(SHARED, "peps")):
        tests += [test_rs_shared, test_example, test_printers]
    else:
        print("SKIP: the PEPS models are not at", SHARED)
    for t in tests:
        t()
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
