#!/usr/bin/env python3
"""repl.py - replicated events (san(5), "Replicated events"), by their numbers.

N clients and one server: client k thinks (local think[k], rate lambda*k),
is started by the server (start[k], synchronizing: the server goes from
idle to busy, listing start[N]) and served (done[k], rate mu + k: the
server back to idle; the client back to thinking with probability p, or
waiting again).  Written replicated (aut C[i:N], e[i], e[N], e[k:N] rates)
and written out by hand (C1..CN, start1..startN), for N = 1..4:

  1. both give the same results and throughputs to 1e-12, on both storages;
  2. both agree with the chain built here from the rules above and solved
     by the dense GTH reference of tests/difftest (dense_ref) to 1e-10;
  3. san print of the replicated text reads back to the same answers
     (1e-12), and is a fixed point;
  4. with one rate for all indices, --dialect peps2003 writes it out
     (C_1.., start[1]..) to the same answers (1e-12) and with no
     replicated construct left; a rate per index is refused, exit 2.

Environment: SAN, top_srcdir, top_builddir.  The last line is
"N passed, M failed"; exit 0 when nothing failed.
"""
import itertools
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

LAMBDA, GAMMA, MU, P = 0.7, 5.0, 2.0, 0.25


def answers(text, *extra):
    rc, out, err = run(["solve", "-q", "-f", "json", "--tol", "1e-14"] + list(extra) + ["-"], text)
    if rc != 0:
        print("  solve failed: " + err.strip()[:300])
        return None
    j = json.loads(out)
    return j["results"], j["throughputs"]


def replicated(n, per_index=True, routed=False):
    """routed: client k returns to thinking with probability k / 5 (the
    index variable in a routing probability), else p."""
    k = "k:" if per_index else ""
    back, again = ("(i / 5)", "((5 - i) / 5)") if routed else ("(p)", "(p_c)")
    think = "(lambda * k)" if per_index else "(lambda)"
    done = "(mu + k)" if per_index else "(mu)"
    return f"""identifiers
  N = [1..{n}];
  lambda = {LAMBDA};
  gamma = {GAMMA};
  mu = {MU};
  p = {P};
  p_c = (1 - p);
events
  loc think[{k}N] {think}
  syn start[N] (gamma)
  syn done[{k}N] {done}
partial reachability = ((st Server == idle) && ((nb w) == 0) && ((nb s) == 0));
network cs (continuous)
  aut Server
    stt idle to(busy) start[N]
    stt busy to(idle) done[N]
  aut C[i:N]
    stt t to(w) think[i]
    stt w to(s) start[i]
    stt s to(t) done[i]{back}
          to(w) done[i]{again}
results
  waiting = (nb w);
  served = (nb s);
  busy = (st Server == busy);
  first_thinks = (st C[1] == t);
"""


def expanded(n, routed=False):
    ks = range(1, n + 1)

    def back(k):
        return (f"({k} / 5)", f"({5 - k} / 5)") if routed else ("(p)", "(p_c)")
    ev = "".join(f"  loc think{k} (lambda * {k})\n" for k in ks)
    ev += "".join(f"  syn start{k} (gamma)\n" for k in ks)
    ev += "".join(f"  syn done{k} (mu + {k})\n" for k in ks)
    auts = "".join(f"""  aut C{k}
    stt t to(w) think{k}
    stt w to(s) start{k}
    stt s to(t) done{k}{back(k)[0]}
          to(w) done{k}{back(k)[1]}
""" for k in ks)
    return f"""identifiers
  lambda = {LAMBDA};
  gamma = {GAMMA};
  mu = {MU};
  p = {P};
  p_c = (1 - p);
events
{ev}partial reachability = ((st Server == idle) && ((nb w) == 0) && ((nb s) == 0));
network cs (continuous)
  aut Server
    stt idle to(busy) {" ".join(f"start{k}" for k in ks)}
    stt busy to(idle) {" ".join(f"done{k}" for k in ks)}
{auts}results
  waiting = (nb w);
  served = (nb s);
  busy = (st Server == busy);
  first_thinks = (st C1 == t);
"""


def by_hand_name(name):
    """think[2] (replicated) is think2 (written out)."""
    return re.sub(r"^(\w+)\[(\d+)\]$", r"\1\2", name)


def same(x, y, tol, rename=lambda s: s):
    if x is None or y is None:
        return False
    (rx, tx), (ry, ty) = x, y
    tx = {rename(k): v for k, v in tx.items()}
    return rx.keys() == ry.keys() and tx.keys() == ty.keys() and \
        all(close(rx[k], ry[k], tol) for k in ry) and all(close(tx[k], ty[k], tol) for k in ty)


def reference(n, dense_ref, routed=False):
    """The chain from the rules: states (server, clients), 0 = t/idle."""
    start = (0, (0,) * n)
    states, index, edges, todo = [start], {start: 0}, [], [start]

    def moves(st):
        srv, cl = st
        for k in range(n):
            nxt = list(cl)
            if cl[k] == 0:
                nxt[k] = 1
                yield (srv, tuple(nxt)), LAMBDA * (k + 1), "think%d" % (k + 1)
            elif cl[k] == 1 and srv == 0:
                nxt[k] = 2
                yield (1, tuple(nxt)), GAMMA, "start%d" % (k + 1)
            elif cl[k] == 2 and srv == 1:
                pk = (k + 1) / 5 if routed else P
                for dst, prob in ((0, pk), (1, 1 - pk)):
                    nxt[k] = dst
                    yield (0, tuple(nxt)), (MU + k + 1) * prob, "done%d" % (k + 1)

    while todo:
        st = todo.pop()
        for dst, rate, ev in moves(st):
            if dst not in index:
                index[dst] = len(states)
                states.append(dst)
                todo.append(dst)
            edges.append((index[st], index[dst], rate, ev))
    text = "%d\n" % len(states) + "".join("%d %d %.17g\n" % (i, j, r)
                                          for i, j, r, _ in edges if i != j)
    out = subprocess.run([dense_ref], input=text.encode(), capture_output=True, check=True)
    pi = [float(x) for x in out.stdout.split()]
    res = {
        "waiting": sum(p * s[1].count(1) for p, s in zip(pi, states)),
        "served": sum(p * s[1].count(2) for p, s in zip(pi, states)),
        "busy": sum(p * s[0] for p, s in zip(pi, states)),
        "first_thinks": sum(p for p, s in zip(pi, states) if s[1][0] == 0),
    }
    tput = {}
    for i, _, r, ev in edges:
        tput[ev] = tput.get(ev, 0.0) + pi[i] * r
    return res, tput


def main():
    with tempfile.TemporaryDirectory() as tmp:
        built = os.path.join(BUILD, "tests", "difftest", "dense_ref")
        dense_ref = built if os.access(built, os.X_OK) else difftest_models.find_dense_ref(tmp)
        for n in range(1, 5):
            rep, exp = replicated(n), expanded(n)
            a, b = answers(rep), answers(exp)
            check(same(a, b, 1e-12, by_hand_name),
                  "N=%d: replicated and written out by hand differ:\n  %s\n  %s" % (n, a, b))
            check(same(answers(rep, "--storage", "kron"), b, 1e-10, by_hand_name),
                  "N=%d: replicated, kron storage, differs" % n)
            check(same(a, reference(n, dense_ref), 1e-10, by_hand_name),
                  "N=%d: replicated differs from the dense reference" % n)
            rc, printed, err = run(["print", "-"], rep)
            check(rc == 0 and "aut C[i:N]" in printed and "start[N]" in printed
                  and "think[k:N]" in printed, "N=%d: print keeps the replicated form: %s"
                  % (n, printed + err))
            check(same(answers(printed), a, 1e-12), "N=%d: print reads back the same" % n)
            check(run(["print", "-"], printed)[1] == printed, "N=%d: print is a fixed point" % n)
            # the dialect: one rate for all indices is written out
            uni = replicated(n, per_index=False)
            rc, peps, err = run(["print", "--dialect", "peps2003", "-"], uni)
            check(rc == 0 and "aut C_%d" % n in peps and "start[N]" not in peps.split("network")[1]
                  and "[i" not in peps and "to(busy) start[%d]" % n in peps,
                  "N=%d: --dialect peps2003 writes the replicas out: %s" % (n, peps + err))
            check(same(answers(peps), answers(uni), 1e-12),
                  "N=%d: --dialect peps2003 gives the same answers" % n)
            rc, out, err = run(["print", "--dialect", "peps2003", "-"], rep)
            check(rc == 2 and out == "" and "rate per index" in err,
                  "N=%d: a per-index rate is refused for PEPS: %d %s" % (n, rc, err))
        # the index variable in routing probabilities: client k goes back
        # to thinking with probability k / 5
        for n in range(1, 5):
            rep, exp = replicated(n, routed=True), expanded(n, routed=True)
            a = answers(rep)
            check(same(a, answers(exp), 1e-12, by_hand_name),
                  "N=%d routed: replicated and written out by hand differ" % n)
            check(same(answers(rep, "--storage", "kron"), a, 1e-10),
                  "N=%d routed: kron storage differs" % n)
            check(same(a, reference(n, dense_ref, routed=True), 1e-10, by_hand_name),
                  "N=%d routed: replicated differs from the dense reference" % n)
            rc, printed, err = run(["print", "-"], rep)
            check(rc == 0 and "done[i]((i / 5))" in printed and same(answers(printed), a, 1e-12),
                  "N=%d routed: print keeps i in the probability and reads back the same: %s"
                  % (n, printed + err))
        # PEPS has no index variable: refused with the construct named
        # rather than written with an unbound 'i'
        rc, out, err = run(["print", "--dialect", "peps2003", "-"], replicated(3, False, True))
        check(rc == 2 and out == "" and "reads the index variable 'i'" in err,
              "a per-replica probability is refused for PEPS: %d %s" % (rc, err))
        # a probability out of [0, 1] for one replica: named with its index
        bad = replicated(4, routed=True).replace("done[i](i / 5)", "done[i](i / 3)")
        rc, _, err = run(["check", "-"], bad)
        check(rc == 2 and "routing probability 1.33333 is not in [0, 1] (where i = 4)" in err,
              "a probability out of range at i = 4: exit 2, named: %d %s" % (rc, err))
    tally.exit()


if __name__ == "__main__":
    main()
