/*
 * time_plot.c - a transient or passage analysis drawn over t: one curve
 * per result of the model (transient), or P(T <= t) (passage), through
 * the library's plots (sweep/plot.c).
 */
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

/* Is name in the comma-separated list (NULL: every name)? */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int san_report_transient_plot(const char *file, const san_plot_opts *look, const san_model *m,
                              const san_analysis *a, int passage, const char *ynames, char *err,
                              size_t errn)
{
    san_plot_opts o;
    if (look && BASE_OPTS_FOREIGN(look, "plot", "san_plot_opts_default", err, errn))
        return -2;
    if (look)
        o = *look;
    else
        san_plot_opts_default(&o);
    o.title = o.title ? o.title : m->name;
    o.xlabel = o.xlabel ? o.xlabel : "t";
    o.ylabel = o.ylabel ? o.ylabel : passage ? "P(T <= t)" : "value";
    const an_time_answer *T = &a->tr;
    san_plot_series *s = calloc(m->nres + 1, sizeof *s);
    int ns = 0, rc;
    if (!s) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    if (passage) {
        s[ns++] = (san_plot_series){ (char *)"P(T <= t)", T->ntimes, T->times, T->cdf, 0, 0 };
    } else {
        for (int i = 0; i < m->nres; i++) {
            if (rep_hidden(m->res[i].name) || !listed(ynames, m->res[i].name))
                continue;
            double *y = malloc((T->ntimes + 1) * sizeof *y);
            if (!y)
                break;
            for (int k = 0; k < T->ntimes; k++)
                y[k] = T->at[k].results[i];
            s[ns++] = (san_plot_series){ m->res[i].name, T->ntimes, T->times, y, 0, 0 };
        }
    }
    if (errn)
        err[0] = '\0';
    if (ns == 0) {
        snprintf(err, errn, "--plot: nothing to draw (--y names no result)");
        rc = -2;
    } else if ((rc = san_plot_ex(file, &o, s, ns, err, errn)) != 0 && !err[0]) {
        snprintf(err, errn, "--plot: failed");
    }
    if (!passage)
        for (int i = 0; i < ns; i++)
            free(s[i].y);
    free(s);
    return rc;
}
