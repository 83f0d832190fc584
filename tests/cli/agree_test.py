#!/usr/bin/env python3
"""agree_test.py - `san check` and `san solve` agree on what a model is
(issue 33 item 4: for 30+ slaves check said "the reachability function
accepts no state" where solve answered; only check warned of an absorbing
state).

Every model of models/, tests/corpus/{errors,warnings}/, the shared
public models when present, and a few generated ones (master/slave sync
and async, a pipeline) goes through both commands (-f json, --lump off so
that both count the same states), and their verdicts are compared:
  1. check finds an error  =>  solve refuses it as a user error (exit 2);
  2. solve refuses a model as a user error  =>  check reports an error or
     a warning about it;
  3. check explored every reachable state  =>  solve's reachable states
     plus the isolated states it dropped = check's states;
  4. solve says the chain is absorbed  =>  check names the absorbing state;
  5. check (every state explored) names an absorbing local state  =>
     solve has transient states (several closed classes are answered
     from the initial distribution, issue 31).
Environment: SAN (default ./san), top_srcdir (default .).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, fail, tally  # noqa: E402



def run(args):
    p = subprocess.run([SAN] + args, capture_output=True, text=True, errors="replace",
                       timeout=300)
    try:
        d = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        d = None
    return p.returncode, d, p.stderr


def models(tmp):
    out = sorted(glob.glob(os.path.join(TOP, "models", "*.san")))
    for sub in ("errors", "warnings"):
        out += sorted(glob.glob(os.path.join(TOP, "tests", "corpus", sub, "*.san")))
    out += sorted(glob.glob(os.path.join(TOP, "..", "shared", "models", "*.san")))
    gens = [["ms", "--mode", "sync", "--slaves", "3"],
            ["ms", "--mode", "async", "--slaves", "3", "--buffer", "4"],
            ["ms", "--mode", "async", "--slaves", "2", "--work", "slices"],
            ["pipeline", "--mode", "async", "--stages", "1,2,1", "--buffer", "2"]]
    for i, g in enumerate(gens):
        path = os.path.join(tmp, "gen%d.san" % i)
        if subprocess.run([SAN, "gen"] + g + ["-o", path]).returncode == 0:
            out.append(path)
    return out


def main():
    checked = 0
    seen = {"error": 0, "absorbed": 0, "absorbing": 0, "counted": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for path in models(tmp):
            name = os.path.relpath(path, TOP)
            crc, c, cerr = run(["check", "-f", "json", "--lump", "off", path])
            src, s, serr = run(["solve", "-f", "json", "--lump", "off", "--time-limit", "60",
                                path])
            if c is None:
                if crc != 2:
                    fail("%s: check printed no JSON and exit %d: %s" % (name, crc, cerr[-300:]))
                if src != 2:
                    fail("%s: check refuses it (exit %d), solve exit %d" % (name, crc, src))
                continue
            checked += 1
            errors = c.get("errors") or []
            warnings = [w["message"] for w in c.get("warnings") or []]
            reach = c.get("reachable") or {}
            complete = reach.get("complete")
            seen["error"] += bool(errors)
            # 1
            if errors and src != 2:
                fail("%s: check finds %d error(s) (%s), solve exits %d"
                     % (name, len(errors), errors[0].get("message", "")[:100], src))
            # 2
            if src == 2 and not errors and not warnings:
                fail("%s: solve refuses it (%s) but check finds nothing"
                     % (name, serr.strip()[-200:]))
            if src != 0 or s is None:
                continue
            # 3
            if complete and not errors:
                seen["counted"] += 1
                n = s["reachable_states"] + (s.get("dropped_states") or 0)
                if reach.get("states_checked") != n:
                    fail("%s: check explored %s states, solve %s (+ %s dropped)"
                         % (name, reach.get("states_checked"), s["reachable_states"],
                            s.get("dropped_states")))
            absorbing = any("is absorbing" in w for w in warnings)
            seen["absorbed"] += "the chain is absorbed" in serr
            seen["absorbing"] += bool(complete and absorbing)
            # 4
            if "the chain is absorbed" in serr and not absorbing:
                fail("%s: solve says the chain is absorbed, check names no absorbing state"
                     % name)
            # 5
            if complete and absorbing and not (s.get("transient_states") or 0):
                fail("%s: check names an absorbing state, solve has no transient state" % name)
    # a corpus that no longer exercises a rule would make it vacuous
    for rule, n in seen.items():
        if n == 0:
            fail("no model exercised the rule on '%s' cases" % rule)
    print("%d models through check and solve (cases: %s): %d disagreements"
          % (checked, ", ".join("%s %d" % kv for kv in seen.items()), tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
