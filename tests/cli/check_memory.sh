#!/bin/sh
# check_memory.sh - the memory estimates of `san check` (text and JSON):
#
#   1. M/M/1/K queues, whose rows are known by hand (a birth-death chain:
#      3 nonzeros in an interior row, 2 at the ends, diagonal included):
#      small (every state counted: exact), large (sampled), under partial
#      reachability (explored: exact), beyond what check explores (the
#      product space as the bound), with a reachability function over one
#      of two automata (the states it accepts, counted);
#   2. the models of models/: the estimated states and nonzeros equal
#      what `san solve` builds, whenever check says they are exact;
#   3. the PEPS tss model (17.9 million states; skipped without
#      $SHARED_MODELS): fast, and the sampled nonzeros per state close to
#      the real 250131464 / 17891847;
#   4. models that cannot be estimated, or only in part: a product beyond
#      64 bits, beyond the sparse path's 2^31 states, a synchronizing
#      event with 2^30 outcomes, long functional rates: no crash, in time,
#      and they say so.
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes, 1 otherwise (77: no python3, needed to read the JSON); the last
# line is "N passed, M failed".  VERBOSE=1 also lists the checks that pass.

# every solve is verified (refinement cycles, aggregation over the descriptor):
# the kron solve of rs N=24 takes 3 s alone, more under make check -j2
harness_limit=120   # a guard against hangs; a loaded machine took over 30 s
. "$(dirname "$0")/../lib/harness.sh"
harness_lump_off

if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP - python3 is needed to read the JSON"
    exit 77
fi
need_san check_memory.sh

# check_json NAME MODEL EXPR: san check -f json MODEL succeeds, its output
# parses, and the Python expression EXPR holds, with m = the "memory"
# object (every key of a full estimate is checked to be there first).
check_json() {
    name=$1
    model=$2
    expr=$3
    run "$SAN" check --format json "$model"
    why=$(abnormal)
    if [ -n "$why" ] || [ "$rc" -ne 0 ]; then
        not_ok "$name: san check -f json: exit $rc $why"
        sed -n '1,5s/^/    | /p' "$tmp/err"
        return
    fi
    cp "$tmp/out" "$tmp/check.json"
    if python3 - "$tmp/check.json" "$expr" >"$tmp/py" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["memory"]
if "error" not in m:
    keys = ("states", "states_basis", "nonzeros_per_state", "nonzeros_exact",
            "sampled_states", "nonzeros", "sparse_bytes", "kron_bytes",
            "sparse_over_limit")
    missing = [k for k in keys if k not in m]
    if missing:
        print("missing keys: " + ", ".join(missing))
        sys.exit(1)
    if m["states_basis"] not in ("declared", "reachable", "product"):
        print("states_basis " + repr(m["states_basis"]))
        sys.exit(1)
if not eval("(" + sys.argv[2] + ")"):
    print("memory = " + json.dumps(m))
    sys.exit(1)
EOF
    then
        ok "$name"
    else
        not_ok "$name: $expr"
        sed 's/^/    | /' "$tmp/py"
    fi
}

# check_text NAME MODEL REGEX: the text output has a line matching REGEX
# (grep -E) and exits 0.
check_text() {
    run "$SAN" check "$2"
    why=$(abnormal)
    if [ -n "$why" ] || [ "$rc" -ne 0 ]; then
        not_ok "$1: san check: exit $rc $why"
        sed -n '1,5s/^/    | /p' "$tmp/err"
    elif grep -E -q -- "$3" "$tmp/out"; then
        ok "$1"
    else
        not_ok "$1: no line matching '$3'"
        grep '^memory' "$tmp/out" | sed 's/^/    | /'
    fi
}

# mm1k FILE K REACHABILITY: an M/M/1/K queue with K + 1 states.
mm1k() {
    cat >"$1" <<EOF
identifiers
  K = [0..$2];
events
  loc arrive (2)
  loc serve  (3)
$3
network mm1k (continuous)
  aut queue
    stt s[K]
      to(++) arrive
      to(--) serve
results
  length = st queue;
EOF
}

# ------------------------------------------------------------------------
# 1. M/M/1/K by hand
# ------------------------------------------------------------------------

# K = 10: 11 states, 9 interior rows of 3 nonzeros and 2 end rows of 2.
m=$top_srcdir/models/mm1k.san
check_json "mm1k: every state counted, 31/11 nonzeros a state" "$m" \
    'm["states"] == 11 and m["states_basis"] == "declared" and m["nonzeros_exact"]
     and abs(m["nonzeros_per_state"] - 31 / 11) < 1e-12 and m["nonzeros"] == 31
     and m["sampled_states"] == 11 and m["sparse_bytes"] > 0 and m["kron_bytes"] > 0
     and not m["sparse_over_limit"]'
check_text "mm1k: the text line" "$m" \
    '^memory \(estimates\): sparse generator ~[0-9.]+ (B|KiB) \(11 states accepted by the reachability function, 2\.82 nonzeros per state\), tensor descriptor ~[0-9.]+ (B|KiB)$'

# K = 99999: sampled (4096 states of 100000), exact value 2.99998.
mm1k "$tmp/mm1k_big.san" 99999 "reachability = 1;"
check_json "M/M/1/99999: sampled nonzeros per state" "$tmp/mm1k_big.san" \
    'm["states"] == 100000 and m["states_basis"] == "declared" and not m["nonzeros_exact"]
     and m["sampled_states"] == 4096
     and abs(m["nonzeros_per_state"] - (3 * 99998 + 2 * 2) / 100000) < 0.01
     and m["sparse_bytes"] > 24 * 100000 * 2.99 and m["kron_bytes"] > 0'
check_text "M/M/1/99999: the text says sampled (~)" "$tmp/mm1k_big.san" \
    '\(100000 states accepted by the reachability function, ~(2\.99|3\.00) nonzeros per state\)'
run "$SAN" check --format json "$tmp/mm1k_big.san"
cp "$tmp/out" "$tmp/run1.json"
run "$SAN" check --format json "$tmp/mm1k_big.san"
if cmp -s "$tmp/out" "$tmp/run1.json"; then
    ok "M/M/1/99999: the same output twice (fixed seed)"
else
    not_ok "M/M/1/99999: two runs differ"
fi

# Partial reachability from the empty queue, K = 1000: explored, exact.
mm1k "$tmp/mm1k_partial.san" 1000 "partial reachability = (st queue) == 0;"
check_json "M/M/1/1000 partial: explored, exact" "$tmp/mm1k_partial.san" \
    'm["states"] == 1001 and m["states_basis"] == "reachable" and m["nonzeros_exact"]
     and abs(m["nonzeros_per_state"] - (3 * 999 + 2 * 2) / 1001) < 1e-12
     and "states_at_least" not in m and m["sparse_bytes"] > 0'
check_text "M/M/1/1000 partial: the text line" "$tmp/mm1k_partial.san" \
    '\(1001 reachable states, 3\.00 nonzeros per state\)'

# Partial, K = 299999: more than check explores (2^18 states): the product
# space bounds the count, the explored rows give the nonzeros.
mm1k "$tmp/mm1k_partial_big.san" 299999 "partial reachability = (st queue) == 0;"
check_json "M/M/1/299999 partial: the product space as the bound" "$tmp/mm1k_partial_big.san" \
    'm["states"] == 300000 and m["states_basis"] == "product" and not m["nonzeros_exact"]
     and m["states_at_least"] == 262144
     and abs(m["nonzeros_per_state"] - 3) < 0.01 and m["sparse_bytes"] > 0'
check_text "M/M/1/299999 partial: the text says at most" "$tmp/mm1k_partial_big.san" \
    '\(at most 300000 states, the product space; at least 262144 reachable, ~(2\.99|3\.00) nonzeros per state\)'

# A queue and an independent on/off switch; the function reads the queue
# only: it accepts 5 x 2 states.  Rows: queue 0: up, switch, diagonal (3);
# queue 1..4: up, down, switch, diagonal (4).  (2*3 + 8*4) / 10 = 3.8.
cat >"$tmp/switch.san" <<'EOF'
identifiers
  K = [0..10];
events
  loc arrive (2)
  loc serve  (3)
  loc flip   (1)
reachability = (st queue) <= 4;
network switch (continuous)
  aut queue
    stt s[K]
      to(++) arrive
      to(--) serve
  aut sw
    stt off to(on) flip
    stt on  to(off) flip
results
  length = st queue;
EOF
check_json "queue and switch: the states the function accepts" "$tmp/switch.san" \
    'm["states"] == 10 and m["states_basis"] == "declared" and m["nonzeros_exact"]
     and abs(m["nonzeros_per_state"] - 3.8) < 1e-12'

# ------------------------------------------------------------------------
# 2. models/: exact estimates equal what san solve builds
# ------------------------------------------------------------------------

for m in "$top_srcdir"/models/*.san; do
    name=models/$(basename "$m")
    run "$SAN" check --format json "$m"
    cp "$tmp/out" "$tmp/c.json"
    rc1=$rc
    run "$SAN" solve --format json --method gs --max-iter 1 --top 0 "$m"
    cp "$tmp/out" "$tmp/s.json"
    # exit 1 is allowed: one iteration does not converge
    if [ "$rc1" -ne 0 ] || [ "$rc" -gt 1 ]; then
        not_ok "$name: check exit $rc1, solve exit $rc"
        continue
    fi
    if python3 - "$tmp/c.json" "$tmp/s.json" >"$tmp/py" 2>&1 <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
s = json.load(open(sys.argv[2]))
bad = []
if m["states_basis"] == "product":
    if m["states"] < s["reachable_states"]:
        bad.append("the bound %d is below %d" % (m["states"], s["reachable_states"]))
elif m["states"] != s["reachable_states"]:
    bad.append("states %d, solve %d" % (m["states"], s["reachable_states"]))
if m["nonzeros_exact"] and m["states_basis"] != "product" and m["nonzeros"] != s["nonzeros"]:
    bad.append("nonzeros %d, solve %d" % (m["nonzeros"], s["nonzeros"]))
if not m["sparse_bytes"] > 0 or not m["kron_bytes"] > 0:
    bad.append("bytes not positive")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
    then
        ok "$name: estimate = solve"
    else
        not_ok "$name: $(cat "$tmp/py")"
    fi
done

# ------------------------------------------------------------------------
# 3. tss: 17.9 million states, estimated fast
# ------------------------------------------------------------------------

tss=$SHARED_MODELS/peps/tss.san
if [ -f "$tss" ]; then
    check_json "tss: sampled nonzeros within 2% of the real 13.98" "$tss" \
        'm["states"] == 17891847 and m["states_basis"] == "declared"
         and abs(m["nonzeros_per_state"] / (250131464 / 17891847) - 1) < 0.02
         and 5e9 < m["sparse_bytes"] < 8e9 and m["kron_bytes"] > 0'
else
    echo "SKIP - no $tss (set SHARED_MODELS)"
fi

# ------------------------------------------------------------------------
# 4. Too large, in part or whole
# ------------------------------------------------------------------------

# 2^100 product states: does not fit in 64 bits.
cat >"$tmp/p100.san" <<'EOF'
events
  loc e (1)
reachability = 1;
network p100 (continuous)
  aut P[0..99]
    stt a to(b) e
    stt b to(a) e
results
  x = nb a;
EOF
check_json "2^100 states: an error, no estimate" "$tmp/p100.san" \
    'set(m) == {"error"} and "too large to estimate" in m["error"]'
check_text "2^100 states: the text says too large" "$tmp/p100.san" \
    '^memory \(estimates\): the product space \(1267650600228229401496703205376 states\) does not fit in 64 bits: too large to estimate$'

# 2^60 states: estimated, beyond the sparse path's state numbers.  Every
# state has 60 neighbours: 61 nonzeros.
sed 's/P\[0\.\.99\]/P[0..59]/' "$tmp/p100.san" >"$tmp/p60.san"
check_json "2^60 states: over the sparse limit, 61 nonzeros a state" "$tmp/p60.san" \
    'm["states"] == 2 ** 60 and m["sparse_over_limit"] and m["nonzeros_per_state"] == 61
     and m["sparse_bytes"] > 24 * 61 * 2 ** 60 and m["kron_bytes"] > 0'
check_text "2^60 states: the text says over the limit" "$tmp/p60.san" \
    'more states than the sparse path can number'

# A synchronizing event of 30 automata with 2 outcomes each: 2^30
# transitions out of a state, not enumerated.
cat >"$tmp/boom.san" <<'EOF'
events
  syn e (1)
reachability = 1;
network boom (continuous)
  aut P[0..29]
    stt a to(a) e(0.5) to(b) e(0.5)
    stt b to(a) e
results
  x = nb a;
EOF
check_json "2^30 outcomes of one event: sparse not estimated" "$tmp/boom.san" \
    'm["sparse_bytes"] is None and m["nonzeros_per_state"] is None and m["kron_bytes"] > 0'
check_text "2^30 outcomes of one event: the text says why" "$tmp/boom.san" \
    'sparse generator not estimated \(.*too many to sample\)'

# A long functional rate (over too many states to be tabulated) under
# partial reachability: check explores fewer states than it does with
# constant rates (2^18), and the estimate is still made.
{
    cat <<'EOF'
identifiers
  K = [0..599999];
events
EOF
    printf '  loc arrive (2'
    awk 'BEGIN { for (i = 0; i < 900; i++) printf " + 0 * (st queue)" }'
    printf ')\n'
    cat <<'EOF'
  loc serve  (3)
partial reachability = (st queue) == 0;
network slow (continuous)
  aut queue
    stt s[K]
      to(++) arrive
      to(--) serve
results
  length = st queue;
EOF
} >"$tmp/slow.san"
check_json "long functional rates: bounded work" "$tmp/slow.san" \
    'm["states_basis"] == "product" and m["states"] == 600000
     and 0 < m["states_at_least"] < 262144 and abs(m["nonzeros_per_state"] - 3) < 0.01'

# san solve names what the other storage would need.  mm1k.san: 11 states,
# 31 nonzeros; the sparse path's peak by hand is the larger of exploring
# (16*11 + 12*31 + 4*11 = 592) and solving (33*11 + 24*31 = 1107).
for storage in kron sparse; do
    run "$SAN" solve -q -f json --storage "$storage" "$top_srcdir/models/mm1k.san"
    if [ "$rc" -ne 0 ]; then
        not_ok "solve --storage $storage: exit $rc"
        continue
    fi
    if python3 - "$tmp/out" "$storage" >"$tmp/py" 2>&1 <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
other = d["memory_other_storage_bytes"]
if sys.argv[2] == "kron":
    ok = other == 1107
else:
    ok = other is not None and other > 0
if not ok:
    print("memory_other_storage_bytes = %r" % other)
    sys.exit(1)
EOF2
    then
        ok "solve --storage $storage reports the other storage's memory"
    else
        not_ok "solve --storage $storage: $(cat "$tmp/py")"
    fi
done

# A reachable set far smaller than its product space is counted exactly
# (the scan skips the boxes where nb using <= R is surely false): resource
# sharing, 30 processes, at most 4 users: sum of C(30, k), k <= 4.
. "$top_srcdir/tests/lib/rs_model.sh"
rs_model 30 4 >"$tmp/rs30.san"
check_json "rs N=30 R=4: 31,931 of 2^30 states counted" "$tmp/rs30.san" \
    'm["states"] == 31931 and m["states_basis"] == "declared"'

# A function of every automaton that no box decides (nb b is always
# uncertain, and so is the sum) is counted until the budget runs out,
# then the product space is the bound: 32 two-state automata, at once.
{
    echo "events"
    i=0; while [ $i -lt 32 ]; do echo "  loc e$i (1)"; i=$((i + 1)); done
    echo "reachability = (((st A0 - st A1) * (st A2 - st A3)) + nb b) != 0.5;"
    echo "network big (continuous)"
    i=0; while [ $i -lt 32 ]; do
        printf '  aut A%d\n    stt a to(b) e%d\n    stt b to(a) e%d\n' $i $i $i
        i=$((i + 1))
    done
    echo "results"
    echo "  r = st A0;"
} >"$tmp/big32.san"
check_json "2^32 states, no box decided: the count gives up, the product bounds" "$tmp/big32.san" \
    'm["states"] == 2 ** 32 and m["states_basis"] == "product"'

# Over the descriptor, san solve estimates the sparse path from a sample
# of the reachable states: against the sparse run's exact nonzeros (rs
# N=24 R=5, 55,455 states of 2^24: the map is a hash of 2^17 slots), the
# peak formula above within 2%.
rs_model 24 5 >"$tmp/rs24.san"
run "$SAN" solve -q -f json --storage sparse "$tmp/rs24.san"
cp "$tmp/out" "$tmp/rs24_sparse.json"
rc_sparse=$rc
why_sparse=$(abnormal)
run "$SAN" solve -q -f json --storage kron "$tmp/rs24.san"
if [ "$rc_sparse" -ne 0 ] || [ "$rc" -ne 0 ]; then
    not_ok "solve rs24, low fill: exit $rc_sparse $why_sparse (sparse), $rc $(abnormal) (kron)"
elif python3 - "$tmp/rs24_sparse.json" "$tmp/out" >"$tmp/py" 2>&1 <<'EOF2'
import json, sys
s, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n, nnz = s["reachable_states"], s["nonzeros"]
want = max(16 * n + 12 * nnz + 12 * 2 ** 17, 33 * n + 24 * nnz)
got = k["memory_other_storage_bytes"]
if not (n == 55455 and got and abs(got - want) <= 0.02 * want):
    print("n %d nnz %d: estimate %r, by hand %d" % (n, nnz, got, want))
    sys.exit(1)
EOF2
then
    ok "solve --storage kron: the sparse path's peak from a sample of the states"
else
    not_ok "solve --storage kron, low fill: $(cat "$tmp/py")"
fi

harness_end
