/*
 * curves.c - a sweep's rows as the curves of a plot: y against one swept
 * parameter, one curve per combination of the series parameters.  Every
 * other parameter that varies joins the series, so that no curve ever
 * has two points at the same x.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

/* The row fields that may be plotted besides the results. */
static const char *const fields[] = { "reachable_states", "time_s", "iterations", NULL };

static int y_value(const san_sweep_row *r, const char *y, double *v)
{
    if (!strcmp(y, "reachable_states"))
        *v = (double)r->reachable;
    else if (!strcmp(y, "time_s"))
        *v = r->time_s;
    else if (!strcmp(y, "iterations"))
        *v = (double)r->iterations;
    else {
        for (int i = 0; i < r->nres; i++)
            if (!strcmp(r->res_name[i], y)) {
                *v = r->res[i];
                return r->ok;
            }
        return 0;
    }
    return r->reachable > 0;
}

static int known_y(const san_sweep *s, const char *y)
{
    for (int i = 0; fields[i]; i++)
        if (!strcmp(fields[i], y))
            return 1;
    return san_sweep_find_result(s, y) >= 0;
}

/* "mode, slaves, buffer" into buf. */
static void axis_names(const san_sweep *s, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int a = 0; a < s->spec.naxes && k < n; a++)
        k += snprintf(buf + k, n - k, "%s%s", a ? ", " : "", s->spec.axis[a].name);
}

static void result_names(const san_sweep *s, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->nres && k < n; i++)
        k += snprintf(buf + k, n - k, "%s%s", i ? ", " : "", s->res_name[i]);
}

/* Which axes make up the series: the ones named, then every other that
 * varies (except x).  Returns the count, or -1 with err. */
static int series_axes(const san_sweep *s, int ax, const char *series, int *out,
                       char *err, size_t n)
{
    int k = 0;
    char *copy = series ? strdup(series) : NULL;
    for (char *tok = copy ? strtok(copy, ",") : NULL; tok; tok = strtok(NULL, ",")) {
        int a = san_sweep_find_axis(s, tok);
        if (a < 0) {
            char names[512];
            axis_names(s, names, sizeof names);
            sweep_err(err, n, "--series: unknown parameter '%s' (the parameters are: %s)", tok, names);
            free(copy);
            return -1;
        }
        if (a != ax)
            out[k++] = a;
    }
    free(copy);
    for (int a = 0; a < s->spec.naxes; a++) {
        int have = a == ax;
        for (int i = 0; i < k; i++)
            have |= out[i] == a;
        if (!have && s->spec.axis[a].nvalues > 1)
            out[k++] = a;
    }
    return k;
}

/* "async, 5": the values only, the parameters' names are the legend's
 * title (legend_title), not repeated on every entry. */
static char *series_label(const san_sweep *s, const san_sweep_row *r, const int *sa, int nsa,
                          const char *y)
{
    char buf[512];
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < nsa && k < sizeof buf; i++) {
        int a = sa[i];
        if (r->pick[a] < 0)
            continue;
        k += snprintf(buf + k, sizeof buf - k, "%s%s", k ? ", " : "",
                      s->spec.axis[a].values[r->pick[a]]);
    }
    return strdup(k ? buf : y);
}

/* "mode, buffer": the names of the series' parameters. */
static void legend_title(const san_sweep *s, const int *sa, int nsa, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < nsa && k < n; i++)
        k += snprintf(buf + k, n - k, "%s%s", k ? ", " : "", s->spec.axis[sa[i]].name);
}

static int add_point(san_plot_series *c, double x, double y)
{
    double *px = realloc(c->x, (c->n + 1) * sizeof *px);
    if (px)
        c->x = px;
    double *py = realloc(c->y, (c->n + 1) * sizeof *py);
    if (py)
        c->y = py;
    if (!px || !py)
        return -1;
    c->x[c->n] = x;
    c->y[c->n++] = y;
    return 0;
}

static void sort_points(san_plot_series *c)
{
    for (int i = 1; i < c->n; i++)
        for (int j = i; j > 0 && c->x[j - 1] > c->x[j]; j--) {
            double t = c->x[j]; c->x[j] = c->x[j - 1]; c->x[j - 1] = t;
            t = c->y[j]; c->y[j] = c->y[j - 1]; c->y[j - 1] = t;
        }
}

/* A curve with no x at all (x does not apply, e.g. the buffer of the
 * synchronous model) and one value is a horizontal reference line. */
static void finish_curve(san_plot_series *c)
{
    int any_x = 0;
    for (int i = 0; i < c->n; i++)
        any_x |= isfinite(c->x[i]);
    if (!any_x && c->n == 1)
        c->hline = 1;
    else
        sort_points(c);
}

static void free_curves(san_plot_series *c, int n)
{
    for (int k = 0; k < n; k++) {
        free(c[k].label);
        free(c[k].x);
        free(c[k].y);
    }
    free(c);
}

static int build_curves(const san_sweep *s, int ax, const char *y, const int *sa, int nsa,
                        san_plot_series **out)
{
    san_plot_series *c = calloc(s->nvariants + 1, sizeof *c);
    int nc = 0;
    if (!c)
        return -1;
    for (int v = 0; v < s->nvariants; v++) {
        const san_sweep_row *r = &s->rows[v];
        double yv;
        if (!r->pick || !y_value(r, y, &yv))
            continue;
        char *label = series_label(s, r, sa, nsa, y);
        int k = 0;
        while (k < nc && label && strcmp(c[k].label, label))
            k++;
        if (!label || (k == nc && !(c[nc++].label = strdup(label))) ||
            add_point(&c[k], san_sweep_row_value(s, r, ax), yv) < 0) {
            free(label);
            free_curves(c, nc);
            return -1;
        }
        free(label);
    }
    for (int k = 0; k < nc; k++)
        finish_curve(&c[k]);
    *out = c;
    return nc;
}

/* o's title and labels, NULL ones from the sweep ("" stays: none). */
static san_plot_opts with_defaults(const san_sweep *s, int ax, const char *y,
                                   const san_plot_opts *o, char *title, size_t n)
{
    san_plot_opts r;
    if (o)
        r = *o;
    else
        san_plot_opts_default(&r);
    snprintf(title, n, "%s vs %s", y, s->spec.axis[ax].name);
    if (!r.title)
        r.title = title;
    if (!r.xlabel)
        r.xlabel = s->spec.axis[ax].name;
    if (!r.ylabel)
        r.ylabel = y;
    return r;
}

int san_sweep_plot_ex(const san_sweep *s, const char *file, const char *x,
                      const char *y, const char *series, const san_plot_opts *o,
                      char *err, size_t n)
{
    /* before with_defaults copies it */
    if (o && BASE_OPTS_FOREIGN(o, "plot", "san_plot_opts_default", err, n))
        return -2;
    char names[1024];
    int ax = san_sweep_find_axis(s, x);
    if (ax < 0) {
        axis_names(s, names, sizeof names);
        sweep_err(err, n, "--x: unknown parameter '%s' (the parameters are: %s)", x, names);
        return -2;
    }
    if (!s->spec.axis[ax].numeric) {
        sweep_err(err, n, "--x: '%s' is not numeric; use it as --series", x);
        return -2;
    }
    if (!known_y(s, y)) {
        result_names(s, names, sizeof names);
        sweep_err(err, n, "--y: unknown index '%s' (the results are: %s; or reachable_states, "
                  "time_s, iterations)", y, names);
        return -2;
    }
    int *sa = malloc((s->spec.naxes + 1) * sizeof *sa);
    if (!sa)
        return -1;
    int nsa = series_axes(s, ax, series, sa, err, n);
    if (nsa < 0) {
        free(sa);
        return -2;
    }
    san_plot_series *c = NULL;
    int nc = build_curves(s, ax, y, sa, nsa, &c);
    char legend[512];
    legend_title(s, sa, nsa, legend, sizeof legend);
    free(sa);
    if (nc < 0)
        return -1;
    char title[256];
    san_plot_opts look = with_defaults(s, ax, y, o, title, sizeof title);
    if (!look.legend_title && legend[0])
        look.legend_title = legend;
    int rc = san_plot_ex(file, &look, c, nc, err, n);
    free_curves(c, nc);
    return rc;
}

int san_sweep_plot(const san_sweep *s, const char *file, const char *x,
                   const char *y, const char *series, const char *title,
                   char *err, size_t n)
{
    san_plot_opts o;
    san_plot_opts_default(&o);
    o.title = title;
    o.xlabel = o.ylabel = NULL;
    return san_sweep_plot_ex(s, file, x, y, series, &o, err, n);
}
