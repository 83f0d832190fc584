#!/bin/sh
# scripts/ci-sanitize.sh [BUILDDIR] - the whole test suite under
# AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer, in a
# build directory of its own (out of tree: the normal build is untouched).
#
#   BUILDDIR   default: build-asan in the source tree
#
# configure refuses an out-of-tree build while the source tree holds an
# in-tree configuration (config.status), as it does after bootstrap.sh.
# Then the sources git sees (tracked and untracked, not ignored) are copied
# to BUILDDIR/src, with BUILDDIR/shared pointing at the shared/ beside the
# tree, and BUILDDIR/obj is configured from there: still a VPATH build.
# Otherwise BUILDDIR itself is configured with the tree's configure.
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

mkdir -p "$build" || exit 2
build=$(cd "$build" && pwd)

if [ ! -x "$srcdir/configure" ]; then
    say "generating configure (autoreconf -fi)"
    (cd "$srcdir" && autoreconf -fi) || exit 2
fi

if [ -f "$srcdir/config.status" ]; then
    # An in-tree configuration: VPATH would pick up its objects.  Build
    # from a pristine copy of the sources instead.
    if ! git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        say "$srcdir is configured in tree and is not a git checkout;"
        say "run 'make distclean' there first, or use a git checkout"
        exit 2
    fi
    src=$build/src
    obj=$build/obj
    rm -rf "$src" "$obj"
    mkdir -p "$src" "$obj" || exit 2
    case $build in
        "$srcdir"/*) skip=${build#"$srcdir"/}/ ;;
        *) skip=/nonexistent/ ;;
    esac
    say "copying the sources to $src (the tree is configured in place)"
    (cd "$srcdir" && git ls-files --cached --others --exclude-standard) |
        grep -v "^$skip" | grep -v '^fuzz-work/' > "$build/files" || exit 2
    # files listed by git but deleted in the work tree are skipped
    while IFS= read -r f; do
        [ -f "$srcdir/$f" ] && printf '%s\n' "$f"
    done < "$build/files" > "$build/files.present"
    tar -C "$srcdir" -cf - -T "$build/files.present" | tar -C "$src" -xf - || exit 2
    rm -f "$build/files" "$build/files.present"
    # the tests find the shared models at $top_srcdir/../shared/models
    if [ -d "$srcdir/../shared" ]; then
        rm -f "$build/shared"
        ln -s "$srcdir/../shared" "$build/shared"
    fi
    (cd "$src" && autoreconf -fi >"$build/autoreconf.log" 2>&1) ||
        { cat "$build/autoreconf.log" >&2; exit 2; }
    configure=../src/configure
else
    obj=$build
    configure=$srcdir/configure
fi

say "configuring $obj with --enable-sanitizers CC=$CC"
cd "$obj" || exit 2
# shellcheck disable=SC2086
"$configure" --enable-sanitizers CC="$CC" ${SAN_CONFIGURE_FLAGS:-} >configure.log 2>&1 ||
    { tail -n 40 configure.log >&2; say "configure failed (see $obj/config.log)"; exit 2; }

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

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
