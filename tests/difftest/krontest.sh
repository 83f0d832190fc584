#!/bin/sh
# The descriptor's auto against the sparse storage's
# (tests/difftest/krontest.py): random models of san gen's templates,
# a few to tens of thousands of states, solved by auto on both storages;
# a model fails when kron refuses what sparse answers or the two answers
# differ by more than 1e-9 relative.  Issue 34's target counts 1,000:
# KRONTEST_COUNT=1000 (make bench-long runs them).  Then a few random
# repairable systems (issue 27's family; bench-long runs 200).
top=${top_srcdir:-.}
exec python3 "$top/tests/difftest/krontest.py" --count "${KRONTEST_COUNT:-60}" --repair "${KRONTEST_REPAIR:-6}" --seed "${KRONTEST_SEED:-1}"
