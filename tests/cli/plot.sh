#!/bin/sh
# tests/cli/plot.sh - plots fit for a paper (issue 19), read back:
#
# - SVG text is editable: <text> elements with the title, the axes' and
#   the legend's labels given; the page is --size (points);
# - a legend names its parameter once, as its title ("buffer"), and
#   its values as entries ("1", "5"; issue 32);
# - ticks: whole numbers on an axis of whole numbers (no 2.5 slaves);
#   powers of 10 on --logx/--logy axes;
# - a value <= 0 on a log axis is refused, exit 2, the series named;
# - PNG: its header's pixels are --size times --dpi/96, its pHYs --dpi;
# - --plot alone puts nothing on standard output (sweep, size-buffer,
#   grain, transient, passage); --table, --format or -o brings it back;
# - the plot options without --plot, and a bad --size, are usage errors.
#
# Skipped (77) in a build without cairo.  Environment: SAN, top_srcdir.

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"
HELP="$top_srcdir/tests/cli/plot_check.py"
MODEL="$top_srcdir/models/mm1k.san"
harness_plots


# run NAME ARGS...: san ARGS exits 0 and writes nothing on stdout
quiet_plot() {
    name=$1
    shift
    "$SAN" "$@" > "$tmp/q.out" 2> "$tmp/q.err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$tmp/q.out" ]; then
        ok
    else
        not_ok "$name: exit $rc, $(wc -c < "$tmp/q.out") bytes on stdout"
        head -5 "$tmp/q.out" "$tmp/q.err" | sed 's/^/  /'
    fi
}

# table NAME ARGS...: san ARGS exits 0 with a report on stdout
table() {
    name=$1
    shift
    "$SAN" "$@" > "$tmp/t.out" 2> "$tmp/t.err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ -s "$tmp/t.out" ]; then
        ok
    else
        not_ok "$name: exit $rc, nothing on stdout"
        sed 's/^/  /' "$tmp/t.err" | head -5
    fi
}

if ! "$SAN" sweep -q ms --mode async --slaves 2 --buffer 1,2 --plot "$tmp/probe.svg" --x buffer \
    --y slave_transmitting > /dev/null 2> "$tmp/probe.err"; then
    if grep -q "without cairo" "$tmp/probe.err"; then
        echo "skip: san built without cairo"
        exit 77
    fi
fi

SW="sweep -q ms --mode async"

# ---- 1. editable SVG text, the page's size ----
"$SAN" $SW --slaves 2..3 --buffer 1,5 --plot "$tmp/l.svg" --x slaves --y slave_transmitting \
    --title 'Fig. 13' --xlabel 'slaves (count)' --ylabel 'P(transmitting) & <idle>' \
    --legend-title 'buffer K' --size 420x300 > /dev/null
check "SVG: <text> with the title, labels and legend title" python3 "$HELP" texts "$tmp/l.svg" \
    'Fig. 13' 'slaves (count)' 'P(transmitting) & <idle>' 'buffer K' '1' '5'
# the legend names the parameter once, as its title, and its values
# as entries (issue 32): 'buffer' over '1', '5', never 'buffer=1'
"$SAN" $SW --slaves 2..3 --buffer 1,5 --plot "$tmp/lt.svg" --x slaves --y slave_transmitting \
    > /dev/null
check "SVG: the legend's title is the parameter" python3 "$HELP" texts "$tmp/lt.svg" \
    'buffer' '1' '5'
if grep -q 'buffer=' "$tmp/lt.svg"; then not_ok "SVG: a legend entry repeats 'buffer='"; else ok; fi
"$SAN" size-buffer -q ms --mode async --slaves 2..3 --within 0.05 --plot "$tmp/lb.svg" > /dev/null
check "size-buffer SVG: the legend's title is the parameter" python3 "$HELP" texts "$tmp/lb.svg" \
    'slaves' '2' '3'
if grep -q 'slaves=' "$tmp/lb.svg"; then not_ok "size-buffer SVG: a legend entry repeats 'slaves='"; else ok; fi
check "SVG: width and height = --size 420x300 (pt)" python3 "$HELP" size "$tmp/l.svg" 420 300
"$SAN" $SW --slaves 2..3 --buffer 1,5 --plot "$tmp/d.svg" --x slaves --y slave_transmitting \
    > /dev/null
check "SVG: the default page, 800x500 pt" python3 "$HELP" size "$tmp/d.svg" 800 500
check "SVG: the default labels (axis, index) as text" python3 "$HELP" texts "$tmp/d.svg" \
    slaves slave_transmitting

# ---- 2. ticks ----
# slaves 2..3: a range of 1, which 1/2/5 steps alone would cut in tenths
check "whole x ticks on slaves 2..3" python3 "$HELP" whole-ticks "$tmp/d.svg"
"$SAN" $SW --slaves 2 --buffer 1..3 --plot "$tmp/b.svg" --x buffer --y slave_transmitting \
    --size 300x200 > /dev/null
check "whole x ticks on buffer 1..3 in a small page" python3 "$HELP" whole-ticks "$tmp/b.svg"
"$SAN" $SW --slaves 2..3 --buffer 1,2,5,10,20,50 --plot "$tmp/log.svg" --x buffer \
    --y slave_transmitting --logx --logy > /dev/null
# buffer 1..50 spans two decades: 1, 2, 5, 10, 20, 50, 100
check "--logx --logy: tick labels 1, 2, 5 times powers of 10" python3 "$HELP" log-ticks \
    "$tmp/log.svg" x 7
"$SAN" sweep -q "$MODEL" -D lambda=0.5..4:0.5 --plot "$tmp/logy.svg" --x lambda --y length \
    --logy --xlabel 'arrival rate (1/s)' > /dev/null
check "--logy over a -D sweep: y tick labels 1, 2, 5 times powers of 10" python3 "$HELP" \
    log-ticks "$tmp/logy.svg" y 3
# the queue length from 1.9 to 7.4: one decade; its ends alone (1, 10)
# would leave the curve unreadable, so 2 and 5 are labelled: 4 labels
"$SAN" sweep -q "$MODEL" -D lambda=2..4:0.5 --plot "$tmp/logn.svg" --x lambda --y length \
    --logy > /dev/null
check "--logy over one decade: 1, 2, 5, 10 labelled" python3 "$HELP" log-ticks "$tmp/logn.svg" y 4
# wide axes keep the decades alone
"$SAN" sweep -q "$MODEL" -D lambda=0.01,0.1,1,10,100 --plot "$tmp/logw.svg" --x lambda \
    --y length --logx > /dev/null
check "--logx over four decades: powers of 10 only" python3 "$HELP" decade-ticks "$tmp/logw.svg" x

# ---- 3. log axes refuse values <= 0 ----
refused "--logy with a zero value: exit 2, the series named" "series 'length' has y = 0" \
    "$SAN" transient -q "$MODEL" --initial 'st queue == s[0]' --time 0..1:0.5 --plot "$tmp/z.svg" \
    --y length --logy
refused "--logx with t = 0: exit 2" "--logx: series" \
    "$SAN" transient -q "$MODEL" --time 0..1:0.5 --plot "$tmp/z.svg" --y length --logx
check "no plot written when refused" sh -c "[ ! -e '$tmp/z.svg' ]"

# ---- 4. PNG pixels ----
"$SAN" $SW --slaves 2 --buffer 1,2 --plot "$tmp/d.png" --x buffer --y slave_transmitting > /dev/null
check "PNG: 800x500 pixels by default, at 96 dpi" python3 "$HELP" png-size "$tmp/d.png" 800 500 96
"$SAN" $SW --slaves 2 --buffer 1,2 --plot "$tmp/s.png" --x buffer --y slave_transmitting \
    --size 300x200 > /dev/null
check "PNG: --size 300x200 is 300x200 pixels" python3 "$HELP" png-size "$tmp/s.png" 300 200
"$SAN" $SW --slaves 2 --buffer 1,2 --plot "$tmp/h.png" --x buffer --y slave_transmitting \
    --size 400x250 --dpi 300 > /dev/null
check "PNG: --size 400x250 --dpi 300 is 1250x781 pixels, at 300 dpi" python3 "$HELP" png-size \
    "$tmp/h.png" 1250 781 300

# ---- 5. --plot alone: nothing on stdout ----
quiet_plot "sweep --plot: no table" $SW --slaves 2 --buffer 1,2 --plot "$tmp/o1.svg" --x buffer \
    --y slave_transmitting
quiet_plot "size-buffer --plot: no report" size-buffer -q ms --slaves 2 --plot "$tmp/o2.svg"
quiet_plot "grain --plot: no report" grain -q ms --slices-per-node 1,2 --slaves 2 --buffer 2 \
    --plot "$tmp/o3.svg"
quiet_plot "transient --plot: no report" transient -q "$MODEL" --time 0..1:0.5 --plot "$tmp/o4.svg"
quiet_plot "passage --plot: no report" passage -q "$MODEL" --until 'st queue == s[10]' \
    --time 0..1:0.5 --plot "$tmp/o5.svg"
check "every plot written" sh -c "for i in 1 2 3 4 5; do [ -s '$tmp/o'\$i.svg ] || exit 1; done"
table "sweep --plot --table: the table" $SW --slaves 2 --buffer 1,2 --plot "$tmp/o1.svg" \
    --x buffer --y slave_transmitting --table
table "sweep --plot -f csv: the table" $SW --slaves 2 --buffer 1,2 --plot "$tmp/o1.svg" \
    --x buffer --y slave_transmitting -f csv
table "size-buffer --plot -f json: the report" size-buffer -q ms --slaves 2 --plot "$tmp/o2.svg" \
    -f json
table "transient --plot --table: the report" transient -q "$MODEL" --time 0..1:0.5 \
    --plot "$tmp/o4.svg" --table
"$SAN" $SW --slaves 2 --buffer 1,2 --plot "$tmp/o1.svg" --x buffer --y slave_transmitting \
    -o "$tmp/o1.txt" > "$tmp/o1.out"
check "sweep --plot -o FILE: the table in FILE, not on stdout" \
    sh -c "[ -s '$tmp/o1.txt' ] && [ ! -s '$tmp/o1.out' ]"

# ---- 6. usage ----
refused "--logy without --plot" "--logy: only with --plot" "$SAN" $SW --slaves 2 --logy
refused "size-buffer --xlabel without --plot" "--xlabel: only with --plot" \
    "$SAN" size-buffer -q ms --slaves 2 --xlabel K
refused "transient --size without --plot" "--size: only with --plot" \
    "$SAN" transient -q "$MODEL" --time 1 --size 400x300
refused "--size 10x10" "--size: expected WxH" "$SAN" $SW --slaves 2 --buffer 1,2 \
    --plot "$tmp/u.svg" --x buffer --y slave_transmitting --size 10x10
refused "--size 400" "--size: expected WxH" "$SAN" $SW --slaves 2 --buffer 1,2 \
    --plot "$tmp/u.svg" --x buffer --y slave_transmitting --size 400
refused "--dpi 0" "--dpi: expected" "$SAN" $SW --slaves 2 --buffer 1,2 \
    --plot "$tmp/u.png" --x buffer --y slave_transmitting --dpi 0
for c in sweep size-buffer grain transient passage; do
    "$SAN" $c --list-options > "$tmp/opts"
    missing=""
    for o in --title --xlabel --ylabel --legend-title --logx --logy --size --dpi --table; do
        grep -q -x -e "$o" "$tmp/opts" || missing="$missing $o"
    done
    if [ -z "$missing" ]; then ok; else not_ok "$c lacks the plot options:$missing"; fi
done

harness_end
