#!/usr/bin/env python3
"""peer_check.py - solve models with san and with the peers PEPS 2003 and
GTAexpress (black boxes, driven through their menus) and compare the
results.  Outside `make check`: the peers are built separately
(make peer-check PEPS=... GTA=...).

Each model is written with `san print --dialect peps2003` (or generated
with `san gen --dialect peps2003`), and that text alone is given to the
peers, so the table measures what a user moving the file would see.
"""
import argparse, glob, json, os, re, shutil, subprocess, sys, tempfile

FUNC = re.compile(r"Integration of function (\S+) : (\S+)")

def peer_answer(out, returncode):
    """{result: value} from a peer's menu transcript `out`, or an error
    string (shared with bench/peers.py)."""
    if returncode < 0:
        return "crashed (signal %d)" % -returncode
    if "did not converge" in out:
        return "not converged"
    vals = {m.group(1): float(m.group(2)) for m in FUNC.finditer(out)}
    if not vals:
        err = [l.strip() for l in out.splitlines()
               if re.search(r"syntax error|Programming Error|did not converge|can not|"
                            r"not found|[Ee]rror -", l) and "Error Test" not in l]
        return "rejected" + (": " + err[0][:60] if err else "")
    return vals

def run_peer(binary, keys, text, name, timeout):
    """Compile and solve `text` in a fresh folder (the peers ask before
    overwriting files); returns {result: value} or an error string."""
    d = tempfile.mkdtemp(prefix="peer_")
    try:
        with open(os.path.join(d, name + ".san"), "w") as f:
            f.write(text)
        try:
            p = subprocess.run([binary], input=keys.format(n=name).encode(), cwd=d,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout"
        return peer_answer(p.stdout.decode("latin-1"), p.returncode)
    finally:
        shutil.rmtree(d, ignore_errors=True)

# Menu keys: 4 preferences (2: at most 100000 iterations, 4: tolerance
# 1e-13: the defaults, 1000 and 1e-10, stop short of 1e-8 on stiff
# models); 1 compile, 1 standard; 2 solve, 3 GMRES (PEPS) or 1 power
# (GTAexpress); 0 exit, 1 keep files.
def prefs(tol="1e-13", iterations=100000):
    return "42\n%d\n44\n%s\n" % (iterations, tol)

def peps_keys(tol="1e-13", iterations=100000):
    return prefs(tol, iterations) + "11{n}\n2{m}{n}\n01\n"

def gta_keys(tol="1e-13", iterations=100000):
    return prefs(tol, iterations) + "11 {n} 2{m} {n} 01\n"

PEPS_KEYS = peps_keys()
GTA_KEYS = gta_keys()
# The methods tried in turn while the last did not converge.
PEPS_METHODS = "321"
GTA_METHODS = "1362"

def solve_peer(binary, keys, methods, text, name, timeout):
    got = None
    for m in methods:
        got = run_peer(binary, keys.replace("{m}", m), text, name, timeout)
        if got != "not converged":
            break
    return got

def san_results(san, text):
    """san's results, and the number of states it dropped as isolated
    pockets (the peers keep the start vector's mass there)."""
    try:
        p = subprocess.run([san, "solve", "-f", "json", "--tol", "1e-13", "-"], input=text.encode(),
                           capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, 0
    if p.returncode != 0:
        return None, 0
    j = json.loads(p.stdout)
    return j["results"], j.get("dropped_states", 0)

def product_states(san, text):
    p = subprocess.run([san, "check", "-"], input=text.encode(), capture_output=True)
    m = re.search(r"product states: (\d+)", p.stdout.decode())
    return int(m.group(1)) if m else 0

def rel(a, b):
    """Relative difference; two values below 1e-12 are both zero (a
    transient state's 0 against a peer's round-off of 1e-16)."""
    m = max(abs(a), abs(b))
    return 0.0 if m < 1e-12 else abs(a - b) / m

def compare(ref, got):
    if isinstance(got, str):
        return got
    worst = 0.0
    for k, v in ref.items():
        if k not in got:
            return "missing " + k
        worst = max(worst, rel(v, got[k]))
    return worst

def fmt(x):
    return "%.1e" % x if isinstance(x, float) else x

def models(args):
    """(label, text) pairs: the files, then the generator lines."""
    for path in args.models:
        p = subprocess.run([args.san, "print", "--dialect", args.dialect, path],
                           capture_output=True)
        yield os.path.basename(path), p.stdout.decode() if p.returncode == 0 else None, \
            p.stderr.decode().strip()
    for line in args.gen:
        p = subprocess.run([args.san, "gen"] + line.split() + ["--dialect", args.dialect],
                           capture_output=True)
        yield "gen " + line, p.stdout.decode() if p.returncode == 0 else None, \
            p.stderr.decode().strip()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--san", default="./san")
    ap.add_argument("--peps", default=os.environ.get("PEPS", "/work/peers/peps/bin/peps"))
    ap.add_argument("--gta", default=os.environ.get("GTA", "/work/peers/gta/bin/gtaexpress"))
    ap.add_argument("--dialect", default="peps2003")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--gen", action="append", default=[])
    ap.add_argument("--max-states", type=int, default=2000000,
                    help="leave out larger models (the peers' power method on 10^7 states)")
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    print("| model | san | PEPS 2003 | GTAexpress | max rel diff |")
    print("|---|---|---|---|---|")
    bad = 0
    for label, text, err in models(args):
        if text is None:
            print("| %s | refused: %s | - | - | - |" % (label, err.splitlines()[-1] if err else "?"))
            continue
        states = product_states(args.san, text)
        if states > args.max_states:
            print("| %s | %d product states: beyond --max-states | - | - | - |" % (label, states))
            continue
        ref, pocket = san_results(args.san, text)
        if ref is None:
            print("| %s | does not solve | - | - | - |" % label)
            bad += 1
            continue
        name = re.sub(r"[^A-Za-z0-9]", "", label)[:20] or "model"
        p = compare(ref, solve_peer(args.peps, PEPS_KEYS, PEPS_METHODS, text, name, args.timeout))
        g = compare(ref, solve_peer(args.gta, GTA_KEYS, GTA_METHODS, text, name, args.timeout))
        diffs = [x for x in (p, g) if isinstance(x, float)]
        worst = max(diffs) if diffs else None
        ok = all(isinstance(x, float) and x <= args.tol for x in (p, g))
        mark = "" if ok else " (pocket of %d states: excepted)" % pocket if pocket else " **"
        bad += not ok and not pocket
        print("| %s | %d results | %s | %s | %s%s |" % (label, len(ref), fmt(p), fmt(g),
              fmt(worst) if worst is not None else "-", mark))
    print("\n%d model(s) outside %.0e or not read (**)" % (bad, args.tol))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
