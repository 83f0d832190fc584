#!/bin/sh
# lang.sh - the .san front end through the `san` command.
#
#   1. the error and warning corpora (tests/corpus/errors, tests/corpus/warnings): each
#      file states its diagnostics at the top,
#          // expect: KIND LINE:COL MESSAGE-SUBSTRING    (0:0: no position)
#          // expect-exit: STATUS
#          // args: EXTRA ARGUMENTS FOR san check        (optional)
#      and `san check` must report exactly those (every diagnostic it prints
#      is expected, every expectation is printed) with that exit status;
#   2. the PEPS models in $SHARED_MODELS/peps check clean with the right
#      product state space sizes;
#   3. print round trips: printing a printed model gives the same text, and
#      both compile to the same automata, events and product size;
#   4. robustness: deep nesting, huge sums, long identifiers, random bytes,
#      empty and comment-only files: exit 0 or 2, within 10 s, no signal;
#   5. the command line: -, --help, help, --version, usage errors.
#
# Environment: SAN (the san binary), top_srcdir, SHARED_MODELS.  Exit 0 when
# everything passes, 1 otherwise; the last line is "N passed, M failed".
# VERBOSE=1 also lists the checks that pass.

. "$(dirname "$0")/../lib/harness.sh"

have_python=0
if command -v python3 >/dev/null 2>&1; then
    have_python=1
fi

# run_in FILE CMD...: like run (harness.sh), with FILE on standard input
run_in() {
    _in=$1
    shift
    $LIMIT "$@" <"$_in" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

need_san lang.sh

# ------------------------------------------------------------------------
# 1. Corpora
# ------------------------------------------------------------------------

cat >"$tmp/check.awk" <<'EOF'
# First file: the expectations ("// expect: KIND L:C MESSAGE").
# Second file: san's standard error.  F is the file name san prints.
FILENAME == ARGV[1] {   # (not FNR == NR: the expectations may be empty)
    line = $0
    sub(/^\/\/ expect: */, "", line)
    n++
    kind[n] = line
    sub(/ .*/, "", kind[n])
    rest = substr(line, length(kind[n]) + 2)
    pos[n] = rest
    sub(/ .*/, "", pos[n])
    msg[n] = substr(rest, length(pos[n]) + 2)
    next
}
{
    p = F ":"
    if (substr($0, 1, length(p)) != p)
        next
    rest = substr($0, length(p) + 1)
    if (match(rest, /^[0-9]+:[0-9]+: (error|warning|note): /)) {
        head = substr(rest, 1, RLENGTH)
        dmsg = substr(rest, RLENGTH + 1)
        split(head, h, ":")
        dpos = h[1] ":" h[2]
        dkind = h[3]
        sub(/^ /, "", dkind)
    } else if (match(rest, /^ (error|warning|note): /)) {
        dkind = substr(rest, 2, RLENGTH - 3)
        dmsg = substr(rest, RLENGTH + 1)
        dpos = "0:0"
    } else {
        next
    }
    # the PEPS 2003 / GTAexpress compatibility warnings (on by default in
    # san check) are checked in the files that expect one (PEER=1); the
    # others, about the quotes of their own expect lines, say nothing of
    # the file's subject
    if (!PEER && dkind == "warning" && dmsg ~ /GTAexpress|PEPS 2003/)
        next
    found = 0
    for (i = 1; i <= n; i++)
        if (kind[i] == dkind && pos[i] == dpos && index(dmsg, msg[i]) > 0) {
            seen[i] = 1
            found = 1
        }
    if (!found) {
        print "    unexpected " dkind " at " dpos ": " dmsg
        bad = 1
    }
}
END {
    for (i = 1; i <= n; i++)
        if (!seen[i]) {
            print "    missing " kind[i] " at " pos[i] ": " msg[i]
            bad = 1
        }
    exit bad
}
EOF

# directive FILE PREFIX: the lines of FILE that start with PREFIX; a lone
# CR ends a line too (the corpus has files with CR-only line endings)
directive() {
    tr '\r' '\n' <"$1" | grep -a "^$2"
}

check_corpus_file() {
    f=$1
    args=$(directive "$f" '// args: ' | head -n 1 | sed 's|^// args: *||')
    want=$(directive "$f" '// expect-exit: ' | head -n 1 | sed 's|^// expect-exit: *||')
    if [ -z "$want" ]; then
        not_ok "$f: no '// expect-exit:' line"
        return
    fi
    directive "$f" '// expect: ' >"$tmp/expect"
    # shellcheck disable=SC2086
    run "$SAN" check $args "$f"
    why=$(abnormal)
    if [ -n "$why" ]; then
        not_ok "$f: san check $why"
        return
    fi
    problems=""
    if [ "$rc" -ne "$want" ]; then
        problems="exit status $rc, expected $want"
    fi
    peer=0
    if grep -q 'GTAexpress\|PEPS 2003' "$tmp/expect"; then
        peer=1
    fi
    if ! awk -v F="$f" -v PEER=$peer -f "$tmp/check.awk" "$tmp/expect" "$tmp/err" >"$tmp/report"; then
        problems="${problems:+$problems; }diagnostics differ"
    fi
    if [ -n "$problems" ]; then
        not_ok "$f: $problems"
        cat "$tmp/report"
        sed -n '1,12s/^/    | /p' "$tmp/err"
    else
        ok "$f"
    fi
}

ncorpus=0
for dir in errors warnings; do
    for f in "$top_srcdir/tests/corpus/$dir"/*.san; do
        [ -f "$f" ] || continue
        ncorpus=$((ncorpus + 1))
        check_corpus_file "$f"
    done
done
# --format json is valid JSON for every corpus file, and agrees with the
# status: one python3 reads them all (a start per file was 134 starts)
if [ "$have_python" = 1 ]; then
    mkdir "$tmp/cj"
    : >"$tmp/cj/list"
    k=0
    for f in "$top_srcdir"/tests/corpus/errors/*.san "$top_srcdir"/tests/corpus/warnings/*.san; do
        [ -f "$f" ] || continue
        case $f in *too_many_automata.san) continue ;; esac
        args=$(directive "$f" '// args: ' | head -n 1 | sed 's|^// args: *||')
        # shellcheck disable=SC2086
        run "$SAN" check --format json $args "$f"
        k=$((k + 1))
        cp "$tmp/out" "$tmp/cj/$k.json"
        printf '%s %s %s\n' "$k" "$rc" "${f##*/}" >>"$tmp/cj/list"
    done
    json_bad=$(python3 -c '
import json, sys
folder = sys.argv[1]
for line in open(folder + "/list"):
    k, rc, name = line.split()
    try:
        d = json.load(open("%s/%s.json" % (folder, k)))
        assert d["valid"] == (rc == "0")
        assert isinstance(d["errors"], list) and isinstance(d["warnings"], list)
        assert (len(d["errors"]) == 0) == (rc == "0")
    except Exception:
        print(name)' "$tmp/cj" 2>&1 | tr '\n' ' ')
    if [ -z "$json_bad" ] && [ "$k" -ge 30 ]; then
        ok "corpus: --format json is valid and agrees with the exit status ($k files)"
    else
        not_ok "corpus: bad --format json for: $json_bad ($k files)"
    fi
fi

if [ "$ncorpus" -lt 30 ]; then
    not_ok "corpus: only $ncorpus files under $top_srcdir/tests/corpus/errors and tests/corpus/warnings"
fi

# check's exploration (--explore, --max-states): a rate that is negative
# in the last state of a chain of six only, found when every state is
# explored, not in a sample of the first three, nor from the text alone;
# each says what it checked
cat >"$tmp/chain6.san" <<'EOF'
identifiers
  D = [0..5];
  back = 1 - (2 * (st A == s[5]));
events
  loc up (1)
  loc down (back)
partial reachability = st A == s[0];
network chain (continuous)
  aut A
    stt s[D] to(++) up
             to(--) down
results
  x = st A;
EOF
# expect_explore WHAT STATUS STDOUT-PATTERN ARGS...
expect_explore() {
    _what=$1 _want=$2 _pat=$3
    shift 3
    run "$SAN" check "$@" "$tmp/chain6.san"
    if [ "$rc" -eq "$_want" ] && grep -q -e "$_pat" "$tmp/out"; then
        ok "check $_what"
    else
        not_ok "check $_what: exit $rc (expected $_want), $(grep '^reachable' "$tmp/out")"
        sed -n '1,4s/^/    | /p' "$tmp/err"
    fi
}
expect_explore "explores every state (auto)" 2 "^reachable states: 6, each checked"
if grep -q "chain6.san:6:13: error: rate of event 'down' is negative (-1) in state (A:s\[5\])" "$tmp/err"; then
    ok "check: the rate placed, with the first state where it is negative"
else
    not_ok "check: $(head -n 1 "$tmp/err")"
fi
expect_explore "--max-states 3: a sample, said so" 0 "^reachable states: a sample of 3 checked" --max-states 3
expect_explore "--explore never: the text alone, said so" 0 "^reachable states: not checked: --explore never" --explore never
expect_explore "--explore always --max-states 3: every state" 2 "^reachable states: 6, each" --explore always --max-states 3
run "$SAN" check --format json --max-states 3 "$tmp/chain6.san"
if [ "$have_python" = 0 ] || python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["reachable"]
assert r["explored"] and not r["complete"] and r["states_checked"] == 3 and "first 3" in r["why"]' "$tmp/out"; then
    ok "check --format json: the sample in 'reachable'"
else
    not_ok "check --format json --max-states 3: $(grep reachable "$tmp/out")"
fi
run "$SAN" check --explore sometimes "$tmp/chain6.san"
if [ "$rc" -eq 2 ] && grep -q "expected auto, always or never" "$tmp/err"; then
    ok "check --explore sometimes: usage error"
else
    not_ok "check --explore sometimes: exit $rc: $(head -n 1 "$tmp/err")"
fi

# ------------------------------------------------------------------------
# 2. PEPS models: clean, with the right product sizes
# ------------------------------------------------------------------------

json_get() {   # json_get FILE KEY: a top-level number, a list's length, a size's digits
    if [ "$have_python" = 1 ]; then
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = d.get(sys.argv[2])
if isinstance(v, dict) and set(v) == {"digits", "approx"}:
    v = v["digits"]     # a product size (doc/output.md)
print(len(v) if isinstance(v, list) else v)' "$1" "$2" 2>/dev/null
    else
        sed -n -e "s/^ *\"$2\": { \"digits\": \"\\([0-9]*\\)\".*/\\1/p" \
            -e "s/^ *\"$2\": \\([0-9]*\\).*/\\1/p" "$1"
    fi
}

peps=$SHARED_MODELS/peps
if [ -d "$peps" ]; then
    pairs="example:6 rs:2048 tss:17891847 printers2c:6 printers3c:8"
else
    # a distribution tarball built elsewhere has no shared models
    echo "SKIP - no PEPS models in '$peps' (set SHARED_MODELS)"
    pairs=""
fi
for pair in $pairs; do
    name=${pair%%:*}
    size=${pair#*:}
    m=$peps/$name.san
    if [ ! -f "$m" ]; then
        not_ok "$m: missing"
        continue
    fi
    run "$SAN" check --format json "$m"
    why=$(abnormal)
    if [ -n "$why" ] || [ "$rc" -ne 0 ]; then
        not_ok "$m: san check exit $rc $why"
        sed 's/^/    | /' "$tmp/err"
        continue
    fi
    cp "$tmp/out" "$tmp/peps.json"
    got=$(json_get "$tmp/peps.json" product_states)
    nerr=$(json_get "$tmp/peps.json" errors)
    nwarn=$(json_get "$tmp/peps.json" warnings)
    if [ "$got" != "$size" ]; then
        not_ok "$m: product_states $got, expected $size"
    elif [ "$nerr" != 0 ] || [ "$nwarn" != 0 ] || [ -s "$tmp/err" ]; then
        not_ok "$m: not clean ($nerr errors, $nwarn warnings)"
        sed 's/^/    | /' "$tmp/err"
    else
        ok "$m: clean, $size states"
    fi
done

# ------------------------------------------------------------------------
# 3. Print round trips
# ------------------------------------------------------------------------

cat >"$tmp/same.py" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
bad = []
for key in ("valid", "product_states", "automata", "events", "functions", "results"):
    if a.get(key) != b.get(key):
        bad.append(key)
if bad:
    print("    differ: " + ", ".join(bad))
    sys.exit(1)
EOF

roundtrip() {
    m=$1
    run "$SAN" print "$m"
    why=$(abnormal)
    if [ -n "$why" ] || [ "$rc" -ne 0 ]; then
        not_ok "$m: san print exit $rc $why"
        sed 's/^/    | /' "$tmp/err" | head -n 10
        return
    fi
    cp "$tmp/out" "$tmp/p1.san"
    run "$SAN" print "$tmp/p1.san"
    why=$(abnormal)
    if [ -n "$why" ] || [ "$rc" -ne 0 ]; then
        not_ok "$m: printing the printed model: exit $rc $why"
        sed 's/^/    | /' "$tmp/err" | head -n 10
        return
    fi
    cp "$tmp/out" "$tmp/p2.san"
    if ! cmp -s "$tmp/p1.san" "$tmp/p2.san"; then
        not_ok "$m: printing the printed model gives other text"
        diff "$tmp/p1.san" "$tmp/p2.san" | head -n 10 | sed 's/^/    /'
        return
    fi
    run "$SAN" check --format json "$m"
    cp "$tmp/out" "$tmp/j1.json"
    rc1=$rc
    run "$SAN" check --format json "$tmp/p1.san"
    cp "$tmp/out" "$tmp/j2.json"
    if [ "$rc1" -ne 0 ] || [ "$rc" -ne 0 ]; then
        not_ok "$m: check of the original ($rc1) or of the printed text ($rc) fails"
        return
    fi
    if [ "$have_python" = 1 ]; then
        if ! python3 "$tmp/same.py" "$tmp/j1.json" "$tmp/j2.json" >"$tmp/report" 2>&1; then
            not_ok "$m: the printed model compiles to another model"
            cat "$tmp/report"
            return
        fi
    elif [ "$(json_get "$tmp/j1.json" product_states)" != "$(json_get "$tmp/j2.json" product_states)" ]; then
        not_ok "$m: the printed model has another product size"
        return
    fi
    ok "$m: print round trip"
}

for m in "$peps"/*.san "$top_srcdir"/models/*.san "$top_srcdir"/models/*/*.san \
         "$top_srcdir"/tests/corpus/warnings/*.san; do
    [ -f "$m" ] || continue
    roundtrip "$m"
done

# print -D writes the overridden value: the printed text alone compiles to
# the model that check -D compiles.
if [ "$have_python" = 1 ]; then
    d=$top_srcdir/tests/corpus/warnings/define_ok.san
    run "$SAN" print -D r=2.5 -D K=4 "$d"
    cp "$tmp/out" "$tmp/pd.san"
    run "$SAN" check --format json -D r=2.5 -D K=4 "$d"
    cp "$tmp/out" "$tmp/jd1.json"
    run "$SAN" check --format json "$tmp/pd.san"
    cp "$tmp/out" "$tmp/jd2.json"
    if python3 "$tmp/same.py" "$tmp/jd1.json" "$tmp/jd2.json" >"$tmp/report" 2>&1 &&
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["events"][0]["rate"] == 10' "$tmp/jd2.json" 2>/dev/null; then
        ok "print -D: the printed model has the overridden constants"
    else
        not_ok "print -D: the printed model differs from check -D"
        cat "$tmp/report"
    fi
fi

# ------------------------------------------------------------------------
# 4. Robustness
# ------------------------------------------------------------------------

# robust NAME FILE ALLOWED [NEEDLE]: san check FILE exits with one of the
# statuses in ALLOWED ("0 2", "2", ...), in time, without a signal; with
# NEEDLE, its standard error must contain it.
robust() {
    name=$1
    file=$2
    allowed=$3
    needle=$4
    run "$SAN" check "$file"
    why=$(abnormal)
    if [ -n "$why" ]; then
        keep=${TMPDIR:-/tmp}/san-lang-failed-$(printf '%s' "$name" | tr -c 'A-Za-z0-9' '_').san
        cp "$file" "$keep" 2>/dev/null
        not_ok "robustness: $name: $why (input kept in $keep)"
        return
    fi
    case " $allowed " in
    *" $rc "*) ;;
    *)
        not_ok "robustness: $name: exit status $rc, expected one of: $allowed"
        sed -n '1,5s/^/    | /p' "$tmp/err"
        return
        ;;
    esac
    if [ -n "$needle" ] && ! grep -q -F -- "$needle" "$tmp/err"; then
        not_ok "robustness: $name: no '$needle' on standard error"
        sed -n '1,5s/^/    | /p' "$tmp/err"
        return
    fi
    ok "robustness: $name"
}

# A valid model around an expression (awk writes it: no shell limits).
HEAD='identifiers
  r = 1;
events
  loc e (r)
reachability = 1;
network n (continuous)
  aut A
    stt a to (b) e
    stt b to (a) e
results'

with_result() {   # with_result FILE: prints HEAD, then "  x = " + stdin + ";"
    {
        printf '%s\n  x = ' "$HEAD"
        cat
        printf ';\n'
    } >"$1"
}

awk 'BEGIN { for (i = 0; i < 3000; i++) printf "("; printf "1"; for (i = 0; i < 3000; i++) printf ")" }' \
    | with_result "$tmp/paren3000.san"
robust "3000 nested parentheses" "$tmp/paren3000.san" "0 2"

awk 'BEGIN { for (i = 0; i < 20000; i++) printf "("; printf "1"; for (i = 0; i < 20000; i++) printf ")" }' \
    | with_result "$tmp/paren20000.san"
robust "20000 nested parentheses" "$tmp/paren20000.san" "0 2"

awk 'BEGIN { for (i = 0; i < 12000; i++) printf "-"; printf "1" }' | with_result "$tmp/neg3000.san"
robust "12000 nested unary minus" "$tmp/neg3000.san" "2" "too deep"

awk 'BEGIN { for (i = 0; i < 12000; i++) printf "(1+"; printf "1"; for (i = 0; i < 12000; i++) printf ")" }' \
    | with_result "$tmp/right3000.san"
robust "12000 right-nested sums" "$tmp/right3000.san" "2" "too deep"

awk 'BEGIN { printf "1"; for (i = 1; i <= 2000; i++) printf "+1" }' | with_result "$tmp/sum2000.san"
robust "2000 operators (the limit)" "$tmp/sum2000.san" "0"

awk 'BEGIN { printf "1"; for (i = 1; i < 100000; i++) printf "+1" }' | with_result "$tmp/sum100000.san"
robust "100000-term sum" "$tmp/sum100000.san" "0 2"

awk 'BEGIN { printf "max("; for (i = 0; i < 100000; i++) printf "%d,", i; printf "1)" }' \
    | with_result "$tmp/max100000.san"
robust "max of 100000 arguments" "$tmp/max100000.san" "0 2"

awk 'BEGIN { for (i = 0; i < 5000; i++) printf "w"; }' >"$tmp/id5000"
{
    printf 'identifiers\n  '
    cat "$tmp/id5000"
    printf ' = 1;\n'
} >"$tmp/ident5000.san"
robust "5000-character identifier" "$tmp/ident5000.san" "2" "identifier too long (5000 characters"

{
    printf '%s\n  x = ' "$HEAD"
    cat "$tmp/id5000"
    printf ';\n'
} >"$tmp/ident5000use.san"
robust "5000-character identifier in an expression" "$tmp/ident5000use.san" "2" "identifier too long"

: >"$tmp/empty.san"
robust "empty file" "$tmp/empty.san" "2" "missing 'events' block"

printf '// only comments: acc\303\250s \342\200\224 \346\274\242\n/* invalid UTF-8: \377\376\303( \200 and a NUL \000 */\n// \377\n' \
    >"$tmp/comments.san"
robust "comments only, UTF-8 and invalid UTF-8" "$tmp/comments.san" "2" "missing 'events' block"
if grep -q 'unexpected byte' "$tmp/err"; then
    not_ok "robustness: bytes inside comments reported as unexpected"
else
    ok "robustness: bytes inside comments are ignored"
fi

awk 'BEGIN { for (i = 0; i < 1000; i++) printf "w"; }' >"$tmp/id1000"
{
    printf 'identifiers\n  '
    cat "$tmp/id1000"
    printf ' = 1;\n'
    printf '%s\n  x = st A;\n' "$(printf '%s\n' "$HEAD" | sed 1d)"
} >"$tmp/ident1000.san"
robust "1000-character identifier (the limit)" "$tmp/ident1000.san" "0"

# Product sizes beyond 64 bits are exact big integers (2^100 here).
cat >"$tmp/big.san" <<'EOF2'
events
  loc e (1)
reachability = 1;
network big (continuous)
  aut P[0..99]
    stt a to (b) e
    stt b to (a) e
results
  x = nb a;
EOF2
run "$SAN" check --format json "$tmp/big.san"
if [ "$rc" -eq 0 ] && [ "$(json_get "$tmp/out" product_states)" = 1267650600228229401496703205376 ]; then
    ok "product size 2^100 in JSON"
else
    not_ok "product size 2^100 in JSON: exit $rc, got $(json_get "$tmp/out" product_states)"
fi
run "$SAN" check "$tmp/big.san"
if [ "$rc" -eq 0 ] && grep -q '^product states: 1267650600228229401496703205376$' "$tmp/out"; then
    ok "product size 2^100 in text"
else
    not_ok "product size 2^100 in text: exit $rc"
fi

# More than 100 errors: the first 100 are shown, then a count.
{
    printf '%s\n' "$HEAD"
    awk 'BEGIN { for (i = 1; i <= 150; i++) printf "  x%d = nosuch%d;\n", i, i }'
} >"$tmp/many.san"
robust "150 errors" "$tmp/many.san" "2" "too many errors (150), stopped reporting after 100"
if [ "$(grep -c ': error: unknown identifier' "$tmp/err")" -eq 100 ]; then
    ok "150 errors: 100 shown"
else
    not_ok "150 errors: $(grep -c ': error: unknown identifier' "$tmp/err") shown, expected 100"
fi

# Valid domains up to the documented limit (10^7 values) stay fast.
{
    printf 'identifiers\n  D = [0..999999];\n'
    printf '%s\n  x = st A;\n' "$(printf '%s\n' "$HEAD" | sed 1d)"
} >"$tmp/bigdomain.san"
robust "a domain of 10^6 values" "$tmp/bigdomain.san" "0"

# Random bytes: from /dev/urandom (kept on failure), and from seeded awk.
for seed in 1 2 3; do
    if [ -r /dev/urandom ]; then
        head -c 65536 /dev/urandom >"$tmp/urandom$seed.san"
        robust "64 KiB from /dev/urandom #$seed" "$tmp/urandom$seed.san" "0 2"
    fi
    awk -v seed="$seed" 'BEGIN { srand(seed); for (i = 0; i < 65536; i++) printf "%c", int(rand() * 256) }' \
        >"$tmp/bytes$seed.san"
    robust "64 KiB of seeded random bytes #$seed" "$tmp/bytes$seed.san" "0 2"
    # token soup: the language's own words in random order (exercises the
    # parser's recovery far more than bytes do)
    awk -v seed="$seed" 'BEGIN {
        n = split("identifiers events network aut stt to from loc syn results continuous " \
                  "discrete reachability partial min max st nb rw sum_rw prod_rw A B P x y " \
                  "e f 0 1 2 2.5 1e9 ( ) [ ] { } , ; = == != < <= =< > >= => && || ^ -> " \
                  "<-> ! + - * / @ % .. ++ -- /* */ //", w, " ")
        srand(seed)
        for (i = 0; i < 20000; i++) {
            printf "%s", w[int(rand() * n) + 1]
            printf (rand() < 0.1 ? "\n" : " ")
        }
    }' >"$tmp/soup$seed.san"
    robust "token soup #$seed" "$tmp/soup$seed.san" "0 2"
done

# A valid model with its text cut at every 7th byte: always 0 or 2.
if [ -f "$peps/example.san" ]; then
    size=$(wc -c <"$peps/example.san")
    cut_bad=0
    i=0
    while [ "$i" -lt "$size" ]; do
        head -c "$i" "$peps/example.san" >"$tmp/cut.san"
        run "$SAN" check "$tmp/cut.san"
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
            cut_bad=1
            cp "$tmp/cut.san" "${TMPDIR:-/tmp}/san-lang-failed-cut.san"
            break
        fi
        i=$((i + 7))
    done
    if [ "$cut_bad" = 0 ]; then
        ok "robustness: truncated models"
    else
        not_ok "robustness: example.san cut after $i bytes: exit $rc"
    fi
fi

# ------------------------------------------------------------------------
# 5. The command line
# ------------------------------------------------------------------------

# expect_status STATUS DESCRIPTION CMD...: and stdout non-empty when 0
expect_status() {
    want=$1
    what=$2
    shift 2
    run "$@"
    why=$(exit_why "$want")
    if [ -z "$why" ] && [ "$want" -eq 0 ] && [ ! -s "$tmp/out" ]; then
        why="nothing on standard output"
    fi
    if [ -n "$why" ]; then
        not_ok "cli: $what: $why"
    else
        ok "cli: $what"
    fi
}

expect_status 0 "san --help" "$SAN" --help
expect_status 0 "san -h" "$SAN" -h
expect_status 0 "san help" "$SAN" help
expect_status 0 "san help check" "$SAN" help check
expect_status 0 "san help print" "$SAN" help print
expect_status 0 "san check --help" "$SAN" check --help
expect_status 0 "san print --help" "$SAN" print --help
expect_status 0 "san --version" "$SAN" --version
expect_status 2 "san (no arguments)" "$SAN"
expect_status 2 "unknown subcommand" "$SAN" frobnicate
expect_status 2 "san help of an unknown subcommand" "$SAN" help frobnicate
expect_status 2 "unknown option of check" "$SAN" check --frobnicate "$top_srcdir/tests/corpus/warnings/define_ok.san"
expect_status 2 "unknown option of print" "$SAN" print --frobnicate "$top_srcdir/tests/corpus/warnings/define_ok.san"
expect_status 2 "unknown global option" "$SAN" --frobnicate
expect_status 2 "check without MODEL" "$SAN" check
expect_status 2 "check with two MODELs" "$SAN" check "$top_srcdir/tests/corpus/warnings/define_ok.san" \
    "$top_srcdir/tests/corpus/warnings/define_ok.san"
expect_status 2 "check of a missing file" "$SAN" check "$tmp/no-such-file.san"
expect_status 2 "check of a directory" "$SAN" check "$tmp"
expect_status 2 "check --format xml" "$SAN" check --format xml "$top_srcdir/tests/corpus/warnings/define_ok.san"
expect_status 2 "-D without a value" "$SAN" check -D r "$top_srcdir/tests/corpus/warnings/define_ok.san"
expect_status 2 "-D with a non-number" "$SAN" check -D r=abc "$top_srcdir/tests/corpus/warnings/define_ok.san"
expect_status 2 "print -D of an unknown name" "$SAN" print -D nosuch=1 "$top_srcdir/tests/corpus/warnings/define_ok.san"

if run "$SAN" --version && grep -q '^san [0-9]' "$tmp/out"; then
    ok "cli: --version prints 'san VERSION'"
else
    not_ok "cli: --version prints 'san VERSION' (got: $(head -n 1 "$tmp/out"))"
fi

# print -o FILE writes what print writes on standard output
if [ -f "$peps/example.san" ]; then
    run "$SAN" print -o "$tmp/o.san" "$peps/example.san"
    rc_o=$rc
    run "$SAN" print "$peps/example.san"
    if [ "$rc_o" -eq 0 ] && [ -s "$tmp/o.san" ] && cmp -s "$tmp/o.san" "$tmp/out"; then
        ok "cli: print -o FILE"
    else
        not_ok "cli: print -o FILE (exit $rc_o) differs from standard output"
    fi
fi

# help mentions every option of check
run "$SAN" check --help
for opt in --format -D --no-peps-warnings --help; do
    if grep -q -e "$opt" "$tmp/out"; then
        ok "cli: check --help mentions $opt"
    else
        not_ok "cli: check --help does not mention $opt"
    fi
done

# - reads standard input
if [ -f "$peps/rs.san" ]; then
    run_in "$peps/rs.san" "$SAN" check -
    if [ "$rc" -eq 0 ] && grep -q 'product states: 2048' "$tmp/out"; then
        ok "cli: check - reads standard input"
    else
        not_ok "cli: check - < rs.san: exit $rc"
    fi
    run_in "$peps/rs.san" "$SAN" print -
    cp "$tmp/out" "$tmp/stdin-print.san"
    run "$SAN" print "$peps/rs.san"
    if [ "$rc" -eq 0 ] && [ -s "$tmp/out" ] && cmp -s "$tmp/out" "$tmp/stdin-print.san"; then
        ok "cli: print - reads standard input"
    else
        not_ok "cli: print - < rs.san differs from print rs.san"
    fi
fi
run_in "$top_srcdir/tests/corpus/errors/unknown_state.san" "$SAN" check -
if [ "$rc" -eq 2 ] && grep -q -F "<stdin>:13:10: error: unknown state 'usng'" "$tmp/err"; then
    ok "cli: diagnostics on standard input are named <stdin>"
else
    not_ok "cli: check - < unknown_state.san: exit $rc, $(head -n 1 "$tmp/err")"
fi

# the caret line under a diagnostic
run "$SAN" check "$top_srcdir/tests/corpus/errors/unknown_state.san"
if grep -q -F '   13 |   x = nb usng;' "$tmp/err" && grep -q -F '      |          ^' "$tmp/err"; then
    ok "cli: diagnostics quote the line with a caret"
else
    not_ok "cli: no quoted line and caret under the diagnostic"
    sed 's/^/    | /' "$tmp/err"
fi

# --format json of an invalid model: valid JSON with the errors
if [ "$have_python" = 1 ]; then
    run "$SAN" check --format json "$top_srcdir/tests/corpus/errors/self_reference.san"
    if [ "$rc" -eq 2 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["valid"] is False and len(d["errors"]) == 2
assert d["errors"][0]["line"] in (5, 7)' "$tmp/out" 2>/dev/null; then
        ok "cli: check --format json of an invalid model"
    else
        not_ok "cli: check --format json of an invalid model (exit $rc)"
    fi
fi

harness_end
