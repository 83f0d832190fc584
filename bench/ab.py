#!/usr/bin/env python3
"""ab.py - two san binaries against each other on the bench's models.

    python3 bench/ab.py SAN_A SAN_B [--rounds N] [--quick]
    make bench-ab BEFORE=/path/to/old/san

A refactoring must leave every time within noise; a bench run before and
one after, hours apart on a shared machine, cannot show that (a machine
loaded by builds made the same binary's Gauss-Seidel solve 5x slower).
Here the two binaries run interleaved (A, B, A, B, ...) on the same
models, and each figure is the minimum over the rounds: what the code
costs when the machine lets it run, measured under the same conditions
for both.

Figures per model (from `san solve -f json`): exploration and generator
build, the solve, and the time per product y = x Q (a power run of many
products, as in table 3 of bench.py).  The last column is B / A: below 1
means B is faster.  The table also prints whether the two agree on the
iteration count, which they must when only the structure changed.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def parse(argv):
    pos, rounds, quick = [], 5, False
    i = 0
    while i < len(argv):
        if argv[i] == "--rounds" and i + 1 < len(argv):
            rounds = int(argv[i + 1])
            i += 2
            continue
        if argv[i] == "--quick":
            quick = True
        else:
            pos.append(argv[i])
        i += 1
    if len(pos) != 2:
        sys.exit("usage: bench/ab.py SAN_A SAN_B [--rounds N] [--quick]")
    return pos[0], pos[1], rounds, quick


SAN_A, SAN_B, ROUNDS, QUICK = parse(sys.argv[1:])
sys.argv = [sys.argv[0], SAN_A, "full"]     # bench.py reads its binary at import
import bench  # noqa: E402


def cases():
    """(name, path, method, storage, extra, what): what is 'solve' (explore
    and solve times) or 'product' (ms per product)."""
    b = bench
    rs20 = b.model_file("rs20", b.rs(20, 10))
    rs20f = b.model_file("rs20f", b.rs(20, 20))
    c = [
        ("rs N=15 R=7", b.model_file("rs15", b.rs(15, 7)), "direct", "sparse", (), "solve"),
        ("rs N=20 R=10", rs20, "gmres", "sparse", (), "solve"),
        ("rs N=20 R=10", rs20, "gs", "sparse", (), "solve"),
        ("mm1k K=100000", b.model_file("mm1k", b.mm1k(100000)), "direct", "sparse", (), "solve"),
        ("rs N=20 R=20", rs20f, "power", "sparse", ("--max-iter", "200"), "product"),
        ("rs N=20 R=20", rs20f, "power", "kron", ("--max-iter", "200"), "product"),
    ]
    if QUICK:
        return c
    ms = b.gen_file("ms8", ["ms", "--mode", "async", "--slaves", "8"])
    pipe = b.gen_file("pipe7", ["pipeline", "--mode", "async", "--stages", "1,2,3,2,1,2,3",
                                "--buffer", "6"])
    c += [
        ("ms async 8", ms, "gmres", "sparse", (), "solve"),
        ("ms async 8", ms, "power", "kron", ("--max-iter", "200"), "product"),
        ("pipeline 7", pipe, "power", "kron", ("--max-iter", "200"), "product"),
        ("rs N=28 R=8", b.model_file("rs28r8", b.rs(28, 8)), "power", "kron",
         ("--max-iter", "50"), "product"),
    ]
    if os.path.exists(b.TSS):
        c += [("tss (PEPS)", b.TSS, "power", "kron", ("--max-iter", "10"), "product"),
              ("tss (PEPS)", b.TSS, "power", "sparse", ("--max-iter", "1"), "explore")]
    return c


def measure(san, case):
    """The figures of one run of one binary: {figure: seconds}, iterations."""
    name, path, method, storage, extra, what = case
    bench.SAN = san
    tol = "1e-300" if method == "power" else "1e-10"
    j, err, _, _ = bench.run(path, method, tol=tol, storage=storage, extra=extra)
    if not j:
        return None, err
    t, s = j["times_s"], j["solver"]
    if what == "product":
        return {"ms/prod": bench.per_product(j) * 1e3}, s["iterations"]
    if what == "explore":
        return {"explore+build s": t["explore_s"]}, s["iterations"]
    return {"explore s": t["explore_s"], "solve s": t["solve_s"]}, s["iterations"]


def main():
    print(f"A = {SAN_A}\nB = {SAN_B}\nminimum over {ROUNDS} interleaved rounds")
    fmt = "{:<15} {:<8} {:<7} {:<16} {:>10} {:>10} {:>7} {:>6}"
    print(fmt.format("model", "method", "storage", "figure", "A", "B", "B / A", "iter"))
    print("-" * 86)
    for case in cases():
        best = [{}, {}]
        iters = [None, None]
        failed = None
        for _ in range(ROUNDS):
            for k, san in enumerate((SAN_A, SAN_B)):
                fig, it = measure(san, case)
                if fig is None:
                    failed = f"{'AB'[k]} failed: {it}"
                    break
                iters[k] = it
                for f, v in fig.items():
                    best[k][f] = min(v, best[k].get(f, v))
            if failed:
                break
        name, _, method, storage, _, _ = case
        if failed:
            print(fmt.format(name, method, storage, failed[:40], "", "", "", ""))
            continue
        same = "same" if iters[0] == iters[1] else f"{iters[0]}/{iters[1]}"
        for f in best[0]:
            a, b = best[0][f], best[1][f]
            ratio = f"{b / a:.2f}" if a > 0 else "-"
            print(fmt.format(name, method, storage, f, f"{a:.4f}", f"{b:.4f}", ratio, same))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
