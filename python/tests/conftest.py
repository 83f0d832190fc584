"""Where the tests find san, the models and the library (make check sets
SAN, top_srcdir and SAN_LIBRARY; by hand, the defaults of a build in the
source tree)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("top_srcdir", os.path.join(HERE, "..", ".."))
BUILD = os.environ.get("top_builddir", TOP)
SAN = os.environ.get("SAN", os.path.join(BUILD, "san"))
MODELS = os.path.join(TOP, "models")
sys.path.insert(0, os.path.join(TOP, "python"))
os.environ.setdefault("SAN_LIBRARY", os.path.join(BUILD, ".libs", "libsan.so"))
