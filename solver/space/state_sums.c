/*
 * state_sums.c - the indices' sums over a slice of states and the order
 * of the top states (state_sums.h): a leaf of solver/space/, shared by
 * the serial indices and the distributed ones.
 */
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "solver/space/state_sums.h"
#include "solver/space/solution.h"
#include "lang/model_int.h"

int64_t *space_marginal_offsets(const san_model *m)
{
    int64_t *moff = malloc((m->naut + 1) * sizeof *moff);
    if (!moff)
        return NULL;
    moff[0] = 0;
    for (int a = 0; a < m->naut; a++)
        moff[a + 1] = moff[a] + m->aut[a].nstates;
    return moff;
}

void space_sums_add(const san_model *m, const int64_t *moff, const int64_t *index,
                    const double *p, int64_t n, succ_ctx *c, int *s, space_sums *S)
{
    for (int64_t i = 0; i < n; i++) {
        const double pi = p[i];
        if (pi == 0)
            continue;
        san_state_decode(m, index[i], s);
        for (int a = 0; a < m->naut; a++)
            space_kahan_add(&S->marg[moff[a] + s[a]], &S->marg_c[moff[a] + s[a]], pi);
        for (int r = 0; r < m->nres; r++) {
            if (m->res[r].derived)
                continue;
            space_kahan_add(&S->res[r], &S->res_c[r], pi * san_expr_eval(m->res[r].expr, s));
        }
        succ_new_state(c);
        for (int e = 0; e < m->nev; e++)
            space_kahan_add(&S->thr[e], &S->thr_c[e], pi * succ_event_rate(c, e, s));
    }
}

int space_solution_alloc(const san_model *m, int ntop, san_solution *sol)
{
    sol->results = calloc(m->nres + 1, sizeof *sol->results);
    sol->throughput = calloc(m->nev + 1, sizeof *sol->throughput);
    sol->marginal = calloc(m->naut + 1, sizeof *sol->marginal);
    sol->top = calloc(ntop + 1, sizeof *sol->top);
    int ok = sol->results && sol->throughput && sol->marginal && sol->top;
    for (int a = 0; ok && a < m->naut; a++)
        ok = (sol->marginal[a] = calloc(m->aut[a].nstates, sizeof **sol->marginal)) != NULL;
    return ok ? 0 : -1;
}

void space_solution_clear(const san_model *m, san_solution *sol)
{
    free(sol->pi);
    free(sol->results);
    free(sol->throughput);
    if (sol->marginal)
        for (int a = 0; a < m->naut; a++)
            free(sol->marginal[a]);
    free(sol->marginal);
    free(sol->top);
    memset(sol, 0, sizeof *sol);
    sol->info.lu_correction = -1;   /* none made */
}

int space_top_cmp(const space_top *x, const space_top *y)
{
    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

void space_top_keep(space_top *top, int ntop, int *have, space_top t)
{
    if (ntop <= 0 || (*have == ntop && space_top_cmp(&t, &top[ntop - 1]) >= 0))
        return;
    int k = *have < ntop ? (*have)++ : ntop - 1;
    while (k > 0 && space_top_cmp(&t, &top[k - 1]) < 0) {
        top[k] = top[k - 1];
        k--;
    }
    top[k] = t;
}
