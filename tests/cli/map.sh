#!/bin/sh
# tests/cli/map.sh - `san map` from the outside: seed 002's worked examples
# in the three formats, --batch, the finite-job times, usage errors; and
# the proposal's predicted throughput against the SAN solve of the
# `gen pipeline` line it prints (Erlang-2 phases, one-place buffers, a
# small random sample so that the test stays fast).
#
# Environment: SAN, top_srcdir.  Needs python3.  Prints "N passed, M failed".

harness_limit=30
. "$(dirname "$0")/../lib/harness.sh"
need_san map

# expect_json 'python expression over d' CMD...: run, parse stdout as JSON.
expect_json() {
    what=$1
    shift
    run "$@"
    if [ "$rc" -ne 0 ]; then
        not_ok "$*: exit $rc $(abnormal) $(head -c 300 "$tmp/err")"
        return
    fi
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
        "$tmp/out" "$what"; then
        ok "$*"
    else
        not_ok "$*: not $what: $(head -c 600 "$tmp/out")"
    fi
}

# seed 002, sec. 4, fig. 2: bottleneck 11 -> 6, E1+E2 gathered, E3 on three.
expect_json 'd["before"]["bottleneck"] == 11 and d["after"]["bottleneck"] == 6
  and [u["replicas"] for u in d["after"]["units"]] == [1, 3, 1, 1]
  and d["after"]["units"][0]["stages"] == [1, 2] and abs(d["tp_ideal"] - 25/6) < 1e-12
  and d["gen"] == "pipeline --mode async --stages 2,2,11,6,4 --replicas 1,1,3,1,1 --group 1+2"' \
    "$SAN" map --stages 2,2,11,6,4 -P 6 -f json
# seed 002, sec. 5, fig. 3: 5, 10, 24, 5 on 8: 24 -> 6.
expect_json 'd["after"]["bottleneck"] == 6 and d["gain"] == 4
  and [u["replicas"] for u in d["after"]["units"]] == [1, 2, 4, 1]' \
    "$SAN" map --stages 5,10,24,5 --processors 8 -f json
# seed 002, sec. 5, fig. 4: 558 -> 235 (the model's 2.37; the paper measured
# 62.03 / 26.6 = 2.33 and printed "3.33").
expect_json 'd["after"]["bottleneck"] == 235 and abs(d["gain"] - 2.3745) < 1e-4
  and "--group 2+3,5+6" in d["gen"] and "--replicas 1,1,1,1,1,1,3,1" in d["gen"]' \
    "$SAN" map --stages 150,75,10,235,10,10,558,150 -P 8 -f json
# the optimum of the first example is better than the paper's proposal
expect_json 'd["after"]["bottleneck"] == 5.5 and d["method"] == "optimal"' \
    "$SAN" map --stages 2,2,11,6,4 -P 6 --method optimal -f json
# a finite job: one stage per processor is exact in closed form
expect_json 'd["time_before"]["exact"] == 25 + 99 * 11 == d["time_before"]["closed_form"]
  and d["time_after"]["exact"] == 25 + 99 * 6' \
    "$SAN" map --stages 2,2,11,6,4 -P 6 -n 100 -f json
# the communication manager: a CM of 5 per item bounds E3 x3 at 5, and
# takes a processor of its own, so E3 gets two replicas only
expect_json 'd["after"]["units"][1]["replicas"] == 2 and d["after"]["processors"] <= 6
  and "--cm-time 5" in d["gen"]' \
    "$SAN" map --stages 2,2,11,6,4 -P 6 --cm-time 5 --cm-own-processor -f json

# text and CSV
run "$SAN" map --stages 2,2,11,6,4 -P 6
if [ "$rc" -eq 0 ] && grep -q "bottleneck 6 (E4)" "$tmp/out" \
    && grep -q "san gen pipeline --mode async --stages 2,2,11,6,4" "$tmp/out"; then
    ok "text"
else
    not_ok "text: $(cat "$tmp/out" "$tmp/err")"
fi
printf '2,2,11,6,4\n# a comment\n\n5,10,24,5   # fig. 3\n' > "$tmp/batch"
run "$SAN" map --batch "$tmp/batch" -P 8 -f csv
# the provenance lines (# ...) first, then the table
if [ "$rc" -eq 0 ] && [ "$(grep -vc '^#' "$tmp/out")" -eq 3 ] && head -1 "$tmp/out" | grep -q '^# schema: ' \
    && grep -v '^#' "$tmp/out" | head -1 | grep -q '^stages,processors'; then
    ok "batch csv"
else
    not_ok "batch csv: $(cat "$tmp/out" "$tmp/err")"
fi
expect_json 'len(d["cases"]) == 2 and d["cases"][1]["after"]["bottleneck"] == 6' \
    "$SAN" map --batch "$tmp/batch" -P 8 -f json

# usage errors exit 2 and name the option
for args in "--stages 1,2" "--stages 1,-2 -P 3" "--stages 1,2 -P 0" "-P 3" \
    "--stages 1,2 -P 3 --method best" "--stages 1,2 -P 3 --mode both" "--stages 1,2 -P 3 extra"; do
    # shellcheck disable=SC2086
    run "$SAN" map $args
    if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then
        ok "usage: $args"
    else
        not_ok "usage: $args: exit $rc $(cat "$tmp/err")"
    fi
done

# seed 000's communication manager in the SAN model (gen pipeline --cm-time):
# a CM stage before each replicated stage; the bound is san map's.
python3 - "$SAN" <<'EOF' > "$tmp/cm" 2>&1
import json, subprocess, sys
san = sys.argv[1]
def j(args, stdin=None):
    return json.loads(subprocess.run(args, input=stdin, capture_output=True, text=True,
                                     check=True).stdout)
bad = 0
for tg in ("0.5", "8"):
    m = j([san, "map", "--stages", "2,2,11,6,4", "-P", "6", "--cm-time", tg, "-f", "json"])
    g = subprocess.run([san, "gen"] + m["gen"].split() + ["--buffer", "1", "--items", "10"],
                       capture_output=True, text=True, check=True).stdout
    r = j([san, "solve", "-q", "-f", "json", "-"], g)["results"]
    fill = 2 + 2 + float(tg) + 11 + 6 + 4
    checks = [abs(r["deterministic_bound"] - m["after"]["throughput"]) < 1e-12,
              abs(r["execution_time"] - (fill + 9 / r["throughput"])) < 1e-6 * r["execution_time"],
              "buffer_full_3" not in r, r["throughput"] <= r["deterministic_bound"]]
    print(tg, m["gen"], r["deterministic_bound"], r["throughput"], checks)
    bad += not all(checks)
sys.exit(1 if bad else 0)
EOF
if [ $? -eq 0 ]; then
    ok "gen pipeline --cm-time, --items"
else
    not_ok "gen pipeline --cm-time, --items: $(cat "$tmp/cm")"
fi

# The proposal against the SAN: its deterministic_bound is the predicted
# throughput, the SAN throughput stays at or under it (variability and
# blocking only lose), and the SAN agrees that the proposal beats the
# one-stage-per-processor line.  A fixed sample of random 5-stage lines.
python3 - "$SAN" "$tmp" <<'EOF' > "$tmp/sample" 2>&1
import json, random, subprocess, sys
san, tmp = sys.argv[1], sys.argv[2]
rng = random.Random(2008)
def solve(line):
    g = subprocess.run([san, "gen"] + line.split() + ["--buffer", "1", "--phases", "2"],
                       capture_output=True, text=True, check=True).stdout
    s = subprocess.run([san, "solve", "-q", "-f", "json", "-"], input=g,
                       capture_output=True, text=True, check=True).stdout
    return json.loads(s)["results"]
bad = 0
for k in range(4):
    tr = [rng.randint(1, 12) for _ in range(5)]
    P = rng.randint(6, 7)
    d = json.loads(subprocess.run([san, "map", "--stages", ",".join(map(str, tr)), "-P", str(P),
                                   "-f", "json"], capture_output=True, text=True, check=True).stdout)
    after = solve(d["gen"])
    before = solve("pipeline --mode async --stages " + ",".join(map(str, tr)))
    pred = d["after"]["throughput"]
    checks = [abs(after["deterministic_bound"] - pred) <= 1e-9 * pred,
              after["throughput"] <= pred * (1 + 1e-9),
              after["throughput"] >= 0.6 * pred,
              d["gain"] <= 1 + 1e-12 or after["throughput"] > before["throughput"]]
    print(tr, P, pred, after["throughput"], before["throughput"], checks)
    bad += not all(checks)
sys.exit(1 if bad else 0)
EOF
if [ $? -eq 0 ]; then
    ok "SAN solve of the proposals"
else
    not_ok "SAN solve of the proposals: $(cat "$tmp/sample")"
fi

harness_end
