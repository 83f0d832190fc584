"""tests/lib/santest.py - what the Python tests share: where the san
command and the trees are, running it, the tally of checks, and the dense
references (a generator's stationary vector by Gaussian elimination).

Environment (make check sets them, VPATH builds included): SAN (the
command; default the build tree's), top_srcdir (the source tree: models,
docs, the tests' own files; default the checkout holding this file),
top_builddir (default top_srcdir), SHARED_MODELS (the shared models;
default beside the source tree), VERBOSE (list the checks that pass).

A test imports it from its own folder's sibling tests/lib/ (nothing is
written into the source tree, which distcheck makes read-only):

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    import santest
"""
import json
import math
import os
import subprocess
import sys

sys.dont_write_bytecode = True      # no __pycache__ in the source tree

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("top_srcdir", os.path.normpath(os.path.join(HERE, "..", "..")))
BUILD = os.environ.get("top_builddir", TOP)
SAN = os.environ.get("SAN", os.path.join(BUILD, "san"))
SHARED = os.environ.get("SHARED_MODELS", os.path.join(TOP, "..", "shared", "models"))
MODELS = os.path.join(TOP, "models")


def run(args, stdin=None, timeout=600, cwd=None):
    """san ARGS (stdin: text or None): (exit status, stdout, stderr), the
    outputs decoded as UTF-8 (an invalid byte replaced)."""
    p = subprocess.run([SAN] + list(args), input=stdin, capture_output=True,
                       encoding="utf-8", errors="replace", timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def output(*args, timeout=600):
    """san's standard output; an exit status other than 0 raises
    subprocess.CalledProcessError."""
    return subprocess.run([SAN, *args], capture_output=True, text=True, check=True,
                          timeout=timeout).stdout


def close_rel(a, b, rel):
    """a within rel of b, relative to b."""
    return abs(a - b) <= rel * max(abs(b), 1e-300)


def close_1(a, b, tol=1e-12):
    """a within tol (1e-12 unless given) of b, relative to b when |b|
    exceeds 1, else absolute."""
    return abs(a - b) <= tol * max(1.0, abs(b))


class Tally:
    """Checks counted; a failure printed as it happens."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
            if os.environ.get("VERBOSE"):
                print("ok: " + what)
        else:
            self.failed += 1
            print("FAIL: " + what)
        return ok

    def fail(self, msg):
        self.check(False, msg)

    def exit(self):
        """Prints "N passed, M failed" and exits 1 on a failure, else 0."""
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)


tally = Tally()
check = tally.check
fail = tally.fail


def same_indices(got, ref, what, close):
    """A check per result, marginal and throughput of the JSON report
    ref: got's value of it is close to ref's (close(got, ref))."""
    for k, v in ref["results"].items():
        check(close(got["results"][k], v), f"{what}: result {k} {got['results'][k]!r} vs {v!r}")
    for a, marg in ref["marginals"].items():
        for s, v in marg.items():
            check(close(got["marginals"][a][s], v),
                  f"{what}: marginal {a}:{s} {got['marginals'][a][s]!r} vs {v!r}")
    for e, v in ref["throughputs"].items():
        check(close(got["throughputs"][e], v),
              f"{what}: throughput {e} {got['throughputs'][e]!r} vs {v!r}")


def json_of(args, what, stdin=None, ok=(0,)):
    """The JSON report of san ARGS, or None (a failed check saying why)
    when it exits otherwise than ok or prints no JSON."""
    rc, out, err = run(args, stdin)
    if rc not in ok:
        fail("%s: exit %d: %s" % (what, rc, err.strip()[:400]))
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        fail("%s: not JSON (%s): %s" % (what, e, out[:200]))
        return None


def gauss(a, b):
    """x with a x = b (a square, b a vector or a matrix of columns as
    rows: b[i] a list), by Gauss-Jordan elimination with partial pivoting;
    a and b are not changed."""
    n = len(a)
    matrix = bool(n) and isinstance(b[0], list)
    m = [list(a[i]) + (list(b[i]) if matrix else [b[i]]) for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            raise ArithmeticError("reference: singular system")
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    if matrix:
        return [[x / m[i][i] for x in m[i][n:]] for i in range(n)]
    return [m[i][n] / m[i][i] for i in range(n)]


def stationary(q):
    """pi Q = 0, sum pi = 1 of a dense generator q (lists of rows): Q^T
    with its last equation replaced by the normalization.  Unique when
    the chain has one closed class (its transient states get 0)."""
    n = len(q)
    a = [[q[j][i] for j in range(n)] for i in range(n)]
    a[n - 1] = [1.0] * n
    return gauss(a, [0.0] * (n - 1) + [1.0])


def generator(n, arcs):
    """The dense generator of arcs (from, to, rate) over n states: rates
    of parallel arcs add up, self-loops are dropped."""
    q = [[0.0] * n for _ in range(n)]
    for i, j, r in arcs:
        if i != j:
            q[i][j] += r
            q[i][i] -= r
    return q


def sparse_stationary(q):
    """pi Q = 0, sum pi = 1 of a scipy sparse generator, by a sparse LU of
    Q^T with its last row replaced by the normalization (scipy's: none
    of san)."""
    import numpy as np
    import scipy.sparse
    import scipy.sparse.linalg
    n = q.shape[0]
    a = scipy.sparse.lil_matrix(q.T.tocsr())
    a[n - 1, :] = np.ones(n)
    b = np.zeros(n)
    b[n - 1] = 1.0
    return scipy.sparse.linalg.spsolve(a.tocsc(), b)


def rs_text(nproc, R, lam=3, mu=6, more=""):
    """PEPS's resource-sharing model: nproc processes P[N] share R
    resources; the result full is the probability that all are in use,
    then the result lines in more."""
    return f"""identifiers
  N = [0..{nproc - 1}]; R = {R}; lambda = {lam}; mu = {mu};
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
{more}"""


def rs_full(nproc, R, lam=3, mu=6):
    """rs_text's full in closed form: k in use has weight C(nproc, k)
    (lam/mu)^k, k = 0..R (product form, truncated)."""
    w = [math.comb(nproc, k) * (lam / mu) ** k for k in range(R + 1)]
    return w[R] / sum(w)


def tss_text(nsrc, k=100):
    """bench/bench.py's tss(nsrc): PEPS's tss.san with nsrc sources and
    a queue of k (capacity, states 0..k)."""
    last = "tss[%d]" % (nsrc - 1)
    return """identifiers
  N = [0..%d]; K = [0..%d]; k = %d;
  lambda = 3; delta = 4; delta2 = 8; alfa = 22; mu = 47;
  f = ((nb [tss[0]..%s] on) * alfa) + ((nb [tss[0]..%s] s_on) * alfa * 2);
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
  f_on = nb [tss[0]..%s] on;
  u_queue = st queue;
""" % (nsrc - 1, k, k, last, last, last)
