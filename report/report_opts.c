/*
 * report_opts.c - the options of san_report_solve and san_report_transient
 * made by the library and set by name, for callers that do not see
 * their layouts (issue 30 item 4; solver/analysis/analysis_opts.c says why
 * keys and text).  The source name and the levels are copied in.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"

typedef struct {
    san_solve_report_opts o;    /* first: the pointer callers hold */
    char *source;
} solve_box;

typedef struct {
    san_time_report_opts o;     /* first */
    char *source;
    double *levels;
} time_box;

#define OFF(f) offsetof(san_solve_report_opts, f)
static const base_opt solve_keys[] = {
    { "tol", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(tol), 1e-300, 1, 0, NULL, NULL },
    { "auto_picked", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(auto_picked), 0, 1, 0, NULL, NULL },
    { NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};
#undef OFF

#define OFF(f) offsetof(san_time_report_opts, f)
static const base_opt time_keys[] = {
    { "passage", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(passage), 0, 1, 0, NULL, NULL },
    { "eps", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(eps), 1e-300, 0.5, 0, NULL, NULL },
    { "complete", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(complete), 0, 1, 0, NULL, NULL },
    { "ntimes_asked", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(ntimes_asked), -1, 2147483647.0, 0,
      NULL, NULL },
    { NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};
#undef OFF

san_solve_report_opts *san_solve_report_opts_new(void)
{
    solve_box *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    san_solve_report_opts_default(&b->o);
    return &b->o;
}

void san_solve_report_opts_free(san_solve_report_opts *o)
{
    solve_box *b = (solve_box *)o;
    if (!b)
        return;
    free(b->source);
    free(b);
}

san_status san_solve_report_opts_set(san_solve_report_opts *o, const char *key,
                                     const char *value, char *msg, size_t n)
{
    return base_opt_set(solve_keys, o, key, value, msg, n);
}

/* *owned = a copy of s, and *field pointing to it: SAN_OK or SAN_E_NOMEM. */
static san_status set_text(char **owned, const char **field, const char *s)
{
    char *c = strdup(s ? s : "");
    if (!c)
        return SAN_E_NOMEM;
    free(*owned);
    *owned = c;
    *field = c;
    return SAN_OK;
}

san_status san_solve_report_opts_set_source(san_solve_report_opts *o, const char *source)
{
    return set_text(&((solve_box *)o)->source, &o->source, source);
}

san_time_report_opts *san_time_report_opts_new(void)
{
    time_box *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    san_time_report_opts_default(&b->o);
    return &b->o;
}

void san_time_report_opts_free(san_time_report_opts *o)
{
    time_box *b = (time_box *)o;
    if (!b)
        return;
    free(b->source);
    free(b->levels);
    free(b);
}

san_status san_time_report_opts_set(san_time_report_opts *o, const char *key,
                                    const char *value, char *msg, size_t n)
{
    return base_opt_set(time_keys, o, key, value, msg, n);
}

san_status san_time_report_opts_set_source(san_time_report_opts *o, const char *source)
{
    return set_text(&((time_box *)o)->source, &o->source, source);
}

san_status san_time_report_opts_set_levels(san_time_report_opts *o, const double *levels,
                                           int n)
{
    time_box *b = (time_box *)o;
    double *c = NULL;
    if (n > 0) {
        c = malloc((size_t)n * sizeof *c);
        if (!c)
            return SAN_E_NOMEM;
        memcpy(c, levels, (size_t)n * sizeof *c);
    }
    free(b->levels);
    b->levels = c;
    o->levels = c;
    o->nlevels = n > 0 ? n : 0;
    return SAN_OK;
}
