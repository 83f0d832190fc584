#!/bin/sh
# fuzz/run.sh TARGET SECONDS - build a libFuzzer target and run it.
#
#   TARGET    frontend (fuzz/fuzz_frontend.c: any bytes through the front end)
#             solve    (fuzz/fuzz_solve.c: front end plus a capped solve)
#             gen      (fuzz/fuzz_gen.c: bytes as the flags of san gen, the
#                      model through the front end)
#             sweep    (fuzz/fuzz_sweep.c: bytes as the value lists of san
#                      sweep: ranges, lists, the expansion into variants)
#             prism    (fuzz/fuzz_prism.c: bytes as a PRISM model through
#                      san import prism, its .san text through the front end)
#             props    (fuzz/fuzz_props.c: bytes as a property file, parsed
#                      and checked on a small chain)
#   SECONDS   how long to fuzz (libFuzzer -max_total_time)
#
# The target and libsan are compiled with clang
# -fsanitize=fuzzer,address,undefined.  The sources, include directories,
# config.h and libraries come from a configured build tree when there is
# one (FUZZ_BUILDDIR, else the current directory, else the source tree);
# otherwise from Makefile.am with a minimal config.h.  The parser and the
# lexer are always generated here with bison and flex, whatever the trees
# hold.  The fuzzer runs in one process on a copy of its seeds, so the
# repository is not modified: for frontend and solve fuzz/corpus,
# tests/corpus, models and tests/regress; for gen and sweep
# fuzz/corpus-TARGET and tests/regress/TARGET; for prism tests/prism,
# tests/prism/qvbs and the regress folder of its findings (TARGET prism).
#
# Exit status: 0 when the time ran out without a finding, 1 on a crash,
# hang, leak or sanitizer report (the input is kept, see the message),
# 2 when the build fails or the tools are missing.
#
# Environment:
#   FUZZ_WORK      work directory (default ./fuzz-work): objects, binaries,
#                  corpus copies, logs and the inputs of findings
#   FUZZ_BUILDDIR  configured build tree to take the flags from
#   FUZZ_TIMEOUT   seconds one input may take before it counts as a hang (10)
#   FUZZ_FLAGS     extra libFuzzer flags, e.g. "-max_len=4096 -seed=1"
#   FUZZ_INSTALL   0: never apt-get install clang and libclang-rt-14-dev when
#                  missing (default: install them when root, as bootstrap.sh
#                  installs the build's packages)
#   CC_FUZZ        the clang to use (default clang, else clang-14)
#   FUZZ_VERBOSE   1: stream libFuzzer's output instead of keeping it in a log

set -u
LC_ALL=C
export LC_ALL

usage() {
    echo "usage: fuzz/run.sh frontend|solve|gen|sweep|prism|props SECONDS" >&2
    exit 2
}
[ $# -eq 2 ] || usage
target=$1
seconds=$2
# the seeds, the regression inputs and the dictionary of each target
case $target in
    frontend|solve)
        seed_dirs="fuzz/corpus tests/corpus/errors tests/corpus/warnings models tests/regress"
        regress=tests/regress; dict=fuzz/san.dict ;;
    gen|sweep)
        seed_dirs="fuzz/corpus-$target tests/regress/$target"
        regress=tests/regress/$target; dict=fuzz/flags.dict ;;
    prism)
        seed_dirs="tests/prism tests/prism/qvbs tests/regress/prism"
        regress=tests/regress/prism; dict=fuzz/prism.dict ;;
    props)
        seed_dirs="fuzz/corpus-props tests/regress/props"
        regress=tests/regress/props; dict=fuzz/props.dict ;;
    *) usage ;;
esac
case $seconds in
    ''|*[!0-9]*) usage ;;
esac

srcdir=$(cd "$(dirname "$0")/.." && pwd) || exit 2
work=${FUZZ_WORK:-$PWD/fuzz-work}
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)

# ---- tools ----
find_clang() {
    for c in ${CC_FUZZ:-} clang clang-14; do
        if command -v "$c" >/dev/null 2>&1; then
            # libFuzzer is in compiler-rt (libclang-rt-14-dev on Debian)
            if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
                "$c" -x c -fsanitize=fuzzer -o "$work/probe" - >/dev/null 2>&1; then
                rm -f "$work/probe"
                CLANG=$c
                return 0
            fi
        fi
    done
    return 1
}

if ! find_clang; then
    if [ "${FUZZ_INSTALL:-1}" != 0 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "fuzz: installing clang libclang-rt-14-dev" >&2
        apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
    fi
    if ! find_clang; then
        echo "fuzz: clang with libFuzzer not found: apt-get install clang libclang-rt-14-dev" >&2
        exit 2
    fi
fi
for tool in bison flex; do
    command -v $tool >/dev/null 2>&1 || { echo "fuzz: $tool not found: apt-get install $tool" >&2; exit 2; }
done

# ---- sources and flags: what the build puts in libsan ----
gen=$work/generated
obj=$work/obj-$target
rm -rf "$obj" "$gen"
mkdir -p "$obj" "$gen" || exit 2

bdir=${FUZZ_BUILDDIR:-}
if [ -z "$bdir" ]; then
    for d in "$PWD" "$srcdir"; do
        if [ -f "$d/Makefile" ] && [ -f "$d/config.status" ]; then
            bdir=$d
            break
        fi
    done
fi

if [ -n "$bdir" ]; then
    bdir=$(cd "$bdir" && pwd) || exit 2
    {
        echo 'fuzz-print-vars:'
        # libsan's sources: those of its layer libraries (libsan_base.la,
        # ...), after configure's conditionals
        printf '\t@echo '\''SOURCES=%s'\''\n' \
            '$(foreach v,$(filter libsan_%_la_SOURCES,$(.VARIABLES)),$($(v)))'
        printf '\t@echo '\''CPPFLAGS=$(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS)'\''\n'
        printf '\t@echo '\''LIBS=$(libsan_libs) $(LIBS)'\''\n'
    } > "$work/vars.mk"
    # -o: never remake the Makefile (or anything else) just to read it
    if ! make -s --no-print-directory -C "$bdir" -f Makefile -f "$work/vars.mk" \
        -o Makefile -o Makefile.in -o config.status -o config.h fuzz-print-vars >"$work/vars" 2>&1; then
        cat "$work/vars" >&2
        echo "fuzz: cannot read the variables of $bdir/Makefile" >&2
        exit 2
    fi
    sources=$(sed -n 's/^SOURCES=//p' "$work/vars")
    CPPFLAGS="-I$gen $(sed -n 's/^CPPFLAGS=//p' "$work/vars")"
    libs=$(sed -n 's/^LIBS=//p' "$work/vars")
    from="the build in $bdir"
else
    sources=$(awk '
        /^libsan_[a-z]*_la_SOURCES[ \t]*=/ { on = 1; sub(/^[^=]*=/, "") }
        on {
            cont = sub(/\\[ \t]*$/, "")
            n = split($0, w, /[ \t]+/)
            for (i = 1; i <= n; i++) if (w[i] ~ /\.[cyl]$/) print w[i]
            if (!cont) on = 0
        }' "$srcdir/Makefile.am")
    # config.h: only the version is read from it
    version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac")
    {
        echo "#define PACKAGE_VERSION \"${version:-0}\""
        echo "#define VERSION \"${version:-0}\""
        echo "#define PACKAGE \"san\""
    } > "$gen/config.h"
    # internal headers are named with their folder: "solver/space/state_space.h"
    CPPFLAGS="-D_GNU_SOURCE -I$gen -I$srcdir/include -I$srcdir"
    [ -d /usr/include/suitesparse ] && CPPFLAGS="$CPPFLAGS -I/usr/include/suitesparse"
    if ! echo '#include <cblas.h>' | "$CLANG" $CPPFLAGS -E -x c - >/dev/null 2>&1; then
        CPPFLAGS="$CPPFLAGS -I/usr/include/openblas"
    fi
    libs="-lumfpack -lopenblas -lm"
    # the plots: sweep/plot.c with cairo, else sweep/plot_none.c (the
    # "if HAVE_CAIRO" of Makefile.am, which the awk above does not read)
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists cairo; then
        CPPFLAGS="$CPPFLAGS $(pkg-config --cflags cairo)"
        libs="$libs $(pkg-config --libs cairo)"
        sources="$sources sweep/plot.c"
    else
        sources="$sources sweep/plot_none.c"
    fi
    from="Makefile.am (no configured build found)"
fi
if [ -z "$sources" ]; then
    echo "fuzz: no libsan_*_la_SOURCES found" >&2
    exit 2
fi

SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-g -O1 -Wno-unused-command-line-argument $SANFLAGS"

echo "fuzz: building fuzz_$target with $CLANG, flags from $from" >&2
# include paths from a Makefile may be relative to its directory
cd "${bdir:-$srcdir}" || exit 2
objs=""
for s in $sources; do
    base=$(echo "$s" | tr '/' '_')
    base=${base%.*}
    case $s in
        *.y)
            # lang/parser.y -> $gen/lang/parser.c and parser.h, gen/
            # prism_parser.y -> its .c and .h beside it: the folder-qualified
            # names the lexers include ("lang/parser.h"), under -I$gen
            mkdir -p "$gen/$(dirname "$s")"
            c=$gen/${s%.y}.c
            bison -d -Wno-yacc -o "$c" "$srcdir/$s" || exit 2 ;;
        *.l)
            mkdir -p "$gen/$(dirname "$s")"
            c=$gen/${s%.l}.c
            flex -o "$c" "$srcdir/$s" || exit 2 ;;
        *.c)
            c=$srcdir/$s ;;
        *)
            continue ;;
    esac
    "$CLANG" $CPPFLAGS $CFLAGS -fsanitize=fuzzer-no-link -c "$c" -o "$obj/$base.o" || exit 2
    objs="$objs $obj/$base.o"
done
# the report page's template, built into libsan from page.html, page.css
# and page.js (nodist_libsan_report_la_SOURCES = report/templates.c, made by
# scripts/embed.sh: not in the list above)
t=$srcdir/report
sh "$srcdir/scripts/embed.sh" "$t/page.html" "$t/page.css" "$t/page.js" > "$gen/templates.c" \
    || exit 2
"$CLANG" $CPPFLAGS $CFLAGS -fsanitize=fuzzer-no-link -c "$gen/templates.c" \
    -o "$obj/report_templates.o" || exit 2
objs="$objs $obj/report_templates.o"

bin=$work/fuzz_$target
if ! "$CLANG" $CPPFLAGS $CFLAGS -fsanitize=fuzzer "$srcdir/fuzz/fuzz_$target.c" $objs $libs \
    -o "$bin" 2>"$work/link.log"; then
    cat "$work/link.log" >&2
    exit 2
fi
cd "$work" || exit 2

# ---- corpus: a copy of the seeds and of the regression inputs ----
# The seeds live in one copy each: the diagnostics corpus of the tests
# (tests/corpus/), the bundled models, the fuzzers' past findings
# (tests/regress/), and fuzz/corpus/ for what exists nowhere else (PEPS
# examples, generated models).  Each is copied under its folder's name,
# so that equal file names from two folders do not collide.
corpus=$work/corpus-$target
rm -rf "$corpus"
mkdir -p "$corpus" || exit 2
for d in $seed_dirs; do
    for f in "$srcdir/$d"/*; do
        [ -f "$f" ] || continue
        case $f in
            *.txt|*.md) ;;
            *) cp "$f" "$corpus/$(basename "$d")-$(basename "$f")" ;;
        esac
    done
done
artifacts=$work/artifacts-$target
mkdir -p "$artifacts" || exit 2

log=$work/fuzz_$target.log
echo "fuzz: running fuzz_$target for $seconds s on $(ls "$corpus" | wc -l) seeds (log: $log)" >&2
set -- -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 -dict="$srcdir/$dict" \
    ${FUZZ_FLAGS:-} "$corpus"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if [ "${FUZZ_VERBOSE:-0}" = 1 ]; then
    "$bin" "$@" 2>&1 | tee "$log"
    grep -q '^Done [0-9]* runs' "$log"
    status=$?
else
    "$bin" "$@" >"$log" 2>&1
    status=$?
fi

if [ $status -eq 0 ]; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz: fuzz_$target: no finding in $seconds s (${runs:-?} runs)" >&2
    exit 0
fi
# A finding: show the report and say how to keep it.
tail -n 80 "$log" >&2
found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
echo >&2
echo "fuzz: fuzz_$target FAILED (status $status)" >&2
if [ -n "$found" ]; then
    echo "fuzz: input: $found" >&2
    echo "fuzz: reproduce with: $bin $found" >&2
    case $target in
        gen|sweep|props) keep=$regress/NAME ;;
        *) keep=$regress/NAME.san ;;
    esac
    echo "fuzz: keep it as a regression test: cp $found $keep" >&2
    echo "      and say what it triggered in $regress/NAME.txt" >&2
fi
exit 1
