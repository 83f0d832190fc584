#!/bin/sh
# overwrite.sh - no output option may replace an input (issue 34, item 1):
# every subcommand x every output flag pointed at the model (by its own
# name, ./name, an absolute path, a symbolic link, a link to a link, a
# hard link), at the distribution of --from, at standard input, and at
# each of PRISM's files; each must exit 2 before anything is written,
# with a message naming both files, and leave the input byte for byte as
# it was, with no temporary file beside it.  Each flag also writes a new
# file (exit 0): the refusal is the clash, not the flag.  The flags are
# found in every subcommand's --help (an option taking FILE or BASE):
# one not tested here fails the test, so that a new output flag cannot
# escape the check.
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes; the last line is "N passed, M failed".  VERBOSE=1 lists passes.

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"
need_san overwrite.sh

OMP_NUM_THREADS=1
export OMP_NUM_THREADS
# Under AddressSanitizer: fontconfig's process-long cache (--plot) is not
# ours (as plot.sh).
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/cli/sweep_lsan.supp"
export LSAN_OPTIONS
cd "$tmp" || exit 1
cp "$top_srcdir/models/mm1k.san" m.san
cp m.san pristine.san
ln -s m.san link.san
ln -s link.san link2.san
ln m.san hard.san
"$SAN" solve --vector d.csv m.san >/dev/null 2>&1 || not_ok "setup: solve --vector d.csv"
cp d.csv pristine.csv

# What the test covers: "CMD FLAG" for every output flag, and the flags
# that are inputs (checked against, never written).
tested="print --output|solve --vector|transient --vector|transient --plot|passage --plot|\
sweep --output|sweep --plot|export --output|report --output"
inputs="transient --from|passage --from|map --batch|props --props"
# commands with outputs that read no file (templates only): a model's
# name where the template goes is refused as no template
no_input="gen --output|grain --plot|size-buffer --plot"

# intact WHAT: the model and the distribution as they were, nothing
# left beside them but the files of the setup and the controls
intact() {
    if cmp -s m.san pristine.san && cmp -s d.csv pristine.csv \
       && [ -z "$(ls -A | grep '^\..*\.tmp$')" ]; then
        ok "$1: inputs intact"
    else
        not_ok "$1: an input changed or a temporary file was left"
        cp pristine.san m.san
        cp pristine.csv d.csv
    fi
}

# refused NAME OUT IN CMD...: exit 2, a message naming OUT and IN
refused() {
    r_name=$1 r_out=$2 r_in=$3
    shift 3
    run "$SAN" "$@"
    if [ "$rc" -eq 2 ] && grep -q "'$r_out' is the input '$r_in'" "$tmp/err"; then
        ok "$r_name: refused"
    else
        not_ok "$r_name: exit $rc $(abnormal), stderr: $(head -c 300 "$tmp/err")"
    fi
    intact "$r_name"
}

# written NAME FILE CMD...: the flag writes a new file
written() {
    w_name=$1 w_file=$2
    shift 2
    rm -f "$w_file"
    run "$SAN" "$@"
    if [ "$rc" -eq 0 ] && [ -s "$w_file" ]; then
        ok "$w_name: writes a new file"
    else
        not_ok "$w_name: a new file: exit $rc $(abnormal), stderr: $(head -c 300 "$tmp/err")"
    fi
    rm -f "$w_file"
}

# every_name NAME ARGS-BEFORE -- ARGS-AFTER: the output named each way
# the model can be named; @ in the arguments stands for it
every_name() {
    e_name=$1
    shift
    for out in m.san ./m.san "$tmp/m.san" link.san link2.san hard.san; do
        set_args "$out" "$@"
        # shellcheck disable=SC2086
        eval refused "\"$e_name -> $out\"" "\"$out\"" m.san $args
    done
}

# set_args OUT ARGS...: args with each @ replaced by OUT, quoted for eval
set_args() {
    s_out=$1
    shift
    args=
    for a in "$@"; do
        [ "$a" = @ ] && a=$s_out
        args="$args '$a'"
    done
}

until_expr='(st queue) == s[5]'

# ---- the model as the input, every output flag of every subcommand ----
every_name "print -o" print -o @ m.san
every_name "solve --vector" solve --vector @ m.san
every_name "transient --vector" transient -t 1 --vector @ m.san
every_name "transient --plot" transient -t 1 --plot @ m.san
every_name "passage --plot" passage --until "$until_expr" -t 1,2 --plot @ m.san
every_name "sweep -o" sweep m.san -D lambda=1,2 -o @
every_name "sweep --plot" sweep m.san -D lambda=1,2 --plot @ --x lambda --y busy
for fmt in mtx states dot dot-reach; do
    every_name "export $fmt -o" export -f "$fmt" -o @ m.san
done
written "print -o" new.san print -o new.san m.san
written "solve --vector" new.csv solve --vector new.csv m.san
written "transient --vector" new.csv transient -t 1 --vector new.csv m.san
written "transient --plot" new.svg transient -t 1 --plot new.svg m.san
written "passage --plot" new.svg passage --until "$until_expr" -t 1,2 --plot new.svg m.san
written "sweep -o" new.txt sweep m.san -D lambda=1,2 -o new.txt
# a template's name is no file: the same sweep run twice writes ms twice
# (the second run found the first one's ms and refused it)
rm -f ms
for k in 1 2; do
    run "$SAN" sweep ms --mode async --slaves 2 -o ms -f csv
    if [ "$rc" -eq 0 ] && grep -q "^variant," ms 2>/dev/null; then ok "sweep ms -o ms, run $k"
    else not_ok "sweep ms -o ms, run $k: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi
done
rm -f ms
# san report: the study file, and the models its analyses read
every_name "report -o" report m.san -o @
printf '[a]\nrun = sweep m.san -D lambda=1,2\n[b]\nrun = compare "m.san -D lambda=3" m.san\n' > s.study
refused "report -o -> a model of the study" m.san m.san report s.study -o m.san
written "report -o" new.html report s.study -o new.html
rm -f s.study
written "sweep --plot" new.svg sweep m.san -D lambda=1,2 --plot new.svg --x lambda --y busy
for fmt in mtx states dot dot-reach; do
    written "export $fmt -o" new.out export -f "$fmt" -o new.out m.san
done

# ---- the distribution of --from as the input ----
refused "transient --vector onto --from" d.csv d.csv transient -t 1 --from d.csv --vector d.csv m.san
ln -s d.csv dlink.csv
refused "transient --plot onto --from" dlink.csv d.csv transient -t 1 --from d.csv --plot dlink.csv m.san
refused "passage --plot onto --from" d.csv d.csv passage --until "$until_expr" -t 1 --from d.csv \
    --plot d.csv m.san

# ---- standard input as the input ----
run_stdin() {
    $LIMIT "$SAN" "$@" < m.san >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
run_stdin solve --vector m.san -
if [ "$rc" -eq 2 ] && grep -q "'m.san' is the input 'standard input'" "$tmp/err"; then
    ok "solve --vector onto standard input: refused"
else
    not_ok "solve --vector onto standard input: exit $rc, stderr: $(head -c 300 "$tmp/err")"
fi
intact "solve --vector onto standard input"
# and a report on standard output, when that is the model (>> m.san)
$LIMIT "$SAN" print -o - m.san >>m.san 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "is the input 'm.san'" "$tmp/err"; then
    ok "print -o - appended to the model: refused"
else
    not_ok "print -o - appended to the model: exit $rc, stderr: $(head -c 300 "$tmp/err")"
fi
intact "print -o - appended to the model"

# ---- PRISM: BASE.tra, .sta, .lab, BASEk.srew, .map.csv ----
for file in m.tra m.sta m.lab m1.srew m6.srew m.map.csv; do
    cp m.san "$file"
    cp m.san pristine.prism
    run "$SAN" export -f prism -o m "$file"
    others=$(ls m.tra m.sta m.lab m.map.csv m[0-9]*.srew 2>/dev/null | grep -vx "$file")
    if [ "$rc" -eq 2 ] && grep -q "'$file' is the input '$file'" "$tmp/err" \
       && cmp -s "$file" pristine.prism && [ -z "$others" ]; then
        ok "export prism -o m onto $file: refused, nothing written"
    else
        not_ok "export prism -o m onto $file: exit $rc, written: $others, stderr: $(head -c 300 "$tmp/err")"
    fi
    rm -f m.tra m.sta m.lab m.map.csv m[0-9]*.srew pristine.prism
done
written "export prism -o" p.tra export -f prism -o p m.san

# ---- san import (PRISM), where the binary has it ----
if "$SAN" import --help >/dev/null 2>&1; then
    printf 'ctmc\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> 1 : (s\047=1);\n  [] s=1 -> 2 : (s\047=0);\nendmodule\n' > p.prism
    cp p.prism pristine.prism
    for out in p.prism ./p.prism "$tmp/p.prism"; do
        refused "import -o -> $out" "$out" p.prism import prism -o "$out" p.prism
        cmp -s p.prism pristine.prism || { not_ok "import -o $out: the PRISM model changed"; cp pristine.prism p.prism; }
    done
    written "import -o" new.san import prism -o new.san p.prism
    tested="$tested|import --output"
fi

# ---- commands that read no file ----
for cmd in "gen m.san -o m.san" "grain m.san --slices-per-node 1..2 --plot m.san" \
           "size-buffer m.san --plot m.san"; do
    # shellcheck disable=SC2086
    run "$SAN" $cmd
    [ "$rc" -eq 2 ] && [ -s "$tmp/err" ] && ok "$cmd: no template, exit 2" \
        || not_ok "$cmd: exit $rc $(abnormal)"
    intact "$cmd"
done

# ---- not a clash: devices, and a file nobody reads ----
run "$SAN" print -o /dev/null m.san
[ "$rc" -eq 0 ] && ok "print -o /dev/null" || not_ok "print -o /dev/null: exit $rc"
run "$SAN" transient -t 1 --from /dev/stdin --vector new.csv m.san < d.csv
[ "$rc" -eq 0 ] && ok "transient --from /dev/stdin (a file) --vector new.csv" \
    || not_ok "transient --from /dev/stdin --vector new.csv: exit $rc: $(head -c 300 "$tmp/err")"
intact "controls"

# ---- every output flag is tested ----
# the subcommands from san --help; their options taking FILE or BASE
subs=$("$SAN" --help | awk '/^subcommands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
[ -n "$subs" ] || not_ok "no subcommands in san --help"
for sub in $subs; do
    "$SAN" "$sub" --help 2>/dev/null \
        | sed -n 's/^ *\(-., \)\{0,1\}\(--[a-z-]*\) \(FILE\|BASE\).*/\2/p' | sort -u \
        | while read -r flag; do
            case "|$tested|$inputs|$no_input|" in
            *"|$sub $flag|"*) echo "ok $sub $flag" ;;
            *) echo "untested $sub $flag" ;;
            esac
        done
done > flags.txt
if grep -q '^ok ' flags.txt && ! grep -q '^untested' flags.txt; then
    ok "every FILE flag of every subcommand is in the table ($(grep -c '^ok' flags.txt) flags)"
else
    not_ok "flags the table misses: $(grep '^untested' flags.txt | tr '\n' ' ')"
fi
# the table's flags exist (a renamed flag would make the sweep test nothing)
for entry in $(echo "$tested|$inputs|$no_input" | tr ' |' '_ '); do
    e=$(echo "$entry" | tr '_' ' ')
    grep -q "^ok $e\$" flags.txt && ok "'$e' exists" || not_ok "'$e' is in no --help"
done

harness_end
