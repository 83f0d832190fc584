#!/bin/sh
# peer_check.sh SAN - every bundled model and every generator template and
# mode, written with --dialect peps2003, solved by PEPS 2003 and GTAexpress
# (PEPS, GTA: their binaries, built from source: github.com/
# leonardobrenner/peps, github.com/czekster/GTAexpress) and compared with
# san's answers: the table of doc/compat.md.  Outside make check: the
# peers are not part of the build.  TIMEOUT: seconds per peer run.
san=${1:-./san}
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=${SHARED_MODELS:-$top/../shared/models}
: "${PEPS:=/work/peers/peps/bin/peps}" "${GTA:=/work/peers/gta/bin/gtaexpress}"
for p in "$PEPS" "$GTA"; do
    [ -x "$p" ] || { echo "peer-check: no peer at '$p' (set PEPS= and GTA=)" >&2; exit 2; }
done
exec python3 "$top/tests/peer/peer_check.py" --san "$san" --peps "$PEPS" --gta "$GTA" \
    --timeout "${TIMEOUT:-120}" \
    "$top"/models/*.san "$shared"/peps/*.san "$top"/tests/cli/dialect_long.san \
    --gen "ms --mode sync --slaves 3" \
    --gen "ms --mode async --slaves 3 --buffer 2" \
    --gen "ms --mode async --slaves 4 --buffer 10" \
    --gen "ms --mode sync --slaves 2 --work slices" \
    --gen "ms --mode async --slaves 2 --buffer 3 --work slices" \
    --gen "pipeline --mode sync --stages 1,2,3" \
    --gen "pipeline --mode async --stages 1,2,3 --replicas 1,2,1" \
    --gen "pipeline --mode async --stages 1,2,3 --group 1+2,3" \
    --gen "pipeline --mode async --stages 1,2 --source poisson:0.5:3" \
    --gen "pipeline --mode sync --stages 1,2 --phases 2" \
    --gen "pipeline --mode async --stages 1,2 --replicas 2,1 --phases 2"
