#!/bin/sh
# make bench: solve a set of models with several methods, print a table.
# Usage: bench/run.sh SAN [quick|full|long]
exec python3 "$(dirname "$0")/bench.py" "$@"
