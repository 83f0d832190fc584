/*
 * indices.c - from the stationary vector to the indices users read:
 * results, marginals, throughputs, most probable states.
 */
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "solver/analysis/indices.h"
#include "solver/numeric/linsolve.h"
#include "solver/space/succ.h"
#include "solver/space/space.h"

/* ---------------------------------------------------------------- */
/* Indices                                                            */
/* ---------------------------------------------------------------- */

static void keep_top(san_top_state *top, int ntop, int *have, int64_t state, double p)
{
    if (*have == ntop && (ntop == 0 || p <= top[ntop - 1].p))
        return;
    int k = *have < ntop ? (*have)++ : ntop - 1;
    while (k > 0 && top[k - 1].p < p) {
        top[k] = top[k - 1];
        k--;
    }
    top[k].state = state;
    top[k].p = p;
}

/* The indices are sums over the states, cut into chunks of INDEX_CHUNK
 * that threads take in any order; each chunk has its own partial sums,
 * added up in chunk order afterwards, so the results do not depend on
 * the number of threads.  (One thread took 4.5 s of a 13 s kron run on
 * tss.san: every event's rate in every state, for the throughputs.) */
#define INDEX_CHUNK 65536

/* One chunk's sums: results (compensated: millions of small terms),
 * throughputs, marginals (all automata's states, in a row), its most
 * probable states. */
typedef struct {
    double *res, *res_c, *thr, *marg;
    san_top_state *top;
    int ntop;
} chunk_sums;

/* *sum += v, compensated (Kahan): *comp carries what rounding lost. */
static inline void kahan_add(double *sum, double *comp, double v)
{
    const double y = v - *comp, t = *sum + y;
    *comp = (t - *sum) - y;
    *sum = t;
}

/* The sums of states [lo, hi) into *P; c, s: this thread's scratch. */
static void chunk_indices(const san_space *sp, const san_solution *sol, int ntop,
                          const int64_t *moff, succ_ctx *c, int *s, int64_t lo, int64_t hi,
                          chunk_sums *P)
{
    const san_model *m = sp->m;
    for (int64_t i = lo; i < hi; i++) {
        double p = sol->pi[i];
        keep_top(P->top, ntop, &P->ntop, i, p);
        if (p == 0)
            continue;
        san_state_decode(m, sp->index[i], s);
        for (int a = 0; a < m->naut; a++)
            P->marg[moff[a] + s[a]] += p;
        for (int r = 0; r < m->nres; r++) {
            if (m->res[r].derived)
                continue;
            kahan_add(&P->res[r], &P->res_c[r], p * san_expr_eval(m->res[r].expr, s));
        }
        succ_new_state(c);
        for (int e = 0; e < m->nev; e++)
            P->thr[e] += p * succ_event_rate(c, e, s);
    }
}

/* Chunk k's sums into the solution, in chunk order. */
static void add_chunk(const san_model *m, san_solution *sol, int ntop, const int64_t *moff,
                      const chunk_sums *P, double *res_c)
{
    for (int r = 0; r < m->nres; r++)           /* compensated again */
        kahan_add(&sol->results[r], &res_c[r], P->res[r]);
    for (int e = 0; e < m->nev; e++)
        sol->throughput[e] += P->thr[e];
    for (int a = 0; a < m->naut; a++)
        for (int q = 0; q < m->aut[a].nstates; q++)
            sol->marginal[a][q] += P->marg[moff[a] + q];
    for (int k = 0; k < P->ntop; k++)
        keep_top(sol->top, ntop, &sol->ntop, P->top[k].state, P->top[k].p);
}

san_status san_solution_indices(const san_space *sp, san_solution *sol, int ntop, san_diag *d)
{
    return solution_indices_until(sp, sol, ntop, 0, d);
}

san_status solution_indices_until(const san_space *sp, san_solution *sol, int ntop,
                                  double deadline, san_diag *d)
{
    const san_model *m = sp->m;
    const int64_t nchunk = (sp->n + INDEX_CHUNK - 1) / INDEX_CHUNK;
    int64_t *moff = malloc((m->naut + 1) * sizeof *moff);
    if (!moff)
        return SAN_E_NOMEM;
    moff[0] = 0;
    for (int a = 0; a < m->naut; a++)
        moff[a + 1] = moff[a] + m->aut[a].nstates;
    /* per chunk: results twice, throughputs, marginals */
    const int64_t width = 2 * m->nres + m->nev + moff[m->naut];
    double *sums = calloc(nchunk * width + 1, sizeof *sums);
    san_top_state *tops = calloc(nchunk * ntop + 1, sizeof *tops);
    chunk_sums *part = calloc(nchunk + 1, sizeof *part);
    sol->results = calloc(m->nres + 1, sizeof *sol->results);
    sol->throughput = calloc(m->nev + 1, sizeof *sol->throughput);
    sol->marginal = calloc(m->naut + 1, sizeof *sol->marginal);
    sol->top = calloc(ntop + 1, sizeof *sol->top);
    double *res_c = calloc(m->nres + 1, sizeof *res_c);
    int ok = sums && tops && part && sol->results && sol->throughput && sol->marginal &&
             sol->top && res_c;
    for (int a = 0; ok && a < m->naut; a++)
        ok = (sol->marginal[a] = calloc(m->aut[a].nstates, sizeof **sol->marginal)) != NULL;
    for (int64_t k = 0; ok && k < nchunk; k++) {
        double *w = sums + k * width;
        part[k] = (chunk_sums){ w, w + m->nres, w + 2 * m->nres, w + 2 * m->nres + m->nev,
                                tops + k * ntop, 0 };
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
    for (int64_t k = 0; !failed && !late && k < nchunk; k++)
        add_chunk(m, sol, ntop, moff, &part[k], res_c);
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

void san_solution_free(const san_model *m, san_solution *sol)
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
