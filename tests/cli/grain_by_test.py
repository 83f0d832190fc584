#!/usr/bin/env python3
"""grain_by_test.py - `san grain --by`: the recommended grain is never
worse on the rule than another grain of its table (issue 33's target: a
property over random parameter sets).

For random master/slave parameter sets (mode, slaves, grains, buffer,
times, steady or slices regime) and every rule (the default, paper,
execution_time, efficiency, throughput, min:/max: of an index), the JSON
report is read back and checked on its own table:
  - by an index: the recommended grain's value is the least (min) or the
    greatest (max) of the grains solved, within 1e-12 relative;
  - the paper's rule (always reported as paper_rule): the least master_tx
    among the grains whose efficiency is within busy of the best,
    recomputed here;
  - the default is execution_time when the table has it, else paper.
Also the case of issue 33 (4 slaves, 1..4 slices per node, buffer 10,
slices): the paper's rule picks 4 slices per node, 7% slower than 3,
which the default now recommends; and the refusals (exit 2).

Environment: SAN (default ./san), GRAIN_COUNT (random sets, default 10),
GRAIN_SEED (default 33).
"""
import json
import os
import random
import subprocess
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, fail, tally  # noqa: E402



def grain(args):
    p = subprocess.run([SAN, "grain", "-q", "-f", "json"] + args, capture_output=True,
                       text=True, timeout=600)
    if p.returncode != 0:
        fail("san grain %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return None
    return json.loads(p.stdout)


def paper_pick(grains, busy):
    best = max(g["efficiency"] for g in grains)
    kept = [g for g in grains if g["efficiency"] >= best * (1 - busy)]
    return min(kept, key=lambda g: g["master_tx"])["grain"]


def check(d, args, rule_asked):
    where = "san grain %s" % " ".join(args)
    has_time = all("execution_time" in g for c in d["configurations"] for g in c["grains"]
                   if g["error"] is None)
    if rule_asked is None:
        want_by = "execution_time" if has_time else "paper"
        if d["by"] != want_by:
            fail("%s: default ranks by %s, expected %s" % (where, d["by"], want_by))
    for c in d["configurations"]:
        ok = [g for g in c["grains"] if g["error"] is None]
        if not ok:
            continue
        paper = paper_pick(ok, d["busy"])
        if c["paper_rule"] != paper:
            fail("%s [%s]: paper_rule %s, recomputed %s"
                 % (where, c["configuration"], c["paper_rule"], paper))
        if d["rule"] == "paper":
            if c["recommended"] != paper:
                fail("%s [%s]: recommended %s, the paper's rule gives %s"
                     % (where, c["configuration"], c["recommended"], paper))
            continue
        key = d["by"]
        vals = [g[key] for g in ok]
        top = min(vals) if d["rule"] == "min" else max(vals)
        rec = [g for g in ok if g["grain"] == c["recommended"]]
        if len(rec) != 1:
            fail("%s [%s]: recommended %s is not a solved grain"
                 % (where, c["configuration"], c["recommended"]))
            continue
        v = rec[0][key]
        if abs(v - top) > 1e-12 * abs(top):
            fail("%s [%s]: recommended %s has %s %.17g, the table's %s is %.17g"
                 % (where, c["configuration"], c["recommended"], key, v,
                    "least" if d["rule"] == "min" else "greatest", top))


def random_set(rng):
    mode = rng.choice(["sync", "async"])
    slices = rng.random() < 0.6
    grains = sorted(rng.sample(range(1, 6), rng.randint(2, 4)))
    args = ["ms", "--mode", mode, "--slaves", "%d..%d" % (2, rng.randint(2, 4)),
            "--slices-per-node", ",".join(map(str, grains)),
            "--task-time", "%.3g" % rng.uniform(0.01, 0.3),
            "--compute-time", "%.3g" % rng.uniform(0.2, 3),
            "--eval-time", "%.3g" % rng.uniform(0.02, 0.5)]
    if mode == "async":
        args += ["--buffer", str(rng.randint(1, 12))]
    if slices:
        args += ["--work", "slices"]
    return args, slices


def main():
    rng = random.Random(int(os.environ.get("GRAIN_SEED", "33")))
    count = int(os.environ.get("GRAIN_COUNT", "10"))
    runs = 0
    for _ in range(count):
        args, slices = random_set(rng)
        rules = [None, "paper", "efficiency", "min:slave_idle", "max:pack_throughput"]
        if slices:
            rules += ["execution_time", "throughput"]
        for rule in rng.sample(rules, 3):
            full = args + (["--by", rule] if rule else [])
            d = grain(full)
            runs += 1
            if d:
                check(d, full, rule)

    # issue 33's case: the paper's rule was recommended at 31.8 s where 3
    # slices per node take 29.7 s
    case = ["ms", "--mode", "async", "--work", "slices", "--slaves", "4",
            "--slices-per-node", "1,2,3,4", "--buffer", "10"]
    d = grain(case)
    if d:
        check(d, case, None)
        c = d["configurations"][0]
        t = {g["grain"]: g["execution_time"] for g in c["grains"]}
        if c["recommended"] != 3 or c["paper_rule"] != 4 or not t[3] < t[4]:
            fail("issue 33's case: recommended %s, paper_rule %s, times %s"
                 % (c["recommended"], c["paper_rule"], t))

    # refusals: exit 2 with the reason
    bad = [(["--by", "throughput"], "do not compare"),
           (["--by", "master_rx"], "min:master_rx"),
           (["--by", "nosuch"], "expected execution_time"),
           (["--by", "min:nosuch"], "unknown index 'nosuch'")]
    for extra, why in bad:
        p = subprocess.run([SAN, "grain", "-q", "ms", "--slaves", "2", "--slices-per-node", "1,2"]
                           + extra, capture_output=True, text=True, timeout=120)
        if p.returncode != 2 or why not in p.stderr:
            fail("san grain %s: exit %d, stderr %r (expected exit 2 and %r)"
                 % (" ".join(extra), p.returncode, p.stderr, why))

    print("%d random grain runs + issue 33's case + %d refusals: %d failures"
          % (runs, len(bad), tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
