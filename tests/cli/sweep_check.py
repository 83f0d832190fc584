#!/usr/bin/env python3
"""Checks for tests/sweep.sh: each subcommand reads the output of a san
command and exits 0 when it holds, 1 (with the reason) otherwise.

  rows-match SWEEP.json N       N rows, each equal to `san solve` of its command
  csv-rows FILE N               a CSV table with N rows
  count-rows SWEEP.json N       N rows
  failed-rows SWEEP.json K      K rows failed with an error, the others solved
  field SIZE.json NAME          print a field of the first configuration
  size-match SIZE.json SCAN.json INDEX
                                size-buffer's K = smallest K of the scan
  size-match-buffer SIZE.json SCAN.json INDEX J
                                the same for pipeline buffer J (0-based)
  svg FILE N                    valid XML with N series paths
  magic FILE png|pdf            the file's signature
  grain GRAIN.json N            N configurations, each recommendation right
  buys SIZE.json SCAN.json THR  size-buffer's K, K + 1 and limit = the scan's rows
  rings SVG N                   N rings (size-buffer's chosen K) in the plot
  compare COMPARE.json          values = san solve, differences = B - A
  accuracy SWEEP.json SWEEP.csv FLAGS
                                each row's error_bound, storage and lumped
                                (JSON and CSV) = san solve FLAGS of its
                                command, and both error_bound values occur
  point-accuracy SIZE.json GRAIN.json FLAGS
                                each size-buffer point's and each grain's
                                accuracy = san solve FLAGS of its model
"""
import csv
import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, close_1 as close  # noqa: E402

TEMPLATES = ("ms", "pipeline")


def fail(msg):
    print(msg)
    sys.exit(1)


def solve(command, flags=()):
    """`san solve` of a row's command, as JSON."""
    words = shlex.split(command)
    if words[0] in TEMPLATES:
        args = [SAN, "solve", "-q", "-f", "json", "--gen", command]
    else:
        args = [SAN, "solve", "-q", "-f", "json"] + words
    args += list(flags)
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        fail("san solve %s failed: %s" % (command, out.stderr))
    return json.loads(out.stdout)


def rows_match(path, n):
    d = json.load(open(path))
    rows = d["rows"]
    if len(rows) != int(n):
        fail("%d rows, expected %s" % (len(rows), n))
    for r in rows:
        if not r["ok"]:
            fail("row %d failed: %s" % (r["variant"], r["error"]))
        ref = solve(r["command"])
        if r["reachable_states"] != ref["reachable_states"]:
            fail("%s: reachable %s != %s" % (r["command"], r["reachable_states"],
                                             ref["reachable_states"]))
        if str(r["product_states"]) != str(ref["product_states"]):
            fail("%s: product %s != %s" % (r["command"], r["product_states"],
                                           ref["product_states"]))
        if set(r["results"]) != set(ref["results"]):
            fail("%s: results %s != %s" % (r["command"], sorted(r["results"]),
                                           sorted(ref["results"])))
        for k, v in r["results"].items():
            if not close(v, ref["results"][k]):
                fail("%s: %s = %.17g, san solve gives %.17g" % (r["command"], k, v,
                                                                ref["results"][k]))


def csv_rows(path, n):
    # the provenance lines first (doc/output.md), then the table
    lines = open(path).read().splitlines()
    if not lines or lines[0] != "# schema: san-output/1":
        fail("no provenance lines before the table: %r" % lines[:1])
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    if len(rows) != int(n):
        fail("%d rows, expected %s" % (len(rows), n))
    if any(r["converged"] != "1" for r in rows):
        fail("a row did not converge")


def count_rows(path, n):
    rows = json.load(open(path))["rows"]
    if len(rows) != int(n):
        fail("%d rows, expected %s: %s" % (len(rows), n, [r["command"] for r in rows]))


def failed_rows(path, k):
    rows = json.load(open(path))["rows"]
    bad = [r for r in rows if not r["ok"]]
    if len(bad) != int(k):
        fail("%d failed rows, expected %s" % (len(bad), k))
    if any(not r["error"] for r in bad):
        fail("a failed row has no error")
    if any(not r["results"] for r in rows if r["ok"]):
        fail("a solved row has no results")


def first_config(path):
    c = json.load(open(path))["configurations"][0]
    if c["error"]:
        fail("size-buffer failed: " + c["error"])
    return c


def smallest(scan_rows, index, limit, within):
    for k, v in scan_rows:
        if abs(v - limit) <= within * abs(limit):
            return k
    return None


def size_match(size_path, scan_path, index):
    d = json.load(open(size_path))
    c = first_config(size_path)
    rows = json.load(open(scan_path))["rows"]
    scan = [(r["parameters"]["buffer"], r["results"][index]) for r in rows]
    check_scan(c["buffer"], c["limit"], c["limit_buffer"], d["within"], scan, index)


def buys(size_path, scan_path, thr):
    """What the chosen buffer buys (at K, K + 1, the limit) against the
    scan's rows at the same sizes: independent solves, not warm-started,
    so within 1e-8."""
    c = first_config(size_path)
    rows = {r["parameters"]["buffer"]: r["results"] for r in json.load(open(scan_path))["rows"]}
    points = [("at_buffer", c["buffer"]), ("at_next", c["buffer"] + 1),
              ("at_limit", c["limit_buffer"])]
    for key, k in points:
        p = c[key]
        if p is None or p["buffer"] != k:
            fail("%s: %r, expected the point at K = %d" % (key, p, k))
            continue
        if k not in rows:
            continue
        for name, field in ((thr, "throughput"), ("efficiency", "efficiency")):
            if not close(p[field], rows[k][name], 1e-8):
                fail("%s (K = %d): %s %.17g, the scan's %.17g" % (key, k, name, p[field],
                                                                   rows[k][name]))


def size_match_buffer(size_path, scan_path, index, j):
    d = json.load(open(size_path))
    c = first_config(size_path)
    rows = json.load(open(scan_path))["rows"]
    scan = [(int(r["parameters"]["buffers"].split(",")[int(j)]), r["results"][index])
            for r in rows]
    check_scan(c["buffers"][int(j)]["buffer"], c["limit"], c["limit_buffer"], d["within"],
               scan, index)


def check_scan(k, limit, klim, within, scan, index):
    scan = sorted(x for x in scan if x[0] <= klim)   # a scan may run past the limit
    if [s[0] for s in scan] != list(range(1, klim + 1)):
        fail("the scan does not cover 1..%d" % klim)
    if not close(scan[-1][1], limit):
        fail("the limit %.17g is not the scan's value at K=%d (%.17g)" % (limit, klim,
                                                                       scan[-1][1]))
    want = smallest(scan, index, limit, within)
    if want != k:
        fail("size-buffer says K = %s, the linear scan %s" % (k, want))


def svg(path, n):
    root = ET.parse(path).getroot()
    paths = [e for e in root.iter() if e.tag.endswith("path")
             and "stroke-width:2;" in (e.get("style") or "")]
    if len(paths) != int(n):
        fail("%d series paths, expected %s" % (len(paths), n))


def rings(path, n):
    """size-buffer's plot: one ring (the chosen K) per configuration."""
    root = ET.parse(path).getroot()
    paths = [e for e in root.iter() if e.tag.endswith("path")
             and "stroke-width:1.5;" in (e.get("style") or "")]
    if len(paths) != int(n):
        fail("%d rings, expected %s" % (len(paths), n))


def magic(path, kind):
    head = open(path, "rb").read(8)
    want = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF"}[kind]
    if not head.startswith(want):
        fail("%s does not start with the %s signature: %r" % (path, kind, head))


def grain(path, n):
    d = json.load(open(path))
    cs = d["configurations"]
    if len(cs) != int(n):
        fail("%d configurations, expected %s" % (len(cs), n))
    for c in cs:
        g = [x for x in c["grains"] if x["error"] is None]
        best = max(x["efficiency"] for x in g)
        busy = [x for x in g if x["efficiency"] >= best * (1 - d["busy"])]
        paper = min(busy, key=lambda x: x["master_tx"])["grain"]
        if c["paper_rule"] != paper:
            fail("%s: paper_rule %s, expected %s" % (c["configuration"], c["paper_rule"], paper))
        if d["rule"] == "paper":
            want = [paper]
        else:
            # every grain as good as the best on the index (the table's own values)
            key = d["by"]
            pick = min if d["rule"] == "min" else max
            top = pick(x[key] for x in g)
            want = [x["grain"] for x in g if abs(x[key] - top) <= 1e-12 * abs(top)]
        if c["recommended"] not in want:
            fail("%s: recommended %s, expected one of %s (by %s)"
                 % (c["configuration"], c["recommended"], want, d["by"]))


def compare(path):
    d = json.load(open(path))
    refs = [solve(m["command"]) for m in d["models"]]
    for name, v in d["results"].items():
        vals = v["values"]
        for i, ref in enumerate(refs):
            if name in ref["results"]:
                if vals[i] is None or not close(vals[i], ref["results"][name]):
                    fail("%s of model %d: %s != %s" % (name, i, vals[i], ref["results"][name]))
            elif vals[i] is not None:
                fail("%s of model %d should be absent" % (name, i))
        if vals[0] is not None and vals[1] is not None:
            if not close(v["differences"][0], vals[1] - vals[0]):
                fail("%s: difference %s != B - A" % (name, v["differences"][0]))


def accuracy(json_path, csv_path, flags):
    """error_bound (issue 32 item 4), storage and lumped: san solve's own
    verdict on each row's model, with the same storage and lumping."""
    rows = json.load(open(json_path))["rows"]
    lines = open(csv_path).read().splitlines()
    table = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    if len(table) != len(rows):
        fail("%d CSV rows, %d JSON rows" % (len(table), len(rows)))
    bounds = set()
    for r, c in zip(rows, table):
        ref = solve(r["command"], shlex.split(flags))
        want = (ref["solver"]["error_bound"], ref["storage"], "lumped" in ref)
        s = r["solver"]
        got = (s.get("error_bound"), s.get("storage"), s.get("lumped"))
        if got != want:
            fail("%s: JSON (error_bound, storage, lumped) = %s, san solve %s" % (r["command"], got, want))
        got = (c.get("error_bound"), c.get("storage"), c.get("lumped"))
        if got != (str(int(want[0])), want[1], str(int(want[2]))):
            fail("%s: CSV (error_bound, storage, lumped) = %s, san solve %s" % (r["command"], got, want))
        bounds.add(want[0])
    if bounds != {True, False}:
        fail("the rows' error_bound are all %s: the check needs both" % bounds)


def point_accuracy(size_path, grain_path, flags):
    """The accuracy beside each number of size-buffer (a point of a
    curve: the configuration's generator line at that buffer) and grain
    (a grain's line): san solve's verdict on the same model."""
    import re
    cases = []
    for c in json.load(open(size_path))["configurations"]:
        if len(c["accuracy"]) != len(c["curve"]):
            fail("%s: %d points of accuracy, %d of curve" % (c["command"], len(c["accuracy"]),
                                                            len(c["curve"])))
        for (k, _), a in zip(c["curve"], c["accuracy"]):
            if a["buffer"] != k:
                fail("%s: accuracy of buffer %s beside the curve's %s" % (c["command"], a["buffer"], k))
            cases.append((re.sub(r"--buffer \d+", "--buffer %d" % k, c["command"]), a))
    for c in json.load(open(grain_path))["configurations"]:
        cases += [(g["command"], g["solver"]) for g in c["grains"]]
    bounds = set()
    for command, a in cases:
        ref = solve(command, shlex.split(flags))
        want = (ref["solver"]["error_bound"], ref["storage"], "lumped" in ref,
                ref["solver"]["converged"], ref["solver"]["method"])
        got = (a["error_bound"], a["storage"], a["lumped"], a["converged"], a["method"])
        if got != want:
            fail("%s: (error_bound, storage, lumped, converged, method) = %s, san solve %s"
                 % (command, got, want))
        bounds.add(want[0])
    if bounds != {True, False}:
        fail("every error_bound is %s: the check needs both" % bounds)
    print("%d points and grains = san solve" % len(cases))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "field":
        print(first_config(args[0])[args[1]])
        return
    {"rows-match": rows_match, "csv-rows": csv_rows, "count-rows": count_rows,
     "failed-rows": failed_rows, "size-match": size_match, "buys": buys, "rings": rings,
     "size-match-buffer": size_match_buffer, "svg": svg, "magic": magic,
     "grain": grain, "compare": compare, "accuracy": accuracy,
     "point-accuracy": point_accuracy}[cmd](*args)


if __name__ == "__main__":
    main()
