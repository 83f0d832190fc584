#!/usr/bin/env python3
"""lump_mutants.py - no asymmetric model lumped (issue 28's target: "No
asymmetric model lumped in 1,000 random mutants").

Random symmetric SANs: a controller Ctl and n = 3..5 replicas W, written
either as one declaration `aut W[i:D]` with per-replica events z[D],
a[D] (two-way routing), b[D] (synchronized with Ctl), or one by one
(W1 .. Wn with events z1 .. zn, ...); an event g of Ctl and every
replica; rates constant, over counts (nb over every replica) or over
st Ctl; a symmetric partial reachability.  Each base model must lump
its n replicas into one class (so the test fails when the detector is
too timid), and each of its mutants, one symmetry breaker applied to
replica j (or to a subset), must keep the replicas concerned apart from
the others while the others still form one class:

  read     a rate (Ctl's, g's, the replicas' own) also reads st W[j]
  result   a result on W[j] alone
  reach    the partial reachability puts W[j] in another initial state
  reachf   a non-partial reachability function reads st W[j]
  count    a count over W[1..m] only (W[m+1..n] apart)
  rate     W[j]'s own event with another rate (one by one only)
  route    W[j]'s routing probabilities differ (one by one only)
  extra    W[j] has one more transition (one by one only)
  pair     a synchronizing event of W[j] and W[k] only ({j, k} apart;
           one by one only)
  ctl      Ctl's transition on b_j leads elsewhere (one by one only)

Checked with `san check --lump auto --explore never -f json` (its
"lumped" member: the classes).  --count mutants (default 200; make
bench-long runs 1,000), 4 per base model; seeded (--seed).

Environment: SAN.  Prints "N passed, M failed" and the mutants per kind.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN  # noqa: E402


GROUP_KINDS = ["read", "result", "reach", "reachf", "count"]
HAND_KINDS = GROUP_KINDS + ["rate", "route", "extra", "pair", "ctl"]


class Base:
    """One random symmetric model: its choices, written out by text()."""

    def __init__(self, rng, hand):
        self.hand = hand
        self.n, self.s, self.c = rng.randint(3, 5), rng.randint(2, 3), rng.randint(2, 3)
        self.W = ["w%d" % k for k in range(self.s)]
        self.C = ["c%d" % k for k in range(self.c)]
        # a rate: (form, a, b, state); a replica's copy may scale a
        self.rates = {e: self.rate(rng) for e in ("z", "a", "b", "g", "k")}
        self.p = round(rng.uniform(0.1, 0.9), 3)
        # replica transitions: z cycles; a routes from asrc to two states
        self.asrc = rng.randrange(self.s)
        self.adst = rng.sample(range(self.s), 2)
        self.bsrc, self.bdst = rng.randrange(self.s), rng.randrange(self.s)
        self.gsrc = sorted(rng.sample(range(self.s), rng.randint(1, self.s)))
        self.gdst = {u: rng.randrange(self.s) for u in self.gsrc}
        # Ctl: k cycles; b and g from one state each
        self.cb = (rng.randrange(self.c), rng.randrange(self.c))
        self.cg = (rng.randrange(self.c), rng.randrange(self.c))
        self.last = rng.randrange(self.s)

    def rate(self, rng):
        return (rng.randrange(4), round(rng.uniform(0.2, 3), 3), round(rng.uniform(0.1, 2), 3),
                rng.randrange(self.s), rng.randrange(self.c))

    # names in either style
    def aut(self, i):
        return "W%d" % i if self.hand else "W[%d]" % i

    def count(self, st, lo=1, hi=None):
        hi = self.n if hi is None else hi
        return "(nb [%s..%s] %s)" % (self.aut(lo), self.aut(hi), st)

    def rate_text(self, e, scale=1.0, extra=""):
        form, a, b, w, c = self.rates[e]
        a = round(a * scale, 6)
        if form == 0:
            t = "%g" % a
        elif form == 1:
            t = "(%g + (%g * %s))" % (a, b, self.count(self.W[w]))
        elif form == 2:
            t = "(%g + (%g * (st Ctl == %s)))" % (a, b, self.C[c])
        else:
            t = "(%g * (1 + min(%s, 2)))" % (a, self.count(self.W[w]))
        return "(%s%s)" % (t, extra) if extra else t

    def text(self, mut=None):
        """The model, with mut = (kind, j, k) applied."""
        kind, j, k = mut if mut else (None, 0, 0)
        n, W, C = self.n, self.W, self.C
        read = "(0.25 * (st %s == %s))" % (self.aut(j), W[0])
        read_on = mut and kind == "read" and ["k", "g", "z", "b"][k % 4]
        ids = ["identifiers"] + (["  D = [1..%d];" % n] if not self.hand else [])
        ev = ["events"]

        def rate(e, scale=1.0):
            return self.rate_text(e, scale, " + " + read if read_on == e else "")

        if self.hand:
            for i in range(1, n + 1):
                sc = 1.5 if kind == "rate" and i == j else 1.0
                ev.append("  loc z%d (%s)" % (i, rate("z", sc)))
                ev.append("  loc a%d (%s)" % (i, rate("a")))
                ev.append("  syn b%d (%s)" % (i, rate("b")))
            if kind == "extra":
                ev.append("  loc x%d (0.7)" % j)
        else:
            ev += ["  loc z[D] (%s)" % rate("z"), "  loc a[D] (%s)" % rate("a"),
                   "  syn b[D] (%s)" % rate("b")]
        ev += ["  syn g (%s)" % rate("g"), "  loc k (%s)" % rate("k")]
        if kind == "pair":
            ev.append("  syn pr (1.3)")
        everyone = "(%s == %d)" % (self.count(W[0]), n)
        if kind == "reach":
            init = "((st Ctl == c0) && (st %s == %s) && (%s == %d))" % (
                self.aut(j), W[1], self.count(W[0]), n - 1)
            reach = "partial reachability = %s;" % init
        elif kind == "reachf":
            reach = "reachability = ((%s >= 1) || (st %s == %s));" % (
                self.count(W[0]), self.aut(j), W[1])
        else:
            reach = "partial reachability = ((st Ctl == c0) && %s);" % everyone
        net = ["network rnd (continuous)", "  aut Ctl"]
        fam = (lambda e, i: "%s%d" % (e, i)) if self.hand else (lambda e, i: "%s[i]" % e)
        for x in range(self.c):
            tr = ["to(%s) k" % C[(x + 1) % self.c]]
            if x == self.cb[0]:
                if self.hand:
                    bs = [i for i in range(1, n + 1) if not (kind == "ctl" and i == j)]
                    tr.append("to(%s) %s" % (C[self.cb[1]], " ".join("b%d" % i for i in bs)))
                    if kind == "ctl":   # b_j leads elsewhere
                        other = (self.cb[1] + 1) % self.c
                        tr.append("to(%s) b%d" % (C[other], j))
                else:
                    tr.append("to(%s) b[D]" % C[self.cb[1]])
            if x == self.cg[0]:
                tr.append("to(%s) g" % C[self.cg[1]])
            net.append("    stt %s %s" % (C[x], " ".join(tr)))
        insts = range(1, n + 1) if self.hand else [None]
        for i in insts:
            net.append("  aut %s" % (self.aut(i) if self.hand else "W[i:D]"))
            for u in range(self.s):
                tr = ["to(%s) %s" % (W[(u + 1) % self.s], fam("z", i))]
                if u == self.asrc:
                    p = self.p if not (kind == "route" and i == j) else round(1 - self.p / 2, 4)
                    tr.append("to(%s) %s(%s)" % (W[self.adst[0]], fam("a", i), p))
                    tr.append("to(%s) %s(%s)" % (W[self.adst[1]], fam("a", i),
                                                 round(1 - p, 4)))
                if u == self.bsrc:
                    tr.append("to(%s) %s" % (W[self.bdst], fam("b", i)))
                if u in self.gsrc:
                    tr.append("to(%s) g" % W[self.gdst[u]])
                if kind == "extra" and i == j and u == 0:
                    tr.append("to(%s) x%d" % (W[1], j))
                net.append("    stt %s %s" % (W[u], " ".join(tr)))
        if kind == "pair":
            net = self.pair_hand(net, j, k)
        res = ["results", "  r0 = %s;" % self.count(W[self.last]), "  r1 = st Ctl;",
               "  r2 = %s * (st Ctl == c0);" % self.count(W[0])]
        if kind == "result":
            res.append("  rj = st %s == %s;" % (self.aut(j), W[-1]))
        if kind == "count":
            res.append("  some = %s;" % self.count(W[0], 1, j))
        return "\n".join(ids + ev + [reach] + net + res) + "\n"

    def pair_hand(self, net, j, k):
        """W_j and W_k take part in pr from their state w0."""
        out, cur = [], None
        for l in net:
            if l.startswith("  aut "):
                cur = l[6:]
            if cur in (self.aut(j), self.aut(k)) and l.startswith("    stt %s " % self.W[0]):
                l += " to(%s) pr" % self.W[1]
            out.append(l)
        return out


def classes(summary):
    """"W[1,3..4] (3 replicas of 2 states), W[2,5] (2 ...)" -> [{names}]."""
    out = []
    for name in re.findall(r"(.+?) \(\d+ replicas of \d+ states\)(?:, |$)", summary or ""):
        m = re.fullmatch(r"(.+)\[([0-9.,]+)\]", name)
        if m:
            mem = set()
            for part in m.group(2).split(","):
                lo, _, hi = part.partition("..")
                mem |= {"%s[%d]" % (m.group(1), x) for x in range(int(lo), int(hi or lo) + 1)}
            out.append(mem)
        else:
            out.append(set(name.split(", ")))
    return out


def lumped(text):
    """(the classes of san check --lump auto, or None; an error)."""
    p = subprocess.run([SAN, "check", "--lump", "auto", "--explore", "never", "-f", "json",
                        "--no-peps-warnings", "-"], input=text, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:])
    rep = json.loads(p.stdout)
    if not rep.get("valid"):
        return None, "invalid: %s" % p.stderr.strip()[-300:]
    return classes(rep.get("lumped", {}).get("classes")), None


def judge(base, text, mut):
    """'' when the lumping is as expected, else why not."""
    got, err = lumped(text)
    if err:
        return err
    names = {base.aut(i) for i in range(1, base.n + 1)}
    if mut is None:
        want = [names]
        return "" if got == want else "base: classes %s, want all %d together" % (got, base.n)
    kind, j, k = mut
    apart = {base.aut(j)} | ({base.aut(k)} if kind == "pair" else set())
    if kind == "count":      # nb over W[1..j]: W[j+1..n] apart
        apart = {base.aut(i) for i in range(j + 1, base.n + 1)}
    rest = names - apart
    for c in got:
        if c & apart and c & rest:
            return "%s: %s lumped with %s" % (kind, sorted(c & apart), sorted(c & rest))
    if len(rest) >= 2 and rest not in got:
        return "%s: the untouched replicas %s are not one class (%s)" % (kind, sorted(rest), got)
    return ""


def cases(count, seed):
    """(base, text, mut) for the bases and count mutants, 4 a base."""
    rng = random.Random(seed)
    out, made = [], 0
    while made < count:
        base = Base(rng, hand=rng.random() < 0.5)
        out.append((base, base.text(), None))
        for _ in range(min(4, count - made)):
            kinds = HAND_KINDS if base.hand else GROUP_KINDS
            kind = rng.choice(kinds)
            j, k = rng.sample(range(1, base.n + 1), 2)
            if kind == "count":
                j = rng.randint(1, base.n - 1)
                if base.n - j < 1:
                    continue
            out.append((base, base.text((kind, j, k)), (kind, j, k)))
            made += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=int(os.environ.get("LUMP_MUTANTS", 200)))
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", action="store_true", help="print each failing model")
    a = ap.parse_args()
    todo = cases(a.count, a.seed)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        verdicts = list(pool.map(lambda c: judge(*c), todo))
    passed = failed = 0
    per = {}
    for (base, text, mut), why in zip(todo, verdicts):
        kind = mut[0] if mut else "base"
        key = "%s/%s" % (kind, "hand" if base.hand else "group")
        per[key] = per.get(key, 0) + 1
        if why:
            failed += 1
            print("FAIL:", why)
            if a.show:
                print(text)
        else:
            passed += 1
    print("models: " + ", ".join("%s %d" % kv for kv in sorted(per.items())))
    print("%d mutants, %d bases" % (sum(1 for _, _, m in todo if m), sum(1 for _, _, m in todo
                                                                         if not m)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
