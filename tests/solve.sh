#!/bin/sh
# Steady-state tests against closed forms; see tests/solve_test.py.
exec python3 "${top_srcdir:-.}/tests/solve_test.py"
