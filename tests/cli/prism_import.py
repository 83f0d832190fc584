#!/usr/bin/env python3
"""prism_import.py - `san import prism` and PRISM models read by the commands.

1. tests/prism/tiny.prism, a model that uses every construct the importer
   reads, against its chain built here independently: the states and
   rates written out from PRISM's semantics (a synchronized action's rate
   is the product of its participants' rates, for every combination of
   their enabled commands), the steady state by Gaussian elimination,
   the labels and rewards (transition rewards weighted by the rates)
   computed from it.  Within 1e-9 relative.
2. The QVBS CTMC models at their small sizes (tests/prism/qvbs): the
   reachable state counts and the steady-state values published with
   the benchmark set (Storm's exact engine, to 16 digits; 1e-9 relative).
3. `init ... endinit`, the import's text through `san solve -`, and bad
   input: line:column diagnostics, exit status 2.
"""
import json
import os
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import TOP, fail, tally, run, close_rel as close, generator, stationary  # noqa: E402

DIR = os.path.join(TOP, "tests", "prism")


def solve_json(args, stdin=None):
    rc, out, err = run(["solve", "--format", "json"] + args, stdin)
    if rc != 0:
        fail("san solve %s: exit %d: %s" % (" ".join(args), rc, err.strip()[:500]))
        return None
    return json.loads(out)


# ---- 1. tiny.prism, its chain built here ----

def tiny_chain(N):
    """States (g, q, s, up, s2, up2) reachable from the initial one, and
    for each state its transitions as (rate, target, action) where action
    is None for an unlabelled command (a local one) or 'serve'."""
    lam, mu, K = 1.5, 2.0, N // 2 + 1

    def server(s, up):
        # the commands of Server labelled serve: (rate, s', up')
        out = []
        if s < 2:
            out.append((1.0, s + 1, up))
        if s == 2:
            out.append((2.0, 1, 1 - up))
        return out

    def trans(st):
        g, q, s, up, s2, up2 = st
        t = []
        # Queue
        if q < N:
            t.append((lam, (g, q + 1, s, up, s2, up2), None))
        if q == N:
            t.append((0.3 if g == 1 else 0.6, (g, 0, s, up, s2, up2), None))
            t.append((0.2, (g, K - 1, s, up, s2, up2), None))
        if q < N and up:
            t.append((0.25, (g, min(N, q + s), s, up, s2, up2), None))
        if g == 1:
            t.append((0.05, (0, q, s, up, s2, up2), None))
        # Server and its copy
        if not up:
            t.append((0.7, (g, q, s, 1, s2, up2), None))
        if g == 0:
            t.append((0.1, (1, q, s, up, s2, up2), None))
        if not up2:
            t.append((0.7, (g, q, s, up, s2, 1), None))
        if g == 0:
            t.append((0.1, (1, q, s, up, s2, up2), None))
        # serve: Queue x Server x Server2, every combination of enabled
        # commands (Queue has two, both enabled when q > 1)
        queue = []
        if q > 0:
            queue.append((mu, q - 1))
        if q > 1:
            queue.append((0.5, q - 2))
        for r0, nq in queue:
            for r1, ns, nup in server(s, up):
                for r2, ns2, nup2 in server(s2, up2):
                    t.append((r0 * r1 * r2, (g, nq, ns, nup, ns2, nup2), "serve"))
        return t

    init = (0, 0, 1, 1, 1, 1)
    states, index, todo = [init], {init: 0}, [init]
    while todo:
        st = todo.pop()
        for _, nxt, _ in trans(st):
            if nxt not in index:
                index[nxt] = len(states)
                states.append(nxt)
                todo.append(nxt)
    return states, index, trans


def steady(states, index, trans):
    """pi Q = 0, sum pi = 1 of the chain (santest.stationary)."""
    arcs = [(i, index[nxt], rate) for i, st in enumerate(states) for rate, nxt, _ in trans(st)]
    return stationary(generator(len(states), arcs))


def tiny_reference(N):
    states, index, trans = tiny_chain(N)
    pi = steady(states, index, trans)
    ref = {"full": 0.0, "down": 0.0, "imp": 0.0, "qlen": 0.0, "served": 0.0, "rewards_3": 0.0}
    for p, st in zip(pi, states):
        g, q, s, up, s2, up2 = st
        ref["full"] += p * (q == N)
        ref["down"] += p * (not up or not up2)
        ref["imp"] += p * ((not up) or s == 1)
        ref["qlen"] += p * (q + (0.5 if not up else 0))
        for rate, nxt, act in trans(st):
            if act == "serve":
                ref["served"] += p * rate * 1
                ref["rewards_3"] += p * rate * (3 if s2 == 2 else 0)
            elif q == N:
                ref["served"] += p * rate * 2
    return len(states), ref


def check_tiny():
    tiny = os.path.join(DIR, "tiny.prism")
    for N in (2, 3):
        count, ref = tiny_reference(N)
        j = solve_json([tiny, "-D", "N=%d" % N])
        if not j:
            continue
        if j["reachable_states"] != count:
            fail("tiny N=%d: %s reachable states, the chain built here has %d"
                 % (N, j["reachable_states"], count))
        for k, v in ref.items():
            got = j["results"].get(k)
            if got is None or not close(got, v, 1e-9):
                fail("tiny N=%d: %s = %r, reference %r" % (N, k, got, v))
        print("tiny N=%d: %d states, %s" % (N, count, ", ".join(
            "%s %.12g" % (k, j["results"][k]) for k in ref)))
    # the same through the text of san import prism
    rc, text, err = run(["import", "prism", tiny, "-D", "N=2"])
    if rc != 0:
        fail("san import prism tiny: exit %d: %s" % (rc, err))
        return
    if "// generated by: san import prism" not in text.splitlines()[0]:
        fail("the imported text does not start with its command line")
    j = solve_json(["-"], stdin=text)
    count, ref = tiny_reference(2)
    if j and not all(close(j["results"][k], v, 1e-9) for k, v in ref.items()):
        fail("tiny through san import prism | san solve -: %s" % j["results"])
    # system ... endsystem with ||: PRISM's default composition
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tiny_system.prism")
        with open(path, "w") as f:
            f.write(open(tiny).read() + "\nsystem Queue || (Server || Server2) endsystem\n")
        j = solve_json([path, "-D", "N=2"])
        if j and (j["reachable_states"] != count or
                  not all(close(j["results"][k], v, 1e-9) for k, v in ref.items())):
            fail("tiny with system ... endsystem: %s" % j["results"])
    # init ... endinit: the initial states given by a predicate (two of
    # them here, in the one closed class): the same chain
    src = open(tiny).read()
    src = src.replace("q : [0..N] init 0;", "q : [0..N];").replace(
        "g : [0..1] init 0;", "g : [0..1];").replace(
        "s : [1..2] init 1;", "s : [1..2];").replace("up : bool init true;", "up : bool;")
    src += "\ninit q <= 1 & g = 0 & s = 1 & up & s2 = 1 & up2 endinit\n"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tiny_init.prism")
        with open(path, "w") as f:
            f.write(src)
        j = solve_json([path, "-D", "N=2"])
        if j and (j["reachable_states"] != count or
                  not all(close(j["results"][k], v, 1e-9) for k, v in ref.items())):
            fail("tiny with init ... endinit: %s states, %s" % (j["reachable_states"],
                                                                j["results"]))


# ---- 2. QVBS models ----

# (file, -D, published state count, {result: published value}, extra
# results written in .san terms, for properties that are not labels or
# reward structures of the model).  Values: Storm's exact engine, QVBS
# benchmarks/ctmc/*/results/Storm.exact.*.json (the "approx" of the
# exact rational), checked to 1e-9 relative.
QVBS = [
    ("cluster.prism", ["N=2"], 276, {"premium": 0.9999615335623628}, {}),
    ("cluster.prism", ["N=4"], 820, {"premium": 0.9999212408513793}, {}),
    ("tandem.prism", ["c=5"], 66, {"customers": 5.679249959967679}, {}),
    ("tandem.prism", ["c=7"], 120, {"customers": 7.7465621853360425}, {}),
    ("tandem.prism", ["c=15"], 496, {"customers": 15.798592927169762}, {}),
    ("kanban.prism", ["t=1"], 160, {"throughput": 0.0925846346333826}, {}),
    ("fms.prism", ["n=1"], 54, {"productivity": 13.85312833622229}, {}),
    ("fms.prism", ["n=2"], 810, {"productivity": 29.154698799657936}, {}),
    # S=? [ s1=1 & !(s=1 & a=1) ]: a state formula, written in .san
    ("polling.3.prism", [], 36, {"s1": 0.1308020365834841},
     {"s1": "((st s1) == 1) && !(((st s) == 0) && ((st a) == 1))"}),
    ("polling.4.prism", [], 96, {"s1": 0.14119036379818742},
     {"s1": "((st s1) == 1) && !(((st s) == 0) && ((st a) == 1))"}),
    ("polling.5.prism", [], 240, {"s1": 0.14492709367584383},
     {"s1": "((st s1) == 1) && !(((st s) == 0) && ((st a) == 1))"}),
    ("polling.6.prism", [], 576, {"s1": 0.14573191126269974},
     {"s1": "((st s1) == 1) && !(((st s) == 0) && ((st a) == 1))"}),
    # absorbing (no steady state): the state counts
    ("embedded.prism", ["MAX_COUNT=2"], 3478, {}, None),
    ("embedded.prism", ["MAX_COUNT=3"], 4323, {}, None),
    ("mapk_cascade.prism", ["N=1"], 118, {}, None),
    ("mapk_cascade.prism", ["N=2"], 2172, {}, None),
    # Storm's default engine only: the state count
    ("kanban.prism", ["t=2"], 4600, {}, None),
]


def check_qvbs():
    for fname, defs, states, refs, extra in QVBS:
        path = os.path.join(DIR, "qvbs", fname)
        dargs = []
        for d in defs:
            dargs += ["-D", d]
        what = "%s %s" % (fname, " ".join(defs))
        if extra is None:
            rc, out, err = run(["check", path] + dargs)
            line = [l for l in out.splitlines() if l.startswith("reachable states:")]
            got = int(line[0].split()[2].rstrip(",")) if line else None
            if rc != 0 or got != states:
                fail("%s: san check exit %d, %s reachable states, published %d: %s"
                     % (what, rc, got, states, err.strip()[:300]))
            else:
                print("%s: %d states (published %d)" % (what, got, states))
            continue
        if extra:
            rc, text, err = run(["import", "prism", path] + dargs)
            if rc != 0:
                fail("%s: san import prism exit %d: %s" % (what, rc, err))
                continue
            if "\nresults\n" not in text:
                text += "\nresults\n"
            text += "".join("  %s_ref = %s;\n" % (k, v) for k, v in extra.items())
            j = solve_json(["-"], stdin=text)
            if j:
                j["results"] = {k[:-4]: v for k, v in j["results"].items() if k.endswith("_ref")}
        else:
            j = solve_json([path] + dargs)
        if not j:
            continue
        if j["reachable_states"] != states:
            fail("%s: %s reachable states, published %d" % (what, j["reachable_states"], states))
        for k, v in refs.items():
            got = j["results"].get(k)
            if got is None or not close(got, v, 1e-9):
                fail("%s: %s = %r, published %r" % (what, k, got, v))
            else:
                print("%s: %d states, %s = %.15g (published %.15g, rel. diff %.1e)"
                      % (what, states, k, got, v, abs(got - v) / abs(v)))


# Transient values at time t: Storm's default engine in QVBS (printed to
# 10 digits, its precision 1e-6): checked to 1e-6 relative.  The
# default initial distribution of san transient is the model's initial
# state (the partial reachability the import writes).
TRANSIENT = [
    # R=? [ I=t ] with the reward structure "customers"
    ("tandem.prism", ["c=5"], "0.2", {"customers": 3.576667592}),
    # "operational": R{"percent_op"}=? [ I=t ]; "qos2": P=? [ F[t,t] !"minimum" ],
    # the reward time_not_min (!minimum : 1) at t
    ("cluster.prism", ["N=2"], "20", {"percent_op": 99.87643558,
                                      "time_not_min": 2.201599927e-06}),
]


def check_transient():
    for fname, defs, t, refs in TRANSIENT:
        args = ["transient", "--format", "json", "--time", t,
                os.path.join(DIR, "qvbs", fname)]
        for d in defs:
            args += ["-D", d]
        rc, out, err = run(args)
        if rc != 0:
            fail("%s: exit %d: %s" % (" ".join(args), rc, err.strip()[:300]))
            continue
        j = json.loads(out)
        res = j["times"][0]["results"] if "times" in j else None
        for k, v in refs.items():
            got = res.get(k) if res else None
            if got is None or not close(got, v, 1e-6):
                fail("%s %s t=%s: %s = %r, published %r" % (fname, defs, t, k, got, v))
            else:
                print("%s %s t=%s: %s = %.10g (published %.10g)" % (fname, " ".join(defs), t, k,
                                                                    got, v))


def check_functions():
    """floor, mod, pow of the state, written as .san's functions (not
    tabulated): tests/prism/functions.prism, P(x even) = 11/19 in closed
    form (the file says why)."""
    rc, out, err = run(["import", "prism", os.path.join(DIR, "functions.prism")])
    for want in ("mod((st x), 2)", "floor(((st x) / 2))", "pow(2, (st x))"):
        if rc != 0 or want not in out:
            fail("import of functions.prism: exit %d, no %s in the text" % (rc, want))
    j = solve_json([os.path.join(DIR, "functions.prism")])
    if j and (j["reachable_states"] != 18 or not close(j["results"]["even"], 11 / 19, 1e-9)):
        fail("functions.prism: %s states, even = %r, closed form 11/19"
             % (j["reachable_states"], j["results"].get("even")))


def check_accumulated():
    """cluster N=2, T=2000: "below_min": R{"time_not_min"}=? [ C<=T ] and
    "repairs": R{"num_repairs"}=? [ C<=T ] (transition rewards: one per
    repair) as san transient --rewards accumulates the results.  QVBS,
    Storm's default engine (10 digits: 1e-6)."""
    rc, out, err = run(["transient", "--rewards", "--time", "2000", "--format", "json",
                        os.path.join(DIR, "qvbs", "cluster.prism"), "-D", "N=2"])
    if rc != 0:
        fail("cluster accumulated rewards: exit %d: %s" % (rc, err.strip()[:300]))
        return
    acc = json.loads(out)["times"][0]["accumulated"]["results"]
    for k, v in (("time_not_min", 0.004659192406), ("num_repairs", 17.36977828)):
        if not close(acc.get(k, float("nan")), v, 1e-6):
            fail("cluster N=2 C<=2000 %s = %r, published %r" % (k, acc.get(k), v))
        else:
            print("cluster.prism N=2 C<=2000: %s = %.10g (published %.10g)" % (k, acc[k], v))


def check_passage():
    """toggle-switch: "change_state": P=? [ F[0,T] (TetR > 40) & (LacI < 20) ],
    T = 2100: san passage --within, the target in .san terms (the ranges
    start at 0).  QVBS: 99 states, 0.01349121251 (Storm's default engine,
    10 digits: 1e-6)."""
    rc, out, err = run(["passage", "--within", "2100", "--until",
                        "(st TetR) > 40 && (st LacI) < 20",
                        os.path.join(DIR, "qvbs", "toggle-switch.prism")])
    line = [l for l in out.splitlines() if l.split()[:1] == ["2100"]]
    got = float(line[0].split()[1]) if line else None
    if rc != 0 or got is None or not close(got, 0.01349121251, 1e-6):
        fail("toggle-switch change_state: exit %d, %r: %s" % (rc, got, err.strip()[:300]))
    else:
        print("toggle-switch: change_state = %.12g (published 0.01349121251)" % got)
    rc, out, err = run(["check", os.path.join(DIR, "qvbs", "toggle-switch.prism")])
    if "reachable states: 99," not in out:
        fail("toggle-switch: not 99 reachable states: %s" % out[-300:])


def check_sweep():
    """san sweep MODEL.prism -D c=5,7: the model imported per variant."""
    import csv
    import io
    rc, out, err = run(["sweep", os.path.join(DIR, "qvbs", "tandem.prism"), "-D", "c=5,7",
                        "--format", "csv"])
    if rc != 0:
        fail("san sweep tandem.prism: exit %d: %s" % (rc, err.strip()[:300]))
        return
    rows = list(csv.DictReader(io.StringIO("\n".join(
        l for l in out.splitlines() if not l.startswith("#")))))
    want = {"5": (66, 5.679249959967679), "7": (120, 7.7465621853360425)}
    for r in rows:
        states, ref = want.pop(r["c"], (None, None))
        if ref is None or int(r["reachable_states"]) != states or \
                not close(float(r["customers"]), ref, 1e-9):
            fail("san sweep tandem.prism: row %s" % r)
    if want:
        fail("san sweep tandem.prism: no row for c=%s" % ",".join(want))


# ---- 3. bad input ----

BAD = [
    ("dtmc\nmodule M x : [0..1]; [] x=0 -> (x'=1); endmodule\n",
     "1:1: error: 'dtmc' models are not supported"),
    ("ctmc\nmodule M\n  x : int;\nendmodule\n",
     "3:7: error: unbounded variable 'x' is not supported"),
    ("ctmc\nmodule M\n  x : [0..2];\n  [] x < 2 -> 1 (x'=x+1);\nendmodule\n",
     "4:17: error: expected ':' or an operator, found '('"),
    ("ctmc\nconst int N;\nmodule M\n  x : [0..N];\n  [] x < N -> (x'=x+1);\nendmodule\n",
     "2:11: error: constant 'N' has no value: give it one with -D N=VALUE"),
    ("ctmc\nmodule M\n  x : [0..2];\n  [] y < 2 -> (x'=x+1);\nendmodule\n",
     "4:6: error: unknown identifier 'y'"),
    ("ctmc\nmodule M\n  x : [0..2];\n  [] x < 2 -> (x'=x+1);\nendmodule\n"
     "module N = M [x=y] endmodule\nsystem M ||| N endsystem\n",
     "7:10: error: '|||' (interleaving) in 'system ... endsystem' is not supported"),
    ("ctmc\nmodule M\n  x : [0..2];\n  [] x < 2 -> (x'=x+1);\nendmodule\n"
     "module N = M [x=y] endmodule\nsystem M endsystem\n",
     "6:8: error: module 'N' is left out of 'system ... endsystem'"),
    ("ctmc\nmodule M\n  x : [0..2] init 5;\n  [] x < 2 -> (x'=x+1);\nendmodule\n",
     "3:19: error: the initial value 5 of 'x' is outside its range [0..2]"),
    ("ctmc\nmodule M\n  x : [0..2];\n  [] x < 2 -> (x'=x+1);\nendmodule\nmodule B = M [x=y, z=w]\n",
     "6:24: error: expected endmodule, found the end of the file"),
    ("ctmc\nmodule M\n  x : [0..2];\n  [] x < 2 -> (x'=x+1);\nendmodule\n/* open",
     "6:1: error: unterminated comment"),
]


def check_bad():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.prism")
        for text, want in BAD:
            with open(path, "w") as f:
                f.write(text)
            for cmd in (["import", "prism", path], ["solve", path]):
                rc, out, err = run(cmd)
                if rc != 2 or (path + ":" + want) not in err:
                    fail("%s on %r: exit %d, stderr %r; wanted exit 2 and %r"
                         % (cmd[0], text, rc, err, want))
        # -D of a constant the model does not have
        with open(path, "w") as f:
            f.write("ctmc\nmodule M\n  x : [0..2];\n  [] x < 2 -> (x'=x+1);\nendmodule\n")
        rc, out, err = run(["import", "prism", path, "-D", "Z=1"])
        if rc != 2 or "-D Z: the model has no constant 'Z'" not in err:
            fail("-D Z: exit %d, %r" % (rc, err))
        # -D on the imported text: its constants are folded in
        rc, text, err = run(["import", "prism", path])
        rc, out, err = run(["solve", "-", "-D", "x=1"], stdin=text)
        if rc != 2 or "imported from a PRISM model" not in err:
            fail("-D on imported text: exit %d, %r" % (rc, err))
        rc, out, err = run(["import", "mdp", path])
        if rc != 2:
            fail("san import mdp: exit %d" % rc)


def check_off_range():
    """An update whose value leaves the variable's range is an error
    where it fires (PRISM's semantics), named at the imported text's
    line ("PATH (imported):L:C"), also when it folds to a constant
    in the source state: x'=x+1 without a guard at x's top was a dropped
    transition (a chain of 4 states where PRISM refuses).  The same
    command behind a guard that is never true is no error: the chain is
    then a birth-death one with rates 2 and 1, pi(x) = 2^x / 15."""
    body = "ctmc\nconst int N = 3;\nmodule m\n  x : [0..N] init 0;\n  y : [0..1] init 0;\n%s" \
           "  [] x>0 -> 1 : (x'=x-1);\nendmodule\n"
    fires = body % "  [] true -> 2 : (x'=x+1);\n"
    never = body % "  [] y=0 & x<N -> 2 : (x'=x+1);\n  [] y=1 -> 2 : (x'=x+1);\n"
    with tempfile.TemporaryDirectory() as tmp:
        for text, name in ((fires, "fires"), (never, "never")):
            path = os.path.join(tmp, name + ".prism")
            with open(path, "w") as f:
                f.write(text)
            for storage in ("sparse", "kron"):
                rc, out, err = run(["solve", "--storage", storage, "-f", "json", path])
                if name == "fires":
                    if rc != 2 or "leads to no state here" not in err or \
                            not err.startswith(path + " (imported):"):
                        fail("off range, firing, %s: exit %d, %r" % (storage, rc, err[:300]))
                    continue
                if rc != 0:
                    fail("off range, never firing, %s: exit %d, %r" % (storage, rc, err[:300]))
                    continue
                marg = json.loads(out)["marginals"]["x"]
                for k in range(4):
                    got = marg.get("x_%d" % k)
                    if got is None or not close(got, 2 ** k / 15, 1e-12):
                        fail("off range, never firing, %s: P(x=%d) = %r, expected %r"
                             % (storage, k, got, 2 ** k / 15))


check_tiny()
check_functions()
check_off_range()
check_qvbs()
check_transient()
check_accumulated()
check_passage()
check_sweep()
check_bad()
if tally.failed:
    print("%d failure(s)" % tally.failed)
    sys.exit(1)
print("all PRISM import checks passed")
