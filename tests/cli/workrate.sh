#!/bin/sh
# tests/cli/workrate.sh - `san workrate` and the ms template's flow_bound:
# seed 003's master placements as its text states them (models/grid4.json);
# its homogeneous special case, and heterogeneous slaves, against the ms
# template's flow_bound (the same number) and its SAN pack_throughput
# (under the bound, and near it with a large enough buffer); usage errors.
#
# Environment: SAN, top_srcdir.  Needs python3.  Prints "N passed, M failed".

harness_limit=30
. "$(dirname "$0")/../lib/harness.sh"
need_san workrate

# seed 003, sec. 4.1: master A 110, master C 60 (its own rate), B best at 130
run "$SAN" workrate -f json "$top_srcdir/models/grid4.json"
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["host"]: x for x in d["masters"]}
ok = (d["best"] == "B" and m["A"]["app_rate"] == 110 and m["B"]["app_rate"] == 130
      and m["C"]["app_rate"] == 60 and m["C"]["master_bound"] and m["A"]["networks_bound"] == ["Net3"]
      and sum(m["B"]["slaves"].values()) == 130)
sys.exit(0 if ok else 1)' "$tmp/out"; then
    ok "seed 003 fig. 1"
else
    not_ok "seed 003 fig. 1: $(cat "$tmp/out" "$tmp/err")"
fi
run "$SAN" workrate "$top_srcdir/models/grid4.json"
if [ "$rc" -eq 0 ] && grep -q "best master: B, 130" "$tmp/out"; then ok "text"; else not_ok "text: $(cat "$tmp/out")"; fi
run "$SAN" workrate -f csv -m C "$top_srcdir/models/grid4.json"
if [ "$rc" -eq 0 ] && grep -q '^C,60,1,"master; network Net3"$' "$tmp/out"; then ok "csv --master"; else not_ok "csv: $(cat "$tmp/out")"; fi

# The homogeneous special case and heterogeneous slaves: a master and N
# slaves on one unlimited network, the master's time per pack ER + (1-pi) TT,
# a slave's CM + TP + (1-pi) TT (async ms).  san workrate's rate is the ms
# template's flow_bound; the SAN's pack_throughput stays under it.
python3 - "$SAN" "$tmp" <<'EOF' > "$tmp/homog" 2>&1
import json, subprocess, sys
san, tmp = sys.argv[1], sys.argv[2]
TT, ER, PI = 0.05, 0.3, 0.9
def case(cms, tps, buffer, near):
    n = len(cms)
    hosts = [{"name": "m", "network": "lan", "master_time": ER + (1 - PI) * TT}]
    hosts += [{"name": f"s{i}", "network": "lan", "slave_time": cm + tp + (1 - PI) * TT}
              for i, (cm, tp) in enumerate(zip(cms, tps))]
    with open(f"{tmp}/t.json", "w") as f:
        json.dump({"networks": [{"name": "lan"}], "hosts": hosts}, f)
    w = json.loads(subprocess.run([san, "workrate", "-f", "json", f"{tmp}/t.json"],
                                  capture_output=True, text=True, check=True).stdout)
    flags = ["ms", "--mode", "async", "--slaves", str(n), "--pi", str(PI), "--eval-time", str(ER),
             "--task-time", str(TT), "--buffer", str(buffer),
             "--compute-time", ",".join(map(str, cms)), "--pack-time", ",".join(map(str, tps))]
    g = subprocess.run([san, "gen"] + flags, capture_output=True, text=True, check=True).stdout
    r = json.loads(subprocess.run([san, "solve", "-q", "-f", "json", "-"], input=g,
                                  capture_output=True, text=True, check=True).stdout)["results"]
    rate = w["masters"][0]["app_rate"]
    checks = [abs(rate - r["flow_bound"]) <= 1e-12 * rate,
              r["pack_throughput"] <= r["flow_bound"] * (1 + 1e-9),
              r["pack_throughput"] >= near * r["flow_bound"]]
    print(cms, tps, rate, r["flow_bound"], r["pack_throughput"], checks)
    return all(checks)
ok = [case([1.0] * 2, [0.01] * 2, 10, 0.95),            # slave-bound
      case([1.0] * 5, [0.01] * 5, 10, 0.99),            # master-bound
      case([1.0, 2.0, 0.5], [0.01, 0.02, 0.01], 10, 0.9)]  # heterogeneous
sys.exit(0 if all(ok) else 1)
EOF
if [ $? -eq 0 ]; then ok "homogeneous and heterogeneous ms against the work rate"; else not_ok "ms flow_bound: $(cat "$tmp/homog")"; fi

# usage and topology errors exit 2
printf '{ "networks": [ { "name": "n" } ], "hosts": [ { "name": "h", "network": "x" } ] }' > "$tmp/bad.json"
for args in "$tmp/bad.json" "$tmp/missing.json" "-m Z $top_srcdir/models/grid4.json" ""; do
    # shellcheck disable=SC2086
    run "$SAN" workrate $args
    if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then ok "usage: $args"; else not_ok "usage: $args: exit $rc"; fi
done
run "$SAN" gen ms --mode async --slaves 3 --compute-time 1,2
if [ "$rc" -eq 2 ] && grep -q -- "--compute-time" "$tmp/err"; then ok "list length"; else not_ok "list length: $rc"; fi

harness_end
