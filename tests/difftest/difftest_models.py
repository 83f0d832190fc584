#!/usr/bin/env python3
"""difftest_models.py - the models of the differential tester (difftest.py)
and their exact answers, without san.

Random small SANs are built in this module's own data structure
(expressions, automata, events, transitions), written as .san text, and
turned into their CTMC by this module's own reading of the language
(doc/san.5): the reachable states, the closed class, the off-diagonal
rates.  The stationary vector comes from tests/dense_ref (GTH in long
double), and the marginals, throughputs and results from it.  The
generators of the families (plain, span4, span6, decades, ncd, repl, sym) are here
too; difftest.py runs san and judges.
"""
import hashlib
import itertools
import json
import math
import os
import random
import subprocess
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))

class GenReject(Exception):
    """The generated model is unusable (several closed classes, too big, an
    invalid routing probability somewhere): draw another one."""


# ---------------------------------------------------------------------------
# Expressions: a small subset of the language, each node knowing how it is
# written and what it is worth in a global state.  Everything is written
# fully parenthesized, so C precedence and PEPS's left-to-right reading
# agree and san has nothing to warn about.
# ---------------------------------------------------------------------------

def num_text(v):
    """A float as san reads it back exactly (Python's shortest repr)."""
    t = repr(float(v))
    return t[:-2] if t.endswith(".0") else t


class Expr:
    def eval(self, m, s):
        raise NotImplementedError

    def text(self):
        raise NotImplementedError


class Num(Expr):
    def __init__(self, v, txt=None):
        self.txt = txt if txt is not None else num_text(v)
        self.v = float(self.txt)        # the value san will read

    def eval(self, m, s):
        return self.v

    def text(self):
        return self.txt


class Text(Expr):
    """Text written as is where a value is never read (a domain)."""
    def __init__(self, txt):
        self.txt = txt

    def eval(self, m, s):
        raise TypeError("a domain has no value")

    def text(self):
        return self.txt


class Ref(Expr):
    """A use of an identifier (constant or function)."""
    def __init__(self, name, expr):
        self.name, self.expr = name, expr

    def eval(self, m, s):
        return self.expr.eval(m, s)

    def text(self):
        return self.name


class St(Expr):
    """st A: the index of A's current local state."""
    def __init__(self, m, a):
        self.a, self.aname = a, m.auts[a].name

    def eval(self, m, s):
        return float(s[self.a])

    def text(self):
        return "(st %s)" % self.aname


class StIs(Expr):
    """st A == name (or !=): the state name resolves in A."""
    def __init__(self, m, a, k, neg=False):
        self.a, self.k, self.neg = a, k, neg
        self.aname, self.sname = m.auts[a].name, m.auts[a].states[k]

    def eval(self, m, s):
        return float((s[self.a] == self.k) != self.neg)

    def text(self):
        return "(st %s %s %s)" % (self.aname, "!=" if self.neg else "==", self.sname)


class Nb(Expr):
    """nb [A..B] S, or nb S over every automaton: counted by state name."""
    def __init__(self, m, lo, hi, sname, whole=False):
        self.lo, self.hi, self.sname, self.whole = lo, hi, sname, whole
        self.loname, self.hiname = m.auts[lo].name, m.auts[hi].name

    def eval(self, m, s):
        # `nb S` counts over every automaton of the finished model,
        # replicas added after this expression was made included
        hi = len(m.auts) - 1 if self.whole else self.hi
        return float(sum(1 for a in range(self.lo, hi + 1)
                         if m.auts[a].states[s[a]] == self.sname))

    def text(self):
        if self.whole:
            return "(nb %s)" % self.sname
        return "(nb [%s..%s] %s)" % (self.loname, self.hiname, self.sname)


class IdxProb(Expr):
    """A routing probability of a replicated automaton that reads its
    index variable (san(5)): (c0 + c1 i) / 10, or 1 minus it, written with
    i once for all replicas and worth replica k's value in replica k."""
    def __init__(self, c0, c1, comp, k=0):
        self.c0, self.c1, self.comp, self.k = c0, c1, comp, k

    def for_replica(self, k):
        return IdxProb(self.c0, self.c1, self.comp, k)

    def eval(self, m, s):
        p = (self.c0 + self.c1 * self.k) / 10
        return 1 - p if self.comp else p

    def text(self):
        p = "((%d + (%d * i)) / 10)" % (self.c0, self.c1)
        return "(1 - %s)" % p if self.comp else p


def _c_bool(x):
    return 1.0 if x else 0.0


BINOPS = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
    "==": lambda x, y: _c_bool(x == y),
    "!=": lambda x, y: _c_bool(x != y),
    "<": lambda x, y: _c_bool(x < y),
    "<=": lambda x, y: _c_bool(x <= y),
    ">": lambda x, y: _c_bool(x > y),
    ">=": lambda x, y: _c_bool(x >= y),
    "&&": lambda x, y: _c_bool(x != 0 and y != 0),
    "||": lambda x, y: _c_bool(x != 0 or y != 0),
}


class Bin(Expr):
    def __init__(self, op, l, r):
        self.op, self.l, self.r = op, l, r

    def eval(self, m, s):
        return BINOPS[self.op](self.l.eval(m, s), self.r.eval(m, s))

    def text(self):
        return "(%s %s %s)" % (self.l.text(), self.op, self.r.text())


class Not(Expr):
    def __init__(self, x):
        self.x = x

    def eval(self, m, s):
        return _c_bool(self.x.eval(m, s) == 0)

    def text(self):
        return "(!%s)" % self.x.text()


class MinMax(Expr):
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def eval(self, m, s):
        vals = [x.eval(m, s) for x in self.args]
        return min(vals) if self.fn == "min" else max(vals)

    def text(self):
        return "%s(%s)" % (self.fn, ", ".join(x.text() for x in self.args))


def conj(terms, op="&&"):
    e = terms[0]
    for t in terms[1:]:
        e = Bin(op, e, t)
    return e


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------

class Aut:
    """An automaton: its name as san reports it (A, P[1]), its states by
    name, and how it is written:
      letter   prefix of its state and event names;
      block    for a block of states block[0..n-1] (else None), with
      clauses  its block-level transitions [(offset, event)]: to(++),
               to(--), to(+2), to(=) ... for every state where the
               destination falls inside the block;
      group    (name, first automaton, count) for replicas P[0..r-1] of
               one written automaton."""
    def __init__(self, name, states, letter, block=None):
        self.name, self.states, self.letter, self.block = name, states, letter, block
        self.clauses = []
        self.group = None


class Event:
    """One event as san reports it (a replicated automaton's local event
    is one event per replica, reported as e@P[i], declared once as e)."""
    def __init__(self, name, sync, rate, listed=False):
        self.name, self.sync, self.rate = name, sync, rate
        self.base = name                # the declared name
        self.listed = listed            # write the informational automaton list
        self.own = 0                    # r > 0: one of e[0..r-1], a replica's own


class Trans:
    """A transition; clause: written by a block-level clause (to(++) ...)."""
    def __init__(self, a, src, e, dst, prob=None, clause=False):
        self.a, self.src, self.e, self.dst, self.prob = a, src, e, dst, prob
        self.clause = clause
        self.each = None                # (domain, k): one of e[D] written once


class Model:
    def __init__(self, name):
        self.name = name
        self.auts = []
        self.events = []
        self.trans = []
        self.idents = []                # (name, Expr), declaration order
        self.reach_kind = "full"        # full | func | partial
        self.reach = Num(1)
        self.results = []               # (name, Expr)
        self.notes = []                 # the generator's choices, as comments

    # -- building helpers ---------------------------------------------------
    def add_aut(self, letter, n, shared=(), name=None):
        """Automaton `letter` with n states named a0, a1, ... except the
        positions given in shared, named by the shared name (for nb)."""
        names = ["%s%d" % (letter.lower(), k) for k in range(n)]
        for k, nm in shared:
            names[k] = nm
        self.auts.append(Aut(name or letter, names, letter.lower()))
        return len(self.auts) - 1

    def add_block_aut(self, letter, n):
        """Automaton `letter` whose states are one block q<letter>[0..n-1]."""
        block = "q" + letter.lower()
        names = ["%s[%d]" % (block, k) for k in range(n)]
        self.auts.append(Aut(letter, names, letter.lower(), block))
        return len(self.auts) - 1

    def add_clause(self, a, offset, e):
        """to(++) e (offset 1), to(--) e, to(+k), to(=): the transitions of
        every state of a's block whose destination is in the block."""
        A = self.auts[a]
        A.clauses.append((offset, e))
        for k in range(len(A.states)):
            if 0 <= k + offset < len(A.states):
                self.add_trans(a, k, e, k + offset, clause=True)

    def ident(self, prefix, expr):
        name = "%s%d" % (prefix, len(self.idents) + 1)
        self.idents.append((name, expr))
        return Ref(name, expr)

    def add_event(self, prefix, sync, rate, listed=False):
        name = "%s%d" % (prefix, sum(1 for e in self.events if e.base.startswith(prefix)) + 1)
        self.events.append(Event(name, sync, rate, listed))
        return len(self.events) - 1

    def add_trans(self, a, src, e, dst, prob=None, clause=False):
        self.trans.append(Trans(a, src, e, dst, prob, clause))

    def replicate(self, a, r, own=()):
        """Make the last automaton a the first of r replicas P[0..r-1]:
        every replica has its transitions, its own copy of each of its
        local events, the same synchronizing events but those of own,
        which become e[0..r-1] (replicated events, san(5)): replica k takes
        part in e[k] only, written aut P[i:D] ... e[i]; every other
        automaton that had e takes part in each e[k] from the same
        transitions, written e[D] once."""
        assert a == len(self.auts) - 1
        A = self.auts[a]
        gname = A.name.split("[")[0]
        A.group = (gname, a, r)
        own_of = {}                     # e -> [e[0], ..., e[r-1]]
        if own:
            dom = "D_%s" % gname
            self.idents.append((dom, Text("[0..%d]" % (r - 1))))
            A.group = (gname, a, r, dom)
        for e in own:
            E = self.events[e]
            E.own, E.listed, E.name = r, False, "%s[0]" % E.base
            own_of[e] = [e]
            for k in range(1, r):
                self.events.append(Event("%s[%d]" % (E.base, k), True, E.rate))
                self.events[-1].base, self.events[-1].own = E.base, r
                own_of[e].append(len(self.events) - 1)
            for t in [t for t in self.trans if t.e == e and t.a != a]:
                t.each = (dom, 0)
                for k in range(1, r):
                    self.add_trans(t.a, t.src, own_of[e][k], t.dst, t.prob, t.clause)
                    self.trans[-1].each = (dom, k)
        local = [e for e in range(len(self.events))
                 if not self.events[e].sync and self.users(e) == [a]]
        mine = [t for t in self.trans if t.a == a]
        for i in range(1, r):
            B = Aut("%s[%d]" % (gname, i), list(A.states), A.letter)
            B.group = A.group
            self.auts.append(B)
            copy = {}
            for e in local:
                E = self.events[e]
                self.events.append(Event("%s@%s" % (E.base, B.name), False, E.rate))
                self.events[-1].base = E.base
                copy[e] = len(self.events) - 1
            for e, evs in own_of.items():
                copy[e] = evs[i]
            for t in mine:
                prob = t.prob.for_replica(i) if isinstance(t.prob, IdxProb) else t.prob
                self.add_trans(a + i, t.src, copy.get(t.e, t.e), t.dst, prob)
        for e in local:
            self.events[e].name = "%s@%s" % (self.events[e].base, A.name)

    def users(self, e):
        return sorted({t.a for t in self.trans if t.e == e})

    def product(self):
        return math.prod(len(A.states) for A in self.auts)

    # -- the .san text ---------------------------------------------------------
    def san_text(self):
        out = ["// generated by tests/difftest.py"]
        out += ["// " + n for n in self.notes]
        out.append("identifiers")
        for name, expr in self.idents:
            out.append("  %s = %s;" % (name, expr.text()))
        out.append("")
        out.append("events")
        declared = set()
        for k, E in enumerate(self.events):
            if E.base in declared:
                continue                # a replica's copy
            declared.add(E.base)
            dom = "[0..%d]" % (E.own - 1) if E.own else ""
            line = "  %s %s%s (%s)" % ("syn" if E.sync else "loc", E.base, dom, E.rate.text())
            users = self.users(k)
            if E.listed and users and E.base == E.name:
                line += " {%s}" % ", ".join(self.auts[a].name for a in users)
            out.append(line)
        out.append("")
        out.append("%sreachability = %s;" % ("partial " if self.reach_kind == "partial" else "",
                                             self.reach.text()))
        out.append("")
        out.append("network %s (continuous)" % self.name)
        for a, A in enumerate(self.auts):
            if A.group and A.group[1] != a:
                continue                # written with the first replica
            out += self.aut_text(a)
        out.append("")
        out.append("results")
        for name, expr in self.results:
            out.append("  %s = %s;" % (name, expr.text()))
        return "\n".join(out) + "\n"

    def label(self, t):
        E = self.events[t.e]
        lab = E.base
        if t.each:
            lab += "[%s]" % t.each[0]   # e[D]: every e[k] from here
        elif E.own:
            lab += "[i]"                # the replica's own e[k]
        return lab + ("(%s)" % t.prob.text() if t.prob is not None else "")

    def aut_text(self, a):
        A = self.auts[a]
        name = A.name if not A.group else "%s[0..%d]" % (A.group[0], A.group[2] - 1)
        if A.group and len(A.group) > 3:
            name = "%s[i:%s]" % (A.group[0], A.group[3])
        out = ["  aut %s" % name]
        own = [t for t in self.trans if t.a == a and not t.clause
               and not (t.each and t.each[1] > 0)]
        if A.block is None:
            for k, sname in enumerate(A.states):
                out.append("    stt %s" % sname)
                out += ["      to(%s) %s" % (A.states[t.dst], self.label(t))
                        for t in own if t.src == k]
            return out
        out.append("    stt %s[0..%d]" % (A.block, len(A.states) - 1))
        for off, e in A.clauses:
            dst = "=" if off == 0 else "++" if off == 1 else "--" if off == -1 else "%+d" % off
            assert not self.events[e].own   # gen_repl writes no blocks
            out.append("      to(%s) %s" % (dst, self.events[e].base))
        for k, sname in enumerate(A.states):
            mine = [t for t in own if t.src == k]
            if mine:
                out.append("    from %s" % sname)
                out += ["      to(%s) %s" % (A.states[t.dst], self.label(t)) for t in mine]
        return out


# ---------------------------------------------------------------------------
# The independent semantics: reachable states, classes, the CTMC
# ---------------------------------------------------------------------------

class Chain:
    """The model's CTMC, built from the model's own data structure."""

    def __init__(self, m):
        self.m = m
        self.sizes = [len(A.states) for A in m.auts]
        self.users = [m.users(e) for e in range(len(m.events))]
        # (automaton, local state, event) -> [(dst, prob expr or None)]
        self.outcomes = {}
        for t in m.trans:
            self.outcomes.setdefault((t.a, t.src, t.e), []).append((t.dst, t.prob))

    def rate_if_enabled(self, e, s):
        """The event's rate in s if every participant can fire it, else 0
        (and 0 for an event on no transition)."""
        users = self.users[e]
        if not users or any((a, s[a], e) not in self.outcomes for a in users):
            return 0.0
        r = self.m.events[e].rate.eval(self.m, s)
        if not (r >= 0 and math.isfinite(r)):
            raise GenReject("rate of %s is %r in %r" % (self.m.events[e].name, r, s))
        return r

    def probs(self, e, a, s):
        """Routing probabilities of e's outcomes for participant a in s."""
        outs = self.outcomes[(a, s[a], e)]
        ps = [1.0 if p is None else p.eval(self.m, s) for _, p in outs]
        if any(not (0 <= p <= 1) for p in ps) or abs(math.fsum(ps) - 1) > 1e-12:
            raise GenReject("routing of %s in %s is %r in %r"
                            % (self.m.events[e].name, self.m.auts[a].name, ps, s))
        return [(d, p) for (d, _), p in zip(outs, ps)]

    def arcs(self, s):
        """Off-diagonal transitions out of s: (destination, rate)."""
        out = []
        for e in range(len(self.m.events)):
            r = self.rate_if_enabled(e, s)
            if r == 0:
                continue
            users = self.users[e]
            choices = [self.probs(e, a, s) for a in users]
            for combo in itertools.product(*choices):
                rate, t = r, list(s)
                for a, (dst, p) in zip(users, combo):
                    rate *= p
                    t[a] = dst
                t = tuple(t)
                if rate > 0 and t != s:
                    out.append((t, rate))
        return out

    def explore(self):
        """Reachable states (sorted) and their arcs: the states the
        reachability expression accepts, closed under the transitions."""
        m = self.m
        seeds = [s for s in itertools.product(*[range(k) for k in self.sizes])
                 if m.reach.eval(m, s) != 0]
        if not seeds:
            raise GenReject("the reachability function accepts no state")
        seen, todo, arcs = set(seeds), list(seeds), {}
        while todo:
            s = todo.pop()
            arcs[s] = self.arcs(s)
            for t, _ in arcs[s]:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return sorted(seen), arcs


def strongly_connected(states, arcs):
    """Component number of every state (Kosaraju, iterative)."""
    order, done = [], set()
    for root in states:
        if root in done:
            continue
        done.add(root)
        stack = [(root, iter(arcs[root]))]
        while stack:
            v, it = stack[-1]
            for w, _ in it:
                if w not in done:
                    done.add(w)
                    stack.append((w, iter(arcs[w])))
                    break
            else:
                stack.pop()
                order.append(v)
    back = {s: [] for s in states}
    for s in states:
        for t, _ in arcs[s]:
            back[t].append(s)
    comp, c = {}, 0
    for root in reversed(order):
        if root in comp:
            continue
        comp[root] = c
        stack = [root]
        while stack:
            v = stack.pop()
            for w in back[v]:
                if w not in comp:
                    comp[w] = c
                    stack.append(w)
        c += 1
    return comp, c


def closed_class(m, states, arcs):
    """(the states san keeps, the one closed class) or GenReject.

    Without `partial`, closed classes that no edge enters, other than the
    unique largest closed class, are isolated pockets that san drops."""
    comp, nc = strongly_connected(states, arcs)
    open_, entered = [False] * nc, [False] * nc
    size = [0] * nc
    for s in states:
        size[comp[s]] += 1
        for t, _ in arcs[s]:
            if comp[t] != comp[s]:
                open_[comp[s]] = True
                entered[comp[t]] = True
    closed = [c for c in range(nc) if not open_[c]]
    if len(closed) > 1 and m.reach_kind != "partial":
        big = max(size[c] for c in closed)
        largest = [c for c in closed if size[c] == big]
        if len(largest) == 1 and not any(entered[c] for c in closed if c != largest[0]):
            pockets = set(closed) - set(largest)
            states = [s for s in states if comp[s] not in pockets]
            closed = largest
            m.notes.append("isolated pockets dropped: %d state(s)" %
                           sum(size[c] for c in pockets))
    if len(closed) != 1:
        raise GenReject("%d closed classes" % len(closed))
    return states, [s for s in states if comp[s] == closed[0]]


# ---------------------------------------------------------------------------
# The reference solution
# ---------------------------------------------------------------------------

def find_dense_ref(tmpdir):
    """The reference program: $DENSE_REF, the build tree's, or compiled."""
    env = os.environ.get("DENSE_REF")
    if env:
        return env
    dirs = []
    if os.environ.get("top_builddir"):
        dirs.append(os.path.join(os.environ["top_builddir"], "tests", "difftest"))
    if os.environ.get("SAN"):
        dirs.append(os.path.join(os.path.dirname(os.path.abspath(os.environ["SAN"])), "tests", "difftest"))
    dirs.append(HERE)
    for d in dirs:
        p = os.path.join(d, "dense_ref")
        if os.access(p, os.X_OK):
            return p
    exe = os.path.join(tmpdir, "dense_ref")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-o", exe, os.path.join(HERE, "dense_ref.c")], check=True)
    return exe


def find_san():
    if os.environ.get("SAN"):
        return os.environ["SAN"]
    return os.path.join(os.path.dirname(HERE), "san")


def gth(dense_ref, states, arcs):
    """pi on the closed class `states` (irreducible), by tests/dense_ref."""
    num = {s: i for i, s in enumerate(states)}
    lines = [str(len(states))]
    for s in states:
        for t, r in arcs[s]:
            lines.append("%d %d %s" % (num[s], num[t], repr(r)))
    p = subprocess.run([dense_ref], input="\n".join(lines) + "\n", capture_output=True,
                       text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("dense_ref failed: " + p.stderr.strip())
    pi = [float(x) for x in p.stdout.split()]
    if len(pi) != len(states):
        raise RuntimeError("dense_ref printed %d numbers for %d states" % (len(pi), len(states)))
    return pi


class Reference:
    """What san must print: every kept state's probability, and the
    marginals, throughputs and results with the scale S of their floor."""

    def __init__(self, auts, states, pi, marg, thr, res):
        self.auts = auts                # automaton names
        self.states = states            # tuples of local state names
        self.pi = pi
        self.marg = marg                # {aut: {state: [value, S]}}
        self.thr = thr                  # {event: [value, S]}
        self.res = res                  # {result: [value, S]}

    def to_json(self):
        return json.dumps({"auts": self.auts, "states": [list(s) for s in self.states],
                           "pi": self.pi, "marginals": self.marg, "throughputs": self.thr,
                           "results": self.res}, indent=1)

    @staticmethod
    def from_json(text):
        d = json.loads(text)
        return Reference(d["auts"], [tuple(s) for s in d["states"]], d["pi"],
                         d["marginals"], d["throughputs"], d["results"])


def reference(m, dense_ref, max_n):
    """Explore, check the classes, solve, and compute the indices."""
    ch = Chain(m)
    states, arcs = ch.explore()
    if len(states) > max_n:
        raise GenReject("%d reachable states" % len(states))
    states, closed = closed_class(m, states, arcs)
    if len(closed) < 2:
        raise GenReject("a closed class of one state")
    pi_closed = dict(zip(closed, gth(dense_ref, closed, arcs)))
    pi = [pi_closed.get(s, 0.0) for s in states]

    marg = {A.name: {q: [0.0, 0] for q in A.states} for A in m.auts}
    for a, A in enumerate(m.auts):
        for q in range(len(A.states)):
            terms = [p for s, p in zip(states, pi) if s[a] == q]
            marg[A.name][A.states[q]] = [math.fsum(terms), len(terms)]
    thr = {}
    for e, E in enumerate(m.events):
        rates = [ch.rate_if_enabled(e, s) for s in states]
        thr[E.name] = [math.fsum(p * r for p, r in zip(pi, rates)), math.fsum(rates)]
    res = {}
    for name, expr in m.results:
        vals = [expr.eval(m, s) for s in states]
        res[name] = [math.fsum(p * v for p, v in zip(pi, vals)), math.fsum(abs(v) for v in vals)]
    names = [tuple(m.auts[a].states[k] for a, k in enumerate(s)) for s in states]
    m.notes.append("%d reachable states, %d in the closed class, product %d"
                   % (len(states), len(closed), m.product()))
    return Reference([A.name for A in m.auts], names, pi, marg, thr, res)


# ---------------------------------------------------------------------------
# Random models
# ---------------------------------------------------------------------------

SHARED_NAMES = ["busy", "idle"]


def sig4(x):
    """Four significant digits: short, exact model text."""
    return float("%.4g" % x)


class Gen:
    """Random choices of one model: the family decides the rates."""

    def __init__(self, rng, family):
        self.rng, self.family = rng, family

    def rate(self):
        r = self.rng
        if self.family == "span4":
            return sig4(10 ** r.uniform(-4, 4))
        if self.family == "span6":
            return sig4(10 ** r.uniform(-6, 6))
        if self.family == "decades":
            return float(10.0 ** r.choice([-4, -2, 0, 2, 4]))
        if self.family == "ncd":
            return sig4(r.uniform(1, 10))
        return sig4(r.uniform(0.5, 5))

    def eps(self):
        return sig4(10 ** self.rng.uniform(-8, -6))

    # -- pieces of models ----------------------------------------------------
    def automata(self, m, sizes, p_block=0.0, replicated=False):
        """Automata A, B, ... of the given sizes; some states carry a
        shared name (busy, idle) so that nb has something to count; some
        automata are one block of states (a queue); with replicated, the
        last is P[0], to be replicated when its transitions are made."""
        for a, n in enumerate(sizes):
            last = replicated and a == len(sizes) - 1
            letter = "P" if last else "ABCD"[a]
            if self.rng.random() < p_block:
                m.add_block_aut(letter, n)
                if last:
                    m.auts[-1].name = "P[0]"
                continue
            shared = []
            if self.rng.random() < 0.6:
                ks = self.rng.sample(range(n), min(n, self.rng.randint(1, 2)))
                shared = list(zip(ks, SHARED_NAMES))
            m.add_aut(letter, n, shared, "P[0]" if last else None)

    def state_test(self, m, a=None):
        """A boolean: st X == x / != x, or an nb comparison."""
        r = self.rng
        if a is None:
            a = r.randrange(len(m.auts))
        if r.random() < 0.25:
            nb = self.nb_expr(m)
            if nb is not None:
                return Bin(r.choice(["<", "<=", ">=", "=="]), nb, Num(r.randint(0, 2)))
        return StIs(m, a, r.randrange(len(m.auts[a].states)), neg=r.random() < 0.3)

    def nb_expr(self, m):
        """nb over a range holding a shared name, or None."""
        r = self.rng
        lo = r.randrange(len(m.auts))
        hi = r.randrange(lo, len(m.auts))
        names = sorted({q for a in range(lo, hi + 1) for q in m.auts[a].states
                        if q in SHARED_NAMES})
        if not names:
            return None
        whole = lo == 0 and hi == len(m.auts) - 1 and r.random() < 0.5
        return Nb(m, lo, hi, r.choice(names), whole)

    def func_rate(self, m, scale=None):
        """A non-negative function of the state, as an identifier."""
        r = self.rng
        rate = scale or self.rate
        form = r.randrange(7)
        if form == 0:       # gated: 0 where the test fails when r2 = 0
            r2 = 0.0 if r.random() < 0.4 else rate()
            e = Bin("+", Bin("*", self.state_test(m), Num(rate())), Num(r2))
        elif form == 1:
            nb = self.nb_expr(m)
            if nb is None:
                return self.func_rate(m, scale)
            e = Bin("*", Num(rate()), nb)
        elif form == 2:
            e = Bin("*", Num(rate()), Bin("||", self.state_test(m), self.state_test(m)))
        elif form == 3:
            a = r.randrange(len(m.auts))
            e = Bin("*", Num(rate()), Bin("+", St(m, a), Num(1)))
        elif form == 4:
            a = r.randrange(len(m.auts))
            e = Bin("/", Num(rate()), Bin("+", St(m, a), Num(1)))
        elif form == 5:
            a = r.randrange(len(m.auts))
            e = MinMax(r.choice(["min", "max"]),
                       [Num(rate()), Bin("*", Num(rate()), Bin("+", St(m, a), Num(1)))])
        else:               # one rate per local state of another automaton
            a = r.randrange(len(m.auts))
            e = conj([Bin("*", StIs(m, a, k), Num(rate()))
                      for k in range(len(m.auts[a].states))], "+")
        return m.ident("fn", e)

    def rate_expr(self, m, p_func=0.3, scale=None):
        """A rate: a number, a constant identifier or a function."""
        r = self.rng
        rate = scale or self.rate
        x = r.random()
        if x < p_func:
            return self.func_rate(m, scale)
        if x < p_func + (1 - p_func) / 2:
            return m.ident("k", Num(rate()))
        return Num(rate())

    def split(self, k):
        """k routing probabilities, decimals of 3 digits summing to 1."""
        cuts = sorted(self.rng.sample(range(1, 1000), k - 1))
        parts = [b - a for a, b in zip([0] + cuts, cuts + [1000])]
        return [Num(0, str(Decimal(p) / 1000)) for p in parts]

    def func_split(self, m):
        """Two functional routing probabilities pf and 1 - pf."""
        r = self.rng
        c0 = r.randint(0, 6)
        c1 = r.randint(0, 10 - c0)
        pf = m.ident("pr", Bin("+", Num(0, str(Decimal(c0) / 10)),
                               Bin("*", self.state_test(m), Num(0, str(Decimal(c1) / 10)))))
        qf = m.ident("pr", Bin("-", Num(1), pf))
        return [pf, qf]

    def outcomes(self, m, a, src, e, k, p_func=0.25, allow_self=False):
        """k transitions of event e from src in automaton a (distinct
        destinations unless chance repeats one), with probabilities."""
        n = len(m.auts[a].states)
        pool = [d for d in range(n) if d != src or allow_self]
        if len(pool) >= k and self.rng.random() < 0.85:
            dsts = self.rng.sample(pool, k)
        else:                           # repeats add up
            dsts = [self.rng.choice(pool) for _ in range(k)]
        if k == 1:
            probs = [None]
        elif k == 2 and self.rng.random() < p_func:
            probs = self.func_split(m)
        else:
            probs = self.split(k)
        for d, p in zip(dsts, probs):
            m.add_trans(a, src, e, d, p)

    def local_events(self, m, a, p_func=0.3, extra=None, p_route=0.35):
        """A cycle through a's states plus a few more edges, each a local
        event (sometimes one event on several sources), and maybe one
        event with several outcomes."""
        r = self.rng
        n = len(m.auts[a].states)
        perm = list(range(n))
        r.shuffle(perm)
        edges = [(perm[i], perm[(i + 1) % n]) for i in range(n)]
        for _ in range(r.randint(0, n) if extra is None else extra):
            u, v = r.sample(range(n), 2)
            edges.append((u, v))
        if r.random() < 0.05:
            u = r.randrange(n)
            edges.append((u, u))        # a local self-loop: no effect, fires
        mine = []                       # this automaton's local events
        for u, v in edges:
            reuse = [e for e in mine
                     if not any(t.a == a and t.src == u and t.e == e for t in m.trans)]
            if reuse and r.random() < 0.25:
                e = r.choice(reuse)
            else:
                e = m.add_event("l" + m.auts[a].letter, False,
                                self.rate_expr(m, p_func), r.random() < 0.2)
                mine.append(e)
            m.add_trans(a, u, e, v)
        if r.random() < p_route:        # routing: one more outcome or two
            u = r.randrange(n)
            e = m.add_event("l" + m.auts[a].letter, False, self.rate_expr(m, p_func))
            self.outcomes(m, a, u, e, r.randint(2, 3))

    def block_events(self, m, a):
        """A queue: to(++) and to(--) over a's block (dropped at its ends),
        sometimes to(+2) or to(-2), rarely to(=) (a local self-loop that
        fires), and a few explicit `from` transitions."""
        r = self.rng
        n = len(m.auts[a].states)
        offsets = [1, -1]
        if n >= 3 and r.random() < 0.3:
            offsets.append(r.choice([2, -2]))
        if r.random() < 0.05:
            offsets.append(0)
        for off in offsets:
            m.add_clause(a, off, m.add_event("l" + m.auts[a].letter, False, self.rate_expr(m)))
        for _ in range(r.randint(0, 2)):
            u, v = r.sample(range(n), 2)
            m.add_trans(a, u, m.add_event("l" + m.auts[a].letter, False, self.rate_expr(m)), v)

    def sync_event(self, m, parts, rate):
        """A synchronizing event over the automata in parts: each has one
        or two sources, each one or more outcomes (self-loops allowed:
        an automaton may take part without moving); a block automaton
        may take part through a clause (to(++), to(--), to(=))."""
        r = self.rng
        e = m.add_event("sy", True, rate, r.random() < 0.3)
        for a in parts:
            n = len(m.auts[a].states)
            if m.auts[a].block and r.random() < 0.5:
                m.add_clause(a, r.choice([1, -1, 0]), e)
                continue
            for u in r.sample(range(n), min(n, 1 if r.random() < 0.7 else 2)):
                k = 1 if r.random() < 0.75 else 2
                self.outcomes(m, a, u, e, k, allow_self=r.random() < 0.2)
        return e

    def guarded(self, m):
        """reachability = nb busy <= K, made closed: every event that can
        bring automata into busy gets its rate multiplied by
        nb busy <= K - (how many it can bring), so the function really
        restricts the chain (rs_functions.san's pattern).  Sometimes
        partial, from the states where nobody is busy."""
        r = self.rng
        holders = [a for a, A in enumerate(m.auts) if "busy" in A.states]
        if len(holders) < 2:
            return False
        K = r.randint(1, len(holders) - 1)
        everyone = lambda: Nb(m, 0, len(m.auts) - 1, "busy", whole=True)  # noqa: E731
        guards = {}                     # one new rate per declared event
        for e, E in enumerate(m.events):
            entering = {t.a for t in m.trans if t.e == e and m.auts[t.a].states[t.dst] == "busy"
                        and m.auts[t.a].states[t.src] != "busy"}
            if not entering:
                continue
            if E.base not in guards:
                guard = Bin("<=", everyone(), Num(K - len(entering)))
                guards[E.base] = m.ident("fn", Bin("*", guard, E.rate))
            E.rate = guards[E.base]
        if r.random() < 0.7:
            m.reach_kind, m.reach = "func", Bin("<=", everyone(), Num(K))
        else:
            m.reach_kind, m.reach = "partial", Bin("==", everyone(), Num(0))
        m.notes.append("reachability: nb busy <= %d, guarded" % K)
        return True

    def reachability(self, m):
        """reachability = 1, a restricting function, or partial."""
        r = self.rng
        x = r.random()
        if x < 0.5 or len(m.auts) == 1 and x < 0.7:
            return
        if x < 0.65 and self.guarded(m):
            return
        if x < 0.75:
            m.reach_kind = "func"
            form = r.randrange(3)
            nb = self.nb_expr(m)
            if form == 0 and nb is not None:
                m.reach = Bin("<=", nb, Num(r.randint(0, 2)))
            elif form == 1 and len(m.auts) >= 2:
                m.reach = Not(Bin("&&", self.state_test(m, 0), self.state_test(m, 1)))
            else:
                m.reach = Bin("<=", conj([St(m, a) for a in range(len(m.auts))], "+"),
                              Num(r.randint(1, sum(len(A.states) - 1 for A in m.auts))))
        else:
            m.reach_kind = "partial"
            auts = range(len(m.auts))
            if r.random() < 0.7:    # one initial state
                m.reach = conj([StIs(m, a, r.randrange(len(m.auts[a].states))) for a in auts])
            else:
                m.reach = self.state_test(m)

    def results(self, m):
        r = self.rng
        for k in range(r.randint(1, 3)):
            x = r.random()
            if x < 0.4:
                e = self.state_test(m)
            elif x < 0.7:
                e = self.nb_expr(m) or St(m, r.randrange(len(m.auts)))
            else:
                e = Bin("*", St(m, r.randrange(len(m.auts))), Num(r.randint(1, 3)))
            m.results.append(("res%d" % (k + 1), e))

    def unused_events(self, m):
        """Events declared on no transition: they never fire."""
        if self.rng.random() < 0.15:
            m.add_event("unused", False, Num(self.rate()))
        if self.rng.random() < 0.05:
            m.add_event("unused", True, Num(self.rate()))


def sizes_for(rng, naut, lo, hi, max_product):
    sizes = [rng.randint(lo, hi) for _ in range(naut)]
    while math.prod(sizes) > max_product and max(sizes) > 2:
        sizes[sizes.index(max(sizes))] -= 1
    return sizes


def gen_random(g, max_n):
    """plain, span4, span6, decades: a random network, the family's rates."""
    r = g.rng
    m = Model("difftest")
    naut = r.randint(1, 4)
    sizes = sizes_for(r, naut, 2, 6, 2 * max_n)
    # sometimes the last automaton is written once for 2 or 3 replicas
    reps = r.randint(2, 3) if naut <= 3 and r.random() < 0.2 else 1
    if reps > 1:
        sizes[-1] = min(sizes[-1], 3)
        while reps > 1 and math.prod(sizes) * sizes[-1] ** (reps - 1) > 2 * max_n:
            reps -= 1
    g.automata(m, sizes, p_block=0.2, replicated=reps > 1)
    for a in range(naut):
        if m.auts[a].block:
            g.block_events(m, a)
        else:
            g.local_events(m, a)
    if naut >= 2 or reps > 1:           # replicas synchronize among themselves
        for _ in range(r.randint(0, naut + 1)):
            k = 1 if r.random() < 0.05 or naut == 1 else \
                (3 if naut >= 3 and r.random() < 0.3 else 2)
            g.sync_event(m, sorted(r.sample(range(naut), k)), g.rate_expr(m))
    if reps > 1:
        m.replicate(naut - 1, reps)
    g.unused_events(m)
    g.reachability(m)
    g.results(m)
    m.notes.append("structure: random, %d automata%s" %
                   (naut, ", the last one replicated %d times" % reps if reps > 1 else ""))
    return m


def gen_repl(g, max_n):
    """repl: replicated events (san(5)).  The last automaton is written
    once for 2 or 3 replicas, aut P[i:D_P]; some synchronizing events
    with the others are each replica's own (e[i]), which the others take
    part in from one transition (e[D_P])."""
    r = g.rng
    m = Model("difftest")
    naut = r.randint(2, 3)
    sizes = sizes_for(r, naut, 2, 4, max_n)
    sizes[-1] = min(sizes[-1], 3)
    reps = r.randint(2, 3)
    while reps > 2 and math.prod(sizes) * sizes[-1] ** (reps - 1) > 2 * max_n:
        reps -= 1
    g.automata(m, sizes, p_block=0.0, replicated=True)
    for a in range(naut):
        g.local_events(m, a)
    own = []
    for _ in range(r.randint(1, naut)):
        others = sorted(r.sample(range(naut - 1), r.randint(1, naut - 1)))
        own.append(g.sync_event(m, others + [naut - 1], g.rate_expr(m)))
    if r.random() < 0.3:                # and one the replicas share
        g.sync_event(m, [r.randrange(naut - 1), naut - 1], g.rate_expr(m))
    # some two-way routings of the replicated automaton read its index
    # variable: each replica routes with its own probability
    pairs = {}
    for t in m.trans:
        if t.a == naut - 1 and t.prob is not None:
            pairs.setdefault((t.src, t.e), []).append(t)
    nidx = 0
    for ts in pairs.values():
        if len(ts) == 2 and r.random() < 0.5:
            c1 = r.randint(1, 3)
            c0 = r.randint(0, 10 - c1 * (reps - 1))
            ts[0].prob, ts[1].prob = IdxProb(c0, c1, False), IdxProb(c0, c1, True)
            nidx += 1
    m.replicate(naut - 1, reps, own)
    g.unused_events(m)
    g.reachability(m)
    g.results(m)
    m.notes.append("structure: repl, %d automata, the last one replicated %d times, "
                   "%d events of its replicas' own, %d routings by index"
                   % (naut, reps, len(own), nidx))
    return m


def gen_ncd(g, max_n):
    """Nearly completely decomposable: fast rates 1..10 inside blocks,
    epsilon 1e-8..1e-6 between them, along one of four structures."""
    r = g.rng
    m = Model("difftest")
    kind = r.choice(["gate", "slowloc", "slowsync", "slowroute"])
    m.notes.append("structure: ncd/%s" % kind)
    eps = lambda: g.eps()               # noqa: E731 (a rate sampler)
    fast = lambda: sig4(r.uniform(1, 10))  # noqa: E731

    if kind == "gate":
        # A slow automaton A gates fast ones: their rates are functions of
        # st A; the slow mode is A's state.
        nfast = r.randint(1, 3)
        g.automata(m, [r.randint(2, 3)] + sizes_for(r, nfast, 2, 5, max_n // 2))
        nA = len(m.auts[0].states)
        for k in range(nA):
            rate = g.rate_expr(m, 0.3, eps) if r.random() < 0.5 else Num(eps())
            e = m.add_event("la", False, rate)
            m.add_trans(0, k, e, (k + 1) % nA)
        for a in range(1, len(m.auts)):
            n = len(m.auts[a].states)
            for k in range(n):
                gated = conj([Bin("*", StIs(m, 0, q), Num(fast())) for q in range(nA)], "+")
                rate = m.ident("fn", gated) if r.random() < 0.7 else Num(fast())
                e = m.add_event("l" + m.auts[a].letter, False, rate)
                if r.random() < 0.5:
                    m.add_trans(a, k, e, (k + 1) % n)
                else:               # and sometimes elsewhere too
                    p, q = g.split(2)
                    m.add_trans(a, k, e, (k + 1) % n, p)
                    m.add_trans(a, k, e, r.choice([x for x in range(n) if x != k]), q)
        if len(m.auts) >= 3 and r.random() < 0.5:
            g.sync_event(m, [1, 2], Num(fast()))
    elif kind == "slowloc":
        # One automaton's states fall in groups: fast local events inside
        # a group, slow local events between groups.
        nA = r.randint(4, 6)
        others = r.randint(0, 2)
        g.automata(m, [nA] + sizes_for(r, others, 2, 4, max_n // nA))
        states = list(range(nA))
        r.shuffle(states)
        ngr = r.randint(2, min(3, nA // 2))
        cuts = sorted(r.sample(range(1, nA), ngr - 1))
        groups = [states[i:j] for i, j in zip([0] + cuts, cuts + [nA])]
        for grp in groups:
            for i, u in enumerate(grp):
                if len(grp) > 1:
                    e = m.add_event("la", False, g.rate_expr(m, 0.2, fast))
                    m.add_trans(0, u, e, grp[(i + 1) % len(grp)])
        for i, grp in enumerate(groups):
            nxt = groups[(i + 1) % len(groups)]
            e = m.add_event("la", False, g.rate_expr(m, 0.2, eps))
            m.add_trans(0, r.choice(grp), e, r.choice(nxt))
        for a in range(1, len(m.auts)):
            g2 = Gen(r, "ncd")
            g2.local_events(m, a, p_func=0.2)
            if r.random() < 0.5:        # a fast sync moving A inside a group
                grp = r.choice([x for x in groups if len(x) > 1])
                e = m.add_event("sy", True, Num(fast()))
                u, v = r.sample(grp, 2)
                m.add_trans(0, u, e, v)
                n = len(m.auts[a].states)
                m.add_trans(a, r.randrange(n), e, r.randrange(n))
    elif kind == "slowsync":
        # Two automata, each with two groups of states and fast local
        # events inside them; slow synchronizing events move them between
        # groups: the slow mode is a function of the joint state.
        nC = r.randint(0, 1)
        g.automata(m, [r.randint(3, 5), r.randint(3, 5)] + [r.randint(2, 3)] * nC)
        groups = []
        for a in (0, 1):
            n = len(m.auts[a].states)
            st = list(range(n))
            r.shuffle(st)
            c = r.randint(1, n - 1)
            groups.append([st[:c], st[c:]])
            for grp in groups[a]:
                for i, u in enumerate(grp):
                    if len(grp) > 1:
                        e = m.add_event("l" + m.auts[a].letter, False,
                                        g.rate_expr(m, 0.2, fast))
                        m.add_trans(a, u, e, grp[(i + 1) % len(grp)])
        for _ in range(r.randint(2, 4)):
            e = m.add_event("sy", True, g.rate_expr(m, 0.3, eps))
            for a in (0, 1):
                gs = r.randrange(2)
                u = r.choice(groups[a][gs])
                v = r.choice(groups[a][1 - gs] if r.random() < 0.7 else groups[a][gs])
                m.add_trans(a, u, e, v)
        if nC:
            Gen(r, "ncd").local_events(m, 2, p_func=0.5)
    else:
        # slowroute: a fast event whose routing sends the automaton to the
        # other group with probability epsilon.
        nA = r.randint(4, 6)
        others = r.randint(0, 2)
        g.automata(m, [nA] + sizes_for(r, others, 2, 4, max_n // nA))
        st = list(range(nA))
        r.shuffle(st)
        c = r.randint(2, nA - 2)
        groups = [st[:c], st[c:]]
        for gi, grp in enumerate(groups):
            for i, u in enumerate(grp):
                e = m.add_event("la", False, g.rate_expr(m, 0.2, fast))
                stay = grp[(i + 1) % len(grp)]
                if i == 0:
                    p = Decimal("%.2g" % eps())
                    m.add_trans(0, u, e, stay, Num(0, str(1 - p)))
                    m.add_trans(0, u, e, r.choice(groups[1 - gi]), Num(0, str(p)))
                else:
                    m.add_trans(0, u, e, stay)
        for a in range(1, len(m.auts)):
            Gen(r, "ncd").local_events(m, a, p_func=0.3)
    g.unused_events(m)
    if r.random() < 0.3:
        g.reachability(m)
    g.results(m)
    return m


class NbRepl(Expr):
    """nb [P[0]..P[r-1]] S: a count over every replica, made before the
    replicas exist (replicate() adds P[1..r-1] after the expressions)."""
    def __init__(self, first, r, gname, sname):
        self.first, self.r, self.gname, self.sname = first, r, gname, sname

    def eval(self, m, s):
        return float(sum(1 for a in range(self.first, self.first + self.r)
                         if m.auts[a].states[s[a]] == self.sname))

    def text(self):
        return "(nb [%s[0]..%s[%d]] %s)" % (self.gname, self.gname, self.r - 1, self.sname)


class SymGen(Gen):
    """sym: the expressions of a symmetric SAN read the replicas P[0..r-1]
    only through counts over all of them (or nb over every automaton);
    st and state tests only of the controllers (automata 0..p-1)."""

    def __init__(self, rng, family, p, r):
        Gen.__init__(self, rng, family)
        self.p, self.r = p, r           # the replicated automaton, its count

    def nb_expr(self, m):
        r = self.rng
        if r.random() < 0.2:
            names = sorted({q for A in m.auts for q in A.states if q in SHARED_NAMES})
            if names:
                return Nb(m, 0, len(m.auts) - 1, r.choice(names), whole=True)
        return NbRepl(self.p, self.r, "P", r.choice(m.auts[self.p].states))

    def state_test(self, m, a=None):
        r = self.rng
        if a == self.p or a is None and r.random() < 0.35:
            return Bin(r.choice(["<", "<=", ">=", "=="]), self.nb_expr(m), Num(r.randint(0, 2)))
        a = r.randrange(self.p) if a is None else a
        return StIs(m, a, r.randrange(len(m.auts[a].states)), neg=r.random() < 0.3)

    def func_rate(self, m, scale=None):
        r = self.rng
        rate = scale or self.rate
        form = r.randrange(5)
        a = r.randrange(self.p)         # a controller
        if form == 0:
            e = Bin("+", Bin("*", self.state_test(m), Num(rate())), Num(rate()))
        elif form == 1:
            e = Bin("*", Num(rate()), Bin("+", self.nb_expr(m), Num(1)))
        elif form == 2:
            e = Bin("*", Num(rate()), Bin("+", St(m, a), Num(1)))
        elif form == 3:
            e = MinMax(r.choice(["min", "max"]),
                       [Num(rate()), Bin("*", Num(rate()), Bin("+", self.nb_expr(m), Num(1)))])
        else:
            e = conj([Bin("*", StIs(m, a, k), Num(rate()))
                      for k in range(len(m.auts[a].states))], "+")
        return m.ident("fn", e)

    def reachability(self, m):
        r = self.rng
        x = r.random()
        if x < 0.5:
            return
        if x < 0.75:
            m.reach_kind = "func"
            m.reach = Bin("<=", NbRepl(self.p, self.r, "P", r.choice(m.auts[self.p].states)),
                          Num(r.randint(1, self.r)))
        else:                           # from one symmetric initial state
            m.reach_kind = "partial"
            q = r.choice(m.auts[self.p].states)
            m.reach = conj([StIs(m, a, r.randrange(len(m.auts[a].states)))
                            for a in range(self.p)] +
                           [Bin("==", NbRepl(self.p, self.r, "P", q), Num(self.r))])

    def results(self, m):
        r = self.rng
        for k in range(r.randint(1, 3)):
            x = r.random()
            if x < 0.4:
                e = self.state_test(m)
            elif x < 0.7:
                e = self.nb_expr(m)
            else:
                e = Bin("*", St(m, r.randrange(self.p)), Num(r.randint(1, 3)))
            m.results.append(("res%d" % (k + 1), e))


def gen_sym(rng, max_n):
    """sym: random symmetric SANs whose replicas lump (issue 28): one or
    two controllers and r = 2..4 replicas P[0..r-1] of one declaration
    with their local events (routing included), events of each replica's
    own synchronized with controllers (e[i]), events of every replica
    (with or without controllers), rates and probabilities reading the
    replicas through counts only.  Solved lumped (the default), judged on
    the indices against the dense solve of the chain as written."""
    m = Model("difftest")
    nctl = rng.randint(1, 2)
    sizes = sizes_for(rng, nctl, 2, 4, max_n)
    sizes.append(rng.randint(2, 3))
    reps = rng.randint(2, 4)
    while reps > 2 and math.prod(sizes) * sizes[-1] ** (reps - 1) > 2 * max_n:
        reps -= 1
    g = SymGen(rng, "plain", nctl, reps)
    g.automata(m, sizes, p_block=0.0, replicated=True)
    for a in range(nctl + 1):
        g.local_events(m, a)
    own = []
    for _ in range(rng.randint(1, 2)):
        ctl = sorted(rng.sample(range(nctl), rng.randint(1, nctl)))
        own.append(g.sync_event(m, ctl + [nctl], g.rate_expr(m)))
    nall = 0
    for _ in range(rng.randint(0, 2)):   # events of every replica
        ctl = sorted(rng.sample(range(nctl), rng.randint(0, nctl)))
        e = g.sync_event(m, ctl + [nctl], g.rate_expr(m))
        # one outcome a replica from each source: san lumps an event of
        # every replica only when each moves deterministically (the
        # counter's jump is then one occupancy vector, lump_detect.c)
        seen = set()
        for t in [t for t in m.trans if t.e == e and t.a == nctl]:
            if t.src in seen:
                m.trans.remove(t)
            else:
                seen.add(t.src)
                t.prob = None
        nall += 1
    if nctl == 2 and rng.random() < 0.5:
        g.sync_event(m, [0, 1], g.rate_expr(m))
    m.replicate(nctl, reps, own)
    g.unused_events(m)
    g.reachability(m)
    g.results(m)
    m.notes.append("structure: sym, %d controller(s), %d replicas P, %d events of each "
                   "replica's own, %d of every replica" % (nctl, reps, len(own), nall))
    return m


def model_seed(seed, family, k):
    h = hashlib.sha256(("%s/%s/%d" % (seed, family, k)).encode()).hexdigest()
    return int(h[:12], 16)


def generate(family, mseed, dense_ref, max_n):
    """The model of this seed and its reference (draws until usable)."""
    rng = random.Random(mseed)
    for attempt in range(500):
        g = Gen(rng, family)
        m = gen_ncd(g, max_n) if family == "ncd" else \
            gen_repl(g, max_n) if family == "repl" else \
            gen_sym(rng, max_n) if family == "sym" else gen_random(g, max_n)
        try:
            ref = reference(m, dense_ref, max_n)
        except GenReject:
            continue
        m.notes.insert(0, "family %s, model seed %d (draw %d)" % (family, mseed, attempt + 1))
        return m, ref
    raise RuntimeError("no usable %s model from seed %d in 500 draws" % (family, mseed))
