#!/bin/sh
# cli.sh - the option parser of every subcommand (tool/options.c): one
# table per subcommand, one parser, one help generated from the table.
#
#   1. --max-memory 1T (and --max-memory=1T) is accepted by solve, sweep,
#      size-buffer, grain and compare: one size parser for all of them;
#   2. --tol=abc and --tol abc are refused with exit 2 and a message
#      naming the option, the same for every subcommand that has --tol;
#   3. --help exits 0 on every subcommand and lists every option of its
#      table: the options each subcommand has always had, and whatever
#      --list-options (the table, as shell completion reads it) names;
#   4. the parser's corner cases: --opt=value and --opt value, clusters
#      of short options (-qf csv, -fcsv), "--" ends the options, options
#      after the operands, a missing value, a value given to a flag,
#      unambiguous prefixes (solve) and ambiguous ones, unknown options
#      (refused, or left to the template in order for sweep-like
#      commands: --mode=async after the template); a misspelt option
#      or subcommand gets "did you mean" the closest (issue 16);
#   5. numbers and sizes (issue 15): sizes in messages in the unit that
#      shows them (never "0.00 GiB"); --max-memory inf, nan, 0, 0.5 (less
#      than a byte) refused by every subcommand; -D takes subnormals
#      (1e-308) and names the reason of a refusal (1e-400 rounds to 0,
#      not "malformed"), in solve and sweep; option errors say why;
#   6. compare: model paths with blanks and quotes, -D with them, lines
#      split only when they have flags, -q;
#   8. --no-peps-warnings and --peps in every subcommand that reads a
#      model; sweep and compare print each distinct warning once;
#   7. -D on a structural constant of a generated model (regenerated with
#      the flag through --gen and sweep, explained for a file) and on a
#      domain (issue 16).
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes; the last line is "N passed, M failed".  VERBOSE=1 lists passes.

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"
need_san cli.sh

MODEL="$top_srcdir/models/mm1k.san"
OMP_NUM_THREADS=1
export OMP_NUM_THREADS

# ---------------------------------------------------------------------
# 1. --max-memory 1T everywhere
# ---------------------------------------------------------------------
for form in "--max-memory 1T" "--max-memory=1T"; do
    # shellcheck disable=SC2086
    expect_exit 0 "solve $form" "$SAN" solve -q $form "$MODEL"
    # shellcheck disable=SC2086
    expect_exit 0 "sweep $form" "$SAN" sweep -q $form ms --mode async --slaves 2 --buffer 1,2
    # shellcheck disable=SC2086
    expect_exit 0 "size-buffer $form" "$SAN" size-buffer -q $form ms --slaves 2 --within 0.05
    # shellcheck disable=SC2086
    expect_exit 0 "grain $form" "$SAN" grain -q $form ms --slices-per-node 1,2 --slaves 2 --buffer 2
    # shellcheck disable=SC2086
    expect_exit 0 "compare $form" "$SAN" compare $form "$MODEL" "$MODEL -D lambda=3"
done
refused "solve --max-memory 1X" "--max-memory: expected a size" "$SAN" solve --max-memory 1X "$MODEL"
refused "sweep --max-memory 1X" "--max-memory: expected a size" \
    "$SAN" sweep --max-memory 1X ms --mode async --slaves 2

# ---------------------------------------------------------------------
# 2. --tol=abc refused, the option named, by every subcommand with --tol
# ---------------------------------------------------------------------
for c in solve sweep size-buffer grain compare; do
    case $c in
    solve) args="$MODEL" ;;
    compare) args="$MODEL $MODEL" ;;
    *) args="ms --slaves 2" ;;
    esac
    # shellcheck disable=SC2086
    refused "$c --tol=abc" "san $c: --tol: expected a number in (0, 1], not 'abc'" \
        "$SAN" $c --tol=abc $args
    # shellcheck disable=SC2086
    refused "$c --tol abc" "san $c: --tol: expected a number in (0, 1], not 'abc'" \
        "$SAN" $c --tol abc $args
    # shellcheck disable=SC2086
    refused "$c --tol (no value)" "san $c: --tol: missing value" "$SAN" $c $args --tol
done
refused "solve --tol 0" "--tol: expected" "$SAN" solve --tol 0 "$MODEL"
refused "solve --max-iter 2.5" "--max-iter: expected a positive integer" \
    "$SAN" solve --max-iter 2.5 "$MODEL"
refused "solve -m nope" "--method: unknown method 'nope'" "$SAN" solve -m nope "$MODEL"
refused "solve --storage dense" "--storage: expected" "$SAN" solve --storage dense "$MODEL"
refused "check --format csv (text or json only)" "--format: expected text or json, not 'csv'" \
    "$SAN" check --format csv "$MODEL"
refused "grain --busy 1 ([0, 1))" "--busy: expected a number in [0, 1), not '1'" \
    "$SAN" grain --busy 1 ms --slices-per-node 1,2
refused "size-buffer --within 20" "--within: expected a number in [1e-12, 10]" \
    "$SAN" size-buffer --within 20 ms --slaves 2

# ---------------------------------------------------------------------
# 3. --help: exit 0, every option of the table listed
# ---------------------------------------------------------------------
solver="-m --method --tol --max-iter --omega --restart --precond --time-limit --storage"
limits="--max-memory --max-states"
run_opts="-j --jobs $solver $limits"
plot_opts="--title --xlabel --ylabel --legend-title --logx --logy --size --dpi --table"
diag="--no-peps-warnings --peps"
for c in check print solve gen sweep size-buffer grain compare transient passage export; do
    case $c in
    check) table="-f --format -D --explore --max-states --max-memory $diag" ;;
    print) table="-D -o --output $diag" ;;
    solve) table="$solver $limits -D --gen -f --format --top --vector -q --quiet $diag" ;;
    gen) table="-o --output --size" ;;
    sweep) table="-f --format -o --output --index --no-times --plot --x --y --series
                 -q --quiet --warm $run_opts $plot_opts $diag" ;;
    size-buffer) table="--index --within --max-buffer -f --format --plot -q --quiet $run_opts
                 $plot_opts $diag" ;;
    grain) table="--busy -f --format --plot --y -q --quiet $run_opts $plot_opts $diag" ;;
    compare) table="-D -f --format --no-marginals -q --quiet $run_opts $diag" ;;
    transient|passage) table="-D --max-input $diag" ;;
    export) table="-f --format -D --gen $diag" ;;
    esac
    expect_exit 0 "san $c --help" "$SAN" $c --help
    cp "$tmp/out" "$tmp/help"
    expect_exit 0 "san help $c" "$SAN" help $c
    if cmp -s "$tmp/out" "$tmp/help"; then
        ok "san help $c = san $c --help"
    else
        not_ok "san help $c differs from san $c --help"
    fi
    expect_exit 0 "san $c --list-options" "$SAN" $c --list-options
    cp "$tmp/out" "$tmp/list"
    for o in $table -h --help; do
        if grep -q -x -e "$o" "$tmp/list"; then
            ok "$c: $o in the table"
        else
            not_ok "$c: $o is not in the table (--list-options)"
        fi
    done
    # the option lines: "  -m, --method M", "      --tol X", "  -D NAME=VALUE"
    grep -E '^  (-[A-Za-z]|    --[a-z])' "$tmp/help" > "$tmp/optlines"
    missing=""
    for o in $(cat "$tmp/list"); do
        grep -q -E -e "(^| )$o(,| |$)" "$tmp/optlines" || missing="$missing $o"
    done
    if [ -z "$missing" ]; then
        ok "$c --help lists every option of its table"
    else
        not_ok "$c --help does not list:$missing"
    fi
done

# ---------------------------------------------------------------------
# 4. corner cases of the parser
# ---------------------------------------------------------------------
# the tables are compared without their provenance lines (# ...), which
# name each command line as typed
run "$SAN" solve -q -f csv "$MODEL"
grep -v '^#' "$tmp/out" > "$tmp/ref.csv"
same_as_ref() {
    name=$1
    shift
    run "$@"
    if [ "$rc" -eq 0 ] && grep -v '^#' "$tmp/out" | cmp -s - "$tmp/ref.csv"; then
        ok "$name"
    else
        not_ok "$name: exit $rc, or not the output of 'solve -q -f csv MODEL'"
        sed -n '1,3s/^/    | /p' "$tmp/err"
    fi
}
same_as_ref "--format=csv" "$SAN" solve -q --format=csv "$MODEL"
same_as_ref "cluster -qf csv" "$SAN" solve -qf csv "$MODEL"
same_as_ref "attached -fcsv" "$SAN" solve -q -fcsv "$MODEL"
same_as_ref "options after the operand" "$SAN" solve "$MODEL" -q -f csv
same_as_ref "unambiguous prefix --form" "$SAN" solve -q --form csv "$MODEL"
same_as_ref "-D NAME=VALUE and -DNAME=VALUE" "$SAN" solve -q -f csv -D lambda=2 -Dmu=3 "$MODEL"
run_in() {
    $LIMIT "$@" < "$MODEL" > "$tmp/out" 2> "$tmp/err"
    rc=$?
}
run_in "$SAN" solve -q -f csv -
if [ "$rc" -eq 0 ] && grep -v '^#' "$tmp/out" | cmp -s - "$tmp/ref.csv"; then
    ok "- is an operand (standard input)"
else
    not_ok "solve - < MODEL: exit $rc"
fi
cp "$MODEL" "$tmp/-dash.san"
(cd "$tmp" && "$SAN" check -- -dash.san > out 2> err)
if [ $? -eq 0 ]; then ok "-- ends the options"; else not_ok "check -- -dash.san"; fi
refused "without --, -dash.san is an option" "-d: unknown option" "$SAN" check -dash.san
refused "ambiguous prefix" "--m: ambiguous option (--method, --max-iter" "$SAN" solve --m gs "$MODEL"
refused "a value given to a flag" "--quiet: takes no value" "$SAN" solve --quiet=1 "$MODEL"
refused "unknown option of solve" "san solve: --bogus: unknown option" "$SAN" solve --bogus "$MODEL"
refused "unknown short option in a cluster" "san solve: -z: unknown option" "$SAN" solve -qz "$MODEL"
refused "no prefixes where template flags pass" "--nosuch" \
    "$SAN" sweep ms --mode async --slaves 2 --nosuch 1
refused "compare: unknown option, with the hint" "--mode: unknown option (quote a generator line" \
    "$SAN" compare ms --mode async --slaves 2
run "$SAN" solve -qh
if [ "$rc" -eq 0 ] && grep -q "^usage: san solve" "$tmp/out"; then
    ok "-h in a cluster is the help"
else
    not_ok "solve -qh: exit $rc"
fi
# did you mean (issue 16): the closest long option, or subcommand
refused "misspelt option: did you mean" "san solve: --metod: unknown option; did you mean --method?" \
    "$SAN" solve --metod gs "$MODEL"
refused "misspelt option with =value" "--tool: unknown option; did you mean --tol?" \
    "$SAN" solve --tool=1e-8 "$MODEL"
refused "misspelt flag of check" "did you mean --no-peps-warnings?" \
    "$SAN" check --no-peps-warnigns "$MODEL"
run "$SAN" solve --bogus "$MODEL"
if grep -q "did you mean" "$tmp/err"; then
    not_ok "--bogus: nothing close, yet a suggestion: $(head -1 "$tmp/err")"
else
    ok "no suggestion when nothing is close"
fi
refused "misspelt template flag" "--slave: unknown flag; did you mean --slaves?" \
    "$SAN" gen ms --mode async --slave 3
refused "sweep: a misspelt option of its own, not of the template" \
    "--metod: unknown flag; did you mean --method (an option of san sweep)?" \
    "$SAN" sweep ms --mode async --slaves 2 --metod gs
refused "misspelt subcommand" "san: 'slove' is not a subcommand; did you mean 'solve'?" "$SAN" slove "$MODEL"
refused "misspelt subcommand of help" "did you mean 'check'?" "$SAN" help chek
refused "unknown subcommand, nothing close" "'frobnicate' is not a subcommand; see 'san --help'" \
    "$SAN" frobnicate
refused "an empty long name" "san solve: --: unknown option" "$SAN" solve --=x "$MODEL"
refused "check without MODEL" "san check: missing MODEL" "$SAN" check
refused "solve with --gen and MODEL" "--gen replaces MODEL" "$SAN" solve --gen 'ms --slaves 2' "$MODEL"

# template flags pass through in order, in both forms, with ours between
run "$SAN" sweep -q --no-times -f csv ms --mode=async -j 1 --slaves=2..3 --buffer 1
if [ "$rc" -eq 0 ] && [ "$(grep -vc '^#' "$tmp/out")" -eq 3 ]; then
    ok "sweep: --mode=async --slaves=2..3 pass through (2 rows)"
else
    not_ok "sweep with --flag=value template flags: exit $rc, $(wc -l < "$tmp/out") lines"
fi
run "$SAN" gen ms --mode async -o "$tmp/g.san" --slaves 2 --buffer 3
if [ "$rc" -eq 0 ] && grep -q "slaves 2" "$tmp/g.san"; then
    ok "gen: -o between template flags"
else
    not_ok "gen ms --mode async -o FILE --slaves 2: exit $rc"
fi
# the solver group is shared: sweep takes what solve takes
run "$SAN" sweep -q --no-times -f csv --method gs --omega 1.2 --precond none --restart 10 \
    ms --mode async --slaves 2 --buffer 1
if [ "$rc" -eq 0 ] && grep -q ',gs,' "$tmp/out"; then
    ok "sweep takes the solver options of solve (--omega, --precond, --restart)"
else
    not_ok "sweep --method gs --omega 1.2 --precond none: exit $rc"
    sed -n '1,3s/^/    | /p' "$tmp/err"
fi

# ---------------------------------------------------------------------
# 5. numbers and sizes
# ---------------------------------------------------------------------
# the memory limit and the need in units that show them
refused "--max-memory 1k: the limit in KiB" "over the memory limit of 1.00 KiB" \
    "$SAN" solve -q --max-memory 1k "$MODEL"
if grep -q "0\.00 GiB" "$tmp/err"; then
    not_ok "--max-memory 1k: a size printed as 0.00 GiB"
else
    ok "--max-memory 1k: no 0.00 GiB"
fi
refused "--max-memory 1536: 1.50 KiB" "limit of 1.50 KiB" "$SAN" solve -q --max-memory 1536 "$MODEL"
run "$SAN" solve -q "$MODEL"
if [ "$rc" -eq 0 ] && grep -q "^generator    31 nonzeros, [0-9]* B, storage sparse (kron storage would need ~[0-9.]* KiB)" \
    "$tmp/out"; then
    ok "solve: the generator's size in B and KiB, not 0.0 MiB"
else
    not_ok "solve: generator line: $(grep '^generator' "$tmp/out")"
fi
run "$SAN" check "$MODEL"
if [ "$rc" -eq 0 ] && grep -q "sparse generator ~[0-9.]* KiB" "$tmp/out"; then
    ok "check: the estimates in KiB"
else
    not_ok "check: memory line: $(grep '^memory' "$tmp/out")"
fi
# --max-memory that is no limit, in every subcommand that has it
for v in inf nan 0 -1 0.5 1e30 1e400 Inf; do
    for c in solve sweep size-buffer grain compare; do
        case $c in
        solve) args="$MODEL" ;;
        compare) args="$MODEL $MODEL" ;;
        grain) args="ms --slices-per-node 1,2 --slaves 2" ;;
        *) args="ms --mode async --slaves 2" ;;
        esac
        # shellcheck disable=SC2086
        refused "$c --max-memory $v" "--max-memory: expected a size from 1 byte" \
            "$SAN" $c -q --max-memory "$v" $args
    done
done
# -D: any finite double, subnormals included; the reason otherwise
expect_exit 0 "solve -D lambda=1e-308 (subnormal)" "$SAN" solve -q -D lambda=1e-308 "$MODEL"
expect_exit 0 "solve -D lambda=2.2250738585072014e-308" \
    "$SAN" solve -q -D lambda=2.2250738585072014e-308 "$MODEL"
refused "solve -D lambda=1e-400: rounds to 0" "-D lambda: '1e-400' is too small: it rounds to 0" \
    "$SAN" solve -q -D lambda=1e-400 "$MODEL"
if grep -q "expected NAME=NUMBER" "$tmp/err"; then
    not_ok "-D lambda=1e-400 called malformed"
else
    ok "-D lambda=1e-400 not called malformed"
fi
refused "solve -D lambda=1e400" "-D lambda: '1e400' is infinite" "$SAN" solve -q -D lambda=1e400 "$MODEL"
refused "solve -D lambda=nan" "-D lambda: 'nan' is not a number" "$SAN" solve -q -D lambda=nan "$MODEL"
refused "solve -D lambda=x" "-D lambda: 'x' is not a number" "$SAN" solve -q -D lambda=x "$MODEL"
refused "solve -D =3: malformed" "-D: expected NAME=NUMBER, not '=3'" "$SAN" solve -q -D =3 "$MODEL"
refused "check -D lambda=1e-400" "rounds to 0" "$SAN" check -D lambda=1e-400 "$MODEL"
refused "print -D lambda=1e-400" "rounds to 0" "$SAN" print -D lambda=1e-400 "$MODEL"
expect_exit 0 "sweep -D lambda=1e-308,1" "$SAN" sweep -q "$MODEL" -D lambda=1e-308,1
refused "sweep -D lambda=1e-400" "-D lambda: '1e-400' is too small: it rounds to 0" \
    "$SAN" sweep -q "$MODEL" -D lambda=1e-400,1
refused "sweep range 1..1e400" "the end '1e400' is infinite" "$SAN" sweep -q "$MODEL" -D lambda=1..1e400
refused "sweep range below the precision of its values" "below the precision of its values" \
    "$SAN" sweep -q "$MODEL" -D lambda=100000000000000000000..100000000000000016384
refused "sweep range with a step that rounds to 0" "has more values than a double counts" \
    "$SAN" sweep -q "$MODEL" -D lambda=1..3:1e-320
# option errors give the reason
refused "--tol 1e-400: the reason" \
    "--tol: expected a number in (0, 1], not '1e-400' (too small: it rounds to 0" \
    "$SAN" solve --tol 1e-400 "$MODEL"
refused "--max-iter 2.5: the reason" "(not a whole number)" "$SAN" solve --max-iter 2.5 "$MODEL"
refused "--time-limit inf: the reason" "(infinite" "$SAN" solve --time-limit inf "$MODEL"

# ---------------------------------------------------------------------
# 6. compare: paths with blanks, -q
# ---------------------------------------------------------------------
mkdir -p "$tmp/a dir"
cp "$MODEL" "$tmp/a dir/m m'1.san"
run "$SAN" compare -q -f csv "$tmp/a dir/m m'1.san" "$MODEL"
if [ "$rc" -eq 0 ] && grep -q "^result,empty,,0.33" "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "compare: a path with blanks and a quote is one file"
else
    not_ok "compare 'a dir/m m'1.san': exit $rc: $(head -2 "$tmp/err")"
fi
# a line with flags is split (double quotes keep the path whole); -D of
# the command goes to every model: A has lambda 3, mu 4; B lambda 2, mu 4
run "$SAN" compare -q -f json -D mu=4 "\"$tmp/a dir/m m'1.san\" -D lambda=3" "$MODEL"
if [ "$rc" -eq 0 ] && python3 - "$tmp/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["results"]["empty"]["values"]
p0 = lambda r: (1 - r) / (1 - r ** 11)      # M/M/1/10
sys.exit(0 if abs(a - p0(0.75)) < 1e-9 and abs(b - p0(0.5)) < 1e-9 else 1)
EOF
then
    ok "compare: a quoted path in a line with -D, and -D for every model"
else
    not_ok "compare '\"a dir/m m'1.san\" -D lambda=3' -D mu=4: exit $rc: $(head -2 "$tmp/err")"
fi
refused "compare: a missing path with blanks is named whole" \
    "$tmp/a dir/none.san: no such file" "$SAN" compare "$tmp/a dir/none.san" "$MODEL"
run "$SAN" compare -q "$MODEL" "$MODEL -D lambda=3"
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; then
    ok "compare -q: nothing on stderr"
else
    not_ok "compare -q: exit $rc, stderr: $(head -1 "$tmp/err")"
fi
expect_exit 0 "compare --quiet" "$SAN" compare --quiet 'ms --mode sync --slaves 2' \
    'ms --mode async --slaves 2 --buffer 1'

# -D on a structural constant of a generated model (issue 16): --gen
# regenerates with the flag (and says so); a generated file names the
# flag and the command; sweep makes it the flag's axis
run "$SAN" solve -q -f csv --gen 'ms --mode async --slaves 2 --buffer 1' -D N_slaves=3
grep -v -e '^generator' -e '^#' "$tmp/out" > "$tmp/d3.csv"
run "$SAN" solve -q -f csv --gen 'ms --mode async --slaves 3 --buffer 1'
grep -v -e '^generator' -e '^#' "$tmp/out" > "$tmp/s3.csv"
run "$SAN" solve -q -f csv --gen 'ms --mode async --slaves 2 --buffer 1' -D N_slaves=3
if [ "$rc" -eq 0 ] && grep -q -e "-D N_slaves=3 sets the structure of the model: generated with --slaves 3" "$tmp/err" \
    && cmp -s "$tmp/d3.csv" "$tmp/s3.csv"; then
    ok "solve --gen -D N_slaves=3: regenerated with --slaves 3"
else
    not_ok "solve --gen -D N_slaves=3: exit $rc: $(head -1 "$tmp/err")"
fi
"$SAN" gen ms --mode async --slaves 2 --buffer 1 -o "$tmp/ms2.san"
refused "-D on a structural constant of a generated file" \
    "regenerate it with --slaves 4: san gen ms --mode async --slaves 4 --buffer 1" \
    "$SAN" solve "$tmp/ms2.san" -D N_slaves=4
run "$SAN" sweep -q --no-times -f csv ms --mode async --buffer 1 -D N_slaves=2,3
if [ "$rc" -eq 0 ] && [ "$(grep -vc '^#' "$tmp/out")" -eq 3 ] && grep -v '^#' "$tmp/out" | head -1 | grep -q slaves; then
    ok "sweep -D N_slaves=2,3 is the --slaves axis"
else
    not_ok "sweep -D N_slaves=2,3: exit $rc: $(head -1 "$tmp/err")"
fi
refused "-D on a domain explains" "'K' is a domain" "$SAN" solve -D K=3 "$top_srcdir/tests/corpus/errors/define_domain.san"

# the diagnostic flags in every subcommand that reads a model, and the
# model's warnings from sweep and compare: each distinct one once, not
# once per variant (issue 16)
PEPSM="$top_srcdir/tests/corpus/warnings/peps_precedence.san"
for c in solve print export transient; do
    case $c in
    export) extra="-f states" ;;
    transient) extra="-t 1" ;;
    *) extra="" ;;
    esac
    # shellcheck disable=SC2086
    run "$SAN" $c -q $extra --no-peps-warnings "$PEPSM"
    [ "$c" = print ] && run "$SAN" $c $extra --no-peps-warnings "$PEPSM"
    if [ "$rc" -eq 0 ] && ! grep -q "left to right" "$tmp/err"; then
        ok "$c --no-peps-warnings: accepted, no PEPS warning"
    else
        not_ok "$c --no-peps-warnings: exit $rc: $(head -1 "$tmp/err")"
    fi
done
run "$SAN" solve -q "$PEPSM"
if [ "$(grep -c "warning: .*left to right" "$tmp/err")" -eq 5 ]; then
    ok "solve: the PEPS precedence warnings, as check gives them"
else
    not_ok "solve: $(grep -c warning "$tmp/err") warnings, expected 5"
fi
run "$SAN" solve -q --peps "$MODEL"
if [ "$rc" -eq 0 ] && grep -q "warning: PEPS 2003" "$tmp/err"; then
    ok "solve --peps: the peers' warnings"
else
    not_ok "solve --peps: exit $rc, no PEPS 2003 warning"
fi
run "$SAN" sweep -q --no-times "$PEPSM" -D k=1,2,3,4
n=$(grep -c "warning: " "$tmp/err")
n_rate=$(grep -c "11:12: warning: rate: PEPS" "$tmp/err")
if [ "$rc" -eq 0 ] && [ "$n" -eq 5 ] && [ "$n_rate" -eq 1 ]; then
    ok "sweep: each distinct warning once for 4 variants (5 lines)"
else
    not_ok "sweep of 4 variants: exit $rc, $n warning lines (expected 5), the rate's $n_rate times"
    sed -n '1,6s/^/    | /p' "$tmp/err"
fi
run "$SAN" sweep -q --no-times --no-peps-warnings "$PEPSM" -D k=1,2
if [ "$rc" -eq 0 ] && ! grep -q "warning: " "$tmp/err"; then
    ok "sweep --no-peps-warnings"
else
    not_ok "sweep --no-peps-warnings: exit $rc: $(head -1 "$tmp/err")"
fi
run "$SAN" compare -q "$PEPSM" "$PEPSM -D k=3" "$PEPSM -D k=4"
n=$(grep -c "warning: " "$tmp/err")
if [ "$rc" -eq 0 ] && [ "$n" -eq 5 ]; then
    ok "compare: each distinct warning once for 3 models (5 lines)"
else
    not_ok "compare of 3 lines: exit $rc, $n warning lines (expected 5)"
    sed -n '1,8s/^/    | /p' "$tmp/err"
fi

# --no-marginals, --no-throughputs: the sections left out of every format,
# the rest of the report as without them
mm1k=$top_srcdir/models/mm1k.san
"$SAN" solve -q -f json "$mm1k" > "$tmp/all.json"
"$SAN" solve -q -f json --no-marginals --no-throughputs "$mm1k" > "$tmp/none.json"
if python3 - "$tmp/all.json" "$tmp/none.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert "marginals" in a and "throughputs" in a, a.keys()
assert "marginals" not in b and "throughputs" not in b, b.keys()
assert "--no-marginals" in b["meta"]["command_line"]
# the totals over replicas belong to the throughputs
assert "throughput_totals" in a and "throughput_totals" not in b, b.keys()
for x in (a, b):                # timings differ from run to run, and the argv
    x.pop("times_s")
    x["meta"].pop("command_line")
    for k in ("time_s", "product_s"):
        x["solver"].pop(k)
assert a.pop("marginals") and a.pop("throughputs") is not None and a.pop("throughput_totals") is not None and a == b, a.keys()
PY
then ok "solve --no-marginals --no-throughputs: JSON without them, the rest the same"
else not_ok "solve --no-marginals --no-throughputs: JSON"; fi
"$SAN" solve -q --no-marginals "$mm1k" > "$tmp/t.txt"
if ! grep -q "^marginals" "$tmp/t.txt" && grep -q "^throughputs" "$tmp/t.txt" &&
   grep -q "^results" "$tmp/t.txt"; then ok "solve --no-marginals: text"
else not_ok "solve --no-marginals: text"; fi
"$SAN" solve -q -f csv --no-throughputs "$mm1k" > "$tmp/t.csv"
if ! grep -q -e "^throughput," -e "^throughput_total," "$tmp/t.csv" && grep -q "^marginal," "$tmp/t.csv"; then
    ok "solve --no-throughputs: CSV"
else not_ok "solve --no-throughputs: CSV"; fi

# replicas that print alike share one line of the text marginals; JSON
# still lists each
cs=$top_srcdir/models/clients_server.san
"$SAN" solve -q "$cs" > "$tmp/cs.txt"
"$SAN" solve -q -f json "$cs" > "$tmp/cs.json"
if grep -q "^  Client\[1\.\.4\]:  t " "$tmp/cs.txt" && ! grep -q "^  Client\[2\]:" "$tmp/cs.txt" &&
   python3 -c "import json,sys; m = json.load(open(sys.argv[1]))['marginals']; assert all('Client[%d]' % i in m for i in range(1, 5))" "$tmp/cs.json"
then ok "solve: alike replicas on one text line (Client[1..4]), each in JSON"
else not_ok "solve: replica grouping in the text marginals"; fi

# Without OMP_WAIT_POLICY (make check sets it) san starts itself again
# to set it: the second start keeps the arguments and standard input.
env -u OMP_WAIT_POLICY "$SAN" solve -q -f csv - < "$mm1k" > "$tmp/omp1.csv" 2>&1
rc1=$?
OMP_WAIT_POLICY=passive "$SAN" solve -q -f csv - < "$mm1k" > "$tmp/omp2.csv" 2>&1
if [ "$rc1" -eq 0 ] && cmp -s "$tmp/omp1.csv" "$tmp/omp2.csv" && grep -q "^result," "$tmp/omp1.csv"
then ok "the restart that sets OMP_WAIT_POLICY keeps arguments and input"
else not_ok "without OMP_WAIT_POLICY: exit $rc1 or another answer"; fi

harness_end
