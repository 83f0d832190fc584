#!/usr/bin/env python3
"""difftest.py - differential tester of `san solve` against a dense reference.

Random small SANs are generated in this script's own data structure.  Each
is written as .san text for san, and, independently, turned into its CTMC
(reachable states and off-diagonal rates) by this script's own reading of
the language (doc/san.5, ../shared/spec/san-language.md): san is never
asked to explore.  The stationary vector of that CTMC comes from
tests/dense_ref (GTH elimination in long double, entrywise accurate on
stiff chains).  Then every method on every storage is run through
`san solve --format json --vector FILE` and judged:

  exit 0   the numbers must be right:
             every state:      |p - ref| <= 1e-8 |ref| + 1e-13
             every marginal, throughput and result:
                               |x - ref| <= 1e-8 |ref| + 1e-13 * max(1, S)
           where S is the sum over the reachable states of |the state's
           term| (1 per state for a marginal, the event's rate where it is
           enabled for a throughput, |expr| for a result).  That is the
           state tolerance carried through the sum: a vector that passes
           the state test gives indices that pass theirs, so an index that
           fails with states that pass points at the index's computation.
           Anything else is WRONG.
  exit 1   'refused' when stderr tells the user what to do (the words
           "try" or "use", or "--method"), else 'bad-refusal'.
  exit 2, a signal, a crash, a time-out, unreadable output: 'error'.
  direct and gs over --storage kron are not offered by san: a non-zero
  exit with a message is 'unsupported' (not a failure).

The exit status is 1 when any run was WRONG, bad-refusal or error, 99 when
the tester itself could not run (no san, no reference program, a generator
failure), else 0.  Every failing run is listed with its model's seed and a
command that regenerates and reruns it; --verbose adds san's stderr (and,
with --keep, the san command line on the kept file).

Models: 1-4 automata of 2-6 states (sometimes the last written once as
replicas P[0..r-1], sometimes one a block of states qa[0..n-1] with to(++),
to(--), to(+2), to(=) and `from` lines), local and synchronizing events,
constant and functional routing probabilities, functional rates (st, nb,
comparisons, && || !, min, max, + - * /), events declared but never used,
`reachability = 1`, a function (sometimes closed by guarded rates, else
with reached states it rejects), or `partial reachability`.  A draw whose
chain san would not solve (several closed classes, one state, more than
--max-n states) is replaced by the next draw of the same generator.
Family sym: random symmetric SANs (controllers and replicas P[0..r-1]
read through counts only), solved with lumping on (san's default): the
run must say it lumped, and only the marginals, throughputs and results
are judged (its vector is over occupancy states), against the dense
solve of the chain as written.
Families: plain (rates 0.5..5), span4 and span6 (log-uniform over
1e-4..1e4, 1e-6..1e6), decades (10^{-4,-2,0,2,4}), ncd (nearly
completely decomposable: fast rates 1..10 inside blocks, epsilon
1e-8..1e-6 between them, through a slow automaton gating fast ones, slow
local events between groups of states, slow synchronizing events between
groups of two automata, or a routing probability epsilon).

Semantics this script implements (and so asserts about san):
  * global state = tuple of local states; product space in declaration
    order;
  * an event's participants are the automata that have it on some
    transition; it is enabled in s iff every participant has a transition
    for it leaving its current local state; an event on no transition
    never fires;
  * an enabled event with rate r(s) (evaluated in s) > 0 moves every
    participant at once, each to one of its outcomes from its local state,
    the joint outcome with rate r(s) * product of the outcomes' routing
    probabilities (evaluated in s); self-loops do nothing to the chain;
  * reachable set: the states the reachability expression accepts (all of
    them for `reachability = 1`), closed under the transitions (states
    reached but rejected by a non-partial function are kept, as san does);
    `partial reachability` is the same closure from the accepted states;
  * exactly one closed class; transient states get probability 0; without
    `partial`, closed classes nothing enters other than the unique
    largest closed class are "isolated pockets" and are dropped (san.1,
    STATE SPACE); models that would leave san several classes are not
    generated;
  * throughput of e = sum_s pi(s) * r_e(s) over the states where e is
    enabled (solver/report.c: the mean rate at which it fires, self-loops
    included; 0 for an event that can never fire).

Environment: SAN (the binary; default ../san next to this script),
DENSE_REF (the reference program; default $top_builddir/tests/dense_ref,
else tests/dense_ref next to SAN, else compiled from dense_ref.c with cc).

Examples:
  tests/difftest/difftest.py --count 40 --jobs 2 --keep /tmp/difftest_fail
  tests/difftest/difftest.py --families ncd --model-seed 123 --methods power --storages kron -v
  tests/difftest/difftest.py --regress /tmp/difftest_fail
"""

import argparse
import concurrent.futures
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from difftest_models import *          # noqa: E402,F403  the models and their answers
from difftest_models import GenReject, find_dense_ref, find_san, generate, model_seed  # noqa: E402

FAMILIES = ["plain", "span4", "span6", "decades", "ncd", "repl", "sym"]
# solved lumped (san's default): their vector is over occupancy states,
# so only the indices are judged, against the chain as written
LUMPED_FAMILIES = {"sym"}
METHODS = ["auto", "direct", "power", "jacobi", "gs", "gmres", "bicgstab", "iad", "ml"]
STORAGES = ["sparse", "kron"]
KRON_METHODS = {"auto", "power", "jacobi", "gmres", "bicgstab", "iad", "ml"}
# The distributed engine (a --with-petsc build): `mpirun -n 2 san solve
# --engine petsc`, assembled or matrix-free; its own KSP, so only the
# method auto is run (not asked for: the engine has no --method).
ENGINES = {"petsc2": [], "petsc2-shell": ["--petsc-matrix", "shell"]}
ALL_STORAGES = STORAGES + list(ENGINES)

REL_TOL = 1e-8          # relative tolerance on every number
ABS_TOL = 1e-13         # absolute floor, per state

VERDICTS = ["ok", "refused", "unsupported", "WRONG", "bad-refusal", "error"]
FAILURES = {"WRONG", "bad-refusal", "error"}


# ---------------------------------------------------------------------------
# Running san and judging
# ---------------------------------------------------------------------------

class Run:
    """One san solve: what it was, what it gave, the verdict."""

    def __init__(self, case, storage, method):
        self.case, self.storage, self.method = case, storage, method
        self.verdict, self.detail, self.stderr, self.rc = None, "", "", None
        self.ratio = 0.0                # worst error / tolerance (exit 0)


def san_command(san, path, storage, method, vec=None, lump=False):
    if storage in ENGINES:
        cmd = ["mpirun", "-n", "2", san, "solve", path, "--format", "json", "--engine", "petsc",
               "-q"] + ENGINES[storage]
    else:
        cmd = [san, "solve", path, "--format", "json", "--method", method, "--storage", storage,
               "-q"]
    # the reference is the chain as written: its states, not occupancy
    # counts; the lumped families solve the lumped chain and are judged
    # on the indices only (tests/cli/lump.sh: lumped against --lump off)
    if not lump:
        cmd += ["--lump", "off"]
    if vec:
        cmd += ["--vector", vec]
    return cmd


def run_san(san, run, path, workdir, timeout):
    lump = run.case.family in LUMPED_FAMILIES
    vec = None if lump else \
        os.path.join(workdir, "%s-%s-%s.csv" % (os.path.basename(path), run.storage, run.method))
    try:
        p = subprocess.run(san_command(san, path, run.storage, run.method, vec, lump),
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, "timeout after %g s" % timeout
    run.rc, run.stderr = p.returncode, p.stderr
    return p, vec, None


def read_vector(vec, auts):
    """{tuple of local state names: probability} from san's --vector."""
    with open(vec, newline="") as f:
        rows = list(csv.reader(f))
    if rows[0] != ["index"] + auts + ["probability"]:
        raise ValueError("vector header %r" % rows[0])
    out = {}
    for row in rows[1:]:
        key = tuple(row[1:-1])
        if key in out:
            raise ValueError("state %r twice in the vector" % (key,))
        out[key] = float(row[-1])
    return out


def tolerance(ref, scale):
    return REL_TOL * abs(ref) + ABS_TOL * max(1.0, scale)


def compare(ref, got_pi, js):
    """The worst offenders among the states and among the indices
    (marginals, throughputs, results): {kind: (error / tolerance, text)};
    a ratio <= 1 is right."""
    worst = {"states": (0.0, ""), "indices": (0.0, "")}

    def check(kind, what, value, refv, scale):
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            worst[kind] = max(worst[kind], (math.inf, "%s: san %r, ref %.6g" % (what, value, refv)))
            return
        err = abs(value - refv)
        ratio = err / tolerance(refv, scale)
        if ratio > worst[kind][0]:
            rel = err / abs(refv) if refv else math.inf
            worst[kind] = (ratio, "%s: san %.10g ref %.10g (abs err %.2g, rel err %.2g)"
                           % (what, value, refv, err, rel))

    want, have = set(ref.states), set(got_pi) if got_pi is not None else set(ref.states)
    if got_pi is None:                  # lumped: occupancy states, not judged
        if "lumped" not in js:
            worst["states"] = (math.inf, "not lumped: the family's replicas are symmetric")
    elif want != have:
        extra, missing = sorted(have - want), sorted(want - have)
        worst["states"] = (math.inf, "state set differs: san %d states, ref %d; san only %s; "
                           "ref only %s" % (len(have), len(want), extra[:3], missing[:3]))
    else:
        for s, p in zip(ref.states, ref.pi):
            check("states", "state (%s)" % ",".join(s), got_pi[s], p, 1)
    for aut, qs in ref.marg.items():
        for q, (v, sc) in qs.items():
            check("indices", "marginal %s=%s" % (aut, q),
                  js.get("marginals", {}).get(aut, {}).get(q), v, sc)
    for e, (v, sc) in ref.thr.items():
        check("indices", "throughput %s" % e, js.get("throughputs", {}).get(e), v, sc)
    for name, (v, sc) in ref.res.items():
        check("indices", "result %s" % name, js.get("results", {}).get(name), v, sc)
    return worst


REFUSAL_HINT = re.compile(r"\btry\b|\buse\b|--method|without --engine petsc", re.I)


def judge(san, run, ref, path, workdir, timeout):
    p, vec, failure = run_san(san, run, path, workdir, timeout)
    if failure:
        run.verdict, run.detail = "error", failure
        return run
    unsupported = run.storage == "kron" and run.method not in KRON_METHODS
    if p.returncode < 0:
        run.verdict, run.detail = "error", "killed by signal %d" % -p.returncode
    elif p.returncode == 0:
        try:
            js = json.loads(p.stdout)
            got = read_vector(vec, ref.auts) if vec else None
            worst = compare(ref, got, js)
        except (ValueError, OSError, IndexError, AttributeError, TypeError) as ex:
            run.verdict, run.detail = "error", "exit 0 but unreadable output: %s" % ex
            return run
        run.ratio = max(r for r, _ in worst.values())
        run.verdict = "ok" if run.ratio <= 1 else "WRONG"
        # the worst state, and the worst index when the states are right
        # or the index is wrong too (an index bug shows as indices only)
        run.detail = "; ".join("%s [%.3g x tolerance]" % (text, r)
                               for r, text in worst.values() if r > 1)
        if unsupported and run.verdict == "ok":
            run.detail = "kron accepted %s (and was right)" % run.method
    elif unsupported and p.returncode in (1, 2) and p.stderr.strip():
        run.verdict, run.detail = "unsupported", last_line(p.stderr)
    elif p.returncode == 1:
        run.verdict = "refused" if REFUSAL_HINT.search(p.stderr) else "bad-refusal"
        run.detail = last_line(p.stderr)
    else:
        run.verdict, run.detail = "error", "exit %d: %s" % (p.returncode, last_line(p.stderr))
    if vec and os.path.exists(vec):
        os.remove(vec)
    return run


def last_line(text):
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1] if lines else "(no message)"


# ---------------------------------------------------------------------------
# Cases, the report
# ---------------------------------------------------------------------------

class Case:
    """One model: where its file is, its reference, how to get it again."""

    def __init__(self, family, k, mseed, path, ref, rerun):
        self.family, self.k, self.mseed, self.path = family, k, mseed, path
        self.ref, self.rerun = ref, rerun
        self.runs = []


def keep_case(case, keep):
    """Copy a failing model, its reference and its failures to keep/."""
    os.makedirs(keep, exist_ok=True)
    base = os.path.join(keep, "%s-%d" % (case.family, case.mseed))
    if os.path.abspath(case.path) != os.path.abspath(base + ".san"):
        shutil.copyfile(case.path, base + ".san")
    with open(base + ".ref.json", "w") as f:
        f.write(case.ref.to_json())
    with open(base + ".txt", "w") as f:
        f.write("rerun: %s\n" % case.rerun)
        for run in case.runs:
            if run.verdict in FAILURES:
                f.write("\n%s %s/%s: %s\n  san solve %s --storage %s --method %s\n"
                        % (run.verdict, run.storage, run.method, run.detail, base + ".san",
                           run.storage, run.method))
                if run.stderr.strip():
                    f.write("  stderr: " + run.stderr.strip().replace("\n", "\n          ") + "\n")
    return base + ".san"


def print_table(cases, families, storages, methods, out):
    """Counts per family x storage x method, and the worst error of the
    WRONG runs as a multiple of the tolerance."""
    counts, worst = {}, {}
    for c in cases:
        for run in c.runs:
            key = (c.family, run.storage, run.method)
            counts.setdefault(key, dict.fromkeys(VERDICTS, 0))[run.verdict] += 1
            if run.verdict == "WRONG":
                worst[key] = max(worst.get(key, 0), run.ratio)
    w = max([len(f) for f in families] + [6])
    head = "%-*s %-6s %-8s" % (w, "family", "store", "method") + \
        "".join("%12s" % v for v in VERDICTS) + "  worst WRONG"
    print(head, file=out)
    print("-" * len(head), file=out)
    total = dict.fromkeys(VERDICTS, 0)
    for f in families:
        for st in storages:
            for me in methods:
                row = counts.get((f, st, me))
                if not row:
                    continue
                for v in VERDICTS:
                    total[v] += row[v]
                bad = worst.get((f, st, me))
                print("%-*s %-6s %-8s" % (w, f, st, me) +
                      "".join("%12s" % (row[v] or ".") for v in VERDICTS) +
                      ("  %.2g x tol" % bad if bad else ""), file=out)
    print("-" * len(head), file=out)
    print("%-*s %-6s %-8s" % (w, "total", "", "") + "".join("%12d" % total[v] for v in VERDICTS),
          file=out)
    return total


def print_failures(cases, keep, verbose, san, out):
    for c in cases:
        bad = [run for run in c.runs if run.verdict in FAILURES]
        if not bad:
            continue
        where = keep_case(c, keep) if keep else c.path
        print("\n%s #%d, model seed %d: %d failing run(s)%s" %
              (c.family, c.k, c.mseed, len(bad), ", kept as %s" % where if keep else ""),
              file=out)
        print("  rerun: %s" % c.rerun, file=out)
        for run in bad:
            print("  %-11s %s/%s: %s" % (run.verdict, run.storage, run.method, run.detail),
                  file=out)
            if verbose and keep:
                print("      %s" % " ".join(san_command(san, where, run.storage, run.method,
                                                     lump=c.family in LUMPED_FAMILIES)),
                      file=out)
                if run.stderr.strip():
                    for line in run.stderr.strip().splitlines()[-6:]:
                        print("      | " + line, file=out)


def script_path():
    rel = os.path.relpath(os.path.abspath(__file__))
    return rel if not rel.startswith("..") else os.path.abspath(__file__)


def rerun_line(args, family, mseed):
    cmd = "%s --families %s --model-seed %d" % (script_path(), family, mseed)
    if args.max_n != 600:
        cmd += " --max-n %d" % args.max_n
    return cmd + " -v"


def build_cases(args, dense_ref, workdir):
    cases = []
    for family in args.families:
        seeds = [args.model_seed] if args.model_seed is not None else \
            [model_seed(args.seed, family, k) for k in range(args.count)]
        for k, ms in enumerate(seeds):
            m, ref = generate(family, ms, dense_ref, args.max_n)
            path = os.path.join(workdir, "%s-%d.san" % (family, ms))
            with open(path, "w") as f:
                f.write(m.san_text())
            cases.append(Case(family, k, ms, path, ref, rerun_line(args, family, ms)))
    return cases


def regress_cases(directory):
    cases = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".san"):
            continue
        path = os.path.join(directory, name)
        refp = path[:-4] + ".ref.json"
        if not os.path.exists(refp):
            continue
        with open(refp) as f:
            ref = Reference.from_json(f.read())
        family = name.rsplit("-", 1)[0]
        mseed = int(re.sub(r"\D", "", name.rsplit("-", 1)[-1]) or 0)
        cases.append(Case(family, len(cases), mseed, path, ref,
                          "%s --regress %s" % (script_path(), directory)))
    return cases


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=4, help="models per family (4)")
    ap.add_argument("--seed", default="1", help="master seed (1): same seed, same models")
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help="comma-separated, from %s" % ",".join(FAMILIES))
    ap.add_argument("--methods", default=",".join(METHODS),
                    help="comma-separated san methods (%s)" % ",".join(METHODS))
    ap.add_argument("--storages", default=",".join(STORAGES),
                    help="sparse,kron (petsc2, petsc2-shell: a --with-petsc build, mpirun -n 2)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="san runs in parallel (2)")
    ap.add_argument("--keep", metavar="DIR", help="keep failing models (.san, .ref.json, .txt)")
    ap.add_argument("--max-n", type=int, default=600, help="largest reachable set (600)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per san run (60)")
    ap.add_argument("--model-seed", type=int, help="just the model of this seed (see rerun lines)")
    ap.add_argument("--regress", metavar="DIR", help="judge DIR/*.san against DIR/*.ref.json")
    ap.add_argument("--verbose", "-v", action="store_true")
    a = ap.parse_args(argv)
    a.families = a.families.split(",")
    a.methods = a.methods.split(",")
    a.storages = a.storages.split(",")
    # methods are not checked: a method san learns later can be named
    for what, given, known in (("family", a.families, FAMILIES),
                               ("storage", a.storages, ALL_STORAGES)):
        for x in given:
            if x not in known:
                ap.error("unknown %s '%s' (%s)" % (what, x, ", ".join(known)))
    return a


HARD_ERROR = 99     # automake's "the test itself broke"


def main(argv):
    args = parse_args(argv)
    san = find_san()
    if not os.access(san, os.X_OK):
        print("difftest: no san binary at %s (set SAN)" % san, file=sys.stderr)
        return HARD_ERROR
    with tempfile.TemporaryDirectory(prefix="difftest.") as workdir:
        try:
            dense_ref = find_dense_ref(workdir)
            if args.regress:
                cases = regress_cases(args.regress)
                args.families = sorted({c.family for c in cases}, key=lambda f: (
                    FAMILIES.index(f) if f in FAMILIES else len(FAMILIES), f))
            else:
                cases = build_cases(args, dense_ref, workdir)
        except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as ex:
            # the tester's own failure (no compiler, a generator that
            # cannot draw a usable model): not a verdict on san
            print("difftest: %s" % ex, file=sys.stderr)
            return HARD_ERROR
        print("difftest: %s, %d models, %s; san %s; reference %s" %
              ("regress %s" % args.regress if args.regress else "seed %s" % args.seed,
               len(cases), ", ".join(args.families), san, dense_ref))
        sizes = [len(c.ref.states) for c in cases]
        if sizes:
            print("reachable states: min %d, median %d, max %d" %
                  (min(sizes), sorted(sizes)[len(sizes) // 2], max(sizes)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = []
            for c in cases:
                for st in args.storages:
                    for me in args.methods:
                        if st in ENGINES and me != "auto":
                            continue
                        run = Run(c, st, me)
                        c.runs.append(run)
                        futures.append(pool.submit(judge, san, run, c.ref, c.path, workdir,
                                                   args.timeout))
            for fu in futures:
                fu.result()
        total = print_table(cases, args.families, args.storages, args.methods, sys.stdout)
        print_failures(cases, args.keep, args.verbose, san, sys.stdout)
        bad = sum(total[v] for v in FAILURES)
        print("\ndifftest: %d runs, %d failing (WRONG %d, bad-refusal %d, error %d)" %
              (sum(total.values()), bad, total["WRONG"], total["bad-refusal"], total["error"]))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
