/*
 * define_why.c - what to tell the user whose -D NAME=VALUE set nothing:
 * -D sets constants only, and the names that are something else (a
 * domain above all: "-D K=5" where K = [0..4] is the natural thing to
 * try) deserve more than "no constant named 'K'".
 */
#include <stdio.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/expr.h"
#include "lang/model_int.h"

/* The domain's text when it is one range of literal bounds, [0..4]. */
static int literal_range(const ast_domain *d, double *lo, double *hi)
{
    if (!d || d->n != 1 || !d->hi[0] || d->lo[0]->kind != AE_NUM || d->hi[0]->kind != AE_NUM)
        return 0;
    *lo = d->lo[0]->num;
    *hi = d->hi[0]->num;
    return 1;
}

static const ast_domain *domain_of(const san_model *m, const char *name)
{
    const ast_file *f = m->syntax;
    for (int i = 0; f && i < f->nids; i++)
        if (f->ids[i].name && !strcmp(f->ids[i].name, name))
            return f->ids[i].dom;
    return NULL;
}

static void domain_why(const san_model *m, const char *name, double value, char *buf, size_t n)
{
    double lo, hi;
    if (literal_range(domain_of(m, name), &lo, &hi))
        snprintf(buf, n, "'%s' is a domain ([%g..%g]), not a constant, and -D sets constants "
                 "only; to choose its bound from the command line, declare the bound as a "
                 "constant and the domain over it ('%s_max = %g;' and '%s = [%g..%s_max];'), "
                 "then give -D %s_max=%g", name, lo, hi, name, hi, name, lo, name, name, value);
    else
        snprintf(buf, n, "'%s' is a domain, not a constant, and -D sets constants only; to "
                 "choose its bound from the command line, declare the bound as a constant "
                 "('%s_max = ...;' and '%s = [0..%s_max];'), then give -D %s_max=%g",
                 name, name, name, name, name, value);
}

/* Another kind of name, or none: what it is, or the closest constant. */
static void other_why(const san_model *m, const char *name, char *buf, size_t n)
{
    for (int a = 0; a < m->naut; a++)
        if (!strcmp(m->aut[a].name, name)) {
            snprintf(buf, n, "'%s' is an automaton, not a constant", name);
            return;
        }
    for (int e = 0; e < m->nev; e++)
        if (!strcmp(m->ev[e].name, name)) {
            snprintf(buf, n, "'%s' is an event, not a constant; -D sets constants only "
                     "(its rate may be one)", name);
            return;
        }
    for (int r = 0; r < m->nres; r++)
        if (!strcmp(m->res[r].name, name)) {
            snprintf(buf, n, "'%s' is a result, not a constant", name);
            return;
        }
    san_suggest s;
    san_suggest_init(&s, name);
    for (int i = 0; i < m->nid; i++)
        if (!m->id[i].is_domain && !m->id[i].is_function)
            san_suggest_add(&s, m->id[i].name);
    const char *near = san_suggest_best(&s);
    snprintf(buf, n, "the model has no constant named '%s'%s%.200s%s", name,
             near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

void san_model_define_why(const san_model *m, const char *name, double value, char *buf,
                          size_t n)
{
    for (int i = 0; i < m->nid; i++)
        if (m->id[i].is_domain && !strcmp(m->id[i].name, name)) {
            domain_why(m, name, value, buf, n);
            return;
        }
    other_why(m, name, buf, n);
}
