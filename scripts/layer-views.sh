#!/bin/sh
# layer-views.sh SRCDIR BUILDDIR VIEWS - the include path of each layer
# of libsan (Makefile.am), as issue 30 asks: the include path is the
# layering.
#
# For every folder of LAYERS in SRCDIR/tests/arch/layers.py (the one
# place the order is written), VIEWS/NAME (NAME: the folder, '/' as '_')
# gets two roots, src/ and build/, holding links to the folder itself
# and to the folders of the layers below it, in the source tree and in
# the build tree (where bison writes lang/parser.h); build/ links
# config.h too.  A layer compiles with -I VIEWS/NAME/src -I
# VIEWS/NAME/build and the public include/ only, so that
# #include "solver/analysis/indices.h" in solver/space/ is "No such
# file": a header of a layer above, or beside, is out of reach.
# INCLUDE_OK of layers.py names the single headers a folder may include
# against that order; each gets a link of its own.
#
# Written with sh, sed and ln only (python is not a build dependency).
# Exit 0, or 2 when layers.py cannot be read.
set -eu
src=$1
bld=$2
views=$3
py=$src/tests/arch/layers.py

# "folder level" lines of the LAYERS dict ("base": 0,)
layers=$(sed -n '/^LAYERS = {/,/^}/s/^ *"\([^"]*\)": *\([0-9][0-9]*\),.*/\1 \2/p' "$py")
# "folder header..." lines of the INCLUDE_OK dict ("f": ["h", ...],)
allowed=$(sed -n '/^INCLUDE_OK = {/,/^}/s/^ *"\([^"]*\)": *\[\(.*\)\].*/\1 \2/p' "$py" |
    tr -d '",')
if [ -z "$layers" ]; then
    echo "layer-views.sh: no LAYERS read from $py" >&2
    exit 2
fi

# link TARGET under ROOT as PATH (its parent folders made real)
link() {
    mkdir -p "$1/$(dirname "$3")"
    ln -s "$2" "$1/$3"
}

rm -rf "$views"
mkdir -p "$views"
# the command (cli, over tool) stands on the public include/ alone: its
# views hold no folder of libsan
command() { case $1 in cli|tool) return 0 ;; esac; return 1; }
echo "$layers" | while read -r f level; do
    v=$views/$(echo "$f" | tr / _)
    mkdir -p "$v/src" "$v/build"
    echo "$layers" | while read -r g lg; do
        if command "$f" && ! command "$g"; then
            continue
        fi
        if [ "$g" = "$f" ] || [ "$lg" -lt "$level" ]; then
            link "$v/src" "$src/$g" "$g"
            mkdir -p "$bld/$g"
            link "$v/build" "$bld/$g" "$g"
        fi
    done
    echo "$allowed" | while read -r g headers; do
        [ "$g" = "$f" ] || continue
        for h in $headers; do
            link "$v/src" "$src/$h" "$h"
        done
    done
    ln -s "$bld/config.h" "$v/build/config.h"
done
