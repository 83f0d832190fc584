#!/bin/sh
# output.sh - how san writes its files (base/outfile.c, san(1) OUTPUT
# FILES) and its standard output:
#
#   1. attributes: an existing target keeps its mode (0600 stays 0600)
#      and, as root, its owner, through every writer (print -o, gen -o,
#      solve --vector, transient --vector, sweep -o, export -o, sweep
#      --plot); a writer that fails half-way leaves the old file; a new
#      file gets 0666 less the umask; a hard link stays a link to the
#      new content; a symbolic link stays and its final target is
#      replaced (relative links, links into another folder, dangling
#      links, loops refused);
#   2. special targets are written, never replaced: /dev/null (as root
#      a copy made with mknod), /dev/stdout, /dev/fd/1 (= -, after what
#      stdout already holds), a FIFO read by a background cat; a folder,
#      or a path in a missing folder, is refused with exit 1;
#   3. 20 rounds of 20 concurrent `san gen ms ... -o same.san`: every
#      writer exits 0 and the file is always one writer's whole model;
#   4. no temporary file is left: after a success, after a failure, and
#      after SIGTERM, SIGHUP, SIGINT and a double SIGINT delivered while
#      solve --vector writes a large vector (at the temporary file's
#      first appearance and a quarter into it, the process held by
#      SIGSTOP while the signal is sent); the old target survives
#      each of them (SIGTERM and SIGHUP still end the process as killed
#      by the signal);
#   5. full disk: `ulimit -f` (SIGXFSZ ignored, the write fails with
#      EFBIG) and, as root where mount works, a small tmpfs: exit 1, a
#      message naming the cause, the old content intact, for vectors,
#      models, plots (SVG and PNG) and a hard-linked target;
#   6. standard output: every subcommand, --help and --version exit 1
#      with "cannot write standard output" when stdout is /dev/full or
#      closed;
#   7. --vector - with --format json puts the vector inside the JSON
#      document ("vector", null when unverified), with csv as "vector"
#      rows: one parseable document either way; transient refuses
#      --vector - with json or csv (exit 2).
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes; the last line is "N passed, M failed".  VERBOSE=1 lists passes.

harness_limit=60
. "$(dirname "$0")/../lib/harness.sh"
need_san output.sh

OMP_NUM_THREADS=1
export OMP_NUM_THREADS
MODEL="$top_srcdir/models/mm1k.san"
MODEL2="$top_srcdir/models/rs_functions.san"
root=0
[ "$(id -u)" -eq 0 ] && root=1

# mode_of FILE: its permission bits in octal
mode_of() { stat -c %a "$1"; }

# others DIR NAME...: the entries of DIR (hidden ones too) not listed
others() {
    others_dir=$1
    shift
    ls -A "$others_dir" | while read -r f; do
        keep=1
        for n in "$@"; do [ "$f" = "$n" ] && keep=0; done
        [ $keep -eq 1 ] && echo "$f"
    done
}

# clean NAME DIR NAME...: no entry of DIR but the listed ones
clean() {
    clean_name=$1
    shift
    left=$(others "$@")
    if [ -z "$left" ]; then ok "$clean_name: nothing left behind"
    else not_ok "$clean_name: left behind: $(echo $left)"; fi
}

# status NAME WANT: the status of the last run, its stderr when not
status_is() {
    if [ "$rc" -eq "$2" ]; then ok "$1: exit $2"
    else not_ok "$1: exit $rc, expected $2 $(abnormal)"; sed -n '1,3s/^/    | /p' "$tmp/err"; fi
}

# err_has NAME TEXT: TEXT (fixed string) on the last run's stderr
err_has() {
    if grep -q -F -e "$2" "$tmp/err"; then ok "$1: says '$2'"
    else not_ok "$1: no '$2' on stderr"; sed -n '1,3s/^/    | /p' "$tmp/err"; fi
}

"$SAN" print "$MODEL" > "$tmp/print.ref" || not_ok "san print to stdout"
"$SAN" print -D lambda=5 "$MODEL" > "$tmp/print5.ref" || not_ok "san print -D to stdout"
# an old content longer than any new one: a write in place without
# truncation would leave its tail
awk 'BEGIN { for (i = 0; i < 2000; i++) print "// OLD OLD OLD OLD OLD" }' > "$tmp/long.old"
have_cairo=1
"$SAN" sweep -q ms --mode async --slaves 2 --buffer 1,2 --plot "$tmp/probe.svg" --x buffer \
    --y slave_transmitting > /dev/null 2>&1 || have_cairo=0
rm -f "$tmp/probe.svg"

# ---- 1. attributes ----
a="$tmp/attr"
mkdir "$a"
# every writer over a 0600 file
for w in print gen vector table export transient plot; do
    echo OLD > "$a/$w.out"
    chmod 600 "$a/$w.out"
    case $w in
        print)  run "$SAN" print -o "$a/$w.out" "$MODEL" ;;
        gen)    run "$SAN" gen ms --mode async --slaves 2 --buffer 2 -o "$a/$w.out" ;;
        vector) run "$SAN" solve -q --vector "$a/$w.out" "$MODEL" ;;
        table)  run "$SAN" sweep -q ms --mode async --slaves 2 --buffer 1,2 -o "$a/$w.out" ;;
        export) run "$SAN" export -q -f states -o "$a/$w.out" "$MODEL" ;;
        transient) run "$SAN" transient -q --time 1 --vector "$a/$w.out" "$MODEL" ;;
        plot)   [ $have_cairo -eq 1 ] || { rm -f "$a/$w.out"; continue; }
                mv "$a/$w.out" "$a/$w.svg"
                run "$SAN" sweep -q ms --mode async --slaves 2 --buffer 1,2 --plot "$a/$w.svg" \
                    --x buffer --y slave_transmitting ;;
    esac
    f="$a/$w.out"
    [ $w = plot ] && f="$a/$w.svg"
    status_is "0600 $w" 0
    check "0600 $w: mode kept" [ "$(mode_of "$f")" = 600 ]
    check "0600 $w: replaced" [ "$(head -c 3 "$f")" != OLD ]
done
[ $have_cairo -eq 1 ] || echo "# no cairo in this build: the plot cases are skipped"
clean "writers over 0600 files" "$a" print.out gen.out vector.out table.out export.out \
    transient.out plot.svg

# a writer that fails half-way (export's dot-reach past --max-nodes):
# the old file stays, nothing is left
cp "$tmp/long.old" "$a/reach.dot"
run "$SAN" export -q -f dot-reach --max-nodes 5 -o "$a/reach.dot" "$MODEL"
status_is "export past --max-nodes" 2
check "export past --max-nodes: the old file stays" cmp -s "$a/reach.dot" "$tmp/long.old"
clean "export past --max-nodes" "$a" print.out gen.out vector.out table.out export.out \
    transient.out plot.svg reach.dot

# a new file: 0666 less the umask, as from fopen
for u in 027 077 002; do
    rm -f "$a/new.san"
    (umask $u; exec "$SAN" print -o "$a/new.san" "$MODEL")
    want=$(printf '%o' $((0666 & ~0$u)))
    check "new file under umask $u: mode $want" [ "$(mode_of "$a/new.san")" = "$want" ]
done

# as root, the owner of the file stays (a root run must not take it)
if [ $root -eq 1 ]; then
    echo OLD > "$a/owned.san"
    chown 65534:65534 "$a/owned.san"
    chmod 640 "$a/owned.san"
    run "$SAN" print -o "$a/owned.san" "$MODEL"
    check "root over another user's file: owner kept" [ "$(stat -c %u:%g "$a/owned.san")" = 65534:65534 ]
    check "root over another user's file: mode kept" [ "$(mode_of "$a/owned.san")" = 640 ]
else
    echo "# not root: the owner case is skipped"
fi

# a hard link: both names see the new content, the link stays
h="$tmp/hard"
mkdir "$h"
cp "$tmp/long.old" "$h/a.san"
chmod 640 "$h/a.san"
ln "$h/a.san" "$h/b.san"
ino=$(stat -c %i "$h/a.san")
run "$SAN" print -D lambda=5 -o "$h/a.san" "$MODEL"
status_is "hard link" 0
check "hard link: same inode" [ "$(stat -c %i "$h/a.san")" = "$ino" ]
check "hard link: two links" [ "$(stat -c %h "$h/a.san")" = 2 ]
check "hard link: the other name has the new content" cmp -s "$h/b.san" "$tmp/print5.ref"
check "hard link: mode kept" [ "$(mode_of "$h/a.san")" = 640 ]
clean "hard link" "$h" a.san b.san

# symbolic links: followed, the link stays, its target is replaced
s="$tmp/sym"
mkdir "$s" "$s/real"
cp "$tmp/long.old" "$s/real/t.san"
chmod 600 "$s/real/t.san"
ln -s real/t.san "$s/rel.san"
ln -s rel.san "$s/chain.san"
ln -s "$s/real/t.san" "$s/abs.san"
for l in rel chain abs; do
    run "$SAN" print -o "$s/$l.san" "$MODEL"
    status_is "symlink $l" 0
    check "symlink $l: still a link" [ -L "$s/$l.san" ]
    check "symlink $l: target written" cmp -s "$s/real/t.san" "$tmp/print.ref"
    check "symlink $l: target's mode kept" [ "$(mode_of "$s/real/t.san")" = 600 ]
    cp "$tmp/long.old" "$s/real/t.san"
done
ln -s real/new.san "$s/dangling.san"
run "$SAN" print -o "$s/dangling.san" "$MODEL"
status_is "dangling symlink" 0
check "dangling symlink: still a link" [ -L "$s/dangling.san" ]
check "dangling symlink: its target created" cmp -s "$s/real/new.san" "$tmp/print.ref"
ln -s loop2.san "$s/loop1.san"
ln -s loop1.san "$s/loop2.san"
run "$SAN" print -o "$s/loop1.san" "$MODEL"
status_is "symlink loop" 1
err_has "symlink loop" "Too many levels of symbolic links"
clean "symlinks (link folder)" "$s" real rel.san chain.san abs.san dangling.san loop1.san loop2.san
clean "symlinks (target folder)" "$s/real" t.san new.san

# ---- 2. special targets ----
# As root, a san that replaces what it writes would replace the system's
# /dev/null or /dev/stdout (it happened while this test was being
# written): root's device is a copy made with mknod in the scratch
# folder, /dev/stdout only a non-root run tries, and root reaches its
# standard output through /dev/fd/1 and /proc/self/fd/1, which no rename
# can replace (procfs).
sp="$tmp/special"
mkdir "$sp"
dev=
if [ $root -eq 1 ]; then
    if mknod "$sp/null" c 1 3 2>/dev/null; then
        dev="$sp/null"
    else
        echo "# root, but mknod refused: the character device cases are skipped"
    fi
else
    dev=/dev/null
fi
if [ -n "$dev" ]; then
    run "$SAN" print -o "$dev" "$MODEL"
    status_is "-o $dev" 0
    check "-o $dev: still a character device" [ -c "$dev" ]
    run "$SAN" gen ms --mode async --slaves 2 --buffer 2 -o "$dev"
    check "gen -o $dev: still a character device" [ -c "$dev" ]
    ln -s "$dev" "$s/null.san"
    run "$SAN" solve -q --vector "$s/null.san" "$MODEL"
    status_is "--vector link to $dev" 0
    check "--vector link to $dev: still a device" [ -c "$dev" ]
    check "--vector link to $dev: still a link" [ -L "$s/null.san" ]
fi
stdouts="/dev/fd/1 /proc/self/fd/1"
[ $root -eq 1 ] || stdouts="/dev/stdout $stdouts"
for o in $stdouts; do
    "$SAN" print -o $o "$MODEL" > "$tmp/stdout.san" 2>"$tmp/err"
    check "-o $o: the model on standard output" cmp -s "$tmp/stdout.san" "$tmp/print.ref"
    # after a report on the same descriptor, not over it
    "$SAN" solve -q --vector $o "$MODEL" > "$tmp/stdout.txt" 2>"$tmp/err"
    check "--vector $o after the text report" [ "$(grep -c -e '^index,queue,probability$' \
        -e '^most probable states$' "$tmp/stdout.txt")" -eq 2 ]
done
"$SAN" print -o - "$MODEL" | cat > "$tmp/pipe.san"
check "-o - into a pipe" cmp -s "$tmp/pipe.san" "$tmp/print.ref"

if mkfifo "$sp/fifo" 2>/dev/null; then
    cat "$sp/fifo" > "$tmp/fifo.out" &
    cat_pid=$!
    run "$SAN" print -o "$sp/fifo" "$MODEL"
    # a san that replaced the FIFO leaves the reader waiting for ever
    k=0
    while kill -0 $cat_pid 2>/dev/null && [ $k -lt 100 ]; do
        sleep 0.05
        k=$((k + 1))
    done
    kill $cat_pid 2>/dev/null
    wait $cat_pid
    status_is "-o FIFO" 0
    check "-o FIFO: still a FIFO" [ -p "$sp/fifo" ]
    check "-o FIFO: the reader got the model" cmp -s "$tmp/fifo.out" "$tmp/print.ref"
else
    echo "# mkfifo failed: the FIFO case is skipped"
fi
clean "special files" "$sp" fifo null

run "$SAN" print -o "$sp" "$MODEL"
status_is "-o a folder" 1
err_has "-o a folder" "Is a directory"
run "$SAN" print -o "$tmp/no/such/dir/x.san" "$MODEL"
status_is "-o in a missing folder" 1
err_has "-o in a missing folder" "No such file or directory"

# permissions: a file the user may not write is not replaced (a rename
# needs only the folder), a folder the user may not write is an error;
# root bypasses both, so root runs these as nobody (setpriv)
as_user=
if [ $root -eq 0 ]; then
    as_user=" "
elif command -v setpriv >/dev/null 2>&1; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ -n "$as_user" ]; then
    p="$tmp/perm"
    mkdir "$p" "$p/ro"
    chmod 711 "$tmp"
    chmod 777 "$p"
    echo OLD > "$p/locked.san"
    chmod 444 "$p/locked.san"
    [ $root -eq 1 ] && chown 65534:65534 "$p/locked.san"
    echo OLD > "$p/ro/t.san"
    chmod 666 "$p/ro/t.san"
    chmod 555 "$p/ro"
    run $as_user "$SAN" print -o "$p/locked.san" "$MODEL"
    status_is "-o a read-only file" 1
    err_has "-o a read-only file" "Permission denied"
    check "-o a read-only file: unchanged" [ "$(cat "$p/locked.san")" = OLD ]
    run $as_user "$SAN" print -o "$p/ro/t.san" "$MODEL"
    status_is "-o in a read-only folder" 1
    err_has "-o in a read-only folder" "Permission denied"
    check "-o in a read-only folder: unchanged" [ "$(cat "$p/ro/t.san")" = OLD ]
    clean "permissions" "$p" locked.san ro
    clean "permissions (read-only folder)" "$p/ro" t.san
    chmod 755 "$p/ro"
    chmod 700 "$tmp"
else
    echo "# root without setpriv: the permission cases are skipped"
fi

# ---- 3. concurrent writers ----
c="$tmp/conc"
mkdir "$c"
writers=20
i=1
while [ $i -le $writers ]; do
    "$SAN" gen ms --mode async --slaves $((i % 5 + 2)) --buffer $i -o "$c/ref$i.san" ||
        not_ok "gen reference $i"
    i=$((i + 1))
done
mkdir "$c/w"
# the references' checksums, one a line: a round's file must be one
i=1
while [ $i -le $writers ]; do
    cksum < "$c/ref$i.san"
    i=$((i + 1))
done > "$c/sums"
round=1
bad_files=0
: > "$c/rcs"
while [ $round -le 20 ]; do
    i=1
    while [ $i -le $writers ]; do
        ( "$SAN" gen ms --mode async --slaves $((i % 5 + 2)) --buffer $i -o "$c/w/same.san" \
              2>>"$c/err"; echo $? >> "$c/rcs" ) &
        i=$((i + 1))
    done
    wait
    grep -qxF "$(cksum < "$c/w/same.san")" "$c/sums" || bad_files=$((bad_files + 1))
    round=$((round + 1))
done
bad_writers=$(grep -cvx 0 "$c/rcs")
check "20 x 20 concurrent writers: 400 statuses" [ "$(wc -l < "$c/rcs")" -eq 400 ]
check "20 x 20 concurrent writers: every writer exited 0 ($bad_writers failed)" [ $bad_writers -eq 0 ]
check "20 x 20 concurrent writers: always one whole model ($bad_files rounds not)" [ $bad_files -eq 0 ]
run "$SAN" check "$c/w/same.san"
status_is "concurrent writers: the last model checks" 0
clean "concurrent writers" "$c/w" same.san

# ---- 4. signals during a --vector write ----
# A birth-death chain with 100,000 states: solved in a fraction of a
# second, its vector (4 MB) takes a noticeable time to write.
n=100000
sed -e "s/\[0\.\.10\]/[0..$((n - 1))]/" -e "s/s\[10\]/s[$((n - 1))]/" "$MODEL" > "$tmp/big.san"
"$SAN" solve -q -D lambda=3 --method power --vector "$tmp/big.csv" "$tmp/big.san" > /dev/null ||
    not_ok "the reference vector of the signal cases"
full_size=$(wc -c < "$tmp/big.csv")

# python3 -c "$default_signals" CMD...: CMD as a terminal would start it
# (a background job of a script has SIGINT ignored, which san keeps
# ignored); python3 becomes CMD, so that $! is CMD's pid
default_signals='import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])'

# temp_size: the size of the temporary file in $dir, empty when none
temp_size() {
    t=$(others "$dir" v.csv)
    [ -n "$t" ] && stat -c %s "$dir/$t" 2>/dev/null
}

# interrupt SIG AT: solve --vector into a folder holding an old v.csv;
# when the temporary file appears (AT 0) or holds a quarter of the vector
# (AT 1/4), the process is stopped (SIGSTOP), and if the vector is then
# still being written (the file is there, over 128 kB short of its full
# size: the rows are not all out of the 64 kB buffer), SIG goes (INT2: a
# second SIGINT right after SIGCONT) and the process continues: the
# signal lands inside the write whatever the machine's load.  Sets $st
# (the status) and $caught (1: the signal went inside the write).
interrupt() {
    dir="$tmp/sig"
    rm -rf "$dir"
    mkdir "$dir"
    echo OLD > "$dir/v.csv"
    python3 -c "$default_signals" "$SAN" solve -q -D lambda=3 --method power --vector "$dir/v.csv" \
        "$tmp/big.san" > /dev/null 2>"$tmp/err" &
    pid=$!
    want=0
    [ "$2" = 0 ] || want=$((full_size / 4))
    k=0
    while [ $k -lt 6000 ] && kill -0 $pid 2>/dev/null; do
        size=$(temp_size)
        [ -n "$size" ] && [ "$size" -ge $want ] && break
        sleep 0.005
        k=$((k + 1))
    done
    kill -STOP $pid 2>/dev/null
    size=$(temp_size)
    caught=0
    if [ -n "$size" ] && [ "$size" -lt $((full_size - 131072)) ]; then
        caught=1
        kill -"${1%2}" $pid
    fi
    kill -CONT $pid 2>/dev/null
    [ $caught -eq 1 ] && [ "$1" = INT2 ] && kill -INT $pid 2>/dev/null
    wait $pid 2>/dev/null
    st=$?
}

# A try is made again when the write had ended (or not begun its rows)
# by the time the process stopped; no try may leave a temporary file, and
# one that ends with status 0 must leave the whole new vector.
for sig in TERM HUP INT INT2; do
    for at in 0 1/4; do
        name="SIG$sig at $at of the --vector write"
        tries=0
        caught=0
        while [ $caught -eq 0 ] && [ $tries -lt 4 ]; do
            interrupt $sig $at
            tries=$((tries + 1))
            clean "$name (try $tries)" "$dir" v.csv
            if [ $caught -eq 0 ] && [ $st -eq 0 ] && ! cmp -s "$dir/v.csv" "$tmp/big.csv"; then
                not_ok "$name (try $tries): exit 0 without the whole new v.csv"
            fi
        done
        if [ $caught -eq 0 ]; then
            # the write was never found under way when the process
            # stopped: said, not counted, so that a fast or loaded machine
            # is not a failure
            echo "skip - $name: never caught the write (status $st after $tries tries)"
            continue
        fi
        name="$name (try $tries)"
        case $sig in
            TERM) check "$name: killed by SIGTERM (status $st)" [ $st -eq 143 ] ;;
            HUP)  check "$name: killed by SIGHUP (status $st)" [ $st -eq 129 ] ;;
            *)    check "$name: a failure status ($st)" [ $st -ne 0 ] ;;
        esac
        check "$name: the old v.csv survives" [ "$(cat "$dir/v.csv")" = OLD ]
    done
done

# ---- 5. full disk ----
f="$tmp/full"
mkdir "$f"
sed -e "s/\[0\.\.10\]/[0..19999]/" -e "s/s\[10\]/s[19999]/" "$MODEL" > "$tmp/mid.san"
# run_limited BLOCKS CMD...: CMD under ulimit -f BLOCKS
run_limited() {
    blocks=$1
    shift
    (ulimit -f "$blocks" && exec "$@") > "$tmp/out" 2>"$tmp/err"
    rc=$?
}

# full NAME FILE: the last run failed for $why and FILE still holds OLD
full() {
    status_is "$1" 1
    err_has "$1" "$why"
    check "$1: old content kept" [ "$(cat "$2")" = OLD ]
}

why="File too large"
echo OLD > "$f/v.csv"
run_limited 64 "$SAN" solve -q -D lambda=3 --vector "$f/v.csv" "$tmp/mid.san"
full "ulimit -f: --vector" "$f/v.csv"
echo OLD > "$f/m.san"
run_limited 2 "$SAN" gen ms --mode async --slaves 3 --buffer 40 -o "$f/m.san"
full "ulimit -f: gen -o" "$f/m.san"
echo OLD > "$f/h1.csv"
ln "$f/h1.csv" "$f/h2.csv"
run_limited 64 "$SAN" solve -q -D lambda=3 --vector "$f/h1.csv" "$tmp/mid.san"
full "ulimit -f: --vector into a hard link" "$f/h2.csv"
check "ulimit -f: hard link kept" [ "$(stat -c %h "$f/h1.csv")" = 2 ]
if [ $have_cairo -eq 1 ]; then
    for ext in svg png; do
        echo OLD > "$f/p.$ext"
        run_limited 4 "$SAN" sweep -q ms --mode async --slaves 2 --buffer 1,2,3 \
            --plot "$f/p.$ext" --x buffer --y slave_transmitting
        full "ulimit -f: --plot .$ext" "$f/p.$ext"
    done
    clean "ulimit -f" "$f" v.csv m.san h1.csv h2.csv p.svg p.png
else
    clean "ulimit -f" "$f" v.csv m.san h1.csv h2.csv
fi

# a real full disk: a tmpfs of 64 kB, filled up
tf="$tmp/tmpfs"
mkdir "$tf"
if [ $root -eq 1 ] && mount -t tmpfs -o size=64k tmpfs "$tf" 2>/dev/null; then
    why="No space left on device"
    for x in v.csv m.san p.svg; do echo OLD > "$tf/$x"; done
    dd if=/dev/zero of="$tf/fill" bs=4096 2>/dev/null
    run "$SAN" solve -q -D lambda=3 --vector "$tf/v.csv" "$tmp/mid.san"
    full "full tmpfs: --vector" "$tf/v.csv"
    run "$SAN" gen ms --mode async --slaves 2 --buffer 2 -o "$tf/m.san"
    full "full tmpfs: gen -o" "$tf/m.san"
    if [ $have_cairo -eq 1 ]; then
        run "$SAN" sweep -q ms --mode async --slaves 2 --buffer 1,2,3 --plot "$tf/p.svg" \
            --x buffer --y slave_transmitting
        full "full tmpfs: --plot .svg" "$tf/p.svg"
    fi
    clean "full tmpfs" "$tf" v.csv m.san p.svg fill
    umount "$tf"
else
    echo "# not root (or mount refused): the tmpfs case is skipped; ulimit -f stood in"
fi

# ---- 6. standard output: full or closed ----
while read -r label cmd; do
    for how in full closed; do
        if [ $how = full ]; then
            $LIMIT "$SAN" $cmd > /dev/full 2>"$tmp/err"
        else
            $LIMIT "$SAN" $cmd >&- 2>"$tmp/err"
        fi
        rc=$?
        status_is "$label, stdout $how" 1
        err_has "$label, stdout $how" "san: cannot write standard output"
    done
done <<EOF
solve solve -q $MODEL
solve-json solve -q -f json --vector - $MODEL
check check $MODEL
compare compare $MODEL $MODEL2
grain grain -q ms --slices-per-node 1..2 --slaves 2
size-buffer size-buffer -q ms --mode async --slaves 2 --within 0.05
print print $MODEL
gen gen ms --mode async --slaves 2 --buffer 2
gen-size gen ms --mode async --slaves 2 --buffer 2 --size
sweep sweep -q ms --mode async --slaves 2 --buffer 1,2
mw mw --workers 10..12
export export -q -f states $MODEL
map map --stages 2,2,11,6,4 -P 6
transient transient --time 1 $MODEL
passage passage --until @queue==10 --time 1 $MODEL
workrate workrate $top_srcdir/models/grid4.json
cluster cluster --perf 56939364 --inet-in 55245 --inet-out 55245 --mm-block 400 --block-multiple 400
--help --help
--version --version
help help solve
solve--help solve --help
EOF

# ---- 7. --vector - inside the report ----
"$SAN" solve -q -f json --vector - "$MODEL2" > "$tmp/v.json" 2>"$tmp/err"
check "--vector - -f json: one JSON document holding the vector" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = d["vector"]
assert len(v) == d["reachable_states"], len(v)
assert abs(sum(x["p"] for x in v) - 1) < 1e-12
assert [x["index"] for x in v] == sorted(x["index"] for x in v)
assert all(set(x) == {"index", "state", "label", "p"} for x in v)
assert all(isinstance(x["state"], dict) and x["state"] for x in v)' "$tmp/v.json"
"$SAN" solve -q -f json --vector /dev/fd/1 "$MODEL2" > "$tmp/v2.json" 2>"$tmp/err"
check "--vector /dev/fd/1 -f json: the same vector" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["vector"] == json.load(open(sys.argv[2]))["vector"]' \
    "$tmp/v.json" "$tmp/v2.json"
"$SAN" solve -q -f json "$MODEL2" > "$tmp/nov.json" 2>"$tmp/err"
check "-f json without --vector -: no vector member" python3 -c '
import json, sys
assert "vector" not in json.load(open(sys.argv[1]))' "$tmp/nov.json"
"$SAN" solve -q -f json --method power --max-iter 1 --vector - "$MODEL" > "$tmp/nc.json" 2>"$tmp/err"
rc=$?
status_is "--vector - -f json, not converged" 1
check "--vector - -f json, not converged: \"vector\": null" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["vector"] is None' "$tmp/nc.json"
"$SAN" solve -q -f csv --vector - "$MODEL2" > "$tmp/v.csv" 2>"$tmp/err"
check "--vector - -f csv: one table, vector rows" python3 -c '
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "# schema: san-output/1", lines[0]
rows = list(csv.reader(l for l in lines if not l.startswith("#")))
assert rows[0] == ["kind", "name", "state", "value"], rows[0]
assert all(len(r) == 4 for r in rows), [r for r in rows if len(r) != 4][:1]
v = [r for r in rows if r[0] == "vector"]
assert len(v) == 11 and abs(sum(float(r[3]) for r in v) - 1) < 1e-12' "$tmp/v.csv"

# transient: its report is not a place for the vector; refused
for f in json csv; do
    run "$SAN" transient -q -f $f --time 1 --vector - "$MODEL"
    status_is "transient --vector - -f $f" 2
    err_has "transient --vector - -f $f" "standard output holds the $f report"
done

harness_end
