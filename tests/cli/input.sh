#!/bin/sh
# input.sh - model input that cannot be used, in every subcommand that
# reads a model (check, print, solve, export, transient, passage, sweep,
# compare):
#
#   a directory, a file that does not exist, a file without read
#   permission: "san: FILE: is a directory" (no such file, permission
#   denied), exit 2; an input over the limit (/dev/zero, a sparse file
#   larger than the default 256 MiB, a file one byte over --max-input,
#   --max-memory smaller than --max-input): "larger than the input limit
#   of ...; raise --max-input" (or --max-memory), exit 2, at once;
#   a read that fails (/proc/self/mem): exit 1; a FIFO and standard
#   input are read to their end.  workrate's topology and map's --batch
#   file are read the same way; size-buffer and grain take templates
#   only: a directory is refused as one (exit 2).
#
# Permission denied is tested as an unprivileged user: directly, or as
# root through setpriv (root reads anything); skipped with a message when
# neither is possible.
#
# Environment: SAN (the san binary), top_srcdir.  Exit 0 when everything
# passes, 1 otherwise; the last line is "N passed, M failed".

. "$(dirname "$0")/../lib/harness.sh"

need_san input.sh

model=$top_srcdir/models/mm1k.san

# expect CMD... : run, then compare status and the first line of stderr
# with $want_rc and $want_err (a fixed string)
expect() {
    what=$1
    shift
    run "$@"
    why=$(abnormal)
    first=$(head -n 1 "$tmp/err")
    if [ -n "$why" ]; then
        not_ok "$what: $why"
    elif [ "$rc" -ne "$want_rc" ]; then
        not_ok "$what: exit $rc, expected $want_rc ($first)"
    elif [ "$first" != "$want_err" ]; then
        not_ok "$what: said '$first', expected '$want_err'"
    else
        ok "$what"
    fi
}

# each STATUS MESSAGE FILE [PREFIX...]: every subcommand that reads a
# model, on FILE (run through PREFIX); sweep and compare, which also take
# templates, add $also to the message
each() {
    want_rc=$1
    want_err=$2
    file=$3
    shift 3
    expect "check $file" "$@" "$SAN" check "$file"
    expect "print $file" "$@" "$SAN" print "$file"
    expect "solve $file" "$@" "$SAN" solve "$file"
    expect "export $file" "$@" "$SAN" export -f mtx "$file"
    expect "transient $file" "$@" "$SAN" transient --time 1 "$file"
    expect "passage $file" "$@" "$SAN" passage --until 'st queue == s[0]' "$file"
    want_err=$want_err${also:-}
    expect "sweep $file" "$@" "$SAN" sweep -q "$file"
    expect "compare $file" "$@" "$SAN" compare "$model" "$file"
}

# ---- a directory, a missing file ----
mkdir "$tmp/dir"
each 2 "san: $tmp/dir: is a directory" "$tmp/dir"
also=" (nor a template: ms, pipeline, mw or cluster)" each 2 "san: $tmp/none.san: no such file" \
    "$tmp/none.san"
also=""
want_err="san: standard input: is a directory"
expect "check - from a directory" sh -c '"$0" check - <"$1"' "$SAN" "$tmp/dir"
# the other inputs read the same way: a topology, a batch of pipelines
want_rc=2
want_err="san: $tmp/dir: is a directory"
expect "workrate of a directory" "$SAN" workrate "$tmp/dir"
expect "map --batch of a directory" "$SAN" map --batch "$tmp/dir" -P 4
want_err="san: $tmp/none.txt: no such file"
expect "workrate of a missing file" "$SAN" workrate "$tmp/none.txt"
expect "map --batch of a missing file" "$SAN" map --batch "$tmp/none.txt" -P 4
for c in size-buffer grain; do
    run "$SAN" $c "$tmp/dir"
    if [ "$rc" -eq 2 ]; then ok "$c of a directory: exit 2"; else not_ok "$c of a directory: exit $rc"; fi
done

# ---- permission denied ----
mkdir "$tmp/locked"
cp "$model" "$tmp/locked/m.san"
chmod 000 "$tmp/locked/m.san"
chmod 755 "$tmp/locked"
chmod 711 "$tmp"
as_user=""
if [ "$(id -u)" -ne 0 ]; then
    as_user=" "
elif command -v setpriv >/dev/null 2>&1 &&
     setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ -z "$as_user" ]; then
    echo "SKIP - permission denied: running as root without setpriv (root reads anything)"
else
    # shellcheck disable=SC2086
    each 2 "san: $tmp/locked/m.san: permission denied" "$tmp/locked/m.san" $as_user
fi

# ---- over the input limit ----
want_rc=2
want_err="san: /dev/zero: larger than the input limit of 64 KiB; raise --max-input"
expect "check --max-input 64k /dev/zero" "$SAN" check --max-input 64k /dev/zero
expect "print --max-input 64k /dev/zero" "$SAN" print --max-input 64k /dev/zero
expect "solve --max-input 64k /dev/zero" "$SAN" solve --max-input 64k /dev/zero
expect "export --max-input 64k /dev/zero" "$SAN" export -f mtx --max-input 64k /dev/zero
expect "transient --max-input 64k /dev/zero" "$SAN" transient --time 1 --max-input 64k /dev/zero
expect "sweep --max-input 64k /dev/zero" "$SAN" sweep -q --max-input 64k /dev/zero
expect "compare --max-input 64k /dev/zero" "$SAN" compare --max-input 64k "$model" /dev/zero
want_err="san: /dev/zero: larger than the input limit of 32 KiB; raise --max-memory"
expect "solve --max-memory 32k /dev/zero" "$SAN" solve --max-memory 32k /dev/zero
expect "sweep --max-memory 32k /dev/zero" "$SAN" sweep -q --max-memory 32k /dev/zero
# the default limit, on a sparse file: refused from its size, unread
if truncate -s 300M "$tmp/huge.san" 2>/dev/null; then
    want_err="san: $tmp/huge.san: larger than the input limit of 256 MiB; raise --max-input"
    t0=$(date +%s)
    expect "check of 300 MiB (the default limit)" "$SAN" check "$tmp/huge.san"
    if [ $(($(date +%s) - t0)) -le 2 ]; then
        ok "a file over the limit is refused at once"
    else
        not_ok "a file over the limit took $(($(date +%s) - t0)) s to refuse"
    fi
    rm -f "$tmp/huge.san"
fi
# exactly at the limit is read; one byte over is not
size=$(wc -c <"$model" | tr -d ' ')
run "$SAN" check --max-input "$size" "$model"
if [ "$rc" -eq 0 ]; then ok "a model of exactly --max-input bytes"; else not_ok "--max-input $size on $size bytes: exit $rc"; fi
want_err="san: $model: larger than the input limit of $((size - 1)) B; raise --max-input"
expect "a model one byte over --max-input" "$SAN" check --max-input $((size - 1)) "$model"
want_err="san: standard input: larger than the input limit of $((size - 1)) B; raise --max-input"
expect "standard input one byte over --max-input" \
    sh -c '"$0" check --max-input "$1" - <"$2"' "$SAN" $((size - 1)) "$model"
run "$SAN" check --max-input 0 "$model"
if [ "$rc" -eq 2 ]; then ok "--max-input 0 is a usage error"; else not_ok "--max-input 0: exit $rc"; fi

# ---- a read that fails: the system's error, exit 1 ----
if [ -r /proc/self/mem ]; then
    want_rc=1
    want_err="san: /proc/self/mem: Input/output error"
    expect "check of /proc/self/mem (EIO)" "$SAN" check /proc/self/mem
    expect "solve of /proc/self/mem (EIO)" "$SAN" solve /proc/self/mem
fi

# ---- a FIFO and standard input are read to their end ----
if mkfifo "$tmp/fifo" 2>/dev/null; then
    for c in check print solve; do
        cat "$model" >"$tmp/fifo" &
        run "$SAN" $c "$tmp/fifo"
        wait
        if [ "$rc" -eq 0 ]; then ok "$c of a FIFO"; else not_ok "$c of a FIFO: exit $rc"; fi
    done
else
    echo "SKIP - FIFO: mkfifo failed"
fi
run sh -c '"$0" check - <"$1"' "$SAN" "$model"
if [ "$rc" -eq 0 ]; then ok "check - reads standard input"; else not_ok "check - failed: exit $rc"; fi

harness_end
