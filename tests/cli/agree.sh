#!/bin/sh
# san check and san solve agree on what a model is; see
# tests/cli/agree_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/agree_test.py"
