/*
 * plot.c - curves in the manner of the paper's figures 11-14, drawn with
 * cairo into SVG, PNG or PDF: a framed plot area with ticks at round
 * numbers, light grid lines, one line with markers per series and a
 * legend on the right.
 *
 * Each series is one stroked path of width SERIES_WIDTH; the legend's
 * samples and the markers are filled shapes, so that a reader of the SVG
 * finds exactly one such path per series.
 *
 * Ticks: steps of 1, 2 or 5 times a power of ten; whole steps when every
 * value on the axis is a whole number (a parameter such as slaves or K
 * has no tick at 2.5); decades on a log axis (and 2, 5 times them on an
 * axis of two decades at most).  The outermost ticks sit
 * PAD inside the frame, so that a marker at the end of a curve is drawn
 * whole rather than cut by the frame's clip.
 *
 * Text in SVG: cairo's SVG surface writes every glyph as a path (a
 * <symbol> per glyph, a <use> per character); its API (version, document
 * unit) has no way to keep text as text.  Labels that cannot be edited
 * or searched are not fit for a paper, so in SVG cairo only measures the
 * text (the same font family, for the layout) and the strings are
 * written as <text> elements after cairo's drawing, before its </svg>.
 * PDF keeps text as text by itself; PNG has none to keep.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include "sweep/sweep_int.h"

#define SERIES_WIDTH 2.0
#define FONT 12.0
#define TICK 5.0                /* tick length */
#define GAP 4.0                 /* between a tick and its label */
#define RING_WIDTH 1.5          /* a ringed point: thinner than a series */
#define PAD 9.0                 /* frame to outermost tick: a marker's reach and then some */
#define MAX_PNG 32767           /* cairo's largest image surface */

/* Tableau 10: distinguishable, and readable when printed in grey. */
static const double palette[][3] = {
    { 0.122, 0.467, 0.706 }, { 1.000, 0.498, 0.055 }, { 0.173, 0.627, 0.173 },
    { 0.839, 0.153, 0.157 }, { 0.580, 0.404, 0.741 }, { 0.549, 0.337, 0.294 },
    { 0.890, 0.467, 0.761 }, { 0.498, 0.498, 0.498 }, { 0.737, 0.741, 0.133 },
    { 0.090, 0.745, 0.812 },
};
enum { NCOLORS = sizeof palette / sizeof palette[0], NMARKERS = 5 };

/* ------------------------------------------------------------------ */
/* Memory buffers: cairo's SVG, then our text, then the file           */
/* ------------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} membuf;

static void mb_add(membuf *b, const char *data, size_t len)
{
    if (b->oom)
        return;
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + len + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = '\0';
}

static void mb_printf(membuf *b, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mb_add(b, buf, k < (int)sizeof buf ? (size_t)k : sizeof buf - 1);
}

/* XML character data: the markup characters escaped; control characters,
 * which XML 1.0 forbids, become blanks. */
static void mb_xml(membuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            mb_add(b, "&amp;", 5);
        else if (c == '<')
            mb_add(b, "&lt;", 4);
        else if (c == '>')
            mb_add(b, "&gt;", 4);
        else if (c < 0x20)
            mb_add(b, " ", 1);
        else
            mb_add(b, s, 1);
    }
}

static cairo_status_t write_to_buf(void *closure, const unsigned char *data, unsigned len)
{
    membuf *b = closure;
    mb_add(b, (const char *)data, len);
    return b->oom ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

typedef struct {
    cairo_t *cr;
    membuf *svg;            /* SVG: the <text> elements (see the top);
                               NULL: cairo draws the text */
    double size;            /* the current font */
    int bold;
} canvas;

static void set_font(canvas *cv, double size, int bold)
{
    cv->size = size;
    cv->bold = bold;
    cairo_select_font_face(cv->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cv->cr, size);
}

static double text_width(const canvas *cv, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cv->cr, s, &e);
    return e.x_advance;
}

/* The height of a digit: one box height per font for every string, so
 * that labels side by side share their baseline. */
static double text_height(const canvas *cv)
{
    cairo_text_extents_t e;
    cairo_text_extents(cv->cr, "0", &e);
    return -e.y_bearing;
}

/* s placed by its box: ax 0, 0.5, 1 puts its left end, middle or right
 * end at x; ay 0 its baseline at y (the text above), 0.5 its middle, 1
 * its top (the text below).  Turned by deg degrees about (x, y). */
static void text_at(const canvas *cv, double x, double y, const char *s, double ax, double ay,
                    double deg)
{
    double dy = ay * text_height(cv);
    if (!s || !*s)
        return;
    if (cv->svg) {
        mb_printf(cv->svg, "<text x=\"%.2f\" y=\"%.2f\"", deg ? 0 : x, deg ? dy : y + dy);
        if (deg)
            mb_printf(cv->svg, " transform=\"translate(%.2f %.2f) rotate(%g)\"", x, y, deg);
        mb_printf(cv->svg, " font-family=\"sans-serif\" font-size=\"%g\"%s text-anchor=\"%s\" "
                  "fill=\"#000000\">", cv->size, cv->bold ? " font-weight=\"bold\"" : "",
                  ax == 0 ? "start" : ax == 1 ? "end" : "middle");
        mb_xml(cv->svg, s);
        mb_add(cv->svg, "</text>\n", 8);
        return;
    }
    cairo_t *cr = cv->cr;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, deg * M_PI / 180);
    cairo_move_to(cr, -ax * text_width(cv, s), dy);
    cairo_show_text(cr, s);
    cairo_restore(cr);
}

/* ------------------------------------------------------------------ */
/* Scales                                                               */
/* ------------------------------------------------------------------ */

/* An axis: positions are the values, or their log10 on a log axis. */
typedef struct {
    int log;
    double lo, hi;          /* the positions shown: the outermost ticks */
    double step;            /* between ticks (decades on a log axis) */
} scale;

/* The data on an axis: positions spanned, and whether every value is a
 * whole number. */
typedef struct {
    double lo, hi;
    int whole;
} span;

typedef struct {
    double px, py, pw, ph;  /* the frame on the page */
    scale x, y;
} frame;

static double pos(const scale *sc, double v) { return sc->log ? log10(v) : v; }

static double x_at(const frame *f, double p)
{
    return f->px + PAD + (p - f->x.lo) / (f->x.hi - f->x.lo) * (f->pw - 2 * PAD);
}

static double y_at(const frame *f, double p)
{
    return f->py + f->ph - PAD - (p - f->y.lo) / (f->y.hi - f->y.lo) * (f->ph - 2 * PAD);
}

static double to_px(const frame *f, double x) { return x_at(f, pos(&f->x, x)); }
static double to_py(const frame *f, double y) { return y_at(f, pos(&f->y, y)); }

/* A round step (1, 2 or 5 times a power of ten) giving about n ticks. */
static double nice_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static int whole(double v) { return v == floor(v) && fabs(v) < 9e15; }

/* The points drawn: finite x (but for a reference line) and y. */
static int drawn(const san_plot_series *s, int i)
{
    return isfinite(s->y[i]) && (s->hline || isfinite(s->x[i]));
}

static void data_span(const san_plot_series *s, int ns, int is_y, int log, span *d)
{
    d->lo = INFINITY;
    d->hi = -INFINITY;
    d->whole = 1;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            if (!drawn(&s[k], i) || (!is_y && s[k].hline))
                continue;
            double v = is_y ? s[k].y[i] : s[k].x[i], p = log ? log10(v) : v;
            d->lo = fmin(d->lo, p);
            d->hi = fmax(d->hi, p);
            d->whole &= whole(v);
        }
}

/* The outermost ticks around the data, about n of them; whole steps
 * on a whole axis (a log axis' decades are whole too).  A flat range
 * gets some room. */
static void make_scale(scale *sc, const span *d, int log, int n)
{
    double lo = d->lo, hi = d->hi;
    int whole_steps = d->whole || log;
    if (!isfinite(lo))
        lo = 0, hi = 1;
    if (log) {
        lo = floor(lo + 1e-9);
        hi = ceil(hi - 1e-9);
    }
    if (!(hi > lo)) {
        double pad = log || d->whole ? 1 : lo != 0 ? fabs(lo) * 0.1 : 1;
        lo -= log ? 0 : pad;
        hi += pad;
    }
    double step = nice_step(hi - lo, n);
    if (whole_steps && step < 1)
        step = 1;
    sc->log = log;
    sc->step = step;
    sc->lo = floor(lo / step + 1e-9) * step;
    sc->hi = ceil(hi / step - 1e-9) * step;
}

static int nticks(const scale *sc)
{
    return (int)floor((sc->hi - sc->lo) / sc->step + 1e-6) + 1;
}

static double tick(const scale *sc, int i) { return sc->lo + i * sc->step; }

/* A decade as a number a reader parses: 0.001 .. 100000, else 1e6. */
static void decade_label(char *buf, size_t n, int k)
{
    if (k >= 0 && k <= 5)
        snprintf(buf, n, "%.0f", pow(10, k));
    else if (k < 0 && k >= -4)
        snprintf(buf, n, "%.*f", -k, pow(10, k));
    else
        snprintf(buf, n, "1e%d", k);
}

/* As many decimals as the step has, so that 0.1 + 0.2 reads 0.3. */
static void tick_label(const scale *sc, double p, char *buf, size_t n)
{
    if (sc->log) {
        decade_label(buf, n, (int)lround(p));
        return;
    }
    if (fabs(p) < sc->step * 1e-9)
        p = 0;
    int dec = sc->step >= 1 ? 0 : (int)ceil(-log10(sc->step) - 1e-9);
    if (fabs(p) >= 1e9 || dec > 9)
        snprintf(buf, n, "%.6g", p);
    else
        snprintf(buf, n, "%.*f", dec, p);
}

/* A log axis of one or two decades labelled at the decades alone gives
 * a reader two or three numbers to place a curve by (a queue length from
 * 1.3 to 6 read against "1" and "10"): 2 and 5 times each decade are
 * labelled there too, as 1-2-5 steps are on a linear axis. */
static const int log_minors[] = { 2, 5 };
#define NLOG_MINORS 2

static int labelled_minors(const scale *sc)
{
    return sc->log && sc->step == 1 && sc->hi - sc->lo <= 2;
}

/* m 10^k as a number a reader parses, as decade_label writes 10^k. */
static void minor_label(char *buf, size_t n, int k, int m)
{
    const double v = m * pow(10, k);
    if (k >= 0 && k <= 5)
        snprintf(buf, n, "%.0f", v);
    else if (k < 0 && k >= -4)
        snprintf(buf, n, "%.*f", -k, v);
    else
        snprintf(buf, n, "%de%d", m, k);
}

static double widest_label(const canvas *cv, const scale *sc)
{
    char buf[64];
    double w = 0;
    for (int i = 0; i < nticks(sc); i++) {
        tick_label(sc, tick(sc, i), buf, sizeof buf);
        w = fmax(w, text_width(cv, buf));
    }
    if (labelled_minors(sc))
        for (double k = sc->lo; k < sc->hi; k++)
            for (int j = 0; j < NLOG_MINORS; j++) {
                minor_label(buf, sizeof buf, (int)k, log_minors[j]);
                w = fmax(w, text_width(cv, buf));
            }
    return w;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                              */
/* ------------------------------------------------------------------ */

/* Light lines at the labelled ticks, inside the frame. */
static void draw_grid(cairo_t *cr, const frame *f)
{
    cairo_set_line_width(cr, 0.5);
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    for (int i = 0; i < nticks(&f->x); i++) {
        cairo_move_to(cr, x_at(f, tick(&f->x, i)), f->py);
        cairo_line_to(cr, x_at(f, tick(&f->x, i)), f->py + f->ph);
    }
    for (int i = 0; i < nticks(&f->y); i++) {
        cairo_move_to(cr, f->px, y_at(f, tick(&f->y, i)));
        cairo_line_to(cr, f->px + f->pw, y_at(f, tick(&f->y, i)));
    }
    cairo_stroke(cr);
}

/* A log axis read at a glance: short ticks at 2..9 times each decade,
 * when the decades are one step apart and few (full ones where they are
 * labelled: labelled_minors). */
static void minor_ticks(cairo_t *cr, const frame *f, const scale *sc, int is_y)
{
    if (!sc->log || sc->step != 1 || sc->hi - sc->lo > 8)
        return;
    for (double k = sc->lo; k < sc->hi; k++)
        for (int m = 2; m <= 9; m++) {
            const double p = k + log10(m);
            const double len = labelled_minors(sc) && (m == 2 || m == 5) ? TICK : TICK / 2;
            if (is_y) {
                cairo_move_to(cr, f->px - len, y_at(f, p));
                cairo_line_to(cr, f->px, y_at(f, p));
            } else {
                cairo_move_to(cr, x_at(f, p), f->py + f->ph);
                cairo_line_to(cr, x_at(f, p), f->py + f->ph + len);
            }
        }
}

static void draw_frame(const canvas *cv, const frame *f)
{
    cairo_t *cr = cv->cr;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, f->px, f->py, f->pw, f->ph);
    for (int i = 0; i < nticks(&f->x); i++) {
        cairo_move_to(cr, x_at(f, tick(&f->x, i)), f->py + f->ph);
        cairo_line_to(cr, x_at(f, tick(&f->x, i)), f->py + f->ph + TICK);
    }
    for (int i = 0; i < nticks(&f->y); i++) {
        cairo_move_to(cr, f->px - TICK, y_at(f, tick(&f->y, i)));
        cairo_line_to(cr, f->px, y_at(f, tick(&f->y, i)));
    }
    minor_ticks(cr, f, &f->x, 0);
    minor_ticks(cr, f, &f->y, 1);
    cairo_stroke(cr);
}

static void draw_tick_labels(canvas *cv, const frame *f)
{
    char buf[64];
    set_font(cv, FONT, 0);
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    for (int i = 0; i < nticks(&f->x); i++) {
        tick_label(&f->x, tick(&f->x, i), buf, sizeof buf);
        text_at(cv, x_at(f, tick(&f->x, i)), f->py + f->ph + TICK + GAP, buf, 0.5, 1, 0);
    }
    for (int i = 0; i < nticks(&f->y); i++) {
        tick_label(&f->y, tick(&f->y, i), buf, sizeof buf);
        text_at(cv, f->px - TICK - GAP, y_at(f, tick(&f->y, i)), buf, 1, 0.5, 0);
    }
    for (int is_y = 0; is_y < 2; is_y++) {
        const scale *sc = is_y ? &f->y : &f->x;
        if (!labelled_minors(sc))
            continue;
        for (double k = sc->lo; k < sc->hi; k++)
            for (int j = 0; j < NLOG_MINORS; j++) {
                const double p = k + log10(log_minors[j]);
                minor_label(buf, sizeof buf, (int)k, log_minors[j]);
                if (is_y)
                    text_at(cv, f->px - TICK - GAP, y_at(f, p), buf, 1, 0.5, 0);
                else
                    text_at(cv, x_at(f, p), f->py + f->ph + TICK + GAP, buf, 0.5, 1, 0);
            }
    }
}

/* Filled markers: circle, square, triangle, diamond, inverted triangle. */
static void marker(cairo_t *cr, int kind, double x, double y)
{
    const double r = 4;
    switch (kind % NMARKERS) {
    case 0:
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 2 * M_PI);
        break;
    case 1:
        cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
        break;
    case 2:
        cairo_move_to(cr, x, y - 1.2 * r);
        cairo_line_to(cr, x + 1.1 * r, y + 0.8 * r);
        cairo_line_to(cr, x - 1.1 * r, y + 0.8 * r);
        cairo_close_path(cr);
        break;
    case 3:
        cairo_move_to(cr, x, y - 1.3 * r);
        cairo_line_to(cr, x + 1.3 * r, y);
        cairo_line_to(cr, x, y + 1.3 * r);
        cairo_line_to(cr, x - 1.3 * r, y);
        cairo_close_path(cr);
        break;
    default:
        cairo_move_to(cr, x, y + 1.2 * r);
        cairo_line_to(cr, x + 1.1 * r, y - 0.8 * r);
        cairo_line_to(cr, x - 1.1 * r, y - 0.8 * r);
        cairo_close_path(cr);
        break;
    }
}

static void draw_series(cairo_t *cr, const frame *f, const san_plot_series *s, int k)
{
    const double *c = palette[k % NCOLORS];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    cairo_set_line_width(cr, SERIES_WIDTH);
    if (s->hline) {
        static const double dash[] = { 6, 4 };
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, f->px, to_py(f, s->y[0]));
        cairo_line_to(cr, f->px + f->pw, to_py(f, s->y[0]));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        return;
    }
    int pen = 0;
    for (int i = 0; i < s->n; i++) {
        if (!drawn(s, i)) {
            pen = 0;
            continue;
        }
        if (pen)
            cairo_line_to(cr, to_px(f, s->x[i]), to_py(f, s->y[i]));
        else
            cairo_move_to(cr, to_px(f, s->x[i]), to_py(f, s->y[i]));
        pen = 1;
    }
    cairo_stroke(cr);
    for (int i = 0; i < s->n; i++)
        if (drawn(s, i))
            marker(cr, k, to_px(f, s->x[i]), to_py(f, s->y[i]));
    cairo_fill(cr);
    /* the choice (size-buffer's K): a ring around its marker */
    if (s->mark > 0 && s->mark <= s->n && drawn(s, s->mark - 1)) {
        cairo_set_line_width(cr, RING_WIDTH);
        cairo_new_sub_path(cr);
        cairo_arc(cr, to_px(f, s->x[s->mark - 1]), to_py(f, s->y[s->mark - 1]), 8, 0, 2 * M_PI);
        cairo_stroke(cr);
    }
}

static double legend_width(canvas *cv, const san_plot_opts *o, const san_plot_series *s, int ns)
{
    double w = 0;
    set_font(cv, FONT, 0);
    for (int k = 0; k < ns; k++)
        w = fmax(w, text_width(cv, s[k].label));
    if (o->legend_title && *o->legend_title) {
        set_font(cv, FONT, 1);
        w = fmax(w, text_width(cv, o->legend_title) - 30);
    }
    return w + 46;
}

/* Samples are filled bars, not strokes (see the top of the file). */
static void draw_legend(canvas *cv, const frame *f, const san_plot_opts *o,
                        const san_plot_series *s, int ns)
{
    cairo_t *cr = cv->cr;
    double x = f->px + f->pw + 16, y = f->py + 8;
    if (o->legend_title && *o->legend_title) {
        set_font(cv, FONT, 1);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cv, x, y, o->legend_title, 0, 0.5, 0);
        y += 20;
    }
    set_font(cv, FONT, 0);
    for (int k = 0; k < ns; k++, y += 20) {
        const double *c = palette[k % NCOLORS];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        if (s[k].hline) {
            cairo_rectangle(cr, x, y - 1, 9, 2);
            cairo_rectangle(cr, x + 15, y - 1, 9, 2);
        } else {
            cairo_rectangle(cr, x, y - 1, 24, 2);
            marker(cr, k, x + 12, y);
        }
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cv, x + 30, y, s[k].label, 0, 0.5, 0);
    }
}

/* ------------------------------------------------------------------ */
/* Layout                                                               */
/* ------------------------------------------------------------------ */

static int has(const char *s) { return s && *s; }

/* The frame and the scales on a W x H page: margins for the title, the
 * axes' labels, the tick labels as wide as they come, the legend; as
 * many x ticks as leave their labels apart (40 units at least).  -1 when the page
 * leaves the plot no room. */
static int layout(canvas *cv, const san_plot_opts *o, double W, double H,
                  const san_plot_series *s, int ns, frame *f)
{
    span dx, dy;
    data_span(s, ns, 0, o->logx, &dx);
    data_span(s, ns, 1, o->logy, &dy);
    double lw = fmin(legend_width(cv, o, s, ns), W / 2.5);
    set_font(cv, FONT + 1, 0);
    double hl = text_height(cv);
    set_font(cv, FONT, 0);
    double ht = text_height(cv);
    double top = has(o->title) ? 40 : 14;
    double bottom = TICK + GAP + ht * 1.35 + (has(o->xlabel) ? 10 + hl * 1.35 : 0) + 8;
    f->py = top;
    f->ph = H - top - bottom;
    if (f->ph < 4 * PAD)
        return -1;
    make_scale(&f->y, &dy, o->logy, (int)fmax(2, fmin(8, f->ph / 60)));
    double left = 8 + (has(o->ylabel) ? hl * 1.35 + 8 : 0) + widest_label(cv, &f->y) + GAP + TICK;
    f->px = left;
    f->pw = W - left - lw - 20;
    if (f->pw < 4 * PAD)
        return -1;
    int n = 10;
    make_scale(&f->x, &dx, o->logx, n);
    while (n > 2 && fmax(widest_label(cv, &f->x) + 16, 40) >
                        (f->pw - 2 * PAD) * f->x.step / (f->x.hi - f->x.lo))
        make_scale(&f->x, &dx, o->logx, --n);
    return 0;
}

static void draw_labels(canvas *cv, const frame *f, const san_plot_opts *o)
{
    set_font(cv, FONT, 0);
    double ht = text_height(cv);
    set_font(cv, FONT + 1, 0);
    double hl = text_height(cv);
    cairo_set_source_rgb(cv->cr, 0, 0, 0);
    if (has(o->xlabel))
        text_at(cv, f->px + f->pw / 2, f->py + f->ph + TICK + GAP + ht * 1.35 + 10, o->xlabel,
                0.5, 1, 0);
    if (has(o->ylabel))
        text_at(cv, 8 + hl * 0.7, f->py + f->ph / 2, o->ylabel, 0.5, 0.5, -90);
    if (has(o->title)) {
        set_font(cv, FONT + 3, 0);
        text_at(cv, f->px + f->pw / 2, 20, o->title, 0.5, 0.5, 0);
    }
}

static int draw_plot(canvas *cv, const san_plot_opts *o, double W, double H,
                     const san_plot_series *s, int ns)
{
    cairo_t *cr = cv->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    frame f;
    if (layout(cv, o, W, H, s, ns, &f) < 0)
        return -1;
    draw_grid(cr, &f);
    draw_frame(cv, &f);
    draw_tick_labels(cv, &f);
    draw_labels(cv, &f, o);
    cairo_save(cr);
    cairo_rectangle(cr, f.px, f.py, f.pw, f.ph);
    cairo_clip(cr);
    for (int k = 0; k < ns; k++)
        draw_series(cr, &f, &s[k], k);
    cairo_restore(cr);
    draw_legend(cv, &f, o, s, ns);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

typedef enum { PLOT_SVG, PLOT_PNG, PLOT_PDF, PLOT_BAD } plot_kind;

static plot_kind kind_of(const char *file)
{
    const char *dot = strrchr(file, '.');
    if (!dot)
        return PLOT_BAD;
    if (!strcasecmp(dot, ".svg"))
        return PLOT_SVG;
    if (!strcasecmp(dot, ".png"))
        return PLOT_PNG;
    if (!strcasecmp(dot, ".pdf"))
        return PLOT_PDF;
    return PLOT_BAD;
}

/* The page: W x H units, and for PNG its pixels. */
typedef struct {
    double w, h;
    double dpi;
    int pxw, pxh;
} page;

/* The SVG as cairo wrote it, our <text> elements before its </svg>. */
static void svg_with_text(membuf *out, const membuf *cairo_svg, const membuf *text)
{
    const char *end = NULL;
    if (!cairo_svg->p)
        return;
    for (const char *p = strstr(cairo_svg->p, "</svg>"); p; p = strstr(p + 1, "</svg>"))
        end = p;
    size_t at = end ? (size_t)(end - cairo_svg->p) : cairo_svg->n;
    mb_add(out, cairo_svg->p, at);
    mb_add(out, "<g id=\"text\">\n", 14);
    mb_add(out, text->p ? text->p : "", text->n);
    mb_add(out, "</g>\n", 5);
    mb_add(out, cairo_svg->p + at, cairo_svg->n - at);
}

static uint32_t png_crc(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

/* The PNG as cairo wrote it with a pHYs chunk after its IHDR: cairo
 * writes none, and without it a reader (LaTeX, an editor) sizes the
 * image at its own guess of dpi; with it the page keeps its inches
 * (W/96) whatever --dpi put in pixels. */
static void png_with_dpi(membuf *out, const membuf *png, double dpi)
{
    enum { AFTER_IHDR = 8 + 4 + 4 + 13 + 4 };
    unsigned char c[21];
    uint32_t ppm = (uint32_t)floor(dpi / 0.0254 + 0.5);     /* pixels per metre */
    if (png->n < AFTER_IHDR || memcmp(png->p + 12, "IHDR", 4)) {
        mb_add(out, png->p, png->n);
        return;
    }
    put32(c, 9);
    memcpy(c + 4, "pHYs", 4);
    put32(c + 8, ppm);
    put32(c + 12, ppm);
    c[16] = 1;                                              /* the unit: the metre */
    put32(c + 17, png_crc(c + 4, 13));
    mb_add(out, png->p, AFTER_IHDR);
    mb_add(out, (const char *)c, sizeof c);
    mb_add(out, png->p + AFTER_IHDR, png->n - AFTER_IHDR);
}

/* Draw into a surface of kind k that writes to out; a cairo status, or
 * -1 when the page leaves the plot no room. */
static int render(plot_kind k, const page *pg, const san_plot_opts *o, const san_plot_series *s,
                  int ns, membuf *out)
{
    membuf drawing = { 0 }, text = { 0 };
    cairo_surface_t *sf =
        k == PLOT_SVG ? cairo_svg_surface_create_for_stream(write_to_buf, &drawing, pg->w, pg->h)
      : k == PLOT_PDF ? cairo_pdf_surface_create_for_stream(write_to_buf, out, pg->w, pg->h)
                      : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pg->pxw, pg->pxh);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
    if (k == PLOT_SVG)      /* points, whatever this cairo's default */
        cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PT);
#endif
    if (k == PLOT_PDF && has(o->title))
        cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_TITLE, o->title);
    cairo_t *cr = cairo_create(sf);
    if (k == PLOT_PNG)
        cairo_scale(cr, pg->pxw / pg->w, pg->pxh / pg->h);
    canvas cv = { cr, k == PLOT_SVG ? &text : NULL, FONT, 0 };
    int rc = draw_plot(&cv, o, pg->w, pg->h, s, ns);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (rc == 0 && st == CAIRO_STATUS_SUCCESS && k == PLOT_PNG)
        st = cairo_surface_write_to_png_stream(sf, write_to_buf, &drawing);
    cairo_surface_finish(sf);       /* SVG and PDF: the rest is written here */
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(sf);
    cairo_surface_destroy(sf);
    if (rc == 0 && st == CAIRO_STATUS_SUCCESS && k == PLOT_SVG)
        svg_with_text(out, &drawing, &text);
    if (rc == 0 && st == CAIRO_STATUS_SUCCESS && k == PLOT_PNG)
        png_with_dpi(out, &drawing, pg->dpi);
    if (st == CAIRO_STATUS_SUCCESS && (drawing.oom || text.oom || out->oom))
        st = CAIRO_STATUS_NO_MEMORY;
    free(drawing.p);
    free(text.p);
    return rc < 0 ? -1 : (int)st;
}

static int page_of(plot_kind k, const san_plot_opts *o, page *pg, char *err, size_t n)
{
    double dpi = o->dpi > 0 ? o->dpi : 96;
    pg->w = o->width > 0 ? o->width : 800;
    pg->h = o->height > 0 ? o->height : 500;
    double pw = floor(pg->w * dpi / 96 + 0.5), ph = floor(pg->h * dpi / 96 + 0.5);
    if (k == PLOT_PNG && (pw > MAX_PNG || ph > MAX_PNG || pw < 1 || ph < 1)) {
        sweep_err(err, n, "--size %gx%g at --dpi %g: a PNG of %.0fx%.0f pixels (at most %d "
                  "a side)", pg->w, pg->h, dpi, pw, ph, MAX_PNG);
        return -1;
    }
    pg->dpi = dpi;
    pg->pxw = (int)pw;
    pg->pxh = (int)ph;
    return 0;
}

/* The whole file at once through the output module, so that a plot is
 * replaced atomically like every other output (base/outfile.c). */
static int write_file(const char *file, const membuf *b, char *err, size_t n)
{
    san_out *o = san_out_open(file);
    if (!o) {
        sweep_err(err, n, "--plot: cannot write '%s': %s", file, strerror(errno));
        return -1;
    }
    if (fwrite(b->p, 1, b->n, san_out_file(o)) != b->n) {
        int e = errno;
        san_out_discard(o);
        sweep_err(err, n, "--plot: cannot write '%s': %s", file, strerror(e));
        return -1;
    }
    if (san_out_commit(o) != 0) {
        sweep_err(err, n, "--plot: cannot write '%s': %s", file, strerror(errno));
        return -1;
    }
    return 0;
}

int san_plot_ex(const char *file, const san_plot_opts *o, const san_plot_series *s, int ns,
                char *err, size_t n)
{
    san_plot_opts def;
    if (!o) {
        san_plot_opts_default(&def);
        o = &def;
    }
    plot_kind k = kind_of(file);
    if (k == PLOT_BAD) {
        sweep_err(err, n, "--plot: '%s': the file name must end in .svg, .png or .pdf", file);
        return -2;
    }
    page pg;
    if (sweep_plot_check(o, s, ns, err, n) < 0 || page_of(k, o, &pg, err, n) < 0)
        return -2;
    membuf out = { 0 };
    int rc = render(k, &pg, o, s, ns, &out);
    if (rc < 0) {
        free(out.p);
        sweep_err(err, n, "--size %gx%g: no room left for the plot beside its labels and legend",
                  pg.w, pg.h);
        return -2;
    }
    if (rc != CAIRO_STATUS_SUCCESS) {
        free(out.p);
        sweep_err(err, n, "--plot: cannot draw '%s': %s", file,
                  cairo_status_to_string((cairo_status_t)rc));
        return -1;
    }
    rc = write_file(file, &out, err, n);
    free(out.p);
    return rc;
}
