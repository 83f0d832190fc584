#!/bin/sh
# robust.sh - numerical robustness and clean stops of `san solve`.
#
#   1. closed forms, every method: small birth-death chains written as .san
#      models in a temporary directory, each solved with every --method:
#        wide        rates from 1e-6 to 1e6 in one chain
#        neardecomp  two blocks coupled by rates of 1e-7
#        transient   states that lead into the closed class and never come
#                    back: probability 0, the rest the closed form
#      A method either succeeds (exit 0) with the closed form (relative
#      error 1e-6 for auto, 1e-4 for the others; the --vector sums to 1
#      within 1e-12 and has no negative entry), or fails (exit 1) with a
#      message that names a method to try.  Never a wrong number with 0.
#   2. NaN and infinity from a functional rate or a functional routing
#      probability in one state: exit 2 and an error naming that state;
#   3. --time-limit: 1 s on a model explored in milliseconds, with
#      methods that need minutes: exit 1, a message about the time limit,
#      the best residual in the report and the message; 0.001 s, which
#      ends during the exploration: exit 1 and a message about it;
#   4. SIGINT one second into a long solve: the process stops within 2 s
#      with a non-zero status and leaves no --vector file (nor its
#      temporary) behind.
#
# Environment: SAN (the san binary), top_srcdir.  Needs python3.  Exit 0
# when everything passes, 1 otherwise; the last line is "N passed, M
# failed".  VERBOSE=1 also lists the checks that pass.

harness_limit=30
. "$(dirname "$0")/../lib/harness.sh"
harness_lump_off

# show FILE: the first lines of a captured output, indented
show() {
    sed -n '1,12p' "$1" | sed 's/^/    /'
}

if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL - python3 is needed for the closed forms"
    echo "0 passed, 1 failed"
    exit 1
fi
need_san robust.sh

# ---- the models and their closed forms ----
cat > "$tmp/rb.py" <<'EOF'
import math, sys

def birth_death(name, up, down, transient=0, comment=""):
    """States t0..t{transient-1} (transient, leading into x0), then x0..xn
    with x_i -> x_{i+1} at up[i] and x_{i+1} -> x_i at down[i].  Writes
    NAME.san and NAME.exp (state, probability: the closed form)."""
    n = len(up)
    ev, lines = [], []
    for i, r in enumerate(up):
        ev.append("  loc u%d (%r)" % (i, r))
    for i, r in enumerate(down):
        ev.append("  loc d%d (%r)" % (i, r))
    for k in range(transient):
        ev.append("  loc go%d (%r)" % (k, [1e6, 1e-3, 1.0][k % 3]))
    for k in range(transient):
        dest = "t%d" % (k + 1) if k + 1 < transient else "x0"
        lines.append("    stt t%d to(%s) go%d" % (k, dest, k))
    for i in range(n + 1):
        out = []
        if i < n:
            out.append("to(x%d) u%d" % (i + 1, i))
        if i > 0:
            out.append("to(x%d) d%d" % (i - 1, i - 1))
        lines.append("    stt x%d %s" % (i, " ".join(out)))
    with open(name + ".san", "w") as f:
        f.write("// %s\nevents\n%s\nreachability = 1;\n" % (comment, "\n".join(ev)))
        f.write("network %s (continuous)\n  aut A\n%s\n" % (name, "\n".join(lines)))
        f.write("results\n  first = (st A) == x0;\n")
    # pi(x_{i+1}) / pi(x_i) = up[i] / down[i], in logs
    lw = [0.0]
    for i in range(n):
        lw.append(lw[-1] + math.log(up[i]) - math.log(down[i]))
    top = max(lw)
    w = [math.exp(v - top) for v in lw]
    s = math.fsum(w)
    with open(name + ".exp", "w") as f:
        for k in range(transient):
            f.write("t%d 0\n" % k)
        for i in range(n + 1):
            f.write("x%d %r\n" % (i, w[i] / s))

def gen():
    # rates from 1e-6 to 1e6 side by side; probabilities stay moderate
    up   = [1e6, 1e-6, 1.0, 1e-3, 5e5, 2e-6, 7e3, 1e-6, 1e6]
    down = [2e6, 3e-6, 1e-3, 1.0, 1e6, 1e-6, 1e4, 4e-6, 1e6]
    birth_death("wide", up, down, comment="rates from 1e-6 to 1e6 in one chain")
    # two blocks of 6 states, rates near 1, coupled by 1e-7 and 3e-7
    up   = [2, 2, 2, 2, 2, 1e-7, 3, 3, 3, 3, 3]
    down = [3, 3, 3, 3, 3, 3e-7, 2, 2, 2, 2, 2]
    birth_death("neardecomp", up, down, comment="two blocks coupled by 1e-7")
    # three transient states (one leaving at 1e6) ahead of a closed class
    up   = [2, 2, 2, 2]
    down = [5, 5, 5, 5]
    birth_death("transient", up, down, transient=3, comment="transient states t0..t2")

def cmp(vector, exp, rtol):
    rtol = float(rtol)
    want = {}
    for line in open(exp):
        k, v = line.split()
        want[k] = float(v)
    got = {}
    rows = open(vector).read().splitlines()
    head = rows[0].split(",")
    if head[-1] != "probability":
        print("vector: unexpected header %r" % rows[0]); return 1
    for r in rows[1:]:
        f = r.split(",")
        got[f[-2]] = float(f[-1])
    bad = []
    if set(got) != set(want):
        bad.append("states %s, expected %s" % (sorted(got), sorted(want)))
    total = math.fsum(got.values())
    if abs(total - 1) > 1e-12:
        bad.append("sum %.17g, not 1 within 1e-12" % total)
    for k, p in sorted(got.items()):
        if not p >= 0:
            bad.append("%s: negative or NaN probability %r" % (k, p))
    worst, where = 0.0, ""
    for k, w in want.items():
        if k not in got:
            continue
        p = got[k]
        err = abs(p - w) / w if w > 1e-12 else abs(p - w) / 1e-12
        if not err <= worst:
            worst, where = err, k
        if not err <= rtol:
            bad.append("%s: %.12g, closed form %.12g (relative error %.2g)" % (k, p, w, err))
    if bad:
        print("; ".join(bad[:4]))
        return 1
    return 0

if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen()
    else:
        sys.exit(cmp(*sys.argv[2:]))
EOF

(cd "$tmp" && python3 rb.py gen) || { echo "FAIL - generating the models"; echo "0 passed, 1 failed"; exit 1; }

METHODS="auto direct power jacobi gs gmres bicgstab"

# ---- 1. closed forms, every method ----
for model in wide neardecomp transient; do
    for m in $METHODS; do
        name="$model --method $m"
        rm -f "$tmp/pi.csv"
        $LIMIT "$SAN" solve --method "$m" --time-limit 10 -q --vector "$tmp/pi.csv" \
            "$tmp/$model.san" </dev/null >"$tmp/out" 2>"$tmp/err"
        st=$?
        case $st in
            0)
                if [ $m = auto ]; then rtol=1e-6; else rtol=1e-4; fi
                if [ ! -s "$tmp/pi.csv" ]; then
                    not_ok "$name: exit 0 but no --vector file"
                elif python3 "$tmp/rb.py" cmp "$tmp/pi.csv" "$tmp/$model.exp" $rtol >"$tmp/why"; then
                    ok "$name: closed form"
                else
                    not_ok "$name: exit 0 with a wrong answer: $(cat "$tmp/why")"
                    grep '^solver' "$tmp/out" | sed 's/^/    /'
                fi
                ;;
            1)
                if grep -Eq "try .*(direct|power|jacobi|gs|gmres|bicgstab)" "$tmp/err"; then
                    ok "$name: refused with a method to try"
                else
                    not_ok "$name: exit 1 without naming a method to try"
                    show "$tmp/err"
                fi
                ;;
            *)
                not_ok "$name: exit status $st"
                show "$tmp/err"
                ;;
        esac
    done
done

# ---- 2. NaN and infinity in one state ----
nonfinite() {   # NAME IDENTIFIERS EVENTS TRANSITIONS: must fail naming s[2]
    cat > "$tmp/$1.san" <<EOF
identifiers
  K = [0..4];
$2
events
$3
reachability = 1;
network $1 (continuous)
  aut A
    stt s[K]
$4
results
  first = (st A) == 0;
EOF
    $LIMIT "$SAN" solve -q "$tmp/$1.san" </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ $st -ne 2 ]; then
        not_ok "$1: exit status $st, expected 2"
        show "$tmp/err"
    elif ! grep 'error' "$tmp/err" | grep -Fq 's[2]'; then
        not_ok "$1: the error does not name the state s[2]"
        show "$tmp/err"
    else
        ok "$1: error naming the state"
    fi
}
nonfinite rate_inf "  f = 1 / (((st A) - 2) * ((st A) - 2));" "  loc up (f) loc dn (1)" \
    "      to(++) up
      to(--) dn"
nonfinite rate_nan "  f = ((st A) - 2) / ((st A) - 2);" "  loc up (f) loc dn (1)" \
    "      to(++) up
      to(--) dn"
nonfinite rate_inf_sync "  f = 3 / ((st A) - 2);  g = f * f;" "  syn up (g) loc dn (1)" \
    "      to(++) up
      to(--) dn"
nonfinite prob_nan "  p = 0.5 * ((st A) - 2) / ((st A) - 2);  q = 1 - p;" "  loc up (1) loc dn (1)" \
    "      to(s[0]) up(p)
      to(s[4]) up(q)
      to(--) dn"
nonfinite prob_inf "  p = 0.25 / (((st A) - 2) * ((st A) - 2));  q = 1 - p;" "  loc up (1) loc dn (1)" \
    "      to(s[0]) up(p)
      to(s[4]) up(q)
      to(--) dn"

# ---- 3. --time-limit on a larger model ----
"$SAN" gen ms --mode async --slaves 6 --buffer 40 -o "$tmp/large.san" </dev/null >/dev/null 2>"$tmp/err" ||
    { not_ok "san gen for the time-limit model"; show "$tmp/err"; }
"$SAN" solve --time-limit 0.001 "$tmp/large.san" </dev/null >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -qi 'time limit' "$tmp/err"; then
    ok "--time-limit 0.001: stops in the exploration, exit 1, saying why"
else
    not_ok "--time-limit 0.001: exit $st"
    show "$tmp/err"
fi
# a nearly decomposable chain of 4 x 2^10 states: explored in milliseconds
# (under the sanitizers too), while power, Jacobi and Gauss-Seidel need
# millions of sweeps on it
{
    echo "identifiers"
    echo "  eps = 1e-7; F = [0..9];"
    echo "  up = 1 + ((st M == m1) * 2) + ((st M == m2) * 4) + ((st M == m3) * 8);"
    echo "events"
    echo "  loc s0 (eps) loc s1 (eps * 2) loc s2 (eps * 3) loc s3 (eps * 4)"
    echo "  loc on (up) loc off (5)"
    echo "reachability = 1;"
    echo "network ncd (continuous)"
    echo "  aut M"
    echo "    stt m0 to(m1) s0"
    echo "    stt m1 to(m2) s1"
    echo "    stt m2 to(m3) s2"
    echo "    stt m3 to(m0) s3"
    echo "  aut P[F]"
    echo "    stt idle to(busy) on"
    echo "    stt busy to(idle) off"
    echo "results"
    echo "  mode0 = st M == m0;"
} >"$tmp/slow.san"
for m in power jacobi gs; do
    name="--time-limit 1 --method $m"
    rm -f "$tmp/pi.csv"
    $LIMIT "$SAN" solve --method $m --time-limit 1 --max-iter 100000000 --vector "$tmp/pi.csv" \
        "$tmp/slow.san" </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ $st -ne 1 ]; then
        not_ok "$name: exit status $st, expected 1"
        grep '^solver' "$tmp/out" | sed 's/^/    /'
        show "$tmp/err"
        continue
    fi
    ok "$name: exit 1"
    if grep -qi 'time limit' "$tmp/err" && grep -Eq 'residual [0-9]' "$tmp/err"; then
        ok "$name: a message with the best residual"
    else
        not_ok "$name: no message about the time limit with the best residual"
        show "$tmp/err"
    fi
    if grep '^solver' "$tmp/out" | grep -Eq 'residual [0-9]'; then
        ok "$name: the report shows the residual"
    else
        not_ok "$name: the report does not show the residual"
        show "$tmp/out"
    fi
    if grep -q -- '--time-limit' "$tmp/err"; then
        ok "$name: the message says how to give it more time"
    else
        not_ok "$name: the message does not mention --time-limit"
        show "$tmp/err"
    fi
    if [ -e "$tmp/pi.csv" ]; then
        not_ok "$name: a --vector file was written for an unconverged solve"
    fi
done

# ---- 4. SIGINT during a long solve ----
# ms async 8/30 as written: auto takes 3.5 s idle (2026-12-01), jacobi 6
# s, direct 16 s; 7/20 took 0.7 s once auto stopped at the roundoff
# floor sooner, and ended before the signal.
"$SAN" gen ms --mode async --slaves 8 --buffer 30 -o "$tmp/huge.san" </dev/null >/dev/null 2>"$tmp/err" ||
    { not_ok "san gen for the SIGINT model"; show "$tmp/err"; }
# A background job of a script ignores SIGINT; python3 restores the
# default disposition, as a terminal's Ctrl-C would find it.
for m in auto jacobi gmres direct; do
    name="SIGINT --method $m"
    mkdir -p "$tmp/int" && rm -f "$tmp/int"/*
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$SAN" solve --method $m --tol 1e-300 --max-iter 1000000000 \
        -q --vector "$tmp/int/pi.csv" "$tmp/huge.san" </dev/null >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    # wait for python3 to become san (on a loaded machine its start-up
    # alone took over a second, and the signal then ended python3), then
    # let the solve run for a second
    i=0
    while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
        case $(readlink "/proc/$pid/exe" 2>/dev/null) in
            */san|*/lt-san) break ;;
        esac
        sleep 0.1
        i=$((i + 1))
    done
    sleep 1
    if ! kill -0 $pid 2>/dev/null; then
        wait $pid
        not_ok "$name: the solve ended (status $?) before the signal"
        show "$tmp/err"
        continue
    fi
    kill -INT $pid
    # wait up to 2 s, in tenths
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 20 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 $pid 2>/dev/null; then
        kill -KILL $pid 2>/dev/null
        wait $pid 2>/dev/null
        not_ok "$name: still running 2 s after SIGINT"
        rm -f "$tmp/int"/*
        continue
    fi
    wait $pid
    st=$?
    if [ $st -eq 0 ]; then
        not_ok "$name: exit status 0 after an interrupted solve"
    else
        ok "$name: stopped within 2 s (status $st)"
    fi
    if ls "$tmp/int" | grep -q .; then
        not_ok "$name: left files behind: $(ls "$tmp/int" | tr '\n' ' ')"
    else
        ok "$name: no partial --vector file"
    fi
    if [ $st -ne 0 ] && ! grep -qi 'interrupt' "$tmp/err"; then
        not_ok "$name: no message saying it was interrupted"
        show "$tmp/err"
    fi
done

harness_end
