#!/usr/bin/env python3
"""lump_test.py - exact lumping of interchangeable replicas (issue 28).

  1. Lumped against unlumped (--lump off, the model as written, an
     independent path through the same solver): every result, marginal,
     throughput and throughput total within 1e-12 relative (1e-15
     absolute), for san gen ms sync and async with 2..7 slaves, a
     pipeline with replicated stages, the resource-sharing models, a
     machine-repair model with replicas written out by hand; some of
     them also lumped over the tensor descriptor (1e-9).
  2. Symmetry breakers: one replica with another rate, a function that
     reads st of one replica, a result on one replica, an asymmetric
     reachability function, an event of some replicas only: the
     replica concerned is never lumped with the others (the note says
     what was lumped; none of them names it), and the answer is still
     the unlumped one.
  2c. Rates that read the firing replica's own state (st M[k] in the
     rate of f[k:D]; a local and a synchronized family, from several
     states): lumped = unlumped; mutants whose rate reads another
     replica (st M[3], st M[6 - k]) leave it (them) out.
  2b. Random symmetric SANs (seeded): a controller and N = 2..4
     replicas with routing, per-replica events, per-replica events
     synchronized with the controller, an event of all replicas and
     functional rates over counts and the firing replica's own state:
     lumped = unlumped, all replicas in one class; each with a mutant
     whose controller rate also reads st W[2], and, when a replica's
     rate reads its own state, one whose rate reads st W[2] instead:
     W[2] is never lumped, the others are (N > 2), the answer unlumped.
  3. Closed forms: machine repair M/M/c//N and Engset (product form) with
     up to 1,000 machines or sources, solved lumped only, every state
     probability from the formula here.

Environment: SAN, top_srcdir.  Prints "N passed, M failed".
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, SHARED, check, same_indices, tally  # noqa: E402




def close(x, y, rel=1e-12, abs_=1e-15):
    return abs(x - y) <= max(rel * max(abs(x), abs(y)), abs_)


def solve(text, extra=()):
    """(report, stderr) of san solve -f json on the model text."""
    p = subprocess.run([SAN, "solve", "-q", "-f", "json", "--method", "direct",
                        "--tol", "1e-13"] + list(extra) + ["-"],
                       input=text, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        print("san solve failed:", p.returncode, p.stderr.strip()[:400])
        return None, p.stderr
    return json.loads(p.stdout), p.stderr


def gen(args):
    p = subprocess.run([SAN, "gen"] + args.split(), capture_output=True, text=True, check=True)
    return p.stdout


def lumped_names(rep):
    """The classes the report names ("A (n replicas of s states), ...")."""
    return rep["lumped"]["classes"] if rep and "lumped" in rep else None


def compare_kron(text, off, what):
    """The lumped model over the tensor descriptor (bicgstab to 1e-13)
    against the unlumped direct answer, 1e-9 relative."""
    p = subprocess.run([SAN, "solve", "-q", "-f", "json", "--storage", "kron", "--method",
                        "bicgstab", "--tol", "1e-13", "--max-iter", "100000", "-"],
                       input=text, capture_output=True, text=True, timeout=600)
    check(p.returncode == 0, f"{what} [kron]: solves ({p.stderr.strip()[:200]})")
    if p.returncode != 0:
        return
    on = json.loads(p.stdout)
    check(on["storage"] == "kron" and "lumped" in on, f"{what} [kron]: lumped over the descriptor")
    for k, v in off["results"].items():
        check(close(on["results"][k], v, 1e-9, 1e-13), f"{what} [kron]: result {k}")
    for a, marg in off["marginals"].items():
        for s, v in marg.items():
            check(close(on["marginals"][a][s], v, 1e-9, 1e-13), f"{what} [kron]: marginal {a}:{s}")


def compare(text, what, expect_lumped=True, extra=(), kron=False):
    """Lumped and unlumped answers agree on every index."""
    on, err = solve(text, extra)
    off, _ = solve(text, ["--lump", "off"] + list(extra))
    check(on is not None and off is not None, f"{what}: both solve")
    if on is None or off is None:
        return None
    names = lumped_names(on)
    check((names is not None) == expect_lumped,
          f"{what}: lumped {'expected' if expect_lumped else 'not expected'} ({err.strip()[:200]})")
    check("lumped" not in off, f"{what}: --lump off lumps nothing")
    if names is not None:
        check(on["reachable_states"] < off["reachable_states"],
              f"{what}: {on['reachable_states']} lumped states, fewer than {off['reachable_states']}")
    same_indices(on, off, what, close)
    for e, v in off.get("throughput_totals", {}).items():
        check(close(on["throughput_totals"][e], v), f"{what}: total {e}")
    if kron:
        compare_kron(text, off, what)
    return names


# ---- 1. lumped = unlumped --------------------------------------------

for n in range(2, 8):
    compare(gen(f"ms --mode sync --slaves {n}"), f"ms sync {n}", kron=n <= 4)
    compare(gen(f"ms --mode async --slaves {n} --buffer {3 if n > 5 else 6}"), f"ms async {n}",
            kron=n <= 4)
compare(gen("ms --mode async --slaves 3 --buffer 4 --work slices"), "ms async slices")
compare(gen("pipeline --mode async --stages 2,3,1 --replicas 1,3,1"), "pipeline replicas",
        expect_lumped=False)
compare(gen("pipeline --mode sync --stages 2,3,1,2 --replicas 2,1,2,1 --phases 2"),
        "pipeline phases", expect_lumped=False)

for f in ["rs_functions.san", "rs_pool.san", "clients_server.san"]:
    path = os.path.join(TOP, "models", f)
    with open(path) as fh:
        compare(fh.read(), f, expect_lumped=(f == "clients_server.san"))

peps_rs = os.path.join(SHARED, "peps", "rs.san")
if os.path.exists(peps_rs):
    with open(peps_rs) as fh:
        names = compare(fh.read(), "peps rs.san (use1 reads P[0])")
    check(names is not None and "P[1..10]" in names and "P[0]" not in names,
          f"peps rs.san: P[1..10] lumped, P[0] alone ({names})")


def machines(n, c, lam, mu, hand=False, extra_id="", extra_res="", reach="1", rates=None):
    """Machine repair M/M/c//n: a machine fails at lam, the repairmen
    share c servers among the machines down (each at mu min(k, c) / k).
    hand: the machines written out one by one (M1 .. Mn), rates[i]
    their failure rates."""
    ids = [f"  lam = {lam};", f"  mu = {mu};", f"  c = {c};"]
    if hand:
        auts = " ".join(f"M{i}" for i in range(1, n + 1))
        ids.append(f"  nd = nb [M1..M{n}] down;")
    else:
        ids += [f"  D = [1..{n}];", f"  nd = nb [M[1]..M[{n}]] down;"]
    ids.append("  rr = mu * min(nd, c) / max(nd, 1);")
    ids.append(extra_id)
    ev, net = [], []
    if hand:
        for i in range(1, n + 1):
            r = rates[i - 1] if rates else "lam"
            ev += [f"  loc f{i} ({r})", f"  loc r{i} (rr)"]
            net += [f"  aut M{i}", f"    stt up to(down) f{i}", f"    stt down to(up) r{i}"]
    else:
        ev += ["  loc fail (lam)", "  loc rep (rr)"]
        net += ["  aut M[i:D]", "    stt up to(down) fail", "    stt down to(up) rep"]
    return ("identifiers\n" + "\n".join(ids) + "\nevents\n" + "\n".join(ev) +
            f"\nreachability = {reach};\nnetwork mr (continuous)\n" + "\n".join(net) +
            "\nresults\n  down_mean = nd;\n  busy = min(nd, c);\n" + extra_res + "\n")


compare(machines(6, 2, 0.3, 1.1), "machine repair replicas")
names = compare(machines(6, 2, 0.3, 1.1, hand=True), "machine repair by hand")
check(names is not None and "(6 replicas" in names, f"hand-written machines lumped ({names})")

# ---- 2. symmetry breakers --------------------------------------------

# one machine with another failure rate: M3 apart, the others lumped
names = compare(machines(5, 2, 0.3, 1.1, hand=True, rates=["lam", "lam", "0.5", "lam", "lam"]),
                "one machine with another rate")
check(names is not None and "M3" not in names and "(4 replicas" in names,
      f"the other rate's machine is not lumped ({names})")
# every machine with its own rate: nothing lumped
compare(machines(4, 2, 0.3, 1.1, hand=True, rates=["0.1", "0.2", "0.3", "0.4"]),
        "all rates differ", expect_lumped=False)
# a function reading one replica: its repair rate depends on M[3]
names = compare(machines(5, 2, 0.3, 1.1, extra_id="  slow = 1 + (st M[3] == down);")
                .replace("rr = mu *", "rr = mu / slow *"), "function reads st M[3]")
check(names == "M[1..2,4..5] (4 replicas of 2 states)",
      f"st M[3] read: M[3] alone, the others lumped ({names})")
# a result on one replica
names = compare(machines(5, 2, 0.3, 1.1, extra_res="  m2 = st M[2] == down;"), "result on M[2]")
check(names == "M[1,3..5] (4 replicas of 2 states)", f"result on M[2]: M[2] alone ({names})")
# an asymmetric reachability function: M[1] up in every state
names = compare(machines(4, 1, 0.3, 1.1, reach="st M[1] == up || nd > 0"),
                "asymmetric reachability")
check(names == "M[2..4] (3 replicas of 2 states)", f"asymmetric reachability: M[1] alone ({names})")
# a count over some replicas only
names = compare(machines(5, 2, 0.3, 1.1, extra_res="  some = nb [M[1]..M[2]] down;"),
                "nb over some replicas")
check(names == "M[1..2] (2 replicas of 2 states), M[3..5] (3 replicas of 2 states)",
      f"nb over M[1..2]: two classes ({names})")
# a synchronized event of two replicas out of four
two = machines(4, 2, 0.3, 1.1, hand=True).replace("events\n", "events\n  syn both (0.2)\n")
two = two.replace("    stt up to(down) f1", "    stt up to(down) f1 both")
two = two.replace("    stt up to(down) f2", "    stt up to(down) f2 both")
names = compare(two, "event of two replicas")
check(names == "M1, M2 (2 replicas of 2 states), M3, M4 (2 replicas of 2 states)",
      f"event of M1 and M2: two classes ({names})")

# ---- 2c. rates reading the firing replica's own state ----------------


def own_machines(n, read="k", c=2):
    """Machines up -> deg -> down (or back up) on one event f[k] whose
    rate reads the firing machine's own state (st M[READ]): the lumped
    rate splits by that state, and the routing from deg with it."""
    return (f"identifiers\n  D = [1..{n}];\n  nd = nb [M[1]..M[{n}]] down;\n"
            f"  rr = 1.1 * min(nd, {c}) / max(nd, 1);\nevents\n"
            f"  loc f[k:D] (0.3 * (1 + (2 * (st M[{read}] == deg))))\n  loc r[k:D] (rr)\n"
            f"reachability = 1;\nnetwork own (continuous)\n  aut M[i:D]\n"
            f"    stt up to(deg) f[i]\n    stt deg to(down) f[i](0.7) to(up) f[i](0.3)\n"
            f"    stt down to(up) r[i]\nresults\n  down_mean = nd;\n"
            f"  degs = nb [M[1]..M[{n}]] deg;\n")


def own_clients(n):
    """Clients requesting the server (syn req[k]) from two states, at a
    rate that reads the client's own state and the server's."""
    return (f"identifiers\n  C = [1..{n}];\nevents\n  loc think[C] (0.5)\n"
            f"  syn req[k:C] ((2 + (3 * (st Client[k] == w))) * (1 + (st Server == idle)))\n"
            f"  syn done[C] (3)\npartial reachability = ((st Server == idle) && "
            f"((nb [Client[1]..Client[{n}]] t) == {n}));\nnetwork cs (continuous)\n"
            f"  aut Server\n    stt idle to(busy) req[C]\n    stt busy to(idle) done[C]\n"
            f"  aut Client[i:C]\n    stt t to(w) think[i] to(s) req[i]\n"
            f"    stt w to(s) req[i]\n    stt s to(t) done[i]\nresults\n"
            f"  waiting = nb [Client[1]..Client[{n}]] w;\n  busy = st Server == busy;\n")


for n in (2, 3, 5):
    names = compare(own_machines(n), f"own-state rate, machines {n}", kron=n == 3)
    check(names == f"M[1..{n}] ({n} replicas of 3 states)",
          f"own-state rate, machines {n}: lumped ({names})")
    names = compare(own_clients(n), f"own-state syn rate, clients {n}", kron=n == 3)
    check(names == f"Client[1..{n}] ({n} replicas of 3 states)",
          f"own-state syn rate, clients {n}: lumped ({names})")
# mutants: the rate of every f[k] reads M[3] (M[3] alone), or the
# machine opposite (6 - k: every machine read by another's event)
names = compare(own_machines(5, read="3"), "rate of f[k] reads st M[3]")
check(names == "M[1..2,4..5] (4 replicas of 3 states)",
      f"rate of f[k] reads M[3]: M[3] alone ({names})")
compare(own_machines(5, read="6 - k"), "rate of f[k] reads st M[6 - k]", expect_lumped=False)

# ---- 2b. random symmetric SANs and their mutants --------------------


def random_model(rng, mutate):
    """A controller Ctl and N replicas W[i] (routing, per-replica events,
    per-replica events synchronized with Ctl, an event of all replicas,
    functional rates over counts); mutate: one rate also reads st W[2]."""
    n, s, c = rng.randint(2, 4), rng.randint(2, 4), rng.randint(2, 3)
    W = [f"w{j}" for j in range(s)]
    C = [f"c{j}" for j in range(c)]
    cnt = f"nb [W[1]..W[{n}]]"

    def rate(own=False):
        k = rng.randint(0, 4 if own else 3)
        a, b = round(rng.uniform(0.2, 3), 3), round(rng.uniform(0.1, 2), 3)
        if k == 4:      # the firing replica's own state
            return f"({a} + ({b} * (st W[k] == {rng.choice(W)})))"
        if k == 0:
            return f"{a}"
        if k == 1:
            return f"({a} + ({b} * ({cnt} {rng.choice(W)})))"
        if k == 2:
            return f"({a} + ({b} * (st Ctl == {rng.choice(C)})))"
        return f"({a} * (1 + min({cnt} {rng.choice(W)}, 2)))"

    ev = [f"  loc z[k:D] ({rate(True)})", f"  loc a[k:D] ({rate(True)})",
          f"  syn b[k:D] ({rate(True)})", f"  syn g ({rate()})"]
    krate = rate()
    if mutate:
        krate = f"({krate} + (0.25 * (st W[2] == {W[0]})))"
    ev.append(f"  loc k ({krate})")
    wtr = {w: [] for w in W}
    for j, w in enumerate(W):
        wtr[w].append(f"to({W[(j + 1) % s]}) z[i]")
    src = rng.choice(W)
    p = round(rng.uniform(0.1, 0.9), 3)
    wtr[src] += [f"to({rng.choice(W)}) a[i]({p})", f"to({rng.choice(W)}) a[i]({round(1 - p, 3)})"]
    bsrc, bdst = rng.choice(W), rng.choice(W)
    wtr[bsrc].append(f"to({bdst}) b[i]")
    for w in rng.sample(W, rng.randint(1, s)):
        wtr[w].append(f"to({rng.choice(W)}) g")
    ctr = {x: [] for x in C}
    for j, x in enumerate(C):
        ctr[x].append(f"to({C[(j + 1) % c]}) k")
    ctr[rng.choice(C)].append(f"to({rng.choice(C)}) b[D]")
    ctr[rng.choice(C)].append(f"to({rng.choice(C)}) g")
    lines = [f"identifiers\n  D = [1..{n}];", "events", *ev,
             f"partial reachability = ((st Ctl == c0) && (({cnt} w0) == {n}));",
             "network rnd (continuous)", "  aut Ctl"]
    for x in C:
        lines.append(f"    stt {x} " + " ".join(ctr[x]))
    lines.append("  aut W[i:D]")
    for w in W:
        lines.append(f"    stt {w} " + " ".join(wtr[w]))
    lines += ["results", f"  r0 = {cnt} {W[-1]};", "  r1 = st Ctl;",
              f"  r2 = ({cnt} w0) * (st Ctl == c0);"]
    return "\n".join(lines) + "\n", n


rng = random.Random(28)
for t in range(20):
    text, n = random_model(rng, False)
    names = compare(text, f"random symmetric #{t}", kron=t < 5)
    check(names == f"W[1..{n}] ({n} replicas of {text.count('    stt w')} states)",
          f"random symmetric #{t}: W lumped ({names})")
    want = None if n == 2 else f"W[1,3..{n}] ({n - 1} replicas" if n > 3 else "W[1,3] (2 replicas"
    if "st W[k]" in text:
        names = compare(text.replace("st W[k]", "st W[2]", 1), f"random own-state mutant #{t}",
                        expect_lumped=n > 2)
        check(names == want if want is None else (names or "").startswith(want),
              f"random own-state mutant #{t}: W[2] alone ({names})")
    text, n = random_model(rng, True)
    want = None if n == 2 else f"W[1,3..{n}] ({n - 1} replicas" if n > 3 else "W[1,3] (2 replicas"
    names = compare(text, f"random mutant #{t}", expect_lumped=n > 2)
    check(names == want if want is None else (names or "").startswith(want),
          f"random mutant #{t}: W[2] alone ({names})")

# ---- 3. closed forms ---------------------------------------------------


def machine_repair_pk(n, c, lam, mu):
    """P(k machines down), k = 0..n."""
    logw = []
    for k in range(n + 1):
        lw = math.lgamma(n + 1) - math.lgamma(n - k + 1) + k * math.log(lam / mu)
        lw -= math.lgamma(k + 1) if k <= c else math.lgamma(c + 1) + (k - c) * math.log(c)
        logw.append(lw)
    top = max(logw)
    w = [math.exp(x - top) for x in logw]
    s = sum(w)
    return [x / s for x in w]


for n, c in [(10, 3), (200, 20), (1000, 40)]:
    lam, mu = 0.05, 1.3
    rep, err = solve(machines(n, c, lam, mu))
    check(rep is not None, f"machine repair {n}/{c} solves lumped")
    if rep is None:
        continue
    pk = machine_repair_pk(n, c, lam, mu)
    mean = sum(k * p for k, p in enumerate(pk))
    check(rep["reachable_states"] == n + 1, f"machine repair {n}: {n + 1} lumped states")
    check(close(rep["results"]["down_mean"], mean, 1e-10),
          f"machine repair {n}/{c}: E[down] {rep['results']['down_mean']} vs {mean}")
    busy = sum(min(k, c) * p for k, p in enumerate(pk))
    check(close(rep["results"]["busy"], busy, 1e-10), f"machine repair {n}/{c}: busy")
    check(close(rep["marginals"]["M[1]"]["down"], mean / n, 1e-10),
          f"machine repair {n}/{c}: a machine's marginal")
    check(close(rep["throughput_totals"]["fail@M[*]"], lam * (n - mean), 1e-10),
          f"machine repair {n}/{c}: failures per unit time")
    check(lumped_names(rep) == f"M[1..{n}] ({n} replicas of 2 states)",
          f"machine repair {n}: the report says what was lumped ({lumped_names(rep)})")


def engset(n, c, lam, mu):
    """Engset's loss system as SAN text, and P(k busy)."""
    text = (f"identifiers\n  D = [1..{n}];\n  c = {c};\n  k = nb [S[1]..S[{n}]] busy;\n"
            f"events\n  loc go ({lam} * (k < c))\n  loc done ({mu})\nreachability = k <= c;\n"
            f"network engset (continuous)\n  aut S[i:D]\n    stt idle to(busy) go\n"
            f"    stt busy to(idle) done\nresults\n  blocked_time = k == c;\n  mean = k;\n")
    logw = [math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * math.log(lam / mu)
            for j in range(c + 1)]
    top = max(logw)
    w = [math.exp(x - top) for x in logw]
    s = sum(w)
    return text, [x / s for x in w]


for n, c in [(12, 4), (1000, 30)]:
    text, pk = engset(n, c, 0.02, 1.0)
    rep, err = solve(text)
    check(rep is not None, f"engset {n}/{c} solves lumped")
    if rep is None:
        continue
    check(rep["reachable_states"] == c + 1, f"engset {n}/{c}: {c + 1} states")
    check(close(rep["results"]["blocked_time"], pk[c], 1e-10),
          f"engset {n}/{c}: P(all busy) {rep['results']['blocked_time']} vs {pk[c]}")
    check(close(rep["results"]["mean"], sum(j * p for j, p in enumerate(pk)), 1e-10),
          f"engset {n}/{c}: mean busy")

tally.exit()
