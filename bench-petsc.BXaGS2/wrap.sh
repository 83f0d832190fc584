#!/bin/sh
exec /usr/bin/time -f "maxrss %M" -o "/work/wt-petsc20/bench-petsc.BXaGS2/rss.$$" "$@"
