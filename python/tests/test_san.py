"""The Python package against the command and against closed forms."""
import csv
import io
import os
import re

import numpy as np
import pytest
import scipy.io
import scipy.sparse

import san
from conftest import MODELS, TOP, output as run, sparse_stationary as stationary

MM1K = os.path.join(MODELS, "mm1k.san")


def test_mm1k_closed_form():
    lam, mu, k = 4.0, 3.0, 10
    sol = san.load(MM1K, defines={"lambda": lam}).solve(tol=1e-12)
    rho = lam / mu
    p = np.array([rho ** n for n in range(k + 1)])
    p /= p.sum()
    assert sol.converged
    assert np.allclose(sol.pi, p, rtol=1e-9, atol=0)
    assert sol.results["empty"] == pytest.approx(p[0], rel=1e-9)
    assert sol.marginals["queue"]["s[10]"] == pytest.approx(p[k], rel=1e-9)
    assert sol.throughputs["serve"] == pytest.approx(mu * (1 - p[0]), rel=1e-9)
    df = sol.marginals_frame()
    assert list(df.columns) == ["automaton", "state", "probability"]
    assert df.probability.sum() == pytest.approx(1.0)


def test_keywords_are_defines():
    a = san.load(MM1K, mu=5).solve().results["empty"]
    b = san.load(MM1K, defines={"mu": 5}).solve().results["empty"]
    assert a == b


def test_text_and_errors():
    text = open(MM1K).read()
    assert san.load(text=text).name == "mm1k"
    with pytest.raises(san.SanError) as e:
        san.load(text=text.replace("loc serve", "loc serve serve"))
    assert e.value.status == "model" and any(":" in d for d in e.value.diagnostics)
    with pytest.raises(san.SanError) as e:
        san.load(MM1K, defines={"nosuch": 1})
    assert "nosuch" in str(e.value)
    with pytest.raises(san.SanError):
        san.gen("ms --slaves 3")            # --mode is required


def test_check_summary():
    m = san.gen("ms --mode async --slaves 2 --buffer 3")
    c = m.check()
    assert c["automata"]["Master"] == ["ITx", "Tx", "Rx"]
    assert c["product_states"] == 3 * 3 ** 2 * 4
    assert {"name": "c", "sync": True, "automata": ["Master", "Buffer"]} in c["events"]
    assert "slave_transmitting" in c["results"]


def test_check_runs_the_solves_checks():
    # a rate negative in some reachable states only: the model compiles,
    # the solve refuses it, and check() must find it (as `san check` does,
    # at the rate's line and column; tests/corpus/errors has the expectation)
    path = os.path.join(TOP, "tests", "corpus", "errors", "rate_negative_in_state.san")
    c = san.load(path).check()
    assert not c["ok"] and c["audit"]["complete"] and c["audit"]["states"] == 16
    assert len(c["errors"]) == 1 and ":10:10: error: " in c["errors"][0]
    assert "is negative (-1)" in c["errors"][0]
    # without exploring, the text alone cannot show it
    c = san.load(path).check(explore="never")
    assert c["ok"] and not c["audit"]["explored"]
    # a sound model: every reachable state checked, no error
    c = san.load(MM1K).check()
    assert c["ok"] and c["audit"]["complete"] and c["audit"]["states"] > 0
    with pytest.raises(san.SanError):
        san.load(MM1K).check(explore="sometimes")


def test_product_states_beyond_40_digits():
    # the C text turns scientific past 40 digits; the property stays exact
    text = ("identifiers N = [0..199];\nevents loc u (1) loc d (2)\nreachability = 1;\n"
            "network big (continuous)\n  aut P[N]\n    stt a to(b) u\n    stt b to(a) d\n"
            "results x = st P[0];\n")
    m = san.load(text=text)
    assert m._c.product_str.decode() == "1.60694e+60"
    assert m.product_states == 2 ** 200


def test_generator_is_the_exported_matrix(tmp_path):
    line = "ms --mode async --slaves 2 --buffer 3"
    q = san.gen(line).generator()
    path = tmp_path / "q.mtx"
    run("export", "-f", "mtx", "-o", str(path), "--gen", line)
    ref = scipy.sparse.csr_matrix(scipy.io.mmread(str(path)), dtype=float)
    assert q.shape == ref.shape
    assert abs(q - ref).max() == 0
    assert abs(np.asarray(q.sum(axis=1))).max() < 1e-12


def test_pi_solves_the_generator():
    m = san.gen("ms --mode sync --slaves 3")
    sol = m.solve(tol=1e-12)
    assert np.abs(sol.pi - stationary(m.generator())).max() < 1e-10


def test_states_are_the_exported_states():
    line = "ms --mode async --slaves 2 --buffer 2"
    df = san.gen(line).states()
    ref = list(csv.DictReader(io.StringIO(run("export", "-f", "states", "--gen", line))))
    assert len(df) == len(ref)
    assert [int(r["index"]) for r in ref] == df["index"].tolist()
    assert [r["Buffer"] for r in ref] == df["Buffer"].tolist()
    dist = san.gen(line).solve().distribution()
    assert dist.probability.sum() == pytest.approx(1.0)


def _occupancy(value):
    """"(I:2 Pr:1 Tx:0)" -> {"I": 2, "Pr": 1, "Tx": 0}."""
    assert value.startswith("(") and value.endswith(")"), value
    return {s: int(k) for s, _, k in (x.rpartition(":") for x in value[1:-1].split())}


def test_solve_lumps_by_default_as_the_command():
    """lump="auto" (the default, as san solve): the answer of the chain
    as written (lump="off") from the lumped chain, which the solution,
    states(), generator() and distribution() all describe."""
    m = san.gen("ms --mode async --slaves 3 --buffer 3")
    assert m.lumping() == "Slave[1..3] (3 replicas of 3 states)"
    sol, off = m.solve(tol=1e-12), m.solve(lump="off", tol=1e-12)
    assert sol.lumped == m.lumping() and off.lumped is None
    assert len(sol.pi) < len(off.pi)
    for k, v in off.results.items():
        assert sol.results[k] == pytest.approx(v, rel=1e-9, abs=1e-14)
    for a, marg in off.marginals.items():
        for st, v in marg.items():
            assert sol.marginals[a][st] == pytest.approx(v, rel=1e-9, abs=1e-14)
    for e, v in off.throughputs.items():
        assert sol.throughputs[e] == pytest.approx(v, rel=1e-9, abs=1e-14)
    # the lumped chain's states: one column for the class, occupancy vectors
    dist = sol.distribution()
    assert dist.attrs["lumped"] == sol.lumped
    assert list(dist.columns) == ["state", "index", "Master", "Buffer", "Slave[1..3]",
                                  "probability"]
    occ = [_occupancy(v) for v in dist["Slave[1..3]"]]
    assert all(sum(o.values()) == 3 for o in occ)
    for st in ("I", "Pr", "Tx"):
        mean = sum(p * o[st] for p, o in zip(dist.probability, occ)) / 3
        assert mean == pytest.approx(off.marginals["Slave[2]"][st], rel=1e-9, abs=1e-14)
    states = m.states()
    assert states.attrs["lumped"] == sol.lumped
    assert states["index"].tolist() == dist["index"].tolist()
    ref = list(csv.DictReader(io.StringIO(run("export", "-f", "states", "--gen",
                                              "ms --mode async --slaves 3 --buffer 3"))))
    assert [r["Slave[1..3]"] for r in ref] == states["Slave[1..3]"].tolist()
    q = m.generator()
    assert q.shape == (len(sol.pi), len(sol.pi))
    assert np.abs(sol.pi - stationary(q)).max() < 1e-10
    # lump="off": the chain as written
    assert len(m.states(lump="off")) == len(off.pi) and m.states(lump="off").attrs["lumped"] is None
    assert m.generator(lump="off").shape == (len(off.pi), len(off.pi))
    assert "Slave[1]" in off.distribution().columns
    with pytest.raises(san.SanError):
        m.solve(lump="sometimes")
    assert san.load(MM1K).lumping() is None


def _table(out):
    """A report's CSV table without its provenance lines (# ..., doc/output.md)."""
    return csv.DictReader(line for line in out.splitlines() if not line.startswith("#"))


def test_solve_agrees_with_the_command():
    out = run("solve", "-q", "-f", "csv", MM1K)
    ref = {r["name"]: float(r["value"]) for r in _table(out)
           if r["kind"] == "result"}
    sol = san.load(MM1K).solve()
    for k, v in ref.items():
        assert sol.results[k] == pytest.approx(v, rel=1e-12)


def test_sweep_matches_san_sweep():
    df = san.sweep("ms", mode="async", slaves=[2, 3], buffer=[1, 4], jobs=2)
    assert len(df) == 4 and df.converged.all()
    out = run("sweep", "ms", "--mode", "async", "--slaves", "2,3", "--buffer", "1,4", "-f", "csv")
    for r in _table(out):
        row = df[(df.slaves == int(r["slaves"])) & (df.buffer == int(r["buffer"]))]
        assert row.slave_transmitting.iloc[0] == pytest.approx(float(r["slave_transmitting"]),
                                                               rel=1e-8)


def test_sweep_of_a_file():
    df = san.sweep(MM1K, **{"lambda": [1, 2]}, mu=3)
    assert df["empty"].iloc[0] > df["empty"].iloc[1]


def tutorial_code():
    text = open(os.path.join(TOP, "doc", "python.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "doc/python.md has no python block"
    return blocks[0]


def test_tutorial_is_short_and_runs(tmp_path, monkeypatch):
    code = tutorial_code()
    lines = [l for l in code.splitlines() if l.strip() and not l.strip().startswith("#")]
    assert len(lines) < 20, f"the tutorial takes {len(lines)} lines"
    # the same code on a smaller grid: make check has no minute to spare
    small = code.replace("range(2, 8)", "range(2, 4)").replace("[1, 5, 10, 20, 40]", "[1, 5, 10]")
    assert small != code
    monkeypatch.chdir(tmp_path)
    env = {}
    exec(compile(small, "doc/python.md", "exec"), env)
    assert "tx" in env and not env["tx"].isna().any().any()


SEVERAL = """
events
  loc go1 (1.3)
  loc fail (0.4)
  loc back (0.7)
  loc good (0.9)
  loc r01 (2)
  loc r10 (0.5)
partial reachability = (st M) == s0;
network several (continuous)
  aut M
    stt s0 to(s1) go1 to(f) fail
    stt s1 to(s0) back to(g0) good
    stt g0 to(g1) r01
    stt g1 to(g0) r10
    stt f
results
  inG = ((st M) == g0) || ((st M) == g1);
"""


def test_several_closed_classes_from_the_initial_state():
    """Two closed classes (an absorbing f, a cycle g0 <-> g1): the long-run
    distribution from s0, P(reach c) pi_c, as san solve (issue 31);
    the reference by numpy's dense solves."""
    # states s0 s1 g0 g1 f
    q = np.zeros((5, 5))
    for i, j, r in [(0, 1, 1.3), (0, 4, 0.4), (1, 0, 0.7), (1, 2, 0.9), (2, 3, 2), (3, 2, 0.5)]:
        q[i, j] += r
        q[i, i] -= r
    t = [0, 1]
    z = np.linalg.solve(-q[np.ix_(t, t)].T, np.array([1.0, 0.0]))
    p_g = z @ q[np.ix_(t, [2, 3])].sum(axis=1)
    p_f = z @ q[t, 4]
    pi_g = np.array([0.5, 2.0]) / 2.5               # g0 <-> g1 at 2 and 0.5
    ref = {"s0": 0, "s1": 0, "g0": p_g * pi_g[0], "g1": p_g * pi_g[1], "f": p_f}
    m = san.load(text=SEVERAL)
    for storage in ("sparse", "kron"):
        sol = m.solve(storage=storage, tol=1e-12)
        assert sol.converged
        got = dict(zip(sol.distribution()["M"], sol.pi))
        for k, v in ref.items():
            assert got[k] == pytest.approx(v, rel=1e-9, abs=1e-15)
        assert sol.results["inG"] == pytest.approx(p_g, rel=1e-9)
        assert sol.throughputs["r01"] == pytest.approx(ref["g0"] * 2, rel=1e-9)
        assert sorted((c["states"], round(c["reach"], 12)) for c in sol.classes) == \
            sorted([(2, round(p_g, 12)), (1, round(p_f, 12))])
    assert san.load(MM1K).solve().classes is None
