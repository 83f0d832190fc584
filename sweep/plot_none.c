/*
 * plot_none.c - plots in a build without cairo (configure --without-cairo):
 * every other feature works; a plot asked for says how to get one.
 */
#include "sweep.h"

int san_plot(const char *file, const char *title, const char *xlabel,
             const char *ylabel, const san_plot_series *s, int ns,
             char *err, size_t n)
{
    (void)title;
    (void)xlabel;
    (void)ylabel;
    (void)s;
    (void)ns;
    sweep_err(err, n, "--plot %s: this san was built without cairo (configure "
              "--with-cairo, with libcairo2-dev installed)", file);
    return -2;
}
