/*
 * dindices.c - results, marginals and throughputs of a distributed
 * answer: each rank sums over the states it owns with the serial
 * accumulation (space_sums_add, solver/space/state_sums.c), the sums are
 * added over the ranks (MPI_Allreduce); only the most probable states
 * travel (ntop per rank, gathered), kept and ordered by the serial rule
 * (space_top_keep, space_top_cmp).
 */
#include <stdlib.h>
#include <string.h>
#include "solver/petsc/dist.h"
#include "lang/expr.h"
#include "solver/space/state_sums.h"

/* The rank's sums: results, throughputs, marginals, in one row (what
 * reduces over the ranks), compensated as the serial chunks' are (comp:
 * the same row's compensations, dropped after as serial drops a chunk's). */
static int local_sums(const dspace *s, const PetscScalar *x, const int64_t *moff, double *row)
{
    const san_model *m = s->m;
    succ_ctx c;
    const int64_t nr = m->nres, ne = m->nev;
    int *st = calloc(m->naut + 1, sizeof *st);
    double *comp = calloc(nr + ne + moff[m->naut] + 1, sizeof *comp);
    if (!st || !comp || succ_init(&c, m) < 0) {
        free(st);
        free(comp);
        return -1;
    }
    space_sums S = { row, comp, row + nr, row + nr + ne, comp + nr, comp + nr + ne };
    space_sums_add(m, moff, s->index, x, s->nloc, &c, st, &S);
    succ_free(&c);
    free(st);
    free(comp);
    return 0;
}

static int top_cmp(const void *a, const void *b)
{
    return space_top_cmp(a, b);
}

/* The ntop most probable states over every rank, into sol and top_index. */
static int top_states(const dspace *s, const PetscScalar *x, int ntop, int size,
                      san_solution *sol, int64_t *top_index)
{
    space_top *mine = calloc(ntop + 1, sizeof *mine);
    space_top *all = calloc((size_t)ntop * size + 1, sizeof *all);
    if (!mine || !all) {
        free(mine);
        free(all);
        return -1;
    }
    int have = 0;
    for (int64_t i = 0; i < s->nloc; i++)
        space_top_keep(mine, ntop, &have, (space_top){ x[i], s->index[i], i });
    for (int k = have; k < ntop; k++)
        mine[k] = (space_top){ -1, INT64_MAX, -1 };     /* no state: sorts last */
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
    int64_t *moff = space_marginal_offsets(m);
    if (!moff)
        return SAN_E_NOMEM;
    const int64_t width = m->nres + m->nev + moff[m->naut];
    double *loc = calloc(width + 1, sizeof *loc), *all = calloc(width + 1, sizeof *all);
    int ok = loc && all && space_solution_alloc(m, ntop, sol) == 0;
    const PetscScalar *xa = NULL;
    if (VecGetArrayRead(x, &xa))
        ok = 0;
    if (ok && local_sums(s, xa, moff, loc) < 0)
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
