#!/bin/sh
# Random symmetric SANs lump, their symmetry-breaking mutants never lump
# the replica concerned with the others (san check --lump); see
# tests/cli/lump_mutants.py.  200 mutants here (about 250 san check runs,
# 18 s of CPU); make bench-long runs 1,000.
exec python3 "${top_srcdir:-.}/tests/cli/lump_mutants.py" --count "${LUMP_MUTANTS:-200}"
