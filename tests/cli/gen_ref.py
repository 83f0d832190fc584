#!/usr/bin/env python3
"""gen_ref.py - independent references for tests/gen.sh.

Each reference builds the CTMC of a master/slave program or a pipeline
directly from the rules of the system it describes (never from the
generated .san text), solves it densely, and compares the indices with the
"results" of `san solve --format json`.  The pipeline reference keeps the
explicit configuration (replicas serving, blocked, buffer contents, the
phase of every service) and performs the instantaneous hand-offs as
cascades, so it checks the counter encoding of gen/pipeline.c rather than
repeating it.

usage: gen_ref.py ms   KEY=VALUE... JSON
       gen_ref.py pl   KEY=VALUE... JSON
       gen_ref.py bd   UP_RATES DOWN_RATES     (birth-death, prints pi)
Prints one line per mismatch; exit status 1 when there is one.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import generator, stationary as dense_stationary  # noqa: E402

TOL = 1e-7


def solve(states, trans):
    """Stationary vector of a CTMC with one closed class (transient states
    get 0): santest.stationary, dense Gaussian elimination."""
    idx = {s: i for i, s in enumerate(states)}
    arcs = [(idx[s], idx[t], r) for s, lst in trans.items() for t, r in lst]
    return dict(zip(states, dense_stationary(generator(len(states), arcs))))


def explore(start, moves):
    """All states reachable from start; moves(s) -> [(rate, label, t)]."""
    seen, order, trans, todo = {start}, [start], {}, [start]
    while todo:
        s = todo.pop()
        lst = []
        for rate, label, t in moves(s):
            if rate <= 0:
                continue
            lst.append((t, rate, label))
            if t not in seen:
                seen.add(t)
                order.append(t)
                todo.append(t)
        trans[s] = lst
    return order, trans


def stationary(start, moves):
    order, trans = explore(start, moves)
    pi = solve(order, {s: [(t, r) for t, r, _ in l] for s, l in trans.items()})
    tput = {}
    for s, l in trans.items():
        for t, r, label in l:
            tput[label] = tput.get(label, 0.0) + pi[s] * r
    return pi, tput


def expect(pi, f):
    return sum(p * f(s) for s, p in pi.items())


# ---------------------------------------------------------------------------
# Master/slave: the rules of Baldo et al. section 5, as the issue states them.
# state = (master, slaves tuple, buffer, slices left)

def ms_ref(o):
    mode, n, k = o["mode"], int(o["N"]), int(o.get("K", 0))
    slices = o.get("work", "steady") == "slices"
    ns = int(o.get("NS", 2 * n))
    tt, tp, cm, er, pi_ = (float(o[x]) for x in ("TT", "TP", "CM", "ER", "pi"))
    r_up, r_send, r_proc, r_eval, r_down = 1 / (tt * n), 1 / tt, 1 / cm, 1 / er, 1000.0
    r_pack = 1 / (tp * n) if mode == "sync" else 1 / tp
    left0 = ns - n if slices else 0

    def moves(s):
        m, sl, b, w = s
        out = []
        idle = sl.count("I")
        if m == "ITx" and idle == n:
            out.append((r_up, "up", ("Rx", ("Pr",) * n, b, w)))
        for i, x in enumerate(sl):
            if x == "Pr":
                out.append((r_proc, "p_%d" % (i + 1), (m, sl[:i] + ("Tx",) + sl[i + 1:], b, w)))
            if x == "Tx" and (mode == "sync" and m == "Rx" or mode == "async" and b < k):
                nb = b + (mode == "async")
                for dst, pr in (("Pr", pi_), ("I", 1 - pi_)):
                    out.append((r_pack * pr, "r_%d" % (i + 1), (m, sl[:i] + (dst,) + sl[i + 1:], nb, w)))
            if mode == "async" and x == "I" and m == "Tx" and (not slices or w > 0):
                out.append((r_send, "s_%d" % (i + 1),
                             ("Rx", sl[:i] + ("Pr",) + sl[i + 1:], b, w - 1 if slices else w)))
        if mode == "async" and m == "Rx" and b > 0:
            to_tx = idle > 0 and (not slices or w > 0)
            out.append((r_eval, "c", ("Tx" if to_tx else "Rx", sl, b - 1, w)))
        if mode == "sync" and m == "Rx" and idle == n:
            out.append((r_eval, "c", ("Tx", sl, b, w)))
        if mode == "sync" and m == "Tx" and idle == n and (not slices or w > 0):
            got = min(n, w) if slices else n
            nsl = tuple("Pr" if i < got else "I" for i in range(n))
            out.append((r_send, "s", ("Rx", nsl, b, max(0, w - n) if slices else w)))
        if slices and w == 0 and idle == n and b == 0 and \
                (mode == "async" and m == "Rx" or mode == "sync" and m == "Tx"):
            out.append((r_down, "down", ("ITx", ("I",) * n, 0, left0)))
        return out

    pi, tput = stationary(("ITx", ("I",) * n, 0, left0), moves)
    cnt = lambda st: (lambda s: s[1].count(st) / n)
    res = {
        "slave_idle": expect(pi, cnt("I")),
        "slave_processing": expect(pi, cnt("Pr")),
        "slave_transmitting": expect(pi, cnt("Tx")),
        "master_itx": expect(pi, lambda s: s[0] == "ITx"),
        "master_tx": expect(pi, lambda s: s[0] == "Tx"),
        "master_rx": expect(pi, lambda s: s[0] == "Rx"),
        "pack_throughput": sum(v for e, v in tput.items() if e.startswith("r_")),
        "efficiency": expect(pi, cnt("Pr")),
        "granularity_index": expect(pi, lambda s: s[0] == "Rx"),
    }
    sends = sum(v for e, v in tput.items() if e.startswith("s_"))
    if mode == "sync":   # tasks per broadcast: all N, or what is left
        sends = 0.0
        order, trans = explore(("ITx", ("I",) * n, 0, left0), moves)
        for s, l in trans.items():
            for t, r, label in l:
                if label == "s":
                    sends += pi[s] * r * sum(1 for x in t[1] if x == "Pr")
    res["task_throughput"] = sends + tput.get("up", 0.0) * n
    if mode == "async":
        res["buffer_mean"] = expect(pi, lambda s: s[2])
        res["buffer_full"] = expect(pi, lambda s: s[2] == k)
    if slices:
        res["down_tp"] = tput["down"]
        res["execution_time"] = 1 / tput["down"] - 1 / r_down
    return res, tput


# ---------------------------------------------------------------------------
# Pipeline: explicit configuration, blocking after service, instant moves.
# state = (queue, serving: tuple of sorted phase tuples, blocked, buffers)

def pl_ref(o):
    t = [float(x) for x in o["T"].split(",")]
    m = len(t)
    p = [int(x) for x in o.get("P", ",".join(["1"] * m)).split(",")]
    kb = [int(x) for x in o["K"].split(",")] if o.get("K") else [0] * (m - 1)
    kph = int(o.get("phases", 1))
    lam = float(o["lambda"]) if "lambda" in o else None
    qcap = int(o.get("qcap", 10))
    groups = [[int(x) - 1 for x in g.split("+")] for g in o["group"].split(",")] if o.get("group") else []
    gof = list(range(m))
    for gi, g in enumerate(groups):
        for s in g:
            gof[s] = m + gi
    mu = [1 / x for x in t]

    def freeze(q, serv, blk, buf):
        return (q, tuple(tuple(sorted(x)) for x in serv), tuple(blk), tuple(buf))

    def pull(st, i):
        """A replica of stage i is free: it takes the next item, which may
        free a blocked replica upstream, and so on."""
        q, serv, blk, buf = st
        if i == 0:
            if lam is None:
                serv[0].append(1)
            elif q[0] > 0:
                q[0] -= 1
                serv[0].append(1)
            return
        if buf[i - 1] > 0:
            buf[i - 1] -= 1
            serv[i].append(1)
            if blk[i - 1] > 0:
                blk[i - 1] -= 1
                buf[i - 1] += 1
                pull(st, i - 1)
        elif blk[i - 1] > 0:
            blk[i - 1] -= 1
            serv[i].append(1)
            pull(st, i - 1)

    def complete(st, i):
        q, serv, blk, buf = st
        if i == m - 1:
            pull(st, i)
        elif p[i + 1] - len(serv[i + 1]) - blk[i + 1] > 0:
            serv[i + 1].append(1)
            pull(st, i)
        elif buf[i] < kb[i]:
            buf[i] += 1
            pull(st, i)
        else:
            blk[i] += 1

    def moves(s):
        q, serv, blk, buf = s
        out = []
        if lam is not None:
            st = ([q], [list(x) for x in serv], list(blk), list(buf))
            if p[0] - len(serv[0]) - blk[0] > 0:
                st[1][0].append(1)
                out.append((lam, "arr", freeze(st[0][0], *st[1:])))
            elif q < qcap:
                out.append((lam, "arr", (q + 1, serv, blk, buf)))
        for i in range(m):
            share = 1.0
            if gof[i] >= m:
                busy = sum(len(serv[j]) for j in range(m) if gof[j] == gof[i])
                share = 1.0 / max(1, busy)
            for ph in sorted(set(serv[i])):
                c = serv[i].count(ph)
                rate = c * kph * mu[i] * share
                st = ([q], [list(x) for x in serv], list(blk), list(buf))
                st[1][i].remove(ph)
                if ph < kph:
                    st[1][i].append(ph + 1)
                    label = "a_%d" % (i + 1)
                else:
                    complete(st, i)
                    label = "f_%d" % (i + 1)
                out.append((rate, label, freeze(st[0][0], *st[1:])))
        return out

    st = ([0], [[] for _ in range(m)], [0] * m, [0] * (m - 1))
    if lam is None:                 # every replica of stage 1 starts at once
        for _ in range(p[0]):
            pull(st, 0)
    pi, tput = stationary(freeze(st[0][0], *st[1:]), moves)
    res = {"throughput": tput.get("f_%d" % m, 0.0)}
    for i in range(m):
        u = expect(pi, lambda s: len(s[1][i]) / p[i])
        bl = expect(pi, lambda s: s[2][i] / p[i])
        res["util_%d" % (i + 1)] = u
        res["blocked_%d" % (i + 1)] = bl
        res["starved_%d" % (i + 1)] = 1 - u - bl
    for i in range(m - 1):
        if kb[i] > 0:
            res["buffer_mean_%d" % (i + 1)] = expect(pi, lambda s: s[3][i])
            res["buffer_full_%d" % (i + 1)] = expect(pi, lambda s: s[3][i] == kb[i])
    if lam is not None:
        res["buffer_mean_0"] = expect(pi, lambda s: s[0])
        res["buffer_full_0"] = expect(pi, lambda s: s[0] == qcap)
    return res, tput


def compare(ref, got, what):
    bad = 0
    for name, v in ref.items():
        if name not in got:
            print("%s: result %s missing" % (what, name))
            bad += 1
        elif abs(got[name] - v) > TOL * max(1.0, abs(v)):
            print("%s: %s = %.12g, reference %.12g" % (what, name, got[name], v))
            bad += 1
    return bad


def main():
    kind, args, path = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
    o = dict(a.split("=", 1) for a in args)
    d = json.load(open(path))
    ref, tput = (ms_ref if kind == "ms" else pl_ref)(o)
    bad = compare(ref, d["results"], kind + " " + " ".join(args))
    # the replicated slaves' events are r[1], ... (gen --expanded: r_1, ...)
    got = {re.sub(r"^(\w+)\[(\d+)\]$", r"\1_\2", e): v for e, v in d["throughputs"].items()}
    bad += compare({e: v for e, v in tput.items() if not e.startswith("a_")},
                   got, kind + " throughputs")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
