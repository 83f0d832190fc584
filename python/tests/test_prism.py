"""PRISM models through the Python package (issue 31): san.load reads a
.prism file as `san solve cluster.prism -D N=2` does, the constants its
keywords, and the answers are QVBS's published values (Storm's exact
engine, 1e-9 relative; its default engine, 10 digits, 1e-6)."""
import os

import pytest

import san
from conftest import TOP

QVBS = os.path.join(TOP, "tests", "prism", "qvbs")


def test_steady_state_of_an_imported_model():
    m = san.load(os.path.join(QVBS, "cluster.prism"), N=2)
    s = m.solve()
    assert s.converged
    assert s.results["premium"] == pytest.approx(0.9999615335623628, rel=1e-9)
    assert m.source.endswith("cluster.prism (imported)")


def test_transient_of_an_imported_model():
    m = san.load(os.path.join(QVBS, "tandem.prism"), defines={"c": 5})
    r = m.transient([0.2]).json()["times"][0]["results"]
    assert r["customers"] == pytest.approx(3.576667592, rel=1e-6)


def test_constants_are_the_importers():
    with pytest.raises(san.SanError) as e:
        san.load(os.path.join(QVBS, "cluster.prism"))
    assert "constant 'N' has no value" in str(e.value)
    with pytest.raises(san.SanError) as e:
        san.load(os.path.join(QVBS, "cluster.prism"), N=2, Z=1)
    assert "the model has no constant 'Z'" in str(e.value)


def test_update_off_the_range_is_refused_where_it_fires(tmp_path):
    p = tmp_path / "off.prism"
    p.write_text("ctmc\nmodule m\n  x : [0..3] init 0;\n  [] true -> 2 : (x'=x+1);\n"
                 "  [] x>0 -> 1 : (x'=x-1);\nendmodule\n")
    m = san.load(str(p))
    with pytest.raises(san.SanError) as e:
        m.solve()
    assert e.value.status == "model"
    assert "leads to no state here" in str(e.value)
    assert str(p) + " (imported):" in str(e.value)


def test_bad_prism_text_names_its_position(tmp_path):
    p = tmp_path / "bad.sm"
    p.write_text("ctmc\nmodule m\n  x : [0..3] init 0;\n  [] x< -> 1 : (x'=0);\nendmodule\n")
    with pytest.raises(san.SanError) as e:
        san.load(str(p))
    assert e.value.status == "model"
    assert str(p) + ":4:" in str(e.value)
