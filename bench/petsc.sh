#!/bin/sh
# bench/petsc.sh [MODEL-GEN-ARGS] [RANKS...] - san solve --engine petsc
# at P = 1, 2, 4, 8 ranks (oversubscribed on this machine's cores)
# against the serial solve, on a ~10^6-state model (default: ms async,
# 10 slaves, buffer 10: 952,180 reachable states).  One line per run:
# wall seconds; the largest peak resident memory of one rank (GNU
# time's %M of each rank, the max); the states; one product's seconds
# (serial: product_s / products of its report; petsc: 5 products timed
# after the solve, the slowest rank's) and the bytes one product moves
# between ranks (the off-diagonal blocks' columns x 8, summed over the
# ranks); iterations, whether it converged, and the smallest and the
# largest rank's share of the states over the mean.
# ITERS=N (default 100) caps the distributed solve's iterations (per KSP
# solve, 3 at most): the bench measures memory and the cost of a
# product, not the time to an answer; ITERS=10000 for the whole solve.
# MATRIX=shell measures the matrix-free generator (--petsc-matrix shell;
# a product ~100 times slower: use a small ITERS).
# Needs a --with-petsc build: SAN=path/to/san sh bench/petsc.sh
set -u
SAN=${SAN:-./san}
GEN=${1:-ms --mode async --slaves 10 --buffer 10}
[ $# -gt 0 ] && shift
RANKS=${*:-1 2 4 8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# in the working directory: the ranks mpirun starts may not see /tmp alike
tmp=$(mktemp -d "$PWD/bench-petsc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; model: $GEN"
printf "%-8s %8s %12s %10s %11s %12s %6s %-9s %s\n" ranks wall_s rank_rss_MiB states product_s product_MB iters converged parts
run() {     # run LABEL CMD...
    label=$1
    shift
    t0=$(date +%s.%N)
    "$@" > "$tmp/out" 2> "$tmp/err"
    t1=$(date +%s.%N)
    rss=$(grep -h "^maxrss" "$tmp"/rss.* 2>/dev/null | awk '{ if ($2 > m) m = $2 } END { printf "%.0f", m / 1024 }')
    python3 - "$tmp/out" "$label" "$(echo "$t1 - $t0" | bc)" "$rss" <<'PY' || sed 3q "$tmp/err"
import json, re, sys
r = json.load(open(sys.argv[1]))
s = r["solver"]
note = s.get("note", "")
m = re.search(r"product ([0-9.e+-]+) s, ([0-9.e+-]+) MB across", note)
parts = re.search(r"parts ([0-9.]+-[0-9.]+)", note)
if m:
    prod, mb = float(m.group(1)), float(m.group(2))
else:
    prod, mb = s["product_s"] / max(s["products"], 1), 0.0
print("%-8s %8.1f %12s %10d %11.4f %12.2f %6d %-9s %s" % (sys.argv[2], float(sys.argv[3]),
      sys.argv[4], r["reachable_states"], prod, mb, s["iterations"], s["converged"],
      parts.group(1) if parts else "-"))
PY
    rm -f "$tmp"/rss.*
}
rsswrap="$tmp/wrap.sh"
cat > "$rsswrap" <<EOS
#!/bin/sh
exec /usr/bin/time -f "maxrss %M" -o "$tmp/rss.\$\$" "\$@"
EOS
chmod +x "$rsswrap"
run serial "$rsswrap" "$SAN" solve -q -f json --gen "$GEN"
for p in $RANKS; do
    run "petsc-$p" mpirun -n "$p" sh "$rsswrap" "$SAN" solve -q -f json --engine petsc \
        --petsc-matrix "${MATRIX:-auto}" --max-iter "${ITERS:-100}" --gen "$GEN"
done
