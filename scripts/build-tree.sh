# scripts/build-tree.sh - sourced by the scripts that build san out of
# tree (ci-sanitize.sh, ci-tsan.sh): build_tree SRCDIR BUILDDIR sets
# $obj (the directory to configure and build in) and $configure (the
# configure script to run there), $build made absolute.
#
# configure refuses an out-of-tree build while the source tree holds an
# in-tree configuration (config.status), as it does after bootstrap.sh.
# Then the sources git sees (tracked and untracked, not ignored) are copied
# to BUILDDIR/src, with BUILDDIR/shared pointing at the shared/ beside the
# tree, and BUILDDIR/obj is configured from there: still a VPATH build.
# Otherwise BUILDDIR itself is configured with the tree's configure.
# Messages go through the caller's say(); returns non-zero on failure.

build_tree() {
    srcdir=$1
    build=$2
    mkdir -p "$build" || return 2
    build=$(cd "$build" && pwd)

    if [ ! -x "$srcdir/configure" ]; then
        say "generating configure (autoreconf -fi)"
        (cd "$srcdir" && autoreconf -fi) || return 2
    fi

    if [ ! -f "$srcdir/config.status" ]; then
        obj=$build
        configure=$srcdir/configure
        return 0
    fi
    # An in-tree configuration: VPATH would pick up its objects.  Build
    # from a pristine copy of the sources instead.
    if ! git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        say "$srcdir is configured in tree and is not a git checkout;"
        say "run 'make distclean' there first, or use a git checkout"
        return 2
    fi
    src=$build/src
    obj=$build/obj
    rm -rf "$src" "$obj"
    mkdir -p "$src" "$obj" || return 2
    case $build in
        "$srcdir"/*) skip=${build#"$srcdir"/}/ ;;
        *) skip=/nonexistent/ ;;
    esac
    say "copying the sources to $src (the tree is configured in place)"
    (cd "$srcdir" && git ls-files --cached --others --exclude-standard) |
        grep -v "^$skip" | grep -v '^fuzz-work/' > "$build/files" || return 2
    # files listed by git but deleted in the work tree are skipped
    while IFS= read -r f; do
        [ -f "$srcdir/$f" ] && printf '%s\n' "$f"
    done < "$build/files" > "$build/files.present"
    tar -C "$srcdir" -cf - -T "$build/files.present" | tar -C "$src" -xf - || return 2
    rm -f "$build/files" "$build/files.present"
    # the tests find the shared models at $top_srcdir/../shared/models
    if [ -d "$srcdir/../shared" ]; then
        rm -f "$build/shared"
        ln -s "$srcdir/../shared" "$build/shared"
    fi
    (cd "$src" && autoreconf -fi >"$build/autoreconf.log" 2>&1) ||
        { cat "$build/autoreconf.log" >&2; return 2; }
    configure=../src/configure
    return 0
}
