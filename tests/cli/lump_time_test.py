#!/usr/bin/env python3
"""lump_time_test.py - transient and passage analyses on the lumped chain
(issue 28), against the chain as written (--lump off) and closed forms.

  1. Transient, lumped against --lump off: every result, marginal and
     throughput (and, with --rewards, the accumulated ones) at several
     times, within 1e-10 relative; absolute floor 1e-12, as each run's
     probabilities are within its truncated Poisson mass (~3e-13,
     reported) of the exact ones.  On san gen ms sync and async with 2..5
     slaves, a pipeline with two replicated stages written as replicas,
     the machine-repair model; from the model's initial state, from a
     uniform start over many states (--initial, or every state), and from
     a symmetric --from vector.
  2. Passage, lumped against --lump off: P(reach), P(T = 0), the mean,
     P(T <= t) at several times within 1e-10; the percentiles within
     2e-10 (each run bisects to 1e-10 relative).  Also from an
     asymmetric --from vector (exact: passage reports only aggregated
     figures), and to a target that reads one replica (that replica is
     not lumped with the others, said once).
     Also a model whose rates read the firing replica's own state.
  3. Transient from an asymmetric --from vector: not lumped (each
     replica's marginals differ), said once, the answer as written.
  4. Closed forms: N independent two-state replicas: P(all up at t) =
     p(t)^N from all up and from the uniform start over the 2^N states
     (the multinomial weights, N = 30 and 1,000); the first failure
     among N: P(T <= t) = 1 - exp(-N a t), mean 1 / (N a).

Environment: SAN, top_srcdir.  Prints "N passed, M failed".
"""
import json
import math
import os
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, check, same_indices, tally  # noqa: E402




def close(x, y, rel=1e-10, abs_=1e-12):
    if x is None or y is None:
        return x is y
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= max(rel * max(abs(x), abs(y)), abs_)


def run(cmd, text, extra):
    """(report, stderr) of san CMD -f json on the model text."""
    p = subprocess.run([SAN, cmd, "-q", "-f", "json"] + list(extra) + ["-"],
                       input=text, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        print(f"san {cmd} failed:", p.returncode, p.stderr.strip()[:400])
        return None, p.stderr
    return json.loads(p.stdout), p.stderr


def gen(args):
    return subprocess.run([SAN, "gen"] + args.split(), capture_output=True, text=True,
                          check=True).stdout


def both(cmd, text, extra, what, expect_lumped):
    on, err = run(cmd, text, extra)
    off, _ = run(cmd, text, ["--lump", "off"] + list(extra))
    check(on is not None and off is not None, f"{what}: both run")
    if on is None or off is None:
        return None, None, err
    check(("lumped" in on) == expect_lumped,
          f"{what}: lumped {'expected' if expect_lumped else 'not expected'} ({err.strip()[:300]})")
    check("lumped" not in off, f"{what}: --lump off lumps nothing")
    if expect_lumped and "lumped" in on:
        check(on["reachable_states"] < off["reachable_states"],
              f"{what}: {on['reachable_states']} lumped states < {off['reachable_states']}")
    return on, off, err


def transient(text, what, extra=(), expect_lumped=True, times="0.3,1,5"):
    on, off, err = both("transient", text, ["--time", times] + list(extra), what, expect_lumped)
    if on is None:
        return None, err
    check(len(on["times"]) == len(off["times"]) > 0, f"{what}: every time done")
    for a, b in zip(on["times"], off["times"]):
        w = f"{what} t={b['t']}"
        same_indices(a, b, w, close)
        if "accumulated" in b:
            same_indices(a["accumulated"], b["accumulated"], w + " accumulated", close)
    return on, err


def passage(text, what, extra=(), expect_lumped=True):
    on, off, err = both("passage", text, ["--time", "0.2,1,4", "-p", "10,50,90"] + list(extra),
                        what, expect_lumped)
    if on is None:
        return None, err
    a, b = on["passage"], off["passage"]
    for k in ["reach", "p_initial", "mean"]:
        check(close(a[k], b[k]), f"{what}: {k} {a[k]!r} vs {b[k]!r}")
    for k, v in b["percentiles"].items():
        check(close(a["percentiles"][k], v, 2e-10), f"{what}: percentile {k} "
              f"{a['percentiles'][k]!r} vs {v!r}")
    for x, y in zip(on["times"], off["times"]):
        check(close(x["cdf"], y["cdf"]), f"{what}: P(T <= {y['t']}) {x['cdf']!r} vs {y['cdf']!r}")
    return on, err


def machines(n, lam=0.3, mu=1.1, c=2, reach="1", hand=False, res=""):
    """Machine repair M/M/c//n; hand: the machines written one by one."""
    if hand:
        cnt = f"nb [M1..M{n}] down"
        ev = "".join(f"  loc f{i} (lam)\n  loc r{i} (rr)\n" for i in range(1, n + 1))
        net = "".join(f"  aut M{i}\n    stt up to(down) f{i}\n    stt down to(up) r{i}\n"
                      for i in range(1, n + 1))
        ids = ""
    else:
        cnt = f"nb [M[1]..M[{n}]] down"
        ev = "  loc fail (lam)\n  loc rep (rr)\n"
        net = "  aut M[i:D]\n    stt up to(down) fail\n    stt down to(up) rep\n"
        ids = f"  D = [1..{n}];\n"
    return (f"identifiers\n  lam = {lam};\n  mu = {mu};\n  c = {c};\n{ids}  nd = {cnt};\n"
            f"  rr = mu * min(nd, c) / max(nd, 1);\nevents\n{ev}reachability = {reach};\n"
            f"network mr (continuous)\n{net}results\n  down_mean = nd;\n  busy = min(nd, c);\n"
            f"{res}")


def pipeline(nw, nv, k=3):
    """Arrivals into buffer B1, nw workers W[i] take from it and hand
    over into buffer B2 (blocked when full), nv workers V[j] take from
    B2: two replicated stages, two classes."""
    return f"""identifiers
  DW = [1..{nw}];
  DV = [1..{nv}];
  K = {k};
  DB = [0..{k}];
events
  loc arr (0.9)
  syn take[DW] (5)
  syn done[DW] (0.6)
  syn take2[DV] (4)
  loc done2[DV] (0.8)
partial reachability = (st B1 == 0) && (st B2 == 0) && (nb [W[1]..W[{nw}]] idle == {nw}) &&
  (nb [V[1]..V[{nv}]] idle == {nv});
network pipe (continuous)
  aut B1
    stt b[DB] to(++) arr to(--) take[DW]
  aut B2
    stt b[DB] to(++) done[DW] to(--) take2[DV]
  aut W[i:DW]
    stt idle to(busy) take[i]
    stt busy to(idle) done[i]
  aut V[j:DV]
    stt idle to(busy) take2[j]
    stt busy to(idle) done2[j]
results
  in_system = st B1 + st B2 + nb [W[1]..W[{nw}]] busy + nb [V[1]..V[{nv}]] busy;
  out_rate = {" + ".join(f"thr(done2[{j}])" for j in range(1, nv + 1))};
"""


# ---- 1. transient, lumped = as written --------------------------------

for n in range(2, 6):
    sync = gen(f"ms --mode sync --slaves {n}")
    transient(sync, f"ms sync {n}")
    asyn = gen(f"ms --mode async --slaves {n} --buffer 3")
    transient(asyn, f"ms async {n}")
    if n in (3, 5):
        transient(asyn, f"ms async {n} --initial Rx", ["--initial", "st Master == Rx"],
                  times="0.1,2")
        transient(sync, f"ms sync {n} --rewards", ["--rewards"], times="0.5,3")
on, _ = transient(pipeline(3, 2), "pipeline 3+2 replicas", ["--rewards"], times="0.5,2,8")
check(on is not None and on.get("lumped", {}).get("classes") ==
      "W[1..3] (3 replicas of 2 states), V[1..2] (2 replicas of 2 states)",
      f"pipeline: two classes ({on and on.get('lumped')})")
transient(pipeline(3, 2), "pipeline 3+2 kron", ["--storage", "kron"], times="1,3")
transient(machines(6), "machine repair, uniform over 2^6", times="0.5,2")
transient(machines(5, hand=True), "machine repair by hand, uniform", times="0.5,2")
transient(machines(6, reach="nd == 0"), "machine repair, all up")

# a --from vector over the original states: index = sum s_a 2^(n-1-a)
# (the last automaton varies fastest; up = 0, down = 1)
N = 5


def index_of(downs):
    return sum(1 << (N - 1 - a) for a in downs)


def write_vector(path, rows):
    with open(path, "w") as f:
        f.write("index,probability\n")
        for i, p in rows:
            f.write(f"{i},{p!r}\n")


tmp = tempfile.mkdtemp(prefix="san_lump_time_")
sym = os.path.join(tmp, "sym.csv")
asym = os.path.join(tmp, "asym.csv")
# symmetric: every state with two machines down (0.06 each), all up 0.4
rows = [(0, 0.4)] + [(index_of((a, b)), 0.06) for a in range(N) for b in range(a + 1, N)]
write_vector(sym, rows)
# asymmetric: machine 1 down, or machines 2 and 3
write_vector(asym, [(index_of((0,)), 0.7), (index_of((1, 2)), 0.3)])
mr = machines(N, reach="1")
on, err = transient(mr, "--from symmetric", ["--from", sym])
check(on is not None and on["initial_states"] == 2, f"--from symmetric: 2 lumped initial states")

# a vector written by a lumped solve is over occupancy states: refused
# (exit 2, the way out said); one written with --lump off is read, and
# lumped (the steady state is symmetric)
cs = os.path.join(TOP, "models", "clients_server.san")
vl, vo = os.path.join(tmp, "lumped.csv"), os.path.join(tmp, "off.csv")
subprocess.run([SAN, "solve", "-q", "--vector", vl, cs], capture_output=True, check=True)
subprocess.run([SAN, "solve", "-q", "--lump", "off", "--vector", vo, cs], capture_output=True,
               check=True)
p = subprocess.run([SAN, "transient", "-q", "-t", "1", "--from", vl, cs], capture_output=True,
                   text=True)
check(p.returncode == 2 and "solve --lump off --vector" in p.stderr,
      f"--from a lumped vector: exit 2 with the way out ({p.returncode}, {p.stderr.strip()})")
with open(cs) as fh:
    transient(fh.read(), "--from the steady state as written", ["--from", vo], times="0.5,2")

# ---- 3. transient from an asymmetric vector: as written ---------------

on, err = transient(mr, "--from asymmetric (transient)", ["--from", asym], expect_lumped=False)
check(err.count("not lumped: the initial vector") == 1,
      f"--from asymmetric: said once ({err.strip()[:300]})")
if on is not None:
    m1 = on["times"][0]["marginals"]["M[1]"]["down"]
    m2 = on["times"][0]["marginals"]["M[2]"]["down"]
    check(abs(m1 - m2) > 1e-3, f"--from asymmetric: the replicas' marginals differ ({m1}, {m2})")

# an --initial that reads one replica: that one apart (its marginals its
# own), the others lumped, said once
on, err = transient(machines(5), "--initial reads M[1]", ["--initial", "st M[1] == down"])
check(on is not None and on["lumped"]["classes"] == "M[2..5] (4 replicas of 2 states)",
      f"--initial reads M[1]: M[1] alone ({on and on.get('lumped')})")
check(err.count("not lumped together") == 1, f"--initial reads M[1]: said once ({err.strip()})")

# ---- 2. passage -------------------------------------------------------

for n in (2, 3, 5):
    passage(gen(f"ms --mode async --slaves {n} --buffer 3"), f"passage ms async {n}",
            ["--until", f"n_Tx == {min(n, 2)} && st Buffer == 2"])
    passage(gen(f"ms --mode sync --slaves {n}"), f"passage ms sync {n}",
            ["--until", f"n_Tx >= 1", "--initial", "st Master == Rx"])
passage(pipeline(3, 2), "passage pipeline", ["--until", "st B2 == 3"])
passage(machines(6), "passage machine repair", ["--until", "nd >= 4"])
passage(machines(6, reach="nd == 0"), "passage machine repair, all up", ["--until", "nd == 6"])
passage(mr, "passage --from symmetric", ["--from", sym, "--until", "nd >= 4"])
on, err = passage(mr, "passage --from asymmetric", ["--from", asym, "--until", "nd >= 4"])
check("not lumped" not in err, f"passage --from asymmetric: lumped, no note ({err.strip()[:200]})")

# a target that reads one replica: that one apart, the others lumped,
# said once; with two replicas nothing is lumped
on, err = passage(machines(4), "target reads M[2]", ["--until", "st M[2] == down && nd >= 2"])
check(on is not None and on["lumped"]["classes"] == "M[1,3..4] (3 replicas of 2 states)",
      f"target reads M[2]: M[2] alone ({on and on.get('lumped')})")
check(err.count("not lumped together") == 1, f"target reads M[2]: said once ({err.strip()})")
on, err = passage(machines(2), "target reads M[1] of 2", ["--until", "st M[1] == down"],
                  expect_lumped=False)
check(err.count("not lumped together") == 1, f"target reads M[1] of 2: said once ({err.strip()})")
on, err = passage(gen("ms --mode async --slaves 3 --buffer 3"), "target reads Slave[3]",
                  ["--until", "st Slave[3] == Tx"])
check(on is not None and on["lumped"]["classes"].startswith("Slave[1..2] (2 replicas"),
      f"target reads Slave[3]: Slave[3] alone ({on and on.get('lumped')})")

# rates that read the firing replica's own state (lumped: the rate split
# by that state)
OWN = """identifiers
  D = [1..4];
  nd = nb [M[1]..M[4]] down;
  rr = 1.1 * min(nd, 2) / max(nd, 1);
events
  loc f[k:D] (0.3 * (1 + (2 * (st M[k] == deg))))
  loc r[k:D] (rr)
reachability = 1;
network own (continuous)
  aut M[i:D]
    stt up to(deg) f[i]
    stt deg to(down) f[i](0.7) to(up) f[i](0.3)
    stt down to(up) r[i]
results
  down_mean = nd;
"""
transient(OWN, "own-state rate, uniform start", ["--rewards"])
transient(OWN, "own-state rate, all up", ["--initial", "nd == 0 && nb [M[1]..M[4]] deg == 0"])
passage(OWN, "passage own-state rate", ["--until", "nd >= 3"])

# ---- 4. closed forms ----------------------------------------------------


def independent(n, a, b, reach):
    """n two-state replicas, up -> down at a, down -> up at b."""
    return (f"identifiers\n  D = [1..{n}];\n  nu = nb [R[1]..R[{n}]] up;\nevents\n"
            f"  loc fail ({a})\n  loc fix ({b})\nreachability = {reach};\n"
            f"network indep (continuous)\n  aut R[i:D]\n    stt up to(down) fail\n"
            f"    stt down to(up) fix\nresults\n  all_up = nu == {n};\n  mean_up = nu;\n")


a_, b_ = 0.4, 1.5
times = [0.1, 0.7, 3.0]


def p_up(t, p0):
    """A replica up at t from up with probability p0."""
    q = b_ / (a_ + b_)
    return q + (p0 - q) * math.exp(-(a_ + b_) * t)


for n, reach, p0, what in [(30, f"nu == 30", 1.0, "from all up"),
                           (30, "1", 0.5, "uniform over 2^30"),
                           (1000, "1", 0.5, "uniform over 2^1000")]:
    rep, err = run("transient", independent(n, a_, b_, reach),
                   ["--time", ",".join(map(str, times))])
    check(rep is not None and rep["reachable_states"] == n + 1,
          f"independent {n} {what}: {n + 1} lumped states")
    if rep is None:
        continue
    for k, t in enumerate(times):
        r = rep["times"][k]["results"]
        p = p_up(t, p0)
        check(close(r["mean_up"], n * p, 1e-10), f"independent {n} {what} t={t}: E[up] "
              f"{r['mean_up']!r} vs {n * p!r}")
        if n <= 30:
            check(close(r["all_up"], p ** n, 1e-10, 1e-300), f"independent {n} {what} t={t}: "
                  f"P(all up) {r['all_up']!r} vs {p ** n!r}")
        check(close(rep["times"][k]["marginals"]["R[7]"]["up"], p, 1e-10),
              f"independent {n} {what} t={t}: a replica's marginal")

# the first failure among n, all up at 0: exponential of rate n a
for n in (8, 400):
    rep, err = run("passage", independent(n, a_, b_, f"nu == {n}"),
                   ["--until", f"nu < {n}", "--time", "0.001,0.01", "-p", "50"])
    check(rep is not None and "lumped" in rep, f"first failure of {n}: lumped")
    if rep is None:
        continue
    check(close(rep["passage"]["mean"], 1 / (n * a_)), f"first failure of {n}: mean "
          f"{rep['passage']['mean']!r} vs {1 / (n * a_)!r}")
    for x in rep["times"]:
        want = 1 - math.exp(-n * a_ * x["t"])
        check(close(x["cdf"], want), f"first failure of {n}: P(T <= {x['t']}) {x['cdf']!r} "
              f"vs {want!r}")
    check(close(rep["passage"]["percentiles"]["50"], math.log(2) / (n * a_), 2e-10),
          f"first failure of {n}: median")

tally.exit()
