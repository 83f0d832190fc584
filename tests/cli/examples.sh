#!/bin/sh
# examples.sh - every example the documentation shows runs (issue 15: the
# example of `san sweep --help` swept a domain and failed).
#
# The examples are extracted, not listed here, so that a new one is tested
# the day it is written:
#   - `san SUBCOMMAND --help`, every subcommand `san --help` lists: the
#     lines "  san ..." (two spaces), with their continuation lines ("\"
#     at the end);
#   - README.md: the indented lines with "./san", from "./san" on;
#   - doc/san.1: the lines of its EXAMPLES section;
#   - doc/san.5: the model of its EXAMPLE section, checked.
# Each runs with sh -c in a scratch directory that has `san` on the PATH
# and as ./san, the bundled models/ and a model.san (the name san(1)
# uses).  An example passes when it exits 0 (and the files it names with
# -o, --vector, --plot are written), or when it is still running after
# EXAMPLE_LIMIT seconds (default 10) without a word on stderr: every
# usage error comes before the first solve, and the long ones (a sweep
# of 36 variants, a buffer sizing) would take minutes here.  A --plot in
# a build without cairo, or one that pipes into a missing tool (dot), is
# skipped, with a note.
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes; the last line is "N passed, M failed".  VERBOSE=1 lists passes.

harness_limit=${EXAMPLE_LIMIT:-10}
. "$(dirname "$0")/../lib/harness.sh"
need_san examples.sh

# ---- the scratch directory the examples run in ----
san_abs=$(cd "$(dirname "$SAN")" && pwd)/$(basename "$SAN")
mkdir -p "$tmp/bin" "$tmp/run" || exit 1
printf '#!/bin/sh\nexec "%s" "$@"\n' "$san_abs" > "$tmp/bin/san"
chmod +x "$tmp/bin/san"
cp "$tmp/bin/san" "$tmp/run/san"
ln -s "$top_srcdir/models" "$tmp/run/models"
cp "$top_srcdir/models/mm1k.san" "$tmp/run/model.san"
PATH=$tmp/bin:$PATH
export PATH
# Under AddressSanitizer: fontconfig's process-long cache (the plots'
# text) is not ours.
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/cli/sweep_lsan.supp"
export LSAN_OPTIONS

# ---- extraction: one example a line in $tmp/examples, "SOURCE|COMMAND" ----
# examples SOURCE START FROM < TEXT: the lines matching START, joined with
# their continuation lines ("\" at the end), from the match of FROM on
examples() {
    awk -v src="$1" -v start="$2" -v from="$3" '
        on {
            sub(/^[ \t]+/, "")
            line = line " " $0
        }
        !on && $0 ~ start { on = 1; line = $0 }
        on {
            if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); next }
            on = 0
            if (match(line, from)) {
                cmd = substr(line, RSTART)
                gsub(/[ \t]+/, " ", cmd)
                print src "|" cmd
            }
        }'
}

: > "$tmp/examples"
# the subcommands as `san --help` lists them ("   check        validate ...")
subcommands=$("$SAN" --help | sed -n '/^subcommands:/,/^$/s/^   \([a-z][a-z-]*\)  .*/\1/p')
for c in $subcommands; do
    "$SAN" "$c" --help 2>/dev/null | examples "san $c --help" "^  san " "san .*" >> "$tmp/examples"
done
examples "README.md" "^    .*\\./san " "\\./san .*" < "$top_srcdir/README.md" >> "$tmp/examples"
sed -n '/^\.SH EXAMPLES/,/^\.fi/p' "$top_srcdir/doc/san.1" | sed 's/\\-/-/g' |
    examples "doc/san.1" "^san " "san .*" >> "$tmp/examples"

count() { grep -c "^$1|" "$tmp/examples"; }
if [ "$(echo "$subcommands" | wc -w)" -ge 8 ]; then
    ok "the subcommands of san --help: $(echo $subcommands)"
else
    not_ok "san --help lists too few subcommands: '$(echo $subcommands)'"
fi
for src in "san gen --help" "san sweep --help" "san size-buffer --help" \
           "san grain --help" "san compare --help" "README.md" "doc/san.1"; do
    if [ "$(count "$src")" -ge 1 ]; then
        ok "examples found in $src"
    else
        not_ok "no example found in $src (has the layout of its examples changed?)"
    fi
done

# ---- running them ----
# the files an example names: -o FILE, --vector FILE, --plot FILE
named_files() {
    echo "$1" | awk '{ for (i = 1; i < NF; i++)
        if ($i == "-o" || $i == "--vector" || $i == "--plot" || $i == "--output") print $(i + 1) }'
}

while IFS='|' read -r src cmd; do
    rm -f "$tmp/run/"*.svg "$tmp/run/"*.csv "$tmp/run/p.san" 2>/dev/null
    (cd "$tmp/run" && $LIMIT sh -c "$cmd" > "$tmp/out" 2> "$tmp/err")
    rc=$?
    if [ "$rc" -eq 0 ]; then
        missing=""
        # a name may be a prefix (export -f prism -o rs writes rs.sm, ...)
        for f in $(named_files "$cmd"); do
            ls "$tmp/run/$f"* > /dev/null 2>&1 || missing="$missing $f"
        done
        if [ -z "$missing" ]; then
            ok "$src: $cmd"
        else
            not_ok "$src: $cmd: exit 0 without writing$missing"
        fi
    elif grep -q "built without cairo" "$tmp/err"; then
        echo "note - $src: $cmd: skipped (no cairo in this build)"
        ok "$src: $cmd (skipped)"
    elif [ "$rc" -eq 127 ] && grep -q "not found" "$tmp/err" && ! grep -q "san: not found" "$tmp/err"; then
        echo "note - $src: $cmd: skipped (a tool it pipes into is missing)"
        ok "$src: $cmd (skipped)"
    elif [ -n "$LIMIT" ] && [ "$rc" -eq 124 ] && [ ! -s "$tmp/err" ]; then
        [ -n "${VERBOSE:-}" ] && echo "note - $src: still running after $harness_limit s, no error"
        ok "$src: $cmd (running)"
    else
        why=$(abnormal)
        not_ok "$src: $cmd: exit $rc${why:+ ($why)}"
        sed -n '1,4s/^/    | /p' "$tmp/err"
    fi
done < "$tmp/examples"

# ---- san(5): its example model checks clean ----
sed -n '/^\.SH EXAMPLE$/,/^\.fi/p' "$top_srcdir/doc/san.5" | sed '1,2d;$d' |
    sed 's/\\-/-/g' > "$tmp/run/example5.san"
# (one automaton: the PEPS 2003 / GTAexpress warning, on by default, is
# the only one allowed)
run "$SAN" check "$tmp/run/example5.san"
others=$(grep -a ': warning: ' "$tmp/err" | grep -v -c 'GTAexpress\|PEPS 2003')
if [ "$rc" -eq 0 ] && grep -q "diagnostics: 0 errors, [01] warning" "$tmp/out" && [ "$others" -eq 0 ]; then
    ok "doc/san.5: its EXAMPLE model checks clean"
else
    not_ok "doc/san.5: its EXAMPLE model: exit $rc"
    sed -n '1,4s/^/    | /p' "$tmp/err"
fi

harness_end
