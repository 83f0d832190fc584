#!/bin/sh
# Transient and passage on the lumped chain against --lump off and
# closed forms; see tests/cli/lump_time_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/lump_time_test.py"
