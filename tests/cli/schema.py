#!/usr/bin/env python3
"""The output contract (doc/output.md): every subcommand's JSON against
doc/output.schema.json, and the provenance block of every format.

Each subcommand runs on a bundled model with -f json and its document is
validated against its own schema ($defs/NAME) and against the root (one
of the subcommands).  The provenance is checked against independent
sources: the SHA-256 of the model against `sha256sum` (a file, standard
input, a --gen model against `san gen` piped to sha256sum), the command
line against the argv given, the -D overrides against those given.  The
negative half: documents with the shapes the contract replaced (a
product size as a number, marginals as an array, a grain as a string,
infinity as null, no meta) must be rejected, or the schema proves
nothing.

Needs python3-jsonschema (Debian; scripts/bootstrap.sh installs it):
skipped (exit 77) without it.  Environment: SAN, top_srcdir.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from santest import SAN, TOP, check, tally, run, json_of as run_json  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)

MODELS = os.path.join(TOP, "models")
MM1K = os.path.join(MODELS, "mm1k.san")



def sha256sum(path=None, data=None):
    """The digest by coreutils' sha256sum: an implementation not san's."""
    p = subprocess.run(["sha256sum"] + ([path] if path else []), input=data,
                       capture_output=True, check=True)
    return p.stdout.split()[0].decode()


with open(os.path.join(TOP, "doc", "output.schema.json")) as f:
    ROOT = json.load(f)
jsonschema.Draft202012Validator.check_schema(ROOT)


def validator(name):
    """The schema of one subcommand: $defs/name with the shared $defs."""
    check(name in ROOT["$defs"], f"doc/output.schema.json has no $defs/{name}")
    return jsonschema.Draft202012Validator(
        {"$schema": ROOT["$schema"], "$defs": ROOT["$defs"], "$ref": "#/$defs/" + name})


ROOT_V = jsonschema.Draft202012Validator(ROOT)


def errors(v, doc):
    return ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200])
            for e in v.iter_errors(doc)]


def valid(name, doc, what):
    e = errors(validator(name), doc)
    check(not e, f"{what}: not valid against $defs/{name}: {e[:3]}")
    e = errors(ROOT_V, doc)
    check(not e, f"{what}: not valid against the root schema: {e[:2]}")


tmp = tempfile.mkdtemp(prefix="san-schema-")
batch = os.path.join(tmp, "batch")
with open(batch, "w") as f:
    f.write("1,2,3\n4,1,1,2\n")
# From start, a or b at equal rates; a leads to the absorbing b: a is
# reached with probability 1/2, so the mean passage time into a is
# infinite (the "inf" of the contract).
split = os.path.join(tmp, "split.san")
with open(split, "w") as f:
    f.write("""identifiers
  r = 1;
events
  loc toa (r)
  loc tob (r)
  loc atob (r)
reachability = 1;
network split (continuous)
  aut X
    stt start  to(a) toa  to(b) tob
    stt a      to(b) atob
    stt b
""")

# From start, to the absorbing b or the cycle a <-> c: two closed classes.
split2 = os.path.join(tmp, "split2.san")
with open(split2, "w") as f:
    f.write("""identifiers
  r = 1;
events
  loc toa (r)
  loc tob (r)
  loc atoc (r)
  loc ctoa (r)
partial reachability = (st X) == start;
network split2 (continuous)
  aut X
    stt start  to(a) toa  to(b) tob
    stt a      to(c) atoc
    stt c      to(a) ctoa
    stt b
""")

# ---- every subcommand that writes JSON, on a bundled model ----
RUNS = [
    ("check", ["check", "-f", "json", MM1K]),
    ("solve", ["solve", "-q", "-f", "json", "--vector", "-", MM1K]),
    ("solve", ["solve", "-q", "-f", "json", "--storage", "kron", os.path.join(MODELS, "rs_pool.san")]),
    ("solve", ["solve", "-q", "-f", "json", os.path.join(MODELS, "clients_server.san")]),
    ("transient", ["transient", "-q", "-f", "json", "-t", "0.5,1", "--rewards", MM1K]),
    ("passage", ["passage", "-q", "-f", "json", "-u", "st queue == s[10]", "-t", "1",
                 "-p", "50,90", MM1K]),
    ("passage", ["passage", "-q", "-f", "json", "-u", "st X == a", "--initial", "st X == start",
                 "-t", "1", split]),
    # several closed classes (the cycle a <-> c, the absorbing b): the long-run answer
    # from the initial distribution, with "closed_classes" and "classes"
    ("solve", ["solve", "-q", "-f", "json", "--vector", "-", split2]),
    ("sweep", ["sweep", "-q", "-f", "json", MM1K, "-D", "lambda=1,2"]),
    ("sweep", ["sweep", "-q", "-f", "json", "ms", "--mode", "async", "--slaves", "2..3"]),
    ("compare", ["compare", "-q", "-f", "json", MM1K, MM1K + " -D lambda=3"]),
    ("compare", ["compare", "-q", "-f", "json", "mw --workers 4", "ms --mode async --slaves 2"]),
    ("size-buffer", ["size-buffer", "-q", "-f", "json", "ms", "--mode", "async", "--slaves", "2"]),
    ("grain", ["grain", "-q", "-f", "json", "ms", "--slices-per-node", "1..2", "--slaves", "2"]),
    ("mw", ["mw", "-f", "json", "--workers", "1..4"]),
    ("cluster", ["cluster", "-f", "json", "--perf", "1e9", "--lan", "1e8", "--oper", "1e9",
                 "--task-size", "1e6", "--result-size", "1e5"]),
    ("map", ["map", "-f", "json", "--stages", "1,2,3", "-P", "3", "--items", "10"]),
    ("map-batch", ["map", "-f", "json", "--batch", batch, "-P", "3"]),
    ("workrate", ["workrate", "-f", "json", os.path.join(MODELS, "grid4.json")]),
    ("props", ["props", "-f", "json", os.path.join(TOP, "tests", "prism", "props_chain.prism"),
               "--property", 'S=? [ "full" ]', "--property", '"r": R{"xr"}=? [ F y=1 ]',
               "--property", 'P=? [ F<=1 "full" ]']),
    ("props", ["props", "-f", "json", MM1K, "--property", 'R{"length"}=? [ C<=2 ]']),
]
# the paths where figures are not computed (null): an invalid model, an
# unverified answer, variants that fail
bad_model = os.path.join(tmp, "bad.san")
with open(bad_model, "w") as f:
    f.write("identifiers\n  x = ;\n")
RUNS += [
    ("check", ["check", "-f", "json", bad_model], (2,)),
    ("solve", ["solve", "-q", "-f", "json", "--method", "power", "--max-iter", "1",
               "--vector", "-", MM1K], (1,)),
    # NOT CONVERGED with the estimate the checks reached (a number), and
    # a sweep of such variants (issue 29 item 5)
    ("solve", ["solve", "-q", "-f", "json", "--method", "iad", "--max-iter", "1", "--gen",
               "ms --mode async --slaves 6 --buffer 10"], (1,)),
    ("sweep", ["sweep", "-q", "-f", "json", "--method", "iad", "--max-iter", "1", "ms",
               "--mode", "async", "--slaves", "5,6", "--buffer", "10"], (1,)),
    ("sweep", ["sweep", "-q", "-f", "json", "--lump", "off", "ms", "--mode", "async",
               "--slaves", "2..4", "--buffer", "5", "--max-states", "200"], (1,)),
    # lumped replicas: the "lumped" member of solve and check
    ("solve", ["solve", "-q", "-f", "json", MM1K.replace("mm1k.san", "clients_server.san")]),
    ("check", ["check", "-f", "json", MM1K.replace("mm1k.san", "clients_server.san")]),
    ("transient", ["transient", "-q", "-f", "json", "-t", "1", "--rewards",
                   MM1K.replace("mm1k.san", "clients_server.san")]),
    ("passage", ["passage", "-q", "-f", "json", "-u", "1", "-t", "1",
                 MM1K.replace("mm1k.san", "clients_server.san")]),
]
docs = {}
for name, args, *codes in RUNS:
    d = run_json(args, " ".join(args), ok=codes[0] if codes else (0,))
    if d is None:
        continue
    valid(name, d, "san " + " ".join(args))
    check(d.get("schema") == "san-output/1", f"{name}: schema {d.get('schema')!r}")
    check(d.get("meta", {}).get("command_line") == [SAN] + args,
          f"{name}: command_line {d.get('meta', {}).get('command_line')} != the argv")
    docs.setdefault(name, d)

# ---- the provenance, against independent sources ----
d = docs.get("solve")
if d:
    m = d["meta"]
    check(m["models"] == [{"path": MM1K, "sha256": sha256sum(MM1K)}],
          f"solve: meta.models {m['models']} != the file and its sha256sum")
    check(m["method"] == d["solver"]["method"] and m["converged"] is True and m["tol"] == 1e-10
          and m["storage"] == "sparse", f"solve: meta's method/tol/storage/converged {m}")
    # the top states: the state an object automaton -> local state
    top = d["top_states"][0]
    check(top["state"] == {"queue": "s[0]"} and top["label"] == "queue:s[0]",
          f"solve: top_states[0] {top}")
    check(isinstance(d["product_states"]["digits"], str) and d["product_states"]["approx"] == 11,
          f"solve: product_states {d['product_states']}")

with open(MM1K, "rb") as f:
    text = f.read()
# several closed classes: the members are there, and agree with each other
d = run_json(["solve", "-q", "-f", "json", split2], "solve (several closed classes)")
if d is not None:
    cl = d.get("classes", {}).get("classes", [])
    check(d.get("closed_classes") == 2 and d.get("initial_states") == 1 and len(cl) == 2
          and sorted(c["states"] for c in cl) == [1, 2]
          and all(abs(c["reach"] - 0.5) < 1e-12 for c in cl),
          f"solve (several closed classes): {d.get('closed_classes')} {cl}")
# one closed class: none of them
d = docs.get("solve")
if d is not None:
    check("closed_classes" not in d and "classes" not in d and "initial_states" not in d,
          "solve (one closed class): the members of several closed classes written")
d = run_json(["solve", "-q", "-f", "json", "-D", "lambda=3", "-"], "solve - (stdin)",
             stdin=text.decode())
if d:
    valid("solve", d, "solve - (stdin)")
    check(d["meta"]["models"] == [{"path": "-", "sha256": sha256sum(data=text)}],
          f"solve -: meta.models {d['meta']['models']}")
    check(d["meta"]["overrides"] == {"lambda": 3}, f"solve -D: overrides {d['meta']['overrides']}")

line = "ms --mode async --slaves 2"
d = run_json(["solve", "-q", "-f", "json", "--gen", line], "solve --gen")
if d:
    valid("solve", d, "solve --gen")
    gen = subprocess.run([SAN, "gen"] + line.split(), capture_output=True, check=True).stdout
    check(d["meta"]["models"] == [{"gen": line, "sha256": sha256sum(data=gen)}],
          f"solve --gen: meta.models {d['meta']['models']} (san gen | sha256sum)")

# --storage auto predicted both storages (issue 27 item 4): 269,001 product
# states as written, over the "small" threshold; a small model says
# "small" with null predictions
line = "ms --mode async --slaves 7"
d = run_json(["solve", "-q", "-f", "json", "--lump", "off", "--gen", line], "solve storage_choice")
if d:
    valid("solve", d, "solve storage_choice")
    c = d.get("storage_choice") or {}
    check(c.get("rule") in ("faster", "smaller") and c.get("states") == d["reachable_states"]
          and c["sparse"]["memory_bytes"] > 0 and c["kron"]["time_s"] > 0
          and c["reason"].startswith(d["storage"] + ", "), f"solve: storage_choice {c}")
d = run_json(["solve", "-q", "-f", "json", MM1K], "solve storage_choice small")
if d:
    c = d.get("storage_choice") or {}
    check(c.get("rule") == "small" and c.get("sparse") is None and c.get("kron") is None,
          f"solve mm1k: storage_choice {c}")

# SHA-256's padding at every boundary of its 64-byte blocks (55 bytes
# and a length fit one block, 56 do not), and a file of several blocks:
# check reads them (a bad model is still reported, with its digest)
for n in (0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 100003):
    path = os.path.join(tmp, "bytes%d.san" % n)
    with open(path, "wb") as f:
        f.write(bytes((i * 7 + 3) % 95 + 32 for i in range(n)))
    rc, out, err = run(["check", "-f", "json", path])
    try:
        got = json.loads(out)["meta"]["models"]
    except (ValueError, KeyError):
        got = None
    check(got == [{"path": path, "sha256": sha256sum(path)}],
          f"check of {n} bytes: meta.models {got} != sha256sum")

# a structural -D regenerates (issue 16): the line named is the one
# generated, and its digest that of `san gen LINE`
d = run_json(["solve", "-q", "-f", "json", "--gen", line, "-D", "N_slaves=3"],
             "solve --gen -D N_slaves=3")
if d:
    m = d["meta"]["models"]
    gen = subprocess.run([SAN, "gen"] + m[0]["gen"].split(), capture_output=True).stdout
    check(len(m) == 1 and "--slaves 3" in m[0]["gen"] and m[0]["sha256"] == sha256sum(data=gen)
          and d["meta"]["overrides"] == {"N_slaves": 3},
          f"solve --gen -D N_slaves=3: meta {d['meta']}")

d = docs.get("compare")
if d:
    check(list(d["marginals"]) == ["queue"] and len(d["marginals"]["queue"]) == 11
          and set(d["marginals"]["queue"]["s[0]"]) >= {"values", "differences"},
          "compare: marginals an object of automata of states")
    check(d["meta"]["models"] == [{"path": MM1K, "sha256": sha256sum(MM1K)}],
          f"compare: one file read twice is one model: {d['meta']['models']}")

d = docs.get("sweep")
if d:
    check(d["meta"]["overrides"] == {"lambda": "1,2"}, f"sweep: overrides {d['meta']['overrides']}")
    check(all(r["solver"]["converged"] is True for r in d["rows"]), "sweep: rows' converged")

d = docs.get("grain")
if d:
    g = d["configurations"][0]
    check([x["grain"] for x in g["grains"]] == [1, 2] and isinstance(g["recommended"], int),
          f"grain: grains as numbers {g['recommended']!r}")

d = [x for x in RUNS if x[0] == "passage"][1]
d = run_json(d[1], "passage into a missed target")
if d:
    check(d["passage"]["mean"] == "inf" and abs(d["passage"]["reach"] - 0.5) < 1e-12,
          f"passage: an infinite mean as \"inf\": {d['passage']['mean']!r}")

# ---- CSV: '#' lines first, then the table; solve's converged, residual ----
for args in (["solve", "-q", "-f", "csv", MM1K],
             ["transient", "-q", "-f", "csv", "-t", "1", MM1K],
             ["sweep", "-q", "-f", "csv", MM1K, "-D", "lambda=1,2"],
             ["compare", "-q", "-f", "csv", MM1K, MM1K + " -D lambda=3"],
             ["mw", "-f", "csv", "--workers", "2"],
             ["cluster", "-f", "csv", "--perf", "1e9", "--oper", "1e9", "--task-size", "1e6",
              "--result-size", "1e5"],
             ["map", "-f", "csv", "--stages", "1,2", "-P", "2"],
             ["workrate", "-f", "csv", os.path.join(MODELS, "grid4.json")],
             ["props", "-f", "csv", MM1K, "--property", 'S=? [ "full" ]']):
    rc, out, err = run(args)
    lines = out.splitlines()
    comments = [l for l in lines if l.startswith("#")]
    check(rc == 0 and lines and lines[0] == "# schema: san-output/1"
          and lines[:len(comments)] == comments
          and any(l.startswith("# command_line: ") for l in comments)
          and not lines[len(comments)].startswith("#"),
          f"{' '.join(args[:1])} -f csv: '# ' provenance lines first: {lines[:3]}")
    if args[0] == "solve":
        check("# models: %s sha256 %s" % (MM1K, sha256sum(MM1K)) in comments,
              "solve -f csv: # models line with the sha256sum")
        kinds = {tuple(l.split(",")[:2]) for l in lines[len(comments):]}
        check(("solver", "converged") in kinds and ("solver", "residual") in kinds,
              "solve -f csv: converged and residual rows")

# ---- text: a short header ----
rc, out, err = run(["solve", MM1K, "-D", "mu=3"])
head = out.splitlines()[:2]
check(rc == 0 and head[0].startswith("# san ") and head[0].endswith(" solve %s -D mu=3" % MM1K)
      and head[1] == "# %s sha256 %s; -D mu=3" % (MM1K, sha256sum(MM1K)),
      f"solve text: the two-line header {head}")
rc, out, err = run(["sweep", "-q", MM1K, "-D", "lambda=1,2"])
check(rc == 0 and not out.startswith("# san "), "sweep -q: no text header")
rc, out, err = run(["mw", "--workers", "2"])
check(rc == 0 and out.startswith("# san ") and " mw --workers 2\n" in out,
      "mw (no -q): the text header")

# ---- the schema must be able to fail ----
def rejected(name, doc, how):
    check(errors(validator(name), doc), f"$defs/{name} accepts a document with {how}")

good = docs.get("solve")
if good:
    for how, change in [
        ("product_states a number", lambda d: d.__setitem__("product_states", 11)),
        ("product_states a string", lambda d: d.__setitem__("product_states", "11")),
        ("marginals an array", lambda d: d.__setitem__(
            "marginals", [{"automaton": "queue", "state": "s[0]", "p": 0.3}])),
        ("a result null (infinity written as null)", lambda d: d["results"].__setitem__("empty", None)),
        ("a result a string of digits", lambda d: d["results"].__setitem__("empty", "0.33")),
        ("top_states' state a string", lambda d: d["top_states"][0].__setitem__("state", "queue:s[0]")),
        ("no meta", lambda d: d.pop("meta")),
        ("another schema version", lambda d: d.__setitem__("schema", "san-output/0")),
        ("meta without the sha256", lambda d: d["meta"]["models"][0].pop("sha256")),
        ("a bad sha256", lambda d: d["meta"]["models"][0].__setitem__("sha256", "abc")),
        ("command_line a string", lambda d: d["meta"].__setitem__("command_line", "san solve")),
        ("an unknown member", lambda d: d.__setitem__("extra", 1)),
    ]:
        bad = copy.deepcopy(good)
        change(bad)
        rejected("solve", bad, how)
good = docs.get("grain")
if good:
    bad = copy.deepcopy(good)
    bad["configurations"][0]["grains"][0]["efficiency"] = "0.98"
    rejected("grain", bad, "an index a string")
    for how, change in [   # each grain's accuracy (issue 32)
        ("a grain without its solver", lambda g: g.pop("solver")),
        ("a grain's solver without error_bound", lambda g: g["solver"].pop("error_bound")),
        ("a grain's storage not sparse or kron", lambda g: g["solver"].__setitem__("storage", "dense")),
    ]:
        bad = copy.deepcopy(good)
        change(bad["configurations"][0]["grains"][0])
        rejected("grain", bad, how)
good = docs.get("size-buffer")
if good:
    for how, change in [   # each point's accuracy (issue 32)
        ("no accuracy of the curve's points", lambda c: c.pop("accuracy")),
        ("a point's accuracy without its buffer", lambda c: c["accuracy"][0].pop("buffer")),
        ("a point's lumped a number", lambda c: c["accuracy"][0].__setitem__("lumped", 1)),
        ("at_buffer without its solver", lambda c: c["at_buffer"].pop("solver")),
    ]:
        bad = copy.deepcopy(good)
        change(bad["configurations"][0])
        rejected("size-buffer", bad, how)
good = docs.get("compare")
if good:
    bad = copy.deepcopy(good)
    bad["models"][0]["product_states"] = "11"
    rejected("compare", bad, "product_states a string")
good = docs.get("sweep")
if good:
    bad = copy.deepcopy(good)
    bad["rows"][0]["solver"].pop("converged")
    rejected("sweep", bad, "a row's solver without converged")
    bad = copy.deepcopy(good)
    bad["rows"][0]["solver"].pop("error_bound")
    rejected("sweep", bad, "a row's solver without error_bound")
# a solve's document is no other subcommand's
if docs.get("solve"):
    for other in ("check", "transient", "sweep", "compare", "mw"):
        rejected(other, docs["solve"], "the members of solve")

shutil.rmtree(tmp, ignore_errors=True)
print(f"schema: {tally.passed} passed, {tally.failed} failed")
sys.exit(1 if tally.failed else 0)
