/*
 * where.c - positions of compiled objects in the parsed text; see where.h.
 *
 * Compiled names are the declared ones with an index or a replica
 * appended: automaton "P[3]" of `aut P[..]`, state "d[2]" of
 * `stt d[..]`, event "e[1]" of `e[..]` and "e@P[3]" for a replica's
 * copy.  The declared name is the part before '[' (or '@').
 */
#include <string.h>
#include "lang/ast.h"
#include "lang/where.h"
#include "lang/model_int.h"

static size_t base_len(const char *name)
{
    return strcspn(name, "[@");
}

static int same_base(const char *decl, const char *compiled)
{
    size_t n = base_len(compiled);
    return strlen(decl) == n && !strncmp(decl, compiled, n);
}

static int found(ast_pos p, int *line, int *col)
{
    *line = p.line;
    *col = p.col;
    return 1;
}

static const ast_aut *find_aut(const san_model *m, int a)
{
    const ast_file *f = m->syntax;
    for (int i = 0; f && i < f->nauts; i++)
        if (f->auts[i].name && same_base(f->auts[i].name, m->aut[a].name))
            return &f->auts[i];
    return NULL;
}

/* The `stt` block of local state s, and s's place in it: *p of *n
 * states (the block's states are consecutive and share the base name). */
static const ast_state *find_block(const san_model *m, int a, int s, int *p, int *n)
{
    const ast_aut *A = find_aut(m, a);
    const lang_automaton *M = &m->aut[a];
    if (!A)
        return NULL;
    size_t len = base_len(M->states[s]);
    int lo = s, hi = s;
    while (lo > 0 && base_len(M->states[lo - 1]) == len && !strncmp(M->states[lo - 1], M->states[s], len))
        lo--;
    while (hi + 1 < M->nstates && base_len(M->states[hi + 1]) == len &&
           !strncmp(M->states[hi + 1], M->states[s], len))
        hi++;
    *p = s - lo;
    *n = hi - lo + 1;
    for (int i = 0; i < A->nstates; i++)
        if (!A->states[i].is_from && same_base(A->states[i].name, M->states[s]))
            return &A->states[i];
    return NULL;
}

int where_reach(const san_model *m, int *line, int *col)
{
    const ast_file *f = m->syntax;
    return f && f->reach ? found(f->reach->pos, line, col) : 0;
}

int where_automaton(const san_model *m, int a, int *line, int *col)
{
    const ast_aut *A = find_aut(m, a);
    return A ? found(A->pos, line, col) : 0;
}

int where_state(const san_model *m, int a, int s, int *line, int *col)
{
    int p, n;
    const ast_state *st = find_block(m, a, s, &p, &n);
    return st ? found(st->pos, line, col) : 0;
}

int where_rate(const san_model *m, int e, int *line, int *col)
{
    const ast_file *f = m->syntax;
    for (int i = 0; f && i < f->nevents; i++)
        if (same_base(f->events[i].name, m->ev[e].name) && f->events[i].rate)
            return found(f->events[i].rate->pos, line, col);
    return 0;
}

/* The first label of e in the `to` clauses of st that lead somewhere
 * from place p of a block of n (dropped: only those that fall outside). */
static int label_in(const ast_state *st, const char *ev, int p, int n, int dropped, int *line,
                    int *col, int *rel)
{
    for (int t = 0; t < st->ntos; t++) {
        const ast_to *to = &st->tos[t];
        int out = to->kind == DST_REL && (p + to->rel < 0 || p + to->rel >= n);
        if (out != dropped)
            continue;
        for (int l = 0; l < to->nlabels; l++)
            if (same_base(to->labels[l].ev.name, ev)) {
                *rel = to->rel;
                return found(dropped ? to->pos : to->labels[l].ev.pos, line, col);
            }
    }
    return 0;
}

int where_trans(const san_model *m, int a, int s, int e, int *line, int *col)
{
    int p, n, rel;
    const ast_state *st = find_block(m, a, s, &p, &n);
    if (!st)
        return 0;
    if (label_in(st, m->ev[e].name, p, n, 0, line, col, &rel))
        return 1;
    const ast_aut *A = find_aut(m, a);
    for (int i = 0; i < A->nstates; i++)
        if (A->states[i].is_from && !strcmp(A->states[i].name, st->name) &&
            label_in(&A->states[i], m->ev[e].name, p, n, 0, line, col, &rel))
            return 1;
    return 0;
}

int where_dropped(const san_model *m, int a, int s, int e, int *line, int *col, int *rel)
{
    int p, n;
    const ast_state *st = find_block(m, a, s, &p, &n);
    return st && st->dom && label_in(st, m->ev[e].name, p, n, 1, line, col, rel);
}

/* The first to(+e)/to(-e)/to(=e) of st labelled ev. */
static int by_in(const ast_state *st, const char *ev, int *line, int *col, char *sign)
{
    for (int t = 0; t < st->ntos; t++) {
        const ast_to *to = &st->tos[t];
        if (to->kind != DST_BY && to->kind != DST_AT)
            continue;
        for (int l = 0; l < to->nlabels; l++)
            if (same_base(to->labels[l].ev.name, ev)) {
                *sign = to->kind == DST_AT ? '=' : to->rel > 0 ? '+' : '-';
                return found(to->pos, line, col);
            }
    }
    return 0;
}

int where_by(const san_model *m, int a, int s, int e, int *line, int *col, char *sign)
{
    int p, n;
    const ast_state *st = find_block(m, a, s, &p, &n);
    if (!st)
        return 0;
    if (by_in(st, m->ev[e].name, line, col, sign))
        return 1;
    const ast_aut *A = find_aut(m, a);
    for (int i = 0; i < A->nstates; i++)
        if (A->states[i].is_from && !strcmp(A->states[i].name, st->name) &&
            by_in(&A->states[i], m->ev[e].name, line, col, sign))
            return 1;
    return 0;
}
