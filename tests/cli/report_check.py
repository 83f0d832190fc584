#!/usr/bin/env python3
"""report_check.py - a `san report` page, read back (tests/cli/report.sh).

usage: report_check.py SAN PAGE.html DOM.html CONSOLE.log SHOT.png EXPORT.html

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
- the accuracy of every number (issue 32): each solve's method,
  iterations, residual, error estimate, error bound, converged, storage
  and lumping in the tables (sweep rows, every point of a size-buffer
  curve, every grain, compare's models) and in the tooltip of each point
  of the figures, equal to the report's;
- the models: each analysis shows the text `san gen LINE` writes (run
  here) for each of its generator lines, or past four of them the
  first one's and the list of every line, each in the DOM;
- CONSOLE.log, the browser's stderr: no "Uncaught" error, no console
  message;
- SHOT.png: a PNG that is not blank (several colours, some ink);
- EXPORT.html, the DOM of the page opened at #san-export-test, where the
  page clicked every figure's SVG and PNG buttons and recorded what they
  deliver: each SVG is well-formed XML whose series (their labels and
  their points) are the report's, each PNG an image of twice the SVG's
  size that is not blank.
"""
import base64
import html
import io
import xml.etree.ElementTree as ET
import json
import re
import struct
import subprocess
import sys
import tempfile
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
        self.tips = {}          # section -> the <title> texts of its figures
        self.in_title = False
        self.models = {}        # section -> [(summary, text)] of its models
        self.in_summary = self.in_pre = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "section" and "data-analysis" in a:
            self.section = a["data-analysis"]
            self.cells[self.section] = {}
            self.figures[self.section] = 0
            self.texts[self.section] = []
            self.tips[self.section] = []
            self.models[self.section] = []
        if tag == "td" and self.section and "data-k" in a and "data-row" in a:
            self.cells[self.section][(a["data-k"], a["data-row"])] = a.get("data-v", NO_VALUE)
        if tag == "title" and self.section:
            self.in_title = True
            self.tips[self.section].append("")
        if tag == "summary" and self.section:
            self.in_summary = True
            self.models[self.section].append(["", None])
        if tag == "pre" and self.section and self.models[self.section] \
                and self.models[self.section][-1][1] is None:
            self.in_pre = True
            self.models[self.section][-1][1] = ""
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
        if self.in_title:
            self.tips[self.section][-1] += data
        if self.in_summary:
            self.models[self.section][-1][0] += data
        if self.in_pre:
            self.models[self.section][-1][1] += data

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        if tag == "summary":
            self.in_summary = False
        if tag == "pre":
            self.in_pre = False
        if tag == "text":
            self.in_text = False
        if tag == "h1":
            self.in_h1 = False


NO_VALUE = object()     # a cell without data-v: the report's null


def check_cells(name, cells, expect):
    """expect: [(data-k, data-row, value)]: each cell equals its value
    (null: a cell without data-v)."""
    if not expect:
        fail("%s: nothing to look for" % name)
    for k, row, v in expect:
        got = cells.get((k, str(row)))
        if got is None:
            fail("%s: no cell %s of row %s in the DOM" % (name, k, row))
            continue
        if got is NO_VALUE or v is None:
            if not (got is NO_VALUE and v is None):
                fail("%s: cell %s of row %s is %s, the report says %r" % (
                    name, k, row, "empty" if got is NO_VALUE else got, v))
            continue
        want = v if isinstance(v, str) else json.dumps(v) if isinstance(v, bool) else repr(v)
        try:
            same = float(got) == float(v)
        except (TypeError, ValueError):
            same = got == want
        if not same:
            fail("%s: cell %s of row %s is %s, the report says %r" % (name, k, row, got, v))


ACC = ("method", "iterations", "residual", "error_estimate", "error_bound", "converged",
       "storage", "lumped")


def accuracy_cells(prefix, row, solver):
    """The cells of a solve's accuracy: every member, null ones too."""
    if not all(k in solver for k in ACC):
        fail("%s of row %s: the report's accuracy lacks %s" % (
            prefix, row, [k for k in ACC if k not in solver]))
    return [(prefix + k, row, solver.get(k)) for k in ACC]


def expected(a):
    doc, out = a["output"], []
    if a["kind"] == "sweep":
        for r in doc["rows"]:
            out += accuracy_cells("solver.", r["variant"], r["solver"])
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
            if c.get("command") is not None:
                out.append(("command", i, c["command"]))
            if len(c.get("accuracy") or []) != len(c.get("curve") or []):
                fail("%s: configuration %d: %d points of accuracy for %d of curve" % (
                    a["name"], i, len(c.get("accuracy") or []), len(c.get("curve") or [])))
            for j, (kk, v) in enumerate(c.get("curve") or []):
                out.append(("curve.K", "%d.%d" % (i, j), kk))
                out.append(("curve.value", "%d.%d" % (i, j), v))
                acc = (c.get("accuracy") or [{}] * (j + 1))[j]
                if acc.get("buffer") != kk:
                    fail("%s: configuration %d: accuracy[%d] is of buffer %r, curve[%d] of %r" % (
                        a["name"], i, j, acc.get("buffer"), j, kk))
                out += accuracy_cells("accuracy.", "%d.%d" % (i, j), acc)
    elif a["kind"] == "grain":
        for i, c in enumerate(doc["configurations"]):
            if c["recommended"] is not None:
                out.append(("recommended", i, c["recommended"]))
            for j, g in enumerate(c["grains"]):
                for k, v in g.items():
                    if k not in ("grain", "error", "command", "solver") and v is not None:
                        out.append(("grains." + k, "%d.%d" % (i, j), v))
                out.append(("grains.command", "%d.%d" % (i, j), g.get("command")))
                out += accuracy_cells("grains.solver.", "%d.%d" % (i, j), g.get("solver") or {})
    elif a["kind"] == "compare":
        for n, c in doc["results"].items():
            for i, v in enumerate(c["values"]):
                if v is not None:
                    out.append(("values.%d" % i, n, v))
        for i, m in enumerate(doc["models"]):
            out += accuracy_cells("solver.", i, m["solver"])
    return out


def parse_tip(text):
    """A point's tooltip: "LABEL: X = x, Y = y" then the accuracy line
    "method m · iterations n · ..." -> (x, y, {member: text})."""
    lines = text.strip().split("\n")
    m = re.search(r"= (\S+), .* = (\S+)$", lines[0])
    if not m or len(lines) < 2:
        return None
    acc = {}
    for part in lines[1].split(" \u00b7 "):
        for label, key in (("method", "method"), ("iterations", "iterations"),
                           ("residual", "residual"), ("error estimate", "error_estimate"),
                           ("error bound", "error_bound"), ("converged", "converged"),
                           ("storage", "storage"), ("lumped", "lumped")):
            if part.startswith(label + " "):
                acc[key] = part[len(label) + 1:]
    return m.group(1), m.group(2), acc


def same_figure(text, v):
    """A tooltip's text of a report's value (exact: JavaScript's String)."""
    if v is None:
        return text == "\u2014"
    if isinstance(v, bool):
        return text == ("yes" if v else "no")
    if isinstance(v, (int, float)):
        try:
            return float(text) == float(v)
        except ValueError:
            return False
    return text == v


def expected_tips(a):
    """[(x or None, y, solver)]: a point of a figure, by the report."""
    doc, out = a["output"], []
    plot = [w for w in re.split(r"[\s,]+", a.get("plot") or "") if w]
    if a["kind"] == "sweep":
        ys = plot or doc["results"][:1]
        for r in doc["rows"]:
            if r["ok"] and (a.get("x") is None or r["parameters"].get(a["x"]) is not None):
                out += [(None, r["results"][y], r["solver"]) for y in ys if y in r["results"]]
    elif a["kind"] == "size-buffer":
        for c in doc["configurations"]:
            for (k, v), acc in zip(c.get("curve") or [], c.get("accuracy") or []):
                out.append((k, v, acc))
    elif a["kind"] == "grain":
        for c in doc["configurations"]:
            for g in c["grains"]:
                out += [(None, g[y], g["solver"]) for y in plot if g.get(y) is not None]
    return out


def check_tips(name, tips, expect):
    """Each point's tooltip holds its value and its accuracy, exact."""
    parsed = [t for t in (parse_tip(x) for x in tips) if t]
    for x, y, solver in expect:
        hit = [t for t in parsed if same_figure(t[1], y) and (x is None or same_figure(t[0], x))]
        if not hit:
            fail("%s: no tooltip of the point %s = %r" % (name, "" if x is None else x, y))
            continue
        ok = [t for t in hit if all(k in t[2] and same_figure(t[2][k], solver.get(k)) for k in ACC)]
        if not ok:
            fail("%s: the tooltip of %r says %s, the report %s" % (
                name, y, hit[0][2], {k: solver.get(k) for k in ACC}))
    return len(expect)


def check_models(san, a, shown):
    """The models of an analysis: each generator line's text as `san gen`
    writes it, or past four lines the first's and the list of lines; each
    in the DOM (a <details> whose summary names it, its text in <pre>)."""
    lines = []
    for m in re.finditer(r'"command": "([^"\\]+)"', json.dumps(a["output"], indent=1)):
        if m.group(1) not in lines:
            lines.append(m.group(1))
    want = []
    for line in lines[:1] if len(lines) > 4 else lines:
        gen = subprocess.run([san, "gen"] + line.split(), capture_output=True, text=True)
        if gen.returncode != 0:
            fail("%s: san gen %s: exit %d" % (a["name"], line, gen.returncode))
        want.append(("san gen " + line, gen.stdout))
    if len(lines) > 4:
        want.append(("the generator lines", "".join("san gen %s\n" % l for l in lines)))
    if not lines:
        fail("%s: no generator line in the report" % a["name"])
    got = [(m["name"], m["text"]) for m in a["models"]]
    if len(got) != len(want):
        fail("%s: %d models in the page, %d expected" % (a["name"], len(got), len(want)))
    for (gn, gt), (wn, wt) in zip(got, want):
        if not gn.startswith(wn) or gt != wt:
            fail("%s: the model %r is not the text of %r" % (a["name"], gn, wn))
        if not any(s.strip() == "Model: " + gn and t == gt for s, t in shown):
            fail("%s: the model %r is not in the DOM" % (a["name"], gn))
    return len(got)


def legend_label(conf):
    """A configuration's legend entry: "slaves=2, mode=async" -> "2, async"."""
    parts = [p.split("=", 1) for p in conf.split(", ")]
    return ", ".join(p[1] for p in parts) if all(len(p) == 2 for p in parts) else conf


def expected_series(a):
    """{figure id: {series label: points drawn}} by the report."""
    doc, figs = a["output"], {}
    plot = [w for w in re.split(r"[\s,]+", a.get("plot") or "") if w]
    if a["kind"] == "sweep":
        x = a["x"]
        series = [w for w in re.split(r"[\s,]+", a.get("series") or "") if w]
        for y in plot or doc["results"][:1]:
            f = figs.setdefault("%s-%s" % (a["name"], y), {})
            for r in doc["rows"]:
                if r["ok"] and y in r["results"]:
                    key = ", ".join(str(r["parameters"][p]) for p in series
                                    if r["parameters"][p] is not None) or y
                    f[key] = f.get(key, 0) + (x is None or r["parameters"][x] is not None)
    elif a["kind"] == "size-buffer":
        f = figs.setdefault("%s-%s" % (a["name"], doc["index"]), {})
        for c in doc["configurations"]:
            f[legend_label(c["configuration"])] = len(c.get("curve") or [])
    elif a["kind"] == "grain" and a.get("x"):
        for y in plot:
            f = figs.setdefault("%s-%s" % (a["name"], y), {})
            for c in doc["configurations"]:
                for g in c["grains"]:
                    f[str(g["grain"])] = f.get(str(g["grain"]), 0) + 1
    return figs


def data_url(d):
    m = re.match(r"data:([^;,]*)(;base64)?,(.*)$", d or "", re.S)
    if not m or not m.group(2):
        raise ValueError("not a base64 data URL")
    return m.group(1), base64.b64decode(m.group(3))


def check_export(path, data):
    """The files the page's SVG and PNG buttons delivered."""
    text = open(path, encoding="utf-8").read()
    # the block the page added (the script's own source names it too)
    m = re.search(r'<pre id="san-export" hidden="">(.*?)</pre>', text, re.S)
    body = re.search(r"<body[^>]*>", text)
    if not m or not body or "data-san-export=" not in body.group(0):
        fail("export: the page recorded no export (no san-export block or data-san-export)")
        return
    files = json.loads(html.unescape(m.group(1)))
    want = {}
    for a in data["analyses"]:
        if a["output"] is not None:
            want.update(expected_series(a))
    svg_ns = "{http://www.w3.org/2000/svg}"
    for fig, series in want.items():
        svg, png = files.get(fig + ".svg"), files.get(fig + ".png")
        if not svg or not png:
            fail("export: %s: no %s" % (fig, "SVG" if not svg else "PNG"))
            continue
        try:
            kind, raw = data_url(svg["data"])
            root = ET.fromstring(raw)
        except (ValueError, ET.ParseError) as e:
            fail("export: %s.svg is not well-formed XML: %s" % (fig, e))
            continue
        if kind != "image/svg+xml" or root.tag != svg_ns + "svg":
            fail("export: %s.svg: type %s, root %s" % (fig, kind, root.tag))
        drawn = {}
        for g in root.iter(svg_ns + "g"):
            if "data-series" in g.attrib:
                marks = [e for e in g if e.tag in (svg_ns + "circle", svg_ns + "rect", svg_ns + "path")]
                drawn[g.attrib["data-series"]] = len(marks)
        if drawn != series:
            fail("export: %s.svg draws %s, the report has %s" % (fig, drawn, series))
        w, h = int(float(root.attrib["width"])), int(float(root.attrib["height"]))
        try:
            kind, raw = data_url(png["data"])
            with tempfile.NamedTemporaryFile(suffix=".png") as t:
                t.write(raw)
                t.flush()
                pw, ph, colours, ink = png_pixels(t.name)
        except (ValueError, OSError, zlib.error) as e:
            fail("export: %s.png: %s" % (fig, e))
            continue
        if kind != "image/png" or (pw, ph) != (2 * w, 2 * h):
            fail("export: %s.png: %s of %dx%d, the SVG is %dx%d (twice expected)" % (fig, kind, pw, ph, w, h))
        if len(colours) < 6 or ink < 0.01 * pw * ph:
            fail("export: %s.png looks blank: %d colours, %d pixels of ink" % (fig, len(colours), ink))
        print("export %s: SVG %dx%d with %d series, PNG %dx%d, %d colours" % (
            fig, w, h, len(drawn), pw, ph, len(colours)))
    if len(files) < 2 * len(want):
        fail("export: %d files for %d figures" % (len(files), len(want)))


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
    san, page_path, dom_path, console_path, shot, export_path = sys.argv[1:7]
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
        ntips = check_tips(name, dom.tips[name], expected_tips(a))
        print("%s: %d tooltips with their accuracy" % (name, ntips))
        print("%s: %d models shown" % (name, check_models(san, a, dom.models[name])))
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

    check_export(export_path, data)

    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
