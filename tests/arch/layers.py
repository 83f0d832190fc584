#!/usr/bin/env python3
"""layers.py - the architecture, checked on the objects the build made.

The folders of the source tree are layers; a layer may use the symbols of
its own folder and of the layers below it, never of one above:

    base                clock, budget, parsing, output, diagnostics
    lang                .san text -> compiled model
    gen                 parameter flags -> .san text
    analytic            closed-form models (master/worker, cluster bound,
                        pipeline mapping, finite jobs, work rate);
                        beside gen: base only, the SANs are sweep's
    solver/numeric      pi Q = 0 on an operator; nothing above base
    solver/space        reachable states of a model
    solver/kron         the tensor descriptor (its operator, over a space)
    solver/petsc        the distributed space, generator and solve (MPI,
                        PETSc): beside kron, over space
    solver/transient    uniformization, Fox-Glynn: x e^{Qt} on an operator
    solver/analysis     the one pipeline: model -> space -> solution -> indices
    solver/export       the chain and the automata in other tools' formats
    solver/props        CSL properties on the reachable chain (beside analysis)
    sweep               families of variants, buffer sizing, grain
    report              a study's reports as one HTML page (san report)
    tool                the command's helpers (libsantool.a, never
                        installed): option tables, -D, model loading,
                        output files, provenance; over the public API only
    cli                 the `san` command: dispatcher and subcommand
                        drivers, over tool and the public API

Two folders of one layer (gen beside lang's users, numeric beside space)
must not use each other.  The check reads `nm` of every object of libsan
and of the `san` program: an undefined symbol is resolved to the folder
that defines it, and that folder must sit lower (or be the same).

Inside a folder the files form a graph of their own (a file that uses a
symbol another file of the folder defines depends on it): that graph
must have no cycle either.  Shared services live in leaf files, the
entry file (the dispatcher) on top; a cycle is listed with its files and
the symbols that make each of its edges.

It also checks that the exported API is the declared one: the dynamic
symbols of the shared libsan (built with hidden visibility) are the
functions declared in include/, and nothing else; and that the san_
prefix means public: a global symbol of the library named san_* is
declared in include/ (internal names carry their folder's prefix: num_,
lang_, kron_, ...; 141 did not before issue 30's rename).

Environment: top_srcdir, top_builddir (default: the current directory).
Exit 0 when the layering holds, 1 with every violation listed.
"""
import os
import re
import shutil
import subprocess
import sys

TOP = os.environ.get("top_srcdir", ".")
BUILD = os.environ.get("top_builddir", ".")

# folder -> layer (lower numbers are lower layers); folders of one level
# may not use each other unless listed together in SAME.
LAYERS = {
    "base": 0,
    "lang": 1,
    "gen": 1,
    "analytic": 1,
    "solver/numeric": 1,
    "solver/space": 2,
    "solver/petsc": 3,
    "solver/kron": 3,
    "solver/transient": 2,
    "solver/analysis": 4,
    "solver/export": 4,
    "solver/props": 4,
    "sweep": 5,
    "report": 6,
    "tool": 7,
    "cli": 8,
}

# Headers a folder includes against that order, one by one: the build
# gives each layer an include path of its own folder and the layers
# below it (scripts/layer-views.sh reads LAYERS and this, in this
# format: one "folder": [headers] line each, the braces on lines of
# their own), and links these single headers in beside.  None: the
# PETSc engine, which filled solver/analysis's layout, hands its answer
# up in a psc_answer of its own (petsc_solve.h) since issue 30 item 2.
INCLUDE_OK = {
}


def folder_of(obj):
    """The layer folder of an object file (its path relative to the build)."""
    rel = os.path.relpath(obj, BUILD)
    best = None
    for f in LAYERS:
        if rel.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


# an object of one of libsan's layer libraries (libsan_base.la, ...)
LIB_OBJECT = re.compile(r"^libsan_([a-z]+)_la-")


def check_libraries(objs):
    """Each object in its folder's library (libsan_space.la for
    solver/space/): the library decides the include path it was
    compiled with, so a file listed under another layer's would see
    that layer's folders."""
    bad = []
    for o in objs:
        fo = folder_of(o)
        m = LIB_OBJECT.match(os.path.basename(o))
        if m and m.group(1) != fo.split("/")[-1]:
            bad.append(f"{source_of(o)} is built in libsan_{m.group(1)}.la, not "
                       f"libsan_{fo.split('/')[-1]}.la (Makefile.am)")
    return bad


def objects():
    """Every object of libsan, of libsantool and of san (libtool's .o
    beside the .lo)."""
    out = []
    for root, _, files in os.walk(BUILD):
        if "/tests" in root or "/fuzz" in root or "/.libs" in root:
            continue
        for f in files:
            if not f.endswith(".o"):
                continue
            path = os.path.join(root, f)
            fo = folder_of(path)
            # the library's and the command's objects carry their prefix
            # (each has flags of its own); tests' objects are left out
            if (fo == "cli" and f.startswith("san-")
                    or fo == "tool" and f.startswith("libsantool_a-")
                    or fo and fo not in ("cli", "tool") and LIB_OBJECT.match(f)):
                out.append(path)
    return out


# nm and objdump run once over all the objects, not once an object (and
# nm twice): 900 processes took 70 s of CPU of a loaded make check.
_SYMBOLS = {}
_OBJDUMP = {}
CHUNK = 200     # objects a process (well inside the argument limit)


def chunks(objs):
    for i in range(0, len(objs), CHUNK):
        yield objs[i:i + CHUNK]


def symbols(obj):
    """(defined, undefined) global symbols of an object."""
    if obj not in _SYMBOLS:
        load_symbols([obj])
    return _SYMBOLS[obj]


def load_symbols(objs):
    """nm -P -A of the objects not read yet: "OBJ: NAME KIND ..." lines."""
    todo = [o for o in objs if o not in _SYMBOLS]
    for o in todo:
        _SYMBOLS[o] = (set(), set())
    for part in chunks(todo):
        p = subprocess.run(["nm", "-P", "-A"] + part, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            obj, sep, rest = line.partition(": ")
            parts = rest.split()
            if not sep or obj not in _SYMBOLS or len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            defined, undefined = _SYMBOLS[obj]
            if kind == "U":
                undefined.add(name)
            elif kind in "TDBRCVW":
                defined.add(name)


def check_layers():
    objs = objects()
    load_symbols(objs)
    where = {}
    uses = {}
    for o in objs:
        d, u = symbols(o)
        for s in d:
            where.setdefault(s, set()).add(folder_of(o))
        uses[o] = u
    bad = []
    for o, u in uses.items():
        fo = folder_of(o)
        for s in sorted(u):
            for fd in where.get(s, ()):
                if fd == fo:
                    continue
                if LAYERS[fd] >= LAYERS[fo]:
                    bad.append(f"{os.path.relpath(o, BUILD)} ({fo}) uses {s} of {fd}")
    return len(objs), bad


# Cycles a folder keeps on purpose, as {folder: {file, ...}}: the files
# of one cycle that may stay.  Empty: every folder is a DAG of files.
# (Issue 30 allowed one for gen's dispatcher; with the dispatcher in
# gen/dispatch.c over the templates, gen needs none.)
CYCLE_OK = {}


def source_of(obj):
    """The source file an object was built from, relative to the tree."""
    rel = os.path.relpath(obj, BUILD)
    d, f = os.path.split(rel)
    f = re.sub(r"^(libsan_[a-z]+_la-|libsantool_a-|san-)", "", f)
    return os.path.join(d, f[:-2] + ".c")


def strong_components(graph):
    """Tarjan's strongly connected components of {node: {succ, ...}},
    iteratively (a folder may hold more files than Python's recursion
    limit would like); only the components with a cycle."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def check_cycles(objs=None):
    """Cycles among the files of one folder: [(folder, files, edges)],
    edges as {(a, b): [symbol, ...]} inside the cycle."""
    objs = objects() if objs is None else objs
    defs, undef = {}, {}
    for o in objs:
        d, u = symbols(o)
        undef[o] = u
        for s in d:
            defs.setdefault((folder_of(o), s), set()).add(o)
    edges = {}
    for o, u in undef.items():
        fo = folder_of(o)
        for s in u:
            for b in defs.get((fo, s), ()):
                if b != o:
                    edges.setdefault((source_of(o), source_of(b)), []).append(s)
    bad = []
    for f in sorted(LAYERS):
        graph = {}
        for (a, b) in edges:
            if folder_of(os.path.join(BUILD, a)) == f:
                graph.setdefault(a, set()).add(b)
                graph.setdefault(b, set())
        for comp in strong_components(graph):
            allowed = CYCLE_OK.get(f, set())
            if set(comp) <= allowed:
                continue
            inside = {(a, b): sorted(edges[(a, b)]) for (a, b) in edges
                      if a in comp and b in comp}
            bad.append((f, comp, inside))
    return bad


def declared_api():
    """The function names declared in include/ (san_*)."""
    names = set()
    for root, _, files in os.walk(os.path.join(TOP, "include")):
        for f in files:
            if f.endswith(".h"):
                text = open(os.path.join(root, f)).read()
                names.update(re.findall(r"\b(san_[a-z0-9_]+)\s*\(", text))
    return names


def check_exports():
    lib = os.path.join(BUILD, ".libs", "libsan.so")
    if not os.path.exists(lib):
        return None, []
    p = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    exported = {l.split()[-1] for l in p.stdout.splitlines() if l.split()[-2:-1] in (["T"], ["D"], ["B"], ["R"])}
    api = declared_api()
    # the linker's own markers of the data segment's ends, which a link
    # against MPI's and PETSc's libraries (./configure --with-petsc)
    # leaves in the dynamic table: not symbols of libsan
    linker = {"_edata", "_end", "__bss_start"}
    extra = sorted(s for s in exported if s not in api and s not in linker)
    return len(exported), extra


def public_names():
    """Every san_* name include/ mentions (functions, data, types)."""
    names = set()
    for root, _, files in os.walk(os.path.join(TOP, "include")):
        for f in files:
            if f.endswith(".h"):
                names.update(re.findall(r"\b(san_\w+)", open(os.path.join(root, f)).read()))
    return names


def check_prefixes(objs):
    """Global symbols named san_* that include/ does not declare."""
    public = public_names()
    bad = []
    for o in objs:
        defined, _ = symbols(o)
        for name in sorted(defined):
            if name.startswith("san_") and name not in public:
                bad.append(f"{source_of(o)}: {name} has the public prefix san_ but "
                           "include/ does not declare it (use the folder's prefix)")
    return bad


# Writable static data the library keeps on purpose: the table of
# temporary files a signal handler removes (atomic slots) and the
# fallback counter of their names (atomic).  Anything else is state that
# threads share: a static buffer in gen/ms.c gave one slave another's
# rate when sweeps generated models on 4 threads.
# PETSc is initialized once per process (MPI's own rule): danalyze.c
# remembers whether it did, to finalize at exit.
STATIC_OK = {("base/outfile", "slots"), ("base/outfile", "counter"),
             ("solver/petsc/danalyze", "we_initialized")}


def writable_statics(obj):
    """Objects (variables) of obj in a writable section: .data, .bss and
    their variants, not .data.rel.ro (const pointers, written once by the
    loader)."""
    if obj not in _OBJDUMP:
        load_objdump([obj])
    out = []
    for line in _OBJDUMP[obj]:
        parts = line.split()
        if len(parts) < 5 or "O" not in parts[1:-3]:
            continue
        sec = next((x for x in parts if x.startswith((".data", ".bss", ".tdata", ".tbss"))), None)
        if sec is None or sec.startswith(".data.rel.ro"):
            continue
        out.append(parts[-1].split(".")[0])
    return out


def load_objdump(objs):
    """objdump -t of the objects not read yet, split at "OBJ:  file format"."""
    todo = [o for o in objs if o not in _OBJDUMP]
    for o in todo:
        _OBJDUMP[o] = []
    for part in chunks(todo):
        p = subprocess.run(["objdump", "-t"] + part, capture_output=True, text=True)
        cur = None
        for line in p.stdout.splitlines():
            m = re.match(r"^(\S+):\s+file format ", line)
            if m:
                cur = _OBJDUMP.get(m.group(1))
            elif cur is not None:
                cur.append(line)


def check_statics():
    """(objects read, offences): library objects must keep no writable
    static state but STATIC_OK; None when objdump is missing."""
    if shutil.which("objdump") is None:
        return None, []
    bad, n = [], 0
    objs = objects()
    load_objdump([o for o in objs if folder_of(o) not in ("cli", "tool")])
    for obj in objs:
        if folder_of(obj) in ("cli", "tool"):
            continue            # the command is one thread's program
        n += 1
        stem = source_of(obj)[:-2]
        names = writable_statics(obj)
        if any(x.startswith("__odr_asan") for x in names):
            # AddressSanitizer puts even const tables in .data (their
            # redzones): the normal build is where this is checked
            return None, []
        for name in names:
            if (stem, name) not in STATIC_OK:
                bad.append(f"{stem}.c: writable static '{name}' (threads share it)")
    return n, bad


def main():
    n, bad = check_layers()
    failed = 0
    if n == 0:
        print("FAIL - no objects found under", BUILD)
        failed += 1
    for b in bad:
        print("FAIL - layering:", b)
    failed += len(bad)
    cycles = check_cycles()
    for f, comp, edges in cycles:
        print(f"FAIL - cycle inside {f} ({len(comp)} files): {' '.join(comp)}")
        for (a, b), syms in sorted(edges.items()):
            print(f"    {a} -> {b}: {' '.join(syms)}")
    failed += len(cycles)
    libs = check_libraries(objects())
    for b in libs:
        print("FAIL - build:", b)
    failed += len(libs)
    prefixes = check_prefixes(objects())
    for b in prefixes:
        print("FAIL - naming:", b)
    failed += len(prefixes)
    ne, extra = check_exports()
    if ne is None:
        print("skip: no shared libsan (configure --enable-shared) to check the exports of")
    else:
        for s in extra:
            print("FAIL - exported but not declared in include/:", s)
        failed += len(extra)
    ns, statics = check_statics()
    if ns is None:
        print("skip: no objdump, or a sanitized build, to look for writable static data in")
    for b in statics:
        print("FAIL - thread safety:", b)
    failed += len(statics)
    print(f"{n} objects, {0 if ne is None else ne} exported symbols, "
          f"{len(LAYERS)} folders: {n + (ne or 0) + len(LAYERS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
