#!/usr/bin/env python3
"""replica_report.py - replicas in san solve's report (issue 19), against
values computed here.

  1. N clients and a server whose clients differ (think[k:C] at rate
     lambda * k): the chain built here from the rules and solved by the
     dense GTH reference of tests/difftest (dense_ref) gives every
     replica's marginals and throughputs; the JSON lists each (1e-10),
     "throughput_totals" holds their sums (1e-10, and to 1e-12 the sum of
     the JSON's own replicas), the CSV the same totals; the text has one
     "Client[*] t:  min .. (Client[k])  mean ..  max .. (Client[j])" line
     per local state and "think[*] min/mean/max/total" lines, each the
     reference's to the digits shown, with the replica that holds the
     minimum and the maximum; --all-replicas lists each instead.
  2. models/clients_server.san (alike clients): one Client[1..4] line and
     one think[1..4] line; the totals, the server's throughput, are the
     chain's and the model's own served_per_time (mu * P(busy)).
  3. Independent replicas P[k] (a -> b at rate k, b -> a at rate 1): in
     closed form P[k] is in a with probability 1/(k+1) and e[k] fires
     k/(k+1) times per unit; the summary is as many lines for 8 replicas
     as for 3; replicas 2..N alike and 1 apart (rate min(k, 2)) are
     summarized, and with --all-replicas P[1] and P[2..N] have a line each.

Environment: SAN, top_srcdir, top_builddir.  The last line is
"N passed, M failed"; exit 0 when nothing failed.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import TOP, BUILD, check, tally, run, close_1 as close  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "tests", "difftest"))
import difftest_models  # noqa: E402  (its dense_ref finder)



def shown(a, b, digits=6):
    """a, printed with `digits` significant digits, is b's rounding."""
    return abs(a - b) <= 0.51 * 10.0 ** (-digits + 1) * abs(b) + 1e-300


CLIENTS = """identifiers
  C = [1..%(n)d];
  lambda = %(lam)r;
  gamma = %(gam)r;
  mu = %(mu)r;
events
  loc think[k:C] (lambda * k)
  syn req[C] (gamma)
  syn done[C] (mu)
partial reachability = ((st Server == idle) && ((nb [Client[1]..Client[%(n)d]] t) == %(n)d));
network clients (continuous)
  aut Server
    stt idle
      to(busy) req[C]
    stt busy
      to(idle) done[C]
  aut Client[i:C]
    stt t
      to(w) think[i]
    stt w
      to(s) req[i]
    stt s
      to(t) done[i]
results
  busy = (st Server == busy);
"""


def clients_chain(n, lam, gam, mu, per_index, dense_ref):
    """Marginals {Client[k]: {t, w, s}} and throughputs {think[k]: x}
    of the chain from the rules: states (server, clients), 0 = t/idle."""
    start = (0, (0,) * n)
    states, index, edges, todo = [start], {start: 0}, [], [start]

    def moves(st):
        srv, cl = st
        for k in range(n):
            nxt = list(cl)
            if cl[k] == 0:
                nxt[k] = 1
                yield (srv, tuple(nxt)), lam * (k + 1 if per_index else 1), "think[%d]" % (k + 1)
            elif cl[k] == 1 and srv == 0:
                nxt[k] = 2
                yield (1, tuple(nxt)), gam, "req[%d]" % (k + 1)
            elif cl[k] == 2 and srv == 1:
                nxt[k] = 0
                yield (0, tuple(nxt)), mu, "done[%d]" % (k + 1)

    while todo:
        st = todo.pop()
        for dst, rate, ev in moves(st):
            if dst not in index:
                index[dst] = len(states)
                states.append(dst)
                todo.append(dst)
            edges.append((index[st], index[dst], rate, ev))
    text = "%d\n" % len(states) + "".join("%d %d %.17g\n" % (i, j, r) for i, j, r, _ in edges)
    out = subprocess.run([dense_ref], input=text.encode(), capture_output=True, check=True)
    pi = [float(x) for x in out.stdout.split()]
    marg = {"Client[%d]" % (k + 1): {name: sum(p for p, s in zip(pi, states) if s[1][k] == v)
                                     for v, name in enumerate(("t", "w", "s"))}
            for k in range(n)}
    tput = {}
    for i, _, r, ev in edges:
        tput[ev] = tput.get(ev, 0.0) + pi[i] * r
    busy = sum(p for p, s in zip(pi, states) if s[0] == 1)
    return marg, tput, busy


def solve(text, *args):
    rc, out, err = run(["solve", "-q", "--tol", "1e-14"] + list(args) + ["-"], text)
    if rc != 0:
        print("  solve failed: " + err.strip()[:300])
    return out


def section(out, name):
    """The lines of one section of the text report."""
    lines = out.split("\n")
    i = lines.index(name)
    j = lines.index("", i)
    return lines[i + 1:j]


SUMMARY = re.compile(r"^  (\S+) (\S+):  min (\S+) \((\S+)\)  mean (\S+)  max (\S+) \((\S+)\)$")
TPUT = re.compile(r"^  (\S+) (min|mean|max|total) +(\S+)(?: \((\S+)\))?$")


def stats(values):
    """min (first holder), mean, max (first holder), total of {name: v}."""
    names = list(values)
    lo = min(names, key=lambda k: (values[k], names.index(k)))
    hi = max(names, key=lambda k: (values[k], -names.index(k)))
    total = sum(values.values())
    return values[lo], lo, total / len(values), values[hi], hi, total


def check_summary_lines(lines, family, per_replica, what):
    """Client[*] t: ... lines against the reference's per-replica values."""
    got = {m.group(2): m for m in map(SUMMARY.match, lines) if m and m.group(1) == family}
    states = list(next(iter(per_replica.values())))
    check(list(got) == states, "%s: one %s line per state %s, got %s" % (what, family, states, lines))
    for s in states:
        m = got.get(s)
        if not m:
            continue
        lo, at_lo, mean, hi, at_hi, _ = stats({k: v[s] for k, v in per_replica.items()})
        check(shown(float(m.group(3)), lo) and m.group(4) == at_lo and
              shown(float(m.group(5)), mean) and shown(float(m.group(6)), hi) and m.group(7) == at_hi,
              "%s: %s %s: %s, expected min %.6g (%s) mean %.6g max %.6g (%s)"
              % (what, family, s, m.group(0), lo, at_lo, mean, hi, at_hi))


def check_tput_lines(lines, base, ref, what, summary=True):
    """think[*] min/mean/max/total against the reference's throughputs."""
    fam = base + "[*]"
    got = {m.group(2): m for m in map(TPUT.match, lines) if m and m.group(1) == fam}
    lo, at_lo, mean, hi, at_hi, total = stats({k: v for k, v in ref.items()
                                               if k.startswith(base + "[")})
    want = ["min", "mean", "max", "total"] if summary else ["total"]
    check(sorted(got) == sorted(want), "%s: %s lines %s, got %s" % (what, fam, want, lines))
    expect = {"min": (lo, at_lo), "mean": (mean, None), "max": (hi, at_hi), "total": (total, None)}
    for k, m in got.items():
        v, at = expect[k]
        check(close(float(m.group(3)), v, 1e-9) and m.group(4) == at,
              "%s: %s: expected %.12g%s" % (what, m.group(0), v, " (%s)" % at if at else ""))


def part_differ(dense_ref):
    n, lam, gam, mu = 4, 0.5, 20.0, 3.0
    text = CLIENTS % {"n": n, "lam": lam, "gam": gam, "mu": mu}
    marg, tput, _ = clients_chain(n, lam, gam, mu, True, dense_ref)
    j = json.loads(solve(text, "-f", "json"))
    check(all(close(j["marginals"][a][s], v, 1e-10) for a in marg for s, v in marg[a].items()),
          "differ: JSON marginals of each replica are the chain's")
    check(j["throughputs"].keys() == tput.keys() and
          all(close(j["throughputs"][e], v, 1e-10) for e, v in tput.items()),
          "differ: JSON throughputs of each replica are the chain's")
    totals = j.get("throughput_totals", {})
    check(sorted(totals) == ["done[*]", "req[*]", "think[*]"], "differ: totals %s" % totals)
    for base in ("think", "req", "done"):
        mine = [v for e, v in j["throughputs"].items() if e.startswith(base + "[")]
        check(len(mine) == n and close(totals.get(base + "[*]", -1), sum(mine), 1e-12),
              "differ: %s[*] total %s = the sum of the listed replicas %s"
              % (base, totals.get(base + "[*]"), sum(mine)))
        ref = sum(v for e, v in tput.items() if e.startswith(base + "["))
        check(close(totals.get(base + "[*]", -1), ref, 1e-10),
              "differ: %s[*] total = the chain's %.15g" % (base, ref))
    rows = list(csv.reader(io.StringIO(solve(text, "-f", "csv"))))
    csv_totals = {r[1]: float(r[3]) for r in rows if r[0] == "throughput_total"}
    check(csv_totals == totals, "differ: CSV totals %s = JSON's %s" % (csv_totals, totals))
    check(sum(1 for r in rows if r[0] == "marginal" and r[1].startswith("Client[")) == 3 * n,
          "differ: CSV lists each replica's marginals")

    out = solve(text)
    m_lines, t_lines = section(out, "marginals"), section(out, "throughputs")
    check_summary_lines(m_lines, "Client[*]", marg, "differ")
    check(not any(re.match(r"^  Client\[\d", l) for l in m_lines),
          "differ: no line per replica by default: %s" % m_lines)
    for base in ("think", "req", "done"):
        check_tput_lines(t_lines, base, tput, "differ")
    check(not any(re.match(r"^  think\[\d", l) for l in t_lines),
          "differ: no think[k] line by default: %s" % t_lines)

    out = solve(text, "--all-replicas")
    m_lines, t_lines = section(out, "marginals"), section(out, "throughputs")
    for k in range(1, n + 1):
        a = "Client[%d]" % k
        line = [l for l in m_lines if l.startswith("  %s:" % a)]
        vals = re.findall(r"  (\w) (\S+)", line[0][len(a) + 3:]) if line else []
        check(len(line) == 1 and len(vals) == 3 and
              all(shown(float(v), marg[a][s]) for s, v in vals),
              "--all-replicas: %s line %s, expected %s" % (a, line, marg[a]))
        e = "think[%d]" % k
        line = [l.split() for l in t_lines if l.split()[:1] == [e]]
        check(len(line) == 1 and close(float(line[0][1]), tput[e], 1e-9),
              "--all-replicas: %s line %s, expected %.12g" % (e, line, tput[e]))
    check(not any(SUMMARY.match(l) for l in m_lines), "--all-replicas: no summary line")
    for base in ("think", "req", "done"):
        check_tput_lines(t_lines, base, tput, "--all-replicas", summary=False)


def part_clients_server(dense_ref):
    """The file's constants: lambda 0.5, gamma 20, mu 3, 4 clients."""
    path = os.path.join(TOP, "models", "clients_server.san")
    with open(path) as f:
        text = f.read()
    consts = dict(re.findall(r"^\s+(lambda|gamma|mu) = ([0-9.]+);", text, re.M))
    check(consts == {"lambda": "0.5", "gamma": "20", "mu": "3"} and "C = [1..4];" in text,
          "clients_server.san: the constants this test assumes, found %s" % consts)
    marg, tput, busy = clients_chain(4, 0.5, 20.0, 3.0, False, dense_ref)
    served = 3.0 * busy                 # the server serves at rate mu while busy
    rc, out, err = run(["solve", "-q", "--tol", "1e-14", "-f", "json", path])
    j = json.loads(out)
    totals = j.get("throughput_totals", {})
    for base in ("think", "req", "done"):     # what is served was requested, and thought of
        check(close(totals.get(base + "[*]", -1), served, 1e-10),
              "clients_server: %s[*] total %s, the chain's mu * P(busy) = %.15g"
              % (base, totals.get(base + "[*]"), served))
    check(close(totals.get("done[*]", -1), j["results"]["served_per_time"], 1e-12),
          "clients_server: done[*] total = the result served_per_time")
    rc, out, err = run(["solve", "-q", "--tol", "1e-14", path])
    m_lines, t_lines = section(out, "marginals"), section(out, "throughputs")
    check(any(l.startswith("  Client[1..4]:  t ") for l in m_lines) and
          not any(SUMMARY.match(l) for l in m_lines),
          "clients_server: alike clients share one line: %s" % m_lines)
    one = [l.split() for l in t_lines if l.startswith("  think[1..4] ")]
    check(len(one) == 1 and close(float(one[0][1]), tput["think[1]"], 1e-9),
          "clients_server: think[1..4] line %s, expected %.12g" % (one, tput["think[1]"]))
    check_tput_lines(t_lines, "think", tput, "clients_server", summary=False)


INDEPENDENT = """identifiers
  D = [1..%(n)d];
events
  loc e[k:D] (%(rate)s)
  loc f[D] (1)
reachability = 1;
network independent (continuous)
  aut P[i:D]
    stt a
      to(b) e[i]
    stt b
      to(a) f[i]
results
  x = 0;
"""


def part_independent():
    lines_for = {}
    for n in (3, 8):
        out = solve(INDEPENDENT % {"n": n, "rate": "k"})
        m_lines, t_lines = section(out, "marginals"), section(out, "throughputs")
        # closed form: P[k] alone is a two-state chain
        marg = {"P[%d]" % k: {"a": 1 / (k + 1), "b": k / (k + 1)} for k in range(1, n + 1)}
        tput = {"e[%d]" % k: k / (k + 1) for k in range(1, n + 1)}
        tput.update({"f[%d]" % k: k / (k + 1) for k in range(1, n + 1)})
        check_summary_lines(m_lines, "P[*]", marg, "independent N=%d" % n)
        check_tput_lines(t_lines, "e", tput, "independent N=%d" % n)
        check_tput_lines(t_lines, "f", tput, "independent N=%d" % n)
        lines_for[n] = (len(m_lines), len(t_lines))
    check(lines_for[3] == lines_for[8],
          "independent: as many summary lines for 8 replicas as for 3: %s" % lines_for)
    # P[1] apart, P[2..6] alike
    n = 6
    text = INDEPENDENT % {"n": n, "rate": "min(k, 2)"}
    m_lines = section(solve(text), "marginals")
    check(len(m_lines) == 2 and all(SUMMARY.match(l) for l in m_lines),
          "P[1] apart: summarized: %s" % m_lines)
    m_lines = section(solve(text, "--all-replicas"), "marginals")
    check(len(m_lines) == 2 and m_lines[0].startswith("  P[1]:  a 0.5 ") and
          m_lines[1].startswith("  P[2..6]:  a 0.333333 "),
          "P[1] apart, --all-replicas: P[1] and P[2..6]: %s" % m_lines)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        built = os.path.join(BUILD, "tests", "difftest", "dense_ref")
        dense_ref = built if os.access(built, os.X_OK) else difftest_models.find_dense_ref(tmp)
        part_differ(dense_ref)
        part_clients_server(dense_ref)
        part_independent()
    tally.exit()


if __name__ == "__main__":
    main()
