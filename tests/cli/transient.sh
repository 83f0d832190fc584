#!/bin/sh
# Time-dependent tests against closed forms and a matrix exponential; see
# tests/cli/transient_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/transient_test.py"
