#!/usr/bin/env python3
"""prism_roundtrip.py - san export -f prism, then san import prism of the
same chain (issue 29, item 4): the answers must be the same.

The exported explicit files (BASE.tra, .lab, .srew, .map.csv) are turned
here into a PRISM language model by this script's own writer: one
variable s over the states, one command per state with its rates, the
initial state from the init label, a label per exported label, a reward
structure per .srew file.  san import prism reads it as .san text, and
san solves both.  Held to 1e-9 relative (both converge to 1e-12):
  - the label probabilities of the imported model against the original's
    marginals (a label is an automaton's local state),
  - the reward structures' long-run rates against the original's
    results and throughputs (BASE.map.csv names them),
  - the transient probability of the labels at t = 0.5 (the initial
    state: the export's init label, not state 0).
Exit 1 on a difference.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, check, tally  # noqa: E402

MODELS = ["models/clients_server.san", "models/rs_pool.san"]
REL = 1e-9


def run(args):
    p = subprocess.run([SAN] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("san %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-400:]))
    return p.stdout


def read_export(base):
    with open(base + ".tra") as f:
        n, _ = map(int, f.readline().split())
        arcs = [(int(i), int(j), float(r)) for i, j, r in (ln.split() for ln in f if ln.strip())]
    with open(base + ".lab") as f:
        names = dict((int(k), v.strip('"')) for k, v in
                     (t.split("=") for t in f.readline().split()))
        labels = {names[k]: [] for k in names}
        for ln in f:
            s, ks = ln.split(":")
            for k in ks.split():
                labels[names[int(k)]].append(int(s))
    with open(base + ".map.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    rewards = {}
    for r in rows:
        if r["kind"] in ("reward", "throughput"):
            vals = {}
            with open("%s%s.srew" % (base, r["index"])) as f:
                body = [ln for ln in f if not ln.startswith("#")]
            for ln in body[1:]:
                s, v = ln.split()
                vals[int(s)] = float(v)
            rewards[r["prism"]] = (r["kind"], r["san"], vals)
    return n, arcs, labels, rows, rewards


def prism_text(n, arcs, labels, rewards):
    init = labels["init"]
    assert len(init) == 1, "one initial state"
    out = ["ctmc", "module chain", "  s : [0..%d] init %d;" % (n - 1, init[0])]
    by = {}
    for i, j, r in arcs:
        by.setdefault(i, []).append((j, r))
    for i in sorted(by):
        out.append("  [] s=%d -> %s;" % (i, " + ".join("%r : (s'=%d)" % (r, j) for j, r in by[i])))
    out.append("endmodule")
    for name, states in labels.items():
        if name in ("init", "deadlock") or not states:
            continue
        out.append('label "%s" = %s;' % (name, " | ".join("s=%d" % s for s in states)))
    for name, (_, _, vals) in rewards.items():
        out.append('rewards "%s"' % name)
        out += ["  s=%d : %r;" % (s, v) for s, v in sorted(vals.items()) if v != 0]
        out.append("endrewards")
    return "\n".join(out) + "\n"


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b), 1e-300)


def one(model, tmp):
    name = os.path.basename(model)[:-4]
    base = os.path.join(tmp, name)
    run(["export", "-f", "prism", "-q", "--lump", "off", "-o", base, model])
    n, arcs, labels, rows, rewards = read_export(base)
    pm = base + "_rt.prism"
    with open(pm, "w") as f:
        f.write(prism_text(n, arcs, labels, rewards))
    sanrt = base + "_rt.san"
    run(["import", "prism", "-o", sanrt, pm])
    orig = json.loads(run(["solve", model, "--format", "json", "-q", "--tol", "1e-12"]))
    back = json.loads(run(["solve", sanrt, "--format", "json", "-q", "--tol", "1e-12"]))
    check(back["reachable_states"] == n, "%s: %d states imported, %d exported"
          % (name, back["reachable_states"], n))
    res = back["results"]
    # labels: an automaton's local state
    for r in rows:
        if r["kind"] != "label":
            continue
        aut, st, pr = r["san"], r["state"], r["prism"]
        want = orig["marginals"][aut][st]
        got = res.get(pr, 0.0 if not labels[pr] else None)
        check(got is not None and close(got, want),
              "%s: label %s: imported %r, original marginal %s=%s %r" % (name, pr, got, aut, st, want))
    # rewards: the original's results and throughputs
    for pr, (kind, sname, _) in rewards.items():
        want = (orig["results"] if kind == "reward" else orig["throughputs"])[sname]
        got = res.get(pr)
        check(got is not None and close(got, want),
              "%s: reward %s: imported %r, original %s %s %r" % (name, pr, got, kind, sname, want))
    # the initial state: transient label probabilities at t = 0.5
    to = json.loads(run(["transient", model, "-t", "0.5", "--format", "json", "-q"]))
    tb = json.loads(run(["transient", sanrt, "-t", "0.5", "--format", "json", "-q"]))
    mo, mb = to["times"][0], tb["times"][0]
    for r in rows:
        if r["kind"] == "label" and labels[r["prism"]]:
            want = mo["marginals"][r["san"]][r["state"]]
            got = mb["results"].get(r["prism"])
            check(got is not None and abs(got - want) <= 1e-9,
                  "%s: transient label %s at 0.5: imported %r, original %r"
                  % (name, r["prism"], got, want))
    print("%s: %d states, %d labels, %d reward structures: %s"
          % (name, n, sum(1 for r in rows if r["kind"] == "label"), len(rewards),
             "same" if not tally.failed else "DIFFERENT"))


def main():
    with tempfile.TemporaryDirectory(prefix="prism-rt-") as tmp:
        for m in MODELS:
            one(os.path.join(TOP, m), tmp)
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
