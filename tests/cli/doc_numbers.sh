#!/bin/sh
# The buffer and grain figures of the docs, run; see
# tests/cli/doc_numbers.py.
exec python3 "${top_srcdir:-.}/tests/cli/doc_numbers.py"
