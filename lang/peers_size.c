/*
 * peers_size.c - how long an expression's text is once PEPS 2003 or
 * GTAexpress has stored it.
 *
 * Both peers keep every function as postfix text in which each
 * identifier is replaced, in place, by its own stored text (src/lb/
 * func.C, rm_cnst): a function of functions is as long as everything
 * it reads, however it is split into identifiers.  Two places copy that
 * text into 128-byte buffers without a bound (doc/compat.md):
 *
 *   - PEPS 2003, NET::negative_event (src/lb/put2file.C): the rate of a
 *     synchronized event (and each routing probability of one) goes into
 *     a matrix cell of MAX_FUNC_NAME = 128 bytes; longer, the heap is
 *     overwritten and the compiler crashes later (the pipeline --group
 *     model: rf_2 is about 200 bytes);
 *   - GTAexpress, Compile_Dictionary (src/pf/compiler.C): each function's
 *     and result's text goes into a peps_name of 128 bytes (PEPS 2003 has
 *     4,096 there); the rows are contiguous, so only the text of the last
 *     ones can run past the array (the 20-term sum of doc/compat.md).
 *
 * The length is estimated from the syntax tree, token by token as the
 * peers write them ("@k" and two spaces for st A, one space after a
 * number or an operator); where their form is unknown (sum_rw, a
 * negation) the estimate is generous, so that it bounds the real length.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/peers.h"
#include "lang/model_int.h"

/* Saturate: a chain of functions each reading the one before twice
 * doubles at every step. */
#define SIZE_CAP 1000000L
/* Identifiers expanded per estimate: each adds 2 bytes at least, so past
 * this many the text is longer than every bound that matters here; and
 * a chain of 10^5 functions (tests/cli/frontend.sh) costs no more. */
#define NAME_BUDGET 2000

static long len_rec(const san_model *m, const ast_expr *e, int *budget);

static long add(long a, long b)
{
    return a + b > SIZE_CAP ? SIZE_CAP : a + b;
}

static long num_len(double v)
{
    char buf[40];
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        snprintf(buf, sizeof buf, "%.17g", v);
    return (long)strlen(buf) + 1;
}

static long aut_len(const san_model *m, const ast_ref *r)
{
    int a = peers_find_aut(m, r);
    return num_len(a >= 0 ? a : m->naut) + 3;       /* "@k  " */
}

static const ast_ident *ast_id(const ast_file *f, const char *name)
{
    for (int i = 0; i < f->nids; i++)
        if (!strcmp(f->ids[i].name, name))
            return &f->ids[i];
    return NULL;
}

static long name_len(const san_model *m, const ast_file *f, const ast_expr *e, int *budget)
{
    if (--*budget < 0)
        return SIZE_CAP;
    const lang_ident *v = e->ref.index ? NULL : peers_find_id(m, e->ref.name);
    const ast_ident *id = v ? ast_id(f, e->ref.name) : NULL;
    if (!v)
        return 8;                   /* a state name, written as its index */
    if (v->overridden || !id || !id->expr)
        return num_len(v->value);
    long n = len_rec(m, id->expr, budget);
    /* the dialect writes a whole min/max as 0 + min(...) */
    return id->expr->kind == AE_MIN || id->expr->kind == AE_MAX ? add(n, 4) : n;
}

long peers_text_len(const san_model *m, const ast_expr *e)
{
    int budget = NAME_BUDGET;
    return len_rec(m, e, &budget);
}

static long len_rec(const san_model *m, const ast_expr *e, int *budget)
{
    const ast_file *f = m->syntax;
    long n = 0;
    int a0, a1;
    switch (e->kind) {
    case AE_NUM:
        return num_len(e->num);
    case AE_NAME:
        return name_len(m, f, e, budget);
    case AE_ST: case AE_RW:
        return aut_len(m, &e->ref) + (e->kind == AE_RW ? 2 : 0);
    case AE_NB: case AE_SUMRW: case AE_PRODRW:
        /* stored as "@$s a0 a1" (measured: 13 bytes for nb [P[0]..P[10]]
         * using), unless the dialect writes it out (dialect.c) */
        if ((e->kind != AE_NB && !e->has_state) || peers_agree(m, e))
            return 24;
        a0 = e->has_range ? peers_find_aut(m, &e->lo) : 0;
        a1 = e->has_range ? peers_find_aut(m, &e->hi) : m->naut - 1;
        if (a0 < 0 || a1 < a0)
            a0 = 0, a1 = m->naut - 1;
        /* written out as one comparison per automaton at worst */
        return add(16, 24L * (a1 - a0 + 1));
    case AE_NEG: case AE_NOT:
        return add(len_rec(m, e->a, budget), 4);
    case AE_BIN:
        n = add(len_rec(m, e->a, budget), len_rec(m, e->b, budget));
        return add(n, 4);
    case AE_MIN: case AE_MAX: case AE_FN:
        for (int k = 0; k < e->nargs; k++)
            n = add(n, add(len_rec(m, e->args[k], budget), k ? 4 : 0));
        return n;
    case AE_THR:
        return 16;
    }
    return 16;
}
