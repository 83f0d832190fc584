#!/bin/sh
# thr() in results against closed forms and hand-built chains; see
# tests/cli/throughput_test.py.
exec python3 "${top_srcdir:-.}/tests/cli/throughput_test.py"
