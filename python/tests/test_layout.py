"""The ctypes structures of san/_lib.py against the C headers: a C
program prints every field's offset and every structure's size as the
compiler lays them out, and ctypes must agree."""
import os
import shutil
import subprocess

import pytest

from conftest import TOP
from san import _lib


def c_program():
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <san.h>", "int main(void) {"]
    for cname, cls in _lib.STRUCTS:
        lines.append(f'printf("{cname} %zu\\n", sizeof({cname}));')
        for field, _ in cls._fields_:
            lines.append(f'printf("{cname}.{field} %zu\\n", offsetof({cname}, {field}));')
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


def python_layout():
    out = {}
    for cname, cls in _lib.STRUCTS:
        out[cname] = __import__("ctypes").sizeof(cls)
        for field, _ in cls._fields_:
            out[f"{cname}.{field}"] = getattr(cls, field).offset
    return out


@pytest.mark.skipif(not shutil.which(os.environ.get("CC", "cc")), reason="no C compiler")
def test_layout_matches_headers(tmp_path):
    src = tmp_path / "layout.c"
    src.write_text(c_program())
    exe = tmp_path / "layout"
    subprocess.run([os.environ.get("CC", "cc"), "-I", os.path.join(TOP, "include"), str(src),
                    "-o", str(exe)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    c = {k: int(v) for k, v in (l.split() for l in out.splitlines())}
    assert c == python_layout()


def test_only_the_public_api():
    """The package calls what include/ declares SAN_API, nothing else."""
    import re
    declared = set()
    for root, _, files in os.walk(os.path.join(TOP, "include")):
        for f in files:
            text = open(os.path.join(root, f)).read()
            declared.update(re.findall(r"SAN_API[^;(]*?\b(san_[a-z0-9_]+)\s*\(", text, re.S))
    src = open(os.path.join(TOP, "python", "san", "_lib.py")).read()
    used = set(re.findall(r'"(san_[a-z0-9_]+)": \(', src))     # the signatures
    assert used and used <= declared, sorted(used - declared)
