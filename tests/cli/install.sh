#!/bin/sh
# The installed tree, as a user of the library sees it: `make install`
# into a temporary DESTDIR, every file where it belongs, the example
# program of san(3) (taken from the page itself, so the page cannot go
# stale) compiled with `pkg-config --cflags --libs libsan` and run
# against the installed shared library, its numbers those of the
# installed `san solve`; the bash completion loaded and asked.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
harness_limit=120
. "$(dirname "$0")/../lib/harness.sh"
need_san install

# a make of its own: not the jobserver of the `make check` that runs us
unset MAKEFLAGS MFLAGS MAKELEVEL
root=$tmp/root
run make -C "$top_builddir" install DESTDIR="$root"
if [ "$rc" -ne 0 ]; then
    not_ok "make install DESTDIR: exit $rc: $(tail -5 "$tmp/err")"
    echo "$pass passed, $fail failed"
    exit 1
fi
ok "make install"

pc=$(find "$root" -name libsan.pc | head -1)
if [ -z "$pc" ]; then
    not_ok "no libsan.pc installed"
    echo "$pass passed, $fail failed"
    exit 1
fi
ok "libsan.pc installed"
prefix_dir=$(dirname "$(dirname "$(dirname "$pc")")")    # .../lib/pkgconfig/libsan.pc
libdir=$(dirname "$(dirname "$pc")")
for f in bin/san include/san.h include/san/export.h include/san/analyze.h \
         share/man/man1/san.1 share/man/man3/san.3 share/man/man5/san.5 \
         share/bash-completion/completions/san; do
    if [ -e "$prefix_dir/$f" ]; then ok "$f"; else not_ok "$f not installed under $prefix_dir"; fi
done
for f in libsan.so libsan.a; do
    if [ -e "$libdir/$f" ]; then ok "$f"; else not_ok "$f not installed in $libdir"; fi
done
# the shared library carries configure.ac's interface version: SONAME
# libsan.so.(current - age), so that a program linked against one
# interface never loads an incompatible one
v=$(sed -n 's/^AC_SUBST(\[SAN_LT_VERSION\], \[\([0-9]*:[0-9]*:[0-9]*\)\])/\1/p' \
    "$top_srcdir/configure.ac")
want=libsan.so.$(( ${v%%:*} - ${v##*:} ))
soname=$(objdump -p "$libdir/libsan.so" 2>/dev/null | sed -n 's/^ *SONAME *//p')
if [ -n "$v" ] && [ "$soname" = "$want" ] && [ -e "$libdir/$want" ]; then
    ok "SONAME $soname (interface $v)"
else
    not_ok "SONAME '$soname', expected $want from SAN_LT_VERSION '$v'"
fi

# the installed command runs on its own
run "$prefix_dir/bin/san" --version
if [ "$rc" -eq 0 ] && grep -q "^san " "$tmp/out"; then ok "installed san --version"
else not_ok "installed san --version: exit $rc"; fi

# the example of san(3): the lines between its markers, roff escapes undone
sed -n '/^\.\\" example begins/,/^\.\\" example ends/p' "$top_srcdir/doc/san.3" |
    sed -e '/^\.\\"/d' -e '/^\.EX/d' -e '/^\.EE/d' -e 's/\\-/-/g' -e 's/\\e/\\/g' > "$tmp/solve.c"
if grep -q "san_analyze" "$tmp/solve.c"; then ok "example extracted"; else not_ok "no example in san.3"; fi
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root"
cflags=$(pkg-config --cflags libsan) && libs=$(pkg-config --libs libsan)
case "$cflags" in *"$root"*) ok "pkg-config --cflags";; *) not_ok "pkg-config --cflags: '$cflags'";; esac
# A sanitized libsan needs its runtime in the program too (first in the
# list of libraries): the example is built with the same flags.
run ${CC:-cc} -Wall -Werror ${SAN_SANITIZERS:-} $cflags "$tmp/solve.c" $libs -o "$tmp/solve"
if [ "$rc" -eq 0 ]; then ok "example compiled with pkg-config"
else not_ok "example does not compile: $(head -5 "$tmp/err")"; fi

# and against the static library, with the dependencies --static lists
run ${CC:-cc} ${SAN_SANITIZERS:-} $cflags "$tmp/solve.c" -Wl,-Bstatic $(pkg-config --libs-only-L libsan) -lsan \
    -Wl,-Bdynamic $(pkg-config --static --libs libsan | sed 's/-lsan //') -o "$tmp/solve_static"
if [ "$rc" -eq 0 ]; then ok "example linked with libsan.a (pkg-config --static)"
else not_ok "example does not link statically: $(head -5 "$tmp/err")"; fi

model=$top_srcdir/models/mm1k.san
run env LD_LIBRARY_PATH="$libdir" "$tmp/solve" "$model"
cp "$tmp/out" "$tmp/example.out"
if [ "$rc" -eq 0 ] && grep -q "converged" "$tmp/example.out"; then ok "example runs"
else not_ok "example: exit $rc: $(head -3 "$tmp/err")"; fi
run "$tmp/solve_static" "$model"
if [ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/example.out"; then ok "static example, same output"
else not_ok "static example: exit $rc, output differs"; fi
# linked to the installed shared library, not to some other copy
run env LD_LIBRARY_PATH="$libdir" ldd "$tmp/solve"
if grep -q "$libdir/libsan.so" "$tmp/out"; then ok "example uses the installed libsan.so"
else not_ok "example's libsan: $(grep libsan "$tmp/out")"; fi

run "$prefix_dir/bin/san" solve -q -f csv --tol 1e-10 "$model"
# san's CSV (kind,name,state,value) against the example's "result NAME VALUE"
bad=$(awk 'NR == FNR { split($0, f, ","); if (f[1] == "result") want[f[2]] = f[4]; next }
           { split($0, f, " ") }
           f[1] == "result" { n++; d = f[3] - want[f[2]]; if (d < 0) d = -d;
                              if (!(f[2] in want) || d > 1e-9) print f[2] }
           END { if (n < 4) print "too few results" }' "$tmp/out" "$tmp/example.out")
if [ -z "$bad" ]; then ok "example's results are san solve's"
else not_ok "example's results differ from san solve's: $bad"; fi

# bash completion: subcommands, options, formats
comp=$prefix_dir/share/bash-completion/completions/san
if command -v bash >/dev/null 2>&1; then
    run bash -c '
        . "$1"; san=$2
        complete_line() { COMP_WORDS=("$@"); COMP_WORDS[0]=$san; COMP_CWORD=$(($# - 1)); _san; echo "${COMPREPLY[*]}"; }
        complete_line san ex
        complete_line san export --fo
        complete_line san export -f pr
        complete_line san solve --met' _ "$comp" "$prefix_dir/bin/san"
    expect="export
--format
prism
--method"
    if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "$expect" ]; then ok "bash completion"
    else not_ok "bash completion: $(cat "$tmp/out" "$tmp/err" | tr '\n' '|')"; fi
fi

run make -C "$top_builddir" uninstall DESTDIR="$root"
left=$(find "$root" -type f | head -5)
if [ "$rc" -eq 0 ] && [ -z "$left" ]; then ok "make uninstall"
else not_ok "make uninstall left: $left"; fi

harness_end
