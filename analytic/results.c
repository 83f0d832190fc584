/*
 * results.c - what an evaluation of analytic/ gives back: the growing
 * list of named results and the message of a refusal.  A leaf: the
 * models (mw.c, cluster.c) and their dispatcher (eval.c) use it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analytic/analytic_int.h"

void analytic_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

int analytic_results_add(san_analytic_results *r, const char *name, double v)
{
    char **nn = realloc(r->name, (r->n + 1) * sizeof *nn);
    if (!nn)
        return -1;
    r->name = nn;
    double *vv = realloc(r->value, (r->n + 1) * sizeof *vv);
    if (!vv)
        return -1;
    r->value = vv;
    if (!(nn[r->n] = strdup(name)))
        return -1;
    vv[r->n++] = v;
    return 0;
}

void san_analytic_results_free(san_analytic_results *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->name[i]);
    free(r->name);
    free(r->value);
    memset(r, 0, sizeof *r);
}
