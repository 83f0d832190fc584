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
