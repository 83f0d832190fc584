#!/usr/bin/env python3
"""docs.py - the paths the documentation names exist (make check-docs).

The README, doc/*.md, the man pages and the comments of the sources
name files of this tree ("sweep/run.c solves one variant",
"tests/unit/test_expr_range.c"); a file that moved leaves them pointing
nowhere.  Every word that looks like a path of the tree (its first
folder is one of the tree's top-level entries: base/..., tests/...)
must exist in the source tree, in the build tree, or be a program
Makefile.am declares (tests/unit/test_expr, bench/kernels).

Read: README.md, doc/*.md, doc/*.[135], and the comments of the C
sources (.c .h .y .l), of the scripts (.py .sh), of Makefile.am and
configure.ac.  A word with an upper-case placeholder (cmd_NAME.c,
tests/regress/TARGET) is a pattern, not a path.  A file named alone
(dsolve.c) must be the name of some file of the tree.

Environment: top_srcdir, top_builddir (default: the current directory).
Exit 0 when every path exists, 1 with each missing one as file:line.
"""
import os
import re
import subprocess
import sys

TOP = os.environ.get("top_srcdir", ".")
BUILD = os.environ.get("top_builddir", ".")

# folders that are not the tree's sources: build products, clones of
# the tree (scripts/ci-petsc.sh puts one in build-petsc/), caches
SKIP_DIRS = {".git", ".libs", ".deps", "autom4te.cache", "build-aux", "__pycache__", "m4"}
# what bison and flex write next to their sources
GENERATED = {"lang/parser.c", "lang/parser.h", "lang/lexer.c"}
C_SOURCES = (".c", ".h", ".y", ".l")
SCRIPTS = (".py", ".sh")

# a path: words joined by '/', not inside another word, a URL, an
# absolute path or a shell variable ($build/src, ../shared)
PATH = re.compile(r"(?<![\w./$~<@:-])((?:[A-Za-z_][\w.+-]*/)+[\w.+-]*)")
PLACEHOLDER = re.compile(r"(^|[/_.-])[A-Z]+($|[/_.-])")
# a file named alone ("dsolve.c", "peers.h"): some file of the tree has
# that name
BARE = re.compile(r"(?<![\w./$~<@:-])([A-Za-z_][\w-]*\.(?:c|h|y|l|py|sh|md))\b(?![/\w])")
# names alone that are not files of the tree: what configure, bison and
# flex write, and the documents' examples of a user's own files
NOT_OURS = {"config.h", "parser.c", "parser.h", "lexer.c", "prog.c", "script.py"}


def tree_files():
    """The files of a git checkout (tracked, and new ones not ignored),
    else a walk."""
    try:
        p = subprocess.run(["git", "-C", TOP, "ls-files", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, text=True, check=True)
        files = [f for f in p.stdout.splitlines() if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    out = []
    for root, dirs, names in os.walk(TOP):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build-")]
        for n in names:
            out.append(os.path.relpath(os.path.join(root, n), TOP))
    # a tarball ships flex's and bison's output, whose comments are theirs
    # (names of headers that are not ours: make distcheck failed on them)
    return [f for f in out if f not in GENERATED]


GENERATED = {"lang/lexer.c", "lang/parser.c", "lang/parser.h",
             "gen/prism_lexer.c", "gen/prism_parser.c", "gen/prism_parser.h"}


def c_comments(text):
    """(line, text) of each comment of a C source."""
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def hash_comments(text):
    """(line, text) of each '#' comment of a script or a Makefile."""
    for i, line in enumerate(text.splitlines(), 1):
        j = line.find("#")
        if j >= 0:
            yield i, line[j:]


def every_line(text):
    return enumerate(text.splitlines(), 1)


def texts(files):
    """(file, line, text) of everything read: documents whole, sources'
    comments only."""
    for f in sorted(files):
        if f in GENERATED:
            continue
        top = f.split("/")[0]
        doc = f == "README.md" or (top == "doc" and re.search(r"\.(md|[135])$", f))
        if doc:
            parts = every_line
        elif f.endswith(C_SOURCES):
            parts = c_comments
        elif f.endswith(SCRIPTS) or f in ("Makefile.am", "configure.ac"):
            parts = hash_comments
        else:
            continue
        try:
            text = open(os.path.join(TOP, f), encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue
        for line, chunk in parts(text):
            yield f, line, chunk


def programs():
    """The programs Makefile.am declares (bin_, check_, EXTRA_PROGRAMS):
    paths the build makes, whether or not it has made them yet."""
    try:
        text = open(os.path.join(TOP, "Makefile.am")).read().replace("\\\n", " ")
    except OSError:
        return set()
    out = set()
    for m in re.finditer(r"^\w*PROGRAMS\s*\+?=(.*)$", text, re.M):
        out.update(m.group(1).split())
    return out


def exists(path, made):
    return path in made or any(os.path.exists(os.path.join(d, path)) for d in (TOP, BUILD))


def check():
    files = tree_files()
    tops = {f.split("/")[0] for f in files if "/" in f}
    names = {os.path.basename(f) for f in files} | NOT_OURS
    made = programs()
    bad, n = [], 0
    for f, line, chunk in texts(files):
        for m in PATH.finditer(chunk):
            path = m.group(1).rstrip(".,:;")
            if path.split("/")[0] not in tops or PLACEHOLDER.search(path):
                continue
            n += 1
            if not exists(path, made):
                bad.append(f"{f}:{line}: {path}")
        for m in BARE.finditer(chunk):
            n += 1
            if m.group(1) not in names:
                bad.append(f"{f}:{line}: {m.group(1)} (no file of the tree has that name)")
    return n, bad


def main():
    n, bad = check()
    for b in bad:
        print("FAIL - no such path:", b)
    if n == 0:
        print("FAIL - no path found in the documentation under", TOP)
        return 1
    print(f"{n} paths named: {n - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
