#!/usr/bin/env python3
"""plot_check.py - read san's plots back for tests/cli/plot.sh.

  texts SVG TEXT...        SVG has a <text> element with each TEXT
  size SVG W H             SVG's width and height are W pt and H pt
  whole-ticks SVG          the x tick labels are whole numbers (2 or more)
  decade-ticks SVG AXES    the tick labels of AXES (x, y or xy) are powers of 10
  log-ticks SVG AXES N     the tick labels of AXES are 1, 2 or 5 times powers
                           of 10, at least N of them on each, two of them
                           powers of 10, and 2 and 5 appear only on an axis
                           of at most two decades
  png-size PNG W H [DPI]   PNG's header (IHDR) says W x H pixels; its
                           pHYs chunk DPI pixels per inch (as metres)

Tick labels are the <text> elements that read as numbers: the x axis'
share the lowest row (the largest y) of centred labels, the y axis' are
right-aligned (text-anchor end).
"""
import math
import struct
import sys
import xml.etree.ElementTree as ET
import zlib


def fail(msg):
    print(msg)
    sys.exit(1)


def texts(path):
    root = ET.parse(path).getroot()
    return [e for e in root.iter() if e.tag.endswith("}text") or e.tag == "text"]


def number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def ticks(path):
    els = [e for e in texts(path) if number(e.text) is not None and e.get("transform") is None]
    mid = [e for e in els if e.get("text-anchor") == "middle"]
    if not mid:
        fail("%s: no x tick labels" % path)
    low = max(float(e.get("y")) for e in mid)
    xs = [number(e.text) for e in mid if abs(float(e.get("y")) - low) < 0.01]
    ys = [number(e.text) for e in els if e.get("text-anchor") == "end"]
    return xs, ys, [e.text for e in mid if abs(float(e.get("y")) - low) < 0.01], \
        [e.text for e in els if e.get("text-anchor") == "end"]


def check_texts(path, *want):
    have = ["".join(e.itertext()) for e in texts(path)]
    for w in want:
        if w not in have:
            fail("%s: no <text> element '%s' (have: %s)" % (path, w, have))


def size(path, w, h):
    root = ET.parse(path).getroot()
    got = (root.get("width"), root.get("height"))
    if got != (w + "pt", h + "pt"):
        fail("%s: width, height %s, expected %spt, %spt" % (path, got, w, h))


def whole_ticks(path):
    xs, _, raw, _ = ticks(path)
    if len(xs) < 2:
        fail("%s: %d x ticks %s" % (path, len(xs), raw))
    for v, t in zip(xs, raw):
        if v != math.floor(v) or "." in t:
            fail("%s: x tick '%s' on a whole axis (ticks %s)" % (path, t, raw))


def decade_ticks(path, axes):
    xs, ys, rx, ry = ticks(path)
    for axis, vals, raw in (("x", xs, rx), ("y", ys, ry)):
        if axis not in axes:
            continue
        if len(vals) < 2:
            fail("%s: %d %s ticks %s" % (path, len(vals), axis, raw))
        for v, t in zip(vals, raw):
            k = math.log10(v) if v > 0 else float("nan")
            if not abs(k - round(k)) < 1e-9:
                fail("%s: %s tick '%s' is not a power of 10 (ticks %s)" % (path, axis, t, raw))


def log_ticks(path, axes, least):
    xs, ys, rx, ry = ticks(path)
    for axis, vals, raw in (("x", xs, rx), ("y", ys, ry)):
        if axis not in axes:
            continue
        if len(vals) < int(least):
            fail("%s: %d %s ticks %s, expected %s or more" % (path, len(vals), axis, raw, least))
        decades = []
        for v, t in zip(vals, raw):
            k = math.floor(math.log10(v) + 1e-9) if v > 0 else None
            m = v / 10 ** k if k is not None else float("nan")
            if not any(abs(m - c) < 1e-9 * c for c in (1, 2, 5)):
                fail("%s: %s tick '%s' is not 1, 2 or 5 times a power of 10 (ticks %s)"
                     % (path, axis, t, raw))
            if abs(m - 1) < 1e-9:
                decades.append(k)
        if len(decades) < 2:
            fail("%s: %s ticks %s: fewer than two powers of 10" % (path, axis, raw))
        if len(vals) > len(decades) and max(decades) - min(decades) > 2:
            fail("%s: %s ticks %s: 2 and 5 labelled over more than two decades"
                 % (path, axis, raw))


def png_dpi(data):
    """The pHYs chunk's pixels per inch, or None."""
    at = 8
    while at + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            crc = struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]
            if unit != 1 or x != y or crc != zlib.crc32(data[at + 4:at + 8 + n]):
                fail("pHYs: %d x %d per unit %d, crc %08x" % (x, y, unit, crc))
            return x * 0.0254
        if kind == b"IDAT":
            return None
        at += 12 + n
    return None


def png_size(path, w, h, dpi=None):
    data = open(path, "rb").read()
    head = data[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        fail("%s: not a PNG with its IHDR first" % path)
    got = struct.unpack(">II", head[16:24])
    if got != (int(w), int(h)):
        fail("%s: %dx%d pixels, expected %sx%s" % (path, got[0], got[1], w, h))
    if dpi is not None:
        have = png_dpi(data)
        if have is None or abs(have - float(dpi)) > 0.05:
            fail("%s: pHYs says %s dpi before IDAT, expected %s" % (path, have, dpi))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"texts": check_texts, "size": size, "whole-ticks": whole_ticks,
     "decade-ticks": decade_ticks, "log-ticks": log_ticks, "png-size": png_size}[cmd](*args)
