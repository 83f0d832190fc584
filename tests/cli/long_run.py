#!/usr/bin/env python3
"""long_run.py - `san solve` on chains with several closed classes
(issue 31): the long-run distribution from the initial one,
sum over the closed classes c of P(reach c) pi_c.

Each model's chain is written out here by hand, and the reference is
computed exactly in rational arithmetic (fractions; Gaussian
elimination): the closed classes from the graph, the reach probabilities
from the expected times in the transient states (z (-Q_TT) = alpha_T),
each class's stationary vector from pi_c Q_c = 0.  Compared, on the
sparse and the tensor storage and auto: every state's probability
(--vector), the results, the marginals, the throughputs, the classes'
reach probabilities and sizes, 1e-9 relative (1e-15 absolute), the
reported error estimate against the error measured; and against
`san props --property 'S=? [...]'` for the same model.

Models: three closed classes (two absorbing, one cyclic) from one
initial state, from two, and from every state (a full reachability
function); two cyclic classes in a product of two
automata with functional rates; replicas (lumped) with four absorbing
outcomes; PRISM's two outcomes (5/6).
"""
import json
import os
import sys
import tempfile
from fractions import Fraction as Fr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import check, tally, run  # noqa: E402


# ---- the exact reference --------------------------------------------------

def solve_exact(a, b):
    """x a = b for a square matrix of Fractions (rows of a: equations'
    coefficients of x are a's columns): Gaussian elimination on a^T."""
    n = len(b)
    m = [[a[j][i] for j in range(n)] + [b[i]] for i in range(n)]
    for c in range(n):
        p = next(r for r in range(c, n) if m[r][c] != 0)
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def closed_classes(n, q):
    """The closed classes (lists of states) of the generator q."""
    reach = [{i} | {j for j in range(n) if q[i][j] != 0} for i in range(n)]
    changed = True
    while changed:
        changed = False
        for i in range(n):
            new = set().union(*(reach[j] for j in reach[i]))
            if new != reach[i]:
                reach[i], changed = new, True
    classes = []
    for i in range(n):
        if all(i in reach[j] for j in reach[i]) and not any(i in c for c in classes):
            classes.append(sorted(reach[i]))
    return classes


def long_run(states, rates, init):
    """pi (per state), [(class states, P(reach))] for the chain whose
    transitions rates(s) lists as (target, rate, event)."""
    n = len(states)
    idx = {s: i for i, s in enumerate(states)}
    q = [[Fr(0)] * n for _ in range(n)]
    for s in states:
        for t, r, _ in rates(s):
            q[idx[s]][idx[t]] += r
            q[idx[s]][idx[s]] -= r
    classes = closed_classes(n, q)
    closed = {i for c in classes for i in c}
    tr = [i for i in range(n) if i not in closed]
    alpha = [Fr(0)] * n
    for s in init:
        alpha[idx[s]] += Fr(1, len(init))
    z = solve_exact([[-q[i][j] for j in tr] for i in tr], [alpha[i] for i in tr]) if tr else []
    pi = [Fr(0)] * n
    out = []
    for c in classes:
        p = sum(alpha[j] for j in c) + sum(z[k] * q[i][j] for k, i in enumerate(tr) for j in c)
        # pi_c Q_c = 0 with the first equation replaced by sum = 1
        a = [[q[i][j] for j in c] for i in c]
        for r in range(len(c)):
            a[r][0] = Fr(1)
        x = solve_exact(a, [Fr(1)] + [Fr(0)] * (len(c) - 1))
        for k, i in enumerate(c):
            pi[i] = p * x[k]
        out.append(([states[i] for i in c], p))
    return pi, out


def close(x, ref, rel=1e-9, ab=1e-15):
    return abs(x - float(ref)) <= max(rel * abs(float(ref)), ab)


# ---- the checks ------------------------------------------------------------

def key(state):
    return tuple(sorted(state.items()))


def check_solve(name, path, states, rates, init, label_of, results, extra=(), lumped=False):
    """san solve on every storage against the reference; results:
    {name: function of a state}; label_of(s) -> {aut: local}."""
    pi, classes = long_run(states, rates, init)
    ref_state = {key(label_of(s)): p for s, p in zip(states, pi)}
    ref_results = {r: sum(p * f(s) for s, p in zip(states, pi)) for r, f in results.items()}
    ref_thr = {}
    for s, p in zip(states, pi):
        for _, r, e in rates(s):
            ref_thr[e] = ref_thr.get(e, 0) + p * r
    ref_marg = {}
    for s, p in zip(states, pi):
        for aut, loc in label_of(s).items():
            ref_marg[(aut, loc)] = ref_marg.get((aut, loc), 0) + p
    outs = {}
    for storage in ("sparse", "kron", "auto"):
        rc, out, err = run(["solve", "--storage", storage, "-f", "json", "--vector", "-",
                            *extra, path])
        check(rc == 0, f"{name} {storage}: exit {rc}: {err.strip()[:400]}")
        if rc != 0:
            continue
        d = json.loads(out)
        outs[storage] = d
        check(lumped or d["closed_classes"] == len(classes) and d["initial_states"] == len(init),
              f"{name} {storage}: {d.get('closed_classes')} classes, "
              f"{d.get('initial_states')} initial states")
        got = sorted((c["states"], c["reach"]) for c in d["classes"]["classes"])
        want = sorted((len(c), p) for c, p in classes)
        if not lumped:
            check(len(got) == len(want) and all(g[0] == w[0] and close(g[1], w[1])
                                                for g, w in zip(got, want)),
                  f"{name} {storage}: classes {got}, expected {[(n, float(p)) for n, p in want]}")
        check(all(0 < c["reach_error"] <= 1e-12 for c in d["classes"]["classes"]),
              f"{name} {storage}: reach errors {[c['reach_error'] for c in d['classes']['classes']]}")
        check(abs(sum(c["reach"] for c in d["classes"]["classes"]) - 1) < 1e-12,
              f"{name} {storage}: reach probabilities sum to "
              f"{sum(c['reach'] for c in d['classes']['classes'])}")
        est = d["solver"]["error_estimate"]
        # every figure a number or null (not computed), never the string
        # "nan" the aggregation test left over several classes
        for f in ("balance", "aggregation_error", "error_estimate"):
            check(d["solver"][f] is None or type(d["solver"][f]) in (int, float),
                  f"{name} {storage}: solver.{f} = {d['solver'][f]!r}")
        worst = 0.0
        if not lumped:
            vec = {key(v["state"]): v["p"] for v in d["vector"]}
            check(set(vec) == set(ref_state), f"{name} {storage}: vector states {sorted(vec)}")
            for k, p in ref_state.items():
                if k in vec:
                    check(close(vec[k], p), f"{name} {storage}: pi{k} = {vec[k]!r}, "
                          f"expected {float(p)!r}")
                    if p > Fr(1, 10**14):
                        worst = max(worst, abs(vec[k] - float(p)) / float(p))
            check(est is not None and worst <= 10 * est + 1e-14,
                  f"{name} {storage}: error estimate {est} below the error measured {worst}")
        check(est is not None and est <= 1e-9, f"{name} {storage}: error estimate {est}")
        for r, v in ref_results.items():
            check(close(d["results"][r], v), f"{name} {storage}: result {r} = "
                  f"{d['results'][r]!r}, expected {float(v)!r}")
        for e, v in ref_thr.items():
            check(close(d["throughputs"][e], v), f"{name} {storage}: throughput {e} = "
                  f"{d['throughputs'][e]!r}, expected {float(v)!r}")
        for (aut, loc), v in ref_marg.items():
            check(close(d["marginals"][aut][loc], v), f"{name} {storage}: marginal "
                  f"{aut}:{loc} = {d['marginals'][aut][loc]!r}, expected {float(v)!r}")
        check(d["storage"] == ("sparse" if storage == "auto" else storage),
              f"{name} {storage}: solved on {d['storage']}")
    return outs, ref_results


def check_props(name, path, label, ref):
    rc, out, err = run(["props", "-f", "json", "--property", f'S=? [ "{label}" ]', path])
    check(rc == 0, f"{name}: san props exit {rc}: {err.strip()[:300]}")
    if rc == 0:
        v = json.loads(out)["properties"][0]["value"]
        check(close(v, ref), f"{name}: san props S=? [\"{label}\"] = {v!r}, solve's "
              f"reference {float(ref)!r}")


tmp = tempfile.mkdtemp(prefix="san-long-run-")


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# 1. one automaton: s0, s1 transient; {g0, g1, g2} cyclic; f, h absorbing.
THREE = """
identifiers
  a = 1.3;
events
  loc go1 (a)
  loc back (0.7)
  loc fail (0.4)
  loc good (0.9)
  loc halt (0.25)
  loc r01 (2)
  loc r12 (3)
  loc r20 (1.1)
  loc r10 (0.5)
partial reachability = %s;
network three (continuous)
  aut M
    stt s0 to(s1) go1 to(f) fail
    stt s1 to(s0) back to(g0) good to(h) halt
    stt g0 to(g1) r01
    stt g1 to(g2) r12 to(g0) r10
    stt g2 to(g0) r20
    stt f
    stt h
results
  inG = (((st M) == g0) || ((st M) == g1)) || ((st M) == g2);
  failed = (st M) == f;
  g1p = (st M) == g1;
"""
T = {"s0": [("s1", Fr("1.3"), "go1"), ("f", Fr("0.4"), "fail")],
     "s1": [("s0", Fr("0.7"), "back"), ("g0", Fr("0.9"), "good"), ("h", Fr("0.25"), "halt")],
     "g0": [("g1", Fr(2), "r01")],
     "g1": [("g2", Fr(3), "r12"), ("g0", Fr("0.5"), "r10")],
     "g2": [("g0", Fr("1.1"), "r20")], "f": [], "h": []}
RES3 = {"inG": lambda s: s in ("g0", "g1", "g2"), "failed": lambda s: s == "f",
        "g1p": lambda s: s == "g1"}
p1 = write("three.san", THREE % "(st M) == s0")
outs, ref3 = check_solve("three", p1, list(T), lambda s: T[s], ["s0"], lambda s: {"M": s}, RES3)
check_props("three", p1, "inG", ref3["inG"])
check_props("three", p1, "failed", ref3["failed"])
if "sparse" in outs:
    # the text report names the classes and their reach probabilities
    rc, out, err = run(["solve", p1])
    check(rc == 0 and "classes      3 closed" in out and "class 1: 3 states" in out,
          f"three: text report: {out[:600]}")
    rc, out, err = run(["solve", "-f", "csv", p1])
    check(rc == 0 and "class,reach,1," in out, f"three: csv report: {out[:300]}")

# 2. two initial states: uniform over s0 and s1 (as san props).
p2 = write("three2.san", THREE % "((st M) == s0) || ((st M) == s1)")
outs, ref = check_solve("three-2init", p2, list(T), lambda s: T[s], ["s0", "s1"],
                        lambda s: {"M": s}, RES3)
check_props("three-2init", p2, "inG", ref["inG"])

# 2b. a full reachability function: every declared state is initial (as
# san props and san transient read it), closed ones included.
p2b = write("three_full.san", (THREE % "1").replace("partial reachability", "reachability"))
outs, ref = check_solve("three-full", p2b, list(T), lambda s: T[s], list(T),
                        lambda s: {"M": s}, RES3)
check_props("three-full", p2b, "failed", ref["failed"])

# 3. two automata, functional rates, two cyclic closed classes.
MODES = """
identifiers
  fl = (0.5 + (((st Mode) == A) * 1)) + (((st Mode) == B) * 2.5);
  rp = 3 - (((st Mode) == B) * 1.5);
  pb = (((st Mach) == down) * 0.7) + 0.3;
events
  loc pickA (1.2)
  loc pickB (pb)
  loc brk (fl)
  loc fix (rp)
partial reachability = ((st Mode) == start) && ((st Mach) == up);
network modes (continuous)
  aut Mode
    stt start to(A) pickA to(B) pickB
    stt A
    stt B
  aut Mach
    stt up to(down) brk
    stt down to(up) fix
results
  avail = (st Mach) == up;
  inA = (st Mode) == A;
"""


def modes_rates(s):
    mode, mach = s
    fl = Fr(1, 2) + (1 if mode == "A" else 0) + (Fr(5, 2) if mode == "B" else 0)
    rp = 3 - (Fr(3, 2) if mode == "B" else 0)
    t = []
    if mode == "start":
        t.append(((("A", mach)), Fr(6, 5), "pickA"))
        t.append(((("B", mach)), Fr(3, 10) + (Fr(7, 10) if mach == "down" else 0), "pickB"))
    if mach == "up":
        t.append(((mode, "down"), fl, "brk"))
    else:
        t.append(((mode, "up"), rp, "fix"))
    return t


SM = [(a, b) for a in ("start", "A", "B") for b in ("up", "down")]
p3 = write("modes.san", MODES)
outs, ref = check_solve("modes", p3, SM, modes_rates, [("start", "up")],
                        lambda s: {"Mode": s[0], "Mach": s[1]},
                        {"avail": lambda s: s[1] == "up", "inA": lambda s: s[0] == "A"})
check_props("modes", p3, "avail", ref["avail"])

# 4. replicas, lumped: each of R = 3 players ends won or lost (the
# lumped chain's classes are the counts of winners); the results and
# marginals are the model's as written.
DUEL = """
identifiers
  R = [1..3];
events
  loc win[R] (1)
  loc lose[R] (2)
partial reachability = (nb [P[1]..P[3]] s) == 3;
network duel (continuous)
  aut P[i:R]
    stt s
      to(w) win[i]
      to(l) lose[i]
    stt w
    stt l
results
  winners = nb w;
  allwin = (nb w) == 3;
"""


def duel_rates(s):
    t = []
    for i, x in enumerate(s):
        if x == "s":
            t.append((s[:i] + ("w",) + s[i + 1:], Fr(1), f"win[{i + 1}]"))
            t.append((s[:i] + ("l",) + s[i + 1:], Fr(2), f"lose[{i + 1}]"))
    return t


SD = [(a, b, c) for a in "swl" for b in "swl" for c in "swl"]
p4 = write("duel.san", DUEL)
outs, ref = check_solve("duel", p4, SD, duel_rates, [("s", "s", "s")],
                        lambda s: {f"P[{i + 1}]": x for i, x in enumerate(s)},
                        {"winners": lambda s: s.count("w"), "allwin": lambda s: s == ("w",) * 3},
                        lumped=True)
for st, d in outs.items():
    check(d["closed_classes"] == 4 and "lumped" in d, f"duel {st}: {d['closed_classes']} "
          f"classes of the lumped chain (4: 0..3 winners), lumped {'lumped' in d}")
check(close(float(ref["allwin"]), Fr(1, 27)), f"duel: reference P(all win) {ref['allwin']}")

# 5. PRISM: from x = 0, to x = 1 at rate 5 or x = 2 at rate 1, both
# absorbing: S=? [x = 1] is 5/6.
PRISM = """ctmc
module M
  x : [0..2] init 0;
  [] x = 0 -> 5 : (x'=1) + 1 : (x'=2);
endmodule
label "one" = x = 1;
"""
p5 = write("two.prism", PRISM)
for storage in ("sparse", "kron"):
    rc, out, err = run(["solve", "--storage", storage, "-f", "json", p5])
    check(rc == 0, f"prism {storage}: exit {rc}: {err.strip()[:300]}")
    if rc == 0:
        d = json.loads(out)
        check(close(d["results"]["one"], Fr(5, 6)), f"prism {storage}: one = "
              f"{d['results']['one']!r}, expected 5/6")
check_props("prism", p5, "one", Fr(5, 6))

for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
tally.exit()
