#!/bin/sh
# petsc.sh - san solve --engine petsc (issue 20) against the serial solve:
# mpirun -n 1, 2 and 4 (oversubscribed) give the serial results,
# marginals and throughputs to 1e-10 (relative, absolute below 1; both
# solved to --tol 1e-12, so that each is within 1e-12 of the exact
# answer) on the bundled models, the generated templates and a model
# with transient states and an isolated pocket (the same state counts
# as serial); lumped models (issue 28) against the serial solve of the
# chain as written, to 1e-9; the same refusal as serial for two closed
# classes; a rank
# over --max-memory makes every rank stop with the message.
# Skips (exit 77) when san is built without PETSc (./configure
# --with-petsc) or mpirun is missing.
harness_limit=${harness_limit:-120}
. "$(dirname "$0")/../lib/harness.sh"
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
    # shellcheck disable=SC2086 # PX: extra words (--petsc-matrix shell)
    mpirun -n "$np" "$SAN" solve -q --tol 1e-12 --engine petsc $PX -f csv "$@" > "$tmp/p.csv" 2> "$tmp/p.err"
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
    if not abs(a - b) <= 1e-10 * max(1.0, abs(a)):
        bad.append("%s %r vs %r" % (k, a, b))
if p.get(("solver", "converged", "")) != "1":
    bad.append("not converged")
if int(p.get(("solver", "ranks", ""), "0")) != np:
    bad.append("ranks %s, expected %d" % (p.get(("solver", "ranks", "")), np))
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
    then ok "$name${PX:+ $PX} -n $np"
    else not_ok "$name${PX:+ $PX} -n $np: $(cat "$tmp/cmp")"
    fi
}
PX=""

check_model() {     # check_model NAME ARGS...
    name=$1
    shift
    if ! "$SAN" solve -q --tol 1e-12 -f csv "$@" > "$tmp/serial.csv" 2> "$tmp/serial.err"; then
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
# ---- a lumped model on the engine (issue 28): the lumped model is an
# ordinary model downstream, so mpirun -n 2 and 4 solve its counts over
# the ranks (assembled and matrix-free); every result, marginal and
# throughput against the serial sparse solve of the chain as written
# (--lump off, direct, --tol 1e-13) to 1e-9 relative (absolute below
# 1e-12), the report saying what was lumped, in fewer states
cat > "$tmp/machines.san" <<'EOF'
// machine repair M/M/2//6: six replicas, the repair rate a count
identifiers
  D = [1..6];
  nd = nb [M[1]..M[6]] down;
  rr = 1.1 * min(nd, 2) / max(nd, 1);
events
  loc fail (0.3)
  loc rep (rr)
reachability = 1;
network mr (continuous)
  aut M[i:D]
    stt up to(down) fail
    stt down to(up) rep
results
  down_mean = nd;
EOF
check_lumped() {    # check_lumped NAME ARGS...
    name=$1
    shift
    if ! "$SAN" solve -q -f json --lump off --method direct --tol 1e-13 "$@" > "$tmp/off.json" 2> "$tmp/off.err"; then
        not_ok "lumped $name: the serial --lump off solve failed: $(head -n 2 "$tmp/off.err")"
        return
    fi
    for np in 2 4; do
        for px in "" "--petsc-matrix shell"; do
            # shellcheck disable=SC2086 # px: extra words
            if ! mpirun -n "$np" "$SAN" solve -q -f json --tol 1e-12 --engine petsc $px "$@" \
                    > "$tmp/lp.json" 2> "$tmp/lp.err"; then
                not_ok "lumped $name${px:+ $px} -n $np: exit status: $(tail -n 3 "$tmp/lp.err")"
                continue
            fi
            if python3 - "$tmp/off.json" "$tmp/lp.json" "$np" > "$tmp/cmp" 2>&1 <<'PY'
import json, sys
off, on, np = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
bad = []
def close(a, b):
    return abs(a - b) <= max(1e-9 * max(abs(a), abs(b)), 1e-12)
for k, v in off["results"].items():
    if not close(on["results"][k], v):
        bad.append("result %s %r vs %r" % (k, on["results"][k], v))
for a, marg in off["marginals"].items():
    for s, v in marg.items():
        if not close(on["marginals"][a][s], v):
            bad.append("marginal %s:%s %r vs %r" % (a, s, on["marginals"][a][s], v))
for e, v in off["throughputs"].items():
    if not close(on["throughputs"][e], v):
        bad.append("throughput %s %r vs %r" % (e, on["throughputs"][e], v))
if "lumped" not in on or "lumped" in off:
    bad.append("lumped: %r, --lump off %r" % (on.get("lumped"), off.get("lumped")))
if not on["reachable_states"] < off["reachable_states"]:
    bad.append("%d lumped states, %d as written" % (on["reachable_states"], off["reachable_states"]))
if on.get("engine") != "petsc" or on.get("ranks") != np or not on["solver"]["converged"]:
    bad.append("engine %r, ranks %r, converged %r" % (on.get("engine"), on.get("ranks"),
                                                      on["solver"]["converged"]))
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
            then ok "lumped $name${px:+ $px} -n $np: the unlumped answer to 1e-9"
            else not_ok "lumped $name${px:+ $px} -n $np: $(cat "$tmp/cmp")"
            fi
        done
    done
}
check_lumped "ms async" --gen "ms --mode async --slaves 4 --buffer 3"
check_lumped "ms sync" --gen "ms --mode sync --slaves 5"
check_lumped "machine repair" "$tmp/machines.san"
# transient states (t0, t1 x B) ahead of the closed class, and an
# isolated pocket (p0, p1 x B) the function admits: dropped as in
# serial, the counts alike
cat > "$tmp/pockets.san" <<'EOF'
// transient t0, t1 ahead of the closed class x0..x2; the pocket p0, p1
// is accepted by the reachability function, nothing enters it
events
  loc g0 (1e6)
  loc g1 (1e-3)
  loc u0 (2)
  loc u1 (2)
  loc d0 (5)
  loc d1 (5)
  loc p (1)
  loc q (3)
  loc b (1.5)
  loc c (0.7)
reachability = 1;
network pockets (continuous)
  aut A
    stt t0 to(t1) g0
    stt t1 to(x0) g1
    stt x0 to(x1) u0
    stt x1 to(x2) u1 to(x0) d0
    stt x2 to(x1) d1
    stt p0 to(p1) p
    stt p1 to(p0) q
  aut B
    stt y0 to(y1) b
    stt y1 to(y2) b to(y0) c
    stt y2 to(y0) c
results
  first = (st A) == x0;
  pocket = (st A) == p0;
EOF
check_model "transient+pocket" "$tmp/pockets.san"
counts() {      # counts JSON: reachable transient dropped nonzeros
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["reachable_states"], r["transient_states"], r["dropped_states"], r["nonzeros"])' "$1" 2>/dev/null
}
"$SAN" solve -q -f json "$tmp/pockets.san" > "$tmp/s.json" 2>/dev/null
for np in 2 4; do
    mpirun -n "$np" "$SAN" solve -q -f json --engine petsc "$tmp/pockets.san" > "$tmp/p.json" 2> "$tmp/p.err"
    want=$(counts "$tmp/s.json") got=$(counts "$tmp/p.json")
    # 3 x 3 in the class, 2 x 3 transient, the pocket 2 x 3 dropped:
    # 15 states, 6 transient, 6 dropped (two warnings on 1 rank or more)
    if [ "$want" = "15 6 6 53" ] && [ "$got" = "$want" ] && grep -q "dropped an isolated pocket" "$tmp/p.err"
    then ok "transient+pocket -n $np: states, transient, dropped, nonzeros as serial ($got)"
    else not_ok "transient+pocket -n $np: serial '$want', petsc '$got'"
    fi
done
# ---- time-dependent analyses over the ranks (san transient/passage
# --engine petsc) against serial: every index at every time to 1e-10
# (relative, absolute below 1; both cut the Poisson series at 1e-13 per
# interval), percentiles to 1e-8 (each bisected to 1e-10 of t)
compare_tr() {  # compare_tr NAME SUBCOMMAND ARGS...: serial, then -n 1, 2, 4
    name=$1 sub=$2
    shift 2
    if ! "$SAN" "$sub" -q -f csv "$@" > "$tmp/ts.csv" 2> "$tmp/ts.err"; then
        not_ok "$sub $name: the serial run failed: $(head -n 2 "$tmp/ts.err")"
        return
    fi
    for np in 1 2 4; do
        # shellcheck disable=SC2086
        mpirun -n "$np" "$SAN" "$sub" -q -f csv --engine petsc $PX "$@" > "$tmp/tp.csv" 2> "$tmp/tp.err"
        rc=$?
        if [ $rc -ne 0 ]; then
            not_ok "$sub $name -n $np: exit $rc, $(grep -v '^-' "$tmp/tp.err" | head -n 2)"
            continue
        fi
        if python3 - "$tmp/ts.csv" "$tmp/tp.csv" "$np" > "$tmp/cmp" 2>&1 <<'PY'
import csv, sys
def rows(p):
    return {tuple(r[:4]): r[4] for r in csv.reader(open(p))
            if len(r) == 5 and r[0] != "time" and not r[0].startswith("#")}
s, p, np = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3])
bad, n = [], 0
for k, v in s.items():
    if k[1] in ("uniformization", "run") or k[2] == "mean_residual":
        continue
    tol = 1e-8 if k[2] == "percentile" else 1e-10
    a, b = float(v), float(p.get(k, "nan"))
    n += 1
    if not (a == b or abs(a - b) <= tol * max(1.0, abs(a))):
        bad.append("%s %r vs %r" % (",".join(k), a, b))
if p.get(("", "run", "ranks", "")) != str(np):
    bad.append("ranks %s, expected %d" % (p.get(("", "run", "ranks", "")), np))
if n < 3:
    bad.append("only %d figures compared" % n)
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
        then ok "$sub $name${PX:+ $PX} -n $np"
        else not_ok "$sub $name${PX:+ $PX} -n $np: $(cat "$tmp/cmp")"
        fi
    done
}
compare_tr "mm1k" transient --time 0.5,1,5,50 --rewards "$top_srcdir/models/mm1k.san"
compare_tr "rs_pool --initial" transient --time 0..2:0.5 --initial 'st P1 == using' \
    "$top_srcdir/models/rs_pool.san"
compare_tr "transient+pocket" transient --time 1e-7,1e-6,1e-4,0.01 --rewards "$tmp/pockets.san"
"$SAN" gen ms --mode async --slaves 3 --buffer 3 > "$tmp/ms.san"
compare_tr "ms async" transient --time 0.1,1,10 "$tmp/ms.san"
compare_tr "mm1k" passage --until 'st queue == s[10]' --time 1,10 --percentiles 10,50,90 \
    "$top_srcdir/models/mm1k.san"
compare_tr "ms async" passage --until 'st Master == Tx' --percentiles 50,99 --time 0.5 "$tmp/ms.san"
# lumped (the default), from a uniform start over every reachable state:
# each occupancy state weighted by the original states it stands for,
# which the engine must keep (its analysis starts cleared)
"$SAN" gen ms --mode async --slaves 3 --buffer 2 > "$tmp/msl.san"
compare_tr "lumped ms async, uniform start" transient --time 0.5,2 --initial 'n_I >= 0' "$tmp/msl.san"
# ---- the matrix-free generator (--petsc-matrix shell): the same answers
PX="--petsc-matrix shell"
check_model "mm1k" "$top_srcdir/models/mm1k.san"
check_model "rs_pool" "$top_srcdir/models/rs_pool.san"
check_model "gen ms sync" --gen "ms --mode sync --slaves 3"
check_model "gen ms async" --gen "ms --mode async --slaves 3 --buffer 4"
check_model "transient+pocket" "$tmp/pockets.san"
compare_tr "mm1k" transient --time 0.5,1,5,50 --rewards "$top_srcdir/models/mm1k.san"
compare_tr "transient+pocket" transient --time 1e-7,1e-6,1e-4,0.01 --rewards "$tmp/pockets.san"
compare_tr "ms async" passage --until 'st Master == Tx' --percentiles 50,99 --time 0.5 "$tmp/ms.san"
# lumped (the default), from a uniform start over every reachable state:
# each occupancy state weighted by the original states it stands for,
# which the engine must keep (its analysis starts cleared)
"$SAN" gen ms --mode async --slaves 3 --buffer 2 > "$tmp/msl.san"
compare_tr "lumped ms async, uniform start" transient --time 0.5,2 --initial 'n_I >= 0' "$tmp/msl.san"
PX=""
mpirun -n 2 "$SAN" solve -q -f json --engine petsc --petsc-matrix shell "$tmp/pockets.san" > "$tmp/p.json" 2> /dev/null
got=$(counts "$tmp/p.json")
if [ "$got" = "15 6 6 53" ]
then ok "transient+pocket --petsc-matrix shell: states, transient, dropped, nonzeros as serial"
else not_ok "transient+pocket --petsc-matrix shell: '$got', serial '15 6 6 53'"
fi
# --petsc-matrix auto (the default): past --max-memory on a rank, the
# assembled generator is given up (by its estimate at 30M, by the
# refusal of its arcs at 40M) for the matrix-free product, with a note
"$SAN" gen ms --mode async --slaves 8 --buffer 10 > "$tmp/ms8.san"
# (--lump off: the chain as written, 498,819 states; lumped it fits anywhere)
"$SAN" transient -q -f csv --lump off --time 0.5 "$tmp/ms8.san" > "$tmp/ts.csv" 2> /dev/null
for mm in 30M 40M; do
    mpirun -n 2 "$SAN" transient -q -f csv --lump off --engine petsc --max-memory $mm --time 0.5 \
        "$tmp/ms8.san" > "$tmp/tp.csv" 2> "$tmp/tp.err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "the product lists the transitions again instead" "$tmp/tp.err" &&
        python3 - "$tmp/ts.csv" "$tmp/tp.csv" <<'PY'
import csv, sys
def rows(p):
    return {tuple(r[:4]): r[4] for r in csv.reader(open(p))
            if len(r) == 5 and r[0] not in ("time", "") and not r[0].startswith("#")}
s, p = rows(sys.argv[1]), rows(sys.argv[2])
sys.exit(0 if s and all(abs(float(v) - float(p.get(k, "nan"))) <= 1e-10 * max(1, abs(float(v)))
                        for k, v in s.items()) else 1)
PY
    then ok "auto at --max-memory $mm: the matrix-free product, said in a note, serial's answer"
    else not_ok "auto at --max-memory $mm: exit $rc, $(grep -v '^-' "$tmp/tp.err" | head -n 2)"
    fi
done
# --from: a distribution written by serial, read by every rank (each
# keeps its states); a state that is not reachable: the serial refusal
"$SAN" solve -q --vector "$tmp/pi.csv" "$top_srcdir/models/rs_pool.san" > /dev/null 2>&1
compare_tr "rs_pool --from" transient --time 1,2 --from "$tmp/pi.csv" "$top_srcdir/models/rs_pool.san"
# same_vector SERIAL PETSC: the 15 states of the pocket model in the same
# rows and order, the probabilities to 1e-10
same_vector() {
    python3 - "$1" "$2" <<'PY'
import csv, sys
a, b = list(csv.reader(open(sys.argv[1]))), list(csv.reader(open(sys.argv[2])))
sys.exit(0 if len(a) == len(b) == 16 and a[0] == b[0] and
         all(x[:-1] == y[:-1] and abs(float(x[-1]) - float(y[-1])) <= 1e-10
             for x, y in zip(a[1:], b[1:])) else 1)
PY
}
# solve --vector: rank 0 merges the ranks' parts, in increasing index,
# the file serial writes (rows alike, probabilities to 1e-10); a dropped
# pocket's states are not in it, transient states are, at 0
"$SAN" solve -q --tol 1e-12 --vector "$tmp/vs.csv" "$tmp/pockets.san" > /dev/null 2>&1
for np in 1 2 4; do
    for px in "" "--petsc-matrix shell"; do
        # shellcheck disable=SC2086
        mpirun -n "$np" "$SAN" solve -q --tol 1e-12 --engine petsc $px --vector "$tmp/vp.csv" \
            "$tmp/pockets.san" > /dev/null 2> "$tmp/p.err"
        rc=$?
        if [ $rc -eq 0 ] && same_vector "$tmp/vs.csv" "$tmp/vp.csv"
        then ok "solve --vector -n $np${px:+ $px}: serial's file"
        else not_ok "solve --vector -n $np${px:+ $px}: exit $rc, $(grep -v '^-' "$tmp/p.err" | head -n 2)"
        fi
    done
done
# a file that cannot be written: every rank returns (none left waiting), exit 1
timeout 60 mpirun -n 3 "$SAN" solve -q --engine petsc --vector "$tmp/no/such/dir/v.csv" \
    "$top_srcdir/models/mm1k.san" > /dev/null 2> "$tmp/p.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "cannot write" "$tmp/p.err"
then ok "solve --vector to a directory that does not exist: exit 1, no rank left waiting"
else not_ok "solve --vector unwritable: exit $rc, $(grep -v '^-' "$tmp/p.err" | head -n 2)"
fi
# --vector - with json: the report cannot hold it
mpirun -n 2 "$SAN" solve -q -f json --engine petsc --vector - "$top_srcdir/models/mm1k.san" \
    > /dev/null 2> "$tmp/p.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "no rank holds it" "$tmp/p.err"
then ok "solve --vector - -f json refused with --engine petsc"
else not_ok "solve --vector - -f json with --engine petsc: exit $rc"
fi
# the differential tester: random models of every family, the engine
# assembled and matrix-free over 2 ranks against the dense reference
# (refusals allowed: the nearly-decomposable guard; never a wrong answer)
if SAN="$SAN" python3 "$top_srcdir/tests/difftest/difftest.py" --count 2 --seed 13 \
    --storages petsc2,petsc2-shell --methods auto -j 1 --timeout 120 > "$tmp/dt.out" 2>&1
then ok "difftest over the engine: $(tail -n 1 "$tmp/dt.out")"
else not_ok "difftest over the engine: $(grep -E 'WRONG|error|bad-refusal' "$tmp/dt.out" | head -n 3)"
fi
# transient --vector: pi at the last time, merged by rank 0 as for solve
"$SAN" transient -q --time 1e-4,0.01 --vector "$tmp/tvs.csv" "$tmp/pockets.san" > /dev/null 2>&1
for np in 1 3; do
    mpirun -n "$np" "$SAN" transient -q --engine petsc --time 1e-4,0.01 --vector "$tmp/tvp.csv" \
        "$tmp/pockets.san" > /dev/null 2> "$tmp/p.err"
    rc=$?
    if [ $rc -eq 0 ] && same_vector "$tmp/tvs.csv" "$tmp/tvp.csv"
    then ok "transient --vector -n $np: serial's file"
    else not_ok "transient --vector -n $np: exit $rc, $(grep -v '^-' "$tmp/p.err" | head -n 2)"
    fi
done
# --time-limit inside the series: every rank stops at the same step,
# the times done reported, exit 1
# (a long ring mixes in ~n^2 steps: no steady state to end the series early)
printf 'identifiers\n  D = [0..20000];\nevents\n  loc a (1)\n  loc b (1)\nreachability = 1;\nnetwork ring (continuous)\n  aut A\n    stt s[D] to(++) a to(--) b\n' > "$tmp/ring.san"
mpirun -n 2 "$SAN" transient -q --engine petsc --time 1,1e7 --time-limit 2 --max-steps 1e12 --initial 'st A == s[0]' \
    "$tmp/ring.san" > "$tmp/tl.out" 2> "$tmp/tl.err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c 'time limit' "$tmp/tl.err")" -eq 1 ]
then ok "transient --time-limit on 2 ranks: stopped together, exit 1, said once"
else not_ok "transient --time-limit: exit $rc, $(grep -v '^-' "$tmp/tl.err" | head -n 2)"
fi
# two closed classes (the pocket entered from t0): refused as in serial
sed 's/stt t0 to(t1) g0/stt t0 to(t1) g0 to(p0) g1/' "$tmp/pockets.san" > "$tmp/two.san"
for np in 1 3; do
    mpirun -n "$np" "$SAN" solve -q --engine petsc "$tmp/two.san" > /dev/null 2> "$tmp/p.err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "the chain has 2 closed classes" "$tmp/p.err"
    then ok "two closed classes -n $np: refused (exit 2)"
    else not_ok "two closed classes -n $np: exit $rc, $(head -n 2 "$tmp/p.err")"
    fi
done
# a rank over its --max-memory: every rank stops (none is left waiting
# in a collective: mpirun returns), the message once, exit 2 as serial
for mm in 2M 4M; do
    timeout 120 mpirun -n 4 "$SAN" solve -q --engine petsc --lump off --max-memory $mm \
        --gen "ms --mode async --slaves 6 --buffer 6" > /dev/null 2> "$tmp/p.err"
    rc=$?
    n=$(grep -c "beyond --max-memory of" "$tmp/p.err")
    if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ]
    then ok "--max-memory $mm on 4 ranks: every rank stopped, exit 2, one message"
    else not_ok "--max-memory $mm on 4 ranks: exit $rc, $n messages: $(head -n 2 "$tmp/p.err")"
    fi
done
# Ctrl-C on one rank (rank 1 of 2, 4 s into a 952,180-state run: its
# exploration or solve) stops every rank, with the message
mpirun -n 2 "$SAN" solve -q --engine petsc --lump off --gen "ms --mode async --slaves 10 --buffer 10" \
    > /dev/null 2> "$tmp/int.err" &
mpid=$!
sleep 4
rank1=$(pgrep -P "$mpid" -f "engine petsc" 2>/dev/null | tail -n 1)
[ -n "$rank1" ] || rank1=$(pgrep -f "solve -q --engine petsc --lump off --gen ms --mode async --slaves 10 --buffer 10" | tail -n 1)
[ -n "$rank1" ] && kill -INT "$rank1"
wait "$mpid"
rc=$?
# (in the exploration every rank stops at the next round's agreement,
# exit 1; in KSP at the next iteration, the best vector's report, and
# the rank signalled exits 130 as serial san on Ctrl-C)
if [ -n "$rank1" ] && { [ "$rc" -eq 1 ] || [ "$rc" -eq 130 ]; } && grep -q "interrupted" "$tmp/int.err"
then ok "Ctrl-C on one rank: every rank stopped (exit $rc)"
else not_ok "Ctrl-C on one rank (pid '${rank1}'): exit $rc, $(grep -v '^-' "$tmp/int.err" | head -n 2)"
fi
# --time-limit stops every rank: in the exploration (the message once,
# exit 1) and inside KSP (the best vector's report, NOT CONVERGED, exit 1)
for tl in 0.2 3; do
    mpirun -n 2 "$SAN" solve -q --engine petsc --lump off --time-limit "$tl" --petsc-options "-pc_type none" \
        --gen "ms --mode async --slaves 10 --buffer 10" > "$tmp/tl.out" 2> "$tmp/tl.err"
    rc=$?
    if [ "$rc" -eq 1 ] && [ "$(grep -c 'time limit of' "$tmp/tl.err")" -eq 1 ]
    then ok "--time-limit $tl on 2 ranks: every rank stopped, exit 1, said once"
    else not_ok "--time-limit $tl: exit $rc, $(grep -v '^-' "$tmp/tl.err" | head -n 2)"
    fi
done
# a reachability function that accepts nothing: the serial message, exit 2
printf 'events\n  loc a (1)\nreachability = 0;\nnetwork z (continuous)\n  aut A\n    stt s0 to(s1) a\n    stt s1 to(s0) a\n' > "$tmp/none.san"
mpirun -n 2 "$SAN" solve -q --engine petsc "$tmp/none.san" > /dev/null 2> "$tmp/p.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "the reachability function accepts no state" "$tmp/p.err"
then ok "no state accepted: refused as in serial (exit 2)"
else not_ok "no state accepted: exit $rc, $(head -n 2 "$tmp/p.err")"
fi
# nearly decomposable (a mode automaton at rates 1e-6 gating 7 fast ones):
# every state balances to --tol while the modes carry masses off by 4e-6
# (measured before the distributed aggregation check: mode0 0.480002 for
# 12/25, exit 0; then "not verified" until this check)
cat > "$tmp/ncd.san" <<'NCD'
identifiers
  eps = 1e-6;
  F = [0..7];
  up = 1 + ((st M == m1) * 2) + ((st M == m2) * 4) + ((st M == m3) * 8);
events
  loc s0 (eps * 1)
  loc s1 (eps * 2)
  loc s2 (eps * 3)
  loc s3 (eps * 4)
  loc on (up)
  loc off (5)
reachability = 1;
network ncd (continuous)
  aut M
    stt m0 to(m1) s0
    stt m1 to(m2) s1
    stt m2 to(m3) s2
    stt m3 to(m0) s3
  aut P[F]
    stt idle to(busy) on
    stt busy to(idle) off
results
  mode0 = st M == m0;
NCD
# the aggregation check (the mode automaton's partition, and the
# components of the fast transitions) sees the modes' masses and the
# aggregation-disaggregation cycles correct them: serial's answer
check_model "nearly decomposable" "$tmp/ncd.san"
PX="--petsc-matrix shell"
check_model "nearly decomposable" "$tmp/ncd.san"
PX=""
# a slow automaton of 600 states gating a fast one: at every threshold
# the fast transitions leave 600 components, beyond the 512 blocks the
# check solves, and no automaton of 2 to 512 states holds the slow mode:
# not verified (exit 1, said once; the answer was off by 2e-5)
cat > "$tmp/many.san" <<'EOF2'
identifiers
  D = [0..599];
events
  loc f (1)
  loc g (1)
  loc up ((st A == y) * 1e-6)
  loc dn ((st A == x) * 1e-6)
reachability = 1;
network r (continuous)
  aut A
    stt x to(y) f
    stt y to(x) g
  aut B
    stt b[D] to(++) up to(--) dn
results
  first = st B == b[0];
EOF2
mpirun -n 2 "$SAN" solve -q --engine petsc "$tmp/many.san" > /dev/null 2> "$tmp/p.err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c 'not verified: possibly nearly decomposable' "$tmp/p.err")" -eq 1 ]
then ok "nearly decomposable beyond the check's 512 blocks: not verified, exit 1, said once"
else not_ok "nearly decomposable beyond 512 blocks: exit $rc, $(grep -v '^-' "$tmp/p.err" | head -n 2)"
fi
# the most probable states on ties (transient states, all at 0): ordered
# by product index on every engine and rank count (c0, c1, then t0, t1,
# t2 as declared; the exploration from t2 meets them the other way, and
# serial ordered them so before the rule was shared)
tops() {    # the top states of a JSON report on stdin, one line
    python3 -c 'import json, sys; print(" ".join(t["state"]["A"] for t in json.load(sys.stdin)["top_states"]))'
}
ties="$top_srcdir/tests/cli/top_ties.san"
for ntop in 5 4; do
    want="c0 c1 t0 t1 t2"
    [ "$ntop" -eq 4 ] && want="c0 c1 t0 t1"
    got=$("$SAN" solve -q --top "$ntop" -f json "$ties" 2>/dev/null | tops)
    [ "$got" = "$want" ] || not_ok "top states on ties, serial --top $ntop: '$got', want '$want'"
    for np in 1 2; do
        got=$(mpirun -n "$np" "$SAN" solve -q --engine petsc --top "$ntop" -f json "$ties" 2>/dev/null | tops)
        if [ "$got" = "$want" ]
        then ok "top states on ties --top $ntop -n $np: as serial"
        else not_ok "top states on ties --top $ntop -n $np: '$got', want '$want'"
        fi
    done
done
# the error estimate holds serial's change term (numeric/verify.c: what
# one more sweep moves), measured here from the returned vector and the
# exported generator: the largest relative change of a probability above
# 1e-14 that a Jacobi step (pQ)_j / -q_jj makes.  It is about twice the
# balance residual, which alone was the estimate (clients_server at tol
# 1e-6, 2 ranks: balance 7.4e-11, change 1.5e-10, estimate 7.4e-11: failing here).
"$SAN" export -q --lump off -f mtx -o "$tmp/cs.mtx" "$top_srcdir/models/clients_server.san" 2>/dev/null
for np in 1 2; do
    mpirun -n "$np" "$SAN" solve -q --lump off --engine petsc --tol 1e-6 -f json --vector "$tmp/cs.csv" \
        "$top_srcdir/models/clients_server.san" > "$tmp/cs.json" 2> "$tmp/p.err"
    if msg=$(python3 - "$tmp/cs.mtx" "$tmp/cs.csv" "$tmp/cs.json" 2>&1 <<'PY'
import csv, json, sys
ent = [l.split() for l in open(sys.argv[1]) if not l.startswith("%")]
n = int(ent[0][0])
rows = list(csv.DictReader(open(sys.argv[2])))
at = {k: i for i, k in enumerate(sorted(int(r["index"]) for r in rows))}
p = [0.0] * n
for r in rows:
    p[at[int(r["index"])]] = float(r["probability"])
s = sum(p)
p = [v / s for v in p]
y, d = [0.0] * n, [0.0] * n          # y = pQ; d = -q_jj
for i, j, v in ((int(e[0]) - 1, int(e[1]) - 1, float(e[2])) for e in ent[1:]):
    y[j] += p[i] * v
    if i == j:
        d[j] = -v
ch = 0.0
for j in range(n):
    if d[j] > 0:
        b = max(p[j] + y[j] / d[j], 0.0)
        m = max(p[j], b)
        ch = max(ch, abs(b - p[j]) / m if m > 1e-14 else 0.0)
sol = json.load(open(sys.argv[3]))["solver"]
est = sol["error_estimate"]
print("change %.3g, estimate %.3g" % (ch, est))
# 0.9: the sums here and the ranks' differ in the last digits of the
# flows (a change of 5e-13 is known to about 1e-4); the old estimate was
# about half of it
sys.exit(0 if sol["converged"] and ch > 0 and est >= 0.9 * ch and est <= 1e-6 else 1)
PY
    )
    then ok "error estimate with the change of a sweep -n $np: $msg"
    else not_ok "error estimate without the change of a sweep -n $np: $msg"
    fi
done
# ---- the indices' sums and the normalization compensated on every rank
# (state_sums.c, as the serial chunks'; dsolve.c's normalized): PEPS's
# resource sharing rs 18/9 as written (--lump off, 155,382 states).  Two
# identities hold for any vector and so check the sums alone: Rel@P[i]
# (rate 6 in P[i]'s state using) has the throughput 6 P(P[i] using), and
# each automaton's marginals add up to the vector's sum, 1.  Then the
# product form (pi(k using) ~ C(18, k) (3/6)^k, k <= 9) within the error
# estimate.  Before, one rank: Rel's throughputs 3,794 ulps off
# 6 P(using) (4 ranks: 899), the vector summed to 1 + 1.0e-12 (VecSum's
# plain sum), Acq's throughput 2.9 times the estimate off its closed form;
# now within 1 ulp, 0, and 1e-16.
. "$top_srcdir/tests/lib/rs_model.sh"
rs_model 18 9 > "$tmp/rs.san"
for np in 1 4; do
    if ! mpirun -n "$np" "$SAN" solve -q -f json --lump off --tol 1e-12 --top 0 --engine petsc \
            "$tmp/rs.san" > "$tmp/rs.json" 2> "$tmp/rs.err"; then
        not_ok "rs 18/9 -n $np: exit status: $(tail -n 3 "$tmp/rs.err")"
        continue
    fi
    if msg=$(python3 - "$tmp/rs.json" <<'PY'
import json, math, sys
j = json.load(open(sys.argv[1]))
marg, thr, est = j["marginals"], j["throughputs"], j["solver"]["error_estimate"]
ulp = 2.0 ** -52
rel = max(abs(thr["Rel@" + a] - 6 * v["using"]) / thr["Rel@" + a] for a, v in marg.items())
one = max(abs(v["using"] + v["sleeping"] - 1) for v in marg.values())
w = [math.comb(18, k) * 0.5 ** k for k in range(10)]
z = math.fsum(w)
using = math.fsum(k * w[k] for k in range(10)) / z / 18
acq = 3 * math.fsum(w[k] * (18 - k) / 18 for k in range(9)) / z
off = max([abs(v["using"] - using) / using for v in marg.values()] +
          [abs(thr["Acq@" + a] - acq) / acq for a in marg] +
          [abs(j["results"]["full"] - w[9] / z) / (w[9] / z)])
print("Rel 6 P(using) +- %.2g, marginals sum to 1 +- %.2g (8 ulps: %.2g); %.2g off the "
      "product form for an estimate of %.2g" % (rel, one, 8 * ulp, off, est))
sys.exit(0 if len(marg) == 18 and j["solver"]["converged"] and rel <= 8 * ulp and
         one <= 8 * ulp and est <= 1e-12 and off <= est else 1)
PY
    )
    then ok "rs 18/9 sums compensated -n $np: $msg"
    else not_ok "rs 18/9 sums not compensated -n $np: $msg"
    fi
done
# PETSc's own options pass through: GMRES with ASM
"$SAN" solve -q --tol 1e-12 -f csv models/mm1k.san > "$tmp/serial.csv" 2>/dev/null
cd "$top_srcdir" && compare "gmres+asm" 2 --petsc-options "-ksp_type gmres -pc_type asm" models/mm1k.san

harness_end
