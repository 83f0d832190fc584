# harness.sh - what the shell tests share (sourced, not run); the Python
# tests' is santest.py beside it.
#
# A test sources it from its own folder's sibling (in tests/cli/:
# . "$(dirname "$0")/../lib/harness.sh"), having set, optionally,
# harness (names its temporary directory; the test's name by default)
# and harness_limit (seconds a command may take; 10 by default).  It gets:
#   top_srcdir, top_builddir  the trees (make check sets them; by default
#                        the checkout holding the test);
#   SAN, SHARED_MODELS   the binary and the public models;
#   $tmp                 a temporary directory, removed on exit;
#   ok / not_ok MSG      count a check (VERBOSE=1 lists the passes);
#   check NAME CMD...    a check that passes when CMD exits 0 (its output
#                        shown when it does not);
#   run CMD...           output in $tmp/out and $tmp/err, status in $rc;
#   abnormal             describes a time-out or a signal of the last run;
#   exit_why STATUS      why the last run did not end with STATUS in time;
#   expect_exit STATUS NAME CMD...  run: a check that it ends with STATUS;
#   refused NAME TEXT CMD...  run: a check that it exits 2 with TEXT (a
#                        fixed string) on stderr;
#   need_san NAME        fails the whole test when the binary is missing;
#   harness_plots        one thread per solve, fontconfig's cache no leak;
#   harness_lump_off     SAN solves and checks with --lump off;
#   harness_end          prints "N passed, M failed"; exit 1 on a failure.

LC_ALL=C
export LC_ALL

if [ -z "${top_srcdir:-}" ]; then
    top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
fi
top_builddir=${top_builddir:-$top_srcdir}
SAN=${SAN:-$top_srcdir/san}
SHARED_MODELS=${SHARED_MODELS:-$top_srcdir/../shared/models}

if [ -z "${harness:-}" ]; then
    harness=$(basename "$0" .sh)
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/san-$harness.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

pass=0
fail=0

ok() {
    pass=$((pass + 1))
    if [ -n "${VERBOSE:-}" ]; then
        echo "ok - $*"
    fi
}

not_ok() {
    fail=$((fail + 1))
    echo "FAIL - $*"
}

# check NAME CMD...: ok when CMD exits 0, else its first lines of output
check() {
    check_name=$1
    shift
    if "$@" > "$tmp/check.out" 2>&1; then
        ok "$check_name"
    else
        not_ok "$check_name"
        sed 's/^/  /' "$tmp/check.out" | head -20
    fi
}

harness_end() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
}

if command -v timeout >/dev/null 2>&1; then
    LIMIT="timeout -k 5 ${harness_limit:-10}"
else
    LIMIT=""
fi

run() {
    $LIMIT "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

abnormal() {
    if [ -n "$LIMIT" ] && [ "$rc" -eq 124 ]; then
        echo "timed out after ${harness_limit:-10} s"
    elif [ "$rc" -ge 128 ]; then
        echo "killed by signal $((rc - 128))"
    fi
}

# exit_why STATUS: why the last run did not end with STATUS in time (and
# the first lines of its stderr); nothing when it did
exit_why() {
    why=$(abnormal)
    if [ -n "$why" ]; then
        echo "$why"
    elif [ "$rc" -ne "$1" ]; then
        echo "exit status $rc, expected $1"
        sed -n '1,3s/^/    | /p' "$tmp/err"
    fi
}

# expect_exit STATUS NAME CMD...: CMD ends with STATUS, in time
expect_exit() {
    want=$1
    name=$2
    shift 2
    run "$@"
    why=$(exit_why "$want")
    if [ -n "$why" ]; then
        not_ok "$name: $why"
    else
        ok "$name"
    fi
}

# refused NAME TEXT CMD...: exit 2 and TEXT (fixed string) on stderr
refused() {
    name=$1
    text=$2
    shift 2
    run "$@"
    if [ "$rc" -eq 2 ] && grep -q -F -e "$text" "$tmp/err"; then
        ok "$name"
    else
        not_ok "$name: exit $rc $(abnormal), expected 2 with '$text' on stderr"
        sed -n '1,3s/^/    | /p' "$tmp/err"
    fi
}

need_san() {
    # an absolute path: tests run it from their own directories
    # (SAN=./san once broke cli.sh's "check -- -dash.san" run in $tmp)
    case $SAN in
        /*) ;;
        */*) [ -x "$SAN" ] && SAN=$(cd "$(dirname "$SAN")" && pwd)/$(basename "$SAN") ;;
    esac
    if [ ! -x "$SAN" ]; then
        echo "FAIL - $1: no san binary at '$SAN' (set SAN)"
        echo "0 passed, 1 failed"
        exit 1
    fi
}

# harness_plots: single-threaded solves (a sweep runs each variant on
# one thread: its comparisons with san solve are bit for bit), and under
# AddressSanitizer fontconfig's process-long cache (--plot) is not ours.
harness_plots() {
    OMP_NUM_THREADS=1
    export OMP_NUM_THREADS
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/cli/sweep_lsan.supp"
    export LSAN_OPTIONS
}

# harness_lump_off: SAN becomes a wrapper that runs solve and check with
# --lump off, for the tests of the solver's own paths on the models as
# written (big symmetric spaces, their memory and time limits); lumping
# itself is tested in lump.sh.
harness_lump_off() {
    lump_real=$SAN
    SAN=$tmp/san-lump-off
    cat > "$SAN" <<EOS
#!/bin/sh
[ \$# -eq 0 ] && exec "$lump_real"
cmd=\$1
shift
case \$cmd in solve|check) exec "$lump_real" "\$cmd" --lump off "\$@" ;; esac
exec "$lump_real" "\$cmd" "\$@"
EOS
    chmod +x "$SAN"
    export SAN
}
