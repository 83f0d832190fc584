#!/bin/sh
# scripts/ci-sanitize.sh [BUILDDIR] - the whole test suite under
# AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer, in a
# build directory of its own (out of tree: the normal build is untouched).
#
#   BUILDDIR   default: build-asan in the source tree
#
# The tree is set up by scripts/build-tree.sh: a copy of the sources
# when the source tree is configured in place, else BUILDDIR itself.
#
# The sanitizers abort on the first report (ASAN_OPTIONS detect_leaks=1,
# abort_on_error=1; UBSAN_OPTIONS print_stacktrace=1, halt_on_error=1), so a
# test sees a signal; allocator_may_return_null=1 lets a huge malloc fail
# with NULL, as it does without ASan, so the out-of-memory refusals are
# tested too instead of ASan aborting on them.
#
# Environment: CC (default gcc; clang works too), JOBS (default nproc),
# SANITIZE_TESTS (a subset of make check's TESTS, e.g. while developing),
# SAN_CONFIGURE_FLAGS (more configure arguments).  Exit status: that of
# make check (0 when every test passed); the last line is
# "N passed, M failed" with the time taken.

set -u
LC_ALL=C
export LC_ALL

srcdir=$(cd "$(dirname "$0")/.." && pwd) || exit 2
build=${1:-$srcdir/build-asan}
CC=${CC:-gcc}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$(date +%s)

say() { echo "ci-sanitize: $*" >&2; }

# shellcheck source=scripts/build-tree.sh
. "$srcdir/scripts/build-tree.sh"
build_tree "$srcdir" "$build" || exit 2

say "configuring $obj with --enable-sanitizers CC=$CC"
cd "$obj" || exit 2
# shellcheck disable=SC2086
"$configure" --enable-sanitizers CC="$CC" ${SAN_CONFIGURE_FLAGS:-} >configure.log 2>&1 ||
    { tail -n 40 configure.log >&2; say "configure failed (see $obj/config.log)"; exit 2; }

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
# The differential testers judge numbers, which the plain make check does
# at full count; here they look for memory errors on the same code paths,
# so half the random models (the regression sets run whole).  Stop 38's
# CI: 2,051 s of make check under the sanitizers, 4,507 s in all of 5,400.
DIFFTEST_COUNT=${DIFFTEST_COUNT:-2}
KRONTEST_COUNT=${KRONTEST_COUNT:-30}
export DIFFTEST_COUNT KRONTEST_COUNT

say "building ($JOBS jobs)"
make -j"$JOBS" >make.log 2>&1 || { tail -n 60 make.log >&2; say "build failed"; exit 2; }
built=$(date +%s)

say "make check under ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS"
if [ -n "${SANITIZE_TESTS:-}" ]; then
    make check -j"$JOBS" TESTS="$SANITIZE_TESTS"
else
    make check -j"$JOBS"
fi
status=$?
end=$(date +%s)

pass=0
bad=0
if [ -f test-suite.log ]; then
    pass=$(sed -n 's/^# PASS: *//p' test-suite.log | head -1)
    fail=$(sed -n 's/^# FAIL: *//p' test-suite.log | head -1)
    err=$(sed -n 's/^# ERROR: *//p' test-suite.log | head -1)
    bad=$(( ${fail:-0} + ${err:-0} ))
    [ "$status" -eq 0 ] || cat test-suite.log
fi
say "build $((built - start)) s, make check $((end - built)) s, total $((end - start)) s"
echo "${pass:-0} passed, $bad failed (sanitizers)"
[ "$status" -eq 0 ] || exit 1
exit 0
