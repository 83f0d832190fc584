# harness.sh - what the shell tests share (sourced, not run).
#
# Before sourcing, a test sets top_srcdir (or leaves it to the caller's
# environment), harness (names its temporary directory) and, optionally,
# harness_limit (seconds a command may take; 10 by default).  It gets:
#   SAN, SHARED_MODELS   the binary and the public models;
#   $tmp                 a temporary directory, removed on exit;
#   ok / not_ok MSG      count a check (VERBOSE=1 lists the passes);
#   run CMD...           output in $tmp/out and $tmp/err, status in $rc;
#   abnormal             describes a time-out or a signal of the last run;
#   need_san NAME        fails the whole test when the binary is missing.
# The test ends with: echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]

LC_ALL=C
export LC_ALL

SAN=${SAN:-$top_srcdir/san}
SHARED_MODELS=${SHARED_MODELS:-$top_srcdir/../shared/models}

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
