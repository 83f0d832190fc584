"""The package binds libsan's functions, never its layouts (issue 30
item 4): no ctypes structure in python/san (a mirrored struct once made
Python write past one when a header grew), and every function it calls
is bound with its signature, declared in include/ and exported."""
import ast
import ctypes
import os
import re

import san
from san import _lib
from conftest import TOP

PKG = os.path.dirname(os.path.abspath(san.__file__))


def sources():
    return {f: open(os.path.join(PKG, f)).read() for f in sorted(os.listdir(PKG))
            if f.endswith(".py")}


def layouts(tree):
    """What in a module mirrors a C layout: a class deriving from a ctypes
    Structure or Union, a _fields_ anywhere, an import of either."""
    found = []
    kinds = {"Structure", "Union", "BigEndianStructure", "LittleEndianStructure"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for b in node.bases:
                name = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                if name in kinds:
                    found.append(f"class {node.name}({name})")
        elif isinstance(node, ast.Name) and node.id == "_fields_":
            found.append("_fields_")
        elif isinstance(node, ast.Attribute) and node.attr in kinds | {"_fields_"}:
            found.append(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module == "ctypes":
            found += [f"import {a.name}" for a in node.names if a.name in kinds]
    return found


def test_no_structure_in_the_package():
    found = {f: layouts(ast.parse(text)) for f, text in sources().items()}
    assert not {f: v for f, v in found.items() if v}, found


def bound():
    """The functions _lib.py gives a signature."""
    return set(re.findall(r'"(san_[a-z0-9_]+)": \(', sources()["_lib.py"]))


def test_every_call_has_a_signature():
    """A libsan function called without argtypes and restype would take
    ctypes' defaults (an int result: a pointer cut to 32 bits)."""
    called = set()
    for text in sources().values():
        called.update(re.findall(r"\blib\.(san_[a-z0-9_]+)", text))
        called.update(f"san_{k}_opts_{op}" for k in re.findall(r'_Opts\("([a-z_]+)"\)', text)
                      for op in ("new", "free", "set"))
    assert called and called <= bound(), sorted(called - bound())


def test_only_the_public_api():
    """The package binds what include/ declares SAN_API, nothing else."""
    declared = set()
    for root, _, files in os.walk(os.path.join(TOP, "include")):
        for f in files:
            text = open(os.path.join(root, f)).read()
            declared.update(re.findall(r"SAN_API[^;(]*?\b(san_[a-z0-9_]+)\s*\(", text, re.S))
    assert bound() and bound() <= declared, sorted(bound() - declared)


def test_every_bound_function_is_exported():
    lib = ctypes.CDLL(_lib._find())
    missing = sorted(n for n in bound() if not hasattr(lib, n))
    assert not missing, missing


def test_options_by_name():
    """The keyed setters: an unknown key names the closest, a bad value
    its range or its words; a good value is taken (the solve runs with
    the method and the limit set by name)."""
    import pytest
    with san._Opts("analysis") as o:
        with pytest.raises(san.SanError, match="unknown option 'tl' \\(did you mean 'tol'\\?\\)"):
            o.set("tl", 1e-9)
        with pytest.raises(san.SanError, match="storage: expected auto, sparse or kron, not 'krn'"):
            o.set("storage", "krn")
        with pytest.raises(san.SanError, match=r"tol: expected a number in \[1e-300, 1\]"):
            o.set("tol", 2.0)
        with pytest.raises(san.SanError, match="not a whole number"):
            o.set("ntop", 1.5)
    from conftest import MODELS
    m = san.load(os.path.join(MODELS, "mm1k.san"))
    assert m.solve(method="power").method == "power"
    with pytest.raises(san.SanError) as e:
        m.solve(max_states=3)
    assert e.value.status == "limit"
