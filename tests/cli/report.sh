#!/bin/sh
# tests/cli/report.sh - `san report` (issue 32): a study of the four
# kinds of analysis written as one page, rendered in a real browser.
#
# - the page is self-contained (no script, style or image from elsewhere)
#   and under 2 MB;
# - Debian's chromium headless renders it: report_check.py reads the DOM
#   after the page's script ran (every variant's values equal to a fresh
#   `-f json` run of its command), the browser's console (no error), the
#   screenshot (not blank) and the embedded data (equal to -f json), the
#   accuracy of every number in the tables and tooltips, the models' text;
# - the page's own export: opened at #san-export-test it clicks every
#   figure's SVG and PNG buttons; report_check.py reads what they
#   delivered (well-formed SVG with the report's series, a PNG of twice
#   the figure's size that is not blank);
# - a bad study file: exit 2 with FILE:LINE:COL and what was expected.
#
# chromium comes with scripts/bootstrap.sh: without it the test fails
# (it is not skipped: the page is only checked in a browser).
# Environment: SAN, top_srcdir.

. "$(dirname "$0")/../lib/harness.sh"
CHECK="$top_srcdir/tests/cli/report_check.py"
harness_plots


CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "FAIL: no chromium: install it with scripts/bootstrap.sh (apt-get install chromium)"
    exit 1
fi

cat > "$tmp/study" <<'STUDY'
# four analyses, small
title = A <test> study & "quotes"
note = The note of the page.

[sw]
title = Sync or async
run = sweep ms --mode sync,async --slaves 2..4 --buffer 2
x = slaves
series = mode
plot = slave_transmitting, efficiency

[sb]
run = size-buffer ms --mode async --slaves 2..3 --within 0.05

[gr]
run = grain ms --slices-per-node 2,3 --slaves 2..3 --buffer 4
x = slaves
plot = master_rx

[cmp]
run = compare 'ms --mode sync --slaves 2' "ms --mode async --slaves 2 --buffer 1"
STUDY

if "$SAN" report "$tmp/study" -o "$tmp/page.html" 2> "$tmp/err"; then ok; else
    not_ok "san report: exit $?"; sed 's/^/  /' "$tmp/err" | head -20; fi
size=$(wc -c < "$tmp/page.html")
if [ "$size" -gt 10000 ] && [ "$size" -lt 2000000 ]; then ok; else not_ok "page of $size bytes"; fi

# the browser: a fresh profile, no network (every host unresolvable)
browse() {
    profile=$1
    shift
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --host-resolver-rules="MAP * ~NOTFOUND" \
        --user-data-dir="$tmp/profile$profile" --enable-logging=stderr --v=0 "$@"
}
browse 1 --dump-dom "file://$tmp/page.html" > "$tmp/dom.html" 2> "$tmp/console.log" \
    || not_ok "chromium --dump-dom: exit $?"
browse 2 --window-size=1200,1800 --screenshot="$tmp/shot.png" "file://$tmp/page.html" \
    > /dev/null 2>> "$tmp/console.log" || not_ok "chromium --screenshot: exit $?"
# the export buttons: the PNG is drawn when its image has loaded, so the
# DOM is dumped once the page's timers and loads are done (virtual time)
browse 3 --virtual-time-budget=20000 --dump-dom "file://$tmp/page.html#san-export-test" \
    > "$tmp/export.html" 2>> "$tmp/console.log" || not_ok "chromium --dump-dom (export): exit $?"
if python3 "$CHECK" "$SAN" "$tmp/page.html" "$tmp/dom.html" "$tmp/console.log" "$tmp/shot.png" \
        "$tmp/export.html" > "$tmp/check.out" 2>&1; then ok; else
    not_ok "report_check.py"; sed 's/^/  /' "$tmp/check.out" | head -30; fi
[ -z "${SAN_REPORT_KEEP:-}" ] || cp "$tmp/page.html" "$tmp/shot.png" "$tmp/dom.html" "$tmp/export.html" \
    "$tmp/check.out" "$SAN_REPORT_KEEP"/

# --from-json: the page of reports already written
"$SAN" sweep -q ms --mode async --slaves 2..3 --buffer 1,2 -f json > "$tmp/sw.json"
# (the models too: the text san gen writes for each generator line)
"$SAN" gen ms --mode async --slaves 3 --buffer 2 > "$tmp/gen.san"
if "$SAN" report --from-json "$tmp/sw.json" -o "$tmp/from.html" 2> "$tmp/err" \
        && grep -q '"kind":"sweep"' "$tmp/from.html" \
        && python3 - "$tmp/from.html" "$tmp/gen.san" <<'PY'; then ok; else not_ok "--from-json"; fi
import json, re, sys
page = open(sys.argv[1]).read()
data = json.loads(re.search(r'id="san-data">(.*?)</script>', page, re.S).group(1))
models = {m["name"]: m["text"] for m in data["analyses"][0]["models"]}
sys.exit(len(models) != 4 or models.get("san gen ms --mode async --slaves 3 --buffer 2")
         != open(sys.argv[2]).read())
PY
# a report read back is the user's file: its generator lines are template
# flags, never san gen's own -o (it wrote victim.san when the lines ran as
# `san gen LINE`) or --size (its text was shown as a model)
printf '{"schema": "san-output/1", "sweep": 1, "rows": [{"command": "ms --mode sync --slaves 2 -o %s"}, {"command": "ms --mode sync --slaves 2 --size"}]}' \
    "$tmp/victim.san" > "$tmp/crafted.json"
if "$SAN" report --from-json "$tmp/crafted.json" -o "$tmp/crafted.html" 2> "$tmp/err" \
        && [ ! -e "$tmp/victim.san" ] && ! grep -q "size formula" "$tmp/crafted.html"; then ok; else
    not_ok "--from-json: a report's line ran san gen's own options"; fi
"$SAN" solve -q "$top_srcdir/models/mm1k.san" -f json > "$tmp/solve.json"
"$SAN" report --from-json "$tmp/solve.json" -o "$tmp/from2.html" 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "not a -f json report of sweep" "$tmp/err" && [ ! -e "$tmp/from2.html" ]; then
    ok; else not_ok "--from-json of a solve: exit $rc"; fi

# bad study files: where, and what was expected
bad_study() {
    what=$1 expect=$2
    printf '%b' "$3" > "$tmp/bad.study"
    "$SAN" report "$tmp/bad.study" -o "$tmp/bad.html" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -F -e "$expect" "$tmp/err" && [ ! -e "$tmp/bad.html" ]; then ok; else
        not_ok "$what: exit $rc, stderr: $(head -2 "$tmp/err")"; fi
}
bad_study "no section" "bad.study:1:1: expected at least one [section]" "title = x\n"
bad_study "unknown key" "bad.study:3:1: unknown key 'plt'" "[a]\nrun = sweep ms --slaves 2\nplt = x\n"
bad_study "bad kind" "bad.study:2:7: 'solve' is not a subcommand a study runs" "[a]\nrun = solve m.san\n"
bad_study "quote" "bad.study:2:20: unterminated quote" "[a]\nrun = compare 'ms' 'ms --slaves 2\n"
bad_study "-f" "bad.study:2:7: run: '-f' is set by the report" "[a]\nrun = sweep ms -f csv\n"
bad_study "no run" "bad.study:1:1: [a] has no 'run = SUBCOMMAND ...' line" "[a]\nx = slaves\n"
bad_study "twice" "bad.study:2:2: section 'a' already given at line 1" "[a]\n[a]\n"
bad_study "log" "bad.study:3:7: log: expected x, y or xy" "[a]\nrun = sweep ms\nlog = z\n"
# an analysis that fails: the page is written, exit 1
printf '[a]\nrun = sweep ms --slaves 2 --no-such-flag 3\n' > "$tmp/fail.study"
"$SAN" report "$tmp/fail.study" -o "$tmp/fail.html" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ -s "$tmp/fail.html" ] && grep -q "no-such-flag" "$tmp/err"; then ok; else
    not_ok "failed analysis: exit $rc"; fi

harness_end
