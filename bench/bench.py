#!/usr/bin/env python3
"""Benchmark of `san solve`, printed as tables.

1. sparse path: one row per model and method: product and reachable
   sizes, nonzeros of Q, exploration (+build), structure check and solve
   times, iterations, residual, exploration rate, peak memory (the
   child's maximum resident set).
2. threads: exploration and the tensor product on one core and on all
   (OMP_NUM_THREADS), with the speedup.
3. storage side by side: the same method over the sparse generator and
   over the Kronecker descriptor: time per product y = x Q, the memory
   of the generator and of the descriptor, peak memory, iterations,
   total time, and the kron / sparse ratios.
4. long mode only: tss.san over the descriptor, and a ring of 6 groups
   of 21 processes where neighbouring groups share pools of 38 resources
   (101,385,345 reachable states of 22^6 = 113,379,904), solved to 1e-8
   over the descriptor and checked against its product-form solution.

Modes: quick (small models), full (default, includes tss.san: about 17
minutes, 9.4 GB peak), long (full plus table 4: about 27 minutes, 11 GB).
"""
import json
import math
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
TSS = os.path.join(SHARED, "peps", "tss.san")


def rs(n, r, lam=3, mu=6):
    return f"""identifiers
  N = [0..{n - 1}]; R = {r}; lambda = {lam}; mu = {mu};
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


def rs_ring(g, m, r, lam=3, mu=1):
    """Groups of m processes on a ring; each pair of neighbouring groups
    shares a pool of r resources.  One automaton per group counts its busy
    processes (0..m); a process may start only if both pools it draws on
    have room.  The truncation of independent reversible chains keeps the
    product form (Kelly): pi(k) is proportional to prod C(m, k_i) rho^k_i
    on the states with k_i + k_{i+1} <= r, so ring_closed_form gives the
    exact answer.  Few, larger automata, and functions of three automata:
    small tables, few terms in the descriptor."""
    ids = [f"  M = {m}; R = {r}; lambda = {lam}; mu = {mu}; K = [0..{m}];"]
    evs, auts, cons = [], [], []
    for i in range(g):
        left, right = (i - 1) % g, (i + 1) % g
        ids.append(f"  up{i} = lambda * (M - st G{i}) * (st G{left} + st G{i} < R)"
                   f" * (st G{i} + st G{right} < R);")
        ids.append(f"  dn{i} = mu * st G{i};")
        evs.append(f"  loc u{i} (up{i}) loc d{i} (dn{i})")
        auts.append(f"  aut G{i}\n    stt c[K] to(++) u{i} to(--) d{i}")
        cons.append(f"(st G{i} + st G{right} <= R)")
    return ("identifiers\n" + "\n".join(ids) + "\nevents\n" + "\n".join(evs)
            + "\nreachability = " + " && ".join(cons) + ";\nnetwork ring (continuous)\n"
            + "\n".join(auts) + "\nresults\n  full01 = st G0 + st G1 == R;\n  busy0 = st G0;\n")


def ring_closed_form(g, m, r, lam=3, mu=1):
    """(states, P(G0 + G1 = R)) of rs_ring, by summing the product-form
    weights around the ring (a transfer-matrix chain), independent of san."""
    rho = lam / mu
    w = [math.comb(m, k) * rho ** k for k in range(m + 1)]

    def chain(a, b, weighted):
        v = {b: w[b] if weighted else 1}
        for _ in range(g - 2):
            nv = {}
            for x, s in v.items():
                for y in range(m + 1):
                    if x + y <= r:
                        nv[y] = nv.get(y, 0) + s * (w[y] if weighted else 1)
            v = nv
        return sum(s for x, s in v.items() if x + a <= r) * (w[a] if weighted else 1)

    pairs = [(a, b) for a in range(m + 1) for b in range(m + 1) if a + b <= r]
    count = sum(chain(a, b, False) for a, b in pairs)
    z = sum(chain(a, b, True) for a, b in pairs)
    full = sum(chain(a, r - a, True) for a in range(m + 1) if 0 <= r - a <= m) / z
    return count, full


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


def gen_file(name, args):
    path = os.path.join(tempfile.gettempdir(), f"san-bench-{name}.san")
    subprocess.run([SAN, "gen"] + args + ["-o", path], check=True)
    return path


def run(path, method, tol="1e-10", storage="sparse", threads=None, extra=()):
    """Solve once; the peak memory is this child's own (os.wait4)."""
    env = dict(os.environ)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    t0 = time.time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([SAN, "solve", "-q", "-f", "json", "--method", method, "--tol", tol,
                              "--storage", storage, "--top", "0", *extra, path],
                             stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        wall = time.time() - t0
        out.seek(0)
        err.seek(0)
        text, errtext = out.read(), err.read()
    if code not in (0, 1) or not text:
        return None, (errtext.strip().splitlines() or ["failed"])[-1], wall, usage.ru_maxrss
    return json.loads(text), None, wall, usage.ru_maxrss


def per_product(j):
    s = j["solver"]
    return s["product_s"] / s["products"] if s.get("products") else float("nan")


def flush():
    sys.stdout.flush()


def table_sparse(cases):
    print("1. sparse generator")
    hdr = ("model", "method", "product", "reachable", "nnz", "explore s", "check s", "solve s",
           "iter", "residual", "Mstates/s", "peak MiB")
    fmt = "{:<15} {:<12} {:>10} {:>10} {:>11} {:>9} {:>8} {:>8} {:>6} {:>9} {:>9} {:>8}"
    print(fmt.format(*hdr))
    print("-" * 124)
    for name, path, methods in cases:
        for m in methods:
            j, err, wall, peak = run(path, m)
            if j is None:
                print(f"{name:<15} {m:<12} error: {err[:90]}")
                continue
            t = j["times"]
            rate = j["reachable_states"] / t["explore_s"] / 1e6 if t["explore_s"] > 0 else 0
            print(fmt.format(name, j["solver"]["method"], j["product_states"],
                             j["reachable_states"], j["nonzeros"], f"{t['explore_s']:.3f}",
                             f"{t['check_s']:.3f}", f"{t['solve_s']:.3f}",
                             j["solver"]["iterations"], f"{j['solver']['residual']:.1e}",
                             f"{rate:.2f}", f"{peak / 1024:.0f}"))
            flush()
    print()


def table_threads(cases, ncpu):
    print(f"2. one core against {ncpu} (OMP_NUM_THREADS)")
    fmt = "{:<15} {:<22} {:>12} {:>12} {:>8}"
    print(fmt.format("model", "what", "1 thread", f"{ncpu} threads", "speedup"))
    print("-" * 73)
    for name, path in cases:
        rows = []
        for th in (1, ncpu):
            j, err, _, _ = run(path, "power", storage="sparse", threads=th,
                               extra=("--max-iter", "1"))
            k, err2, _, _ = run(path, "power", storage="kron", threads=th,
                                extra=("--max-iter", "10"))
            rows.append((j["times"]["explore_s"] if j else float("nan"),
                         per_product(k) if k else float("nan")))
        for what, i, unit in (("explore+build (s)", 0, 1), ("kron product (ms)", 1, 1e3)):
            a, b = rows[0][i] * unit, rows[1][i] * unit
            print(fmt.format(name, what, f"{a:.3f}", f"{b:.3f}", f"{a / b:.2f}x"))
        flush()
    print()


def product_ms(path, storage, reachable):
    """Time per product y = x Q from a power run of many products (a
    solve's few products are too noisy on small models)."""
    k = 200 if reachable < 2000000 else 10
    j, _, _, _ = run(path, "power", tol="1e-300", storage=storage, extra=("--max-iter", str(k)))
    return per_product(j) if j else float("nan")


def table_storage(cases):
    print("3. the same method over both storages (ms/prod: time per y = x Q, from a power"
          " run of 200 products, 10 above 2e6 states;")
    print("   fill: reachable / product; kron vectors live on the reachable set below 85%;")
    print("   Q MiB: the sparse generator, D MiB: the descriptor with its diagonal (memory_bytes);")
    print("   peak: the whole run's peak RSS)")
    fmt = ("{:<15} {:<9} {:>10} {:>6} | {:>8} {:>8} {:>6} {:>5} {:>8} | {:>8} {:>8} {:>6}"
           " {:>5} {:>8} | {:>6} {:>6} {:>6}")
    print(fmt.format("model", "method", "reachable", "fill", "ms/prod", "Q MiB", "peak", "iter",
                     "total s", "ms/prod", "D MiB", "peak", "iter", "total s", "time x",
                     "Q / D", "peak /"))
    print(fmt.format("", "", "", "", "sparse", "", "", "", "", "kron", "", "", "", "", "kron",
                     "", "kron"))
    print("-" * 143)
    for name, path, method in cases:
        res = []
        for storage in ("sparse", "kron"):
            j, err, wall, peak = run(path, method, storage=storage)
            res.append((j, err, wall, peak))
        if any(r[0] is None for r in res):
            print(f"{name:<15} {method:<9} error: {[r[1] for r in res]}")
            continue
        (s, _, ws, ps), (k, _, wk, pk) = res
        ts = product_ms(path, "sparse", s["reachable_states"])
        tk = product_ms(path, "kron", s["reachable_states"])
        fill = s["reachable_states"] / s["product_states"]
        mib = 1 << 20
        print(fmt.format(name, method, s["reachable_states"], f"{100 * fill:.3g}%",
                         f"{ts * 1e3:.2f}", f"{s['memory_bytes'] / mib:.1f}", f"{ps / 1024:.0f}",
                         s["solver"]["iterations"], f"{ws:.2f}",
                         f"{tk * 1e3:.2f}", f"{k['memory_bytes'] / mib:.1f}", f"{pk / 1024:.0f}",
                         k["solver"]["iterations"], f"{wk:.2f}", f"{tk / ts:.2f}",
                         f"{s['memory_bytes'] / k['memory_bytes']:.1f}", f"{ps / pk:.1f}"))
        flush()
    print()


def table_long():
    print("4. long: over the descriptor")
    fmt = "{:<22} {:<8} {:>11} {:>13} {:>8} {:>8} {:>6} {:>9} {:>8} {:>8}  {}"
    print(fmt.format("model", "method", "reachable", "product", "explore", "solve s", "iter",
                     "residual", "ms/prod", "peak MiB", "check"))
    print("-" * 124)
    cases = []
    if os.path.exists(TSS):
        cases.append(("tss (PEPS)", TSS, "bicgstab", "1e-10", None))
    g, m, r = 6, 21, 38
    states, full = ring_closed_form(g, m, r)
    cases.append((f"ring {g}x{m} R={r}", model_file("ring", rs_ring(g, m, r)), "bicgstab",
                  "1e-8", (states, full)))
    for name, path, method, tol, exact in cases:
        j, err, wall, peak = run(path, method, tol=tol, storage="kron")
        if j is None:
            print(f"{name:<22} {method:<8} error: {err[:90]}")
            continue
        check = ""
        if exact is not None:
            states, full = exact
            got = j["results"]["full01"]
            check = (f"states {'ok' if j['reachable_states'] == states else 'WRONG'}; full01 "
                     f"{got:.10f}, closed form {full:.10f}, rel. error "
                     f"{abs(got - full) / full:.1e}")
        print(fmt.format(name, method, j["reachable_states"], j["product_states"],
                         f"{j['times']['explore_s']:.1f}", f"{j['times']['solve_s']:.1f}",
                         j["solver"]["iterations"], f"{j['solver']['residual']:.1e}",
                         f"{per_product(j) * 1e3:.0f}", f"{peak / 1024:.0f}", check))
        flush()
    print()


def main():
    ncpu = os.cpu_count() or 1
    sparse = [
        ("rs N=10 R=5", model_file("rs10", rs(10, 5)), ["direct", "gs", "gmres", "power"]),
        ("rs N=15 R=7", model_file("rs15", rs(15, 7)), ["direct", "gs", "gmres"]),
        ("rs N=20 R=10", model_file("rs20", rs(20, 10)), ["direct", "gs", "gmres", "jacobi"]),
        ("rs N=20 R=20", model_file("rs20f", rs(20, 20)), ["gs", "gmres"]),
        ("mm1k K=100000", model_file("mm1k", mm1k(100000)), ["direct", "gmres"]),
    ]
    if MODE == "quick":
        sparse = sparse[:2]
    elif os.path.exists(TSS):
        sparse.append(("tss (PEPS)", TSS, ["gs"]))
    table_sparse(sparse)
    if MODE == "quick":
        return
    ms = gen_file("ms8", ["ms", "--mode", "async", "--slaves", "8"])
    pipe = gen_file("pipe7", ["pipeline", "--mode", "async", "--stages", "1,2,3,2,1,2,3",
                              "--buffer", "6"])
    threads = [("rs N=20 R=20", model_file("rs20f", rs(20, 20)))]
    if os.path.exists(TSS):
        threads.append(("tss (PEPS)", TSS))
    table_threads(threads, ncpu)
    storage = [
        ("rs N=20 R=10", model_file("rs20", rs(20, 10)), "gmres"),
        ("rs N=20 R=20", model_file("rs20f", rs(20, 20)), "gmres"),
        ("ms async 8", ms, "gmres"),
        ("pipeline 7", pipe, "bicgstab"),   # kron GMRES(30) + Jacobi stagnates here
        # low fill: vectors on the reachable set, explicit region levels
        ("rs N=20 R=6", model_file("rs20r6", rs(20, 6)), "gmres"),
        ("rs N=24 R=5", model_file("rs24r5", rs(24, 5)), "gmres"),
        ("rs N=26 R=7", model_file("rs26r7", rs(26, 7)), "gmres"),
        ("rs N=28 R=8", model_file("rs28r8", rs(28, 8)), "gmres"),
    ]
    if os.path.exists(TSS):
        storage.append(("tss (PEPS)", TSS, "bicgstab"))
    table_storage(storage)
    if MODE == "long":
        table_long()


if __name__ == "__main__":
    main()
