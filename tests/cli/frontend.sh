#!/bin/sh
# frontend.sh - the front end on large and deep models:
#
#   1. checking stays near-linear: 3 10^5 replicas of one automaton, 10^5
#      identifiers each defined from the one before, and the same chain
#      written the other way round (each from the one after), each
#      within 60 s (they took 58 s, 186 s, and a stack overflow at
#      2 10^4, before the symbol tables; now about a second each);
#   2. a cycle of 5000 definitions is reported, not followed;
#   3. a product space of thousands of digits is printed in scientific
#      notation, in check's summary and in solve's refusal;
#   4. the rates leaving one state that sum past the largest double are
#      the model's error (exit 2), naming the state and the events, on
#      both storages;
#   5. progress: none when stderr is not a terminal (1.); on a terminal
#      (with script(1)) a line once checking 10^6 replicas takes over a
#      second.
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes, 1 otherwise; the last line is "N passed, M failed".

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"

need_san frontend.sh
harness_lump_off

# replicas N FILE: N two-state replicas of one automaton
replicas() {
    cat >"$2" <<EOF
identifiers
  N = [0..$(($1 - 1))];
events
  loc up (1)
  loc dn (2)
reachability = 1;
network big (continuous)
  aut P[N]
    stt a to(b) up
    stt b to(a) dn
results
  x = st P[0] == a;
EOF
}

# chain N forward|backward|cycle FILE: N identifiers, c0 the rate
chain() {
    awk -v n="$1" -v how="$2" 'BEGIN {
        print "identifiers"
        for (i = 0; i < n; i++) {
            if (how == "forward")
                print "  c" i " = " (i ? "c" (i - 1) " + 1" : "1") ";"
            else if (how == "backward")
                print "  c" i " = " (i < n - 1 ? "c" (i + 1) " + 1" : "1") ";"
            else
                print "  c" i " = c" ((i + 1) % n) " + 1;"
        }
        print "events"
        print "  loc up (c0)"
        print "  loc dn (2)"
        print "reachability = 1;"
        print "network chain (continuous)"
        print "  aut P"
        print "    stt a to(b) up"
        print "    stt b to(a) dn"
        print "results"
        print "  x = st P == a;"
    }' >"$3"
}

# ---- 1. scaling ----
replicas 300000 "$tmp/rep.san"
expect_exit 0 "3 10^5 replicas" "$SAN" check "$tmp/rep.san"
if grep -q '^automata: 300000$' "$tmp/out"; then ok "3 10^5 automata counted"; else not_ok "3 10^5 replicas: $(grep '^automata' "$tmp/out")"; fi
if grep -q 'checking the model' "$tmp/err"; then
    not_ok "3 10^5 replicas: progress written to a file (not a terminal)"
else
    ok "3 10^5 replicas: no progress when stderr is not a terminal"
fi
chain 100000 forward "$tmp/fwd.san"
expect_exit 0 "10^5 chained identifiers" "$SAN" check "$tmp/fwd.san"
if grep -q 'c99999 = 100000' "$tmp/out"; then ok "the chain's last value"; else not_ok "the chain's last value is not 100000"; fi
chain 100000 backward "$tmp/bwd.san"
expect_exit 0 "10^5 identifiers chained backwards (no deep recursion)" "$SAN" check "$tmp/bwd.san"
if grep -q 'up  *loc rate 100000 ' "$tmp/out"; then ok "the backward chain's value"; else not_ok "the backward chain's rate is not 100000"; fi

# ---- 2. a long cycle ----
chain 5000 cycle "$tmp/cycle.san"
expect_exit 2 "a cycle of 5000 definitions" "$SAN" check "$tmp/cycle.san"
if grep -q "error: identifier 'c0' is defined in terms of itself" "$tmp/err"; then
    ok "the cycle is reported where it closes"
else
    not_ok "the cycle: $(head -n 1 "$tmp/err")"
fi

# ---- 3. sizes of thousands of digits ----
replicas 10000 "$tmp/rep1e4.san"
expect_exit 0 "10^4 replicas" "$SAN" check "$tmp/rep1e4.san"
if grep -q '^product states: 1\.99506e+3010$' "$tmp/out"; then
    ok "2^10000 product states in scientific notation"
else
    not_ok "2^10000: $(grep '^product states' "$tmp/out" | cut -c1-80)"
fi
run "$SAN" solve "$tmp/rep1e4.san"
len=$(wc -c <"$tmp/err" | tr -d ' ')
if [ "$rc" -eq 2 ] && grep -q '1\.99506e+3010 states' "$tmp/err" && [ "$len" -lt 300 ]; then
    ok "solve refuses 2^10000 states in one short line"
else
    not_ok "solve of 2^10000 states: exit $rc, $len bytes of message"
fi
replicas 100 "$tmp/rep100.san"
run "$SAN" check "$tmp/rep100.san"
if grep -q '^product states: 1267650600228229401496703205376$' "$tmp/out"; then
    ok "2^100 stays exact (31 digits)"
else
    not_ok "2^100: $(grep '^product states' "$tmp/out")"
fi

# ---- 4. rates that sum past the largest double ----
cat >"$tmp/ovf.san" <<'EOF'
identifiers
  big = 1e308;
events
  loc e1 (big)
  loc e2 (big)
  loc back (1)
reachability = 1;
network n (continuous)
  aut A
    stt a to(b) e1 to(c) e2
    stt b to(a) back
    stt c to(a) back
results
  x = st A == a;
EOF
for storage in sparse kron; do
    run "$SAN" solve --storage $storage "$tmp/ovf.san"
    if [ "$rc" -eq 2 ] && grep -q "rates leaving state (A:a) sum beyond the largest double" "$tmp/err" &&
       grep -q "'e1' (1e+308), 'e2' (1e+308)" "$tmp/err"; then
        ok "exit rates beyond the largest double ($storage): exit 2, state and events named"
    else
        not_ok "exit rates beyond the largest double ($storage): exit $rc: $(head -n 1 "$tmp/err")"
    fi
done

# ---- 5. progress ----
replicas 1000000 "$tmp/rep1e6.san"
if command -v script >/dev/null 2>&1 && script -qc true /dev/null >/dev/null 2>&1; then
    # Milliseconds: the line is due once the load has run 0.2 s
    # (SAN_PROGRESS_INTERVAL: the default second made the test hang on
    # the machine's speed, a load of 0.9 to 1.1 s drawing its line or
    # not); a whole run under 0.5 s may end before it.
    t0=$(date +%s%N)
    SAN_PROGRESS_INTERVAL=0.2 $LIMIT script -qc "'$SAN' check '$tmp/rep1e6.san' >/dev/null" \
        "$tmp/typescript" >/dev/null 2>&1
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if grep -q 'checking the model' "$tmp/typescript"; then
        ok "10^6 replicas on a terminal: progress shown ($ms ms)"
    elif [ "$ms" -le 500 ]; then
        ok "10^6 replicas on a terminal: no progress, checked in $ms ms"
    else
        not_ok "10^6 replicas on a terminal: $ms ms without a progress line"
    fi
else
    echo "SKIP - progress on a terminal: no script(1)"
fi

harness_end
