/*
 * plot_none.c - plots in a build without cairo (configure --without-cairo):
 * every other feature works; a plot asked for says how to get one.
 * san_plot and san_plot_opts_default are in plot_opts.c, for both builds.
 */
#include "base/services.h"
#include "sweep/sweep_int.h"

int san_plot_ex(const char *file, const san_plot_opts *o, const san_plot_series *s, int ns,
                char *err, size_t n)
{
    (void)s;
    (void)ns;
    if (o && BASE_OPTS_FOREIGN(o, "plot", "san_plot_opts_default", err, n))
        return -2;
    sweep_err(err, n, "--plot %s: this san was built without cairo (configure "
              "--with-cairo, with libcairo2-dev installed)", file);
    return -2;
}
