#!/usr/bin/env python3
"""PRISM models of the QVBS at their larger sizes, solved by san.

Table 15 of `make bench` (bench/bench.py), or on its own:

    python3 bench/prism.py SAN [quick|full|long]

Each model of tests/prism/qvbs (read unchanged through `san solve
MODEL.prism -D ...`) with the reachable state count and the steady-state
value published in the Quantitative Verification Benchmark Set
(github.com/ahartmanns/qcomp, benchmarks/ctmc/*/results/*.json) and
Storm's time there: its whole run and the property's own time (the
machine of each entry, not this one).  The reference kinds:

  exact    Storm's exact engine (a rational, 16 digits printed): san must
           agree to 1e-9 relative;
  sound    Storm's sound engine (guaranteed to 1e-6 relative): san within
           1e-6;
  default  Storm's default engine, no guarantee (on tandem and kanban it
           is 1e-5 to 1e-3 away from its own exact answers): the
           difference is shown, never judged.

Columns: states (san; "!" when it differs from the published count),
san's value and the reference, the relative difference, san's wall time
and peak memory, Storm's times, and ok / FAIL / - (not judged).
Then the models whose published properties are not steady-state ones:
their reachable state counts (san check); then `san props` on QVBS's
property files (time-bounded, until, cumulative and instantaneous
rewards) at the larger sizes against Storm's values (PROPS).  Exit 1 when a judged row
fails.  quick: the first sizes; full (default):
up to about 600,000 states (cluster N=128, about a minute here); long:
kanban t=5 (2.5 M states) as well.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
QVBS = os.path.join(TOP, "tests", "prism", "qvbs")
POLL_S1 = "((st s1) == 1) && !(((st s) == 0) && ((st a) == 1))"

# (mode, file, -D, published states, result, reference, kind, Storm total
# s, Storm property s, extra result in .san or None)
ROWS = [
    ("quick", "cluster.prism", ["N=4"], 820, "premium", 0.9999212408513793, "exact",
     3552.385, 3552.195, None),
    ("quick", "polling.6.prism", [], 576, "s1", 0.14573191126269974, "exact", 11.937, 11.806,
     POLL_S1),
    ("quick", "tandem.prism", ["c=31"], 2016, "customers", 31.81500388515128, "exact",
     3320.591, 3320.165, None),
    ("full", "polling.7.prism", [], 1344, "s1", 0.14511673457143429, "exact", 657.513, 655.981,
     POLL_S1),
    ("full", "polling.8.prism", [], 3072, "s1", 0.14378276964032002, "exact", 5881.358, 5854.8,
     POLL_S1),
    ("full", "polling.9.prism", [], 6912, "s1", 0.1420837585, "default", 2.356, 0.045, POLL_S1),
    ("full", "cluster.prism", ["N=16"], 10132, "premium", 0.9996437421, "default", 62.453, 0.082,
     None),
    ("full", "cluster.prism", ["N=64"], 151060, "premium", 0.9986761964, "default", 1175.164,
     29.771, None),
    ("full", "cluster.prism", ["N=128"], 597012, "premium", 0.9979378911, "sound", 1157.661,
     1144.49, None),
    ("full", "tandem.prism", ["c=255"], 130816, "customers", 256.2767809, "default", 2650.646,
     1.244, None),
    ("full", "tandem.prism", ["c=511"], 523776, "customers", 513.4755157, "default", 25.74, 3.872,
     None),
    ("full", "kanban.prism", ["t=3"], 58400, "throughput", 0.2330632923, "default", 2.095, 0.51,
     None),
    ("full", "kanban.prism", ["t=4"], 454475, "throughput", 0.2762966549, "default", 18.515, 4.624,
     None),
    ("full", "fms.prism", ["n=4"], 35910, "productivity", 59.55074736, "default", 1.392, 0.266,
     None),
    ("full", "fms.prism", ["n=5"], 152712, "productivity", 74.3758532, "default", 6.328, 1.349,
     None),
    ("long", "kanban.prism", ["t=5"], 2546432, "throughput", 0.3071247593, "sound", 2638.747,
     2550.559, None),
]

# Models whose published properties are not steady-state ones (absorbing,
# time-bounded): the reachable state count, by san check.
COUNTS = [
    ("quick", "embedded.prism", ["MAX_COUNT=8"], 8548),
    ("full", "mapk_cascade.prism", ["N=3"], 18292),
    ("full", "majority.prism", [], 192000),
]

# The property files of QVBS (tests/prism/qvbs/*.props) at the larger
# sizes: (mode, model, property file, -D, published states, {property:
# (reference, kind)}).  Kinds as above; Storm's default engine (10
# digits, precision 1e-6) is judged here at 2e-6 relative, 1e-9
# absolute (tests/cli/props.py checks the small sizes).
PROPS = [
    ("full", "embedded.prism", "embedded.props", ["MAX_COUNT=8", "T=12"], 8548, {
        "actuators": (0.1053036557931282, "exact"),
        "danger_time": (0.3317273488638775, "exact"),
        "up_time": (477.55237358361944, "exact"),
        "failure_T": (0.004940843786, "default"),
        "up_T": (11.96403937, "default")}),
    ("full", "polling.9.prism", "polling.props", ["T=16"], 6912, {
        "s1_before_s2": (0.5409174089353829, "exact"),
        "served": (1.232959007, "default"),
        "waiting": (1.65755629, "default")}),
    ("full", "cluster.prism", "cluster.props", ["N=16", "T=2000", "t=20"], 10132, {
        "below_min": (0.004207094509, "default"),
        "operational": (99.87281916, "default"),
        "qos1": (0.001040951489, "default"),
        "repairs": (129.1897765, "default")}),
    ("full", "tandem.prism", "tandem.props", ["c=63", "T=1000", "t=0.2"], 8128, {
        "customers_T": (50.18088283, "default"),
        "first_queue": (0.04403405401, "default"),
        "network": (1.909673908e-20, "default")}),
    ("full", "mapk_cascade.prism", "mapk_cascade.props", ["N=3", "T=30"], 18292, {
        "activated_T": (1.145640698, "default"),
        "activated_time": (46.887248, "default"),
        "reactions": (36.61456209, "default")}),
    ("full", "majority.prism", "majority.props", ["T=2100"], 192000, {
        "change_state": (0.05429919316, "default")}),
    ("long", "speed-ind.prism", "speed-ind.props", ["T=2100"], 743424, {
        "change_state": (0.04229449798, "default")}),
]
PROPS_TOL = {"exact": 1e-9, "default": 2e-6}

TOL = {"exact": 1e-9, "sound": 1e-6}


def run_row(san, row):
    _, fname, defs, states, key, ref, kind, st_total, st_prop, extra = row
    path = os.path.join(QVBS, fname)
    dargs = [a for d in defs for a in ("-D", d)]
    stdin = None
    args = [san, "solve", "--format", "json", "--time-limit", "1800"]
    if extra:
        # a state formula of the published property, not a label of the
        # model: appended to the imported text as a result
        p = subprocess.run([san, "import", "prism", path] + dargs, capture_output=True, text=True)
        if p.returncode != 0:
            return None, "import: " + p.stderr.strip()[:200]
        stdin = p.stdout + "  %s_ref = %s;\n" % (key, extra)
        args.append("-")
    else:
        args += [path] + dargs
    # the child's own peak (wait4), not the largest of all children so far
    with tempfile.TemporaryFile("w+") as fin, tempfile.TemporaryFile("w+") as fout, \
            tempfile.TemporaryFile("w+") as ferr:
        if stdin is not None:
            fin.write(stdin)
            fin.seek(0)
        t0 = time.time()
        child = subprocess.Popen(args, stdin=fin, stdout=fout, stderr=ferr)
        _, status, ru = os.wait4(child.pid, 0)
        wall = time.time() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        peak = ru.ru_maxrss / 1024.0
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
    if child.returncode != 0:
        return None, "exit %d: %s" % (child.returncode, err.strip()[:200])
    j = json.loads(out)
    val = j["results"].get(key + "_ref" if extra else key)
    return (j["reachable_states"], val, wall, peak), None


def main():
    san = sys.argv[1] if len(sys.argv) > 1 else "./san"
    mode = sys.argv[2] if len(sys.argv) > 2 else "full"
    order = {"quick": 0, "full": 1, "long": 2}
    print("15. PRISM models of the QVBS (tests/prism/qvbs), read unchanged: san solve")
    print("%-16s %-9s %9s %-20s %-20s %-8s %8s %8s %9s %10s %10s  %s" % (
        "model", "-D", "states", "san", "reference", "kind", "rel.diff", "san s", "peak MiB",
        "Storm s", "Storm prop", "check"))
    bad = 0
    for row in ROWS:
        if order[row[0]] > order.get(mode, 1):
            continue
        _, fname, defs, states, key, ref, kind, st_total, st_prop, _ = row
        res, err = run_row(san, row)
        name = fname.replace(".prism", "")
        d = " ".join(defs) or "-"
        if err:
            print("%-16s %-9s %s" % (name, d, err))
            bad += kind in TOL
            continue
        got_states, val, wall, peak = res
        rel = abs(val - ref) / abs(ref) if val is not None else float("nan")
        ok = "-"
        if kind in TOL:
            ok = "ok" if got_states == states and rel <= TOL[kind] else "FAIL"
            bad += ok == "FAIL"
        elif got_states != states:
            ok = "FAIL"
            bad += 1
        print("%-16s %-9s %8d%s %-20.15g %-20.15g %-8s %8.1e %8.2f %9.1f %10.2f %10.3f  %s" % (
            name, d, got_states, " " if got_states == states else "!", val, ref, kind, rel,
            wall, peak, st_total, st_prop, ok))
    print("(Storm's times: QVBS, its machine; kinds: exact 1e-9, sound 1e-6, default not judged)")
    print("%-16s %-12s %9s %9s %8s  %s" % ("model", "-D", "states", "published", "san s", "check"))
    for m, fname, defs, states in COUNTS:
        if order[m] > order.get(mode, 1):
            continue
        t0 = time.time()
        p = subprocess.run([san, "check", os.path.join(QVBS, fname)] +
                           [a for d in defs for a in ("-D", d)], capture_output=True, text=True)
        wall = time.time() - t0
        line = [l for l in p.stdout.splitlines() if l.startswith("reachable states:")]
        got = int(line[0].split()[2].rstrip(",")) if line else -1
        ok = "ok" if got == states else "FAIL"
        bad += ok == "FAIL"
        print("%-16s %-12s %9d %9d %8.2f  %s" % (fname.replace(".prism", ""), " ".join(defs) or "-",
                                                 got, states, wall, ok))
    bad += props_table(san, mode, order)
    return 1 if bad else 0


def props_table(san, mode, order):
    """san props on the QVBS property files at the larger sizes: each
    property against Storm's published value; the wall time is the
    whole file's."""
    print("%-16s %-22s %-16s %-20s %-20s %-8s %8s %8s  %s" % (
        "model (props)", "-D", "property", "san", "reference", "kind", "rel.diff", "file s",
        "check"))
    bad = 0
    for m, fname, props, defs, states, want in PROPS:
        if order[m] > order.get(mode, 1):
            continue
        name = fname.replace(".prism", "")
        d = " ".join(defs)
        t0 = time.time()
        p = subprocess.run([san, "props", "-f", "json", os.path.join(QVBS, fname),
                            os.path.join(QVBS, props)] + [a for x in defs for a in ("-D", x)],
                           capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            print("%-16s %-22s exit %d: %s" % (name, d, p.returncode, p.stderr.strip()[:160]))
            bad += 1
            continue
        j = json.loads(p.stdout)
        got = {q["name"]: q["value"] for q in j["properties"]}
        if j.get("states") != states:
            print("%-16s %-22s %s states, published %d  FAIL" % (name, d, j.get("states"), states))
            bad += 1
        for k, (ref, kind) in want.items():
            v = got.get(k)
            ok = v is not None and abs(v - ref) <= PROPS_TOL[kind] * abs(ref) + 1e-9
            rel = abs(v - ref) / abs(ref) if v is not None and ref else float("nan")
            bad += not ok
            print("%-16s %-22s %-16s %-20.15g %-20.15g %-8s %8.1e %8.2f  %s" % (
                name, d, k, v if v is not None else float("nan"), ref, kind, rel, wall,
                "ok" if ok else "FAIL"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
