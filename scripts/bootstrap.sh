#!/bin/sh
# Set up a fresh Debian 12 machine and build san: install the Debian
# packages the build and its tests need (when missing; chromium renders
# the page of `san report` in make check), generate the build system,
# configure and compile.  Idempotent: a second run only rebuilds.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential autoconf automake libtool pkg-config flex bison \
libsuitesparse-dev libopenblas-dev libcairo2-dev python3 \
python3-numpy python3-pandas python3-scipy python3-pytest python3-jsonschema \
chromium"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "bootstrap: installing$missing" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure ${SAN_CONFIGURE_FLAGS:-}
make -j"$(nproc 2>/dev/null || echo 2)"
