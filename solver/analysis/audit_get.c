/*
 * audit_get.c - san_audit_model's options and answer without their
 * layouts (issue 30 item 4): options made by the library and set by
 * name (as analysis_opts.c, whose comment says why), the answer read through
 * accessors.
 */
#include <stddef.h>
#include <stdlib.h>
#include "base/services.h"

static const char *const explore[] = { "auto", "always", "never", NULL };

#define OFF(f) offsetof(san_audit_opts, f)
static const base_opt keys[] = {
    { "explore", BASE_OPT_WORD, BASE_OPT_INT, OFF(explore), 0, 0, 0, explore, NULL },
    { "max_states", BASE_OPT_INTEGER, BASE_OPT_INT64, OFF(max_states), 1, 9e18, 1, NULL,
      NULL },
    { "max_memory", BASE_OPT_NUMBER, BASE_OPT_DOUBLE, OFF(max_memory), 1e-300, 1e30, 1, NULL,
      NULL },
    { NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};
#undef OFF

void san_audit_opts_default(san_audit_opts *o)
{
    *o = (san_audit_opts){ .struct_size = sizeof *o, .explore = SAN_EXPLORE_AUTO };
}

san_audit_opts *san_audit_opts_new(void)
{
    san_audit_opts *o = malloc(sizeof *o);
    if (o)
        san_audit_opts_default(o);
    return o;
}

void san_audit_opts_free(san_audit_opts *o)
{
    free(o);
}

san_status san_audit_opts_set(san_audit_opts *o, const char *key, const char *value, char *msg,
                              size_t n)
{
    return base_opt_set(keys, o, key, value, msg, n);
}

san_audit *san_audit_new(void)
{
    return calloc(1, sizeof(san_audit));
}

void san_audit_free(san_audit *r)
{
    free(r);
}

int san_audit_explored(const san_audit *r)
{
    return r->explored;
}

int san_audit_complete(const san_audit *r)
{
    return r->complete;
}

int64_t san_audit_states(const san_audit *r)
{
    return r->states;
}

const char *san_audit_why(const san_audit *r)
{
    return r->why;
}
