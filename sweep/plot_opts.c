/*
 * plot_opts.c - what every plot must satisfy, with cairo or without
 * (plot.c, plot_none.c): the page within bounds, text that is UTF-8 (a
 * <text> element and cairo both need it), every value on a log axis
 * above zero.  A leaf: the drawing (plot.c, plot_none.c) checks with it.
 */
#include <math.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

enum { PAGE_MIN = 100, PAGE_MAX = 20000 };

void san_plot_opts_default(san_plot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->width = 800;
    o->height = 500;
    o->dpi = 96;
}

/* Well-formed UTF-8: no stray continuation bytes, no truncated or
 * overlong sequences. */
static int utf8_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3
                : (*p & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || (len == 2 && *p < 0xC2))
            return 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        p += len;
    }
    return 1;
}

static int text_check(const char *what, const char *s, char *err, size_t n)
{
    if (s && !utf8_ok(s)) {
        sweep_err(err, n, "%s: the text is not valid UTF-8", what);
        return -1;
    }
    return 0;
}

/* A value <= 0 on a log axis, named with its series: the user sees which
 * curve to take off the axis or shift. */
static int log_check(const san_plot_opts *o, const san_plot_series *s, char *err, size_t n)
{
    for (int i = 0; i < s->n; i++) {
        double x = s->x ? s->x[i] : NAN, y = s->y[i];
        if (!isfinite(y) || (!s->hline && !isfinite(x)))
            continue;
        if (o->logx && !s->hline && x <= 0) {
            sweep_err(err, n, "--logx: series '%s' has x = %g (y = %g); a log axis needs "
                      "values > 0", s->label ? s->label : "", x, y);
            return -1;
        }
        if (o->logy && y <= 0) {
            if (s->hline)
                sweep_err(err, n, "--logy: series '%s' has y = %g; a log axis needs values > 0",
                          s->label ? s->label : "", y);
            else
                sweep_err(err, n, "--logy: series '%s' has y = %g at x = %g; a log axis needs "
                          "values > 0", s->label ? s->label : "", y, x);
            return -1;
        }
    }
    return 0;
}

int sweep_plot_check(const san_plot_opts *o, const san_plot_series *s, int ns, char *err,
                     size_t n)
{
    if (BASE_OPTS_FOREIGN(o, "plot", "san_plot_opts_default", err, n))
        return -1;
    if (ns < 1) {
        sweep_err(err, n, "--plot: nothing to draw (no variant solved)");
        return -1;
    }
    if ((o->width && !(o->width >= PAGE_MIN && o->width <= PAGE_MAX)) ||
        (o->height && !(o->height >= PAGE_MIN && o->height <= PAGE_MAX))) {
        sweep_err(err, n, "--size %gx%g: each side from %d to %d", o->width, o->height,
                  PAGE_MIN, PAGE_MAX);
        return -1;
    }
    if (o->dpi && !(o->dpi >= 10 && o->dpi <= 4800)) {
        sweep_err(err, n, "--dpi %g: expected 10 to 4800", o->dpi);
        return -1;
    }
    if (text_check("--title", o->title, err, n) || text_check("--xlabel", o->xlabel, err, n) ||
        text_check("--ylabel", o->ylabel, err, n) ||
        text_check("--legend-title", o->legend_title, err, n))
        return -1;
    for (int k = 0; k < ns; k++)
        if (text_check("a series' label", s[k].label, err, n) || log_check(o, &s[k], err, n))
            return -1;
    return 0;
}
