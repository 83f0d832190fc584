/* page.js - draws the study embedded in the page (the san-data block):
 * one section per analysis with its figures (hand-written SVG: hover for
 * values, click a legend entry to hide its curve, log axes, export as
 * SVG or PNG), its sortable tables, its accuracy, warnings, model text
 * and provenance.  No library, nothing fetched. */
(function () {
  "use strict";
  var errors = [];
  function noteError(msg) {
    errors.push(String(msg));
    document.body.setAttribute("data-san-errors", String(errors.length));
    var pre = document.getElementById("san-console");
    if (!pre) {
      pre = document.createElement("pre");
      pre.id = "san-console";
      pre.className = "fail";
      document.body.insertBefore(pre, document.body.firstChild);
    }
    pre.textContent = errors.join("\n");
  }
  window.addEventListener("error", function (e) { noteError(e.message || e); });
  var consoleError = console.error;
  console.error = function () {
    noteError(Array.prototype.join.call(arguments, " "));
    consoleError.apply(console, arguments);
  };

  var SVGNS = "http://www.w3.org/2000/svg";
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var MARKS = ["circle", "square", "triangle", "diamond"];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function isNum(v) { return typeof v === "number" && isFinite(v); }
  /* Six significant digits to read; the exact value in data-v. */
  function fmt(v) {
    if (v === null || v === undefined) return "\u2014";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
    var a = Math.abs(v);
    if (a !== 0 && (a < 1e-4 || a >= 1e7)) return v.toExponential(3);
    return String(Number(v.toPrecision(6)));
  }
  function words(s) { return s ? s.split(/[\s,]+/).filter(function (w) { return w; }) : []; }
  function shellQuote(w) {
    return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(w) ? w : "'" + w.replace(/'/g, "'\\''") + "'";
  }
  function cmdline(argv) { return argv.map(shellQuote).join(" "); }

  /* ---------------------------------------------------------------- */
  /* Tables: numbers right-aligned, sortable by a click on the header  */
  /* ---------------------------------------------------------------- */
  function table(cols, rows, tag) {
    var wrap = el("div", { "class": "tablewrap" });
    var t = el("table", tag ? { "data-table": tag } : {});
    var thead = el("thead"), tr = el("tr");
    cols.forEach(function (c, i) {
      var th = el("th", { title: c.title || c.label }, c.label);
      th.addEventListener("click", function () { sortBy(t, i, th); });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    t.appendChild(thead);
    var tb = el("tbody");
    rows.forEach(function (r) {
      var tr2 = el("tr");
      cols.forEach(function (c) {
        var v = c.get(r);
        var td = el("td", {}, fmt(v));
        if (typeof v === "number") {
          td.className = "num";
          td.setAttribute("data-v", String(v));
          td.title = String(v);
        } else if (v !== null && v !== undefined) td.setAttribute("data-v", String(v));
        if (c.key) {
          td.setAttribute("data-k", c.key);
          if (r.__id !== undefined) td.setAttribute("data-row", String(r.__id));
        }
        tr2.appendChild(td);
      });
      tb.appendChild(tr2);
    });
    t.appendChild(tb);
    wrap.appendChild(t);
    return wrap;
  }
  function sortBy(t, i, th) {
    var asc = !th.classList.contains("sorted-asc");
    Array.prototype.forEach.call(t.querySelectorAll("th"), function (h) {
      h.classList.remove("sorted-asc", "sorted-desc");
    });
    th.classList.add(asc ? "sorted-asc" : "sorted-desc");
    var tb = t.tBodies[0];
    var rows = Array.prototype.slice.call(tb.rows);
    rows.sort(function (a, b) {
      var x = a.cells[i].getAttribute("data-v"), y = b.cells[i].getAttribute("data-v");
      var nx = parseFloat(x), ny = parseFloat(y), c;
      if (x === null || y === null) c = (x === null) - (y === null);
      else if (!isNaN(nx) && !isNaN(ny) && String(nx) === x && String(ny) === y) c = nx - ny;
      else c = x < y ? -1 : x > y ? 1 : 0;
      return asc ? c : -c;
    });
    rows.forEach(function (r) { tb.appendChild(r); });
  }

  /* ---------------------------------------------------------------- */
  /* Figures                                                           */
  /* ---------------------------------------------------------------- */
  function niceStep(range, n) {
    var raw = range / n, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
  /* The ticks: the outermost ones just around the data (an axis stops
   * where the data stop, at the next round number). */
  function scale(lo, hi, log, whole, n) {
    if (log) {
      /* the ends at 1, 2 or 5 times a power of ten just around the data
       * (buffers 1..128: 1 to 200, not 1 to 1000); ticks at the decades,
       * and at 2 and 5 times them over two decades or less */
      var steps = [];
      for (var e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)) + 1; e++)
        [1, 2, 5].forEach(function (m) { steps.push(Number((m * Math.pow(10, e)).toPrecision(12))); });
      var l0 = steps[0], h0 = steps[steps.length - 1];
      steps.forEach(function (v) { if (v <= lo * (1 + 1e-9)) l0 = v; });
      for (var i = 0; i < steps.length; i++) if (steps[i] >= hi * (1 - 1e-9)) { h0 = steps[i]; break; }
      if (!(h0 > l0)) h0 = steps[steps.indexOf(l0) + 1];
      var few = Math.log10(h0 / l0) <= 2 + 1e-9;
      var t = steps.filter(function (v) {
        var dec = Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
        return v >= l0 * (1 - 1e-9) && v <= h0 * (1 + 1e-9) && (few || dec || v === l0 || v === h0);
      });
      return { lo: l0, hi: h0, ticks: t, log: true };
    }
    if (!(hi > lo)) {
      var pad = whole ? 1 : lo !== 0 ? Math.abs(lo) * 0.1 : 1;
      lo -= pad; hi += pad;
    }
    var step = niceStep(hi - lo, n);
    if (whole && step < 1) step = 1;
    var s0 = Math.floor(lo / step + 1e-9) * step, s1 = Math.ceil(hi / step - 1e-9) * step;
    var ticks = [];
    for (var v = s0; v <= s1 + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return { lo: s0, hi: s1, ticks: ticks, log: false };
  }
  function tickText(v) {
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(0).replace("e+", "e");
    return String(Number(v.toPrecision(6)));
  }
  function marker(g, kind, x, y, color) {
    var r = 3.2, m;
    if (kind === "square") m = sv("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r });
    else if (kind === "triangle")
      m = sv("path", { d: "M" + x + "," + (y - r - 0.8) + "L" + (x + r) + "," + (y + r) + "L" + (x - r) + "," + (y + r) + "Z" });
    else if (kind === "diamond")
      m = sv("path", { d: "M" + x + "," + (y - r - 1) + "L" + (x + r + 1) + "," + y + "L" + x + "," + (y + r + 1) + "L" + (x - r - 1) + "," + y + "Z" });
    else m = sv("circle", { cx: x, cy: y, r: r });
    m.setAttribute("fill", color);
    g.appendChild(m);
    return m;
  }

  /* Legend labels without repetition: "slaves=2", "slaves=3" become
   * "2", "3" under the title "slaves". */
  function legendOf(labels, fallback) {
    var keys = null, ok = labels.length > 0;
    var split = labels.map(function (l) {
      var parts = String(l).split(/,\s*/), k = [], v = [];
      parts.forEach(function (p) {
        var i = p.indexOf("=");
        if (i <= 0) ok = false;
        k.push(p.slice(0, i)); v.push(p.slice(i + 1));
      });
      if (keys === null) keys = k.join(", ");
      else if (keys !== k.join(", ")) ok = false;
      return v.join(", ");
    });
    return ok ? { title: keys, labels: split } : { title: fallback || "", labels: labels.map(String) };
  }

  var tip = null;
  function showTip(ev, text) {
    if (!tip) { tip = el("div", { "class": "tip" }); document.body.appendChild(tip); }
    tip.textContent = text;
    tip.style.display = "block";
    tip.style.left = (ev.clientX + 12) + "px";
    tip.style.top = (ev.clientY + 12) + "px";
  }
  function hideTip() { if (tip) tip.style.display = "none"; }

  /* spec: {id, title, xlabel, ylabel, legendTitle, series: [{label, pts}], logx, logy} */
  function figure(spec) {
    var box = el("div", { "class": "figure", "data-figure": spec.id });
    var tools = el("div", { "class": "tools" });
    var state = { logx: !!spec.logx, logy: !!spec.logy, hidden: {} };
    var lx = el("input", { type: "checkbox" }), ly = el("input", { type: "checkbox" });
    lx.checked = state.logx; ly.checked = state.logy;
    var l1 = el("label"); l1.appendChild(lx); l1.appendChild(document.createTextNode(" log x"));
    var l2 = el("label"); l2.appendChild(ly); l2.appendChild(document.createTextNode(" log y"));
    var bs = el("button", { type: "button", "data-export": "svg" }, "SVG");
    var bp = el("button", { type: "button", "data-export": "png" }, "PNG");
    tools.appendChild(l1); tools.appendChild(l2);
    tools.appendChild(document.createTextNode("export:")); tools.appendChild(bs); tools.appendChild(bp);
    box.appendChild(tools);
    var holder = el("div");
    box.appendChild(holder);
    function redraw() { holder.innerHTML = ""; holder.appendChild(drawSvg(spec, state, redraw)); }
    lx.addEventListener("change", function () { state.logx = lx.checked; redraw(); });
    ly.addEventListener("change", function () { state.logy = ly.checked; redraw(); });
    bs.addEventListener("click", function () { exportSvg(holder.firstChild, spec.id); });
    bp.addEventListener("click", function () { exportPng(holder.firstChild, spec.id); });
    redraw();
    return box;
  }

  function drawSvg(spec, state, redraw) {
    var W = 560, H = 340, ml = 64, mr = 16, mt = 30, mb = 46;
    var shown = spec.series.filter(function (s) { return !state.hidden[s.label]; });
    var legendW = 0;
    spec.series.forEach(function (s) { legendW = Math.max(legendW, 7 * String(s.label).length + 34); });
    legendW = Math.max(legendW, 7 * (spec.legendTitle || "").length + 10);
    if (spec.series.length > 1 || spec.legendTitle) { legendW = Math.min(legendW, 220); W += legendW; mr += legendW; }
    var xs = [], ys = [];
    shown.forEach(function (s) {
      if (isNum(s.hline) && (!state.logy || s.hline > 0)) ys.push(s.hline);
      s.pts.forEach(function (p) {
        if (isNum(p[0]) && isNum(p[1]) && (!state.logx || p[0] > 0) && (!state.logy || p[1] > 0)) {
          xs.push(p[0]); ys.push(p[1]);
        }
      });
    });
    var svg = sv("svg", { xmlns: SVGNS, width: W, height: H, viewBox: "0 0 " + W + " " + H,
                          "font-family": "DejaVu Sans, Arial, sans-serif", "font-size": "11" });
    svg.appendChild(sv("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff" }));
    svg.appendChild(sv("text", { x: ml + (W - ml - mr) / 2, y: 18, "text-anchor": "middle",
                                 "font-size": "13", "font-weight": "bold" }, spec.title));
    if (!xs.length) {
      svg.appendChild(sv("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no point to draw"));
      return svg;
    }
    var whole = xs.every(function (v) { return Number.isInteger(v); });
    var sx = scale(Math.min.apply(null, xs), Math.max.apply(null, xs), state.logx, whole, 8);
    var sy = scale(Math.min.apply(null, ys), Math.max.apply(null, ys), state.logy, false, 6);
    var pw = W - ml - mr, ph = H - mt - mb;
    function fx(v) {
      return ml + pw * (sx.log ? (Math.log10(v) - Math.log10(sx.lo)) / (Math.log10(sx.hi) - Math.log10(sx.lo))
                               : (v - sx.lo) / (sx.hi - sx.lo));
    }
    function fy(v) {
      return mt + ph * (1 - (sy.log ? (Math.log10(v) - Math.log10(sy.lo)) / (Math.log10(sy.hi) - Math.log10(sy.lo))
                                    : (v - sy.lo) / (sy.hi - sy.lo)));
    }
    var grid = sv("g", { stroke: "#e4e4e4", "stroke-width": "1" });
    var axes = sv("g", { fill: "#222" });
    sx.ticks.forEach(function (t) {
      grid.appendChild(sv("line", { x1: fx(t), x2: fx(t), y1: mt, y2: mt + ph }));
      axes.appendChild(sv("text", { x: fx(t), y: mt + ph + 16, "text-anchor": "middle" }, tickText(t)));
    });
    sy.ticks.forEach(function (t) {
      grid.appendChild(sv("line", { x1: ml, x2: ml + pw, y1: fy(t), y2: fy(t) }));
      axes.appendChild(sv("text", { x: ml - 6, y: fy(t) + 4, "text-anchor": "end" }, tickText(t)));
    });
    svg.appendChild(grid);
    svg.appendChild(sv("rect", { x: ml, y: mt, width: pw, height: ph, fill: "none", stroke: "#333" }));
    svg.appendChild(axes);
    svg.appendChild(sv("text", { x: ml + pw / 2, y: H - 10, "text-anchor": "middle", "font-size": "12" }, spec.xlabel));
    svg.appendChild(sv("text", { x: 14, y: mt + ph / 2, "text-anchor": "middle", "font-size": "12",
                                 transform: "rotate(-90 14 " + (mt + ph / 2) + ")" }, spec.ylabel));
    spec.series.forEach(function (s, i) {
      if (state.hidden[s.label]) return;
      var color = COLORS[i % COLORS.length], mk = MARKS[Math.floor(i / COLORS.length) % MARKS.length];
      var pts = s.pts.filter(function (p) {
        return isNum(p[0]) && isNum(p[1]) && (!state.logx || p[0] > 0) && (!state.logy || p[1] > 0);
      }).slice().sort(function (a, b) { return a[0] - b[0]; });
      var g = sv("g", { "data-series": s.label });
      if (isNum(s.hline) && (!state.logy || s.hline > 0))
        g.appendChild(sv("line", { x1: ml, x2: ml + pw, y1: fy(s.hline), y2: fy(s.hline), stroke: color,
                                   "stroke-width": "1.5", "stroke-dasharray": "6 4" }));
      if (pts.length > 1)
        g.appendChild(sv("polyline", { fill: "none", stroke: color, "stroke-width": "1.8",
          points: pts.map(function (p) { return fx(p[0]).toFixed(2) + "," + fy(p[1]).toFixed(2); }).join(" ") }));
      pts.forEach(function (p) {
        var m = marker(g, mk, fx(p[0]), fy(p[1]), color);
        var text = (spec.legendTitle ? spec.legendTitle + " " : "") + s.label + ": " +
                   spec.xlabel + " = " + p[0] + ", " + spec.ylabel + " = " + p[1] +
                   (p[2] ? "\n" + p[2] : "");
        m.addEventListener("mousemove", function (ev) { showTip(ev, text); });
        m.addEventListener("mouseleave", hideTip);
        m.appendChild(sv("title", {}, text));
      });
      svg.appendChild(g);
    });
    if (spec.series.length > 1 || spec.legendTitle) {
      var lg = sv("g", {}), x0 = ml + pw + 14, y0 = mt + 8;
      if (spec.legendTitle) {
        lg.appendChild(sv("text", { x: x0, y: y0, "font-weight": "bold" }, spec.legendTitle));
        y0 += 16;
      }
      spec.series.forEach(function (s, i) {
        var color = COLORS[i % COLORS.length], mk = MARKS[Math.floor(i / COLORS.length) % MARKS.length];
        var it = sv("g", { "class": "legend-item" + (state.hidden[s.label] ? " off" : "") });
        it.appendChild(sv("line", { x1: x0, x2: x0 + 22, y1: y0 - 4, y2: y0 - 4, stroke: color, "stroke-width": "1.8" }));
        marker(it, mk, x0 + 11, y0 - 4, color);
        it.appendChild(sv("text", { x: x0 + 28, y: y0 }, s.label));
        it.addEventListener("click", function () {
          state.hidden[s.label] = !state.hidden[s.label];
          redraw();
        });
        lg.appendChild(it);
        y0 += 16;
      });
      svg.appendChild(lg);
    }
    return svg;
  }

  /* Where an exported figure goes: a download (the export test swaps
   * it for a recorder, see exportTest). */
  var deliver = function (name, blob) {
    var url = URL.createObjectURL(blob);
    var a = el("a", { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  };
  function svgText(svg) { return new XMLSerializer().serializeToString(svg); }
  function exportSvg(svg, id) {
    deliver(id + ".svg", new Blob([svgText(svg)], { type: "image/svg+xml" }));
  }
  /* The same drawing at twice the size, through a canvas. */
  function exportPng(svg, id) {
    var img = new Image(), w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
    img.onload = function () {
      var c = el("canvas", { width: 2 * w, height: 2 * h });
      var ctx = c.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, 2 * w, 2 * h);
      ctx.drawImage(img, 0, 0, 2 * w, 2 * h);
      c.toBlob(function (b) {
        if (b) deliver(id + ".png", b);
        else noteError(id + ".png: the canvas gave no image");
      }, "image/png");
    };
    img.onerror = function () { noteError(id + ".png: the figure did not load as an image"); };
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svgText(svg));
  }

  /* ---------------------------------------------------------------- */
  /* The analyses                                                      */
  /* ---------------------------------------------------------------- */
  function distinct(arr) {
    var seen = {}, out = [];
    arr.forEach(function (v) { var k = JSON.stringify(v); if (!seen[k]) { seen[k] = 1; out.push(v); } });
    return out;
  }
  /* The accuracy of a solve (a "solver" object of the report) as
   * columns; of(r) gives a row's object (default r.solver). */
  var ACC_FIELDS = [
    ["method", "method", ""], ["iterations", "iterations", ""], ["residual", "residual", ""],
    ["error estimate", "error_estimate", "the largest relative error of a state probability, estimated (san(1) ACCURACY)"],
    ["error bound", "error_bound", "yes: the estimate was measured (an LU correction, or a chain of at most 256 states checked against GTH) and bounds the error; no: an indicator"],
    ["converged", "converged", ""], ["storage", "storage", "the storage solved on"],
    ["lumped", "lumped", "solved on the lumped chain of interchangeable replicas"]];
  function solverCols(prefix, of) {
    of = of || function (r) { return r.solver; };
    return ACC_FIELDS.map(function (f) {
      return { label: f[0], key: prefix + f[1], title: f[2] || f[0],
               get: function (r) { var s = of(r); return s && f[1] in s ? s[f[1]] : null; } };
    });
  }
  /* A solve's accuracy in a tooltip, every figure exact (the check of
   * the page reads it back). */
  function accText(s) {
    if (!s) return "";
    return ACC_FIELDS.map(function (f) {
      var v = s[f[1]];
      return f[0] + " " + (v === null || v === undefined ? "\u2014" : typeof v === "boolean" ? (v ? "yes" : "no") : String(v));
    }).join(" \u00b7 ");
  }
  /* What the solves of an analysis achieved, in one line. */
  function accSummary(list) {
    list = list.filter(Boolean);
    if (!list.length) return "";
    var n = list.length, est = list.map(function (s) { return s.error_estimate; }).filter(isNum);
    function count(f) { return list.filter(f).length; }
    function tally(k) {
      var c = {};
      list.forEach(function (s) { var v = s[k] === null ? "none" : String(s[k]); c[v] = (c[v] || 0) + 1; });
      return Object.keys(c).map(function (v) { return v + " " + c[v]; }).join(", ");
    }
    return "The " + n + " solves: converged " + count(function (s) { return s.converged; }) + " of " + n +
      "; largest error estimate " + (est.length ? fmt(Math.max.apply(null, est)) : "\u2014") +
      " (a measured bound for " + count(function (s) { return s.error_bound; }) + " of " + n +
      "); method " + tally("method") + "; storage " + tally("storage") + "; lumped " +
      count(function (s) { return s.lumped; }) + " of " + n + ".";
  }

  /* A study's key naming what the report has not: said, not ignored. */
  function unknown(out, key, asked, known, what) {
    asked.filter(function (n) { return known.indexOf(n) < 0; }).forEach(function (n) {
      out.appendChild(el("div", { "class": "warn" }, key + " = " + n + ": not one of the " + what +
                         " of this report (" + known.join(", ") + ")"));
    });
  }

  function sweepSection(a, doc, out) {
    var rows = doc.rows;
    rows.forEach(function (r) { r.__id = r.variant; });
    /* a parameter varies when it takes two values or more where it
     * applies (null: not there, as the buffer of a synchronous model) */
    var varying = doc.parameters.filter(function (p) {
      return distinct(rows.map(function (r) { return r.parameters[p]; })
                          .filter(function (v) { return v !== null; })).length > 1;
    });
    var numeric = varying.filter(function (p) {
      return rows.every(function (r) { return r.parameters[p] === null || typeof r.parameters[p] === "number"; });
    });
    var x = a.x || numeric[numeric.length - 1] || null;
    var ys = words(a.plot);
    if (!ys.length && doc.results.length) ys = [doc.results[0]];
    var series = a.series ? words(a.series) : varying.filter(function (p) { return p !== x; });
    unknown(out, "x", a.x ? [a.x] : [], doc.parameters, "parameters");
    unknown(out, "series", series, doc.parameters, "parameters");
    unknown(out, "plot", ys, doc.results, "results");
    if (x) {
      var figs = el("div");
      ys.forEach(function (y) {
        var groups = {}, order = [];
        rows.forEach(function (r) {
          if (!r.ok || !r.results || !(y in r.results)) return;
          var key = series.filter(function (p) { return r.parameters[p] !== null; })
                          .map(function (p) { return String(r.parameters[p]); }).join(", ");
          if (!(key in groups)) { groups[key] = []; order.push(key); }
          groups[key].push([r.parameters[x], r.results[y], accText(r.solver)]);
        });
        figs.appendChild(figure({
          id: a.name + "-" + y, title: y + " vs " + x, xlabel: x, ylabel: y,
          legendTitle: series.join(", "),
          /* a curve x does not apply to (the synchronous model against
           * the buffer) and of one value: a horizontal reference line */
          series: order.map(function (k) {
            var pts = groups[k];
            var flat = pts.length === 1 && !isNum(pts[0][0]) && isNum(pts[0][1]);
            return { label: k || y, pts: flat ? [] : pts, hline: flat ? pts[0][1] : null };
          }),
          logx: /x/.test(a.log || ""), logy: /y/.test(a.log || "")
        }));
      });
      out.appendChild(figs);
    }
    var cols = [{ label: "variant", key: "variant", get: function (r) { return r.variant; } }];
    varying.forEach(function (p) { cols.push({ label: p, key: "parameters." + p, get: function (r) { return r.parameters[p]; } }); });
    doc.results.forEach(function (n) {
      cols.push({ label: n, key: "results." + n, get: function (r) { return r.results ? (n in r.results ? r.results[n] : null) : null; } });
    });
    cols.push({ label: "reachable", key: "reachable_states", get: function (r) { return r.reachable_states; } });
    out.appendChild(el("h3", {}, "Variants"));
    out.appendChild(table(cols, rows, a.name + "-rows"));
    out.appendChild(el("h3", {}, "Accuracy of each variant"));
    out.appendChild(el("p", { "class": "muted", "data-acc-summary": "" }, accSummary(rows.map(function (r) { return r.solver; }))));
    var acc = [{ label: "variant", get: function (r) { return r.variant; } }];
    varying.forEach(function (p) { acc.push({ label: p, get: function (r) { return r.parameters[p]; } }); });
    acc = acc.concat(solverCols("solver."));
    acc.push({ label: "time (s)", get: function (r) { return r.solver ? r.solver.time_s : null; } });
    acc.push({ label: "command", get: function (r) { return r.command; } });
    out.appendChild(table(acc, rows, a.name + "-accuracy"));
    var bad = rows.filter(function (r) { return !r.ok || r.error; });
    bad.forEach(function (r) { out.appendChild(el("div", { "class": "warn" }, "variant " + r.variant + " (" + r.command + "): " + (r.error || "failed"))); });
  }

  function sizeBufferSection(a, doc, out) {
    var confs = doc.configurations;
    confs.forEach(function (c, i) { c.__id = i; });
    var lg = legendOf(confs.map(function (c) { return c.configuration; }), "configuration");
    var series = [];
    /* each point with how it was solved (accuracy[k] is curve[k]'s) */
    function withAcc(curve, acc) {
      return (curve || []).map(function (p, k) { return [p[0], p[1], accText((acc || [])[k])]; });
    }
    var solves = [];
    confs.forEach(function (c, i) {
      if (c.curve) series.push({ label: lg.labels[i], pts: withAcc(c.curve, c.accuracy) });
      solves = solves.concat(c.accuracy || []);
      (c.buffers || []).forEach(function (b, j) {
        series.push({ label: lg.labels[i] + " buffer " + (j + 1), pts: withAcc(b.curve, b.accuracy) });
        solves = solves.concat(b.accuracy || []);
      });
    });
    out.appendChild(figure({ id: a.name + "-" + doc.index, title: doc.index + " vs buffer size",
      xlabel: "buffer K", ylabel: doc.index, legendTitle: lg.title, series: series,
      logx: /x/.test(a.log || ""), logy: /y/.test(a.log || "") }));
    var cols = [
      { label: "configuration", key: "configuration", get: function (c) { return c.configuration; } },
      { label: "buffer", key: "buffer", title: "the smallest K within the tolerance of the limit", get: function (c) { return c.buffer; } },
      { label: doc.index, key: "value", get: function (c) { return c.value; } },
      { label: "limit", key: "limit", get: function (c) { return c.limit; } },
      { label: "limit buffer", key: "limit_buffer", get: function (c) { return c.limit_buffer; } }
    ];
    ["at_buffer", "at_next", "at_limit"].forEach(function (w) {
      ["buffer", "value", "throughput", "efficiency"].forEach(function (f) {
        cols.push({ label: w + "." + f, key: w + "." + f, get: function (c) { return c[w] ? c[w][f] : null; } });
      });
    });
    cols.push({ label: "command", key: "command", title: "the generator line at the chosen buffer (san gen LINE writes its model)",
                get: function (c) { return c.command; } });
    out.appendChild(el("p", {}, "Within " + (100 * doc.within) + "% of the limit; throughput index: " + doc.throughput + "."));
    out.appendChild(el("h3", {}, "Recommended buffer per configuration"));
    out.appendChild(table(cols, confs, a.name + "-configurations"));
    out.appendChild(el("p", { "class": "muted", "data-acc-summary": "" }, accSummary(solves)));
    var pts = [];
    confs.forEach(function (c, i) {
      (c.curve || []).forEach(function (p, k) {
        pts.push({ __id: i + "." + k, configuration: c.configuration, K: p[0], v: p[1], solver: (c.accuracy || [])[k] });
      });
    });
    var d = el("details"); d.appendChild(el("summary", {}, "every point of the curves, with its accuracy (" + pts.length + ")"));
    d.appendChild(table([
      { label: "configuration", get: function (p) { return p.configuration; } },
      { label: "buffer K", key: "curve.K", get: function (p) { return p.K; } },
      { label: doc.index, key: "curve.value", get: function (p) { return p.v; } }].concat(solverCols("accuracy.")),
      pts, a.name + "-curve"));
    out.appendChild(d);
    confs.filter(function (c) { return c.error; }).forEach(function (c) {
      out.appendChild(el("div", { "class": "warn" }, c.configuration + ": " + c.error));
    });
  }

  /* The number of "slaves=3, mode=async" at key, or null. */
  function paramOf(label, key) {
    var parts = String(label).split(/,\s*/);
    for (var i = 0; i < parts.length; i++) {
      var j = parts[i].indexOf("=");
      if (j > 0 && parts[i].slice(0, j) === key) {
        var v = Number(parts[i].slice(j + 1));
        return parts[i].slice(j + 1) !== "" && isFinite(v) ? v : null;
      }
    }
    return null;
  }

  function grainSection(a, doc, out) {
    var confs = doc.configurations, figs = {}, flat = [];
    confs.forEach(function (c, i) {
      c.__id = i;
      c.grains.forEach(function (g, j) {
        var r = { __id: i + "." + j, configuration: c.configuration, g: g };
        flat.push(r);
        for (var k in g) if (k !== "grain" && k !== "error" && k !== "command" && k !== "solver") figs[k] = 1;
      });
    });
    var names = Object.keys(figs);
    var ys = words(a.plot);
    unknown(out, "plot", ys, names, "indices");
    if (!ys.length) ys = [doc.by !== "paper" && figs[doc.by] ? doc.by : names[0]].filter(Boolean);
    var lg = legendOf(confs.map(function (c) { return c.configuration; }), "configuration");
    /* x = a parameter of the configurations ("slaves"): one curve per
     * grain against it, as san grain --plot draws; else one curve per
     * configuration against the grain. */
    var xs = a.x ? confs.map(function (c) { return paramOf(c.configuration, a.x); }) : [];
    var byParam = a.x && xs.every(isNum);
    if (a.x && !byParam)
      out.appendChild(el("div", { "class": "warn" }, "x = " + a.x + ": not a numeric parameter of every configuration (" +
                         confs.map(function (c) { return c.configuration; }).join("; ") + ")"));
    ys.forEach(function (y) {
      var series;
      if (byParam) {
        var grains = distinct([].concat.apply([], confs.map(function (c) { return c.grains.map(function (g) { return g.grain; }); })));
        series = grains.map(function (gv) {
          var pts = [];
          confs.forEach(function (c, i) {
            c.grains.forEach(function (g) { if (g.grain === gv) pts.push([xs[i], g[y], accText(g.solver)]); });
          });
          return { label: String(gv), pts: pts };
        });
      } else
        series = confs.map(function (c, i) {
          return { label: lg.labels[i], pts: c.grains.map(function (g) { return [g.grain, g[y], accText(g.solver)]; }) };
        });
      var xl = byParam ? a.x : doc.grain;
      out.appendChild(figure({ id: a.name + "-" + y, title: y + " vs " + xl, xlabel: xl, ylabel: y,
        legendTitle: byParam ? doc.grain : lg.title, series: series,
        logx: /x/.test(a.log || ""), logy: /y/.test(a.log || "") }));
    });
    out.appendChild(el("p", {}, "Ranked by " + doc.by + " (rule " + doc.rule + "; the paper rule counts a grain busy when its efficiency is within " + doc.busy + " of the best grain's)."));
    out.appendChild(el("h3", {}, "Recommended grain per configuration"));
    out.appendChild(table([
      { label: "configuration", key: "configuration", get: function (c) { return c.configuration; } },
      { label: "recommended", key: "recommended", get: function (c) { return c.recommended; } },
      { label: "fastest", key: "fastest", get: function (c) { return c.fastest; } },
      { label: "paper rule", key: "paper_rule", get: function (c) { return c.paper_rule; } }], confs, a.name + "-configurations"));
    var cols = [
      { label: "configuration", get: function (r) { return r.configuration; } },
      { label: doc.grain, key: "grain", get: function (r) { return r.g.grain; } }];
    names.forEach(function (n) { cols.push({ label: n, key: "grains." + n, get: function (r) { return n in r.g ? r.g[n] : null; } }); });
    cols.push({ label: "error", get: function (r) { return r.g.error; } });
    out.appendChild(el("h3", {}, "Every grain"));
    out.appendChild(table(cols, flat, a.name + "-grains"));
    out.appendChild(el("h3", {}, "Accuracy of each grain"));
    out.appendChild(el("p", { "class": "muted", "data-acc-summary": "" }, accSummary(flat.map(function (r) { return r.g.solver; }))));
    out.appendChild(table([
      { label: "configuration", get: function (r) { return r.configuration; } },
      { label: doc.grain, get: function (r) { return r.g.grain; } }]
      .concat(solverCols("grains.solver.", function (r) { return r.g.solver; }))
      .concat([{ label: "command", key: "grains.command", get: function (r) { return r.g.command; } }]),
      flat, a.name + "-grain-accuracy"));
  }

  function compareSection(a, doc, out) {
    var models = doc.models;
    models.forEach(function (m, i) { m.__id = i; });
    var rows = Object.keys(doc.results).map(function (n) { return { __id: n, name: n, c: doc.results[n] }; });
    var cols = [{ label: "index", get: function (r) { return r.name; } }];
    models.forEach(function (m, i) {
      cols.push({ label: m.name, key: "values." + i, get: function (r) { return r.c.values[i]; } });
    });
    models.forEach(function (m, i) {
      if (i) cols.push({ label: "\u0394 " + m.name, key: "differences." + (i - 1), get: function (r) { return r.c.differences[i - 1]; } });
    });
    if (rows.some(function (r) { return "ratio" in r.c; }))
      cols.push({ label: "ratio", key: "ratio", get: function (r) { return "ratio" in r.c ? r.c.ratio : null; } });
    out.appendChild(el("h3", {}, "Indices side by side"));
    out.appendChild(table(cols, rows, a.name + "-results"));
    out.appendChild(el("h3", {}, "Models and their accuracy"));
    out.appendChild(el("p", { "class": "muted", "data-acc-summary": "" }, accSummary(models.map(function (m) { return m.solver; }))));
    out.appendChild(table([
      { label: "model", get: function (m) { return m.name; } },
      { label: "command", get: function (m) { return m.command; } },
      { label: "reachable", key: "reachable_states", get: function (m) { return m.reachable_states; } }
    ].concat(solverCols("solver.")), models, a.name + "-models"));
  }

  function provenance(a, doc, out) {
    var m = doc.meta || {};
    var d = el("details");
    d.appendChild(el("summary", {}, "Provenance (output contract " + doc.schema + ")"));
    var rows = [
      ["san_version", m.san_version], ["command_line", (m.command_line || []).map(shellQuote).join(" ")],
      ["models", (m.models || []).map(function (x) { return (x.path || x.gen) + " sha256 " + x.sha256; }).join("; ")],
      ["overrides", JSON.stringify(m.overrides)], ["method", m.method], ["tol", m.tol],
      ["storage", m.storage], ["converged", m.converged]];
    d.appendChild(table([{ label: "member", get: function (r) { return r[0]; } },
                         { label: "value", get: function (r) { return r[1]; } }], rows));
    out.appendChild(d);
  }

  function argValue(args, flag, dflt) {
    for (var i = 0; i < args.length; i++) {
      if (args[i] === flag && i + 1 < args.length) return args[i + 1];
      if (args[i].indexOf(flag + "=") === 0) return args[i].slice(flag.length + 1);
    }
    return dflt;
  }

  function analysis(a, i) {
    var sec = el("section", { id: "a-" + a.name, "data-analysis": a.name, "data-kind": a.kind });
    sec.appendChild(el("h2", {}, (i + 1) + ". " + a.title));
    if (a.note) sec.appendChild(el("p", {}, a.note));
    sec.appendChild(el("code", { "class": "cmd" }, cmdline(a.command_line)));
    var doc = a.output;
    sec.appendChild(el("p", { "class": a.status === 0 ? "muted ok" : "muted" },
      "exit status " + a.status + (a.status === 0 ? " (every variant solved)" : a.status === 1 ? " (some variants failed)" : " (refused)") +
      ", " + a.seconds.toFixed(2) + " s"));
    var log = (a.stderr || "").trim();
    if (log) sec.appendChild(el("div", { "class": a.status === 0 ? "warn" : "fail" }, "")).appendChild(el("pre", {}, log));
    if (doc) {
      var m = doc.meta || {};
      sec.appendChild(el("p", { "class": "muted" },
        "Accuracy: method " + m.method + ", storage " + m.storage + ", lumping " +
        argValue(a.command_line, "--lump", "auto (default)") + ", tolerance " +
        (m.tol === null || m.tol === undefined ? "the default (san(1) ACCURACY)" : m.tol) +
        ", every solve verified: " + fmt(m.converged) + "."));
      if (a.kind === "sweep") sweepSection(a, doc, sec);
      else if (a.kind === "size-buffer") sizeBufferSection(a, doc, sec);
      else if (a.kind === "grain") grainSection(a, doc, sec);
      else if (a.kind === "compare") compareSection(a, doc, sec);
      provenance(a, doc, sec);
    } else sec.appendChild(el("div", { "class": "fail" }, "no report: the command failed before writing one"));
    (a.models || []).forEach(function (md) {
      var d = el("details");
      d.appendChild(el("summary", {}, "Model: " + md.name));
      d.appendChild(el("pre", {}, md.text));
      sec.appendChild(d);
    });
    return sec;
  }

  function main() {
    var data = JSON.parse(document.getElementById("san-data").textContent);
    var mainEl = document.getElementById("main"), toc = document.getElementById("toc");
    if (data.study && data.study.note) mainEl.appendChild(el("p", {}, data.study.note));
    data.analyses.forEach(function (a, i) {
      toc.appendChild(el("a", { href: "#a-" + a.name }, (i + 1) + ". " + a.title));
      try {
        mainEl.appendChild(analysis(a, i));
      } catch (e) {
        noteError(a.name + ": " + e);
      }
    });
    toc.appendChild(el("a", { href: "#meaning" }, "What it means"));
    var foot = document.getElementById("foot");
    foot.appendChild(el("p", { "class": "muted" }, "Written by san " + data.san_version + ": "));
    foot.appendChild(el("code", { "class": "cmd" }, cmdline(data.command_line)));
    if (data.study) {
      var d = el("details");
      d.appendChild(el("summary", {}, "The study file: " + data.study.path));
      d.appendChild(el("pre", {}, data.study.text));
      foot.appendChild(d);
    }
  }
  /* The export test (tests/cli/report.sh opens the page at
   * #san-export-test): every figure's SVG and PNG buttons clicked, what
   * they deliver recorded instead of downloaded, as data URLs in
   * <pre id="san-export"> ({"ID.svg": {"type", "size", "data"}, ...});
   * data-san-export on the body counts the files when all are in. */
  function exportTest() {
    var buttons = document.querySelectorAll("[data-figure] button[data-export]");
    var got = {}, done = 0;
    var pre = el("pre", { id: "san-export", hidden: "" });
    document.body.appendChild(pre);
    deliver = function (name, blob) {
      var fr = new FileReader();
      fr.onload = function () {
        got[name] = { type: blob.type, size: blob.size, data: fr.result };
        if (++done === buttons.length) {
          pre.textContent = JSON.stringify(got);
          document.body.setAttribute("data-san-export", String(done));
        }
      };
      fr.onerror = function () { noteError(name + ": cannot read the exported file"); };
      fr.readAsDataURL(blob);
    };
    Array.prototype.forEach.call(buttons, function (b) { b.click(); });
  }
  try {
    main();
    if (location.hash === "#san-export-test") exportTest();
  } catch (e) {
    noteError(e);
  }
  document.body.setAttribute("data-san-ready", "1");
})();
