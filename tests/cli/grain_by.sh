#!/bin/sh
# san grain --by: the recommendation is the best of its table on its
# rule; see tests/cli/grain_by_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/grain_by_test.py"
