#!/bin/sh
# tests/cli/sweep.sh - design sweeps: `san sweep`, `size-buffer`, `grain`,
# `compare`, plots, and the MPI distribution when built with it.
#
# - every sweep row equals the single `san solve` of its command (JSON,
#   to 1e-12), for templates, -D sweeps of a model and pipelines;
# - a threaded sweep equals a one-job sweep (and, with MPI, a 2-rank one);
# - a failed variant is a row with its error and the sweep goes on;
# - size-buffer's K equals the smallest K of a full linear scan;
# - the accuracy of each row, curve point and grain (error_bound, storage,
#   lumped, converged, method) equals san solve's of its model;
# - plots open as valid SVG (one series path per series), PNG and PDF;
# - bad ranges and unknown indices are refused with exit 2, the flag named.
#
# Environment: SAN = path to the san binary (default ./san); top_srcdir.
# Needs python3.  Prints "N passed, M failed".

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"
HELP="$top_srcdir/tests/cli/sweep_check.py"
MODEL="$top_srcdir/models/mm1k.san"
harness_plots
export SAN


# ---------------------------------------------------------------------
# 1. sweep rows equal single solves
# ---------------------------------------------------------------------
"$SAN" sweep -q -f json ms --mode sync,async --slaves 2..3 --buffer 1,4 > "$tmp/ms.json"
check "ms sweep rows = san solve --gen" python3 "$HELP" rows-match "$tmp/ms.json" 6
"$SAN" sweep -q -f json "$MODEL" -D lambda=1..2:0.5 -D mu=3,4 > "$tmp/mm.json"
check "model -D sweep rows = san solve -D" python3 "$HELP" rows-match "$tmp/mm.json" 6
"$SAN" sweep -q -f json pipeline --mode async --stages '1,2,1;2,1,1' --buffer 1..2 > "$tmp/pl.json"
check "pipeline sweep (';' lists) rows = san solve --gen" python3 "$HELP" rows-match "$tmp/pl.json" 4
"$SAN" sweep -q -f json ms --mode async --slaves 2 --buffer 1..3 --slices-per-node 2,3 \
    --overlap 0.25..0.5:0.25 > "$tmp/ms2.json"
check "three swept flags: 12 rows = san solve --gen" python3 "$HELP" rows-match "$tmp/ms2.json" 12
# error_bound, storage, lumped in the JSON and CSV rows = san solve's: on
# the descriptor, unlumped, 2 slaves (1,107 product states: corrected by
# the LU, a measured bound) and 4 (9,963: over the 4,096 of that
# correction, the checks' indicator)
acc="--storage kron --lump off"
"$SAN" sweep -q -f json $acc ms --mode async --slaves 2,4 --buffer 40 > "$tmp/acc.json"
"$SAN" sweep -q -f csv $acc ms --mode async --slaves 2,4 --buffer 40 > "$tmp/acc.csv"
check "sweep rows' error_bound, storage, lumped = san solve's" \
    python3 "$HELP" accuracy "$tmp/acc.json" "$tmp/acc.csv" "$acc"
# the accuracy beside each number of size-buffer (every point of its
# curve) and grain (every grain) = san solve's of the same model (on this
# storage, 4 slaves with a buffer of 1 get the checks' indicator, not a
# measured bound: both values are compared)
"$SAN" size-buffer -q -f json $acc ms --slaves 4 > "$tmp/accsb.json"
"$SAN" grain -q -f json $acc ms --slices-per-node 1,2 --slaves 2,4 --buffer 1 > "$tmp/accgr.json"
check "size-buffer points' and grains' accuracy = san solve's" \
    python3 "$HELP" point-accuracy "$tmp/accsb.json" "$tmp/accgr.json" "$acc"

# ---------------------------------------------------------------------
# 2. threads, formats, failures
# ---------------------------------------------------------------------
"$SAN" sweep -q --no-times -f csv -j 1 ms --mode async --slaves 2..4 --buffer 1,5,10 > "$tmp/j1.csv"
"$SAN" sweep -q --no-times -f csv -j 3 ms --mode async --slaves 2..4 --buffer 1,5,10 > "$tmp/j3.csv"
# the tables alike; their provenance lines (# ...) name the two command lines
check "-j 3 table = -j 1 table" sh -c "grep -v '^#' '$tmp/j1.csv' > '$tmp/j1.t' && grep -v '^#' '$tmp/j3.csv' > '$tmp/j3.t' && cmp '$tmp/j1.t' '$tmp/j3.t' && grep -q '^# command_line: .* -j 1 ' '$tmp/j1.csv'"
check "csv has a header and 9 rows" python3 "$HELP" csv-rows "$tmp/j1.csv" 9
"$SAN" sweep -q ms --mode async --slaves 2..3 --buffer 1,5 > "$tmp/t.txt"
check "text table (-q: no provenance header): header and 4 rows" sh -c "[ \$(wc -l < '$tmp/t.txt') -eq 5 ] && head -1 '$tmp/t.txt' | grep -q slave_transmitting"
"$SAN" sweep -q -f json --lump off ms --mode async --slaves 2..4 --buffer 5 --max-states 200 > "$tmp/f.json"
rc=$?
if [ "$rc" -eq 1 ] && python3 "$HELP" failed-rows "$tmp/f.json" 2 > "$tmp/f.out" 2>&1; then
    ok
else
    not_ok "a failed variant is a row with its error (exit $rc)"
    sed 's/^/  /' "$tmp/f.out"
fi
"$SAN" sweep -q -f json ms --mode sync,async --slaves 2 --buffer 1,5,10 > "$tmp/na.json"
check "--buffer left out for sync: 1 sync row + 3 async" python3 "$HELP" count-rows "$tmp/na.json" 4

# ---------------------------------------------------------------------
# 3. size-buffer = linear scan
# ---------------------------------------------------------------------
for n in 2 3; do
    # the default criterion: the throughput within 1% of the limit's
    "$SAN" size-buffer -q -f json ms --slaves $n --within 0.01 > "$tmp/sb$n.json"
    klim=$(python3 "$HELP" field "$tmp/sb$n.json" limit_buffer)
    "$SAN" sweep -q -f json ms --mode async --slaves $n --buffer 1..$((klim + 1)) > "$tmp/scan$n.json"
    check "size-buffer ms N=$n (default: pack_throughput) = linear scan" \
        python3 "$HELP" size-match "$tmp/sb$n.json" "$tmp/scan$n.json" pack_throughput
    check "size-buffer ms N=$n: what K, K + 1 and the limit buy = the scan's rows" \
        python3 "$HELP" buys "$tmp/sb$n.json" "$tmp/scan$n.json" pack_throughput
    "$SAN" size-buffer -q -f json ms --slaves $n --within 0.01 --index slave_transmitting > "$tmp/sbt$n.json"
    klim=$(python3 "$HELP" field "$tmp/sbt$n.json" limit_buffer)
    "$SAN" sweep -q -f json ms --mode async --slaves $n --buffer 1..$klim > "$tmp/scant$n.json"
    check "size-buffer ms N=$n --index slave_transmitting = linear scan" \
        python3 "$HELP" size-match "$tmp/sbt$n.json" "$tmp/scant$n.json" slave_transmitting
done
"$SAN" size-buffer -q -f json ms --slaves 2 --within 0.001 --index slave_processing > "$tmp/sbp.json"
klim=$(python3 "$HELP" field "$tmp/sbp.json" limit_buffer)
"$SAN" sweep -q -f json ms --mode async --slaves 2 --buffer 1..$klim > "$tmp/scanp.json"
check "size-buffer --index slave_processing = linear scan" python3 "$HELP" size-match "$tmp/sbp.json" "$tmp/scanp.json" slave_processing
"$SAN" size-buffer -q -f json pipeline --mode async --stages 1,2,1 --within 0.01 > "$tmp/sbpl.json"
klim=$(python3 "$HELP" field "$tmp/sbpl.json" limit_buffer)
"$SAN" sweep -q -f json pipeline --mode async --stages 1,2,1 --buffer 1..$klim > "$tmp/scanpl.json"
check "size-buffer pipeline (all buffers) = linear scan" python3 "$HELP" size-match "$tmp/sbpl.json" "$tmp/scanpl.json" throughput
lists=$(python3 -c "print(';'.join('%d,$klim' % k for k in range(1, $klim + 1)))")
"$SAN" sweep -q -f json pipeline --mode async --stages 1,2,1 --buffers "$lists" > "$tmp/scanb1.json"
check "size-buffer pipeline buffer 1 = linear scan" python3 "$HELP" size-match-buffer "$tmp/sbpl.json" "$tmp/scanb1.json" throughput 0

# ---------------------------------------------------------------------
# 4. plots
# ---------------------------------------------------------------------
"$SAN" sweep -q ms --mode async --slaves 2..3 --buffer 1,5 --plot "$tmp/p.svg" --x slaves \
    --y slave_transmitting > /dev/null
check "SVG: valid XML, one path per series (2)" python3 "$HELP" svg "$tmp/p.svg" 2
"$SAN" sweep -q ms --mode sync,async --slaves 2..3 --buffer 1,5 --plot "$tmp/q.svg" --x buffer \
    --y slave_transmitting --series mode > /dev/null
check "SVG: sync reference lines + async curves (4)" python3 "$HELP" svg "$tmp/q.svg" 4
"$SAN" sweep -q ms --mode async --slaves 2..3 --buffer 1,5 --plot "$tmp/p.png" --x buffer \
    --y slave_transmitting > /dev/null
check "PNG signature" python3 "$HELP" magic "$tmp/p.png" png
"$SAN" sweep -q "$MODEL" -D lambda=1..3 -D mu=3,4 --plot "$tmp/p.pdf" --x lambda --y length > /dev/null
check "PDF signature" python3 "$HELP" magic "$tmp/p.pdf" pdf
"$SAN" size-buffer -q ms --slaves 2..3 --plot "$tmp/sb.svg" > /dev/null
check "size-buffer --plot: one curve per configuration" python3 "$HELP" svg "$tmp/sb.svg" 2
check "size-buffer --plot: the chosen K ringed on each curve" python3 "$HELP" rings "$tmp/sb.svg" 2
"$SAN" grain -q ms --slices-per-node 1..3 --slaves 2..3 --buffer 10 --plot "$tmp/g.svg" > /dev/null
check "grain --plot: one curve per grain" python3 "$HELP" svg "$tmp/g.svg" 3

# ---------------------------------------------------------------------
# 5. refusals
# ---------------------------------------------------------------------
refused "range with a word" --slaves "$SAN" sweep ms --mode async --slaves 2..x
refused "empty range" --buffer "$SAN" sweep ms --mode async --slaves 2 --buffer 5..1
refused "zero step" --slaves "$SAN" sweep ms --mode async --slaves 1..4:0
refused "empty list item" --buffer "$SAN" sweep ms --mode async --slaves 2 --buffer 1,,5
refused "-D range with a word" "-D lambda" "$SAN" sweep "$MODEL" -D lambda=a..b
refused "-D unknown constant" "-D nosuch" "$SAN" sweep "$MODEL" -D nosuch=1,2
refused "unknown template flag" --nosuch "$SAN" sweep ms --mode async --slaves 2 --nosuch 1,2
refused "unknown --y index" --y "$SAN" sweep ms --mode async --slaves 2..3 --plot "$tmp/x.svg" --x slaves --y nosuch
refused "unknown --x parameter" --x "$SAN" sweep ms --mode async --slaves 2..3 --plot "$tmp/x.svg" --x nosuch --y master_rx
refused "non-numeric --x" --x "$SAN" sweep ms --mode sync,async --slaves 2 --plot "$tmp/x.svg" --x mode --y master_rx
refused "bad plot extension" --plot "$SAN" sweep ms --mode async --slaves 2..3 --plot "$tmp/x.jpg" --x slaves --y master_rx
refused "unknown --index" --index "$SAN" sweep ms --mode async --slaves 2 --index nosuch
refused "size-buffer unknown index" --index "$SAN" size-buffer ms --slaves 2 --index nosuch
refused "size-buffer bad range" --slaves "$SAN" size-buffer ms --slaves 3..2
refused "a..b/step (the step follows :)" "a..b:step" "$SAN" sweep ms --mode async --slaves 2..4/1
refused "size-buffer sync" --mode "$SAN" size-buffer ms --mode sync --slaves 2
refused "grain without grains" --slices-per-node "$SAN" grain ms --slaves 2
refused "grain unknown --y" --y "$SAN" grain ms --slaves 2 --slices-per-node 1,2 --y nosuch
refused "compare with a range" "has 2 variants" "$SAN" compare 'ms --mode async --slaves 2..3' "$MODEL"
check "no variant solved when refused" sh -c "[ ! -e '$tmp/x.svg' ] && [ ! -e '$tmp/x.jpg' ]"

# ---------------------------------------------------------------------
# 6. grain, compare, help
# ---------------------------------------------------------------------
"$SAN" grain -q -f json ms --slices-per-node 1..3 --slaves 2..3 --buffer 10 > "$tmp/g.json"
check "grain: a recommendation per configuration, least master_tx among the busy" \
    python3 "$HELP" grain "$tmp/g.json" 2
"$SAN" grain -q ms --slices-per-node 1..2 --slaves 2 --buffer 10 > "$tmp/g.txt"
check "grain: reasons printed" grep -q "recommended: slices-per-node = " "$tmp/g.txt"
check "grain: whole column headers (were cut at 12 characters)" \
    grep -q " granularity_index .* slave_transmitting " "$tmp/g.txt"
"$SAN" compare -f json 'ms --mode sync --slaves 3' 'ms --mode async --slaves 3 --buffer 1' > "$tmp/c.json"
check "compare: values = san solve, differences = B - A" python3 "$HELP" compare "$tmp/c.json"
"$SAN" compare "$MODEL" "$MODEL -D lambda=3" > "$tmp/c.txt"
check "compare text: results and marginals" sh -c "grep -q '^results' '$tmp/c.txt' && grep -q '^marginals' '$tmp/c.txt'"
for c in sweep size-buffer grain compare; do
    check "san $c --help" sh -c "'$SAN' $c --help | grep -q usage"
done

# ---------------------------------------------------------------------
# 7. MPI: a 2-rank sweep equals the serial one
# ---------------------------------------------------------------------
if "$SAN" sweep --help | grep -q "MPI: built in" && command -v mpirun > /dev/null 2>&1; then
    # Open MPI refuses root unless told; CI runs as root.
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    "$SAN" sweep -q --no-times -f csv ms --mode sync,async --slaves 2..5 --buffer 1,5,10 > "$tmp/serial.csv"
    mpirun -n 2 --oversubscribe "$SAN" sweep -q --no-times -f csv ms --mode sync,async \
        --slaves 2..5 --buffer 1,5,10 > "$tmp/mpi.csv" 2> "$tmp/mpi.err"
    check "mpirun -n 2 table = serial table" cmp "$tmp/serial.csv" "$tmp/mpi.csv"
else
    echo "skip: MPI not built in (./configure --with-mpi) or mpirun missing"
fi

harness_end
