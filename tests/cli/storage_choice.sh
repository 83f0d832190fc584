#!/bin/sh
# --storage auto by predicted time and memory (issue 27 item 4,
# solver/analysis/storage_choice.c): each branch of the rule from the
# command line, on resource-sharing models of 18 processes as written
# (--lump off; 2^18 product states, over the 131072 of rule "small"):
# 12,616 reachable states (R = 5: the descriptor's fixed room makes it
# the bigger) and 262,144 (R = 18: kron ~5x smaller), with --max-memory
# moving the room; the report says why in every format; the answers
# against the product form.
. "$(dirname "$0")/../lib/harness.sh"

. "$top_srcdir/tests/lib/rs_model.sh"
rs_model 18 5 >"$tmp/rs18_5.san"      # 12,616 states: sparse ~5.4 MiB, kron ~15 MiB
rs_model 18 18 >"$tmp/rs18.san"       # 262,144 states: sparse ~183 MiB, kron ~37 MiB
rs_model 8 8 >"$tmp/rs8.san"          # 256 product states: small

# expect NAME MODEL STORAGE RULE [san options...]: the JSON report's
# storage and storage_choice.rule, the predictions present (null for
# "small"), the reason naming the storage, and the answer converged.
expect() {
    name=$1 model=$2 storage=$3 rule=$4
    shift 4
    "$SAN" solve -q -f json --lump off "$@" "$model" >"$tmp/out.json" 2>"$tmp/err"
    rc=$?
    if python3 - "$tmp/out.json" "$storage" "$rule" >"$tmp/py" 2>&1 <<'EOF'
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
        not_ok "$name (exit $rc): $(cat "$tmp/py") $(head -c 300 "$tmp/err")"
    fi
}

expect "small product space: sparse, unpredicted" "$tmp/rs8.san" sparse small
expect "rs 18/5: sparse, the faster" "$tmp/rs18_5.san" sparse faster
expect "rs 18/5, 18M: only sparse fits" "$tmp/rs18_5.san" sparse fits --max-memory 18M
# (the model's tables hold 10.1 MiB of --max-memory: the chain has 8 and 4)
# neither fits a room of 3.2 MiB: the smaller, sparse, whose build is
# then over the limit: the descriptor after all
expect "rs 18/5, 14M: neither fits, sparse over the limit: kron" "$tmp/rs18_5.san" kron fell-back \
    --max-memory 14M
expect "rs 18/18: kron, within 1.5x and 3x smaller" "$tmp/rs18.san" kron smaller
cp "$tmp/out.json" "$tmp/rs18.json"
expect "rs 18/18, 100M: only kron fits" "$tmp/rs18.san" kron fits --max-memory 100M
# kron picked, its methods stopped short (here by --max-iter 5): the
# sparse path is built and solved instead, rule "retried"
"$SAN" solve -q -f json --lump off --max-iter 5 "$tmp/rs18.san" >"$tmp/retry.json" 2>/dev/null
rc=$?
if [ "$rc" -eq 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["storage_choice"]; sys.exit(not (d["storage"] == "sparse" and c["rule"] == "retried" and c["reason"].startswith("sparse, kron")))' "$tmp/retry.json"; then
    ok
else
    not_ok "rs 18/18 --max-iter 5: exit $rc, $(head -c 300 "$tmp/retry.json")"
fi
# the choice is the same every run (sizes only)
a=$("$SAN" solve -q -f csv --lump off "$tmp/rs18_5.san" | grep '^storage,')
b=$("$SAN" solve -q -f csv --lump off "$tmp/rs18_5.san" | grep '^storage,')
if [ -n "$a" ] && [ "$a" = "$b" ] && echo "$a" | grep -q '^storage,rule,faster,$' &&
   echo "$a" | grep -q '^storage,kron_memory_bytes,,[0-9]'; then
    ok
else
    not_ok "csv storage rows differ or missing: '$a' / '$b'"
fi
# text: one storage line saying why
"$SAN" solve -q --lump off "$tmp/rs18_5.san" >"$tmp/text"
if grep -q '^storage      auto: sparse, the faster: predicted .* kron .*room' "$tmp/text"; then
    ok
else
    not_ok "text storage line: $(grep '^storage' "$tmp/text")"
fi
# a named method is not predicted (gs has no descriptor version): sparse
"$SAN" solve -q -f json --lump off -m gs "$tmp/rs18_5.san" >"$tmp/gs.json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["storage"] == "sparse" and "storage_choice" not in d))' "$tmp/gs.json"; then
    ok
else
    not_ok "-m gs: $(head -c 200 "$tmp/gs.json")"
fi
# the kron pick's answer: 18 independent processes (R = N), each using
# with probability lambda / (lambda + mu) = 1/3
if python3 - "$tmp/rs18.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
r = a["results"]
sys.exit(not (a["storage"] == "kron" and abs(r["busy"] - 6) <= 1e-9 * 6
              and abs(r["full"] - 3.0 ** -18) <= 1e-8 * 3.0 ** -18))
EOF
then
    ok
else
    not_ok "rs 18/18: the kron pick's results are not the product form's"
fi

harness_end
