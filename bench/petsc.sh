#!/bin/sh
# bench/petsc.sh [MODEL-GEN-ARGS] - san solve --engine petsc at P = 1, 2,
# 4, 8 ranks (oversubscribed on this machine's cores) against the serial
# solve, on a ~10^6-state model (default: ms async, 10 slaves, buffer 10:
# 952,180 reachable states).  One line per run: ranks, wall seconds, the
# largest resident memory of one rank (GNU time's %M of each rank, max),
# PETSc's KSP iterations and the per-rank memory san reports.
# Needs a --with-petsc build: SAN=path/to/san sh bench/petsc.sh
set -u
SAN=${SAN:-./san}
GEN=${1:-ms --mode async --slaves 10 --buffer 10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# in the working directory: the ranks mpirun starts may not see /tmp alike
tmp=$(mktemp -d "$PWD/bench-petsc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf "%-8s %8s %12s %10s  %s\n" ranks wall_s rank_rss_MiB states note
run() {     # run LABEL CMD...
    label=$1
    shift
    t0=$(date +%s.%N)
    "$@" > "$tmp/out" 2> "$tmp/err"
    t1=$(date +%s.%N)
    rss=$(grep -h "^maxrss" "$tmp"/rss.* 2>/dev/null | awk '{ if ($2 > m) m = $2 } END { printf "%.0f", m / 1024 }')
    states=$(grep -o '"reachable_states": [0-9]*' "$tmp/out" | grep -o '[0-9]*$')
    note=$(grep -o '"note": "[^"]*"' "$tmp/out" | sed 's/"note": //')
    printf "%-8s %8.1f %12s %10s  %s\n" "$label" "$(echo "$t1 - $t0" | bc)" "$rss" "$states" "$note"
    [ -s "$tmp/out" ] || sed 3q "$tmp/err"
    rm -f "$tmp"/rss.*
}
rsswrap="$tmp/wrap.sh"
cat > "$rsswrap" <<EOS
#!/bin/sh
exec /usr/bin/time -f "maxrss %M" -o "$tmp/rss.\$\$" "\$@"
EOS
chmod +x "$rsswrap"
run serial "$rsswrap" "$SAN" solve -q -f json --gen "$GEN"
for p in 1 2 4 8; do
    run "petsc-$p" mpirun -n "$p" sh "$rsswrap" "$SAN" solve -q -f json --engine petsc --gen "$GEN"
done
