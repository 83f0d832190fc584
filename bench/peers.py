#!/usr/bin/env python3
"""peers.py - san against the peer tools PEPS 2003 and GTAexpress, timed
side by side on the same models and the same tolerance.

    make bench-peers PEPS=path GTA=path [ARGS='--rounds 3 --timeout 600']
    python3 bench/peers.py --san ./san --peps PEPS --gta GTA [--rounds R]
        [--timeout S] [--tol T] [--only REGEX] [--tools LIST] [--rs 16,19,20,22]
        [--tss 8] [--json FILE]
    python3 bench/peers.py --from-json FILE      (the tables of a saved run)

The peers are built from source outside this tree (doc/bench-peers.md says
how).  Every model is written as the text the peers read unchanged (`san
print --dialect peps2003`, `san gen ... --dialect peps2003`), and that
same text is what san solves too, so all tools answer the same question.
The peers are driven through their menus as tests/peer/peer_check.py does
(its key sequences and its reading of their answers are imported from
there): tolerance T and at most 100,000 iterations for every tool.

Figures per model and tool, each the best of R rounds; the rounds are
interleaved (every tool once, then again) so that a load that comes and
goes on a shared machine does not fall on one tool only:

- wall: the whole process, model text in, answer out (parsing, state
  space, storage, solve, writing); PEPS 2003 and GTAexpress also compile
  their functions with the system C++ compiler on every run, which their
  wall includes, as a user of them pays it;
- cpu: user + system time of the process and of the children it waited
  for (san's threads add up here; the peers' compiler runs count), a
  figure a loaded machine disturbs less than the wall;
- solve: the solve step alone, as the tool reports it (san: times_s.solve_s;
  the peers: the "real time spent" printed after their iteration count);
- peak: the process's own peak resident memory (VmHWM of /proc/PID/status,
  sampled every 20 ms; for san, which starts no children, getrusage's
  maxrss of the child too, whichever is larger); the compilers the peers
  start are not counted;
- diff: the largest absolute difference between the model's results as
  this tool gives them and as san's default gives them (the peers print
  only the results, not the marginals);
- the summary's speedup is PEPS 2003's best method's wall (the smaller of
  GMRES and power among the runs that converged) over each san method's.

Models (the constants of ../shared/models/peps/*.san are domains, which -D
cannot set, so the domain bounds are rewritten in the text first; the
file's other constants are set with -D):

- rsN: rs.san with N processes and R = (N-1) // 2 resources (the file has
  R = 1 and the reachability `nb using <= 1`, rewritten `<= R` so that it
  follows R); rs20 is the 431,910-state model of issue 27;
- tssP: tss.san with P terminals instead of 11 and the queue of 101 (`k`),
  all product states reachable (3^P * 101);
- ms7/40: san gen ms --mode async --slaves 7 --buffer 40.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "peer"))
import peer_check  # noqa: E402  (the peers' menu keys and output reader)

SHARED = os.environ.get("SHARED_MODELS", os.path.join(TOP, "..", "shared", "models"))

# The solve step's report, the same in both peers: iteration count, then
# user, system and real time.
PEER_SOLVE = re.compile(r"Number of iterations:\s*(\d+)\s*\n\s*- user time spent:\s*(\S+) seconds"
                        r"\s*\n\s*- system time spent:\s*(\S+) seconds"
                        r"\s*\n\s*- real time spent:\s*(\S+) seconds")
PEER_STATES = re.compile(r"\((\d+) automata - (\d+)/(\d+) states\)")


def sub_once(text, pattern, repl, what):
    """Rewrite one construct of a shared model; a file that changed fails
    here rather than yield another model under the same name."""
    new, n = re.subn(pattern, repl, text)
    if n == 0:
        sys.exit("bench-peers: %s: '%s' not found (the shared model changed?)" % (what, pattern))
    return new


def rs_source(n):
    path = os.path.join(SHARED, "peps", "rs.san")
    text = open(path).read()
    text = sub_once(text, r"N\s*=\s*\[0\.\.10\]", "N = [0..%d]" % (n - 1), "rs.san")
    return sub_once(text, r"nb using <= 1\)", "nb using <= R)", "rs.san"), ["-D", "R=%d" % ((n - 1) // 2)]


def tss_source(p, k=100):
    path = os.path.join(SHARED, "peps", "tss.san")
    text = open(path).read()
    text = sub_once(text, r"N\s*=\s*\[0\.\.10\]", "N = [0..%d]" % (p - 1), "tss.san")
    text = sub_once(text, r"K\s*=\s*\[0\.\.100\]", "K = [0..%d]" % k, "tss.san")
    # f counts every terminal; the results count all but the last (as the
    # file does: tss[0]..tss[9] of 11)
    text = sub_once(text, r"tss\[10\]", "tss[%d]" % (p - 1), "tss.san")
    text = sub_once(text, r"tss\[9\]", "tss[%d]" % (p - 2), "tss.san")
    return text, ["-D", "k=%d" % k]


def peer_text(san, source, defines):
    p = subprocess.run([san, "print", "--dialect", "peps2003"] + defines + ["-"],
                       input=source.encode(), capture_output=True)
    if p.returncode != 0:
        sys.exit("bench-peers: san print failed: " + p.stderr.decode().strip())
    return p.stdout.decode()


def gen_text(san, line):
    p = subprocess.run([san, "gen"] + line.split() + ["--dialect", "peps2003"], capture_output=True)
    if p.returncode != 0:
        sys.exit("bench-peers: san gen failed: " + p.stderr.decode().strip())
    return p.stdout.decode()


def models(args):
    """(name, what, thunk returning the peer-written text)."""
    out = []
    for n in args.rs:
        out.append(("rs%d" % n, "rs.san, %d processes, R=%d" % (n, (n - 1) // 2),
                    lambda n=n: peer_text(args.san, *rs_source(n))))
    for p in args.tss:
        out.append(("tss%d" % p, "tss.san, %d terminals, queue 0..100" % p,
                    lambda p=p: peer_text(args.san, *tss_source(p))))
    out.append(("ms7/40", "gen ms --mode async --slaves 7 --buffer 40",
                lambda: gen_text(args.san, "ms --mode async --slaves 7 --buffer 40")))
    return [m for m in out if re.search(args.only, m[0])]


def vm_hwm_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_measured(argv, stdin_text, cwd, timeout):
    """Run argv with stdin_text; wall time from start to the child's exit
    (a thread waits on it while this one samples its peak memory)."""
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, \
            tempfile.TemporaryFile() as ferr:
        fin.write(stdin_text.encode())
        fin.seek(0)
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=fin, stdout=fout, stderr=ferr, cwd=cwd,
                             start_new_session=True)
        done = {}

        def waiter():
            _, status, ru = os.wait4(p.pid, 0)
            done["t"] = time.perf_counter()
            done["status"], done["ru"] = status, ru
        th = threading.Thread(target=waiter)
        th.start()
        peak, timed_out = 0, False
        while th.is_alive():
            peak = max(peak, vm_hwm_kib(p.pid))
            if time.perf_counter() - t0 > timeout:
                timed_out = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # the peer and the compiler it runs
                except ProcessLookupError:
                    pass
                th.join()
                break
            th.join(0.02)
        p.returncode = os.waitstatus_to_exitcode(done["status"])  # reaped by the thread
        fout.seek(0)
        ferr.seek(0)
        ru = done["ru"]
        return {"wall": done["t"] - t0, "cpu": ru.ru_utime + ru.ru_stime,
                "rc": p.returncode, "timeout": timed_out,
                "peak_kib": peak, "maxrss_kib": done["ru"].ru_maxrss,
                "out": fout.read().decode("latin-1"), "err": ferr.read().decode("latin-1")}


def run_san(args, extra, text):
    r = run_measured([args.san, "solve", "-f", "json", "--tol", args.tol] + extra + ["-"],
                     text, None, args.timeout)
    res = {"wall": r["wall"], "cpu": r["cpu"], "peak_kib": max(r["peak_kib"], r["maxrss_kib"])}
    if r["timeout"]:
        return dict(res, error="timeout")
    if r["rc"] != 0:
        last = r["err"].strip().splitlines()
        return dict(res, error="exit %d: %s" % (r["rc"], last[-1][:70] if last else ""))
    j = json.loads(r["out"])
    s = j["solver"]
    return dict(res, results=j["results"], states=j["reachable_states"],
                product=j["product_states"].get("approx"), solve=j["times_s"]["solve_s"],
                iterations=s.get("iterations"),
                method=s.get("method") + (" (auto)" if s.get("auto") else ""),
                storage=j.get("storage"), estimate=s.get("error_estimate"))


def run_peer(args, binary, keys, text):
    d = tempfile.mkdtemp(prefix="bench_peer_")
    try:
        with open(os.path.join(d, "m.san"), "w") as f:
            f.write(text)
        r = run_measured([binary], keys.format(n="m"), d, args.timeout)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    res = {"wall": r["wall"], "cpu": r["cpu"], "peak_kib": r["peak_kib"],
           "maxrss_kib": r["maxrss_kib"]}
    if r["timeout"]:
        return dict(res, error="timeout")
    got = peer_check.peer_answer(r["out"], r["rc"])
    if isinstance(got, str):
        return dict(res, error=got)
    solve = PEER_SOLVE.findall(r["out"])
    st = PEER_STATES.findall(r["out"])
    return dict(res, results=got, solve=float(solve[-1][3]) if solve else None,
                iterations=int(solve[-1][0]) if solve else None,
                states=int(st[-1][1]) if st else None)


def tools(args):
    """name -> function(text) -> measurement."""
    peps = peer_check.peps_keys(args.tol, args.iterations)
    gta = peer_check.gta_keys(args.tol, args.iterations)
    # menu numbers: PEPS 2003 1 power, 3 GMRES; GTAexpress 1 power, 3 GMRES
    all_tools = {
        "san": lambda t: run_san(args, [], t),
        "san-unlumped": lambda t: run_san(args, ["--lump", "off"], t),
        "san-bicgstab": lambda t: run_san(args, ["-m", "bicgstab", "--lump", "off"], t),
        "san-gs": lambda t: run_san(args, ["-m", "gs", "--lump", "off"], t),
        "peps-gmres": lambda t: run_peer(args, args.peps, peps.replace("{m}", "3"), t),
        "peps-power": lambda t: run_peer(args, args.peps, peps.replace("{m}", "1"), t),
        "gta-power": lambda t: run_peer(args, args.gta, gta.replace("{m}", "1"), t),
        "gta-gmres": lambda t: run_peer(args, args.gta, gta.replace("{m}", "3"), t),
    }
    names = args.tools.split(",")
    for n in names:
        if n not in all_tools:
            sys.exit("bench-peers: unknown tool '%s' (%s)" % (n, ", ".join(all_tools)))
    return [(n, all_tools[n]) for n in names]


def best_of(runs):
    """The first run's answer, the smallest wall and solve times, the
    largest peak; a failure in any round is the tool's result."""
    bad = [r for r in runs if "error" in r]
    if bad:
        return bad[0]
    b = dict(runs[0])
    b["wall"] = min(r["wall"] for r in runs)
    b["cpu"] = min(r["cpu"] for r in runs)
    if b.get("solve") is not None:
        b["solve"] = min(r["solve"] for r in runs)
    b["peak_kib"] = max(r["peak_kib"] for r in runs)
    return b


def max_abs_diff(ref, got):
    if ref is None or got is None:
        return None
    missing = [k for k in ref if k not in got]
    if missing:
        return "missing " + missing[0]
    return max(abs(ref[k] - got[k]) for k in ref)


def fmt_t(x):
    return "-" if x is None else "%.2f" % x if x < 100 else "%.0f" % x


def tables(everything):
    """The per-tool table and the speedup table, from every run's record
    (models and tools in the order they ran)."""
    order, by = [], {}
    for r in everything:
        key = (r["model"], r["tool"])
        if key not in by:
            order.append(key)
            by[key] = []
        by[key].append(r)
    table, summary = [], []
    for model in dict.fromkeys(m for m, _ in order):
        names = [t for m, t in order if m == model]
        best = {t: best_of(by[(model, t)]) for t in names}
        ref = best.get("san", {}).get("results")
        states = best.get("san", {}).get("states")
        for tn in names:
            b = best[tn]
            d = max_abs_diff(ref, b.get("results"))
            extra = b.get("method", "")
            if b.get("states") is not None and states is not None and b["states"] != states:
                extra += " %d states!" % b["states"]
            table.append("| %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s |" % (
                model, "{:,}".format(states) if states else "-", tn,
                b.get("error") or fmt_t(b["wall"]),
                "-" if "error" in b else fmt_t(b.get("cpu")), fmt_t(b.get("solve")),
                b.get("iterations") if b.get("iterations") is not None else "-",
                b["peak_kib"] / 1024, "-" if tn == "san" else
                ("%.1e" % d if isinstance(d, float) else d or "-"), extra.strip()))
        pbest = [best[t] for t in ("peps-gmres", "peps-power") if t in best and "error" not in best[t]]
        if pbest:
            pb = min(pbest, key=lambda r: r["wall"])
            for tn in ("san", "san-unlumped", "san-bicgstab", "san-gs"):
                if tn in best and "error" not in best[tn]:
                    b = best[tn]
                    summary.append("| %s | %s | %s | %.1fx | %.1fx | %.2fx |" % (
                        model, tn, fmt_t(pb["wall"]), pb["wall"] / b["wall"],
                        pb["cpu"] / b["cpu"] if b["cpu"] else 0,
                        b["peak_kib"] / pb["peak_kib"] if pb["peak_kib"] else 0))
    return table, summary


TABLE_HEAD = ("| model | states | tool | wall s | cpu s | solve s | iterations | peak MiB | "
              "max abs diff vs san | note |\n|---|---|---|---|---|---|---|---|---|---|")
SUMMARY_HEAD = ("| model | san method | PEPS 2003 best wall s | speedup (wall) | "
                "speedup (cpu) | memory / PEPS best |\n|---|---|---|---|---|---|")


def save(path, meta, everything):
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump({"meta": meta, "runs": [{k: v for k, v in r.items() if k not in ("out", "err")}
                                              for r in everything]}, f, indent=1)
        os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--san", default="./san")
    ap.add_argument("--peps", default=os.environ.get("PEPS", "/work/peers/peps/bin/peps"))
    ap.add_argument("--gta", default=os.environ.get("GTA", "/work/peers/gta/bin/gtaexpress"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--tol", default="1e-12")
    ap.add_argument("--iterations", type=int, default=100000, help="the peers' iteration cap")
    ap.add_argument("--only", default=".", help="models whose name matches this regex")
    ap.add_argument("--tools", default="san,san-unlumped,san-bicgstab,san-gs,peps-gmres,peps-power,gta-power")
    ap.add_argument("--rs", default="16,19,20,22", help="rs process counts")
    ap.add_argument("--tss", default="8", help="tss terminal counts")
    ap.add_argument("--json", help="write every run here (after each model)")
    ap.add_argument("--from-json", help="print the tables of a --json file; run nothing")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        if isinstance(saved, list):     # the first version's file: the runs only
            saved = {"meta": {"header": "(no header saved)"}, "runs": saved}
        print("# %s" % saved["meta"]["header"])
        table, summary = tables(saved["runs"])
        print("\n%s\n%s\n\n%s\n%s" % (TABLE_HEAD, "\n".join(table), SUMMARY_HEAD, "\n".join(summary)))
        print("\n# load %s at the end" % saved["meta"].get("load_end", "?"))
        return 0
    args.rs = [int(x) for x in args.rs.split(",") if x]
    args.tss = [int(x) for x in args.tss.split(",") if x]
    for name, p in (("PEPS", args.peps), ("GTA", args.gta)):
        if not os.access(p, os.X_OK):
            print("bench-peers: no peer at '%s' (set PEPS= and GTA=; doc/bench-peers.md "
                  "says how to build them)" % p, file=sys.stderr)
            return 2
    tl = tools(args)
    load = os.getloadavg()
    header = ("bench-peers: tol %s, best of %d interleaved rounds, timeout %.0f s; %d cores, "
              "load %.2f %.2f %.2f at the start" % (args.tol, args.rounds, args.timeout,
                                                     os.cpu_count(), *load))
    meta = {"header": header, "argv": sys.argv, "start": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    print("# " + header, flush=True)
    everything = []
    for name, what, make in models(args):
        text = make()
        runs = {}
        for rnd in range(args.rounds):
            for tn, fn in tl:
                if any("error" in r for r in runs.get(tn, [])):
                    continue            # a timeout or a failure is not run again
                r = fn(text)
                everything.append(dict(r, model=name, tool=tn, round=rnd + 1))
                runs.setdefault(tn, []).append(r)
                print("  %s %s round %d: %s" % (name, tn, rnd + 1,
                      r.get("error") or "%.2f s, %.0f MiB" % (r["wall"], r["peak_kib"] / 1024)),
                      file=sys.stderr, flush=True)
        print("\n".join(tables([r for r in everything if r["model"] == name])[0]),
              file=sys.stderr, flush=True)
        meta["load_end"] = "%.2f %.2f %.2f" % os.getloadavg()
        save(args.json, meta, everything)
    table, summary = tables(everything)
    print("\n%s\n%s\n\n%s\n%s" % (TABLE_HEAD, "\n".join(table), SUMMARY_HEAD, "\n".join(summary)))
    print("\n# load %s at the end" % meta["load_end"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
