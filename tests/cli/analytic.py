#!/usr/bin/env python3
"""analytic.py - san mw, san cluster and the closed forms as variants of
san sweep and san compare, from the outside.

  1. san mw reproduces seed 000's Fig. 23 in all three formats (Tt(15),
     Tt(20), Tt(23), Tt(30), Tt(40), E, the gains and resource indices),
     marks the lowest Tt (40) and the lowest Pi (23) over 1..60, and the
     n past the master's chunk managing capability;
  2. the optimum, MCMC and Pi minimum of Figs. 21, 26, 27 (floors, as the
     seed prints them) in JSON;
  3. san cluster reproduces seed 001's eq. 72 (G >= 4123.18, 4400) and
     names the binding link;
  4. san sweep mw gives the same numbers as san mw, one row per variant;
  5. san compare of a closed form and its SAN (san mw --ms-line) shows the
     ratio B/A, equal to the quotient of the two values; san mw --san
     gives the same SAN values; the ratio of the times is near the
     harmonic number H_n (exponential computing times: doc/analytic.md);
  6. usage errors exit 2 with the flag named.

Environment: SAN (the binary).  Exit 0 when every check passes; the last
line is "N passed, M failed".  VERBOSE=1 lists the passes.
"""
import csv
import json
import math
import os
import subprocess
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, check, tally  # noqa: E402

VERBOSE = os.environ.get("VERBOSE")


def run(*args, status=0):
    p = subprocess.run([SAN] + list(args), capture_output=True, text=True, timeout=120)
    check(p.returncode == status, "san %s: exit %d (expected %d) %s" %
          (" ".join(args), p.returncode, status, p.stderr.strip()[:200]))
    return p


def printed(v, digits, text):
    return "%.*f" % (digits, v) == text


# ---- 1. Fig. 23 (seed 000, section 3.3) ----

def fig23_csv():
    out = run("mw", "--workers", "15,20,23,30,40", "-f", "csv").stdout
    rows = {int(float(r["n"])): r for r in csv.DictReader(l for l in out.splitlines() if not l.startswith("#"))}
    want = {15: ("122.939733", 6), 20: ("101.2048", 4), 23: ("93.7433", 4),
            30: ("84.469867", 6), 40: ("81.1024", 4)}
    for n, (text, d) in want.items():
        check(printed(float(rows[n]["tt"]), d, text), "Fig. 23 Tt(%d) = %s" % (n, text))
    # Fig. 24: E(n) 0.87, 0.79, 0.63, 0.49
    for n, e in ((15, "0.87"), (20, "0.79"), (30, "0.63"), (40, "0.49")):
        check(printed(float(rows[n]["efficiency"]), 2, e), "Fig. 24 E(%d) = %s" % (n, e))
    # section 3.3: 15 -> 20 gains 17.68%, index 0.707 (from the row before: 15)
    check(printed(100 * float(rows[20]["gain"]), 2, "17.68"), "gain 15 -> 20 = 17.68%")
    check(printed(float(rows[20]["index"]), 3, "0.707"), "index 15 -> 20 = 0.707")
    # 30 -> 40: 3.99%, index 0.16
    check(printed(100 * float(rows[40]["gain"]), 2, "3.99"), "gain 30 -> 40 = 3.99%")
    check(printed(float(rows[40]["index"]), 2, "0.16"), "index 30 -> 40 = 0.16")
    check(rows[40]["mark"] == "lowest Tt", "40 marked lowest Tt: %r" % rows[40]["mark"])
    check(rows[23]["mark"] == "lowest Pi", "23 marked lowest Pi: %r" % rows[23]["mark"])


def fig23_json_text():
    j = json.loads(run("mw", "--workers", "1..60", "-f", "json").stdout)
    check(len(j["rows"]) == 60, "60 rows")
    check(j["lowest_tt"] == 40 and j["lowest_pi"] == 23, "lowest Tt 40, Pi 23 over 1..60")
    check(j["optimum"]["eq"] == 13 and math.floor(j["optimum"]["n"]) == 40, "eq. 13: 40")
    past = [r["n"] for r in j["rows"] if r["over_mcmc"]]
    check(past and past[0] == math.floor(j["mcmc"]["n"]) + 1, "past MCMC from %s" % past[:1])
    text = run("mw", "--workers", "10..60").stdout
    line40 = [l for l in text.splitlines() if l.split()[:1] == ["40"]]
    check(line40 and "81.1024" in line40[0] and "lowest Tt" in line40[0], "text row 40")
    check("optimum (eq. 13): n = 40.0512" in text, "text optimum line")


# ---- 2. Figs. 21, 26, 27 (seed 000, sections 3.2-3.3) ----

def bounds(*flags):
    return json.loads(run("mw", "--workers", "1", "-f", "json", "--alpha", "0.9",
                          "--tc", "2000", *flags).stdout)


def figs21_26_27():
    a = bounds("--volume", "1k")
    check(math.floor(a["optimum"]["n"]) == 44 and a["optimum"]["eq"] == 13, "Fig. 21 (a) 44")
    check(math.floor(a["mcmc"]["n"]) == 45 and a["mcmc"]["eq"] == 10, "Fig. 21 (a) MCMC 45")
    b = bounds("--volume", "1M")
    check(math.floor(b["mcmc"]["n"]) == 3 and b["mcmc"]["eq"] == 11, "Fig. 21 (b) MCMC 3")
    d = bounds("--volume", "1M", "--protocol", "sync")
    check(math.floor(d["optimum"]["n"]) == 45 and d["optimum"]["eq"] == 14, "Fig. 21 (d) 45")
    c16 = bounds("--volume-per-worker", "1k", "--protocol", "sync")
    check(math.floor(c16["optimum"]["n"]) == 32 and c16["optimum"]["eq"] == 16,
          "Fig. 21 (c) eq. 16: 32")
    f26 = bounds("--volume", "200k")
    check(math.floor(f26["mcmc"]["n"]) == 12 and math.floor(f26["pi_minimum"]) == 10,
          "Fig. 26: MCMC 12, Pi lowest 10")
    f27 = bounds("--volume", "20k", "--protocol", "sync")
    check(math.floor(f27["mcmc"]["n"]) == 37 and math.floor(f27["pi_minimum"]) == 22 and
          math.floor(f27["optimum"]["n"]) == 44, "Fig. 27: MCMC 37, Pi 22, optimum 44")


# ---- 3. seed 001, eq. 72 ----

def cluster():
    j = json.loads(run("cluster", "--perf", "56939364", "--inet-in", "55245", "--inet-out",
                       "55245", "--mm-block", "400", "--block-multiple", "400",
                       "-f", "json").stdout)
    check(printed(j["min_block_inet"], 2, "4123.18"), "eq. 72: G >= 4123.18")
    check(j["min_block_inet_rounded"] == 4400, "next multiple of 400: 4400")
    check(j["bound"] == "Internet in", "bound by the Internet in: %s" % j["bound"])
    out = run("cluster", "--perf", "1e6", "--oper", "1000", "--task-size", "100",
              "--result-size", "50", "--lan", "1e4", "--workers", "4", "--tasks", "1000",
              "-f", "csv").stdout
    rows = dict(r.split(",", 1) for r in out.splitlines() if not r.startswith("#"))
    check(rows["bound"] == "LAN" and abs(float(rows["t_steady"]) - 15) < 1e-9,
          "a LAN-bound cluster, steady 15 s")
    text = run("cluster", "--perf", "1e6", "--oper", "1000", "--task-size", "100",
               "--result-size", "50", "--lan", "1e9").stdout
    check("(computation-bound)" in text, "computation-bound in the text")


# ---- 4. san sweep mw ----

def sweep():
    j = json.loads(run("sweep", "-q", "mw", "--workers", "15,40", "--protocol", "async",
                       "-f", "json").stdout)
    rows = j["rows"] if isinstance(j, dict) else j
    tt = [r["results"]["execution_time"] for r in rows]
    check(len(tt) == 2 and printed(tt[0], 6, "122.939733") and printed(tt[1], 4, "81.1024"),
          "sweep mw: Tt(15), Tt(40) %s" % tt)
    run("sweep", "-q", "mw", "--workers", "4", "-D", "K=1", status=2)


# ---- 5. compare: the closed form beside its SAN ----

def compare():
    line = run("mw", "--workers", "4", "--ms-line").stdout.strip()
    check(line.startswith("ms --mode async --work slices --slaves 4"), "ms line: " + line)
    j = json.loads(run("compare", "--no-marginals", "-f", "json", "mw --workers 4", line).stdout)
    e = j["results"]["execution_time"]
    a, b = e["values"]
    check(printed(a, 3, "406.024"), "compare: the closed form's Tt(4) %g" % a)
    check(abs(e["ratio"] - b / a) < 1e-12, "compare: ratio = B / A")
    # H_4 = 25/12: the mean of the slowest of 4 exponential computations
    check(abs(e["ratio"] - 25 / 12) < 0.02, "ratio %g near H_4 = 2.083" % e["ratio"])
    m = json.loads(run("mw", "--workers", "4", "--san", "-f", "json").stdout)
    check(abs(m["rows"][0]["san_execution_time"] - b) < 1e-9 * b, "mw --san = compare's SAN")
    check(j["models"][0]["closed_form"] and not j["models"][1]["closed_form"], "closed_form")


# ---- 6. usage ----

def usage():
    p = run("mw", "--alpha", "2", status=2)
    check("--alpha" in p.stderr, "--alpha 2 refused")
    p = run("mw", "--workers", "0..3", status=2)
    check("--workers" in p.stderr, "--workers 0 refused")
    p = run("mw", "--protocol", "fast", status=2)
    check("--protocol" in p.stderr, "--protocol fast refused")
    p = run("cluster", "--perf", "1e6", status=2)
    check("--oper" in p.stderr, "cluster without --oper refused")
    p = run("compare", "mw --tc 5", "mw --workers 2", status=2)
    check("--workers" in p.stderr, "compare: mw without --workers refused")
    p = run("help", "mw")
    check("--volume-per-worker" in p.stdout and "--san" in p.stdout, "help mw")
    p = run("help", "cluster")
    check("--inet-in" in p.stdout and "--mm-block" in p.stdout, "help cluster")


def main():
    for t in (fig23_csv, fig23_json_text, figs21_26_27, cluster, sweep, compare, usage):
        t()
    print("%d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
