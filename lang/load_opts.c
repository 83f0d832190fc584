/*
 * load_opts.c - san_load_opts made by the library, its -D definitions
 * added one by one (the names copied) and read back, and the positions
 * of san_text_with_results, for callers that do not see the layouts
 * (issue 30 item 4; solver/analysis/analysis_opts.c says why keys and text).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"

typedef struct {
    san_load_opts o;            /* first: the pointer callers hold */
    int cap;                    /* room in o.defs */
} load_box;

#define OFF(f) offsetof(san_load_opts, f)
static const base_opt keys[] = {
    { "peps_warnings", BASE_OPT_INTEGER, BASE_OPT_INT, OFF(peps_warnings), 0, 1, 0, NULL,
      NULL },
    { NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};
#undef OFF

void san_load_opts_default(san_load_opts *o)
{
    *o = (san_load_opts){ .struct_size = sizeof *o };
}

san_load_opts *san_load_opts_new(void)
{
    load_box *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    san_load_opts_default(&b->o);
    return &b->o;
}

void san_load_opts_free(san_load_opts *o)
{
    if (!o)
        return;
    for (int k = 0; k < o->ndefs; k++)
        free((char *)o->defs[k].name);
    free(o->defs);
    free(o);
}

san_status san_load_opts_set(san_load_opts *o, const char *key, const char *value, char *msg,
                             size_t n)
{
    return base_opt_set(keys, o, key, value, msg, n);
}

san_status san_load_opts_define(san_load_opts *o, const char *name, double value)
{
    load_box *b = (load_box *)o;
    if (o->ndefs == b->cap) {
        int cap = b->cap ? 2 * b->cap : 8;
        san_define *d = realloc(o->defs, (size_t)cap * sizeof *d);
        if (!d)
            return SAN_E_NOMEM;
        o->defs = d;
        b->cap = cap;
    }
    char *c = strdup(name);
    if (!c)
        return SAN_E_NOMEM;
    o->defs[o->ndefs++] = (san_define){ .name = c, .value = value };
    return SAN_OK;
}

int san_load_opts_define_used(const san_load_opts *o, int k)
{
    return o->defs[k].used;
}

const san_define *san_load_opts_defines(const san_load_opts *o, int *n)
{
    *n = o->ndefs;
    return o->defs;
}

san_text_pos *san_text_positions_new(int n)
{
    return calloc(n > 0 ? (size_t)n : 1, sizeof(san_text_pos));
}

void san_text_positions_free(san_text_pos *at)
{
    free(at);
}

void san_text_position(const san_text_pos *at, int i, int *line, int *col)
{
    *line = at[i].line;
    *col = at[i].col;
}
