"""Where the tests find san, the models and the library (make check sets
SAN, top_srcdir and SAN_LIBRARY; by hand, the defaults of a build in the
source tree): tests/lib/santest.py's, shared with the command's tests,
with its helpers."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
from santest import BUILD, MODELS, SAN, TOP, output, sparse_stationary  # noqa: E402,F401

sys.path.insert(0, os.path.join(TOP, "python"))
os.environ.setdefault("SAN_LIBRARY", os.path.join(BUILD, ".libs", "libsan.so"))
