#!/bin/sh
# scripts/ci-petsc.sh [BUILDDIR] - build san with PETSc (libpetsc-real-dev
# from Debian, which brings Open MPI) in a build of its own and compare
# mpirun -n 1, 2, 4 san solve, transient and passage --engine petsc with
# the serial ones (tests/cli/petsc.sh), and check the layering of its
# objects (tests/arch/layers.py).  The last line is "N passed, M failed (petsc)".
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd) || exit 2
build=${1:-$srcdir/build-petsc}
say() { echo "ci-petsc: $*" >&2; }

if ! dpkg-query -W -f='${Status}' libpetsc-real-dev 2>/dev/null | grep -q "install ok installed"; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    say "installing libpetsc-real-dev"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libpetsc-real-dev >/dev/null ||
        { say "cannot install libpetsc-real-dev"; exit 2; }
fi

# a pristine copy of the committed sources (the tree is configured in place)
rm -rf "$build"
mkdir -p "$build" || exit 2
build=$(cd "$build" && pwd)
git clone -q "$srcdir" "$build/src" || exit 2
[ -d "$srcdir/../shared" ] && ln -s "$srcdir/../shared" "$build/shared"
cd "$build/src" || exit 2
autoreconf -fi >"$build/autoreconf.log" 2>&1 || { cat "$build/autoreconf.log"; exit 2; }
./configure --with-petsc >"$build/configure.log" 2>&1 || { tail -n 30 "$build/configure.log"; exit 2; }
make -j"$(nproc 2>/dev/null || echo 2)" >"$build/make.log" 2>&1 || { tail -n 40 "$build/make.log"; exit 2; }
SAN=$PWD/san top_srcdir=$PWD sh tests/cli/petsc.sh > "$build/petsc.log" 2>&1
status=$?
# the layering of the PETSc-linked objects (solver/petsc over space,
# numeric and transient, under analysis): a build the plain CI never makes
if ! top_srcdir=$PWD top_builddir=$PWD python3 tests/arch/layers.py > "$build/layers.log" 2>&1; then
    tail -n 20 "$build/layers.log"
    status=1
fi
if grep -q "^skip:" "$build/petsc.log"; then
    say "the comparison was skipped in the PETSc build"
    status=1
fi
[ $status -eq 0 ] || tail -n 40 "$build/petsc.log"
line=$(tail -n 1 "$build/petsc.log")
echo "$line (petsc)"
exit $status
