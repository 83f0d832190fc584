#!/usr/bin/env python3
"""kron_ml.py - the multilevel method over the descriptor (issue 27):
the repairable cluster answered by default, and the resort's memory
predicted before anything is built.

1. QVBS's cluster.prism at N = 128 (597,012 states) over --storage kron,
   default method: exit 0 and premium within 1e-9 of Storm's published
   value 0.9979378911 (QVBS, benchmarks/ctmc/cluster/results, as in
   bench/prism.py).  Before, ml's coarse chain was capped at 65,535
   states (16-bit blocks): it kept the two clusters and aggregated the
   repairman, the cycles stalled at residual 1e-8, and auto was refused
   (exit 1, premium printed as 0.801327).
2. cluster.prism N = 32 over kron, the default and -m ml: premium
   within 1e-9 of the sparse direct solve (UMFPACK).  (A guard: the old
   code answered these too.)
3. cluster.prism N = 64 over kron with --max-memory 19.5M (18.5M until
   the model's own 1 MiB was counted: the class check no longer fits
   there): auto's ml
   resort needs a second descriptor that keeps the level tree (4.3 MiB,
   known before the build) beside its vectors and a coarse chain of
   n/16 states; it does not fit, so it is skipped before anything is
   built (no "kron ml resort:" trace line) and the note says why.  The
   old code built it and ran ml over the budget (exit 0).
4. The resource-sharing model of 16 processes and 8 resources (39,203
   states), --lump off, -m ml over kron: full within 1e-9 of the closed
   form (reversible: pi(k using) ~ C(16, k) (3/6)^k, k <= 8) in at most
   16 iterations.  Before the tail correction and the recombination
   (issue 27: the cycles grew with the processes) it took 29.
5. The resource-sharing model of 18 processes and 9 resources (155,382
   states), --lump off, -m ml over kron under --max-memory 50M: full
   within 1e-9 of the closed form, and the run's peak resident memory
   (the child's ru_maxrss) within the limit plus the process's fixed
   baseline (a trivial solve's peak, measured here: the program, its
   libraries, the threads).  Before (issue 27) the coarse solve's levels
   were allocated every cycle and the pattern's sets in the threads'
   own arenas, which glibc kept: 64.3 MiB against 50 + 9.8 allowed.

6. The same model under budgets that leave little beside the model's
   own tables (its functions of 18 automata are tabulated: 8 MiB):
   --max-memory 36M for the default method, ml and bicgstab, 40M for
   ml.  Each run either answers (full within 1e-9 of the closed form)
   or is refused with a message naming --max-memory (exit 1 or 2), and
   in both cases its peak stays within the budget plus the baseline.
   Before (issue 27) the tables, the descriptor's diagonal, the answer
   vector and the states' doubled capacity were counted nowhere: ml
   at 36M peaked 39.9 MiB over the baseline, at 40M 42.2, and the
   default at 36M 36.7.

7. PEPS's TSS with 3 sources and a queue of 100 (2,727 states, bench's
   tss(3)), --lump off, -m ml over kron, tol 1e-12: u_queue and f_on
   within 1e-9 of the chain built here and solved by linear level
   reduction over the queue,
   in at most 22 iterations.  The coarse chain cuts the queue into runs,
   whose inside the Jacobi smoothing alone corrected slowly: 35
   iterations before the line smoothing along the queue, 18 with it.

8. M/M/1/K alone (one automaton: the line is the whole chain), -m ml
   over kron: the line sweeps used, at most 8 cycles, every state
   within 1e-12 of the product form (growing_queue says where the old
   sweeps broke down).

9. TSS with 9 sources, lumped: u_queue and f_on within 1e-9 of the
   lumped chain built here, and the checks' estimate within tol 1e-12
   with no "roundoff floor" note (the kernel asks the checks before
   it stops).

10. The same input, the same answer: TSS with 7 sources as written,
   `--storage kron -m power --tol 1e-4` on 2 threads three times: the
   three --vector files are identical (the flows of the checks'
   aggregation were summed per thread over windows a dynamic schedule
   handed out: c5d39a3 wrote three different vectors).

Environment: SAN, top_srcdir, top_builddir.  The last line is
"N passed, M failed".
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import (TOP, check, tally, run, json_of, rs_text, rs_full,  # noqa: E402
                     gauss, stationary, tss_text)

PRISM = os.path.join(TOP, "tests", "prism", "qvbs", "cluster.prism")
QUIET = ["-f", "json", "--no-marginals", "--no-throughputs", "--top", "0"]
STORM_N128 = 0.9979378911       # QVBS, Storm (sound), cluster N=128 premium


def default_n128():
    what = "cluster.prism N=128 --storage kron (default method)"
    j = json_of(["solve", PRISM, "-D", "N=128", "--storage", "kron"] + QUIET, what)
    if j is None:
        return
    check(j["reachable_states"] == 597012, "%s: 597012 states, got %s"
          % (what, j["reachable_states"]))
    got = j["results"]["premium"]
    check(abs(got - STORM_N128) <= 1e-9, "%s: premium %.12g, Storm %.10g"
          % (what, got, STORM_N128))


def n32_against_direct():
    base = ["solve", PRISM, "-D", "N=32"] + QUIET
    ref = json_of(base + ["--storage", "sparse", "-m", "direct"],
                  "cluster.prism N=32 -m direct")
    if ref is None:
        return
    want = ref["results"]["premium"]
    for extra in ([], ["-m", "ml"]):
        what = "cluster.prism N=32 --storage kron %s" % (" ".join(extra) or "(default)")
        j = json_of(base + ["--storage", "kron"] + extra, what)
        if j is None:
            continue
        got = j["results"]["premium"]
        check(abs(got - want) <= 1e-9, "%s: premium %.12g, direct %.12g" % (what, got, want))


def resort_over_budget():
    what = "cluster.prism N=64 --storage kron --max-memory 19.5M"
    env = dict(os.environ, SAN_ML_TRACE="1")
    rc, out, err = run_env(["solve", PRISM, "-D", "N=64", "--storage", "kron",
                            "--max-memory", "19.5M", "--no-marginals", "--no-throughputs",
                            "--top", "0"], env)
    check(rc == 1, "%s: exit 1 (refused: iad stagnates, ml does not fit), got %d" % (what, rc))
    note = [ln for ln in out.splitlines() if ln.startswith("note")]
    check(note and "(ml) was not tried: a descriptor that keeps the level tree" in note[0]
          and "raise --max-memory" in note[0],
          "%s: the note says why ml was not tried: %s" % (what, note))
    check("kron ml resort:" not in err and "kron ml:" not in err,
          "%s: no second descriptor built, no ml cycle: %s" % (what, err.strip()[:300]))


def rs16_cycles():
    what = "rs 16/8 --lump off --storage kron -m ml"
    want = rs_full(16, 8)
    j = json_of(["solve", "-", "--lump", "off", "--storage", "kron", "-m", "ml"] + QUIET,
                what, stdin=rs_text(16, 8))
    if j is None:
        return
    check(j["reachable_states"] == 39203, "%s: 39203 states, got %s"
          % (what, j["reachable_states"]))
    got = j["results"]["full"]
    check(abs(got - want) <= 1e-9, "%s: full %.12g, closed form %.12g" % (what, got, want))
    it = j["solver"]["iterations"]
    check(it <= 16, "%s: at most 16 iterations, got %d" % (what, it))


TSS_SOURCES = 3


def tss_moves(s, q, nsrc, lumped):
    """[(state, rate)] of the sources' moves from s at queue q: each
    source off -> on at 3 when the queue holds 60 or more, off -> s_on
    at 3 below; on -> off at 4, s_on -> off at 8.  s: each source's
    state (0 off, 1 on, 2 s_on), or lumped (sources on, sources s_on)."""
    if lumped:
        on, son = s
        off = nsrc - on - son
        moves = [((on + 1, son) if q >= 60 else (on, son + 1), 3.0 * off),
                 ((on - 1, son), 4.0 * on), ((on, son - 1), 8.0 * son)]
        return [(t, r) for t, r in moves if r > 0]
    moves = []
    for k, v in enumerate(s):
        t = list(s)
        t[k] = (1 if q >= 60 else 2) if v == 0 else 0
        moves.append((tuple(t), 3.0 if v == 0 else 4.0 if v == 1 else 8.0))
    return moves


def tss_reference(nsrc, lumped=False):
    """(E[queue], E[sources on], the queue's distribution) of the TSS
    chain built here (the
    sources' moves: tss_moves; lumped, the sources counted by state);
    the queue q -> q - 1 at 47, q -> q + 1 at 22 a source on and 44 a
    source s_on, 0..100.  Solved by linear level reduction over the
    queue (a quasi-birth-death chain): pi_{q+1} = pi_q R_q, R_q = -U_q
    (L_{q+1} + R_{q+1} D)^-1, pi_0 (L_0 + R_0 D) = 0, each block by
    santest's Gauss-Jordan elimination (none of san; pure Python, no
    numpy in make check)."""
    import itertools
    if lumped:
        srcs = [(a, b) for a in range(nsrc + 1) for b in range(nsrc + 1 - a)]
        count_on = [s[0] for s in srcs]
        up = [22.0 * s[0] + 44.0 * s[1] for s in srcs]
    else:
        srcs = list(itertools.product(range(3), repeat=nsrc))
        count_on = [s.count(1) for s in srcs]
        up = [22.0 * s.count(1) + 44.0 * s.count(2) for s in srcs]
    m, K, mu = len(srcs), 101, 47.0
    pos = {s: i for i, s in enumerate(srcs)}

    def level(q):
        """L_q: the moves of the sources at queue q, the diagonal the
        exit rates of the states (the queue's moves included)."""
        a = [[0.0] * m for _ in range(m)]
        for s, i in pos.items():
            out = (mu if q > 0 else 0.0) + (up[i] if q < K - 1 else 0.0)
            for t, r in tss_moves(s, q, nsrc, lumped):
                a[i][pos[t]] += r
                out += r
            a[i][i] -= out
        return a

    def transpose(a):
        return [list(r) for r in zip(*a)]
    R = [None] * K
    for q in range(K - 2, -1, -1):
        w = level(q + 1)
        if q + 1 < K - 1:
            for i in range(m):
                for j in range(m):
                    w[i][j] += R[q + 1][i][j] * mu
        # X w = -U_q: w^T X^T = -U_q^T (U_q diagonal)
        b = [[-up[i] if i == j else 0.0 for j in range(m)] for i in range(m)]
        R[q] = transpose(gauss(transpose(w), b))
    w = level(0)
    for i in range(m):
        for j in range(m):
            w[i][j] += R[0][i][j] * mu
    pi = [stationary(w)]
    for q in range(K - 1):
        pi.append([sum(pi[q][i] * R[q][i][j] for i in range(m)) for j in range(m)])
    total = sum(map(sum, pi))
    queue = sum(q * sum(pi[q]) for q in range(K)) / total
    on = sum(pi[q][i] * count_on[i] for q in range(K) for i in range(m)) / total
    return queue, on, [sum(p) / total for p in pi]


def tss_cycles():
    what = "tss %d sources --lump off --storage kron -m ml --tol 1e-12" % TSS_SOURCES
    j = json_of(["solve", "-", "--lump", "off", "--storage", "kron", "-m", "ml",
                 "--tol", "1e-12"] + QUIET, what, stdin=tss_text(TSS_SOURCES))
    if j is None:
        return
    check(j["reachable_states"] == 3 ** TSS_SOURCES * 101, "%s: %d states, got %s"
          % (what, 3 ** TSS_SOURCES * 101, j["reachable_states"]))
    queue, on, _ = tss_reference(TSS_SOURCES)
    got = j["results"]
    check(abs(got["u_queue"] - queue) <= 1e-9 * queue, "%s: u_queue %.12g, reference %.12g"
          % (what, got["u_queue"], queue))
    check(abs(got["f_on"] - on) <= 1e-9, "%s: f_on %.12g, reference %.12g"
          % (what, got["f_on"], on))
    it = j["solver"]["iterations"]
    check(it <= 22, "%s: at most 22 iterations, got %d" % (what, it))


def tss_lumped_probe():
    """PEPS's TSS with 9 sources and a queue of 100, lumped (5,555
    states), -m ml over kron, tol 1e-12: u_queue and f_on within 1e-9 of
    the chain built here (the sources counted by state), and the checks'
    error estimate within tol with no "roundoff floor" note.  Before the
    kernel asked the checks (multilevel.c kml_probe) it stopped on its
    change at an error of 1.7e-12, which the refinement could not bring
    down (its aggregation error grew): "--tol 1.0e-12 is below the
    roundoff floor of this chain ... 8.1e-12" (exit 0, 27 iterations)."""
    what = "tss 9 sources lumped --storage kron -m ml --tol 1e-12"
    j = json_of(["solve", "-", "--storage", "kron", "-m", "ml", "--tol", "1e-12"] + QUIET, what,
                stdin=tss_text(9))
    if j is None:
        return
    check(j["reachable_states"] == 5555, "%s: 5555 states, got %s" % (what, j["reachable_states"]))
    queue, on, _ = tss_reference(9, lumped=True)
    got = j["results"]
    check(abs(got["u_queue"] - queue) <= 1e-9 * queue, "%s: u_queue %.12g, reference %.12g"
          % (what, got["u_queue"], queue))
    check(abs(got["f_on"] - on) <= 1e-9 * on, "%s: f_on %.12g, reference %.12g"
          % (what, got["f_on"], on))
    s = j["solver"]
    check(s["converged"] and s["error_estimate"] <= 1e-12 and "floor" not in s["note"],
          "%s: error estimate %.3g within 1e-12, no floor note (%s)"
          % (what, s["error_estimate"], s["note"]))


def mm1k_text(k, lam, mu):
    """One automaton, the queue of an M/M/1/k: its line is the whole chain."""
    states = "\n".join("    stt s%d%s%s" % (i, "\n      to(s%d) arrive" % (i + 1) if i < k else "",
                                          "\n      to(s%d) serve" % (i - 1) if i > 0 else "")
                        for i in range(k + 1))
    return ("events\n  loc arrive (%.17g)\n  loc serve (%.17g)\nreachability = 1;\n"
            "network mm1k (continuous)\n  aut A\n%s\nresults\n  full = (st A) == s%d;\n"
            % (lam, mu, states, k))


def mm1k_pi(k, lam, mu):
    """rho^i / sum, i = 0..k, for the doubles lam and mu exactly (40
    digits)."""
    import decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        rho = decimal.Decimal(lam) / decimal.Decimal(mu)
        w = [decimal.Decimal(1)]
        for _ in range(k):
            w.append(w[-1] * rho)
        s = sum(w)
        return [float(x / s) for x in w]


def growing_queue():
    """M/M/1/K alone, -m ml over kron, tol 1e-12: the line sweeps (one
    automaton: its line is the whole chain) are used ("lines on") and
    the kernel stops within 8 cycles (the Jacobi sweeps took 31 - 145),
    the distribution of every state within 1e-12 relative of the product
    form (1e-26 absolute below 1e-14).  The cases: boundtest seed 89's
    M/M/1/300 at rho 1.0221, where the sweeps broke down after 4 cycles
    (c5d39a3: a roundoff exit of 8.9e-16 summed into the last pivot,
    multilevel.c); rho 0.5 at K = 600 and 0.98 at K = 2000, where the
    sweeps pinned at the last state stagnated (3 x 101 cycles, exit 1)
    or broke down after 25.  afec614 turned the lines off there."""
    mu89 = 4.6543874925312636
    for k, lam, mu in ((300, 4.7571834747553039, mu89), (600, 0.5 * mu89, mu89),
                       (2000, 0.98 * mu89, mu89)):
        what = "M/M/1/%d rho %.4g --storage kron -m ml" % (k, lam / mu)
        rc, out, err = run_env(["solve", "-", "--storage", "kron", "-m", "ml", "--tol", "1e-12",
                                "-f", "json", "--no-throughputs", "--top", "0"],
                               dict(os.environ, SAN_ML_TRACE="1"), stdin=mm1k_text(k, lam, mu))
        check(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip()[-300:]))
        if rc != 0:
            continue
        m = re.search(r"kron ml: (\d+) cycles .*lines (on|off)", err)
        check(m is not None and m.group(2) == "on" and int(m.group(1)) <= 8,
              "%s: line sweeps, at most 8 cycles: %s" % (what, m and m.group(0)))
        got = json.loads(out)["marginals"]["A"]
        worst = ""
        for i, want in enumerate(mm1k_pi(k, lam, mu)):
            v = got["s%d" % i]
            if abs(v - want) > (1e-12 * want if want >= 1e-14 else 1e-26):
                worst = "s%d %.15g, product form %.15g" % (i, v, want)
                break
        check(not worst, "%s: %s" % (what, worst))


def child_peak(args):
    """(exit code, stdout, peak KiB) of san ARGS: the child's ru_maxrss."""
    import subprocess
    from santest import SAN
    with subprocess.Popen([SAN] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL) as p:
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out.decode(), usage.ru_maxrss


def rs18_files(tmp):
    """rs 18/9 and, for the baseline (a trivial solve's peak), rs 4/2,
    written into tmp: their paths (small, rs 18/9)."""
    small, path = os.path.join(tmp, "rs4.san"), os.path.join(tmp, "rs18.san")
    with open(small, "w") as f:
        f.write(rs_text(4, 2))
    with open(path, "w") as f:
        f.write(rs_text(18, 9))
    return small, path


def rs18_peak():
    import json
    import tempfile
    if os.environ.get("SAN_SANITIZERS"):
        print("SKIP - rs 18/9 peak: not compared under the sanitizers")
        return
    what = "rs 18/9 --lump off --storage kron -m ml --max-memory 50M"
    flags = ["--lump", "off", "--storage", "kron", "-m", "ml"] + QUIET
    with tempfile.TemporaryDirectory() as tmp:
        small, path = rs18_files(tmp)
        _, _, base = child_peak(["solve", small] + flags)
        rc, out, peak = child_peak(["solve", path, "--max-memory", "50M"] + flags)
    check(rc == 0, "%s: exit 0, got %d" % (what, rc))
    if rc != 0:
        return
    got = json.loads(out)["results"]["full"]
    want = rs_full(18, 9)
    check(abs(got - want) <= 1e-9, "%s: full %.12g, closed form %.12g" % (what, got, want))
    check(peak <= 50 * 1024 + base, "%s: peak %.1f MiB over 50 MiB + the baseline %.1f MiB"
          % (what, peak / 1024, base / 1024))


def child_peak_err(args):
    """(exit code, stdout, stderr, peak KiB) of san ARGS."""
    import subprocess
    from santest import SAN
    import tempfile
    with tempfile.TemporaryFile() as errf:
        with subprocess.Popen([SAN] + args, stdout=subprocess.PIPE, stderr=errf) as p:
            out = p.stdout.read()
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        err = errf.read()
    return p.returncode, out.decode(), err.decode(), usage.ru_maxrss


def rs18_small_budgets():
    import json
    import tempfile
    if os.environ.get("SAN_SANITIZERS"):
        print("SKIP - rs 18/9 small budgets: not compared under the sanitizers")
        return
    flags = ["--lump", "off", "--storage", "kron"] + QUIET
    want = rs_full(18, 9)
    with tempfile.TemporaryDirectory() as tmp:
        small, path = rs18_files(tmp)
        for method, mib in (("auto", 36), ("ml", 36), ("bicgstab", 36), ("ml", 40)):
            what = "rs 18/9 --lump off --storage kron -m %s --max-memory %dM" % (method, mib)
            _, _, _, base = child_peak_err(["solve", small, "-m", method] + flags)
            rc, out, err, peak = child_peak_err(["solve", path, "-m", method, "--max-memory",
                                                 "%dM" % mib] + flags)
            check(peak <= mib * 1024 + base, "%s: exit %d, peak %.1f MiB over %d MiB + the "
                  "baseline %.1f MiB" % (what, rc, peak / 1024, mib, base / 1024))
            if rc == 0:
                got = json.loads(out)["results"]["full"]
                check(abs(got - want) <= 1e-9, "%s: full %.12g, closed form %.12g"
                      % (what, got, want))
            else:
                check(rc in (1, 2) and "--max-memory" in err,
                      "%s: answered, or refused naming --max-memory; exit %d: %s"
                      % (what, rc, err.strip()[:300]))


def repeatable():
    import tempfile
    what = "tss 7 as written, kron power on 2 threads, three runs"
    env = dict(os.environ, OMP_NUM_THREADS="2")
    text = tss_text(7)
    seen = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(3):
            vec = os.path.join(tmp, "pi%d.csv" % i)
            rc, _, err = run_env(["solve", "-", "--lump", "off", "--storage", "kron", "-m",
                                  "power", "--tol", "1e-4", "-q", "--vector", vec], env,
                                 stdin=text)
            check(rc == 0, "%s: run %d exit 0, got %d: %s" % (what, i, rc, err.strip()[:200]))
            if rc == 0:
                with open(vec) as f:
                    seen.append(f.read())
    check(len(seen) == 3 and seen[0] == seen[1] == seen[2],
          "%s: identical vectors (%d distinct)" % (what, len(set(seen))))


def run_env(args, env, stdin=None):
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return run(args, stdin)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main():
    tss_cycles()
    growing_queue()
    tss_lumped_probe()
    repeatable()
    rs16_cycles()
    rs18_peak()
    rs18_small_budgets()
    n32_against_direct()
    resort_over_budget()
    default_n128()
    tally.exit()


if __name__ == "__main__":
    main()
