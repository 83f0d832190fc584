#!/bin/sh
# Steady-state tests against closed forms; see tests/cli/solve_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/solve_test.py"
