/*
 * props_opts.c - san_props_opts made by the library and set by name, and
 * the answers of a list of properties, for callers that do not see
 * their layouts (issue 30 item 4; solver/analysis/analysis_opts.c says why
 * keys and text).
 */
#include <stddef.h>
#include <stdlib.h>
#include "base/services.h"

#define OFF(f) offsetof(san_props_opts, f)
static const base_opt keys[] = {
    { "tol", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(solve.tol), 1e-300, 1, 0, NULL, NULL },
    { "eps", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(eps), 1e-300, 0.5, 0, NULL, NULL },
    { "max_steps", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(max_steps), 1, 1e18, 0, NULL, NULL },
    { "max_memory", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(space.max_memory), 1e-300, 1e30, 1,
      NULL, NULL },
    { "max_states", BASE_OPT_INTEGER, BASE_OPT_INT64, OFF(space.max_states), 1, 9e18, 1,
      NULL, NULL },
    { NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};
#undef OFF

san_props_opts *san_props_opts_new(void)
{
    san_props_opts *o = malloc(sizeof *o);
    if (o)
        san_props_opts_default(o);
    return o;
}

void san_props_opts_free(san_props_opts *o)
{
    free(o);
}

san_status san_props_opts_set(san_props_opts *o, const char *key, const char *value, char *msg,
                              size_t n)
{
    return base_opt_set(keys, o, key, value, msg, n);
}

void san_props_opts_set_interrupt(san_props_opts *o, volatile int *flag)
{
    o->space.interrupt = o->solve.interrupt = flag;
}

san_prop_answer *san_prop_answers_new(int n)
{
    return calloc(n > 0 ? (size_t)n : 1, sizeof(san_prop_answer));
}

void san_prop_answers_free(san_prop_answer *a)
{
    free(a);
}

san_prop_answer *san_prop_answers_at(san_prop_answer *a, int i)
{
    return &a[i];
}
