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
5. design grid: the master/slave sweep `san sweep ms --mode sync,async
   --slaves 2..7 --buffer 1,5,10,20,40` (36 variants) once per method
   (default tol; auto also with --warm where san sweep has it): wall
   time of the whole sweep, variants solved and failed, the methods
   used, the largest error_estimate reported, and the worst index error
   against a reference, |v - ref| / (1e-8 |ref| + 1e-13) (<= 1: within
   the 1e-8 relative contract).  The reference is `-m direct` (the
   direct row itself), and `-m iad --tol 1e-13` on the variants direct
   refuses (its LU too large); it is computed once per run.
6. stiff and nearly decomposable models whose exact answer is known
   independently of san (closed or product form, computed here in exact
   rational arithmetic): per model and method, the method used,
   iterations, refinement cycles, time, converged, the worst relative
   error of the results and the reported error_estimate; every run has
   --time-limit 120.  Long mode adds bench/models/ncd17.san (524,288
   states) to the scaled-down models of full mode.
7. pipeline mapping (seed 002): `san map` on the paper's worked examples
   (bottleneck before and after, the paper's figures beside DPM and the
   optimal mapping); its Table 1 setting (1,000 scenarios per row, Tr
   drawn from a normal law of mean 10 and deviation 8, redrawn while
   <= 0, 32 processors, 16, 32 and 64 stages): mean and deviation of
   TeMPI/TeDPM, the steady ratio of the bottlenecks (the paper gives
   neither its item count nor its treatment of negative draws), and of
   TeMPI/Teoptimal; and the time of `san map --batch` over 1,000 random
   5-8-stage pipelines (target: under 1 s).

8. san transient (pi(t) at 10 time points): a 2^20-state model over both
   storages, tss.san over the descriptor; products, time per product,
   the truncated Poisson mass, peak memory.

9. front end: `san check` of 10^4, 10^5 and 10^6 replicas of a two-state
   automaton, and of 10^5 identifiers each defined from the one before:
   wall time, CPU time (user + system) and peak memory; with --before
   BIN (or SAN_BENCH_BEFORE), the same for another binary side by side,
   each run bounded to 200 s (the front end was quadratic: the "before"
   of the commit that made it linear is main's binary of that time).

10. fan-out: N replicas routing 0.5/0.5 on one synchronizing event (2^N
   transitions out of every state), N = 12..24, under --max-memory 1G
   and 2G, automatic storage and method, --time-limit 30: exit status,
   time, the peak resident memory of the run and its ratio to the limit
   (the target: at most 1.10, the process's fixed baseline of about 9
   MiB aside), and what ended it.  A run is also held by an address-space
   cap of 3 times its limit plus 1 GiB (setrlimit), so that a binary
   that ignores the limit fails there instead of swapping the machine;
   BENCH_FANOUT_N=12..16 and BENCH_FANOUT_TIME=30 change the range and
   the time limit.  About 15 minutes (26 runs of at most 30 s).

11. lumping of replicas (issue 28): master/slave models and a resource
   sharing model solved as written (--lump off, where that fits) and
   lumped: reachable states, wall time, peak memory and the worst
   relative difference of their results; up to 1,024 slaves lumped.
   Then issue 28's design grid (sync and async, 2..64 slaves, buffers
   1..40, lumped) with its wall time, against --lump off to 8 slaves.
12. multilevel aggregation (issue 27): -m ml against bicgstab, gs, iad
   and auto at tol 1e-12 on resource sharing (20 processes, 9 resources;
   22 processes, 4.2 M states, full mode), master/slave async 8 slaves
   buffer 40, the repairable clusters of bench/models/cluster64.san (64
   and 128 workstations a side) and ncd17.san: iterations (ml: cycles),
   products, solve time, converged, the error estimate, peak memory.
13. the sparse kernels (bench/kernels): time, bytes moved and GB/s of
   the product, the ILU(0) solves and a Gauss-Seidel sweep beside the
   machine's STREAM triad.
14. --storage auto's prediction against the measurement (issue 27 item
   4; solver/analysis/storage_choice.c): per model as written (--lump
   off), auto's predicted time and peak of both storages and its pick,
   then each storage run (auto's method) with its wall time and peak;
   the ratios predicted / measured show the cost model's error, and
   "best" applies the same rule to the measured figures.  The load
   average is printed: the times are the machine's, the predictions an
   idle machine's.  Full mode: TSS with 7 and 9 sources (220,887 and
   1,987,983 states), rs 20/9 and 20/10, ms async 8/40, cluster64,
   ncd17; long mode adds rs 22/11 (2,449,868 states).

15. PRISM models of the QVBS read unchanged (bench/prism.py): state
   counts and steady-state values against the published ones (Storm's
   exact, sound or default engine) with Storm's times beside san's.

Modes: quick (small models), full (default, includes tss.san: about 17
minutes, 9.4 GB peak, plus about 7 minutes for tables 5 and 6), long
(full plus table 4 and the large models of table 6: about 40 minutes,
11 GB).

Options after the mode: --only LIST runs just the listed tables, in the
given mode (e.g. `bench/run.sh ./san full --only 5,6`); --before BIN adds
that binary's column to table 9.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction


def parse_args(argv):
    """SAN [MODE] [--only LIST] [--before BIN]: positional binary and mode,
    the tables to run, the binary table 9 compares with."""
    global BEFORE
    pos, only = [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--before" and i + 1 < len(argv):
            BEFORE = argv[i + 1]
            i += 2
        elif argv[i] == "--only" and i + 1 < len(argv):
            only = {int(t) for t in argv[i + 1].split(",") if t.strip()}
            i += 2
        elif argv[i].startswith("--only="):
            only = {int(t) for t in argv[i][7:].split(",") if t.strip()}
            i += 1
        else:
            pos.append(argv[i])
            i += 1
    return pos, only


BEFORE = os.environ.get("SAN_BENCH_BEFORE")
ARGS, ONLY = parse_args(sys.argv[1:])
SAN = ARGS[0] if len(ARGS) > 0 else "./san"
MODE = ARGS[1] if len(ARGS) > 1 else os.environ.get("SAN_BENCH", "full")
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


def ncd(n, eps):
    """bench/models/ncd17.san with n fast automata and slow rates eps * a_m
    (ncd(17, "1e-6") is that file)."""
    return f"""identifiers
  eps = {eps};
  F = [0..{n - 1}];
  up = 1 + ((st M == m1) * 2) + ((st M == m2) * 4) + ((st M == m3) * 8);
events
  loc s0 (eps * 1)
  loc s1 (eps * 2)
  loc s2 (eps * 3)
  loc s3 (eps * 4)
  loc on (up)
  loc off (5)
reachability = 1;
network ncd{n} (continuous)
  aut M
    stt m0 to(m1) s0
    stt m1 to(m2) s1
    stt m2 to(m3) s2
    stt m3 to(m0) s3
  aut P[F]
    stt idle to(busy) on
    stt busy to(idle) off
results
  mode0 = st M == m0;
  mode1 = st M == m1;
  mode2 = st M == m2;
  mode3 = st M == m3;
  busy = nb busy;
"""


def gth(n, rates):
    """Exact stationary vector (Fractions) of an n-state chain given as
    {(i, j): rate}, by GTH elimination."""
    a = [[Fraction(0)] * n for _ in range(n)]
    for (i, j), r in rates.items():
        a[i][j] += Fraction(r)
    for k in range(n - 1, 0, -1):
        s = sum(a[k][:k])
        for i in range(k):
            if a[i][k]:
                f = a[i][k] / s
                for j in range(k):
                    a[i][j] += f * a[k][j]
    pi = [Fraction(1)]
    for k in range(1, n):
        pi.append(sum(pi[i] * a[i][k] for i in range(k)) / sum(a[k][:k]))
    z = sum(pi)
    return [x / z for x in pi]


def ncd_exact(n, eps):
    """M moves on its own: P(M = m) is 12/25, 6/25, 4/25, 3/25.  A fast
    automaton and M together are a Markov chain of 8 states (M does not
    see it), so E[nb busy] is n times its P(busy), solved exactly."""
    e = Fraction(eps)
    up = [1, 3, 5, 9]
    rates = {}
    for m in range(4):
        for b in range(2):
            rates[(2 * m + b, 2 * ((m + 1) % 4) + b)] = e * (m + 1)
        rates[(2 * m, 2 * m + 1)] = up[m]
        rates[(2 * m + 1, 2 * m)] = 5
    pi = gth(8, rates)
    res = {f"mode{m}": Fraction([12, 6, 4, 3][m], 25) for m in range(4)}
    res["busy"] = n * sum(pi[2 * m + 1] for m in range(4))
    return res


def birth_death(specs):
    """Independent automata A0.., each a birth-death chain 0..K with
    constant rates (K, up, down): a product form, whatever the spread of
    the rates.  The results mix slow and fast automata."""
    ids, evs, auts = [], [], []
    for i, (k, lam, mu) in enumerate(specs):
        ids.append(f"  K{i} = [0..{k}];")
        evs.append(f"  loc u{i} ({lam}) loc d{i} ({mu})")
        auts.append(f"  aut A{i}\n    stt s[K{i}] to(++) u{i} to(--) d{i}")
    last = len(specs) - 1
    total = " + ".join(f"st A{i}" for i in range(len(specs)))
    res = [f"  corner = (st A0 == 0) && (st A{last} == 0);",
           f"  cross = st A0 * st A{last};",
           "  mid = (st A2 == 1) && (st A3 == 2);",
           f"  top1 = st A1 == {specs[1][0]};",
           f"  total = {total};"]
    return ("identifiers\n" + "\n".join(ids) + "\nevents\n" + "\n".join(evs)
            + "\nreachability = 1;\nnetwork pf (continuous)\n" + "\n".join(auts)
            + "\nresults\n" + "\n".join(res) + "\n")


def birth_death_exact(specs):
    """The product of the truncated geometric marginals."""
    marg = []
    for k, lam, mu in specs:
        rho = Fraction(lam) / Fraction(mu)
        w = [rho ** j for j in range(k + 1)]
        marg.append([x / sum(w) for x in w])
    mean = [sum(j * p for j, p in enumerate(m)) for m in marg]
    last = len(specs) - 1
    return {"corner": marg[0][0] * marg[last][0], "cross": mean[0] * mean[last],
            "mid": marg[2][1] * marg[3][2], "top1": marg[1][specs[1][0]], "total": sum(mean)}


RS_RESULTS = {"full": "nb using == R", "empty": "nb using == 0", "one_free": "nb using == (R - 1)",
              "use0": "st P0 == using", "uselast": "st P{last} == using",
              "average": "nb using"}


def rs_rates(lams, mus, r, keep):
    """Resource sharing with one wake-up rate lams[i] and release rate
    mus[i] per process (models/rs_functions.san, scaled): reversible, so a
    truncated product form; keep: the RS_RESULTS to report."""
    n = len(lams)
    ids = [f"  R = {r};", "  free = (nb using) < R;"]
    evs, auts = [], []
    for i in range(n):
        evs.append(f"  loc a{i} ({lams[i]} * free) loc r{i} ({mus[i]})")
        auts.append(f"  aut P{i}\n    stt sleeping to(using) a{i}\n    stt using to(sleeping) r{i}")
    res = [f"  {k} = {RS_RESULTS[k].format(last=n - 1)};" for k in keep]
    return ("identifiers\n" + "\n".join(ids) + "\nevents\n" + "\n".join(evs)
            + "\nreachability = (nb using) <= R;\nnetwork rs (continuous)\n"
            + "\n".join(auts) + "\nresults\n" + "\n".join(res) + "\n")


def rs_rates_exact(lams, mus, r):
    """P(set S in use) proportional to the product of lams/mus over S,
    |S| <= r: sums over the elementary symmetric polynomials."""
    rho = [Fraction(a) / Fraction(b) for a, b in zip(lams, mus)]

    def esym(xs):
        e = [Fraction(1)] + [Fraction(0)] * r
        for x in xs:
            for k in range(r, 0, -1):
                e[k] += x * e[k - 1]
        return e

    e = esym(rho)
    z = sum(e)
    res = {"full": e[r] / z, "empty": 1 / z, "one_free": e[r - 1] / z,
           "average": sum(k * e[k] for k in range(r + 1)) / z}
    for name, i in (("use0", 0), ("uselast", len(rho) - 1)):
        res[name] = rho[i] * sum(esym(rho[:i] + rho[i + 1:])[:r]) / z
    return res


def model_file(name, text):
    path = os.path.join(tempfile.gettempdir(), f"san-bench-{name}.san")
    with open(path, "w") as f:
        f.write(text)
    return path


def gen_file(name, args):
    path = os.path.join(tempfile.gettempdir(), f"san-bench-{name}.san")
    subprocess.run([SAN, "gen"] + args + ["-o", path], check=True)
    return path


def run(path, method, tol="1e-10", storage="sparse", threads=None, extra=(), lump="off"):
    """Solve once; the peak memory is this child's own (os.wait4).  The
    tables measure the solver on the chains as written (--lump off)
    unless lump="auto" (table 11)."""
    env = dict(os.environ)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    t0 = time.time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([SAN, "solve", "-q", "-f", "json", "--method", method, "--tol", tol,
                              "--storage", storage, "--top", "0", "--lump", lump, *extra,
                              path],
                             stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        wall = time.time() - t0
        out.seek(0)
        err.seek(0)
        text, errtext = out.read(), err.read()
    if code not in (0, 1) or not text:
        return None, (errtext.strip().splitlines() or ["failed"])[-1], wall, usage.ru_maxrss
    j = json.loads(text)
    j["exit_status"] = code
    return j, None, wall, usage.ru_maxrss


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
            t = j["times_s"]
            rate = j["reachable_states"] / t["explore_s"] / 1e6 if t["explore_s"] > 0 else 0
            print(fmt.format(name, j["solver"]["method"], j["product_states"]["digits"],
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
            rows.append((j["times_s"]["explore_s"] if j else float("nan"),
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
        fill = s["reachable_states"] / s["product_states"]["approx"]
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
        print(fmt.format(name, method, j["reachable_states"], j["product_states"]["digits"],
                         f"{j['times_s']['explore_s']:.1f}", f"{j['times_s']['solve_s']:.1f}",
                         j["solver"]["iterations"], f"{j['solver']['residual']:.1e}",
                         f"{per_product(j) * 1e3:.0f}", f"{peak / 1024:.0f}", check))
        flush()
    print()


GRID = ["ms", "--mode", "sync,async", "--slaves", "2..7", "--buffer", "1,5,10,20,40"]
GRID_REF = {}   # the reference of table 5, computed once per run


def sweep(args, method, tol=None, out=None, extra=()):
    """One `san sweep -f json` over all cores: (rows by command, exit
    status, wall time)."""
    cmd = [SAN, "sweep", *args, "-f", "json", "-q", "-m", method, *extra]
    if tol:
        cmd += ["--tol", tol]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    if out:
        with open(out, "w") as f:
            f.write(p.stdout)
    try:
        rows = json.loads(p.stdout)["rows"]
    except (ValueError, KeyError):
        rows = []
    return {r["command"]: r for r in rows}, p.returncode, wall


def grid_reference():
    """-m direct over the grid (kept in a temporary directory: it is also
    the direct row), and -m iad --tol 1e-13 where direct fails."""
    if GRID_REF:
        return GRID_REF
    tmp = tempfile.mkdtemp(prefix="san-bench-grid-")
    rows, code, wall = sweep(GRID, "direct", out=os.path.join(tmp, "direct.json"))
    ref, fallback = {}, []
    for cmd, r in rows.items():
        if r["ok"]:
            ref[cmd] = r["results"]
            continue
        one, _, _ = sweep(cmd.split(), "iad", tol="1e-13",
                          out=os.path.join(tmp, f"iad-{len(fallback)}.json"))
        if one and next(iter(one.values()))["ok"]:
            ref[cmd] = next(iter(one.values()))["results"]
            fallback.append((cmd, r["error"] or "failed"))
    GRID_REF.update(ref=ref, fallback=fallback, direct=(rows, code, wall), dir=tmp)
    return GRID_REF


def worst_ratio(rows, ref):
    """max over variants and results of |v - ref| / (1e-8 |ref| + 1e-13)."""
    worst = (0.0, "-", "-")
    for cmd, r in rows.items():
        if not r["ok"] or cmd not in ref:
            continue
        for k, v in r["results"].items():
            x = ref[cmd].get(k)
            if v is None or x is None:
                continue
            q = abs(v - x) / (1e-8 * abs(x) + 1e-13)
            if q > worst[0]:
                worst = (q, cmd.replace("ms --mode ", "").replace("--", ""), k)
    return worst


def max_estimate(rows):
    """the largest error_estimate san reports over the solved variants."""
    est = [r["solver"].get("error_estimate") for r in rows.values() if r["ok"]]
    est = [e for e in est if e is not None]
    return f"{max(est):.1e}" if est else "-"


def sweep_supports(flag):
    p = subprocess.run([SAN, "sweep", "--help"], capture_output=True, text=True)
    return flag in p.stdout + p.stderr


def methods_used(rows):
    used = {}
    for r in rows.values():
        if r["ok"]:
            m = r["solver"]["method"]
            used[m] = used.get(m, 0) + 1
    return " ".join(f"{m}:{c}" for m, c in sorted(used.items(), key=lambda t: -t[1]))


def table_grid():
    print("5. design grid: san sweep " + " ".join(GRID) + " -f json (all cores)")
    g = grid_reference()
    ref = g["ref"]
    fmt = "{:<21} {:>6} {:>6} {:>6} {:>9}  {:<26} {:<18} {:>8}  {}"
    print(fmt.format("method", "wall s", "solved", "failed", "worst err", "variant",
                     "result", "max est", "methods used"))
    print("-" * 124)
    runs = [("auto", "auto", None, ()), ("direct", "direct", None, ()), ("gs", "gs", None, ()),
            ("gmres", "gmres", None, ()), ("bicgstab", "bicgstab", None, ()),
            ("iad", "iad", None, ()), ("bicgstab --tol 1e-14", "bicgstab", "1e-14", ())]
    if sweep_supports("--warm"):
        runs.append(("auto --warm", "auto", None, ("--warm",)))
    for label, method, tol, extra in runs:
        if method == "direct":
            rows, code, wall = g["direct"]
        else:
            rows, code, wall = sweep(GRID, method, tol, extra=extra)
        solved = sum(1 for r in rows.values() if r["ok"])
        q, var, res = worst_ratio(rows, ref)
        print(fmt.format(label, f"{wall:.1f}", solved, len(rows) - solved, f"{q:.2g}",
                         var, res, max_estimate(rows), methods_used(rows)))
        flush()
    print("   worst err: max |v - ref| / (1e-8 |ref| + 1e-13) over variants and results;"
          " <= 1: within the 1e-8 contract;")
    print("   max est: the largest error_estimate san reports over the solved variants.")
    print(f"   reference: -m direct on {len(ref) - len(g['fallback'])} variants (the direct"
          " row is compared with itself)", end="")
    if g["fallback"]:
        print("; -m iad --tol 1e-13 on", end="")
        for cmd, err in g["fallback"]:
            print(f"\n     {cmd}; direct: {err.split(';')[0]}", end="")
    print("\n")


def stiff_models():
    """(name, path, exact results, storages) of table 6."""
    bd = [(5, "2e-4", "1e-4"), (5, "1e-3", "3e-3"), (5, "5e-2", "4e-2"), (5, "1", "1"),
          (5, "30", "60"), (5, "800", "500"), (5, "4e3", "1e4")]
    n = 16
    ratio = ["0.5", "2", "1.5", "0.7"]
    scale = [f"{10 ** (-4 + 8 * i / (n - 1)):.2g}" for i in range(n)]
    lams = [f"{float(ratio[i % 4]) * float(scale[i]):.3g}" for i in range(n)]
    het = ["full", "empty", "one_free", "use0", "uselast", "average"]
    hom = ["full", "one_free", "use0", "average"]
    models = []
    if MODE == "long":
        models.append(("ncd17.san eps=1e-6", os.path.join(HERE, "models", "ncd17.san"),
                       ncd_exact(17, "1e-6"), ("sparse", "kron")))
    models += [
        ("ncd15 eps=1e-6", model_file("ncd15", ncd(15, "1e-6")), ncd_exact(15, "1e-6"),
         ("sparse", "kron")),
        ("ncd15 eps=1e-8", model_file("ncd15e8", ncd(15, "1e-8")), ncd_exact(15, "1e-8"),
         ("sparse", "kron")),
        ("birth-death 6^7", model_file("bd7", birth_death(bd)), birth_death_exact(bd),
         ("sparse",)),
        ("rs16 R=8 1e-4..1e4", model_file("rshet", rs_rates(lams, scale, 8, het)),
         rs_rates_exact(lams, scale, 8), ("sparse",)),
        ("rs16 R=8 acq/rel 1e4", model_file("rshom", rs_rates(["100"] * n, ["0.01"] * n, 8, hom)),
         rs_rates_exact(["100"] * n, ["0.01"] * n, 8), ("sparse",)),
    ]
    return models


def rel_error(results, exact):
    """worst |v - x| / |x| over the results, and which."""
    worst = (0.0, "-")
    for k, x in exact.items():
        if k in results:
            e = abs(Fraction(results[k]) - x) / abs(x)
            if e >= worst[0]:
                worst = (float(e), k)
    return worst


def table_stiff():
    print("6. stiff and nearly decomposable models against their exact answers"
          " (tol 1e-10, --time-limit 120)")
    fmt = "{:<21} {:>7} {:<6} {:<8} {:<8} {:>6} {:>6} {:>7} {:<4} {:>4} {:>9} {:<9} {:>9}"
    print(fmt.format("model", "states", "store", "method", "used", "iter", "refine", "time s",
                     "conv", "exit", "worst err", "(result)", "estimate"))
    print("-" * 124)
    for name, path, exact, storages in stiff_models():
        for storage in storages:
            methods = ["iad", "gs", "gmres", "bicgstab", "auto"] if storage == "sparse" \
                else ["iad", "auto"]
            for m in methods:
                j, err, wall, _ = run(path, m, storage=storage, extra=("--time-limit", "120"))
                if j is None:
                    print(f"{name:<21} {'':>7} {storage:<6} {m:<8} error: {err[:80]}")
                    continue
                s = j["solver"]
                e, which = rel_error(j["results"], exact)
                verified = s.get("balance") or s.get("error_estimate")
                est = f"{s['error_estimate']:.1e}" if verified else "-"
                print(fmt.format(name, j["reachable_states"], storage, m, s["method"],
                                 s["iterations"], s.get("refine_cycles", 0), f"{wall:.1f}",
                                 "yes" if s.get("converged") else "NO", j["exit_status"],
                                 f"{e:.1e}", which, est))
                flush()
    print("   worst err: max |v - x| / |x| over the model's results, x exact (rational"
          " arithmetic, not san); time s: the whole run;")
    print("   conv NO: not converged (exit 1), e.g. stopped by the time limit or a stagnating"
          " refinement; estimate: the error_estimate san")
    print("   reports ('-': not verified, the JSON has balance and error_estimate 0).")
    print()


def map_batch(lines, P, method="dpm"):
    """san map --batch over lines (stage lists) on P processors: CSV rows, wall s."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    t0 = time.time()
    p = subprocess.run([SAN, "map", "--batch", path, "-P", str(P), "--method", method,
                        "-f", "csv"], capture_output=True, text=True)
    wall = time.time() - t0
    os.unlink(path)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    import csv
    return list(csv.DictReader(l for l in p.stdout.splitlines() if not l.startswith("#"))), wall


def mean_sd(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def table_map():
    import random
    print("7. pipeline mapping (seed 002): san map")
    fmt = "{:<29} {:>3} {:>21} {:>11} {:>8} {:>9}"
    print(fmt.format("stages Tr", "P", "paper", "DPM", "optimal", "DPM gain"))
    print("-" * 90)
    examples = [("2,2,11,6,4", 8 - 2, "11 -> 6"), ("5,10,24,5", 8, "24 -> 6 (x3.8)"),
                ("150,75,10,235,10,10,558,150", 8, "558 -> 235 (x2.33)")]
    for tr, P, paper in examples:
        d, _ = map_batch([tr], P)
        o, _ = map_batch([tr], P, "optimal")
        print(fmt.format(tr, P, paper, f"{d[0]['before_bottleneck']} -> {d[0]['after_bottleneck']}",
                         o[0]["after_bottleneck"], f"{float(d[0]['gain']):.3f}"))
    print("   paper: bottlenecks of fig. 1-2; for fig. 3-4 the measured TeMPI/TeDPM (2.43/0.64;"
          " 62.03/26.6 = 2.33, printed as 3.33)")
    print()
    rng = random.Random(1000)
    fmt = "{:>6} {:>3} {:>18} {:>18} {:>18} {:>8}"
    print(fmt.format("stages", "P", "paper mean / sd", "DPM mean / sd", "optimal mean / sd",
                     "wall s"))
    print("-" * 78)
    paper = {16: (1.36, 0.23), 32: (1.55, 0.26), 64: (1.24, 0.33)}
    for n in (16, 32, 64):
        lines = []
        for _ in range(1000):
            tr = []
            while len(tr) < n:
                x = rng.gauss(10, 8)
                if x > 0:
                    tr.append(round(x, 6))
            lines.append(",".join(map(str, tr)))
        d, wall = map_batch(lines, 32)
        o, _ = map_batch(lines, 32, "optimal")
        dm, ds = mean_sd([float(r["gain"]) for r in d])
        om, osd = mean_sd([float(r["gain"]) for r in o])
        print(fmt.format(n, 32, f"{paper[n][0]:.2f} / {paper[n][1]:.2f}", f"{dm:.2f} / {ds:.2f}",
                         f"{om:.2f} / {osd:.2f}", f"{wall:.2f}"))
        flush()
    print("   ratio: before bottleneck / after bottleneck (= TeMPI/Te for a long job);"
          " before: one stage per processor, P contiguous blocks when stages > P")
    lines = [",".join(str(rng.randint(1, 30)) for _ in range(rng.randint(5, 8)))
             for _ in range(1000)]
    _, wall = map_batch(lines, 10)
    print(f"   1,000 random 5-8-stage pipelines on 10 processors: {wall:.3f} s"
          f" (target < 1 s)")


def run_transient(path, storage, times, extra=()):
    """One `san transient`; the peak memory is this child's own."""
    t0 = time.time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([SAN, "transient", "-q", "-f", "json", "--storage", storage,
                              "--time", times, *extra, path], stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.time() - t0
        out.seek(0)
        err.seek(0)
        text, errtext = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0 or not text:
        return None, (errtext.strip().splitlines() or ["failed"])[-1], wall, usage.ru_maxrss
    return json.loads(text), None, wall, usage.ru_maxrss


def table_transient(cases):
    print("8. san transient: pi(t) at 10 time points by uniformization (products: y = x Q,")
    print("   the same product as solve; ms/prod: time per product; trunc: the truncated")
    print("   Poisson mass reported, a bound of every probability's error besides roundoff)")
    fmt = "{:<15} {:<7} {:>10} {:>14} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}"
    print(fmt.format("model", "storage", "reachable", "times", "rate", "products", "ms/prod",
                     "analysis s", "trunc", "total s", "peak MiB"))
    print("-" * 118)
    for name, path, storages, times in cases:
        for storage in storages:
            j, err, wall, peak = run_transient(path, storage, times)
            if j is None:
                print(f"{name:<15} {storage:<7} error: {err[:90]}")
                continue
            u = j["uniformization"]
            per = u["product_s"] / u["products"] * 1e3 if u["products"] else float("nan")
            print(fmt.format(name, storage, j["reachable_states"], times, f"{u['rate']:.4g}",
                             u["products"], f"{per:.2f}", f"{j['times_s']['analysis_s']:.2f}",
                             f"{u['truncated_mass']:.1e}", f"{wall:.2f}", f"{peak / 1024:.0f}"))
            flush()


def fanout(n, partial=False):
    """N replicas, one synchronizing event, a 0.5/0.5 routing each: 2^N
    transitions out of every state (tests/cli/explore_memory.sh)."""
    reach = "partial reachability = nb b == 0" if partial else "reachability = 1"
    return f"""identifiers
  R = [0..{n - 1}];
  h = 0.5;
events
  syn go (1)
{reach};
network fan (continuous)
  aut P[R]
    stt a
      to(a) go(h)
      to(b) go(h)
    stt b
      to(a) go(h)
      to(b) go(h)
results
  pb = nb b;
"""


def run_capped(cmd, cap_bytes, timeout):
    """Runs cmd under an address-space cap; (exit status, wall s, peak
    KiB, stdout, stderr).  A hard timeout kills it (status -9)."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    t0 = time.time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, preexec_fn=cap)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        wall = time.time() - t0
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss, out.read(), err.read()


def fanout_outcome(code, out, err, timeout):
    """What ended a run, in a few words."""
    if code < 0:
        last = (err.strip().splitlines() or ["no message"])[-1]
        return f"killed (signal {-code}) {timeout:g} s in: the time limit ignored; {last[:50]}"
    if code == 0:
        try:
            j = json.loads(out)
            return f"solved ({j['storage']}, {j['solver']['method']}), pb = {j['results']['pb']:g}"
        except (ValueError, KeyError):
            return "solved"
    lines = [l for l in err.splitlines() if "error" in l or "san solve:" in l]
    msg = (lines[-1] if lines else (err.strip().splitlines() or ["?"])[-1])
    msg = msg.split(": error: ")[-1].replace("san solve: ", "")
    for key, short in (("time limit", "time limit"), ("memory limit", "over the limit"),
                       ("out of memory", "out of memory"), ("needs more than", "over the limit")):
        if key in msg:
            if "event '" in msg:
                short += " (fan-out named)"
            return f"{short}: {msg[:70]}"
    return msg[:90]


def table_fanout():
    lo, hi = (int(x) for x in os.environ.get("BENCH_FANOUT_N", "12..24").split(".."))
    tl = float(os.environ.get("BENCH_FANOUT_TIME", "30"))
    print(f"10. fan-out: N replicas routing 0.5/0.5 on one synchronizing event (2^N"
          f" transitions a state), --time-limit {tl:g}")
    fmt = "{:>3} {:>9} {:>6} {:>5} {:>8} {:>9} {:>7}  {}"
    print(fmt.format("N", "trans.", "limit", "exit", "time s", "peak MiB", "peak/lim", "outcome"))
    print("-" * 124)
    for n in range(lo, hi + 1):
        path = model_file(f"fan{n}", fanout(n))
        for gib in (1, 2):
            limit = gib << 30
            cmd = [SAN, "solve", "-q", "-f", "json", "--top", "0", "--max-memory", f"{gib}G",
                   "--time-limit", f"{tl:g}", path]
            code, wall, peak, out, err = run_capped(cmd, 3 * limit + (1 << 30), tl + 60)
            print(fmt.format(n, 2 ** n, f"{gib}G", code, f"{wall:.1f}", f"{peak / 1024:.0f}",
                             f"{peak * 1024 / limit:.2f}",
                             fanout_outcome(code, out, err, tl + 60)))
            flush()
    print("   peak: the run's maximum resident set (ru_maxrss); peak/lim: over the"
          " --max-memory given; exit 1 at the time limit, 2 refused.")
    print()


def frontend_models():
    """(name, path): the models of table 9, written once."""
    def replicas(n):
        return (f"identifiers\n  N = [0..{n - 1}];\nevents\n  loc up (1)\n  loc dn (2)\n"
                "reachability = 1;\nnetwork big (continuous)\n  aut P[N]\n"
                "    stt a to(b) up\n    stt b to(a) dn\nresults\n  x = st P[0] == a;\n")

    def chain(n):
        ids = ["  c0 = 1;"] + [f"  c{i} = c{i - 1} + 1;" for i in range(1, n)]
        return ("identifiers\n" + "\n".join(ids) + f"\nevents\n  loc up (c{n - 1})\n"
                "  loc dn (2)\nreachability = 1;\nnetwork chain (continuous)\n  aut P\n"
                "    stt a to(b) up\n    stt b to(a) dn\nresults\n  x = st P == a;\n")
    return [("10^4 replicas", model_file("fe-rep1e4", replicas(10 ** 4))),
            ("10^5 replicas", model_file("fe-rep1e5", replicas(10 ** 5))),
            ("10^6 replicas", model_file("fe-rep1e6", replicas(10 ** 6))),
            ("10^5 chained ids", model_file("fe-chain1e5", chain(10 ** 5)))]


def check_run(binary, path, limit=200):
    """`binary check path` to /dev/null, killed after limit seconds: (exit
    status or None when killed, wall s, CPU s, peak KiB)."""
    t0 = time.time()
    with open(os.devnull, "w") as null:
        p = subprocess.Popen([binary, "check", path], stdout=null, stderr=null)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() - t0 > limit:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                return None, time.time() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss
            time.sleep(0.02)
    return (os.waitstatus_to_exitcode(status), time.time() - t0,
            usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def table_frontend():
    print("9. front end: san check (wall and CPU seconds, peak MiB; '>200': killed at 200 s)")
    bins = [("before", BEFORE)] if BEFORE else []
    bins.append(("after", SAN))
    fmt = "{:<18}" + " | {:>8} {:>8} {:>8}" * len(bins)
    print(fmt.format("model", *[x for b, _ in bins for x in (b + " wall", "cpu", "peak")]))
    print("-" * (18 + 29 * len(bins)))
    for name, path in frontend_models():
        cells = []
        for _, binary in bins:
            code, wall, cpu, peak = check_run(binary, path)
            if code is None:
                cells += [">200", f"{cpu:.1f}", f"{peak / 1024:.0f}"]
            else:
                cells += [f"{wall:.2f}" + ("" if code == 0 else f" ({code})"), f"{cpu:.2f}",
                          f"{peak / 1024:.0f}"]
        print(fmt.format(name, *cells))
        flush()
    print()


def table_kernels():
    """bench/kernels (built by make bench): each sparse kernel's time, bytes
    moved and GB/s beside the machine's STREAM triad."""
    print("13. sparse kernels against the memory floor (bench/kernels: best of 5 calls;"
          " floor: share of the STREAM triad's GB/s)")
    exe = os.path.join(os.path.dirname(os.path.abspath(SAN)), "bench", "kernels")
    if not os.path.exists(exe):
        print("   bench/kernels not built (make bench builds it)")
        return
    models = [("rs N=20 R=9", model_file("rs20r9", rs(20, 9))),
              ("ms async 8/40", gen_file("ms8b40", ["ms", "--mode", "async", "--slaves", "8",
                                                   "--buffer", "40"]))]
    for name, path in models:
        p = subprocess.run([exe, path, "5"], capture_output=True, text=True, timeout=600)
        print(f"   {name}")
        for line in p.stdout.splitlines():
            print("   " + line)
    print()


def table_lump():
    """11. exact lumping of replicas (issue 28): the same model solved as
    written and lumped; states, time, peak memory, the worst relative
    difference of the results (where both run)."""
    print("11. lumping (--lump auto vs off): reachable states, wall seconds, peak MiB; "
          "diff: worst relative difference of the results")
    fmt = "{:<24} | {:>10} {:>8} {:>7} | {:>10} {:>8} {:>7} | {:>8}"
    print(fmt.format("model", "off states", "wall", "MiB", "lumped", "wall", "MiB", "diff"))
    print("-" * 100)
    cases = [("ms async 4/40", "ms --mode async --slaves 4 --buffer 40", True),
             ("ms async 6/40", "ms --mode async --slaves 6 --buffer 40", True),
             ("ms async 8/40", "ms --mode async --slaves 8 --buffer 40", MODE != "quick"),
             ("ms sync 10", "ms --mode sync --slaves 10", True),
             ("ms async 16/40", "ms --mode async --slaves 16 --buffer 40", False),
             ("ms async 64/40", "ms --mode async --slaves 64 --buffer 40", False),
             ("ms async 256/40", "ms --mode async --slaves 256 --buffer 40", False),
             ("ms sync 256", "ms --mode sync --slaves 256", False),
             ("ms sync 1024", "ms --mode sync --slaves 1024", False)]
    models = [(label, gen_file("lump-" + label.replace(" ", "-").replace("/", "-"), a.split()),
               both) for label, a, both in cases]
    models.append(("rs N=20 R=10", model_file("rs20", rs(20, 10)), True))
    for label, path, both in models:
        cells = []
        res = {}
        for lump in (["off"] if both else []) + ["auto"]:
            j, err, wall, peak = run(path, "auto", storage="auto", lump=lump)
            if j is None:
                cells += [err[:10], f"{wall:.2f}", f"{peak / 1024:.0f}"]
                continue
            res[lump] = j["results"]
            cells += [f"{j['reachable_states']:,}", f"{wall:.2f}", f"{peak / 1024:.0f}"]
        if not both:
            cells = ["-", "-", "-"] + cells
        diff = "-"
        if len(res) == 2:
            d = max(abs(res["auto"][k] - v) / max(abs(v), 1e-300)
                    for k, v in res["off"].items() if v != 0)
            diff = f"{d:.1e}"
        print(fmt.format(label, *cells, diff))
        flush()
    print()
    lump_grid()


LUMP_GRID = ["ms", "--mode", "sync,async", "--slaves", "2,4,8,16,32,64",
             "--buffer", "1,5,10,20,40"]


def lump_grid():
    """Issue 28's design grid to 64 slaves, lumped (the default), against
    the same variants solved as written where they fit (2..8 slaves):
    |v - ref| / (1e-8 |ref| + 1e-13), <= 1 within the contract."""
    rows, code, wall = sweep(LUMP_GRID, "auto")
    small = list(LUMP_GRID)
    small[small.index("2,4,8,16,32,64")] = "2,4,8"
    off, _, wall_off = sweep(small, "auto", extra=("--lump", "off"))
    ref = {c: r["results"] for c, r in off.items() if r["ok"]}
    q, where, key = worst_ratio(rows, ref)
    solved = sum(1 for r in rows.values() if r["ok"])
    print(f"design grid {' '.join(LUMP_GRID)}: {solved}/{len(rows)} variants solved "
          f"in {wall:.2f} s (exit {code}), methods {methods_used(rows)}; "
          f"max estimate {max_estimate(rows)}")
    print(f"  against --lump off on {len(ref)} variants (2..8 slaves, {wall_off:.2f} s): "
          f"worst {q:.2g} x (1e-8 rel + 1e-13) at {where} {key}")
    print()


def cluster(n):
    """bench/models/cluster64.san with n workstations per cluster."""
    with open(os.path.join(HERE, "models", "cluster64.san")) as f:
        text = f.read()
    return text.replace("N   = 64;", f"N   = {n};").replace("K   = [0..64];", f"K   = [0..{n}];")


def table_ml():
    print("12. multilevel aggregation (-m ml) against the other methods, tol 1e-12,"
          " --time-limit 300")
    fmt = "{:<22} {:>8} {:<9} {:<9} {:>6} {:>8} {:>8} {:<4} {:>4} {:>9} {:>8}"
    print(fmt.format("model", "states", "method", "used", "iter", "products", "solve s",
                     "conv", "exit", "estimate", "peak MiB"))
    print("-" * 104)
    cases = [
        ("rs N=20 R=9", model_file("rs20r9", rs(20, 9))),
        ("ms async 8/40", gen_file("ms8b40", ["ms", "--mode", "async", "--slaves", "8",
                                               "--buffer", "40"])),
        ("cluster N=64", model_file("cluster64", cluster(64))),
        ("cluster N=128", model_file("cluster128", cluster(128))),
        ("ncd17 eps=1e-6", os.path.join(HERE, "models", "ncd17.san")),
    ]
    if MODE != "quick":
        cases.append(("rs N=22 R=22", model_file("rs22f", rs(22, 22))))
    for name, path in cases:
        for m in ["ml", "bicgstab", "gs", "iad", "auto"]:
            j, err, wall, peak = run(path, m, tol="1e-12", extra=("--time-limit", "300"),
                                     lump="off")
            if j is None:
                print(f"{name:<22} {'':>8} {m:<9} error: {err[:80]}")
                continue
            s = j["solver"]
            print(fmt.format(name, j["reachable_states"], m, s["method"], s["iterations"],
                             s.get("products", 0), f"{j['times_s']['solve_s']:.2f}",
                             "yes" if s.get("converged") else "NO", j["exit_status"],
                             f"{s.get('error_estimate', 0):.1e}", f"{peak / 1024:.0f}"))
            flush()
    print("   iter: ml cycles, Krylov or Gauss-Seidel iterations, aggregation cycles (iad),")
    print("   the polishing cycles of the checks included; products: x Q products counted.")
    print()


def tss(nsrc):
    """PEPS's tss.san with nsrc sources and a queue of 100 (tss.san has
    more): 3^nsrc x 101 states, all reachable."""
    last = f"tss[{nsrc - 1}]"
    return f"""identifiers
  N = [0..{nsrc - 1}]; K = [0..100]; k = 100;
  lambda = 3; delta = 4; delta2 = 8; alfa = 22; mu = 47;
  f = ((nb [tss[0]..{last}] on) * alfa) + ((nb [tss[0]..{last}] s_on) * alfa * 2);
  g = st queue >= (k * 0.60);
  ng = 1 - g;
events
  loc lig (lambda);
  loc des (delta);
  loc des2 (delta2)
  loc cheg (f);
  loc at (mu);
reachability = 1;
network TSS (continuous)
  aut tss[N]
    stt off to(on) lig(g) to(s_on) lig(ng)
    stt on to(off) des
    stt s_on to(off) des2
  aut queue
    stt s[K] to(--) at to(++) cheg
results
  f_on = nb [tss[0]..{last}] on;
  u_queue = st queue;
"""


# the rule of storage_choice.h, applied to measured figures
STORAGE_MEM_SHARE, STORAGE_TIME_SLACK, STORAGE_MEM_GAIN = 0.8, 1.75, 4.5


def storage_rule(ts, ms, tk, mk, budget):
    room = STORAGE_MEM_SHARE * budget
    fs, fk = ms <= room, mk <= room
    if not fs and not fk:
        return ("kron" if mk < ms else "sparse"), "neither"
    if fs != fk:
        return ("sparse" if fs else "kron"), "fits"
    fast_sparse = ts <= tk
    tf, tsl = (ts, tk) if fast_sparse else (tk, ts)
    mf, msl = (ms, mk) if fast_sparse else (mk, ms)
    smaller = tsl <= STORAGE_TIME_SLACK * tf and msl * STORAGE_MEM_GAIN <= mf
    return ("sparse" if fast_sparse != smaller else "kron"), ("smaller" if smaller else "faster")


def table_storage_choice():
    print("14. --storage auto: predicted (idle machine) against measured (this machine now),"
          " --lump off, auto's method")
    print("   pred: auto's prediction, s / MiB; meas: a run on that storage, wall s / peak MiB;"
          " x: predicted / measured;")
    print("   pick: auto's storage and rule; best: the rule on the measured figures")
    fmt = ("{:<13} {:>9} {:>10} | {:>7} {:>6} {:>7} {:>6} | {:>7} {:>6} {:>5} {:>5} | {:>7} {:>6}"
           " {:>5} {:>5} | {:<15} {:<15} {:>5}")
    print(fmt.format("model", "states", "nnz", "sp s", "sp MiB", "kr s", "kr MiB",
                     "sp s", "sp MiB", "x t", "x m", "kr s", "kr MiB", "x t", "x m",
                     "pick", "best", "load"))
    print(fmt.format("", "", "", "pred", "", "pred", "", "meas", "", "", "", "meas", "", "", "",
                     "", "", ""))
    print("-" * 160)
    models = [("tss 7", model_file("tss7", tss(7))),
              ("tss 9", model_file("tss9", tss(9))),
              ("rs 20/9", model_file("rs20r9", rs(20, 9))),
              ("rs 20/10", model_file("rs20", rs(20, 10))),
              ("ms async 8/40", gen_file("ms8b40", ["ms", "--mode", "async", "--slaves", "8",
                                                   "--buffer", "40"])),
              ("cluster64", os.path.join(HERE, "models", "cluster64.san")),
              ("ncd17", os.path.join(HERE, "models", "ncd17.san"))]
    if MODE == "long":
        models.append(("rs 22/11", model_file("rs22r11", rs(22, 11))))
    mib = 1 << 20
    for name, path in models:
        load = os.getloadavg()[0]
        a, err, _, _ = run(path, "auto", storage="auto")
        if a is None or "storage_choice" not in a or a["storage_choice"]["sparse"] is None:
            print(f"{name:<13} error: {err or 'no prediction'}")
            continue
        c = a["storage_choice"]
        meas = {}
        for st in ("sparse", "kron"):
            j, err, wall, peak = run(path, "auto", storage=st)
            meas[st] = (wall, peak * 1024) if j and j["solver"]["converged"] else None
        if not all(meas.values()):
            print(f"{name:<13} error: a storage did not converge: {meas}")
            continue
        (ws, ps), (wk, pk) = meas["sparse"], meas["kron"]
        best = storage_rule(ws, ps, wk, pk, c["budget_bytes"])
        print(fmt.format(name, a["reachable_states"], f"{c['nonzeros']:.3g}",
                         f"{c['sparse']['time_s']:.2f}", f"{c['sparse']['memory_bytes'] / mib:.0f}",
                         f"{c['kron']['time_s']:.2f}", f"{c['kron']['memory_bytes'] / mib:.0f}",
                         f"{ws:.2f}", f"{ps / mib:.0f}", f"{c['sparse']['time_s'] / ws:.2f}",
                         f"{c['sparse']['memory_bytes'] / ps:.2f}",
                         f"{wk:.2f}", f"{pk / mib:.0f}", f"{c['kron']['time_s'] / wk:.2f}",
                         f"{c['kron']['memory_bytes'] / pk:.2f}",
                         f"{a['storage']} {c['rule']}", f"{best[0]} {best[1]}", f"{load:.1f}"))
        flush()
    print("   peaks include the process's ~9 MiB baseline, which the predictions leave out.")
    print()


def want(table):
    return ONLY is None or table in ONLY


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
    if want(1):
        table_sparse(sparse)
    if MODE == "quick" and ONLY is None:
        return
    if want(2):
        threads = [("rs N=20 R=20", model_file("rs20f", rs(20, 20)))]
        if os.path.exists(TSS):
            threads.append(("tss (PEPS)", TSS))
        table_threads(threads, ncpu)
    if want(3):
        ms = gen_file("ms8", ["ms", "--mode", "async", "--slaves", "8"])
        pipe = gen_file("pipe7", ["pipeline", "--mode", "async", "--stages", "1,2,3,2,1,2,3",
                                  "--buffer", "6"])
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
    if want(4) and (MODE == "long" or ONLY is not None):
        table_long()
    if want(5):
        table_grid()
    if want(6):
        table_stiff()
    if want(7):
        table_map()
    if want(8):
        # rs N=20 R=20: 2^20 = 1,048,576 states on both storages
        tr = [("rs N=20 R=20", model_file("rs20f", rs(20, 20)), ("sparse", "kron"),
               "0.1..1/0.1")]
        if os.path.exists(TSS):
            tr.append(("tss (PEPS)", TSS, ("kron",), "0.01..0.1/0.01"))
        table_transient(tr)
    if want(9):
        table_frontend()
    if want(10) and MODE != "quick":
        table_fanout()
    if want(11):
        table_lump()
    if want(12):
        table_ml()
    if want(13):
        table_kernels()
    if want(14) and MODE != "quick":
        table_storage_choice()
    if want(15):
        # the PRISM models of the QVBS (bench/prism.py)
        subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "prism.py"), SAN, MODE])


if __name__ == "__main__":
    main()
