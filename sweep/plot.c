/*
 * plot.c - curves in the manner of the paper's figures 11-14, drawn with
 * cairo into SVG, PNG or PDF: a framed plot area with ticks at round
 * numbers, light grid lines, one line with markers per series and a
 * legend on the right.
 *
 * Each series is one stroked path of width SERIES_WIDTH; the legend's
 * samples and the markers are filled shapes, so that a reader of the SVG
 * finds exactly one such path per series.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include "sweep.h"

enum { W = 800, H = 500 };
#define SERIES_WIDTH 2.0
#define FONT 12.0

/* Tableau 10: distinguishable, and readable when printed in grey. */
static const double palette[][3] = {
    { 0.122, 0.467, 0.706 }, { 1.000, 0.498, 0.055 }, { 0.173, 0.627, 0.173 },
    { 0.839, 0.153, 0.157 }, { 0.580, 0.404, 0.741 }, { 0.549, 0.337, 0.294 },
    { 0.890, 0.467, 0.761 }, { 0.498, 0.498, 0.498 }, { 0.737, 0.741, 0.133 },
    { 0.090, 0.745, 0.812 },
};
enum { NCOLORS = sizeof palette / sizeof palette[0], NMARKERS = 5 };

typedef struct {
    double x0, x1, y0, y1;          /* data range shown */
    double px, py, pw, ph;          /* plot area on the page */
} frame;

static double to_px(const frame *f, double x) { return f->px + (x - f->x0) / (f->x1 - f->x0) * f->pw; }
static double to_py(const frame *f, double y) { return f->py + f->ph - (y - f->y0) / (f->y1 - f->y0) * f->ph; }

/* ------------------------------------------------------------------ */
/* Scales                                                               */
/* ------------------------------------------------------------------ */

/* A round step (1, 2 or 5 times a power of ten) giving about n ticks. */
static double nice_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Widen [lo, hi] to whole steps; a flat range gets some room. */
static void nice_range(double *lo, double *hi, int n, double *step)
{
    if (!(*hi > *lo)) {
        double pad = *lo != 0 ? fabs(*lo) * 0.1 : 1;
        *lo -= pad;
        *hi += pad;
    }
    *step = nice_step(*hi - *lo, n);
    *lo = floor(*lo / *step + 1e-9) * *step;
    *hi = ceil(*hi / *step - 1e-9) * *step;
}

static void data_range(const san_plot_series *s, int ns, frame *f)
{
    f->x0 = f->y0 = INFINITY;
    f->x1 = f->y1 = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            if (!isfinite(s[k].y[i]))
                continue;
            if (!s[k].hline && isfinite(s[k].x[i])) {
                f->x0 = fmin(f->x0, s[k].x[i]);
                f->x1 = fmax(f->x1, s[k].x[i]);
            }
            f->y0 = fmin(f->y0, s[k].y[i]);
            f->y1 = fmax(f->y1, s[k].y[i]);
        }
    if (!isfinite(f->x0))
        f->x0 = 0, f->x1 = 1;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                              */
/* ------------------------------------------------------------------ */

static void text_at(cairo_t *cr, double x, double y, const char *s, double ax, double ay)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - ax * e.width - e.x_bearing, y + ay * e.height - (e.height + e.y_bearing));
    cairo_show_text(cr, s);
}

static void tick_label(char *buf, size_t n, double v, double step)
{
    if (fabs(v) < step * 1e-9)
        v = 0;
    snprintf(buf, n, "%.6g", v);
}

static void draw_axes(cairo_t *cr, const frame *f, double xs, double ys,
                      const char *xlabel, const char *ylabel)
{
    char buf[64];
    cairo_set_line_width(cr, 0.5);
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    for (double x = f->x0; x <= f->x1 + xs * 1e-9; x += xs) {
        cairo_move_to(cr, to_px(f, x), f->py);
        cairo_line_to(cr, to_px(f, x), f->py + f->ph);
    }
    for (double y = f->y0; y <= f->y1 + ys * 1e-9; y += ys) {
        cairo_move_to(cr, f->px, to_py(f, y));
        cairo_line_to(cr, f->px + f->pw, to_py(f, y));
    }
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, f->px, f->py, f->pw, f->ph);
    for (double x = f->x0; x <= f->x1 + xs * 1e-9; x += xs) {
        cairo_move_to(cr, to_px(f, x), f->py + f->ph);
        cairo_line_to(cr, to_px(f, x), f->py + f->ph + 5);
    }
    for (double y = f->y0; y <= f->y1 + ys * 1e-9; y += ys) {
        cairo_move_to(cr, f->px - 5, to_py(f, y));
        cairo_line_to(cr, f->px, to_py(f, y));
    }
    cairo_stroke(cr);
    cairo_set_font_size(cr, FONT);
    for (double x = f->x0; x <= f->x1 + xs * 1e-9; x += xs) {
        tick_label(buf, sizeof buf, x, xs);
        text_at(cr, to_px(f, x), f->py + f->ph + 9, buf, 0.5, 1);
    }
    for (double y = f->y0; y <= f->y1 + ys * 1e-9; y += ys) {
        tick_label(buf, sizeof buf, y, ys);
        text_at(cr, f->px - 9, to_py(f, y), buf, 1, 0.5);
    }
    cairo_set_font_size(cr, FONT + 1);
    text_at(cr, f->px + f->pw / 2, f->py + f->ph + 32, xlabel, 0.5, 1);
    cairo_save(cr);
    cairo_translate(cr, 18, f->py + f->ph / 2);
    cairo_rotate(cr, -M_PI / 2);
    text_at(cr, 0, 0, ylabel, 0.5, 0.5);
    cairo_restore(cr);
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
        if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
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
        if (isfinite(s->x[i]) && isfinite(s->y[i]))
            marker(cr, k, to_px(f, s->x[i]), to_py(f, s->y[i]));
    cairo_fill(cr);
}

static double legend_width(cairo_t *cr, const san_plot_series *s, int ns)
{
    double w = 0;
    cairo_set_font_size(cr, FONT);
    for (int k = 0; k < ns; k++) {
        cairo_text_extents_t e;
        cairo_text_extents(cr, s[k].label, &e);
        w = fmax(w, e.x_advance);
    }
    return w + 46;
}

/* Samples are filled bars, not strokes (see the top of the file). */
static void draw_legend(cairo_t *cr, const frame *f, const san_plot_series *s, int ns)
{
    double x = f->px + f->pw + 16, y = f->py + 8;
    cairo_set_font_size(cr, FONT);
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
        text_at(cr, x + 30, y, s[k].label, 0, 0.5);
    }
}

static void draw_plot(cairo_t *cr, const char *title, const char *xlabel, const char *ylabel,
                      const san_plot_series *s, int ns)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    frame f;
    data_range(s, ns, &f);
    double xs, ys;
    nice_range(&f.x0, &f.x1, 8, &xs);
    nice_range(&f.y0, &f.y1, 6, &ys);
    double lw = fmin(legend_width(cr, s, ns), W / 2.5);
    f.px = 80;
    f.py = 40;
    f.pw = W - f.px - 20 - lw;
    f.ph = H - f.py - 60;
    draw_axes(cr, &f, xs, ys, xlabel, ylabel);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, FONT + 3);
    text_at(cr, f.px + f.pw / 2, 20, title, 0.5, 0.5);
    cairo_save(cr);
    cairo_rectangle(cr, f.px, f.py, f.pw, f.ph);
    cairo_clip(cr);
    for (int k = 0; k < ns; k++)
        draw_series(cr, &f, &s[k], k);
    cairo_restore(cr);
    draw_legend(cr, &f, s, ns);
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

/* cairo's stream writer: into the output module's file, so that a plot
 * is replaced atomically like every other output (base/outfile.c). */
typedef struct {
    FILE *f;
    int err;                /* errno of the first failed write, else 0 */
} plot_sink;

static cairo_status_t write_to_file(void *closure, const unsigned char *data, unsigned len)
{
    plot_sink *sink = closure;
    if (fwrite(data, 1, len, sink->f) == len)
        return CAIRO_STATUS_SUCCESS;
    if (!sink->err)
        sink->err = errno;
    return CAIRO_STATUS_WRITE_ERROR;
}

/* Draw into a surface of kind k that writes to out; a cairo status. */
static cairo_status_t render(plot_kind k, plot_sink *out, const char *title, const char *xlabel,
                             const char *ylabel, const san_plot_series *s, int ns)
{
    cairo_surface_t *sf =
        k == PLOT_SVG ? cairo_svg_surface_create_for_stream(write_to_file, out, W, H)
      : k == PLOT_PDF ? cairo_pdf_surface_create_for_stream(write_to_file, out, W, H)
                      : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    if (k == PLOT_PDF)
        cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_TITLE, title);
    cairo_t *cr = cairo_create(sf);
    draw_plot(cr, title, xlabel, ylabel, s, ns);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS && k == PLOT_PNG)
        st = cairo_surface_write_to_png_stream(sf, write_to_file, out);
    cairo_surface_finish(sf);       /* SVG and PDF: the rest is written here */
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(sf);
    cairo_surface_destroy(sf);
    return st;
}

int san_plot(const char *file, const char *title, const char *xlabel,
             const char *ylabel, const san_plot_series *s, int ns,
             char *err, size_t n)
{
    plot_kind k = kind_of(file);
    if (k == PLOT_BAD) {
        sweep_err(err, n, "--plot: '%s': the file name must end in .svg, .png or .pdf", file);
        return -2;
    }
    if (ns < 1) {
        sweep_err(err, n, "--plot: nothing to draw (no variant solved)");
        return -2;
    }
    san_out *o = san_out_open(file);
    if (!o) {
        sweep_err(err, n, "--plot: cannot write '%s': %s", file, strerror(errno));
        return -1;
    }
    plot_sink sink = { san_out_file(o), 0 };
    cairo_status_t st = render(k, &sink, title, xlabel, ylabel, s, ns);
    if (st != CAIRO_STATUS_SUCCESS) {
        /* the stream's own error (a full disk) says more than cairo's */
        san_out_discard(o);
        sweep_err(err, n, "--plot: cannot write '%s': %s", file,
                  sink.err ? strerror(sink.err) : cairo_status_to_string(st));
        return -1;
    }
    if (san_out_commit(o) != 0) {
        sweep_err(err, n, "--plot: cannot write '%s': %s", file, strerror(errno));
        return -1;
    }
    return 0;
}
