/*
 * indices.c - from the stationary vector to the indices users read:
 * results, marginals, throughputs, most probable states.
 */
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "solver/analysis/indices.h"
#include "solver/numeric/linsolve.h"
#include "solver/space/state_space.h"
#include "solver/space/state_sums.h"
#include "solver/space/succ.h"
#include "lang/model_int.h"
#include "solver/space/solution.h"
#include "solver/space/space_int.h"

/* The indices are sums over the states, cut into chunks of INDEX_CHUNK
 * that threads take in any order; each chunk has its own partial sums,
 * added up in chunk order afterwards, so the results do not depend on
 * the number of threads.  (One thread took 4.5 s of a 13 s kron run on
 * tss.san: every event's rate in every state, for the throughputs.)
 * The sums of a chunk are those of every engine (space_sums_add). */
#define INDEX_CHUNK 65536

/* One chunk's sums and its most probable states. */
typedef struct {
    space_sums S;
    space_top *top;
    int ntop;
} chunk_sums;

/* The sums of states [lo, hi) into *P; c, s: this thread's scratch. */
static void chunk_indices(const san_space *sp, const san_solution *sol, int ntop,
                          const int64_t *moff, succ_ctx *c, int *s, int64_t lo, int64_t hi,
                          chunk_sums *P)
{
    for (int64_t i = lo; i < hi; i++)
        space_top_keep(P->top, ntop, &P->ntop, (space_top){ sol->pi[i], sp->index[i], i });
    space_sums_add(sp->m, moff, sp->index + lo, sol->pi + lo, hi - lo, c, s, &P->S);
}

/* Chunk k's sums into the solution, in chunk order; its top states
 * into top. */
static void add_chunk(const san_model *m, san_solution *sol, int ntop, const int64_t *moff,
                      const chunk_sums *P, double *res_c, space_top *top, int *have)
{
    for (int r = 0; r < m->nres; r++)           /* compensated again */
        space_kahan_add(&sol->results[r], &res_c[r], P->S.res[r]);
    for (int e = 0; e < m->nev; e++)
        space_kahan_add(&sol->throughput[e], &res_c[m->nres + e], P->S.thr[e]);
    for (int a = 0; a < m->naut; a++)
        for (int q = 0; q < m->aut[a].nstates; q++)
            space_kahan_add(&sol->marginal[a][q], &res_c[m->nres + m->nev + moff[a] + q],
                            P->S.marg[moff[a] + q]);
    for (int k = 0; k < P->ntop; k++)
        space_top_keep(top, ntop, have, P->top[k]);
}

san_status an_solution_indices(const san_space *sp, san_solution *sol, int ntop, san_diag *d)
{
    return solution_indices_until(sp, sol, ntop, 0, d);
}

san_status solution_indices_until(const san_space *sp, san_solution *sol, int ntop,
                                  double deadline, san_diag *d)
{
    const san_model *m = sp->m;
    const int64_t nchunk = (sp->n + INDEX_CHUNK - 1) / INDEX_CHUNK;
    int64_t *moff = space_marginal_offsets(m);
    if (!moff)
        return SAN_E_NOMEM;
    /* per chunk: results, throughputs and marginals, each with its
     * compensation */
    const int64_t nm = moff[m->naut], width = 2 * (m->nres + m->nev + nm);
    double *sums = calloc(nchunk * width + 1, sizeof *sums);
    space_top *tops = calloc(nchunk * ntop + ntop + 1, sizeof *tops);
    chunk_sums *part = calloc(nchunk + 1, sizeof *part);
    double *res_c = calloc(m->nres + m->nev + nm + 1, sizeof *res_c);
    int ok = sums && tops && part && res_c && space_solution_alloc(m, ntop, sol) == 0;
    for (int64_t k = 0; ok && k < nchunk; k++) {
        double *w = sums + k * width;
        double *thr = w + 2 * m->nres, *marg = thr + 2 * m->nev;
        part[k] = (chunk_sums){ { w, w + m->nres, thr, marg, thr + m->nev, marg + nm },
                                tops + (k + 1) * ntop, 0 };
    }
    int failed = !ok, late = 0;
    SAN_OMP(omp parallel if(ok && nchunk > 1))
    {
        succ_ctx c;
        int *s = calloc(m->naut + 1, sizeof *s);
        int mine = s && succ_init(&c, m) == 0;
        if (!mine) {
            SAN_OMP(omp atomic write)
            failed = 1;
        }
        SAN_OMP(omp for schedule(dynamic, 1))
        for (int64_t k = 0; k < nchunk; k++) {
            int stop;
            SAN_OMP(omp atomic read)
            stop = late;
            if (!stop && deadline > 0 && san_now() >= deadline) {
                SAN_OMP(omp atomic write)
                late = 1;
                stop = 1;
            }
            if (mine && ok && !stop) {
                const int64_t lo = k * INDEX_CHUNK;
                chunk_indices(sp, sol, ntop, moff, &c, s, lo,
                              lo + INDEX_CHUNK < sp->n ? lo + INDEX_CHUNK : sp->n, &part[k]);
            }
        }
        if (mine)
            succ_free(&c);
        free(s);
    }
    int have = 0;       /* the top states over every chunk, in tops[0..ntop) */
    for (int64_t k = 0; !failed && !late && k < nchunk; k++)
        add_chunk(m, sol, ntop, moff, &part[k], res_c, tops, &have);
    for (int k = 0; !failed && !late && k < have; k++)
        sol->top[k] = (space_top_state){ tops[k].state, tops[k].p };
    sol->ntop = failed || late ? 0 : have;
    free(res_c);
    free(sums);
    free(tops);
    free(part);
    free(moff);
    if (failed)
        return SAN_E_NOMEM;
    if (late) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the time limit was reached while computing the "
                     "indices of %lld states; raise --time-limit", (long long)sp->n);
        return SAN_E_INTERRUPTED;
    }
    lang_results_derive(m, sol->results, sol->throughput, d);
    return SAN_OK;
}
