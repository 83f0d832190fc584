#!/usr/bin/env python3
"""Round trips of `san export` through other tools' readers.

  mtx     read by scipy.io.mmread, solved there (sparse LU), compared with
          `san solve --vector` to 1e-10;
  prism   .tra/.sta/.lab/.srew and the map read by the small readers
          below (written from PRISM's manual, not from san's code): the
          chain equal to the mtx export's and solved as above; every
          name an identifier, none of PRISM's keywords (its manual's
          list, written here), no two alike (models where names collide
          once made identifiers: P[1] and P_1, A_b:c and A:b_c, the class
          M[1,3..5] and M_1_3_5, automata and results named const,
          module, true, init, label); the labels agree with the states
          through the map; "init" on the model's initial states (read
          by hand off each reachability function; every state under full
          reachability); each reward's expectation under san's --vector
          equal to san's result or throughput to 1e-9 relative;
  states  the numbering every format shares;
  dot     validated by Graphviz's `dot` when it is installed;
all of them on the chain as written (--lump off) and, for models with
interchangeable replicas, on the lumped chain (the default, issue 28):
the same round trips against `san solve --vector` (occupancy states),
and the exported lumped generator solved densely here (numpy), its
occupancy states turned back into each replica's marginal (E[k_s] / n)
and the results that count replicas, compared with `san solve --lump
off` (the chain as written) to 1e-10; the files' comments and stderr
say what was lumped; and the usage errors.  Exits 77 (skipped) without
numpy and scipy.

Environment: SAN (the binary), top_srcdir.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import TOP, check, tally, run, sparse_stationary as stationary  # noqa: E402

try:
    import numpy as np
    import scipy.io
    import scipy.sparse
    import scipy.sparse.linalg
except ImportError:
    print("skip: numpy and scipy are needed (apt-get install python3-scipy)")
    sys.exit(77)

MODELS = os.path.join(TOP, "models")
TOL = 1e-10



# (name, arguments naming the model): every bundled model, and generated
# ones with synchronizing events and functional probabilities
CASES = [(os.path.basename(f), ["--lump", "off", os.path.join(MODELS, f)])
         for f in sorted(os.listdir(MODELS)) if f.endswith(".san")]
CASES += [("ms async", ["--lump", "off", "--gen", "ms --mode async --slaves 2 --buffer 3"]),
          ("ms sync", ["--lump", "off", "--gen", "ms --mode sync --slaves 3"]),
          ("mm1k -D", ["--lump", "off", "-D", "lambda=5", os.path.join(MODELS, "mm1k.san")])]


def machines(n, hand=False, extra_res=""):
    """Machine repair M/M/2//n (tests/cli/lump_test.py's): the machines
    written as M[i:D], or one by one M1 .. Mn (hand)."""
    if hand:
        ids = [f"  nd = nb [M1..M{n}] down;"]
        ev = [x for i in range(1, n + 1) for x in (f"  loc f{i} (0.3)", f"  loc r{i} (rr)")]
        net = [x for i in range(1, n + 1)
               for x in (f"  aut M{i}", f"    stt up to(down) f{i}", f"    stt down to(up) r{i}")]
    else:
        ids = [f"  D = [1..{n}];", f"  nd = nb [M[1]..M[{n}]] down;"]
        ev = ["  loc fail (0.3)", "  loc rep (rr)"]
        net = ["  aut M[i:D]", "    stt up to(down) fail", "    stt down to(up) rep"]
    ids.append("  rr = 1.1 * min(nd, 2) / max(nd, 1);")
    return ("identifiers\n" + "\n".join(ids) + "\nevents\n" + "\n".join(ev) +
            "\nreachability = 1;\nnetwork mr (continuous)\n" + "\n".join(net) +
            "\nresults\n  down_mean = nd;\n" + extra_res + "\n")


def with_twin(text):
    """text with one more automaton, M_1_3_5, beside the machines."""
    text = text.replace("\nreachability", "\n  loc t1 (2)\n  loc t2 (3)\nreachability")
    return text.replace("\nresults", "\n  aut M_1_3_5\n    stt u to(v) t1\n"
                        "    stt v to(u) t2\nresults")


# (name, model arguments, the model's text or None, {result: the count it
# is the mean of, as (class column, local state)}): the lumped exports
LUMPED = [("ms sync lumped", ["--gen", "ms --mode sync --slaves 3"], None, {}),
          ("ms async lumped", ["--gen", "ms --mode async --slaves 3 --buffer 3"], None, {}),
          ("machines lumped", None, machines(4), {"down_mean": ("M[1..4]", "down")}),
          # M[2] read by a result: the class M[1,3..5] (a comma in a CSV name)
          ("machines M[2] apart", None, machines(5, extra_res="  m2 = st M[2] == down;"),
           {"m2": ("M[2]", "down")}),
          # and an automaton M_1_3_5: the PRISM identifier of the class too
          ("machines twin", None, with_twin(machines(5, extra_res="  m2 = st M[2] == down;")),
           {"m2": ("M[2]", "down")}),
          # written one by one: the class "M1, M2, M3"
          ("machines by hand", None, machines(3, hand=True), {"down_mean": ("M1, M2, M3", "down")})]


def san_vector(model_args, tmp):
    """san's distribution by mixed-radix index (solve --vector)."""
    path = os.path.join(tmp, "pi.csv")
    rc, _, err = run(["solve", "-q", "--method", "direct", "--tol", "1e-13",
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


# PRISM's reserved words, from its manual ("Modules and variables", the
# lists of PRISM 3 to 4.8), written here independently of san's list;
# "deadlock" is its built-in label.
PRISM_KEYWORDS = set("""A bool C ceil clock const ctmc deadlock double dtmc E endinit
    endinvariant endmodule endobservables endrewards endsystem F false filter floor formula
    func G global I init int invariant label max mdp min module nondeterministic P Pmax Pmin
    prob probabilistic R rate rewards Rmax Rmin S stochastic system true U W X""".split())
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
REL = 1e-9      # a reward's expectation against san's result


def read_map(path):
    """BASE.map.csv: {kind: [(index, san, state, prism)]}."""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            out.setdefault(r["kind"], []).append((int(r["index"]), r["san"], r["state"], r["prism"]))
    return out


def read_srew(path):
    """A state rewards file: (name, n, {state: reward})."""
    with open(path) as f:
        lines = f.read().splitlines()
    head = [l for l in lines if l.startswith("#")]
    body = [l.split() for l in lines if l and not l.startswith("#")]
    m = re.fullmatch(r'# Reward structure "([_A-Za-z0-9]*)"', head[0]) if head else None
    check(m is not None and head[1:2] == ["# State rewards"], f"{path}: header {head}")
    n, nz = map(int, body[0])
    check(len(body) - 1 == nz, f"{path}: {nz} rewards announced, {len(body) - 1} given")
    return (m.group(1) if m else None), n, {int(i): float(v) for i, v in body[1:]}


def check_names(name, nmap):
    """Every PRISM name an identifier, no keyword, no two alike."""
    given = [e[3] for kind in nmap.values() for e in kind]
    bad = [g for g in given if not IDENT.fullmatch(g) or g in PRISM_KEYWORDS]
    check(given and not bad, f"{name} map: not identifiers or keywords: {bad[:5]}")
    dup = sorted({g for g in given if given.count(g) > 1})
    check(not dup, f"{name} map: names given twice: {dup[:5]}")


def close(a, b):
    return abs(a - b) <= REL * abs(b) + 1e-300


def reward_reference(san_name, kind, solved, listed):
    """san's value of a result or throughput.  A lumped event (fail@M[*])
    stands for the same event of every member of its class: the sum of
    their throughputs, those of the replicas left out of the class
    (listed: the map's throughputs, fail@M[2]) aside.  An event of a
    class written by hand (f1* for f1, f2, f3) has no rule to name its
    members: "skip"."""
    table = solved["results"] if kind == "reward" else solved.get("throughputs", {})
    if san_name in table:
        return table[san_name]
    if kind == "throughput" and san_name.endswith("[*]"):
        stem = san_name[:-2]
        parts = [v for k, v in table.items()
                 if k.startswith(stem) and k.endswith("]") and k not in listed]
        return sum(parts) if parts else None
    if kind == "throughput" and san_name.endswith("*"):
        return "skip"
    return None


def check_rewards(name, base, nmap, rows, ref, model_args):
    """Each BASEk.srew: named as the map says, its expectation under san's
    steady state (solve --vector) equal to san's result or throughput."""
    rc, out, err = run(["solve", "-q", "-f", "json", "--method", "direct", "--tol", "1e-13"]
                       + model_args)
    check(rc == 0, f"{name}: san solve -f json: {err.strip()[:200]}")
    if rc != 0:
        return
    solved = json.loads(out)
    structures = sorted(nmap.get("reward", []) + nmap.get("throughput", []))
    nres = sum(1 for _ in solved["results"])
    check([k for k, *_ in structures] == list(range(1, len(structures) + 1)),
          f"{name} map: reward structures not numbered 1..n")
    check(not os.path.exists(f"{base}{len(structures) + 1}.srew"),
          f"{name}: a reward file beyond the map's")
    prob = {int(r["state"]): ref[int(r["index"])] for r in rows}
    listed = {e[1] for e in nmap.get("throughput", [])}
    bad = []
    compared = 0
    for k, san_name, _, prism in structures:
        kind = "reward" if (k, san_name, "", prism) in nmap.get("reward", []) else "throughput"
        rname, n, rew = read_srew(f"{base}{k}.srew")
        check(rname == prism and n == len(rows), f"{name} {base}{k}.srew: {rname}, {n} states")
        got = sum(prob[i] * v for i, v in rew.items())
        want = reward_reference(san_name, kind, solved, listed)
        if want == "skip":
            continue
        compared += 1
        if want is None or not close(got, want):
            bad.append(f"{kind} {san_name}: {got!r} vs san {want!r}")
    check(compared and not bad, f"{name} rewards ({compared} compared): {bad[:3]}")
    check(len(nmap.get("reward", [])) <= nres, f"{name}: more result rewards than results")


def check_prism(name, model_args, rows, ref, tmp, initial=None):
    """The PRISM files read back: the chain against the mtx export and
    san's solution, the names through the map, the initial states
    against initial(row) (None: every state), the rewards."""
    base = os.path.join(tmp, "m")
    for f in os.listdir(tmp):           # no file of an earlier case may pass
        if f.startswith("m") and f.endswith((".srew", ".map.csv", ".tra", ".sta", ".lab")):
            os.unlink(os.path.join(tmp, f))
    rc, _, err = run(["export", "-f", "prism", "-o", base] + model_args)
    check(rc == 0, f"{name} prism: {err.strip()[:200]}")
    if rc != 0:
        return
    q = read_tra(base + ".tra")
    compare(name, "prism", stationary(q), rows, ref)
    # the same chain as the Matrix Market export, rate for rate
    rc, _, err = run(["export", "-f", "mtx", "-o", base + ".mtx"] + model_args)
    if rc == 0:
        qm = scipy.sparse.csr_matrix(scipy.io.mmread(base + ".mtx"), dtype=float)
        off = qm - scipy.sparse.diags(qm.diagonal())
        diff = abs(off - (q - scipy.sparse.diags(q.diagonal()))).max() if q.shape[0] else 0
        check(qm.shape == q.shape and diff <= 1e-15 * max(1.0, abs(off).max()),
              f"{name} prism: .tra and mtx differ by {diff}")
    else:
        check(False, f"{name} mtx: {err.strip()[:200]}")
    nmap = read_map(base + ".map.csv")
    check_names(name, nmap)
    auts = [k for k in rows[0] if k not in ("state", "index")] if rows else []
    var = sorted(nmap.get("variable", []))
    check([v[1] for v in var] == auts and [v[0] for v in var] == list(range(len(auts))),
          f"{name} map: variables {var} for automata {auts}")
    names, sta = read_sta(base + ".sta")
    check(names == [v[3] for v in var], f"{name} sta variables {names}, map {var}")
    labels, true = read_lab(base + ".lab")
    check(labels.get(0) == "init" and labels.get(1) == "deadlock", f"{name} lab: {labels}")
    label_of = {(a, st): p for _, a, st, p in nmap.get("label", [])}
    check(all(labels.get(i) == p for i, _, _, p in nmap.get("label", [])),
          f"{name} lab: its label numbers are not the map's")
    for r in rows:
        want = {label_of.get((a, r[a])) for a in auts}
        got = true.get(int(r["state"]), set()) - {"init", "deadlock"}
        if want != got:
            check(False, f"{name} lab state {r['state']}: {sorted(got)} != {sorted(want, key=str)}")
            break
    # the initial states: the model's, not state 0
    want = {int(r["state"]) for r in rows if initial is None or initial(r)}
    got = {i for i, ls in true.items() if "init" in ls}
    check(want and got == want, f"{name} lab: init on {len(got)} states, the model's "
          f"{len(want)} (first {sorted(got)[:3]} vs {sorted(want)[:3]})")
    # the local state numbers of .sta name the same states as the CSV
    by_aut = {a: {} for a in auts}
    for r, t in zip(rows, sta):
        for a, v in zip(auts, t):
            by_aut[a].setdefault(v, set()).add(r[a])
    check(all(len(s) == 1 for d in by_aut.values() for s in d.values()),
          f"{name} sta: one local state number names two states")
    check_rewards(name, base, nmap, rows, ref, model_args)


def all_in(row, prefix, state):
    """Every automaton (or class of replicas) named prefix... in state:
    its local state, or an occupancy vector with all members there."""
    cols = [c for c in row if c.startswith(prefix)]
    def one(v):
        occ = occupancy(v)
        return v == state if occ is None else all(k == 0 for s, k in occ.items() if s != state)
    return cols and all(one(row[c]) for c in cols)


# The initial states of the models with partial reachability, read off
# their reachability functions by hand (the others: every state).
INITIAL = {
    "clients_server.san": lambda r: r["Server"] == "idle" and all_in(r, "Client", "t"),
    "rs_pool.san": lambda r: r["Pool"] == "n[0]" and all(r[p] != "using" for p in ("P1", "P2", "P3", "P4")),
    "ms async": lambda r: r["Master"] == "ITx" and r["Buffer"] == "b[0]" and all_in(r, "Slave", "I"),
    "ms sync": lambda r: r["Master"] == "ITx" and all_in(r, "Slave", "I"),
    "names": lambda r: r["const"] == "x" and r["module"] == "lo",
}
INITIAL["ms async lumped"] = INITIAL["ms async"]
INITIAL["ms sync lumped"] = INITIAL["ms sync"]

# Names that collide once made identifiers (replica P[1] and automaton
# P_1; label A_b:c and A:b_c), PRISM keywords as automata and results
# (const, module, true, init, label, rate), partial reachability.
NAMES_MODEL = """identifiers
  D = [1..2];
events
  loc a (1)
  loc b (2)
  loc c (1.5)
  loc d (0.5)
  loc e (3)
  loc f (1)
  syn s (0.7)
  loc g (1.2)
  loc k (0.9)
  loc m (1.1)
  loc h (0.8)
partial reachability = (st const == x) && (st module == lo);
network names (continuous)
  aut P[i:D]
    stt idle to(busy) a
    stt busy to(idle) b
  aut P_1
    stt u to(v) c
    stt v to(u) d
  aut A_b
    stt c to(z) e
    stt z to(c) f
  aut A
    stt b_c to(q) s
    stt q to(b_c) m
  aut const
    stt x to(y) s
    stt y to(x) k
  aut module
    stt lo to(hi) g
    stt hi to(lo) h
results
  true = st P_1 == v;
  init = st const == y;
  label = st module;
  rate = st A_b == z;
"""


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
        # a lumped chain's note: // comments before the graph
        note = [l for l in out.splitlines() if l.startswith("//")]
        check(bool(note) == ("lumped" in err), f"{name} {fmt}: comments {note} and stderr agree")
        body = "\n".join(l for l in out.splitlines() if not l.startswith("//"))
        check(body.startswith("digraph ") and body.rstrip().endswith("}"), f"{name} {fmt}: not a digraph")
        check(" ()" not in body, f"{name} {fmt}: an edge with no rate ({fmt})")
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
    check(rc == 0 and "prism" in out and "--max-nodes" in out and "--lump" in out, "export --help")
    rc, out, err = run(["export", "-f", "mtx", "--lump", "sometimes", mm1k])
    check(rc == 2 and "--lump" in err, f"export --lump sometimes: exit {rc}: {err.strip()}")
    rc, a, _ = run(["export", "-f", "mtx", "--gen", "ms --mode async --slaves 3 --buffer 4"])
    rc2, b, _ = run(["export", "-f", "mtx", "--gen", "ms --mode async --slaves 3 --buffer 4"])
    check(rc == rc2 == 0 and a == b, "two exports of one model differ")


DOT = shutil.which("dot")


# ---- the lumped chain --------------------------------------------------

def members(cls):
    """The automata a class's name lists: "M[1,3..5]" -> M[1], M[3], M[4],
    M[5]; "M1, M2" -> M1, M2; anything else: itself."""
    m = re.fullmatch(r"(.+)\[([0-9.,]+)\]", cls)
    if m and ".." in m.group(2) or m and "," in m.group(2):
        out = []
        for part in m.group(2).split(","):
            lo, _, hi = part.partition("..")
            out += [f"{m.group(1)}[{k}]" for k in range(int(lo), int(hi or lo) + 1)]
        return out
    return cls.split(", ") if ", " in cls else [cls]


def occupancy(value):
    """"(I:2 Pr:1 Tx:0)" -> {"I": 2, "Pr": 1, "Tx": 0}, or None."""
    if not (value.startswith("(") and value.endswith(")")):
        return None
    out = {}
    for item in value[1:-1].split():
        s, _, k = item.rpartition(":")
        out[s] = int(k)
    return out


def dense_stationary(q):
    """pi Q = 0, sum pi = 1, by numpy's dense solve (independent of the
    sparse LU above and of san)."""
    n = q.shape[0]
    a = q.toarray().T
    a[n - 1, :] = 1.0
    b = np.zeros(n)
    b[n - 1] = 1.0
    return np.linalg.solve(a, b)


def check_lumped(name, args, counts, tmp):
    """The lumped exports: every format's round trip, and the exported
    chain's answer against the chain as written."""
    rc, out, err = run(["solve", "-q", "-f", "json", "--lump", "off", "--method", "direct",
                        "--tol", "1e-13"] + args)
    check(rc == 0, f"{name}: san solve --lump off: {err.strip()[:200]}")
    if rc != 0:
        return
    off = json.loads(out)
    rc, out, err = run(["solve", "-q", "-f", "json", "--method", "direct", "--tol", "1e-13"] + args)
    lumped = json.loads(out)["lumped"]["classes"] if rc == 0 else None
    check(lumped is not None, f"{name}: san solve lumps ({err.strip()[:200]})")
    ref = san_vector(args, tmp)
    rc, csv_text, err = run(["export", "-f", "states"] + args)
    check(rc == 0 and f"lumped {lumped} into counts" in err,
          f"{name} states: stderr says what was lumped ({err.strip()[:200]})")
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    if ref is None or not rows:
        check(False, f"{name}: no vector or no states")
        return
    classes = [c for c in rows[0] if c not in ("state", "index") and occupancy(rows[0][c])]
    check(classes and all(occupancy(r[c]) is not None for r in rows for c in classes),
          f"{name} states: the class columns {classes} hold occupancy vectors")
    check(len(rows) < off["reachable_states"],
          f"{name}: {len(rows)} lumped states, fewer than {off['reachable_states']}")
    for c in classes:
        n = len(members(c))
        check(all(sum(occupancy(r[c]).values()) == n for r in rows),
              f"{name} states: the occupancy vectors of {c} sum to {n}")
    # the usual round trips, on the lumped chain and its --vector
    check_mtx(name, args, rows, ref, tmp)
    check_prism(name, args, rows, ref, tmp, INITIAL.get(name))
    check_dot(name, args, len(rows), tmp)
    # the exported generator solved here against the chain as written
    path = os.path.join(tmp, "lumped.mtx")
    rc, _, err = run(["export", "-f", "mtx", "-o", path] + args)
    with open(path) as f:
        text = f.read()
    head = text.splitlines()[:3]
    check(head[0].startswith("%%MatrixMarket") and head[1].startswith(f"% san export: lumped {lumped}")
          and head[2].startswith("% states are occupancy vectors"), f"{name} mtx: comments {head}")
    pi = dense_stationary(scipy.sparse.csr_matrix(scipy.io.mmread(path), dtype=float))
    got = {}
    for aut in off["marginals"]:
        col = aut if aut in rows[0] else next((c for c in classes if aut in members(c)), None)
        check(col is not None, f"{name}: {aut} is no column of the lumped states")
        if col is None:
            continue
        for s in off["marginals"][aut]:
            if col in classes:
                n = len(members(col))
                v = sum(pi[int(r["state"])] * occupancy(r[col])[s] for r in rows) / n
            else:
                v = sum(pi[int(r["state"])] for r in rows if r[col] == s)
            got[aut, s] = v
    bad = [f"{a}:{s} {v!r} vs {off['marginals'][a][s]!r}" for (a, s), v in got.items()
           if abs(v - off["marginals"][a][s]) > TOL]
    check(got and not bad, f"{name}: marginals of the exported lumped chain: {bad[:3]}")
    for res, (col, s) in counts.items():
        v = sum(pi[int(r["state"])] * (occupancy(r[col])[s] if col in classes else r[col] == s)
                for r in rows)
        check(abs(v - off["results"][res]) <= TOL,
              f"{name}: result {res} {v!r} vs {off['results'][res]!r}")
    # --lump off: the chain as written, no comment
    rc, out, err = run(["export", "-f", "mtx", "--lump", "off"] + args)
    n_off = int(out.splitlines()[1].split()[0]) if rc == 0 else -1
    check(n_off == off["reachable_states"] and "lumped" not in out + err,
          f"{name} --lump off: {n_off} states, {off['reachable_states']} as written")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, args, text, counts in LUMPED:
            if text is not None:
                path = os.path.join(tmp, name.replace(" ", "_") + ".san")
                with open(path, "w") as f:
                    f.write(text)
                args = [path]
            check_lumped(name, args, counts, tmp)
        names = os.path.join(tmp, "names.san")
        with open(names, "w") as f:
            f.write(NAMES_MODEL)
        for name, args in CASES + [("names", ["--lump", "off", names])]:
            ref = san_vector(args, tmp)
            rows = states(args)
            check(ref is not None, f"{name}: san solve")
            if ref is None:
                continue
            check(sorted(int(r["index"]) for r in rows) == [int(r["index"]) for r in rows],
                  f"{name} states: not in mixed-radix order")
            check_mtx(name, args, rows, ref, tmp)
            check_prism(name, args, rows, ref, tmp, INITIAL.get(name))
            check_dot(name, args, len(rows), tmp)
        usage_errors(tmp)
    if not DOT:
        print("note: graphviz's dot is not installed: the DOT files were not validated")
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
