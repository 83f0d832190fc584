#!/usr/bin/env python3
"""Round trips of `san export` through other tools' readers.

  mtx     read by scipy.io.mmread, solved there (sparse LU), compared with
          `san solve --vector` to 1e-10;
  prism   .tra/.sta/.lab read by the small reader below (written from
          PRISM's manual, not from san's code), the chain solved and
          compared the same way; the labels agree with the states;
  states  the numbering every format shares;
  dot     validated by Graphviz's `dot` when it is installed;
and the usage errors.  Exits 77 (skipped) without numpy and scipy.

Environment: SAN (the binary), top_srcdir.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.io
    import scipy.sparse
    import scipy.sparse.linalg
except ImportError:
    print("skip: numpy and scipy are needed (apt-get install python3-scipy)")
    sys.exit(77)

SAN = os.environ.get("SAN", "./san")
TOP = os.environ.get("top_srcdir", ".")
MODELS = os.path.join(TOP, "models")
TOL = 1e-10

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(args):
    p = subprocess.run([SAN] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


# (name, arguments naming the model): every bundled model, and generated
# ones with synchronizing events and functional probabilities
CASES = [(os.path.basename(f), [os.path.join(MODELS, f)])
         for f in sorted(os.listdir(MODELS)) if f.endswith(".san")]
CASES += [("ms async", ["--gen", "ms --mode async --slaves 2 --buffer 3"]),
          ("ms sync", ["--gen", "ms --mode sync --slaves 3"]),
          ("mm1k -D", ["-D", "lambda=5", os.path.join(MODELS, "mm1k.san")])]


def stationary(q):
    """pi Q = 0, sum pi = 1, by a sparse LU of Q^T with one row replaced
    by the normalization: unique when the chain has one closed class."""
    n = q.shape[0]
    a = scipy.sparse.lil_matrix(q.T.tocsr())
    a[n - 1, :] = np.ones(n)
    b = np.zeros(n)
    b[n - 1] = 1.0
    return scipy.sparse.linalg.spsolve(a.tocsc(), b)


def san_vector(model_args, tmp):
    """san's distribution by mixed-radix index (solve --vector)."""
    path = os.path.join(tmp, "pi.csv")
    rc, _, err = run(["solve", "-q", "--lump", "off", "--method", "direct", "--tol", "1e-13",
                      "--vector", path] + model_args)
    if rc != 0:
        print("san solve failed:", model_args, err.strip()[:300])
        return None
    with open(path) as f:
        return {int(r["index"]): float(r["probability"]) for r in csv.DictReader(f)}


def states(model_args):
    rc, out, err = run(["export", "-f", "states"] + model_args)
    check(rc == 0, f"export states {model_args}: {err.strip()[:200]}")
    return list(csv.DictReader(io.StringIO(out)))


def compare(name, what, pi, rows, ref):
    check(len(pi) == len(rows) == len(ref), f"{name} {what}: {len(pi)} states, san {len(ref)}")
    worst = max((abs(pi[int(r["state"])] - ref[int(r["index"])]) for r in rows), default=0)
    check(worst <= TOL, f"{name} {what}: max |pi - san| = {worst:.3g} > {TOL}")


# ---- PRISM's explicit files, read as its manual describes them ----

def read_tra(path):
    with open(path) as f:
        n, m = map(int, f.readline().split())
        lines = [l.split() for l in f if l.strip()]
    check(len(lines) == m, f"{path}: header says {m} transitions, {len(lines)} lines")
    src = [int(l[0]) for l in lines]
    dst = [int(l[1]) for l in lines]
    rate = [float(l[2]) for l in lines]
    check(all(s != d for s, d in zip(src, dst)), f"{path}: a self-loop")
    check(list(zip(src, dst)) == sorted(zip(src, dst)), f"{path}: not sorted by source, destination")
    r = scipy.sparse.csr_matrix((rate, (src, dst)), shape=(n, n))
    return r - scipy.sparse.diags(np.asarray(r.sum(axis=1)).ravel())


def read_sta(path):
    with open(path) as f:
        names = f.readline().strip().strip("()").split(",")
        rows = []
        for k, line in enumerate(f):
            i, vals = line.strip().split(":")
            check(int(i) == k, f"{path}: state {i} on line {k + 2}")
            rows.append(tuple(int(v) for v in vals.strip("()").split(",")))
    check(rows == sorted(rows), f"{path}: states not in lexicographic order")
    return names, rows


def read_lab(path):
    with open(path) as f:
        labels = {}
        for item in f.readline().split():
            k, v = item.split("=")
            labels[int(k)] = v.strip('"')
        true = {}
        for line in f:
            i, ls = line.split(":")
            true[int(i)] = {labels[int(x)] for x in ls.split()}
    return labels, true


def ident(s):
    """What san makes of a name for PRISM: '[' and others '_', ']' dropped."""
    out = ""
    for c in s:
        if c.isalnum() or c == "_":
            out += c
        elif c != "]" and not out.endswith("_"):
            out += "_"
    return out


def check_prism(name, model_args, rows, ref, tmp):
    base = os.path.join(tmp, "m")
    rc, _, err = run(["export", "-f", "prism", "-o", base] + model_args)
    check(rc == 0, f"{name} prism: {err.strip()[:200]}")
    if rc != 0:
        return
    q = read_tra(base + ".tra")
    compare(name, "prism", stationary(q), rows, ref)
    names, sta = read_sta(base + ".sta")
    auts = [k for k in rows[0] if k not in ("state", "index")] if rows else []
    check(names == [ident(a) for a in auts], f"{name} sta variables {names}")
    labels, true = read_lab(base + ".lab")
    check(labels.get(0) == "init" and labels.get(1) == "deadlock", f"{name} lab: {labels}")
    check("init" in true.get(0, ()), f"{name} lab: state 0 is not init")
    for r in rows:
        want = {ident(a) + "_" + ident(r[a]) for a in auts}
        got = true.get(int(r["state"]), set()) - {"init", "deadlock"}
        if want != got:
            check(False, f"{name} lab state {r['state']}: {sorted(got)} != {sorted(want)}")
            break
    # the local state numbers of .sta name the same states as the CSV
    by_aut = {a: {} for a in auts}
    for r, t in zip(rows, sta):
        for a, v in zip(auts, t):
            by_aut[a].setdefault(v, set()).add(r[a])
    check(all(len(s) == 1 for d in by_aut.values() for s in d.values()),
          f"{name} sta: one local state number names two states")


def check_mtx(name, model_args, rows, ref, tmp):
    path = os.path.join(tmp, "q.mtx")
    rc, _, err = run(["export", "-f", "mtx", "-o", path] + model_args)
    check(rc == 0, f"{name} mtx: {err.strip()[:200]}")
    if rc != 0:
        return
    q = scipy.sparse.csr_matrix(scipy.io.mmread(path), dtype=float)
    rowsum = abs(np.asarray(q.sum(axis=1)).ravel()).max() if q.shape[0] else 0
    check(rowsum <= 1e-9 * max(1.0, abs(q).max()), f"{name} mtx: rows sum to {rowsum:.3g}")
    compare(name, "mtx", stationary(q), rows, ref)


def check_dot(name, model_args, nstates, tmp):
    for fmt in ("dot", "dot-reach"):
        rc, out, err = run(["export", "-f", fmt] + model_args)
        check(rc == 0, f"{name} {fmt}: {err.strip()[:200]}")
        check(out.startswith("digraph ") and out.rstrip().endswith("}"), f"{name} {fmt}: not a digraph")
        if fmt == "dot-reach":
            nodes = sum(1 for l in out.splitlines() if "[label=" in l and "->" not in l)
            check(nodes == nstates, f"{name} dot-reach: {nodes} nodes, {nstates} states")
        if DOT and rc == 0:
            p = subprocess.run([DOT, "-Tsvg"], input=out, capture_output=True, text=True, timeout=60)
            check(p.returncode == 0 and "<svg" in p.stdout, f"{name} {fmt}: dot says {p.stderr.strip()[:300]}")


def usage_errors(tmp):
    mm1k = os.path.join(MODELS, "mm1k.san")
    for args, what in [([mm1k], "no --format"),
                       (["-f", "xml", mm1k], "unknown format"),
                       (["-f", "prism", mm1k], "prism without -o"),
                       (["-f", "mtx"], "no model"),
                       (["-f", "mtx", "--gen", "ms", mm1k], "--gen and a model"),
                       (["-f", "mtx", "-D", "nosuch=1", mm1k], "-D of no constant")]:
        rc, out, err = run(["export"] + args)
        check(rc == 2 and err, f"export {what}: exit {rc}, want 2 with a message")
    out_path = os.path.join(tmp, "big.dot")
    rc, _, err = run(["export", "-f", "dot-reach", "--max-nodes", "5", "-o", out_path, mm1k])
    check(rc == 2 and "max-nodes" in err, f"dot-reach over --max-nodes: exit {rc}: {err.strip()}")
    check(not os.path.exists(out_path), "dot-reach over --max-nodes left a file")
    rc, out, _ = run(["export", "--help"])
    check(rc == 0 and "prism" in out and "--max-nodes" in out, "export --help")
    rc, a, _ = run(["export", "-f", "mtx", "--gen", "ms --mode async --slaves 3 --buffer 4"])
    rc2, b, _ = run(["export", "-f", "mtx", "--gen", "ms --mode async --slaves 3 --buffer 4"])
    check(rc == rc2 == 0 and a == b, "two exports of one model differ")


DOT = shutil.which("dot")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in CASES:
            ref = san_vector(args, tmp)
            rows = states(args)
            check(ref is not None, f"{name}: san solve")
            if ref is None:
                continue
            check(sorted(int(r["index"]) for r in rows) == [int(r["index"]) for r in rows],
                  f"{name} states: not in mixed-radix order")
            check_mtx(name, args, rows, ref, tmp)
            check_prism(name, args, rows, ref, tmp)
            check_dot(name, args, len(rows), tmp)
        usage_errors(tmp)
    if not DOT:
        print("note: graphviz's dot is not installed: the DOT files were not validated")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
