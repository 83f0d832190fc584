#!/bin/sh
# --storage auto by predicted time and memory (issue 27 item 4,
# solver/analysis/storage_choice.c): each branch of the rule from the
# command line, on resource-sharing models of 16 processes (--lump off:
# 39,203 and 65,536 states), with --max-memory moving the room; the
# report says why in every format, and the answer is the other storage's.
SAN=${SAN:-./san}
TMP=${TMPDIR:-/tmp}/storage_choice.$$
mkdir -p "$TMP" || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

rs() {      # rs N R: N processes, R resources
    cat <<EOF
identifiers
  N = [0..$(($1 - 1))]; R = $2; lambda = 3; mu = 6;
  f = lambda * (nb using < R);
events
  loc Acq (f)
  loc Rel (mu)
reachability = (nb using <= R);
network rs (continuous)
  aut P[N]
    stt sleeping to(using) Acq
    stt using to(sleeping) Rel
results
  full = nb using == R;
  busy = nb using;
EOF
}
rs 16 8 >"$TMP/rs16_8.san"      # 39,203 states: the two storages near in memory
rs 16 16 >"$TMP/rs16_16.san"    # 65,536 states: kron ~3x smaller
rs 8 8 >"$TMP/rs8.san"          # 256 product states: small

# expect NAME MODEL STORAGE RULE [san options...]: the JSON report's
# storage and storage_choice.rule, the predictions present (null for
# "small"), the reason naming the storage, and the answer converged.
expect() {
    name=$1 model=$2 storage=$3 rule=$4
    shift 4
    "$SAN" solve -q -f json --lump off "$@" "$model" >"$TMP/out.json" 2>"$TMP/err"
    rc=$?
    if python3 - "$TMP/out.json" "$storage" "$rule" >"$TMP/py" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["storage_choice"]
want_storage, want_rule = sys.argv[2], sys.argv[3]
bad = []
if d["storage"] != want_storage or c["rule"] != want_rule:
    bad.append("storage %s by %s" % (d["storage"], c["rule"]))
if want_rule == "small":
    if c["sparse"] is not None or c["kron"] is not None or c["states"] is not None:
        bad.append("small: predictions %r %r" % (c["sparse"], c["kron"]))
else:
    if c["states"] != d["reachable_states"] or not c["nonzeros"] > 0:
        bad.append("inputs %r %r" % (c["states"], c["nonzeros"]))
    for k in ("sparse", "kron"):
        if not (c[k]["time_s"] > 0 and c[k]["memory_bytes"] > 0):
            bad.append("%s prediction %r" % (k, c[k]))
    if not c["reason"].startswith(want_storage + ", "):
        bad.append("reason %r" % c["reason"])
if not d["solver"]["converged"]:
    bad.append("not converged")
if bad:
    print("; ".join(bad))
    sys.exit(1)
EOF
    then
        ok
    else
        bad "$name (exit $rc): $(cat "$TMP/py") $(head -c 300 "$TMP/err")"
    fi
}

expect "small product space: sparse, unpredicted" "$TMP/rs8.san" sparse small
expect "rs 16/8: sparse, the faster" "$TMP/rs16_8.san" sparse faster
expect "rs 16/16: kron, within 1.5x and 3x smaller" "$TMP/rs16_16.san" kron smaller
# sparse ~21.8 MiB, kron ~18.2 MiB predicted; the room is 0.8 x --max-memory
expect "rs 16/8, 25M: only kron fits" "$TMP/rs16_8.san" kron fits --max-memory 25M
expect "rs 16/8, 20M: neither fits, the smaller" "$TMP/rs16_8.san" kron neither --max-memory 20M
# the choice is the same every run (sizes only)
a=$("$SAN" solve -q -f csv --lump off "$TMP/rs16_16.san" | grep '^storage,')
b=$("$SAN" solve -q -f csv --lump off "$TMP/rs16_16.san" | grep '^storage,')
if [ -n "$a" ] && [ "$a" = "$b" ] && echo "$a" | grep -q '^storage,rule,smaller,$' &&
   echo "$a" | grep -q '^storage,kron_memory_bytes,,[0-9]'; then
    ok
else
    bad "csv storage rows differ or missing: '$a' / '$b'"
fi
# text: one storage line saying why
"$SAN" solve -q --lump off "$TMP/rs16_16.san" >"$TMP/text"
if grep -q '^storage      auto: kron, the smaller, nearly as fast: predicted .* sparse .*room' "$TMP/text"; then
    ok
else
    bad "text storage line: $(grep '^storage' "$TMP/text")"
fi
# a named method is not predicted (gs has no descriptor version): sparse
"$SAN" solve -q -f json --lump off -m gs "$TMP/rs16_16.san" >"$TMP/gs.json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["storage"] == "sparse" and "storage_choice" not in d))' "$TMP/gs.json"; then
    ok
else
    bad "-m gs: $(head -c 200 "$TMP/gs.json")"
fi
# the kron pick gives the sparse path's answer (16 independent processes:
# also the binomial product form)
"$SAN" solve -q -f json --lump off --storage sparse --tol 1e-12 "$TMP/rs16_16.san" >"$TMP/ref.json"
"$SAN" solve -q -f json --lump off "$TMP/rs16_16.san" >"$TMP/auto.json"
if python3 - "$TMP/ref.json" "$TMP/auto.json" <<'EOF'
import json, sys
r, a = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(not (a["storage"] == "kron" and abs(a["results"]["busy"] - 16 / 3) <= 1e-9 and
              all(abs(r["results"][k] - a["results"][k]) <= 1e-9 * max(1, abs(r["results"][k]))
                  for k in r["results"])))
EOF
then
    ok
else
    bad "rs 16/16: the kron pick's results differ from the direct solve's"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
