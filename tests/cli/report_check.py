#!/usr/bin/env python3
"""report_check.py - a `san report` page, read back (tests/cli/report.sh).

usage: report_check.py SAN PAGE.html DOM.html CONSOLE.log SHOT.png

- the embedded data (the <script type="application/json" id="san-data">
  block) parses, and each analysis' report equals a fresh run of its
  command line (`san KIND ARGS -f json -q`) but for the timings and the
  command line's argv[0];
- the heading is the study's title, its <, & and quotes intact;
- the page loads nothing from elsewhere (no src/href to a URL, no <link>,
  no @import);
- DOM.html, the DOM chromium dumped after the page's script ran: the
  script finished (data-san-ready="1") with no error (data-san-errors="0");
  every variant's values, in each table cell's data-v, equal the report's
  (sweep: every result of every row; size-buffer: each configuration's
  buffer, value, limit and every point of its curve; grain: every index of
  every grain; compare: every model's value of every index); each analysis
  but compare has a figure; legends name the parameter once ("mode", then
  "sync", "async", never "mode=sync");
- CONSOLE.log, the browser's stderr: no "Uncaught" error, no console
  message;
- SHOT.png: a PNG that is not blank (several colours, some ink).
"""
import json
import re
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser

fails = []


def fail(msg):
    fails.append(msg)


def embedded(page):
    m = re.search(r'<script type="application/json" id="san-data">(.*?)</script>', page, re.S)
    if not m:
        fail("no san-data block")
        return None
    return json.loads(m.group(1))


def strip(doc):
    """The report without what differs between two runs of it."""
    if isinstance(doc, dict):
        return {k: strip(v) for k, v in doc.items()
                if not k.endswith("_s") and k != "command_line"}
    if isinstance(doc, list):
        return [strip(v) for v in doc]
    return doc


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return "%s: %r against %r" % (path, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s: only in one" % (path, k)
            d = first_difference(a[k], b[k], path + "." + k)
            if d:
                return d
    elif isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d items against %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
    elif a != b:
        return "%s: %r against %r" % (path, a, b)
    return None


class Dom(HTMLParser):
    """Table cells by analysis, (data-k, data-row) -> data-v; the body's
    state; each section's figures and legend texts."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.cells = {}
        self.figures = {}
        self.texts = {}
        self.section = None
        self.in_text = False
        self.external = []
        self.h1 = None
        self.in_h1 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "section" and "data-analysis" in a:
            self.section = a["data-analysis"]
            self.cells[self.section] = {}
            self.figures[self.section] = 0
            self.texts[self.section] = []
        if tag == "td" and self.section and "data-k" in a and "data-row" in a:
            self.cells[self.section][(a["data-k"], a["data-row"])] = a.get("data-v")
        if tag == "svg" and self.section:
            self.figures[self.section] += 1
        self.in_text = tag == "text" and self.section is not None
        self.in_h1 = tag == "h1"
        for k in ("src", "href"):
            if re.match(r"\s*(https?:)?//", a.get(k) or ""):
                self.external.append("<%s %s=%s>" % (tag, k, a[k]))
        if tag == "link":
            self.external.append("<link>")

    def handle_data(self, data):
        if self.in_h1:
            self.h1 = (self.h1 or "") + data
        if self.in_text:
            self.texts[self.section].append(data)

    def handle_endtag(self, tag):
        if tag == "text":
            self.in_text = False
        if tag == "h1":
            self.in_h1 = False


def check_cells(name, cells, expect):
    """expect: [(data-k, data-row, value)]: each cell equals its value."""
    if not expect:
        fail("%s: nothing to look for" % name)
    for k, row, v in expect:
        got = cells.get((k, str(row)))
        if got is None:
            fail("%s: no cell %s of row %s in the DOM" % (name, k, row))
            continue
        want = v if isinstance(v, str) else repr(v)
        try:
            same = float(got) == float(v)
        except (TypeError, ValueError):
            same = got == want
        if not same:
            fail("%s: cell %s of row %s is %s, the report says %r" % (name, k, row, got, v))


def expected(a):
    doc, out = a["output"], []
    if a["kind"] == "sweep":
        for r in doc["rows"]:
            for n, v in r["results"].items():
                out.append(("results." + n, r["variant"], v))
            for p, v in r["parameters"].items():
                # the page shows the parameters that vary where they apply
                if len({json.dumps(x["parameters"][p]) for x in doc["rows"]
                        if x["parameters"][p] is not None}) > 1:
                    out.append(("parameters." + p, r["variant"], v))
    elif a["kind"] == "size-buffer":
        for i, c in enumerate(doc["configurations"]):
            for k in ("buffer", "value", "limit"):
                if c.get(k) is not None:
                    out.append((k, i, c[k]))
            for j, (kk, v) in enumerate(c.get("curve") or []):
                out.append(("curve.K", "%d.%d" % (i, j), kk))
                out.append(("curve.value", "%d.%d" % (i, j), v))
    elif a["kind"] == "grain":
        for i, c in enumerate(doc["configurations"]):
            if c["recommended"] is not None:
                out.append(("recommended", i, c["recommended"]))
            for j, g in enumerate(c["grains"]):
                for k, v in g.items():
                    if k not in ("grain", "error") and v is not None:
                        out.append(("grains." + k, "%d.%d" % (i, j), v))
    elif a["kind"] == "compare":
        for n, c in doc["results"].items():
            for i, v in enumerate(c["values"]):
                if v is not None:
                    out.append(("values.%d" % i, n, v))
    return out


def png_pixels(path):
    """(width, height, set of colours, count of non-white pixels) of an
    8-bit RGB or RGBA PNG, read with zlib alone."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("PNG of depth %d, colour type %d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours, ink = set(), 0
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp * 3):     # every third pixel: enough
            px = bytes(line[x:x + 3])
            colours.add(px)
            ink += px != b"\xff\xff\xff"
        prev = line
    return w, h, colours, ink * 3


def main():
    san, page_path, dom_path, console_path, shot = sys.argv[1:6]
    page = open(page_path, encoding="utf-8").read()
    data = embedded(page)
    if data is None:
        return 1
    if data.get("schema") != "san-report/1":
        fail("schema %r" % data.get("schema"))
    kinds = sorted(a["kind"] for a in data["analyses"])
    if kinds != ["compare", "grain", "size-buffer", "sweep"]:
        fail("the analyses are %s" % kinds)
    for a in data["analyses"]:
        if a["output"] is None:
            fail("%s: no report embedded (exit %s)" % (a["name"], a["status"]))
            continue
        cmd = [san] + a["command_line"][1:]
        fresh = subprocess.run(cmd, capture_output=True, text=True)
        if fresh.returncode != a["status"]:
            fail("%s: %s exits %d, the page says %d" % (a["name"], " ".join(cmd), fresh.returncode, a["status"]))
        d = first_difference(strip(a["output"]), strip(json.loads(fresh.stdout)))
        if d:
            fail("%s: the embedded report differs from -f json: %s" % (a["name"], d))

    dom = Dom()
    dom.feed(open(dom_path, encoding="utf-8").read())
    if dom.body.get("data-san-ready") != "1":
        fail("the page's script did not finish (data-san-ready=%r)" % dom.body.get("data-san-ready"))
    if dom.body.get("data-san-errors") != "0":
        fail("the page's script reported %s errors" % dom.body.get("data-san-errors"))
    if dom.h1 != data["title"]:
        fail("the heading reads %r, the study's title is %r" % (dom.h1, data["title"]))
    if dom.external:
        fail("the page loads from elsewhere: %s" % dom.external[:3])
    if re.search(r"<link\b|@import|\bsrc=\"https?:", page):
        fail("the page's source refers to something outside it")
    for a in data["analyses"]:
        if a["output"] is None:
            continue
        name = a["name"]
        if name not in dom.cells:
            fail("%s: no section in the DOM" % name)
            continue
        exp = expected(a)
        check_cells(name, dom.cells[name], exp)
        print("%s: %d values of the report found in the DOM" % (name, len(exp)))
        if a["kind"] != "compare" and dom.figures[name] < 1:
            fail("%s: no figure" % name)
        texts = [t.strip() for t in dom.texts[name]]
        if any("=" in t for t in texts):
            fail("%s: a legend repeats the parameter: %s" % (name, [t for t in texts if "=" in t][:3]))
    sw = [t.strip() for t in dom.texts.get("sw", [])]
    if "mode" not in sw or "sync" not in sw or "async" not in sw:
        fail("sw: the legend is not 'mode' over 'sync', 'async': %s" % sw)

    log = open(console_path, encoding="utf-8", errors="replace").read()
    bad = [l for l in log.splitlines() if "Uncaught" in l or ":CONSOLE" in l]
    if bad:
        fail("the browser's console: %s" % bad[:3])

    try:
        w, h, colours, ink = png_pixels(shot)
        print("screenshot %dx%d: %d colours, %d pixels of ink" % (w, h, len(colours), ink))
        if len(colours) < 8 or ink < 0.005 * w * h:
            fail("the screenshot looks blank: %d colours, %d pixels of ink" % (len(colours), ink))
    except (OSError, ValueError, zlib.error) as e:
        fail("screenshot %s: %s" % (shot, e))

    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
