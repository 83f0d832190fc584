#!/bin/sh
# petsc.sh - san solve --engine petsc (issue 20) against the serial solve:
# mpirun -n 1, 2 and 4 (oversubscribed) give the serial results,
# marginals and throughputs to 1e-9 (relative, absolute below 1) on the
# bundled models and generated templates, and report their rank count.
# Skips (exit 77) when san is built without PETSc (./configure
# --with-petsc) or mpirun is missing.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
harness=petsc
harness_limit=${harness_limit:-120}
. "$top_srcdir/tests/cli/harness.sh"
need_san petsc

if "$SAN" solve --engine petsc "$top_srcdir/models/mm1k.san" 2>&1 | grep -q "built without PETSc"; then
    echo "skip: PETSc: san is built without it (./configure --with-petsc)"
    exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "skip: PETSc: no mpirun"; exit 77; }
# Open MPI refuses root without these; oversubscribe: 4 ranks on 2 cores
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# same MODEL-or-gen args: serial CSV in $tmp/serial.csv
compare() {     # compare NAME NP ARGS...
    name=$1 np=$2
    shift 2
    mpirun -n "$np" "$SAN" solve -q --engine petsc -f csv "$@" > "$tmp/p.csv" 2> "$tmp/p.err"
    if [ $? -ne 0 ]; then
        not_ok "$name -n $np: exit status $(tail -n 3 "$tmp/p.err")"
        return
    fi
    if python3 - "$tmp/serial.csv" "$tmp/p.csv" "$np" > "$tmp/cmp" 2>&1 <<'PY'
import csv, sys
def rows(p):
    return {(r[0], r[1], r[2]): r[3] for r in csv.reader(open(p)) if r and r[0] != "kind" and not r[0].startswith("#")}
s, p, np = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3])
bad = []
for k, v in s.items():
    if k[0] not in ("result", "marginal", "throughput"):
        continue
    a, b = float(v), float(p.get(k, "nan"))
    if not abs(a - b) <= 1e-9 * max(1.0, abs(a)):
        bad.append("%s %r vs %r" % (k, a, b))
if p.get(("solver", "converged", "")) != "1":
    bad.append("not converged")
if int(p.get(("solver", "ranks", ""), "0")) != np:
    bad.append("ranks %s, expected %d" % (p.get(("solver", "ranks", "")), np))
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
    then ok "$name -n $np"
    else not_ok "$name -n $np: $(cat "$tmp/cmp")"
    fi
}

check_model() {     # check_model NAME ARGS...
    name=$1
    shift
    if ! "$SAN" solve -q -f csv "$@" > "$tmp/serial.csv" 2> "$tmp/serial.err"; then
        not_ok "$name: the serial solve failed"
        return
    fi
    for np in 1 2 4; do
        compare "$name" "$np" "$@"
    done
}

for f in "$top_srcdir"/models/*.san; do
    check_model "$(basename "$f")" "$f"
done
check_model "gen ms sync" --gen "ms --mode sync --slaves 3"
check_model "gen ms async" --gen "ms --mode async --slaves 3 --buffer 4"
check_model "gen pipeline" --gen "pipeline --mode async --stages 1,2,0.5 --buffer 3"
# PETSc's own options pass through: BiCGSTAB with ASM
"$SAN" solve -q -f csv models/mm1k.san > "$tmp/serial.csv" 2>/dev/null
cd "$top_srcdir" && compare "bcgs+asm" 2 --petsc-options "-ksp_type bcgs -pc_type asm" models/mm1k.san

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
