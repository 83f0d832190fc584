#!/bin/sh
# san export's round trips through scipy, a PRISM reader and graphviz;
# see tests/cli/export_test.py.  Debian's python3 has numpy and scipy
# (python3-scipy); another python3 earlier in PATH may not.
for py in python3 /usr/bin/python3; do
    if "$py" -c "import numpy, scipy.sparse.linalg" 2>/dev/null; then
        exec "$py" "${top_srcdir:-.}/tests/cli/export_test.py"
    fi
done
echo "skip: no python3 with numpy and scipy (apt-get install python3-scipy)"
exit 77
