/*
 * plot_simple.c - san_plot, the first entry point, kept for its callers:
 * a title and the axes' labels on the default options, drawn by
 * san_plot_ex (plot.c, or plot_none.c without cairo).
 */
#include "sweep/sweep_int.h"

int san_plot(const char *file, const char *title, const char *xlabel,
             const char *ylabel, const san_plot_series *s, int ns,
             char *err, size_t n)
{
    san_plot_opts o;
    san_plot_opts_default(&o);
    o.title = title;
    o.xlabel = xlabel;
    o.ylabel = ylabel;
    return san_plot_ex(file, &o, s, ns, err, n);
}
