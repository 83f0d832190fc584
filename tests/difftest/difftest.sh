#!/bin/sh
# The differential tester (tests/difftest/difftest.py) in make check: a few
# hundred runs of every method on both storages over random small SANs
# of every family, each against an independent dense GTH solve, then the
# models that once failed (tests/regress/difftest), against their stored
# references.  Thousands of runs: `make difftest-long`.
top=${top_srcdir:-.}
python3 "$top/tests/difftest/difftest.py" --count "${DIFFTEST_COUNT:-4}" --seed "${DIFFTEST_SEED:-7}" || exit 1
exec python3 "$top/tests/difftest/difftest.py" --regress "$top/tests/regress/difftest"
