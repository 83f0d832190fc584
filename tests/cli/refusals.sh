#!/bin/sh
# refusals.sh - every failure says why (issue 34, item 3): a table of
# command lines that must fail, one or more per exit path of the
# subcommands (usage, model, input, limits, not converged, time limit,
# failed variants of the sweeps under -q, unwritable outputs, a full
# standard output), each run with stderr captured.  Each must exit with
# its status (2 the user's, 1 the rest), print a non-empty stderr, and
# name only options that exist (a message cut mid-word, "raise
# --max-ite", fails).  Then the passage percentile plan: a level whose
# march would pass --max-steps is refused before any product is spent,
# and one 1.6e6 products away is answered (the guard allows rounding).
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes; the last line is "N passed, M failed".  VERBOSE=1 lists passes.

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"
need_san refusals.sh

OMP_NUM_THREADS=1
export OMP_NUM_THREADS
cd "$tmp" || exit 1
cp "$top_srcdir/models/mm1k.san" m.san
printf 'network broken (continuous\n' > bad.san
: > empty.csv
"$SAN" gen ms --mode async --slaves 6 --buffer 4 -o ms6.san 2>/dev/null || not_ok "setup: gen"
# M/M/1/89, arrival 1.12, service 4.776 (issue 34)
sed -e 's/lambda = 2;/lambda = 1.12;/' -e 's/mu     = 3;/mu = 4.776;/' \
    -e 's/K      = \[0..10\];/K = [0..89];/' -e 's/s\[10\]/s[89]/' m.san > mm189.san

# every option name of every subcommand, for the messages' advice
subs=$("$SAN" --help | awk '/^subcommands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
for sub in $subs; do "$SAN" "$sub" --list-options; done | sort -u > options.txt

# fails RC 'COMMAND LINE' (run by sh -c in $tmp, "$SAN" as san)
fails() {
    want=$1
    line=$2
    $LIMIT sh -c "$line" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    name="$line"
    if [ "$rc" -ne "$want" ]; then
        not_ok "$name: exit $rc, want $want $(abnormal); stderr: $(head -c 300 "$tmp/err")"
        return
    fi
    if [ ! -s "$tmp/err" ] || ! grep -q '[a-z]' "$tmp/err"; then
        not_ok "$name: exit $rc with nothing on stderr"
        return
    fi
    bad=
    for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/err" | sort -u); do
        case " $line " in *" $o "*) continue ;; esac     # quoted from the command line
        grep -qx -- "$o" options.txt || bad="$bad $o"
    done
    if [ -n "$bad" ]; then
        not_ok "$name: stderr names options that do not exist:$bad: $(head -c 300 "$tmp/err")"
        return
    fi
    ok "$name"
}

S='"$SAN"'
export SAN
# ---- the user's: exit 2 ----
fails 2 "$S solve"
fails 2 "$S solve --tol 0 m.san"
fails 2 "$S solve --tol nan m.san"
fails 2 "$S solve --method nope m.san"
fails 2 "$S solve --bogus m.san"
fails 2 "$S solve missing.san"
fails 2 "$S solve /"
fails 2 "$S solve bad.san"
fails 2 "$S solve --max-states 3 m.san"
fails 2 "$S solve --max-memory 1k ms6.san"
fails 2 "$S check bad.san"
fails 2 "$S print -D nope=x m.san"
fails 2 "$S transient m.san"
fails 2 "$S transient -t -1 m.san"
fails 2 "$S transient -t 1 --from empty.csv m.san"
fails 2 "$S transient -t 1e9 --max-steps 100 m.san"
fails 2 "$S passage m.san"
fails 2 "$S passage --until 'nope' m.san"
fails 2 "$S export m.san"
fails 2 "$S export -f prism m.san"
fails 2 "$S export -f nope m.san"
fails 2 "$S sweep"
fails 2 "$S sweep ms --slaves 2..3"
fails 2 "$S gen nope"
fails 2 "$S compare m.san"
fails 2 "$S grain m.san"
fails 2 "$S size-buffer m.san"
fails 2 "$S mw --bogus"
fails 2 "$S cluster --bogus"
fails 2 "$S map --bogus"
fails 2 "$S workrate --bogus"
fails 2 "$S solve --vector m.san m.san"
fails 2 "$S nope"

# ---- the rest: exit 1 ----
fails 1 "$S solve --method gs --max-iter 1 ms6.san"
fails 1 "$S solve --method power --storage kron --max-iter 2 ms6.san"
fails 1 "$S solve --vector /nonexistent/dir/pi.csv m.san"
fails 1 "$S print -o /nonexistent/dir/m.san m.san"
fails 1 "$S gen ms --mode async --slaves 2 -o /nonexistent/x.san"
fails 1 "$S solve m.san > /dev/full"
fails 1 "$S sweep -q ms --mode async --slaves 2..3 --max-states 10"
fails 1 "$S sweep -q ms --mode async --slaves 2 --method gs --max-iter 1"
fails 1 "$S grain -q ms --slices-per-node 1..2 --slaves 2 --max-states 10"
fails 1 "$S size-buffer -q ms --mode async --slaves 2 --max-states 10"
fails 1 "$S compare -q m.san ms6.san --max-states 20"
fails 1 "$S passage -q --initial '(st queue) == s[0]' --until '(st queue) >= 26' -p 50 mm189.san"

# ---- the percentile plan: refused before the march ----
# mean 7.1e5, rate 6: the median needs about 4e6 products; the step of
# mean/8 fits under --max-steps 3e6, so a march checked step by step
# alone would spend ~3e6 products before giving up
run "$SAN" passage -q -f json --max-steps 3e6 --initial '(st queue) == s[0]' \
    --until '(st queue) >= 10' -p 50 mm189.san
products=$(sed -n 's/.*"products": \([0-9]*\).*/\1/p' "$tmp/out" | head -1)
if [ "$rc" -eq 1 ] && grep -q "percentiles from 50%: not computed: the march to them would need about" \
       "$tmp/err" && [ -n "$products" ] && [ "$products" -lt 100000 ]; then
    ok "percentile past --max-steps refused by its plan ($products products)"
else
    not_ok "percentile plan: exit $rc, products '$products', stderr: $(head -c 300 "$tmp/err")"
fi
# and within the limit, answered, the plan counted
run "$SAN" passage -q -f json --initial '(st queue) == s[0]' --until '(st queue) >= 5' -p 50 mm189.san
planned=$(sed -n 's/.*"products_planned": \([0-9.e+]*\).*/\1/p' "$tmp/out" | head -1)
if [ "$rc" -eq 0 ] && grep -q '"50": [0-9]' "$tmp/out" && [ -n "$planned" ] \
   && [ "${planned%%.*}" -gt 0 ] 2>/dev/null; then
    ok "percentile within the plan answered ($planned planned)"
else
    not_ok "percentile within the plan: exit $rc, planned '$planned', stderr: $(head -c 300 "$tmp/err")"
fi

# a long march is answered, not refused by the guard: 1.6e6 products
# drift past 1 + 1e-12 by rounding alone (refused as "left the
# probability distributions" at product 475,949 before); a passage this
# far is nearly exponential, so the 1% level is near -mean ln(0.99)
run "$SAN" passage -q -f json --initial '(st queue) == s[0]' --until '(st queue) >= 12' -p 1 mm189.san
if [ "$rc" -eq 0 ] && python3 -c '
import json, math, sys
d = json.load(open(sys.argv[1]))["passage"]
p, m = d["percentiles"]["1"], d["mean"]
sys.exit(0 if abs(p + m * math.log(0.99)) <= 0.01 * p else 1)' "$tmp/out"; then
    ok "a percentile 1.6e6 products away answered"
else
    not_ok "long march: exit $rc, stderr: $(head -c 300 "$tmp/err")"
fi

harness_end
