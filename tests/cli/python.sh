#!/bin/sh
# The Python package (python/) under pytest: its bindings (functions
# only, each declared and exported: test_api.py), its answers against
# closed forms and the san command, the tutorial of doc/python.md.
# Debian's python3 has numpy, pandas, scipy and pytest (python3-numpy
# python3-pandas python3-scipy python3-pytest);
# another python3 earlier in PATH may not.  Needs the shared libsan.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
lib=$top_builddir/.libs/libsan.so
if [ ! -e "$lib" ]; then
    echo "skip: no shared libsan ($lib): configure --enable-shared"
    exit 77
fi
# A sanitized libsan loaded by python needs the sanitizers' runtimes
# loaded first; python's own allocations are not ours to check for leaks.
if [ -n "${SAN_SANITIZERS:-}" ]; then
    preload=
    for rt in libasan.so libubsan.so; do
        f=$(${CC:-gcc} -print-file-name=$rt 2>/dev/null)
        case $f in /*) [ -e "$f" ] && preload="$preload${preload:+ }$f" ;; esac
    done
    if [ -z "$preload" ]; then
        echo "skip: a sanitized libsan, and no sanitizer runtime to preload into python"
        exit 77
    fi
    LD_PRELOAD=$preload
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export LD_PRELOAD ASAN_OPTIONS
fi
for py in python3 /usr/bin/python3; do
    if "$py" -c "import numpy, pandas, scipy.sparse.linalg, pytest" 2>/dev/null; then
        # nothing written into the source tree (distcheck makes it read-only)
        PYTHONDONTWRITEBYTECODE=1 SAN_LIBRARY=$lib PYTHONPATH="$top_srcdir/python" \
            exec "$py" -m pytest -q -p no:cacheprovider "$top_srcdir/python/tests"
    fi
done
echo "skip: no python3 with numpy, pandas, scipy and pytest (see scripts/bootstrap.sh)"
exit 77
