#!/bin/sh
# explore_memory.sh - --max-memory inside the exploration whatever the
# fan-out, and --time-limit over the phases of a solve.
#
# The fan-out family: N replicas routing 0.5/0.5 on one synchronizing
# event, 2^N transitions out of every state (N = 20 once took 20.7 GB
# under --max-memory 2G: one batch's successor buffers grew without
# bound).  Each run's peak resident memory (the child's ru_maxrss) must
# stay within the limit plus 10%, plus the process's fixed baseline (the
# program, its libraries, OpenMP's and OpenBLAS's threads), measured
# here on a trivial solve and added explicitly (about 9 MiB);
#
#   1. N = 9 under 64M: solved (sparse), its result exact (N/2);
#   2. N = 16 over the sparse generator under 64M: refused, exit 2, the
#      message naming the fan-out and the event;
#   3. N = 20 over the sparse generator under 128M: each state's 2^20
#      transitions pass a whole batch's quota and are listed in pieces;
#      refused the same way;
#   4. N = 20 over the descriptor under 64M, --time-limit 2: the pieces
#      without rows; exit 1 at the time limit, within a second of it;
#   5. the same from one state (partial reachability): its 2^18
#      successors are new, numbered piece by piece;
#   6. rates of 1e308 on a state listed in pieces: its exit rate sums past
#      the largest double, exit 2 (as on a state listed whole);
#   7. a direct solve of a master/slave model (55,000 states, an LU of
#      several seconds) under --time-limit 1: ends within 3 s, exit 1,
#      saying the time limit was reached (UMFPACK runs in a child the
#      limit ends).
#
# Environment: SAN, top_srcdir.  Exit 0 when every check passes, 1
# otherwise, 77 without python3 (it measures the children); the last
# line is "N passed, M failed".  VERBOSE=1 lists the passes.

# The limit guards against a hang; the sanitizers make runs 3-10x slower.
harness_limit=30
[ -n "${SAN_SANITIZERS:-}" ] && harness_limit=120
. "$(dirname "$0")/../lib/harness.sh"

if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP - python3 is needed to measure the peak memory of a run"
    exit 77
fi
need_san explore_memory.sh

# measure CMD...: runs CMD (stdout in $tmp/out, stderr in $tmp/err, at
# most harness_limit seconds) and sets rc, peak (KiB: the child's
# maximum resident set) and wall (seconds).
measure() {
    set -- $(python3 - "${harness_limit:-30}" "$tmp/out" "$tmp/err" "$@" <<'PY'
import os, subprocess, sys, time
limit, out, err, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
t0 = time.time()
with open(out, "w") as o, open(err, "w") as e:
    p = subprocess.Popen(cmd, stdout=o, stderr=e)
    try:
        p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
    _, status, usage = os.wait4(p.pid, 0) if p.returncode is None else (0, 0, None)
wall = time.time() - t0
if usage is None:           # reaped by wait(): the children's maximum
    import resource
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = p.returncode
else:
    code = os.waitstatus_to_exitcode(status)
print(code if code >= 0 else 128 - code, usage.ru_maxrss, f"{wall:.2f}")
PY
    )
    rc=$1 peak=$2 wall=$3
}

# The fan-out model: N replicas; partial: from the state where all are in a.
fanout() {
    reach="reachability = 1"
    [ "${2:-}" = partial ] && reach="partial reachability = nb b == 0"
    cat <<EOT
identifiers
  R = [0..$(($1 - 1))];
  h = 0.5;
events
  syn go (1)
$reach;
network fan (continuous)
  aut P[R]
    stt a
      to(a) go(h)
      to(b) go(h)
    stt b
      to(a) go(h)
      to(b) go(h)
results
  pb = nb b;
EOT
}

# within NAME LIMIT_MIB: the last run's peak within LIMIT + 10% + base.
within() {
    if [ -n "${SAN_SANITIZERS:-}" ]; then
        # ASan's shadow memory, redzones and quarantine (256 MiB) are not
        # the program's: its peaks are measured by the plain build.
        echo "SKIP - $1: peak $((peak / 1024)) MiB not compared under the sanitizers"
        return
    fi
    allowed=$(( $2 * 1024 * 11 / 10 + base ))
    if [ "$peak" -le "$allowed" ]; then
        ok "$1: peak $((peak / 1024)) MiB <= $2 MiB + 10% + $((base / 1024)) MiB"
    else
        not_ok "$1: peak $((peak / 1024)) MiB over $2 MiB + 10% + $((base / 1024)) MiB"
    fi
}

# The fixed baseline: a solve of a 3-state chain.
measure "$SAN" solve -q "$top_srcdir/models/mm1k.san"
base=$peak
if [ "$rc" -ne 0 ] || [ "$base" -le 0 ] || [ "$base" -gt 65536 ]; then
    not_ok "baseline: a trivial solve exits $rc with a peak of $base KiB"
    base=16384
else
    ok "baseline: $((base / 1024)) MiB"
fi

# 1. solved
fanout 9 >"$tmp/fan9.san"
measure "$SAN" solve -f json --max-memory 64M "$tmp/fan9.san"
if [ "$rc" -eq 0 ] && grep -q '"pb": 4.5' "$tmp/out"; then
    ok "fan-out N=9 under 64M: solved, pb = 4.5"
else
    not_ok "fan-out N=9 under 64M: exit $rc $(abnormal), $(head -c 300 "$tmp/err")"
fi
within "fan-out N=9 under 64M" 64

# 2, 3. refused, naming the fan-out
for case in "16 64 65536" "20 128 1048576"; do
    set -- $case
    fanout "$1" >"$tmp/fan.san"
    measure "$SAN" solve --storage sparse --max-memory "$2M" "$tmp/fan.san"
    if [ "$rc" -eq 2 ] && grep -q "over the memory limit" "$tmp/err" &&
       grep -q "event 'go' has up to $3 outcome combinations" "$tmp/err"; then
        ok "fan-out N=$1 sparse under $2M: exit 2, the fan-out named"
    else
        not_ok "fan-out N=$1 sparse under $2M: exit $rc $(abnormal), $(head -c 400 "$tmp/err")"
    fi
    within "fan-out N=$1 sparse under $2M" "$2"
done

# 4, 5. the time limit during an exploration in pieces, within memory
for how in full partial; do
    fanout 20 $how >"$tmp/fan.san"
    [ $how = partial ] && fanout 18 $how >"$tmp/fan.san"
    measure "$SAN" solve --storage kron --max-memory 64M --time-limit 2 "$tmp/fan.san"
    if [ "$rc" -eq 1 ] && grep -q "time limit was reached during the exploration" "$tmp/err" &&
       python3 -c "import sys; sys.exit(not float('$wall') <= 3.5)"; then
        ok "fan-out ($how) over the descriptor, --time-limit 2: exit 1 after $wall s"
    else
        not_ok "fan-out ($how) over the descriptor, --time-limit 2: exit $rc after $wall s" \
               "$(abnormal), $(head -c 300 "$tmp/err")"
    fi
    within "fan-out ($how) over the descriptor under 64M" 64
done

# the exit rate of a state listed in pieces that sums past the largest
# double: the model's error (exit 2), as for a state listed whole
fanout 18 | sed -e 's/syn go (1)/syn go (1e308)\n  syn go2 (1e308)/' \
    -e 's/go(h)$/go(h) go2(h)/' >"$tmp/ovf.san"
measure "$SAN" solve --storage kron --max-memory 64M "$tmp/ovf.san"
if [ "$rc" -eq 2 ] && grep -q "sum beyond the largest double" "$tmp/err"; then
    ok "fan-out N=18 with rates of 1e308, in pieces: exit 2, the exit rate overflows"
else
    not_ok "fan-out N=18 with rates of 1e308, in pieces: exit $rc $(abnormal), $(head -c 300 "$tmp/err")"
fi

# 7. the LU under the time limit
# the model as written (--lump off): its 89,667 states, not the lumped 1,919
"$SAN" gen ms --mode async --slaves 6 --buffer 40 -o "$tmp/ms.san"
measure "$SAN" solve --lump off --method direct --time-limit 1 "$tmp/ms.san"
if [ "$rc" -eq 1 ] && grep -q "time limit" "$tmp/err" &&
   python3 -c "import sys; sys.exit(not float('$wall') <= 3)"; then
    ok "direct solve, --time-limit 1: exit 1 after $wall s ($(grep -o 'during the [a-zA-Z ]*' "$tmp/err" | head -1))"
else
    not_ok "direct solve, --time-limit 1: exit $rc after $wall s $(abnormal), $(head -c 300 "$tmp/err")"
fi

harness_end
