#!/usr/bin/env python3
"""Benchmark of `san solve`: one row per model and method.

Columns: product and reachable sizes, nonzeros of Q, exploration (+build),
structure check and solve times, iterations, residual, peak memory (the
child's maximum resident set).  Models: scaled resource sharing (up to 20
processes), a long M/M/1/K queue, and the PEPS tss.san (17.9 million
states) unless SAN_BENCH=quick.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

SAN = sys.argv[1] if len(sys.argv) > 1 else "./san"
MODE = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("SAN_BENCH", "full")
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SHARED = os.environ.get("SHARED_MODELS", os.path.join(TOP, "..", "shared", "models"))


def rs(n, r):
    return f"""identifiers
  N = [0..{n - 1}]; R = {r}; lambda = 3; mu = 6;
  f = lambda * (nb using < R);
events
  loc Acq (f)
  loc Rel (mu)
reachability = (nb using <= R);
network rs (continuous)
  aut P[N]
    stt sleeping to(using) Acq
    stt using to(sleeping) Rel
results
  full = nb using == R;
"""


def mm1k(k):
    return f"""identifiers lambda = 2; mu = 3; K = [0..{k}];
events loc a (lambda) loc s (mu)
reachability = 1;
network q (continuous)
  aut queue
    stt s[K] to(++) a to(--) s
results length = st queue;
"""


def model_file(name, text):
    path = os.path.join(tempfile.gettempdir(), f"san-bench-{name}.san")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(path, method, tol="1e-10"):
    """Solve once; the peak memory is this child's own (os.wait4).
    method "kron/M" solves with --storage kron and method M."""
    t0 = time.time()
    storage = "sparse"
    if method.startswith("kron/"):
        storage, method = "kron", method[5:]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([SAN, "solve", "-q", "-f", "json", "--method", method, "--tol", tol,
                              "--storage", storage, "--top", "0", path], stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.time() - t0
        out.seek(0)
        err.seek(0)
        text, errtext = out.read(), err.read()
    peak = usage.ru_maxrss
    if p.returncode not in (0, 1) or not text:
        return None, errtext.strip().splitlines()[-1:] or ["failed"], wall, peak
    return json.loads(text), None, wall, peak


def main():
    cases = [
        ("rs N=10 R=5", model_file("rs10", rs(10, 5)), ["direct", "gs", "gmres", "power"]),
        ("rs N=15 R=7", model_file("rs15", rs(15, 7)), ["direct", "gs", "gmres"]),
        ("rs N=20 R=10", model_file("rs20", rs(20, 10)),
         ["direct", "gs", "gmres", "jacobi", "kron/jacobi", "kron/gmres"]),
        ("rs N=20 R=20", model_file("rs20f", rs(20, 20)), ["gs", "gmres", "kron/gmres"]),
        ("mm1k K=100000", model_file("mm1k", mm1k(100000)), ["direct", "gmres"]),
    ]
    if MODE == "quick":
        cases = cases[:2]
    tss = os.path.join(SHARED, "peps", "tss.san")
    if MODE != "quick" and os.path.exists(tss):
        cases.append(("tss (PEPS)", tss, ["gs"] + (["kron/jacobi"] if MODE == "long" else [])))
    hdr = ("model", "method", "product", "reachable", "nnz", "explore s", "check s", "solve s",
           "iter", "residual", "Mstates/s", "peak MiB")
    fmt = "{:<15} {:<12} {:>10} {:>10} {:>11} {:>9} {:>8} {:>8} {:>6} {:>9} {:>9} {:>8}"
    print(fmt.format(*hdr))
    print("-" * 124)
    for name, path, methods in cases:
        for m in methods:
            j, err, wall, peak = run(path, m)
            if j is None:
                print(f"{name:<15} {m:<8} error: {err[0][:90]}")
                continue
            t = j["times"]
            rate = j["reachable_states"] / t["explore_s"] / 1e6 if t["explore_s"] > 0 else 0
            meth = ("kron/" if j.get("storage") == "kron" else "") + j["solver"]["method"]
            print(fmt.format(name, meth, j["product_states"], j["reachable_states"],
                             j["nonzeros"], f"{t['explore_s']:.3f}", f"{t['check_s']:.3f}",
                             f"{t['solve_s']:.3f}", j["solver"]["iterations"],
                             f"{j['solver']['residual']:.1e}", f"{rate:.2f}",
                             f"{peak / 1024:.0f}"))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
