#!/bin/sh
# fuzz_regress.sh - every input the fuzzers found a bug with (tests/regress/)
# and every seed of their corpus (fuzz/corpus/, tests/corpus/) through the
# `san` command:
#
#     san check FILE
#     san solve --max-states 4000 --time-limit 2 FILE
#
# must each end with exit status 0, 1 or 2 (never a signal, never a
# sanitizer abort) within 30 s (a hang detector: check of
# peps-tss.san takes 0.4 s of CPU, but over 10 s of wall at load 20;
# FUZZ_REGRESS_LIMIT sets it).  tests/regress/NAME.txt says what NAME.*
# triggered; the .txt files themselves are not inputs.
#
# The targets of the flag parsers, fuzz_gen and fuzz_sweep, replay their
# seeds (fuzz/corpus-gen, fuzz/corpus-sweep) and findings
# (tests/regress/gen, tests/regress/sweep) through their own checks,
# built without libFuzzer (fuzz/replay_gen, fuzz/replay_sweep): each input
# must end with exit status 0 within the same limit.
#
# Environment: SAN (the san binary), top_srcdir, top_builddir (where the
# replay programs are; default top_srcdir).  Exit 0 when everything
# passes, 1 otherwise; the last line is "N passed, M failed".  VERBOSE=1
# also lists the checks that pass.

LC_ALL=C
export LC_ALL

if [ -z "${top_srcdir:-}" ]; then
    top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
fi
SAN=${SAN:-$top_srcdir/san}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/san-fuzzreg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

pass=0
fail=0

if command -v timeout >/dev/null 2>&1; then
    LIMIT="timeout -k 5 ${FUZZ_REGRESS_LIMIT:-30}"
else
    LIMIT=""
fi

# run NAME ARGS...: status 0, 1 or 2 in time, else a failure with stderr
run() {
    name=$1
    shift
    $LIMIT "$SAN" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    case $st in
        0|1|2)
            pass=$((pass + 1))
            [ -n "${VERBOSE:-}" ] && echo "ok - $name (exit $st)"
            ;;
        *)
            fail=$((fail + 1))
            if [ $st -eq 124 ] || [ $st -eq 137 ]; then
                why="did not finish within ${FUZZ_REGRESS_LIMIT:-30} s"
            elif [ $st -gt 128 ]; then
                why="killed by signal $((st - 128))"
            else
                why="exit status $st"
            fi
            echo "FAIL - $name: $why"
            sed -n '1,25p' "$tmp/err" | sed 's/^/    /'
            ;;
    esac
    return 0
}

if [ ! -x "$SAN" ]; then
    echo "FAIL - no san binary at $SAN"
    echo "0 passed, 1 failed"
    exit 1
fi

n=0
for f in "$top_srcdir"/tests/regress/* "$top_srcdir"/fuzz/corpus/* \
         "$top_srcdir"/tests/corpus/errors/* "$top_srcdir"/tests/corpus/warnings/*; do
    [ -f "$f" ] || continue
    case $f in
        *.txt|*.md) continue ;;
    esac
    n=$((n + 1))
    rel=${f#"$top_srcdir"/}
    run "check $rel" check "$f"
    run "solve $rel" solve --max-states 4000 --time-limit 2 "$f"
done

# replay T FILE: one input through fuzz/replay_T, exit 0 in time
replay() {
    $LIMIT "$top_builddir/fuzz/replay_$1" "$2" </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    rel=${2#"$top_srcdir"/}
    if [ $st -eq 0 ]; then
        pass=$((pass + 1))
        [ -n "${VERBOSE:-}" ] && echo "ok - fuzz_$1 $rel"
    else
        fail=$((fail + 1))
        echo "FAIL - fuzz_$1 $rel: exit status $st"
        sed -n '1,25p' "$tmp/err" | sed 's/^/    /'
    fi
    return 0
}

top_builddir=${top_builddir:-$top_srcdir}
for t in gen sweep; do
    if [ ! -x "$top_builddir/fuzz/replay_$t" ]; then
        fail=$((fail + 1))
        echo "FAIL - no $top_builddir/fuzz/replay_$t (make check builds it)"
        continue
    fi
    for f in "$top_srcdir/fuzz/corpus-$t"/* "$top_srcdir/tests/regress/$t"/*; do
        [ -f "$f" ] || continue
        case $f in
            *.txt) continue ;;
        esac
        n=$((n + 1))
        replay $t "$f"
    done
done

if [ $n -eq 0 ]; then
    fail=$((fail + 1))
    echo "FAIL - no inputs in tests/regress, fuzz/corpus or tests/corpus"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
