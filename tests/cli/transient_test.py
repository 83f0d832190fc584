#!/usr/bin/env python3
"""Time-dependent tests of `san transient` and `san passage` against
independent references.

Every expected number comes from a closed form or from a matrix
exponential computed here (Pade 13 with scaling and squaring, in plain
Python: CI has no numpy), never from san itself:
  - a two-state chain (exponential relaxation), its accumulated reward;
  - M/M/1/K from an empty queue and from a vector file, against expm(Q t);
  - M/M/infinity from empty: Poisson(rho (1 - e^{-mu t}));
  - pi(t) for a large t against the steady state of `san solve`;
  - Erlang-k first passage: the gamma CDF, the mean k/mu, the integral of
    1 - CDF; a target missed with probability 1/2;
  - both storages agree to 1e-10; the truncated Poisson mass reported
    stays below eps per interval; a stiff horizon is refused.
Every probability is checked to 1e-10 absolute.

Environment: SAN (the binary), top_srcdir.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, check, tally, gauss as solve  # noqa: E402

MODELS = os.path.join(TOP, "models")
ABS = 1e-10
# --max-memory that holds a small model's descriptor run but not the
# sparse rows its passage solves would build beside it: the series path
# (200K until the model's own bytes were counted: its syntax tree's
# first 64 KiB block and its code, 66.5 KiB on erlang.san)
SERIES_MEM = "300K"



def run(args, expect=0):
    p = subprocess.run([SAN] + args, capture_output=True, text=True)
    if p.returncode != expect:
        check(False, "san %s: exit %d, expected %d\n%s" % (" ".join(args), p.returncode,
                                                           expect, p.stderr))
        return None
    return p


def js(args):
    p = run(args + ["-f", "json"])
    return json.loads(p.stdout) if p else None


def write_model(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---- a dense matrix exponential (Higham's Pade 13, scaling and squaring) ----

PADE13 = [64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800,
          129060195264000, 10559470521600, 670442572800, 33522128640, 1323241920,
          40840800, 960960, 16380, 182, 1]


def mat_mul(a, b):
    n, m, p = len(a), len(b), len(b[0])
    return [[sum(a[i][k] * b[k][j] for k in range(m)) for j in range(p)] for i in range(n)]


def mat_add(a, b, s=1.0):
    return [[a[i][j] + s * b[i][j] for j in range(len(a[0]))] for i in range(len(a))]


def mat_scale(a, s):
    return [[s * x for x in row] for row in a]


def eye(n):
    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]


def expm(a):
    n = len(a)
    norm = max(sum(abs(x) for x in row) for row in a)
    s = max(0, int(math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0)
    a = mat_scale(a, 2.0 ** -s)
    powers = [eye(n), a]
    for _ in range(12):
        powers.append(mat_mul(powers[-1], a))
    u = [[0.0] * n for _ in range(n)]
    v = [[0.0] * n for _ in range(n)]
    for k, c in enumerate(PADE13):
        if k % 2:
            u = mat_add(u, powers[k], c)
        else:
            v = mat_add(v, powers[k], c)
    r = solve(mat_add(v, u, -1.0), mat_add(v, u))
    for _ in range(s):
        r = mat_mul(r, r)
    return r


def vec_expm(x, q, t):
    e = expm(mat_scale(q, t))
    return [sum(x[i] * e[i][j] for i in range(len(x))) for j in range(len(x))]


# ---- the tests ----

TWO_STATE = """identifiers
  a = 3;
  b = 1.5;
events
  loc go (a)
  loc back (b)
partial reachability = (st A) == up;
network two (continuous)
  aut A
    stt up to(down) go
    stt down to(up) back
results
  up = (st A) == up;
"""


def test_two_state(tmp):
    path = write_model(tmp, "two.san", TWO_STATE)
    a, b = 3.0, 1.5
    times = [0, 0.01, 0.1, 0.5, 1, 2, 5, 30]
    pi = b / (a + b)
    for storage in ("sparse", "kron"):
        r = js(["transient", path, "--storage", storage, "--rewards",
                "--time", ",".join(map(str, times))])
        if not r:
            continue
        for row in r["times"]:
            t = row["t"]
            want = pi + (1 - pi) * math.exp(-(a + b) * t)
            got = row["marginals"]["A"]["up"]
            check(abs(got - want) <= ABS, "two-state %s t=%g: %.17g vs %.17g" % (storage, t, got, want))
            check(abs(row["results"]["up"] - want) <= ABS, "two-state result %s t=%g" % (storage, t))
            # the accumulated reward: int_0^t p_up(s) ds
            acc = pi * t + (1 - pi) * (1 - math.exp(-(a + b) * t)) / (a + b)
            got = row["accumulated"]["results"]["up"]
            check(abs(got - acc) <= ABS * max(1, t), "two-state accumulated %s t=%g: %.17g vs %.17g"
                  % (storage, t, got, acc))
            # expected firings of go: a * int p_up
            got = row["accumulated"]["throughputs"]["go"]
            check(abs(got - a * acc) <= ABS * max(1, t), "two-state firings %s t=%g" % (storage, t))
        u = r["uniformization"]
        check(u["truncated_mass"] <= 1e-13 * len(times), "two-state: truncated mass %g reported "
              "within eps per interval" % u["truncated_mass"])


def mm1k_q(k, lam, mu):
    q = [[0.0] * (k + 1) for _ in range(k + 1)]
    for i in range(k + 1):
        if i < k:
            q[i][i + 1] = lam
        if i > 0:
            q[i][i - 1] = mu
        q[i][i] = -sum(q[i])
    return q


def test_mm1k(tmp):
    path = os.path.join(MODELS, "mm1k.san")
    q = mm1k_q(10, 2.0, 3.0)
    times = [0.1, 0.5, 1, 3, 10]
    x0 = [1.0] + [0.0] * 10
    ref = {t: vec_expm(x0, q, t) for t in times}
    # from a vector file: half on s[2], half on s[7]
    vec = os.path.join(tmp, "init.csv")
    with open(vec, "w") as f:
        f.write("index,queue,probability\n2,s[2],0.5\n7,s[7],0.5\n")
    x1 = [0.0] * 11
    x1[2] = x1[7] = 0.5
    ref1 = {t: vec_expm(x1, q, t) for t in times}
    for storage in ("sparse", "kron"):
        for init, want in ((["--initial", "(st queue) == s[0]"], ref), (["--from", vec], ref1)):
            r = js(["transient", path, "--storage", storage, "--time", ",".join(map(str, times))]
                   + init)
            if not r:
                continue
            worst = 0
            for row in r["times"]:
                m = row["marginals"]["queue"]
                for i in range(11):
                    worst = max(worst, abs(m["s[%d]" % i] - want[row["t"]][i]))
            check(worst <= ABS, "M/M/1/K %s %s: worst %.3g vs expm" % (storage, init[0], worst))


MMINF = """identifiers
  lambda = 4;
  mu = 1;
  N = [0..40];
  out = mu * (st queue);
events
  loc arrive (lambda)
  loc leave (out)
partial reachability = (st queue) == s[0];
network mminf (continuous)
  aut queue
    stt s[N]
      to(++) arrive
      to(--) leave
results
  n = st queue;
"""


def test_mminf(tmp):
    path = write_model(tmp, "mminf.san", MMINF)
    for storage in ("sparse", "kron"):
        r = js(["transient", path, "--storage", storage, "--time", "0.2,1,3"])
        if not r:
            continue
        for row in r["times"]:
            t = row["t"]
            mean = 4.0 * (1 - math.exp(-t))
            worst = 0
            for i in range(20):
                p = math.exp(-mean) * mean ** i / math.factorial(i)
                worst = max(worst, abs(row["marginals"]["queue"]["s[%d]" % i] - p))
            check(worst <= ABS, "M/M/inf %s t=%g: worst %.3g vs Poisson" % (storage, t, worst))
            check(abs(row["results"]["n"] - mean) <= 1e-9, "M/M/inf mean %s t=%g" % (storage, t))


def test_to_steady(tmp):
    path = os.path.join(MODELS, "rs_functions.san")
    s = js(["solve", path, "--tol", "1e-13"])
    for storage in ("sparse", "kron"):
        r = js(["transient", path, "--storage", storage, "--time", "60"])
        if not r or not s:
            continue
        row = r["times"][-1]
        worst = 0
        for aut, states in s["marginals"].items():
            for st, p in states.items():
                worst = max(worst, abs(row["marginals"][aut][st] - p))
        check(worst <= ABS, "rs_functions %s: pi(60) within %.3g of solve" % (storage, worst))
        check(r["uniformization"]["steady_state_at"] is not None or
              r["uniformization"]["products"] < r["uniformization"]["products_planned"],
              "rs_functions %s: steady state detected" % storage)


def test_storages_agree(tmp):
    for name, init in (("rs_functions.san", []), ("rs_pool.san", []),
                       ("first_available.san", [])):
        path = os.path.join(MODELS, name)
        rows = {}
        for storage in ("sparse", "kron"):
            p = run(["transient", path, "--storage", storage, "--time", "0.3,1,4", "-f", "csv"]
                    + init)
            if p:
                table = [l for l in p.stdout.splitlines() if not l.startswith("#")]
                rows[storage] = [l.split(",") for l in table[1:]]
        if len(rows) < 2:
            continue
        worst = 0
        for a, b in zip(rows["sparse"], rows["kron"]):
            if a[1] in ("result", "marginal", "throughput"):
                worst = max(worst, abs(float(a[4]) - float(b[4])) / max(1, abs(float(a[4]))))
        check(len(rows["sparse"]) == len(rows["kron"]) and worst <= ABS,
              "%s: storages agree within %.3g" % (name, worst))


def erlang_model(k, mu):
    states = "\n".join("    stt e%d to(e%d) %s" % (i, (i + 1) % (k + 1), "step" if i < k else "back")
                       for i in range(k + 1))
    return """identifiers
  mu = %g;
events
  loc step (mu)
  loc back (mu)
partial reachability = (st E) == e0;
network erlang (continuous)
  aut E
%s
results
  done = (st E) == e%d;
""" % (mu, states, k)


def gamma_cdf(k, mu, t):
    return 1 - sum(math.exp(-mu * t) * (mu * t) ** j / math.factorial(j) for j in range(k))


def test_erlang(tmp):
    k, mu = 4, 2.0
    path = write_model(tmp, "erlang.san", erlang_model(k, mu))
    until = "(st E) == e%d" % k
    # the descriptor's mean by a solve on rows built beside it, and (rows
    # over --max-memory) by the uniformization series
    for storage, extra in (("sparse", []), ("kron", []), ("kron", ["--max-memory", SERIES_MEM])):
        r = js(["passage", path, "--storage", storage, "--until", until,
                "--time", "0..12:0.01", "--within", "1.234", "--percentiles", "5,50,90,99.9"]
               + extra)
        if not r:
            continue
        storage += " series" if extra else ""
        p = r["passage"]
        check(abs(p["reach"] - 1) <= ABS, "erlang %s: reached surely" % storage)
        check(abs(p["mean"] - k / mu) <= 1e-10 * k / mu, "erlang %s: mean %.17g vs %g"
              % (storage, p["mean"], k / mu))
        check(p["mean_residual"] <= 1e-10, "erlang %s: residual %g" % (storage, p["mean_residual"]))
        check(p["mean_method"] == ("series" if extra else "solve"),
              "erlang %s: mean by %s" % (storage, p["mean_method"]))
        for level, t in p["percentiles"].items():
            got = gamma_cdf(k, mu, t)
            check(abs(got - float(level) / 100) <= 1e-9, "erlang %s: percentile %s at %.12g "
                  "(CDF %.12g)" % (storage, level, t, got))
        worst = max(abs(row["cdf"] - gamma_cdf(k, mu, row["t"])) for row in r["times"])
        check(worst <= ABS, "erlang %s: CDF within %.3g of the gamma CDF" % (storage, worst))
        within = [row["cdf"] for row in r["times"] if abs(row["t"] - 1.234) < 1e-12]
        check(len(within) == 1 and abs(within[0] - gamma_cdf(k, mu, 1.234)) <= ABS,
              "erlang %s: --within" % storage)
        # the mean as the integral of 1 - CDF (Simpson on the grid, the tail
        # past 12 below 1e-7 of the mean)
        grid = [row for row in r["times"] if abs(row["t"] - 1.234) > 1e-12]
        ts = [row["t"] for row in grid]
        f = [1 - row["cdf"] for row in grid]
        h = ts[1] - ts[0]
        n = len(f) - 1 if (len(f) - 1) % 2 == 0 else len(f) - 2
        simpson = h / 3 * (f[0] + f[n] + 4 * sum(f[1:n:2]) + 2 * sum(f[2:n - 1:2]))
        check(abs(simpson - p["mean"]) <= 1e-7, "erlang %s: integral of 1 - CDF %.12g vs mean %.12g"
              % (storage, simpson, p["mean"]))


MISS = """identifiers
  r = 1;
events
  loc left (r)
  loc right (r)
  loc on (r)
  loc cycle (r)
partial reachability = (st A) == start;
network miss (continuous)
  aut A
    stt start to(t1) left to(c1) right
    stt t1 to(c1) on
    stt c1 to(c2) cycle
    stt c2 to(c1) cycle
"""


def test_missed(tmp):
    path = write_model(tmp, "miss.san", MISS)
    for storage in ("sparse", "kron"):
        r = js(["passage", path, "--storage", storage, "--until", "(st A) == t1", "--time", "1,50",
                "--percentiles", "10,40,50,60"])
        if not r:
            continue
        p = r["passage"]
        check(abs(p["reach"] - 0.5) <= ABS, "missed target %s: reach %.17g vs 0.5"
              % (storage, p["reach"]))
        check(p["mean"] == "inf", "missed target %s: infinite mean (\"inf\")" % storage)
        # below P(reach) the percentiles exist though the mean is infinite:
        # t = -ln(1 - 2q) / 2 (they were all NaN, the march stepped by the
        # mean); at and above it they are never attained: "inf"
        pct = p["percentiles"]
        for level in ("10", "40"):
            want = -math.log(1 - 2 * float(level) / 100) / 2
            got = pct.get(level)
            check(isinstance(got, float) and abs(got - want) <= 1e-9 * want,
                  "missed target %s: percentile %s %r vs %.12g" % (storage, level, got, want))
        check(pct.get("50") == "inf" and pct.get("60") == "inf",
              "missed target %s: percentiles at and above P(reach) never attained: %r"
              % (storage, pct))
        # P(T <= t) = 1/2 (1 - e^{-2t})
        for row in r["times"]:
            want = 0.5 * (1 - math.exp(-2 * row["t"]))
            check(abs(row["cdf"] - want) <= ABS, "missed target %s t=%g" % (storage, row["t"]))

# A start state left at rate 10 and never entered again, beside a closed
# class left at 1 and 1.02: the descriptor took its uniformization rate
# over the closed class (1.02) and diverged to 1e45 with exit 0.
TRANSIENT_START = """events
  loc leave (10)
  loc go (1)
  loc back (1.02)
partial reachability = (st a) == s0;
network tr (continuous)
  aut a
    stt s0
      to(s1) leave
    stt s1
      to(s2) go
    stt s2
      to(s1) back
results
  start = (st a) == s0;
"""


def closed_pair(t):
    """P(s1, t), P(s2, t) from s0 by hand: s0 empties at 10 into the pair
    s1 <-> s2 (rates a = 1, b = 1.02), whose own relaxation is at
    c = a + b.  With p2 = P(s2), p0 = e^{-10 t}:
        p2' = a (1 - p2 - p0) - b p2 = a - c p2 - a e^{-10t},
    p2(0) = 0, so p2 = a/c (1 - e^{-ct}) - a (e^{-ct} - e^{-10t}) / (10 - c)
    ... written with the two exponentials apart."""
    a, b = 1.0, 1.02
    c = a + b
    p0 = math.exp(-10 * t)
    # particular solutions of p2' + c p2 = a and = -a e^{-10t}
    p2 = a / c - a * p0 / (c - 10)
    p2 += (-a / c + a / (c - 10)) * math.exp(-c * t)
    return 1 - p0 - p2, p2


def test_transient_start(tmp):
    path = write_model(tmp, "tstart.san", TRANSIENT_START)
    times = [0.05, 0.3, 1, 5, 20]
    q = [[-10.0, 10.0, 0.0], [0.0, -1.0, 1.0], [0.0, 1.02, -1.02]]
    for storage in ("sparse", "kron"):
        r = js(["transient", path, "--storage", storage, "--time",
                ",".join("%g" % t for t in times)])
        if not r:
            continue
        check(r["uniformization"]["rate"] >= 10, "transient start %s: rate %g covers the "
              "start state's exit rate 10" % (storage, r["uniformization"]["rate"]))
        for row in r["times"]:
            t = row["t"]
            m = row["marginals"]["a"]
            got = [m["s0"], m["s1"], m["s2"]]
            ref = vec_expm([1.0, 0.0, 0.0], q, t)
            p1, p2 = closed_pair(t)
            hand = [math.exp(-10 * t), p1, p2]
            worst = max(max(abs(g - x), abs(g - y)) for g, x, y in zip(got, ref, hand))
            check(worst <= ABS and min(got) >= 0 and abs(sum(got) - 1) <= ABS,
                  "transient start %s t=%g: %r vs expm %r, by hand %r" % (storage, t, got, ref,
                                                                         hand))
            check(abs(row["results"]["start"] - math.exp(-10 * t)) <= ABS,
                  "transient start %s t=%g: P(s0) vs e^-10t" % (storage, t))


# Two absorbing outcomes: success at rate 1, failure at rate 2.  By hand:
# P(start, t) = e^{-3t}, P(success, t) = (1 - e^{-3t}) / 3, P(failure, t)
# twice that; success is reached with probability 1/3.
TWO_ABSORBING = """events
  loc win (1)
  loc lose (2)
partial reachability = (st a) == start;
network two (continuous)
  aut a
    stt start
      to(success) win
      to(failure) lose
    stt success
    stt failure
results
  ok = (st a) == success;
"""


def test_two_absorbing(tmp):
    path = write_model(tmp, "twoabs.san", TWO_ABSORBING)
    # the long-run answer from start (issue 31): success with 1/3
    p = run(["solve", "-f", "json", path], expect=0)
    d = json.loads(p.stdout) if p is not None else {}
    check(d.get("closed_classes") == 2 and abs(d["results"]["ok"] - 1 / 3) < 1e-14,
          f"two absorbing: solve from the initial state ({d.get('results')})")
    for storage in ("sparse", "kron"):
        r = js(["transient", path, "--storage", storage, "--time", "0.1,0.5,2,30"])
        if r:
            for row in r["times"]:
                t = row["t"]
                m = row["marginals"]["a"]
                e = math.exp(-3 * t)
                want = {"start": e, "success": (1 - e) / 3, "failure": 2 * (1 - e) / 3}
                worst = max(abs(m[k] - v) for k, v in want.items())
                check(worst <= ABS, "two absorbing transient %s t=%g: %r vs %r"
                      % (storage, t, m, want))
    for storage, extra in (("sparse", []), ("kron", []), ("kron", ["--max-memory", SERIES_MEM])):
        r = js(["passage", path, "--storage", storage, "--until", "(st a) == success",
                "--time", "0.2,1", "-p", "10,30,40"] + extra)
        if not r:
            continue
        storage += " series" if extra else ""
        ps = r["passage"]
        check(abs(ps["reach"] - 1 / 3) <= ABS, "two absorbing passage %s: reach %.17g vs 1/3"
              % (storage, ps["reach"]))
        check(ps["reach_method"] == ("series" if extra else "solve"),
              "two absorbing passage %s: reach by %s" % (storage, ps["reach_method"]))
        check(ps["mean"] == "inf", "two absorbing passage %s: mean %r" % (storage, ps["mean"]))
        for row in r["times"]:
            want = (1 - math.exp(-3 * row["t"])) / 3
            check(abs(row["cdf"] - want) <= ABS, "two absorbing passage %s: cdf at %g"
                  % (storage, row["t"]))
        for level, want in (("10", -math.log(0.7) / 3), ("30", -math.log(0.1) / 3)):
            got = ps["percentiles"].get(level)
            check(isinstance(got, float) and abs(got - want) <= 1e-9 * want,
                  "two absorbing passage %s: percentile %s %r vs %.12g"
                  % (storage, level, got, want))
        check(ps["percentiles"].get("40") == "inf", "two absorbing passage %s: 40%% never"
              % storage)


def far_target_mean(lam, mu, n):
    """E[T] from 0 to n in a birth-death queue, by hand: the time t_k
    from k to k + 1 is 1/lam + (mu/lam) t_{k-1} (a departure costs the
    step back up), t_0 = 1/lam; E[T] = sum of t_0 .. t_{n-1}."""
    from fractions import Fraction as F
    lam, mu = F(lam), F(mu)
    t = tot = F(0)
    for k in range(n):
        t = 1 / lam if k == 0 else 1 / lam + mu / lam * t
        tot += t
    return float(tot)


def test_far_target(tmp):
    """An M/M/1/89 (1.12 vs 4.776) from empty to 26 customers: mean
    8.5e15.  The series' mass moves by 1e-16 a product: the descriptor
    said P(reach) 1.1e-15 with exit 0, the sparse path exited 1 silently
    with -p.  P(reach) is 1 (irreducible), the mean by a solve."""
    text = open(os.path.join(MODELS, "mm1k.san")).read()
    text = (text.replace("lambda = 2;", "lambda = 1.12;")
                .replace("mu     = 3;", "mu = 4.776;").replace("[0..10]", "[0..89]")
                .replace("s[10]", "s[89]")
                .replace("reachability = 1;", "partial reachability = (st queue) == s[0];"))
    path = write_model(tmp, "far.san", text)
    want = far_target_mean("1.12", "4.776", 26)
    until = "(st queue) == s[26]"
    for storage in ("sparse", "kron"):
        r = js(["passage", path, "--storage", storage, "--until", until])
        if r:
            ps = r["passage"]
            check(ps["reach"] == 1 and ps["reach_method"] == "graph",
                  "far target %s: reach %r by %s" % (storage, ps["reach"], ps["reach_method"]))
            check(isinstance(ps["mean"], (int, float)) and abs(ps["mean"] - want) <= 1e-10 * want,
                  "far target %s: mean %r vs %.17g" % (storage, ps["mean"], want))
        # percentiles past --max-steps: not computed, said, exit 1, the
        # rest of the answer printed
        p = run(["passage", path, "--storage", storage, "--until", until, "-p", "50"], expect=1)
        check(p is not None and "percentiles from 50%: not computed" in p.stderr
              and re.search(r"P\(reach\) +1 ", p.stdout) is not None
              and "percentile 50    not computed" in p.stdout,
              "far target %s -p 50: said what is missing, kept the rest" % storage)
        # P(T <= t) past --max-steps: the times within it and the rest
        # of the answer, what is missing said (the whole run was refused)
        p = run(["passage", path, "--storage", storage, "--until", until, "--time", "1,1e12",
                 "-f", "json"], expect=1)
        if p:
            r = json.loads(p.stdout)
            check("P(T <= t) from t = 1e+12: not computed" in p.stderr
                  and [row["t"] for row in r["times"]] == [1] and r["passage"]["reach"] == 1
                  and abs(r["passage"]["mean"] - want) <= 1e-10 * want and not r["complete"],
                  "far target %s --time 1,1e12: the first time, reach and mean kept: %s"
                  % (storage, p.stderr))
    # the descriptor without rows: P(reach) from the classes, the mean
    # not computed (the series cannot see it), exit 1
    p = run(["passage", path, "--storage", "kron", "--max-memory", SERIES_MEM, "--until",
             until, "-f", "json"], expect=1)
    if p:
        ps = json.loads(p.stdout)["passage"]
        check(ps["reach"] == 1 and ps["reach_method"] == "graph" and ps["mean"] == "nan"
              and "mean passage time: not computed" in p.stderr,
              "far target kron series: reach 1 by the classes, the mean not computed: %r %s"
              % (ps, p.stderr))



# ---- a differential family: random chains with transient start states ----

def random_chain(rng):
    """Two automata.  A: a transient prefix a0 .. a{t-1} (each left at a
    rate up to 20, never re-entered) into one or two closed cycles; B: an
    irreducible cycle at rates near 1; one synchronizing event moves both
    (A inside its first cycle, B from b0).  The start (a0, b0) is
    transient, and so is every state with A in the prefix: the rate of
    uniformization must cover them."""
    t = rng.randint(1, 3)
    cycles = rng.randint(1, 2)
    sizes = [rng.randint(1, 3) for _ in range(cycles)]
    na = t + sum(sizes)
    nb = rng.randint(2, 3)
    arcs_a, arcs_b, events = [], [], []      # (src, dst, event)
    starts, k = [], t
    for sz in sizes:
        starts.append(k)
        for i in range(sz):
            if sz > 1:
                e = "ca%d" % len(events)
                events.append((e, rng.uniform(0.5, 2.0), False))
                arcs_a.append((k + i, k + (i + 1) % sz, e))
        k += sz
    for i in range(t):
        # forward only: to the next prefix state or into a cycle
        for dst in {rng.choice(list(range(i + 1, t)) + starts), rng.choice(starts)}:
            e = "la%d" % len(events)
            events.append((e, rng.uniform(3, 20), False))
            arcs_a.append((i, dst, e))
    for j in range(nb):
        e = "cb%d" % len(events)
        events.append((e, rng.uniform(0.5, 1.5), False))
        arcs_b.append((j, (j + 1) % nb, e))
    if sizes[0] > 1:
        e = "sy%d" % len(events)
        events.append((e, rng.uniform(0.5, 2.0), True))
        c0 = starts[0]
        arcs_a.append((c0, c0 + 1, e))
        arcs_b.append((0, 1, e))
    return na, nb, arcs_a, arcs_b, events


def chain_text(na, nb, arcs_a, arcs_b, events):
    lines = ["events"]
    for e, r, syn in events:
        lines.append("  %s %s (%.17g)" % ("syn" if syn else "loc", e, r))
    lines.append("partial reachability = (st A) == a0 && (st B) == b0;")
    lines.append("network rnd (continuous)")
    for name, n, arcs, letter in (("A", na, arcs_a, "a"), ("B", nb, arcs_b, "b")):
        lines.append("  aut %s" % name)
        for i in range(n):
            lines.append("    stt %s%d" % (letter, i))
            for src, dst, e in arcs:
                if src == i:
                    lines.append("      to(%s%d) %s" % (letter, dst, e))
    return "\n".join(lines) + "\n"


def chain_generator(na, nb, arcs_a, arcs_b, events):
    """Q over the states reachable from (a0, b0), explored here."""
    rate = {e: r for e, r, _ in events}
    syn = {e for e, _, s in events if s}

    def succ(st):
        i, j = st
        out = []
        for src, dst, e in arcs_a:
            if src != i:
                continue
            if e in syn:
                out += [((dst, d2), rate[e]) for s2, d2, e2 in arcs_b if e2 == e and s2 == j]
            else:
                out.append(((dst, j), rate[e]))
        out += [((i, dst), rate[e]) for src, dst, e in arcs_b if src == j and e not in syn]
        return out

    order, seen = [(0, 0)], {(0, 0): 0}
    for st in order:
        for nxt, _ in succ(st):
            if nxt not in seen:
                seen[nxt] = len(order)
                order.append(nxt)
    n = len(order)
    q = [[0.0] * n for _ in range(n)]
    for st in order:
        for nxt, r in succ(st):
            if nxt != st:
                q[seen[st]][seen[nxt]] += r
                q[seen[st]][seen[st]] -= r
    return order, q


def absorption(q, target):
    """P(reach target) from state 0: h on the others by elimination, with
    the states that cannot reach it at 0 (found by a backward search)."""
    n = len(q)
    can = set(target)
    grown = True
    while grown:
        grown = False
        for i in range(n):
            if i not in can and any(q[i][j] > 0 for j in can):
                can.add(i)
                grown = True
    if 0 in target:
        return 1.0
    if 0 not in can:
        return 0.0
    u = [i for i in range(n) if i in can and i not in target]
    a = [[-q[i][j] for j in u] for i in u]
    b = [[sum(q[i][j] for j in target)] for i in u]
    h = solve(a, b)
    return h[u.index(0)][0]


def test_far_target_crash(tmp):
    """The far target beside a crash at rate 1e-17 from the empty queue
    (absorbing): P(reach) = 0.9389560326712214, hand-solved in exact
    rationals (h_1 = (lam + kappa)/lam h_0, then the birth-death
    recursion, h_26 = 1).  An LU solve of the absorption probabilities
    gave 1: the crash rate vanishes from the diagonal of 1.12."""
    from fractions import Fraction as F
    lam, mu, kappa = F(112, 100), F(4776, 1000), F(1, 10 ** 17)
    h = [F(1), (lam + kappa) / lam]
    for i in range(1, 26):
        h.append(((lam + mu) * h[i] - mu * h[i - 1]) / lam)
    want = float(1 / h[26])
    lines = ["events", "  loc arrive (1.12)", "  loc serve (4.776)", "  loc crash (1e-17)",
             "partial reachability = (st q) == s0;", "network crashq (continuous)", "  aut q"]
    for i in range(90):
        lines.append("    stt s%d" % i)
        if i < 89:
            lines.append("      to(s%d) arrive" % (i + 1))
        if i > 0:
            lines.append("      to(s%d) serve" % (i - 1))
        else:
            lines.append("      to(dead) crash")
    lines.append("    stt dead")
    path = write_model(tmp, "crash.san", "\n".join(lines) + "\n")
    until = "(st q) == s26"
    for storage in ("sparse", "kron"):
        r = js(["passage", path, "--storage", storage, "--until", until])
        if r:
            ps = r["passage"]
            check(abs(ps["reach"] - want) <= 1e-12 * want and ps["reach_method"] == "solve"
                  and ps["mean"] == "inf",
                  "far target with a crash %s: reach %r vs %.17g" % (storage, ps["reach"], want))
    # without rows the series cannot tell (its mass does not move): said,
    # exit 1, nothing made up
    p = run(["passage", path, "--storage", "kron", "--max-memory", SERIES_MEM, "--until", until,
             "-f", "json"], expect=1)
    if p:
        ps = json.loads(p.stdout)["passage"]
        check(ps["reach"] == "nan" and ps["mean"] == "nan"
              and "P(reach) and the mean passage time: not computed" in p.stderr,
              "far target with a crash, kron series: not computed, said: %r %s" % (ps, p.stderr))


def test_random_transient(tmp):
    import random
    rng = random.Random(29)
    times = [0.05, 0.4, 3]
    for case in range(10):
        na, nb, arcs_a, arcs_b, events = random_chain(rng)
        path = write_model(tmp, "rnd%d.san" % case, chain_text(na, nb, arcs_a, arcs_b, events))
        order, q = chain_generator(na, nb, arcs_a, arcs_b, events)
        x0 = [1.0] + [0.0] * (len(order) - 1)
        refs = {t: vec_expm(x0, q, t) for t in times}
        last = na - 1               # a state of A's last cycle
        target = [k for k, st in enumerate(order) if st[0] == last]
        reach = absorption(q, target)
        for storage in ("sparse", "kron"):
            r = js(["transient", path, "--storage", storage, "--time",
                    ",".join("%g" % t for t in times)])
            if r:
                worst = 0.0
                for row in r["times"]:
                    ref = refs[row["t"]]
                    for aut, pos in (("A", 0), ("B", 1)):
                        for name, got in row["marginals"][aut].items():
                            want = sum(p for p, st in zip(ref, order)
                                       if st[pos] == int(name[1:]))
                            worst = max(worst, abs(got - want))
                check(worst <= ABS, "random %d %s: marginals within %.3g of expm"
                      % (case, storage, worst))
            r = js(["passage", path, "--storage", storage, "--until", "(st A) == a%d" % last])
            if r:
                got = r["passage"]["reach"]
                check(abs(got - reach) <= 1e-12, "random %d %s: P(reach) %.17g vs %.17g"
                      % (case, storage, got, reach))


def test_slices(tmp):
    """The slices regime of gen ms: the execution time's distribution,
    whose mean is the steady-state index execution_time."""
    for mode in ("async", "sync"):
        path = os.path.join(tmp, "slices_%s.san" % mode)
        p = run(["gen", "ms", "--mode", mode, "--work", "slices", "--slaves", "2", "-o", path])
        s = js(["solve", path, "--tol", "1e-13"])
        if not p or not s:
            continue
        want = s["results"]["execution_time"]
        # the descriptor's mean is a uniformization series of ~5e5
        # products here: once (async) is enough to cover it
        for storage in ("sparse", "kron") if mode == "async" else ("sparse",):
            r = js(["passage", path, "--storage", storage, "--until", "job_done"])
            if not r:
                continue
            got = r["passage"]["mean"]
            check(abs(got - want) <= 1e-8 * want, "slices %s %s: mean %.15g vs execution_time "
                  "%.15g" % (mode, storage, got, want))


def test_errors(tmp):
    mm1k = os.path.join(MODELS, "mm1k.san")
    p = run(["transient", mm1k, "--time", "1000", "--max-steps", "100"], expect=2)
    check(p is not None and "products" in p.stderr and "max-steps" in p.stderr,
          "stiff horizon refused with the count")
    run(["transient", mm1k], expect=2)
    run(["transient", mm1k, "--time", "1,x"], expect=2)
    run(["transient", mm1k, "--time", "1", "--initial", "(st queue) == "], expect=2)
    run(["transient", mm1k, "--time", "1", "--initial", "(st queue) > 99"], expect=2)
    run(["passage", mm1k, "--time", "1"], expect=2)
    # errors in a command-line expression point into it, not at a line
    # the model file does not have
    p = run(["passage", mm1k, "--until", "st queu == 1"], expect=2)
    check(p is not None and "--until:1:4: error: unknown automaton 'queu'" in p.stderr
          and "st queu == 1" in p.stderr and "__san" not in p.stderr,
          "an error in --until at its own position: %s" % (p.stderr if p else ""))
    p = run(["transient", mm1k, "--time", "1", "--initial", "(st queue) == s[99]"], expect=2)
    check(p is not None and "--initial:1:17: error" in p.stderr and "mm1k.san:" not in p.stderr,
          "an error in --initial at its own position: %s" % (p.stderr if p else ""))
    p = run(["transient", mm1k, "--time", "1", "--initial", "st queue == s[0]", "--max-memory",
             "1k"], expect=2)


def test_partial(tmp):
    """Stopped by --time-limit after the first time: that time is reported
    (the same numbers as a run that completes), marked incomplete, exit 1.
    An M/M/1/3000 queue at lambda = mu = 1000, from the empty queue, has a
    relaxation time near 1000 time units: t = 1e5 needs millions of
    products of 3000 states before any steady-state detection (seconds
    on a fast machine), t = 0.001 two products."""
    path = write_model(tmp, "long.san", open(os.path.join(MODELS, "mm1k.san")).read()
                       .replace("[0..10]", "[0..3000]").replace("lambda = 2", "lambda = 1000")
                       .replace("mu     = 3", "mu     = 1000").replace("s[10]", "s[3000]"))
    start = ["--initial", "(st queue) == s[0]"]    # uniform would be stationary
    whole = js(["transient", path, "--time", "0.001"] + start)
    p = run(["transient", path] + start + ["--time", "0.001,1e5", "--max-steps", "1e12", "--time-limit",
             "1", "-f", "json"], expect=1)
    if not whole or not p:
        return
    r = json.loads(p.stdout)
    check(r["complete"] is False and r["times_requested"] == 2 and len(r["times"]) == 1,
          "partial: complete %s, %d of %s times" % (r["complete"], len(r["times"]),
                                                    r["times_requested"]))
    got, want = r["times"][0]["results"]["length"], whole["times"][0]["results"]["length"]
    check(got == want, "partial: the time done as in a whole run: %.17g vs %.17g" % (got, want))
    check(whole["complete"] is True, "a whole run is complete")
    p = run(["transient", path] + start + ["--time", "0.001,1e5", "--max-steps", "1e12",
             "--time-limit", "1"], expect=1)
    check(p is not None and "stopped: 1 of 2 times done" in p.stdout and "t = 0.001" in p.stdout,
          "partial text report")


def tandem_job_mean(n, t1, t2, k):
    """Mean time of a job of n items through two exponential stages with a
    buffer of k between them (stage 1 blocks on a full buffer), from a
    chain written here: state (c, s), c items finished at stage 1, s items
    past it (held by blocked stage 1, in the buffer, in service at 2)."""
    states = [(c, q) for c in range(n + 1) for q in range(min(c, k + 2) + 1)]
    idx = {x: i for i, x in enumerate(states)}
    done = (n, 0)
    live = [x for x in states if x != done]
    pos = {x: i for i, x in enumerate(live)}
    # E[T | x] = 1/out(x) + sum rate(x->y)/out(x) E[T | y]: (out I - R) m = 1
    a = [[0.0] * len(live) for _ in live]
    for x in live:
        c, q = x
        i = pos[x]
        moves = []
        if c < n and q <= k + 1:
            moves.append(((c + 1, q + 1), 1 / t1))
        if q >= 1:
            moves.append(((c, q - 1), 1 / t2))
        a[i][i] = sum(r for _, r in moves)
        for y, r in moves:
            if y != done:
                a[i][pos[y]] -= r
    m = solve(a, [[1.0] for _ in live])
    return m[pos[(0, 0)]][0]


def test_pipeline_job(tmp):
    """gen pipeline --work job: the job of N items in the chain.  One stage:
    an Erlang(N) time, mean N T and a gamma CDF; two stages with a buffer:
    the mean against a chain written in this test; every variant: the
    passage's mean equal to the steady-state index execution_time."""
    path = os.path.join(tmp, "job1.san")
    if run(["gen", "pipeline", "--mode", "async", "--stages", "2", "--items", "5", "--work",
            "job", "-o", path]):
        r = js(["passage", path, "--until", "job_done", "--time", "1,10,30"])
        if r:
            check(abs(r["passage"]["mean"] - 10) <= 1e-9 * 10, "job of one stage: mean %.17g vs 10"
                  % r["passage"]["mean"])
            for row in r["times"]:
                want = gamma_cdf(5, 0.5, row["t"])
                check(abs(row["cdf"] - want) <= ABS, "job of one stage: P(T <= %g) %.17g vs %.17g"
                      % (row["t"], row["cdf"], want))
    for n, t1, t2, k in ((1, 1.0, 2.0, 1), (4, 1.0, 2.0, 1), (7, 3.0, 0.5, 2), (10, 1.0, 1.0, 3)):
        path = os.path.join(tmp, "job2.san")
        if not run(["gen", "pipeline", "--mode", "async", "--stages", "%g,%g" % (t1, t2),
                    "--buffer", str(k), "--items", str(n), "--work", "job", "-o", path]):
            continue
        want = tandem_job_mean(n, t1, t2, k)
        r = js(["passage", path, "--until", "job_done"])
        if r:
            got = r["passage"]["mean"]
            check(abs(got - want) <= 1e-9 * want, "job of %d items, stages %g,%g, buffer %d: mean "
                  "%.17g vs %.17g" % (n, t1, t2, k, got, want))
    variants = (["--mode", "sync", "--stages", "1,2,1.5"],
                ["--mode", "async", "--stages", "1,3,1", "--replicas", "1,2,1", "--buffer", "1"],
                ["--mode", "async", "--stages", "1,2", "--phases", "3", "--buffer", "2"],
                ["--mode", "async", "--stages", "2,1,4", "--replicas", "2,1,3", "--cm-time",
                 "0.2"])
    for v in variants:
        path = os.path.join(tmp, "jobv.san")
        if not run(["gen", "pipeline"] + v + ["--items", "6", "--work", "job", "-o", path]):
            continue
        s = js(["solve", path, "--tol", "1e-13"])
        r = js(["passage", path, "--until", "job_done"])
        if s and r:
            want, got = s["results"]["execution_time"], r["passage"]["mean"]
            check(abs(got - want) <= 1e-8 * want, "job %s: passage mean %.17g vs execution_time "
                  "%.17g" % (" ".join(v), got, want))
    run(["gen", "pipeline", "--mode", "async", "--stages", "1,2", "--work", "job"], expect=2)
    run(["gen", "pipeline", "--mode", "async", "--stages", "1,2", "--items", "3", "--work",
         "job", "--source", "poisson:1"], expect=2)
    run(["gen", "pipeline", "--mode", "async", "--stages", "1,2", "--work", "jobs"], expect=2)


REPLICAS = """identifiers
  N = [1..3];
events
  loc up[k:N] (k)
  loc down (1)
reachability = 1;
network d (continuous)
  aut P[i:N]
    stt a to(b) up[i]
    stt b to(a) down
results
  x = nb b;
"""


def test_replica_text(tmp):
    """The text groups replicas as solve does: replica k leaves a at rate
    k and comes back at rate 1, from 1/2 in a, so P_k(a, t) = 1/(k+1) +
    (1/2 - 1/(k+1)) e^{-(k+1) t}; replicas that differ by min/mean/max,
    every one with --all-replicas, alike ones on one line."""
    path = write_model(tmp, "repl.san", REPLICAS)
    t = 0.7
    pa = [1 / (k + 1) + (0.5 - 1 / (k + 1)) * math.exp(-(k + 1) * t) for k in (1, 2, 3)]
    p = run(["transient", "-q", path, "--time", "%g" % t])
    line = [l for l in p.stdout.splitlines() if l.strip().startswith("P[*] a:")] if p else []
    nums = [float(x) for x in re.findall(r"(?<![\[\w])(\d+\.\d+(?:e-?\d+)?)", line[0])] \
        if line else []
    check(len(nums) == 3 and abs(nums[0] - min(pa)) <= 1e-9 and
          abs(nums[1] - sum(pa) / 3) <= 1e-9 and abs(nums[2] - max(pa)) <= 1e-9
          and "(P[3])" in line[0] and "(P[1])" in line[0],
          "replicas that differ: min/mean/max of P(a) %s vs %s" % (line, pa))
    p = run(["transient", "-q", path, "--time", "%g" % t, "--all-replicas"])
    rows = {l.split(":")[0].strip(): l for l in p.stdout.splitlines()
            if re.match(r"\s+P\[\d\]:", l)} if p else {}
    check(sorted(rows) == ["P[1]", "P[2]", "P[3]"] and all(
        abs(float(re.search(r" a (\S+)", rows["P[%d]" % k]).group(1)) - pa[k - 1]) <= 1e-9
        for k in (1, 2, 3)), "--all-replicas: a line per replica %s" % rows)
    same = write_model(tmp, "same.san", REPLICAS.replace("up[k:N] (k)", "up[N] (2)"))
    p = run(["transient", "-q", same, "--time", "%g" % t])
    want = 1 / 3 + (0.5 - 1 / 3) * math.exp(-3 * t)
    line = [l for l in p.stdout.splitlines() if "P[1..3]:" in l] if p else []
    check(len(line) == 1 and abs(float(re.search(r" a (\S+)", line[0]).group(1)) - want) <= 1e-9,
          "alike replicas share one line: %s" % line)


def test_time_ranges(tmp):
    """--time takes the range of every list flag, a..b:step (san sweep's);
    the old a..b/step gives the same times with a warning; a..b has step 1;
    a bad range is refused with its reason (issue 30: one range syntax)."""
    mm1k = os.path.join(MODELS, "mm1k.san")

    def times(spec):
        d = js(["transient", "-q", mm1k, "--time", spec])
        return [round(x["t"], 12) for x in d["times"]] if d else None
    check(times("0..1:0.25") == [0, 0.25, 0.5, 0.75, 1], "0..1:0.25: %s" % times("0..1:0.25"))
    check(times("0.1..0.3:0.1") == [0.1, 0.2, 0.3], "0.1..0.3:0.1 keeps its end")
    check(times("2..4,0.5") == [0.5, 2, 3, 4], "a..b has step 1, lists merge sorted")
    p = subprocess.run([SAN, "transient", mm1k, "--time", "0..1/0.25", "-f", "json"],
                       capture_output=True, text=True)
    check(p.returncode == 0 and [round(x["t"], 12) for x in json.loads(p.stdout)["times"]]
          == [0, 0.25, 0.5, 0.75, 1] and "warning" in p.stderr and "a..b:step" in p.stderr,
          "0..1/0.25: the same times and a warning: %s" % p.stderr)
    for spec, why in (("1..0", "empty"), ("0..1:0", "step must be > 0"),
                      ("0..x:1", "'x' is not a number"), ("0..1e9:1e-3", "at most 1000000"),
                      ("-1..1:1", "too small")):
        p = run(["transient", mm1k, "--time", spec], expect=2)
        check(p is not None and why in p.stderr and spec in p.stderr,
              "--time %s: refused naming %r: %s" % (spec, why, p.stderr if p else ""))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for test in (test_two_state, test_mm1k, test_mminf, test_to_steady, test_storages_agree,
                     test_erlang, test_missed, test_transient_start, test_two_absorbing,
                     test_far_target, test_far_target_crash,
                     test_random_transient, test_slices, test_errors, test_partial,
                     test_pipeline_job, test_replica_text, test_time_ranges):
            test(tmp)
    print("transient: %d passed, %d failed" % (tally.passed, tally.failed))
    sys.exit(1 if tally.failed else 0)


if __name__ == "__main__":
    main()
