#!/usr/bin/env python3
"""kron_gmres.py - GMRES over the descriptor converges on simple chains
(issue 27 item 2; krylov.c, GROW_IF).

GMRES(30) with the Jacobi preconditioner (the descriptor's only one)
stalled across its restarts near a residual of 5e-3 on birth-death-like
chains and was refused after 510-630 iterations.  A named GMRES without
--restart now widens its basis when a cycle does not halve the residual.

1. M/M/1/300 (lambda 1, mu 1.01), --storage kron -m gmres at --tol 1e-10
   and 1e-12: every marginal within 1e-9 relative of the product form
   pi_k = rho^k (1 - rho) / (1 - rho^301); GMRES's own vector right
   (the checks' LU correction below 1e-9: a stalled GMRES whose vector
   the LU of this small chain mends reported an error of 0.22), in at
   most 1.5x the 301 steps full GMRES needs.
2. PRISM's tandem queue of capacity 40 (3,362 states), --storage kron
   -m gmres: the results and marginals within 1e-9 relative of the
   sparse storage's direct solve (UMFPACK), in at most 600 iterations;
   values below 1e-20 (the empty first queue: 2e-58, which methods give
   as anything from 2e-59 to 2e-54, far below the contract's absolute
   accuracy) within 1e-20.
3. --restart 30 keeps GMRES(30): it stops after 3 restarts without
   halving its residual (not after the 500-iteration window), its best
   vector going to the checks, which keep the verdict: right values
   (this small chain's LU mends them) or a refusal that says "stalled".
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, fail, tally  # noqa: E402

MM1 = """// M/M/1/300 (tests/cli/kron_gmres.py)
identifiers
  lambda = 1;
  mu = 1.01;
  K = [0..300];
events
  loc arrive (lambda)
  loc serve (mu)
reachability = 1;
network mm1 (continuous)
  aut queue
    stt s[K]
      to(++) arrive
      to(--) serve
results
  empty = (st queue) == s[0];
"""

TANDEM = """// PRISM's tandem queue, capacity 40 (tests/cli/kron_gmres.py)
identifiers
  c = 40;
  K = [0..40];
  lambda = 4 * c;
  mu1a = 0.2;
  mu1b = 1.8;
  mu2 = 2;
  kappa = 4;
events
  loc arr (lambda)
  loc phase (mu1a * (st SC > 0))
  syn route1 (mu1b)
  syn route2 (mu2)
  loc serve (kappa)
reachability = 1;
network tandem (continuous)
  aut SC
    stt q[K]
      to(++) arr
      to(--) route1
      to(--) route2
  aut PH
    stt p1
      to(p2) phase
      to(p1) route1
    stt p2
      to(p1) route2
  aut SM
    stt m[K]
      to(++) route1
      to(++) route2
      to(--) serve
results
  sc_empty = (st SC) == 0;
  sm_full = (st SM) == c;
  sc_mean = st SC;
"""


def solve(path, *args):
    p = subprocess.run([SAN, "solve", path, "-f", "json"] + list(args),
                       capture_output=True, text=True)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr


def close(a, b, rel=1e-9, floor=0.0):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + floor


def flat(x, pre, out):
    if isinstance(x, dict):
        for k, v in x.items():
            flat(v, pre + "/" + k, out)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        out[pre] = float(x)


with tempfile.TemporaryDirectory() as tmp:
    mm1 = os.path.join(tmp, "mm1_300.san")
    tandem = os.path.join(tmp, "tandem40.san")
    with open(mm1, "w") as f:
        f.write(MM1)
    with open(tandem, "w") as f:
        f.write(TANDEM)

    # 1. M/M/1/300 against its product form
    rho = 1 / 1.01
    ref = [rho ** k * (1 - rho) / (1 - rho ** 301) for k in range(301)]
    for tol in ("1e-10", "1e-12"):
        rc, d, err = solve(mm1, "--storage", "kron", "-m", "gmres", "--tol", tol)
        what = "M/M/1/300 kron gmres tol %s" % tol
        if rc != 0 or d is None:
            fail("%s: exit %d: %s" % (what, rc, err.strip()[-200:]))
            continue
        s = d["solver"]
        marg = d["marginals"]["queue"]
        bad = [k for k in range(301) if not close(marg["s[%d]" % k], ref[k])]
        if bad:
            k = bad[0]
            fail("%s: %d marginals off, s[%d] %.17g vs %.17g"
                 % (what, len(bad), k, marg["s[%d]" % k], ref[k]))
        if s["method"] != "gmres" or not s["converged"]:
            fail("%s: method %s converged %s" % (what, s["method"], s["converged"]))
        if s["iterations"] > 1.5 * 301:
            fail("%s: %d iterations (full GMRES needs 301)" % (what, s["iterations"]))
        lu = s.get("lu_correction")
        if lu is None or lu > 1e-9:
            fail("%s: GMRES's vector was off by %s before the LU check" % (what, lu))

    # 2. the tandem against the sparse direct solve
    rc, ref_d, err = solve(tandem, "--storage", "sparse", "-m", "direct", "--tol", "1e-12")
    if rc != 0 or ref_d is None:
        fail("tandem sparse direct: exit %d: %s" % (rc, err.strip()[-200:]))
    else:
        fr = {}
        for sec in ("results", "marginals"):
            flat(ref_d[sec], sec, fr)
        for tol in ("1e-10", "1e-12"):
            rc, d, err = solve(tandem, "--storage", "kron", "-m", "gmres", "--tol", tol)
            what = "tandem(40) kron gmres tol %s" % tol
            if rc != 0 or d is None:
                fail("%s: exit %d: %s" % (what, rc, err.strip()[-200:]))
                continue
            fk = {}
            for sec in ("results", "marginals"):
                flat(d[sec], sec, fk)
            bad = [k for k in fr if k not in fk or not close(fr[k], fk[k], floor=1e-20)]
            if bad:
                k = bad[0]
                fail("%s: %d values off, %s %r vs %.17g" % (what, len(bad), k,
                                                            fk.get(k), fr[k]))
            s = d["solver"]
            if s["method"] != "gmres" or not s["converged"] or s["iterations"] > 600:
                fail("%s: method %s converged %s, %d iterations"
                     % (what, s["method"], s["converged"], s["iterations"]))

    # 3. --restart 30: GMRES(30) stalls, and stops within a few restarts
    # (a run of the kernel: 4 cycles; the checks may run it twice more)
    rc, d, err = solve(tandem, "--storage", "kron", "-m", "gmres", "--restart", "30")
    it = d["solver"]["iterations"] if d else -1
    if not 0 < it <= 3 * 4 * 30:
        fail("tandem(40) GMRES(30): %d iterations" % it)
    if rc == 1 and "stalled" not in err or rc not in (0, 1):
        fail("tandem(40) GMRES(30): exit %d: %s" % (rc, err.strip()[-300:]))
    if rc == 0 and ref_d is not None:
        fk = {}
        for sec in ("results", "marginals"):
            flat(d[sec], sec, fk)
        if any(k not in fk or not close(fr[k], fk[k], floor=1e-20) for k in fr):
            fail("tandem(40) GMRES(30): values off")

tally.exit()
