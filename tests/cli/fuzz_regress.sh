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

harness_limit=${FUZZ_REGRESS_LIMIT:-30}
. "$(dirname "$0")/../lib/harness.sh"
need_san fuzz_regress.sh

# why: the last run's time-out, signal or status
why() {
    w=$(abnormal)
    echo "${w:-exit status $rc}"
    sed -n '1,25p' "$tmp/err" | sed 's/^/    /'
}

# survives NAME ARGS...: san ARGS ends with status 0, 1 or 2 in time
survives() {
    name=$1
    shift
    run "$SAN" "$@" </dev/null
    case $rc in
        0|1|2) ok "$name (exit $rc)" ;;
        *) not_ok "$name: $(why)" ;;
    esac
}

n=0
for f in "$top_srcdir"/tests/regress/* "$top_srcdir"/fuzz/corpus/* \
         "$top_srcdir"/tests/corpus/errors/* "$top_srcdir"/tests/corpus/warnings/*; do
    [ -f "$f" ] || continue
    case $f in
        *.txt|*.md) continue ;;
    esac
    n=$((n + 1))
    rel=${f#"$top_srcdir"/}
    survives "check $rel" check "$f"
    survives "solve $rel" solve --max-states 4000 --time-limit 2 "$f"
done

# replay T FILE: one input through fuzz/replay_T, exit 0 in time
replay() {
    run "$top_builddir/fuzz/replay_$1" "$2" </dev/null
    rel=${2#"$top_srcdir"/}
    if [ "$rc" -eq 0 ]; then
        ok "fuzz_$1 $rel"
    else
        not_ok "fuzz_$1 $rel: $(why)"
    fi
}

for t in gen sweep; do
    if [ ! -x "$top_builddir/fuzz/replay_$t" ]; then
        not_ok "no $top_builddir/fuzz/replay_$t (make check builds it)"
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
    not_ok "no inputs in tests/regress, fuzz/corpus or tests/corpus"
fi

harness_end
