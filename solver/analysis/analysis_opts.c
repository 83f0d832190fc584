/*
 * analysis_opts.c - san_analysis_opts made by the library and set by name
 * (issue 30 item 4): the Python binding fills the options without
 * their layout.  Why keys and text rather than one typed setter per
 * field: the options are nested structs of four kinds (space, solve,
 * transient, the analysis's own), about thirty fields, several of them
 * enumerations; one table per struct (base_opt) keeps the setter one
 * function, the values go through the command's parsers (the same
 * ranges, the same words: "kron", "off", "gmres"), and adding an option
 * adds a table row, not an exported symbol.  What is no number or word
 * (the interrupt flag, arrays, expressions) has a typed setter.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"

/* The options and the arrays they point to, owned (copied in). */
typedef struct {
    san_analysis_opts o;        /* first: the pointer callers hold */
    double *times, *levels;
} opts_box;

static int parse_method(const char *s, int *out)
{
    san_method m;
    if (san_method_parse(s, &m))
        return -1;
    *out = (int)m;
    return 0;
}

static const char *const storages[] = { "auto", "sparse", "kron", NULL };
static const char *const lumps[] = { "auto", "off", NULL };
static const char *const kinds[] = { "steady", "transient", "passage", NULL };

#define OFF(f) offsetof(san_analysis_opts, f)
/* The ranges of the command's flags (san(1)). */
static const base_opt keys[] = {
    { "method", BASE_OPT_WORD, BASE_OPT_INT, OFF(solve.method), 0, 0, 0, NULL, parse_method },
    { "tol", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(solve.tol), 1e-300, 1, 0, NULL, NULL },
    { "storage", BASE_OPT_WORD, BASE_OPT_INT, OFF(storage), 0, 0, 0, storages, NULL },
    { "lump", BASE_OPT_WORD, BASE_OPT_INT, OFF(lump), 0, 0, 0, lumps, NULL },
    { "kind", BASE_OPT_WORD, BASE_OPT_INT, OFF(kind), 0, 0, 0, kinds, NULL },
    { "max_memory", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(space.max_memory), 1e-300, 1e30, 1,
      NULL, NULL },
    { "max_states", BASE_OPT_INTEGER, BASE_OPT_INT64, OFF(space.max_states), 1, 9e18, 1,
      NULL, NULL },
    { "time_limit", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(time_limit), 1e-6, 1e9, 1, NULL,
      NULL },
    { "ntop", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(ntop), 0, 2147483647.0, 0, NULL, NULL },
    { "space_only", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(space_only), 0, 1, 0, NULL, NULL },
    { "eps", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(tr.eps), 1e-300, 0.5, 0, NULL, NULL },
    { "max_steps", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(tr.max_steps), 1, 1e18, 0, NULL,
      NULL },
    { "rewards", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(tr.rewards), 0, 1, 0, NULL, NULL },
    { "mean_tol", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(tr.mean_tol), 1e-300, 1, 0, NULL,
      NULL },
    { NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};
#undef OFF

san_analysis_opts *san_analysis_opts_new(void)
{
    opts_box *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    san_analysis_opts_default(&b->o);
    return &b->o;
}

void san_analysis_opts_free(san_analysis_opts *o)
{
    opts_box *b = (opts_box *)o;
    if (!b)
        return;
    free(b->times);
    free(b->levels);
    free(b);
}

san_status san_analysis_opts_set(san_analysis_opts *o, const char *key, const char *value,
                                 char *msg, size_t n)
{
    return base_opt_set(keys, o, key, value, msg, n);
}

void san_analysis_opts_set_interrupt(san_analysis_opts *o, volatile int *flag)
{
    o->space.interrupt = o->solve.interrupt = flag;
}

/* Replaces the box's own array *own and the options' view of it
 * (*field, *nfield) with a copy of v[0..n): the caller's array may go
 * away after the call.  n <= 0 clears both. */
static san_status keep_copy(double **own, const double **field, int *nfield, const double *v,
                            int n)
{
    double *c = NULL;
    if (n > 0) {
        c = malloc((size_t)n * sizeof *c);
        if (!c)
            return SAN_E_NOMEM;
        memcpy(c, v, (size_t)n * sizeof *c);
    }
    free(*own);
    *own = c;
    *field = c;
    *nfield = n > 0 ? n : 0;
    return SAN_OK;
}

san_status san_analysis_opts_set_times(san_analysis_opts *o, const double *times, int n)
{
    opts_box *b = (opts_box *)o;
    return keep_copy(&b->times, &o->tr.times, &o->tr.ntimes, times, n);
}

san_status san_analysis_opts_set_levels(san_analysis_opts *o, const double *levels, int n)
{
    opts_box *b = (opts_box *)o;
    return keep_copy(&b->levels, &o->tr.levels, &o->tr.nlevels, levels, n);
}

void san_analysis_opts_set_states(san_analysis_opts *o, const san_expr *initial,
                                  const san_expr *until)
{
    o->tr.initial = initial;
    o->tr.until = until;
}
