"""Model.props (issue 31): CSL properties from Python, as `san props`.
The references are computed here: the M/M/1/K's closed form and the
exponential of its generator (scipy.linalg.expm, with the target made
absorbing), from the model's initial distribution (reachability = 1:
uniform over the 11 states); QVBS embedded's published values (Storm's
exact engine, 1e-9 relative); and the command's own JSON, which
Properties.json() must equal."""
import json
import os
import subprocess

import numpy as np
import pytest
from scipy.linalg import expm

import san
from conftest import MODELS, SAN, TOP

MM1K = os.path.join(MODELS, "mm1k.san")
QVBS = os.path.join(TOP, "tests", "prism", "qvbs")
LAM, MU, K = 2.0, 3.0, 10


def mm1k_generator():
    q = np.zeros((K + 1, K + 1))
    for n in range(K + 1):
        if n < K:
            q[n, n + 1] = LAM
        if n > 0:
            q[n, n - 1] = MU
        q[n, n] = -q[n].sum()
    return q


def test_steady_state_and_time_bounded_reachability():
    r = san.load(MM1K).props(["S=? [ queue = 0 ]", "P=? [ F<=1 queue=10 ]"])
    rho = LAM / MU
    assert r[0]["value"] == pytest.approx((1 - rho) / (1 - rho ** (K + 1)), rel=1e-9)
    q = mm1k_generator()
    q[K, :] = 0                                     # the target absorbs
    p0 = np.full(K + 1, 1.0 / (K + 1))
    assert r[1]["value"] == pytest.approx((p0 @ expm(q))[K], rel=1e-9)
    assert r[1]["method"] == "uniformization"


def test_property_constants():
    m = san.load(MM1K)
    a = m.props("const double T; \"reach\": P=? [ F<=T queue=10 ];", constants={"T": 0.5})
    b = m.props("P=? [ F<=0.5 queue=10 ]")
    assert a.values["reach"] == pytest.approx(b[0]["value"], rel=1e-15)


def test_prism_model_and_its_property_file_against_storm():
    m = san.load(os.path.join(QVBS, "embedded.prism"), MAX_COUNT=2)
    with open(os.path.join(QVBS, "embedded.props")) as f:
        r = m.props(f.read(), constants={"T": 12})
    v = r.values
    # the reward "danger" beside the label "danger": the reward's value
    assert v["danger_time"] == pytest.approx(0.2931856862419295, rel=1e-9)
    assert v["up_time"] == pytest.approx(423.8443172811176, rel=1e-9)
    assert v["actuators"] == pytest.approx(0.08767819037331588, rel=1e-9)


def test_json_is_the_commands():
    path = os.path.join(QVBS, "tandem.prism")
    props = os.path.join(QVBS, "tandem.props")
    with open(props) as f:
        doc = san.load(path, c=5).props(f.read(), constants={"T": 10, "t": 0.2}).json()
    out = subprocess.run([SAN, "props", "-f", "json", path, props, "-D", "c=5", "-D", "T=10",
                          "-D", "t=0.2"], check=True, capture_output=True, text=True).stdout
    cmd = json.loads(out)
    cmd.pop("schema", None)
    cmd.pop("meta", None)
    for p in cmd["properties"] + doc["properties"]:
        p.pop("time_s", None)
    assert doc == cmd


@pytest.mark.parametrize("props, kw, status, words", [
    ("S=? [ nope = 0 ]", {}, "model", "'nope' is not in the model"),
    ("P>=0.5 [ F queue = 10 ]", {}, "model", "only the query P=?"),
    ("S=? [ queue = 0 ]", {"tol": 0}, "usage", "tol"),
    ("S=? [ queue = 0 ]", {"eps": float("nan")}, "usage", "eps"),
    ([], {}, "usage", "properties"),
])
def test_refusals(props, kw, status, words):
    with pytest.raises(san.SanError) as e:
        san.load(MM1K).props(props, **kw)
    assert e.value.status == status
    assert words in str(e.value)
