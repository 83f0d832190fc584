#!/usr/bin/env python3
"""props.py - `san props`: CSL properties against references built here.

1. tests/prism/props_chain.prism (two closed classes, a transient part):
   its chain is written out here from PRISM's semantics, and every
   operator of the fragment is computed independently in pure Python
   (no uniformization): e^{Qt} by scaling and squaring of a Taylor
   series, integrals by the exponential of the generator augmented with
   the reward column, unbounded until, reachability rewards and the
   classes' reach probabilities by Gaussian elimination, the stationary
   vectors likewise.  1e-9 relative (1e-10 absolute for probabilities).
2. The QVBS models with their property files and published values
   (tests/prism/qvbs).
3. Bad properties: position and what was expected, exit 2; the
   findings of fuzz/fuzz_props.c (tests/regress/props) replayed.
"""
import json
import math
import os
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import TOP, fail, tally, run, gauss as solve  # noqa: E402

MODEL = os.path.join(TOP, "tests", "prism", "props_chain.prism")


# ---- the chain, by hand -------------------------------------------------
STATES = [(x, y) for y in range(3) for x in range(4)]
IDX = {s: i for i, s in enumerate(STATES)}
N = len(STATES)
INIT = IDX[(0, 0)]


def transitions(x, y):
    """(target, rate, is_go) of PRISM's commands."""
    t = []
    if y == 0:
        if x < 3:
            t.append(((x + 1, 0), 2.0, False))
        if x > 0:
            t.append(((x - 1, 0), 1.5, False))
        if x == 3:
            t.append(((x, 1), 0.5, True))
        if x == 0:
            t.append(((x, 2), 0.4, False))
    elif y == 1:
        if x > 0:
            t.append(((x - 1, 1), 1.0, False))
        if x < 3:
            t.append(((x + 1, 1), 0.7, False))
    else:
        if x < 3:
            t.append(((x + 1, 2), 1.0, False))
        if x > 0:
            t.append(((x - 1, 2), 3.0, False))
    return t


Q = [[0.0] * N for _ in range(N)]
for s in STATES:
    for t, r, _ in transitions(*s):
        Q[IDX[s]][IDX[t]] += r
        Q[IDX[s]][IDX[s]] -= r

FULL = [s[0] == 3 for s in STATES]
LOW = [s[0] <= 1 for s in STATES]
XR = [float(s[0]) for s in STATES]
COST_STATE = [s[0] if s[1] == 0 else 1 if s[1] == 2 else 0 for s in STATES]
COST = [COST_STATE[i] + sum(5 * r for _, r, g in transitions(*s) if g)
        for i, s in enumerate(STATES)]


def matmul(A, B):
    n, m, p = len(A), len(B), len(B[0])
    return [[sum(A[i][k] * B[k][j] for k in range(m)) for j in range(p)] for i in range(n)]


def expm(A, t):
    """e^{A t}: scaling and squaring, Taylor to 30 terms."""
    n = len(A)
    norm = max(sum(abs(v) for v in row) for row in A) * t
    sq = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    h = t / 2 ** sq
    E = [[float(i == j) for j in range(n)] for i in range(n)]
    term = [row[:] for row in E]
    for k in range(1, 30):
        term = matmul(term, [[v * h / k for v in row] for row in A])
        E = [[E[i][j] + term[i][j] for j in range(n)] for i in range(n)]
    for _ in range(sq):
        E = matmul(E, E)
    return E


def absorbing(mask):
    return [[0.0] * N if mask[i] else Q[i][:] for i in range(N)]


def transient(G, x, t):
    E = expm(G, t)
    return [sum(x[i] * E[i][j] for i in range(N)) for j in range(N)]


def until_vec(a, b):
    """P(a U b) per state: states that reach b through a."""
    can = [b[i] for i in range(N)]
    changed = True
    while changed:
        changed = False
        for i in range(N):
            if not can[i] and a[i] and any(Q[i][j] > 0 and can[j] for j in range(N) if j != i):
                can[i] = changed = True
    U = [i for i in range(N) if can[i] and not b[i]]
    A = [[-Q[i][j] for j in U] for i in U]
    rhs = [sum(Q[i][j] for j in range(N) if b[j]) for i in U]
    y = solve(A, rhs) if U else []
    v = [1.0 if b[i] else 0.0 for i in range(N)]
    for k, i in enumerate(U):
        v[i] = y[k]
    return v


def e0():
    x = [0.0] * N
    x[INIT] = 1.0
    return x


def steady(val):
    """Classes by hand: y = 1 and y = 2; reach probabilities from the
    expected times in the transient states (y = 0)."""
    T = [i for i in range(N) if STATES[i][1] == 0]
    A = [[-Q[j][i] for j in T] for i in T]      # z (-Q_TT) = alpha: transposed
    z = solve(A, [1.0 if i == INIT else 0.0 for i in T])
    total = 0.0
    for cy in (1, 2):
        C = [i for i in range(N) if STATES[i][1] == cy]
        p = sum(z[k] * Q[i][j] for k, i in enumerate(T) for j in C)
        # pi Q_CC = 0, sum 1: replace the last equation
        M = [[Q[j][i] for j in C] for i in C]
        M[-1] = [1.0] * len(C)
        pi = solve(M, [0.0] * (len(C) - 1) + [1.0])
        total += p * sum(pi[k] * val[i] for k, i in enumerate(C))
    return total


def cumulative(r, t):
    """int_0^t e0 e^{Qs} r ds by the augmented generator [[Q, r], [0, 0]]."""
    A = [Q[i][:] + [r[i]] for i in range(N)] + [[0.0] * (N + 1)]
    E = expm(A, t)
    return E[INIT][N]


def reach_reward(b, r):
    U = [i for i in range(N) if not b[i]]
    A = [[-Q[i][j] for j in U] for i in U]
    y = solve(A, [r[i] for i in U])
    v = [0.0] * N
    for k, i in enumerate(U):
        v[i] = y[k]
    return v[INIT]


T1, T2 = 1.5, 4.0
NOT_FULL = [not f for f in FULL]
TRUE = [True] * N
refs = []
refs.append(('S=? [ "full" ]', steady([1.0 if f else 0.0 for f in FULL])))
refs.append(('S=? [ x>=2 & !(y=1) ]',
             steady([1.0 if s[0] >= 2 and s[1] != 1 else 0.0 for s in STATES])))
x = transient(absorbing(FULL), e0(), T1)
refs.append(('P=? [ F<=1.5 "full" ]', sum(x[i] for i in range(N) if FULL[i])))
x = transient(Q, e0(), T1)
x = transient(absorbing(FULL), x, T2 - T1)
refs.append(('P=? [ F[1.5,4] "full" ]', sum(x[i] for i in range(N) if FULL[i])))
refs.append(('P=? [ F "full" ]', until_vec(TRUE, FULL)[INIT]))
Y1 = [s[1] == 1 for s in STATES]
refs.append(('P=? [ F y=1 ]', until_vec(TRUE, Y1)[INIT]))
Y0 = [s[1] == 0 for s in STATES]
refs.append(('P=? [ y=0 U "full" ]', until_vec(Y0, FULL)[INIT]))
refs.append(('P=? [ "low" U "full" ]', until_vec(LOW, FULL)[INIT]))
mask = [FULL[i] or (not Y0[i] and not FULL[i]) for i in range(N)]
x = transient(absorbing(mask), e0(), T2)
refs.append(('P=? [ y=0 U<=4 "full" ]', sum(x[i] for i in range(N) if FULL[i])))
# U[t1,t2]: !(y=0) absorbing and dropped to t1, then the bounded until
x = transient(absorbing([not v for v in Y0]), e0(), T1)
x = [x[i] if Y0[i] else 0.0 for i in range(N)]
x = transient(absorbing(mask), x, T2 - T1)
refs.append(('P=? [ y=0 U[1.5,4] "full" ]', sum(x[i] for i in range(N) if FULL[i])))
# U>=t1: the same first phase, then the unbounded until
x = transient(absorbing([not v for v in Y0]), e0(), T1)
v = until_vec(Y0, FULL)
refs.append(('P=? [ y=0 U>=1.5 "full" ]', sum(x[i] * v[i] for i in range(N) if Y0[i])))
refs.append(('P=? [ G y=0 ]', 0.0))
refs.append(('P=? [ G<=4 x<3 ]',
             1 - sum(transient(absorbing(FULL), e0(), T2)[i] for i in range(N) if FULL[i])))
refs.append(('P=? [ G<=1.5 !"full" ]',
             1 - sum(transient(absorbing(FULL), e0(), T1)[i] for i in range(N) if FULL[i])))
refs.append(('R{"cost"}=? [ S ]', steady(COST)))
refs.append(('R{"xr"}=? [ S ]', steady(XR)))
refs.append(('R{"cost"}=? [ C<=4 ]', cumulative(COST, T2)))
refs.append(('R{"xr"}=? [ I=1.5 ]', sum(a * b for a, b in zip(transient(Q, e0(), T1), XR))))
# I=t counts state rewards alone (PRISM): cost's [go] reward is left out
refs.append(('R{"cost"}=? [ I=1.5 ]',
             sum(a * b for a, b in zip(transient(Q, e0(), T1), COST_STATE))))
refs.append(('R{"xr"}=? [ F "full" ]', reach_reward(FULL, XR)))
refs.append(('R{"cost"}=? [ F "full" ]', reach_reward(FULL, COST)))
refs.append(('R{"xr"}=? [ F y=1 ]', math.inf))


def close(got, want):
    if math.isinf(want):
        return got == want
    return abs(got - want) <= 1e-9 * abs(want) + 1e-10


# ---- 1. every operator, in one run and one file --------------------------
props = "\n".join(p for p, _ in refs)
rc, out, err = run(["props", MODEL, "-f", "json"] + sum((["--property", p] for p, _ in refs), []))
if rc != 0:
    fail("props json: rc %d: %s" % (rc, err))
else:
    doc = json.loads(out)
    if doc["states"] != N:
        fail("states %s != %d" % (doc["states"], N))
    if doc["closed_classes"] != 2:
        fail("closed classes %s" % doc["closed_classes"])
    got = doc["properties"]
    for (p, want), g in zip(refs, got):
        v = g["value"]
        v = math.inf if v == "inf" else v
        if not close(v, want):
            fail("%s: %r, reference %r" % (p, v, want))
        else:
            print("ok   %-30s %.15g" % (p, v))

# the same from a file with names, const and comments, -D for T
pf = os.path.join(os.environ.get("TMPDIR", "/tmp"), "san_props_%d.csl" % os.getpid())
with open(pf, "w") as f:
    f.write('// properties\nconst double T;\nconst int K = 3;\n'
            '"a": P=? [ F<=T x=K ]; "b": R{"cost"}=? [ C<=T ]\n'
            'S=? [ "full" ]  /* the same as above */\n')
rc, out, err = run(["props", MODEL, pf, "-D", "T=4", "-f", "csv"])
os.unlink(pf)
if rc != 0:
    fail("props file: rc %d: %s" % (rc, err))
else:
    rows = [l for l in out.splitlines() if not l.startswith("#")][1:]
    want = [sum(transient(absorbing(FULL), e0(), T2)[i] for i in range(N) if FULL[i]),
            cumulative(COST, T2), refs[0][1]]
    import csv
    rr = list(csv.reader(rows))
    for r, w in zip(rr, want):
        if not close(float(r[2]), w):
            fail("file property %s: %s, reference %r" % (r[1], r[2], w))
    if [r[0] for r in rr] != ["a", "b", ""]:
        fail("names %r" % [r[0] for r in rr])

# labels declared in a property file (PRISM's `label "name" = phi;`): they
# may name the model's labels and the labels before them, and shadow a
# model label of the same name for the properties after them
pf = os.path.join(os.environ.get("TMPDIR", "/tmp"), "san_props_lab_%d.props" % os.getpid())
with open(pf, "w") as f:
    f.write('label "top" = x = 3 & !"low";\nlabel "half" = x >= 2 & !(y=1);\n'
            'const double T = 1.5;\nP=? [ F<=T "top" ]\nS=? [ "half" ]\n'
            'label "full" = x = 0;\nS=? [ "full" ]\nP=? [ "half" | y=0 U "full" ]\n')
rc, out, err = run(["props", MODEL, pf, "-f", "json"])
X0 = [s[0] == 0 for s in STATES]
HALF = [s[0] >= 2 and s[1] != 1 for s in STATES]
lab_refs = [refs[2][1], refs[1][1], steady([1.0 if v else 0.0 for v in X0]),
            until_vec([HALF[i] or Y0[i] for i in range(N)], X0)[INIT]]
if rc != 0:
    fail("labels in a property file: rc %d: %s" % (rc, err))
else:
    vals = [p["value"] for p in json.loads(out)["properties"]]
    if len(vals) != 4 or not all(close(v, w) for v, w in zip(vals, lab_refs)):
        fail("labels in a property file: %r, references %r" % (vals, lab_refs))
    else:
        print("ok   labels declared in the property file")
for text, want in (('label "init" = x=1;\nS=? [ "init" ]\n', ":1:7: error: label \"init\" is built in"),
                   ('label "a" = x=1;\nlabel "a" = x=2;\n', ":2:7: error: label \"a\" is declared twice (first at line 1)"),
                   ('label a = x=1;\n', ":1:7: error: expected the label's name in double quotes"),
                   ('label "a" x=1;\n', ":1:11: error: expected '=' after the label's name")):
    with open(pf, "w") as f:
        f.write(text)
    rc, out, err = run(["props", MODEL, pf])
    if rc != 2 or want not in err:
        fail("bad label %r: rc %d, stderr %r (want %s)" % (text, rc, err, want))
    else:
        print("ok   refused %r" % text)
os.unlink(pf)

# ---- 1c. state-dependent transition rewards ------------------------------
# [a] x >= 1 : 1.5 x on a birth-death chain (up 2, down 3, 0..3): the
# reward rate is sum_s pi(s) (2 [x<3] 1.5 x [x>=1] + 3 [x>0] 2); pi is
# (27, 18, 12, 8) / 65, so R[S] = 354/65 exactly; C<=1.5 by the
# augmented generator from x = 0.
TR = os.path.join(os.environ.get("TMPDIR", "/tmp"), "san_props_tr_%d.prism" % os.getpid())
with open(TR, "w") as f:
    f.write('ctmc\nmodule M\n  x : [0..3] init 0;\n  [a] x < 3 -> 2 : (x\'=x+1);\n'
            '  [b] x > 0 -> 3 : (x\'=x-1);\nendmodule\n'
            'rewards "w"\n  [a] x >= 1 : x * 1.5;\n  [b] true : 2;\nendrewards\n')
rate_r = [(2 * 1.5 * x if 1 <= x < 3 else 0.0) + (6.0 if x > 0 else 0.0) for x in range(4)]
Qb = [[0.0] * 5 for _ in range(5)]
for x in range(4):
    if x < 3:
        Qb[x][x + 1] += 2.0
        Qb[x][x] -= 2.0
    if x > 0:
        Qb[x][x - 1] += 3.0
        Qb[x][x] -= 3.0
    Qb[x][4] = rate_r[x]
tr_refs = [('R{"w"}=? [ S ]', 354.0 / 65), ('R{"w"}=? [ C<=1.5 ]', expm(Qb, 1.5)[0][4])]
rc, out, err = run(["props", TR, "-f", "json"] + sum((["--property", p] for p, _ in tr_refs), []))
os.unlink(TR)
if rc != 0:
    fail("transition rewards of the state: rc %d: %s" % (rc, err))
else:
    for (p, want), g in zip(tr_refs, json.loads(out)["properties"]):
        if not close(g["value"], want):
            fail("transition rewards %s: %r, reference %r" % (p, g["value"], want))
        else:
            print("ok   state-dependent transition reward %-20s %.15g" % (p, g["value"]))

# ---- 1b. a .san model: labels are its results, variables its automata ----
# models/mm1k.san (K=10, lambda=2, mu=3), full reachability: every state
# is initial, the distribution uniform over the 11 states.
MM1K = os.path.join(TOP, "models", "mm1k.san")
K = 11
Qm = [[0.0] * K for _ in range(K)]
for i in range(K):
    if i + 1 < K:
        Qm[i][i + 1] += 2.0
        Qm[i][i] -= 2.0
    if i > 0:
        Qm[i][i - 1] += 3.0
        Qm[i][i] -= 3.0
rho = 2.0 / 3
pis = [rho ** i * (1 - rho) / (1 - rho ** K) for i in range(K)]
Qf = [[0.0] * K if i == K - 1 else Qm[i][:] for i in range(K)]
E = expm(Qf, 0.5)
pf = sum(E[i][K - 1] for i in range(K)) / K
san_refs = [
    ('S=? [ "full" ]', pis[K - 1]),
    ('S=? [ queue>=5 & !"full" ]', sum(pis[5:K - 1])),
    ('R{"length"}=? [ S ]', sum(i * p for i, p in enumerate(pis))),
    ('P=? [ F<=0.5 "full" ]', pf),
    ('P=? [ F "empty" ]', 1.0),
]
rc, out, err = run(["props", MM1K, "-f", "json"] +
                   sum((["--property", p] for p, _ in san_refs), []))
if rc != 0:
    fail("props mm1k: rc %d: %s" % (rc, err))
else:
    for (p, want), g in zip(san_refs, json.loads(out)["properties"]):
        if not close(g["value"], want):
            fail("mm1k %s: %r, reference %r" % (p, g["value"], want))
        else:
            print("ok   mm1k %-25s %.15g" % (p, g["value"]))

# ---- 2. QVBS: the published values ------------------------------------
# The property files of QVBS (github.com/ahartmanns/qcomp, commit
# c7324a3, benchmarks/ctmc/*/*.props), unchanged (tests/prism/qvbs/README),
# on the models at their small sizes.  Storm's exact engine
# (results/Storm.exact.*.json, the "approx" of the rational) to 1e-9
# relative; its default engine (results/Storm.*.json, printed to 10
# digits, precision 1e-6) to 2e-6 relative, 1e-9 absolute.
#   embedded: the reward structures "up", "danger", "down" share their
#     names with labels (R{"danger"} read the label: 3600x the value);
#   polling: "F<=T (s=1 & a=0)" (read as a function T).
QV = os.path.join(TOP, "tests", "prism", "qvbs")
E, D = 1e-9, 2e-6
qvbs = [
    ("cluster", "cluster", ["-D", "N=2", "-D", "T=2000", "-D", "t=20"], {
        "premium_steady": (0.9999615335623628, E),
        "below_min": (0.004659192406, D),
        "operational": (99.87643558, D),
        "qos1": (0.001158395575, D),
        "qos2": (2.201599927e-06, D),
        "qos3": (1.0, D),
        "qos4": (0.0, D),
        "repairs": (17.36977828, D)}),
    ("tandem", "tandem", ["-D", "c=15", "-D", "T=1000", "-D", "t=0.2"], {
        "customers": (15.798592927169762, E),
        "customers_T": (11.55612449, D),
        "first_queue": (0.2060312414, D),
        "network": (0.0006749333657, D),
        "second_queue": (1.0, D)}),
    ("embedded", "embedded", ["-D", "MAX_COUNT=2", "-D", "T=12"], {
        "actuators": (0.08767819037331588, E),
        "danger_time": (0.2931856862419295, E),
        "io": (0.24252058277362362, E),
        "main": (0.048417523169789894, E),
        "sensors": (0.6213837036832706, E),
        "up_time": (423.8443172811176, E),
        "actuators_T": (0.0008058411396, D),
        "danger_T": (0.008269622665, D),
        "down_T": (0.02802901538, D),
        "failure_T": (0.009035237302, D),
        "io_T": (0.006797071997, D),
        "main_T": (0.0013638819, D),
        "sensors_T": (0.0008058411396, D),
        "up_T": (11.96370136, D)}),
    ("polling.5", "polling", ["-D", "T=16"], {
        "s1": (0.14492709367584383, E),
        "s1_before_s2": (0.5357405856065404, E),
        "served": (2.107965214, D),
        "station1_polled": (1.0, D),
        "waiting": (1.916684509, D)}),
    ("mapk_cascade", "mapk_cascade", ["-D", "N=1", "-D", "T=30"], {
        "activated_time": (66.18981054789236, E),
        "activated_T": (0.04028929041, D),
        "reactions": (6.646271174, D)}),
    ("mapk_cascade", "mapk_cascade", ["-D", "N=2", "-D", "T=30"], {
        "activated_time": (57.53400419, D),
        "activated_T": (0.3855065538, D),
        "reactions": (22.04722709, D)}),
    ("kanban", "kanban", ["-D", "t=1"], {"throughput": (0.0925846346333826, E)}),
    ("fms", "fms", ["-D", "n=1"], {"productivity": (13.85312833622229, E)}),
    ("fms", "fms", ["-D", "n=2"], {"productivity": (29.154698799657936, E)}),
]
for name, props, defs, want in qvbs:
    what = "qvbs %s %s" % (name, " ".join(defs[1::2]))
    rc, out, err = run(["props", os.path.join(QV, name + ".prism"),
                        os.path.join(QV, props + ".props"), "-f", "json"] + defs)
    if rc != 0:
        fail("%s: rc %d: %s" % (what, rc, err))
        continue
    got = {p["name"]: p["value"] for p in json.loads(out)["properties"]}
    for k, (w, tol) in want.items():
        v = got.get(k)
        if v is None or abs(v - w) > tol * abs(w) + 1e-9:
            fail("%s %s: %r, published %r" % (what, k, v, w))
        else:
            print("ok   %s %-15s %.12g" % (what, k, v))

# ---- 3. bad properties ---------------------------------------------------
bad = [
    ('P>=0.5 [ F "full" ]', "--property:1:2:", "only the query P=?"),
    ('P=? [ F "fulll" ]', "--property:1:9:", "did you mean 'full'"),
    ('P=? [ F F "full" ]', "--property:1:9:", "outside the CTMC fragment"),
    ('S=? [ "full" ', "--property:1:14:", "expected ']'"),
    ('Pmax=? [ F "full" ]', "--property:1:1:", "nondeterministic"),
    ('filter(max, P=? [ F "full" ])', "--property:1:1:", "not supported"),
    ('P=? [ X "full" ]', "--property:1:7:", "outside the CTMC fragment"),
    ('P=? [ F<=T "full" ]', "--property:1:10:", "no constant"),
    ('R{"nope"}=? [ S ]', "--property:1:1:", "not a result"),
    ('P=? [ F zz=1 ]', "--property:1:9:", "not in the model"),
    ('P=? [ "low" "full" ]', "--property:1:13:", "expected 'U'"),
]
for p, pos, msg in bad:
    rc, out, err = run(["props", MODEL, "--property", p])
    if rc != 2 or pos not in err or msg not in err:
        fail("bad %r: rc %d, stderr %r (want %s ... %s)" % (p, rc, err, pos, msg))
    else:
        print("ok   refused %r" % p)

# every name checked before anything is computed: all the errors at once
pf = os.path.join(os.environ.get("TMPDIR", "/tmp"), "san_props_bad_%d.props" % os.getpid())
with open(pf, "w") as f:
    f.write('P=? [ F<=2 "full" ]\n"b": P=? [ F "nofull" ]\nR{"cst"}=? [ S ]\n')
rc, out, err = run(["props", MODEL, pf])
os.unlink(pf)
if rc != 2 or out or ":2:14: error: label 'nofull'" not in err or ":3:1: error: reward" not in err:
    fail("errors of a file: rc %d, out %r, err %r" % (rc, out, err))

# the fuzzer's findings (tests/regress/props): answered or refused, never
# a probability outside [0, 1]
REG = os.path.join(TOP, "tests", "regress", "props")
for f in sorted(os.listdir(REG)):
    if f.endswith(".txt"):
        continue
    rc, out, err = run(["props", MODEL, os.path.join(REG, f), "-D", "K=2", "-f", "json"])
    if rc not in (0, 2):
        fail("regress %s: rc %d: %s" % (f, rc, err))
    elif rc == 0:
        for p in json.loads(out)["properties"]:
            if p["kind"] == "probability" and not 0 <= p["value"] <= 1:
                fail("regress %s: %s = %r" % (f, p["property"], p["value"]))

print("%d failure(s)" % tally.failed)
sys.exit(1 if tally.failed else 0)
