#!/bin/sh
# Exact lumping of replicas against the unlumped solve, symmetry
# breakers and closed forms; see tests/cli/lump_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/lump_test.py"
