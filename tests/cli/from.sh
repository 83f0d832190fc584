#!/bin/sh
# from.sh - `--from FILE` reads a distribution or says why not
# (issue 34, item 2; tool/from.c):
#
#   1. no row is an error, never the uniform distribution: an empty
#      file, a header alone, blank lines, /dev/null (transient and
#      passage);
#   2. the names of a row are those of the state its index decodes to:
#      "0,s[5],1" is refused with both, and "5,s[5],1" is state 5 (its
#      results are those of --initial '(st queue) == s[5]', computed
#      independently of the file);
#   3. each bad value is refused with its line and its own reason: NaN,
#      inf, -inf, negative, past a double (1e400), above 1, an index
#      that is not a whole number or past the last state, a row of the
#      wrong width, a header that names other automata;
#   4. a good file is read: with names, without, quoted names, CRLF.
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes; the last line is "N passed, M failed".  VERBOSE=1 lists passes.

harness_limit=30
. "$(dirname "$0")/../lib/harness.sh"
need_san from.sh

OMP_NUM_THREADS=1
export OMP_NUM_THREADS
MODEL="$top_srcdir/models/mm1k.san"
F="$tmp/f.csv"

# refused NAME CONTENT WANT [CMD]: exit 2, WANT (a fixed string) on stderr
refused() {
    printf "%b" "$2" > "$F"
    case ${4:-transient} in
    transient) run "$SAN" transient -q -t 1 --from "$F" "$MODEL" ;;
    passage) run "$SAN" passage -q --until '(st queue) == s[9]' --from "$F" "$MODEL" ;;
    esac
    if [ "$rc" -eq 2 ] && grep -qF -- "$3" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "$1"
    else
        not_ok "$1: exit $rc $(abnormal), stderr: $(head -c 300 "$tmp/err"), want '$3'"
    fi
}

# read NAME CONTENT: exit 0
read_ok() {
    printf "%b" "$2" > "$F"
    run "$SAN" transient -q -t 1 --from "$F" "$MODEL"
    if [ "$rc" -eq 0 ] && grep -q "initial .*(--from)" "$tmp/out"; then
        ok "$1"
    else
        not_ok "$1: exit $rc $(abnormal), stderr: $(head -c 300 "$tmp/err")"
    fi
}

# ---- 1. no row ----
for cmd in transient passage; do
    refused "$cmd: empty file" "" "f.csv: no state in it (the file is empty)" $cmd
    refused "$cmd: a header alone" "index,queue,probability\n" "no state in it (a header and no row)" $cmd
    refused "$cmd: blank lines" "\n\n" "no state in it (blank lines only)" $cmd
done
run "$SAN" transient -q -t 1 --from /dev/null "$MODEL"
[ "$rc" -eq 2 ] && grep -qF -- "--from /dev/null: no state in it" "$tmp/err" && ok "/dev/null" \
    || not_ok "/dev/null: exit $rc, stderr: $(head -c 300 "$tmp/err")"
run sh -c "\"$SAN\" transient -q -t 1 --from - - < \"$MODEL\""
[ "$rc" -eq 2 ] && grep -q "standard input cannot hold both" "$tmp/err" && ok "--from - with MODEL -" \
    || not_ok "--from - with MODEL -: exit $rc, stderr: $(head -c 300 "$tmp/err")"

# ---- 2. names against the model ----
refused "0,s[5],1" "index,queue,probability\n0,s[5],1\n" \
    "f.csv:2: state index 0 has queue in s[0], not 's[5]'"
refused "no header, 3,s[4],1" "3,s[4],1\n" "f.csv:1: state index 3 has queue in s[3], not 's[4]'"
printf "index,queue,probability\n5,s[5],1\n" > "$F"
run "$SAN" transient -q -f csv -t 0.5,2 --from "$F" "$MODEL"
cut -d, -f1-5 "$tmp/out" | grep -v '^#' > "$tmp/from.csv"
run "$SAN" transient -q -f csv -t 0.5,2 --initial '(st queue) == s[5]' "$MODEL"
cut -d, -f1-5 "$tmp/out" | grep -v '^#' > "$tmp/initial.csv"
if [ -s "$tmp/from.csv" ] && cmp -s "$tmp/from.csv" "$tmp/initial.csv"; then
    ok "5,s[5],1 is --initial s[5]"
else
    not_ok "5,s[5],1 differs from --initial s[5]: $(head -3 "$tmp/from.csv") / $(head -3 "$tmp/initial.csv")"
fi

# ---- 3. each bad value, its line and its reason ----
refused "nan" "index,queue,probability\n0,s[0],0.5\n1,s[1],nan\n" "f.csv:3: probability 'nan' is NaN"
refused "inf" "0,s[0],inf\n" "f.csv:1: probability 'inf' is infinite"
refused "-inf" "0,s[0],-inf\n" "probability '-inf' is infinite"
refused "negative" "0,s[0],0.5\n1,s[1],-0.25\n" "f.csv:2: probability '-0.25' is negative"
refused "1e400" "0,s[0],1e400\n" "probability '1e400' is too large for a double"
refused "above 1" "0,s[0],1.5\n" "probability '1.5' is more than 1"
refused "not a number" "0,s[0],half\n" "probability 'half' is not a number"
refused "index 1.5" "1.5,s[1],1\n" "state index '1.5' is not a whole number"
refused "index -1" "-1,1\n" "state index '-1' is not a whole number >= 0"
refused "index past the last" "11,1\n" "state index 11 is past the model's last state index, 10"
refused "too many fields" "0,s[0],x,1\n" "f.csv:1: expected 'index,<local states>,probability'"
refused "one field" "0\n" "f.csv:1: expected"
refused "names missing after a header with names" "index,queue,probability\n0,1\n" \
    "f.csv:2: expected 'index,<local states>,probability'"
refused "another automaton" "index,server,probability\n0,s[0],1\n" "its columns are not the model's automata"
refused "an open quote" "0,\"s[0],1\n" "f.csv:1: expected"
refused "passage: nan" "0,s[0],nan\n" "f.csv:1: probability 'nan' is NaN" passage

# ---- 4. good files ----
read_ok "with names" "index,queue,probability\n0,s[0],0.5\n5,s[5],0.5\n"
read_ok "without names" "index,probability\n0,0.5\n5,0.5\n"
read_ok "no header" "0,s[0],0.25\n5,0.75\n"
read_ok "quoted names" "index,\"queue\",probability\n0,\"s[0]\",1\n"
read_ok "CRLF" "index,queue,probability\r\n2,s[2],1\r\n"
read_ok "1e-400 rounds to 0 beside a 1" "0,s[0],1e-400\n5,s[5],1\n"
"$SAN" solve -q --vector "$tmp/pi.csv" "$MODEL" > /dev/null 2>&1
run "$SAN" transient -q -t 1 --from "$tmp/pi.csv" "$MODEL"
[ "$rc" -eq 0 ] && ok "a vector solve --vector wrote" || not_ok "solve's vector: exit $rc: $(head -c 300 "$tmp/err")"

harness_end
