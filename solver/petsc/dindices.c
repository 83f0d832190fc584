/*
 * dindices.c - results, marginals and throughputs of a distributed
 * answer: each rank sums over the states it owns, the sums are added
 * over the ranks (MPI_Allreduce); only the most probable states travel
 * (ntop per rank, gathered).  The sums are those of the serial
 * solver/analysis/indices.c (expectations of the results, per-state
 * marginals, p x the event's rate), over the same states.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/petsc/dist.h"
#include "lang/expr.h"
#include "solver/space/succ.h"

typedef struct {
    double p;
    int64_t index;
} top_entry;

/* Descending probability; ties by product index, so that every rank
 * count gives the same list. */
static int top_cmp(const void *a, const void *b)
{
    const top_entry *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The rank's sums: results, throughputs, marginals (one row). */
static int local_sums(const dspace *s, const PetscScalar *x, const int64_t *moff, double *res,
                      double *thr, double *marg)
{
    const san_model *m = s->m;
    succ_ctx c;
    int *st = calloc(m->naut + 1, sizeof *st);
    double *comp = calloc(m->nres + 1, sizeof *comp);
    if (!st || !comp || succ_init(&c, m) < 0) {
        free(st);
        free(comp);
        return -1;
    }
    for (int64_t i = 0; i < s->nloc; i++) {
        const double p = x[i];
        if (p == 0)
            continue;
        san_state_decode(m, s->index[i], st);
        for (int a = 0; a < m->naut; a++)
            marg[moff[a] + st[a]] += p;
        for (int r = 0; r < m->nres; r++) {
            if (m->res[r].derived)
                continue;
            /* compensated: millions of small terms */
            const double v = p * san_expr_eval(m->res[r].expr, st) - comp[r];
            const double t = res[r] + v;
            comp[r] = (t - res[r]) - v;
            res[r] = t;
        }
        succ_new_state(&c);
        for (int e = 0; e < m->nev; e++)
            thr[e] += p * succ_event_rate(&c, e, st);
    }
    succ_free(&c);
    free(st);
    free(comp);
    return 0;
}

/* The ntop most probable states over every rank, into sol and top_index. */
static int top_states(const dspace *s, const PetscScalar *x, int ntop, int size,
                      san_solution *sol, int64_t *top_index)
{
    top_entry *mine = calloc(ntop + 1, sizeof *mine);
    top_entry *all = calloc((size_t)ntop * size + 1, sizeof *all);
    if (!mine || !all) {
        free(mine);
        free(all);
        return -1;
    }
    int have = 0;
    for (int64_t i = 0; i < s->nloc && ntop > 0; i++) {
        top_entry t = { x[i], s->index[i] };
        if (have == ntop && top_cmp(&t, &mine[ntop - 1]) >= 0)
            continue;
        int k = have < ntop ? have++ : ntop - 1;
        while (k > 0 && top_cmp(&t, &mine[k - 1]) < 0) {
            mine[k] = mine[k - 1];
            k--;
        }
        mine[k] = t;
    }
    for (int k = have; k < ntop; k++)
        mine[k] = (top_entry){ -1, INT64_MAX };     /* no state: sorts last */
    MPI_Allgather(mine, (int)(ntop * sizeof *mine), MPI_BYTE, all,
                  (int)(ntop * sizeof *mine), MPI_BYTE, PETSC_COMM_WORLD);
    qsort(all, (size_t)ntop * size, sizeof *all, top_cmp);
    sol->ntop = 0;
    for (int k = 0; k < ntop && k < ntop * size && all[k].p >= 0; k++) {
        sol->top[k].state = k;
        sol->top[k].p = all[k].p;
        top_index[k] = all[k].index;
        sol->ntop++;
    }
    free(mine);
    free(all);
    return 0;
}

san_status dindices(const dctx *c, const dspace *s, Vec x, int ntop, san_solution *sol,
                    int64_t *top_index, san_diag *d)
{
    const san_model *m = s->m;
    int64_t *moff = malloc((m->naut + 1) * sizeof *moff);
    if (!moff)
        return SAN_E_NOMEM;
    moff[0] = 0;
    for (int a = 0; a < m->naut; a++)
        moff[a + 1] = moff[a] + m->aut[a].nstates;
    const int64_t width = m->nres + m->nev + moff[m->naut];
    double *loc = calloc(width + 1, sizeof *loc), *all = calloc(width + 1, sizeof *all);
    sol->results = calloc(m->nres + 1, sizeof *sol->results);
    sol->throughput = calloc(m->nev + 1, sizeof *sol->throughput);
    sol->marginal = calloc(m->naut + 1, sizeof *sol->marginal);
    sol->top = calloc(ntop + 1, sizeof *sol->top);
    int ok = loc && all && sol->results && sol->throughput && sol->marginal && sol->top;
    for (int a = 0; ok && a < m->naut; a++)
        ok = (sol->marginal[a] = calloc(m->aut[a].nstates, sizeof **sol->marginal)) != NULL;
    const PetscScalar *xa = NULL;
    if (VecGetArrayRead(x, &xa))
        ok = 0;
    if (ok && local_sums(s, xa, moff, loc, loc + m->nres, loc + m->nres + m->nev) < 0)
        ok = 0;
    int fine = ok, allfine = 0;
    MPI_Allreduce(&fine, &allfine, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (allfine) {
        MPI_Allreduce(loc, all, (int)width, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
        if (top_states(s, xa, ntop, c->size, sol, top_index) < 0)
            allfine = 0;
    }
    if (xa)
        VecRestoreArrayRead(x, &xa);
    if (allfine) {
        memcpy(sol->results, all, m->nres * sizeof *all);
        memcpy(sol->throughput, all + m->nres, m->nev * sizeof *all);
        for (int a = 0; a < m->naut; a++)
            memcpy(sol->marginal[a], all + m->nres + m->nev + moff[a],
                   m->aut[a].nstates * sizeof *all);
    }
    free(loc);
    free(all);
    free(moff);
    if (!allfine) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory for the indices");
        return SAN_E_NOMEM;
    }
    lang_results_derive(m, sol->results, sol->throughput, d);
    return SAN_OK;
}
